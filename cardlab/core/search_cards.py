"""The double-dummy search's cards and strains: cards numbered by strength within their suit.

The search (:mod:`cardlab.solver.search`) plays games of eight cards a suit
whose trick play differs only in data. It numbers cards so that strength is
bit order: *search card* ``8 * suit + k`` is the ``k``-th weakest card of its
suit in the contract played. Each game builds its numberings from its own deck
and strength tables (``games/<game>/double_dummy.py``) with
:func:`search_numbering`.

A *strain* is what decides trick play: a trump suit (0-3), no trump, or low no
trump (no trump with each suit's order reversed).
"""

from __future__ import annotations

import numpy as np

from cardlab.core.cards import NUM_CARD_IDS, NUM_SUITS

CARDS_PER_SUIT = 8
NO_CARD = -1
NUM_SEARCH_CARDS = NUM_SUITS * CARDS_PER_SUIT

#: The strains beyond the four trump suits.
NO_TRUMP_STRAIN = NUM_SUITS  # strain 4: no trump
LOW_NO_TRUMP_STRAIN = NUM_SUITS + 1  # strain 5: low no trump


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


def points_by_search_card(card_of: np.ndarray, points_of_card: np.ndarray) -> np.ndarray:
    """The points each search card carries, from the points of each card id."""
    return np.array([points_of_card[c] for c in card_of], dtype=np.int64)

