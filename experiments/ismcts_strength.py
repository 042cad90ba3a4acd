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
from cardlab.cli import GAMES
from cardlab.core.rng import derive_seed


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kaiser", choices=sorted(GAMES))
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
    game_name = GAMES[args.game]
    game = pyspiel.load_game(game_name)
    ismcts_options: dict = {"simulations": args.simulations, "rollout": "rules"}
    options: dict = {"ismcts": ismcts_options, "openspiel_simulations": 0}
    if args.opponent == "openspiel":
        ismcts_options = {"time_ms": args.time_ms, "rollout": "rules"}  # a clock, no count
        options["ismcts"] = ismcts_options
        options["openspiel_simulations"] = calibrate_openspiel(game, args.time_ms)
    for option in ("exploration", "widening", "rollout_depth"):
        if getattr(args, option) is not None:
            ismcts_options[option] = getattr(args, option)
    sides = ("ismcts", args.opponent)
    chunk = max(1, math.ceil(args.deals / (8 * args.workers)))
    bounds = [(i, min(i + chunk, args.deals)) for i in range(0, args.deals, chunk)]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
        jobs = [pool.submit(play_deals, game_name, {}, a, b, args.seed, sides, options)
                for a, b in bounds]
        with tqdm(total=args.deals, desc=f"{args.game}: ismcts vs {args.opponent}",
                  unit="deal") as progress:
            for job in as_completed(jobs):
                progress.update(len(job.result()))
        scores = [score for job in jobs for score in job.result()]  # in deal order
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
    }
    print(json.dumps(summary, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
