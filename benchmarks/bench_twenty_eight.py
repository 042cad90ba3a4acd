"""Random Twenty-Eight hands per second: the batched numba kernel and the OpenSpiel wrapper.

(a) ``play_random_hands`` in one numba thread; (b) ``cardlab_twenty_eight``
driven by the plain Python loop every wrapper benchmark uses (legal actions +
apply_action, chance through ``chance_outcomes``).
"""

from __future__ import annotations

import numpy as np
import pyspiel

import cardlab  # noqa: F401
from benchmarks.common import best_rates, emit, python_random_games
from cardlab.core.rng import make_stream
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.game import new_engine_state


def main() -> dict:
    template = new_engine_state({})
    results = np.zeros((20_000, len(E.RESULT_FIELDS)))
    stream = make_stream(1)
    E.play_random_hands(template, 100, stream, results)  # compile (or load the cache)
    game = pyspiel.load_game("cardlab_twenty_eight")
    python_random_games(game, 20)
    rates = best_rates({
        "numba": lambda: E.play_random_hands(template, 20_000, stream, results) * 0 + 20_000,
        "wrapper": lambda: python_random_games(game, 200),
    }, repeats=3)
    return emit("twenty_eight_random_hands_per_second", {
        "a_numba_batched": round(rates["numba"]),
        "b_wrapper_python_loop": round(rates["wrapper"]),
    })


if __name__ == "__main__":
    main()
