"""Twenty-Eight's rule-based card play against a plain Python reference.

The card play is compiled without reference counts (``strategy.play_action``) and a rules
rollout plays it in one call (``strategy.play_cards_by_rules``). Neither may change a single
choice: the reference below is the player's card-play rules written out in Python, asked at
thousands of play-phase states of random games on the variant sets.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from cardlab.core.cards import SUIT_MASKS
from cardlab.core.layout import current_player
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.observation import known_trump
from cardlab.games.twenty_eight.rules import CALL_TRUMP, CARD_POINTS, STRENGTH
from cardlab.games.twenty_eight.strategy import play_action, play_cards_by_rules, rules_action

VARIANT_SETS = [{}, {"players": 6}, {"players": 3}, {"thani": True}, {"cot": True},
                {"jack_discard_restriction": True, "pointless_hand_redeal": True}, {"dealer": 2}]


def cards(mask: int) -> list[int]:
    return [c for c in range(64) if mask >> c & 1]


def suit_mask(suit: int) -> int:
    return int(SUIT_MASKS[suit])


def first_by(mask: int, key) -> int:
    """The card of ``mask`` with the least ``key`` (ties: the lowest id, as the kernels scan)."""
    return min(cards(mask), key=lambda c: (key(c), c))


def weakest(mask: int) -> int:
    return first_by(mask, lambda c: STRENGTH[c])


def cheapest(mask: int) -> int:
    return first_by(mask, lambda c: (CARD_POINTS[c], STRENGTH[c]))


def richest(mask: int) -> int:
    return first_by(mask, lambda c: (-CARD_POINTS[c], STRENGTH[c]))


def longest_suit(hand: int) -> int:
    keys = [len(cards(hand & suit_mask(u))) * 100 + sum(CARD_POINTS[c] for c in cards(hand & suit_mask(u)))
            for u in range(4)]
    return max(range(4), key=lambda u: (keys[u], u))


def is_master(unseen: int, card: int) -> bool:
    return all(STRENGTH[o] <= STRENGTH[card] for o in cards(unseen & suit_mask(card // 13)))


def trick_of(s: np.ndarray) -> list[int]:
    return [int(s[E.TRICK + k]) for k in range(int(s[E.TRICK_SIZE]))]


def winner_position(trick: list[int], trump: int, trumps_from: int) -> int:
    def rank(card, position):
        klass = 2 if trump >= 0 and card // 13 == trump and position >= trumps_from else (
            1 if card // 13 == trick[0] // 13 else 0)
        return (klass, STRENGTH[card] if klass > 0 else 0)
    best = 0
    for position in range(1, len(trick)):
        if rank(trick[position], position) > rank(trick[best], best):
            best = position
    return best


def winners(trick: list[int], choices: int, trump: int, trumps_from: int) -> int:
    return sum(1 << c for c in cards(choices)
               if winner_position(trick + [c], trump, trumps_from) == len(trick))


def same_camp(s: np.ndarray, seat: int, other: int) -> bool:
    return bool(E.same_camp(s, seat, other))


def reference_play(s: np.ndarray) -> int:
    """The rule-based card or call (module docstring of ``strategy``), from the state's slots."""
    seat = int(s[E.TO_MOVE])
    choices, may_call = E.play_choices(s, seat)
    choices, may_call = int(choices), bool(may_call)
    if len(cards(choices)) + may_call == 1:
        return CALL_TRUMP if may_call else cards(choices)[0]
    trump = int(known_trump(s, seat))
    unseen = int(s[E.DECK]) & ~int(s[E.PLAYED]) & ~int(s[E.HANDS + seat])
    trick, n = trick_of(s), int(s[E.NUM_PLAYERS])
    plain = choices & ~suit_mask(trump) if trump >= 0 else choices
    if not trick:  # lead
        if trump >= 0 and s[E.TRUMP_SHOWN] == 1 and same_camp(s, seat, int(s[E.BIDDER])):
            for card in cards(choices & suit_mask(trump)):
                if unseen & suit_mask(trump) and is_master(unseen, card):
                    return card
        plain = plain or choices
        masters = [c for c in cards(plain) if is_master(unseen, c)]
        if masters:
            return first_by(sum(1 << c for c in masters), lambda c: -CARD_POINTS[c])
        return cheapest(plain & suit_mask(longest_suit(plain)))
    true_winner = winner_position(trick, int(s[E.TRUMP]), int(s[E.TRUMPS_FROM]))
    winner_seat = (int(s[E.TRICK_LEADER]) + true_winner) % n
    points = sum(CARD_POINTS[c] for c in trick)
    if may_call:
        if choices == 0 or (not same_camp(s, winner_seat, seat) and points >= 1):
            if seat != s[E.BIDDER]:
                return CALL_TRUMP
            own = (int(s[E.HANDS + seat]) & suit_mask(trump)) | (1 << int(s[E.INDICATOR]))
            if choices == 0 or winners(trick, own, trump, len(trick)):
                return CALL_TRUMP
        return cheapest(plain or choices)
    if s[E.TRUMP_SHOWN] != 1:
        trump, trumps_from, plain = -1, n, choices
    else:
        trumps_from = int(s[E.TRUMPS_FROM])
    if same_camp(s, winner_seat, seat):
        keep = plain or choices
        if len(trick) == n - 1 or is_master(unseen, trick[true_winner]):
            return richest(keep)
        return cheapest(keep)
    winning = winners(trick, choices, trump, trumps_from)
    if winning:
        if len(trick) == n - 1:
            return weakest(winning)
        for card in cards(winning):
            if is_master(unseen, card):
                return card
        if points >= 2:
            return weakest(winning)
    return cheapest(plain or choices)


def play_phase_states(params: dict, games: int, seed: int):
    """Play-phase states (no cot node) of random games, each move random or by the rules."""
    game = pyspiel.load_game("cardlab_twenty_eight", params)
    rng = np.random.default_rng(seed)
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    for _ in range(games):
        s = game.initial_array.copy()
        while s[E.PHASE] != E.GAME_OVER:
            if s[E.PHASE] == E.PLAYING and s[E.COT_NODE] == 0 and current_player(s) >= 0:
                yield s
            n = E.legal_actions(s, legal)
            if current_player(s) >= 0 and rng.random() < 0.5:
                action = rules_action(s, stream)
            else:
                action = legal[rng.integers(n)]
            E.apply_action(s, action)


@pytest.mark.parametrize("params", VARIANT_SETS, ids=str)
def test_the_card_play_makes_the_reference_choices(params: dict) -> None:
    asked = 0
    stream = np.zeros(1, dtype=np.uint64)
    for s in play_phase_states(params, 40, 18):
        expected = reference_play(s)
        assert play_action(s) == expected
        assert rules_action(s, stream) == expected
        asked += 1
    assert asked > 500


@pytest.mark.parametrize("params", VARIANT_SETS, ids=str)
def test_the_card_play_in_one_call_is_the_moves_in_turn(params: dict) -> None:
    stream = np.zeros(1, dtype=np.uint64)
    for k, s in enumerate(play_phase_states(params, 20, 28)):
        if k % 5:
            continue
        in_turn, at_once = s.copy(), s.copy()
        moves = 0
        while in_turn[E.PHASE] == E.PLAYING and in_turn[E.COT_NODE] == 0:
            E.apply_action(in_turn, rules_action(in_turn, stream))
            moves += 1
        assert play_cards_by_rules(at_once) == moves
        assert np.array_equal(at_once, in_turn)
