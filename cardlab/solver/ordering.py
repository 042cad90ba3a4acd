"""Move ordering: the moves of a node listed, equivalent cards once, the likely best first.

Cheap winners first, points onto a partner's winning trick, low discards
(``USE_ORDERING``); of cards equivalent in one hand only one is searched
(``USE_EQUIVALENCE``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import (
    deposit_bits,
    extract_bits,
    lowest_card,
)
from cardlab.core.search_cards import CARDS_PER_SUIT
from cardlab.solver.bounds import _at_or_below_top, _top_card
from cardlab.solver.node import MOVE_SLOTS, NODE_SKIPPED
from cardlab.solver.rules import (
    CLASS_CARDS,
    FLAGS,
    NUM_SEATS,
    POINTS,
    TRUMP,
    USE_EQUIVALENCE,
    _above,
    _suit_bits,
    beats,
    playable,
)


@njit(cache=True, inline="always")
def _holds_trick(rules, hands, trick, size, seat, card):
    """Can no opponent still to play in this trick beat ``card`` (following suit or ruffing)?"""
    led = _suit_bits(trick[0] // CARDS_PER_SUIT)
    trump = rules[TRUMP]
    trumps = _suit_bits(trump) if trump >= 0 else np.int64(0)
    card_is_trump = trump >= 0 and card // CARDS_PER_SUIT == trump
    for position in range(size + 1, NUM_SEATS):
        other = (seat + position - size) % NUM_SEATS
        if (other & 1) == (seat & 1):
            continue
        hand = hands[other]
        if card_is_trump:
            if hand & led == 0 or led == trumps:
                if hand & trumps & _above(card) != 0:
                    return False
        elif hand & led != 0:
            if hand & _above(card) != 0:
                return False
        elif hand & trumps != 0:
            return False
    return True


@njit(cache=True, inline="always")
def _order_moves(rules, scratch, d, n, hands, trick, size, seat, best_position, trumps_from, live, tt_move):
    """Sort ``scratch[d, :n]`` best first by a cheap guess (the table's best lead first of all)."""
    partner_winning = size > 0 and ((seat - size + best_position) & 1) == (seat & 1)
    for i in range(n):
        card = scratch[d, i]
        points = rules[POINTS + card]
        strength = card % CARDS_PER_SUIT
        if card == tt_move:
            score = 1000
        elif size == 0:
            is_top = (live & _above(card) & ~hands[seat]) == 0
            if is_top:
                score = 200 + points
            else:
                score = 100 - strength
                suit_cards = live & _suit_bits(card // CARDS_PER_SUIT)
                if hands[(seat + 2) % NUM_SEATS] >> _top_card(suit_cards) & 1:
                    score += 40  # partner holds the suit's best card
                trump = rules[TRUMP]
                if trump >= 0 and card // CARDS_PER_SUIT != trump:
                    for step in (1, 3):
                        opponent = hands[(seat + step) % NUM_SEATS]
                        if opponent & suit_cards == 0 and opponent & _suit_bits(trump) != 0:
                            score -= 40  # an opponent ruffs it
        elif partner_winning:
            wins = beats(rules, card, size, trick[best_position], best_position, trumps_from)
            score = 100 + 10 * points - strength - (50 if wins else 0)
        elif beats(rules, card, size, trick[best_position], best_position, trumps_from):
            score = 300 - strength + (10 * points if size == 3 else 0)
            if size < 3 and _holds_trick(rules, hands, trick, size, seat, card):
                score += 60  # no opponent after can overtake it
        else:
            score = 50 - 10 * points - strength
        scratch[d, MOVE_SLOTS + i] = score
    for i in range(1, n):  # insertion sort, descending: at most eight moves
        card = scratch[d, i]
        score = scratch[d, MOVE_SLOTS + i]
        j = i - 1
        while j >= 0 and scratch[d, MOVE_SLOTS + j] < score:
            scratch[d, j + 1] = scratch[d, j]
            scratch[d, MOVE_SLOTS + j + 1] = scratch[d, MOVE_SLOTS + j]
            j -= 1
        scratch[d, j + 1] = card
        scratch[d, MOVE_SLOTS + j + 1] = score


@njit(cache=True, inline="always")
def _list_moves(rules, hands, trick, size, seat, live, scratch, d):
    """The playable cards into ``scratch[d]``, one card per run of equivalent cards if asked.

    A card is skipped when the next live card above it in its suit is another playable card
    of the same hand with the same points: no card of another hand lies between them. All
    at once, in the order of the live cards (``extract_bits``): a card and its successor
    there both the hand's, of one point class, and not the suit's top card.
    """
    cards = playable(hands[seat], trick, size)
    skipped = np.int64(0)
    if rules[FLAGS] & USE_EQUIVALENCE:
        order = live | cards
        mine = extract_bits(cards, order)
        class_low = extract_bits(rules[CLASS_CARDS + 1] | rules[CLASS_CARDS + 3], order)
        class_high = extract_bits(rules[CLASS_CARDS + 2] | rules[CLASS_CARDS + 3], order)
        same = mine & (mine >> 1) & ~(class_low ^ (class_low >> 1)) & ~(class_high ^ (class_high >> 1))
        below_top = (_at_or_below_top(order) >> 1) & np.int64(0x7F7F7F7F)
        skipped = deposit_bits(same, order) & below_top
    kept = cards & ~skipped
    n = 0
    while kept != 0:
        scratch[d, n] = lowest_card(kept)
        kept &= kept - 1
        n += 1
    scratch[d, NODE_SKIPPED] = skipped
    return n
