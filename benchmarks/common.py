"""Timing helpers shared by the benchmarks.

Machines here are noisy, so every figure is the best of a few repeats and is
reported beside a baseline measured in the same run; only ratios are compared
with targets. Rates are per second of the thread's CPU time (``time.thread_time``:
every contender runs in the calling thread), which other processes on a shared
machine disturb far less than wall time.
"""

from __future__ import annotations

import json
import platform
import random
import time
from collections.abc import Callable

import numba
import numpy as np
import pyspiel


def best_rate(run: Callable[[], int], repeats: int = 3) -> float:
    """Best items per CPU second over ``repeats`` calls of ``run`` (which returns its item count)."""
    best = 0.0
    for _ in range(repeats):
        start = time.thread_time()
        items = run()
        elapsed = time.thread_time() - start
        best = max(best, items / elapsed)
    return best


def best_rates(runs: dict[str, Callable[[], int]], repeats: int = 5) -> dict[str, float]:
    """Like :func:`best_rate` for several contenders, interleaved so that load hits all alike."""
    best = dict.fromkeys(runs, 0.0)
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.thread_time()
            items = run()
            best[name] = max(best[name], items / (time.thread_time() - start))
    return best


def python_random_games(game: pyspiel.Game, games: int, seed: int = 0) -> int:
    """The plain Python driver loop every wrapper benchmark uses (same for C++ games)."""
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = outcomes[rng.randrange(len(outcomes))][0]
            else:
                legal = state.legal_actions()
                action = legal[rng.randrange(len(legal))]
            state.apply_action(action)
    return games


def environment() -> dict:
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "machine": platform.machine(),
        "numba_threads": 1,
    }


def emit(name: str, figures: dict) -> dict:
    report = {"benchmark": name, **figures, "environment": environment()}
    print(json.dumps(report, indent=2))
    return report
