"""The double-dummy search: alpha-beta over the play of four open hands, compiled with numba.

Kaiser and Twenty-Eight share the shape of their play: four seats, partners
opposite, eight cards of each suit, eight tricks, follow suit or play anything,
the highest trump or else the highest card of the led suit wins. They differ
only in data, which a *rules* vector holds (:func:`make_rules`): the trump
suit, the points a trick is worth by itself (Kaiser 1, Twenty-Eight 0) and the
points each card carries (Kaiser: 5H +5 and 3S -3; Twenty-Eight: J 3, 9 2,
A 1, 10 1).

Cards are renumbered for the search so that strength is bit order: *search
card* ``8 * suit + k`` is the ``k``-th weakest card of its suit in the
contract being played (:mod:`cardlab.solver.position` maps the engines' card
ids with each game's numbering, :mod:`cardlab.games.double_dummy`). A hand is
then a 32-bit mask, "the cards above this one" is a shift, and two cards of
one hand are equivalent when no live card of another hand lies between them
and they carry the same points.

Values are always *team 0's points from here on* (the current trick
included); team 0 maximises, team 1 minimises. What makes the search fast
(each switchable by a bit of ``flags``, for the ablation benchmark):

* ``USE_TT``: a transposition table at trick boundaries, keyed by the four
  hands (by relative rank) and the leader, storing lower and upper bounds and
  the best lead;
* ``USE_WINNING_RANKS``: DDS's *winning ranks*: an entry compares only the
  top cards of each suit down to the lowest card that won a trick by rank in
  the search below it (with the suit lengths of each hand and the holders of
  point cards), so it serves every position agreeing on those;
* ``USE_EQUIVALENCE``: equivalent cards of one hand searched once;
* ``USE_ORDERING``: cheap winners first, points onto partner's tricks, low
  discards;
* ``USE_QUICK_TRICKS``: a cut-off when the leader's sure winners (top cards
  in sequence, drawn trumps) already decide the window, and when even the
  bounds of the points left decide it;
* ``USE_MTD``: the value found by zero-window searches (MTD(f)) rather than
  one full-window search; :func:`reaches` asks a single zero-window question;
* ``USE_NARROW_GUESS``: MTD(f)'s first guess from a narrow search (each side
  weighing only its first-ordered cards) rather than from one line of play;
* ``USE_TWO_TRICK_ENDINGS``: a trick boundary with two tricks left is solved
  in one kernel (alpha-beta over the at most sixteen lines of its first
  trick, the last forced) instead of a node per card, before the bounds and
  the table, which cost more than it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import (
    byte_swap,
    deposit_bits,
    extract_bits,
    highest_card,
    lowest_card,
    nth_card,
    popcount,
)
from cardlab.core.borrowed import borrowed
from cardlab.core.prefetch import prefetch
from cardlab.core.search_cards import CARDS_PER_SUIT, NO_CARD

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

# ---- The transposition table ------------------------------------------------------
# Buckets of WAYS rows, found by hashing the bucket key: how many cards of each suit each
# hand holds (LENGTHS, 4 bits a hand and suit), the tag (generation and leader) and the
# holders of the cards carrying points (the code bits every entry compares). A row
# holds the position's relative code (two halves: suits 0|1 and 2|3, see _position_key),
# the *winning-ranks* masks saying which of its code bits the entry depends on (the top
# cards of each suit down to the lowest that won a trick by rank), the lower and upper
# bound of the value and the best lead found (as suit and rank among the cards left).
# The table is indexed [bucket, column, way]: one column of a bucket's eight ways is one
# cache line, so a probe reads the tags in one line and the rest only for rows that match.
KEY_LOW, KEY_HIGH, LENGTHS, TAG, MASK_LOW, MASK_HIGH, LOWER, UPPER, BEST = range(9)
TT_COLUMNS = 9
WAYS_BITS = 3
WAYS = 1 << WAYS_BITS  # rows of a bucket: positions of one bucket key that differ in their low cards
DEFAULT_TT_BITS = 16  # 2 ** bits rows (cardlab.solver.position.TABLE_BITS sizes a table by game)
# Counters: the generation the table's live entries carry, nodes searched, the contract
# (game, strain, flags) the live entries were searched under, and the bucket row next replaced.
GENERATION, NODES, CONTRACT, REPLACE = 0, 1, 2, 3
NUM_COUNTERS = 4
MAX_DEPTH = 33  # one row of move scratch per card played, plus the root


class Table:
    """A transposition table and its counters, reusable across solves of one contract."""

    def __init__(self, bits: int = DEFAULT_TT_BITS):
        self.entries = new_table(bits)
        self.counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
        self.counters[CONTRACT] = -1
        self.scratch = new_scratch()

    def forget(self) -> None:
        """Invalidate every entry (needed when the rules change: trump, points)."""
        forget(self.counters)


@njit(cache=True)
def new_table(bits):
    buckets = 1 << max(bits - WAYS_BITS, 0)  # one bucket at least
    entries = np.zeros((buckets, TT_COLUMNS, WAYS), dtype=np.int64)
    entries[:, TAG, :] = -1
    return entries


@njit(cache=True)
def forget(counters):
    """A new generation: entries of the old one no longer match."""
    counters[GENERATION] += 1


@njit(cache=True)
def prepare(counters, contract):
    """Keep the table's entries for the same ``contract`` code, forget them for another."""
    if counters[CONTRACT] != contract:
        counters[GENERATION] += 1
        counters[CONTRACT] = contract


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


