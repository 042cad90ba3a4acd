"""Local best response measured against the truth, on the small games solved exactly.

On a game small enough for its whole tree (:func:`cardlab.cfr.engine_tree.build_from_engine`),
everything LBR only estimates can be computed exactly for one responding seat
``p`` while every other seat plays the agent:

- the agent's policy as a table over the tree: at a representative state of
  each information set, the distribution the agent draws its move from
  (:func:`cardlab.arena.native.behaviour_policy`; ``random`` and ``rules``, whose
  distributions are known exactly);
- LBR's choice at each of ``p``'s information sets: the very kernel
  ``cardlab exploit`` plays (:func:`cardlab.evaluation.lbr.respond`), asked
  once at a representative state with its own seeded stream, which makes it
  one pure strategy for ``p``;
- what ``p`` expects with that strategy, with the agent's own play, and with
  a best response (:mod:`cardlab.cfr.evaluation`), each exactly over the tree.

LBR is one strategy of ``p``, so its value can never exceed the best
response's; what fraction of the best response's gain over the agent's own
play it reaches measures how tight the bound is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel
from numba import njit

from cardlab.arena import native
from cardlab.arena.entrants import AgentSpec
from cardlab.cfr.engine_tree import build_from_engine
from cardlab.cfr.evaluation import best_response_value, expected_values
from cardlab.cfr.tree import TERMINAL, GameTree
from cardlab.evaluation.lbr import make_responder, respond_at_states
from cardlab.games import kernels


@njit(cache=True)
def representative_states(game, initial, tree):
    """The engine state of the first node of each information set, in preorder (row i: set i)."""
    node_player, node_infoset = tree.node_player, tree.node_infoset
    first_edge, num_edges, edge_child, edge_action = (tree.first_edge, tree.num_edges, tree.edge_child,
                                                      tree.edge_action)
    states = np.empty((len(node_player), initial.shape[0]), dtype=np.int64)
    states[0] = initial
    out = np.empty((len(tree.infoset_player), initial.shape[0]), dtype=np.int64)
    seen = np.zeros(len(tree.infoset_player), dtype=np.bool_)
    for node in range(len(node_player)):  # preorder: a parent comes before its children
        if node_player[node] == TERMINAL:
            continue
        infoset = node_infoset[node]
        if infoset >= 0 and not seen[infoset]:
            seen[infoset] = True
            out[infoset] = states[node]
        for e in range(first_edge[node], first_edge[node] + num_edges[node]):
            states[edge_child[e]] = states[node]
            kernels.apply_action(game, states[edge_child[e]], edge_action[e])
    return out


@njit(cache=True)
def tabular_behaviour(game, allowed, states, offsets, infoset_actions, kinds, options, policies):
    """The agent's behaviour policy at each information set (per-action slots of the tree), or a
    negative first slot where its distribution is not known exactly."""
    policy = np.zeros(offsets[-1], dtype=np.float64)
    actions = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    probabilities = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.float64)
    for i in range(len(offsets) - 1):
        n = native.behaviour_policy(game, allowed, 0, kinds, options, policies, states[i], actions,
                                    probabilities)
        if n < 0:
            policy[offsets[i]] = -1.0
            return policy
        for k in range(offsets[i], offsets[i + 1]):
            for j in range(n):
                if actions[j] == infoset_actions[k]:
                    policy[k] = probabilities[j]
    return policy


@dataclass
class SeatCheck:
    """Seat ``seat`` responding alone, everyone else playing the agent: exact expected returns."""

    seat: int
    agent_value: float  # the seat playing the agent too
    lbr_value: float
    best_response_value: float

    @property
    def fraction(self) -> float:
        """LBR's share of the best response's gain over the agent's own play (1 when there is none)."""
        gain = self.best_response_value - self.agent_value
        return 1.0 if gain <= 1e-12 else (self.lbr_value - self.agent_value) / gain

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "agent_value": self.agent_value, "lbr_value": self.lbr_value,
                "best_response_value": self.best_response_value, "fraction": self.fraction}


def agent_policy_table(game: pyspiel.Game, tree: GameTree, agent: AgentSpec,
                       states: np.ndarray) -> np.ndarray:
    """``agent``'s behaviour policy over ``tree``; ``ValueError`` if its distribution is not known."""
    responder = make_responder(game, agent)
    arrays = tree.arrays
    policy = tabular_behaviour(responder.game_id, responder.allowed, states, arrays.infoset_offset,
                               arrays.infoset_actions, responder.kinds, responder.options, responder.policies)
    if policy[0] < 0 or np.any(policy < 0):
        raise ValueError(f"{agent.text()!r} has no exactly known action distribution (only random, "
                         f"rules and cfr-bidding do); its exact best response cannot be computed")
    return policy


def check_against_best_response(game: pyspiel.Game, agent: AgentSpec, options: dict[str, Any] | None = None,
                                seats: list[int] | None = None, seed: int = 0,
                                tree: GameTree | None = None) -> list[SeatCheck]:
    """For each of ``seats`` (default all): the exact values of LBR, the agent and a best response."""
    responder = make_responder(game, agent, options)
    tree = build_from_engine(game) if tree is None else tree
    arrays = tree.arrays
    states = representative_states(responder.game_id, responder.initial, arrays)
    policy = agent_policy_table(game, tree, agent, states)
    agent_values = expected_values(tree, policy)
    checks = []
    for seat in range(game.num_players()) if seats is None else seats:
        mine = np.flatnonzero(arrays.infoset_player == seat)
        alone = np.zeros(game.num_players(), dtype=np.bool_)
        alone[seat] = True
        chosen = respond_at_states(responder.game_id, responder.allowed, states[mine],
                                   np.full(len(mine), seat), alone, responder.kinds, responder.options,
                                   responder.policies, responder.row, seed + seat)
        mixed = policy.copy()
        for infoset, action in zip(mine, chosen, strict=True):
            low, high = arrays.infoset_offset[infoset], arrays.infoset_offset[infoset + 1]
            mixed[low:high] = arrays.infoset_actions[low:high] == action
        checks.append(SeatCheck(seat, float(agent_values[seat]), float(expected_values(tree, mixed)[seat]),
                                best_response_value(tree, policy, seat)))
    return checks


__all__ = ["SeatCheck", "agent_policy_table", "check_against_best_response", "representative_states"]
