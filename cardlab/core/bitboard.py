"""Sets of cards as 64-bit masks (bit ``card_id`` set), with numba kernels.

Masks are stored as signed ``int64`` so that they sit in the same state array
as every other number of a game; card ids stop at 53, so the sign bit is never
used and every operation behaves as on unsigned masks.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def card_bit(card):
    """The one-card mask of ``card``."""
    return np.int64(1) << np.int64(card)


@njit(cache=True, inline="always")
def has_card(mask, card):
    return (mask >> np.int64(card)) & np.int64(1) != 0


@njit(cache=True)
def popcount(mask):
    """Number of cards in the mask (SWAR bit count: no Python, no loop per card)."""
    x = np.uint64(mask)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def lowest_card(mask):
    """Smallest card id in the mask, or -1 for the empty mask."""
    if mask == 0:
        return -1
    return popcount((mask & -mask) - 1)


@njit(cache=True)
def highest_card(mask):
    """Largest card id in the mask, or -1 for the empty mask."""
    card = -1
    while mask != 0:
        card = lowest_card(mask)
        mask &= mask - 1
    return card


@njit(cache=True)
def nth_card(mask, n):
    """The ``n``-th smallest card of the mask (0-based); used for uniform draws."""
    for _ in range(n):
        mask &= mask - 1
    return lowest_card(mask)


@njit(cache=True)
def cards_in(mask):
    """The card ids of the mask in ascending order, as an int64 array."""
    out = np.empty(popcount(mask), dtype=np.int64)
    i = 0
    while mask != 0:
        out[i] = lowest_card(mask)
        mask &= mask - 1
        i += 1
    return out


@njit(cache=True)
def write_cards(mask, out, start):
    """Write the cards of ``mask`` ascending into ``out[start:]``; return the new end."""
    n = start
    while mask != 0:
        out[n] = lowest_card(mask)
        mask &= mask - 1
        n += 1
    return n
