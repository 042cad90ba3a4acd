"""Quick tricks and bounds: a position's value bracketed before it is searched.

The leader's sure winners (top cards in sequence, drawn trumps) and the points
left give a lower and upper bound at a trick boundary; when they already decide
the search window the node is cut off without a move (``USE_QUICK_TRICKS``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import (
    highest_card,
    lowest_card,
    popcount,
)
from cardlab.core.search_cards import CARDS_PER_SUIT
from cardlab.solver.rules import (
    NUM_SEATS,
    POINTS,
    POSITIVE_CARDS,
    POSITIVE_PLANES,
    TRICK_BASE,
    TRUMP_CARDS,
    _plane_points,
    _signed_points_of,
    _suit_bits,
    beats,
)


@njit(cache=True, inline="always")
def _at_or_below_top(mask):
    """In every suit at once, the cards at or below the strongest card ``mask`` has there."""
    mask |= (mask >> 1) & np.int64(0x7F7F7F7F)
    mask |= (mask >> 2) & np.int64(0x3F3F3F3F)
    mask |= (mask >> 4) & np.int64(0x0F0F0F0F)
    return mask


@njit(cache=True, inline="always")
def _sure_winners(rules, hands, leader):
    """The leader's cards that win their tricks however the others play, led one after another.

    Top trumps in sequence; then, once those leave the opponents without
    trumps (or in no trump), the top cards in sequence of every other suit:
    in each suit, the leader's cards above every other hand's.
    """
    mine = hands[leader]
    winners = mine & ~_at_or_below_top((hands[0] | hands[1] | hands[2] | hands[3]) & ~mine)
    trumps = rules[TRUMP_CARDS]  # none in no trump: nobody ruffs
    drawn = popcount(winners & trumps)
    if popcount(hands[leader ^ 1] & trumps) > drawn or popcount(hands[leader ^ 3] & trumps) > drawn:
        winners &= trumps  # an opponent still ruffs the other suits
    return winners


@njit(cache=True, inline="always")
def _top_card(mask):
    """The strongest search card of a non-empty mask."""
    return highest_card(mask)


@njit(cache=True, inline="always")
def _master_trumps(rules, hands, seat):
    """Trumps of ``seat``'s team above every opponent's trump, those of the partner holding more.

    Such a trump wins the trick it falls in whenever it is played (the best
    trump of that trick is it or a partner's still higher one), and one
    player's cards fall in different tricks: each is a trick the team takes,
    whoever leads, which bounds both sides at any trick boundary.
    """
    trumps = rules[TRUMP_CARDS]
    if trumps == 0:
        return np.int64(0)
    # Suit by suit, so the opponents' other suits do not reach the trumps.
    above = trumps & ~_at_or_below_top(hands[seat ^ 1] | hands[seat ^ 3])
    mine = hands[seat] & above
    partner = hands[seat ^ 2] & above
    return mine if popcount(mine) >= popcount(partner) else partner


@njit(cache=True, inline="always")
def _last_trick(rules, hands, leader):
    """``(points, rank)``: team 0's points of the last trick, each seat playing its one card,
    and the winning card if it won by rank (see :func:`_rank_winner`)."""
    best = leader
    best_card = lowest_card(hands[leader])
    taken = rules[TRICK_BASE] + rules[POINTS + best_card]
    live = hands[0] | hands[1] | hands[2] | hands[3]
    for step in range(1, NUM_SEATS):
        seat = (leader + step) % NUM_SEATS
        card = lowest_card(hands[seat])
        taken += rules[POINTS + card]
        if beats(rules, card, step, best_card, 0, 0):
            best = seat
            best_card = card
    rank = np.int64(0)
    if popcount(live & _suit_bits(best_card // CARDS_PER_SUIT)) > 1:
        rank = np.int64(1) << best_card
    return (taken if (best & 1) == 0 else 0), rank


@njit(cache=True, inline="always")
def quick_trick_bound(rules, hands, leader, negative):
    """A lower bound of the leader's team's points from here: its sure winners, worst case.

    The leader cashes his sure winners: each trick is the trick's base points
    plus his card's points at least; every negative point still out may land
    in his team's tricks, and nothing else is counted.
    """
    return _winners_bound(rules, _sure_winners(rules, hands, leader), negative)


@njit(cache=True, inline="always")
def _winners_bound(rules, winners, negative):
    """A side's least points when ``winners`` each take a trick for it: the tricks, the
    winners' own positive points, and every negative point still out."""
    positive = 0
    if winners & rules[POSITIVE_CARDS] != 0:  # Kaiser: only when the 5 of hearts is among them
        positive = _plane_points(rules, winners, POSITIVE_PLANES)
    return popcount(winners) * rules[TRICK_BASE] + positive + negative


@njit(cache=True, inline="always")
def boundary_bounds(rules, hands, leader, tricks_left):
    """``(lower, upper)`` bounds of team 0's points from a trick boundary, by counting sure winners.

    The leading team takes at least its quick tricks (:func:`quick_trick_bound`)
    and its master trumps; the other team at least its master trumps; each
    side's upper bound is what the other side's lower bound leaves.
    """
    lower, upper, _, _ = _bounds_and_winners(rules, hands, leader, tricks_left)
    return lower, upper


@njit(cache=True, inline="always")
def _bounds_and_winners(rules, hands, leader, tricks_left):
    """:func:`boundary_bounds` and the cards each side's bound counts: ``(lower, upper, leading,
    other)``, the leader's sure winners or his team's master trumps, whichever give the larger
    bound, and the other team's master trumps (the winning ranks of a cut-off by that side's
    bound)."""
    negative, positive = _signed_points_of(rules, hands[0] | hands[1] | hands[2] | hands[3])
    total = negative + positive + tricks_left * rules[TRICK_BASE]
    sure = _sure_winners(rules, hands, leader)
    masters = _master_trumps(rules, hands, leader)
    other_masters = _master_trumps(rules, hands, (leader + 1) & 3)
    by_sure = _winners_bound(rules, sure, negative)
    by_masters = _winners_bound(rules, masters, negative)
    leading = max(by_sure, by_masters)
    leading_cards = sure if by_sure >= by_masters else masters  # the cards of the larger bound
    other = _winners_bound(rules, other_masters, negative)
    if (leader & 1) == 0:
        return leading, total - other, leading_cards, other_masters
    return other, total - leading, leading_cards, other_masters
