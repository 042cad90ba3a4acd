"""The compiled game loop: whole chunks of duplicate deals played inside numba.

When every agent of a tournament is *numba-native*, a chunk of deals never
leaves compiled code. An agent is then two numbers rather than an object: a
**kind** code (which policy kernel to call) and a row of float **options**
(its parameters, e.g. the number of simulations), both passed to
:func:`play_games` as arrays indexed by agent. The loop works over any game
wired into :mod:`cardlab.games.kernels`, selected by its game id.

To add a native agent: give it a kind code in its line of the table of
built-in agents (:data:`cardlab.agents.builtin.BUILTIN`, with the agent's
:class:`~cardlab.agents.options.OptionSet`), name that code below and put a
kernel in the table of :data:`agent_action` (or of ``seat_action`` if it reads
a table of its own); the options it declares with a column in the row are the
ones this loop runs. A loop is compiled for the
game and the kinds seated at its table (:func:`agent_kinds`), so a tournament
of rule-based players never compiles the search agents.

Seeding (shared with the Python loop, so both play the same games):

- the deal's chance nodes draw ``legal[random_below(deal_stream, n)]`` from
  ``make_stream(deal_seed)``, restarted for every seating of the deal;
- the agent at ``seat`` in seating ``k`` draws from
  ``make_stream(agent_seed(deal_seed, k, seat, num_players))``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.agents.builtin import NATIVE_KINDS, NETWORK_KINDS
from cardlab.agents.ismcts import search
from cardlab.agents.network import SHAPE_WIDTH, network_action, network_policy
from cardlab.agents.options import ROW_WIDTH
from cardlab.agents.pimc import search as pimc_search
from cardlab.arena.clock import cpu_ns
from cardlab.cfr.bidding_game import find_slot, information_key
from cardlab.cfr.bidding_policy import policy_bid
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER
from cardlab.core.layout import copy_state
from cardlab.core.rng import derive_seed, next_u64, random_below
from cardlab.core.specialize import LiteralInt, key_set, switch_within
from cardlab.games import kernels
from cardlab.games.bidding_features import in_auction

# ---- agent kinds, as the table of built-in agents declares them ----------------------------
RANDOM = NATIVE_KINDS["random"]  # uniform over the legal actions; no options
RULES = NATIVE_KINDS["rules"]  # the game's rule-based strategy kernel; no options
ISMCTS = NATIVE_KINDS["ismcts"]  # numba ISMCTS; its row's columns are named in cardlab.agents.ismcts.options
#: ISMCTS with ``prior=net`` or ``value=net``: its network is its rows of the network tables (as ``net``'s)
ISMCTS_NETWORK = NETWORK_KINDS["ismcts"]
PIMC = NATIVE_KINDS["pimc"]  # double-dummy PIMC (Kaiser, Twenty-Eight); columns in agents.pimc.options
#: an MCCFR bidding policy in the auction, the rule-based player after it (Kaiser, Twenty-Eight);
#: its table is the agent's slice of ``policies`` (:func:`cardlab.cfr.bidding_policy.policy_arrays`)
CFR_BIDDING = NATIVE_KINDS["cfr-bidding"]
BIDDING_FINE = 0  # options column: the policy's buckets are of the fine grain
BIDDING_GREEDY = 1  # options column: bid the most likely action instead of drawing one
#: a policy network (:mod:`cardlab.agents.network`); its weights are the agent's rows of
#: ``policies[NETWORK_WEIGHTS]`` and ``policies[NETWORK_SHAPES]``
NET = NATIVE_KINDS["net"]
NET_TEMPERATURE = 0  # options column: the softmax temperature (0: the most likely action)

# ---- the arrays of ``policies``, each indexed by agent first -------------------------------------
POLICY_KEYS, POLICY_COUNTS, POLICY_ACTIONS, POLICY_PROBABILITIES = 0, 1, 2, 3  # cfr-bidding's table
NETWORK_WEIGHTS, NETWORK_SHAPES = 4, 5  # a network's flat float32 weights and their shape row

# ---- error codes returned by play_games ------------------------------------------
OK = 0
ILLEGAL_ACTION = 1
UNKNOWN_KIND = 2


@njit(cache=True)
def seed_stream(stream, seed):
    """Reset ``stream`` in place to ``make_stream(seed)``."""
    stream[0] = np.uint64(seed)
    next_u64(stream)


@njit(cache=True)
def agent_seed(deal_seed, seating, seat, num_players):
    """The seed of the agent at ``seat`` in seating ``seating`` of a deal."""
    return derive_seed(deal_seed, 1 + seating * num_players + seat)


@njit(cache=True, inline="always")
def start_deal(s, initial, deal_stream, seat_streams, deal_seed, seating):
    """Set ``s`` to the start of a deal and seed its chance stream and every seat's agent stream: the
    same cards and the same agents' draws in every loop that plays it (tournaments, LBR, RL batches)."""
    copy_state(s, initial)
    seed_stream(deal_stream, deal_seed)
    players = seat_streams.shape[0]
    for seat in range(players):
        seed_stream(seat_streams[seat], agent_seed(deal_seed, seating, seat, players))


