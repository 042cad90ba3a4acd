"""The ISMCTS agent as a ``pyspiel.Bot``: budgets, tree reuse, root parallelism, debug checks."""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np
import pyspiel

from cardlab.agents.ismcts import search
from cardlab.core.rng import derive_seed, make_stream, next_u64
from cardlab.games import game_spec, kernels

CHUNK = 32  # iterations between clock checks under a time budget
DEBUG_WORLDS = 16


class ISMCTSBot(pyspiel.Bot):
    """Information Set MCTS over a cardlab numba engine.

    Options: ``simulations`` (iterations per move, default 1000) or ``time_ms``
    (a clock budget; results then depend on the machine's speed), ``rollout``
    (``"rules"`` or ``"random"``), ``exploration`` (UCB constant for rewards
    scaled to about [-1, 1]), ``reuse_tree`` (keep the subtree of the position
    reached between moves), ``workers`` (root parallelism: independent searches
    in that many processes, visit counts summed), ``debug`` (check that sampled
    worlds match the searcher's information state), ``world_pool`` (worlds
    drawn per move and weighted by how well they explain the others' bids
    under the rule-based model; 0 samples uniformly every iteration) and
    ``epsilon`` (the weight factor per unexplained bid), ``widening`` (progressive
    widening: a node offers ``1 + widening * sqrt(visits)`` actions, the
    rule-based player's first; 0 offers all at once; default per game, see
    ``search.DEFAULT_WIDENING``), ``rollout_depth`` (stop rollouts after that many
    moves and score the position with the game's static evaluation; 0 plays to
    the end; only for games with an evaluation; default per game, see
    ``search.DEFAULT_ROLLOUT_DEPTH``). With ``simulations``
    the bot is deterministic for its seed and its ``workers`` count.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int = 0, *, simulations: int = 1000,
                 time_ms: float | None = None, rollout: str = "rules", exploration: float = 0.25,
                 reuse_tree: bool = False, workers: int = 1, debug: bool = False,
                 max_nodes: int = 1_000_000, world_pool: int = 400, epsilon: float = 0.1,
                 widening: float | None = None, rollout_depth: int | None = None):
        pyspiel.Bot.__init__(self)
        self.spec = game_spec(game.get_type().short_name)
        self.game_id = self.spec.kernel_id
        if rollout not in ("rules", "random"):
            raise ValueError(f"ismcts: rollout must be 'rules' or 'random', got {rollout!r}")
        if time_ms is None and (not isinstance(simulations, int) or simulations < 1):
            raise ValueError(f"ismcts: simulations must be a positive integer, got {simulations!r}")
        if time_ms is not None and not time_ms > 0:
            raise ValueError(f"ismcts: time_ms must be positive, got {time_ms!r}")
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"ismcts: workers must be a positive integer, got {workers!r}")
        if not exploration >= 0:
            raise ValueError(f"ismcts: exploration must be >= 0, got {exploration!r}")
        if not isinstance(world_pool, int) or world_pool < 0:
            raise ValueError(f"ismcts: world_pool must be an integer >= 0, got {world_pool!r}")
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"ismcts: epsilon must be in (0, 1], got {epsilon!r}")
        if widening is None:
            widening = float(search.DEFAULT_WIDENING[self.game_id])
        if not widening >= 0:
            raise ValueError(f"ismcts: widening must be >= 0, got {widening!r}")
        self.widening = float(widening)
        if rollout_depth is None:
            rollout_depth = int(search.DEFAULT_ROLLOUT_DEPTH[self.game_id])
        if not isinstance(rollout_depth, int) or rollout_depth < 0:
            raise ValueError(f"ismcts: rollout_depth must be an integer >= 0, got {rollout_depth!r}")
        if rollout_depth and not self.spec.has_static_evaluation:
            raise ValueError(f"ismcts: rollout_depth needs a static evaluation, which "
                             f"{game.get_type().short_name} does not have (use 0)")
        self.rollout_depth = rollout_depth
        self.world_pool = world_pool
        self.epsilon = float(epsilon)
        self.player = player
        self.simulations = simulations
        self.time_ms = time_ms
        self.rollout = search.ROLLOUT_RULES if rollout == "rules" else search.ROLLOUT_RANDOM
        self.exploration = float(exploration)
        self.reuse_tree = bool(reuse_tree)
        self.workers = workers
        self.debug = bool(debug)
        self.capacity = (simulations + 1 if time_ms is None else max_nodes)
        self._stream = make_stream(seed)
        self._pool: ProcessPoolExecutor | None = None
        self._tree: search.Tree | None = None
        self._tree_state: np.ndarray | None = None
        self._tree_history: list[int] = []
        self.last_search: dict = {}

    # -- pyspiel.Bot -----------------------------------------------------------
    def restart_at(self, state: pyspiel.State) -> None:
        self._tree = None

    def step(self, state: pyspiel.State) -> int:
        return self.step_with_policy(state)[1]

    def step_with_policy(self, state: pyspiel.State):
        if state.current_player() != self.player:
            raise ValueError(f"ismcts bot for player {self.player} asked to move for player "
                             f"{state.current_player()}")
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        forced = int(kernels.dominant_action(self.game_id, state.array))
        if forced >= 0:
            return [(a, float(a == forced)) for a in legal], forced
        move_seed = int(next_u64(self._stream))
        if self.workers > 1:
            visits = self._parallel_visits(state, move_seed)
        else:
            visits = self._search(state, move_seed)
        total = visits.sum()
        policy = [(a, float(v) / total if total else 1.0 / len(legal))
                  for a, v in zip(legal, visits, strict=True)]
        return policy, legal[int(np.argmax(visits))]

    # -- one search ---------------------------------------------------------------
    def _search(self, state: pyspiel.State, move_seed: int) -> np.ndarray:
        root_state = state.array
        tree = self._reusable_tree(state)
        stream = make_stream(move_seed)
        worlds = np.zeros((DEBUG_WORLDS if self.debug else 0, root_state.shape[0]), dtype=np.int64)
        start = time.perf_counter()
        pool, cumulative = make_world_pool(self.game_id, root_state, self.player, stream,
                                           self.world_pool, self.epsilon)
        iterations = 0
        if self.time_ms is None:
            iterations = search.run_iterations(
                self.game_id, root_state, self.player, tree.root, tree.nodes, tree.reward,
                tree.keys, tree.values, tree.size, self.simulations, self.exploration,
                self.rollout, stream, worlds, pool, cumulative, self.widening,
                self.rollout_depth)
        else:
            deadline = start + self.time_ms / 1000.0
            while True:
                iterations += search.run_iterations(
                    self.game_id, root_state, self.player, tree.root, tree.nodes, tree.reward,
                    tree.keys, tree.values, tree.size, CHUNK, self.exploration, self.rollout,
                    stream, worlds if iterations == 0 else worlds[:0], pool, cumulative,
                    self.widening, self.rollout_depth)
                if time.perf_counter() >= deadline:
                    break
        if self.debug:
            self._check_worlds(state, worlds)
        visits = np.zeros(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
        n = search.root_statistics(self.game_id, root_state, self.player, tree.root, tree.nodes,
                                   tree.keys, tree.values, visits)
        self.last_search = {
            "iterations": iterations,
            "seconds": time.perf_counter() - start,
            "nodes": int(tree.size[0]),
            "tree_bytes": tree.nbytes,
        }
        self._tree, self._tree_state = tree, root_state.copy()
        self._tree_history = list(state.history())
        return visits[:n]

    def _reusable_tree(self, state: pyspiel.State) -> search.Tree:
        """The subtree of the position reached, when reuse is on and it was explored."""
        tree = self._tree
        if self.reuse_tree and tree is not None and self._tree_state is not None:
            history = state.history()
            if history[:len(self._tree_history)] == self._tree_history:
                since = np.array(history[len(self._tree_history):], dtype=np.int64)
                node = search.descend(self.game_id, self._tree_state, since, self.player,
                                      tree.root, tree.keys, tree.values)
                if node != search.NO_NODE and tree.size[0] + self.capacity // 2 < tree.capacity:
                    tree.root = int(node)
                    return tree
        capacity = self.capacity * (3 if self.reuse_tree else 1)
        if tree is None or tree.capacity != capacity:
            return search.Tree(capacity)
        search.reset(tree.nodes, tree.reward, tree.keys, tree.values, tree.size)
        tree.root = 0
        return tree

    def _check_worlds(self, state: pyspiel.State, worlds: np.ndarray) -> None:
        """Debug mode: every sampled world must look the same as the real one to the searcher."""
        expected = state.information_state_string(self.player)
        for world in worlds:
            if not world.any():
                continue
            seen = state.with_array(world.copy()).information_state_string(self.player)
            if seen != expected:
                raise AssertionError(
                    f"ismcts: a sampled world differs from player {self.player}'s information:\n"
                    f"{expected}\n---\n{seen}")

    # -- root parallelism --------------------------------------------------------
    def _parallel_visits(self, state: pyspiel.State, move_seed: int) -> np.ndarray:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"))
        jobs = [
            self._pool.submit(_worker_search, self.game_id, state.array, self.player,
                              int(derive_seed(move_seed, worker)), self.simulations, self.time_ms,
                              self.exploration, self.rollout, self.world_pool, self.epsilon,
                              self.widening, self.rollout_depth)
            for worker in range(self.workers)
        ]
        return sum(job.result() for job in jobs)

    def close(self) -> None:
        """Stop the worker processes of root parallelism (also done when the bot is collected)."""
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    __del__ = close


def make_world_pool(game_id: int, root_state: np.ndarray, searcher: int, stream: np.ndarray,
                    size: int, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The per-move pool of bid-weighted worlds (empty when ``size`` is 0)."""
    pool = np.zeros((size, root_state.shape[0]), dtype=np.int64)
    cumulative = np.zeros(size, dtype=np.float64)
    if size:
        search.build_world_pool(game_id, root_state, searcher, stream, pool, cumulative, epsilon)
    return pool, cumulative


