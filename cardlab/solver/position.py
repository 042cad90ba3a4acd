"""From an engine's state array to the search's position, for each game the solver knows.

The search (:mod:`cardlab.solver.search`) numbers cards by strength within
their suit (:mod:`cardlab.core.search_cards`). Each game says how its state
reads and which numbering a strain plays with (``games/<game>/double_dummy.py``,
gathered by kernel id in :mod:`cardlab.games.double_dummy`); this module turns
a play-phase state into the search's hands, trick and rules.

Twenty-Eight before the show: the search plays *as if the trump were known to
all* from the next card on (the game's ``open_hands`` and ``trick_in_progress``
say how). The engine's own phase-1 rules are the ``"engine"`` rules of
:mod:`cardlab.solver.engine_search`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, lowest_card
from cardlab.core.search_cards import NO_CARD
from cardlab.games.double_dummy import game_tables, open_hands, strain_of_state, trick_in_progress
from cardlab.solver.rules import make_rules

#: The transposition table's size (log2 of its rows) for a game's solves: some twenty rows for
#: each bound a full solve stores (Kaiser about 1,300, Twenty-Eight about 10,000). Bigger is
#: slower, not faster: a bucket far in a table of many megabytes misses every cache.
TABLE_BITS = (15, 17)


@njit(cache=True)
def to_search(mask, search_card_of):
    """A mask of card ids as a mask of search cards."""
    out = np.int64(0)
    while mask != 0:
        out |= card_bit(search_card_of[lowest_card(mask)])
        mask &= mask - 1
    return out


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
    size, leader, tricks_left, trumps_from, won, first = trick_in_progress(game, s)
    for position in range(size):
        trick[position] = search_card_of[s[first + position]]
    return rules, card_of, size, leader, tricks_left, trumps_from, won
