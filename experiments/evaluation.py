"""Study 6, evaluation: local best response against every agent, and the AIVAT estimator's intervals.

    python -m experiments.evaluation --game kaiser                 # the dataset of notebooks/evaluation.py
    python -m experiments.evaluation --game kaiser --scale 0.05 --out /tmp/evaluation-kaiser

Two parts, both resumable (a finished part is kept and skipped):

- **LBR**: ``cardlab exploit`` against each agent (:data:`LBR_AGENTS`), each
  with its own number of deals (:data:`LBR_DEALS`: the searching agents cost
  the responder a search per rollout move, so they get few deals). Each run
  is one ``lbr-<agent>.json`` in the dataset folder, with its command.
- **AIVAT**: a duplicate round robin of :data:`AIVAT_AGENTS` through the arena
  (``tournament/``), then the plain and the variance-reduced score of every
  pair on every deal (``aivat-<samples>.json``), the estimator's value
  function averaging ``--samples`` play-outs.

- **aivat-search**: a duplicate match of :data:`SEARCH_AGENTS` (``search-tournament/``) and its
  AIVAT scores under each of :data:`SEARCH_SETTINGS` on the same deals (``aivat-search.json``):
  the searches' decisions corrected by rerunning them, the search playing itself cheaply in the
  play-outs.

- **exact**: on the game's small variants solved exactly
  (:data:`EXACT_VARIANTS`), LBR's value for each seat alone against the
  exact best response's and the agent's own (``exact.json``;
  :mod:`cardlab.evaluation.exact`). Literature takes part here only.

``--results FILE`` then writes what the folder holds in brief (each LBR run
without its per-deal scores, the check, and each AIVAT pair's two means,
intervals and narrowing factor) as the JSON quoted in docs/evaluation.md
(``experiments/results/evaluation-<game>.json``); the parts the folder does not
hold keep what the file said of them.

``--scale`` multiplies every deal count (the tests' tiny datasets). The
machine this ran on has 2 cores shared by several sessions, so the counts are
modest; docs/evaluation.md quotes the results with their commands.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from cardlab.agents.options import parse_options
from cardlab.arena.entrants import AgentSpec
from cardlab.arena.tournament import TournamentSettings, run_tournament
from cardlab.evaluation import aivat
from cardlab.evaluation.exact import check_against_best_response
from cardlab.evaluation.lbr import exploit
from cardlab.games import game_spec
from cardlab.results import ResultsError, load_results
from experiments.frame import data_dir
from experiments.small_games import VARIANTS

SEED = 2026
#: The agents LBR plays, by label: (agent name, options); ``cfr-bidding`` plays the policy cardlab ships.
LBR_AGENTS: dict[str, tuple[str, dict[str, Any]]] = {
    "random": ("random", {}),
    "rules": ("rules", {}),
    "cfr-bidding": ("cfr-bidding", {}),
    "ismcts-100": ("ismcts", {"simulations": 100, "rollout": "rules"}),
    "ismcts-1000": ("ismcts", {"simulations": 1000, "rollout": "rules"}),
    "pimc-4": ("pimc", {"worlds": 4}),
    "net": ("net", {}),  # the committed model of the game, its softmax as the distribution
}
#: Duplicate deals of each LBR run at full size (the responder's CPU time grows with the agent's). A run
#: ``agent@key=value`` plays the agent with other responder options: the bound against the responder's
#: budget, where the agent is cheap.
LBR_DEALS = {"kaiser": {"rules": 2000, "cfr-bidding": 2000, "ismcts-100": 60, "ismcts-1000": 30,
                        "rules@worlds=4": 2000, "rules@worlds=64": 1000, "random": 500, "pimc-4": 30,
                        "net": 1000},
             "twenty_eight": {"rules": 2000, "cfr-bidding": 2000, "rules@worlds=4": 2000,
                              "rules@worlds=64": 1000, "random": 500, "ismcts-100": 40, "pimc-4": 30,
                              "ismcts-1000": 3, "net": 1000}}
#: PIMC bids by the rules, as in study 4's Twenty-Eight (its simulated bidding costs many times its play,
#: more than this machine's share could pay here): the bounds and the round robin measure its card play.
PIMC_OPTIONS = {"kaiser": {"bidding": "rules"}, "twenty_eight": {"bidding": "rules"}}
#: The round robin whose intervals the AIVAT estimator narrows, and its deals at full size.
AIVAT_AGENTS = ("rules", "cfr-bidding", "ismcts-100", "pimc-4", "net")
AIVAT_DEALS = 150
#: Play-outs per value of the AIVAT estimator.
SAMPLES = 256
#: The search pair corrected at the search's decisions too (``aivat-search.json``), and the estimator's
#: settings compared on the same deals: (reruns of the search at each of its decisions, the search's
#: budget when it plays itself in the play-outs; 0: the rule-based player plays for it).
SEARCH_AGENTS = ("rules", "ismcts-100")
SEARCH_SETTINGS = ((0, 0), (8, 10))
#: The small variants (experiments/small_games.py) LBR is checked on, by game, and the agents checked.
EXACT_VARIANTS = {"kaiser": ("kaiser_1_short", "kaiser_1"),
                  "twenty_eight": ("twenty_eight_1_short", "twenty_eight_1"),
                  "literature": ("literature_2x2_1", "literature_2x2_4")}
EXACT_AGENTS = ("rules", "random")


def agent_spec(game: str, label: str) -> AgentSpec:
    name, options = LBR_AGENTS[label]
    options = dict(options)
    if name == "pimc":
        options.update(PIMC_OPTIONS[game_spec(game).aliases[0]])
    return AgentSpec(label, name, options)


def dataset(game: str) -> str:
    return f"evaluation-{game_spec(game).aliases[0]}"


def scaled(deals: int, scale: float) -> int:
    return max(1, math.ceil(deals * scale))


def run_lbr(game: str, out: Path, scale: float, command: str, progress: bool) -> None:
    """Every LBR run not yet in ``out`` (one JSON each)."""
    alias = game_spec(game).aliases[0]
    for label, deals in LBR_DEALS[alias].items():
        path = out / f"lbr-{label}.json"
        if path.exists():
            continue
        agent, _, options = label.partition("@")
        responder = parse_options([item for item in options.split(",") if item], "responder option")
        result = exploit(game, {}, agent_spec(game, agent), scaled(deals, scale), SEED, responder,
                         progress=progress)
        low, high = result.interval()
        print(f"{game} {label}: {result.mean:+.2f} [{low:+.2f}, {high:+.2f}] over {result.deals} deals",
              flush=True)
        path.write_text(json.dumps({**result.to_json(), "label": label, "command": command}, indent=1))


def play_round_robin(game: str, labels: tuple[str, ...], folder: Path, scale: float, command: str,
                     progress: bool) -> TournamentSettings:
    """A duplicate round robin of the agents ``labels`` on :data:`AIVAT_DEALS` deals (scaled) into
    ``folder``, resumed if cut short; its settings."""
    deals = scaled(AIVAT_DEALS, scale)
    entrants = tuple(agent_spec(game, label) for label in labels)
    settings = TournamentSettings(game_spec(game).name, {}, entrants, deals, SEED,
                                  chunk_size=max(1, deals // 8))
    run_tournament(settings, folder, backend="serial", workers=1, progress=progress, command=command)
    return settings


def run_aivat(game: str, out: Path, scale: float, samples: int, command: str, progress: bool) -> None:
    """The round robin (resumed if cut short), then both estimators' scores of every pair and deal."""
    folder = out / "tournament"
    settings = play_round_robin(game, AIVAT_AGENTS, folder, scale, command, progress)
    path = out / f"aivat-{samples}.json"
    if path.exists():
        return
    manifest, table = load_results(folder, aivat.COLUMNS + aivat.POLICY_COLUMNS)
    reduced = aivat.reduce(manifest, table, samples)
    path.write_text(json.dumps({
        "game": settings.game, "agents": settings.labels, "pairs": settings.pairs, "samples": samples,
        "deals": reduced.plain.deals.tolist(), "plain": reduced.plain.scores.tolist(),
        "reduced": reduced.reduced.scores.tolist(), "terms": reduced.terms, "fallbacks": reduced.fallbacks,
        "notes": reduced.notes, "command": command}, indent=1))


