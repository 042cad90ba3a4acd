"""Small games solved exactly: tree sizes, NashConv curves (CFR, CFR+, DCFR), the OpenSpiel cross-check.

    python -m experiments.small_games --out experiments/results/small-games.json

``--merge`` adds the variants and cross-checks chosen to the results already in ``--out``
(and skips the node count), so one game's variants are re-measured alone.

Each small variant (cardlab's research parameters, docs/rules/<game>.md#small-games)
is a whole game from its first dealt card. Its tree is built from the engine
kernels; every solver runs with OpenSpiel's schedule and NashConv is computed
exactly on the tree at each checkpoint, until it is below ``TARGET`` or the
last checkpoint. The cross-check (``CROSS_CHECK``) builds the same game's tree
through pyspiel, checks the two builders give identical arrays, compares
cardlab's NashConv with ``open_spiel.python.algorithms.exploitability.nash_conv``
on the same policies, and runs cardlab's vanilla CFR beside OpenSpiel's
``CFRSolver`` (C++, through the wrapped game) comparing NashConv after every
iteration. ``kuhn_poker`` and ``leduc_poker`` go through the same check.
Deterministic: every number repeats exactly; only the seconds depend on the machine.
The figure (NashConv against iterations, log-log) goes beside the JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import exploitability

from cardlab.cfr.engine_tree import build_from_engine
from cardlab.cfr.evaluation import nash_conv
from cardlab.cfr.policy import to_tabular_policy
from cardlab.cfr.pyspiel_tree import build_from_pyspiel
from cardlab.cfr.solvers import TabularSolver
from cardlab.cfr.tree import GameTree
from cardlab.games import game_spec

#: name -> (game, parameters): the small variants solved.
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "kaiser_1": ("kaiser", {"hand_size": 1}),  # bids 2, 2NT, 3, 3NT
    "kaiser_1_short": ("kaiser", {"hand_size": 1, "min_bid": 3}),  # bids 3, 3NT
    "kaiser_1_low": ("kaiser", {"hand_size": 1, "low_no_trump": True}),  # 2 to 3LNT
    # JH 9H JS 9S, one round on the one card: bids 5..6, and 5..8 (the partner may overcall with 8)
    "twenty_eight_1_short": ("twenty_eight", {"hand_size": 1, "bidding_rounds": 1, "max_bid": 6}),
    "twenty_eight_1": ("twenty_eight", {"hand_size": 1, "bidding_rounds": 1, "max_bid": 8}),
    # 2C 3C | 9C TC, one card a seat: one failed ask, or four, before the unclaimed half-suits are void
    "literature_2x2_1": ("literature", {"players": 4, "half_suit_size": 2, "half_suits": 2, "max_asks": 1}),
    "literature_2x2_4": ("literature", {"players": 4, "half_suit_size": 2, "half_suits": 2, "max_asks": 4}),
}
SOLVERS = ("cfr+", "cfr", "dcfr")
CHECKPOINTS = (1, 3, 10, 30, 100, 300, 1000, 3000, 10000)
TARGET = 1e-3
#: The variants (and OpenSpiel games) cross-checked, the iterations after which cardlab's
#: NashConv is compared with OpenSpiel's python one, and how many vanilla CFR iterations are
#: compared with OpenSpiel's CFRSolver one by one (its exploitability is computed in C++).
CROSS_CHECK = {"variants": ("kaiser_1_short", "twenty_eight_1_short", "literature_2x2_1"),
               "openspiel_games": ("kuhn_poker", "leduc_poker"),
               "policy_iterations": (0, 3, 20),
               "curve_iterations": {"kaiser_1_short": 10, "twenty_eight_1_short": 10,
                                    "literature_2x2_1": 10, "kuhn_poker": 100, "leduc_poker": 12}}


#: name -> (game, parameters): variants too large to build, whose nodes are counted deal by deal.
COUNTED: dict[str, tuple[str, dict[str, Any]]] = {
    "kaiser_2_shortest": ("kaiser", {"hand_size": 2, "min_bid": 3, "max_bid": 3}),  # bids 3, 3NT
}


def load(variant: str) -> pyspiel.Game:
    name, parameters = VARIANTS[variant]
    return game_spec(name).load(parameters)


def convergence(tree: GameTree, solver: str) -> dict[str, Any]:
    """NashConv of the average policy at each checkpoint until it is below TARGET."""
    run = TabularSolver(tree, solver)
    curve, start = [], time.perf_counter()
    for checkpoint in CHECKPOINTS:
        run.run(checkpoint - run.iteration)
        curve.append(nash_conv(tree, run.average_policy()))
        if curve[-1] < TARGET:
            break
    below = next((c for c, v in zip(CHECKPOINTS, curve, strict=False) if v < TARGET), None)
    return {"iterations": list(CHECKPOINTS[:len(curve)]), "nash_conv": curve,
            "first_checkpoint_below_target": below, "seconds": round(time.perf_counter() - start, 2)}


def solve(variant: str) -> dict[str, Any]:
    game = load(variant)
    start = time.perf_counter()
    tree = build_from_engine(game)
    entry = {"game": game.get_type().short_name, "parameters": VARIANTS[variant][1],
             "tree": tree.summary(), "players": tree.num_players,
             "build_seconds": round(time.perf_counter() - start, 2),
             "uniform_nash_conv": nash_conv(tree, tree.uniform_policy()), "solvers": {}}
    for solver in SOLVERS:
        entry["solvers"][solver] = convergence(tree, solver)
        print(variant, solver, [f"{v:.2e}" for v in entry["solvers"][solver]["nash_conv"]], flush=True)
    return entry


def count_nodes(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """The nodes of a four-seat game's whole tree, without building it: the deal's chance nodes plus,
    for each way to deal the hands, the tree below the dealt cards times the orders giving it."""
    game = game_spec(name).load(parameters)
    deck = [a for a, _ in game.new_initial_state().chance_outcomes()]
    size = len(deck) // 4
    chance_nodes = sum(int(np.prod(range(len(deck) - d + 1, len(deck) + 1))) for d in range(len(deck)))
    below, deals = 0, 0
    for hands in _splits(deck, 4, size):
        order = [hands[(1 + k) % 4][k // 4] for k in range(len(deck))]  # dealer 0: seat 1 first
        below += build_from_engine(game, [order]).num_nodes
        deals += 1
    orders = int(np.prod(range(1, size + 1))) ** 4  # the orders of each hand's cards
    return {"game": game.get_type().short_name, "parameters": parameters, "deals": deals,
            "deal_orders": deals * orders, "nodes": chance_nodes + orders * below}


def _splits(cards: list[int], seats: int, size: int) -> Iterator[list[list[int]]]:
    """Every way to give ``seats`` seats ``size`` of ``cards`` each, as a list of hands."""
    if seats == 0:
        yield []
        return
    for hand in combinations(cards, size):
        left = [card for card in cards if card not in hand]
        for others in _splits(left, seats - 1, size):
            yield [list(hand), *others]


def cross_check(name: str, game: pyspiel.Game, engine_tree: GameTree | None) -> dict[str, Any]:
    """The builders against each other, NashConv and vanilla CFR against OpenSpiel's."""
    tree = build_from_pyspiel(game)
    result: dict[str, Any] = {"tree": tree.summary()}
    if engine_tree is not None:
        result["builders_identical"] = all(
            np.array_equal(getattr(engine_tree.arrays, field), getattr(tree.arrays, field))
            for field in tree.arrays._fields)
    run, differences = TabularSolver(tree, "cfr"), []
    for iterations in CROSS_CHECK["policy_iterations"]:
        run.run(iterations - run.iteration)
        for policy in (run.average_policy(), run.policy):
            ours = nash_conv(tree, policy)
            theirs = exploitability.nash_conv(game, to_tabular_policy(game, tree, policy))
            differences.append(abs(ours - theirs))
    result["nash_conv_max_difference"] = max(differences)
    ours, theirs = TabularSolver(tree, "cfr"), pyspiel.CFRSolver(game)
    curve_ours, curve_theirs = [], []
    for _ in range(CROSS_CHECK["curve_iterations"][name]):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        curve_ours.append(nash_conv(tree, ours.average_policy()))
        curve_theirs.append(pyspiel.nash_conv(game, theirs.average_policy()))
    result["cfr_curve"] = {"cardlab": curve_ours, "openspiel": curve_theirs,
                           "max_difference": float(np.max(np.abs(np.subtract(curve_ours, curve_theirs))))}
    print(name, "nash_conv difference", result["nash_conv_max_difference"], "curve difference",
          result["cfr_curve"]["max_difference"], flush=True)
    return result


