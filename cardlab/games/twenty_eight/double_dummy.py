"""What the double-dummy solver reads of a Twenty-Eight hand, and how it scores one.

The solver (:mod:`cardlab.solver`) reaches these through
:mod:`cardlab.games.double_dummy`: the hands, the trick in progress, the card
points each side has taken, whether cards are being played, the search's card
numbering (J 9 A 10 K Q 8 7), the points of a whole hand, and the game points
of a finished hand or of a contract in a deal's double-dummy table.

Before the show the open solve plays *as if the trump were known to all* from
the next card on, exactly what the engine does after a show with nobody
obliged to trump: the face-down indicator joins the bidder's hand, and cards
already in the current trick keep the status they had (a trump-suit card
played while the trump was hidden is an ordinary card). The seat after the
dealer always leads, so the rows of a deal's table are the possible leaders and
its strains the four trumps.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit
from cardlab.core.cards import NUM_SUITS
from cardlab.core.layout import PHASE, team_of
from cardlab.core.search_cards import points_by_search_card, search_numbering
from cardlab.games.twenty_eight import engine as twenty_eight
from cardlab.games.twenty_eight import rules as twenty_eight_rules

#: The card points of a whole hand, and the standard four-player deck.
HAND_TOTAL = twenty_eight_rules.TOTAL_CARD_POINTS
STANDARD_DECK = twenty_eight_rules.STANDARD_DECK
#: The first of the four slots holding each seat's cards (the face-down indicator in none).
HANDS = twenty_eight.HANDS
#: The cards dealt in one stage: four a seat, twice.
CARDS_PER_STAGE = twenty_eight_rules.CARDS_PER_STAGE
#: The strains of a deal's table; the seat after the dealer leads whoever declares.
STRAINS = (0, 1, 2, 3)
DECLARER_LEADS = False
#: The game parameters a solve reads: none, it plays the standard deal and tricks.
SOLVED_PARAMETERS = ()
#: Rule variants that change which cards may be played in ways the solver does not model.
UNMODELLED_VARIANTS = ("jack_discard_restriction", "thani")

#: Numbering and card points.
TWENTY_EIGHT_SEARCH, TWENTY_EIGHT_CARDS = search_numbering(twenty_eight_rules.STANDARD_DECK,
                                                           twenty_eight_rules.STRENGTH)
TWENTY_EIGHT_POINTS = points_by_search_card(TWENTY_EIGHT_CARDS, twenty_eight_rules.CARD_POINTS)
#: A trick is worth only the points of its cards.
TWENTY_EIGHT_TRICK_POINTS = 0


@njit(cache=True)
def team_points(s):
    """Team 0's card points taken so far this hand."""
    return s[twenty_eight.CARD_POINTS_WON]


@njit(cache=True)
def hand_over(s):
    """Is the play of the hand over?"""
    return s[PHASE] == twenty_eight.GAME_OVER


@njit(cache=True)
def boundary_key(s):
    """``(hands..., tag part)``: what decides the rest of the hand at a trick boundary."""
    return (s[twenty_eight.HANDS], s[twenty_eight.HANDS + 1], s[twenty_eight.HANDS + 2],
            s[twenty_eight.HANDS + 3],
            s[twenty_eight.TRICK_LEADER] * 2 + s[twenty_eight.TRUMP_SHOWN])


@njit(cache=True)
def at_boundary(s):
    """Is no trick in progress, and no caller obliged to trump?"""
    return s[twenty_eight.TRICK_SIZE] == 0 and s[twenty_eight.MUST_PLAY_TRUMP] < 0


@njit(cache=True)
def strain_tables(strain):
    """``(trump, search_card_of, card_of, points, trick_points)`` of a strain (a trump suit)."""
    trump = strain if strain < NUM_SUITS else -1
    return (trump, TWENTY_EIGHT_SEARCH, TWENTY_EIGHT_CARDS, TWENTY_EIGHT_POINTS,
            TWENTY_EIGHT_TRICK_POINTS)


@njit(cache=True)
def strain_of_state(s):
    """The strain of the contract being played: its trump suit."""
    return s[twenty_eight.TRUMP]


@njit(cache=True)
def open_hands(s, hands):
    """Every seat's cards (card ids) into ``hands``: the hidden indicator is the bidder's."""
    for seat in range(4):
        hands[seat] = s[twenty_eight.HANDS + seat]
    if twenty_eight.trump_hidden(s):
        hands[s[twenty_eight.BIDDER]] |= card_bit(s[twenty_eight.INDICATOR])


@njit(cache=True)
def trick_in_progress(s):
    """``(size, leader, tricks_left, trumps_from, won, first)``: the current trick's cards so far,
    its leader, the tricks left to play, the position from which trump-suit cards are trumps (the
    next card's while the trump is hidden), team 0's card points taken this hand, and the slot of
    the trick's first card."""
    size = s[twenty_eight.TRICK_SIZE]
    leader = s[twenty_eight.TRICK_LEADER]
    tricks_left = twenty_eight_rules.NUM_TRICKS - s[twenty_eight.TRICK_NUMBER]
    trumps_from = size if twenty_eight.trump_hidden(s) else s[twenty_eight.TRUMPS_FROM]
    won = s[twenty_eight.CARD_POINTS_WON]
    first = twenty_eight.TRICK
    return size, leader, tricks_left, trumps_from, won, first


@njit(cache=True)
def is_play_phase(s):
    """Are cards being played?"""
    return s[PHASE] == twenty_eight.PLAYING


def hand_score(s: np.ndarray, points: tuple[int, int]) -> tuple[int, int]:
    """Each team's game points if the hand of ``s`` ends with ``points`` (ruling 8)."""
    bidding_team = team_of(int(s[twenty_eight.BIDDER]))
    made = points[bidding_team] >= s[twenty_eight.HIGH_BID]
    game_points = int(twenty_eight.game_points_for(s[twenty_eight.HIGH_BID], made))
    return (game_points, -game_points) if bidding_team == 0 else (-game_points, game_points)


def check_hand_stands(s: np.ndarray) -> None:
    """Under the engine's rules, a ValueError if ruling 7 voids the hand at the show."""
    if twenty_eight.trump_hidden(s) and twenty_eight.bidding_team_held_all_trumps(s):
        raise ValueError("ruling 7 voids this hand at the show: the bidding team holds every trump")


def contracts(table_points: Callable[[int, int], tuple[int, int]], leaders: Iterable[int],
              strains: Iterable[int], dealer: int, min_bid: int) -> list[tuple]:
    """Every contract of a deal's table: ``(declarer, strain, value, rank, points, net)``.

    ``table_points(leader, strain)`` is each team's points from the table; the
    seat after ``dealer`` leads whoever declares, a contract's rank is its value
    and its net the declaring team's game points less the other's. The bids
    run from the game's own lowest (``min_bid`` is Kaiser's choice).
    """
    found = []
    leader = (dealer + 1) % twenty_eight_rules.NUM_PLAYERS
    for declarer in range(twenty_eight_rules.NUM_PLAYERS):
        team = declarer % 2
        for strain in strains:
            points = table_points(leader, strain)
            for value in range(twenty_eight_rules.MIN_BID, twenty_eight_rules.MAX_BID + 1):
                game_points = int(twenty_eight.game_points_for(value, points[team] >= value))
                found.append((declarer, strain, value, value, points, 2 * game_points))
    return found
