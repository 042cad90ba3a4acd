"""The uniform random agent: the floor every other agent must clear."""

from __future__ import annotations

import numpy as np
import pyspiel

from cardlab.agents.checks import check_can_move
from cardlab.agents.options import OptionSet

OPTIONS = OptionSet("random")  # it takes none


class RandomBot(pyspiel.Bot):
    """Plays a uniformly random legal action, from its own seeded stream."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int = 0):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player = player
        self._seed = seed
        self._rng = np.random.default_rng(seed)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def step(self, state: pyspiel.State) -> int:
        check_can_move("random", self.game, self.player, state)
        legal = state.legal_actions(self.player)
        return int(legal[self._rng.integers(len(legal))])

    def step_with_policy(self, state: pyspiel.State):
        check_can_move("random", self.game, self.player, state)
        legal = state.legal_actions(self.player)
        policy = [(a, 1.0 / len(legal)) for a in legal]
        return policy, self.step(state)


def make_random(game: pyspiel.Game, player: int, seed: int, **options) -> RandomBot:
    OPTIONS.reject_unknown(options)
    return RandomBot(game, player, seed)
