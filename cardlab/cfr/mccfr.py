"""Monte Carlo CFR that never builds the tree: external and outcome sampling over the engine kernels.

Each iteration walks sampled parts of the game straight through the numba
kernels of :mod:`cardlab.games.kernels`, keeping every player's
information-state key up to date step by step (:mod:`cardlab.core.infostate`),
and finds each information set's regrets and average-policy sums in a numba
hash table keyed by that key. Nothing is enumerated up front, so the game
may be far larger than any tree that fits in memory: only the information
sets that sampling reaches take room.

* **External sampling** (Lanctot et al. 2009): for each player in turn, all
  of its own actions are explored, chance and the others are sampled; the
  average policy sums the current policy at the others' sampled nodes.
* **Outcome sampling**: one trajectory per player update, the updating
  player exploring with probability ``exploration``; regrets and the
  average policy (summed at the updating player's own nodes) are
  importance-weighted as in OpenSpiel's ``outcome_sampling_mccfr``.

The traversals recurse, and numba cannot cache recursive functions safely
(a cached copy crashes when loaded), so they compile once per process.

Runs are deterministic given the seed; :meth:`MCCFRSolver.state_arrays`
and :meth:`MCCFRSolver.restore` carry a run (table, random stream,
iteration) across a checkpoint bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel
from numba import njit, types
from numba.typed import Dict

from cardlab.cfr.policy import PolicyTable, game_identity
from cardlab.cfr.regret_matching import matched_policy
from cardlab.cfr.solvers import SAMPLERS
from cardlab.cfr.tree import CHANCE, TERMINAL, GameTree
from cardlab.core import infostate
from cardlab.core.rng import make_stream, random_below, random_unit
from cardlab.games import game_spec, kernels

#: Default room for information-set actions in the table (three float/int arrays of this size).
CAPACITY = 1 << 22
MAX_DEPTH = 512


@njit(cache=True)
def _slot(index, offset, count, actions, used, key, legal, n):
    """The first table entry of the information set ``key`` (added on first sight with ``legal``)."""
    if key in index:
        return index[key]
    start = used[0]
    if start + n > len(actions):
        raise ValueError("the MCCFR table is full: give the solver a larger capacity")
    index[key] = start
    offset[start] = start
    count[start] = n
    for k in range(n):
        actions[start + k] = legal[k]
    used[0] = start + n
    return start


@njit(cache=True)
def _sample(weights, n, stream):
    x = random_unit(stream)
    for k in range(n - 1):
        x -= weights[k]
        if x < 0:
            return k
    return n - 1


@njit(cache=True)
def _child(game, s, keys, action, num_players):
    """The state after ``action`` and every player's key after observing it."""
    child_keys = np.empty(num_players, dtype=np.uint64)
    for q in range(num_players):
        child_keys[q] = infostate.update_key(keys[q],
                                             kernels.observation_token(game, s, action, q))
    child = s.copy()
    kernels.apply_action(game, child, action)
    return child, child_keys


@njit  # recursive: numba's cache would load it broken (segfault)
def _external(game, s, keys, player, table, stream, legal, depth, returns):
    """External-sampling traversal updating ``player``; returns its sampled value of ``s``."""
    index, offset, count, actions, used, regrets, cumulative = table
    mover = kernels.current_player(game, s)
    num_players = len(keys)
    if mover == TERMINAL:
        kernels.returns(game, s, returns)
        return returns[player]
    if depth + 1 >= len(legal):
        raise ValueError("MCCFR walk deeper than MAX_DEPTH")
    n = kernels.legal_actions(game, s, legal[depth])
    if mover == CHANCE:
        child, child_keys = _child(game, s, keys, legal[depth, random_below(stream, n)],
                                   num_players)
        return _external(game, child, child_keys, player, table, stream, legal, depth + 1,
                         returns)
    start = _slot(index, offset, count, actions, used, keys[mover], legal[depth], n)
    policy = np.empty(n)
    matched_policy(regrets, start, n, policy, 0)
    if mover != player:
        for k in range(n):
            cumulative[start + k] += policy[k]
        child, child_keys = _child(game, s, keys, legal[depth, _sample(policy, n, stream)],
                                   num_players)
        return _external(game, child, child_keys, player, table, stream, legal, depth + 1,
                         returns)
    values = np.empty(n)
    value = 0.0
    for k in range(n):
        child, child_keys = _child(game, s, keys, legal[depth, k], num_players)
        values[k] = _external(game, child, child_keys, player, table, stream, legal, depth + 1,
                              returns)
        value += policy[k] * values[k]
    for k in range(n):
        regrets[start + k] += values[k] - value
    return value


