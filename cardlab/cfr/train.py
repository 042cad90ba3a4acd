"""Training runs of the tabular solvers: build the tree, iterate, checkpoint, resume, save the policy.

A run writes its policy file (:mod:`cardlab.cfr.policy`) at every checkpoint,
with the solver's regrets, cumulative policy and current policy beside the
average policy. Resuming reads them back and continues the same run: CFR is
deterministic, so a run stopped and resumed ends with the very arrays of a
run that never stopped.

Nothing is lost to a kill or Ctrl-C. Each checkpoint is written atomically
(a temporary file, then a rename) after the one before it is kept beside it
(:func:`previous_path`), so a kill at any moment leaves a readable
checkpoint, and a resume falls back to the previous one if the latest is
unreadable. The iterations go to the kernels in slices of about a quarter of
a second; Ctrl-C or SIGTERM is acted on between slices: the run saves the
iteration it reached and stops (:class:`TrainingStopped`). The folder of
``out`` is checked before any tree is built.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
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
from cardlab.core.interrupt import StopRequest, timed_slices
from cardlab.core.limits import (
    MAX_CHECKPOINTS,
    MAX_ITERATIONS,
    MAX_WORKERS,
    check_count,
    check_seed,
)


class TrainingStopped(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM after saving the iteration it reached."""

    def __init__(self, out: str | Path, iteration: int, iterations: int):
        super().__init__(f"stopped at iteration {iteration} of {iterations}; the run is saved in {out}")
        self.out, self.iteration, self.iterations = Path(out), iteration, iterations


def previous_path(out: str | Path) -> Path:
    """Where the checkpoint before the latest is kept: ``run.npz`` -> ``run.previous.npz``."""
    out = Path(out)
    return out.with_name(f"{out.stem}.previous{out.suffix}")


def check_out(out: str | Path, resume: bool) -> None:
    """``out`` as a checkpoint file: its folder exists and takes files, it is no folder; with
    ``resume`` it (or its previous checkpoint) exists. ``ValueError`` now, before any work."""
    out = Path(out)
    if out.is_dir():
        raise ValueError(f"--out {out} is a directory; give the policy file's name")
    if not out.parent.is_dir():
        raise ValueError(f"--out {out}: the folder {out.parent} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"):
            pass
    except OSError as error:
        raise ValueError(f"--out {out}: cannot write in {out.parent} ({error.strerror or error})") from error
    if resume and not out.exists() and not previous_path(out).exists():
        raise ValueError(f"--resume: {out} does not exist")


def check_run(iterations: int, checkpoints: int, seed: int = 0, workers: int = 1,
              merge_every: int = 1) -> None:
    """The numbers of a run, each in its documented range (``ValueError`` naming it)."""
    check_count(iterations, "iterations", MAX_ITERATIONS)
    check_count(checkpoints, "checkpoints", MAX_CHECKPOINTS)
    check_seed(seed, "the seed")
    check_count(workers, "workers", MAX_WORKERS)
    check_count(merge_every, "merge_every", MAX_ITERATIONS)


def save_checkpoint(table: PolicyTable, out: str | Path) -> None:
    """Write ``table`` to ``out`` atomically, the checkpoint it replaces kept at :func:`previous_path`.

    At every moment ``out`` is a whole checkpoint (the old or the new one), and
    so is the previous one once the first save has been replaced.
    """
    out = Path(out)
    if out.exists():
        previous = previous_path(out)
        handle, temporary = tempfile.mkstemp(dir=out.parent, prefix=f".{previous.name}.", suffix=".tmp")
        os.close(handle)
        try:
            os.unlink(temporary)
            try:
                os.link(out, temporary)  # the same bytes under a second name, nothing copied
            except OSError:
                shutil.copyfile(out, temporary)
            os.replace(temporary, previous)
        finally:
            Path(temporary).unlink(missing_ok=True)
    save_policy(table, out)