@njit(cache=True, inline="always")
def _bucket(lengths, tag, key_low, key_high, fixed_low, fixed_high, buckets):
    """The bucket of a position, in a table of ``buckets`` buckets.

    The bucket key is what every entry compares whatever its winning ranks:
    the suit lengths of each hand, the tag, and the *fixed* bits of the code
    (the point class of each card, the holder of each card carrying points).
    Positions an entry could serve then always share its bucket, and the
    point cards' holders spread the buckets (Twenty-Eight's sixteen of them
    most). The holders of cards without points stay out of the key: the
    winning ranks often free them, the top cards of a suit included.
    """
    h = np.uint64(lengths) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(tag) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= np.uint64(key_low & fixed_low) * np.uint64(0x165667B19E3779F9)
    h ^= np.uint64(key_high & fixed_high) * np.uint64(0x27D4EB2F165667C5)
    h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(buckets - 1))


NIBBLE_BITS = np.int64(0x11111111)  # bit 0 of each of a suit code's eight 4-bit fields


NIBBLES = np.int64(0x1111111111111111)  # bit 0 of each 4-bit field of a word
LOW_NIBBLES = np.int64(0x0F0F0F0F0F0F0F0F)  # the low half of each byte
WORD_HALF = np.int64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def _half_key(rules, live, odd_seats, high_seats, half):
    """``(code, fixed)`` of suits ``2 * half`` and ``2 * half + 1``, each in its 32 bits.

    Every card of the two suits first gets its 4-bit field in place (nibble
    ``8 * (suit % 2) + rank``: the holder's bits spread by ``deposit_bits``,
    the point class from the rules); the fields of each suit's live cards are
    then packed, weakest first (``extract_bits`` under a 4-bit-wide mask of the
    live cards). Seven bit-field instructions for two suits.
    """
    shift = np.int64(16 * half)
    live_fields = deposit_bits((live >> shift) & 0xFFFF, NIBBLES) * 15
    fields = (deposit_bits((odd_seats >> shift) & 0xFFFF, NIBBLES)
              | deposit_bits((high_seats >> shift) & 0xFFFF, NIBBLES) << 1
              | rules[CLASS_FIELDS + half])
    fixed = rules[FIXED_FIELDS + half]
    upper_live = (live_fields >> 32) & WORD_HALF
    code = (extract_bits(fields & WORD_HALF, live_fields & WORD_HALF)
            | extract_bits((fields >> 32) & WORD_HALF, upper_live) << 32)
    fixed_bits = (extract_bits(fixed & WORD_HALF, live_fields & WORD_HALF)
                  | extract_bits((fixed >> 32) & WORD_HALF, upper_live) << 32)
    return code, fixed_bits


@njit(cache=True, inline="always")
def _pair_lengths(first, second):
    """How many cards of each suit two hands hold, 4 bits each: ``first``'s in the upper 16
    bits, suit 0 highest in each hand (the layout of the bucket key's lengths).

    The bytes of both hands are counted at once (a population count per byte),
    put in reverse order and their low halves packed.
    """
    x = first | (second << 32)
    x = x - ((x >> 1) & np.int64(0x5555555555555555))
    x = (x & np.int64(0x3333333333333333)) + ((x >> 2) & np.int64(0x3333333333333333))
    x = (x + (x >> 4)) & LOW_NIBBLES
    return extract_bits(byte_swap(x), LOW_NIBBLES)


@njit(cache=True, inline="always")
def _position_key(rules, hands, leader, generation):
    """``(code_low, code_high, fixed_low, fixed_high, lengths, tag)`` of a trick boundary.

    By *relative* rank, as DDS keys: only the order of the cards left in each
    suit matters, not which have gone. Each suit's code gives each card left a
    4-bit field, weakest card in the lowest: who holds it (bits 0 and 1) and
    which of the game's point values it carries (bits 2 and 3). Each card's
    field is put together in place and the live cards' fields packed
    (:func:`_half_key`): no loop over the cards. The *fixed* bits every entry compares
    whatever its winning ranks: the point value of every card, and the holder
    of every card carrying points (who takes a point card's points depends on
    its holder even when its rank never mattered). The bucket key is each
    hand's length in each suit (:func:`_pair_lengths`), and the tag the leader
    and the generation.
    """
    live = hands[0] | hands[1] | hands[2] | hands[3]
    odd_seats = hands[1] | hands[3]
    high_seats = hands[2] | hands[3]
    code_low, fixed_low = _half_key(rules, live, odd_seats, high_seats, 0)
    code_high, fixed_high = _half_key(rules, live, odd_seats, high_seats, 1)
    lengths = (_pair_lengths(hands[0], hands[1]) << 32) | _pair_lengths(hands[2], hands[3])
    return code_low, code_high, fixed_low, fixed_high, lengths, generation * NUM_SEATS + leader


