"""Where PIMC's strategy fusion shows: what the clairvoyant worlds promise that no single card delivers.

    python -m experiments.strategy_fusion                       # 200 deals a game, 8 worlds
    python -m experiments.strategy_fusion --deals 2 --out /tmp/fusion.json

PIMC plays against the rule-based player (PIMC's team alternates with the
deal; both sides bid by the rules, so the contracts are the rule-based
player's and the study is about card play). At every PIMC card decision with
more than one legal action the worlds PIMC draws are kept, each solved
double-dummy (:func:`cardlab.agents.pimc.search.world_action_values`), and
PIMC plays what it always plays, the action with the best mean. Per decision:

* the trick (1-8) and the number of legal actions (a call for the trump counts);
* *split*: no single action is best in every world;
* the *fusion gap*: the mean over worlds of the best action's value in that
  world, minus the mean value of the action played, in the game's points
  (Kaiser: tricks and the 5 and 3 cards; Twenty-Eight: card points). Each
  world is solved as if the player could see it, so the gap is what PIMC's
  own evaluation promises and no single card delivers; zero exactly when the
  decision is not split.

Twenty-Eight decisions are also split by whether the trump was shown. The
JSON (``--out``) holds the tables with 95% intervals (bootstrap over deals:
a deal's decisions are correlated), the parameters, the command and every
decision.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import cardlab  # noqa: F401  (registers the games)
from cardlab import agents
from cardlab.agents.pimc import search
from cardlab.arena import native, play_deal
from cardlab.core.layout import team_of
from cardlab.core.rng import make_stream
from cardlab.games import game_spec
from cardlab.games.double_dummy import is_play_phase
from cardlab.games.kaiser import engine as kaiser
from cardlab.games.kernels import TWENTY_EIGHT
from cardlab.games.twenty_eight import engine as twenty_eight

#: Every parameter of the study; the command line overrides them.
PARAMETERS: dict[str, Any] = {"seed": 2026, "deals": 200, "worlds": 8,
                              "games": ["kaiser", "twenty_eight"], "resamples": 2000}
OUT = Path(__file__).resolve().parent / "results" / "strategy-fusion.json"
COLUMNS = ("deal", "trick", "legal", "split", "gap", "shown", "declaring")


class FusionRecorder(pyspiel.Bot):
    """PIMC's card play (bidding by the rules) that keeps each decision's per-world values."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, worlds: int, deal: int,
                 records: dict[str, list]):
        pyspiel.Bot.__init__(self)
        self.game_id = game_spec(game.get_type().short_name).kernel_id
        self.rules = agents.make("rules", game, player, seed)
        self.player, self.worlds, self.deal, self.records = player, worlds, deal, records
        self._stream = make_stream(seed)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def step(self, state: pyspiel.State) -> int:
        s = state.array
        if not is_play_phase(self.game_id, s):
            return self.rules.step(state)
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        entries, counters, scratch = search.new_search_memory()
        values = np.zeros((self.worlds, search.MAX_ACTIONS), dtype=np.int64)
        n = search.world_action_values(self.game_id, s, self.player, self.worlds, self._stream,
                                       entries, counters, scratch, values)
        values = values[:, :n]
        played = int(np.argmax(values.sum(axis=0)))  # PIMC's choice (search.play)
        best = values.max(axis=1)
        engine = twenty_eight if self.game_id == TWENTY_EIGHT else kaiser
        declarer = s[twenty_eight.BIDDER] if self.game_id == TWENTY_EIGHT else s[kaiser.DECLARER]
        row = {"deal": self.deal, "trick": int(s[engine.TRICK_NUMBER]) + 1, "legal": n,
               "split": bool(not (values == best[:, None]).all(axis=0).any()),
               "gap": float(best.mean() - values[:, played].mean()),
               "shown": bool(self.game_id != TWENTY_EIGHT or not twenty_eight.trump_hidden(s)),
               "declaring": bool(team_of(int(declarer)) == team_of(self.player))}
        for column in COLUMNS:
            self.records[column].append(row[column])
        return legal[played]


