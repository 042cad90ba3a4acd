"""What the double-dummy solver reads of a Kaiser hand, and how it scores one.

The solver (:mod:`cardlab.solver`) reaches these through
:mod:`cardlab.games.double_dummy`: the hands, the trick in progress, the
points each side has taken, whether cards are being played, the search's card
numbering for each strain (the high order with a trump or at no trump, the
reversed order at low no trump), the points of a whole hand, and the score of
a finished hand or of a contract in a deal's double-dummy table.

In Kaiser the declarer leads the first trick, so the rows of a deal's table
are the four possible declarers, and its strains the four trumps, no trump and
low no trump.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from numba import njit

from cardlab.core.cards import NUM_CARD_IDS, NUM_SUITS
from cardlab.core.layout import PHASE
from cardlab.core.search_cards import (
    LOW_NO_TRUMP_STRAIN,
    NO_TRUMP_STRAIN,
    points_by_search_card,
    search_numbering,
)
from cardlab.games.kaiser import engine as kaiser
from cardlab.games.kaiser import rules as kaiser_rules

#: The points a whole hand distributes (tricks, 5H, 3S), and the standard four-player deck.
HAND_TOTAL = kaiser_rules.POINTS_PER_HAND
STANDARD_DECK = kaiser_rules.STANDARD_DECK
#: The first of the four slots holding each seat's cards.
HANDS = kaiser.HANDS
#: The cards dealt in one round: the whole deal, one card a seat at a time.
CARDS_PER_STAGE = kaiser_rules.NUM_PLAYERS * kaiser_rules.HAND_SIZE
#: The strains of a deal's table; the declarer leads, so its rows are the declarers.
STRAINS = (0, 1, 2, 3, NO_TRUMP_STRAIN, LOW_NO_TRUMP_STRAIN)
DECLARER_LEADS = True
#: The game parameters a solve reads (the contracts it offers); it plays the standard deal and tricks.
SOLVED_PARAMETERS = ("min_bid", "low_no_trump")
#: Rule variants that change which cards may be played, or what a trick is worth, in ways the
#: solver does not model (it plays the standard trick and point rules).
UNMODELLED_VARIANTS = ("kitty_34_card", "high_or_low_announced_after_bid", "any_contract_high_or_low",
                       "kaiser_bid_solo", "kaiser_bid_team", "kaiser_40", "three_spades_needs_three_tricks")

_KAISER_POINTS = np.zeros(NUM_CARD_IDS, dtype=np.int64)
_KAISER_POINTS[kaiser_rules.FIVE_OF_HEARTS] = kaiser_rules.FIVE_OF_HEARTS_POINTS
_KAISER_POINTS[kaiser_rules.THREE_OF_SPADES] = kaiser_rules.THREE_OF_SPADES_POINTS

#: Numberings and card points: the high order (trumps and no trump) and the low no-trump order.
KAISER_HIGH_SEARCH, KAISER_HIGH_CARDS = search_numbering(kaiser_rules.STANDARD_DECK,
                                                         kaiser_rules.HIGH_STRENGTH)
KAISER_LOW_SEARCH, KAISER_LOW_CARDS = search_numbering(kaiser_rules.STANDARD_DECK,
                                                       kaiser_rules.LOW_STRENGTH)
KAISER_HIGH_POINTS = points_by_search_card(KAISER_HIGH_CARDS, _KAISER_POINTS)
KAISER_LOW_POINTS = points_by_search_card(KAISER_LOW_CARDS, _KAISER_POINTS)
#: Each trick is worth a point by itself.
KAISER_TRICK_POINTS = 1


@njit(cache=True)
def team_points(s):
    """Team 0's points taken so far this hand."""
    return s[kaiser.HAND_POINTS]


@njit(cache=True)
def hand_over(s):
    """Is the play of the hand over (a match would deal the next hand: stop there)?"""
    return s[kaiser.TRICK_NUMBER] == kaiser.NUM_TRICKS or s[PHASE] != kaiser.PLAYING