def plot(results: dict[str, Any], path: Path) -> None:
    """NashConv against iterations, one panel per variant (four a row), one line per solver (log-log)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    variants = results["variants"]
    columns = min(4, len(variants))
    rows = -(-len(variants) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.5 * columns, 3.8 * rows), squeeze=False)
    for axis in axes.flat[len(variants):]:
        axis.set_visible(False)
    for axis, (variant, entry) in zip(axes.flat, variants.items(), strict=False):
        for solver, run in entry["solvers"].items():
            axis.loglog(run["iterations"], run["nash_conv"], marker="o", label=solver)
        axis.axhline(TARGET, color="grey", linestyle="--", linewidth=0.8, label="1e-3")
        axis.set_title(f"{variant}: {entry['tree']['nodes']:,} nodes")
        axis.set_xlabel("iterations")
        axis.set_ylabel("NashConv of the average policy")
        axis.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="experiments/results/small-games.json")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated, of {', '.join(VARIANTS)}")
    parser.add_argument("--cross-check", default=",".join((*CROSS_CHECK["variants"],
                                                             *CROSS_CHECK["openspiel_games"])),
                        help="comma-separated games to cross-check against OpenSpiel ('' for none)")
    parser.add_argument("--merge", action="store_true",
                        help="add to the results already in --out (no node count)")
    parser.add_argument("--count-only", action="store_true",
                        help="only count the nodes of the COUNTED variants, into the existing --out")
    args = parser.parse_args()
    if args.count_only:
        out = Path(args.out)
        results = json.loads(out.read_text())
        results["counted"] = {name: count_nodes(*COUNTED[name]) for name in COUNTED}
        print(results["counted"], flush=True)
        out.write_text(json.dumps(results, indent=2) + "\n")
        return
    chosen = args.variants.split(",")
    unknown = [v for v in chosen if v not in VARIANTS]
    checkable = (*CROSS_CHECK["variants"], *CROSS_CHECK["openspiel_games"])
    unchecked = [n for n in filter(None, args.cross_check.split(",")) if n not in checkable]
    if unknown or unchecked:
        parser.error(f"unknown variants {unknown or unchecked}; known: {', '.join(VARIANTS)}; "
                     f"cross-checked: {', '.join(checkable)}")
    command = "python -m experiments.small_games " + " ".join(sys.argv[1:])
    results: dict[str, Any] = {"command": command, "checkpoints": list(CHECKPOINTS), "target": TARGET,
                               "variants": {}, "cross_check": {}}
    out = Path(args.out)
    if args.merge:
        results = json.loads(out.read_text())
        earlier = results["command"]
        results["command"] = [*(earlier if isinstance(earlier, list) else [earlier]), command]
    out.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:  # after every stage: a long run stopped early keeps what it measured
        out.write_text(json.dumps(results, indent=2) + "\n")

    for variant in chosen:
        results["variants"][variant] = solve(variant)
        save()
    plot(results, out.with_suffix(".png"))
    for name in filter(None, args.cross_check.split(",")):
        if name in CROSS_CHECK["variants"]:
            game = load(name)
            results["cross_check"][name] = cross_check(name, game, build_from_engine(game))
        else:
            results["cross_check"][name] = cross_check(name, pyspiel.load_game(name), None)
        save()
    if not args.merge:
        results["counted"] = {name: count_nodes(*COUNTED[name]) for name in COUNTED}
        save()


if __name__ == "__main__":
    main()