def run_aivat_search(game: str, out: Path, scale: float, samples: int, command: str, progress: bool) -> None:
    """A duplicate match of :data:`SEARCH_AGENTS`, then its AIVAT scores under each of
    :data:`SEARCH_SETTINGS` on the same deals (``aivat-search.json``)."""
    import time

    folder = out / "search-tournament"
    settings = play_round_robin(game, SEARCH_AGENTS, folder, scale, command, progress)
    path = out / "aivat-search.json"
    if path.exists():
        return
    manifest, table = load_results(folder, aivat.COLUMNS + aivat.POLICY_COLUMNS)
    runs = []
    for draws, budget in SEARCH_SETTINGS:
        start = time.process_time()
        reduced = aivat.reduce(manifest, table, samples, draws, budget, progress=progress)
        runs.append({"samples": samples, "search_draws": draws, "stand_in_budget": budget,
                     "reduced": reduced.reduced.scores.tolist(), "terms": reduced.terms,
                     "fallbacks": reduced.fallbacks, "notes": reduced.notes,
                     "cpu_seconds": round(time.process_time() - start, 1)})
    path.write_text(json.dumps({
        "game": settings.game, "agents": settings.labels, "pairs": settings.pairs,
        "deals": reduced.plain.deals.tolist(), "plain": reduced.plain.scores.tolist(), "runs": runs,
        "command": command}, indent=1))


