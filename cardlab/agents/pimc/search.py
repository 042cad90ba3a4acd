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
bid won.

Twenty-Eight's bidding is simulation bidding too, in game points: the worlds
are dealt to the end (in the first round the bidder knows four cards), each is
solved with every hand open and the trump known to all from the first card,
dealer + 1 leading (ruling 5), and a contract of value ``v`` made with ``p``
card points is worth ``2 * G`` (the bidding team's game points ``G`` minus the
other team's ``-G``, ruling 8). A bid is worth its mean over worlds for the
best trump suit the hand can place; the best bid is made when it beats
passing, worth 0 (a partner's standing bid: the team's mean at that bid, as
the open solve does not ask which partner declares). The opener who may ask
for a redeal does so rather than bid at a loss. A second-round raise must beat
the standing contract with its hidden trump (the partner draws it per world),
and a partner's raise names a suit anew. The indicator is the suit with the
best mean and, within it, the rule-based player's card (the weakest).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.agents.pimc.options import BID_BY_SIMULATION, BID_WORLDS, BIDDING, WORLDS
from cardlab.core.bitboard import card_bit, popcount
from cardlab.core.cards import SUIT_MASKS
from cardlab.core.dealing import draw_card
from cardlab.core.layout import DEALER, PHASE, TO_MOVE, seat_after, team_of, undealt_cards
from cardlab.games import kernels
from cardlab.games.kaiser import engine as kaiser
from cardlab.games.kaiser import rules as kaiser_rules
from cardlab.games.twenty_eight import engine as twenty_eight
from cardlab.games.twenty_eight import rules as twenty_eight_rules
from cardlab.games.twenty_eight.strategy import indicator_of_suit
from cardlab.solver.position import (
    KAISER,
    LOW_NO_TRUMP_STRAIN,
    NO_TRUMP_STRAIN,
    TWENTY_EIGHT,
    game_tables,
    is_play_phase,
    open_hands,
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
def world_action_values(game, s, seat, worlds, stream, entries, counters, scratch, out):
    """Solve ``worlds`` sampled worlds: ``out[w, i]`` is seat's team's points of the hand after
    legal action ``i`` in world ``w`` (the per-world values PIMC averages).

    Returns the number of legal actions.
    """
    actions = np.empty(MAX_ACTIONS, dtype=np.int64)
    values = np.empty(MAX_ACTIONS, dtype=np.int64)
    team = team_of(seat)
    total = kaiser_rules.POINTS_PER_HAND if game == KAISER else twenty_eight_rules.TOTAL_CARD_POINTS
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

    ``world_hands[w]`` are the four full hands (card ids), ``leader`` leads the
    first trick, and only the strains whose bit is set in ``strains`` are solved.
    """
    entries, counters, scratch = new_search_memory()
    hands = np.zeros(4, dtype=np.int64)
    trick = np.full(4, -1, dtype=np.int64)
    total = kaiser_rules.POINTS_PER_HAND if game == KAISER else twenty_eight_rules.TOTAL_CARD_POINTS
    tricks = kaiser_rules.NUM_TRICKS if game == KAISER else twenty_eight_rules.NUM_TRICKS
    for strain in range(out.shape[1]):
        if (strains >> strain) & 1 == 0:
            continue
        trump, search_card_of, _, points, trick_points = game_tables(game, strain)
        rules = make_rules(trump, trick_points, points, ALL_TECHNIQUES)
        prepare(counters, game * 8 + strain)
        for w in range(world_hands.shape[0]):
            for other in range(4):
                hands[other] = to_search(world_hands[w, other], search_card_of)
            team0 = exact_value(rules, entries, counters, scratch, hands, trick, 0, leader, tricks, 0)
            out[w, strain] = team0 if team == 0 else total - team0


@njit(cache=True)
def kaiser_declarer_points(s, seat, worlds, stream, out):
    """``out[w, strain]``: seat's team's points in world ``w`` when ``seat`` declares ``strain``."""
    world_hands = np.zeros((worlds, 4), dtype=np.int64)
    for w in range(worlds):
        world = kernels.resample(KAISER, s, seat, stream)
        for other in range(4):
            world_hands[w, other] = world[kaiser.HANDS + other]
    declarer_points(KAISER, world_hands, seat, team_of(seat), (1 << KAISER_STRAINS) - 1, out)


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
def twenty_eight_world_hands(s, seat, stream, world_hands, trumps):
    """Worlds ``seat`` cannot tell from ``s``, dealt to the end (``kernels.resample`` keeps the
    undealt cards undealt): ``world_hands[w]`` every seat's eight cards, the hidden indicator
    with the bidder; ``trumps[w]`` the world's trump suit (-1 before one is placed)."""
    hands = np.zeros(4, dtype=np.int64)
    for w in range(world_hands.shape[0]):
        world = kernels.resample(TWENTY_EIGHT, s, seat, stream)
        open_hands(TWENTY_EIGHT, world, hands)
        undealt = undealt_cards(world)
        for other in range(4):
            while popcount(hands[other]) < twenty_eight_rules.HAND_SIZE:
                card = draw_card(undealt, stream)
                undealt &= ~card_bit(card)
                hands[other] |= card_bit(card)
            world_hands[w, other] = hands[other]
        trumps[w] = world[twenty_eight.TRUMP]


@njit(cache=True)
def twenty_eight_net(points, value):
    """The declaring team's game points minus the other team's, for ``points`` taken on a bid of ``value``."""
    return 2 * twenty_eight.game_points_for(value, points >= value)


@njit(cache=True)
def twenty_eight_mean(points, trumps, value):
    """Mean net game points over worlds of a bid of ``value`` played in suit ``trumps[w]`` in world ``w``."""
    total = 0.0
    for w in range(points.shape[0]):
        total += twenty_eight_net(points[w, trumps[w]], value)
    return total / points.shape[0]


@njit(cache=True)
def twenty_eight_best_suit(points, suits, value):
    """``(suit, mean)``: the suit of the ``suits`` bits whose bid of ``value`` has the best mean."""
    best_suit = -1
    best = -1e9
    trumps = np.empty(points.shape[0], dtype=np.int64)
    for suit in range(4):
        if (suits >> suit) & 1:
            trumps[:] = suit
            score = twenty_eight_mean(points, trumps, value)
            if score > best:
                best = score
                best_suit = suit
    return best_suit, best


@njit(cache=True)
def twenty_eight_bid(s, worlds, stream):
    """Simulation bidding, raising and placing the indicator for the seat to move in Twenty-Eight."""
    legal = np.empty(MAX_ACTIONS, dtype=np.int64)
    n = twenty_eight.legal_actions(s, legal)
    if n == 1:
        return legal[0]
    phase = s[PHASE]
    if phase == twenty_eight.RAISING and legal[n - 1] < twenty_eight_rules.BID:
        return kernels.rules_action(TWENTY_EIGHT, s, stream)  # a variant's node, not a raise
    seat = s[TO_MOVE]
    hand = s[twenty_eight.HANDS + seat]
    held = 0  # the suits this seat could place as the trump
    for suit in range(4):
        if hand & SUIT_MASKS[suit]:
            held |= 1 << suit
    bidder_raising = phase == twenty_eight.RAISING and seat == s[twenty_eight.BIDDER]
    high_bidder = s[twenty_eight.HIGH_BIDDER]
    partner_holds = (phase == twenty_eight.BIDDING and high_bidder >= 0 and high_bidder != seat
                     and team_of(high_bidder) == team_of(seat))
    strains = held  # only a suit in hand can be placed: the others need no solve
    if bidder_raising:
        strains = 1 << s[twenty_eight.TRUMP]
    elif phase == twenty_eight.RAISING or partner_holds:
        strains = 15  # a trump someone else places: any suit
    world_hands = np.zeros((worlds, 4), dtype=np.int64)
    trumps = np.empty(worlds, dtype=np.int64)
    twenty_eight_world_hands(s, seat, stream, world_hands, trumps)
    points = np.zeros((worlds, 4), dtype=np.int64)
    leader = seat_after(s[DEALER], 1, 4)
    declarer_points(TWENTY_EIGHT, world_hands, leader, team_of(seat), strains, points)
    high_bid = s[twenty_eight.HIGH_BID]
    if phase == twenty_eight.PLACING:
        suit, _ = twenty_eight_best_suit(points, held, high_bid)
        return indicator_of_suit(hand, suit)
    if phase == twenty_eight.RAISING:  # pass: the standing contract, in the placed trump
        keep = twenty_eight_mean(points, trumps, high_bid)
    else:
        keep = twenty_eight_best_suit(points, 15, high_bid)[1] if partner_holds else 0.0
    best_action = legal[0]  # pass, or the opener's redeal
    best = keep
    if legal[0] >= twenty_eight_rules.BID:  # the opener must bid
        best = -1e9
    for i in range(n):
        action = legal[i]
        if action < twenty_eight_rules.BID:
            continue
        value = action - twenty_eight_rules.BID
        if bidder_raising:  # the raise keeps the indicator placed
            score = twenty_eight_mean(points, trumps, value)
        else:
            score = twenty_eight_best_suit(points, held, value)[1]
        if score > best:
            best = score
            best_action = action
    return best_action


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
        # One game test per branch, alone: numba prunes the other game's branch when ``game`` is a
        # constant, so a Kaiser agent never compiles Twenty-Eight's bidding (and the reverse).
        if game == KAISER:
            if s[PHASE] == kaiser.BIDDING or s[PHASE] == kaiser.NAMING_TRUMP:
                return kaiser_bid(s, bid_worlds, stream)
        if game == TWENTY_EIGHT:
            if s[PHASE] == twenty_eight.BIDDING or s[PHASE] == twenty_eight.PLACING \
                    or s[PHASE] == twenty_eight.RAISING:
                return twenty_eight_bid(s, bid_worlds, stream)
    return kernels.rules_action(game, s, stream)
