"""From an engine's state array to the search's position, for each game the solver knows.

The search (:mod:`cardlab.solver.search`) numbers cards by strength within
their suit: *search card* ``8 * suit + k`` is the ``k``-th weakest card of its
suit in the contract played. This module builds those numberings from each
game's deck and strength table (Kaiser's high and low no-trump orders,
Twenty-Eight's J 9 A 10 K Q 8 7) and reads a play-phase state through the
engines' named slots.

Twenty-Eight before the show: the search plays *as if the trump were known to
all* from the next card on, exactly what the engine does after a show with
nobody obliged to trump: the indicator joins the bidder's hand, and cards
already in the current trick keep the status they had (a trump-suit card
played while the trump was hidden is an ordinary card). The engine's own
phase-1 rules are the ``"engine"`` rules of :mod:`cardlab.solver.engine_search`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, lowest_card
from cardlab.core.cards import NUM_CARD_IDS, NUM_SUITS
from cardlab.core.layout import PHASE
from cardlab.games import kernels
from cardlab.games.kaiser import engine as kaiser
from cardlab.games.kaiser import rules as kaiser_rules
from cardlab.games.twenty_eight import engine as twenty_eight
from cardlab.games.twenty_eight import rules as twenty_eight_rules
from cardlab.solver.search import CARDS_PER_SUIT, NO_CARD, make_rules

KAISER, TWENTY_EIGHT = kernels.KAISER, kernels.TWENTY_EIGHT  # the games' kernel ids, as literals
#: The transposition table's size (log2 of its rows) for a game's solves: some twenty rows for
#: each bound a full solve stores (Kaiser about 1,300, Twenty-Eight about 10,000). Bigger is
#: slower, not faster: a bucket far in a table of many megabytes misses every cache.
TABLE_BITS = (15, 17)

NUM_SEARCH_CARDS = NUM_SUITS * CARDS_PER_SUIT


def search_numbering(deck: int, strength: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(search_card_of[card id], card_of[search card])`` for a deck of eight cards a suit."""
    search_card_of = np.full(NUM_CARD_IDS, NO_CARD, dtype=np.int64)
    card_of = np.full(NUM_SEARCH_CARDS, NO_CARD, dtype=np.int64)
    for suit in range(NUM_SUITS):
        cards = [c for c in range(13 * suit, 13 * suit + 13) if deck >> c & 1]
        if len(cards) != CARDS_PER_SUIT:
            raise ValueError(f"the solver needs {CARDS_PER_SUIT} cards of each suit, suit {suit} has "
                             f"{len(cards)}")
        for k, card in enumerate(sorted(cards, key=lambda c: strength[c])):
            search_card_of[card] = CARDS_PER_SUIT * suit + k
            card_of[CARDS_PER_SUIT * suit + k] = card
    return search_card_of, card_of


def _points_by_search_card(card_of: np.ndarray, points_of_card: np.ndarray) -> np.ndarray:
    return np.array([points_of_card[c] for c in card_of], dtype=np.int64)


_KAISER_POINTS = np.zeros(NUM_CARD_IDS, dtype=np.int64)
_KAISER_POINTS[kaiser_rules.FIVE_OF_HEARTS] = kaiser_rules.FIVE_OF_HEARTS_POINTS
_KAISER_POINTS[kaiser_rules.THREE_OF_SPADES] = kaiser_rules.THREE_OF_SPADES_POINTS

#: Numberings and card points: Kaiser's high order, its low no-trump order, Twenty-Eight's.
KAISER_HIGH_SEARCH, KAISER_HIGH_CARDS = search_numbering(kaiser_rules.STANDARD_DECK,
                                                         kaiser_rules.HIGH_STRENGTH)
KAISER_LOW_SEARCH, KAISER_LOW_CARDS = search_numbering(kaiser_rules.STANDARD_DECK,
                                                       kaiser_rules.LOW_STRENGTH)
KAISER_HIGH_POINTS = _points_by_search_card(KAISER_HIGH_CARDS, _KAISER_POINTS)
KAISER_LOW_POINTS = _points_by_search_card(KAISER_LOW_CARDS, _KAISER_POINTS)
KAISER_TRICK_POINTS = 1
TWENTY_EIGHT_SEARCH, TWENTY_EIGHT_CARDS = search_numbering(twenty_eight_rules.STANDARD_DECK,
                                                           twenty_eight_rules.STRENGTH)
TWENTY_EIGHT_POINTS = _points_by_search_card(TWENTY_EIGHT_CARDS, twenty_eight_rules.CARD_POINTS)
TWENTY_EIGHT_TRICK_POINTS = 0

