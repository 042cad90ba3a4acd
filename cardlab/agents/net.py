"""The ``net`` agent: plays a trained policy network, its forward pass in numba.

``net:model=PATH`` loads a model of ``cardlab train --algo ppo|bc``
(:mod:`cardlab.agents.network`) once, refusing one trained on another game or
other parameters; without ``model`` it plays the model committed for the
game (``cardlab/agents/models/cardlab_kaiser.npz`` and so on, the model zoo of
docs/learning.md). At each decision it encodes its seat's observation, runs the
network in numba and plays the most likely legal action (``temperature`` 0, the
default) or draws one from the policy's softmax at ``temperature``. No deep-learning
library is needed to play, and the compiled arena and the RL environments'
house play it inside numba (:mod:`cardlab.arena.native`) with the very kernel
this bot calls, :func:`cardlab.agents.network.network_action`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from cardlab.agents.checks import check_can_move
from cardlab.agents.network import (
    NetworkModel,
    evaluate_state,
    flat_weights,
    legal_policy,
    load_model,
    network_action,
)
from cardlab.agents.options import Option, OptionSet
from cardlab.core.rng import make_stream
from cardlab.games import game_spec, kernels

#: The models committed with cardlab, one per game (docs/learning.md: how each was trained, its strength).
MODELS = Path(__file__).with_name("models")

#: Column of the options row: the softmax temperature the compiled kernel draws at (0: greedy).
TEMPERATURE = 0

OPTIONS = OptionSet("net", (
    Option("model", "text", None, "the network (.npz) of cardlab train --algo ppo; default: the model "
           "committed for the game"),
    Option("temperature", "float", 0.0, "0: play the policy's most likely legal action; above 0: draw "
           "from its softmax at this temperature", low=0.0, high=100.0, column=TEMPERATURE),
))


#: The file name of each head's committed model after the game's name, and how to make one.
_COMMITTED = {"policy": ("", "--algo ppo and play it as net:model=PATH"),
              "holders": ("_holders", "--algo holders and give it as inference_model=PATH")}


def model_path(given: str | None, game: pyspiel.Game, head: str = "policy") -> Path:
    """The model to read: ``given``, else the one committed for ``game`` with a ``head`` of that kind
    (``ValueError`` if none is)."""
    if given is not None:
        return Path(given)
    name = game.get_type().short_name
    suffix, how = _COMMITTED[head]
    path = MODELS / f"{name}{suffix}.npz"
    if not path.exists():
        committed = sorted(p.stem for p in MODELS.glob(f"*{suffix}.npz")
                           if p.stem.endswith("_holders") == (head == "holders"))
        raise ValueError(f"no {'hand-inference ' if suffix else ''}model is committed for {name} "
                         f"(models: {', '.join(committed) or 'none'}); train one with cardlab train {how}")
    return path


def load_for(given: dict[str, Any], game: pyspiel.Game) -> tuple[NetworkModel, float]:
    """The model and temperature of ``net`` with options ``given`` in ``game`` (``ValueError`` if bad)."""
    values = OPTIONS.resolve(given)
    return load_model(model_path(values["model"], game), game), float(values["temperature"])


def runs_compiled(given: dict[str, Any]) -> bool:
    """The compiled arena plays ``net`` with any of its options (the model goes in as a table)."""
    return set(given) <= set(OPTIONS.names)


class NetBot(pyspiel.Bot):
    """Plays ``model``'s policy for ``player``: the numba kernel the compiled arena calls, same stream."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, model: NetworkModel,
                 temperature: float = 0.0):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.player = player
        self.model = model
        self.temperature = temperature
        self.kernel_id = game_spec(game.get_type().short_name).kernel_id
        self._weights, self._shape = flat_weights(model)
        self._stream = make_stream(seed)
        self._scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def evaluate(self, state: pyspiel.State, player: int | None = None) -> tuple[np.ndarray, float]:
        """The network on ``player``'s (default: the mover's) view of ``state``: logits of every action
        id, and the value (the player's expected return over the game's utility scale)."""
        player = state.current_player() if player is None else player
        logits = np.empty(self.model.actions, dtype=np.float32)
        value = evaluate_state(self.kernel_id, self._weights, self._shape, state.array, player, logits)
        return logits, float(value)

    def step(self, state: pyspiel.State) -> int:
        check_can_move("net", self.game, self.player, state)
        action = int(network_action(self.kernel_id, self._weights, self._shape, self.temperature,
                                    state.array, self._stream, self._scratch))
        if action not in state.legal_actions():
            raise RuntimeError(f"net chose action {action}, not one of the legal actions "
                               f"{state.legal_actions()}")
        return action

    def step_with_policy(self, state: pyspiel.State):
        """The move of :meth:`step`, with the policy's softmax over the legal actions (at the
        temperature, or at 1 when greedy)."""
        action = self.step(state)
        legal = np.asarray(state.legal_actions(), dtype=np.int64)
        logits, _ = self.evaluate(state)
        probabilities = np.empty(len(legal), dtype=np.float64)
        legal_policy(logits, legal, len(legal), self.temperature or 1.0, probabilities)
        return list(zip(legal.tolist(), probabilities.tolist(), strict=True)), action


def make_net(game: pyspiel.Game, player: int, seed: int, **options: Any) -> NetBot:
    """The ``net`` agent (default: the model committed for the game)."""
    model, temperature = load_for(options, game)
    return NetBot(game, player, seed, model, temperature)
