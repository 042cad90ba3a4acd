"""External-sampling MCCFR iterations per second on a Kaiser position, against OpenSpiel's C++ solver.

The position is a random Kaiser hand 16 actions before its end (about 26,000
information sets below it). cardlab's solver walks the engine kernels in
numba with a hash table of information-state keys; the peer is OpenSpiel's
C++ ``ExternalSamplingMCCFRSolver`` on the same position of the wrapped game
(a ``cardlab_kaiser`` whose initial state is the position). One iteration
updates every player once in both. Target: >= 10x the peer.
"""

from __future__ import annotations

import pyspiel

from benchmarks.common import best_rates, emit
from cardlab.cfr.engine_tree import late_history
from cardlab.cfr.mccfr import MCCFRSolver
from cardlab.games import game_spec

ACTIONS_LEFT = 16
DEAL_SEED = 3
OURS_ITERATIONS = 2000
PEER_ITERATIONS = 4




def position_game(game: pyspiel.Game, history: list[int]) -> pyspiel.Game:
    """``game`` whose initial state is the state after ``history`` (for the peer)."""

    class PositionGame(type(game)):
        def new_initial_state(self):
            state = super().new_initial_state()
            for action in history:
                state.apply_action(action)
            return state

    return PositionGame(game.get_parameters())


def main() -> dict:
    game = game_spec("kaiser").load()
    history = late_history(game, ACTIONS_LEFT, DEAL_SEED)
    ours = MCCFRSolver(game, "external", seed=1, histories=[history])
    ours.run(1)  # compile (or load from the cache)
    wrapped = position_game(game, history)  # kept referenced: the C++ solver does not own it
    peer = pyspiel.ExternalSamplingMCCFRSolver(wrapped, seed=1)

    def run_ours() -> int:
        ours.run(OURS_ITERATIONS)
        return OURS_ITERATIONS

    def run_peer() -> int:
        for _ in range(PEER_ITERATIONS):
            peer.run_iteration()
        return PEER_ITERATIONS

    rates = best_rates({"cardlab": run_ours, "openspiel_cpp": run_peer}, repeats=3)
    return emit("mccfr", {
        "game": "cardlab_kaiser",
        "position": f"random hand (seed {DEAL_SEED}), {ACTIONS_LEFT} actions before its end",
        "sampler": "external",
        "infosets_met": ours.num_infosets,
        "cardlab_iterations_per_second": round(rates["cardlab"], 1),
        "openspiel_cpp_iterations_per_second": round(rates["openspiel_cpp"], 3),
        "ratio": round(rates["cardlab"] / rates["openspiel_cpp"], 1),
        "target_ratio": 10,
    })


if __name__ == "__main__":
    main()
