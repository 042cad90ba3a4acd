"""Expected values, best responses and NashConv of a tabular policy, over a flat tree, in numba.

A best response of player ``p`` picks, at each of ``p``'s information sets,
the action with the highest value summed over the set's nodes, each weighted
by the probability that chance and the others bring play there. The value of
an action depends on ``p``'s later choices, so information sets are decided
deepest first: by perfect recall every node below an information set of
``p`` at depth ``d`` (``d`` earlier decisions of ``p``) belongs to depths
above ``d``, and one backward pass per depth suffices.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.cfr.solvers import edge_weights, node_values, terminal_values
from cardlab.cfr.tree import TERMINAL, GameTree


@njit(cache=True)
def _others_reach(tree, weights, player, out):
    """Probability that chance and every player but ``player`` lead to each node."""
    node_player, first_edge = tree.node_player, tree.first_edge
    num_edges, edge_child = tree.num_edges, tree.edge_child
    out[0] = 1.0
    for node in range(len(node_player)):
        mover = node_player[node]
        if mover == TERMINAL:
            continue
        first = first_edge[node]
        for e in range(first, first + num_edges[node]):
            out[edge_child[e]] = out[node] * (1.0 if mover == player else weights[e])


@njit(cache=True)
def _response_values(tree, weights, player, choice, values):
    """``player``'s value at each node when it plays ``choice`` (0 below undecided sets)."""
    node_player, node_infoset, first_edge = tree.node_player, tree.node_infoset, tree.first_edge
    num_edges, edge_child, utility = tree.num_edges, tree.edge_child, tree.utility
    for node in range(len(node_player) - 1, -1, -1):
        mover = node_player[node]
        if mover == TERMINAL:
            values[node] = utility[node, player]
            continue
        first = first_edge[node]
        if mover == player:
            chosen = choice[node_infoset[node]]
            values[node] = values[edge_child[first + chosen]] if chosen >= 0 else 0.0
            continue
        total = 0.0
        for e in range(first, first + num_edges[node]):
            total += weights[e] * values[edge_child[e]]
        values[node] = total


@njit(cache=True)
def best_response(tree, weights, player, choice):
    """``player``'s best-response value against edge ``weights``; its choice per set into ``choice``."""
    node_player, node_infoset, first_edge = tree.node_player, tree.node_infoset, tree.first_edge
    num_edges, edge_child = tree.num_edges, tree.edge_child
    infoset_player, infoset_depth, offset = (tree.infoset_player, tree.infoset_depth,
                                             tree.infoset_offset)
    num_nodes = len(node_player)
    reach = np.empty(num_nodes)
    values = np.empty(num_nodes)
    scores = np.zeros(offset[-1])
    _others_reach(tree, weights, player, reach)
    choice[:] = -1
    deepest = -1
    for i in range(len(infoset_player)):
        if infoset_player[i] == player:
            deepest = max(deepest, infoset_depth[i])
    for depth in range(deepest, -1, -1):
        _response_values(tree, weights, player, choice, values)
        for node in range(num_nodes):
            if node_player[node] != player or infoset_depth[node_infoset[node]] != depth:
                continue
            base = offset[node_infoset[node]]
            first = first_edge[node]
            for k in range(num_edges[node]):
                scores[base + k] += reach[node] * values[edge_child[first + k]]
        for i in range(len(infoset_player)):
            if infoset_player[i] == player and infoset_depth[i] == depth:
                best = 0
                for k in range(1, offset[i + 1] - offset[i]):
                    if scores[offset[i] + k] > scores[offset[i] + best]:
                        best = k
                choice[i] = best
    _response_values(tree, weights, player, choice, values)
    return values[0]


@njit(cache=True)
def _nash_conv(tree, policy, num_players):
    weights = np.empty(len(tree.edge_child))
    edge_weights(tree, policy, weights)
    values = np.empty((num_players, len(tree.node_player)))
    terminal_values(tree, values)
    inner = np.flatnonzero(tree.node_player != TERMINAL)
    choice = np.empty(len(tree.infoset_player), dtype=np.int64)
    total = 0.0
    for player in range(num_players):
        node_values(tree, inner, weights, values, player)
        total += best_response(tree, weights, player, choice) - values[player, 0]
    return total


def _checked(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    policy = np.ascontiguousarray(policy, dtype=np.float64)
    if policy.shape != (tree.num_actions,):
        raise ValueError(f"policy has shape {policy.shape}; the tree has {tree.num_actions} "
                         f"information-set actions")
    return policy


def _edge_weights(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    weights = np.empty(len(tree.arrays.edge_child))
    edge_weights(tree.arrays, _checked(tree, policy), weights)
    return weights


def expected_values(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """Each player's expected return at the root when everyone follows ``policy``."""
    weights = _edge_weights(tree, policy)
    values = np.empty((tree.num_players, tree.num_nodes))
    terminal_values(tree.arrays, values)
    inner = np.flatnonzero(tree.arrays.node_player != TERMINAL)
    for player in range(tree.num_players):
        node_values(tree.arrays, inner, weights, values, player)
    return values[:, 0].copy()


def best_response_value(tree: GameTree, policy: np.ndarray, player: int) -> float:
    """The most ``player`` can expect against the others playing ``policy``."""
    if not 0 <= player < tree.num_players:
        raise ValueError(f"player must be 0..{tree.num_players - 1}, got {player}")
    choice = np.empty(tree.num_infosets, dtype=np.int64)
    return float(best_response(tree.arrays, _edge_weights(tree, policy), player, choice))


def nash_conv(tree: GameTree, policy: np.ndarray) -> float:
    """Sum over players of what a best response gains over ``policy``: 0 exactly at a Nash equilibrium."""
    return float(_nash_conv(tree.arrays, _checked(tree, policy), tree.num_players))


def exploitability(tree: GameTree, policy: np.ndarray) -> float:
    """NashConv per player (OpenSpiel's ``exploitability``)."""
    return nash_conv(tree, policy) / tree.num_players


__all__ = ["best_response_value", "expected_values", "exploitability", "nash_conv"]
