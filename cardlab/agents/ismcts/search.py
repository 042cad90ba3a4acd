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
3. **expands** one new action and **values the leaf**, with the evaluator
   the options choose: a rollout to the end with a fast policy (uniform
   random or the game's rule-based player), or the value head of a
   policy-and-value network (``value=net``), and
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
holder in a claim) are not searched at all.

With ``prior=net`` the network's policy takes the rule-based player's place,
as in AlphaZero: widening offers actions in the order of the policy's
probabilities (for the player to move in the world of the iteration that
expands them), each edge keeps its probability, and selection is PUCT,
``Q + puct * P * sqrt(available) / (1 + visits)``, with availability counts in
place of the parent's visits. The network code is compiled only into the
searches that use one: the kernels take ``networked``, a literal (0 or 1), and
the steps that read the network are chosen by it
(:func:`cardlab.core.specialize.by_key`). Rollouts may stop after
``rollout_depth`` moves and score the position with the game's static
evaluation (``kernels.static_returns``), trading rollout noise for bias.

Determinization can also *infer* from the bidding: with a world pool, each
move first draws a pool of worlds and weights each by ``epsilon ** k``, where
k counts the others' bids that the game's rule-based player would not have
made holding that world's cards; iterations then draw worlds from the pool in
proportion to the weights. With no consistent world the weights are equal
and the search falls back to uniform worlds.

Each step is a kernel of its own (:func:`determinize`, :func:`select_and_expand`,
:func:`evaluate_leaf`, :func:`back_up`), driven by :func:`run_iterations`; the
agent's options arrive as one float row whose columns are named in
:mod:`cardlab.agents.ismcts.options`, the same row the compiled arena passes.
The tree lives in preallocated arrays, each node's children in a list threaded
through the node table (a node is entered once per simulation, and its few
children are laid out by action there, so each legal action costs one array
read), and the search runs in chunks so that Python can stop it on a clock
without numba reading one.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from cardlab.agents.inference import holder_log_beliefs, world_log_belief
from cardlab.agents.ismcts.options import (
    EPSILON,
    EXPLORATION,
    INFERENCE,
    INFERENCE_NONE,
    INFERENCE_WEIGHT,
    PRIOR,
    PRIOR_RULES,
    PUCT,
    ROLLOUT,
    ROLLOUT_DEPTH,
    ROLLOUT_RANDOM,
    ROLLOUT_RULES,
    SIMULATIONS,
    VALUE,
    VALUE_ROLLOUT,
    WIDENING,
    WORLD_POOL,
)
from cardlab.agents.network import (
    ACTIONS,
    BELIEFS_AT,
    SHAPE_WIDTH,
    beliefs_network,
    evaluate_legal,
    softmax_scores,
)
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER
from cardlab.core.layout import copy_state
from cardlab.core.rng import random_below, random_unit
from cardlab.core.specialize import by_key
from cardlab.games import kernels

ACTION_KEY_SPACE = 4096  # every action id of every game, and HIDDEN_ACTION, is below this
MAX_SEATS = 16
MAX_DEPTH = 4096  # more moves than any game has: the longest path through a tree
NO_NODE = -1

# Columns of the node table: the edge into the node, its counts, its place among its
# parent's children (the newest first) and the network's probability of its action
# (``prior=net``), in units of PRIOR_UNIT so that the table stays one integer array.
PARENT, ACTION, MOVER, VISITS, AVAILABLE, FIRST_CHILD, NEXT_SIBLING, PRIOR_SHARE = 0, 1, 2, 3, 4, 5, 6, 7
NODE_COLUMNS = 8
PRIOR_UNIT = 1 << 30

# ``networked``: the search reads a policy-and-value network (0: it has none, nothing of it compiled).
WITHOUT_NETWORK, WITH_NETWORK = 0, 1


class Tree:
    """The arrays of one search tree (a plain holder; all work is in the kernels).

    ``nodes`` has a row per node (columns ``PARENT`` .. ``NEXT_SIBLING``),
    ``reward`` each node's summed return for the player who chose it, and
    ``size[0]`` the number of nodes in use.
    """

    def __init__(self, capacity: int):
        self.capacity = int(capacity)
        self.nodes, self.reward, self.size = new_tree(self.capacity)
        self.root = 0

    @property
    def nbytes(self) -> int:
        return self.nodes.nbytes + self.reward.nbytes

    def clear(self) -> None:
        """Back to the root alone."""
        reset(self.nodes, self.reward, self.size)
        self.root = 0


