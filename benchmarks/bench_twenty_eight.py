"""Random Twenty-Eight hands per second: the batched numba kernel and the OpenSpiel wrapper.

(a) ``play_random_hands`` in one numba thread; (b) ``cardlab_twenty_eight``
driven by the plain Python loop every wrapper benchmark uses (legal actions +
apply_action, chance through ``chance_outcomes``); beside them, the machine's
ceiling for a numba trick-taking loop (:mod:`benchmarks.ceiling`) and Kaiser's
own batched kernel, measured in the same run. Target: (a) >= 0.4 x the ceiling.
"""

from __future__ import annotations

import numpy as np
import pyspiel

import cardlab  # noqa: F401
from benchmarks.ceiling import ceiling_games
from benchmarks.common import best_rates, emit, python_random_games
from cardlab.core.rng import make_stream
from cardlab.games.kaiser import engine as kaiser_engine
from cardlab.games.kaiser.game import new_engine_state as kaiser_state
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.game import new_engine_state


def main() -> dict:
    template = new_engine_state({})
    results = np.zeros((20_000, len(E.RESULT_FIELDS)))
    stream = make_stream(1)
    E.play_random_hands(template, 100, stream, results)  # compile (or load the cache)
    game = pyspiel.load_game("cardlab_twenty_eight")
    python_random_games(game, 20)
    kaiser_template = kaiser_state({})
    kaiser_results = np.zeros((20_000, 5))
    kaiser_engine.play_random_hands(kaiser_template, 100, stream, kaiser_results)
    ceiling_games(10)
    rates = best_rates({
        "numba": lambda: E.play_random_hands(template, 20_000, stream, results) * 0 + 20_000,
        "wrapper": lambda: python_random_games(game, 200),
        "ceiling": lambda: ceiling_games(100_000),
        "kaiser": lambda: kaiser_engine.play_random_hands(kaiser_template, 20_000, stream,
                                                          kaiser_results) * 0 + 20_000,
    }, repeats=3)
    return emit("twenty_eight_random_hands_per_second", {
        "a_numba_batched": round(rates["numba"]),
        "b_wrapper_python_loop": round(rates["wrapper"]),
        "kaiser_numba_batched": round(rates["kaiser"]),
        "numba_trick_taking_ceiling": round(rates["ceiling"]),
        "ratio_a_over_ceiling": round(rates["numba"] / rates["ceiling"], 3),
        "ratio_kaiser_over_ceiling": round(rates["kaiser"] / rates["ceiling"], 3),
        "target_ratio_a_over_ceiling": 0.4,
    })


if __name__ == "__main__":
    main()
