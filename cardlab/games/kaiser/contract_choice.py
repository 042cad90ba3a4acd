"""Kaiser's bid and trump chosen from the double-dummy points of sampled worlds.

This is PIMC's simulation bidding (:mod:`cardlab.agents.pimc.search`) in Kaiser's
terms. All 32 cards are dealt before the auction, so a sampled world is already
complete. In every world the seat to move declares and leads, and the solver
fills a table of its team's points, one column a strain: the four trump suits,
no trump and low no trump (the double-dummy solver's strain numbering).

A contract is worth the mean over worlds of the hand's net score (own score
change minus the other team's); the best contract is bid when its mean net
score is positive, else pass (the dealer, forced to bid, takes the best). The
trump named is the suit with the best mean net score for the bid won.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.layout import PHASE, TO_MOVE
from cardlab.core.search_cards import LOW_NO_TRUMP_STRAIN, NO_TRUMP_STRAIN
from cardlab.games.kaiser import engine as kaiser
from cardlab.games.kaiser import rules as kaiser_rules

#: Columns of the points table: four trumps, no trump, low no trump.
STRAINS = 6
MAX_ACTIONS = 64


@njit(cache=True)
def bids_by_simulation(s):
    """Is ``s`` a choice the simulation makes: a bid, or the trump named?"""
    return s[PHASE] == kaiser.BIDDING or s[PHASE] == kaiser.NAMING_TRUMP


@njit(cache=True)
def choice_without_worlds(s, stream):
    """Every Kaiser choice of the auction is weighed on the worlds: -1."""
    return -1


@njit(cache=True)
def worlds_to_solve(s):
    """``(leader, strains)``: the seat to move declares and leads, in every strain (a bit each)."""
    return s[TO_MOVE], (1 << STRAINS) - 1


@njit(cache=True)
def deal_to_the_end(world, hands, stream):
    """Nothing is left to deal before the play, and no trump is named yet: -1."""
    return -1


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
def choose_contract(s, points, trumps):
    """The bid, or the trump named, of the seat to move, from its team's ``points[w, strain]``."""
    if s[PHASE] == kaiser.NAMING_TRUMP:
        value = s[kaiser.HIGH_BID] // 3
        best_suit = 0
        best = -1e9
        for suit in range(4):
            total = 0.0
            for w in range(points.shape[0]):
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
