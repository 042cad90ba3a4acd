"""The speed ceiling of a numba trick-taking loop: what the machine can do, not what cardlab does.

Every engine benchmark reports its rate as a ratio to this loop, measured in
the same run. It is the house's reference loop (``limit_trick.py``, variant
``xorshift+intrin+lemire``), rewritten here with the same definition:

- 4 players, 32 cards (4 suits x 8 ranks, card ``suit * 8 + rank``, higher
  rank wins), hands as 64-bit masks;
- a Fisher–Yates deal; a random trump suit and first leader;
- 8 tricks: follow suit if possible, else any card; the highest trump wins,
  else the highest card of the led suit; the winner leads;
- card points A 11, 10 10, K 4, Q 3, J 2 (120 a deal), summed into a checksum
  so that nothing is optimised away;
- random numbers from xorshift64* held in a local variable for the whole
  batch, a legal card chosen by multiply-shift range reduction (no division),
  counted and found with the CPU's ``popcnt`` / ``tzcnt`` (LLVM intrinsics).

Nothing of a real game is here (no bidding, no scoring rules, no state array
that other code can read), so no engine can reach 1.0; the targets are
Kaiser >= 0.5 and Twenty-Eight >= 0.4 of it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import lowest_card, popcount

#: Card points of ranks 0..7 (7, 8, 9, J, Q, K, 10, A) in every suit.
CEILING_POINTS = np.array([0, 0, 0, 2, 3, 4, 10, 11] * 4, dtype=np.int64)
_SUIT_MASK = np.int64(0xFF)
_MULTIPLIER = np.uint64(0x2545F4914F6CDD1D)
_LOW_32 = np.uint64(32)


@njit(cache=True, inline="always")
def _xorshift(state):
    state ^= state >> np.uint64(12)
    state ^= state << np.uint64(25)
    state ^= state >> np.uint64(27)
    return state


@njit(cache=True, inline="always")
def _below(state, bound):
    """A number in ``[0, bound)`` from the high 32 bits of xorshift64*, by multiply-shift."""
    high = (state * _MULTIPLIER) >> _LOW_32
    return np.int64((high * np.uint64(bound)) >> _LOW_32)


@njit(cache=True)
def trick_taking_ceiling(num_games, seed, points, check):
    """Play ``num_games`` random deals; return (team 0's card points, team 0's tricks)."""
    state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) | np.uint64(1)
    deck = np.arange(32)
    hands = np.zeros(4, dtype=np.int64)
    checksum = 0
    team0_tricks = 0
    for _ in range(num_games):
        for i in range(31, 0, -1):
            state = _xorshift(state)
            j = _below(state, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        for seat in range(4):
            hand = np.int64(0)
            for k in range(8):
                hand |= np.int64(1) << deck[seat * 8 + k]
            hands[seat] = hand
        state = _xorshift(state)
        draw = np.int64((state * _MULTIPLIER) >> _LOW_32)
        trump = draw & 3
        leader = (draw >> 2) & 3
        deal_points = 0
        for _trick in range(8):
            led_suit = -1
            best = -1
            winner = leader
            trick_points = 0
            for offset in range(4):
                seat = (leader + offset) & 3
                hand = hands[seat]
                legal = hand
                if offset > 0:
                    following = hand & (_SUIT_MASK << (8 * led_suit))
                    if following != 0:
                        legal = following
                state = _xorshift(state)
                for _skip in range(_below(state, popcount(legal))):
                    legal &= legal - 1
                card = lowest_card(legal)
                if check:
                    if (hand >> card) & 1 == 0:
                        raise ValueError("card not in hand")
                    if offset > 0 and card >> 3 != led_suit and hand & (_SUIT_MASK << (8 * led_suit)) != 0:
                        raise ValueError("did not follow suit")
                hands[seat] = hand & ~(np.int64(1) << card)
                suit = card >> 3
                if offset == 0:
                    led_suit = suit
                    best = card
                    winner = seat
                elif suit == trump:
                    if best >> 3 != trump or card > best:
                        best = card
                        winner = seat
                elif suit == best >> 3 and card > best:
                    best = card
                    winner = seat
                trick_points += points[card]
            deal_points += trick_points
            if winner & 1 == 0:
                team0_tricks += 1
                checksum += trick_points
            leader = winner
        if check and deal_points != 120:
            raise ValueError("points do not sum to 120")
    return checksum, team0_tricks


def ceiling_games(num_games: int, seed: int = 1) -> int:
    """Run the ceiling loop; return the number of games (the benchmarks' item count)."""
    trick_taking_ceiling(num_games, seed, CEILING_POINTS, False)
    return num_games
