"""Strength of the double-dummy PIMC player in duplicate matches, with 95% confidence intervals.

    python -m experiments.pimc_strength --game kaiser --opponent rules --deals 2000 --worlds 20
    python -m experiments.pimc_strength --game kaiser --opponent ismcts --time-ms 50

``--opponent rules``: PIMC (``--worlds`` solved worlds per card) against the
rule-based player. ``--opponent ismcts``: both sides get the same clock per
move, ``--time-ms`` (PIMC solves worlds until it is spent; ISMCTS iterates).
The match is the arena's (:func:`cardlab.arena.match.run_match`), resumable
from ``<out>.partial.json``; deals are split across ``--workers`` processes.
Writes a JSON summary (mean points per deal of PIMC minus the opponent, its
95% interval, the deal count and the command) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import cardlab  # noqa: F401
from cardlab.arena.match import Side, run_match
from cardlab.arena.pool import WorkerLostError
from cardlab.games import game_spec
from cardlab.results import ResultsError


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kaiser", choices=["kaiser", "twenty_eight", "28"])
    parser.add_argument("--opponent", default="rules", choices=["rules", "ismcts"])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--worlds", type=int, default=20)
    parser.add_argument("--bid-worlds", type=int, default=8)
    parser.add_argument("--time-ms", type=float, default=50.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    for name in ("deals", "worlds", "bid_worlds", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if not 0 < args.time_ms < float("inf"):
        parser.error(f"--time-ms must be positive, got {args.time_ms}")
    game_name = game_spec(args.game).name
    pimc_options: dict = {"worlds": args.worlds, "bid_worlds": args.bid_worlds}
    opponent = Side("rules")
    if args.opponent == "ismcts":
        pimc_options = {"time_ms": args.time_ms, "bid_worlds": args.bid_worlds}
        opponent = Side("ismcts", {"time_ms": args.time_ms, "rollout": "rules"})
    partial = Path(f"{args.out}.partial.json") if args.out else None
    run = run_match(game_name, Side("pimc", pimc_options), opponent, args.deals, args.seed,
                    workers=args.workers, partial=partial, extra_settings={"opponent": args.opponent})
    result = run.result
    scores = np.array(result.scores)
    low, high = result.confidence_interval()
    summary = {
        "command": "python -m experiments.pimc_strength " + " ".join(sys.argv[1:]),
        "game": game_name, "side_a": "pimc", "side_b": args.opponent,
        "pimc_options": pimc_options, "opponent_options": opponent.options,
        "deals": result.deals, "seed": args.seed,
        "mean_points_per_deal_a_minus_b": round(result.mean, 3),
        "ci95": [round(low, 3), round(high, 3)],
        "deals_won_lost_tied": [int((scores > 0).sum()), int((scores < 0).sum()),
                                int((scores == 0).sum())],
        "seconds": run.seconds,
        "scores": [round(float(score), 6) for score in scores],
    }
    print(json.dumps({key: value for key, value in summary.items() if key != "scores"}, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")
        partial.unlink(missing_ok=True)


if __name__ == "__main__":
    try:
        main()
    except (ResultsError, ValueError, WorkerLostError) as error:
        raise SystemExit(f"error: {str(error).splitlines()[0]}") from None
