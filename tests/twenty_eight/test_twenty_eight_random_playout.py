"""The random play-outs in locals against the game played step by step.

``deal_randomly``, ``bid_randomly``, ``raise_randomly`` and ``play_cards_randomly`` keep the
deal, the bidding and the trick in locals; each must leave every slot of the state and the
stream exactly where the step-by-step game leaves them: ``legal_actions``, a uniform draw
``random_below(stream, n)`` and ``apply_action``, move after move.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from numba import njit

from cardlab.core.rng import make_stream, random_below
from cardlab.games.twenty_eight import engine as E

#: tests/same_results.py's variant sets, and two small games.
CONFIGS = [{}, {"players": 6}, {"players": 3}, {"thani": True}, {"cot": True},
           {"jack_discard_restriction": True, "pointless_hand_redeal": True}, {"dealer": 2},
           {"hand_size": 4, "bidding_rounds": 1}, {"hand_size": 6}]


@njit
def _step_by_step(s, stream, legal, moves):
    """``moves`` uniformly random moves (all of them if negative) from the listed actions."""
    while not E.is_terminal(s) and moves != 0:
        E.apply_action(s, legal[random_below(stream, E.legal_actions(s, legal))])
        moves -= 1


@njit
def _compare(template, hands, seed_stream, fast, slow, split_at):
    """Play ``hands`` hands both ways from the same stream, the fast way after ``split_at`` moves
    made step by step (0: from the start; a hand shorter than that is played out step by step
    on both sides). Rows of ``fast`` and ``slow``: the final state, then the stream."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    size = E.STATE_SIZE
    for i in range(hands):
        s = template.copy()
        _step_by_step(s, seed_stream, legal, split_at[i])
        t = s.copy()
        other = seed_stream.copy()
        _step_by_step(s, seed_stream, legal, -1)
        E.play_out_randomly(t, other, legal)
        slow[i, :size] = s
        fast[i, :size] = t
        slow[i, size] = np.int64(seed_stream[0] >> np.uint64(1))
        fast[i, size] = np.int64(other[0] >> np.uint64(1))
        seed_stream[0] = other[0] + np.uint64(i)  # the next hand's start, the same on both sides


def _name(params: dict) -> str:
    return ",".join(f"{key}={value}" for key, value in params.items()) or "standard"


@pytest.mark.parametrize("params", CONFIGS, ids=_name)
def test_play_out_randomly_leaves_the_step_by_step_state_and_stream(params):
    template = pyspiel.load_game("cardlab_twenty_eight", params).initial_array
    hands = 1500
    rng = np.random.default_rng(18)
    # Half the hands from the deal, half from a random point of it (a search's world mid-trick).
    split_at = np.where(np.arange(hands) % 2 == 0, 0, rng.integers(1, 80, hands))
    fast = np.zeros((hands, E.STATE_SIZE + 1), dtype=np.int64)
    slow = np.zeros_like(fast)
    _compare(template, hands, make_stream(len(params)), fast, slow, split_at)
    different = np.nonzero((fast != slow).any(axis=1))[0]
    if different.size:
        slots = np.nonzero(fast[different[0]] != slow[different[0]])[0]
        pytest.fail(f"hands {different[:5]} differ; the first in slots {slots}")
    # The hands were real ones: every kind of end, and played-out hands scored.
    played_out = slow[:, E.OUTCOME] == E.PLAYED_OUT
    assert played_out.mean() > 0.5
    assert (slow[played_out, E.PHASE] == E.GAME_OVER).all()


@njit
def _results_step_by_step(template, hands, stream, results):
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    seat_returns = np.zeros(6)
    for i in range(hands):
        s = template.copy()
        _step_by_step(s, stream, legal, -1)
        E.returns(s, seat_returns)
        results[i, 0] = seat_returns[0]
        results[i, 1] = s[E.CARD_POINTS_WON]
        results[i, 2] = s[E.CARD_POINTS_WON + 1]
        results[i, 3] = s[E.BIDDER]
        results[i, 4] = s[E.HIGH_BID] if s[E.BIDDER] >= 0 else -1
        results[i, 5] = s[E.OUTCOME]
        results[i, 6] = s[E.SHOWN_IN_TRICK]
        results[i, 7] = seat_returns.sum()


@pytest.mark.parametrize("params", [{}, {"players": 3}, {"cot": True, "thani": True}])
def test_play_random_hands_is_the_game_played_step_by_step(params):
    template = pyspiel.load_game("cardlab_twenty_eight", params).initial_array
    hands = 1000
    fast = np.zeros((hands, len(E.RESULT_FIELDS)))
    slow = np.zeros_like(fast)
    fast_stream, slow_stream = make_stream(5), make_stream(5)
    E.play_random_hands(template, hands, fast_stream, fast)
    _results_step_by_step(template, hands, slow_stream, slow)
    np.testing.assert_array_equal(fast, slow)
    assert fast_stream[0] == slow_stream[0]
