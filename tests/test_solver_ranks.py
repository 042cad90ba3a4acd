"""The winning-ranks table keeps the solver exact: sweeps against plain alpha-beta.

A table entry with winning ranks stands for every position agreeing on the
cards whose ranks mattered, so its faults show only when one table serves
many positions of one deal. The sweeps solve endings of random deals, several
from each deal with one shared table (as a full solve and PIMC's worlds do),
and compare each value with the same search with every technique off (plain
full-window alpha-beta over the same moves; `tests/test_solver.py` checks
that against exhaustive minimax over the engines' states).
"""

from __future__ import annotations

import numpy as np
import pytest

from cardlab.games.double_dummy import game_tables
from cardlab.games.kernels import KAISER, TWENTY_EIGHT
from cardlab.solver.mtd import exact_value
from cardlab.solver.rules import (
    ALL_TECHNIQUES,
    POINTS,
    USE_WINNING_RANKS,
    make_rules,
    playable,
    trick_leader_position,
)
from cardlab.solver.search import Table
from cardlab.solver.table import _bucket, _position_key, _rank_masks, _ranked_cards

STRAINS = {KAISER: 6, TWENTY_EIGHT: 4}


def _contract(game: int, strain: int) -> np.ndarray:
    """The search's rules of ``game`` played in ``strain``, every technique on."""
    trump_of, _, _, points, trick_points = game_tables(game, strain)
    return make_rules(trump_of, trick_points, points, ALL_TECHNIQUES)


def _random_contract(rng: np.random.Generator, game: int) -> np.ndarray:
    """:func:`_contract` of a random strain."""
    return _contract(game, int(rng.integers(STRAINS[game])))


def _hands_of(deal: np.ndarray) -> np.ndarray:
    """The four hands (search-card masks) of a permutation of the 32 cards, eight each."""
    return np.array([sum(1 << int(c) for c in deal[8 * seat:8 * seat + 8]) for seat in range(4)],
                    dtype=np.int64)


def _random_ending(rng: np.random.Generator, rules: np.ndarray, hands: np.ndarray, tricks_left: int):
    """Play random legal cards from the full deal ``hands`` (changed in place) until
    ``tricks_left`` tricks remain, maybe mid-trick: ``(trick, size, leader)``."""
    trick = np.full(4, -1, dtype=np.int64)
    size, leader = 0, int(rng.integers(4))
    stop = 4 * tricks_left - int(rng.integers(4))
    while int(sum(bin(int(h)).count("1") for h in hands)) > stop:
        seat = (leader + size) % 4
        cards = int(playable(hands[seat], trick, size))
        choices = [c for c in range(32) if cards >> c & 1]
        card = choices[int(rng.integers(len(choices)))]
        hands[seat] &= ~(1 << card)
        trick[size] = card
        size += 1
        if size == 4:
            leader = (leader + int(trick_leader_position(rules, trick, 4, 0))) % 4
            trick[:] = -1
            size = 0
    return trick, size, leader


def check_winning_ranks(game: int, deals: int, endings: int, tricks: tuple[int, ...], seed: int) -> None:
    """``deals`` random deals, ``endings`` endings of each solved with one table."""
    rng = np.random.default_rng(seed)
    reference_table = Table(10)
    for _ in range(deals):
        strain = int(rng.integers(STRAINS[game]))
        trump_of, _, _, points, trick_points = game_tables(game, strain)
        fast = make_rules(trump_of, trick_points, points, ALL_TECHNIQUES)
        plain = make_rules(trump_of, trick_points, points, 0)
        ranks_only = make_rules(trump_of, trick_points, points, 1 | USE_WINNING_RANKS)
        table, bare_table = Table(12), Table(12)  # small tables: entries get replaced too
        deal = rng.permutation(32)
        for _ in range(endings):
            hands = _hands_of(deal)
            tricks_left = tricks[int(rng.integers(len(tricks)))]
            trick, size, leader = _random_ending(rng, plain, hands, tricks_left)
            position = (hands, trick, size, leader, tricks_left, 0)
            expected = exact_value(plain, reference_table.entries, reference_table.counters,
                                   reference_table.scratch, *position)
            assert exact_value(fast, table.entries, table.counters, table.scratch, *position) == expected
            assert exact_value(ranks_only, bare_table.entries, bare_table.counters, bare_table.scratch,
                               *position) == expected


