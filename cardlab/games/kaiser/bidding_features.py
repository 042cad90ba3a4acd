"""What the CFR bidder abstracts a Kaiser auction with (:mod:`cardlab.cfr.bidding`).

The hand's bucket, built on the points the hand should take by itself (the
rule-based player's estimate), and the auction as a seat sees it: the high
bid and who holds it, the seat's position, whether it may throw the hand in.
The abstraction keeps every legal action; the auction is the deal's only one,
on all 32 cards.

==========  ================================================================================
grain       features (each capped as shown)
==========  ================================================================================
coarse      t, the points the hand should take with its best trump suit (the rule-based
            estimate: aces, guarded kings and queens per suit, trump length, short side suits,
            5H, 3S) in whole points (0..8+); whether no trump loses 1.5 points or more of it;
            5H held; 3S held: 72 buckets
fine        t in half points (0..17+); what no trump loses (< 1, 1-2, 2+ points); 5H held;
            3S held: 216 buckets
==========  ================================================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.auction import bid_holder_relation
from cardlab.core.layout import PHASE
from cardlab.games.kaiser import engine as kaiser_engine
from cardlab.games.kaiser import strategy as kaiser_strategy
from cardlab.games.kaiser.rules import FIVE_OF_HEARTS, THREE_OF_SPADES

#: The parameters the abstraction models besides the standard game: any other changes the
#: auction or the hand's value in ways it does not model (a match scores games, not hands;
#: the kitty adds cards).
MODELLED_PARAMETERS = frozenset({"dealer", "min_bid", "low_no_trump"})
#: Buckets by grain (coarse, fine).
NUM_BUCKETS = (72, 216)
#: Cards dealt before the auction's first decision: the whole deck.
AUCTION_DEAL = 32
#: Leaf-cache slots per deal: declarer seat x high bid (ranks 0..40).
CONTRACTS = 4 * 41


@njit(cache=True)
def hand_bucket(s, hand, fine):
    """The bucket of a Kaiser hand of eight cards in the game of state ``s`` (see the module docstring).

    Built on the points the hand should take by itself (the rule-based
    player's estimate from its high cards per suit and its suit lengths),
    with trumps in its best suit and at no trump, and on the 5H and 3S.
    """
    order = kaiser_engine.high_strength(s)
    trump = kaiser_strategy.estimated_points(s, hand, kaiser_strategy.best_trump_suit(hand, order))
    no_trump = kaiser_strategy.estimated_points(s, hand, -1)
    five = (hand >> FIVE_OF_HEARTS) & 1
    three = (hand >> THREE_OF_SPADES) & 1
    if fine:
        strength = min(max(int(np.floor(2.0 * trump)), 0), 17)
        gap = trump - no_trump
        shape = 0 if gap < 1.0 else (1 if gap < 2.0 else 2)
        return ((strength * 3 + shape) * 2 + five) * 2 + three
    strength = min(max(int(np.floor(trump)), 0), 8)
    shape = 0 if trump - no_trump < 1.5 else 1
    return ((strength * 2 + shape) * 2 + five) * 2 + three


@njit(cache=True)
def in_auction(s):
    """Is ``s`` a decision of the auction the abstraction models?"""
    return s[PHASE] == kaiser_engine.BIDDING


@njit(cache=True)
def auction_features(s, seat, position, fine):
    """``(bucket, throw_in, auction)`` of ``seat``, ``position`` seats after the dealer: its hand's
    bucket, whether it may throw the hand in, and the high bid, who holds it and the position packed."""
    bucket = hand_bucket(s, s[kaiser_engine.HANDS + seat], fine)
    throw_in = 1 if kaiser_engine.may_throw_in(s, seat) else 0
    high = s[kaiser_engine.HIGH_BID] + 1
    relation = bid_holder_relation(seat, s[kaiser_engine.DECLARER] if high > 0 else -1)
    auction = (high * 4 + relation) * 4 + position
    return bucket, throw_in, auction


@njit(cache=True)
def abstract_actions(s, legal, n, out):
    """Every one of the ``n`` legal actions, into ``out``."""
    for i in range(n):
        out[i] = legal[i]
    return n


@njit(cache=True)
def contract_slot(s):
    """The leaf cache slot of the contract an auction ended in: declarer x high bid."""
    return s[kaiser_engine.DECLARER] * 41 + s[kaiser_engine.HIGH_BID]
