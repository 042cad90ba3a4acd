"""The part of an OpenSpiel game wrapper that is the same for every cardlab game.

A cardlab game is a thin ``pyspiel.State`` around a numba engine: the state is
the engine's ``int64`` array, and ``current_player``, legal actions, chance
outcomes, ``apply_action`` and returns are single kernel calls. Each game adds
its own strings, observer and ``resample_from_infostate``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pyspiel

from cardlab.core import layout
from cardlab.core.dealing import receiving_seat
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER, Engine
from cardlab.core.rng import make_stream

Pieces = tuple[tuple[str, int], ...]


def card_game_type(short_name: str, long_name: str, min_players: int, max_players: int,
                   parameters: Mapping[str, Any]) -> pyspiel.GameType:
    """The OpenSpiel type every cardlab game shares (contract, "OpenSpiel registration").

    Sequential, explicit stochastic chance (one node per dealt card), imperfect
    information, zero-sum, terminal rewards, with information-state and
    observation strings and tensors.
    """
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(parameters),
    )


@dataclass(frozen=True)
class GameView:
    """How a game's state looks to its players: as text, as tensors, and as worlds to imagine.

    ``describe(array, player, perfect_recall)`` renders what ``player`` sees
    (everything when ``player`` is None); ``tensor_pieces(array,
    perfect_recall)`` names the parts of the tensor and their sizes for the
    game whose parameters ``array`` holds, which the numba kernel
    ``encode(array, player, perfect_recall, out)`` fills;
    ``resample(array, seat, stream)`` draws a world ``seat`` cannot tell from
    this one (each game's ``sampling.py`` documents what its sampler keeps);
    ``information_state_key(initial, actions, seat)`` folds a history into
    ``seat``'s 64-bit information-state key (the game's kernel of
    :mod:`cardlab.games.kernels`; core never imports the games).

    Two hooks let :func:`replay_world` write the history of a drawn world:
    ``next_deal_cards(world, replay)`` is the set of cards the next chance
    node of the partial history ``replay`` may deal so that it still leads to
    ``world`` (default: the receiving seat's cards in ``world`` it has not been
    dealt yet; games with deal stages or a kitty say more), and
    ``hidden_action(world, replay, action)`` the action a player took in
    ``world`` where the drawn-from history took ``action`` unseen
    (Twenty-Eight's face-down indicator, Kaiser's kitty discards; default:
    none are hidden). ``tensor_divisors(array, perfect_recall)`` is the divisor
    of each entry of the tensor (:mod:`cardlab.core.encoding`): what turns the
    compact integer tensor the same ``encode`` fills into the float32 one;
    ``piece_meanings`` says in words what each named piece holds.
    """

    describe: Callable[[np.ndarray, int | None, bool], str]
    tensor_pieces: Callable[[np.ndarray, bool], Pieces]
    encode: Callable
    resample: Callable[[np.ndarray, int, np.ndarray], np.ndarray]
    information_state_key: Callable[[np.ndarray, np.ndarray, int], int]
    next_deal_cards: Callable[[np.ndarray, np.ndarray], int] = None  # type: ignore[assignment]
    hidden_action: Callable[[np.ndarray, np.ndarray, int], int] | None = None
    tensor_divisors: Callable[[np.ndarray, bool], np.ndarray] | None = None
    piece_meanings: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if self.next_deal_cards is None:
            object.__setattr__(self, "next_deal_cards", next_dealt_cards)

    @staticmethod
    def fixed_pieces(observation: ModuleType) -> Callable[[np.ndarray, bool], Pieces]:
        """``tensor_pieces`` for a module with ``OBSERVATION_PIECES`` and ``INFORMATION_STATE_EXTRA``."""
        def pieces(array: np.ndarray, perfect_recall: bool) -> Pieces:
            extra = observation.INFORMATION_STATE_EXTRA if perfect_recall else ()
            return tuple(observation.OBSERVATION_PIECES) + tuple(extra)
        return pieces


class EngineState(pyspiel.State):
    """A pyspiel state backed by an engine state array (``self.array``).

    After every change the current player and the legal actions are read in a
    single kernel call (``engine.step``) and cached, so the many questions
    OpenSpiel asks about a state (``current_player``, ``is_terminal``,
    ``legal_actions``, ...) cost no further compiled calls. Code that edits
    ``self.array`` by hand must call :meth:`refresh` afterwards.
    """

    engine: Engine  # the game's engine (EngineGame.engine), set by __init__
    view: GameView  # likewise

    def __init__(self, game: pyspiel.Game, array: np.ndarray):
        super().__init__(game)
        self.engine = game.engine  # the game's, for its seat count: shared by copies (Engine)
        self.array = array
        self.refresh()

    def refresh(self) -> None:
        """Re-read the current player and legal actions from ``self.array``."""
        self._buffer = np.empty(self.engine.max_legal_actions, dtype=np.int64)
        self._record(*self.engine.step(self.array, -1, self._buffer))

    def _record(self, n: int, player: int) -> None:
        self._player = int(player)
        self._legal = self._buffer[:n].tolist()

    # -- the OpenSpiel API -------------------------------------------------------
    def current_player(self) -> int:
        return self._player

    def is_terminal(self) -> bool:
        return self._player == TERMINAL_PLAYER

    def is_chance_node(self) -> bool:
        return self._player == CHANCE_PLAYER

    def legal_actions(self, player: int | None = None) -> list[int]:
        if player is not None and player != self._player:
            return []
        return list(self._legal) if self._player != TERMINAL_PLAYER else []

    def _legal_actions(self, player: int) -> list[int]:
        return self.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Uniform over the undealt cards (the chance action is the card id)."""
        if self._player != CHANCE_PLAYER:
            return []
        probability = 1.0 / len(self._legal)
        return [(action, probability) for action in self._legal]

    def apply_action(self, action: int) -> None:
        """OpenSpiel's ``apply_action``; its invalid action (-1) is refused as every illegal action is,
        with a ``ValueError`` naming the legal ones (OpenSpiel's own check raises ``SpielError``)."""
        if action == pyspiel.INVALID_ACTION:
            self._apply_action(action)
        super().apply_action(action)

    def _apply_action(self, action: int) -> None:
        if action not in self._legal:
            if self._player == TERMINAL_PLAYER:
                raise ValueError(f"{self.engine.name}: action {action} applied to a finished game")
            raise ValueError(self.engine.illegal_message(self.array, self._player, action,
                                                         self._legal))
        self._record(*self.engine.step(self.array, action, self._buffer))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.engine.action_to_string(self.array, player, action)

    def returns(self) -> list[float]:
        out = np.zeros(self.engine.num_players, dtype=np.float64)
        self.engine.returns(self.array, out)
        return out.tolist()

    def rewards(self) -> list[float]:
        # Terminal rewards only: the reward of the last step is the return at the end.
        if self.is_terminal():
            return self.returns()
        return [0.0] * self.engine.num_players

    # -- what a player sees -----------------------------------------------------------
    def resample_from_infostate(self, player_id: int, probability_sampler) -> EngineState:
        """A world ``player_id`` cannot tell apart from this one (the game's sampler).

        The world is a real state of the game: its history deals the drawn
        hands (and takes the drawn hidden actions) and replays every public
        action, so it pickles, serializes and keys like any other state.
        ``probability_sampler()`` must return a number in [0, 1): it seeds the draw.
        """
        seat = self.engine.check_seat(player_id)
        draw = probability_sampler()
        if isinstance(draw, bool) or not isinstance(draw, int | float | np.integer | np.floating) \
                or not 0.0 <= float(draw) < 1.0:
            raise ValueError(f"{self.engine.name}: the probability sampler must return a number "
                             f"in [0, 1), got {draw!r}")
        world = self.view.resample(self.array, seat, make_stream(int(float(draw) * 2**53)))
        replayed = replay_world(self, world)
        if not np.array_equal(replayed.array, world):
            raise RuntimeError(f"{self.engine.name}: the sampler drew a world its history "
                               "cannot reach (a sampler bug)")
        return replayed

    def information_state_string(self, player: int | None = None) -> str:
        return self.view.describe(self.array, self._seat(player), True)

    def observation_string(self, player: int | None = None) -> str:
        return self.view.describe(self.array, self._seat(player), False)

    def information_state_key(self, player: int | None = None) -> int:
        """A 64-bit key of ``player``'s information state, for tables of information states (CFR).

        The history is replayed from the initial state in one kernel, folding in
        what the player observed at each step (:mod:`cardlab.core.infostate`), so
        equal keys mean equal observation sequences, up to 64-bit collisions.
        """
        actions = np.asarray(self.history(), dtype=np.int64)
        key = self.view.information_state_key(self.get_game().initial_array, actions,
                                              self._seat(player))
        return int(key)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        return self._tensor(player, True)

    def observation_tensor(self, player: int | None = None) -> list[float]:
        return self._tensor(player, False)

    def _seat(self, player: int | None) -> int:
        return self.engine.check_seat(self._player if player is None else player)

    def _tensor(self, player: int | None, perfect_recall: bool) -> list[float]:
        pieces = self.view.tensor_pieces(self.array, perfect_recall)
        out = np.zeros(sum(size for _, size in pieces), dtype=np.float32)
        self.view.encode(self.array, self._seat(player), perfect_recall, out)
        return out.tolist()

    def __str__(self) -> str:
        return self.view.describe(self.array, None, True)

    # -- copying, pickling and serialization ------------------------------------------
    # OpenSpiel copies a Python state by setting each attribute of its __dict__ on a
    # fresh initial state: clone() before it copies the history, deserialization
    # (and so pickle.loads) after. The ``array`` property sees the second case and
    # replays the history instead of trusting the stored array.
    @property
    def array(self) -> np.ndarray:
        return self.__dict__["array"]

    @array.setter
    def array(self, value: np.ndarray) -> None:
        history = self.history()
        if history and "array" in self.__dict__:
            value = self._replayed(history, value)
        self.__dict__["array"] = value

    def _replayed(self, history: list[int], stored: np.ndarray) -> np.ndarray:
        """The array ``history`` leads to, checked against the ``stored`` one."""
        replay = self.get_game().replay(history)
        if not np.array_equal(replay.array, stored):
            raise ValueError(f"{self.engine.name}: serialized state does not match its history "
                             f"({len(history)} actions)")
        return replay.array

    def __deepcopy__(self, memo: dict) -> EngineState:
        return self.clone()