#: Kaiser contract kinds the table solves beyond the four trumps (cardlab.games.kaiser.rules).
NO_TRUMP_STRAIN = NUM_SUITS  # strain 4: no trump
LOW_NO_TRUMP_STRAIN = NUM_SUITS + 1  # strain 5: low no trump


@njit(cache=True)
def to_search(mask, search_card_of):
    """A mask of card ids as a mask of search cards."""
    out = np.int64(0)
    while mask != 0:
        out |= card_bit(search_card_of[lowest_card(mask)])
        mask &= mask - 1
    return out


@njit(cache=True)
def kaiser_strain_tables(strain):
    """``(trump, search_card_of, card_of, points)`` of a Kaiser strain: a suit, NT or low NT."""
    if strain == LOW_NO_TRUMP_STRAIN:
        return -1, KAISER_LOW_SEARCH, KAISER_LOW_CARDS, KAISER_LOW_POINTS
    trump = strain if strain < NUM_SUITS else -1
    return trump, KAISER_HIGH_SEARCH, KAISER_HIGH_CARDS, KAISER_HIGH_POINTS


@njit(cache=True)
def game_tables(game, strain):
    """``(trump, search_card_of, card_of, points, trick_points)`` of a game's strain."""
    if game == TWENTY_EIGHT:
        trump = strain if strain < NUM_SUITS else -1
        return (trump, TWENTY_EIGHT_SEARCH, TWENTY_EIGHT_CARDS, TWENTY_EIGHT_POINTS,
                TWENTY_EIGHT_TRICK_POINTS)
    trump, search_card_of, card_of, points = kaiser_strain_tables(strain)
    return trump, search_card_of, card_of, points, KAISER_TRICK_POINTS


@njit(cache=True)
def strain_of_state(game, s):
    """The strain of the contract being played: its trump suit, or no trump / low no trump."""
    if game == TWENTY_EIGHT:
        return s[twenty_eight.TRUMP]
    if s[kaiser.HIGH_BID] % 3 == kaiser_rules.LOW_NO_TRUMP:
        return LOW_NO_TRUMP_STRAIN
    trump = s[kaiser.TRUMP]
    return trump if trump >= 0 else NO_TRUMP_STRAIN


@njit(cache=True)
def open_hands(game, s, hands):
    """Every seat's cards (card ids) into ``hands``: Twenty-Eight's hidden indicator is the bidder's."""
    if game == TWENTY_EIGHT:
        for seat in range(4):
            hands[seat] = s[twenty_eight.HANDS + seat]
        if twenty_eight.trump_hidden(s):
            hands[s[twenty_eight.BIDDER]] |= card_bit(s[twenty_eight.INDICATOR])
    else:
        for seat in range(4):
            hands[seat] = s[kaiser.HANDS + seat]


@njit(cache=True)
def load(game, s, flags, hands, trick):
    """The search position of play-phase state ``s`` (the caller has checked the phase).

    Fills ``hands`` (search cards by seat) and ``trick``; returns ``(rules,
    card_of, size, leader, tricks_left, trumps_from, won)`` where ``won`` is
    team 0's points already taken this hand and ``trumps_from`` the position
    from which trump-suit cards are trumps in the current trick.
    """
    trump, search_card_of, card_of, points, trick_points = game_tables(game, strain_of_state(game, s))
    rules = make_rules(trump, trick_points, points, flags)
    card_hands = np.zeros(4, dtype=np.int64)
    open_hands(game, s, card_hands)
    for seat in range(4):
        hands[seat] = to_search(card_hands[seat], search_card_of)
    trick[:] = NO_CARD
    if game == TWENTY_EIGHT:
        size = s[twenty_eight.TRICK_SIZE]
        leader = s[twenty_eight.TRICK_LEADER]
        tricks_left = twenty_eight_rules.NUM_TRICKS - s[twenty_eight.TRICK_NUMBER]
        trumps_from = size if twenty_eight.trump_hidden(s) else s[twenty_eight.TRUMPS_FROM]
        won = s[twenty_eight.CARD_POINTS_WON]
        first = twenty_eight.TRICK
    else:
        size = s[kaiser.TRICK_SIZE]
        leader = s[kaiser.TRICK_LEADER]
        tricks_left = kaiser_rules.NUM_TRICKS - s[kaiser.TRICK_NUMBER]
        trumps_from = 0
        won = s[kaiser.HAND_POINTS]
        first = kaiser.TRICK
    for position in range(size):
        trick[position] = search_card_of[s[first + position]]
    return rules, card_of, size, leader, tricks_left, trumps_from, won


@njit(cache=True)
def is_play_phase(game, s):
    if game == TWENTY_EIGHT:
        return s[PHASE] == twenty_eight.PLAYING
    return s[PHASE] == kaiser.PLAYING
