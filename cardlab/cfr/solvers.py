"""Tabular counterfactual regret minimisation over a :class:`~cardlab.cfr.tree.FlatTree`, in numba.

One iteration of every variant is the same three compiled passes over the
node arrays: a forward pass for each player's probability of reaching each
node (parents come before children), a backward pass for each node's
expected value, and a pass over the decision nodes adding counterfactual
regrets and reach-weighted policy to the per-action arrays of their
information sets. The variants differ only in what happens to those sums:

===========  ==========================  ===============================  ==============
solver       regrets after a pass        average-policy weight (iter. t)  reference
===========  ==========================  ===============================  ==============
``cfr``      kept                        1 (``t`` with linear averaging)  Zinkevich 2007
``cfr+``     negatives reset to 0        ``t``                            Tammelin 2014
``dcfr``     positives x t^1.5/(t^1.5+1) ``t^2``                          Brown 2019
             negatives x 1/2
``lcfr``     all x t/(t+1)               ``t``                            Brown 2019
===========  ==========================  ===============================  ==============

Schedules: ``openspiel`` (each iteration updates every player in turn, the
current policy refreshed after each: OpenSpiel's ``CFRSolver``, whose
exploitability curve it reproduces), ``simultaneous`` (every player's regrets
from one evaluation of the same policy) and ``alternating`` (iteration ``t``
updates player ``(t - 1) mod P`` only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from cardlab.cfr.regret_matching import matched_policy
from cardlab.cfr.tree import CHANCE, TERMINAL, FlatTree, GameTree

SCHEDULES = ("openspiel", "simultaneous", "alternating")
#: The sampling solvers of :mod:`cardlab.cfr.mccfr` (named here, where the command line looks).
SAMPLERS = ("external", "outcome")
_OPENSPIEL, _SIMULTANEOUS, _ALTERNATING = range(3)


@dataclass(frozen=True)
class SolverRule:
    """What a solver does to regrets and to the average policy (module table)."""

    regret_matching_plus: bool = False
    discount: bool = False
    alpha: float = 0.0
    beta: float = 0.0
    gamma: float = 0.0


SOLVERS: dict[str, SolverRule] = {
    "cfr": SolverRule(),
    "cfr+": SolverRule(regret_matching_plus=True, gamma=1.0),
    "dcfr": SolverRule(discount=True, alpha=1.5, beta=0.0, gamma=2.0),
    "lcfr": SolverRule(discount=True, alpha=1.0, beta=1.0, gamma=1.0),
}


# Every kernel takes the arrays it loops over out of the tree record first: reading a field
# of the record inside a loop costs a reference count at every access.


@njit(cache=True)
def regret_matching(tree, regrets, policy, player):
    """Policy proportional to positive regret (uniform if none) at ``player``'s information sets (-1: all)."""
    offset, infoset_player = tree.infoset_offset, tree.infoset_player
    for i in range(len(infoset_player)):
        if player >= 0 and infoset_player[i] != player:
            continue
        matched_policy(regrets, offset[i], offset[i + 1] - offset[i], policy, offset[i])


@njit(cache=True)
def edge_weights(tree, policy, out):
    """The probability of every edge: chance's, or the acting player's ``policy``."""
    node_player, node_infoset = tree.node_player, tree.node_infoset
    first_edge, num_edges = tree.first_edge, tree.num_edges
    probability, offset = tree.edge_probability, tree.infoset_offset
    for node in range(len(node_player)):
        first = first_edge[node]
        if node_player[node] == CHANCE:
            for k in range(num_edges[node]):
                out[first + k] = probability[first + k]
        elif node_player[node] >= 0:
            base = offset[node_infoset[node]]
            for k in range(num_edges[node]):
                out[first + k] = policy[base + k]


@njit(cache=True)
def decision_index(tree, num_players):
    """The non-terminal nodes; each player's decision nodes, and its decision edges with their policy slots.

    Returns ``(inner, node_start, nodes, edge_start, edges, slots)``: the
    non-terminal nodes in preorder, then player ``p``'s
    nodes are ``nodes[node_start[p]:node_start[p + 1]]`` (in preorder), its
    edges ``edges[edge_start[p]:edge_start[p + 1]]`` and the policy entry of
    each edge ``slots[...]``, so that an update of one player touches only
    that player's part of the tree.
    """
    node_player, node_infoset = tree.node_player, tree.node_infoset
    first_edge, num_edges, offset = tree.first_edge, tree.num_edges, tree.infoset_offset
    node_start = np.zeros(num_players + 1, dtype=np.int64)
    edge_start = np.zeros(num_players + 1, dtype=np.int64)
    for node in range(len(node_player)):
        if node_player[node] >= 0:
            node_start[node_player[node] + 1] += 1
            edge_start[node_player[node] + 1] += num_edges[node]
    node_start = np.cumsum(node_start)
    edge_start = np.cumsum(edge_start)
    nodes = np.empty(node_start[-1], dtype=np.int64)
    edges = np.empty(edge_start[-1], dtype=np.int64)
    slots = np.empty(edge_start[-1], dtype=np.int64)
    next_node = node_start[:-1].copy()
    next_edge = edge_start[:-1].copy()
    for node in range(len(node_player)):
        player = node_player[node]
        if player < 0:
            continue
        nodes[next_node[player]] = node
        next_node[player] += 1
        base = offset[node_infoset[node]]
        for k in range(num_edges[node]):
            edges[next_edge[player]] = first_edge[node] + k
            slots[next_edge[player]] = base + k
            next_edge[player] += 1
    inner = np.flatnonzero(node_player != TERMINAL)
    return inner, node_start, nodes, edge_start, edges, slots