class EngineGame(pyspiel.Game):
    """A pyspiel game whose states are copies of one initial engine array.

    Each game sets ``state_class`` and, in ``__init__``, ``engine`` and ``initial_array``.
    """

    state_class: type[EngineState]
    initial_array: np.ndarray
    engine: Engine  # the engine for the game's seat count

    def new_initial_state(self) -> EngineState:
        return self.state_class(self, self.initial_array.copy())

    def replay(self, history: list[int]) -> EngineState:
        """The state reached by ``history`` from the start; an illegal action raises ``ValueError``."""
        state = self.new_initial_state()
        for index, action in enumerate(history):
            try:
                state.apply_action(int(action))
            except ValueError as error:
                raise ValueError(f"history action {index}: {error}") from None
        return state

    def make_py_observer(self, iig_obs_type=None, params=None) -> EngineObserver:
        iig_obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return EngineObserver(self, self.state_class.view, iig_obs_type, params)


class EngineObserver:
    """OpenSpiel observer (``open_spiel/python/observation.py``) over a game's numba encoder."""

    def __init__(self, game: pyspiel.Game, view: GameView, iig_obs_type, params):
        if params:
            raise ValueError(f"{game.get_type().short_name}: observation parameters not supported, "
                             f"got {params}")
        self.view = view
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        pieces = view.tensor_pieces(game.initial_array, self.perfect_recall)
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict = {}
        index = 0
        for name, size in pieces:
            self.dict[name] = self.tensor[index:index + size]
            index += size

    def set_from(self, state: EngineState, player: int) -> None:
        self.view.encode(state.array, player, self.perfect_recall, self.tensor)

    def string_from(self, state: EngineState, player: int) -> str:
        return self.view.describe(state.array, player, self.perfect_recall)


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


