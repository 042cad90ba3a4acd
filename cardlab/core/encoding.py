"""Pieces of observation tensors that every trick-taking game encodes the same way.

Seats are written relative to the observer (0 = self, 1 = next, ...), so one
network serves every seat.

Every entry of a tensor is a flag (0 or 1) or a *ratio*, a count over a
fixed divisor (points over the points of a hand, asks over the most asks),
written by :func:`put_ratio`. The same encoder fills a float32 tensor (the
OpenSpiel one: each ratio divided) or a *compact* integer one (each ratio's
count alone, as the RL environments return it): dividing the compact tensor
by the divisor of each entry (``ratio_divisors`` of each game's observation
module, 1 for a flag) gives the float32 tensor bit for bit, since both divide
the same integers in double precision before rounding to float32.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from cardlab.core.bitboard import lowest_card
from cardlab.core.kernel import borrowing_kernel
from cardlab.core.layout import DEALER, DEALING, GAME_OVER_PHASE, PHASE, TO_MOVE


@njit(cache=True, inline="always")
def relative_seat(seat, player, num_players):
    """``seat`` as ``player`` sees it: 0 himself, 1 the next, ... (``(seat - player) % num_players``
    for seats in ``0 .. num_players - 1``, without a division: this runs for every entry marked)."""
    relative = seat - player
    return relative + num_players if relative < 0 else relative


@borrowing_kernel
def mark_cards(out, offset, mask):
    """Set ``out[offset + card]`` for every card of ``mask``."""
    while mask != 0:
        out[offset + lowest_card(mask)] = 1.0
        mask &= mask - 1


@borrowing_kernel
def mark_voids(out, offset, s, voids_slot, player, num_players):
    """``num_players x 4`` flags: seat (relative to ``player``) has shown out of suit."""
    for seat in range(num_players):
        voids = s[voids_slot + seat]
        if voids:
            relative = relative_seat(seat, player, num_players)
            for suit in range(4):
                if (voids >> suit) & 1:
                    out[offset + 4 * relative + suit] = 1.0
    return offset + 4 * num_players


@borrowing_kernel
def mark_tricks_played(out, offset, s, history, leaders, trick_number, trick_leader, player,
                       by_trick, num_players=4, num_tricks=8):
    """Every card played this hand, as planes of 52 cards by seat (relative to ``player``).

    ``history`` is the slot of the hand's cards in play order (``num_players``
    per trick, -1 where not played), ``leaders`` of each finished trick's leader,
    ``trick_number`` and ``trick_leader`` of the current trick's number and
    leader. With ``by_trick`` every one of the ``num_tricks`` tricks has its own
    planes (the order of play, for perfect recall); otherwise the tricks share them.
    A trick after the current one holds no card yet.
    """
    for trick in range(min(s[trick_number] + 1, num_tricks)):
        leader = s[leaders + trick] if trick < s[trick_number] else s[trick_leader]
        seat = relative_seat(leader, player, num_players)  # of the trick's first card
        first_plane = num_players * trick if by_trick else 0
        for position in range(num_players):
            card = s[history + num_players * trick + position]
            if card >= 0:
                out[offset + (first_plane + seat) * 52 + card] = 1.0
            seat = seat + 1 if seat + 1 < num_players else 0
    return offset + (num_tricks * num_players if by_trick else num_players) * 52


@borrowing_kernel
def mark_current_trick(out, offset, s, trick, trick_size, trick_leader, player, num_players=4):
    """The cards on the table, one 52-card plane per seat relative to ``player``."""
    relative = relative_seat(s[trick_leader], player, num_players)
    for position in range(s[trick_size]):
        out[offset + relative * 52 + s[trick + position]] = 1.0
        relative = relative + 1 if relative + 1 < num_players else 0
    return offset + num_players * 52


@borrowing_kernel
def mark_dealer_and_mover(out, offset, s, player, num_players=4):
    """The dealer and the seat to act (relative to ``player``), from the state header."""
    out[offset + relative_seat(s[DEALER], player, num_players)] = 1.0
    offset += num_players
    if s[PHASE] != DEALING and s[PHASE] != s[GAME_OVER_PHASE]:
        out[offset + relative_seat(s[TO_MOVE], player, num_players)] = 1.0
    return offset + num_players


@borrowing_kernel
def mark_turn(out, offset, s, player, num_phases, num_players=4):
    """The dealer and the seat to act (relative to ``player``) and the phase, from the state header."""
    offset = mark_dealer_and_mover(out, offset, s, player, num_players)
    out[offset + s[PHASE]] = 1.0
    return offset + num_phases


def put_ratio(out, index, count, divisor):
    """``out[index] = count / divisor`` in a float tensor; ``count`` alone in a compact integer one."""
    if np.issubdtype(out.dtype, np.integer):
        out[index] = count
    else:
        out[index] = count / divisor


@overload(put_ratio, inline="always")
def _put_ratio(out, index, count, divisor):
    if isinstance(out.dtype, types.Integer):
        def put_count(out, index, count, divisor):
            out[index] = count
        return put_count

    def put_quotient(out, index, count, divisor):
        out[index] = count / divisor
    return put_quotient


def piece_starts(pieces: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """Where each named piece of a tensor starts."""
    starts, offset = {}, 0
    for name, size in pieces:
        starts[name] = offset
        offset += size
    return starts


def ratio_divisors(size: int, ratios: dict[int, float]) -> np.ndarray:
    """The divisor of every entry of a tensor of ``size`` entries: ``ratios[index]``, else 1 (a flag)."""
    divisors = np.ones(size, dtype=np.float64)
    for index, divisor in ratios.items():
        divisors[index] = divisor
    return divisors