@njit(cache=True)
def boundary_key(s):
    """``(hands..., tag part)``: what decides the rest of the hand at a trick boundary."""
    return (s[kaiser.HANDS], s[kaiser.HANDS + 1], s[kaiser.HANDS + 2], s[kaiser.HANDS + 3],
            s[kaiser.TRICK_LEADER] * 2)


@njit(cache=True)
def at_boundary(s):
    """Is no trick in progress?"""
    return s[kaiser.TRICK_SIZE] == 0


@njit(cache=True)
def strain_tables(strain):
    """``(trump, search_card_of, card_of, points, trick_points)`` of a strain: a suit, NT or low NT."""
    if strain == LOW_NO_TRUMP_STRAIN:
        return -1, KAISER_LOW_SEARCH, KAISER_LOW_CARDS, KAISER_LOW_POINTS, KAISER_TRICK_POINTS
    trump = strain if strain < NUM_SUITS else -1
    return trump, KAISER_HIGH_SEARCH, KAISER_HIGH_CARDS, KAISER_HIGH_POINTS, KAISER_TRICK_POINTS


@njit(cache=True)
def strain_of_state(s):
    """The strain of the contract being played: its trump suit, or no trump / low no trump."""
    if s[kaiser.HIGH_BID] % 3 == kaiser_rules.LOW_NO_TRUMP:
        return LOW_NO_TRUMP_STRAIN
    trump = s[kaiser.TRUMP]
    return trump if trump >= 0 else NO_TRUMP_STRAIN


@njit(cache=True)
def open_hands(s, hands):
    """Every seat's cards (card ids) into ``hands``."""
    for seat in range(4):
        hands[seat] = s[kaiser.HANDS + seat]


@njit(cache=True)
def trick_in_progress(s):
    """``(size, leader, tricks_left, trumps_from, won, first)``: the current trick's cards so far,
    its leader, the tricks left to play, the position from which trump-suit cards are trumps,
    team 0's points taken this hand, and the slot of the trick's first card."""
    size = s[kaiser.TRICK_SIZE]
    leader = s[kaiser.TRICK_LEADER]
    tricks_left = kaiser_rules.NUM_TRICKS - s[kaiser.TRICK_NUMBER]
    trumps_from = 0
    won = s[kaiser.HAND_POINTS]
    first = kaiser.TRICK
    return size, leader, tricks_left, trumps_from, won, first


@njit(cache=True)
def is_play_phase(s):
    """Are cards being played?"""
    return s[PHASE] == kaiser.PLAYING


def hand_score(s: np.ndarray, points: tuple[int, int]) -> tuple[int, int]:
    """Each team's match-score change if the hand of ``s`` ends with ``points`` (the engine's scoring)."""
    final = s.copy()
    final[kaiser.HAND_POINTS] = points[0]
    final[kaiser.HAND_POINTS + 1] = points[1]
    deltas = kaiser.hand_deltas(final)
    return int(deltas[0]), int(deltas[1])


def contracts(table_points: Callable[[int, int], tuple[int, int]], leaders: Iterable[int],
              strains: Iterable[int], dealer: int, min_bid: int) -> list[tuple]:
    """Every contract of a deal's table: ``(declarer, strain, value, rank, points, net)``.

    ``table_points(leader, strain)`` is each team's points from the table; a
    contract's rank is its bidding order, its net the declaring team's score
    minus the other's, scored as at the start of a match (the defenders adding
    their points). The declarer leads, so ``dealer`` does not matter.
    """
    found = []
    for declarer in leaders:
        team = declarer % 2
        for strain in strains:
            kind = (kaiser_rules.WITH_TRUMP if strain < 4 else
                    kaiser_rules.NO_TRUMP if strain == NO_TRUMP_STRAIN else kaiser_rules.LOW_NO_TRUMP)
            multiplier = 1 if kind == kaiser_rules.WITH_TRUMP else 2
            points = table_points(declarer, strain)
            taken, other = points[team], points[1 - team]
            for value in range(min_bid, kaiser_rules.MAX_BID + 1):
                own = multiplier * (taken if taken >= value else -value)
                found.append((declarer, strain, value, 3 * value + kind, points, own - other))
    return found