@njit(cache=True)
def _random_action(game, options, s, stream, scratch):
    return kernels.random_action(game, s, stream, scratch)


@njit(cache=True)
def _rules_action(game, options, s, stream, scratch):
    return kernels.rules_action(game, s, stream)


@njit(cache=True)
def _unknown_action(game, options, s, stream, scratch):
    return -1


#: ``agent_action(allowed, kind, game, options, s, stream, scratch)``: the action of a native
#: agent of ``kind`` whose options are the row ``options``, for the player to move in ``s``.
#: ``scratch`` is a legal-actions buffer the agent may overwrite. Only the kinds in the bit
#: set ``allowed`` (:func:`agent_kinds`) are compiled; any other kind returns -1. Every
#: kernel of the table takes ``(game, options, s, stream, scratch)``: the search agents'
#: ``decide`` kernels are called directly, with no function in between to compile.
agent_action = switch_within("agent_action", {
    RANDOM: _random_action, RULES: _rules_action, ISMCTS: search.decide, PIMC: pimc_search.decide,
    -1: _unknown_action,
})
#: Kinds every loop compiles, whoever sits at the table: both are small, and a loop compiled once
#: for them serves every tournament among them.
LIGHT_KINDS = (RANDOM, RULES)


def agent_kinds(kinds: np.ndarray | list[int]) -> LiteralInt:
    """The bit set of kinds a loop over these agents compiles: theirs and the light ones.

    A kind outside :data:`LIGHT_KINDS` (a search, a policy table) is compiled
    only into the loops whose tables seat it, so that a tournament of rule-based
    players never waits for the search agents to compile.
    """
    return key_set(sorted({int(kind) for kind in kinds} | set(LIGHT_KINDS)))


@njit(cache=True)
def bidding_agent_action(game, agent, options, policies, s, stream):
    """The ``cfr-bidding`` agent: its policy table bids, the rule-based player does the rest."""
    if in_auction(game, s):
        row = options[agent]
        return policy_bid(game, s, row[BIDDING_FINE] != 0, row[BIDDING_GREEDY] != 0,
                          policies[POLICY_KEYS][agent], policies[POLICY_COUNTS][agent],
                          policies[POLICY_ACTIONS][agent], policies[POLICY_PROBABILITIES][agent], stream)
    return kernels.rules_action(game, s, stream)


@njit(cache=True)
def _no_bidding_agent(game, agent, options, policies, s, stream):
    return -1


#: The ``cfr-bidding`` agent where ``allowed`` seats one, else nothing compiled.
_bidding_action = switch_within("bidding_action", {CFR_BIDDING: bidding_agent_action, -1: _no_bidding_agent})


@njit(cache=True)
def net_agent_action(game, agent, options, policies, s, stream, scratch):
    """The ``net`` agent: its network's move (:func:`cardlab.agents.network.network_action`)."""
    return network_action(game, policies[NETWORK_WEIGHTS][agent], policies[NETWORK_SHAPES][agent],
                          options[agent, NET_TEMPERATURE], s, stream, scratch)


