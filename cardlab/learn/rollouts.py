"""Experience from batches of games (:mod:`cardlab.rl`): decisions, the games' ends, and their targets.

A :class:`Collector` steps one or several :class:`~cardlab.rl.VectorEnv`
batches together: in self-play one batch where the learner holds every
seat; against a house agent (``rules``, or any native agent) one batch per
side of the table, the learner on that side and the house on the others, so
the learner plays every side equally. Observations are kept as the compact
int16 counts (half the memory of float32) and divided by the tensor's
divisors when a network reads them, which gives the float32 tensor bit for bit.

Every decision is a row of a :class:`Transitions` buffer, in the order
played. When an environment's game ends, every decision of that game is
complete: :func:`episode_targets` gives each its advantage and return by
generalized advantage estimation along the decisions of the *same seat*
(undiscounted: every game ends; the reward is the seat's return at the end,
over the game's utility scale). Decisions of games still running stay in the
buffer for the next round (:meth:`Transitions.keep`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyspiel
from numba import njit

import cardlab.rl as rl
from cardlab.arena.entrants import AgentSpec, native_tables, parse_agent
from cardlab.arena.native import agent_kinds, seat_action
from cardlab.core.rng import derive_seed, make_stream
from cardlab.games import game_spec, kernels, seat_sides


@dataclass
class Transitions:
    """Decisions in the order played, one row each, with room for ``capacity`` of them."""

    observations: np.ndarray  # int16 [capacity, inputs]: compact observation counts
    masks: np.ndarray  # bool [capacity, actions]
    actions: np.ndarray  # int64
    log_probabilities: np.ndarray  # float32: of the action, under the policy that chose it
    values: np.ndarray  # float32: the value head's estimate when it was chosen
    envs: np.ndarray  # int64: the environment (numbered across the collector's batches)
    players: np.ndarray  # int64: the seat that decided
    ends: np.ndarray  # bool: the game ended after this decision
    rewards: np.ndarray  # float32 [capacity, players]: the scaled returns, where ``ends``
    size: int = 0

    @classmethod
    def empty(cls, capacity: int, inputs: int, actions: int, players: int) -> Transitions:
        return cls(np.zeros((capacity, inputs), dtype=np.int16), np.zeros((capacity, actions), dtype=bool),
                   np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.float32),
                   np.zeros(capacity, dtype=np.float32), np.zeros(capacity, dtype=np.int64),
                   np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=bool),
                   np.zeros((capacity, players), dtype=np.float32))

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (self.observations, self.masks, self.actions, self.log_probabilities, self.values, self.envs,
                self.players, self.ends, self.rewards)

    def grow(self, needed: int) -> None:
        """Make room for ``needed`` rows in all (doubling), keeping the rows held."""
        capacity = self.actions.shape[0]
        if needed <= capacity:
            return
        bigger = max(needed, 2 * capacity)
        for name, array in zip(_FIELDS, self.arrays(), strict=True):
            grown = np.zeros((bigger, *array.shape[1:]), dtype=array.dtype)
            grown[:self.size] = array[:self.size]
            setattr(self, name, grown)

    def take(self, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """Copies of the rows ``rows`` of every array."""
        return tuple(array[rows] for array in self.arrays())

    def keep(self, rows: np.ndarray) -> None:
        """Keep only the rows ``rows`` (ascending), moved to the front."""
        for array in self.arrays():
            array[:len(rows)] = array[rows]
        self.size = len(rows)

    def clear(self) -> None:
        self.size = 0


_FIELDS = ("observations", "masks", "actions", "log_probabilities", "values", "envs", "players", "ends",
           "rewards")


@njit(cache=True)
def episode_targets(envs, players, values, ends, rewards, num_envs, num_players, trace, advantages, returns,
                    finished):
    """Advantages and returns of the decisions of finished games (``finished``), by GAE(``trace``).

    Rows are decisions in the order played. Walking back from the last, a row
    with ``ends`` opens its environment's finished game with that row's
    rewards; each seat's decisions in it form a chain: the last one's TD error
    is its reward minus its value, the others' the next decision's value minus
    theirs (no discount, no reward before the end), and each advantage is the
    ``trace``-weighted sum of the TD errors from there on. Rows of an
    environment after its last ``ends`` belong to a game still running: not finished.
    """
    open_game = np.zeros(num_envs, dtype=np.bool_)
    final = np.zeros((num_envs, num_players), dtype=np.float32)
    seen = np.zeros((num_envs, num_players), dtype=np.bool_)
    next_value = np.zeros((num_envs, num_players), dtype=np.float32)
    running = np.zeros((num_envs, num_players), dtype=np.float32)
    for t in range(envs.shape[0] - 1, -1, -1):
        e, p = envs[t], players[t]
        if ends[t]:
            open_game[e] = True
            for seat in range(num_players):
                final[e, seat] = rewards[t, seat]
                seen[e, seat] = False
        finished[t] = open_game[e]
        if not open_game[e]:
            continue
        if seen[e, p]:
            running[e, p] = next_value[e, p] - values[t] + trace * running[e, p]
        else:
            running[e, p] = final[e, p] - values[t]
            seen[e, p] = True
        next_value[e, p] = values[t]
        advantages[t] = running[e, p]
        returns[t] = running[e, p] + values[t]


@njit(cache=True)
def fill_absolute_actions(game, s, out):
    """``out[player, action]``: the game's id of ``action`` named in ``player``'s own frame."""
    for player in range(out.shape[0]):
        for action in range(out.shape[1]):
            out[player, action] = kernels.absolute_action(game, s, player, action)


@njit(cache=True)
def teacher_actions(game, allowed, kinds, options, policies, states, streams, out):
    """What native agent 0 of the tables would play for the player to move in each of ``states``."""
    scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = seat_action(game, allowed, 0, kinds, options, policies, states[i], streams[i], scratch)


class Teacher:
    """A native agent asked for its move in every environment of a batch (imitation's labels)."""

    def __init__(self, spec: str, game: pyspiel.Game, num_envs: int, seed: int):
        name, options = parse_agent(spec)
        self.kinds, self.options, self.policies = native_tables([AgentSpec(name, name, options)], game)
        self.allowed = agent_kinds(self.kinds)
        self.kernel_id = game_spec(game.get_type().short_name).kernel_id
        self.streams = np.stack([make_stream(int(derive_seed(seed, env))) for env in range(num_envs)])

    def actions(self, states: np.ndarray) -> np.ndarray:
        out = np.empty(states.shape[0], dtype=np.int64)
        teacher_actions(self.kernel_id, self.allowed, self.kinds, self.options, self.policies, states,
                        self.streams, out)
        return out


class Collector:
    """The learner's decisions in ``num_envs`` games at once: self-play (``opponents`` None) or one
    batch per side of the table against the native agent ``opponents``.

    It speaks the network's ``action_frame``: with ``mover`` (every model trained
    now) the legal masks it gives and the actions it takes name seats counted from
    the player to move, as that player's observation does; the environments get
    the game's action ids.
    """

    def __init__(self, game: pyspiel.Game, num_envs: int, seed: int, opponents: str | None = None,
                 action_frame: str = "mover"):
        self.game = game
        name = game.get_type().short_name
        parameters = {key: value for key, value in game.get_parameters().items()}
        if opponents is None:
            self.batches = [rl.make(name, num_envs, seed, parameters, dtype="compact")]
        else:
            sides = seat_sides(game)
            count = max(sides) + 1
            if num_envs < count:
                raise ValueError(f"num_envs must be at least {count} (one batch per side), got {num_envs}")
            share = num_envs // count
            self.batches = [
                rl.make(name, share, seed, parameters, dtype="compact", opponents=opponents,
                        seats=[seat for seat in range(len(sides)) if sides[seat] == side],
                        first_env=side * share)
                for side in range(count)]
        first = self.batches[0]
        self.num_envs = sum(batch.num_envs for batch in self.batches)
        self.num_players = first.num_players
        self.inputs, self.num_actions = first.observation_size, first.num_actions
        self.divisors = first.observation_divisors
        self.utility_scale = float(kernels.utility_scale(game_spec(name).kernel_id,
                                                         game.new_initial_state().array))
        self._offsets = np.cumsum([0] + [batch.num_envs for batch in self.batches])
        self._steps: list = []
        # to_absolute[player, action]: the game's id of an action the network names in player's frame
        self.to_absolute = np.tile(np.arange(self.num_actions, dtype=np.int64), (self.num_players, 1))
        if action_frame == "mover":
            fill_absolute_actions(game_spec(name).kernel_id, game.new_initial_state().array, self.to_absolute)
        self.to_mover = np.argsort(self.to_absolute, axis=1)

    def reset(self, seed: int) -> None:
        """Start every environment's game again under ``seed``."""
        self._steps = [batch.reset(seed=seed) for batch in self.batches]

    def players(self) -> np.ndarray:
        """The player to move in every environment."""
        return np.concatenate([s.current_player for s in self._steps])

    def observation(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The current decisions: compact observations, legal masks (in the network's frame) and the
        players to move."""
        steps, players = self._steps, self.players()
        masks = np.concatenate([s.legal_mask for s in steps])
        return (np.concatenate([s.observation for s in steps]),
                np.take_along_axis(masks, self.to_absolute[players], axis=1), players)

    def framed(self, actions: np.ndarray) -> np.ndarray:
        """The game's action ids ``actions`` (a native teacher's) in the network's frame."""
        return self.to_mover[self.players(), actions]

    def states(self) -> np.ndarray:
        """A copy of every environment's engine state (for a teacher's kernel)."""
        return np.concatenate([batch.states for batch in self.batches])

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play ``actions`` (in the network's frame); returns which games ended and every seat's
        scaled return in them."""
        actions = self.to_absolute[self.players(), actions]
        self._steps = [batch.step(actions[low:high])
                       for batch, low, high in zip(self.batches, self._offsets[:-1], self._offsets[1:],
                                                   strict=True)]
        ended = np.concatenate([s.terminated for s in self._steps])
        rewards = np.concatenate([s.rewards for s in self._steps]) / self.utility_scale
        return ended, rewards.astype(np.float32)

    def floats(self, observations: np.ndarray) -> np.ndarray:
        """The float32 tensors of compact observations (bit for bit the encoder's)."""
        return (observations / self.divisors).astype(np.float32)

    def close(self) -> None:
        for batch in self.batches:
            batch.close()
