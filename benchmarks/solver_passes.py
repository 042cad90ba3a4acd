"""Where a full Kaiser solve's nodes go: MTD(f)'s passes, from the narrow-search guess and from a perfect one.

Each deal of ``bench_solver`` (a) (seed ``s``, trump ``s % 4``, seat 0 leading) is solved
once for its value, then again in a new table generation pass by pass: MTD(f) from the
guess the solver uses (the narrow search: each side's two best-ordered cards) and from the exact value.
Prints the mean passes and nodes a solve, the nodes of each pass, and the guess's errors.

    PYTHONPATH=<checkout> python benchmarks/solver_passes.py [kaiser|twenty_eight] [DEALS]
"""

from __future__ import annotations

import sys
from collections import Counter

import numpy as np

from cardlab.games.double_dummy import GAME_IDS, game_tables
from cardlab.solver.analysis import deal_from_seed
from cardlab.solver.bounds import boundary_bounds
from cardlab.solver.mtd import exact_value, narrow_value
from cardlab.solver.position import to_search
from cardlab.solver.rules import ALL_TECHNIQUES, make_rules
from cardlab.solver.search import Table, search
from cardlab.solver.table import NODES, forget

GAMES = {"kaiser": "cardlab_kaiser", "twenty_eight": "cardlab_twenty_eight"}


def passes(game: str, deals: int, perfect: bool) -> None:
    """Solve the deals pass by pass and print where the nodes went."""
    table = Table()
    trick = np.full(4, -1, dtype=np.int64)
    nodes, errors, per_pass = 0, Counter(), {}
    for seed in range(deals):
        trump, search_card_of, _, points, trick_points = game_tables(GAME_IDS[game], seed % 4)
        rules = make_rules(trump, trick_points, points, ALL_TECHNIQUES)
        hands = np.array([to_search(h, search_card_of) for h in deal_from_seed(game, seed)], dtype=np.int64)
        position = (hands, trick, 0, 0, 8, 0)
        forget(table.counters)
        value = exact_value(rules, table.entries, table.counters, table.scratch, *position)
        forget(table.counters)
        start = table.counters[NODES]
        lower, upper = boundary_bounds(rules, hands, 0, 8)
        guess = value if perfect else narrow_value(rules, table.entries, table.counters, table.scratch,
                                                   *position)
        errors[int(guess - value)] += 1
        if not lower <= guess <= upper:
            guess = (lower + upper) // 2
        k = 0
        while lower < upper:  # exact_value's loop, pass by pass
            beta = max(guess, lower + 1)
            before = table.counters[NODES]
            guess = search(rules, table.entries, table.counters, table.scratch, *position, beta - 1, beta)
            per_pass.setdefault(k, []).append(table.counters[NODES] - before)
            k += 1
            if guess < beta:
                upper = guess
            else:
                lower = guess
        nodes += table.counters[NODES] - start
    solves = sum(len(v) for v in per_pass.values())
    print(f"{game}, {'perfect' if perfect else 'narrow-search'} guess, {deals} deals: "
          f"{solves / deals:.2f} passes and {nodes / deals:.0f} nodes a solve (the guess's included)")
    for k, counts in sorted(per_pass.items()):
        print(f"  pass {k + 1}: {len(counts)} solves, {np.mean(counts):.0f} nodes each")
    print("  guess minus value: deals", dict(sorted(errors.items())))


if __name__ == "__main__":
    name = GAMES[sys.argv[1] if len(sys.argv) > 1 else "kaiser"]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    passes(name, count, perfect=False)
    passes(name, count, perfect=True)
