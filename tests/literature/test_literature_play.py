"""Literature: invariants of random play, engine-wrapper agreement and OpenSpiel's own checks."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from numba import njit

from cardlab.core.bitboard import popcount
from cardlab.core.rng import make_stream, random_below
from cardlab.games.literature import engine as E
from cardlab.games.literature.rules import HALF_SUIT_MASKS, NUM_HALF_SUITS, UNRESOLVED, VOID


@njit(cache=True)
def _invariant_violations(template, num_games, stream):
    """Count broken invariants over random games: cards conserved (every live card held by
    exactly one seat, claimed cards by none), each half-suit resolved once, zero-sum returns."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    out = np.empty(16, dtype=np.float64)
    layout = template[E.LAYOUT]
    num_half_suits = NUM_HALF_SUITS[layout]
    violations = 0
    for _ in range(num_games):
        s = E.random_deal(template, stream)
        resolved_before = np.zeros(9, dtype=np.int64)
        while s[E.PHASE] != E.GAME_OVER:
            n = E.legal_actions(s, legal)
            E.apply_action(s, legal[random_below(stream, n)])
            held = np.int64(0)
            total = 0
            for seat in range(s[E.NUM_PLAYERS]):
                held |= s[E.HANDS + seat]
                total += popcount(s[E.HANDS + seat])
            live = np.int64(0)
            for h in range(num_half_suits):
                if s[E.STATUS + h] == UNRESOLVED:
                    live |= HALF_SUIT_MASKS[layout, h]
                elif resolved_before[h] == 0:
                    resolved_before[h] = 1
                    if s[E.STATUS + h] not in (0, 1, VOID):
                        violations += 1
            if s[E.PHASE] != E.GAME_OVER and (held != live or total != popcount(live)):
                violations += 1
        for h in range(num_half_suits):
            if s[E.STATUS + h] == UNRESOLVED:
                violations += 1
        E.returns(s, out)
        total_return = 0.0
        for seat in range(s[E.NUM_PLAYERS]):
            total_return += out[seat]
            if out[seat] != out[seat & 1]:
                violations += 1
        if total_return != 0.0:
            violations += 1
    return violations


@pytest.mark.parametrize("params", [
    {}, {"players": 8}, {"players": 4}, {"players": 12}, {"players": 16},
    {"jokers_ninth_set": True, "major_sets_worth_two": True},
    {"sevens_removed": True, "misclaim_to_opponents": True, "first_ask_left_of_dealer": True},
    {"max_asks": 20, "dealer": 3},
])
def test_random_play_invariants(params: dict) -> None:
    game = pyspiel.load_game("cardlab_literature", params)
    assert _invariant_violations(game.initial_array, 300, make_stream(11)) == 0


def test_batched_random_games_score_every_half_suit_once() -> None:
    game = pyspiel.load_game("cardlab_literature")
    results = np.zeros((500, 4), dtype=np.int64)
    steps = E.play_random_games(game.initial_array, 500, make_stream(3), results)
    assert steps > 500 * 48
    assert np.all(results[:, 0] + results[:, 1] + results[:, 3] == 8)  # scored or void




@njit(cache=True)
def _listed_random_games(template, num_games, stream, results):
    """``play_random_games`` as it was written first: the legal list, then ``apply_action``."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    draws_unlike_the_list = 0
    for i in range(num_games):
        s = template.copy()
        while s[E.PHASE] != E.GAME_OVER:
            twin = stream.copy()
            drawn = E.random_action(s, twin)
            n = E.legal_actions(s, legal)
            action = legal[random_below(stream, n)]
            draws_unlike_the_list += drawn != action or twin[0] != stream[0]
            E.apply_action(s, action)
        results[i, 0] = s[E.SCORES]
        results[i, 1] = s[E.SCORES + 1]
        results[i, 2] = s[E.ASKS]
        results[i, 3] = 0
        for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
            results[i, 3] += s[E.STATUS + h] == VOID
    return draws_unlike_the_list


@pytest.mark.parametrize("params", [
    {}, {"players": 8, "eights_in_play": True},
    {"forced_claims": True, "challenge": True, "claim_any_time": True, "players": 8,
     "opponent_picks_next_player": True},
    {"players": 4, "claim_any_time": True, "ask_own_card_surrender": True},
    {"opponent_picks_next_player": True, "bluff_own_card": True, "players": 4},
])
def test_batched_random_games_are_those_of_the_legal_list(params: dict) -> None:
    """Drawing without the list and keeping no log or knowledge changes no game."""
    game = pyspiel.load_game("cardlab_literature", params)
    listed, batched = np.zeros((200, 4), dtype=np.int64), np.zeros((200, 4), dtype=np.int64)
    assert _listed_random_games(game.initial_array, 200, make_stream(5), listed) == 0
    E.play_random_games(game.initial_array, 200, make_stream(5), batched)
    assert np.array_equal(listed, batched)


def test_openspiel_random_sim_with_serialization() -> None:
    for params in ({}, {"players": 8}):
        game = pyspiel.load_game("cardlab_literature", params)
        pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_clone_and_serialize_keep_the_array() -> None:
    game = pyspiel.load_game("cardlab_literature")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.legal_actions()[0])
    copy = game.deserialize_state(state.serialize())
    assert np.array_equal(copy.array, state.array) and copy.history() == state.history()
    clone = state.clone()
    assert np.array_equal(clone.array, state.array) and str(clone) == str(state)


def test_an_events_text_lists_the_half_suit_of_the_states_deck() -> None:
    """Event texts are decoded once per (layout, event): the same claim word read in a game without
    the sevens lists that deck's cards of the half-suit, not the standard deck's."""
    from cardlab.core.bitboard import cards_in
    from cardlab.core.cards import card_string
    from cardlab.games.literature.game import event_string

    state = pyspiel.load_game("cardlab_literature").new_initial_state()
    rng = np.random.default_rng(3)
    claims: list[int] = []
    while not claims:
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        s = state.array
        claims = [int(e) for e in s[E.LOG:E.LOG + s[E.LOG_LENGTH]] if E.event_kind(e) == E.EVENT_CLAIM]
        if state.is_terminal():
            state = pyspiel.load_game("cardlab_literature").new_initial_state()
    claim = claims[0]
    half_suit = int(E.event_half_suit(claim))
    without_sevens_game = pyspiel.load_game("cardlab_literature", {"sevens_removed": True})
    without_sevens = without_sevens_game.new_initial_state().array
    for s in (state.array, without_sevens):
        expected = [card_string(c) for c in cards_in(int(HALF_SUIT_MASKS[s[E.LAYOUT], half_suit]))]
        named = event_string(s, claim).split("[")[1].split("]")[0].split()
        assert [entry.split(":")[0] for entry in named] == expected
    assert HALF_SUIT_MASKS[state.array[E.LAYOUT], half_suit] != HALF_SUIT_MASKS[without_sevens[E.LAYOUT],
                                                                                   half_suit]