@njit(cache=True)
def ismcts_network_action(game, agent, options, policies, s, stream, scratch):
    """ISMCTS with its network (``prior=net``, ``value=net``): :func:`search.decide_with_network`."""
    return search.decide_with_network(game, options[agent], policies[NETWORK_WEIGHTS][agent],
                                      policies[NETWORK_SHAPES][agent], s, stream, scratch)


@njit(cache=True)
def _not_seated(game, agent, options, policies, s, stream, scratch):
    return -1


#: The ``net`` agent where ``allowed`` seats one, else nothing compiled; and so ISMCTS with a network.
_net_action = switch_within("net_action", {NET: net_agent_action, -1: _not_seated})
_ismcts_network_action = switch_within("ismcts_network_action",
                                       {ISMCTS_NETWORK: ismcts_network_action, -1: _not_seated})


@njit(cache=True, inline="always")
def seat_action(game, allowed, agent, kinds, options, policies, s, stream, scratch):
    """The action of ``agent`` (an index into the agent tables) for the player to move.

    ``allowed`` is the bit set of the kinds in ``kinds`` (:func:`agent_kinds`): only
    their policies are compiled. Returns -1 for a kind outside it.
    """
    kind = kinds[agent]
    if kind == CFR_BIDDING:
        return _bidding_action(allowed, kind, game, agent, options, policies, s, stream)
    if kind == NET:
        return _net_action(allowed, kind, game, agent, options, policies, s, stream, scratch)
    if kind == ISMCTS_NETWORK:
        return _ismcts_network_action(allowed, kind, game, agent, options, policies, s, stream, scratch)
    return agent_action(allowed, kind, game, options[agent], s, stream, scratch)


# ---- action distributions ----------------------------------------------------------
# Evaluation reads an agent's choices as distributions: local best response models the agent
# with them, and the variance-reduced estimator corrects each decision drawn from a known one.
@njit(cache=True)
def _one_hot(action, legal, n, actions, probabilities):
    """All the weight on ``action`` among ``legal[:n]`` (``legal`` may be ``actions`` itself)."""
    for i in range(n):
        actions[i] = legal[i]
        probabilities[i] = 1.0 if legal[i] == action else 0.0
    return n


@njit(cache=True)
def _uniform_policy(game, agent, options, policies, s, actions, probabilities):
    n = kernels.legal_actions(game, s, actions)
    for i in range(n):
        probabilities[i] = 1.0 / n
    return n


@njit(cache=True)
def _rules_policy(game, agent, options, policies, s, actions, probabilities):
    n = kernels.legal_actions(game, s, actions)
    unused = np.zeros(1, dtype=np.uint64)  # the rule-based players are deterministic
    return _one_hot(kernels.rules_action(game, s, unused), actions, n, actions, probabilities)


@njit(cache=True)
def _bidding_policy(game, agent, options, policies, s, actions, probabilities):
    if in_auction(game, s):
        keys, counts = policies[POLICY_KEYS], policies[POLICY_COUNTS]
        table_actions, table_probabilities = policies[POLICY_ACTIONS], policies[POLICY_PROBABILITIES]
        h = find_slot(keys[agent], information_key(game, s, options[agent, BIDDING_FINE] != 0))
        if keys[agent, h] != 0:
            n = kernels.legal_actions(game, s, actions)
            m = counts[agent, h]
            if options[agent, BIDDING_GREEDY] != 0:
                best = table_actions[agent, h, np.argmax(table_probabilities[agent, h, :m])]
                return _one_hot(best, actions, n, actions, probabilities)
            for i in range(n):
                probabilities[i] = 0.0
                for k in range(m):
                    if table_actions[agent, h, k] == actions[i]:
                        probabilities[i] = table_probabilities[agent, h, k]
            return n
    return _rules_policy(game, agent, options, policies, s, actions, probabilities)


@njit(cache=True)
def _net_policy(game, agent, options, policies, s, actions, probabilities):
    return network_policy(game, policies[NETWORK_WEIGHTS][agent], policies[NETWORK_SHAPES][agent],
                          options[agent, NET_TEMPERATURE], s, actions, probabilities)


@njit(cache=True)
def _no_known_policy(game, agent, options, policies, s, actions, probabilities):
    return -1


