"""Bidding by MCCFR: buckets, leaf values, training, policy files, the cfr-bidding agent, workers."""

from __future__ import annotations

import sys
import types

import numpy as np
import pyspiel
import pytest

from cardlab import agents
from cardlab.cfr.bidding import BiddingSolver, start_method
from cardlab.cfr.bidding_game import auction_start, draw_deal, information_key, leaf_value, playout_value
from cardlab.cfr.policy import load_policy, save_policy
from cardlab.cfr.train import train_bidding
from cardlab.cli import main
from cardlab.core.cards import parse_card
from cardlab.core.rng import derive_seed, make_stream
from cardlab.games import kernels
from cardlab.games.bidding_features import NUM_BUCKETS, contract_slot, in_auction
from cardlab.games.kaiser.bidding_features import hand_bucket as kaiser_bucket
from cardlab.games.twenty_eight.bidding_features import hand_bucket as twenty_eight_bucket
from tests.conftest import act, deal, decisions


def hand(text: str) -> int:
    mask = 0
    for card in text.split():
        mask |= 1 << parse_card(card)
    return mask


@pytest.fixture(scope="module")
def kaiser():
    return pyspiel.load_game("cardlab_kaiser")


@pytest.fixture(scope="module")
def twenty_eight():
    return pyspiel.load_game("cardlab_twenty_eight")


# ---- buckets ----------------------------------------------------------------------------

def test_kaiser_buckets_of_hand_built_hands(kaiser):
    standard = kaiser.new_initial_state().array
    # No honour; spades (8S 9S 3S) the best trump: 0.6 for length, 0.3 for the heart
    # singleton, -1 for the 3S: strength below 0; no trump loses 0.9 (< 1.5).
    weak = hand("7C 8C 7D 8D 9H 8S 3S 9S")
    assert kaiser_bucket(standard, weak, False) == ((0 * 2 + 0) * 2 + 0) * 2 + 1
    assert kaiser_bucket(standard, weak, True) == ((0 * 3 + 0) * 2 + 0) * 2 + 1
    # Four aces, hearts to the 5H: 10 points with hearts trump, 6.8 at no trump.
    strong = hand("AC AD AH KH QH JH 5H AS")
    assert kaiser_bucket(standard, strong, False) == ((8 * 2 + 1) * 2 + 1) * 2 + 0
    assert kaiser_bucket(standard, strong, True) == ((17 * 3 + 2) * 2 + 1) * 2 + 0
    for fine in (False, True):
        weak_bucket = kaiser_bucket(standard, weak, fine)
        strong_bucket = kaiser_bucket(standard, strong, fine)
        assert 0 <= weak_bucket < strong_bucket < NUM_BUCKETS[0, int(fine)]


def test_twenty_eight_buckets_of_hand_built_hands():
    # J 9 A of clubs and a low diamond: 6 points, clubs three long, one jack, J and 9 together.
    rich = hand("JC 9C AC 7D")
    assert twenty_eight_bucket(rich, False) == (3 * 3 + 1) * 3 + 1
    assert twenty_eight_bucket(rich, True) == ((6 * 4 + 2) * 3 + 1) * 2 + 1
    assert twenty_eight_bucket(hand("KC QD 8H 7S"), False) == 0
    assert twenty_eight_bucket(hand("KC QD 8H 7S"), True) == 0
    # Two jacks in different suits, no nine: the J-9 flag stays off.
    assert twenty_eight_bucket(hand("JC JD KH QS"), True) == ((6 * 4 + 0) * 3 + 2) * 2 + 0


def test_keys_tell_position_auction_and_redeal_right_apart(twenty_eight):
    pointless = {1: "KC QD 8H 7S", 2: "JC 9C AC 7D", 3: "JD 9D AD TD", 0: "JH 9H AH TH"}
    state = deal(twenty_eight.new_initial_state(), pointless)
    game = kernels.TWENTY_EIGHT
    opener = int(information_key(game, state.array, False))
    assert state.legal_actions().count(54) == 1  # the opener may ask for a redeal
    other = deal(twenty_eight.new_initial_state(), {**pointless, 1: "KC QD 8H AS"})
    assert int(information_key(game, other.array, False)) != opener  # one point: no redeal
    assert twenty_eight_bucket(hand("KC QD 8H AS"), False) == twenty_eight_bucket(
        hand("KC QD 8H 7S"), False)
    act(state, "bid 14")
    after = int(information_key(game, state.array, False))
    assert after != opener and in_auction(game, state.array)