@pytest.mark.parametrize("game", [KAISER, TWENTY_EIGHT], ids=["kaiser", "twenty_eight"])
def test_winning_ranks_equal_plain_alpha_beta_on_endings(game):
    check_winning_ranks(game, 200, 10, (2, 3, 4), seed=21)


@pytest.mark.slow
@pytest.mark.parametrize("game", [KAISER, TWENTY_EIGHT], ids=["kaiser", "twenty_eight"])
def test_winning_ranks_equal_plain_alpha_beta_on_many_endings(game):
    check_winning_ranks(game, 1000, 20, (2, 3, 4, 5), seed=22)


def _random_position(rng: np.random.Generator, game: int, fewest_tricks: int):
    """A random deal of ``game`` in a random strain, played on to a random ending with
    ``fewest_tricks`` to 8 tricks left: ``(rules, points, hands, trick size, leader)``."""
    trump_of, _, _, points, trick_points = game_tables(game, int(rng.integers(STRAINS[game])))
    rules = make_rules(trump_of, trick_points, points, ALL_TECHNIQUES)
    deal = rng.permutation(32)
    hands = np.array([sum(1 << int(c) for c in deal[8 * seat:8 * seat + 8]) for seat in range(4)],
                     dtype=np.int64)
    _, size, leader = _random_ending(rng, rules, hands, int(rng.integers(fewest_tricks, 9)))
    return rules, points, hands, size, leader


def test_bucket_ignores_the_holders_of_cards_without_points():
    """An entry may ignore who holds cards without points (its winning ranks free them), so a
    position it serves must find it in the same bucket: swapping two such cards of one suit
    between hands keeps the bucket; every bit the bucket key hashes is one all entries compare."""
    rng = np.random.default_rng(23)
    checked = 0
    while checked < 400:
        game = (KAISER, TWENTY_EIGHT)[checked % 2]
        rules, points, hands, size, leader = _random_position(rng, game, fewest_tricks=2)
        pointless = [c for c in range(32) if points[c] == 0 and any(hands[s] >> c & 1 for s in range(4))]
        swaps = [(a, b) for a in pointless for b in pointless
                 if a // 8 == b // 8 and a < b and not any(hands[s] >> a & 1 and hands[s] >> b & 1
                                                           for s in range(4))]
        if size != 0 or not swaps:
            continue
        a, b = swaps[int(rng.integers(len(swaps)))]
        swapped = hands.copy()
        for seat in range(4):
            if (hands[seat] >> a & 1) != (hands[seat] >> b & 1):
                swapped[seat] ^= (1 << a) | (1 << b)
        buckets = []
        for position in (hands, swapped):
            key_low, key_high, fixed_low, fixed_high, lengths, tag = _position_key(rules, position, leader, 1)
            buckets.append(_bucket(lengths, tag, key_low, key_high, fixed_low, fixed_high, 1 << 14))
        assert buckets[0] == buckets[1]
        checked += 1


def _key_card_by_card(points, hands):
    """The relative code of a trick boundary built card by card: in each suit, weakest card
    first, a 4-bit field per live card (holder; point class, by ascending point value); the
    fixed bits (the class bits, and the holder bits of a card carrying points); the lengths
    (4 bits a hand and suit, seat 0's suit 0 highest)."""
    classes = sorted(set(int(p) for p in points))
    codes, fixed = [], []
    for suit in range(4):
        code, fixed_bits, field = 0, 0, 0
        for card in range(8 * suit, 8 * suit + 8):
            holders = [seat for seat in range(4) if int(hands[seat]) >> card & 1]
            if holders:
                code |= (classes.index(int(points[card])) << 2 | holders[0]) << (4 * field)
                fixed_bits |= (15 if points[card] != 0 else 12) << (4 * field)
                field += 1
        codes.append(code)
        fixed.append(fixed_bits)
    lengths = 0
    for seat in range(4):
        for suit in range(4):
            lengths = lengths << 4 | bin(int(hands[seat]) >> (8 * suit) & 0xFF).count("1")
    return ((codes[0] | codes[1] << 32, codes[2] | codes[3] << 32),
            (fixed[0] | fixed[1] << 32, fixed[2] | fixed[3] << 32), lengths)


