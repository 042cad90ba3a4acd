"""Tabular CFR iterations per second on leduc_poker, against OpenSpiel's C++ ``CFRSolver``.

Both run vanilla CFR with OpenSpiel's schedule (every player updated in turn
each iteration) on the same game in the same run; cardlab's solver works on
the flat tree built once from the pyspiel game (build time reported apart).
Target: >= 50x the peer.
"""

from __future__ import annotations

import time

import pyspiel

from benchmarks.common import best_rates, emit
from cardlab.cfr.pyspiel_tree import build_from_pyspiel
from cardlab.cfr.solvers import TabularSolver

GAME = "leduc_poker"
PEER_ITERATIONS = 20
OURS_ITERATIONS = 2000


def main() -> dict:
    game = pyspiel.load_game(GAME)
    start = time.perf_counter()
    tree = build_from_pyspiel(game)
    build_seconds = time.perf_counter() - start
    ours = TabularSolver(tree)
    ours.run(1)  # compile (or load from the cache)
    peer = pyspiel.CFRSolver(game)

    def run_ours() -> int:
        ours.run(OURS_ITERATIONS)
        return OURS_ITERATIONS

    def run_peer() -> int:
        for _ in range(PEER_ITERATIONS):
            peer.evaluate_and_update_policy()
        return PEER_ITERATIONS

    rates = best_rates({"cardlab": run_ours, "openspiel_cpp": run_peer})
    return emit("cfr", {
        "game": GAME,
        "tree": tree.summary(),
        "tree_build_seconds": round(build_seconds, 3),
        "cardlab_iterations_per_second": round(rates["cardlab"], 1),
        "openspiel_cpp_iterations_per_second": round(rates["openspiel_cpp"], 2),
        "ratio": round(rates["cardlab"] / rates["openspiel_cpp"], 1),
        "target_ratio": 50,
    })


if __name__ == "__main__":
    main()
