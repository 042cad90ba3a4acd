"""Double-dummy solver speed: full solves, full tables, and the ablation of each technique.

(a) one full deal, one declarer (seat 0, on lead) and one trump, from a
fresh table generation: mean and 99th percentile, Kaiser and Twenty-Eight
(its open rules: the trump known to all); (b) the full double-dummy table of
a deal (Kaiser: 4 declarers x 4 trumps, no trump, low no trump: 24 solves;
Twenty-Eight: 4 leaders x 4 trumps); (c) the ablation: each technique
switched off in turn, timed on the same deals in the same run, reported as
the slow-down against all techniques on (the speed-up that technique
brings; the baseline is timed again beside each) with the nodes searched,
whose ratio does not depend on the machine's load. Goal: Kaiser (a) mean
<= 1 ms on one core.

Times are CPU seconds of the solving thread (``time.thread_time``): the
machine these run on is shared, and waiting for a core is not the solver's
time; the wall-clock mean of (a) is reported beside it.

``python -m benchmarks.bench_solver --a-only GAME [DEALS]`` (from the
repository's root) prints only (a) with a 95% interval of the mean; run as a
file with ``PYTHONPATH`` set to another checkout (``PYTHONPATH=<checkout>
python benchmarks/bench_solver.py --a-only ...``), it times that checkout's
solver on the same deals (the before/after figures of docs/solver.md).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from benchmarks.common import emit
from cardlab.games.double_dummy import GAME_IDS, game_tables
from cardlab.solver import position
from cardlab.solver.analysis import analyse, deal_from_seed
from cardlab.solver.mtd import exact_value
from cardlab.solver.position import to_search
from cardlab.solver.rules import ALL_TECHNIQUES, TECHNIQUE_NAMES, make_rules
from cardlab.solver.search import Table
from cardlab.solver.table import NODES, forget

DEALS = 200
ABLATION_DEALS = 30
TABLE_DEALS = 20
# A checkout from before tables were sized by game (for paired timings) uses its own default.
TABLE_BITS = getattr(position, "TABLE_BITS", None)
GAMES = {"kaiser": "cardlab_kaiser", "twenty_eight": "cardlab_twenty_eight"}


def solve_times(game: str, deals: list[np.ndarray], trumps: list[int],
                flags: int) -> tuple[np.ndarray, np.ndarray, float]:
    """CPU and wall seconds per full solve of each deal (seat 0 leads), and the mean nodes."""
    table = Table(TABLE_BITS[GAME_IDS[game]]) if TABLE_BITS else Table()
    trick = np.full(4, -1, dtype=np.int64)
    cpu = np.empty(len(deals))
    wall = np.empty(len(deals))
    nodes = 0
    for i, (hands, strain) in enumerate(zip(deals, trumps, strict=True)):
        trump, search_card_of, _, points, trick_points = game_tables(GAME_IDS[game], strain)
        rules = make_rules(trump, trick_points, points, flags)
        search_hands = np.array([to_search(h, search_card_of) for h in hands], dtype=np.int64)
        forget(table.counters)
        before = table.counters[NODES]
        start, start_wall = time.thread_time(), time.perf_counter()
        exact_value(rules, table.entries, table.counters, table.scratch, search_hands, trick, 0, 0, 8, 0)
        cpu[i] = time.thread_time() - start
        wall[i] = time.perf_counter() - start_wall
        nodes += table.counters[NODES] - before
    return cpu, wall, nodes / len(deals)


def _ms(seconds: float) -> float:
    return round(1000 * seconds, 3)


def game_figures(game: str) -> dict:
    """(a), (b) and (c) of one game."""
    deals = [deal_from_seed(game, seed) for seed in range(DEALS)]
    trumps = [seed % 4 for seed in range(DEALS)]
    solve_times(game, deals[:2], trumps[:2], ALL_TECHNIQUES)  # compile
    cpu, wall, nodes = solve_times(game, deals, trumps, ALL_TECHNIQUES)
    analyse(game, deals[0])
    table_times = []
    for hands in deals[:TABLE_DEALS]:
        start = time.thread_time()
        table = analyse(game, hands)
        table_times.append(time.thread_time() - start)
    ablation = {}
    few, few_trumps = deals[:ABLATION_DEALS], trumps[:ABLATION_DEALS]
    for name, flag in TECHNIQUE_NAMES.items():  # the baseline again beside each, as the load changes
        base, _, base_nodes = solve_times(game, few, few_trumps, ALL_TECHNIQUES)
        off, _, off_nodes = solve_times(game, few, few_trumps, ALL_TECHNIQUES & ~flag)
        ablation[name] = {"speed_up": round(off.mean() / base.mean(), 2),
                          "mean_ms_with": _ms(base.mean()),
                          "mean_ms_without": _ms(off.mean()),
                          "nodes_ratio": round(off_nodes / base_nodes, 2),
                          "nodes_with": round(base_nodes), "nodes_without": round(off_nodes)}
    return {
        "a_full_solve_ms": {"mean": _ms(cpu.mean()), "p99": _ms(float(np.percentile(cpu, 99))),
                            "wall_mean": _ms(wall.mean()), "deals": DEALS, "mean_nodes": round(nodes)},
        "b_full_table_ms": {"mean": _ms(float(np.mean(table_times))),
                            "p99": _ms(float(np.percentile(table_times, 99))),
                            "deals": TABLE_DEALS, "solves_per_table": table.points.size},
        "c_ablation": ablation,
    }


def main() -> dict:
    figures = {name: game_figures(game) for name, game in GAMES.items()}
    kaiser_mean = figures["kaiser"]["a_full_solve_ms"]["mean"]
    return emit("double_dummy_solver", {
        **figures,
        "goal": {"kaiser_a_mean_ms": 1.0},
        "ratio_kaiser_a_mean_over_goal": round(kaiser_mean / 1.0, 2),
    })


def full_solve_figures(game: str, deals: int = DEALS) -> str:
    """(a) alone: mean with its 95% interval (normal approximation), p99 and nodes, one line."""
    hands = [deal_from_seed(GAMES[game], seed) for seed in range(deals)]
    trumps = [seed % 4 for seed in range(deals)]
    solve_times(GAMES[game], hands[:2], trumps[:2], ALL_TECHNIQUES)  # compile
    cpu, _, nodes = solve_times(GAMES[game], hands, trumps, ALL_TECHNIQUES)
    half = 1.96 * cpu.std(ddof=1) / np.sqrt(deals)
    return (f"{game} {deals} deals: mean {_ms(cpu.mean())} ms CPU [{_ms(cpu.mean() - half)}, "
            f"{_ms(cpu.mean() + half)}], p99 {_ms(float(np.percentile(cpu, 99)))} ms, {nodes:.0f} nodes")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--a-only":
        print(full_solve_figures(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else DEALS))
    else:
        main()
