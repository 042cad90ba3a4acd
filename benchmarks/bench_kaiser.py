"""Random Kaiser hands per second, four ways, in one run.

(a) the batched numba kernel (one thread); (b) the ``cardlab_kaiser`` wrapper
driven by a Python loop; (c) OpenSpiel's C++ ``hearts`` driven by the same
loop; (d) a minimal numba random trick-taking loop with no bidding, the
ceiling for any numba engine. Targets: (a) >= 0.5 x (d), (b) >= 0.3 x (c).
"""

from __future__ import annotations

import numpy as np
import pyspiel
from numba import njit

import cardlab  # noqa: F401
from benchmarks.common import best_rates, emit, python_random_games
from cardlab.core.bitboard import nth_card, popcount
from cardlab.core.cards import SUIT_MASKS
from cardlab.core.rng import make_stream, random_below
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state
from cardlab.games.kaiser.rules import STANDARD_DECK


@njit(cache=True)
def minimal_trick_taking(num_hands, stream):
    """The reference ceiling: deal 32 cards, play 8 tricks following suit; nothing else."""
    hands = np.zeros(4, dtype=np.int64)
    total = 0
    for _ in range(num_hands):
        undealt = np.int64(STANDARD_DECK)
        for k in range(32):
            card = nth_card(undealt, random_below(stream, popcount(undealt)))
            undealt &= ~(np.int64(1) << card)
            hands[k % 4] |= np.int64(1) << card
        leader = 0
        for _trick in range(8):
            led_suit = -1
            best_card = -1
            winner = leader
            for offset in range(4):
                seat = (leader + offset) % 4
                choices = hands[seat]
                if led_suit >= 0 and hands[seat] & SUIT_MASKS[led_suit] != 0:
                    choices = hands[seat] & SUIT_MASKS[led_suit]
                card = nth_card(choices, random_below(stream, popcount(choices)))
                hands[seat] &= ~(np.int64(1) << card)
                if led_suit < 0:
                    led_suit = card // 13
                if card // 13 == led_suit and card > best_card:
                    best_card = card
                    winner = seat
            leader = winner
            total += winner
    return total


def main() -> dict:
    template = new_engine_state({})
    results = np.zeros((20_000, 5))
    stream = make_stream(1)
    E.play_random_hands(template, 100, stream, results)  # compile
    minimal_trick_taking(10, stream)

    kaiser = pyspiel.load_game("cardlab_kaiser")
    hearts = pyspiel.load_game("hearts")
    python_random_games(kaiser, 20)
    rates = best_rates({
        "numba": lambda: E.play_random_hands(template, 20_000, stream, results) * 0 + 20_000,
        "ceiling": lambda: minimal_trick_taking(20_000, stream) * 0 + 20_000,
        "wrapper": lambda: python_random_games(kaiser, 200),
        "hearts": lambda: python_random_games(hearts, 200),
    })
    numba_kernel, ceiling = rates["numba"], rates["ceiling"]
    wrapper, cpp_hearts = rates["wrapper"], rates["hearts"]
    return emit("kaiser_random_hands_per_second", {
        "a_numba_batched": round(numba_kernel),
        "b_wrapper_python_loop": round(wrapper),
        "c_openspiel_cpp_hearts_python_loop": round(cpp_hearts),
        "d_numba_minimal_trick_taking_ceiling": round(ceiling),
        "ratio_a_over_d": round(numba_kernel / ceiling, 3),
        "ratio_b_over_c": round(wrapper / cpp_hearts, 3),
        "targets": {"ratio_a_over_d": 0.5, "ratio_b_over_c": 0.3},
    })


if __name__ == "__main__":
    main()
