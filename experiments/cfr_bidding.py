"""Bidding by MCCFR against the rule-based bidder: train, then duplicate matches, both grains.

    python -m experiments.cfr_bidding --game kaiser --iterations 200000 --workers 2 --deals 2000

For each granularity of ``--granularities`` it trains a bidding policy
(:func:`cardlab.cfr.train.train_bidding`, ``--workers`` processes) into
``--policy-dir``, then measures it against the rule-based bidder with the same
card play (the rule-based player) two ways:

* ``duel``: ``--duel-deals`` duplicate deals in numba
  (:func:`cardlab.cfr.bidding_policy.duel`), cheap enough to compare the grains;
* ``match``: ``--deals`` duplicate deals of the real agents through the
  arena (``cfr-bidding:policy=PATH`` against ``rules``,
  :func:`cardlab.arena.match.run_match`, Python game loop), for
  ``--match-granularity`` only.

Scores are the cfr-bidding team's points per deal (both seatings summed),
with 95% normal intervals. Seeded; writes the JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel

import cardlab  # noqa: F401
from cardlab.analysis.stats import normal_mean_ci
from cardlab.arena.match import Side, run_match
from cardlab.cfr.bidding import GRANULARITIES, BiddingSolver
from cardlab.cfr.bidding_policy import duel
from cardlab.cfr.policy import load_policy
from cardlab.cfr.train import train_bidding
from cardlab.core.rng import make_stream
from cardlab.games import game_spec


def duel_policy(game: pyspiel.Game, path: Path, deals: int, seed: int) -> dict:
    """The saved policy's duel against the rule-based bidder, from its table of average sums."""
    table = load_policy(path, game)
    info = table.metadata
    solver = BiddingSolver(game, info["granularity"], info["seed"], info["workers"],
                           info["merge_every"], info["capacity"])
    solver.restore(table.solver_state, info["iterations"])
    scores = duel(solver.kernel_id, solver._initial, solver.table, solver.fine, deals,
                  make_stream(seed))
    low, high = normal_mean_ci(scores, 0.95)
    return {"deals": deals, "mean": float(scores.mean()), "ci95": [float(low), float(high)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kaiser", choices=["kaiser", "twenty_eight", "28"])
    parser.add_argument("--granularities", default="coarse,fine")
    parser.add_argument("--match-granularity", default="coarse",
                        choices=[*GRANULARITIES, "none"], help="none: duels only")
    parser.add_argument("--iterations", type=int, default=200000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--merge-every", type=int, default=5000)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--duel-deals", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--policy-dir", default="/tmp/cardlab-bidding-policies")
    parser.add_argument("--out", default=None)
    parser.add_argument("--resume", action="store_true",
                        help="continue the policies already in --policy-dir (training resumes bit for bit, "
                             "so the result is that of a fresh run)")
    args = parser.parse_args()
    grains = args.granularities.split(",")
    for grain in grains:
        if grain not in GRANULARITIES:
            parser.error(f"unknown granularity {grain!r}; choose from {', '.join(GRANULARITIES)}")
    spec = game_spec(args.game)
    game = spec.load()
    out = Path(args.out or f"experiments/results/cfr-bidding-{spec.name}.json")
    policy_dir = Path(args.policy_dir)
    policy_dir.mkdir(parents=True, exist_ok=True)
    summary = {"game": spec.name, "command": "python -m experiments.cfr_bidding " + " ".join(sys.argv[1:]),
               "iterations": args.iterations, "workers": args.workers, "seed": args.seed,
               "granularities": {}}
    for grain in grains:
        path = policy_dir / f"{spec.name}-{grain}.npz"
        start = time.perf_counter()
        table = train_bidding(game, path, args.iterations, grain, args.seed, args.workers,
                              args.merge_every, resume=args.resume and path.exists(), checkpoints=4,
                              progress=False)
        seconds = time.perf_counter() - start
        row = {"policy": str(path), "train_seconds": round(seconds, 1),
               "infosets": table.metadata["infosets"],
               "duel": duel_policy(game, path, args.duel_deals, args.seed)}
        print(grain, json.dumps(row), flush=True)
        if grain == args.match_granularity:
            start = time.perf_counter()
            run = run_match(spec.name, Side("cfr-bidding", {"policy": str(path)}), Side("rules"),
                            args.deals, args.seed, workers=args.workers, progress=False)
            low, high = run.result.confidence_interval()
            row["match"] = {"deals": args.deals, "mean": float(run.result.mean),
                            "ci95": [float(low), float(high)],
                            "seconds": round(time.perf_counter() - start, 1)}
            print(grain, "match", json.dumps(row["match"]), flush=True)
        summary["granularities"][grain] = row
        out.write_text(json.dumps(summary, indent=2) + "\n")  # after each grain: a partial record
    print(f"wrote {out}")
    print(np.round([summary["granularities"][g]["duel"]["mean"] for g in grains], 3))


if __name__ == "__main__":
    main()
