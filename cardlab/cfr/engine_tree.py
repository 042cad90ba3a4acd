"""Build a :class:`~cardlab.cfr.tree.GameTree` by walking a cardlab engine's kernels, in numba.

The walk uses the numba dispatch of :mod:`cardlab.games.kernels` (legal
actions, apply, returns) and names each information set by the player's
64-bit information-state key, folded step by step from the observation
tokens (:mod:`cardlab.core.infostate`) exactly as
``EngineState.information_state_key`` folds a whole history. It starts from
the game's initial state, or from given histories (late-game positions, the
deals a player cannot tell apart), so a small variant of a game only needs
its parameters: ``build_from_engine(spec.load(parameters))``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel
from numba import njit, types
from numba.typed import Dict, List

from cardlab.cfr.tree import CHANCE, TERMINAL, FlatTree, GameTree
from cardlab.core import infostate
from cardlab.games import game_spec, kernels

#: Longest path from a root the walk accepts (its stack is allocated up front).
MAX_DEPTH = 512
#: Default bound on the nodes of a tree (a full-size game would never finish).
MAX_NODES = 20_000_000


@njit(cache=True)
def _array(values, dtype):
    """A typed list as an array (``np.asarray`` would go through Python element by element)."""
    out = np.empty(len(values), dtype=dtype)
    for i in range(len(values)):
        out[i] = values[i]
    return out


@njit(cache=True)
def _walk(game, roots, root_keys, root_probabilities, max_depth, max_nodes):
    """Preorder walk of every root's subtree; returns the node, edge and information-set lists.

    Long on purpose: one loop over an explicit stack, whose stack and growing lists stay in locals for
    the whole tree (split, numba would pass them through every call).
    """
    num_players = root_keys.shape[1]
    states = np.empty((max_depth + 1, roots.shape[1]), dtype=np.int64)
    keys = np.empty((max_depth + 1, num_players), dtype=np.uint64)
    own = np.zeros((max_depth + 1, num_players), dtype=np.int64)
    legal = np.empty((max_depth + 1, kernels.MAX_LEGAL_ACTIONS), dtype=np.int64)
    count = np.zeros(max_depth + 1, dtype=np.int64)
    next_k = np.zeros(max_depth + 1, dtype=np.int64)
    edge_of = np.full(max_depth + 1, -1, dtype=np.int64)  # the edge into each frame's node
    first_of = np.zeros(max_depth + 1, dtype=np.int64)
    returns = np.zeros(num_players)

    node_player, node_infoset, node_depth = List.empty_list(types.int64), List.empty_list(
        types.int64), List.empty_list(types.int64)
    first_edge, num_edges = List.empty_list(types.int64), List.empty_list(types.int64)
    utility = List.empty_list(types.float64)
    edge_child, edge_action = List.empty_list(types.int64), List.empty_list(types.int64)
    edge_probability = List.empty_list(types.float64)
    index = Dict.empty(types.uint64, types.int64)
    infoset_key, infoset_player = List.empty_list(types.uint64), List.empty_list(types.int64)
    infoset_depth, infoset_offset = List.empty_list(types.int64), List.empty_list(types.int64)
    infoset_actions = List.empty_list(types.int64)
    infoset_offset.append(0)

    if len(roots) > 1:  # a chance node over the roots
        node_player.append(CHANCE)
        node_infoset.append(-1)
        node_depth.append(0)
        first_edge.append(0)
        num_edges.append(len(roots))
        for _ in range(num_players):
            utility.append(0.0)
        for r in range(len(roots)):
            edge_child.append(-1)
            edge_action.append(r)
            edge_probability.append(root_probabilities[r])
    for r in range(len(roots)):
        states[0] = roots[r]
        keys[0] = root_keys[r]
        own[0] = 0
        edge_of[0] = r if len(roots) > 1 else -1
        depth = 0
        visiting = True
        while depth >= 0:
            if visiting:  # first visit of the node in frame `depth`: record it and its edges
                s = states[depth]
                node = len(node_player)
                if node == max_nodes:
                    raise ValueError("the tree has more nodes than max_nodes: solve a smaller "
                                     "variant or a later position")
                if edge_of[depth] >= 0:
                    edge_child[edge_of[depth]] = node
                player = kernels.current_player(game, s)
                infoset = -1
                n = 0
                if player == TERMINAL:
                    kernels.returns(game, s, returns)
                else:
                    n = kernels.legal_actions(game, s, legal[depth])
                    if player >= 0:
                        key = keys[depth, player]
                        if key in index:
                            infoset = index[key]
                            start = infoset_offset[infoset]
                            same = (infoset_player[infoset] == player
                                    and infoset_depth[infoset] == own[depth, player]
                                    and infoset_offset[infoset + 1] - start == n)
                            for k in range(n):
                                if same and infoset_actions[start + k] != legal[depth, k]:
                                    same = False
                            if not same:
                                raise ValueError("two nodes of one information set differ in "
                                                 "player, legal actions or own earlier decisions")
                        else:
                            infoset = len(infoset_player)
                            index[key] = infoset
                            infoset_key.append(key)
                            infoset_player.append(player)
                            infoset_depth.append(own[depth, player])
                            for k in range(n):
                                infoset_actions.append(legal[depth, k])
                            infoset_offset.append(len(infoset_actions))
                node_player.append(player)
                node_infoset.append(infoset)
                node_depth.append(own[depth, player] if player >= 0 else 0)
                first_edge.append(len(edge_child))
                num_edges.append(n)
                for q in range(num_players):
                    utility.append(returns[q] if player == TERMINAL else 0.0)
                first_of[depth] = len(edge_child)
                for k in range(n):
                    edge_child.append(-1)
                    edge_action.append(legal[depth, k])
                    edge_probability.append(1.0 / n if player == CHANCE else 1.0)
                count[depth] = n
                next_k[depth] = 0
            k = next_k[depth]
            if k == count[depth]:  # subtree done
                depth -= 1
                visiting = False
                continue
            if depth == max_depth:
                raise ValueError("the tree is deeper than MAX_DEPTH")
            next_k[depth] = k + 1
            s = states[depth]
            action = legal[depth, k]
            player = kernels.current_player(game, s)
            child = depth + 1
            for q in range(num_players):
                keys[child, q] = infostate.update_key(
                    keys[depth, q], kernels.observation_token(game, s, action, q))
            own[child] = own[depth]
            if player >= 0:
                own[child, player] += 1
            states[child] = s
            kernels.apply_action(game, states[child], action)
            edge_of[child] = first_of[depth] + k
            depth = child
            visiting = True
    return (_array(node_player, np.int64), _array(node_infoset, np.int64),
            _array(node_depth, np.int64), _array(first_edge, np.int64),
            _array(num_edges, np.int64), _array(utility, np.float64),
            _array(edge_child, np.int64), _array(edge_action, np.int64),
            _array(edge_probability, np.float64), _array(infoset_key, np.uint64),
            _array(infoset_player, np.int64), _array(infoset_depth, np.int64),
            _array(infoset_offset, np.int64), _array(infoset_actions, np.int64))


def build_from_engine(game: pyspiel.Game, histories: Sequence[Sequence[int]] | None = None,
                      probabilities: Sequence[float] | None = None,
                      max_nodes: int = MAX_NODES) -> GameTree:
    """The tree of a cardlab ``game`` below its initial state, or below ``histories`` (chance included).

    Several histories hang below a chance node with ``probabilities``
    (uniform if not given), in the order given. A tree of more than
    ``max_nodes`` nodes is refused (``ValueError``) rather than built.
    """
    spec = game_spec(game.get_type().short_name)
    initial = game.initial_array
    histories = [[]] if histories is None else [list(h) for h in histories]
    if probabilities is None:
        probabilities = [1.0 / len(histories)] * len(histories)
    probabilities = np.asarray(probabilities, dtype=np.float64)
    if (len(probabilities) != len(histories) or not len(histories) or probabilities.min() <= 0
            or abs(probabilities.sum() - 1.0) > 1e-9):
        raise ValueError(f"need one positive probability per history, summing to 1; got "
                         f"{probabilities.tolist()} for {len(histories)} histories")
    num_players = game.num_players()
    roots = np.empty((len(histories), len(initial)), dtype=np.int64)
    root_keys = np.empty((len(histories), num_players), dtype=np.uint64)
    for r, history in enumerate(histories):
        state = game.new_initial_state()
        for action in history:
            state.apply_action(action)  # checks legality, with the game's own message
        roots[r] = state.array
        actions = np.asarray(history, dtype=np.int64)
        for player in range(num_players):
            root_keys[r, player] = kernels.information_state_key(spec.kernel_id, initial, actions,
                                                                 player)
    (player, infoset, depth, first_edge, num_edges, utility, edge_child, edge_action,
     edge_probability, infoset_key, infoset_player, infoset_depth, infoset_offset,
     infoset_actions) = _walk(spec.kernel_id, roots, root_keys, probabilities, MAX_DEPTH,
                               max_nodes)
    arrays = FlatTree(
        node_player=player, node_infoset=infoset, node_depth=depth, first_edge=first_edge,
        num_edges=num_edges, edge_child=edge_child, edge_action=edge_action,
        edge_probability=edge_probability, utility=utility.reshape(-1, num_players),
        infoset_player=infoset_player, infoset_depth=infoset_depth,
        infoset_offset=infoset_offset, infoset_actions=infoset_actions,
    )
    names = tuple(str(int(key)) for key in infoset_key)
    return GameTree(arrays, num_players, names, naming="key")


def late_history(game: pyspiel.Game, actions_left: int, seed: int) -> list[int]:
    """A seeded random game's history, short of its last ``actions_left`` actions: a small root."""
    rng = np.random.default_rng(seed)
    state, history = game.new_initial_state(), []
    while not state.is_terminal():
        legal = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                 else state.legal_actions())
        action = int(rng.choice(legal))
        state.apply_action(action)
        history.append(action)
    return history[:len(history) - actions_left]