# ---- leaf values ----------------------------------------------------------------------------

def _auction_end(game_id, initial, cards, actions):
    s = auction_start(game_id, initial, cards)
    for action in actions:
        kernels.apply_action(game_id, s, action)
    assert not in_auction(game_id, s)
    return s


def test_leaf_values_are_deterministic_and_share_the_deal_across_contracts(kaiser):
    game_id, initial = kernels.KAISER, kaiser.initial_array
    first = draw_deal(initial, make_stream(5))
    np.testing.assert_array_equal(first, draw_deal(initial, make_stream(5)))
    # Seat 2 bids 7 after seat 1 passed, or after seat 1 bid 6: two auctions, one contract
    # (seat 2, 7 with trumps), played on the same deal.
    seven = 60 + 3 * 7
    a = _auction_end(game_id, initial, first, [52, seven, 52, 52])
    b = _auction_end(game_id, initial, first, [60 + 3 * 6, seven, 52, 52])
    assert contract_slot(game_id, a) == contract_slot(game_id, b)
    cache = np.full(4 * 41, np.nan)
    value = leaf_value(game_id, a, first, cache)
    assert cache[contract_slot(game_id, a)] == value == playout_value(game_id, b, first)
    cache[contract_slot(game_id, a)] = 123.0  # a cached contract is not played again
    assert leaf_value(game_id, b, first, cache) == 123.0
    # The playout is the rule-based players' hand through the OpenSpiel game.
    state = kaiser.new_initial_state()
    for action in list(first) + [52, seven, 52, 52]:
        state.apply_action(int(action))
    bots = [agents.make("rules", kaiser, seat) for seat in range(4)]
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    assert state.returns()[0] == value


def test_twenty_eight_leaf_plays_the_second_stage_from_the_deal(twenty_eight):
    game_id, initial = kernels.TWENTY_EIGHT, twenty_eight.initial_array
    cards = draw_deal(initial, make_stream(11))
    s = _auction_end(game_id, initial, cards, [60 + 16, 52, 52, 52])
    value = playout_value(game_id, s, cards)
    state = twenty_eight.new_initial_state()
    for action in list(cards[:16]) + [60 + 16, 52, 52, 52]:
        state.apply_action(int(action))
    bots = [agents.make("rules", twenty_eight, seat) for seat in range(4)]
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(cards[state.array[4]]))  # the deal's next card (CARDS_DEALT)
        else:
            state.apply_action(bots[state.current_player()].step(state))
    assert state.returns()[0] == value


# ---- training ---------------------------------------------------------------------------------

def _average_regret(solver: BiddingSolver) -> float:
    regrets = solver.table[3]
    return float(np.maximum(regrets, 0).max(axis=1)[solver.table[0] != 0].mean()) / solver.iteration


def test_training_drives_the_average_regret_down(twenty_eight):
    solver = BiddingSolver(twenty_eight, "coarse", seed=3)
    solver.run(100)
    early = _average_regret(solver)
    solver.run(1900)
    assert _average_regret(solver) < 0.5 * early


def _regrets_by_key(solver: BiddingSolver) -> dict[int, np.ndarray]:
    keys, counts, _, regrets = solver.table[:4]
    return {int(keys[h]): regrets[h, :counts[h]] for h in np.flatnonzero(keys)}


def test_workers_are_forked_unless_jax_is_loaded(monkeypatch):
    monkeypatch.delitem(sys.modules, "jax", raising=False)
    assert start_method() == "fork"  # after compiling: the children need not load anything
    monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    assert start_method() == "spawn"  # forking JAX's threads can deadlock the children


