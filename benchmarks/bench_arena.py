"""Duplicate Kaiser deals per second through the whole arena, with 1 and 2 worker processes.

Rules against rules, the compiled loop, everything a real run does included:
spawning the workers, the Parquet part files and the manifest. A duplicate
deal is two games. Target: >= 100,000 deals in <= 60 s with 2 workers, and
near-linear scaling (efficiency = rate(2) / (2 * rate(1)) close to 1).

    python -m benchmarks.bench_arena [--deals 100000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from benchmarks.common import emit
from cardlab.arena.entrants import labelled, parse_agent_list
from cardlab.arena.tournament import (
    TournamentSettings,
    default_chunk_size,
    play_chunk,
    run_processes,
    run_tournament,
)


def settings_for(deals: int) -> TournamentSettings:
    agents = tuple(labelled(parse_agent_list("rules,rules")))
    return TournamentSettings("cardlab_kaiser", {}, agents, deals, 7, default_chunk_size(deals, True))


def timed_run(deals: int, workers: int) -> float:
    """Seconds for a fresh tournament of ``deals`` rules-vs-rules deals on a pool of ``workers`` processes."""
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        summary = run_tournament(settings_for(deals), directory, backend="processes", workers=workers,
                                 progress=False)
        elapsed = time.perf_counter() - start
    assert summary.deals_done == deals and not summary.interrupted
    return elapsed


def steady_rate(deals: int, workers: int) -> float:
    """Deals per second of the worker pool once it runs: from the first chunk back to the last.

    Leaves out the start-up (spawning, imports, loading the compiled code),
    which is fixed per run and hides the scaling on short runs.
    """
    settings = settings_for(deals)
    arrivals = []
    for _, table in run_processes(settings, list(range(settings.num_chunks)), workers, None):
        arrivals.append((time.perf_counter(), table.num_rows // 2))
    first = workers  # the first chunk of every worker may include its start-up
    played = sum(n for _, n in arrivals[first:])
    return played / (arrivals[-1][0] - arrivals[first - 1][0])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    play_chunk(settings_for(10), 0)  # compile (or load from the cache) before timing
    seconds = {workers: timed_run(args.deals, workers) for workers in (1, 2)}
    rate = {workers: args.deals / s for workers, s in seconds.items()}
    steady = {workers: steady_rate(2 * args.deals, workers) for workers in (1, 2)}
    return emit("arena_duplicate_kaiser_rules_vs_rules", {
        "deals": args.deals,
        "games_per_deal": 2,
        "seconds": {f"{w}_workers": round(s, 2) for w, s in seconds.items()},
        "deals_per_second": {f"{w}_workers": round(r) for w, r in rate.items()},
        "scaling_efficiency_2_workers": round(rate[2] / (2 * rate[1]), 3),
        "steady_deals_per_second": {f"{w}_workers": round(r) for w, r in steady.items()},
        "steady_scaling_efficiency_2_workers": round(steady[2] / (2 * steady[1]), 3),
        "target": {"deals": 100_000, "max_seconds_2_workers": 60.0},
        "meets_target": bool(args.deals >= 100_000 and seconds[2] <= 60.0),
    })


if __name__ == "__main__":
    main()
