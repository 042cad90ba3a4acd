"""The compiled duplicate loop against the Python loop, and duplicate scoring by hand."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyspiel
import pytest

import cardlab  # noqa: F401
from cardlab import agents
from cardlab.analysis.scores import duplicate_table
from cardlab.arena import native, play_deal
from cardlab.arena.entrants import NativeAgentBot, labelled, parse_agent_list
from cardlab.arena.tournament import TournamentSettings, _Context, _play_python, play_chunk
from cardlab.games import game_spec, kernels

SEATINGS = np.array([[0, 1, 0, 1], [1, 0, 1, 0]], dtype=np.int64)


@pytest.fixture(scope="module")
def game() -> pyspiel.Game:
    return pyspiel.load_game("cardlab_kaiser")


def _native_games(game, kinds, seeds):
    return native.play_games(
        kernels.KAISER, game.new_initial_state().array.copy(), seeds, SEATINGS,
        np.array(kinds, dtype=np.int64), native.empty_options(len(kinds)), native.empty_policies(len(kinds)),
    )


def test_numba_loop_plays_the_same_games_as_pyspiel_with_registry_rules_bots(game):
    seeds = native.deal_seeds(11, 0, 6)
    status, actions, offsets, returns, _, decisions, _ = _native_games(game, [native.RULES] * 2, seeds)
    assert status[0] == native.OK
    for g in range(len(seeds) * 2):
        deal_seed = seeds[g // 2]
        bots = [agents.make("rules", game, seat, int(native.agent_seed(deal_seed, g % 2, seat, 4)))
                for seat in range(4)]
        moves = [0] * 4
        state, python_returns = play_deal(game, bots, int(deal_seed), decisions=moves)
        assert state.history() == actions[offsets[g]:offsets[g + 1]].tolist()
        assert python_returns == returns[g].tolist()
        assert moves == decisions[g].tolist()


def test_numba_loop_and_python_loop_agree_with_random_agents(game):
    """Random agents draw from their own seeded streams: the same on both loops."""
    seeds = native.deal_seeds(3, 0, 5)
    kinds = [native.RANDOM, native.RULES]
    status, actions, offsets, returns, _, _, finals = _native_games(game, kinds, seeds)
    assert status[0] == native.OK
    factories = [
        lambda g, p, s: NativeAgentBot(g, p, s, native.RANDOM, native.empty_options(1)[0]),
        lambda g, p, s: agents.make("rules", g, p, s),
    ]
    py_actions, py_offsets, py_returns, _, _, py_finals = _play_python(
        _Context(game, SEATINGS, False, factories=factories), seeds
    )
    np.testing.assert_array_equal(actions, py_actions)
    np.testing.assert_array_equal(offsets, py_offsets)
    np.testing.assert_array_equal(returns, py_returns)
    np.testing.assert_array_equal(finals, py_finals)


def test_both_seatings_of_a_deal_get_the_same_cards(game):
    seeds = native.deal_seeds(5, 0, 3)
    _, actions, offsets, _, _, _, _ = _native_games(game, [native.RULES, native.RANDOM], seeds)
    for deal in range(3):
        first = actions[offsets[2 * deal]:offsets[2 * deal] + 32]
        second = actions[offsets[2 * deal + 1]:offsets[2 * deal + 1] + 32]
        np.testing.assert_array_equal(first, second)


def test_chunk_rows_describe_each_game():
    specs = tuple(labelled(parse_agent_list("rules,random")))
    table = play_chunk(TournamentSettings("cardlab_kaiser", {}, specs, 10, 1, 4), 1)
    assert table.column("deal").to_pylist() == [4, 4, 5, 5, 6, 6, 7, 7]
    assert table.column("seat_agents")[0].as_py() == ["rules", "random", "rules", "random"]
    assert table.column("seat_agents")[1].as_py() == ["random", "rules", "random", "rules"]
    returns = np.array(table.column("returns").to_pylist())
    np.testing.assert_array_equal(returns.sum(axis=1), 0)  # zero-sum
    for row in table.to_pylist():
        assert len(row["actions"]) >= 36  # 32 cards dealt plus at least the 4 bids
        if row["contract"]:
            assert 0 <= row["declarer"] < 4
            assert row["trump"] in ("C", "D", "H", "S", "NT")
        assert sum(row["seat_decisions"]) == len(row["actions"]) - 32


def _rows(deal, seating, team0_return):
    returns = [[r, -r, r, -r] for r in team0_return]
    return pa.table({"deal": deal, "seating": seating, "returns": returns})


def test_duplicate_score_of_a_hand_built_pair_of_deals():
    # Deal 0: A (pair's first agent) makes +12 on the even seats, and as the odd
    # team it loses only 4 with the same cards: duplicate score 12 - 4 = +8.
    # Deal 1: A gets -6 on the even seats and the opponents make +10 with A's
    # cards when A sits odd: -6 + (-10) = -16.
    table = _rows([1, 0, 0, 1], [1, 1, 0, 0], [10, 4, 12, -6])
    scores = duplicate_table(table, ["A", "B"], [(0, 1)])
    np.testing.assert_array_equal(scores.deals, [0, 1])
    np.testing.assert_array_equal(scores.scores[:, 0], [8, -16])
    np.testing.assert_array_equal(scores.agent_scores(), [[8, -8], [-16, 16]])


def test_duplicate_scores_of_a_round_robin_average_over_opponents():
    # Three agents, pairs (0,1), (0,2), (1,2): seatings 0..5 of one deal.
    table = _rows([0] * 6, list(range(6)), [5, -1, 2, 2, 0, 3])
    scores = duplicate_table(table, ["A", "B", "C"], [(0, 1), (0, 2), (1, 2)])
    np.testing.assert_array_equal(scores.scores, [[5 + 1, 2 - 2, 0 - 3]])
    np.testing.assert_allclose(scores.agent_scores(), [[(6 + 0) / 2, (-6 - 3) / 2, (0 + 3) / 2]])


def test_a_deal_missing_a_seating_is_left_out():
    table = _rows([0, 0, 1], [0, 1, 0], [3, 1, 2])
    scores = duplicate_table(table, ["A", "B"], [(0, 1)])
    np.testing.assert_array_equal(scores.deals, [0])


def test_ismcts_plays_natively_and_agrees_with_the_python_loop(game):
    """ISMCTS is a native kind: the compiled loop and its bot in the Python loop play alike."""
    from cardlab.arena.entrants import NATIVE_AGENTS

    seeds = native.deal_seeds(8, 0, 2)
    ismcts = NATIVE_AGENTS["ismcts"].options_row({"simulations": 30, "rollout": "random"},
                                                 game_spec("kaiser"))
    options = np.stack([ismcts, native.empty_options(1)[0]])
    kinds = np.array([native.ISMCTS, native.RULES], dtype=np.int64)
    status, actions, offsets, returns, _, _, _ = native.play_games(
        kernels.KAISER, game.new_initial_state().array.copy(), seeds, SEATINGS,
        kinds, options, native.empty_policies(2))
    assert status[0] == native.OK
    factories = [
        lambda g, p, s: NativeAgentBot(g, p, s, native.ISMCTS, ismcts),
        lambda g, p, s: agents.make("rules", g, p, s),
    ]
    py_actions, py_offsets, py_returns, _, _, _ = _play_python(
        _Context(game, SEATINGS, False, factories=factories), seeds)
    assert py_actions.tolist() == actions.tolist()
    assert py_returns.tolist() == returns.tolist()