@njit(cache=True, inline="always")
def _rank_masks(rules, hands, relevant):
    """``(mask_low, mask_high)``: the code bits of the top cards of each suit down to the
    lowest card of ``relevant`` (the winning ranks; every card when they are switched off)."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    if (rules[FLAGS] & USE_WINNING_RANKS) == 0:
        relevant = live
    covered = live & _at_or_above_bottom(relevant & live)
    mask_low = _top_fields(live, covered, 0) | _top_fields(live, covered, 1) << 32
    mask_high = _top_fields(live, covered, 2) | _top_fields(live, covered, 3) << 32
    return mask_low, mask_high


@njit(cache=True, inline="always")
def _at_or_above_bottom(mask):
    """In every suit at once, the cards at or above the weakest card ``mask`` has there."""
    mask |= (mask << 1) & np.int64(0xFEFEFEFE)
    mask |= (mask << 2) & np.int64(0xFCFCFCFC)
    mask |= (mask << 4) & np.int64(0xF0F0F0F0)
    return mask


@njit(cache=True, inline="always")
def _top_fields(live, covered, suit):
    """The 4-bit fields of a suit's code (see :func:`_position_key`) of its ``covered`` cards,
    the top ones of its ``live`` cards: no branch for a suit without covered cards."""
    count = popcount(live & _suit_bits(suit))
    below = count - popcount(covered & _suit_bits(suit))
    return ((np.int64(1) << (4 * count)) - 1) ^ ((np.int64(1) << (4 * below)) - 1)


@njit(cache=True, inline="always")
def _ranked_cards(hands, mask_low, mask_high):
    """The live cards an entry's winning-ranks masks cover in the position ``hands``.

    A mask's 4-bit fields are those of the cards it covers, weakest in the
    lowest (see :func:`_position_key`): one bit of each field, packed, marks
    which of the suit's live cards, in order, are covered.
    """
    live = hands[0] | hands[1] | hands[2] | hands[3]
    covered = np.int64(0)
    for suit in range(4):
        shift = np.int64(CARDS_PER_SUIT * suit)
        mask = (mask_low if suit < 2 else mask_high) >> (32 * (suit % 2))
        covered |= deposit_bits(extract_bits(mask, NIBBLE_BITS), live >> shift) << shift
    return covered


@njit(cache=True, inline="always")
def _rank_winner(trick, winning):
    """The trick's winning card if it won by rank (a card of its own suit is in the trick).

    Those are DDS's *winning ranks*: a trick won by the only card of its suit
    (a lone ruff, a lone card of the led suit) would be won by any card there.
    """
    card = trick[winning]
    suit = card // CARDS_PER_SUIT
    for position in range(NUM_SEATS):
        if position != winning and trick[position] // CARDS_PER_SUIT == suit:
            return np.int64(1) << card
    return np.int64(0)


@njit(cache=True, inline="always")
def _relative_card(hands, card):
    """``card`` as suit and rank among the cards left in its suit (the table's best lead)."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    below = live & _suit_bits(card // CARDS_PER_SUIT) & ((np.int64(1) << card) - 1)
    return (card // CARDS_PER_SUIT) * CARDS_PER_SUIT + popcount(below)


@njit(cache=True, inline="always")
def _absolute_card(hands, relative):
    """Inverse of :func:`_relative_card` in the position ``hands``."""
    cards = (hands[0] | hands[1] | hands[2] | hands[3]) & _suit_bits(relative // CARDS_PER_SUIT)
    return nth_card(cards, relative % CARDS_PER_SUIT)  # NO_CARD past the suit's last card


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


# ---- One node of the search: a row of the scratch array ------------------------------
# Columns 0..7 hold the node's moves, 8..15 their ordering scores; the rest are the node's
# fields. The search walks the tree with an explicit stack of these rows (numba cannot
# cache recursive kernels), addressed as ``scratch[d, column]`` (a row view would be a new
# array, reference counted). NODE_RANKS is the node's *winning ranks*: the cards whose
# ranks its value depended on (a position agreeing on them, and on everything the table
# key fixes, has the same bound).
MOVE_SLOTS = CARDS_PER_SUIT  # a hand holds at most eight cards
(NODE_SIZE, NODE_LEADER, NODE_TRICKS_LEFT, NODE_TRUMPS_FROM, NODE_ALPHA, NODE_BETA,
 NODE_WINDOW_ALPHA, NODE_WINDOW_BETA, NODE_BEST, NODE_BEST_MOVE, NODE_COUNT, NODE_NEXT,
 NODE_SLOT, NODE_KEY_LOW, NODE_KEY_HIGH, NODE_FIXED_LOW, NODE_FIXED_HIGH, NODE_LENGTHS, NODE_TAG,
 NODE_GAINED, NODE_BEST_POSITION, NODE_TRICK_POINTS, NODE_RANKS, NODE_TRICK_RANK,
 NODE_SKIPPED, NODE_LIVE, NODE_ASKED_ALPHA, NODE_ASKED_BETA, NODE_LOWER_MASKS) = range(2 * MOVE_SLOTS,
                                                                                   2 * MOVE_SLOTS + 29)
# The winning-ranks masks (two words) of the table entries whose lower and upper bounds narrowed the window.
NODE_UPPER_MASKS = NODE_LOWER_MASKS + 2
NODE_SAVED = NODE_UPPER_MASKS + 2
NODE_WIDTH = NODE_SAVED + 3  # the three cards of a finished trick, kept while the next is searched


@njit(cache=True)
def new_scratch():
    """The stack of nodes a search walks: one row per card played, plus the root."""
    return np.zeros((MAX_DEPTH, NODE_WIDTH), dtype=np.int64)


@njit(cache=True, inline="always")
def _enter(rules, table, counters, scratch, d, hands, trick):
    """Open the node whose position fields are set: ``(True, value)`` if decided at once.

    Otherwise lists and orders its moves and returns ``(False, 0)``. Either way
    ``scratch[d, NODE_RANKS]`` holds the winning ranks known so far.

    Long on purpose: inlined into the search's hot path, where each technique (quick tricks, bounds,
    ordering) is a commented step on the node's fields in registers.
    """
    counters[NODES] += 1
    flags = rules[FLAGS]
    size = scratch[d, NODE_SIZE]
    leader = scratch[d, NODE_LEADER]
    tricks_left = scratch[d, NODE_TRICKS_LEFT]
    trumps_from = scratch[d, NODE_TRUMPS_FROM]
    alpha = scratch[d, NODE_ALPHA]
    beta = scratch[d, NODE_BETA]
    scratch[d, NODE_RANKS] = 0
    if size == 0 and tricks_left <= 1:
        if tricks_left == 0:
            return True, 0
        taken, rank = _last_trick(rules, hands, leader)
        scratch[d, NODE_RANKS] = rank
        return True, taken
    if (size == 0 and tricks_left == 2 and trumps_from == 0
            and flags & (USE_TWO_TRICK_ENDINGS | NARROW) == USE_TWO_TRICK_ENDINGS):
        value, ranks = _two_tricks(rules, hands, leader, alpha, beta)
        scratch[d, NODE_RANKS] = ranks
        return True, value
    scratch[d, NODE_SLOT] = -1
    tt_move = NO_CARD
    if size == 0:
        key_low = key_high = fixed_low = fixed_high = lengths = tag = slot = 0
        if flags & USE_TT:
            key_low, key_high, fixed_low, fixed_high, lengths, tag = _position_key(
                rules, hands, leader, counters[GENERATION])
            slot = _bucket(lengths, tag, key_low, key_high, fixed_low, fixed_high, table.shape[0])
            # The bucket's tags load while the bounds are counted (a bucket is far in a big table).
            prefetch(table, (slot, TAG, 0))
        if flags & USE_QUICK_TRICKS:
            lower, upper, leading_cards, other_cards = _bounds_and_winners(rules, hands, leader, tricks_left)
            if lower >= beta or upper <= alpha:
                # The winning ranks are the sure winners of the side whose bound decided.
                if (lower >= beta) == ((leader & 1) == 0):
                    scratch[d, NODE_RANKS] = leading_cards
                else:
                    scratch[d, NODE_RANKS] = other_cards
                return True, (lower if lower >= beta else upper)
        if flags & USE_TT:
            scratch[d, NODE_SLOT] = slot
            scratch[d, NODE_KEY_LOW] = key_low
            scratch[d, NODE_KEY_HIGH] = key_high
            scratch[d, NODE_FIXED_LOW] = fixed_low
            scratch[d, NODE_FIXED_HIGH] = fixed_high
            scratch[d, NODE_LENGTHS] = lengths
            scratch[d, NODE_TAG] = tag
            lower = -1000
            upper = 1000
            lower_way = upper_way = -1
            for way in range(WAYS):  # the bucket's ways lie side by side: a column is a cache line
                if (table[slot, TAG, way] == tag and table[slot, LENGTHS, way] == lengths
                        and (table[slot, KEY_LOW, way] ^ key_low)
                        & (table[slot, MASK_LOW, way] | fixed_low) == 0
                        and (table[slot, KEY_HIGH, way] ^ key_high)
                        & (table[slot, MASK_HIGH, way] | fixed_high) == 0):
                    if table[slot, LOWER, way] > lower:
                        lower = table[slot, LOWER, way]
                        lower_way = way
                    if table[slot, UPPER, way] < upper:
                        upper = table[slot, UPPER, way]
                        upper_way = way
                    if tt_move == NO_CARD:
                        tt_move = _absolute_card(hands, table[slot, BEST, way])
            if lower >= beta or lower == upper or upper <= alpha:
                # The winning ranks of the entries whose bounds decide.
                if lower_way >= 0 and not upper <= alpha:
                    scratch[d, NODE_RANKS] = _ranked_cards(hands, table[slot, MASK_LOW, lower_way],
                                                           table[slot, MASK_HIGH, lower_way])
                if (upper_way >= 0 and not (lower >= beta and lower != upper)
                        and not (upper_way == lower_way and not upper <= alpha)):  # not the same again
                    scratch[d, NODE_RANKS] |= _ranked_cards(hands, table[slot, MASK_LOW, upper_way],
                                                            table[slot, MASK_HIGH, upper_way])
                return True, (lower if lower >= beta or lower == upper else upper)
            # Bounds that narrow the window: their entries' masks, for _close should the value rest on them.
            scratch[d, NODE_ASKED_ALPHA] = alpha
            scratch[d, NODE_ASKED_BETA] = beta
            if lower > alpha:
                scratch[d, NODE_LOWER_MASKS] = table[slot, MASK_LOW, lower_way]
                scratch[d, NODE_LOWER_MASKS + 1] = table[slot, MASK_HIGH, lower_way]
                alpha = lower
            if upper < beta:
                scratch[d, NODE_UPPER_MASKS] = table[slot, MASK_LOW, upper_way]
                scratch[d, NODE_UPPER_MASKS + 1] = table[slot, MASK_HIGH, upper_way]
                beta = upper
    scratch[d, NODE_ALPHA] = scratch[d, NODE_WINDOW_ALPHA] = alpha
    scratch[d, NODE_BETA] = scratch[d, NODE_WINDOW_BETA] = beta
    seat = (leader + size) % NUM_SEATS
    if size == 0:  # a new trick; inside one, the trick's earlier nodes set the fields
        _trick_fields(rules, scratch, d, hands, trick, 0, trumps_from)
    live = scratch[d, NODE_LIVE]
    best_position = scratch[d, NODE_BEST_POSITION]
    n = _list_moves(rules, hands, trick, size, seat, live, scratch, d)
    if flags & USE_ORDERING and n > 1:  # one move needs no order
        _order_moves(rules, scratch, d, n, hands, trick, size, seat, best_position, trumps_from, live,
                     tt_move)
    if flags & NARROW:
        n = min(n, rules[NARROW_WIDTH] if tricks_left > rules[NARROW_LINE_TRICKS] else 1)
    scratch[d, NODE_COUNT] = n
    scratch[d, NODE_NEXT] = 0
    scratch[d, NODE_BEST] = -1000 if (seat & 1) == 0 else 1000
    scratch[d, NODE_BEST_MOVE] = scratch[d, 0]
    return False, 0


@njit(cache=True, inline="always")
def _cover_skipped(rules, hands, trick, scratch, d):
    """Add to the node's winning ranks the equivalent cards it skipped, where needed.

    A card skipped for an equivalent higher one of the same hand stands for it
    only in positions where no card of another hand lies between them. When
    the searched card is among the cards an entry compares (at or above the
    suit's lowest winning rank), the skipped one must be too; when both lie
    below, every such low card is alike in the positions the entry matches.
    """
    skipped = scratch[d, NODE_SKIPPED]  # as the moves were listed
    if skipped == 0:
        return
    size = scratch[d, NODE_SIZE]
    seat = (scratch[d, NODE_LEADER] + size) % NUM_SEATS
    searched = playable(hands[seat], trick, size) & ~skipped  # every listed move was searched
    ranks = scratch[d, NODE_RANKS]
    while skipped != 0:
        card = highest_card(skipped)
        bit = np.int64(1) << card
        skipped ^= bit
        suit_ranks = ranks & _suit_bits(card // CARDS_PER_SUIT)
        if suit_ranks != 0 and lowest_card(searched & _above(card)) >= lowest_card(suit_ranks):
            ranks |= bit
    scratch[d, NODE_RANKS] = ranks


@njit(cache=True, inline="always")
def _close(rules, table, counters, hands, trick, scratch, d, cut):
    """The node's value, stored as a bound in the table at a trick boundary.

    Without a cut-off, every move counted: the skipped equivalent cards too. The winning
    ranks of a table entry that narrowed the window count only when the value rests on its
    bound: when the value lies between the window asked and the narrowed one.
    """
    if scratch[d, NODE_SLOT] >= 0:
        best = scratch[d, NODE_BEST]
        if scratch[d, NODE_ASKED_ALPHA] < best <= scratch[d, NODE_WINDOW_ALPHA]:
            scratch[d, NODE_RANKS] |= _ranked_cards(hands, scratch[d, NODE_LOWER_MASKS],
                                                    scratch[d, NODE_LOWER_MASKS + 1])
        if scratch[d, NODE_WINDOW_BETA] <= best < scratch[d, NODE_ASKED_BETA]:
            scratch[d, NODE_RANKS] |= _ranked_cards(hands, scratch[d, NODE_UPPER_MASKS],
                                                    scratch[d, NODE_UPPER_MASKS + 1])
    if not cut and (rules[FLAGS] & (USE_EQUIVALENCE | USE_WINNING_RANKS)) == (
            USE_EQUIVALENCE | USE_WINNING_RANKS):
        _cover_skipped(rules, hands, trick, scratch, d)
    if scratch[d, NODE_SLOT] >= 0:
        mask_low, mask_high = _rank_masks(rules, hands, scratch[d, NODE_RANKS])
        best_lead = _relative_card(hands, scratch[d, NODE_BEST_MOVE])
        _store(table, counters, scratch, d, mask_low, mask_high, best_lead)
    return scratch[d, NODE_BEST]


@njit(cache=True, inline="always")
def _trick_so_far(rules, hands, trick, size, trumps_from):
    """``(live, points, best_position)`` of the current trick's first ``size`` cards: the live
    cards (the trick's own included), the points played and the position of the winning card."""
    live = hands[0] | hands[1] | hands[2] | hands[3]
    trick_points = 0
    for position in range(size):
        live |= np.int64(1) << trick[position]
        trick_points += rules[POINTS + trick[position]]
    return live, trick_points, trick_leader_position(rules, trick, size, trumps_from) if size > 0 else 0


@njit(cache=True, inline="always")
def _trick_fields(rules, scratch, d, hands, trick, size, trumps_from):
    """Set a node's fields of the trick so far (:func:`_trick_so_far`): at a trick's lead and at a
    root; inside a trick the search carries them from node to node."""
    live, trick_points, best_position = _trick_so_far(rules, hands, trick, size, trumps_from)
    scratch[d, NODE_LIVE] = live
    scratch[d, NODE_TRICK_POINTS] = trick_points
    scratch[d, NODE_BEST_POSITION] = best_position


@njit(cache=True)
def search(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
           alpha, beta):
    """Team 0's points from here on under perfect play, fail-soft within ``(alpha, beta)``.

    ``hands`` (search-card masks by seat) and ``trick`` (the cards of the
    current trick, ``size`` of them, led by ``leader``) are changed during the
    search and restored. ``tricks_left`` counts the current trick.

    Long on purpose: the alpha-beta loop over an explicit stack of nodes is one compiled frame, as in
    DDS; its steps are :func:`_enter` and the commented blocks.
    """
    # The helpers take borrowed views: the arrays outlive this call (see cardlab.core.borrowed).
    rules, table, counters = borrowed(rules), borrowed(table), borrowed(counters)
    scratch, hands, trick = borrowed(scratch), borrowed(hands), borrowed(trick)
    d = 0
    scratch[d, NODE_SIZE] = size
    scratch[d, NODE_LEADER] = leader
    scratch[d, NODE_TRICKS_LEFT] = tricks_left
    scratch[d, NODE_TRUMPS_FROM] = trumps_from
    scratch[d, NODE_ALPHA] = alpha
    scratch[d, NODE_BETA] = beta
    _trick_fields(rules, scratch, d, hands, trick, size, trumps_from)
    returning, result = _enter(rules, table, counters, scratch, d, hands, trick)
    while True:
        if returning:
            if d == 0:
                return result
            ranks = scratch[d, NODE_RANKS]
            d -= 1
            size = scratch[d, NODE_SIZE]
            seat = (scratch[d, NODE_LEADER] + size) % NUM_SEATS
            card = scratch[d, scratch[d, NODE_NEXT]]
            hands[seat] |= np.int64(1) << card
            if size == NUM_SEATS - 1:
                trick[0] = scratch[d, NODE_SAVED]
                trick[1] = scratch[d, NODE_SAVED + 1]
                trick[2] = scratch[d, NODE_SAVED + 2]
            ranks |= scratch[d, NODE_TRICK_RANK]
            v = scratch[d, NODE_GAINED] + result
            if (seat & 1) == 0:
                if v > scratch[d, NODE_BEST]:
                    scratch[d, NODE_BEST] = v
                    scratch[d, NODE_BEST_MOVE] = card
                scratch[d, NODE_ALPHA] = max(scratch[d, NODE_ALPHA], v)
            else:
                if v < scratch[d, NODE_BEST]:
                    scratch[d, NODE_BEST] = v
                    scratch[d, NODE_BEST_MOVE] = card
                scratch[d, NODE_BETA] = min(scratch[d, NODE_BETA], v)
            scratch[d, NODE_NEXT] += 1
            if scratch[d, NODE_ALPHA] >= scratch[d, NODE_BETA]:
                # A cut-off: the bound rests on this move alone (and, see _close, on the table
                # entries that narrowed the window when the value lies between the two windows).
                scratch[d, NODE_RANKS] = ranks
                result = _close(rules, table, counters, hands, trick, scratch, d, True)
                continue
            scratch[d, NODE_RANKS] |= ranks
            if scratch[d, NODE_NEXT] >= scratch[d, NODE_COUNT]:
                result = _close(rules, table, counters, hands, trick, scratch, d, False)
                continue
        elif scratch[d, NODE_NEXT] >= scratch[d, NODE_COUNT]:
            result = _close(rules, table, counters, hands, trick, scratch, d, False)
            returning = True
            continue
        # Play the node's next move and open the child.
        size = scratch[d, NODE_SIZE]
        leader = scratch[d, NODE_LEADER]
        seat = (leader + size) % NUM_SEATS
        card = scratch[d, scratch[d, NODE_NEXT]]
        hands[seat] &= ~(np.int64(1) << card)
        trick[size] = card
        scratch[d + 1, NODE_TRUMPS_FROM] = scratch[d, NODE_TRUMPS_FROM]
        scratch[d + 1, NODE_TRICKS_LEFT] = scratch[d, NODE_TRICKS_LEFT]
        scratch[d + 1, NODE_LEADER] = leader
        gained = 0
        scratch[d, NODE_TRICK_RANK] = 0
        if size < NUM_SEATS - 1:
            scratch[d + 1, NODE_SIZE] = size + 1
            scratch[d + 1, NODE_LIVE] = scratch[d, NODE_LIVE]
            scratch[d + 1, NODE_TRICK_POINTS] = scratch[d, NODE_TRICK_POINTS] + rules[POINTS + card]
            best_position = scratch[d, NODE_BEST_POSITION]
            if size > 0 and beats(rules, card, size, trick[best_position], best_position,
                                  scratch[d, NODE_TRUMPS_FROM]):
                best_position = size
            scratch[d + 1, NODE_BEST_POSITION] = best_position
        else:
            best_position = scratch[d, NODE_BEST_POSITION]
            winning = best_position
            if beats(rules, card, size, trick[best_position], best_position, scratch[d, NODE_TRUMPS_FROM]):
                winning = size
            winner = (leader + winning) % NUM_SEATS
            if (winner & 1) == 0:
                gained = scratch[d, NODE_TRICK_POINTS] + rules[POINTS + card] + rules[TRICK_BASE]
            scratch[d, NODE_TRICK_RANK] = _rank_winner(trick, winning)
            scratch[d, NODE_SAVED] = trick[0]
            scratch[d, NODE_SAVED + 1] = trick[1]
            scratch[d, NODE_SAVED + 2] = trick[2]
            scratch[d + 1, NODE_SIZE] = 0
            scratch[d + 1, NODE_LEADER] = winner
            scratch[d + 1, NODE_TRICKS_LEFT] = scratch[d, NODE_TRICKS_LEFT] - 1
            scratch[d + 1, NODE_TRUMPS_FROM] = 0
        scratch[d, NODE_GAINED] = gained
        scratch[d + 1, NODE_ALPHA] = scratch[d, NODE_ALPHA] - gained
        scratch[d + 1, NODE_BETA] = scratch[d, NODE_BETA] - gained
        d += 1
        returning, result = _enter(rules, table, counters, scratch, d, hands, trick)


@njit(cache=True, inline="always")
def _store(table, counters, scratch, d, mask_low, mask_high, best_move):
    """Keep the node's bound: in the row of the same key and winning ranks if there is one,
    else in a row of the bucket left by an older generation, else in the next row in turn."""
    slot = scratch[d, NODE_SLOT]
    key_low = scratch[d, NODE_KEY_LOW]
    key_high = scratch[d, NODE_KEY_HIGH]
    match_low = mask_low | scratch[d, NODE_FIXED_LOW]
    match_high = mask_high | scratch[d, NODE_FIXED_HIGH]
    tag = scratch[d, NODE_TAG]
    lengths = scratch[d, NODE_LENGTHS]
    target = -1
    stale = -1
    for way in range(WAYS):
        if table[slot, TAG, way] == tag:
            if (table[slot, LENGTHS, way] == lengths and table[slot, MASK_LOW, way] == mask_low
                    and table[slot, MASK_HIGH, way] == mask_high
                    and (table[slot, KEY_LOW, way] ^ key_low) & match_low == 0
                    and (table[slot, KEY_HIGH, way] ^ key_high) & match_high == 0):
                target = way
                break
        elif stale < 0 and table[slot, TAG, way] // NUM_SEATS != tag // NUM_SEATS:
            stale = way
    if target < 0:
        if stale >= 0:
            target = stale
        else:
            target = counters[REPLACE] % WAYS
            counters[REPLACE] += 1
        table[slot, KEY_LOW, target] = key_low
        table[slot, KEY_HIGH, target] = key_high
        table[slot, LENGTHS, target] = lengths
        table[slot, TAG, target] = tag
        table[slot, MASK_LOW, target] = mask_low
        table[slot, MASK_HIGH, target] = mask_high
        table[slot, LOWER, target] = -1000
        table[slot, UPPER, target] = 1000
    value = scratch[d, NODE_BEST]
    if value > scratch[d, NODE_WINDOW_ALPHA]:
        table[slot, LOWER, target] = max(table[slot, LOWER, target], value)
    if value < scratch[d, NODE_WINDOW_BETA]:
        table[slot, UPPER, target] = min(table[slot, UPPER, target], value)
    table[slot, BEST, target] = best_move


# MTD(f)'s first guess: the value of a narrower game, each side searching only the cards the
# ordering puts first. Within a point of the value on 167 of the 200 deals of bench_solver (a)
# for about 1,000 nodes, against 100 for the playout; from it MTD(f) needs 11% fewer nodes.
GUESS_WIDTH = 2  # the cards a node of the guess's search weighs ...
GUESS_LINE_TRICKS = 3  # ... and the last tricks where it follows one line


@njit(cache=True)
def _narrow_rules(rules, width, line_tricks):
    """The rules of a search that weighs only the first ``width`` ordered moves of each node, and
    one in the last ``line_tricks`` tricks."""
    narrow = rules.copy()
    narrow[FLAGS] |= NARROW
    narrow[NARROW_WIDTH] = width
    narrow[NARROW_LINE_TRICKS] = line_tricks
    return narrow


@njit(cache=True)
def playout_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from):
    """Team 0's points when every player plays the move the ordering puts first.

    One line of play to the end (a node per card), without the table, so
    nothing inexact is stored: the narrow search's own first guess.
    """
    playout = _narrow_rules(rules, 1, 0)
    playout[FLAGS] &= ~(USE_TT | USE_QUICK_TRICKS)
    return search(playout, table, counters, scratch, hands, trick, size, leader, tricks_left,
                  trumps_from, -1000, 1000)


@njit(cache=True, inline="always")
def _mtd(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
         lower, upper, guess):
    """MTD(f): zero-window searches from ``guess`` until the bounds ``[lower, upper]`` meet."""
    while lower < upper:
        beta = max(guess, lower + 1)
        guess = search(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                       trumps_from, beta - 1, beta)
        if guess < beta:
            upper = guess
        else:
            lower = guess
    return lower


@njit(cache=True)
def narrow_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from):
    """Team 0's points when each side weighs only its two best-ordered cards (one in the last
    three tricks): a guess of the exact value, MTD(f)'s first.

    The narrower game is searched like the real one (table, bounds, MTD(f) from the playout),
    its table entries under a generation of their own (``-generation - 2``): they are
    never taken for bounds of the real game, and later guesses of the same generation reuse
    them. The guess is kept within the real game's bounds.
    """
    lower, upper = _root_bounds(rules, hands, trick, size, leader, tricks_left)
    narrow = _narrow_rules(rules, GUESS_WIDTH, GUESS_LINE_TRICKS)
    guess = playout_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                          trumps_from)
    guess = min(max(guess, lower), upper)
    generation = counters[GENERATION]
    counters[GENERATION] = -generation - 2  # below every real generation and the empty rows' tag
    guess = _mtd(narrow, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
                 lower, upper, guess)
    counters[GENERATION] = generation
    return min(max(guess, lower), upper)


@njit(cache=True, inline="always")
def _root_bounds(rules, hands, trick, size, leader, tricks_left):
    """Team 0's least and most points from here: the points left, or the sure-winner bounds
    at a trick boundary."""
    if size == 0 and tricks_left > 1 and rules[FLAGS] & USE_QUICK_TRICKS:
        return boundary_bounds(rules, hands, leader, tricks_left)
    negative, highest, _ = points_left(rules, hands, trick, size, tricks_left)
    return negative, highest


@njit(cache=True)
def exact_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
                guess=-1000):
    """Team 0's exact points from here on: MTD(f) zero-window searches, or one full window.

    ``guess`` (e.g. the value of a sibling) starts MTD(f) nearer the answer; without one, the
    narrow search's value (:func:`narrow_value`), or the playout's when that is switched off.
    """
    if (rules[FLAGS] & USE_MTD) == 0:
        negative, highest, _ = points_left(rules, hands, trick, size, tricks_left)
        return search(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                      trumps_from, negative - 1, highest + 1)
    lower, upper = _root_bounds(rules, hands, trick, size, leader, tricks_left)
    if not lower <= guess <= upper and rules[FLAGS] & USE_ORDERING:
        if rules[FLAGS] & USE_NARROW_GUESS:
            guess = narrow_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                                 trumps_from)
        else:
            guess = playout_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                                  trumps_from)
    if not lower <= guess <= upper:
        guess = (lower + upper) // 2
    return _mtd(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
                lower, upper, guess)