def test_runs_are_deterministic_and_workers_merge_as_documented(kaiser):
    reference = BiddingSolver(kaiser, "coarse", seed=9, workers=2, merge_every=30)
    reference.run(120)  # the reference: the workers one after another in this process
    parallel = BiddingSolver(kaiser, "coarse", seed=9, workers=2, merge_every=30)
    pool = parallel.make_pool()
    try:
        parallel.run(120, pool)  # two processes
    finally:
        pool.close()
        pool.join()
    for a, b in zip(reference.table, parallel.table, strict=True):
        np.testing.assert_array_equal(a, b)
    assert reference.iteration == parallel.iteration == 120
    # One round from the empty table: each set's regrets are the sum of what each worker
    # learned alone, worker w on stream derive_seed(seed, 1 + w), its iterations numbered
    # from w * merge_every.
    merged = BiddingSolver(kaiser, "coarse", seed=9, workers=2, merge_every=30)
    merged.run(60)
    alone = []
    for w in range(2):
        solo = BiddingSolver(kaiser, "coarse", seed=9)
        solo.streams[0] = make_stream(int(derive_seed(9, 1 + w)))
        solo.iteration = 30 * w
        solo.run(30)
        alone.append(_regrets_by_key(solo))
    total = _regrets_by_key(merged)
    assert set(total) == set(alone[0]) | set(alone[1])
    for key, regrets in total.items():
        expected = (alone[0].get(key, 0.0) + alone[1].get(key, 0.0)) + 0.0
        np.testing.assert_array_equal(regrets, expected)
    with pytest.raises(ValueError, match="multiple of workers"):
        merged.run(61)


def test_save_load_and_resume_bit_for_bit(kaiser, tmp_path):
    whole, split = tmp_path / "whole.npz", tmp_path / "split.npz"
    train_bidding(kaiser, whole, 60, seed=4, checkpoints=2, progress=False)
    train_bidding(kaiser, split, 20, seed=4, checkpoints=1, progress=False)
    train_bidding(kaiser, split, 60, seed=4, checkpoints=2, resume=True, progress=False)
    a, b = load_policy(whole, kaiser), load_policy(split, kaiser)
    assert a.names == b.names and a.metadata["iterations"] == b.metadata["iterations"] == 60
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    for name in a.solver_state:
        np.testing.assert_array_equal(a.solver_state[name], b.solver_state[name])
    again = load_policy(save_policy(a, tmp_path / "copy.npz"), kaiser)
    np.testing.assert_array_equal(again.probabilities, a.probabilities)
    assert again.names == a.names and again.metadata["abstraction"] == "bidding"
    with pytest.raises(ValueError, match="used granularity 'coarse', not 'fine'"):
        train_bidding(kaiser, split, 80, "fine", seed=4, resume=True, progress=False)


def test_mismatched_or_foreign_policies_are_refused(kaiser, tmp_path):
    path = tmp_path / "k.npz"
    train_bidding(kaiser, path, 10, seed=1, checkpoints=1, progress=False)
    other = pyspiel.load_game("cardlab_kaiser", {"min_bid": 7})
    with pytest.raises(ValueError, match="trained on cardlab_kaiser with min_bid=6, not with min_bid=7"):
        agents.make("cfr-bidding", other, 0, policy=str(path))
    with pytest.raises(ValueError, match="cfr-bidding agent plays it"):
        agents.make("cfr", kaiser, 0, policy=str(path))
    table = load_policy(path, kaiser)
    plain = type(table)(table.names, table.offsets, table.actions, table.probabilities,
                        {k: v for k, v in table.metadata.items() if k != "abstraction"})
    with pytest.raises(ValueError, match="not a bidding policy"):
        agents.make("cfr-bidding", kaiser, 0, policy=str(save_policy(plain, tmp_path / "p.npz")))
    assert agents.make("cfr-bidding", kaiser, 0).table.metadata["game"] == "cardlab_kaiser"  # the shipped one


@pytest.mark.parametrize("name, params", [("cardlab_kaiser", {"match": True}),
                                          ("cardlab_kaiser", {"kitty_34_card": True}),
                                          ("cardlab_twenty_eight", {"cot": True}),
                                          ("cardlab_literature", {})])
