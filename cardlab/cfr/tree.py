"""A game tree flattened into arrays, the one input every tabular solver of :mod:`cardlab.cfr` reads.

Walking a game through its API at every CFR iteration would cost far more than
the arithmetic of the iteration. The tree is therefore built once (from any
pyspiel game, :mod:`cardlab.cfr.pyspiel_tree`, or from a cardlab engine's
kernels, :mod:`cardlab.cfr.engine_tree`) into flat arrays, and the solvers run
compiled loops over them.

Layout (``N`` nodes, ``E`` edges, ``I`` information sets, ``A`` information-set
actions, ``P`` players):

* nodes are numbered in depth-first preorder, so a parent always comes before
  its children and a forward loop over the nodes visits parents first. This
  is also the order in which OpenSpiel's recursive solvers meet the nodes of
  one information set, so sums over them come out the same number for number;
* ``node_player[N]``: the seat to act, ``CHANCE`` or ``TERMINAL``;
* ``node_infoset[N]``: the information set of a decision node, else -1;
* ``node_depth[N]``: the acting player's own earlier decisions on the path
  (perfect recall makes it a property of the information set);
* ``first_edge[N]``, ``num_edges[N]``: the node's edges, contiguous in the
  edge arrays ``edge_child[E]``, ``edge_action[E]`` (the game's action id)
  and ``edge_probability[E]`` (the chance probability, 1 at decisions);
* ``utility[N, P]``: each player's return at a terminal node (0 elsewhere);
* ``infoset_player[I]``, ``infoset_depth[I]`` and ``infoset_offset[I + 1]``:
  the actions of information set ``i`` are slots ``infoset_offset[i]`` to
  ``infoset_offset[i + 1] - 1`` of every per-action array (regrets, policies,
  ``infoset_actions[A]``), in the order of the edges of each of its nodes.

When a tree has several roots (the deals of a position, each with its
probability), node 0 is a chance node over them and its edge actions are the
root numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER

CHANCE = CHANCE_PLAYER
TERMINAL = TERMINAL_PLAYER


class FlatTree(NamedTuple):
    """The arrays of a game tree, as the compiled solvers take them (module docstring)."""

    node_player: np.ndarray
    node_infoset: np.ndarray
    node_depth: np.ndarray
    first_edge: np.ndarray
    num_edges: np.ndarray
    edge_child: np.ndarray
    edge_action: np.ndarray
    edge_probability: np.ndarray
    utility: np.ndarray
    infoset_player: np.ndarray
    infoset_depth: np.ndarray
    infoset_offset: np.ndarray
    infoset_actions: np.ndarray


@dataclass(frozen=True)
class GameTree:
    """A flat tree and what names its information sets.

    ``infoset_names`` are the information-state strings (``naming ==
    "string"``, trees built through pyspiel) or the decimal 64-bit
    information-state keys (``naming == "key"``, trees built from an engine):
    the names a saved policy is looked up by.
    """

    arrays: FlatTree
    num_players: int
    infoset_names: tuple[str, ...]
    naming: str = "string"

    @property
    def num_nodes(self) -> int:
        return len(self.arrays.node_player)

    @property
    def num_infosets(self) -> int:
        return len(self.arrays.infoset_player)

    @property
    def num_terminals(self) -> int:
        return int(np.count_nonzero(self.arrays.node_player == TERMINAL))

    @property
    def num_actions(self) -> int:
        """Information-set actions: the length of every per-action array."""
        return int(self.arrays.infoset_offset[-1])

    def uniform_policy(self) -> np.ndarray:
        """Each information set's actions equally likely, as a per-action array."""
        offset = self.arrays.infoset_offset
        counts = np.diff(offset)
        return np.repeat(1.0 / counts, counts)

    def summary(self) -> dict[str, int]:
        """Sizes, for reports and progress lines."""
        return {"nodes": self.num_nodes, "terminals": self.num_terminals,
                "infosets": self.num_infosets, "infoset_actions": self.num_actions}