def receiving_seat_of(replay: np.ndarray) -> int:
    """The seat the next chance node of ``replay`` deals to (contract: ``dealer + 1 + k``)."""
    return int(receiving_seat(replay[layout.DEALER], replay[layout.CARDS_DEALT],
                              replay[layout.NUM_PLAYERS]))


def next_dealt_cards(world: np.ndarray, replay: np.ndarray) -> int:
    """The receiving seat's cards in ``world`` that ``replay`` has not dealt it yet."""
    seat = receiving_seat_of(replay)
    return int(world[layout.DEALT + seat]) & ~int(replay[layout.DEALT + seat])


def replay_world(state: EngineState, world: np.ndarray) -> EngineState:
    """The state that ``world``, drawn from ``state``'s information set, is the array of.

    ``state``'s history is replayed with the chance cards of the current deal
    changed to deal the world's hands (a card the seat keeps in the world
    stays at its place in the deal, the others are filled in ascending order)
    and its hidden actions taken from the world (:attr:`GameView.hidden_action`).
    Earlier deals (hands already played, or thrown in) stay as they were: the
    world redraws only the current hand. The cards and hidden actions of the
    seat that drew the world are its own and never change, so the world's
    history looks the same to it.
    """
    view = state.view
    replay = state.get_game().new_initial_state()
    steps = state.full_history()
    chance_steps = [index for index, step in enumerate(steps) if step.player == CHANCE_PLAYER]
    current_deal = len(chance_steps) - int(state.array[layout.CARDS_DEALT])
    first_redrawn = chance_steps[current_deal] if current_deal < len(chance_steps) else len(steps)
    for index, step in enumerate(steps):
        action = step.action
        if index < first_redrawn:
            pass
        elif replay.is_chance_node():
            wanted = view.next_deal_cards(world, replay.array)
            if not (wanted >> action) & 1:
                spare = wanted & ~view.next_deal_cards(state.array, replay.array)
                action = (spare & -spare).bit_length() - 1
        elif view.hidden_action is not None:
            action = view.hidden_action(world, replay.array, action)
        replay.apply_action(action)
    return replay
