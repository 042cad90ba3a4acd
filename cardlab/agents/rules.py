"""Rule-based players: hand-written strategies compiled with numba.

Each game's strategy is a kernel ``rules_action(state_array, stream) -> action``
for the player to move (in ``cardlab/games/<game>/strategy.py``). A strategy
reads only what its seat may know: its own hand and the public record (the
tests check this by resampling the hidden cards and asking again). Because the
kernels are numba functions, the same strategy serves as a bot here, as an
ISMCTS rollout policy and inside the arena's compiled game loops.
"""

from __future__ import annotations

import importlib

import pyspiel

from cardlab.agents.registry import register, reject_unknown_options
from cardlab.core.rng import make_stream

#: game short name -> module holding its ``rules_action`` kernel.
STRATEGY_MODULES = {
    "cardlab_kaiser": "cardlab.games.kaiser.strategy",
    "cardlab_twenty_eight": "cardlab.games.twenty_eight.strategy",
    "cardlab_literature": "cardlab.games.literature.strategy",
}


def strategy_kernel(game_name: str):
    """The numba ``rules_action`` kernel of a game."""
    if game_name not in STRATEGY_MODULES:
        raise ValueError(f"no rule-based player for {game_name}")
    return importlib.import_module(STRATEGY_MODULES[game_name]).rules_action


class KernelPolicyBot(pyspiel.Bot):
    """A bot that asks a numba policy kernel for its move."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, kernel, name: str = "rules"):
        pyspiel.Bot.__init__(self)
        self.player = player
        self.kernel = kernel
        self.name = name
        self._stream = make_stream(seed)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def step(self, state: pyspiel.State) -> int:
        if state.current_player() != self.player:
            raise ValueError(
                f"{self.name} bot for player {self.player} asked to move for player "
                f"{state.current_player()}"
            )
        action = int(self.kernel(state.array, self._stream))
        legal = state.legal_actions()
        if action not in legal:  # a strategy bug must never become an illegal move
            raise RuntimeError(f"{self.name} strategy chose illegal action {action}; legal: {legal}")
        return action

    def step_with_policy(self, state: pyspiel.State):
        action = self.step(state)
        return [(action, 1.0)], action


def _make_rules(game: pyspiel.Game, player: int, seed: int, **options) -> KernelPolicyBot:
    reject_unknown_options("rules", options)
    return KernelPolicyBot(game, player, seed, strategy_kernel(game.get_type().short_name))


for _game_name in STRATEGY_MODULES:
    register("rules", _game_name)(_make_rules)