@njit(cache=True)
def new_tree(capacity):
    """The arrays of an empty tree with room for ``capacity`` nodes: nodes, reward, size."""
    nodes = np.zeros((capacity, NODE_COLUMNS), dtype=np.int64)
    reward = np.zeros(capacity, dtype=np.float64)
    size = np.zeros(1, dtype=np.int64)
    reset(nodes, reward, size)
    return nodes, reward, size


@njit(cache=True)
def reset(nodes, reward, size):
    """Empty the tree: the root alone, no children."""
    nodes[0, PARENT] = NO_NODE
    nodes[0, ACTION] = -1
    nodes[0, MOVER] = -1
    nodes[0, VISITS] = 0
    nodes[0, AVAILABLE] = 0
    nodes[0, FIRST_CHILD] = NO_NODE
    nodes[0, NEXT_SIBLING] = NO_NODE
    nodes[0, PRIOR_SHARE] = PRIOR_UNIT
    reward[0] = 0.0
    size[0] = 1


@njit(cache=True)
def find_child(nodes, parent, mover, action):
    """The child ``parent`` reaches by ``mover``'s ``action``, or NO_NODE.

    An edge is an action *of a given player*: who moves next can depend on
    hidden cards (in Literature a failed ask hands the turn to the target, a
    successful one keeps it, so one node is reached with different players to move).
    """
    child = nodes[parent, FIRST_CHILD]
    while child != NO_NODE and (nodes[child, ACTION] != action or nodes[child, MOVER] != mover):
        child = nodes[child, NEXT_SIBLING]
    return child


@njit(cache=True)
def add_child(nodes, reward, size, parent, action, mover):
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
    nodes[child, FIRST_CHILD] = NO_NODE
    nodes[child, NEXT_SIBLING] = nodes[parent, FIRST_CHILD]
    nodes[child, PRIOR_SHARE] = PRIOR_UNIT
    nodes[parent, FIRST_CHILD] = child
    reward[child] = 0.0
    return child


@njit(cache=True)
def policy_action(game, world, rollout, stream, legal):
    if rollout == ROLLOUT_RULES:
        return kernels.rules_action(game, world, stream)
    return kernels.random_action(game, world, stream, legal)


# The steps of an iteration are separate kernels for reading, merged again by LLVM
# (``forceinline``): as calls, or inlined by numba itself, their array arguments cost
# 3-7% of the iteration rate in reference counting.

# ---- determinize ---------------------------------------------------------------------
@njit(cache=True, inline="always")
def draw_world_pool(game, root_state, searcher, stream, options, networked, network):
    """The move's pool of worlds and their running weights (empty without a ``world_pool``).

    A world weighs ``epsilon ** k``, k the others' bids it does not explain, and
    with ``inference=net`` (a ``networked`` search) times its belief (:func:`weigh_by_beliefs`).
    """
    size = np.int64(options[WORLD_POOL])
    pool = np.zeros((size, root_state.shape[0]), dtype=np.int64)
    cumulative = np.zeros(size, dtype=np.float64)
    for i in range(size):
        world = kernels.resample(game, root_state, searcher, stream)
        pool[i, :] = world
        cumulative[i] = options[EPSILON] ** kernels.bidding_mismatches(game, world, searcher)
    weigh_worlds(networked, game, root_state, searcher, options, network, pool, cumulative)
    total = 0.0
    for i in range(size):
        total += cumulative[i]
        cumulative[i] = total
    return pool, cumulative


@njit(cache=True, inline="always")
def keep_weights(game, root_state, searcher, options, network, pool, weights):
    """A search without networks weighs its worlds by the bids alone."""
    return