def run_exact(game: str, out: Path, command: str) -> None:
    """LBR against the exact best response on the game's small variants (``exact.json``)."""
    path = out / "exact.json"
    if path.exists():
        return
    rows = []
    for variant in EXACT_VARIANTS[game_spec(game).aliases[0]]:
        name, parameters = VARIANTS[variant]
        for agent in EXACT_AGENTS:
            checks = check_against_best_response(game_spec(name).load(parameters), AgentSpec(agent, agent),
                                                 seed=SEED)
            rows += [{"variant": variant, "parameters": parameters, "agent": agent, **check.to_json()}
                     for check in checks]
    path.write_text(json.dumps({"rows": rows, "command": command}, indent=1))


def narrowing(plain: np.ndarray, reduced: np.ndarray, resamples: int = 1000) -> tuple[float, float, float]:
    """How many times narrower the reduced interval is (the ratio of the two standard deviations), with a
    95% bootstrap interval over the deals."""
    from cardlab.analysis.stats import bootstrap_means

    both = np.column_stack([plain, plain**2, reduced, reduced**2])
    means = bootstrap_means(both, resamples, 0)
    ratio = np.sqrt(np.maximum(means[:, 1] - means[:, 0] ** 2, 0)
                    / np.maximum(means[:, 3] - means[:, 2] ** 2, 1e-18))
    low, high = np.quantile(ratio, [0.025, 0.975])
    return float(plain.std() / max(reduced.std(), 1e-18)), float(low), float(high)


def summary(folder: Path) -> dict[str, Any]:
    """What a dataset folder holds, in brief (see the module docstring)."""
    from cardlab.analysis.stats import bootstrap_mean_ci

    brief: dict[str, Any] = {"lbr": [{key: value for key, value in run.items() if key != "scores"}
                                     for run in load_lbr(folder)]}
    if (folder / "exact.json").exists():
        brief["exact"] = json.loads((folder / "exact.json").read_text())
    data = load_aivat(folder)
    if data is not None:
        pairs = []
        for p, (a, b) in enumerate(data["pairs"]):
            plain, reduced = data["plain"][:, p], data["reduced"][:, p]
            estimates = {}
            for name, values in (("plain", plain), ("aivat", reduced), ("correction", reduced - plain)):
                (mean,), (low,), (high,) = bootstrap_mean_ci(values, resamples=1000)
                estimates[name] = [float(mean), float(low), float(high)]
            pairs.append({"pair": [data["agents"][a], data["agents"][b]], "deals": len(plain), **estimates,
                          "narrower": list(narrowing(plain, reduced))})
        brief["aivat"] = {key: data[key] for key in ("game", "samples", "terms", "fallbacks", "notes",
                                                      "command")} | {"pairs": pairs}
    if (folder / "aivat-search.json").exists():
        data = json.loads((folder / "aivat-search.json").read_text())
        plain = np.array(data["plain"])[:, 0]
        runs = []
        for run in data["runs"]:
            reduced = np.array(run["reduced"])[:, 0]
            estimates = {}
            for name, values in (("plain", plain), ("aivat", reduced), ("correction", reduced - plain)):
                (mean,), (low,), (high,) = bootstrap_mean_ci(values, resamples=1000)
                estimates[name] = [float(mean), float(low), float(high)]
            runs.append({key: run[key] for key in ("samples", "search_draws", "stand_in_budget", "terms",
                                                   "fallbacks", "notes", "cpu_seconds")}
                        | estimates | {"narrower": list(narrowing(plain, reduced))})
        _, match = load_results(folder / "search-tournament", ["seat_seconds"])
        thinking = float(np.sum(match.column("seat_seconds").to_pylist()))
        brief["aivat_search"] = {"game": data["game"], "pair": data["agents"], "deals": len(plain),
                                 "match_thinking_seconds": round(thinking, 1), "runs": runs,
                                 "command": data["command"]}
    return brief


