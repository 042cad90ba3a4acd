"""Random Kaiser hands per second, four ways, in one run.

(a) the batched numba kernel (one thread); (b) the ``cardlab_kaiser`` wrapper
driven by a Python loop; (c) OpenSpiel's C++ ``hearts`` driven by the same
loop; (d) the machine's ceiling for a numba trick-taking loop
(:mod:`benchmarks.ceiling`). Targets: (a) >= 0.5 x (d), (b) >= 0.3 x (c).
"""

from __future__ import annotations

import numpy as np
import pyspiel

import cardlab  # noqa: F401
from benchmarks.ceiling import ceiling_games
from benchmarks.common import best_rates, emit, python_random_games
from cardlab.core.rng import make_stream
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state


def main() -> dict:
    template = new_engine_state({})
    results = np.zeros((20_000, 5))
    stream = make_stream(1)
    E.play_random_hands(template, 100, stream, results)  # compile
    ceiling_games(10)

    kaiser = pyspiel.load_game("cardlab_kaiser")
    hearts = pyspiel.load_game("hearts")
    python_random_games(kaiser, 20)
    rates = best_rates({
        "numba": lambda: E.play_random_hands(template, 20_000, stream, results) * 0 + 20_000,
        "ceiling": lambda: ceiling_games(100_000),
        "wrapper": lambda: python_random_games(kaiser, 200),
        "hearts": lambda: python_random_games(hearts, 200),
    })
    numba_kernel, ceiling = rates["numba"], rates["ceiling"]
    wrapper, cpp_hearts = rates["wrapper"], rates["hearts"]
    return emit("kaiser_random_hands_per_second", {
        "a_numba_batched": round(numba_kernel),
        "b_wrapper_python_loop": round(wrapper),
        "c_openspiel_cpp_hearts_python_loop": round(cpp_hearts),
        "d_numba_trick_taking_ceiling": round(ceiling),
        "ratio_a_over_d": round(numba_kernel / ceiling, 3),
        "ratio_b_over_c": round(wrapper / cpp_hearts, 3),
        "targets": {"ratio_a_over_d": 0.5, "ratio_b_over_c": 0.3},
    })


if __name__ == "__main__":
    main()