@njit(cache=True, inline="always")
def weigh_by_beliefs(game, root_state, searcher, options, network, pool, weights):
    """With ``inference=net``: each world's weight times ``belief ** inference_weight``, the belief
    the hand-inference model (from the searcher's observation, once a move) gives to where the world
    puts the cards of the other hands (:func:`cardlab.agents.inference.world_log_belief`)."""
    if np.int64(options[INFERENCE]) == INFERENCE_NONE or pool.shape[0] == 0:
        return
    belief_weights, belief_shape = beliefs_network(network[0], network[1])
    others = kernels.num_players(game, root_state) - 1
    cards = belief_shape[ACTIONS] // others
    log_beliefs = np.empty((cards, others), dtype=np.float64)
    holder_log_beliefs(game, belief_weights, belief_shape, root_state, searcher, cards, others, log_beliefs)
    logs = np.empty(pool.shape[0], dtype=np.float64)
    for i in range(pool.shape[0]):
        logs[i] = world_log_belief(game, pool[i], searcher, log_beliefs)
    top = logs.max()
    for i in range(pool.shape[0]):
        weights[i] *= np.exp(options[INFERENCE_WEIGHT] * (logs[i] - top))


#: ``weigh_worlds(networked, game, root_state, searcher, options, network, pool, weights)``: the
#: pool's weights times what its networks believe (a search without them compiles none of it).
weigh_worlds = by_key("weigh_worlds", {WITHOUT_NETWORK: keep_weights, WITH_NETWORK: weigh_by_beliefs})


@njit(cache=True, forceinline=True)
def determinize(game, root_state, searcher, stream, pool, cumulative, world):
    """A world consistent with the searcher's information: from the pool if any (copied into
    ``world``, which it returns: no array a simulation), else drawn uniformly."""
    if pool.shape[0] == 0:
        return kernels.resample(game, root_state, searcher, stream)
    target = random_unit(stream) * cumulative[-1]
    index = min(np.searchsorted(cumulative, target, side="right"), pool.shape[0] - 1)
    copy_state(world, pool[index])
    return world


# ---- select and expand -----------------------------------------------------------------
@njit(cache=True, forceinline=True)
def observe_actions(game, world, searcher, legal, n, observed):
    """Fill ``observed`` with each legal action as the searcher sees it; True if all look alike."""
    alike = True
    for i in range(n):
        observed[i] = kernels.observed_action(game, world, legal[i], searcher)
        if observed[i] != observed[0]:
            alike = False
    return alike


@njit(cache=True, forceinline=True)
def known_children(nodes, node, player, observed, n, children, child_of, laid_out):
    """Each action's child, or NO_NODE; counts one availability per child; returns the missing.

    ``player``'s children of ``node`` are first laid out by action: ``child_of[a]``
    holds where ``laid_out[a]`` names this node and player (a node's child by an
    action never changes, so an older lay-out of the same node is still right).
    """
    stamp = node * MAX_SEATS + player
    child = nodes[node, FIRST_CHILD]
    while child != NO_NODE:
        if nodes[child, MOVER] == player:
            child_of[nodes[child, ACTION]] = child
            laid_out[nodes[child, ACTION]] = stamp
        child = nodes[child, NEXT_SIBLING]
    unexpanded = 0
    for i in range(n):
        if laid_out[observed[i]] == stamp:
            children[i] = child_of[observed[i]]
            nodes[children[i], AVAILABLE] += 1
        else:
            children[i] = NO_NODE
            unexpanded += 1
    return unexpanded


@njit(cache=True, forceinline=True)
def widened_width(widening, visits, n):
    """How many of its ``n`` actions a node with ``visits`` offers (all without widening)."""
    if widening > 0.0:
        return 1 + int(widening * math.sqrt(visits))
    return n


@njit(cache=True, forceinline=True)
def best_unexpanded(children, n, scores, stream):
    """The index of the unexpanded action with the highest score, ties broken at random."""
    chosen = -1
    best_score = -1e300
    for i in range(n):
        if children[i] == NO_NODE:
            score = scores[i] + 1e-9 * random_unit(stream)
            if score > best_score:
                best_score = score
                chosen = i
    return chosen


@njit(cache=True, forceinline=True)
def rules_expansion_choice(game, world, player, options, legal, n, children, unexpanded, stream,
                           scores, network):
    """The index of the action to add to the tree, among the ``unexpanded`` ones.

    With widening, the rule-based player's preferences come first: in its
    order of preference (ties at random) where it scores every action, else
    its choice; otherwise, or when its choice is already in the tree, at random.
    (``network`` is unused: the signature of :data:`expansion_choice`.)
    """
    widening = options[WIDENING]
    chosen = -1
    if widening > 0.0 and kernels.expansion_scores(game, world, legal, n, scores):
        chosen = best_unexpanded(children, n, scores, stream)
    elif widening > 0.0:
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
    scores[chosen] = 1.0
    return chosen


