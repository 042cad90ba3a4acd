"""Drawing the hidden hands of a Kaiser hand that fit everything a player knows.

What a seat knows in Kaiser: its own hand, every card played, and which suits
each player has shown out of. Every constraint is per card, so the core sampler
(:func:`cardlab.core.sampling.sample_hidden_hands`) draws the other hands
exactly uniformly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import popcount
from cardlab.core.cards import SUIT_MASKS
from cardlab.core.layout import DEALING, DEALT, PHASE, recount_undealt
from cardlab.core.sampling import redraw_deal_so_far, sample_hidden_hands
from cardlab.games.kaiser.engine import HANDS, VOIDS
from cardlab.games.kaiser.rules import NUM_PLAYERS


@njit(cache=True)
def cards_unseen_by(s, seat):
    """Cards dealt this hand that ``seat`` has not seen: the others' hands."""
    unseen = np.int64(0)
    for other in range(NUM_PLAYERS):
        if other != seat:
            unseen |= s[HANDS + other]
    return unseen


@njit(cache=True)
def may_hold_masks(s, seat):
    """For each seat, the cards it may hold as far as ``seat`` knows (voids shown)."""
    unseen = cards_unseen_by(s, seat)
    may_hold = np.zeros(NUM_PLAYERS, dtype=np.int64)
    for other in range(NUM_PLAYERS):
        if other == seat:
            may_hold[other] = s[HANDS + seat]
            continue
        allowed = unseen
        for suit in range(4):
            if (s[VOIDS + other] >> suit) & 1:
                allowed &= ~SUIT_MASKS[suit]
        may_hold[other] = allowed
    return may_hold


@njit(cache=True)
def resample_hidden_hands(s, seat, stream):
    """A copy of ``s`` whose other hands are redrawn uniformly among those ``seat`` cannot rule out.

    Each redrawn seat's dealt cards become its new hand plus the cards it has
    played (cards leave a Kaiser hand only by being played). During the deal
    the cards not dealt yet are unseen too (:func:`redraw_deal_so_far`).
    """
    if s[PHASE] == DEALING:
        return redraw_deal_so_far(s, seat, HANDS, stream)
    world = s.copy()
    may_hold = may_hold_masks(s, seat)
    hidden = np.empty(NUM_PLAYERS - 1, dtype=np.int64)
    sizes = np.empty(NUM_PLAYERS - 1, dtype=np.int64)
    allowed = np.empty(NUM_PLAYERS - 1, dtype=np.int64)
    k = 0
    for other in range(NUM_PLAYERS):
        if other != seat:
            hidden[k] = other
            sizes[k] = popcount(s[HANDS + other])
            allowed[k] = may_hold[other]
            k += 1
    hands = np.zeros(NUM_PLAYERS - 1, dtype=np.int64)
    sample_hidden_hands(cards_unseen_by(s, seat), allowed, sizes, stream, hands)
    for k in range(NUM_PLAYERS - 1):
        other = hidden[k]
        played = s[DEALT + other] & ~s[HANDS + other]
        world[HANDS + other] = hands[k]
        world[DEALT + other] = hands[k] | played
    recount_undealt(world)
    return world
