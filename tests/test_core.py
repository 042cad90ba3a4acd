"""The shared core: card ids and strings, bitboards, random streams, tricks, sampling."""

from __future__ import annotations

import collections
import itertools
import pickle

import numpy as np
import pyspiel
import pytest
from numba import njit

import cardlab  # noqa: F401  (registers the games)
from cardlab.core import bitboard
from cardlab.core.cards import (
    card_id,
    card_string,
    cards_string,
    mask_of,
    parse_card,
    suit_of,
    voids_line,
)
from cardlab.core.dealing import chance_sequence, receiving_seat, shuffled_cards
from cardlab.core.layout import Slots, copy_state, seat_after
from cardlab.core.parameters import Parameter, ParameterTable
from cardlab.core.rng import (
    RECIPROCAL_BOUNDS,
    choice_remainder,
    derive_seed,
    make_stream,
    random_below,
    small_remainder,
)
from cardlab.core.sampling import sample_hidden_hands
from cardlab.core.tricks import follow_suit_choices, takes_the_lead, trick_winner, winning_cards


def test_card_ids_and_strings_follow_the_contract():
    assert card_id(2, 3) == 29 and card_string(29) == "5H"
    assert card_string(parse_card("3S")) == "3S" and parse_card("3S") == 40
    assert parse_card("TD") == parse_card("10D") == 13 + 8
    assert card_string(0) == "2C" and card_string(51) == "AS"
    assert card_string(52) == "RJ" and card_string(53) == "BJ"
    assert [card_string(c) for c in range(52)] == [r + s for s in "CDHS" for r in "23456789TJQKA"]
    with pytest.raises(ValueError, match="not a card"):
        parse_card("1X")
    with pytest.raises(ValueError):
        card_string(60)


def test_bitboard_helpers():
    mask = mask_of(["AS", "2C", "5H"])
    assert bitboard.popcount(mask) == 3
    assert bitboard.lowest_card(mask) == 0
    assert bitboard.highest_card(mask) == 51
    assert list(bitboard.cards_in(mask)) == [0, 29, 51]
    assert bitboard.nth_card(mask, 1) == 29
    assert bitboard.lowest_card(0) == -1
    assert bitboard.popcount(np.int64((1 << 54) - 1)) == 54
    assert cards_string(mask) == "2C 5H AS"