def test_unmodelled_games_and_variants_are_refused(name, params, tmp_path):
    game = pyspiel.load_game(name, params)
    with pytest.raises(ValueError, match="not modelled|no modelled auction"):
        BiddingSolver(game)
    with pytest.raises(ValueError, match="not modelled|no modelled auction"):
        agents.make("cfr-bidding", game, 0, policy=str(tmp_path / "none.npz"))


@pytest.mark.parametrize("name, params", [
    ("cardlab_kaiser", {}), ("cardlab_kaiser", {"min_bid": 5}), ("cardlab_kaiser", {"min_bid": 7}),
    ("cardlab_kaiser", {"low_no_trump": True}), ("cardlab_kaiser", {"dealer": 2}),
    ("cardlab_twenty_eight", {}), ("cardlab_twenty_eight", {"dealer": 3}),
])
def test_the_agent_bids_legally_under_every_parameter_it_models(name, params, tmp_path):
    game = pyspiel.load_game(name, params)
    path = tmp_path / "policy.npz"
    train_bidding(game, path, 200, seed=2, checkpoints=1, progress=False)
    bots = [agents.make("cfr-bidding", game, seat, seat, policy=str(path)) for seat in range(4)]
    rng = np.random.default_rng(0)
    met = 0

    def bid_or_play(state: pyspiel.State) -> int:
        nonlocal met
        policy, action = bots[state.current_player()].step_with_policy(state)
        assert action in state.legal_actions()
        met += len(policy) > 1
        return action

    for _ in range(6):
        state = game.new_initial_state()
        for _ in decisions(state, rng, bid_or_play):
            pass
        assert abs(sum(state.returns())) < 1e-9
    assert met > 0  # the policy, not only the rule-based fallback, chose bids


def test_cli_trains_a_bidding_policy(tmp_path, capsys):
    out = tmp_path / "k.npz"
    main(["train", "--game", "kaiser", "--solver", "bidding", "--iterations", "20",
          "--out", str(out), "--quiet", "--checkpoints", "1"])
    assert "bidding MCCFR (coarse) on cardlab_kaiser, 20 iterations" in capsys.readouterr().out
    assert load_policy(out).metadata["granularity"] == "coarse"


def test_the_compiled_arena_plays_cfr_bidding_as_the_python_bot_does(kaiser, tmp_path):
    from cardlab.arena import native
    from cardlab.arena.entrants import AgentSpec, is_native, native_tables
    from cardlab.arena.tournament import _play_python

    path = tmp_path / "policy.npz"
    train_bidding(kaiser, path, 200, seed=2, checkpoints=1, progress=False)
    specs = [AgentSpec("cfr", "cfr-bidding", {"policy": str(path)}), AgentSpec("rules", "rules")]
    assert is_native(specs[0], kaiser)
    assert not is_native(AgentSpec("x", "cfr-bidding", {"policy": str(path), "play": "ismcts"}), kaiser)
    kinds, options, policies = native_tables(specs, kaiser)
    assert kinds.tolist() == [native.CFR_BIDDING, native.RULES] and policies[0].shape[0] == 2
    seatings = np.array([[0, 1, 0, 1], [1, 0, 1, 0]])
    seeds = native.deal_seeds(3, 0, 8)
    status, actions, offsets, returns, *_ = native.play_games(
        kernels.KAISER, kaiser.new_initial_state().array.copy(), seeds, seatings, kinds, options, policies)
    assert status[0] == native.OK

    class Context:  # what _play_python reads: the registry bots, seeded as the compiled loop seeds
        game = kaiser
        factories = [lambda g, p, s: agents.make("cfr-bidding", g, p, s, policy=str(path)),
                     lambda g, p, s: agents.make("rules", g, p, s)]

    Context.seatings = seatings
    py_actions, py_offsets, py_returns, *_ = _play_python(Context, seeds)
    np.testing.assert_array_equal(py_offsets, offsets)
    np.testing.assert_array_equal(py_actions, actions)
    np.testing.assert_allclose(py_returns, returns)
    kinds, _, shipped = native_tables([AgentSpec("cfr", "cfr-bidding", {})], kaiser)  # the shipped policy
    assert kinds[0] == native.CFR_BIDDING and shipped[0].any()
