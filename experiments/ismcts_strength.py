"""Strength of the numba ISMCTS in duplicate matches, with 95% confidence intervals.

    python -m experiments.ismcts_strength --game kaiser --opponent rules --deals 2000
    python -m experiments.ismcts_strength --game kaiser --opponent openspiel --time-ms 20

``--opponent rules``: ISMCTS (``--simulations``, rule-based rollouts) against the
rule-based player. ``--opponent openspiel``: both sides get the same wall-clock
time per move: cardlab's ISMCTS runs for ``--time-ms``, OpenSpiel's Python
ISMCTSBot (random rollouts, on the ``cardlab_*`` wrapper) gets the number of
simulations it completes in that time, measured before the match. Deals are
split across ``--workers`` processes; the result is the same for any count.
Writes a JSON summary to ``--out``.

Resuming. While it runs, every finished chunk of deals is saved in
``<out>.partial.json`` (written atomically). Run the same command again after
an interruption and only the missing chunks are played (other ``--workers``
are fine; OpenSpiel's simulation count is taken from the first run, not
measured again). Other settings, or a corrupt partial file, stop it with a
one-line error.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pyspiel
from tqdm import tqdm

import cardlab  # noqa: F401
from cardlab import agents
from cardlab.arena import play_deal
from cardlab.arena.results import ResultsError, write_json_atomically
from cardlab.core.rng import derive_seed
from cardlab.games import SPECS, game_spec


class OnlyChoices(pyspiel.Bot):
    """Plays a forced move at once (OpenSpiel's ISMCTS would search it), else asks ``bot``."""

    def __init__(self, bot: pyspiel.Bot):
        pyspiel.Bot.__init__(self)
        self.bot = bot

    def restart_at(self, state: pyspiel.State) -> None:
        pass  # OpenSpiel's Python ISMCTS keeps nothing between games

    def step(self, state: pyspiel.State) -> int:
        legal = state.legal_actions()
        return legal[0] if len(legal) == 1 else self.bot.step(state)


def openspiel_ismcts(game: pyspiel.Game, simulations: int, seed: int) -> pyspiel.Bot:
    from open_spiel.python.algorithms import ismcts, mcts

    return OnlyChoices(ismcts.ISMCTSBot(
        game=game, evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
        uct_c=2.0, max_simulations=max(1, simulations), random_state=np.random.RandomState(seed),
    ))


def calibrate_openspiel(game: pyspiel.Game, time_ms: float) -> int:
    """How many simulations OpenSpiel's Python ISMCTS completes in ``time_ms`` on this game."""
    bot = openspiel_ismcts(game, 50, 0)
    rng = np.random.default_rng(0)
    rates = []
    for trial in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            elif len(state.legal_actions()) > 1 and rng.random() < 0.2:
                break
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
        if state.is_terminal() or state.is_chance_node():
            continue
        start = time.perf_counter()
        bot.step(state)
        rates.append(50 / (time.perf_counter() - start))
        del trial
    return max(1, int(np.median(rates) * time_ms / 1000.0))


def make_side(kind: str, options: dict):
    def factory(game, seat, seed):
        if kind == "openspiel":
            return openspiel_ismcts(game, options["openspiel_simulations"], seed % 2**32)
        if kind == "ismcts":
            return agents.make("ismcts", game, seat, seed, **options["ismcts"])
        return agents.make(kind, game, seat, seed)
    return factory


def play_deals(game_name: str, params: dict, first: int, last: int, seed: int, sides: tuple,
               options: dict) -> list[float]:
    """Duplicate scores of side A over side B on deals ``first..last-1``."""
    game = pyspiel.load_game(game_name, params)
    make_a, make_b = (make_side(kind, options) for kind in sides)
    scores = []
    for deal in range(first, last):
        deal_seed = int(derive_seed(seed, deal))
        score = 0.0
        for a_parity in (0, 1):
            bots = [(make_a if seat % 2 == a_parity else make_b)(game, seat, deal_seed + seat)
                    for seat in range(game.num_players())]
            _, returns = play_deal(game, bots, deal_seed)
            score += returns[a_parity]
        scores.append(score)
    return scores


def read_partial(path: Path, settings: dict) -> dict | None:
    """The chunks an interrupted run of the same ``settings`` saved in ``path``, or None."""
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text())
        chunks = saved["chunks"]
        size = int(saved["chunk_size"])
        valid = isinstance(chunks, dict) and size > 0 and all(
            int(first) % size == 0
            and len(scores) == min(size, settings["deals"] - int(first))
            and all(isinstance(score, (int, float)) for score in scores)
            for first, scores in chunks.items())
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        raise ResultsError(f"{path} is corrupt ({type(error).__name__}: {error}); "
                           f"delete it to start the match again") from error
    if not valid:
        raise ResultsError(f"{path} is corrupt (chunks do not match its chunk size); "
                           f"delete it to start the match again")
    if saved.get("settings") != settings:
        raise ResultsError(f"{path} holds a match with other settings; delete it or choose "
                           f"another --out")
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kaiser",
                        choices=sorted(alias for spec in SPECS for alias in spec.aliases))
    parser.add_argument("--opponent", default="rules", choices=["rules", "openspiel", "random"])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--time-ms", type=float, default=20.0)
    parser.add_argument("--exploration", type=float, default=None)
    parser.add_argument("--widening", type=float, default=None)
    parser.add_argument("--rollout-depth", type=int, default=None)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    for name in ("deals", "simulations", "workers"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.time_ms <= 0:
        parser.error(f"--time-ms must be positive, got {args.time_ms}")
    game_name = game_spec(args.game).name
    game = pyspiel.load_game(game_name)
    ismcts_options: dict = {"simulations": args.simulations, "rollout": "rules"}
    options: dict = {"ismcts": ismcts_options, "openspiel_simulations": 0}
    if args.opponent == "openspiel":
        ismcts_options = {"time_ms": args.time_ms, "rollout": "rules"}  # a clock, no count
        options["ismcts"] = ismcts_options
    for option in ("exploration", "widening", "rollout_depth"):
        if getattr(args, option) is not None:
            ismcts_options[option] = getattr(args, option)
    sides = ("ismcts", args.opponent)
    settings = {"game": game_name, "sides": list(sides), "deals": args.deals, "seed": args.seed,
                "ismcts_options": ismcts_options}
    partial = Path(f"{args.out}.partial.json") if args.out else None
    saved = read_partial(partial, settings) if partial else None
    if saved is None:
        if args.opponent == "openspiel":
            options["openspiel_simulations"] = calibrate_openspiel(game, args.time_ms)
        saved = {"settings": settings, "openspiel_simulations": options["openspiel_simulations"],
                 "chunk_size": max(1, math.ceil(args.deals / (8 * args.workers))),
                 "seconds": 0.0, "chunks": {}}
    options["openspiel_simulations"] = saved["openspiel_simulations"]
    size = saved["chunk_size"]
    bounds = [(first, min(first + size, args.deals)) for first in range(0, args.deals, size)
              if str(first) not in saved["chunks"]]
    start = time.perf_counter() - saved["seconds"]
    done = sum(len(scores) for scores in saved["chunks"].values())
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
        jobs = {pool.submit(play_deals, game_name, {}, a, b, args.seed, sides, options): a
                for a, b in bounds}
        with tqdm(total=args.deals, initial=done, unit="deal",
                  desc=f"{args.game}: ismcts vs {args.opponent}") as progress:
            for job in as_completed(jobs):
                saved["chunks"][str(jobs[job])] = job.result()
                saved["seconds"] = round(time.perf_counter() - start, 1)
                if partial:
                    write_json_atomically(partial, saved)
                progress.update(len(job.result()))
    scores = [score for first in sorted(saved["chunks"], key=int)
              for score in saved["chunks"][first]]  # in deal order
    scores_array = np.array(scores)
    mean = float(scores_array.mean())
    half = 1.96 * float(scores_array.std(ddof=1)) / math.sqrt(len(scores))
    summary = {
        "game": game_name, "side_a": "ismcts", "side_b": args.opponent,
        "ismcts_options": ismcts_options,
        "openspiel_simulations_per_move": options["openspiel_simulations"] or None,
        "deals": len(scores), "seed": args.seed,
        "mean_points_per_deal_a_minus_b": round(mean, 3),
        "ci95": [round(mean - half, 3), round(mean + half, 3)],
        "deals_won_lost_tied": [int((scores_array > 0).sum()), int((scores_array < 0).sum()),
                                int((scores_array == 0).sum())],
        "seconds": round(time.perf_counter() - start, 1),
        "scores": [round(float(score), 6) for score in scores],  # per deal, in deal order
    }
    print(json.dumps({key: value for key, value in summary.items() if key != "scores"}, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")
        partial.unlink(missing_ok=True)


if __name__ == "__main__":
    try:
        main()
    except ResultsError as error:
        raise SystemExit(f"error: {error}") from None
