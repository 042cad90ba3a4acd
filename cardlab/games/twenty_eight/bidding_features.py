"""What the CFR bidder abstracts a Twenty-Eight auction with (:mod:`cardlab.cfr.bidding`).

The auction modelled is the first round, on the first four cards (the
sixteen of the first deal stage). A seat's bucket describes those four
cards; the auction as it sees it is the high bid and who holds it, its
position, the passes in a row, whether it has spoken and whether it may ask
for a redeal. The abstraction keeps pass, the redeal, the lowest legal bid
and the jumps to 20 and 24.

==========  ================================================================================
grain       features (each capped as shown)
==========  ================================================================================
coarse      card points of the four cards (0-1, 2-3, 4-5, 6-7, 8+), longest suit (1-2, 3, 4),
            jacks (0, 1, 2+): 45 buckets
fine        card points (0..9+), longest suit (1..4), jacks (0, 1, 2+), a jack and the nine of
            one suit: 240 buckets
==========  ================================================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.auction import bid_holder_relation
from cardlab.core.bitboard import cards_in, popcount
from cardlab.core.cards import JACK, NINE, SUIT_MASKS
from cardlab.core.layout import PHASE
from cardlab.games.twenty_eight import engine as te_engine
from cardlab.games.twenty_eight.rules import BID as TE_BID
from cardlab.games.twenty_eight.rules import CARD_POINTS as TE_CARD_POINTS
from cardlab.games.twenty_eight.rules import JACKS as TE_JACKS
from cardlab.games.twenty_eight.rules import PASS as TE_PASS
from cardlab.games.twenty_eight.rules import REDEAL as TE_REDEAL

#: The parameters the abstraction models besides the standard game: any other changes the
#: auction or the hand's value in ways it does not model.
MODELLED_PARAMETERS = frozenset({"dealer"})
#: Buckets by grain (coarse, fine).
NUM_BUCKETS = (45, 240)
#: Cards dealt before the auction's first decision: the first deal stage.
AUCTION_DEAL = 16
#: Leaf-cache slots per deal: declarer seat x high bid (0..28).
CONTRACTS = 4 * 29
_TE_JUMPS = np.array([20, 24], dtype=np.int64)


@njit(cache=True)
def _count_rank(hand, rank):
    n = 0
    for card in cards_in(hand):
        if card % 13 == rank:
            n += 1
    return n


@njit(cache=True)
def _longest(hand):
    """The suit with most cards (ties: the lower suit) and its length."""
    best, length = 0, -1
    for suit in range(4):
        n = popcount(hand & SUIT_MASKS[suit])
        if n > length:
            best, length = suit, n
    return best, length


@njit(cache=True)
def hand_bucket(hand, fine):
    """The bucket of Twenty-Eight's first four cards (see the module docstring)."""
    points = 0
    for card in cards_in(hand):
        points += TE_CARD_POINTS[card]
    _, length = _longest(hand)
    jacks = min(popcount(hand & TE_JACKS), 2)
    if not fine:
        point_class = min(points // 2, 4)
        long_class = 0 if length <= 2 else length - 2
        return (point_class * 3 + long_class) * 3 + jacks
    jack_nine = 0
    for suit in range(4):
        cards = hand & SUIT_MASKS[suit]
        if _count_rank(cards, JACK) and _count_rank(cards, NINE):
            jack_nine = 1
    return ((min(points, 9) * 4 + length - 1) * 3 + jacks) * 2 + jack_nine


@njit(cache=True)
def in_auction(s):
    """Is ``s`` a decision of the auction the abstraction models?"""
    return s[PHASE] == te_engine.BIDDING


@njit(cache=True)
def auction_features(s, seat, position, fine):
    """``(bucket, throw_in, auction)`` of ``seat``, ``position`` seats after the dealer: its first four
    cards' bucket, whether it may ask for a redeal, and the high bid, who holds it, the position, the
    passes in a row and whether it has spoken, packed."""
    bucket = hand_bucket(s[te_engine.FIRST_FOUR + seat], fine)
    throw_in = 1 if te_engine.may_redeal(s, seat) else 0
    high = s[te_engine.HIGH_BID] + 1
    relation = bid_holder_relation(seat, s[te_engine.HIGH_BIDDER])
    spoke = 1 if s[te_engine.NUM_BIDS] > position else 0
    passes = s[te_engine.PASSES_IN_ROW]
    auction = ((((high * 4 + relation) * 4 + position) * 3 + passes) * 2) + spoke
    return bucket, throw_in, auction


@njit(cache=True)
def abstract_actions(s, legal, n, out):
    """The actions of the abstraction among the ``n`` legal ones, ascending, into ``out``:
    pass, the redeal, the lowest legal bid and the bids of 20 and 24 when they are legal and higher."""
    m = 0
    lowest = -1
    for i in range(n):
        action = legal[i]
        if action == TE_PASS or action == TE_REDEAL:
            out[m] = action
            m += 1
        elif action >= TE_BID and lowest < 0:
            lowest = action
            out[m] = action
            m += 1
        elif action >= TE_BID:
            for jump in _TE_JUMPS:
                if action == TE_BID + jump:
                    out[m] = action
                    m += 1
    return m


@njit(cache=True)
def contract_slot(s):
    """The leaf cache slot of the contract an auction ended in: declarer x high bid."""
    return s[te_engine.HIGH_BIDDER] * 29 + s[te_engine.HIGH_BID]
