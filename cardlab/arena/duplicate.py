"""Duplicate matches: every deal is played twice, with the teams' seats swapped.

Luck of the deal dominates card games. Playing each deal from both sides and
counting only the difference cancels most of it: a strong team that gets bad
cards on one side gets the same good cards on the other side.

A deal is fixed by its seed: each chance node draws the ``k``-th outcome from
the deal's own random stream, so both plays of a deal see the same cards.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pyspiel

from cardlab.analysis.stats import normal_mean_ci
from cardlab.core.rng import derive_seed, make_stream, random_below
from cardlab.games import seat_sides

BotFactory = Callable[[pyspiel.Game, int, int], pyspiel.Bot]


def restart(bot: pyspiel.Bot, state: pyspiel.State) -> None:
    """Tell ``bot`` a new game starts; bots without ``restart_at`` (OpenSpiel's
    Python ISMCTS, say) keep no state between games and are left as they are."""
    try:
        bot.restart_at(state)
    except pyspiel.SpielError as error:
        if "not implemented" not in str(error):
            raise


def play_deal(
    game: pyspiel.Game,
    bots: Sequence[pyspiel.Bot],
    deal_seed: int,
    seconds: list[float] | None = None,
    decisions: list[int] | None = None,
) -> tuple[pyspiel.State, list[float]]:
    """Play one game with ``bots[seat]`` at each seat; chance drawn from ``deal_seed``.

    Chance node ``k`` takes outcome ``random_below(stream, n)`` of the deal's own
    stream, so every seating of a deal sees the same cards. If given,
    ``seconds[seat]`` and ``decisions[seat]`` accumulate each seat's thinking
    time (CPU seconds) and number of moves.
    """
    stream = make_stream(deal_seed)
    state = game.new_initial_state()
    for bot in bots:
        restart(bot, state)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[random_below(stream, len(outcomes))][0])
        else:
            player = state.current_player()
            start = time.process_time()  # CPU time, as the compiled loop measures it
            action = bots[player].step(state)
            if seconds is not None:
                seconds[player] += time.process_time() - start
            if decisions is not None:
                decisions[player] += 1
            state.apply_action(action)
    return state, state.returns()


@dataclass
class DuplicateResult:
    """Per-deal score of agent A over agent B, summed over the seatings (one per side)."""

    agent_a: str
    agent_b: str
    scores: list[float] = field(default_factory=list)

    @property
    def deals(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return float(np.mean(self.scores)) if self.scores else 0.0

    def confidence_interval(self, level: float = 0.95) -> tuple[float, float]:
        """Normal-approximation interval for the mean score per deal."""
        return normal_mean_ci(self.scores, level)

    def table(self) -> str:
        low, high = self.confidence_interval()
        wins = sum(s > 0 for s in self.scores)
        losses = sum(s < 0 for s in self.scores)
        rows = [
            ("team A", self.agent_a),
            ("team B", self.agent_b),
            ("duplicate deals", f"{self.deals}"),
            ("A - B, points per deal", f"{self.mean:+.2f}  (95% CI {low:+.2f} .. {high:+.2f})"),
            ("deals won / lost / tied", f"{wins} / {losses} / {self.deals - wins - losses}"),
        ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def play_duplicate_match(
    game: pyspiel.Game,
    make_a: BotFactory,
    make_b: BotFactory,
    deals: int | range,
    seed: int,
    names: tuple[str, str] = ("A", "B"),
    progress: bool = False,
) -> DuplicateResult:
    """Agent A against agent B on ``deals`` duplicate deals (one game per side of the table each).

    ``deals`` is a count (deals ``0 .. deals - 1``) or a range of deal numbers,
    so that a long match can be played in chunks. Seating ``k`` puts A on
    every seat of side ``k`` (:func:`cardlab.games.seat_sides`; two teams by
    parity: the even seats, then the odd ones) and B on all the others. The
    deal score is A's return summed over the seatings. The bot at ``seat`` of
    deal ``d`` gets the seed ``derive_seed(seed, d) + seat`` in every seating.
    """
    result = DuplicateResult(*names)
    players = game.num_players()
    sides = seat_sides(game)
    iterator = range(deals) if isinstance(deals, int) else deals
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc="duplicate deals", unit="deal")
    for deal in iterator:
        deal_seed = int(derive_seed(seed, deal))
        score = 0.0
        for side in range(max(sides) + 1):
            bots = [
                (make_a if sides[seat] == side else make_b)(game, seat, deal_seed + seat)
                for seat in range(players)
            ]
            _, returns = play_deal(game, bots, deal_seed)
            score += returns[sides.index(side)]
        result.scores.append(score)
    return result
