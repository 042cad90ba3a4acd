"""Single-observer Information Set Monte Carlo Tree Search, compiled with numba.

ISMCTS (Cowling, Powley & Whitehouse, 2012) searches one tree whose nodes are
the *searcher's* information sets. Each iteration

1. **determinizes**: draws a world consistent with everything the searcher
   knows (the game's belief-consistent sampler: hidden hands, the hidden
   trump of Twenty-Eight, Literature's card-location constraints);
2. **selects** down the tree, among the actions legal *in that world*, by UCB
   with *availability counts*: an action's exploration term counts how often
   it was available, not how often its parent was visited, because an
   opponent's card is only playable in the worlds where he holds it;
3. **expands** one new action, **rolls out** to the end with a fast policy
   (uniform random or the game's rule-based player) and
4. **backs up** the result, each edge crediting the return of the team of the
   player who chose it (partners share returns).

Edges are keyed by the action *as the searcher observes it*
(``kernels.observed_action``): a choice the searcher cannot see (a hidden
trump card placed by another player) is one edge, and the actual card is then
chosen by the rollout policy. Chance events below the root (a later deal
stage) are sampled and merged, the usual single-observer simplification.

With *progressive widening* a node offers only ``1 + widening * sqrt(visits)``
of its actions, the rule-based choice first (whatever the rollout policy), so
that a budget of a thousand simulations is not spread thin over fifteen bids.
Where the rule-based player scores every action (Literature's deduction
player), actions enter in its order of preference. Actions that are provably
no better than another (``kernels.dominant_action``: naming a card's known
holder in a claim) are not searched at all. Rollouts may stop after
``rollout_depth`` moves and score the position with the game's static
evaluation (``kernels.static_returns``), trading rollout noise for bias.

Determinization can also *infer* from the bidding: with a world pool, each
move first draws a pool of worlds and weights each by ``epsilon ** k``, where
k counts the others' bids that the game's rule-based player would not have
made holding that world's cards; iterations then draw worlds from the pool in
proportion to the weights. With no consistent world the weights are equal
and the search falls back to uniform worlds.

The tree lives in preallocated arrays, children are found through an
open-addressing hash table keyed by ``(parent, action)``, and the search runs
in chunks so that Python can stop it on a clock without numba reading one.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from cardlab.core.rng import random_below, random_unit
from cardlab.games import kernels

ROLLOUT_RANDOM = 0
ROLLOUT_RULES = 1
#: Progressive widening per game id (Kaiser, Twenty-Eight, Literature), tuned in duplicate
#: matches against the rule-based players: among Literature's dozens of asks the search
#: does best trying a few, in the deduction player's order (0.05, 0.1 and 0.2 were tried).
DEFAULT_WIDENING = np.array([1.0, 1.0, 0.1])
#: Rollout cut-off per game id, in moves after the tree (0 plays to the end), where the
#: game has a static evaluation (``kernels.static_returns``). Literature's rollouts are
#: long (a game is ~160 moves) and noisy; eight moves then the card-share evaluation was
#: as strong as fifteen and three times cheaper than playing out.
DEFAULT_ROLLOUT_DEPTH = np.array([0, 0, 8], dtype=np.int64)
ACTION_KEY_SPACE = 4096  # every action id of every game is below this
MAX_SEATS = 16
NO_NODE = -1

# Columns of the node table.
PARENT, ACTION, MOVER, VISITS, AVAILABLE = 0, 1, 2, 3, 4
NODE_COLUMNS = 5


class Tree:
    """The arrays of one search tree (a plain holder; all work is in the kernels)."""

    def __init__(self, capacity: int):
        self.capacity = int(capacity)
        self.nodes = np.zeros((self.capacity, NODE_COLUMNS), dtype=np.int64)
        self.reward = np.zeros(self.capacity, dtype=np.float64)
        table = 1
        while table < 2 * self.capacity:
            table *= 2
        self.keys = np.full(table, -1, dtype=np.int64)
        self.values = np.full(table, NO_NODE, dtype=np.int64)
        self.size = np.zeros(1, dtype=np.int64)  # nodes in use
        self.root = 0
        reset(self.nodes, self.reward, self.keys, self.values, self.size)

    @property
    def nbytes(self) -> int:
        return self.nodes.nbytes + self.reward.nbytes + self.keys.nbytes + self.values.nbytes


@njit(cache=True)
def reset(nodes, reward, keys, values, size):
    keys[:] = -1
    values[:] = NO_NODE
    nodes[0, PARENT] = NO_NODE
    nodes[0, ACTION] = -1
    nodes[0, MOVER] = -1
    nodes[0, VISITS] = 0
    nodes[0, AVAILABLE] = 0
    reward[0] = 0.0
    size[0] = 1


@njit(cache=True, inline="always")
def _slot(keys, key):
    mask = keys.shape[0] - 1
    slot = (key * 0x9E3779B1) & mask
    while keys[slot] != -1 and keys[slot] != key:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, inline="always")
def edge_key(parent, mover, action):
    """An edge is an action *of a given player*: who moves next can depend on hidden cards.

    (In Literature a failed ask hands the turn to the target, a successful one
    keeps it, so one node is reached with different players to move.)
    """
    return (parent * MAX_SEATS + mover) * ACTION_KEY_SPACE + action


@njit(cache=True)
def find_child(keys, values, parent, mover, action):
    slot = _slot(keys, edge_key(parent, mover, action))
    return values[slot] if keys[slot] != -1 else NO_NODE


@njit(cache=True)
def add_child(nodes, reward, keys, values, size, parent, action, mover):
    """Create the child; NO_NODE when the tree is full (the search then just rolls out)."""
    if size[0] >= nodes.shape[0]:
        return NO_NODE
    child = size[0]
    size[0] += 1
    nodes[child, PARENT] = parent
    nodes[child, ACTION] = action
    nodes[child, MOVER] = mover
    nodes[child, VISITS] = 0
    nodes[child, AVAILABLE] = 0
    reward[child] = 0.0
    key = edge_key(parent, mover, action)
    slot = _slot(keys, key)
    keys[slot] = key
    values[slot] = child
    return child


@njit(cache=True)
def policy_action(game, world, rollout, stream, legal):
    if rollout == ROLLOUT_RULES:
        return kernels.rules_action(game, world, stream)
    return kernels.random_action(game, world, stream, legal)


@njit(cache=True)
def build_world_pool(game, root_state, searcher, stream, pool, cumulative, epsilon):
    """Fill ``pool`` with sampled worlds and ``cumulative`` with their running weights."""
    total = 0.0
    for i in range(pool.shape[0]):
        world = kernels.resample(game, root_state, searcher, stream)
        pool[i, :] = world
        total += epsilon ** kernels.bidding_mismatches(game, world, searcher)
        cumulative[i] = total


@njit(cache=True)
def draw_world(game, root_state, searcher, stream, pool, cumulative):
    if pool.shape[0] == 0:
        return kernels.resample(game, root_state, searcher, stream)
    target = random_unit(stream) * cumulative[-1]
    index = min(np.searchsorted(cumulative, target, side="right"), pool.shape[0] - 1)
    return pool[index].copy()


@njit(cache=True)
def run_iterations(game, root_state, searcher, root, nodes, reward, keys, values, size,
                   iterations, exploration, rollout, stream, worlds_out, pool, cumulative,
                   widening, rollout_depth):
    """Run ``iterations`` ISMCTS iterations from ``root``; return how many ran.

    ``worlds_out`` (shape ``(k, state_size)``) receives the first k sampled worlds,
    for the debug check that every determinization fits the searcher's view.
    Worlds come from ``pool`` (weighted by ``cumulative``) when it is not empty.
    A positive ``rollout_depth`` stops each rollout after that many moves and
    scores the position with the game's static evaluation, if it has one.
    """
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    observed = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    children = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    scores = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.float64)
    path = np.empty(4096, dtype=np.int64)
    seat_returns = np.empty(16, dtype=np.float64)
    scale = kernels.utility_scale(game, root_state)
    for iteration in range(iterations):
        world = draw_world(game, root_state, searcher, stream, pool, cumulative)
        if iteration < worlds_out.shape[0]:
            worlds_out[iteration, :] = world
        node = root
        depth = 0
        expanded = False
        child = NO_NODE
        while True:
            player = kernels.current_player(game, world)
            if player == -4:
                break
            if player == -1:  # chance below the root: sample, merge
                kernels.apply_action(game, world, kernels.random_action(game, world, stream, legal))
                continue
            n = kernels.legal_actions(game, world, legal)
            forced = kernels.dominant_action(game, world)
            if forced >= 0:  # the other actions are provably no better: not worth a visit
                legal[0] = forced
                n = 1
            # How the searcher sees each legal action; a hidden choice collapses to one edge.
            distinct = 0
            for i in range(n):
                observed[i] = kernels.observed_action(game, world, legal[i], searcher)
                if i == 0 or observed[i] != observed[0]:
                    distinct += 1
            if distinct == 1 and n > 1:
                action = policy_action(game, world, rollout, stream, legal)
                child = find_child(keys, values, node, player, observed[0])
                if child == NO_NODE and not expanded:
                    child = add_child(nodes, reward, keys, values, size, node, observed[0], player)
                    expanded = True
                kernels.apply_action(game, world, action)
                if child == NO_NODE:
                    break
                nodes[child, AVAILABLE] += 1
                path[depth] = child
                depth += 1
                node = child
                continue
            # Availability counts, and the legal actions not yet in the tree.
            unexpanded = 0
            for i in range(n):
                children[i] = find_child(keys, values, node, player, observed[i])
                if children[i] == NO_NODE:
                    unexpanded += 1
                else:
                    nodes[children[i], AVAILABLE] += 1
            allowed = n
            if widening > 0.0:
                allowed = 1 + int(widening * math.sqrt(nodes[node, VISITS]))
            if unexpanded > 0 and not expanded and n - unexpanded < allowed:
                chosen = -1
                if widening > 0.0 and kernels.expansion_scores(game, world, legal, n, scores):
                    # in the rule-based player's order of preference, ties at random
                    best_score = -1e300
                    for i in range(n):
                        if children[i] == NO_NODE:
                            score = scores[i] + 1e-9 * random_unit(stream)
                            if score > best_score:
                                best_score = score
                                chosen = i
                elif widening > 0.0:  # the rule-based player's choice comes first
                    preferred = kernels.rules_action(game, world, stream)
                    for i in range(n):
                        if legal[i] == preferred and children[i] == NO_NODE:
                            chosen = i
                if chosen < 0:
                    pick = random_below(stream, unexpanded)
                    for i in range(n):
                        if children[i] == NO_NODE:
                            if pick == 0:
                                chosen = i
                                break
                            pick -= 1
                child = add_child(nodes, reward, keys, values, size, node, observed[chosen],
                                  player)
                kernels.apply_action(game, world, legal[chosen])
                expanded = True
                if child != NO_NODE:
                    nodes[child, AVAILABLE] += 1
                    path[depth] = child
                    depth += 1
                break
            if unexpanded == n:  # below the expansion point: leave the tree
                break
            # (with widening, unexpanded actions wait until the node has more visits)
            best = -1
            best_value = -1e300
            for i in range(n):
                child = children[i]
                if child == NO_NODE:
                    continue
                visits = nodes[child, VISITS]
                if visits == 0:
                    value = 1e300
                else:
                    value = reward[child] / visits + exploration * math.sqrt(
                        math.log(nodes[child, AVAILABLE]) / visits)
                if value > best_value:
                    best_value = value
                    best = i
            kernels.apply_action(game, world, legal[best])
            node = children[best]
            path[depth] = node
            depth += 1
        # Rollout to the end of the game, or to the cut-off.
        moves = 0
        evaluated = False
        while True:
            player = kernels.current_player(game, world)
            if player == -4:
                break
            if player == -1:
                action = kernels.random_action(game, world, stream, legal)
            else:
                if rollout_depth > 0 and moves >= rollout_depth:
                    evaluated = kernels.static_returns(game, world, seat_returns)
                    if evaluated:
                        break
                action = policy_action(game, world, rollout, stream, legal)
                moves += 1
            kernels.apply_action(game, world, action)
        if not evaluated:
            kernels.returns(game, world, seat_returns)
        nodes[root, VISITS] += 1
        for k in range(depth):
            child = path[k]
            nodes[child, VISITS] += 1
            reward[child] += seat_returns[nodes[child, MOVER]] / scale
    return iterations


@njit(cache=True)
def root_statistics(game, root_state, searcher, root, nodes, keys, values, out_visits):
    """Visits of each legal root action (in legal-action order); returns the count."""
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = kernels.legal_actions(game, root_state, legal)
    for i in range(n):
        child = find_child(keys, values, root, searcher,
                           kernels.observed_action(game, root_state, legal[i], searcher))
        out_visits[i] = nodes[child, VISITS] if child != NO_NODE else 0
    return n


@njit(cache=True)
def descend(game, state_before, actions, searcher, root, keys, values):
    """The node reached from ``root`` by ``actions`` applied to ``state_before``; NO_NODE if absent.

    Used to keep the tree between moves: chance actions are skipped (merged),
    every other action follows the edge the searcher observed.
    """
    world = state_before.copy()
    node = root
    for action in actions:
        player = kernels.current_player(game, world)
        if player != -1:
            node = find_child(keys, values, node, player,
                              kernels.observed_action(game, world, action, searcher))
            if node == NO_NODE:
                return NO_NODE
        kernels.apply_action(game, world, action)
    return node


@njit(cache=True)
def decide(game, state, searcher, simulations, exploration, rollout, world_pool, epsilon,
           widening, rollout_depth, stream):
    """One complete search from ``state`` and its most visited action: ISMCTS as a kernel.

    Allocates its own tree, so compiled tournament loops can call it for any
    seat of any game. A negative ``widening`` or ``rollout_depth`` takes the
    game's default.
    """
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = kernels.legal_actions(game, state, legal)
    if n == 1:
        return legal[0]
    forced = kernels.dominant_action(game, state)
    if forced >= 0:
        return forced
    if widening < 0.0:
        widening = DEFAULT_WIDENING[game]
    if rollout_depth < 0:
        rollout_depth = DEFAULT_ROLLOUT_DEPTH[game]
    capacity = simulations + 1
    nodes = np.zeros((capacity, NODE_COLUMNS), dtype=np.int64)
    reward = np.zeros(capacity, dtype=np.float64)
    table = 1
    while table < 2 * capacity:
        table *= 2
    keys = np.empty(table, dtype=np.int64)
    values = np.empty(table, dtype=np.int64)
    size = np.zeros(1, dtype=np.int64)
    reset(nodes, reward, keys, values, size)
    pool = np.zeros((world_pool, state.shape[0]), dtype=np.int64)
    cumulative = np.zeros(world_pool, dtype=np.float64)
    if world_pool > 0:
        build_world_pool(game, state, searcher, stream, pool, cumulative, epsilon)
    worlds = np.zeros((0, state.shape[0]), dtype=np.int64)
    run_iterations(game, state, searcher, 0, nodes, reward, keys, values, size, simulations,
                   exploration, rollout, stream, worlds, pool, cumulative, widening,
                   rollout_depth)
    visits = np.zeros(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    root_statistics(game, state, searcher, 0, nodes, keys, values, visits)
    best = 0
    for i in range(1, n):
        if visits[i] > visits[best]:
            best = i
    return legal[best]