def load_checkpoint(out: str | Path, game: pyspiel.Game) -> PolicyTable:
    """The run saved in ``out``; if that file is unreadable, the previous checkpoint (said on stderr)."""
    try:
        return load_policy(out, game)
    except ValueError as error:
        previous = previous_path(out)
        if not previous.exists():
            raise
        table = load_policy(previous, game)
        print(f"cardlab: {str(error).splitlines()[0]}; resuming from the previous checkpoint {previous} "
              f"(iteration {table.metadata.get('iterations')})", file=sys.stderr)
        return table


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
    check_run(iterations, checkpoints)
    check_out(out, resume)
    tree = build_tree(game)
    run = TabularSolver(tree, solver, schedule)
    if resume:
        saved = load_checkpoint(out, game)
        _check_saved_run(out, saved, {"solver": solver, "schedule": schedule})
        if saved.names != tree.infoset_names:
            raise ValueError(f"{out}: the saved run's information sets differ from this tree's")
        _restore(run, saved, out)

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
    check_run(iterations, checkpoints, seed)
    check_out(out, resume)
    run = MCCFRSolver(game, sampler, seed)
    if resume:
        saved = load_checkpoint(out, game)
        _check_saved_run(out, saved, {"solver": sampler, "seed": seed})
        _restore(run, saved, out)

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
    check_run(iterations, checkpoints, seed, workers, merge_every)
    check_out(out, resume)
    run = BiddingSolver(game, granularity, seed, workers, merge_every)
    if resume:
        saved = load_checkpoint(out, game)
        _check_saved_run(out, saved, {"abstraction": "bidding", "granularity": granularity, "seed": seed,
                                      "workers": workers, "merge_every": merge_every})
        _restore(run, saved, out)
    step = max(workers, -(-iterations // checkpoints) // workers * workers)
    start = time.perf_counter()

    def snapshot(bar: tqdm) -> PolicyTable:
        bar.set_postfix(infosets=run.num_infosets)
        return run.policy_table(seconds=round(time.perf_counter() - start, 1))

    pool = run.make_pool() if workers > 1 else None
    try:
        # Slices of whole merge rounds of every worker: the rounds, so the tables, of one call of ``step``.
        return _checkpointed(run, lambda count: run.run(count, pool), out, iterations, step, snapshot,
                             progress, f"bidding MCCFR {game.get_type().short_name}",
                             granule=workers * merge_every if workers > 1 else 1)
    finally:
        if pool is not None:
            pool.close()
            pool.join()


def _check_saved_run(out: str | Path, saved: PolicyTable, expected: dict[str, Any]) -> None:
    """A run resumes only with the settings it was saved with, else its stream would fork."""
    for key, value in expected.items():
        if saved.metadata.get(key) != value:
            raise ValueError(f"{out}: the saved run used {key} {saved.metadata.get(key)!r}, not {value!r}")


def _restore(run: Any, saved: PolicyTable, out: str | Path) -> None:
    """Continue ``run`` from the checkpoint ``saved``: any array missing or out of place is one line."""
    iterations = saved.metadata.get("iterations")
    try:
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
            raise ValueError(f"iterations {iterations!r:.20}")
        run.restore(saved.solver_state, iterations)
    except (KeyError, ValueError, IndexError, TypeError) as error:
        raise ValueError(f"{out}: the saved run cannot be resumed ({type(error).__name__}: "
                         f"{str(error).splitlines()[0] if str(error) else ''})") from error


def _checkpointed(run: Any, advance: Callable[[int], None], out: str | Path, iterations: int, step: int,
                  snapshot: Callable[[tqdm], PolicyTable], progress: bool, description: str,
                  granule: int = 1) -> PolicyTable:
    """Advance ``run`` to ``iterations`` in steps of ``step``, saving ``snapshot``'s table after each.

    Every trainer checkpoints the same way. Each step goes to ``advance`` in
    slices (:func:`~cardlab.core.interrupt.timed_slices`, multiples of
    ``granule``) that give the same arrays as one call; Ctrl-C or SIGTERM
    between slices saves the iteration reached and raises
    :class:`TrainingStopped`, so a stopped run loses nothing.
    """
    if run.iteration > iterations:
        raise ValueError(f"{out}: the saved run has {run.iteration} iterations, more than "
                         f"the {iterations} asked for")
    table = None
    with StopRequest() as stop, tqdm(total=iterations, initial=run.iteration, unit="it",
                                     disable=not progress, desc=description) as bar:
        while table is None or run.iteration < iterations:
            for part in timed_slices(min(step, iterations - run.iteration), granule):
                advance(len(part))
                bar.update(len(part))
                if stop.requested:
                    break
            table = snapshot(bar)
            save_checkpoint(table, out)
            if stop.requested:
                raise TrainingStopped(out, run.iteration, iterations)
    return table
