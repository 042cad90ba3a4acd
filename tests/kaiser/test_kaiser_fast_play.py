"""Kaiser's random play-outs in one go leave exactly what the step-by-step path leaves.

``play_plain_tricks_randomly`` (the tricks of a hand in registers) and ``random_bid`` (a bid
drawn without listing the auction) must give the same states and consume the same draws as
``random_action`` and ``apply_action`` move by move, from any point of a hand, on every variant
set: the random rollouts of search and the batched random hands rely on it.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from cardlab.core.dealing import draw_card
from cardlab.core.rng import make_stream, random_below
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state

VARIANT_SETS = [
    {}, {"players": 5}, {"players": 6, "three_teams": True}, {"players": 6}, {"players": 3},
    {"players": 2}, {"low_no_trump": True}, {"low_no_trump": True, "high_low_no_trump_equal": True},
    {"kitty_34_card": True}, {"hearts_style_passing": True}, {"pass_one_to_partner": True},
    {"partner_exchange_after_bidding": True}, {"lost_heir": True}, {"les_rois": True},
    {"joffre": True}, {"les_rois_hetu": True}, {"hand_size": 6, "max_bid": 8},
    {"match": True, "three_spades_needs_three_tricks": True, "five_hearts_breaks_limit": True},
    {"any_contract_high_or_low": True, "dealer_may_pass": True, "kaiser_bid_solo": True,
     "kaiser_40": True},
    {"high_or_low_announced_after_bid": True, "low_no_trump": True, "kaiser_bid_team": True,
     "four_of_a_rank_misdeal": True, "low_weak_hand_no_misdeal": True},
]


@njit(cache=True)
def _listed_random_action(s, stream, legal):
    """The reference draw: a card of the mask at a deal or a card play, else from the list."""
    if s[E.PHASE] == E.DEALING:
        return draw_card(E.undealt_cards(s), stream)
    if s[E.PHASE] == E.PLAYING:
        return draw_card(E.playable_cards(s, s[E.TO_MOVE]), stream)
    return legal[random_below(stream, E.legal_actions(s, legal))]


@njit(cache=True)
def _step_by_step(s, stream, legal):
    """The reference: one random legal action at a time, applied through the dispatch."""
    while s[E.PHASE] != E.GAME_OVER:
        E.apply_action(s, _listed_random_action(s, stream, legal))


@njit(cache=True)
def _mismatches(template, hands, stream, picks):
    """Play ``hands`` hands; in each, walk a random number of steps (``picks`` chooses it), then
    finish a copy step by step and another with ``play_out_randomly`` from copies of the stream.
    Returns the hands whose final states or stream positions differ, and the play-outs checked."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    mismatches = 0
    for _ in range(hands):
        s = template.copy()
        for _ in range(random_below(picks, 60)):
            if s[E.PHASE] == E.GAME_OVER:
                break
            E.apply_action(s, _listed_random_action(s, stream, legal))
        reference, reference_stream = s.copy(), stream.copy()
        _step_by_step(reference, reference_stream, legal)
        fast, fast_stream = s.copy(), stream.copy()
        E.play_out_randomly(fast, fast_stream, legal)
        if fast_stream[0] != reference_stream[0]:
            mismatches += 1
        else:
            for slot in range(E.STATE_SIZE):
                if fast[slot] != reference[slot]:
                    mismatches += 1
                    break
        stream[0] = reference_stream[0]
    return mismatches


@pytest.mark.parametrize("parameters", VARIANT_SETS, ids=lambda p: ",".join(p) or "standard")
def test_play_out_randomly_leaves_the_step_by_step_state_and_stream(parameters):
    template = new_engine_state(parameters)
    assert _mismatches(template, 1500, make_stream(18), make_stream(81)) == 0


