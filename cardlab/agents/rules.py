"""Rule-based players: hand-written strategies compiled with numba.

Each game's strategy is a kernel ``rules_action(state_array, stream) -> action``
for the player to move (in ``cardlab/games/<game>/strategy.py``). A strategy
reads only what its seat may know: its own hand and the public record (the
tests check this by resampling the hidden cards and asking again). Because the
kernels are numba functions, the same strategy serves as a bot here, as an
ISMCTS rollout policy and inside the arena's compiled game loops.
"""

from __future__ import annotations

import pyspiel

from cardlab.agents.checks import check_can_move
from cardlab.agents.options import OptionSet
from cardlab.core.rng import make_stream
from cardlab.games import game_spec

OPTIONS = OptionSet("rules")  # it takes none


class KernelPolicyBot(pyspiel.Bot):
    """A bot that asks a numba policy kernel for its move."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, kernel, name: str = "rules"):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player = player
        self.kernel = kernel
        self.name = name
        self._stream = make_stream(seed)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def step(self, state: pyspiel.State) -> int:
        check_can_move(self.name, self.game, self.player, state)  # before the kernel reads the array
        action = int(self.kernel(state.array, self._stream))
        legal = state.legal_actions()
        if action not in legal:  # a strategy bug must never become an illegal move
            raise RuntimeError(f"{self.name} strategy chose illegal action {action}; legal: {legal}")
        return action

    def step_with_policy(self, state: pyspiel.State):
        action = self.step(state)
        return [(action, 1.0)], action


def make_rules(game: pyspiel.Game, player: int, seed: int, **options) -> KernelPolicyBot:
    """The rule-based player of ``game`` (its spec's ``strategy.rules_action``)."""
    OPTIONS.reject_unknown(options)
    return KernelPolicyBot(game, player, seed, game_spec(game.get_type().short_name).strategy.rules_action)