def play_decisions(game_name: str, deals: int, worlds: int, seed: int, progress: bool = True
                   ) -> dict[str, list]:
    """Every PIMC card decision of ``deals`` deals of ``game_name`` (deal ``d`` seeded as in the arena)."""
    game = pyspiel.load_game(game_name)
    records: dict[str, list] = {column: [] for column in COLUMNS}
    seeds = native.deal_seeds(seed, 0, deals)
    start = time.perf_counter()
    for deal, deal_seed in enumerate(seeds):
        pimc_team = deal % 2
        bots = [FusionRecorder(game, seat, int(native.agent_seed(deal_seed, 0, seat, 4)), worlds, deal,
                               records) if team_of(seat) == pimc_team
                else agents.make("rules", game, seat, int(native.agent_seed(deal_seed, 0, seat, 4)))
                for seat in range(4)]
        play_deal(game, bots, int(deal_seed))
        if progress and ((deal + 1) % 10 == 0 or deal + 1 == deals):
            print(f"{game_name}: {deal + 1}/{deals} deals, {len(records['gap'])} decisions, "
                  f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return records


def deal_bootstrap(deals: np.ndarray, values: np.ndarray, resamples: int, seed: int = 0
                   ) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95% percentile interval, resampling whole deals."""
    ids, inverse = np.unique(deals, return_inverse=True)
    sums = np.bincount(inverse, weights=values)
    counts = np.bincount(inverse).astype(np.float64)
    rows = np.random.default_rng(seed).integers(0, len(ids), size=(resamples, len(ids)))
    means = sums[rows].sum(axis=1) / counts[rows].sum(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(values.mean()), float(low), float(high)


def summarise(records: dict[str, list], by: str, resamples: int) -> list[dict[str, Any]]:
    """One row per value of column ``by``: decisions, split share and mean gap with 95% intervals."""
    columns = {name: np.asarray(values) for name, values in records.items()}
    rows = []
    for key in sorted(set(records[by])):
        chosen = columns[by] == key
        deals = columns["deal"][chosen]
        split = deal_bootstrap(deals, columns["split"][chosen].astype(np.float64), resamples)
        gap = deal_bootstrap(deals, columns["gap"][chosen], resamples)
        rows.append({by: key if not isinstance(key, np.generic) else key.item(),
                     "decisions": int(chosen.sum()),
                     "mean_legal": round(float(columns["legal"][chosen].mean()), 2),
                     "split_share": [round(v, 3) for v in split], "gap_points": [round(v, 3) for v in gap]})
    return rows


def markdown(game: str, by: str, rows: list[dict[str, Any]]) -> str:
    """A table of :func:`summarise`'s rows, as docs/solver.md shows it."""
    lines = [f"| {game}, {by} | decisions | legal | split share (95%) | fusion gap, points (95%) |",
             "|---|---|---|---|---|"]
    for row in rows:
        split, gap = row["split_share"], row["gap_points"]
        lines.append(f"| {row[by]} | {row['decisions']} | {row['mean_legal']} | "
                     f"{split[0]:.2f} ({split[1]:.2f}, {split[2]:.2f}) | "
                     f"{gap[0]:.2f} ({gap[1]:.2f}, {gap[2]:.2f}) |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=PARAMETERS["deals"])
    parser.add_argument("--worlds", type=int, default=PARAMETERS["worlds"])
    parser.add_argument("--seed", type=int, default=PARAMETERS["seed"])
    parser.add_argument("--games", nargs="+", default=PARAMETERS["games"], choices=["kaiser", "twenty_eight"])
    parser.add_argument("--resamples", type=int, default=PARAMETERS["resamples"])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    for name in ("deals", "worlds", "resamples"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    arguments = sys.argv[1:] if argv is None else argv
    summary: dict[str, Any] = {
        "command": " ".join(["python -m experiments.strategy_fusion", *arguments]),
        "parameters": {"seed": args.seed, "deals": args.deals, "worlds": args.worlds, "games": args.games,
                       "resamples": args.resamples, "pimc_bidding": "rules", "opponent": "rules"},
        "games": {},
    }
    for short in args.games:
        name = game_spec(short).name
        start = time.process_time()
        records = play_decisions(name, args.deals, args.worlds, args.seed)
        tables = {"all": summarise({**records, "all": ["all"] * len(records["gap"])}, "all", args.resamples),
                  "trick": summarise(records, "trick", args.resamples)}
        if name == "cardlab_twenty_eight":
            tables["shown"] = summarise(records, "shown", args.resamples)
        tables["declaring"] = summarise(records, "declaring", args.resamples)
        summary["games"][name] = {"cpu_seconds": round(time.process_time() - start, 1), "tables": tables,
                                  "decisions": records}
        for by, rows in tables.items():
            print(markdown(name, by, rows) + "\n")
    write_summary(summary, args.out)
    print(f"wrote {args.out}", file=sys.stderr)


def write_summary(summary: dict[str, Any], path: Path) -> None:
    """The JSON, indented but with each column of decisions on one line (thousands of values)."""
    columns = {}
    for name, game in summary["games"].items():
        for column, values in game["decisions"].items():
            marker = f"@{name}/{column}@"
            columns[json.dumps(marker)] = json.dumps(values)
            game["decisions"][column] = marker
    text = json.dumps(summary, indent=1)
    for marker, values in columns.items():
        text = text.replace(marker, values)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


if __name__ == "__main__":
    main()
