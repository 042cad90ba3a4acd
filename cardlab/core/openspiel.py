"""The part of an OpenSpiel game wrapper that is the same for every cardlab game.

A cardlab game is a thin ``pyspiel.State`` around a numba engine: the state is
the engine's ``int64`` array, and ``current_player``, legal actions, chance
outcomes, ``apply_action`` and returns are single kernel calls. Each game adds
its own strings, observer and ``resample_from_infostate``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER, Engine


class EngineState(pyspiel.State):
    """A pyspiel state backed by an engine state array (``self.array``)."""

    engine: Engine  # set by each game's subclass

    def __init__(self, game: pyspiel.Game, array: np.ndarray):
        super().__init__(game)
        self.array = array
        self._legal_buffer = np.empty(self.engine.max_legal_actions, dtype=np.int64)

    # -- the OpenSpiel API -------------------------------------------------------
    def current_player(self) -> int:
        return int(self.engine.current_player(self.array))

    def is_terminal(self) -> bool:
        return self.engine.current_player(self.array) == TERMINAL_PLAYER

    def is_chance_node(self) -> bool:
        return self.engine.current_player(self.array) == CHANCE_PLAYER

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.engine.current_player(self.array):
            return []
        n = self.engine.legal_actions(self.array, self._legal_buffer)
        return self._legal_buffer[:n].tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Uniform over the undealt cards (the chance action is the card id)."""
        if not self.is_chance_node():
            return []
        n = self.engine.legal_actions(self.array, self._legal_buffer)
        probability = 1.0 / n
        return [(int(a), probability) for a in self._legal_buffer[:n]]

    def _apply_action(self, action: int) -> None:
        n = self.engine.legal_actions(self.array, self._legal_buffer)
        if action not in self._legal_buffer[:n]:
            player = self.current_player()
            if player == TERMINAL_PLAYER:
                raise ValueError(f"{self.engine.name}: action {action} applied to a finished game")
            legal = self._legal_buffer[:n].tolist()
            raise ValueError(self.engine.illegal_message(player, action, legal))
        self.engine.apply_action(self.array, action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.engine.action_to_string(player, action)

    def returns(self) -> list[float]:
        out = np.zeros(self.engine.num_players, dtype=np.float64)
        self.engine.returns(self.array, out)
        return out.tolist()

    def rewards(self) -> list[float]:
        # Terminal rewards only: the reward of the last step is the return at the end.
        if self.is_terminal():
            return self.returns()
        return [0.0] * self.engine.num_players

    # -- copying and pickling (clone and serialization use these) ---------------
    def __getstate__(self) -> dict[str, Any]:
        return {"array": self.array.tolist()}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        self.array = np.asarray(state["array"], dtype=np.int64)
        self._legal_buffer = np.empty(self.engine.max_legal_actions, dtype=np.int64)

    def with_array(self, array: np.ndarray) -> EngineState:
        """A clone of this state (history kept) whose engine array is ``array``."""
        copy = self.clone()
        copy.array = array
        return copy


def checked_parameters(
    name: str, given: Mapping[str, Any], rules: Mapping[str, tuple[type, Any]]
) -> dict[str, Any]:
    """Validate game parameters: each rule is ``(type, allowed)``.

    ``allowed`` is a tuple of allowed values, a ``(low, high)`` range written as a
    ``range``, or ``None`` for any value of the type. Raises ``ValueError`` naming
    the parameter and what it accepts.
    """
    values = {}
    for key, value in given.items():
        if key not in rules:
            raise ValueError(f"{name}: unknown parameter {key!r}; known: {sorted(rules)}")
        kind, allowed = rules[key]
        if kind is bool:
            if not isinstance(value, bool | int | np.integer) or int(value) not in (0, 1):
                raise ValueError(f"{name}: parameter {key!r} must be true or false, got {value!r}")
            value = bool(value)
        elif kind is int:
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ValueError(f"{name}: parameter {key!r} must be an integer, got {value!r}")
            value = int(value)
        if isinstance(allowed, range) and value not in allowed:
            raise ValueError(
                f"{name}: parameter {key!r} must be in {allowed.start}..{allowed.stop - 1}, "
                f"got {value!r}"
            )
        if isinstance(allowed, tuple) and value not in allowed:
            raise ValueError(f"{name}: parameter {key!r} must be one of {allowed}, got {value!r}")
        values[key] = value
    return values