#: ``known_policy(allowed, kind, game, agent, options, policies, s, actions, probabilities)``: the
#: kernels of :func:`behaviour_policy`, by kind, compiled for the kinds in ``allowed`` only.
_known_policy = switch_within("known_policy", {
    RANDOM: _uniform_policy, RULES: _rules_policy, CFR_BIDDING: _bidding_policy, NET: _net_policy,
    -1: _no_known_policy,
})


@njit(cache=True, inline="always")
def behaviour_policy(game, allowed, agent, kinds, options, policies, s, actions, probabilities):
    """The distribution ``agent`` draws its move at ``s`` from, where it is known exactly.

    Fills ``actions[:n]`` (the legal actions) and ``probabilities[:n]``; returns
    n, or -1 for an agent whose move comes out of a randomised search
    (ISMCTS, PIMC) or whose kind is outside ``allowed`` (:func:`agent_kinds`):
    a search's distribution is that of its result over its random stream,
    which nothing short of rerunning the search reveals. ``random`` is
    uniform, ``rules`` puts all the weight on its move, and ``cfr-bidding`` on
    its policy's probabilities in the auction (on the most likely bid if
    greedy; on the rule-based move at a set the training never met and after
    the auction), ``net`` on its policy's softmax at its temperature (at 0, on
    its most likely legal action). Reads no random stream.
    """
    return _known_policy(allowed, kinds[agent], game, agent, options, policies, s, actions, probabilities)


@njit(cache=True)
def _no_shares(game, options, s, stream, actions, shares):
    return -1


@njit(cache=True)
def _network_search_shares(game, agent, options, policies, s, stream, actions, shares):
    return search.visit_shares_with_network(game, options[agent], policies[NETWORK_WEIGHTS][agent],
                                            policies[NETWORK_SHAPES][agent], s, stream, actions, shares)


@njit(cache=True)
def _no_network_shares(game, agent, options, policies, s, stream, actions, shares):
    return -1


#: ISMCTS's visit shares where ``allowed`` seats the search, else nothing compiled.
_search_shares = switch_within("search_shares", {ISMCTS: search.visit_shares, -1: _no_shares})
_network_shares = switch_within("network_shares", {ISMCTS_NETWORK: _network_search_shares,
                                                   -1: _no_network_shares})


@njit(cache=True)
def agent_policy(game, allowed, agent, kinds, options, policies, s, stream, actions, probabilities):
    """``agent``'s action distribution at ``s``: ``(n, exact)``, into ``actions[:n]``, ``probabilities[:n]``.

    Where the agent draws its move from a known distribution
    (:func:`behaviour_policy`) it is that one and ``exact`` is True.
    Otherwise it is the search's own view of the moves: ISMCTS's share of
    root visits (:func:`cardlab.agents.ismcts.search.visit_shares`), PIMC's
    choice with this ``stream`` (one draw of a randomised agent), and
    ``exact`` is False. A deterministic agent is its own distribution. n is
    -1 for a kind outside ``allowed``.
    """
    n = behaviour_policy(game, allowed, agent, kinds, options, policies, s, actions, probabilities)
    if n >= 0:
        return n, True
    kind = kinds[agent]
    if kind == ISMCTS:
        return _search_shares(allowed, kind, game, options[agent], s, stream, actions, probabilities), False
    if kind == ISMCTS_NETWORK:
        return _network_shares(allowed, kind, game, agent, options, policies, s, stream, actions,
                               probabilities), False
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = kernels.legal_actions(game, s, legal)
    action = seat_action(game, allowed, agent, kinds, options, policies, s, stream, actions)
    if action < 0:
        return -1, False
    return _one_hot(action, legal, n, actions, probabilities), False


