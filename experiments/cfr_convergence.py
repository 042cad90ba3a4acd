"""Convergence of the tabular solvers: NashConv against iterations, with the tree sizes.

    python -m experiments.cfr_convergence --out experiments/results/cfr-convergence.json

Games: OpenSpiel's ``kuhn_poker`` and ``leduc_poker`` (trees built through
pyspiel) and a Kaiser position: a random hand (seed 3) 16 actions before its
end, in three deals where two seats were dealt each other's unplayed cards
(tree built from the engine kernels). Every solver runs with OpenSpiel's
schedule; NashConv is computed exactly on the tree at each checkpoint.
Deterministic: the numbers repeat exactly; only the seconds depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pyspiel

from cardlab.cfr.engine_tree import build_from_engine, late_history
from cardlab.cfr.evaluation import nash_conv
from cardlab.cfr.pyspiel_tree import build_from_pyspiel
from cardlab.cfr.solvers import SOLVERS, TabularSolver
from cardlab.games import game_spec

CHECKPOINTS = (1, 10, 30, 100, 300, 1000)




def swapped_deals(game: pyspiel.Game, history: list[int], count: int) -> list[list[int]]:
    """``history`` and histories where two deal actions are exchanged, replayed legally.

    A seat that holds neither swapped card cannot tell the histories apart, so the
    trees below them share its information sets (the worlds of a multi-world tree).
    """
    state, deals = game.new_initial_state(), []
    for position, action in enumerate(history):
        if state.is_chance_node():
            deals.append(position)
        state.apply_action(action)
    worlds = [history]
    for i in deals:
        for j in (j for j in deals if j > i):
            if len(worlds) == count:
                return worlds
            other = list(history)
            other[i], other[j] = other[j], other[i]
            try:
                replay = game.new_initial_state()
                for action in other:
                    replay.apply_action(action)
            except (ValueError, pyspiel.SpielError):
                continue
            worlds.append(other)
    return worlds


def trees() -> dict:
    kaiser = game_spec("kaiser").load()
    worlds = swapped_deals(kaiser, late_history(kaiser, 16, seed=3), count=3)
    return {
        "kuhn_poker": build_from_pyspiel(pyspiel.load_game("kuhn_poker")),
        "leduc_poker": build_from_pyspiel(pyspiel.load_game("leduc_poker")),
        "kaiser_position_16": build_from_engine(kaiser, worlds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="experiments/results/cfr-convergence.json")
    args = parser.parse_args()
    results = {"command": "python -m experiments.cfr_convergence --out " + args.out,
               "checkpoints": list(CHECKPOINTS), "games": {}}
    for name, tree in trees().items():
        entry = {"tree": tree.summary(), "players": tree.num_players,
                 "uniform_nash_conv": nash_conv(tree, tree.uniform_policy()), "solvers": {}}
        for solver in SOLVERS:
            run = TabularSolver(tree, solver)
            curve, start = [], time.perf_counter()
            for checkpoint in CHECKPOINTS:
                run.run(checkpoint - run.iteration)
                curve.append(nash_conv(tree, run.average_policy()))
            below = next((c for c, v in zip(CHECKPOINTS, curve, strict=True) if v < 1e-3), None)
            entry["solvers"][solver] = {"nash_conv": curve, "first_checkpoint_below_1e-3": below,
                                        "seconds": round(time.perf_counter() - start, 2)}
            print(name, solver, [f"{v:.2e}" for v in curve], flush=True)
        results["games"][name] = entry
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
