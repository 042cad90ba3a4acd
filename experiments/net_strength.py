"""Strength of the committed ``net`` models, or of searches using them, in duplicate matches.

    python -m experiments.net_strength --games kaiser 28 literature --deals 2000 --seed 2027 \\
        --data-dir /tmp/net-strength --out experiments/results/net-vs-rules.json
    python -m experiments.net_strength --games kaiser --opponent ismcts:simulations=1000 \\
        --data-dir /tmp/net-ismcts --out experiments/results/net-vs-ismcts-1000.json

Each game's match is a two-agent tournament in the compiled arena
(:func:`cardlab.arena.tournament.run_tournament`): ``--agent`` (default ``net``
with the model committed for the game, ``cardlab/agents/models/``) against
``--opponent`` (default ``rules``), one seating per side of the table on each
deal. The deals' seed differs from the one training measured on
(``--eval-seed`` of ``cardlab train``, 20240601), so the match is on deals the
runs never scored. Writes, per game, the agent's
duplicate points per deal against the opponent with the report's 95% bootstrap
interval, the deal count, both sides' CPU milliseconds per decision and their
ratio, and the model's training record, with the command, to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cardlab  # noqa: F401
from cardlab.agents.net import MODELS
from cardlab.agents.network import load_model
from cardlab.games import game_spec


def match(game_alias: str, deals: int, seed: int, directory: Path, workers: int,
          agent: str = "net", opponent: str = "rules") -> dict:
    """``agent`` (by default the committed model) against ``opponent`` on ``deals`` duplicate deals."""
    from cardlab.analysis.report import build_report
    from cardlab.arena.entrants import AgentSpec, input_files, parse_agent
    from cardlab.arena.tournament import TournamentSettings, default_chunk_size, run_tournament

    spec = game_spec(game_alias)
    entrants = (AgentSpec("agent", *parse_agent(agent)), AgentSpec("opponent", *parse_agent(opponent)))
    settings = TournamentSettings(spec.name, {}, entrants, deals, seed, default_chunk_size(deals, True))
    run_tournament(settings, directory, backend="serial" if workers == 1 else "processes", workers=workers,
                   progress=False)
    report = build_report(directory)
    sign = 1 if report.agents.index("agent") == 0 else -1
    game = spec.load()
    read = input_files(entrants[0], game) if entrants[0].name != "net" else {}
    models = {"model": MODELS / f"{spec.name}.npz"} if entrants[0].name == "net" or "model" in read else {}
    models.update({what: path for what, path in read.items() if what == "inference_model"})
    milliseconds = dict(zip(report.agents, report.ms_per_decision, strict=True))
    return {"game": spec.name, "agent": agent, "opponent": opponent, "deals": deals, "seed": seed,
            "agent_minus_opponent_points_per_deal": round(float(report.pair_mean[0]) * sign, 4),
            "ci95": sorted(round(float(x) * sign, 4) for x in (report.pair_low[0], report.pair_high[0])),
            "cpu_ms_per_decision": {"agent": round(float(milliseconds["agent"]), 5),
                                    "opponent": round(float(milliseconds["opponent"]), 5)},
            "cpu_time_ratio": round(float(milliseconds["agent"] / milliseconds["opponent"]), 5),
            **{what: model_record(path, game) for what, path in models.items()}}


def model_record(path: Path, game) -> dict:
    """What the match's agent read: a committed model's file, commit, training size and zoo record."""
    model = load_model(path, game, head=None)
    progress = model.metadata["training"]["progress"]
    return {"file": f"cardlab/agents/models/{path.name}", "commit": model.metadata.get("commit"),
            "decisions": progress["decisions"], "cpu_seconds": progress["cpu_seconds"],
            "zoo": model.metadata.get("zoo")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kaiser", "28", "literature"])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2027)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--agent", default="net", help="the agent measured (default: net)")
    parser.add_argument("--opponent", default="rules", help="the agent it plays (default rules)")
    parser.add_argument("--data-dir", type=Path, required=True, help="the tournaments' folders (resumable)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    results = [match(game, args.deals, args.seed, args.data_dir / game_spec(game).name, args.workers,
                     args.agent, args.opponent) for game in args.games]
    command = "python -m experiments.net_strength " + " ".join(sys.argv[1:] if argv is None else argv)
    args.out.write_text(json.dumps({"command": command, "matches": results}, indent=2) + "\n")
    for result in results:
        low, high = result["ci95"]
        mean = result["agent_minus_opponent_points_per_deal"]
        print(f"{result['game']}: {args.agent} - {args.opponent} {mean:+.3f} "
              f"points per deal [{low:+.3f}, {high:+.3f}] over {result['deals']} deals, at "
              f"{result['cpu_time_ratio']:.4f} of the opponent's CPU time per decision")
    return 0


if __name__ == "__main__":
    sys.exit(main())