@njit(cache=True)
def reach_row(tree, inner, weights, reach, row):
    """``reach[row, n]``: how much player ``row`` (``row == P``: chance) contributes to reaching node n.

    ``inner`` lists the non-terminal nodes in preorder (the only ones with
    edges). One row per player keeps each pass to one contiguous array; the
    product along the path is OpenSpiel's, factor for factor.
    """
    node_player, first_edge = tree.node_player, tree.first_edge
    num_edges, edge_child = tree.num_edges, tree.edge_child
    mover_of_row = CHANCE if row == reach.shape[0] - 1 else row
    out = reach[row]
    out[0] = 1.0
    for node in inner:
        first = first_edge[node]
        here = out[node]
        if node_player[node] != mover_of_row:
            for e in range(first, first + num_edges[node]):
                out[edge_child[e]] = here
        else:
            for e in range(first, first + num_edges[node]):
                out[edge_child[e]] = here * weights[e]


@njit(cache=True)
def terminal_values(tree, values):
    """Fill ``values[p, n]`` with the utilities at the terminal nodes (they never change)."""
    for node in range(len(tree.node_player)):
        if tree.node_player[node] == TERMINAL:
            values[:, node] = tree.utility[node]


@njit(cache=True)
def node_values(tree, inner, weights, values, player):
    """``values[player, n]``: the player's expected return at node n when every edge has its weight.

    Only the non-terminal ``inner`` nodes are computed, deepest first: the
    terminal entries hold the utilities (:func:`terminal_values`).
    """
    first_edge, num_edges, edge_child = tree.first_edge, tree.num_edges, tree.edge_child
    out = values[player]
    for i in range(len(inner) - 1, -1, -1):
        node = inner[i]
        total = 0.0
        first = first_edge[node]
        for e in range(first, first + num_edges[node]):
            total += weights[e] * out[edge_child[e]]
        out[node] = total


@njit(cache=True)
def accumulate(tree, policy, reach, values, regrets, cumulative, nodes, weight):
    """Add counterfactual regrets and ``weight``-scaled reach-weighted policy at decision ``nodes``."""
    node_player, node_infoset, offset = tree.node_player, tree.node_infoset, tree.infoset_offset
    first_edge, num_edges, edge_child = tree.first_edge, tree.num_edges, tree.edge_child
    rows = reach.shape[0]
    for node in nodes:
        mover = node_player[node]
        before = 1.0
        for q in range(mover):
            before *= reach[q, node]
        after = 1.0
        for q in range(mover + 1, rows):
            after *= reach[q, node]
        counterfactual = before * after
        own = reach[mover, node]
        value = values[mover, node]
        base = offset[node_infoset[node]]
        first = first_edge[node]
        for k in range(num_edges[node]):
            child = edge_child[first + k]
            regrets[base + k] += counterfactual * (values[mover, child] - value)
            cumulative[base + k] += weight * own * policy[base + k]


@njit(cache=True)
def adjust_regrets(tree, regrets, player, plus, discount, alpha, beta, iteration):
    """CFR+'s reset of negative regrets, or DCFR's discount, at ``player``'s information sets (-1: all)."""
    if not plus and not discount:
        return
    t = float(iteration)
    positive = t ** alpha / (t ** alpha + 1.0)
    negative = t ** beta / (t ** beta + 1.0)
    offset, infoset_player = tree.infoset_offset, tree.infoset_player
    for i in range(len(infoset_player)):
        if player >= 0 and infoset_player[i] != player:
            continue
        for a in range(offset[i], offset[i + 1]):
            if plus:
                if regrets[a] < 0:
                    regrets[a] = 0.0
            elif regrets[a] >= 0:
                regrets[a] *= positive
            else:
                regrets[a] *= negative


@njit(cache=True)
def _update(tree, index, policy, weights, reach, stale, values, regrets, cumulative, player,
            iteration, plus, discount, alpha, beta, gamma):
    """One regret update of ``player`` (-1: all at once) with the policy as it stands."""
    inner, node_start, nodes, edge_start, edges, slots = index
    num_players = values.shape[0]
    low, high = (0, num_players) if player < 0 else (player, player + 1)
    for q in range(num_players + 1):  # rows of players whose policy changed since computed
        if stale[q]:
            reach_row(tree, inner, weights, reach, q)
            stale[q] = False
    for q in range(low, high):
        node_values(tree, inner, weights, values, q)
    accumulate(tree, policy, reach, values, regrets, cumulative,
               nodes[node_start[low]:node_start[high]], float(iteration) ** gamma)
    adjust_regrets(tree, regrets, player, plus, discount, alpha, beta, iteration)
    regret_matching(tree, regrets, policy, player)
    for e in range(edge_start[low], edge_start[high]):
        weights[edges[e]] = policy[slots[e]]
    stale[low:high] = True


