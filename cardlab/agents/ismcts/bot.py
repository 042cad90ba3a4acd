"""The ISMCTS agent as a ``pyspiel.Bot``: budgets, tree reuse, root parallelism, debug checks."""

from __future__ import annotations

import textwrap
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from cardlab.agents.checks import check_can_move
from cardlab.agents.ismcts import search
from cardlab.agents.ismcts.options import (
    OPTIONS,
    SIMULATIONS,
    uses_beliefs,
    uses_network,
    uses_policy_network,
)
from cardlab.agents.net import model_path
from cardlab.agents.network import flat_weights, load_model, no_network_weights, with_beliefs
from cardlab.core.interrupt import StopRequest, quiet_worker
from cardlab.core.openspiel import replay_world
from cardlab.core.rng import derive_seed, make_stream, next_u64
from cardlab.core.specialize import LiteralInt
from cardlab.games import game_spec, kernels

#: The ``networked`` argument of the search kernels, literal so that each is compiled for its value.
WITHOUT_NETWORK, WITH_NETWORK = LiteralInt(search.WITHOUT_NETWORK), LiteralInt(search.WITH_NETWORK)

CHUNK = 32  # iterations between clock checks under a time budget
#: Iterations per kernel call under a simulation budget: between calls Ctrl-C is handled and other
#: threads (a web server's) run, so neither waits more than a few milliseconds for a long search.
SIMULATION_CHUNK = 2048
DEBUG_WORLDS = 16


