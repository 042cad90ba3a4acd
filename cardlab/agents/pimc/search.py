"""Perfect Information Monte Carlo in numba: sample worlds, solve each double-dummy, average.

At a card decision the player draws worlds from the game's belief-consistent
sampler (:func:`cardlab.games.kernels.resample`), solves every world with all
hands open (:mod:`cardlab.solver`) and plays the legal action with the best
mean points for its team. PIMC's known weakness is *strategy fusion*: each
world is solved as if the player knew it, so a card that is right in every
world separately may be wrong when the player cannot tell the worlds apart.

Bidding is simulation bidding: the worlds the seat cannot tell apart are
dealt to the end and solved double dummy in every strain the choice may be
played in, and the game's own rules (:mod:`cardlab.games.contract_choice`)
turn its team's points of each world into a bid, a trump or a raise: in
Kaiser the net score of each contract, in Twenty-Eight its game points.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.agents.pimc.options import BID_BY_SIMULATION, BID_WORLDS, BIDDING, WORLDS
from cardlab.core.layout import TO_MOVE, team_of
from cardlab.games import contract_choice, kernels
from cardlab.games.double_dummy import HAND_TOTALS, game_tables, is_play_phase, open_hands
from cardlab.games.kernels import KAISER, TWENTY_EIGHT
from cardlab.solver.analysis import HAND_SIZE
from cardlab.solver.mtd import exact_value
from cardlab.solver.node import new_scratch
from cardlab.solver.position import to_search
from cardlab.solver.rules import ALL_TECHNIQUES, make_rules
from cardlab.solver.solve import open_action_values
from cardlab.solver.table import CONTRACT, NUM_COUNTERS, new_table, prepare

TABLE_BITS = 16  # a table per decision: 64k entries
MAX_ACTIONS = 64
#: A game's points of a whole hand (both teams'), by kernel id.
_HAND_TOTALS = np.array([HAND_TOTALS[KAISER], HAND_TOTALS[TWENTY_EIGHT]], dtype=np.int64)


@njit(cache=True)
def new_search_memory(bits=TABLE_BITS):
    """The transposition table (``2**bits`` entries), counters and node stack solves share."""
    counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
    counters[CONTRACT] = -1
    return new_table(bits), counters, new_scratch()


@njit(cache=True)
def world_action_values(game, s, seat, worlds, stream, entries, counters, scratch, out):
    """Solve ``worlds`` sampled worlds: ``out[w, i]`` is seat's team's points of the hand after
    legal action ``i`` in world ``w`` (the per-world values PIMC averages).

    Returns the number of legal actions.
    """
    actions = np.empty(MAX_ACTIONS, dtype=np.int64)
    values = np.empty(MAX_ACTIONS, dtype=np.int64)
    team = team_of(seat)
    total = _HAND_TOTALS[game]
    n = 0
    for w in range(worlds):
        world = kernels.resample(game, s, seat, stream)
        n = open_action_values(game, world, ALL_TECHNIQUES, entries, counters, scratch, actions, values)
        for i in range(n):
            out[w, i] = values[i] if team == 0 else total - values[i]
    return n


@njit(cache=True)
def add_world_values(game, s, seat, worlds, stream, entries, counters, scratch, sums):
    """Solve ``worlds`` sampled worlds; add seat's team's points after each legal action to ``sums``.

    Returns the number of legal actions (``sums`` is in legal-action order).
    """
    values = np.zeros((worlds, MAX_ACTIONS), dtype=np.int64)
    n = world_action_values(game, s, seat, worlds, stream, entries, counters, scratch, values)
    for w in range(worlds):
        for i in range(n):
            sums[i] += values[w, i]
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
def declarer_points(game, world_hands, leader, team, strains, out):
    """``out[w, strain]``: ``team``'s points of the whole hand in world ``w`` played in ``strain``.

    ``world_hands[w]`` are the four full hands (card ids, ``HAND_SIZE`` each: a hand is
    that many tricks), ``leader`` leads the first trick, and only the strains whose bit
    is set in ``strains`` are solved.
    """
    entries, counters, scratch = new_search_memory()
    hands = np.zeros(4, dtype=np.int64)
    trick = np.full(4, -1, dtype=np.int64)
    total = _HAND_TOTALS[game]
    for strain in range(out.shape[1]):
        if (strains >> strain) & 1 == 0:
            continue
        trump, search_card_of, _, points, trick_points = game_tables(game, strain)
        rules = make_rules(trump, trick_points, points, ALL_TECHNIQUES)
        prepare(counters, game * 8 + strain)
        for w in range(world_hands.shape[0]):
            for other in range(4):
                hands[other] = to_search(world_hands[w, other], search_card_of)
            team0 = exact_value(rules, entries, counters, scratch, hands, trick, 0, leader, HAND_SIZE, 0)
            out[w, strain] = team0 if team == 0 else total - team0


@njit(cache=True)
def decide(game, options, s, stream, scratch):
    """The PIMC agent's action for the player to move in ``s`` (Kaiser or Twenty-Eight).

    The compiled arena's agent signature (:data:`cardlab.arena.native.agent_action`):
    ``options`` is the agent's options row; ``scratch`` is not used.
    """
    if is_play_phase(game, s):
        return play(game, s, np.int64(options[WORLDS]), stream)
    if options[BIDDING] == BID_BY_SIMULATION:
        bid_worlds = np.int64(options[BID_WORLDS])
        action = simulated_bid(game, s, bid_worlds, stream)
        if action >= 0:
            return action
    return kernels.rules_action(game, s, stream)


@njit(cache=True)
def sampled_worlds(game, s, seat, stream, world_hands, trumps):
    """Worlds ``seat`` cannot tell from ``s``, dealt to the end (``kernels.resample`` keeps the
    undealt cards undealt): ``world_hands[w]`` every seat's full hand (a hidden trump indicator
    with the bidder); ``trumps[w]`` the world's trump suit (-1 where none is placed)."""
    hands = np.zeros(4, dtype=np.int64)
    for w in range(world_hands.shape[0]):
        world = kernels.resample(game, s, seat, stream)
        open_hands(game, world, hands)
        trumps[w] = contract_choice.deal_to_the_end(game, world, hands, stream)
        for other in range(4):
            world_hands[w, other] = hands[other]


@njit(cache=True)
def simulated_bid(game, s, worlds, stream):
    """The bid (or trump, raise, indicator) PIMC's simulation chooses in an auction node, else -1.

    ``worlds`` sampled worlds are solved in the strains the choice may be played
    in, and the game's rules choose from its team's points in each
    (:mod:`cardlab.games.contract_choice`): the game's kernels are tables by game,
    so a Kaiser agent does not compile Twenty-Eight's bidding.
    """
    if not contract_choice.bids_by_simulation(game, s):
        return -1
    action = contract_choice.choice_without_worlds(game, s, stream)
    if action >= 0:
        return action
    seat = s[TO_MOVE]
    world_hands = np.zeros((worlds, 4), dtype=np.int64)
    trumps = np.empty(worlds, dtype=np.int64)
    sampled_worlds(game, s, seat, stream, world_hands, trumps)
    leader, strains = contract_choice.worlds_to_solve(game, s)
    points = np.zeros((worlds, contract_choice.STRAINS[game]), dtype=np.int64)
    declarer_points(game, world_hands, leader, team_of(seat), strains, points)
    return contract_choice.choose_contract(game, s, points, trumps)