@njit(cache=True)
def reaches(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
            target):
    """Does team 0 take at least ``target`` points from here on? One zero-window search."""
    return search(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                  trumps_from, target - 1, target) >= target


@njit(cache=True)
def card_values(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
                cards_out, values_out):
    """Every playable card of the seat to move and team 0's points from here on after it.

    Writes the cards ascending into ``cards_out`` and their values into
    ``values_out``; returns how many (equivalent cards are each listed).
    """
    seat = (leader + size) % NUM_SEATS
    cards = playable(hands[seat], trick, size)
    _, trick_points, best_position = _trick_so_far(rules, hands, trick, size, trumps_from)
    n = 0
    guess = -1000
    while cards != 0:
        card = lowest_card(cards)
        cards &= cards - 1
        bit = np.int64(1) << card
        hands[seat] &= ~bit
        trick[size] = card
        if size < NUM_SEATS - 1:
            result = exact_value(rules, table, counters, scratch, hands, trick, size + 1, leader,
                                 tricks_left, trumps_from, guess)
        else:
            winning = best_position
            if beats(rules, card, size, trick[best_position], best_position, trumps_from):
                winning = size
            winner = (leader + winning) % NUM_SEATS
            gained = 0
            if (winner & 1) == 0:
                gained = trick_points + rules[POINTS + card] + rules[TRICK_BASE]
            first, second, third = trick[0], trick[1], trick[2]
            result = gained + exact_value(rules, table, counters, scratch, hands, trick, 0, winner,
                                          tricks_left - 1, 0, guess - gained)
            trick[0], trick[1], trick[2] = first, second, third
        hands[seat] |= bit
        trick[size] = NO_CARD
        cards_out[n] = card
        values_out[n] = result
        guess = result
        n += 1
    return n