def test_packed_key_equals_the_card_by_card_code_and_masks_cover_the_top_cards():
    """The key packs and spreads bits (pext/pdep) instead of looping over the cards: it must be
    the card-by-card code (with its fixed bits and suit lengths), and an entry's masks must cover
    the top cards down to the lowest rank."""
    rng = np.random.default_rng(24)
    for k in range(300):
        game = (KAISER, TWENTY_EIGHT)[k % 2]
        rules, points, hands, size, leader = _random_position(rng, game, fewest_tricks=1)
        key_low, key_high, fixed_low, fixed_high, lengths, _ = _position_key(rules, hands, leader, 1)
        word = (1 << 64) - 1  # the int64 key as the unsigned word it is
        code, fixed, expected_lengths = _key_card_by_card(points, hands)
        assert (int(key_low) & word, int(key_high) & word) == code
        assert (int(fixed_low) & word, int(fixed_high) & word) == fixed
        assert int(lengths) & word == expected_lengths
        live = int(hands[0] | hands[1] | hands[2] | hands[3])
        relevant = np.int64(int(rng.integers(0, 1 << 32)) & live)
        mask_low, mask_high = _rank_masks(rules, hands, relevant)
        expected = 0
        for suit in range(4):
            ranked = [c for c in range(8 * suit, 8 * suit + 8) if int(relevant) >> c & 1]
            if ranked:
                expected |= sum(1 << c for c in range(ranked[0], 8 * suit + 8) if live >> c & 1)
        assert _ranked_cards(hands, mask_low, mask_high) == expected


def test_two_trick_kernel_equals_the_node_per_card_search():
    """At a trick boundary with two tricks left the kernel's value is the search's (with a full
    window exactly; with any window on the same side of it, fail-soft), and its winning ranks
    are cards of the position."""
    from cardlab.solver.endings import _two_tricks
    from cardlab.solver.rules import FLAGS, USE_TWO_TRICK_ENDINGS
    from cardlab.solver.search import search

    rng = np.random.default_rng(31)
    table = Table(10)
    checked = 0
    while checked < 400:
        game = (KAISER, TWENTY_EIGHT)[checked % 2]
        rules = _random_contract(rng, game)
        deal = rng.permutation(32)
        hands = _hands_of(deal)
        trick, size, leader = _random_ending(rng, rules, hands, 2)
        if size != 0 or sum(bin(int(h)).count("1") for h in hands) != 8:
            continue  # not a trick boundary with two tricks left
        plain = rules.copy()
        plain[FLAGS] &= ~USE_TWO_TRICK_ENDINGS
        table.forget()
        exact = search(plain, table.entries, table.counters, table.scratch, hands, trick, 0, leader, 2, 0,
                       -1000, 1000)
        assert _two_tricks(rules, hands, leader, -1000, 1000)[0] == exact
        alpha, beta = sorted(int(x) for x in rng.integers(-4, 12, size=2))
        beta += 1
        value, ranks = _two_tricks(rules, hands, leader, alpha, beta)
        if value <= alpha:
            assert exact <= value
        elif value >= beta:
            assert exact >= value
        else:
            assert value == exact
        assert ranks & ~(hands[0] | hands[1] | hands[2] | hands[3]) == 0
        checked += 1


