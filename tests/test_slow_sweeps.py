"""Long sweeps kept out of the default run: ``make test-slow`` (pytest -m slow).

The same invariants as the default tests, on one to two orders of magnitude
more games and on every parameter combination, plus a longer strength match.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from kaiser.test_kaiser_play import _random_hand_violations
from literature.test_literature_knowledge import _soundness_failures

from cardlab import agents
from cardlab.arena import play_duplicate_match
from cardlab.core.rng import make_stream
from cardlab.games.kaiser.game import new_engine_state as kaiser_state
from cardlab.games.twenty_eight import engine as twenty_eight_engine
from cardlab.games.twenty_eight.game import new_engine_state as twenty_eight_state

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("params", [
    {}, {"min_bid": 5}, {"min_bid": 7}, {"low_no_trump": True, "min_bid": 7}, {"dealer": 3},
])
def test_kaiser_a_million_random_hands(params):
    violations, played = _random_hand_violations(kaiser_state(params), 200_000, make_stream(99))
    assert violations == 0 and played > 199_000


def test_kaiser_random_matches():
    violations, _ = _random_hand_violations(kaiser_state({"match": True}), 5_000, make_stream(98))
    assert violations == 0


@pytest.mark.parametrize("dealer", range(4))
def test_twenty_eight_random_hands_keep_the_points_and_zero_sum(dealer):
    results = np.zeros((100_000, len(twenty_eight_engine.RESULT_FIELDS)))
    twenty_eight_engine.play_random_hands(twenty_eight_state({"dealer": dealer}), 100_000,
                                          make_stream(dealer), results)
    played = results[:, 5] == twenty_eight_engine.PLAYED_OUT
    assert np.all(results[played, 1] + results[played, 2] == 28)
    assert np.all(results[:, 7] == 0)  # zero-sum
    assert np.all(results[played, 6] >= 0)  # the trump is shown in every played hand


@pytest.mark.parametrize("params", [
    {"players": 6}, {"players": 8}, {"players": 4}, {"players": 12}, {"players": 16},
    {"sevens_removed": True}, {"jokers_ninth_set": True}, {"major_sets_worth_two": True},
])
def test_literature_inference_sound_on_50000_games(params):
    game = pyspiel.load_game("cardlab_literature", params)
    certain = np.zeros(2, dtype=np.int64)
    failures, _ = _soundness_failures(game.initial_array, 50_000 // 8, make_stream(3), certain)
    assert failures == 0


@pytest.mark.parametrize("game_name", ["cardlab_kaiser", "cardlab_twenty_eight"])
def test_ismcts_beats_the_rule_based_player(game_name):
    game = pyspiel.load_game(game_name)
    result = play_duplicate_match(
        game, lambda g, seat, seed: agents.make("ismcts", g, seat, seed, simulations=500),
        lambda g, seat, seed: agents.make("rules", g, seat, seed), deals=200, seed=11)
    low, _ = result.confidence_interval()
    assert low > 0