@njit  # recursive: numba's cache would load it broken (segfault)
def _outcome(game, s, keys, player, table, stream, legal, depth, returns, own_reach, others_reach,
             sample_reach, exploration):
    """Outcome-sampling episode updating ``player``; returns its importance-weighted value of ``s``."""
    index, offset, count, actions, used, regrets, cumulative = table
    mover = kernels.current_player(game, s)
    num_players = len(keys)
    if mover == TERMINAL:
        kernels.returns(game, s, returns)
        return returns[player]
    if depth + 1 >= len(legal):
        raise ValueError("MCCFR walk deeper than MAX_DEPTH")
    n = kernels.legal_actions(game, s, legal[depth])
    if mover == CHANCE:  # sampled with its own probabilities: they cancel
        child, child_keys = _child(game, s, keys, legal[depth, random_below(stream, n)],
                                   num_players)
        return _outcome(game, child, child_keys, player, table, stream, legal, depth + 1,
                        returns, own_reach, others_reach, sample_reach, exploration)
    start = _slot(index, offset, count, actions, used, keys[mover], legal[depth], n)
    policy = np.empty(n)
    matched_policy(regrets, start, n, policy, 0)
    sampling = policy.copy()
    if mover == player:
        for k in range(n):
            sampling[k] = exploration / n + (1.0 - exploration) * policy[k]
    k = _sample(sampling, n, stream)
    child, child_keys = _child(game, s, keys, legal[depth, k], num_players)
    if mover == player:
        child_value = _outcome(game, child, child_keys, player, table, stream, legal, depth + 1,
                               returns, own_reach * policy[k], others_reach,
                               sample_reach * sampling[k], exploration)
    else:
        child_value = _outcome(game, child, child_keys, player, table, stream, legal, depth + 1,
                               returns, own_reach, others_reach * policy[k],
                               sample_reach * sampling[k], exploration)
    sampled_value = child_value / sampling[k]  # the estimate of the sampled child's value
    value = policy[k] * sampled_value
    if mover == player:
        scale = others_reach / sample_reach
        for b in range(n):
            regrets[start + b] += ((sampled_value if b == k else 0.0) - value) * scale
            cumulative[start + b] += own_reach * policy[b] / sample_reach
    return value


@njit  # recursive: numba's cache would load it broken (segfault)
def run_iterations(game, roots, root_keys, table, stream, count, sampler, exploration):
    """``count`` iterations: each updates every player in turn from a root drawn uniformly."""
    num_players = root_keys.shape[1]
    legal = np.empty((MAX_DEPTH, kernels.MAX_LEGAL_ACTIONS), dtype=np.int64)
    returns = np.zeros(num_players)
    for _ in range(count):
        for player in range(num_players):
            r = random_below(stream, len(roots))
            if sampler == 0:
                _external(game, roots[r].copy(), root_keys[r].copy(), player, table, stream,
                          legal, 0, returns)
            else:
                _outcome(game, roots[r].copy(), root_keys[r].copy(), player, table, stream,
                         legal, 0, returns, 1.0, 1.0, 1.0, exploration)


@njit(cache=True)
def _new_index():
    return Dict.empty(types.uint64, types.int64)


@njit(cache=True)
def _fill_index(index, keys, starts):
    for i in range(len(keys)):
        index[keys[i]] = starts[i]


@njit(cache=True)
def _entries(index):
    """The table's keys and their first entries, in order of first entry (the order they were met)."""
    keys = np.empty(len(index), dtype=np.uint64)
    starts = np.empty(len(index), dtype=np.int64)
    i = 0
    for key, start in index.items():
        keys[i] = key
        starts[i] = start
        i += 1
    order = np.argsort(starts)
    return keys[order], starts[order]


