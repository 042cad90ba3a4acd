"""Twenty-Eight's bids, raises and trump indicator chosen from the double-dummy points of sampled worlds.

This is PIMC's simulation bidding (:mod:`cardlab.agents.pimc.search`) in
Twenty-Eight's game points. The worlds are dealt to the end (in the first
round the bidder knows four cards), each is solved with every hand open and
the trump known to all from the first card, dealer + 1 leading (ruling 5),
and a contract of value ``v`` made with ``p`` card points is worth ``2 * G``
(the bidding team's game points ``G`` minus the other team's ``-G``, ruling
8). A bid is worth its mean over worlds for the best trump suit the hand can
place; the best bid is made when it beats passing, worth 0 (a partner's
standing bid: the team's mean at that bid, as the open solve does not ask
which partner declares). The opener who may ask for a redeal does so rather
than bid at a loss. A second-round raise must beat the standing contract with
its hidden trump (the partner draws it per world), and a partner's raise
names a suit anew. The indicator is the suit with the best mean and, within
it, the rule-based player's card (the weakest).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, popcount
from cardlab.core.cards import SUIT_MASKS
from cardlab.core.dealing import draw_card
from cardlab.core.layout import DEALER, PHASE, TO_MOVE, seat_after, team_of, undealt_cards
from cardlab.games.twenty_eight import engine as twenty_eight
from cardlab.games.twenty_eight import rules as twenty_eight_rules
from cardlab.games.twenty_eight import strategy as twenty_eight_strategy

#: Columns of the points table: the four trump suits.
STRAINS = 4
MAX_ACTIONS = 64


@njit(cache=True)
def bids_by_simulation(s):
    """Is ``s`` a choice the simulation makes: a bid, the indicator placed, a raise?"""
    phase = s[PHASE]
    return phase == twenty_eight.BIDDING or phase == twenty_eight.PLACING or phase == twenty_eight.RAISING


@njit(cache=True)
def choice_without_worlds(s, stream):
    """The action when no world needs weighing (a single legal one, or a variant's node in the
    second round, left to the rule-based player), else -1."""
    legal = np.empty(MAX_ACTIONS, dtype=np.int64)
    n = twenty_eight.legal_actions(s, legal)
    if n == 1:
        return legal[0]
    if s[PHASE] == twenty_eight.RAISING and legal[n - 1] < twenty_eight_rules.BID:
        return twenty_eight_strategy.rules_action(s, stream)  # a variant's node, not a raise
    return -1


@njit(cache=True)
def _bidding_seat(s):
    """``(seat, hand, held, bidder_raising, partner_holds)`` of the seat to move: ``held`` the suits it
    could place as the trump (a bit each)."""
    phase = s[PHASE]
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
    return seat, hand, held, bidder_raising, partner_holds


@njit(cache=True)
def worlds_to_solve(s):
    """``(leader, strains)``: dealer + 1 leads; the strains (a bit each) the choice may be played in."""
    _, _, held, bidder_raising, partner_holds = _bidding_seat(s)
    strains = held  # only a suit in hand can be placed: the others need no solve
    if bidder_raising:
        strains = 1 << s[twenty_eight.TRUMP]
    elif s[PHASE] == twenty_eight.RAISING or partner_holds:
        strains = 15  # a trump someone else places: any suit
    return seat_after(s[DEALER], 1, 4), strains


@njit(cache=True)
def deal_to_the_end(world, hands, stream):
    """Deal ``world``'s undealt cards into ``hands`` (every seat's open cards, the hidden indicator
    with the bidder) until each holds eight; returns the world's trump suit (-1 before one is placed)."""
    undealt = undealt_cards(world)
    for other in range(4):
        while popcount(hands[other]) < twenty_eight_rules.HAND_SIZE:
            card = draw_card(undealt, stream)
            undealt &= ~card_bit(card)
            hands[other] |= card_bit(card)
    return world[twenty_eight.TRUMP]


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
def choose_contract(s, points, trumps):
    """The bid, raise or indicator of the seat to move, from its team's ``points[w, suit]`` in worlds
    whose trump, where one is placed, is ``trumps[w]``."""
    legal = np.empty(MAX_ACTIONS, dtype=np.int64)
    n = twenty_eight.legal_actions(s, legal)
    phase = s[PHASE]
    _, hand, held, bidder_raising, partner_holds = _bidding_seat(s)
    high_bid = s[twenty_eight.HIGH_BID]
    if phase == twenty_eight.PLACING:
        suit, _ = twenty_eight_best_suit(points, held, high_bid)
        return twenty_eight_strategy.indicator_of_suit(hand, suit)
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
