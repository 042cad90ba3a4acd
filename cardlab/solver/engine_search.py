"""Search over the engines' own state arrays: the reference minimax and the engine-rules solver.

These searches know nothing of the games but what the engines' kernels say
(:mod:`cardlab.games.kernels`) and what a state holds of the hand
(:mod:`cardlab.games.double_dummy`): each node copies the state array and
applies a legal action. They are slow and simple on purpose:

* :func:`minimax` is the plain exhaustive minimax every faster search is
  checked against (no pruning, no table: obviously right);
* :func:`alpha_beta` adds alpha-beta and a transposition table at trick
  boundaries, enough to solve whole deals exactly. It is also the solver of
  Twenty-Eight *under the engine's rules* before the show: the trump hidden,
  calls for it as moves, the bidder's restrictions of ruling 5.

Values are team 0's points from here to the end of the hand, in the game's
own counting (Kaiser's hand points, Twenty-Eight's card points).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.layout import current_player, team_of
from cardlab.games import kernels
from cardlab.games.double_dummy import at_boundary, boundary_key, hand_over, team_points

MAX_ACTIONS = 64  # a play-phase state of either game has at most 9 legal actions
TABLE_BITS = 20
# Table rows: the four hands, a tag (generation, leader, trump shown), lower and upper bounds.
TAG, LOWER, UPPER = 4, 5, 6
TABLE_COLUMNS = 7


def new_table(bits: int = TABLE_BITS) -> tuple[np.ndarray, np.ndarray]:
    """An empty table for :func:`alpha_beta` and its generation counter."""
    table = np.zeros((1 << bits, TABLE_COLUMNS), dtype=np.int64)
    table[:, TAG] = -1
    return table, np.zeros(1, dtype=np.int64)


# A node's fields after its legal actions (the search walks an explicit stack: numba
# cannot cache recursive kernels).
(NODE_COUNT, NODE_NEXT, NODE_BEST, NODE_ALPHA, NODE_BETA, NODE_WINDOW_ALPHA, NODE_WINDOW_BETA,
 NODE_SLOT, NODE_TAG, NODE_KEY) = range(MAX_ACTIONS, MAX_ACTIONS + 10)
NODE_WIDTH = NODE_KEY + 4
MAX_PLIES = 40  # 32 cards and a call for the trump


@njit(cache=True)
def _open(game, s, node, prune, table, generation):
    """Open the node of state ``s`` (window set): ``(True, value)`` if decided without its moves."""
    if hand_over(game, s):
        return True, 0
    node[NODE_SLOT] = -1
    if prune and table.shape[0] > 0 and at_boundary(game, s):
        h0, h1, h2, h3, part = boundary_key(game, s)
        tag = generation[0] * 16 + part
        x = np.uint64(h0) * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(h1) * np.uint64(0xC2B2AE3D27D4EB4F)
        x ^= np.uint64(h2) * np.uint64(0x165667B19E3779F9) ^ np.uint64(h3) * np.uint64(0x27D4EB2F165667C5)
        x ^= np.uint64(part) * np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
        slot = np.int64(x & np.uint64(table.shape[0] - 1))
        node[NODE_SLOT] = slot
        node[NODE_TAG] = tag
        node[NODE_KEY] = h0
        node[NODE_KEY + 1] = h1
        node[NODE_KEY + 2] = h2
        node[NODE_KEY + 3] = h3
        if _matches(table, node, slot):
            lower = table[slot, LOWER]
            upper = table[slot, UPPER]
            if lower >= node[NODE_BETA] or lower == upper:
                return True, lower
            if upper <= node[NODE_ALPHA]:
                return True, upper
            node[NODE_ALPHA] = max(node[NODE_ALPHA], lower)
            node[NODE_BETA] = min(node[NODE_BETA], upper)
    node[NODE_WINDOW_ALPHA] = node[NODE_ALPHA]
    node[NODE_WINDOW_BETA] = node[NODE_BETA]
    node[NODE_COUNT] = kernels.legal_actions(game, s, node)
    node[NODE_NEXT] = 0
    node[NODE_BEST] = -1000 if team_of(current_player(s)) == 0 else 1000
    return False, 0


@njit(cache=True)
def _matches(table, node, slot):
    return (table[slot, TAG] == node[NODE_TAG] and table[slot, 0] == node[NODE_KEY]
            and table[slot, 1] == node[NODE_KEY + 1] and table[slot, 2] == node[NODE_KEY + 2]
            and table[slot, 3] == node[NODE_KEY + 3])


@njit(cache=True)
def _close(node, table):
    slot = node[NODE_SLOT]
    best = node[NODE_BEST]
    if slot >= 0:
        if not _matches(table, node, slot):
            for k in range(4):
                table[slot, k] = node[NODE_KEY + k]
            table[slot, TAG] = node[NODE_TAG]
            table[slot, LOWER] = -1000
            table[slot, UPPER] = 1000
        if best > node[NODE_WINDOW_ALPHA]:
            table[slot, LOWER] = max(table[slot, LOWER], best)
        if best < node[NODE_WINDOW_BETA]:
            table[slot, UPPER] = min(table[slot, UPPER], best)
    return best


@njit(cache=True)
def _engine_search(game, s, alpha, beta, prune, table, generation):
    """Team 0's points from here on: every action of every node, cut off only if ``prune``.

    With ``prune``, alpha-beta (fail-soft within ``(alpha, beta)``) and, if
    ``table`` has rows, its bounds at trick boundaries.
    """
    states = np.empty((MAX_PLIES, s.shape[0]), dtype=np.int64)
    nodes = np.empty((MAX_PLIES, NODE_WIDTH), dtype=np.int64)
    states[0] = s
    nodes[0, NODE_ALPHA] = alpha
    nodes[0, NODE_BETA] = beta
    depth = 0
    returning, result = _open(game, states[0], nodes[0], prune, table, generation)
    while True:
        node = nodes[depth]
        if returning:
            if depth == 0:
                return result
            depth -= 1
            node = nodes[depth]
            state = states[depth]
            v = team_points(game, states[depth + 1]) - team_points(game, state) + result
            if team_of(current_player(state)) == 0:
                node[NODE_BEST] = max(node[NODE_BEST], v)
                node[NODE_ALPHA] = max(node[NODE_ALPHA], v)
            else:
                node[NODE_BEST] = min(node[NODE_BEST], v)
                node[NODE_BETA] = min(node[NODE_BETA], v)
            node[NODE_NEXT] += 1
            if (prune and node[NODE_ALPHA] >= node[NODE_BETA]) or node[NODE_NEXT] >= node[NODE_COUNT]:
                result = _close(node, table)
                continue
        child = nodes[depth + 1]
        states[depth + 1] = states[depth]
        kernels.apply_action(game, states[depth + 1], node[node[NODE_NEXT]])
        gained = team_points(game, states[depth + 1]) - team_points(game, states[depth])
        child[NODE_ALPHA] = node[NODE_ALPHA] - gained
        child[NODE_BETA] = node[NODE_BETA] - gained
        depth += 1
        returning, result = _open(game, states[depth], child, prune, table, generation)


@njit(cache=True)
def minimax(game, s):
    """Team 0's points from here on under perfect play: every line of play, no pruning."""
    no_table = np.zeros((0, TABLE_COLUMNS), dtype=np.int64)
    return _engine_search(game, s, -1000, 1000, False, no_table, np.zeros(1, dtype=np.int64))


@njit(cache=True)
def alpha_beta(game, s, alpha, beta, table, generation):
    """Team 0's points from here on, fail-soft within ``(alpha, beta)``, with a table of bounds."""
    return _engine_search(game, s, alpha, beta, True, table, generation)


@njit(cache=True)
def action_values(game, s, exhaustive, table, generation, actions_out, values_out):
    """Each legal action of ``s`` and team 0's points from here on after it; returns how many.

    ``exhaustive`` selects :func:`minimax`, else :func:`alpha_beta` (exact, full window).
    """
    n = kernels.legal_actions(game, s, actions_out)
    for i in range(n):
        child = s.copy()
        kernels.apply_action(game, child, actions_out[i])
        gained = team_points(game, child) - team_points(game, s)
        if exhaustive:
            rest = minimax(game, child)
        else:
            rest = alpha_beta(game, child, -1000, 1000, table, generation)
        values_out[i] = gained + rest
    return n