class TreeRecorder:
    """Collects a tree's nodes in preorder and names its information sets, then makes the arrays.

    The Python-side builder (:mod:`cardlab.cfr.pyspiel_tree`) calls :meth:`node`
    when it first visits a node and :meth:`link` to fill each edge's child.
    """

    def __init__(self, num_players: int):
        self.num_players = num_players
        self.player: list[int] = []
        self.infoset: list[int] = []
        self.depth: list[int] = []
        self.first_edge: list[int] = []
        self.num_edges: list[int] = []
        self.utility: list[list[float]] = []
        self.edge_child: list[int] = []
        self.edge_action: list[int] = []
        self.edge_probability: list[float] = []
        self.infoset_index: dict[str, int] = {}
        self.infoset_player: list[int] = []
        self.infoset_depth: list[int] = []
        self.infoset_actions: list[list[int]] = []

    def node(self, player: int, actions: list[int], probabilities: list[float] | None = None,
             infoset_name: str | None = None, depth: int = 0,
             utility: list[float] | None = None) -> tuple[int, int]:
        """Add a node and its edges (children still unknown); returns (node id, its first edge)."""
        node = len(self.player)
        infoset = -1
        if infoset_name is not None:
            infoset = self._infoset(infoset_name, player, depth, actions)
        self.player.append(player)
        self.infoset.append(infoset)
        self.depth.append(depth)
        self.first_edge.append(len(self.edge_child))
        self.num_edges.append(len(actions))
        self.utility.append(list(utility) if utility is not None else [0.0] * self.num_players)
        self.edge_child.extend([-1] * len(actions))
        self.edge_action.extend(actions)
        self.edge_probability.extend(probabilities if probabilities is not None
                                     else [1.0] * len(actions))
        return node, self.first_edge[-1]

    def link(self, edge: int, child: int) -> None:
        self.edge_child[edge] = child

    def _infoset(self, name: str, player: int, depth: int, actions: list[int]) -> int:
        index = self.infoset_index.get(name)
        if index is None:
            index = len(self.infoset_player)
            self.infoset_index[name] = index
            self.infoset_player.append(player)
            self.infoset_depth.append(depth)
            self.infoset_actions.append(list(actions))
        elif (self.infoset_actions[index] != list(actions) or self.infoset_player[index] != player
              or self.infoset_depth[index] != depth):
            raise ValueError(f"information set {name!r} has nodes with different players, "
                             f"legal actions or own-decision counts: the game is not of "
                             f"perfect recall, or its information states are wrong")
        return index

    def finish(self) -> GameTree:
        """The arrays of everything recorded."""
        offset = np.zeros(len(self.infoset_actions) + 1, dtype=np.int64)
        offset[1:] = np.cumsum([len(a) for a in self.infoset_actions])
        flat_actions = [a for actions in self.infoset_actions for a in actions]
        arrays = FlatTree(
            node_player=np.asarray(self.player, dtype=np.int64),
            node_infoset=np.asarray(self.infoset, dtype=np.int64),
            node_depth=np.asarray(self.depth, dtype=np.int64),
            first_edge=np.asarray(self.first_edge, dtype=np.int64),
            num_edges=np.asarray(self.num_edges, dtype=np.int64),
            edge_child=np.asarray(self.edge_child, dtype=np.int64),
            edge_action=np.asarray(self.edge_action, dtype=np.int64),
            edge_probability=np.asarray(self.edge_probability, dtype=np.float64),
            utility=np.asarray(self.utility, dtype=np.float64).reshape(-1, self.num_players),
            infoset_player=np.asarray(self.infoset_player, dtype=np.int64),
            infoset_depth=np.asarray(self.infoset_depth, dtype=np.int64),
            infoset_offset=offset,
            infoset_actions=np.asarray(flat_actions, dtype=np.int64),
        )
        return GameTree(arrays, self.num_players, tuple(self.infoset_index))