@njit(cache=True, forceinline=True)
def network_expansion_choice(game, world, player, options, legal, n, children, unexpanded, stream,
                             scores, network):
    """:func:`rules_expansion_choice`, or with ``prior=net`` the unexpanded action the network's
    policy for ``player`` likes best (ties at random); ``scores[chosen]`` is its probability."""
    if np.int64(options[PRIOR]) == PRIOR_RULES:
        return rules_expansion_choice(game, world, player, options, legal, n, children, unexpanded,
                                      stream, scores, network)
    weights, shape = network
    evaluate_legal(game, weights, shape, world, player, legal, n, scores)
    softmax_scores(scores, n, 1.0)
    return best_unexpanded(children, n, scores, stream)


#: ``expansion_choice(networked, game, world, player, options, legal, n, children, unexpanded,
#: stream, scores, network)``: the index of the legal action to add to the tree, its
#: prior probability left in ``scores[chosen]`` (1 where no network orders the actions).
expansion_choice = by_key("expansion_choice", {WITHOUT_NETWORK: rules_expansion_choice,
                                               WITH_NETWORK: network_expansion_choice})


@njit(cache=True, forceinline=True)
def child_choice(nodes, reward, children, n, options):
    """The index of the child to follow down the tree: the best by UCB, exploration counted by
    availability, or with ``prior=net`` by PUCT, ``Q + puct * P * sqrt(available) / (1 + visits)``."""
    by_prior = np.int64(options[PRIOR]) != PRIOR_RULES
    exploration = options[EXPLORATION]
    weight = options[PUCT] / PRIOR_UNIT
    best = -1
    best_value = -1e300
    for i in range(n):
        child = children[i]
        if child == NO_NODE:
            continue
        visits = nodes[child, VISITS]
        if visits == 0:
            value = 1e300
        elif by_prior:
            value = reward[child] / visits + weight * nodes[child, PRIOR_SHARE] * math.sqrt(
                nodes[child, AVAILABLE]) / (1 + visits)
        else:
            value = reward[child] / visits + exploration * math.sqrt(
                math.log(nodes[child, AVAILABLE]) / visits)
        if value > best_value:
            best_value = value
            best = i
    return best


@njit(cache=True, forceinline=True)
def select_and_expand(game, world, searcher, options, root, nodes, reward, size, stream,
                      legal, observed, children, scores, child_of, laid_out, path,
                      networked, network):
    """Play ``world`` down the tree from ``root``, adding one node; return the path's length.

    ``path`` receives the nodes entered, the new one last if the tree had
    room; ``world`` is left at the leaf. ``legal`` .. ``laid_out`` are buffers
    (the last two of :func:`known_children`); ``network`` is the flat weights
    and shape row of the network that ``networked`` searches read.
    """
    node = root
    depth = 0
    expanded = False
    while True:
        player = kernels.current_player(game, world)
        if player == TERMINAL_PLAYER:
            break
        if player == CHANCE_PLAYER:  # chance below the root: sample, merge
            kernels.apply_action(game, world, kernels.random_action(game, world, stream, legal))
            continue
        n = kernels.legal_actions(game, world, legal)
        forced = kernels.dominant_action(game, world)
        if forced >= 0:  # the other actions are provably no better: not worth a visit
            legal[0] = forced
            n = 1
        if observe_actions(game, world, searcher, legal, n, observed) and n > 1:
            # A choice hidden from the searcher is one edge; the rollout policy picks the action.
            action = policy_action(game, world, np.int64(options[ROLLOUT]), stream, legal)
            child = find_child(nodes, node, player, observed[0])
            if child == NO_NODE and not expanded:
                child = add_child(nodes, reward, size, node, observed[0], player)
                expanded = True
            kernels.apply_action(game, world, action)
            if child == NO_NODE:
                break
            nodes[child, AVAILABLE] += 1
            path[depth] = child
            depth += 1
            node = child
            continue
        unexpanded = known_children(nodes, node, player, observed, n, children, child_of, laid_out)
        if (unexpanded > 0 and not expanded
                and n - unexpanded < widened_width(options[WIDENING], nodes[node, VISITS], n)):
            chosen = expansion_choice(networked, game, world, player, options, legal, n, children,
                                      unexpanded, stream, scores, network)
            child = add_child(nodes, reward, size, node, observed[chosen], player)
            kernels.apply_action(game, world, legal[chosen])
            if child != NO_NODE:
                nodes[child, PRIOR_SHARE] = np.int64(scores[chosen] * PRIOR_UNIT)
                nodes[child, AVAILABLE] += 1
                path[depth] = child
                depth += 1
            break
        if unexpanded == n:  # below the expansion point: leave the tree
            break
        # (with widening, unexpanded actions wait until the node has more visits)
        best = child_choice(nodes, reward, children, n, options)
        kernels.apply_action(game, world, legal[best])
        node = children[best]
        path[depth] = node
        depth += 1
    return depth


