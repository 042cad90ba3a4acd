"""The rules vector: all the double-dummy search knows of a game, and the play it rules.

Kaiser and Twenty-Eight differ, for the search, only in data (:func:`make_rules`):
the trump suit, the points a trick is worth by itself and the points each search
card carries. Here too are the questions every technique asks of it: which cards
may be played, which card beats which, who leads the trick so far, and how many
points are left to take. ``flags`` switches each technique of the search on or off
(:data:`TECHNIQUE_NAMES`), for the ablation benchmark.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import (
    popcount,
)
from cardlab.core.search_cards import CARDS_PER_SUIT

# ---- The rules vector -------------------------------------------------------------
TRUMP = 0  # search suit of trumps, -1 for no trump
TRICK_BASE = 1  # points of a trick by itself
FLAGS = 2  # the techniques switched on (bits below)
POINTS = 3  # 32 slots: the points of each search card
POINT_CLASS = POINTS + 32  # 32 slots: which of the game's (at most 4) point values the card has
MAX_POINT_CLASSES = 4
CLASS_VALUE = POINT_CLASS + 32  # 4 slots: the point value of each class
CLASS_CARDS = CLASS_VALUE + MAX_POINT_CLASSES  # 4 slots: the mask of the cards of each class
NUM_CLASSES = CLASS_CARDS + MAX_POINT_CLASSES  # how many classes the game has
POINT_CARDS = NUM_CLASSES + 1  # the cards carrying points
TRUMP_CARDS = NUM_CLASSES + 2  # the cards of the trump suit (none in no trump)
POINT_PLANES = 3  # a card's points lie within +-(2 ** POINT_PLANES - 1)
POSITIVE_PLANES = TRUMP_CARDS + 1  # 3 slots: the cards whose positive points have bit j set
NEGATIVE_PLANES = POSITIVE_PLANES + POINT_PLANES  # 3 slots: ... whose negative points' size has bit j set
POSITIVE_CARDS = NEGATIVE_PLANES + POINT_PLANES  # the cards carrying positive points
# 2 slots each (suits 0|1, suits 2|3): every card's 4-bit key field as far as the rules fix it, at
# nibble 8 * (suit % 2) + rank: its point class (bits 2 and 3), and for FIXED_FIELDS the bits every
# entry compares (the class bits; the holder bits too for a card carrying points).
CLASS_FIELDS = POSITIVE_CARDS + 1
FIXED_FIELDS = CLASS_FIELDS + 2
NARROW_WIDTH = FIXED_FIELDS + 2  # a narrow search: the cards it searches at each node ...
NARROW_LINE_TRICKS = FIXED_FIELDS + 3  # ... and in how many last tricks it searches only one
RULES_SIZE = FIXED_FIELDS + 4

USE_TT = 1
USE_EQUIVALENCE = 2
USE_ORDERING = 4
USE_QUICK_TRICKS = 8
USE_MTD = 16
USE_WINNING_RANKS = 32
USE_NARROW_GUESS = 64  # MTD(f)'s first guess from a narrow search (else from one line of play)
USE_TWO_TRICK_ENDINGS = 128  # a boundary with two tricks left solved in one kernel call
NARROW = 256  # not a technique: a node searches only its first-ordered moves (the narrow search)
ALL_TECHNIQUES = (USE_TT | USE_EQUIVALENCE | USE_ORDERING | USE_QUICK_TRICKS | USE_MTD | USE_WINNING_RANKS
                  | USE_NARROW_GUESS | USE_TWO_TRICK_ENDINGS)
TECHNIQUE_SETS = ALL_TECHNIQUES + 1  # how many sets of techniques: the radix of a contract code's flags
TECHNIQUE_NAMES = {
    "transposition_table": USE_TT,
    "equivalent_cards": USE_EQUIVALENCE,
    "move_ordering": USE_ORDERING,
    "quick_tricks": USE_QUICK_TRICKS,
    "zero_window_mtd": USE_MTD,
    "winning_ranks": USE_WINNING_RANKS,
    "narrow_search_guess": USE_NARROW_GUESS,
    "two_trick_endings": USE_TWO_TRICK_ENDINGS,
}

NUM_SEATS = 4
SUIT_BITS = np.int64(0xFF)


@njit(cache=True)
def make_rules(trump, trick_base, points, flags):
    """The rules vector: trump suit (-1: none), points per trick, points per search card."""
    rules = np.zeros(RULES_SIZE, dtype=np.int64)
    rules[TRUMP] = trump
    rules[TRICK_BASE] = trick_base
    rules[FLAGS] = flags
    rules[POINTS:POINTS + 32] = points
    values = np.unique(points)
    if values.shape[0] > MAX_POINT_CLASSES:
        raise ValueError("the solver's table keys allow at most 4 distinct card point values")
    rules[NUM_CLASSES] = values.shape[0]
    for k in range(values.shape[0]):
        rules[CLASS_VALUE + k] = values[k]
    for card in range(32):
        bit = np.int64(1) << card
        for k in range(values.shape[0]):
            if values[k] == points[card]:
                rules[POINT_CLASS + card] = k
                rules[CLASS_CARDS + k] |= bit
        if points[card] != 0:
            rules[POINT_CARDS] |= bit
        if abs(points[card]) >= 1 << POINT_PLANES:
            raise ValueError("the solver counts card points of at most 7 either way")
        planes = POSITIVE_PLANES if points[card] > 0 else NEGATIVE_PLANES
        for j in range(POINT_PLANES):
            if abs(points[card]) >> j & 1:
                rules[planes + j] |= bit
        if points[card] > 0:
            rules[POSITIVE_CARDS] |= bit
        half, nibble = card // 16, np.int64(4 * (card % 16))
        rules[CLASS_FIELDS + half] |= (rules[POINT_CLASS + card] << 2) << nibble
        rules[FIXED_FIELDS + half] |= (np.int64(15) if points[card] != 0 else np.int64(12)) << nibble
    if trump >= 0:
        rules[TRUMP_CARDS] = _suit_bits(trump)
    return rules


@njit(cache=True, inline="always")
def _suit_bits(suit):
    return SUIT_BITS << np.int64(CARDS_PER_SUIT * suit)


@njit(cache=True, inline="always")
def _above(card):
    """The search cards of ``card``'s suit stronger than it."""
    suit_end = (card // CARDS_PER_SUIT + 1) * CARDS_PER_SUIT
    return ((np.int64(1) << suit_end) - 1) & ~((np.int64(2) << card) - 1)


@njit(cache=True, inline="always")
def _plane_points(rules, mask, planes):
    """The points of the cards of ``mask`` by the bit planes at ``rules[planes:]``: a population
    count per bit of the points' size, the same three whatever the game (no loop over classes)."""
    return (popcount(mask & rules[planes]) + 2 * popcount(mask & rules[planes + 1])
            + 4 * popcount(mask & rules[planes + 2]))


@njit(cache=True, inline="always")
def _signed_points_of(rules, mask):
    """``(negative, positive)``: the points of the cards of ``mask`` below and above zero."""
    return -_plane_points(rules, mask, NEGATIVE_PLANES), _plane_points(rules, mask, POSITIVE_PLANES)


@njit(cache=True, inline="always")
def playable(hand, trick, size):
    """Follow suit if possible, otherwise anything; the leader plays anything."""
    if size == 0:
        return hand
    same = hand & _suit_bits(trick[0] // CARDS_PER_SUIT)
    return same if same != 0 else hand


@njit(cache=True, inline="always")
def beats(rules, card, position, best, best_position, trumps_from):
    """Does ``card`` at ``position`` beat ``best`` (at ``best_position``) in this trick?

    A trump-suit card is a trump only from position ``trumps_from`` on
    (Twenty-Eight's show in mid-trick; 0 otherwise).
    """
    trump = rules[TRUMP]
    card_trump = card // CARDS_PER_SUIT == trump and position >= trumps_from
    best_trump = best // CARDS_PER_SUIT == trump and best_position >= trumps_from
    if card_trump:
        return not best_trump or card > best
    return not best_trump and card // CARDS_PER_SUIT == best // CARDS_PER_SUIT and card > best


@njit(cache=True, inline="always")
def trick_leader_position(rules, trick, size, trumps_from):
    """Position of the card winning the first ``size`` cards of ``trick``."""
    best = 0
    for position in range(1, size):
        if beats(rules, trick[position], position, trick[best], best, trumps_from):
            best = position
    return best


@njit(cache=True)
def points_left(rules, hands, trick, size, tricks_left):
    """All the points still to be won: ``(lowest, highest)`` a team can end with, and the total."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    for position in range(size):
        live |= np.int64(1) << trick[position]
    negative, positive = _signed_points_of(rules, live)
    tricks = tricks_left * rules[TRICK_BASE]
    return negative, positive + tricks, negative + positive + tricks
