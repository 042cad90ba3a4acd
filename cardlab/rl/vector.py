"""Batches of card games for reinforcement learning, stepped in numba: :func:`make` and :class:`VectorEnv`.

One call of :meth:`VectorEnv.step` takes an action for every environment of
the batch and returns, as NumPy arrays, what the players to move next see::

    env = cardlab.rl.make("kaiser", num_envs=4096, seed=0, seats=[0], opponents="rules")
    step = env.reset()
    while training:
        actions = policy(step.observation, step.legal_mask)   # [N] action ids
        step = env.step(actions)                              # rewards, terminated, ...

Chance nodes are dealt inside, and the seats the caller does not play (the
*house*) are played inside by native agents, so a learner against fixed
opponents never leaves compiled code between two of its decisions; with every
seat open (the default) the caller plays all seats: the self-play setting.

The observation is the game's own: bit for bit the OpenSpiel state's
``observation_tensor(player)`` (or ``information_state_tensor``) of the player
to move. ``dtype="compact"`` returns the same tensor as int16, each entry a
flag or a count: divided by :attr:`VectorEnv.observation_divisors` it is the
float32 tensor, bit for bit, at half the memory traffic.

An environment's games depend only on the seed, its number and the caller's
actions (:mod:`cardlab.rl.batch`), so a batch split into several
(``first_env``) plays the same games.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel

from cardlab.arena.entrants import AgentSpec, AgentSpecError, is_native, native_tables, parse_agent
from cardlab.arena.native import agent_kinds
from cardlab.core import compiling
from cardlab.games import GameSpec, game_spec
from cardlab.rl import batch

#: The most environments one batch holds: far above what one core steps usefully, and it
#: keeps a batch's state (about 10 kB an environment in Literature) within a few gigabytes.
MAX_ENVS = 1 << 20
#: Seeds are unsigned 64-bit integers, as everywhere in cardlab.
MAX_SEED = 2**64 - 1
OBSERVATIONS = ("observation", "information_state")
DTYPES = {"float32": np.float32, "compact": np.int16}
#: The largest divisor a compact (int16) observation can carry: its counts stay below 2 * divisor.
MAX_COMPACT_DIVISOR = 16000


@dataclass
class Step:
    """What a batch shows after :meth:`VectorEnv.reset` or :meth:`VectorEnv.step`, one row per env.

    ``observation[i]`` is what ``current_player[i]`` sees; ``legal_mask[i, a]``
    says whether action ``a`` is legal for it. ``rewards[i, seat]`` is every
    seat's reward for the step (the game's returns when it ended, else 0).
    Where ``terminated[i]`` or ``truncated[i]`` the env has already started its
    next game: ``observation[i]`` is that game's first decision. The games
    that ended are listed in ``info["final_env"]`` (ascending), and row ``k``
    of ``info["final_observation"]`` is what ``info["final_player"][k]``, the
    caller's seat that moved last in env ``info["final_env"][k]``, saw at the
    end; row ``k`` of ``info["final_state"]`` is that game's final engine
    state (``game.state_class(game, row)`` makes an OpenSpiel state of it).
    ``info["episodes"]`` counts each env's finished episodes and
    ``info["skipped_episodes"]`` those that ended before the caller had a
    decision (a hand thrown in by the house).
    """

    observation: np.ndarray
    legal_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)


Opponents = str | Sequence[str] | Mapping[int, str]


def _house_specs(opponents: Opponents, house: list[int]) -> dict[int, AgentSpec]:
    """The agent spec of every house seat: one spec for all, a list by house seat, or a dict by seat."""
    if isinstance(opponents, str):
        texts = {seat: opponents for seat in house}
    elif isinstance(opponents, Mapping):
        texts = {int(seat): text for seat, text in opponents.items()}
        if sorted(texts) != house:
            raise ValueError(f"opponents must name every house seat {house}, got seats {sorted(texts)}")
    else:
        texts = dict(zip(house, list(opponents), strict=False))
        if len(texts) != len(house) or len(list(opponents)) != len(house):
            raise ValueError(f"opponents must give one agent per house seat {house}, got {list(opponents)}")
    specs = {}
    for seat, text in texts.items():
        if not isinstance(text, str):
            raise ValueError(f"opponent of seat {seat} must be an agent spec string, got {text!r}")
        name, options = parse_agent(text)
        specs[seat] = AgentSpec(f"seat{seat}", name, options)
    return specs


class VectorEnv:
    """``num_envs`` games of one game, stepped together in numba (:mod:`cardlab.rl.batch`).

    Arguments, checked here with a clear ``ValueError``:

    - ``game``: a name or alias (``"kaiser"``, ``"28"``, ``"cardlab_literature"``);
      ``params``: game parameters, checked as ``load_game`` checks them
      (variants and the small research games included);
    - ``seats``: the seats the caller plays (default: all of them);
    - ``opponents``: the native agent playing every other seat, as on the
      command line (``"rules"``, ``"random"``, ``"ismcts:simulations=200"``,
      ``"pimc"``, ``"cfr-bidding"``), or one per house seat (a list, or a dict
      by seat);
    - ``observation``: ``"observation"`` or ``"information_state"`` (the
      perfect-recall tensor); ``dtype``: ``"float32"`` or ``"compact"`` (int16);
    - ``max_steps``: truncate an episode after this many decisions of the
      caller (0: never; every cardlab game ends by itself);
    - ``first_env``: the number of this batch's first environment, for a batch
      split into several: environment numbers decide the games, not batches.
    """

    def __init__(self, game: str, num_envs: int, seed: int, params: Mapping[str, Any] | None = None,
                 seats: Iterable[int] | None = None, opponents: Opponents = "rules",
                 observation: str = "observation", dtype: str = "float32", max_steps: int = 0,
                 first_env: int = 0):
        self.spec: GameSpec = game_spec(game)
        self.num_envs = _count("num_envs", num_envs, 1, MAX_ENVS)
        self.seed = _count("seed", seed, 0, MAX_SEED)
        self.first_env = _count("first_env", first_env, 0, MAX_SEED)
        self.max_steps = _count("max_steps", max_steps, 0, 2**62)
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {tuple(DTYPES)}, got {dtype!r}")
        self.game: pyspiel.Game = self.spec.load(params)
        self.params = dict(params or {})
        self.perfect_recall = observation == "information_state"
        self.observation_kind = observation
        self.num_players = self.game.num_players()
        self.num_actions = self.game.num_distinct_actions()
        self._initial = self.game.new_initial_state().array.copy()
        view = self.game.state_class.view
        self.observation_pieces = tuple(view.tensor_pieces(self._initial, self.perfect_recall))
        self.observation_size = sum(size for _, size in self.observation_pieces)
        self.observation_divisors = view.tensor_divisors(self._initial, self.perfect_recall)
        self.observation_dtype = np.dtype(DTYPES[dtype])
        if dtype == "compact" and self.observation_divisors.max() > MAX_COMPACT_DIVISOR:
            raise ValueError(f"dtype 'compact' holds counts up to 2 * {MAX_COMPACT_DIVISOR}; these "
                             f"parameters divide by up to {self.observation_divisors.max():.0f}: use "
                             "dtype 'float32'")
        self.open_seats = self._open_seats(seats)
        self._house_agents = self._house(opponents)
        self._allowed = agent_kinds(self._house_agents.kinds)
        self._arrays()
        self._closed = False
        self._started = False
        self._stepped = False  # until the first step returns, a call may compile the batch's kernels
        self._compile_noticed = False

    # -- construction ---------------------------------------------------------------
    def _open_seats(self, seats: Iterable[int] | None) -> tuple[int, ...]:
        players = self.num_players
        if seats is None:
            return tuple(range(players))
        chosen = []
        for seat in seats:
            if isinstance(seat, bool) or not isinstance(seat, int | np.integer) or not 0 <= seat < players:
                raise ValueError(f"seats must be seats 0..{players - 1} of {self.spec.name}, got {seat!r}")
            chosen.append(int(seat))
        if not chosen or len(set(chosen)) != len(chosen):
            raise ValueError(f"seats must name at least one seat, each once, got {list(chosen)}")
        return tuple(sorted(chosen))

    def _house(self, opponents: Any) -> batch.House:
        house = [seat for seat in range(self.num_players) if seat not in self.open_seats]
        agents = np.full(self.num_players, -1, dtype=np.int64)
        if not house:
            return batch.House(agents, *native_tables([], self.game))
        specs = _house_specs(opponents, house)
        for seat, spec in specs.items():
            if not is_native(spec, self.game):
                raise ValueError(f"opponent {spec.text()!r} of seat {seat} is not a native agent with these "
                                 "options: the house plays inside numba (random, rules, ismcts, pimc, net, "
                                 "cfr-bidding, without time limits)")
        try:
            kinds, options, policies = native_tables(list(specs.values()), self.game)
        except AgentSpecError as error:
            raise ValueError(str(error)) from None
        for index, seat in enumerate(specs):
            agents[seat] = index
        return batch.House(agents, kinds, options, policies)

    def _arrays(self) -> None:
        n, players = self.num_envs, self.num_players
        self._envs = batch.Envs(
            states=np.tile(self._initial, (n, 1)), deal_streams=np.zeros((n, 1), dtype=np.uint64),
            seat_streams=np.zeros((n, players, 1), dtype=np.uint64),
            env_seeds=batch.env_seeds(np.uint64(self.seed), np.uint64(self.first_env), n),
            episodes=np.zeros(n, dtype=np.int64), steps=np.zeros(n, dtype=np.int64),
            skipped=np.zeros(n, dtype=np.int64),
            legal_bits=np.zeros((n, (self.num_actions + 63) // 64), dtype=np.uint64))
        self._players = np.zeros(n, dtype=np.int64)
        self._final_observations = np.zeros((n, self.observation_size), dtype=self.observation_dtype)
        self._final_players = np.full(n, -1, dtype=np.int64)
        self._final_states = np.zeros_like(self._envs.states)
        self._status = np.zeros(4, dtype=np.int64)
        self._scratch = batch.new_scratch()

    # -- the API ----------------------------------------------------------------------
    def reset(self, seed: int | None = None, envs: Iterable[int] | np.ndarray | None = None) -> Step:
        """Start new games and return what every environment shows.

        With no ``envs``, every environment starts again at its episode 0 (with
        ``seed``, under a new seed). With ``envs`` (indices, or a boolean mask),
        those environments abandon their game for their next episode and the
        others keep theirs: how a wrapper ends a game the learner forfeited.
        """
        self._check_open()
        if seed is not None and envs is not None:
            raise ValueError("reset takes a new seed for all envs, or envs to restart, not both")
        if envs is None:
            if seed is not None:
                self.seed = _count("seed", seed, 0, MAX_SEED)
                self._envs.env_seeds[:] = batch.env_seeds(np.uint64(self.seed), np.uint64(self.first_env),
                                                          self.num_envs)
            self._envs.episodes[:] = 0
            self._envs.skipped[:] = 0
            restart = np.ones(self.num_envs, dtype=bool)
        else:
            if not self._started:
                raise RuntimeError("reset(envs=...) restarts running games: call reset() first")
            restart = self._env_mask(envs)
            self._envs.episodes[restart] += 1
        out = self._new_outputs()
        self._status[:] = 0
        with self._compiling():
            batch.reset_envs(self.spec.kernel_id, self._allowed, self.perfect_recall, self._initial,
                             self._envs, self._house_agents, restart, out, self._status, self._scratch)
        self._raise_status()
        self._started = True
        return self._step_of(out, ended=np.zeros(0, dtype=np.int64))

    def step(self, actions: np.ndarray | Sequence[int]) -> Step:
        """Apply ``actions[i]`` in environment ``i``, for every ``i``; see :class:`Step`.

        ``actions`` is an integer array of shape ``(num_envs,)``. An illegal
        action raises ``ValueError`` naming the environment, the action and
        the legal ones, and leaves every environment as it was.
        """
        self._check_open()
        if not self._started:
            raise RuntimeError("step before reset: call reset() first")
        actions = self._checked_actions(actions)
        self._status[:] = 0
        if not batch.check_actions(self._envs.legal_bits, actions, self._status):
            env = int(self._status[1])
            state = self.state(env)
            legal = state.legal_actions()
            shown = ", ".join(f"{a} ({state.action_to_string(a)})" for a in legal[:12])
            raise ValueError(f"env {env}: action {int(actions[env])} is not legal for player "
                             f"{int(self._players[env])}; legal: {shown}{' ...' if len(legal) > 12 else ''}")
        out = self._new_outputs()
        with self._compiling():
            batch.step_envs(self.spec.kernel_id, self._allowed, self.perfect_recall, actions, self._initial,
                            self._envs, self._house_agents, self.max_steps, out, self._status, self._scratch)
        self._stepped = True
        self._raise_status()
        return self._step_of(out, ended=np.flatnonzero(out.terminated | out.truncated))

    def close(self) -> None:
        """Free the batch's arrays; any later call raises."""
        self._closed = True
        self._envs = self._final_observations = self._final_states = None

    # -- what tests, wrappers and users read --------------------------------------------
    def state(self, env: int) -> pyspiel.State:
        """Environment ``env``'s game as an OpenSpiel state (a copy: its history is not kept)."""
        self._check_open()
        env = _count("env", env, 0, self.num_envs - 1)
        return self.game.state_class(self.game, self._envs.states[env].copy())

    def deal_seed(self, env: int, episode: int) -> int:
        """The seed that deals episode ``episode`` of environment ``env`` (see :mod:`cardlab.rl.batch`)."""
        env = _count("env", env, 0, self.num_envs - 1)
        episode = _count("episode", episode, 0, 2**63 - 1)
        return int(batch.deal_seed(self._envs.env_seeds[env], np.int64(episode)))

    @property
    def states(self) -> np.ndarray:
        """The engine state of every environment, one row each (a read-only view: the batch's own)."""
        self._check_open()
        view = self._envs.states.view()
        view.flags.writeable = False
        return view

    @property
    def episodes(self) -> np.ndarray:
        """How many episodes each environment has finished (a copy)."""
        return self._envs.episodes.copy()

    @property
    def state_bytes(self) -> int:
        """The memory the batch's game state takes (states, random streams, counters)."""
        return sum(array.nbytes for array in self._envs) + self._players.nbytes

    # -- helpers ----------------------------------------------------------------------
    def _new_outputs(self) -> batch.Outputs:
        """Fresh arrays for what a step shows (the caller may keep them), and the batch's own buffers."""
        n, players = self.num_envs, self.num_players
        return batch.Outputs(
            observations=np.empty((n, self.observation_size), dtype=self.observation_dtype),
            masks=np.empty((n, self.num_actions), dtype=bool), players=self._players,
            rewards=np.zeros((n, players), dtype=np.float64), terminated=np.zeros(n, dtype=bool),
            truncated=np.zeros(n, dtype=bool), final_observations=self._final_observations,
            final_players=self._final_players, final_states=self._final_states)

    def _step_of(self, out: batch.Outputs, ended: np.ndarray) -> Step:
        info = {"episodes": self._envs.episodes.copy(), "skipped_episodes": self._envs.skipped.copy(),
                "final_env": ended, "final_observation": self._final_observations[ended],
                "final_player": self._final_players[ended], "final_state": self._final_states[ended]}
        return Step(out.observations, out.masks, self._players.copy(), out.rewards, out.terminated,
                    out.truncated, info)

    def _env_mask(self, envs: Any) -> np.ndarray:
        array = np.asarray(envs)
        if array.dtype == bool:
            if array.shape != (self.num_envs,):
                raise ValueError(f"an env mask must have shape ({self.num_envs},), got {array.shape}")
            return array.copy()
        if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer) \
                or (array.size and (array.min() < 0 or array.max() >= self.num_envs)):
            raise ValueError(f"envs must be env indices 0..{self.num_envs - 1} or a boolean mask, "
                             f"got {envs!r}")
        mask = np.zeros(self.num_envs, dtype=bool)
        mask[array] = True
        return mask

    def _compiling(self) -> AbstractContextManager[None]:
        """The first reset and step may compile the batch's kernels (once, then from the disk cache):
        one line on standard error says so, never two."""
        if self._stepped:
            return nullcontext()

        def say(line: str) -> None:
            if not self._compile_noticed:
                self._compile_noticed = True
                print(line, file=sys.stderr, flush=True)
        name = self.spec.aliases[0]
        return compiling.announce(f"{self.spec.title} RL environment kernels", compiling.estimate("rl", name),
                                  write=say)

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this environment batch is closed")

    def _checked_actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per env, got {array.shape}")
        if array.dtype == bool or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"actions must be integers (action ids), got dtype {array.dtype}")
        bad = np.flatnonzero((array < 0) | (array >= self.num_actions))
        if bad.size:
            env = int(bad[0])
            raise ValueError(f"env {env}: action {int(array[env])} is not an action id of "
                             f"{self.spec.name} (0..{self.num_actions - 1})")
        return np.ascontiguousarray(array, dtype=np.int64)

    def _raise_status(self) -> None:
        code, env, seat, action = (int(x) for x in self._status)
        if code == batch.HOUSE_ILLEGAL:
            raise RuntimeError(f"env {env}: the house agent of seat {seat} chose illegal action {action}")

    def __repr__(self) -> str:
        return (f"VectorEnv({self.spec.name!r}, num_envs={self.num_envs}, seats={list(self.open_seats)}, "
                f"observation={self.observation_kind!r}, dtype={self.observation_dtype.name})")


def _count(name: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int in ``low..high``, else a ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    return int(value)


def make(game: str, num_envs: int = 1, seed: int = 0, params: Mapping[str, Any] | None = None,
         seats: Iterable[int] | None = None, opponents: Opponents = "rules",
         observation: str = "observation", dtype: str = "float32", max_steps: int = 0,
         first_env: int = 0) -> VectorEnv:
    """A batch of ``num_envs`` games of ``game``, stepped together: see :class:`VectorEnv`."""
    return VectorEnv(game, num_envs, seed, params, seats, opponents, observation, dtype, max_steps, first_env)
