"""Exact uniform sampling of hidden hands under "who may hold what" constraints.

A player who wants to imagine the unseen hands (ISMCTS determinization,
``resample_from_infostate``) knows which cards are unseen, how many cards each
other seat holds, and, for each seat, which unseen cards it *may* hold (a seat
that showed out of a suit holds none of it). Drawing cards one at a time and
dealing them wherever they fit is biased; this module draws every consistent
deal with equal probability.

Method: cards that share the same set of possible holders form a *class*.
A forward dynamic programme over classes counts, for every vector of remaining
hand capacities, the number of ways to place the classes seen so far (a class
of n cards split x_1..x_k among its seats in n! / (x_1! ... x_k!) ways). The
sample is then drawn backwards: each class's split with probability
proportional to its completions, then the cards of the class shuffled into
that split. Constraints that are not per-card (Literature's half-suit
minimums) need a game's own sampler.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, cards_in, nth_card, popcount
from cardlab.core.layout import DEALT, DECK, NUM_PLAYERS, recount_undealt
from cardlab.core.rng import random_below, random_unit

MAX_HIDDEN_SEATS = 7

_FACTORIALS = np.ones(64, dtype=np.float64)
for _n in range(1, 64):
    _FACTORIALS[_n] = _FACTORIALS[_n - 1] * _n


@njit(cache=True)
def _split_weight(splits, count):
    weight = _FACTORIALS[count]
    for x in splits:
        weight /= _FACTORIALS[x]
    return weight


@njit(cache=True)
def _class_seats(pattern, num_seats, seats_in_class):
    """Mark in ``seats_in_class`` the seats of ``pattern`` but its lowest; return that lowest.

    The lowest seat (the *lead*) takes whatever its class's split leaves over,
    so only the other seats are enumerated.
    """
    lead = -1
    for i in range(num_seats):
        in_class = (pattern >> i) & 1 == 1
        if in_class and lead < 0:
            lead = i
            in_class = False
        seats_in_class[i] = in_class
    return lead


@njit(cache=True)
def _complete_split(split, limits, lead, count, num_seats):
    """Give the lead seat what the other seats leave of ``count``; False if it cannot take it."""
    rest = count
    for i in range(num_seats):
        if i != lead:
            rest -= split[i]
    split[lead] = rest
    return 0 <= rest <= limits[lead]


@njit(cache=True)
def _next_split(split, limits, seats_in_class, num_seats):
    """Odometer step over split vectors (only class seats move); False when done.

    Enumerating all seats but the lead (the first seat moving fastest) visits the
    valid splits in the same order as enumerating every seat and keeping those
    that sum to the class size, so draws do not depend on this shortcut.
    """
    for i in range(num_seats):
        if not seats_in_class[i]:
            continue
        if split[i] < limits[i]:
            split[i] += 1
            return True
        split[i] = 0
    return False


@njit(cache=True)
def sample_hidden_hands(unseen, may_hold, hand_sizes, stream, out_hands):
    """Deal the ``unseen`` cards to seats uniformly among consistent deals.

    ``may_hold[i]`` is the mask of unseen cards seat i may hold and
    ``hand_sizes[i]`` how many it must receive (sizes sum to the unseen count).
    Fills ``out_hands[i]`` and returns the number of consistent deals (0.0
    when none exists, in which case ``out_hands`` is left zero).

    Long on purpose: the counting pass and the drawing pass share their tables as locals of one frame,
    where the inner loops read them without a call.
    """
    num_seats = hand_sizes.shape[0]
    for i in range(num_seats):
        out_hands[i] = 0
    # Group cards into classes by their set of possible holders.
    class_masks = np.zeros(1 << num_seats, dtype=np.int64)
    for card in cards_in(unseen):
        pattern = 0
        for i in range(num_seats):
            if (may_hold[i] >> card) & 1:
                pattern |= 1 << i
        if pattern == 0:
            return 0.0
        class_masks[pattern] |= card_bit(card)
    patterns = np.nonzero(class_masks)[0]
    num_classes = patterns.shape[0]
    # Capacities as a mixed-radix number so one array row holds every vector.
    radix = np.ones(num_seats + 1, dtype=np.int64)
    for i in range(num_seats):
        radix[i + 1] = radix[i] * (hand_sizes[i] + 1)
    num_states = radix[num_seats]
    ways = np.zeros((num_classes + 1, num_states), dtype=np.float64)
    start = 0
    for i in range(num_seats):
        start += hand_sizes[i] * radix[i]
    ways[0, start] = 1.0
    remaining = np.zeros(num_seats, dtype=np.int64)
    split = np.zeros(num_seats, dtype=np.int64)
    seats_in_class = np.zeros(num_seats, dtype=np.bool_)
    for c in range(num_classes):
        pattern = patterns[c]
        count = popcount(class_masks[pattern])
        lead = _class_seats(pattern, num_seats, seats_in_class)
        for state in range(num_states):
            if ways[c, state] == 0.0:
                continue
            for i in range(num_seats):
                remaining[i] = (state // radix[i]) % (hand_sizes[i] + 1)
                split[i] = 0
            while True:
                if _complete_split(split, remaining, lead, count, num_seats):
                    offset = 0
                    for i in range(num_seats):
                        offset += split[i] * radix[i]
                    ways[c + 1, state - offset] += ways[c, state] * _split_weight(split, count)
                if not _next_split(split, remaining, seats_in_class, num_seats):
                    break
    total_deals = ways[num_classes, 0]
    if total_deals == 0.0:
        return 0.0
    # Backward draw: pick each class's split in proportion to its completions.
    state = 0
    limits = np.zeros(num_seats, dtype=np.int64)
    chosen = np.zeros(num_seats, dtype=np.int64)
    for c in range(num_classes - 1, -1, -1):
        pattern = patterns[c]
        count = popcount(class_masks[pattern])
        lead = _class_seats(pattern, num_seats, seats_in_class)
        for i in range(num_seats):
            split[i] = 0
            limits[i] = hand_sizes[i] - (state // radix[i]) % (hand_sizes[i] + 1)
        target = random_unit(stream) * ways[c + 1, state]
        chosen_offset = -1
        last_offset = -1
        while True:
            valid = _complete_split(split, limits, lead, count, num_seats)
            offset = 0
            for i in range(num_seats):
                offset += split[i] * radix[i]
            if valid and state + offset < num_states:
                weight = ways[c, state + offset] * _split_weight(split, count)
                if weight > 0.0:
                    last_offset = offset
                    chosen[:] = split
                    target -= weight
                    if target < 0.0:
                        chosen_offset = offset
                        break
            if not _next_split(split, limits, seats_in_class, num_seats):
                break
        if chosen_offset < 0:  # floating-point slack: take the last feasible split
            chosen_offset = last_offset
        state += chosen_offset
        # Shuffle the class's cards into the chosen split.
        cards = cards_in(class_masks[pattern])
        for k in range(count - 1, 0, -1):
            j = random_below(stream, k + 1)
            cards[k], cards[j] = cards[j], cards[k]
        position = 0
        for i in range(num_seats):
            for _ in range(chosen[i]):
                out_hands[i] |= card_bit(cards[position])
                position += 1
    return total_deals


@njit(cache=True)
def redraw_deal_so_far(s, seat, hands_slot, stream):
    """A copy of ``s``, in the middle of a deal, with the cards dealt to the other seats redrawn.

    Before the last card is dealt nothing has been played, so a seat knows
    only its own cards: each other seat's cards so far are a uniform draw from
    the rest of the deck (the cards not yet dealt are the remainder). The
    game's hands (``hands_slot`` onwards, one slot per seat) follow.
    """
    world = s.copy()
    pool = s[DECK] & ~s[DEALT + seat]
    for other in range(s[NUM_PLAYERS]):
        if other == seat:
            continue
        cards = np.int64(0)
        for _ in range(popcount(s[DEALT + other])):
            card = nth_card(pool, random_below(stream, popcount(pool)))
            cards |= card_bit(card)
            pool &= ~card_bit(card)
        world[DEALT + other] = cards
        world[hands_slot + other] = cards
    recount_undealt(world)
    return world