def test_equivalent_cards_found_at_once_equal_the_card_by_card_rule():
    """A playable card is skipped exactly when the next live card above it in its suit is another
    playable card of the same hand with the same points (no other hand's card between them)."""
    from cardlab.solver.node import NODE_SKIPPED, new_scratch
    from cardlab.solver.ordering import _list_moves

    rng = np.random.default_rng(32)
    scratch = new_scratch()
    for k in range(600):
        game = (KAISER, TWENTY_EIGHT)[k % 2]
        rules = _random_contract(rng, game)
        deal = rng.permutation(32)
        hands = _hands_of(deal)
        trick, size, leader = _random_ending(rng, rules, hands, int(rng.integers(1, 9)))
        seat = (leader + size) % 4
        live = int(hands[0] | hands[1] | hands[2] | hands[3])
        for position in range(size):
            live |= 1 << int(trick[position])
        cards = int(playable(hands[seat], trick, size))
        skipped = 0
        for card in range(32):
            if cards >> card & 1:
                above = [c for c in range(card + 1, 8 * (card // 8 + 1)) if live >> c & 1]
                if above and cards >> above[0] & 1 and rules[POINTS + card] == rules[POINTS + above[0]]:
                    skipped |= 1 << card
        n = _list_moves(rules, hands, trick, size, seat, np.int64(live), scratch, 0)
        assert list(scratch[0, :n]) == [c for c in range(32) if (cards & ~skipped) >> c & 1]
        assert int(scratch[0, NODE_SKIPPED]) == skipped



def _random_trick(rng: np.random.Generator, rules: np.ndarray, hands: np.ndarray, leader: int) -> int:
    """Play one trick of random legal cards from ``hands`` (changed in place): its winner."""
    trick = np.full(4, -1, dtype=np.int64)
    for size in range(4):
        seat = (leader + size) % 4
        cards = int(playable(hands[seat], trick, size))
        card = [c for c in range(32) if cards >> c & 1][int(rng.integers(bin(cards).count("1")))]
        hands[seat] &= ~(1 << card)
        trick[size] = card
    return (leader + int(trick_leader_position(rules, trick, 4, 0))) % 4


def _low_cards_swapped(rng: np.random.Generator, rules: np.ndarray, hands: np.ndarray) -> np.ndarray:
    """The position with two cards without points of one suit swapped between their holders
    (every hand keeps its length in every suit, as a table entry's bucket key does)."""
    other = hands.copy()
    suit = int(rng.integers(4))
    cards = [c for c in range(8 * suit, 8 * suit + 8) if rules[POINTS + c] == 0
             and any(hands[seat] >> c & 1 for seat in range(4))]
    if len(cards) >= 2:
        first, second = (int(c) for c in rng.choice(cards, 2, replace=False))
        holder_of = {c: next(seat for seat in range(4) if hands[seat] >> c & 1) for c in (first, second)}
        for card, seat in ((first, holder_of[second]), (second, holder_of[first])):
            other[holder_of[card]] &= ~(1 << card)
            other[seat] |= 1 << card
    return other


def _matching_bounds(table: Table, rules: np.ndarray, hands: np.ndarray,
                     leader: int) -> list[tuple[int, int]]:
    """The bounds of every live entry of ``table`` that serves the position (as the search probes)."""
    from cardlab.solver.table import (
        GENERATION,
        KEY_HIGH,
        KEY_LOW,
        LENGTHS,
        LOWER,
        MASK_HIGH,
        MASK_LOW,
        TAG,
        UPPER,
        WAYS,
    )

    key_low, key_high, fixed_low, fixed_high, lengths, tag = _position_key(
        rules, hands, leader, table.counters[GENERATION])
    slot = _bucket(lengths, tag, key_low, key_high, fixed_low, fixed_high, table.entries.shape[0])
    rows = table.entries[slot]
    return [(int(rows[LOWER, way]), int(rows[UPPER, way])) for way in range(WAYS)
            if rows[TAG, way] == tag and rows[LENGTHS, way] == lengths
            and (rows[KEY_LOW, way] ^ key_low) & (rows[MASK_LOW, way] | fixed_low) == 0
            and (rows[KEY_HIGH, way] ^ key_high) & (rows[MASK_HIGH, way] | fixed_high) == 0]


@pytest.mark.parametrize("game", [KAISER, TWENTY_EIGHT])
def test_every_entry_holds_in_every_position_it_serves(game):
    """The winning ranks' promise checked entry by entry: after a solve, positions that differ
    from the solved one in their low cards are dealt, and every table entry that serves one of
    them must bound its exact value (solved afresh). A bound that rests on a card's rank the
    entry does not compare (a child's, or another entry's that narrowed the window) fails here."""
    rng = np.random.default_rng(41 + game)
    served = 0
    for _ in range(80):
        rules = _random_contract(rng, game)
        deal = rng.permutation(32)
        hands = _hands_of(deal)
        tricks_left = int(rng.integers(3, 6))
        trick, size, leader = _random_ending(rng, rules, hands, tricks_left)
        if size != 0:
            continue
        table = Table(14)
        exact_value(rules, table.entries, table.counters, table.scratch, hands, trick, 0, leader, tricks_left,
                    0)
        for _ in range(60):
            # A boundary the search passed through (one to two tricks on), one swap away.
            later, later_leader = hands.copy(), leader
            for _ in range(int(rng.integers(1, 3))):
                later_leader = _random_trick(rng, rules, later, later_leader)
            later_tricks = bin(int(later[0])).count("1")
            other = _low_cards_swapped(rng, rules, later)
            bounds = _matching_bounds(table, rules, other, later_leader)
            if not bounds:
                continue
            fresh = Table(10)
            value = exact_value(rules, fresh.entries, fresh.counters, fresh.scratch, other, trick, 0,
                                later_leader, later_tricks, 0)
            for lower, upper in bounds:
                assert lower <= value <= upper, (other, later_leader, lower, value, upper)
                served += 1
    assert served > 100  # the check is not vacuous


def test_two_trick_kernel_answers_a_window_outside_the_points_left_at_once():
    """Team 0 takes at least every negative point left and at most every positive point and both
    tricks: a window beyond either is answered by that bound, resting on no card's rank."""
    from cardlab.solver.endings import _two_tricks

    rules = _contract(KAISER, 0)
    three_of_spades = next(c for c in range(32) if rules[POINTS + c] < 0)
    plain = [c for c in range(32) if rules[POINTS + c] == 0 and c != three_of_spades][:7]
    deal = np.array([three_of_spades, *plain])
    hands = np.array([(1 << int(deal[2 * seat])) | (1 << int(deal[2 * seat + 1])) for seat in range(4)],
                     dtype=np.int64)
    exact, _ = _two_tricks(rules, hands, 0, -1000, 1000)
    assert -3 <= exact <= 2
    assert _two_tricks(rules, hands, 0, -10, -5) == (-3, 0)  # below: at least the 3 of spades
    assert _two_tricks(rules, hands, 0, 4, 9) == (2, 0)  # above: at most both tricks


def test_a_cut_off_by_the_leading_bound_rests_on_the_larger_bounds_cards():
    """The leader's team is bounded by his sure winners or its master trumps, whichever count
    more; a cut-off by that bound depends on those cards only. Here the leader's sure winner
    is his top trump (one trick) and the partner's two master trumps count two."""
    from cardlab.solver.bounds import _bounds_and_winners
    from cardlab.solver.rules import TRICK_BASE, TRUMP

    rules = _contract(KAISER, 0)
    trump = int(rules[TRUMP])
    side = next(s for s in range(4) if s != trump and all(rules[POINTS + 8 * s + k] == 0 for k in range(7)))

    def cards(*pairs):
        return sum(1 << (8 * suit + rank) for suit, rank in pairs)

    hands = np.array([cards((trump, 7), (side, 0), (side, 1)), cards((trump, 4), (side, 3), (side, 4)),
                      cards((trump, 6), (trump, 5), (side, 2)), cards((trump, 3), (side, 5), (side, 6))],
                     dtype=np.int64)
    lower, upper, leading, other = _bounds_and_winners(rules, hands, 0, 3)
    assert lower == 2 * rules[TRICK_BASE] and leading == cards((trump, 6), (trump, 5))
    assert other == 0 and upper == 3 * rules[TRICK_BASE]
