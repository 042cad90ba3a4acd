"""Strength of the double-dummy PIMC player in duplicate matches, with 95% confidence intervals.

    python -m experiments.pimc_strength --game kaiser --opponent rules --deals 2000 --worlds 20
    python -m experiments.pimc_strength --game kaiser --opponent ismcts --worlds 20 --deals 2000

``--opponent rules``: PIMC (``--worlds`` solved worlds per card) against the
rule-based player, the arena's match (:func:`cardlab.arena.match.run_match`),
resumable from ``<out>.partial.json``.

``--opponent ismcts``: equal time without a clock. Both sides get fixed
budgets, so the match is seeded and reproducible and plays in the compiled
loop: PIMC's ``--worlds``, and an ISMCTS ``simulations`` count calibrated to
spend the same mean CPU time per decision (:func:`calibrate_ismcts`: small
tournaments of ``--calibration-deals`` deals in the same compiled loop, the
count rescaled after each). The count is kept in ``<out>.calibration.json``
and the match is a two-agent tournament in ``<data-dir>/<name>.tournament/``
(:func:`cardlab.arena.tournament.run_tournament`), so a rerun resumes without
measuring again. The JSON reports both sides' mean CPU time per decision, in
the calibration and in the match: the match's ratio is the check that the
time was equal.
``--time-ms`` instead gives both sides the same clock per move (PIMC then
solves worlds in the Python loop: results depend on the machine and its load).

``--bidding rules`` lets PIMC bid by the rule-based player and play its cards
by PIMC (Twenty-Eight's simulation bidding costs about 30 s of CPU a deal).
Deals are split across ``--workers`` processes. Writes a JSON summary (mean
points per deal of PIMC minus the opponent, its 95% interval, the deal count
and the command) to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import cardlab  # noqa: F401
from cardlab.arena.match import Side, run_match
from cardlab.arena.pool import WorkerLostError
from cardlab.games import game_spec
from cardlab.results import ResultsError

FIRST_GUESS_SIMULATIONS = 200  # ISMCTS's count at the first calibration measurement
CALIBRATION_ROUNDS = 3  # measurements of both sides' time, each followed by a rescaling


def compiled_ms_per_decision(game_name: str, pimc_options: dict[str, Any], ismcts_options: dict[str, Any],
                             deals: int, seed: int, directory: Path, workers: int) -> tuple[float, float]:
    """Mean CPU milliseconds per decision of PIMC and of ISMCTS over ``deals`` duplicate deals.

    Measured in the compiled arena loop the match itself plays in (each worker's
    process CPU clock), so the calibration and the match time the same code.
    """
    from cardlab.analysis.report import build_report
    from cardlab.arena.entrants import AgentSpec
    from cardlab.arena.tournament import TournamentSettings, default_chunk_size, run_tournament

    entrants = (AgentSpec("pimc", "pimc", pimc_options), AgentSpec("ismcts", "ismcts", ismcts_options))
    settings = TournamentSettings(game_name, {}, entrants, deals, seed, default_chunk_size(deals, True))
    run_tournament(settings, directory, backend="serial" if workers == 1 else "processes",
                   workers=workers, progress=False)
    report = build_report(directory)
    return float(report.ms_per_decision[0]), float(report.ms_per_decision[1])


def calibrate_ismcts(game_name: str, pimc_options: dict[str, Any], deals: int, seed: int,
                     directory: Path, workers: int, rounds: int = CALIBRATION_ROUNDS) -> dict[str, Any]:
    """ISMCTS's simulation count whose mean CPU time per decision matches PIMC's.

    ISMCTS's time per decision is a fixed part (its tree, the determinization)
    plus a cost per simulation. PIMC plays ISMCTS at a first guess and the
    count is scaled by the ratio of their times; after that, the line through
    the last two measurements gives the count at PIMC's time (a secant step),
    ``rounds`` measurements in all. The deals are the match's first ones (only
    their time is used); each round is a small tournament kept under
    ``directory``, so an interrupted calibration resumes.
    """
    simulations = FIRST_GUESS_SIMULATIONS
    measured = []
    for round_number in range(rounds):
        ismcts_options = {"simulations": simulations, "rollout": "rules"}
        pimc_ms, ismcts_ms = compiled_ms_per_decision(
            game_name, pimc_options, ismcts_options, deals, seed,
            directory / f"round-{round_number}-{simulations}", workers)
        measured.append({"ismcts_simulations": simulations, "pimc_cpu_ms_per_decision": round(pimc_ms, 3),
                         "ismcts_cpu_ms_per_decision": round(ismcts_ms, 3)})
        simulations = _next_count(measured, pimc_ms, ismcts_ms)
    return {"calibration_deals": deals, "clock": "process CPU time in the compiled arena loop",
            "measured": measured, "ismcts_simulations": simulations}


def _next_count(measured: list[dict[str, Any]], pimc_ms: float, ismcts_ms: float) -> int:
    """The next simulation count: a secant step through the last two rounds, or a rescaling."""
    count = measured[-1]["ismcts_simulations"]
    guess = count * pimc_ms / max(ismcts_ms, 1e-6)
    if len(measured) >= 2:
        before = measured[-2]
        extra_ms = ismcts_ms - before["ismcts_cpu_ms_per_decision"]
        extra_simulations = count - before["ismcts_simulations"]
        if extra_simulations and extra_ms / extra_simulations > 0:  # time grows with the count
            guess = count + (pimc_ms - ismcts_ms) * extra_simulations / extra_ms
    return max(1, round(guess))


def calibrated_match(args: argparse.Namespace, game_name: str, pimc_options: dict[str, Any]
                     ) -> dict[str, Any]:
    """The fixed-budget match of PIMC against calibrated ISMCTS, in the compiled loop."""
    from cardlab.analysis.report import build_report
    from cardlab.arena.entrants import AgentSpec
    from cardlab.arena.tournament import TournamentSettings, default_chunk_size, run_tournament

    base = Path(args.out) if args.out else Path("experiments/data/pimc-strength")
    kept = Path(f"{base}.calibration.json")
    runs = Path(args.data_dir) / base.name  # the tournaments' files (not committed)
    if kept.exists():
        calibration = json.loads(kept.read_text())
    else:
        calibration = calibrate_ismcts(game_name, pimc_options, args.calibration_deals, args.seed,
                                       Path(f"{runs}.calibration"), args.workers)
        kept.parent.mkdir(parents=True, exist_ok=True)
        kept.write_text(json.dumps(calibration, indent=2) + "\n")
    ismcts_options = {"simulations": calibration["ismcts_simulations"], "rollout": "rules"}
    entrants = (AgentSpec("pimc", "pimc", pimc_options), AgentSpec("ismcts", "ismcts", ismcts_options))
    settings = TournamentSettings(game_name, {}, entrants, args.deals, args.seed,
                                  default_chunk_size(args.deals, True))
    directory = Path(f"{runs}.tournament")
    start = time.perf_counter()
    run_tournament(settings, directory, backend="serial" if args.workers == 1 else "processes",
                   workers=args.workers, progress=True, command=" ".join(sys.argv))
    report = build_report(directory)
    scores = report.duplicate.scores[:, 0]
    return {
        "opponent_options": ismcts_options, "calibration": calibration,
        "match_ms_per_decision": {"pimc": round(float(report.ms_per_decision[0]), 3),
                                  "ismcts": round(float(report.ms_per_decision[1]), 3)},
        "deals": int(len(scores)), "mean": float(report.pair_mean[0]),
        "ci95": (float(report.pair_low[0]), float(report.pair_high[0])), "scores": scores,
        "seconds": round(time.perf_counter() - start, 1), "results_directory": str(directory),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kaiser", choices=["kaiser", "twenty_eight", "28"])
    parser.add_argument("--opponent", default="rules", choices=["rules", "ismcts"])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--worlds", type=int, default=20)
    parser.add_argument("--bid-worlds", type=int, default=8)
    parser.add_argument("--bidding", default="simulation", choices=["simulation", "rules"],
                        help="how PIMC bids (default: %(default)s)")
    parser.add_argument("--time-ms", type=float, default=None,
                        help="against ismcts: the same clock per move for both (default: calibrated "
                             "fixed budgets)")
    parser.add_argument("--calibration-deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None)
    parser.add_argument("--data-dir", default="experiments/data",
                        help="calibrated ismcts: where the tournaments' files go (default: %(default)s)")
    args = parser.parse_args()
    for name in ("deals", "worlds", "bid_worlds", "workers", "calibration_deals"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    if args.time_ms is not None and not 0 < args.time_ms < float("inf"):
        parser.error(f"--time-ms must be positive, got {args.time_ms}")
    game_name = game_spec(args.game).name
    pimc_options: dict = {"worlds": args.worlds, "bid_worlds": args.bid_worlds}
    if args.bidding != "simulation":  # the default stays unwritten, so older runs resume
        pimc_options["bidding"] = args.bidding
    extra: dict[str, Any] = {}
    if args.opponent == "ismcts" and args.time_ms is None:
        match = calibrated_match(args, game_name, pimc_options)
        opponent_options = match.pop("opponent_options")
        scores = np.array(match.pop("scores"))
        deals, mean, (low, high), seconds = match.pop("deals"), match.pop("mean"), match.pop("ci95"), \
            match.pop("seconds")
        extra = match
    else:
        opponent = Side("rules")
        if args.opponent == "ismcts":
            pimc_options = {**pimc_options, "time_ms": args.time_ms}
            del pimc_options["worlds"]
            opponent = Side("ismcts", {"time_ms": args.time_ms, "rollout": "rules"})
        opponent_options = opponent.options
        partial = Path(f"{args.out}.partial.json") if args.out else None
        run = run_match(game_name, Side("pimc", pimc_options), opponent, args.deals, args.seed,
                        workers=args.workers, partial=partial, extra_settings={"opponent": args.opponent})
        scores = np.array(run.result.scores)
        deals, mean, seconds = run.result.deals, run.result.mean, run.seconds
        low, high = run.result.confidence_interval()
    summary = {
        "command": "python -m experiments.pimc_strength " + " ".join(sys.argv[1:]),
        "game": game_name, "side_a": "pimc", "side_b": args.opponent,
        "pimc_options": pimc_options, "opponent_options": opponent_options,
        "deals": deals, "seed": args.seed,
        "mean_points_per_deal_a_minus_b": round(mean, 3),
        "ci95": [round(low, 3), round(high, 3)],
        "deals_won_lost_tied": [int((scores > 0).sum()), int((scores < 0).sum()),
                                int((scores == 0).sum())],
        **extra,
        "seconds": seconds,
        "scores": [round(float(score), 6) for score in scores],
    }
    print(json.dumps({key: value for key, value in summary.items() if key != "scores"}, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")
        Path(f"{args.out}.partial.json").unlink(missing_ok=True)


if __name__ == "__main__":
    try:
        main()
    except (ResultsError, ValueError, WorkerLostError) as error:
        raise SystemExit(f"error: {str(error).splitlines()[0]}") from None