@njit(cache=True)
def _hands_step_by_step(template, num_hands, stream, results):
    """``play_random_hands`` as it was written move by move (the reference for its fast paths)."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    seat_returns = np.empty(E.MAX_SEATS, dtype=np.float64)
    steps = 0
    for i in range(num_hands):
        s = template.copy()
        while s[E.PHASE] != E.GAME_OVER:
            if s[E.PHASE] == E.DEALING:
                steps += E.cards_to_deal(s) - s[E.CARDS_DEALT]
                E.deal_at_random(s, stream)
            else:
                E.apply_action(s, _listed_random_action(s, stream, legal))
                steps += 1
        E.returns(s, seat_returns)
        results[i, 0] = seat_returns[0]
        results[i, 1] = s[E.HAND_POINTS]
        results[i, 2] = s[E.HAND_POINTS + 1]
        results[i, 3] = s[E.DECLARER]
        results[i, 4] = s[E.HIGH_BID] if s[E.WINNER] != E.DRAWN else -1
    return steps


@pytest.mark.parametrize("parameters", [{}, {"players": 6, "three_teams": True}, {"lost_heir": True},
                                        {"match": True, "low_no_trump": True}],
                         ids=lambda p: ",".join(p) or "standard")
def test_play_random_hands_matches_the_step_by_step_hands(parameters):
    template = new_engine_state(parameters)
    fast, reference = np.zeros((1000, 5)), np.zeros((1000, 5))
    fast_stream, reference_stream = make_stream(7), make_stream(7)
    fast_steps = E.play_random_hands(template, 1000, fast_stream, fast)
    reference_steps = _hands_step_by_step(template, 1000, reference_stream, reference)
    assert fast_steps == reference_steps
    assert fast_stream[0] == reference_stream[0]
    np.testing.assert_array_equal(fast, reference)


@njit(cache=True)
def _bid_mismatches(template, hands, stream):
    """At every bidding node of ``hands`` random hands, ``random_bid`` against the listed draw."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    mismatches = nodes = 0
    for _ in range(hands):
        s = template.copy()
        while s[E.PHASE] != E.GAME_OVER:
            if s[E.PHASE] == E.BIDDING:
                listed_stream = stream.copy()
                listed = legal[random_below(listed_stream, E.legal_actions(s, legal))]
                action = E.random_bid(s, stream, legal)
                nodes += 1
                mismatches += action != listed or stream[0] != listed_stream[0]
            else:
                action = _listed_random_action(s, stream, legal)
            E.apply_action(s, action)
    return mismatches, nodes


@pytest.mark.parametrize("parameters", VARIANT_SETS, ids=lambda p: ",".join(p) or "standard")
def test_random_bid_is_the_listed_draw(parameters):
    mismatches, nodes = _bid_mismatches(new_engine_state(parameters), 500, make_stream(3))
    assert nodes >= 500 and mismatches == 0


@pytest.mark.parametrize("params", VARIANT_SETS, ids=[str(p) for p in VARIANT_SETS])
def test_the_rules_card_play_in_one_call_is_the_moves_in_turn(params):
    """``strategy.play_cards_by_rules`` (a rules rollout's card play) leaves the state the rule
    player's moves leave one by one, from the start of the play and from any card of it."""
    from cardlab.games.kaiser.strategy import play_cards_by_rules, rules_action

    template = new_engine_state(params)
    stream = make_stream(2027)
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    plays = 0
    for _ in range(60):
        s = template.copy()
        while s[E.PHASE] != E.PLAYING and s[E.PHASE] != E.GAME_OVER:  # random moves to the play
            E.apply_action(s, E.random_action(s, stream, legal))
        for _ in range(random_below(stream, 6)):  # and a few random cards into it
            if s[E.PHASE] == E.PLAYING:
                E.apply_action(s, E.random_action(s, stream, legal))
        in_turn, at_once = s.copy(), s.copy()
        moves = 0
        while in_turn[E.PHASE] == E.PLAYING:
            E.apply_action(in_turn, rules_action(in_turn, stream))
            moves += 1
        assert play_cards_by_rules(at_once) == moves
        assert np.array_equal(at_once, in_turn)
        plays += moves
    assert plays > 0