@njit(cache=True)
def known_policies(game, allowed, initial, actions, offsets, seatings, kinds, options, policies):
    """The decisions of played games whose move was drawn from a known distribution of more than
    one action (:func:`behaviour_policy`), for the variance-reduced estimator.

    Game ``g`` (actions ``actions[offsets[g]:offsets[g + 1]]``, seating
    ``g % len(seatings)``) is replayed; an agent of kind -1 (one the compiled
    loop does not play) is skipped; ``allowed`` is :func:`agent_kinds` of the
    other kinds. Returns ``(game_offsets, steps,
    distribution_offsets, distribution_actions, distribution_probabilities)``:
    game ``g``'s entries are ``game_offsets[g]:game_offsets[g + 1]``, entry
    ``m`` is step ``steps[m]`` of its game, with the legal actions and
    probabilities ``distribution_offsets[m]:distribution_offsets[m + 1]``.
    """
    num_games = offsets.shape[0] - 1
    game_offsets = np.zeros(num_games + 1, dtype=np.int64)
    steps = np.empty(16, dtype=np.int64)
    distribution_offsets = np.zeros(17, dtype=np.int64)
    distribution_actions = np.empty(64, dtype=np.int64)
    distribution_probabilities = np.empty(64, dtype=np.float64)
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    probabilities = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.float64)
    s = initial.copy()
    count = 0
    for g in range(num_games):
        copy_state(s, initial)
        seating = g % seatings.shape[0]
        for step in range(offsets[g], offsets[g + 1]):
            player = kernels.current_player(game, s)
            if player >= 0:
                agent = seatings[seating, player]
                kind = kinds[agent]
                stochastic = kind == RANDOM or (kind == CFR_BIDDING and in_auction(game, s))
                if stochastic:
                    n = behaviour_policy(game, allowed, agent, kinds, options, policies, s, legal,
                                         probabilities)
                    support = 0
                    for i in range(n):
                        if probabilities[i] > 0.0:
                            support += 1
                    if support > 1:
                        steps = _grow(steps, count + 1)
                        distribution_offsets = _grow(distribution_offsets, count + 2)
                        start = distribution_offsets[count]
                        distribution_actions = _grow(distribution_actions, start + n)
                        distribution_probabilities = _grow(distribution_probabilities, start + n)
                        steps[count] = step - offsets[g]
                        for i in range(n):
                            distribution_actions[start + i] = legal[i]
                            distribution_probabilities[start + i] = probabilities[i]
                        distribution_offsets[count + 1] = start + n
                        count += 1
            kernels.apply_action(game, s, actions[step])
        game_offsets[g + 1] = count
    end = distribution_offsets[count]
    return (game_offsets, steps[:count], distribution_offsets[:count + 1], distribution_actions[:end],
            distribution_probabilities[:end])


@njit(cache=True)
def _grow(actions, needed):
    if needed <= actions.shape[0]:
        return actions
    bigger = np.empty(max(needed, 2 * actions.shape[0]), dtype=actions.dtype)
    bigger[: actions.shape[0]] = actions
    return bigger


def play_games(game: int, initial: np.ndarray, deal_seeds: np.ndarray, seatings: np.ndarray,
               kinds: np.ndarray, options: np.ndarray, policies: tuple[np.ndarray, ...]) -> tuple:
    """Play every deal of ``deal_seeds`` once per seating (:func:`play_seated_games`).

    The loop is compiled for the game (a :class:`~cardlab.core.specialize.LiteralInt`
    kernel id) and the agent kinds at the table, and nothing else.
    """
    return play_seated_games(game, agent_kinds(kinds), initial, deal_seeds, seatings, kinds, options,
                             policies)


