"""A model's strength during training: a duplicate match against a native agent, in the compiled arena.

The deals are fixed by the seed (the same every time a run measures), so two
measurements differ only by what the network learnt. The score is the
tournament's: the model's return summed over the seatings of a deal (one per
side of the table), per deal, with a normal 95% interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from cardlab.analysis.stats import normal_mean_ci
from cardlab.arena import native
from cardlab.arena.entrants import AgentSpec, native_tables, parse_agent
from cardlab.games import game_spec, seat_sides
from cardlab.results import seat_pattern


@dataclass(frozen=True)
class Strength:
    """The model's duplicate score per deal against ``opponent`` over ``deals`` deals."""

    opponent: str
    deals: int
    mean: float
    low: float
    high: float
    decision_us: float  # the model's CPU time per decision, in microseconds

    def to_json(self) -> dict[str, Any]:
        return {"opponent": self.opponent, "deals": self.deals, "mean": round(self.mean, 4),
                "ci95": [round(self.low, 4), round(self.high, 4)], "decision_us": round(self.decision_us, 2)}

    def text(self) -> str:
        return f"{self.mean:+.2f} ({self.low:+.2f}..{self.high:+.2f})"


def duplicate_strength(game: pyspiel.Game, model: str | Path, opponent: str, deals: int, seed: int
                       ) -> Strength:
    """``net:model=<model>`` against ``opponent`` on deals ``0 .. deals - 1`` of ``seed``."""
    name, options = parse_agent(opponent)
    specs = [AgentSpec("net", "net", {"model": str(model)}), AgentSpec(name, name, options)]
    kinds, rows, policies = native_tables(specs, game)
    sides = seat_sides(game)
    seatings = seat_pattern([(0, 1)], sides)
    seeds = native.deal_seeds(np.uint64(seed), 0, deals)
    status, _, _, returns, seconds, decisions, _ = native.play_games(
        game_spec(game.get_type().short_name).kernel_id, game.new_initial_state().array.copy(), seeds,
        seatings, kinds, rows, policies)
    if status[0] != native.OK:
        raise RuntimeError(f"an agent chose an illegal action (status {status.tolist()})")
    held = np.array([sides.index(side) for side in range(len(seatings))])
    games = np.arange(returns.shape[0])
    scores = returns[games, held[games % len(seatings)]].reshape(deals, len(seatings)).sum(axis=1)
    low, high = normal_mean_ci(scores)
    model_seats = seatings[games % len(seatings)] == 0
    time = (seconds * model_seats).sum() / max((decisions * model_seats).sum(), 1)
    return Strength(opponent, deals, float(scores.mean()), float(low), float(high), float(time * 1e6))