def _worker_search(game_id, root_state, searcher, seed, simulations, time_ms, exploration,
                   rollout, world_pool, epsilon, widening, rollout_depth) -> np.ndarray:
    """One independent search in a worker process; returns the root visit counts."""
    tree = search.Tree(simulations + 1 if time_ms is None else 1_000_000)
    stream = make_stream(seed)
    worlds = np.zeros((0, root_state.shape[0]), dtype=np.int64)
    pool, cumulative = make_world_pool(game_id, root_state, searcher, stream, world_pool, epsilon)
    if time_ms is None:
        search.run_iterations(game_id, root_state, searcher, 0, tree.nodes, tree.reward, tree.keys,
                              tree.values, tree.size, simulations, exploration, rollout, stream,
                              worlds, pool, cumulative, widening, rollout_depth)
    else:
        deadline = time.perf_counter() + time_ms / 1000.0
        while time.perf_counter() < deadline:
            search.run_iterations(game_id, root_state, searcher, 0, tree.nodes, tree.reward,
                                  tree.keys, tree.values, tree.size, CHUNK, exploration, rollout,
                                  stream, worlds, pool, cumulative, widening, rollout_depth)
    visits = np.zeros(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = search.root_statistics(game_id, root_state, searcher, 0, tree.nodes, tree.keys,
                               tree.values, visits)
    return visits[:n]
