"""A batch of games stepped together inside numba: the kernels behind :class:`cardlab.rl.VectorEnv`.

Every environment of a batch is one engine state (a row of ``states``). The
caller plays the *open* seats; everything else moves inside the kernel
before it returns: chance deals the cards, and the *house* seats are played
by native agents (:mod:`cardlab.arena.native`), so a learner against fixed
opponents never leaves compiled code between two of its decisions.

Seeding, so that an environment's games depend on nothing but the seed, its
number and the caller's actions (never on the batch it is stepped in):

- environment ``e`` (counting from the batch's ``first_env``) has the seed
  ``derive_seed(seed, e)``, and its episode ``k`` the deal seed
  ``derive_seed(derive_seed(seed, e), k)``;
- chance draws ``legal[random_below(stream, n)]`` from ``make_stream(deal_seed)``
  (:func:`cardlab.games.kernels.random_action`, the same draw without listing ``legal``),
  and the house agent at ``seat`` from ``make_stream(agent_seed(deal_seed, 0,
  seat, players))``: the compiled arena's seeding of seating 0, so a house
  seat plays as the same agent does in a tournament.

Kernels trust their input: :class:`cardlab.rl.VectorEnv` checks it first. They
work on owner-less views of the batch's arrays (:func:`borrow`): numba's reference
counts on every array passed to every engine call, house agent and encoder were a
third of a step's time. While one env is stepped, the next one's rows are fetched
(:func:`fetch_ahead`): a batch's states outgrow the core's cache, and waiting for them
was a quarter of a step against house agents.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from cardlab.arena.native import seat_action, start_deal
from cardlab.core.borrowed import borrowed, prefetch
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER
from cardlab.core.layout import copy_state
from cardlab.core.rng import derive_seed
from cardlab.games import kernels


class Envs(NamedTuple):
    """The state of a batch, one row per environment."""

    states: np.ndarray  # int64 [N, state size]: the engine states
    deal_streams: np.ndarray  # uint64 [N, 1]: chance's stream of the current episode
    seat_streams: np.ndarray  # uint64 [N, players, 1]: each house seat's stream
    env_seeds: np.ndarray  # uint64 [N]
    episodes: np.ndarray  # int64 [N]: the current episode's number
    steps: np.ndarray  # int64 [N]: the caller's decisions in the current episode
    skipped: np.ndarray  # int64 [N]: episodes that ended before the caller had a decision
    legal_bits: np.ndarray  # uint64 [N, ceil(actions / 64)]: the legal actions of the current decision


class House(NamedTuple):
    """The native agents playing the seats the caller does not (:mod:`cardlab.arena.native`)."""

    agents: np.ndarray  # int64 [players]: the agent of each seat (an index below), -1 for an open seat
    kinds: np.ndarray  # int64 [agents]
    options: np.ndarray  # float64 [agents, row width]
    policies: tuple  # the agents' policy tables (cfr-bidding)


class Scratch(NamedTuple):
    """Room a kernel writes in and forgets, allocated once per batch."""

    legal: np.ndarray  # int64 [MAX_LEGAL_ACTIONS]: the legal actions of one state
    agent: np.ndarray  # int64 [MAX_LEGAL_ACTIONS]: a house agent's own scratch


def new_scratch() -> Scratch:
    return Scratch(np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64),
                   np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64))


class Outputs(NamedTuple):
    """What a step shows, one row per environment (see :class:`cardlab.rl.Step`)."""

    observations: np.ndarray  # [N, D], float32 or int16
    masks: np.ndarray  # bool [N, actions]
    players: np.ndarray  # int64 [N]
    rewards: np.ndarray  # float64 [N, players]
    terminated: np.ndarray  # bool [N]
    truncated: np.ndarray  # bool [N]
    final_observations: np.ndarray  # [N, D]
    final_players: np.ndarray  # int64 [N]
    final_states: np.ndarray  # int64 [N, state size]


CACHE_LINE = 64  # bytes

#: ``status[0]`` after a kernel: all went well, or what went wrong (``status[1:]``: env, seat, action).
OK = 0
ILLEGAL_ACTION = 1  # the caller's action in env ``status[1]`` is not legal
HOUSE_ILLEGAL = 2  # a house agent chose an illegal action (a bug in the agent)


@njit(cache=True, inline="always")
def borrow(envs, house, out, scratch):
    """Owner-less views (:mod:`cardlab.core.borrowed`) of every array a kernel call passes on.

    The caller's references keep the arrays alive for the call, and no view
    outlives it: the engines, encoders and house agents then skip numba's
    atomic reference counts on each of them.
    """
    envs = Envs(borrowed(envs.states), borrowed(envs.deal_streams), borrowed(envs.seat_streams),
                borrowed(envs.env_seeds), borrowed(envs.episodes), borrowed(envs.steps),
                borrowed(envs.skipped), borrowed(envs.legal_bits))
    policies = house.policies
    house = House(borrowed(house.agents), borrowed(house.kinds), borrowed(house.options),
                  (borrowed(policies[0]), borrowed(policies[1]), borrowed(policies[2]),
                   borrowed(policies[3]), borrowed(policies[4]), borrowed(policies[5])))
    out = Outputs(borrowed(out.observations), borrowed(out.masks), borrowed(out.players),
                  borrowed(out.rewards), borrowed(out.terminated), borrowed(out.truncated),
                  borrowed(out.final_observations), borrowed(out.final_players),
                  borrowed(out.final_states))
    return envs, house, out, borrowed(scratch.legal), borrowed(scratch.agent)


@njit(cache=True, inline="always")
def fetch_ahead(envs, out, i):
    """Start fetching env ``i``'s state and observation rows into the cache (:func:`prefetch`)."""
    state = envs.states[i]
    for slot in range(0, state.shape[0], CACHE_LINE // state.itemsize):
        prefetch(state, slot)
    observation = out.observations[i]
    for entry in range(0, observation.shape[0], CACHE_LINE // observation.itemsize):
        prefetch(observation, entry)


@njit(cache=True)
def env_seeds(seed, first_env, count):
    """The seeds of environments ``first_env .. first_env + count - 1``: ``derive_seed(seed, env)``."""
    out = np.empty(count, dtype=np.uint64)
    for i in range(count):
        out[i] = derive_seed(np.uint64(seed), np.uint64(first_env + i))
    return out


@njit(cache=True)
def deal_seed(env_seed, episode):
    """The seed of episode ``episode`` of the environment whose seed is ``env_seed``."""
    return derive_seed(env_seed, episode)


@njit(cache=True, inline="always")
def start_episode(initial, s, deal_stream, seat_streams, env_seed, episode):
    """Set ``s`` to the start of a new game and seed its chance and house streams."""
    start_deal(s, initial, deal_stream, seat_streams, deal_seed(env_seed, episode), 0)


@njit(cache=True, inline="always")
def play_house(game, allowed, s, deal_stream, seat_streams, house, legal, scratch, status):
    """Deal and play the house's seats until an open seat must decide or the game ends.

    ``house.agents[seat]`` is the agent playing ``seat``, or -1 for a seat the
    caller plays. Returns ``(player, n)``: the
    open seat to move with its ``n`` legal actions in ``legal``, or
    ``(TERMINAL_PLAYER, 0)``. A house agent's illegal action is written to
    ``status`` and returns ``(TERMINAL_PLAYER, -1)``.
    """
    while True:
        player = kernels.current_player(game, s)
        if player == TERMINAL_PLAYER:
            return player, 0
        if player == CHANCE_PLAYER:  # legal[random_below(deal_stream, n)], without listing them
            action = kernels.random_action(game, s, deal_stream, legal)
        elif house.agents[player] < 0:
            return player, kernels.legal_actions(game, s, legal)
        else:
            n = kernels.legal_actions(game, s, legal)
            action = seat_action(game, allowed, house.agents[player], house.kinds, house.options,
                                 house.policies, s, seat_streams[player], scratch)
            legal_choice = False
            for i in range(n):
                legal_choice = legal_choice or legal[i] == action
            if not legal_choice:
                status[0] = HOUSE_ILLEGAL
                status[2] = player
                status[3] = action
                return TERMINAL_PLAYER, -1
        kernels.apply_action(game, s, action)


@njit(cache=True, inline="always")
def observe(game, s, player, n, legal, perfect_recall, observation, mask, legal_bits):
    """Write what ``player``, to move, sees of ``s`` and the mask of its ``n`` legal actions.

    The legal actions are also kept as bits, the batch's own record that
    :func:`check_actions` reads (the mask belongs to the caller, who may change it).
    """
    kernels.encode(game, s, player, perfect_recall, observation)
    for action in range(mask.shape[0]):
        mask[action] = False
    for word in range(legal_bits.shape[0]):
        legal_bits[word] = 0
    for i in range(n):
        mask[legal[i]] = True
        legal_bits[legal[i] >> 6] |= np.uint64(1) << np.uint64(legal[i] & 63)


@njit(cache=True, inline="always")
def begin(game, allowed, i, initial, envs, house, legal, scratch, status):
    """Start env ``i``'s current episode and play up to the first decision of an open seat.

    An episode that ends before any open seat decides (every seat of the house,
    or a hand thrown in before the caller speaks) is counted in ``envs.skipped``
    and the next one starts. Returns ``(player, n)`` as :func:`play_house`.
    """
    while True:
        start_episode(initial, envs.states[i], envs.deal_streams[i], envs.seat_streams[i], envs.env_seeds[i],
                      envs.episodes[i])
        player, n = play_house(game, allowed, envs.states[i], envs.deal_streams[i], envs.seat_streams[i],
                               house, legal, scratch, status)
        if player != TERMINAL_PLAYER or n < 0:
            return player, n
        envs.skipped[i] += 1
        envs.episodes[i] += 1


@njit(cache=True)
def reset_envs(game, allowed, perfect_recall, initial, envs, house, restart, out, status, scratch):
    """Start episode ``envs.episodes[i]`` of every env with ``restart[i]``; write every env's observation.

    An env not restarted keeps its game; its observation is written again.
    """
    envs, house, out, legal, scratch = borrow(envs, house, out, scratch)
    initial = borrowed(initial)
    for i in range(envs.states.shape[0]):
        if restart[i]:
            envs.steps[i] = 0
            player, n = begin(game, allowed, i, initial, envs, house, legal, scratch, status)
            if n < 0:
                status[1] = i
                return
        else:
            player = kernels.current_player(game, envs.states[i])
            n = kernels.legal_actions(game, envs.states[i], legal)
        out.players[i] = player
        observe(game, envs.states[i], player, n, legal, perfect_recall, out.observations[i], out.masks[i],
                envs.legal_bits[i])


@njit(cache=True)
def check_actions(legal_bits, actions, status):
    """Is every ``actions[i]`` (an action id) legal in env ``i``? The first that is not goes to ``status``."""
    for i in range(actions.shape[0]):
        action = actions[i]
        if not (legal_bits[i, action >> 6] >> np.uint64(action & 63)) & np.uint64(1):
            status[0] = ILLEGAL_ACTION
            status[1] = i
            status[3] = action
            return False
    return True


@njit(cache=True)
def step_envs(game, allowed, perfect_recall, actions, initial, envs, house, max_steps, out, status, scratch):
    """Apply ``actions[i]`` in every env, play on to the next open decision, and write what it shows.

    The actions must be legal (:func:`check_actions`). An env whose game ended
    gets its returns in ``out.rewards[i]`` and ``out.terminated[i]``; one that
    reached ``max_steps`` decisions of the caller (0: no limit) gets
    ``out.truncated[i]``. Either way the final observation of the player who
    moved last goes to ``out.final_observations[i]`` (``out.final_players[i]``),
    the final state to ``out.final_states[i]``, and the env starts its next
    episode: the other outputs are then that episode's first decision.
    ``out.players`` holds the players who take ``actions`` on entry.
    """
    envs, house, out, legal, scratch = borrow(envs, house, out, scratch)
    initial, actions = borrowed(initial), borrowed(actions)
    for i in range(envs.states.shape[0]):
        if i + 1 < envs.states.shape[0]:
            fetch_ahead(envs, out, i + 1)
        s = envs.states[i]
        mover = out.players[i]
        kernels.apply_action(game, s, actions[i])
        envs.steps[i] += 1
        player, n = play_house(game, allowed, s, envs.deal_streams[i], envs.seat_streams[i], house, legal,
                               scratch, status)
        if n < 0:
            status[1] = i
            return
        for seat in range(out.rewards.shape[1]):
            out.rewards[i, seat] = 0.0
        ended = player == TERMINAL_PLAYER
        cut = not ended and max_steps > 0 and envs.steps[i] >= max_steps
        out.terminated[i] = ended
        out.truncated[i] = cut
        out.final_players[i] = -1
        if ended or cut:
            if ended:
                kernels.returns(game, s, out.rewards[i])
            out.final_players[i] = mover
            kernels.encode(game, s, mover, perfect_recall, out.final_observations[i])
            copy_state(out.final_states[i], s)
            envs.episodes[i] += 1
            envs.steps[i] = 0
            player, n = begin(game, allowed, i, initial, envs, house, legal, scratch, status)
            if n < 0:
                status[1] = i
                return
        out.players[i] = player
        observe(game, s, player, n, legal, perfect_recall, out.observations[i], out.masks[i],
                envs.legal_bits[i])
