"""The transposition table: bounds kept at trick boundaries, keyed by the hands by relative rank.

An entry stores a position's lower and upper bound and its best lead. With
*winning ranks* (as DDS does) it compares only the top cards of each suit down
to the lowest card that won a trick by rank below it, so it serves every
position that agrees on those: :func:`_rank_masks` turns the ranks into the
code bits an entry depends on, :func:`_position_key` builds the code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import (
    byte_swap,
    deposit_bits,
    extract_bits,
    nth_card,
    popcount,
)
from cardlab.core.search_cards import CARDS_PER_SUIT
from cardlab.solver.rules import CLASS_FIELDS, FIXED_FIELDS, FLAGS, NUM_SEATS, USE_WINNING_RANKS, _suit_bits

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