class MCCFRSolver:
    """External- or outcome-sampling MCCFR on a cardlab game, from its start or from given histories."""

    def __init__(self, game: pyspiel.Game, sampler: str = "external", seed: int = 0,
                 histories: Sequence[Sequence[int]] | None = None, exploration: float = 0.6,
                 capacity: int = CAPACITY):
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {sampler!r}; choose from {', '.join(SAMPLERS)}")
        if not 0 < exploration <= 1:
            raise ValueError(f"exploration must be in (0, 1], got {exploration}")
        self.game = game
        self.kernel_id = game_spec(game.get_type().short_name).kernel_id
        self.sampler = sampler
        self.exploration = float(exploration)
        histories = [[]] if histories is None else [list(h) for h in histories]
        initial = game.initial_array
        self._roots = np.empty((len(histories), len(initial)), dtype=np.int64)
        self._root_keys = np.empty((len(histories), game.num_players()), dtype=np.uint64)
        for r, history in enumerate(histories):
            state = game.new_initial_state()
            for action in history:
                state.apply_action(action)
            self._roots[r] = state.array
            for player in range(game.num_players()):
                self._root_keys[r, player] = kernels.information_state_key(
                    self.kernel_id, initial, np.asarray(history, dtype=np.int64), player)
        self.iteration = 0
        self._stream = make_stream(seed)
        self._index = _new_index()
        self._offset = np.zeros(capacity, dtype=np.int64)
        self._count = np.zeros(capacity, dtype=np.int64)
        self._actions = np.zeros(capacity, dtype=np.int64)
        self._used = np.zeros(1, dtype=np.int64)
        self.regrets = np.zeros(capacity)
        self.cumulative = np.zeros(capacity)

    @property
    def _table(self):
        return (self._index, self._offset, self._count, self._actions, self._used, self.regrets,
                self.cumulative)

    @property
    def num_infosets(self) -> int:
        return len(self._index)

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations (each updates every player once)."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        run_iterations(self.kernel_id, self._roots, self._root_keys, self._table, self._stream,
                       iterations, SAMPLERS.index(self.sampler), self.exploration)
        self.iteration += iterations

    def average_policy(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Key -> (legal actions, average probabilities) for every information set met."""
        keys, starts = _entries(self._index)
        policy = {}
        for key, start in zip(keys.tolist(), starts.tolist(), strict=True):
            n = int(self._count[start])
            sums = self.cumulative[start:start + n]
            total = sums.sum()
            policy[key] = (self._actions[start:start + n].copy(),
                           sums / total if total > 0 else np.full(n, 1.0 / n))
        return policy

    def policy_table(self, **metadata) -> PolicyTable:
        """The average policy as a :class:`~cardlab.cfr.policy.PolicyTable` (sets named by key)."""
        average = self.average_policy()
        offsets = np.zeros(len(average) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(actions) for actions, _ in average.values()])
        actions = np.concatenate([a for a, _ in average.values()] or [np.zeros(0, np.int64)])
        probabilities = np.concatenate([p for _, p in average.values()] or [np.zeros(0)])
        info = {**game_identity(self.game), "naming": "key", "solver": self.sampler,
                "iterations": self.iteration, **metadata}
        return PolicyTable(tuple(str(key) for key in average), offsets, actions, probabilities,
                           info)

    def policy_on(self, tree: GameTree) -> np.ndarray:
        """The average policy as a per-action array of an engine-built ``tree`` (uniform where unmet)."""
        if tree.naming != "key":
            raise ValueError("MCCFR policies are keyed by information-state keys: use an "
                             "engine-built tree")
        average = self.average_policy()
        out = tree.uniform_policy()
        offset = tree.arrays.infoset_offset
        for i, name in enumerate(tree.infoset_names):
            found = average.get(int(name))
            if found is not None:
                out[offset[i]:offset[i + 1]] = found[1]
        return out

    def state_arrays(self) -> dict[str, np.ndarray]:
        """Everything that determines the next iterations (for checkpoints)."""
        keys, starts = _entries(self._index)
        used = int(self._used[0])
        return {"keys": keys, "starts": starts, "count": self._count[:used].copy(),
                "entry_actions": self._actions[:used].copy(), "regrets": self.regrets[:used].copy(),
                "cumulative": self.cumulative[:used].copy(), "stream": self._stream.copy()}

    def restore(self, arrays: dict[str, np.ndarray], iteration: int) -> None:
        """Continue from a checkpoint of :meth:`state_arrays` taken after ``iteration`` iterations."""
        used = len(arrays["regrets"])
        if used > len(self.regrets):
            raise ValueError(f"checkpoint needs {used} table entries, the solver has "
                             f"{len(self.regrets)}")
        starts, count = np.asarray(arrays["starts"], dtype=np.int64), np.asarray(arrays["count"])
        if (any(len(arrays[name]) != used for name in ("count", "entry_actions", "cumulative"))
                or len(arrays["keys"]) != len(starts)
                or len(starts) and (starts.min() < 0 or starts.max() >= used or (count[starts] < 1).any()
                                    or (starts + count[starts] > used).any())):
            raise ValueError("the checkpoint's table entries are inconsistent (sizes or starts out of range)")
        self._index = _new_index()
        _fill_index(self._index, arrays["keys"].astype(np.uint64), arrays["starts"])
        for name, target in (("count", self._count), ("entry_actions", self._actions),
                             ("regrets", self.regrets), ("cumulative", self.cumulative)):
            target[:] = 0
            target[:used] = arrays[name]
        self._offset[:used] = 0
        self._offset[arrays["starts"]] = arrays["starts"]
        self._used[0] = used
        self._stream = np.array(arrays["stream"], dtype=self._stream.dtype)
        self.iteration = int(iteration)