class ISMCTSBot(pyspiel.Bot):
    """Information Set MCTS over a cardlab numba engine.

    Options (:data:`~cardlab.agents.ismcts.options.OPTIONS`, below) are
    checked when the bot is made; ``widening`` and ``rollout_depth`` default
    to the values tuned for each game (``GameSpec.ismcts_defaults``). With
    ``simulations`` the bot is deterministic for its seed and its ``workers``
    count; with ``time_ms`` results depend on the machine's speed. With
    ``prior=net`` or ``value=net`` it loads ``model`` (default: the model
    committed for the game), refusing one of another game or other parameters.
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int = 0, **options: Any):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.spec = game_spec(game.get_type().short_name)
        self.game_id = self.spec.kernel_id
        self.options = OPTIONS.resolve(options, self.spec)
        self.row = self.options.row()  # what the kernels read, as in the compiled arena
        self.network = network_of(self.options, game)
        self.player = player
        self.capacity = (self.options["simulations"] + 1 if self.options["time_ms"] is None
                         else self.options["max_nodes"])
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
        check_can_move("ismcts", self.game, self.player, state)  # before a kernel reads the array
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        forced = int(kernels.dominant_action(self.game_id, state.array))
        if forced >= 0:
            return [(a, float(a == forced)) for a in legal], forced
        move_seed = int(next_u64(self._stream))
        if self.options["workers"] > 1:
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
        worlds = np.zeros((DEBUG_WORLDS if self.options["debug"] else 0, root_state.shape[0]),
                          dtype=np.int64)
        start = time.perf_counter()
        iterations = run_search(self.game_id, root_state, self.player, self.row, tree,
                                make_stream(move_seed), self.options["time_ms"], worlds, self.network)
        if self.options["debug"]:
            self._check_worlds(state, worlds)
        self.last_search = {
            "iterations": iterations,
            "seconds": time.perf_counter() - start,
            "nodes": int(tree.size[0]),
            "tree_bytes": tree.nbytes,
        }
        self._tree, self._tree_state = tree, root_state.copy()
        self._tree_history = list(state.history())
        return root_visits(self.game_id, root_state, self.player, tree)

    def _reusable_tree(self, state: pyspiel.State) -> search.Tree:
        """The subtree of the position reached, when reuse is on and it was explored."""
        tree = self._tree
        reuse = self.options["reuse_tree"]
        if reuse and tree is not None and self._tree_state is not None:
            history = state.history()
            if history[:len(self._tree_history)] == self._tree_history:
                since = np.array(history[len(self._tree_history):], dtype=np.int64)
                node = search.descend(self.game_id, self._tree_state, since, self.player,
                                      tree.root, tree.nodes)
                if node != search.NO_NODE and tree.size[0] + self.capacity // 2 < tree.capacity:
                    tree.root = int(node)
                    return tree
        capacity = self.capacity * (3 if reuse else 1)
        if tree is None or tree.capacity != capacity:
            return search.Tree(capacity)
        tree.clear()
        return tree

    def _check_worlds(self, state: pyspiel.State, worlds: np.ndarray) -> None:
        """Debug mode: every sampled world must be reachable and look the same to the searcher."""
        expected = state.information_state_string(self.player)
        for world in worlds:
            if not world.any():
                continue
            seen = replay_world(state, world).information_state_string(self.player)
            if seen != expected:
                raise AssertionError(
                    f"ismcts: a sampled world differs from player {self.player}'s information:\n"
                    f"{expected}\n---\n{seen}")

    # -- root parallelism --------------------------------------------------------
    def _parallel_visits(self, state: pyspiel.State, move_seed: int) -> np.ndarray:
        workers = self.options["workers"]
        if self._pool is None:
            self._pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn"),
                                             initializer=quiet_worker)
        jobs = [
            self._pool.submit(_worker_search, self.game_id, state.array, self.player,
                              int(derive_seed(move_seed, worker)), self.row,
                              self.options["time_ms"], self.capacity, self.network)
            for worker in range(workers)
        ]
        return sum(job.result() for job in jobs)

    def close(self) -> None:
        """Stop the worker processes of root parallelism (also done when the bot is collected)."""
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    __del__ = close


def beliefs_path(given: str | None, game: pyspiel.Game) -> Path:
    """The hand-inference model of ``inference=net``: ``given``, else the one committed for ``game``."""
    return model_path(given, game, head="holders")


def network_of(options: dict[str, Any], game: pyspiel.Game) -> tuple[np.ndarray, np.ndarray] | None:
    """The flat weights and shape row of the networks the resolved ``options`` search with, if any:
    the policy-and-value one, then the hand-inference one stacked after it (``ValueError`` for a
    model that is missing, of another kind or of another game)."""
    if not uses_network(options):
        return None
    network = (flat_weights(load_model(model_path(options["model"], game), game))
               if uses_policy_network(options) else no_network_weights())
    if uses_beliefs(options):
        if options["world_pool"] == 0:
            raise ValueError("inference=net weighs the worlds of the world pool: give world_pool > 0")
        beliefs = load_model(beliefs_path(options["inference_model"], game), game, head="holders")
        network = with_beliefs(network, beliefs)
    return network


def run_search(game_id: int, root_state: np.ndarray, searcher: int, row: np.ndarray,
               tree: search.Tree, stream: np.ndarray, time_ms: float | None,
               worlds: np.ndarray, network: tuple[np.ndarray, np.ndarray] | None = None) -> int:
    """Search from ``tree.root``: the row's simulations, or chunks until ``time_ms`` has passed.

    Draws the move's world pool first; ``worlds`` receives the first sampled
    worlds (for the debug check). ``network`` is the ``(weights, shape)`` of
    ``prior=net`` and ``value=net``. Returns the number of iterations run.
    """
    networked = WITH_NETWORK
    if network is None:
        networked, network = WITHOUT_NETWORK, search.no_network()
    deadline = time.perf_counter() + (time_ms or 0.0) / 1000.0
    with StopRequest() as stop:  # Ctrl-C acts between kernel calls, never inside one
        pool, cumulative = search.draw_world_pool(game_id, root_state, searcher, stream, row, networked,
                                                  network)

        def iterate(count: int, worlds_out: np.ndarray) -> int:
            stop.check()
            return search.run_iterations(game_id, root_state, searcher, row, count, tree.root,
                                         tree.nodes, tree.reward, tree.size, stream, pool,
                                         cumulative, worlds_out, networked, network)

        if time_ms is None:  # the same iterations as one call: the tree, stream and pool carry over
            budget = int(row[SIMULATIONS])
            iterations = iterate(min(budget, SIMULATION_CHUNK), worlds)
            while iterations < budget:
                iterations += iterate(min(budget - iterations, SIMULATION_CHUNK), worlds[:0])
            return iterations
        iterations = iterate(CHUNK, worlds)
        while time.perf_counter() < deadline:
            iterations += iterate(CHUNK, worlds[:0])
        return iterations


def root_visits(game_id: int, root_state: np.ndarray, searcher: int,
                tree: search.Tree) -> np.ndarray:
    """The visits of each legal action at the root, in legal-action order."""
    visits = np.zeros(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = search.root_statistics(game_id, root_state, searcher, tree.root, tree.nodes, visits)
    return visits[:n]


def _worker_search(game_id: int, root_state: np.ndarray, searcher: int, seed: int,
                   row: np.ndarray, time_ms: float | None, capacity: int,
                   network: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """One independent search in a worker process; returns the root visit counts."""
    tree = search.Tree(capacity)
    worlds = np.zeros((0, root_state.shape[0]), dtype=np.int64)
    run_search(game_id, root_state, searcher, row, tree, make_stream(seed), time_ms, worlds, network)
    return root_visits(game_id, root_state, searcher, tree)


ISMCTSBot.__doc__ += "\n" + textwrap.indent(OPTIONS.describe(), "    ") + "\n"
