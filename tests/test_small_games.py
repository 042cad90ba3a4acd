"""Small games (docs/rules/kaiser.md#small-games): the research parameters, their rules, their exact solution.

The parameter checks and hand-built scenarios run by default; the trees of
whole small games are slow (compiling the engine walk, or walking the wrapped
game in Python) and run under ``-m slow``.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, deal
from open_spiel.python.algorithms import exploitability

from cardlab import agents
from cardlab.cfr.engine_tree import build_from_engine
from cardlab.cfr.evaluation import nash_conv
from cardlab.cfr.policy import to_tabular_policy
from cardlab.cfr.pyspiel_tree import build_from_pyspiel
from cardlab.cfr.solvers import TabularSolver
from cardlab.core.cards import cards_string
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import engine_parameters
from cardlab.games.kaiser.rules import HAND_SIZE, MAX_BID, STANDARD_DECK, bid_action, small_game_bids
from experiments.small_games import count_nodes


def load(**params) -> pyspiel.Game:
    return pyspiel.load_game("cardlab_kaiser", params)


def bids_of(state: pyspiel.State) -> list[str]:
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


def test_standard_game_is_unchanged():
    game = load()
    state = game.new_initial_state()
    assert state.array[E.DECK] == STANDARD_DECK
    assert state.array[E.HAND_CARDS] == HAND_SIZE and state.array[E.TOP_BID] == MAX_BID
    assert len(state.chance_outcomes()) == 32
    hands = {seat: "" for seat in range(4)}
    cards = cards_string(STANDARD_DECK).split()
    for k, card in enumerate(cards):
        hands[(1 + k) % 4] += " " + card
    state = deal(state, {seat: text.strip() for seat, text in hands.items()})
    assert state.current_player() == 1
    bids = [a for a in state.legal_actions() if a >= 60]
    assert bids == [bid_action(v, k) for v in range(6, 13) for k in (0, 1)]
    # The defaults fill the new slots with the standard values: the same game as before them.
    assert np.array_equal(engine_parameters({}), engine_parameters({"hand_size": 8, "max_bid": 12}))


@pytest.mark.parametrize("hand_size, deck, bids", [
    (1, "5H AH 3S AS", (2, 3)),
    (2, "KC AC KD AD 5H AH 3S AS", (3, 6)),
    (3, "QC KC AC QD KD AD 5H KH AH 3S KS AS", (3, 7)),
    (8, cards_string(STANDARD_DECK), (6, 12)),
])
def test_small_packs_keep_the_point_cards_and_scale_the_bids(hand_size, deck, bids):
    assert cards_string(int(load(hand_size=hand_size).new_initial_state().array[E.DECK])) == deck
    assert small_game_bids(hand_size) == bids


def test_one_card_game_bids_names_trump_and_scores_one_trick():
    game = load(hand_size=1)
    state = deal(game.new_initial_state(), {0: "AH", 1: "5H", 2: "3S", 3: "AS"})
    assert bids_of(state) == ["pass", "bid 2", "bid 2NT", "bid 3", "bid 3NT"]
    act(state, "pass", "bid 2")  # P1 passes, P2 bids 2
    act(state, "bid 2NT")  # P3
    assert bids_of(state) == ["pass", "bid 2NT", "bid 3", "bid 3NT"]  # the dealer may equal
    act(state, "bid 3")
    # Only the pack's suits may be named trump.
    assert bids_of(state) == ["trump H", "trump S"]
    act(state, "trump S")
    # P0 leads the AH; the 5H must follow; P2's 3S trumps it, and P3's AS overtrumps.
    assert bids_of(state) == ["AH"]
    act(state, "AH", "5H", "3S", "AS")
    assert state.is_terminal()
    # P3 takes the one trick: 1 + 5 - 3 = 3 points to team 1; P0's 3 failed: -3.
    assert state.returns() == [-6.0, 6.0, -6.0, 6.0]


def test_two_card_game_plays_two_tricks_with_a_short_ladder():
    game = load(hand_size=2, max_bid=4)
    state = deal(game.new_initial_state(), {0: "AC KC", 1: "AD KD", 2: "5H AH", 3: "3S AS"})
    assert bids_of(state) == ["pass", "bid 3", "bid 3NT", "bid 4", "bid 4NT"]
    act(state, "bid 4", "pass", "pass", "pass", "trump D")
    # P1 declares 4 with diamonds trumps and takes both tricks: 2 tricks + 5H - 3S = 4.
    act(state, "AD", "AH", "AS", "AC", "KD", "5H", "3S", "KC")
    assert state.is_terminal()
    assert state.returns() == [-4.0, 4.0, -4.0, 4.0]


def test_dealer_must_bid_the_lowest_when_everyone_passes():
    state = deal(load(hand_size=1, min_bid=3).new_initial_state(), {0: "AH", 1: "5H", 2: "3S", 3: "AS"})
    act(state, "pass", "pass", "pass")
    assert bids_of(state) == ["bid 3", "bid 3NT"]


@pytest.mark.parametrize("hand_size", [1, 2, 3])
def test_random_and_rule_based_small_games_deal_and_score_every_point(hand_size):
    game = load(hand_size=hand_size)
    rng = np.random.default_rng(hand_size)
    players = [agents.make("rules", game, seat, seed=7) for seat in range(4)]
    for k in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = [a for a, _ in state.chance_outcomes()]
                state.apply_action(int(rng.choice(outcomes)))
            elif k % 2:  # the rule-based player on odd hands, random play on even ones
                state.apply_action(players[state.current_player()].step(state))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        s = state.array
        assert s[E.TRICK_NUMBER] == hand_size
        assert s[E.HAND_POINTS] + s[E.HAND_POINTS + 1] == hand_size + 2
        assert sum(state.returns()) == 0.0


@pytest.mark.parametrize("params, message", [
    ({"hand_size": 0}, "'hand_size' must be in 1..8"),
    ({"hand_size": 9}, "'hand_size' must be in 1..8"),
    ({"min_bid": 3}, r"'min_bid' must be one of \(5, 6, 7\)"),
    ({"max_bid": 10}, "needs hand_size < 8"),
    ({"hand_size": 2, "max_bid": 7}, "max_bid <= 6"),
    ({"hand_size": 1, "min_bid": 3, "max_bid": 2}, "min_bid <= max_bid"),
    ({"hand_size": 2, "players": 3}, r"\['players'\] cannot be set"),
    ({"hand_size": 2, "kitty_34_card": True}, r"\['kitty_34_card'\] cannot be set"),
    ({"hand_size": 2, "les_rois": True}, r"\['les_rois'\] cannot be set"),
])
def test_bad_small_game_parameters_are_refused(params, message):
    with pytest.raises(ValueError, match=message):
        load(**params)


# ---- Whole small games solved (slow: compiling the engine walk, walking the wrapped game) -----
SMALLEST = {"hand_size": 1, "min_bid": 3}


@pytest.fixture(scope="module")
def smallest():
    game = load(**SMALLEST)
    return game, build_from_engine(game), build_from_pyspiel(game)


@pytest.mark.slow
def test_the_two_builders_give_the_same_small_game_tree(smallest):
    _, engine_tree, pyspiel_tree = smallest
    assert engine_tree.summary() == {"nodes": 4289, "terminals": 720, "infosets": 2028,
                                     "infoset_actions": 2144}
    for field in engine_tree.arrays._fields:
        np.testing.assert_array_equal(getattr(engine_tree.arrays, field),
                                      getattr(pyspiel_tree.arrays, field), err_msg=field)


@pytest.mark.slow
def test_cfr_plus_solves_the_smallest_game_and_nash_conv_equals_openspiel(smallest):
    game, tree, pyspiel_tree = smallest
    solver = TabularSolver(tree, "cfr+")
    solver.run(10)
    policy = solver.average_policy()
    theirs = exploitability.nash_conv(game, to_tabular_policy(game, pyspiel_tree, policy))
    assert nash_conv(tree, policy) == pytest.approx(theirs, abs=1e-6)
    solver.run(990)
    assert nash_conv(tree, solver.average_policy()) < 1e-3


@pytest.mark.slow
def test_vanilla_cfr_reproduces_openspiel_on_the_smallest_game(smallest):
    game, _, tree = smallest
    ours, theirs = TabularSolver(tree, "cfr"), pyspiel.CFRSolver(game)
    for _ in range(3):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        expected = pyspiel.nash_conv(game, theirs.average_policy())
        assert nash_conv(tree, ours.average_policy()) == pytest.approx(expected, abs=1e-9)


@pytest.mark.slow
def test_counting_deal_by_deal_gives_the_size_of_the_built_tree(smallest):
    assert count_nodes("kaiser", SMALLEST)["nodes"] == smallest[1].num_nodes
