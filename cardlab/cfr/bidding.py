"""Bidding strategies by MCCFR: the solver of the abstracted auction of Kaiser and Twenty-Eight.

The abstracted game, its leaf values and its regret table are
:mod:`cardlab.cfr.bidding_game`; a saved policy as the compiled arena reads it,
and a quick duel against the rule-based bidder, are :mod:`cardlab.cfr.bidding_policy`.

Regrets and average-policy sums live in an open-addressing table of numpy
arrays (keys are packed features, so they never collide); its arrays copy,
merge and save as they are. :class:`BiddingSolver` runs external-sampling
MCCFR on it, in one process or in several with a periodic merge
(:meth:`BiddingSolver.run`).
"""

from __future__ import annotations

import multiprocessing
import sys
from typing import Any

import numpy as np
import pyspiel

from cardlab.cfr.bidding_game import CAPACITY, MAX_ACTIONS, merge_into, run_iterations
from cardlab.cfr.policy import PolicyTable, game_identity
from cardlab.core.interrupt import quiet_worker
from cardlab.core.rng import derive_seed, make_stream
from cardlab.games import game_spec
from cardlab.games.bidding_features import (
    MODELLED_PARAMETERS,
)

GRANULARITIES = ("coarse", "fine")


# ---- the solver -----------------------------------------------------------------------------

def check_modelled(game: pyspiel.Game) -> int:
    """The kernel id of ``game``, or ``ValueError`` if its auction is not modelled."""
    name = game.get_type().short_name
    if name not in MODELLED_PARAMETERS:
        raise ValueError(f"bidding abstraction: game {name!r} has no modelled auction; "
                         f"choose from {', '.join(sorted(MODELLED_PARAMETERS))}")
    defaults = pyspiel.load_game(name).get_parameters()
    changed = sorted(key for key, value in game.get_parameters().items()
                     if key not in MODELLED_PARAMETERS[name] and defaults.get(key) != value)
    if changed:
        raise ValueError(f"bidding abstraction: {name} with {', '.join(changed)} changed is not "
                         f"modelled; it models only the parameters "
                         f"{', '.join(sorted(MODELLED_PARAMETERS[name]))}")
    return game_spec(name).kernel_id


def _check_granularity(granularity: str) -> bool:
    if granularity not in GRANULARITIES:
        raise ValueError(f"unknown granularity {granularity!r}; choose from "
                         f"{', '.join(GRANULARITIES)}")
    return granularity == "fine"


def _worker_run(args):
    """One worker's share of a round (a top-level function, so a process pool can call it)."""
    kernel_id, initial, arrays, stream, first, count, fine = args
    table = tuple(a.copy() for a in arrays)
    run_iterations(kernel_id, initial, table, stream, first, count, fine)
    return table, stream


def start_method() -> str:
    """How worker processes start: forked (nothing to load), unless JAX's threads run here."""
    return "spawn" if "jax" in sys.modules else "fork"


