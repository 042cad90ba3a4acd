"""Kaiser under random play: invariants, engine/wrapper agreement, resampling, OpenSpiel tools."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import decisions
from numba import njit

from cardlab import agents
from cardlab.arena import play_duplicate_match
from cardlab.core.bitboard import popcount
from cardlab.core.rng import make_stream, random_below
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import KAISER_ENGINE, new_engine_state


@njit(cache=True)
def _random_hand_violations(template, num_hands, seed_stream):
    """Play random hands; count broken invariants (0 expected)."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    returns = np.empty(4)
    violations = 0
    played_hands = 0
    for _ in range(num_hands):
        s = template.copy()
        while s[E.PHASE] != E.GAME_OVER:
            n = legal_actions = E.legal_actions(s, legal)
            if legal_actions == 0:
                violations += 1
                break
            E.apply_action(s, legal[random_below(seed_stream, n)])
        E.returns(s, returns)
        if returns[0] + returns[1] != 0.0 or returns[0] != returns[2] or returns[1] != returns[3]:
            violations += 1
        if s[E.WINNER] == E.DRAWN:
            continue  # thrown in
        played_hands += 1
        seen = np.int64(0)
        for k in range(32):
            card = s[E.TRICK_HISTORY + k]
            if card < 0 or (seen >> card) & 1:
                violations += 1
            seen |= np.int64(1) << card
        if seen != s[E.DECK] or s[E.PLAYED] != s[E.DECK]:
            violations += 1
        if s[E.TRICK_NUMBER] != 8 or s[E.TRICKS_WON] + s[E.TRICKS_WON + 1] != 8:
            violations += 1
        if s[E.HAND_POINTS] + s[E.HAND_POINTS + 1] != 10:
            violations += 1
        played_by = np.zeros(4, dtype=np.int64)
        for k in range(32):
            played_by[(s[E.TRICK_LEADERS + k // 4] + k % 4) % 4] |= np.int64(1) << s[E.TRICK_HISTORY + k]
        for seat in range(4):
            if s[E.HANDS + seat] != 0 or s[E.DEALT + seat] != played_by[seat]:
                violations += 1
    return violations, played_hands


def test_ten_thousand_random_hands_keep_every_invariant():
    template = new_engine_state({})
    violations, played = _random_hand_violations(template, 10_000, make_stream(2024))
    assert violations == 0
    assert played > 9_900


def test_random_matches_end_with_a_winner():
    template = new_engine_state({"match": True})
    violations, _ = _random_hand_violations(template, 200, make_stream(5))
    assert violations == 0


def test_batched_kernel_reports_per_hand_results():
    results = np.zeros((500, 5))
    steps = E.play_random_hands(new_engine_state({}), 500, make_stream(1), results)
    assert steps >= 500 * 37
    played = results[:, 4] >= 0
    assert played.mean() > 0.9  # a hand is thrown in only when it is drawn, rarely
    assert np.all(results[played, 1] + results[played, 2] == 10)



def _random_mid_hand_state(game, rng, min_played):
    def random_move(state: pyspiel.State) -> int:
        legal = state.legal_actions()
        return legal[rng.integers(len(legal))]

    for state in decisions(game.new_initial_state(), rng, random_move):
        if state.array[E.PHASE] == E.PLAYING and popcount(state.array[E.PLAYED]) >= min_played:
            return state
    return None


def test_resample_keeps_the_players_information(kaiser):
    rng = np.random.default_rng(3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    while checked < 10_000:
        state = _random_mid_hand_state(kaiser, rng, int(rng.integers(0, 28)))
        if state is None:
            continue
        player = state.current_player()
        for _ in range(50):
            world = state.resample_from_infostate(player, sampler)
            a, b = state.array, world.array
            assert b[E.HANDS + player] == a[E.HANDS + player]
            public = np.ones(E.STATE_SIZE, dtype=bool)
            public[E.HANDS:E.HANDS + 4] = False
            public[E.DEALT:E.DEALT + 4] = False
            assert np.array_equal(a[public], b[public])
            union_a = union_b = 0
            for seat in range(4):
                assert popcount(b[E.HANDS + seat]) == popcount(a[E.HANDS + seat])
                played = int(a[E.DEALT + seat]) & ~int(a[E.HANDS + seat])
                assert b[E.DEALT + seat] == int(b[E.HANDS + seat]) | played
                union_a |= int(a[E.HANDS + seat])
                union_b |= int(b[E.HANDS + seat])
                for suit in range(4):
                    if (b[E.VOIDS + seat] >> suit) & 1:
                        assert b[E.HANDS + seat] & int(0x1FFF << (13 * suit)) == 0
            assert union_a == union_b
            assert len(world.history()) == len(state.history())
            assert world.history()[32:] == state.history()[32:]  # every decision public
            assert world.information_state_string(player) == state.information_state_string(player)
            checked += 1


def test_resample_is_uniform_over_the_consistent_deals(kaiser):
    # Late in a hand few deals remain; every one of them must come up about equally often.
    rng = np.random.default_rng(8)
    state = None
    while state is None:
        state = _random_mid_hand_state(kaiser, rng, 24)
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    counts: dict[tuple, int] = {}
    for _ in range(4000):
        world = state.resample_from_infostate(player, sampler)
        key = tuple(int(world.array[E.HANDS + seat]) for seat in range(4))
        counts[key] = counts.get(key, 0) + 1
    expected = 4000 / len(counts)
    assert len(counts) >= 2
    assert max(counts.values()) < 1.6 * expected + 30
    assert min(counts.values()) > 0.5 * expected - 30


def test_openspiel_random_sim_test(kaiser):
    pyspiel.random_sim_test(kaiser, num_sims=12, serialize=True, verbose=False)
    # A short match: three hands at most (each step of the check replays the history).
    match = pyspiel.load_game("cardlab_kaiser", {"match": True, "max_hands": 3})
    pyspiel.random_sim_test(match, num_sims=2, serialize=True, verbose=False)


def test_tensors_have_the_declared_shapes(kaiser):
    rng = np.random.default_rng(1)
    state = _random_mid_hand_state(kaiser, rng, 10)
    info = np.array(state.information_state_tensor(0))
    observation = np.array(state.observation_tensor(0))
    assert info.shape == tuple(kaiser.information_state_tensor_shape())
    assert observation.shape == tuple(kaiser.observation_tensor_shape())
    assert info[:52].sum() == popcount(state.array[E.HANDS])  # own hand plane



def test_illegal_actions_raise_value_error_and_leave_the_state_unchanged(kaiser):
    state = kaiser.new_initial_state()
    before = state.array.copy()
    with pytest.raises(ValueError, match=r"illegal action 52 \(pass\) for chance"):
        state.apply_action(52)
    assert np.array_equal(state.array, before)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before = state.array.copy()
    with pytest.raises(ValueError, match=r"illegal action 0 \(2C\) for player 1; legal actions: "
                                         r"\[52 \(pass\)"):
        state.apply_action(0)
    with pytest.raises(ValueError, match="no action with id 500|illegal action 500"):
        state.apply_action(500)
    assert np.array_equal(state.array, before) and len(state.history()) == 32


@pytest.mark.parametrize(
    "params,message",
    [
        ({"min_bid": 8}, "min_bid"),
        ({"dealer": 4}, "dealer"),
        ({"target": 0}, "target"),
        ({"match": 3}, "match"),
    ],
)
def test_bad_parameters_are_rejected_at_load_game(params, message):
    with pytest.raises((ValueError, pyspiel.SpielError), match=message):
        pyspiel.load_game("cardlab_kaiser", params)



def test_engine_api_checks_its_input():
    state = new_engine_state({})
    with pytest.raises(TypeError, match="int64 array"):
        KAISER_ENGINE.legal(state.astype(np.int32))
    with pytest.raises(ValueError, match="seat must be 0..3"):
        KAISER_ENGINE.check_seat(4)
    with pytest.raises(ValueError, match="illegal action 60"):
        KAISER_ENGINE.apply(state, 60)  # a bid during the deal: wrong phase
    with pytest.raises(ValueError, match="illegal action"):
        KAISER_ENGINE.apply(state, -3)


def test_rules_player_beats_random_by_a_wide_margin(kaiser):
    def rules(game, seat, seed):
        return agents.make("rules", game, seat, seed)

    def random(game, seat, seed):
        return agents.make("random", game, seat, seed)

    result = play_duplicate_match(kaiser, rules, random, deals=100, seed=3)
    low, _ = result.confidence_interval()
    assert result.mean > 20 and low > 10
