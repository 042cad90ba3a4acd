"""Dealing per the contract: one chance node per card, uniform over undealt cards.

The k-th card of a deal stage goes to seat ``(dealer + 1 + k) % num_players``.
Tournaments fix a deal by drawing its whole chance sequence from a seed, so
the same deal can be replayed with the seats swapped (duplicate play).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import nth_card, popcount, select_card
from cardlab.core.rng import random_below


@njit(cache=True, inline="always")
def receiving_seat(dealer, k, num_players):
    """Seat that receives the k-th card of a deal stage.

    Four players, the usual table, take a mask instead of the integer division a
    table size known only at run time needs: a deal asks this for every card.
    """
    later = dealer + 1 + k
    return later & 3 if num_players == 4 else later % num_players


@njit(cache=True)
def draw_card(undealt, stream):
    """A uniformly drawn card of the ``undealt`` mask (a chance outcome)."""
    return nth_card(undealt, random_below(stream, popcount(undealt)))


@njit(cache=True)
def shuffled_cards(deck, count, stream):
    """``count`` cards drawn one by one from ``deck``: the chance actions of a deal."""
    out = np.empty(count, dtype=np.int64)
    remaining = deck
    for i in range(count):
        card = draw_card(remaining, stream)
        out[i] = card
        remaining &= ~(np.int64(1) << card)
    return out


def chance_sequence(hands: dict[int, list[int]], dealer: int, num_players: int) -> list[int]:
    """The chance actions that deal ``hands`` (seat -> cards in the order received).

    Inverse of the contract's dealing order: the k-th card goes to seat
    ``(dealer + 1 + k) % num_players``. Used to replay stored deals and to
    build the hand-made deals of rule tests.
    """
    queues = {seat: list(cards) for seat, cards in hands.items()}
    total = sum(len(cards) for cards in queues.values())
    sequence = []
    for k in range(total):
        seat = (dealer + 1 + k) % num_players
        if not queues.get(seat):
            raise ValueError(f"seat {seat} has too few cards for the dealing order at card {k}")
        sequence.append(int(queues[seat].pop(0)))
    return sequence


@njit(cache=True, inline="always")
def pick_card(undealt, stream):
    """:func:`draw_card`'s card from the same draw, found by :func:`select_card` (no loop)."""
    return select_card(undealt, random_below(stream, popcount(undealt)))
