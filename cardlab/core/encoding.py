"""Pieces of observation tensors that every trick-taking game encodes the same way.

Seats are written relative to the observer (0 = self, 1 = next, ...), so one
network serves every seat.
"""

from __future__ import annotations

from numba import njit

from cardlab.core.bitboard import lowest_card


@njit(cache=True)
def mark_cards(out, offset, mask):
    """Set ``out[offset + card]`` for every card of ``mask``."""
    while mask != 0:
        out[offset + lowest_card(mask)] = 1.0
        mask &= mask - 1


@njit(cache=True)
def mark_voids(out, offset, s, voids_slot, player, num_players):
    """``num_players x 4`` flags: seat (relative to ``player``) has shown out of suit."""
    for seat in range(num_players):
        relative = (seat - player) % num_players
        for suit in range(4):
            if (s[voids_slot + seat] >> suit) & 1:
                out[offset + 4 * relative + suit] = 1.0
    return offset + 4 * num_players
