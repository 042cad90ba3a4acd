"""The double-dummy search: alpha-beta over the play of four open hands, compiled with numba.

Kaiser and Twenty-Eight share the shape of their play: four seats, partners
opposite, eight cards of each suit, eight tricks, follow suit or play anything,
the highest trump or else the highest card of the led suit wins. They differ
only in data, which a *rules* vector holds (:func:`~cardlab.solver.rules.make_rules`): the trump
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
  one full-window search; :func:`~cardlab.solver.mtd.reaches` asks a single zero-window question;
* ``USE_NARROW_GUESS``: MTD(f)'s first guess from a narrow search (each side
  weighing only its first-ordered cards) rather than from one line of play;
* ``USE_TWO_TRICK_ENDINGS``: a trick boundary with two tricks left is solved
  in one kernel (alpha-beta over the at most sixteen lines of its first
  trick, the last forced) instead of a node per card, before the bounds and
  the table, which cost more than it.

Each technique lives in its own module, as in DDS: the rules vector and the
play it rules (:mod:`~cardlab.solver.rules`), the table and its keys
(:mod:`~cardlab.solver.table`), quick tricks and bounds
(:mod:`~cardlab.solver.bounds`), move ordering (:mod:`~cardlab.solver.ordering`),
two-trick endings (:mod:`~cardlab.solver.endings`), the node stack
(:mod:`~cardlab.solver.node`) and MTD(f) with the entry points
(:mod:`~cardlab.solver.mtd`). This module is the alpha-beta walk that ties them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import (
    highest_card,
    lowest_card,
)
from cardlab.core.borrowed import borrowed
from cardlab.core.prefetch import prefetch
from cardlab.core.search_cards import CARDS_PER_SUIT, NO_CARD
from cardlab.solver.bounds import _bounds_and_winners, _last_trick
from cardlab.solver.endings import _two_tricks
from cardlab.solver.node import (
    NODE_ALPHA,
    NODE_ASKED_ALPHA,
    NODE_ASKED_BETA,
    NODE_BEST,
    NODE_BEST_MOVE,
    NODE_BEST_POSITION,
    NODE_BETA,
    NODE_COUNT,
    NODE_FIXED_HIGH,
    NODE_FIXED_LOW,
    NODE_GAINED,
    NODE_KEY_HIGH,
    NODE_KEY_LOW,
    NODE_LEADER,
    NODE_LENGTHS,
    NODE_LIVE,
    NODE_LOWER_MASKS,
    NODE_NEXT,
    NODE_RANKS,
    NODE_SAVED,
    NODE_SIZE,
    NODE_SKIPPED,
    NODE_SLOT,
    NODE_TAG,
    NODE_TRICK_POINTS,
    NODE_TRICK_RANK,
    NODE_TRICKS_LEFT,
    NODE_TRUMPS_FROM,
    NODE_UPPER_MASKS,
    NODE_WINDOW_ALPHA,
    NODE_WINDOW_BETA,
    new_scratch,
)
from cardlab.solver.ordering import _list_moves, _order_moves
from cardlab.solver.rules import (
    FLAGS,
    NARROW,
    NARROW_LINE_TRICKS,
    NARROW_WIDTH,
    NUM_SEATS,
    POINTS,
    TRICK_BASE,
    USE_EQUIVALENCE,
    USE_ORDERING,
    USE_QUICK_TRICKS,
    USE_TT,
    USE_TWO_TRICK_ENDINGS,
    USE_WINNING_RANKS,
    _above,
    _suit_bits,
    beats,
    playable,
    trick_leader_position,
)
from cardlab.solver.table import (
    BEST,
    CONTRACT,
    DEFAULT_TT_BITS,
    GENERATION,
    KEY_HIGH,
    KEY_LOW,
    LENGTHS,
    LOWER,
    MASK_HIGH,
    MASK_LOW,
    NODES,
    NUM_COUNTERS,
    REPLACE,
    TAG,
    UPPER,
    WAYS,
    _absolute_card,
    _bucket,
    _position_key,
    _rank_masks,
    _rank_winner,
    _ranked_cards,
    _relative_card,
    forget,
    new_table,
)


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