def test_extract_and_deposit_bits_agree_with_their_portable_loops():
    """``extract_bits``/``deposit_bits`` (BMI2's pext/pdep where fast) equal the loops used elsewhere."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        source, mask = (np.int64(int(x)) for x in rng.integers(0, 1 << 62, size=2))
        mask &= np.int64(int(rng.integers(0, 1 << 62)))  # sparser masks too
        packed = bitboard.extract_bits(source, mask)
        assert packed == bitboard._extract_by_loop(source, mask)
        assert bitboard.deposit_bits(source, mask) == bitboard._deposit_by_loop(source, mask)
        assert bitboard.deposit_bits(packed, mask) == source & mask
    assert bitboard.extract_bits(np.int64(0b1010), np.int64(0b1110)) == 0b101
    assert bitboard.deposit_bits(np.int64(0b101), np.int64(0b1110)) == 0b1010


def test_random_streams_are_reproducible_and_uniform():
    a, b = make_stream(7), make_stream(7)
    assert [random_below(a, 10) for _ in range(50)] == [random_below(b, 10) for _ in range(50)]
    assert derive_seed(1, 2) != derive_seed(1, 3)
    stream = make_stream(1)
    counts = collections.Counter(random_below(stream, 6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert max(counts.values()) - min(counts.values()) < 600


def test_dealing_order_and_chance_sequence():
    assert [receiving_seat(3, k, 4) for k in range(5)] == [0, 1, 2, 3, 0]
    hands = {0: [1, 2], 1: [3, 4], 2: [5, 6]}
    assert chance_sequence(hands, dealer=2, num_players=3) == [1, 3, 5, 2, 4, 6]
    cards = shuffled_cards(np.int64((1 << 32) - 1), 32, make_stream(3))
    assert sorted(cards) == list(range(32))


def test_follow_suit_and_trick_winner():
    hand = mask_of(["AS", "2C", "5H"])
    assert follow_suit_choices(hand, 2) == mask_of(["5H"])
    assert follow_suit_choices(hand, 1) == hand  # void in diamonds: any card
    assert follow_suit_choices(hand, -1) == hand  # leading
    strength = np.arange(54, dtype=np.int64) % 13
    trick = np.array([parse_card(c) for c in ["KH", "AH", "2S", "QH"]], dtype=np.int64)
    assert trick_winner(trick, 4, -1, 0, strength) == 1  # highest of the led suit
    assert trick_winner(trick, 4, 3, 0, strength) == 2  # the only trump
    assert trick_winner(trick, 4, 3, 3, strength) == 1  # the spade came before trumps counted
    assert suit_of(parse_card("2S")) == 3


def test_winning_cards_are_the_cards_trick_winner_crowns():
    """One pass over the trick gives what ``trick_winner`` says card by card."""
    rng = np.random.default_rng(4)
    strength = rng.permutation(54).astype(np.int64)
    for _ in range(300):
        cards = rng.choice(52, 7, replace=False).astype(np.int64)
        count = int(rng.integers(1, 6))
        trump, trumps_from = int(rng.integers(-1, 4)), int(rng.integers(0, 6))
        choices = mask_of([card_string(int(c)) for c in rng.choice(52, 8, replace=False)
                           if c not in cards[:count]])
        expected = 0
        for card in bitboard.cards_in(choices):
            cards[count] = card
            if trick_winner(cards, count + 1, trump, trumps_from, strength) == count:
                expected |= 1 << int(card)
        assert winning_cards(choices, cards, count, trump, trumps_from, strength) == expected


def _brute_force_deals(unseen_cards, may_hold, sizes):
    deals = []
    for owners in itertools.product(range(len(sizes)), repeat=len(unseen_cards)):
        if any(owners.count(i) != sizes[i] for i in range(len(sizes))):
            continue
        if all((may_hold[o] >> c) & 1 for o, c in zip(owners, unseen_cards, strict=True)):
            hands = [0] * len(sizes)
            for o, c in zip(owners, unseen_cards, strict=True):
                hands[o] |= 1 << c
            deals.append(tuple(hands))
    return deals


@pytest.mark.parametrize(
    "may_hold,sizes",
    [
        ([0b1111111, 0b1110011, 0b0001111], [3, 2, 2]),
        ([0b1111111, 0b1111111, 0b1111111], [1, 4, 2]),
        ([0b0000111, 0b1111000, 0b1111111], [2, 3, 2]),
        # four seats; classes whose lowest seat is not seat 0 and one seat-3-only card
        ([0b0000011, 0b0111100, 0b0111111, 0b1111110], [1, 2, 2, 2]),
    ],
)
def test_hidden_hand_sampler_is_exactly_uniform(may_hold, sizes):
    unseen = 0b1111111
    may = np.array(may_hold, dtype=np.int64)
    size = np.array(sizes, dtype=np.int64)
    expected = _brute_force_deals(list(range(7)), may_hold, sizes)
    out = np.zeros(len(sizes), dtype=np.int64)
    stream = make_stream(11)
    draws = 200 * len(expected)
    counts = collections.Counter()
    for _ in range(draws):
        total = sample_hidden_hands(unseen, may, size, stream, out)
        counts[tuple(int(x) for x in out)] += 1
    assert total == len(expected)
    assert set(counts) == set(expected)
    # Chi-square against uniform, generous bound (p far below 1e-6 if biased).
    chi2 = sum((c - 200) ** 2 / 200 for c in counts.values())
    assert chi2 < len(expected) + 6 * np.sqrt(2 * len(expected)) + 10


def test_hidden_hand_sampler_reports_impossible_constraints():
    out = np.zeros(2, dtype=np.int64)
    may = np.array([0b01, 0b01], dtype=np.int64)  # nobody may hold card 1
    total = sample_hidden_hands(0b11, may, np.array([1, 1], dtype=np.int64), make_stream(1), out)
    assert total == 0.0 and out.tolist() == [0, 0]


def test_derive_seed_takes_any_64_bit_seed_in_any_order():
    """numba once matched a seed above 2**63 to an int64 specialization and overflowed."""
    small = derive_seed(5, 0)
    big = derive_seed(2**63 + 5, 0)
    assert derive_seed(5, 0) == small and derive_seed(2**63 + 5, 0) == big
    assert derive_seed(np.uint64(2**63 + 5), 0) == big


def test_seats_go_round_without_dividing_as_they_did_with_modulo():
    """seat_after and receiving_seat (a mask for four players) give the seat modulo arithmetic gives."""
    for players in range(2, 17):
        for seat in range(players):
            for steps in range(players):
                assert seat_after(seat, steps, players) == (seat + steps) % players
            for k in range(64):
                assert receiving_seat(seat, k, players) == (seat + 1 + k) % players


@njit(cache=True)
def _remainders(values, divisor, out, choices):
    for i in range(len(values)):
        out[i] = small_remainder(values[i], divisor)
        choices[i] = choice_remainder(values[i], divisor)


def test_small_remainder_is_the_remainder_for_every_divisor():
    """The reciprocal multiplication gives ``r % n`` exactly, so random draws are what the
    division gave: random and edge 64-bit values (0, near 2**63 and 2**64, multiples and
    their neighbours) for every divisor with a reciprocal and a few past them; a hand's
    choice (``choice_remainder``, a table of ``r % 840`` up to 8) too."""
    values = np.random.default_rng(0).integers(0, 2**64, size=20_000, dtype=np.uint64)
    for divisor in range(1, RECIPROCAL_BOUNDS + 4):
        edges = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1]
        for k in (1, 2**40 // divisor, (2**64 - 1) // divisor):
            edges += [k * divisor + j for j in (-1, 0, 1) if 0 <= k * divisor + j < 2**64]
        sample = np.concatenate([values, np.array(edges, dtype=np.uint64)])
        out, choices = np.empty_like(sample), np.empty_like(sample)
        _remainders(sample, divisor, out, choices)
        assert np.array_equal(out, sample % np.uint64(divisor)), divisor
        assert np.array_equal(choices, sample % np.uint64(divisor)), divisor


@njit(cache=True)
def _leads_as_played(cards, count, trump_suit, trumps_from, strength):
    """The trick's winning position found card by card with ``takes_the_lead``, as a playout does."""
    led_suit = suit_of(cards[0])
    best, best_class, winner = -1, -1, -1
    for position in range(count):
        card = cards[position]
        card_class = takes_the_lead(card, position, best, best_class, led_suit, trump_suit, trumps_from,
                                    strength)
        if card_class >= 0:
            best, best_class, winner = card, card_class, position
    return winner