class BiddingSolver:
    """External-sampling MCCFR on the abstracted auction of ``game``.

    With ``workers`` > 1, :meth:`run` trains in rounds of ``merge_every``
    iterations per worker: every worker starts from a copy of the table,
    runs its share with its own stream (``derive_seed(seed, 1 + w)``, kept
    from round to round), and the table becomes the snapshot plus the sum,
    in worker order, of each worker's change (:func:`merge_into`). So a run
    is deterministic for its seed and worker count, and ``workers=1`` is
    plain MCCFR with the stream of worker 0.
    """

    def __init__(self, game: pyspiel.Game, granularity: str = "coarse", seed: int = 0,
                 workers: int = 1, merge_every: int = 1000, capacity: int = CAPACITY):
        self.kernel_id = check_modelled(game)
        self.fine = _check_granularity(granularity)
        if workers < 1 or merge_every < 1:
            raise ValueError(f"workers and merge_every must be >= 1, got {workers}, {merge_every}")
        if capacity < 2 or capacity & (capacity - 1):
            raise ValueError(f"capacity must be a power of two, got {capacity}")
        self.game = game
        self.granularity = granularity
        self.seed = int(seed)
        self.workers = int(workers)
        self.merge_every = int(merge_every)
        self.iteration = 0
        self._initial = np.asarray(game.initial_array, dtype=np.int64)
        self.streams = [make_stream(int(derive_seed(self.seed, 1 + w))) for w in range(workers)]
        self.table = (np.zeros(capacity, dtype=np.uint64), np.zeros(capacity, dtype=np.int64),
                      np.zeros((capacity, MAX_ACTIONS), dtype=np.int64),
                      np.zeros((capacity, MAX_ACTIONS)), np.zeros((capacity, MAX_ACTIONS)),
                      np.zeros(1, dtype=np.int64))

    @property
    def num_infosets(self) -> int:
        return int(self.table[5][0])

    def run(self, iterations: int, pool: Any = None) -> None:
        """``iterations`` more iterations in all (split evenly over the workers, by rounds).

        With several workers, ``pool`` (a ``multiprocessing`` pool) runs them in
        parallel; without one they run one after the other in this process,
        which gives the very same table (the reference the tests check).
        """
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        if self.workers == 1:
            run_iterations(self.kernel_id, self._initial, self.table, self.streams[0],
                           self.iteration, iterations, self.fine)
            self.iteration += iterations
            return
        if iterations % self.workers:
            raise ValueError(f"iterations ({iterations}) must be a multiple of workers "
                             f"({self.workers})")
        left = iterations // self.workers
        while left > 0:
            share = min(left, self.merge_every)
            # Worker w's iterations are numbered as if the round's were run one worker after another.
            jobs = [(self.kernel_id, self._initial, self.table, self.streams[w],
                     self.iteration + w * share, share, self.fine) for w in range(self.workers)]
            # Every worker starts from the snapshot: all of them run before any merge.
            results = pool.map(_worker_run, jobs) if pool is not None else [
                _worker_run(job) for job in jobs]
            snapshot = tuple(a.copy() for a in self.table)
            for w, (worker_table, stream) in enumerate(results):
                merge_into(self.table, snapshot[0], snapshot[3], snapshot[4], worker_table)
                self.streams[w] = stream
            left -= share
            self.iteration += share * self.workers

    def make_pool(self):
        """A pool of ``workers`` processes that do not compile: forked after compiling, or started
        afresh (they load the kernel from the disk cache) once JAX is loaded here, as forking JAX's
        threads can deadlock the children."""
        run_iterations(self.kernel_id, self._initial, tuple(a.copy() for a in self.table),
                       make_stream(0), 0, 1, self.fine)
        return multiprocessing.get_context(start_method()).Pool(self.workers, initializer=quiet_worker)

    def average_policy(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Key -> (actions, average probabilities) of every set met, in slot order."""
        keys, counts, actions, _, cumulative, _ = self.table
        policy = {}
        for slot in np.flatnonzero(keys):
            m = int(counts[slot])
            sums = cumulative[slot, :m]
            total = sums.sum()
            policy[int(keys[slot])] = (actions[slot, :m].copy(),
                                       sums / total if total > 0 else np.full(m, 1.0 / m))
        return policy

    def policy_table(self, **metadata: Any) -> PolicyTable:
        """The average policy as a policy file's table, with the run's state to resume from."""
        average = self.average_policy()
        offsets = np.zeros(len(average) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(a) for a, _ in average.values()])
        actions = np.concatenate([a for a, _ in average.values()] or [np.zeros(0, np.int64)])
        probabilities = np.concatenate([p for _, p in average.values()] or [np.zeros(0)])
        info = {**game_identity(self.game), "naming": "key", "abstraction": "bidding",
                "solver": "bidding", "granularity": self.granularity, "seed": self.seed,
                "workers": self.workers, "merge_every": self.merge_every,
                "capacity": len(self.table[0]), "iterations": self.iteration,
                "infosets": self.num_infosets, **metadata}
        table = PolicyTable(tuple(str(key) for key in average), offsets, actions, probabilities,
                            info)
        table.solver_state.update(self.state_arrays())
        return table

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The occupied slots and the streams: all a checkpoint needs to resume bit for bit."""
        keys, counts, actions, regrets, cumulative, _ = self.table
        slots = np.flatnonzero(keys)
        return {"slots": slots, "keys": keys[slots], "counts": counts[slots],
                "entry_actions": actions[slots], "regrets": regrets[slots],
                "cumulative": cumulative[slots], "streams": np.concatenate(self.streams)}

    def restore(self, arrays: dict[str, np.ndarray], iteration: int) -> None:
        """Continue from :meth:`state_arrays` saved after ``iteration`` iterations."""
        if len(arrays["streams"]) != self.workers:
            raise ValueError(f"the saved run had {len(arrays['streams'])} workers, not "
                             f"{self.workers}")
        capacity = len(self.table[0])
        slots, counts = np.asarray(arrays["slots"], dtype=np.int64), np.asarray(arrays["counts"])
        if len(slots) and slots.max() >= capacity:
            raise ValueError(f"the saved run's table is larger than capacity {capacity}")
        if (any(len(arrays[name]) != len(slots) for name in ("keys", "counts", "entry_actions", "regrets",
                                                             "cumulative"))
                or len(slots) and (slots.min() < 0 or len(np.unique(slots)) != len(slots)
                                   or counts.min() < 1 or counts.max() > MAX_ACTIONS)):
            raise ValueError("the saved run's table is inconsistent (sizes, slots or counts out of range)")
        keys, counts, actions, regrets, cumulative, used = self.table
        for target in (keys, counts, actions, regrets, cumulative):
            target[:] = 0
        keys[slots] = arrays["keys"]
        counts[slots] = arrays["counts"]
        actions[slots] = arrays["entry_actions"]
        regrets[slots] = arrays["regrets"]
        cumulative[slots] = arrays["cumulative"]
        used[0] = len(slots)
        self.streams = [np.array(arrays["streams"][w:w + 1], dtype=np.uint64)
                        for w in range(self.workers)]
        self.iteration = int(iteration)