@njit(cache=True)
def run_iterations(tree, policy, regrets, cumulative, first_iteration, count,
                   schedule, plus, discount, alpha, beta, gamma):
    """Iterations ``first_iteration .. first_iteration + count - 1`` (numbered from 1)."""
    num_players = tree.utility.shape[1]
    num_nodes = len(tree.node_player)
    index = decision_index(tree, num_players)
    reach = np.empty((num_players + 1, num_nodes))
    values = np.empty((num_players, num_nodes))
    terminal_values(tree, values)
    stale = np.ones(num_players + 1, dtype=np.bool_)
    weights = np.empty(len(tree.edge_child))
    edge_weights(tree, policy, weights)
    for iteration in range(first_iteration, first_iteration + count):
        if schedule == _SIMULTANEOUS:
            _update(tree, index, policy, weights, reach, stale, values, regrets, cumulative, -1,
                    iteration, plus, discount, alpha, beta, gamma)
        elif schedule == _ALTERNATING:
            _update(tree, index, policy, weights, reach, stale, values, regrets, cumulative,
                    (iteration - 1) % num_players, iteration, plus, discount, alpha, beta, gamma)
        else:
            for player in range(num_players):
                _update(tree, index, policy, weights, reach, stale, values, regrets, cumulative,
                        player, iteration, plus, discount, alpha, beta, gamma)


@njit(cache=True)
def normalized_policy(tree, cumulative, out):
    """``cumulative`` normalized per information set (uniform where it sums to 0): the average policy."""
    offset = tree.infoset_offset
    for i in range(len(offset) - 1):
        total = 0.0
        for a in range(offset[i], offset[i + 1]):
            total += cumulative[a]
        for a in range(offset[i], offset[i + 1]):
            out[a] = cumulative[a] / total if total > 0 else 1.0 / (offset[i + 1] - offset[i])


class TabularSolver:
    """A tabular solver's state over one tree: regrets, the current and the cumulative policy.

    ``iteration`` counts completed iterations; :meth:`state_arrays` and
    :meth:`restore` give and take everything needed to continue bit for bit.
    """

    def __init__(self, tree: GameTree, solver: str = "cfr", schedule: str = "openspiel",
                 linear_averaging: bool = False):
        if solver not in SOLVERS:
            raise ValueError(f"unknown solver {solver!r}; choose from {', '.join(SOLVERS)}")
        if schedule not in SCHEDULES:
            raise ValueError(f"unknown schedule {schedule!r}; choose from {', '.join(SCHEDULES)}")
        if linear_averaging and solver != "cfr":
            raise ValueError(f"linear_averaging applies to 'cfr' only; {solver!r} fixes its weights")
        self.tree = tree
        self.solver = solver
        self.schedule = schedule
        self.linear_averaging = linear_averaging
        rule = SOLVERS[solver]
        self._rule = (rule.regret_matching_plus, rule.discount, rule.alpha, rule.beta,
                      1.0 if linear_averaging else rule.gamma)
        self.iteration = 0
        self.regrets = np.zeros(tree.num_actions)
        self.cumulative = np.zeros(tree.num_actions)
        self.policy = tree.uniform_policy()

    @property
    def arrays(self) -> FlatTree:
        return self.tree.arrays

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        run_iterations(self.arrays, self.policy, self.regrets, self.cumulative,
                       self.iteration + 1, iterations,
                       SCHEDULES.index(self.schedule), *self._rule)
        self.iteration += iterations

    def average_policy(self) -> np.ndarray:
        """The average policy, per information-set action: the one that converges to equilibrium."""
        out = np.empty(self.tree.num_actions)
        normalized_policy(self.arrays, self.cumulative, out)
        return out

    def state_arrays(self) -> dict[str, np.ndarray]:
        """Everything that determines the next iterations (for checkpoints)."""
        return {"regrets": self.regrets.copy(), "cumulative": self.cumulative.copy(),
                "current_policy": self.policy.copy()}

    def restore(self, arrays: dict[str, np.ndarray], iteration: int) -> None:
        """Continue from a checkpoint of :meth:`state_arrays` taken after ``iteration`` iterations."""
        for name in ("regrets", "cumulative", "current_policy"):
            if name not in arrays or arrays[name].shape != (self.tree.num_actions,):
                raise ValueError(f"checkpoint has no {name} array of {self.tree.num_actions} "
                                 f"information-set actions")
        self.regrets = np.array(arrays["regrets"], dtype=np.float64)
        self.cumulative = np.array(arrays["cumulative"], dtype=np.float64)
        self.policy = np.array(arrays["current_policy"], dtype=np.float64)
        self.iteration = int(iteration)
