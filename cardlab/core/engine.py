"""What every cardlab engine provides, and the checked way to drive one from Python.

An engine is a set of numba kernels over one ``int64`` state array that starts
with the header every game shares (:mod:`cardlab.core.layout`):
``current_player(s)`` (the shared one), ``legal_actions(s, out) -> n``,
``apply_action(s, a)``, ``returns(s, out)`` and ``advance(s, a, out) -> (n,
player)``, which applies an action (none if ``a < 0``) and lists the next legal
actions in one call. Kernels trust their input, because bounds checks in the
inner loop would cost every rollout; :class:`Engine` is the Python face that
checks each call and raises a clear error instead of letting a bad seat, card
id or phase corrupt memory. Its ``action_to_string(s, player, action)`` is the
game's string of an action in a given state (a Twenty-Eight card is ``"JS"``
when played but ``"trump JS"`` when placed as the trump indicator).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np

CHANCE_PLAYER = -1  # pyspiel.PlayerId.CHANCE
TERMINAL_PLAYER = -4  # pyspiel.PlayerId.TERMINAL


#: Every engine built in this process, by (game name, seats): what an unpickled engine refers to.
_BUILT: dict[tuple[str, int], Engine] = {}


def built_engine(name: str, num_players: int) -> Engine:
    """The engine of game ``name`` for ``num_players`` seats, built earlier in this process (loading
    the game builds it, and a state is only ever unpickled after its game is loaded)."""
    return _BUILT[(name, num_players)]


@dataclass(frozen=True)
class Engine:
    """A game's kernels plus the checks a Python caller needs.

    Immutable and one per game and seat count, so a state holds it as a plain attribute:
    copying a state shares it, and pickling one stores only its name (copying the compiled
    kernels would take 0.15 s).
    """

    name: str
    num_players: int
    state_size: int
    max_legal_actions: int
    num_distinct_actions: int
    current_player: Callable
    legal_actions: Callable
    apply_action: Callable
    returns: Callable
    advance: Callable
    action_to_string: Callable[[np.ndarray, int, int], str]

    def __post_init__(self) -> None:
        _BUILT.setdefault((self.name, self.num_players), self)

    def __deepcopy__(self, memo: dict) -> Engine:
        return self

    def __reduce__(self) -> tuple:
        return built_engine, (self.name, self.num_players)

    @classmethod
    def from_kernels(cls, kernels: ModuleType, name: str, num_players: int,
                     num_distinct_actions: int,
                     action_to_string: Callable[[np.ndarray, int, int], str]) -> Engine:
        """The engine of a game's kernel module (one that follows the layout above)."""
        return cls(
            name=name, num_players=num_players, state_size=kernels.STATE_SIZE,
            max_legal_actions=kernels.MAX_LEGAL_ACTIONS,
            num_distinct_actions=num_distinct_actions, current_player=kernels.current_player,
            legal_actions=kernels.legal_actions, apply_action=kernels.apply_action,
            returns=kernels.returns, advance=kernels.advance, action_to_string=action_to_string,
        )

    def check_state(self, state: np.ndarray) -> None:
        if not isinstance(state, np.ndarray) or state.dtype != np.int64 or state.shape != (
            self.state_size,
        ):
            raise TypeError(
                f"{self.name}: a state is an int64 array of shape ({self.state_size},), "
                f"got {type(state).__name__} {getattr(state, 'dtype', '')}"
                f"{getattr(state, 'shape', '')}"
            )

    def check_seat(self, seat: int) -> int:
        if not isinstance(seat, int | np.integer) or not 0 <= seat < self.num_players:
            raise ValueError(f"{self.name}: seat must be 0..{self.num_players - 1}, got {seat!r}")
        return int(seat)

    def legal(self, state: np.ndarray) -> list[int]:
        """Legal actions (chance outcomes at a chance node), ascending."""
        self.check_state(state)
        if self.current_player(state) == TERMINAL_PLAYER:
            return []
        out = np.empty(self.max_legal_actions, dtype=np.int64)
        n = self.legal_actions(state, out)
        return out[:n].tolist()

    def apply(self, state: np.ndarray, action: int) -> None:
        """Apply ``action`` in place, or raise ``ValueError`` and leave the state unchanged."""
        legal = self.legal(state)
        if not isinstance(action, int | np.integer) or int(action) not in legal:
            player = int(self.current_player(state))
            if player == TERMINAL_PLAYER:
                raise ValueError(f"{self.name}: action {action!r} applied to a finished game")
            raise ValueError(self.illegal_message(state, player, action, legal))
        self.apply_action(state, int(action))

    def illegal_message(self, state: np.ndarray, player: int, action: object,
                        legal: list[int]) -> str:
        """Why ``action`` cannot be applied in ``state``: it and the legal actions, with their strings."""
        try:
            described = f"{action} ({self.action_to_string(state, player, int(action))})"
        except (TypeError, ValueError, IndexError):
            described = repr(action)
        choices = ", ".join(f"{a} ({self.action_to_string(state, player, a)})" for a in legal)
        who = "chance" if player == CHANCE_PLAYER else f"player {player}"
        return f"{self.name}: illegal action {described} for {who}; legal actions: [{choices}]"

    def step(self, state: np.ndarray, action: int, out: np.ndarray) -> tuple[int, int]:
        """Apply ``action`` (none if negative) and list the legal actions into ``out``.

        Returns ``(number of legal actions, current player)``, in one compiled call.
        """
        return self.advance(state, action, out)

    def seat_returns(self, state: np.ndarray) -> list[float]:
        self.check_state(state)
        out = np.zeros(self.num_players, dtype=np.float64)
        self.returns(state, out)
        return out.tolist()
