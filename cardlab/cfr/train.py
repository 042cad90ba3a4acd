"""Training runs of the tabular solvers: build the tree, iterate, checkpoint, resume, save the policy.

A run writes its policy file (:mod:`cardlab.cfr.policy`) at every checkpoint,
with the solver's regrets, cumulative policy and current policy beside the
average policy. Resuming reads them back and continues the same run: CFR is
deterministic, so a run stopped and resumed ends with the very arrays of a
run that never stopped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyspiel
from tqdm import tqdm

from cardlab.cfr.bidding import BiddingSolver
from cardlab.cfr.engine_tree import build_from_engine
from cardlab.cfr.evaluation import nash_conv
from cardlab.cfr.mccfr import MCCFRSolver
from cardlab.cfr.policy import PolicyTable, load_policy, policy_table, save_policy
from cardlab.cfr.pyspiel_tree import build_from_pyspiel
from cardlab.cfr.solvers import SAMPLERS, TabularSolver
from cardlab.cfr.tree import GameTree


def build_tree(game: pyspiel.Game) -> GameTree:
    """The whole tree of ``game``: from its engine's kernels for a cardlab game, else through pyspiel."""
    if game.get_type().short_name.startswith("cardlab_"):
        return build_from_engine(game)
    return build_from_pyspiel(game)


def train(game: pyspiel.Game, out: str | Path, iterations: int, solver: str = "cfr+",
          schedule: str = "openspiel", resume: bool = False, checkpoints: int = 10,
          progress: bool = True) -> PolicyTable:
    """Run ``solver`` on ``game`` until ``iterations`` in all, saving to ``out`` ``checkpoints`` times.

    With ``resume``, continues the run saved in ``out`` (same game, parameters,
    solver and schedule, else ``ValueError``). The progress bar shows
    iterations per second and the exploitability at the last checkpoint.
    """
    if iterations < 1 or checkpoints < 1:
        raise ValueError(f"iterations and checkpoints must be >= 1, got {iterations}, {checkpoints}")
    tree = build_tree(game)
    run = TabularSolver(tree, solver, schedule)
    if resume:
        saved = load_policy(out, game)
        _check_saved_run(out, saved, {"solver": solver, "schedule": schedule})
        if saved.names != tree.infoset_names:
            raise ValueError(f"{out}: the saved run's information sets differ from this tree's")
        run.restore(saved.solver_state, saved.metadata["iterations"])

    def snapshot(bar: tqdm) -> PolicyTable:
        policy = run.average_policy()
        value = nash_conv(tree, policy)
        bar.set_postfix(exploitability=f"{value / tree.num_players:.3g}")
        table = policy_table(tree, policy, game, solver=solver, schedule=schedule,
                             iterations=run.iteration, nash_conv=value,
                             exploitability=value / tree.num_players)
        table.solver_state.update(run.state_arrays())
        return table

    return _checkpointed(run, run.run, out, iterations, max(1, -(-iterations // checkpoints)), snapshot,
                         progress, f"{solver} {game.get_type().short_name}")


def train_sampling(game: pyspiel.Game, out: str | Path, iterations: int, sampler: str = "external",
                   seed: int = 0, resume: bool = False, checkpoints: int = 10,
                   progress: bool = True) -> PolicyTable:
    """MCCFR (``sampler``: external or outcome) on a cardlab ``game`` from its start, like :func:`train`.

    No tree is built, so no exploitability is known: the progress bar shows the
    information sets met instead.
    """
    if sampler not in SAMPLERS:
        raise ValueError(f"unknown sampler {sampler!r}; choose from {', '.join(SAMPLERS)}")
    if iterations < 1 or checkpoints < 1:
        raise ValueError(f"iterations and checkpoints must be >= 1, got {iterations}, {checkpoints}")
    run = MCCFRSolver(game, sampler, seed)
    if resume:
        saved = load_policy(out, game)
        _check_saved_run(out, saved, {"solver": sampler, "seed": seed})
        run.restore(saved.solver_state, saved.metadata["iterations"])

    def snapshot(bar: tqdm) -> PolicyTable:
        bar.set_postfix(infosets=run.num_infosets)
        table = run.policy_table(seed=seed)
        table.solver_state.update(run.state_arrays())
        return table

    return _checkpointed(run, run.run, out, iterations, max(1, -(-iterations // checkpoints)), snapshot,
                         progress, f"{sampler} MCCFR {game.get_type().short_name}")


def train_bidding(game: pyspiel.Game, out: str | Path, iterations: int,
                  granularity: str = "coarse", seed: int = 0, workers: int = 1,
                  merge_every: int = 1000, resume: bool = False, checkpoints: int = 10,
                  progress: bool = True) -> PolicyTable:
    """MCCFR on the abstracted auction of Kaiser or Twenty-Eight (:mod:`cardlab.cfr.bidding`).

    ``workers`` processes train in rounds of ``merge_every`` iterations each and
    merge; ``iterations`` (in all) must then be a multiple of ``workers``. Saves
    ``checkpoints`` times; ``resume`` continues a saved run with the same
    granularity, seed and workers bit for bit.
    """
    if iterations < 1 or checkpoints < 1:
        raise ValueError(f"iterations and checkpoints must be >= 1, got {iterations}, {checkpoints}")
    run = BiddingSolver(game, granularity, seed, workers, merge_every)
    if resume:
        saved = load_policy(out, game)
        _check_saved_run(out, saved, {"abstraction": "bidding", "granularity": granularity, "seed": seed,
                                      "workers": workers, "merge_every": merge_every})
        run.restore(saved.solver_state, saved.metadata["iterations"])
    step = max(workers, -(-iterations // checkpoints) // workers * workers)
    start = time.perf_counter()

    def snapshot(bar: tqdm) -> PolicyTable:
        bar.set_postfix(infosets=run.num_infosets)
        return run.policy_table(seconds=round(time.perf_counter() - start, 1))

    pool = run.make_pool() if workers > 1 else None
    try:
        return _checkpointed(run, lambda count: run.run(count, pool), out, iterations, step, snapshot,
                             progress, f"bidding MCCFR {game.get_type().short_name}")
    finally:
        if pool is not None:
            pool.close()
            pool.join()


def _check_saved_run(out: str | Path, saved: PolicyTable, expected: dict[str, Any]) -> None:
    """A run resumes only with the settings it was saved with, else its stream would fork."""
    for key, value in expected.items():
        if saved.metadata.get(key) != value:
            raise ValueError(f"{out}: the saved run used {key} {saved.metadata.get(key)!r}, not {value!r}")


def _checkpointed(run: Any, advance: Callable[[int], None], out: str | Path, iterations: int, step: int,
                  snapshot: Callable[[tqdm], PolicyTable], progress: bool, description: str) -> PolicyTable:
    """Advance ``run`` to ``iterations`` in steps of ``step``, saving ``snapshot``'s table after each.

    Every trainer checkpoints the same way, so an interrupted run loses at most one step.
    """
    if run.iteration > iterations:
        raise ValueError(f"{out}: the saved run has {run.iteration} iterations, more than "
                         f"the {iterations} asked for")
    table = None
    with tqdm(total=iterations, initial=run.iteration, unit="it", disable=not progress,
              desc=description) as bar:
        while table is None or run.iteration < iterations:
            count = min(step, iterations - run.iteration)
            advance(count)
            bar.update(count)
            table = snapshot(bar)
            save_policy(table, out)
    return table