@njit(cache=True)
def play_seated_games(game, allowed, initial, deal_seeds, seatings, kinds, options, policies):
    """Play every deal of ``deal_seeds`` once per seating.

    ``seatings[k, seat]`` is the agent index sitting at ``seat`` in seating ``k``;
    ``kinds[agent]``, ``options[agent]`` and the agent's slice of each array of
    ``policies`` (:func:`empty_policies` for agents without a table) describe
    that agent. Game ``g`` is deal ``g // len(seatings)``, seating ``g % len(seatings)``.

    Returns ``(status, actions, offsets, returns, seconds, decisions, finals)``:
    game ``g``'s actions (chance included) are ``actions[offsets[g]:offsets[g + 1]]``;
    ``returns``, ``seconds`` (thinking time) and ``decisions`` are per game and
    seat; ``finals[g]`` is the final state array. ``status`` is ``[code, game,
    seat, action]``, code ``OK`` unless an agent chose an illegal action or has
    an unknown kind, in which case the games from that one on are not played.
    """
    num_seatings, num_players = seatings.shape
    num_games = deal_seeds.shape[0] * num_seatings
    status = np.zeros(4, dtype=np.int64)
    offsets = np.zeros(num_games + 1, dtype=np.int64)
    actions = np.empty(num_games * 80, dtype=np.int16)
    game_returns = np.zeros((num_games, num_players), dtype=np.float64)
    seconds = np.zeros((num_games, num_players), dtype=np.float64)
    decisions = np.zeros((num_games, num_players), dtype=np.int32)
    finals = np.empty((num_games, initial.shape[0]), dtype=np.int64)

    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    deal_stream = np.zeros(1, dtype=np.uint64)
    streams = np.zeros((num_players, 1), dtype=np.uint64)
    seat_returns = np.zeros(num_players, dtype=np.float64)
    s = initial.copy()
    position = 0
    for g in range(num_games):
        deal = g // num_seatings
        seating = g % num_seatings
        start_deal(s, initial, deal_stream, streams, deal_seeds[deal], seating)
        while True:
            player = kernels.current_player(game, s)
            if player == TERMINAL_PLAYER:
                break
            n = kernels.legal_actions(game, s, legal)
            if player == CHANCE_PLAYER:
                action = legal[random_below(deal_stream, n)]
            else:
                agent = seatings[seating, player]
                start = cpu_ns()
                action = seat_action(game, allowed, agent, kinds, options, policies, s, streams[player],
                                     scratch)
                seconds[g, player] += (cpu_ns() - start) * 1e-9
                decisions[g, player] += 1
                legal_choice = False
                for i in range(n):
                    if legal[i] == action:
                        legal_choice = True
                        break
                if not legal_choice:
                    status[0] = UNKNOWN_KIND if action == -1 else ILLEGAL_ACTION
                    status[1] = g
                    status[2] = player
                    status[3] = action
                    return status, actions, offsets, game_returns, seconds, decisions, finals
            actions = _grow(actions, position + 1)
            actions[position] = action
            position += 1
            kernels.apply_action(game, s, action)
        kernels.returns(game, s, seat_returns)
        game_returns[g] = seat_returns
        finals[g] = s
        offsets[g + 1] = position
    return status, actions[:position], offsets, game_returns, seconds, decisions, finals


@njit(cache=True)
def native_agent_step(game, allowed, kinds, options, policies, s, stream, scratch):
    """One decision of the native agent 0 of these tables, for the Python loop (one compiled call).

    ``allowed`` is :func:`agent_kinds` of ``kinds``, computed once by the caller.
    """
    return seat_action(game, allowed, 0, kinds, options, policies, s, stream, scratch)


@njit(cache=True)
def deal_seeds(seed, first, stop):
    """Seeds of deals ``first .. stop - 1`` of a tournament: ``derive_seed(seed, deal)``."""
    out = np.empty(stop - first, dtype=np.uint64)
    for deal in range(first, stop):
        out[deal - first] = derive_seed(seed, deal)
    return out


def empty_options(count: int) -> np.ndarray:
    """An options table for ``count`` agents, all zeros (the row of an agent without options)."""
    return np.zeros((count, ROW_WIDTH), dtype=np.float64)


def empty_policies(count: int, capacity: int = 2, width: int = 1, weights: int = 1) -> tuple[np.ndarray, ...]:
    """Policy tables for ``count`` agents, all empty: a ``cfr-bidding`` table ``(keys, counts,
    actions, probabilities)`` of ``capacity`` sets of ``width`` actions, and room for a network of
    ``weights`` weights with its shape row (``NETWORK_WEIGHTS``, ``NETWORK_SHAPES``)."""
    return (np.zeros((count, capacity), dtype=np.uint64), np.zeros((count, capacity), dtype=np.int64),
            np.zeros((count, capacity, width), dtype=np.int64),
            np.zeros((count, capacity, width), dtype=np.float64),
            np.zeros((count, weights), dtype=np.float32), np.zeros((count, SHAPE_WIDTH), dtype=np.int64))