def load_lbr(folder: Path) -> list[dict[str, Any]]:
    """The LBR runs of a dataset folder, in :data:`LBR_DEALS` order."""
    runs = {path.stem.removeprefix("lbr-"): json.loads(path.read_text())
            for path in folder.glob("lbr-*.json")}
    order = list(dict.fromkeys(label for labels in LBR_DEALS.values() for label in labels))
    return [runs[label] for label in order if label in runs]


def load_aivat(folder: Path) -> dict[str, Any] | None:
    """The largest-sample AIVAT scores of a dataset folder, as arrays (None if not made yet)."""
    paths = sorted((path for path in folder.glob("aivat-*.json") if path.stem.split("-")[1].isdigit()),
                   key=lambda path: int(path.stem.split("-")[1]))  # not aivat-search.json
    if not paths:
        return None
    data = json.loads(paths[-1].read_text())
    data["plain"], data["reduced"] = np.array(data["plain"]), np.array(data["reduced"])
    return data


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m experiments.evaluation",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=sorted(EXACT_VARIANTS))
    parser.add_argument("--part", choices=("lbr", "aivat", "aivat-search", "exact", "all"), default="all")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every deal count (default 1)")
    parser.add_argument("--samples", type=int, default=SAMPLES, help="AIVAT play-outs per value")
    parser.add_argument("--out", default=None,
                        help="dataset folder (default experiments/data/evaluation-<game>)")
    parser.add_argument("--results", default=None, help="write the folder's results in brief to this JSON")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else data_dir() / dataset(args.game)
    command = " ".join(["python -m experiments.evaluation", *(sys.argv[1:] if argv is None else argv)])
    try:
        if not 0 < args.scale <= 100 or args.samples < 1:
            raise ValueError(f"--scale must be in (0, 100] and --samples positive, got {args.scale} and "
                             f"{args.samples}")
        parts = ("lbr", "aivat", "aivat-search", "exact") if args.part == "all" else (args.part,)
        if args.game not in LBR_DEALS and set(parts) != {"exact"}:
            raise ValueError(f"{args.game} takes part in the exact check only (--part exact)")
        out.mkdir(parents=True, exist_ok=True)
        if "lbr" in parts:
            run_lbr(args.game, out, args.scale, command, not args.no_progress)
        if "aivat" in parts:
            run_aivat(args.game, out, args.scale, args.samples, command, not args.no_progress)
        if "aivat-search" in parts:
            run_aivat_search(args.game, out, args.scale, args.samples, command, not args.no_progress)
        if "exact" in parts:
            run_exact(args.game, out, command)
        if args.results:  # the parts this folder lacks keep what the file already says of them
            results = Path(args.results)
            kept = json.loads(results.read_text()) if results.exists() else {}
            results.write_text(json.dumps(kept | {key: value for key, value in summary(out).items() if value},
                                          indent=1))
    except (ResultsError, ValueError) as error:
        raise SystemExit(f"error: {str(error).splitlines()[0]}") from None
    print(out)


if __name__ == "__main__":
    main()