def test_taking_the_lead_card_by_card_names_the_trick_winner():
    """The branch-free comparison a playout makes as each card comes gives ``trick_winner``'s
    position: random tricks of 2 to 6 cards, every trump (none too), trumps from any position
    (Twenty-Eight's trump shown mid-trick) and random strength orders."""
    rng = np.random.default_rng(18)
    for _ in range(20_000):
        count = int(rng.integers(2, 7))
        cards = np.empty(count, dtype=np.int64)
        cards[0] = rng.integers(32)
        led_suit_cards = [c for c in range(32) if c // 8 == cards[0] // 8 and c != cards[0]]
        others = [c for c in range(32) if c // 8 != cards[0] // 8]
        for k in range(1, count):  # most cards follow the led suit, the rest discard or trump
            pool = led_suit_cards if rng.random() < 0.6 and led_suit_cards else others
            cards[k] = pool.pop(int(rng.integers(len(pool))))
        trump_suit = int(rng.integers(-1, 4))
        trumps_from = int(rng.integers(0, count + 1))
        strength = rng.permutation(32).astype(np.int64)
        expected = trick_winner(cards, count, trump_suit, trumps_from, strength)
        assert _leads_as_played(cards, count, trump_suit, trumps_from, strength) == expected


@njit(cache=True)
def _nth_cards_agree(masks):
    for mask in masks:
        for n in range(bitboard.popcount(mask) + 1):
            if bitboard.nth_card(mask, n) != bitboard._nth_card_by_clearing(mask, n):
                return False
    return True


def test_nth_card_by_bit_deposit_is_the_nth_card():
    """``pdep`` (where the CPU has a fast one) and the clearing loop name the same card,
    -1 past the mask's end."""
    rng = np.random.default_rng(1)
    masks = rng.integers(0, 2**62, size=20_000, dtype=np.int64) & rng.integers(0, 2**62, size=20_000,
                                                                                 dtype=np.int64)
    edges = np.array([0, 1, (1 << 54) - 1, (1 << 62) | 5], dtype=np.int64)
    assert _nth_cards_agree(np.concatenate([masks, edges]))
    assert bitboard.nth_card(np.int64(0b1011000), 2) == 6
    assert bitboard.nth_card(np.int64(0b1011000), 3) == -1


def test_copy_state_overwrites_every_slot():
    source, target = np.arange(230, dtype=np.int64), np.full(230, -7, dtype=np.int64)
    copy_state(target, source)
    assert np.array_equal(target, source)


def test_a_state_shares_its_engine_through_copies_and_pickles():
    """The engine is a plain attribute of a state: a clone shares it, a pickle names it."""
    game = pyspiel.load_game("cardlab_kaiser", {"players": 5})
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.engine is game.engine and state.engine.num_players == 5
    assert state.clone().engine is state.engine
    restored = pickle.loads(pickle.dumps(state))
    assert restored.engine is state.engine and restored.history() == state.history()


def test_prefetch_is_a_hint_that_changes_no_value_and_takes_one_index_per_axis():
    from numba.core.errors import TypingError

    from cardlab.core.prefetch import prefetch

    @njit
    def read_after_prefetch(table, slot):
        prefetch(table, (slot, 2, 0))
        prefetch(table, (slot, 2, table.shape[2] - 1))
        return table[slot, 2].sum()

    table = np.arange(5 * 3 * 4, dtype=np.int64).reshape(5, 3, 4)
    expected = [int(table[slot, 2].sum()) for slot in range(5)]
    assert [read_after_prefetch(table, slot) for slot in range(5)] == expected

    @njit
    def wrong_arity(table):
        prefetch(table, (0, 1))

    with pytest.raises(TypingError):
        wrong_arity(table)


def test_slots_number_each_field_after_the_last_and_refuse_an_empty_one():
    slot = Slots(14)
    assert [slot(6), slot(), slot(), slot(48), slot()] == [14, 20, 21, 22, 70]
    assert slot.size == 71
    with pytest.raises(ValueError, match="at least one slot"):
        slot(0)



def test_a_parameter_table_gives_defaults_rules_research_names_and_slot_values():
    table = ParameterTable(Parameter("dealer", 0, range(0, 4), slot=20), Parameter("pot", 0.0),
                           Parameter("hand_size", 8, range(1, 9), slot=30, research=True))
    assert table.defaults == {"dealer": 0, "pot": 0.0, "hand_size": 8}
    assert table.rules == {"dealer": (int, range(0, 4)), "pot": (float, None),
                           "hand_size": (int, range(1, 9))}
    assert table.research == ("hand_size",)
    assert table.slot_values({"dealer": 3, "pot": 2.5, "hand_size": 2}) == {20: 3, 30: 2}
    with pytest.raises(ValueError, match=r"declared twice: \['pot'\]"):
        ParameterTable(Parameter("pot", 0.0), Parameter("pot", 1.0))


def test_the_voids_line_names_each_seat_that_showed_out_and_is_none_before_any():
    assert voids_line([0, 0b0100, 0, 0b1001]) == "voids: P1 void H, P3 void CS"
    assert voids_line(np.zeros(4, dtype=np.int64)) is None