# ---- evaluate the leaf --------------------------------------------------------------------
@njit(cache=True, forceinline=True)
def rollout(game, world, policy, depth, stream, legal, seat_returns):
    """Play ``world`` on with the rollout ``policy``; fill ``seat_returns`` with each seat's return.

    A positive ``depth`` stops after that many moves and scores the position
    with the game's static evaluation (``kernels.static_returns``), if it has one.
    """
    if policy == ROLLOUT_RANDOM and kernels.random_playout(game, world, stream, legal):
        kernels.returns(game, world, seat_returns)
        return
    moves = 0
    while True:
        if policy == ROLLOUT_RULES and depth <= 0:  # the game's own loop, where it has one
            moves += kernels.rules_playout(game, world)
        player = kernels.current_player(game, world)
        if player == TERMINAL_PLAYER:
            break
        if player == CHANCE_PLAYER:
            action = kernels.random_action(game, world, stream, legal)
        else:
            if depth > 0 and moves >= depth and kernels.static_returns(game, world, seat_returns):
                return
            action = policy_action(game, world, policy, stream, legal)
            moves += 1
        if policy == ROLLOUT_RULES:  # the rule-based player reads what the game recorded
            kernels.apply_action(game, world, action)
        else:
            kernels.apply_in_random_playout(game, world, action)
    kernels.returns(game, world, seat_returns)


@njit(cache=True, forceinline=True)
def rollout_value(game, world, options, stream, legal, seat_returns, network):
    """Fill ``seat_returns`` with each seat's return at the end of a rollout from ``world``.

    (``network`` is unused: the signature of :data:`evaluate_leaf`.)
    """
    rollout(game, world, np.int64(options[ROLLOUT]), np.int64(options[ROLLOUT_DEPTH]), stream,
            legal, seat_returns)


@njit(cache=True, forceinline=True)
def network_value(game, world, options, stream, legal, seat_returns, network):
    """:func:`rollout_value`, or with ``value=net`` the network's value of ``world``.

    Chance moves are sampled up to the next decision (or the end, scored by
    the rules). The value head estimates the return of the player to move,
    over the game's utility scale: that player's side gets it, and the other
    seats share its negative equally, the returns being zero-sum.
    """
    if np.int64(options[VALUE]) == VALUE_ROLLOUT:
        rollout_value(game, world, options, stream, legal, seat_returns, network)
        return
    player = kernels.current_player(game, world)
    while player == CHANCE_PLAYER:
        kernels.apply_action(game, world, kernels.random_action(game, world, stream, legal))
        player = kernels.current_player(game, world)
    if player == TERMINAL_PLAYER:
        kernels.returns(game, world, seat_returns)
        return
    weights, shape = network
    value = evaluate_legal(game, weights, shape, world, player, legal, 0, seat_returns)  # the value only
    value *= kernels.utility_scale(game, world)
    players = kernels.num_players(game, world)
    side = kernels.side_of(game, world, player)
    own = 0
    for seat in range(players):
        if kernels.side_of(game, world, seat) == side:
            own += 1
    for seat in range(players):
        if kernels.side_of(game, world, seat) == side:
            seat_returns[seat] = value
        else:
            seat_returns[seat] = -value * own / (players - own)


