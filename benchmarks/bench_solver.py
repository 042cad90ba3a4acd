"""Double-dummy solver speed: full Kaiser solves, full tables, and the ablation of each technique.

(a) one full Kaiser deal, one declarer (seat 0, on lead) and one trump, from
a fresh table generation: mean and 99th percentile; (b) the full double-dummy
table of a deal (4 declarers x 4 trumps, no trump, low no trump: 24 solves);
(c) the ablation: each technique switched off in turn, timed on the same
deals in the same run, reported as the slow-down against all techniques on
(the speed-up that technique brings; the baseline is timed again beside each)
with the nodes searched, whose ratio does not depend on the machine's load. Goal: (a) mean
<= 1 ms on one core.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.common import emit
from cardlab.solver.analysis import analyse, deal_from_seed
from cardlab.solver.position import KAISER_HIGH_POINTS, KAISER_HIGH_SEARCH, to_search
from cardlab.solver.search import (
    ALL_TECHNIQUES,
    NODES,
    TECHNIQUE_NAMES,
    Table,
    exact_value,
    forget,
    make_rules,
)

DEALS = 200
ABLATION_DEALS = 30


def solve_times(deals: list[np.ndarray], trumps: list[int], flags: int) -> tuple[np.ndarray, float]:
    """Seconds per full solve of each deal (seat 0 declares and leads), and mean nodes."""
    table = Table()
    trick = np.full(4, -1, dtype=np.int64)
    times = np.empty(len(deals))
    nodes = 0
    for i, (hands, trump) in enumerate(zip(deals, trumps, strict=True)):
        rules = make_rules(trump, 1, KAISER_HIGH_POINTS, flags)
        search_hands = np.array([to_search(h, KAISER_HIGH_SEARCH) for h in hands], dtype=np.int64)
        forget(table.counters)
        before = table.counters[NODES]
        start = time.perf_counter()
        exact_value(rules, table.entries, table.counters, table.scratch, search_hands, trick, 0, 0, 8, 0)
        times[i] = time.perf_counter() - start
        nodes += table.counters[NODES] - before
    return times, nodes / len(deals)


def main() -> dict:
    deals = [deal_from_seed("cardlab_kaiser", seed) for seed in range(DEALS)]
    trumps = [seed % 4 for seed in range(DEALS)]
    solve_times(deals[:2], trumps[:2], ALL_TECHNIQUES)  # compile
    times, nodes = solve_times(deals, trumps, ALL_TECHNIQUES)
    analyse("cardlab_kaiser", deals[0])
    table_times = []
    for hands in deals[:ABLATION_DEALS]:
        start = time.perf_counter()
        analyse("cardlab_kaiser", hands)
        table_times.append(time.perf_counter() - start)
    ablation = {}
    for name, flag in TECHNIQUE_NAMES.items():  # the baseline again beside each, as the load changes
        base, base_nodes = solve_times(deals[:ABLATION_DEALS], trumps[:ABLATION_DEALS], ALL_TECHNIQUES)
        off, off_nodes = solve_times(deals[:ABLATION_DEALS], trumps[:ABLATION_DEALS], ALL_TECHNIQUES & ~flag)
        ablation[name] = {"speed_up": round(off.mean() / base.mean(), 2),
                          "mean_ms_with": round(1000 * base.mean(), 2),
                          "mean_ms_without": round(1000 * off.mean(), 2),
                          "nodes_ratio": round(off_nodes / base_nodes, 2),
                          "nodes_with": round(base_nodes), "nodes_without": round(off_nodes)}
    return emit("double_dummy_solver", {
        "a_full_kaiser_solve_ms": {"mean": round(1000 * times.mean(), 3),
                                   "p99": round(1000 * float(np.percentile(times, 99)), 3),
                                   "deals": DEALS, "mean_nodes": round(nodes)},
        "b_full_table_ms": {"mean": round(1000 * float(np.mean(table_times)), 2),
                            "p99": round(1000 * float(np.percentile(table_times, 99)), 2),
                            "deals": ABLATION_DEALS, "solves_per_table": 24},
        "c_ablation": ablation,
        "goal": {"a_mean_ms": 1.0},
        "ratio_a_mean_over_goal": round(1000 * times.mean() / 1.0, 2),
    })


if __name__ == "__main__":
    main()
