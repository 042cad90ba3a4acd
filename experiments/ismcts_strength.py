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

The match is the arena's (:func:`cardlab.arena.match.run_match`): resumable,
so running the same command again after an interruption plays only the
missing chunks (other ``--workers`` are fine; OpenSpiel's simulation count is
kept from the first run, not measured again); other settings, or a corrupt
partial file ``<out>.partial.json``, stop it with a one-line error.
OpenSpiel's bot enters the arena as a ``py:`` factory (:func:`openspiel_ismcts`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pyspiel

import cardlab  # noqa: F401
from cardlab.arena.match import Side, run_match
from cardlab.arena.pool import WorkerLostError
from cardlab.games import SPECS, game_spec
from cardlab.results import ResultsError


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


def openspiel_ismcts(game: pyspiel.Game, player: int, seed: int, simulations: int) -> pyspiel.Bot:
    """OpenSpiel's Python ISMCTSBot with random rollouts (an arena ``py:`` factory)."""
    from open_spiel.python.algorithms import ismcts, mcts

    seed %= 2**32
    return OnlyChoices(ismcts.ISMCTSBot(
        game=game, evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
        uct_c=2.0, max_simulations=max(1, simulations), random_state=np.random.RandomState(seed),
    ))


def calibrate_openspiel(game: pyspiel.Game, time_ms: float) -> int:
    """How many simulations OpenSpiel's Python ISMCTS completes in ``time_ms`` on this game."""
    bot = openspiel_ismcts(game, 0, 0, 50)
    rng = np.random.default_rng(0)
    rates = []
    for _ in range(6):
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
    return max(1, int(np.median(rates) * time_ms / 1000.0))


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
    if not 0 < args.time_ms < float("inf"):
        parser.error(f"--time-ms must be positive, got {args.time_ms}")
    game_name = game_spec(args.game).name
    ismcts_options: dict = {"simulations": args.simulations, "rollout": "rules"}
    if args.opponent == "openspiel":
        ismcts_options = {"time_ms": args.time_ms, "rollout": "rules"}  # a clock, no count
    for option in ("exploration", "widening", "rollout_depth"):
        if getattr(args, option) is not None:
            ismcts_options[option] = getattr(args, option)

    def calibrate() -> dict:
        if args.opponent != "openspiel":
            return {"openspiel_simulations": 0}
        return {"openspiel_simulations": calibrate_openspiel(pyspiel.load_game(game_name), args.time_ms)}

    partial = Path(f"{args.out}.partial.json") if args.out else None
    opponent = Side(args.opponent)
    if args.opponent == "openspiel":  # the calibrated count is known only after the first start
        kept = calibrate() if partial is None or not partial.exists() else json.loads(
            partial.read_text()).get("kept", {})
        opponent = Side("py:experiments.ismcts_strength:openspiel_ismcts",
                        {"simulations": int(kept.get("openspiel_simulations", 1))})
        calibrate = lambda: kept  # noqa: E731  (keep the count measured above)
    run = run_match(game_name, Side("ismcts", ismcts_options), opponent, args.deals, args.seed,
                    workers=args.workers, partial=partial, on_start=calibrate,
                    extra_settings={"opponent": args.opponent})
    result = run.result
    scores = np.array(result.scores)
    low, high = result.confidence_interval()
    summary = {
        "game": game_name, "side_a": "ismcts", "side_b": args.opponent,
        "ismcts_options": ismcts_options,
        "openspiel_simulations_per_move": run.settings["kept"].get("openspiel_simulations") or None,
        "deals": result.deals, "seed": args.seed,
        "mean_points_per_deal_a_minus_b": round(result.mean, 3),
        "ci95": [round(low, 3), round(high, 3)],
        "deals_won_lost_tied": [int((scores > 0).sum()), int((scores < 0).sum()),
                                int((scores == 0).sum())],
        "seconds": run.seconds,
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
    except (ResultsError, ValueError, WorkerLostError) as error:
        raise SystemExit(f"error: {str(error).splitlines()[0]}") from None