#: ``evaluate_leaf(networked, game, world, options, stream, legal, seat_returns, network)``: fill
#: ``seat_returns`` with the value of the leaf ``world`` to each seat, by the evaluator the
#: ``value`` option chooses. The one place a leaf evaluator plugs in.
evaluate_leaf = by_key("evaluate_leaf", {WITHOUT_NETWORK: rollout_value, WITH_NETWORK: network_value})


# ---- back up -------------------------------------------------------------------------------
@njit(cache=True, forceinline=True)
def back_up(nodes, reward, root, path, depth, seat_returns, scale):
    """One more visit for the root and each node of ``path``; each credits its mover's return."""
    nodes[root, VISITS] += 1
    for k in range(depth):
        child = path[k]
        nodes[child, VISITS] += 1
        reward[child] += seat_returns[nodes[child, MOVER]] / scale


@njit(cache=True, inline="always")
def run_iterations(game, root_state, searcher, options, iterations, root, nodes, reward, size,
                   stream, pool, cumulative, worlds_out, networked, network):
    """Run ``iterations`` ISMCTS iterations from ``root``; return how many ran.

    ``options`` is the agent's options row (``cardlab.agents.ismcts.OPTIONS``);
    ``nodes``, ``reward`` and ``size`` are a :class:`Tree`'s arrays. Worlds come from
    ``pool`` (weighted by ``cumulative``) when it is not empty, and
    ``worlds_out`` (shape ``(k, state_size)``) receives the first k of them,
    for the debug check that every determinization fits the searcher's view.
    ``network`` is ``(weights, shape)`` (:func:`cardlab.agents.network.flat_weights`),
    read where ``networked`` is WITH_NETWORK (else :data:`NO_NETWORK`).
    """
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    observed = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    children = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    scores = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.float64)
    child_of = np.empty(ACTION_KEY_SPACE, dtype=np.int64)
    laid_out = np.full(ACTION_KEY_SPACE, -1, dtype=np.int64)
    path = np.empty(MAX_DEPTH, dtype=np.int64)
    seat_returns = np.empty(MAX_SEATS, dtype=np.float64)
    world_buffer = np.empty(root_state.shape[0], dtype=np.int64)
    scale = kernels.utility_scale(game, root_state)
    if networked == WITHOUT_NETWORK and (options[PRIOR] != PRIOR_RULES or options[VALUE] != VALUE_ROLLOUT):
        raise ValueError("ismcts: prior=net and value=net need a search given the network")
    for iteration in range(iterations):
        world = determinize(game, root_state, searcher, stream, pool, cumulative, world_buffer)
        if iteration < worlds_out.shape[0]:
            worlds_out[iteration, :] = world
        depth = select_and_expand(game, world, searcher, options, root, nodes, reward, size, stream,
                                  legal, observed, children, scores, child_of, laid_out, path,
                                  networked, network)
        evaluate_leaf(networked, game, world, options, stream, legal, seat_returns, network)
        back_up(nodes, reward, root, path, depth, seat_returns, scale)
    return iterations


# ---- using the tree ------------------------------------------------------------------------
@njit(cache=True)
def root_statistics(game, root_state, searcher, root, nodes, out_visits):
    """Visits of each legal root action (in legal-action order); returns the count."""
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = kernels.legal_actions(game, root_state, legal)
    for i in range(n):
        child = find_child(nodes, root, searcher,
                           kernels.observed_action(game, root_state, legal[i], searcher))
        out_visits[i] = nodes[child, VISITS] if child != NO_NODE else 0
    return n


@njit(cache=True)
def descend(game, state_before, actions, searcher, root, nodes):
    """The node reached from ``root`` by ``actions`` applied to ``state_before``; NO_NODE if absent.

    Used to keep the tree between moves: chance actions are skipped (merged),
    every other action follows the edge the searcher observed.
    """
    world = state_before.copy()
    node = root
    for action in actions:
        player = kernels.current_player(game, world)
        if player != CHANCE_PLAYER:
            node = find_child(nodes, node, player,
                              kernels.observed_action(game, world, action, searcher))
            if node == NO_NODE:
                return NO_NODE
        kernels.apply_action(game, world, action)
    return node


