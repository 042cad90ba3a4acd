"""Two-trick endings: a boundary with two tricks left solved in one call (``USE_TWO_TRICK_ENDINGS``).

Alpha-beta over the at most sixteen lines of the first of the two tricks (the
last is forced) costs less than the bounds and the table it replaces.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import (
    highest_card,
    lowest_card,
    popcount,
)
from cardlab.core.search_cards import CARDS_PER_SUIT, NO_CARD
from cardlab.solver.rules import (
    NUM_SEATS,
    POINTS,
    TRICK_BASE,
    TRUMP_CARDS,
    _above,
    _signed_points_of,
    _suit_bits,
)


@njit(cache=True, inline="always")
def _strength(card, led, trumps):
    """A card's strength in a trick led in the suit ``led`` (a mask): the strongest wins.

    Its rank, 8 more in the led suit, 16 more as a trump (trumps count from the
    lead on: a trick boundary's tricks); a discard is never above the led card.
    """
    return (card % CARDS_PER_SUIT) | (((led >> card) & 1) << 3) | (((trumps >> card) & 1) << 4)


@njit(cache=True, inline="always")
def _follow_order(hand, led, trumps, best, partner_winning):
    """``(first, second)``: the playable cards of a hand of at most two, the likelier best
    first (a cheap guess: the ordering's own costs more than the lines it saves); ``second``
    is ``NO_CARD`` when only one card is playable. ``best`` is the strength of the trick's
    winning card."""
    cards = hand & led
    if cards == 0:
        cards = hand
    first = lowest_card(cards)
    rest = cards & (cards - 1)
    if rest == 0:
        return first, NO_CARD
    second = lowest_card(rest)
    if not partner_winning and _strength(second, led, trumps) > best >= _strength(first, led, trumps):
        return second, first  # a winner first when the opponents hold the trick, else low
    return first, second


@njit(cache=True, inline="always")
def _after(card, hand, led, trumps, winner, winner_left, best):
    """``(winner, winner_left, best)`` once ``card`` of ``hand`` falls: the trick's winning card,
    its holder's other card (the last trick's lead) and its strength."""
    strength = _strength(card, led, trumps)
    if strength > best:
        return card, lowest_card(hand ^ (np.int64(1) << card)), strength
    return winner, winner_left, best


@njit(cache=True, inline="always")
def _two_trick_line(rules, trumps, team0, total, live, played, winner, winner_left, taken):
    """``(points, ranks)`` of a two-trick line: team 0's points of the first trick as played
    (the cards ``played``, won by ``winner``, worth ``taken``) and of the forced last one,
    led by ``winner_left``, the winner's other card; the winning ranks of both tricks."""
    ranks = np.int64(0)
    if popcount(played & _suit_bits(winner // CARDS_PER_SUIT)) > 1:
        ranks = np.int64(1) << winner
    last = live ^ played
    ruffs = last & trumps
    last_winner = highest_card(ruffs) if ruffs != 0 else highest_card(
        last & _suit_bits(winner_left // CARDS_PER_SUIT))
    if popcount(last & _suit_bits(last_winner // CARDS_PER_SUIT)) > 1:
        ranks |= np.int64(1) << last_winner
    value = taken if (team0 >> winner) & 1 else 0
    if (team0 >> last_winner) & 1:
        value += total - taken
    return value, ranks


@njit(cache=True, inline="always")
def _line_back(maximise, value, ranks, best, alpha, beta, node_ranks):
    """A node of the two-trick kernel takes a child's value: ``(best, alpha, beta, ranks, cut)``.

    As in :func:`search`: at a cut-off the node's winning ranks are the cutting
    line's alone, otherwise the union of every line's.
    """
    if maximise:
        best = max(best, value)
        alpha = max(alpha, value)
    else:
        best = min(best, value)
        beta = min(beta, value)
    if alpha >= beta:
        return best, alpha, beta, ranks, True
    return best, alpha, beta, node_ranks | ranks, False


@njit(cache=True)  # not inlined: it would be compiled again at each of search's two _enter sites
def _two_tricks(rules, hands, leader, alpha, beta):
    """``(value, ranks)`` of a trick boundary with two tricks left, fail-soft in
    ``(alpha, beta)``: alpha-beta over the lines of the first trick (each hand holds two
    cards), the last trick forced, with the winning ranks the node-per-card search would
    return for the same lines (no card is skipped as equivalent, so none is covered)."""
    trumps = rules[TRUMP_CARDS]
    live = hands[0] | hands[1] | hands[2] | hands[3]
    team0 = hands[0] | hands[2]
    negative, positive = _signed_points_of(rules, live)
    # A window outside the points left is decided by them alone (a third of the calls in Kaiser).
    if beta <= negative:
        return negative, np.int64(0)
    highest = positive + 2 * rules[TRICK_BASE]
    if alpha >= highest:
        return highest, np.int64(0)
    total = highest + negative
    hand0 = hands[leader]
    hand1 = hands[(leader + 1) % NUM_SEATS]
    hand2 = hands[(leader + 2) % NUM_SEATS]
    hand3 = hands[(leader + 3) % NUM_SEATS]
    leading = (leader & 1) == 0  # the leader's team is team 0: it maximises
    first = lowest_card(hand0)
    second = highest_card(hand0)
    if (live & _above(second) & ~hand0) == 0 and (live & _above(first) & ~hand0) != 0:
        first, second = second, first  # a sure winner first
    best0 = -1000 if leading else 1000
    ranks0 = np.int64(0)
    for i0 in range(2):
        c0 = first if i0 == 0 else second
        led = _suit_bits(c0 // CARDS_PER_SUIT)
        left0 = lowest_card(hand0 ^ (np.int64(1) << c0))
        taken0 = rules[TRICK_BASE] + rules[POINTS + c0]
        strength0 = _strength(c0, led, trumps)
        f1, s1 = _follow_order(hand1, led, trumps, strength0, False)
        best1 = 1000 if leading else -1000
        alpha1, beta1, ranks1 = alpha, beta, np.int64(0)
        for i1 in range(2):
            c1 = f1 if i1 == 0 else s1
            if c1 == NO_CARD:
                break
            win1, wleft1, strength1 = _after(c1, hand1, led, trumps, c0, left0, strength0)
            taken1 = taken0 + rules[POINTS + c1]
            f2, s2 = _follow_order(hand2, led, trumps, strength1, win1 == c0)
            best2 = -1000 if leading else 1000
            alpha2, beta2, ranks2 = alpha1, beta1, np.int64(0)
            for i2 in range(2):
                c2 = f2 if i2 == 0 else s2
                if c2 == NO_CARD:
                    break
                win2, wleft2, strength2 = _after(c2, hand2, led, trumps, win1, wleft1, strength1)
                taken2 = taken1 + rules[POINTS + c2]
                f3, s3 = _follow_order(hand3, led, trumps, strength2, win2 == c1)
                best3 = 1000 if leading else -1000
                alpha3, beta3, ranks3 = alpha2, beta2, np.int64(0)
                for i3 in range(2):
                    c3 = f3 if i3 == 0 else s3
                    if c3 == NO_CARD:
                        break
                    win3, wleft3, _ = _after(c3, hand3, led, trumps, win2, wleft2, strength2)
                    played = (np.int64(1) << c0) | (np.int64(1) << c1) | (np.int64(1) << c2) | (
                        np.int64(1) << c3)
                    value, ranks = _two_trick_line(rules, trumps, team0, total, live, played, win3, wleft3,
                                                   taken2 + rules[POINTS + c3])
                    best3, alpha3, beta3, ranks3, cut = _line_back(not leading, value, ranks, best3, alpha3,
                                                                   beta3, ranks3)
                    if cut:
                        break
                best2, alpha2, beta2, ranks2, cut = _line_back(leading, best3, ranks3, best2, alpha2, beta2,
                                                               ranks2)
                if cut:
                    break
            best1, alpha1, beta1, ranks1, cut = _line_back(not leading, best2, ranks2, best1, alpha1, beta1,
                                                           ranks1)
            if cut:
                break
        best0, alpha, beta, ranks0, cut = _line_back(leading, best1, ranks1, best0, alpha, beta, ranks0)
        if cut:
            break
    return best0, ranks0
