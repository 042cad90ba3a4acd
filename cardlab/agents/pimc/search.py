"""Perfect Information Monte Carlo in numba: sample worlds, solve each double-dummy, average.

At a card decision the player draws worlds from the game's belief-consistent
sampler (:func:`cardlab.games.kernels.resample`), solves every world with all
hands open (:mod:`cardlab.solver`) and plays the legal action with the best
mean points for its team. PIMC's known weakness is *strategy fusion*: each
world is solved as if the player knew it, so a card that is right in every
world separately may be wrong when the player cannot tell the worlds apart.

Kaiser's bidding is simulation bidding: for each contract, the mean over
sampled worlds of the hand's net score (own score change minus the other
team's) with this seat declaring and leading; the best contract is bid when
its mean net score is positive, else pass (the dealer, forced to bid, takes
the best). The trump named is the suit with the best mean net score for the
bid won. Twenty-Eight bids by its rule-based player.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.agents.pimc.options import BID_BY_SIMULATION, BID_WORLDS, BIDDING, WORLDS
from cardlab.core.layout import PHASE, TO_MOVE, team_of
from cardlab.games import kernels
from cardlab.games.kaiser import engine as kaiser
from cardlab.games.kaiser import rules as kaiser_rules
from cardlab.solver.position import (
    KAISER,
    LOW_NO_TRUMP_STRAIN,
    NO_TRUMP_STRAIN,
    game_tables,
    is_play_phase,
    to_search,
)
from cardlab.solver.search import (
    ALL_TECHNIQUES,
    CONTRACT,
    NUM_COUNTERS,
    exact_value,
    make_rules,
    new_scratch,
    new_table,
    prepare,
)
from cardlab.solver.solve import open_action_values

TABLE_BITS = 16  # a table per decision: 64k entries
MAX_ACTIONS = 64
KAISER_STRAINS = 6  # four trumps, no trump, low no trump


@njit(cache=True)
def new_search_memory(bits=TABLE_BITS):
    """The transposition table (``2**bits`` entries), counters and node stack solves share."""
    counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
    counters[CONTRACT] = -1
    return new_table(bits), counters, new_scratch()


@njit(cache=True)
def add_world_values(game, s, seat, worlds, stream, entries, counters, scratch, sums):
    """Solve ``worlds`` sampled worlds; add seat's team's points after each legal action to ``sums``.

    Returns the number of legal actions (``sums`` is in legal-action order).
    """
    actions = np.empty(MAX_ACTIONS, dtype=np.int64)
    values = np.empty(MAX_ACTIONS, dtype=np.int64)
    team = team_of(seat)
    total = kaiser_rules.POINTS_PER_HAND if game == KAISER else 28
    n = 0
    for _ in range(worlds):
        world = kernels.resample(game, s, seat, stream)
        n = open_action_values(game, world, ALL_TECHNIQUES, entries, counters, scratch, actions, values)
        for i in range(n):
            sums[i] += values[i] if team == 0 else total - values[i]
    return n


@njit(cache=True)
def play(game, s, worlds, stream):
    """The card (or call) with the best mean points over ``worlds`` solved worlds."""
    legal = np.empty(MAX_ACTIONS, dtype=np.int64)
    n = kernels.legal_actions(game, s, legal)
    if n == 1:
        return legal[0]
    entries, counters, scratch = new_search_memory()
    sums = np.zeros(MAX_ACTIONS, dtype=np.float64)
    add_world_values(game, s, s[TO_MOVE], worlds, stream, entries, counters, scratch, sums)
    return legal[np.argmax(sums[:n])]


@njit(cache=True)
def kaiser_declarer_points(s, seat, worlds, stream, out):
    """``out[w, strain]``: seat's team's points in world ``w`` when ``seat`` declares ``strain``."""
    entries, counters, scratch = new_search_memory()
    hands = np.zeros(4, dtype=np.int64)
    trick = np.full(4, -1, dtype=np.int64)
    world_hands = np.zeros((worlds, 4), dtype=np.int64)
    for w in range(worlds):
        world = kernels.resample(KAISER, s, seat, stream)
        for other in range(4):
            world_hands[w, other] = world[kaiser.HANDS + other]
    for strain in range(KAISER_STRAINS):
        trump, search_card_of, _, points, trick_points = game_tables(KAISER, strain)
        rules = make_rules(trump, trick_points, points, ALL_TECHNIQUES)
        prepare(counters, strain)
        for w in range(worlds):
            for other in range(4):
                hands[other] = to_search(world_hands[w, other], search_card_of)
            team0 = exact_value(rules, entries, counters, scratch, hands, trick, 0, seat,
                                kaiser_rules.NUM_TRICKS, 0)
            out[w, strain] = team0 if team_of(seat) == 0 else kaiser_rules.POINTS_PER_HAND - team0


@njit(cache=True)
def kaiser_net(points, value, kind):
    """The declaring team's score change minus the other team's, for ``points`` taken."""
    multiplier = 1 if kind == kaiser_rules.WITH_TRUMP else 2
    own = multiplier * (points if points >= value else -value)
    return own - (kaiser_rules.POINTS_PER_HAND - points)


@njit(cache=True)
def kaiser_contract_score(points, value, kind):
    """Mean net score over worlds of a bid: with trump, of the best suit named afterwards."""
    worlds = points.shape[0]
    if kind == kaiser_rules.WITH_TRUMP:
        best = -1e9
        for suit in range(4):
            total = 0.0
            for w in range(worlds):
                total += kaiser_net(points[w, suit], value, kind)
            best = max(best, total / worlds)
        return best
    strain = NO_TRUMP_STRAIN if kind == kaiser_rules.NO_TRUMP else LOW_NO_TRUMP_STRAIN
    total = 0.0
    for w in range(worlds):
        total += kaiser_net(points[w, strain], value, kind)
    return total / worlds


@njit(cache=True)
def kaiser_bid(s, worlds, stream):
    """Simulation bidding and trump naming for the seat to move in Kaiser."""
    seat = s[TO_MOVE]
    points = np.zeros((worlds, KAISER_STRAINS), dtype=np.int64)
    kaiser_declarer_points(s, seat, worlds, stream, points)
    if s[PHASE] == kaiser.NAMING_TRUMP:
        value = s[kaiser.HIGH_BID] // 3
        best_suit = 0
        best = -1e9
        for suit in range(4):
            total = 0.0
            for w in range(worlds):
                total += kaiser_net(points[w, suit], value, kaiser_rules.WITH_TRUMP)
            if total > best:
                best = total
                best_suit = suit
        return kaiser_rules.NAME_TRUMP + best_suit
    legal = np.empty(MAX_ACTIONS, dtype=np.int64)
    n = kaiser.legal_actions(s, legal)
    best_action = -1
    best = -1e9
    may_pass = False
    for i in range(n):
        action = legal[i]
        if action == kaiser_rules.PASS:
            may_pass = True
        elif kaiser_rules.BID <= action < kaiser_rules.KAISER_BID:  # the contract's bids only
            value = (action - kaiser_rules.BID) // 3
            kind = (action - kaiser_rules.BID) % 3
            score = kaiser_contract_score(points, value, kind)
            if score > best:
                best = score
                best_action = action
    if may_pass and best <= 0:
        return kaiser_rules.PASS
    return best_action


@njit(cache=True)
def decide(game, s, options, stream):
    """The PIMC agent's action for the player to move in ``s`` (Kaiser or Twenty-Eight)."""
    if is_play_phase(game, s):
        return play(game, s, np.int64(options[WORLDS]), stream)
    if game == KAISER and options[BIDDING] == BID_BY_SIMULATION and (
            s[PHASE] == kaiser.BIDDING or s[PHASE] == kaiser.NAMING_TRUMP):
        return kaiser_bid(s, np.int64(options[BID_WORLDS]), stream)
    return kernels.rules_action(game, s, stream)