@njit(cache=True, inline="always")
def no_network():
    """The ``network`` argument of a search without one: empty weights, no actions, no beliefs."""
    shape = np.zeros(SHAPE_WIDTH, dtype=np.int64)
    shape[BELIEFS_AT] = -1
    return np.zeros(1, dtype=np.float32), shape


@njit(cache=True, inline="always")
def root_search(game, options, state, stream, visits, networked, network):
    """One complete search from ``state`` for the player to move: the visits of each legal root action
    into ``visits`` (in legal-action order); returns the number of legal actions.

    ``options`` is the agent's options row. Allocates its own tree, so compiled
    loops can call it for any seat of any game. Inlined into its callers, so no
    function of its own is compiled between them and the search.
    """
    searcher = kernels.current_player(game, state)
    simulations = np.int64(options[SIMULATIONS])
    nodes, reward, size = new_tree(simulations + 1)
    pool, cumulative = draw_world_pool(game, state, searcher, stream, options, networked, network)
    worlds = np.zeros((0, state.shape[0]), dtype=np.int64)
    run_iterations(game, state, searcher, options, simulations, 0, nodes, reward, size, stream,
                   pool, cumulative, worlds, networked, network)
    return root_statistics(game, state, searcher, 0, nodes, visits)


@njit(cache=True)
def decide(game, options, state, stream, scratch):
    """One complete search from ``state`` for the player to move, and its most visited action.

    ISMCTS as a kernel, with the compiled arena's agent signature
    (:data:`cardlab.arena.native.agent_action`): ``options`` is the agent's
    options row, ``scratch`` room for legal actions. Allocates its own tree,
    so compiled loops can call it for any seat of any game.
    """
    return most_visited(game, options, state, stream, scratch, WITHOUT_NETWORK, no_network())


@njit(cache=True)
def decide_with_network(game, options, weights, shape, state, stream, scratch):
    """:func:`decide` for a search that reads the network ``(weights, shape)`` (``prior=net``,
    ``value=net``)."""
    return most_visited(game, options, state, stream, scratch, WITH_NETWORK, (weights, shape))


@njit(cache=True, inline="always")
def most_visited(game, options, state, stream, scratch, networked, network):
    """The move of :func:`decide`: the only legal one, a dominant one, or the search's most visited."""
    n = kernels.legal_actions(game, state, scratch)
    if n == 1:
        return scratch[0]
    forced = kernels.dominant_action(game, state)
    if forced >= 0:
        return forced
    visits = np.zeros(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    root_search(game, options, state, stream, visits, networked, network)
    best = 0
    for i in range(1, n):
        if visits[i] > visits[best]:
            best = i
    return scratch[best]


@njit(cache=True)
def visit_shares(game, options, state, stream, actions, shares):
    """The search's distribution over its legal actions: each one's share of the root visits.

    (:func:`shares_of_visits` without a network.)
    """
    return shares_of_visits(game, options, state, stream, actions, shares, WITHOUT_NETWORK, no_network())


@njit(cache=True)
def visit_shares_with_network(game, options, weights, shape, state, stream, actions, shares):
    """:func:`visit_shares` for a search that reads the network ``(weights, shape)``."""
    return shares_of_visits(game, options, state, stream, actions, shares, WITH_NETWORK, (weights, shape))


@njit(cache=True, inline="always")
def shares_of_visits(game, options, state, stream, actions, shares, networked, network):
    """The search's distribution over its legal actions: each one's share of the root visits.

    This is what the search thinks of each move (``cardlab play``'s hint shows
    it), not the distribution the agent plays from: :func:`decide` plays the
    most visited action. A single legal action, or one provably at least as
    good as the others, takes all the weight without a search. Fills
    ``actions[:n]`` and ``shares[:n]``; returns n.
    """
    n = kernels.legal_actions(game, state, actions)
    forced = kernels.dominant_action(game, state) if n > 1 else actions[0]
    if forced >= 0:
        for i in range(n):
            shares[i] = 1.0 if actions[i] == forced else 0.0
        return n
    visits = np.zeros(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    root_search(game, options, state, stream, visits, networked, network)
    total = 0
    for i in range(n):
        total += visits[i]
    for i in range(n):
        shares[i] = visits[i] / total if total > 0 else 1.0 / n
    return n
