"""Kaiser's rule variants (docs/rules/kaiser.md#variants): one hand-built scenario per variant and
per ruling V-K..., every rejected combination, and random-play invariants with each variant on.

The checks every game passes (engine and wrapper agree, OpenSpiel's random_sim_test, the rule
player and resampling) run over the variants in tests/test_all_games.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import act, deal, game_loader, tournament_rows

from cardlab.core.cards import parse_card
from cardlab.core.rng import make_stream
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state
from cardlab.games.kaiser.rules import (
    BONUS_POINTS,
    JOFFRE,
    JOFFRE_INSULT_POINTS,
    LOST_HEIR,
    LOST_HEIR_HAND_POINTS,
    MISDEAL,
    NUM_TRICKS,
    PASS,
    PENALTY_POINTS,
    PLAY_HIGH,
    PLAY_LOW,
    bid_action,
)
from cardlab.games.kaiser.variants import VARIANTS

# A deal where P0 (the dealer, last to speak) may throw in: no A, K, Q, J, 5H or 3S.
WEAK_FOR_P0 = {
    0: "7C 8C 9C TC 7D 8D 9D TD",
    1: "JC QC KC AC JD QD KD AD",
    2: "5H 8H 9H TH JH QH KH AH",
    3: "3S 8S 9S TS JS QS KS AS",
}
# P1 holds all four 10s and an ace: no weak hand, but four of a rank (11.28).
FOUR_TENS_FOR_P1 = {
    0: "7C 8C 9C JC 7D 8D 9D JD",
    1: "TC TD TH TS AC AD AH AS",
    2: "5H 8H 9H JH QH KH QC KC",
    3: "3S 8S 9S JS QS KS QD KD",
}


load = game_loader("cardlab_kaiser")


def finished_hand(params: dict, scores=(0, 0), bid=(6, 0), declarer=1, tricks=(0, 8), five=1,
                  three=1) -> np.ndarray:
    """Score a hand built by hand: the contract (value, kind), tricks per team, the teams that won
    the 5H and the 3S tricks, on match scores ``scores``; returns the state after scoring."""
    s = new_engine_state(params)
    s[E.MATCH_SCORE:E.MATCH_SCORE + 2] = scores
    s[E.HIGH_BID] = 3 * bid[0] + bid[1]
    s[E.DECLARER] = declarer
    s[E.PHASE] = E.PLAYING
    for team in range(2):
        s[E.TRICKS_WON + team] = tricks[team]
        s[E.HAND_POINTS + team] = tricks[team] + 5 * (five == team) - 3 * (three == team)
    s[E.FIVE_HEARTS_TEAM], s[E.THREE_SPADES_TEAM] = five, three
    E._score_hand(s)
    return s


def deltas(s: np.ndarray) -> list[int]:
    return s[E.LAST_DELTA:E.LAST_DELTA + 2].tolist()


def seat_returns(s: np.ndarray) -> list[float]:
    out = np.zeros(4)
    E.returns(s, out)
    return out.tolist()


# ---- Scoring ------------------------------------------------------------------------------------
def test_no_overtricks():
    # Team 1 bids 6 and takes all 10 points: +6, not +10; a made 7NT is +14; a failure is unchanged.
    assert deltas(finished_hand({"no_overtricks": True})) == [0, 6]
    assert deltas(finished_hand({})) == [0, 10]
    assert deltas(finished_hand({"no_overtricks": True}, bid=(7, 1))) == [0, 14]
    assert deltas(finished_hand({"no_overtricks": True}, bid=(7, 0), tricks=(4, 4), five=0)) == [9, -7]


def test_three_spades_needs_three_tricks():
    on = {"three_spades_needs_three_tricks": True}
    # Team 0 wins two tricks, the 5H among them: 2 (the 5H needs three tricks); team 1 keeps 6 - 3.
    s = finished_hand(on, bid=(6, 0), declarer=0, tricks=(2, 6), five=0, three=1)
    assert s[E.HAND_POINTS:E.HAND_POINTS + 2].tolist() == [2, 3]
    assert deltas(s) == [-6, 3]
    # With three tricks the 5H counts again.
    s = finished_hand(on, bid=(6, 0), declarer=0, tricks=(3, 5), five=0, three=1)
    assert s[E.HAND_POINTS:E.HAND_POINTS + 2].tolist() == [8, 2]
    # V-K24: any side with the 3S and two tricks or fewer scores -3, the 5H ignored.
    s = finished_hand(on, bid=(6, 0), declarer=1, tricks=(2, 6), five=0, three=0)
    assert s[E.HAND_POINTS:E.HAND_POINTS + 2].tolist() == [-3, 6]
    # The standard count for comparison: 2 + 5 - 3.
    s = finished_hand({}, bid=(6, 0), declarer=1, tricks=(2, 6), five=0, three=0)
    assert s[E.HAND_POINTS:E.HAND_POINTS + 2].tolist() == [4, 6]


def test_five_hearts_breaks_the_limit():
    # V-K22: team 0 (not declaring) is at 47 = the limit; winning the 5H trick lets it score.
    params = {"match": True, "non_bidder_limit": 47, "five_hearts_breaks_limit": True}
    s = finished_hand(params, scores=(47, 0), declarer=1, tricks=(3, 5), five=0, three=1)
    assert deltas(s) == [8, -6]
    assert s[E.PHASE] == E.GAME_OVER and s[E.WINNER] == 0  # 55 >= 52 through V-K3
    # Without the 5H trick the limit holds ...
    s = finished_hand(params, scores=(47, 0), declarer=1, tricks=(3, 5), five=1, three=1)
    assert deltas(s) == [0, 7]
    # ... and without the variant the 5H does not break it.
    s = finished_hand({"match": True, "non_bidder_limit": 47}, scores=(47, 0), tricks=(3, 5), five=0)
    assert deltas(s) == [0, -6]


def test_target_rises_after_a_made_no_trump_contract():
    params = {"match": True, "target_after_no_trump": 62}
    # V-K20: team 1 at 40 makes 6NT with 7 points: +14 = 54, but the target is now 62.
    s = finished_hand(params, scores=(0, 40), bid=(6, 1), tricks=(3, 5), five=1, three=1)
    assert s[E.MATCH_SCORE + 1] == 54 and s[E.TARGET_IN_FORCE] == 62 and s[E.WINNER] == -1
    # A made trump contract does not raise it: 45 + 7 reaches 52 and wins.
    s = finished_hand(params, scores=(0, 45), bid=(6, 0), tricks=(3, 5), five=1, three=1)
    assert s[E.TARGET_IN_FORCE] == 52 and s[E.WINNER] == 1
    # A failed no-trump contract does not raise it either.
    s = finished_hand(params, scores=(0, 40), bid=(9, 1), tricks=(3, 5), five=1, three=1)
    assert s[E.TARGET_IN_FORCE] == 52
    # target_52_then_64 is the same rule with 64.
    s = finished_hand({"match": True, "target_after_no_trump": 64}, scores=(0, 40), bid=(6, 1),
                      tricks=(3, 5), five=1, three=0)
    assert s[E.TARGET_IN_FORCE] == 64


def test_target_56_then_62():
    params = {"match": True, "target": 56, "target_after_no_trump": 62}
    s = finished_hand(params, scores=(0, 40), bid=(6, 0), tricks=(3, 5), five=1, three=1)
    assert s[E.MATCH_SCORE + 1] == 47 and s[E.WINNER] == -1
    s = finished_hand(params, scores=(0, 50), bid=(6, 0), tricks=(3, 5), five=1, three=1)
    assert s[E.WINNER] == 1  # 57 >= 56
    s = finished_hand(params, scores=(0, 50), bid=(6, 1), tricks=(3, 5), five=1, three=1)
    assert s[E.MATCH_SCORE + 1] == 64 and s[E.WINNER] == 1  # raised to 62, still reached


def test_target_69():
    s = finished_hand({"match": True, "target": 69}, scores=(0, 55), tricks=(3, 5), five=1, three=1)
    assert s[E.MATCH_SCORE + 1] == 62 and s[E.WINNER] == -1


def test_non_bidder_limit_rises_with_the_target():
    params = {"match": True, "target_after_no_trump": 62, "non_bidder_limit_after_no_trump": 56}
    s = finished_hand(params, scores=(46, 10), bid=(6, 1), tricks=(3, 5), five=1, three=1)
    # V-K23: the hand that raises the target is scored with the old limit (team 0 at 46 adds 0) ...
    assert deltas(s) == [0, 14] and s[E.LIMIT_IN_FORCE] == 56
    # ... and from the next hand on, team 0 at 46 < 56 scores again.
    s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 3 * 6, 1, E.PLAYING
    s[E.TRICKS_WON:E.TRICKS_WON + 2] = [3, 5]
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [3, 7]
    E._score_hand(s)
    assert deltas(s) == [3, 7]


def test_minus_target_loses():
    params = {"match": True, "minus_target_loses": True}
    # Team 1 at -46 fails 6: -52 <= -52, the match ends and team 0 wins.
    s = finished_hand(params, scores=(0, -46), bid=(6, 0), tricks=(5, 3), five=0, three=0)
    assert s[E.MATCH_SCORE + 1] == -52 and s[E.WINNER] == 0
    assert seat_returns(s) == [1.0, -1.0, 1.0, -1.0]
    # Without the variant the match goes on.
    s = finished_hand({"match": True}, scores=(0, -46), bid=(6, 0), tricks=(5, 3), five=0, three=0)
    assert s[E.WINNER] == -1
    # V-K3 step 4: both sides at -52 or below, the higher score wins; a tie goes to the team of
    # dealer + 1 (the dealer is seat 0, so team 1). Team 1 fails 6 without a point here.
    for before, after, winner in (((-57, -50), [-57, -56], 1), ((-55, -50), [-55, -56], 0),
                                  ((-56, -50), [-56, -56], 1)):
        s = finished_hand(params, scores=before, declarer=1, tricks=(0, 0), five=-1, three=-1)
        assert s[E.MATCH_SCORE:E.MATCH_SCORE + 2].tolist() == after and s[E.WINNER] == winner


def test_minus_target_follows_the_raised_target():
    # V-K21: after the raise to 62 the losing mark is -62.
    params = {"match": True, "minus_target_loses": True, "target_after_no_trump": 62}
    s = finished_hand(params, scores=(-50, 0), bid=(6, 1), declarer=1, tricks=(2, 6), five=1, three=1)
    assert s[E.TARGET_IN_FORCE] == 62 and s[E.MATCH_SCORE] == -48 and s[E.WINNER] == -1
    s[E.MATCH_SCORE] = -55
    s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 3 * 6, 0, E.PLAYING
    s[E.TRICKS_WON:E.TRICKS_WON + 2] = [2, 6]
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [2, 8]
    E._score_hand(s)
    assert s[E.MATCH_SCORE] == -61 and s[E.WINNER] == -1  # -61 > -62: still playing


def test_must_bid_to_win():
    params = {"match": True, "must_bid_to_win": True}
    # No limit (V-K1): team 0 at 50 scores its 7 points while not declaring, but cannot win so.
    s = finished_hand(params, scores=(50, 0), declarer=1, bid=(6, 0), tricks=(5, 3), five=0, three=1)
    assert deltas(s) == [10, -6] and s[E.MATCH_SCORE] == 60 and s[E.WINNER] == -1
    # Declaring and making the contract at 52 or more wins.
    s = finished_hand(params, scores=(60, 0), declarer=0, bid=(6, 0), tricks=(6, 2), five=0, three=1)
    assert s[E.WINNER] == 0
    # Declaring and failing does not, even above the target.
    s = finished_hand(params, scores=(60, 0), declarer=0, bid=(9, 0), tricks=(6, 2), five=0, three=0)
    assert s[E.MATCH_SCORE] == 51 and s[E.WINNER] == -1


def test_pot():
    params = {"match": True, "pot": 2.0}
    # V-K31: team 0 fails once, team 1 twice; then team 0 wins and collects the pot of 3 * 2.
    s = finished_hand(params, scores=(0, 0), declarer=0, bid=(9, 0), tricks=(6, 2), five=1, three=0)
    s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 3 * 9, 1, E.PLAYING
    for _ in range(2):
        s[E.TRICKS_WON:E.TRICKS_WON + 2] = [2, 6]
        s[E.HAND_POINTS:E.HAND_POINTS + 2] = [2, 8]
        s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 3 * 9, 1, E.PLAYING
        E._score_hand(s)
    assert s[E.POT_PAYMENTS:E.POT_PAYMENTS + 2].tolist() == [1, 2]
    s[E.MATCH_SCORE] = 50
    s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 3 * 6, 0, E.PLAYING
    s[E.TRICKS_WON:E.TRICKS_WON + 2] = [6, 2]
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [8, 2]
    E._score_hand(s)
    assert s[E.WINNER] == 0
    # Winners: +1 + 6 - 2; losers: -1 - 4. Zero-sum per seat.
    assert seat_returns(s) == [5.0, -5.0, 5.0, -5.0]
    # A drawn match refunds every stake.
    s[E.WINNER] = E.DRAWN
    assert seat_returns(s) == [0.0, 0.0, 0.0, 0.0]


def test_pot_accepts_an_integer_stake_and_bounds_the_utility():
    from cardlab.cli import load as cli_load
    from cardlab.cli import parse_params

    game = cli_load("kaiser", parse_params(["match=true", "pot=3", "max_hands=10"]))
    assert game.max_utility() == 31.0 and game.min_utility() == -31.0


# ---- The auction --------------------------------------------------------------------------------
def test_low_weak_hand_no_misdeal():
    for params, may in (({}, True), ({"low_weak_hand_no_misdeal": True}, False),
                        ({"low_weak_hand_no_misdeal": True, "low_no_trump": True}, False)):
        state = deal(load(**params).new_initial_state(), WEAK_FOR_P0)
        act(state, "pass", "pass", "pass")
        assert (MISDEAL in state.legal_actions()) is may


def test_four_of_a_rank_misdeal():
    state = deal(load().new_initial_state(), FOUR_TENS_FOR_P1)
    assert MISDEAL not in state.legal_actions()
    state = deal(load(four_of_a_rank_misdeal=True).new_initial_state(), FOUR_TENS_FOR_P1)
    assert MISDEAL in state.legal_actions()
    act(state, "misdeal")
    assert state.is_terminal() and state.returns() == [0.0] * 4
    # The weak-hand misdeal stays with it (unless 11.3 takes it away).
    state = deal(load(four_of_a_rank_misdeal=True, low_weak_hand_no_misdeal=True).new_initial_state(),
                 WEAK_FOR_P0)
    act(state, "pass", "pass", "pass")
    assert MISDEAL not in state.legal_actions()


def test_high_low_no_trump_equal():
    game = load(low_no_trump=True, high_low_no_trump_equal=True)
    state = deal(game.new_initial_state(), WEAK_FOR_P0)
    act(state, "bid 7NT")
    legal = state.legal_actions()
    # P2 may not bid 7LNT over 7NT (equal rank); 8 is the next bid.
    assert bid_action(7, 2) not in legal and bid_action(8, 0) == min(a for a in legal if a >= 60)
    act(state, "pass", "pass")
    # V-K6: the dealer may equal with either no-trump kind.
    assert {bid_action(7, 1), bid_action(7, 2)} <= set(state.legal_actions())
    assert bid_action(7, 0) not in state.legal_actions()
    # Without the variant 7LNT outranks 7NT for everyone.
    state = deal(load(low_no_trump=True).new_initial_state(), WEAK_FOR_P0)
    act(state, "bid 7NT")
    assert bid_action(7, 2) in state.legal_actions()


def test_dealer_may_pass_throws_the_hand_in():
    state = deal(load(dealer_may_pass=True).new_initial_state(), FOUR_TENS_FOR_P1)
    act(state, "pass", "pass", "pass")
    assert PASS in state.legal_actions()
    act(state, "pass")
    assert state.is_terminal() and state.returns() == [0.0] * 4
    assert "everyone passed: void hand" in str(state)
    # In a match the same dealer deals again and the deal counts toward max_hands.
    state = deal(load(dealer_may_pass=True, match=True).new_initial_state(), FOUR_TENS_FOR_P1)
    act(state, "pass", "pass", "pass", "pass")
    assert state.is_chance_node() and state.array[E.DEALER] == 0 and state.array[E.HAND_NUMBER] == 1
    # Without it the dealer must bid.
    state = deal(load().new_initial_state(), FOUR_TENS_FOR_P1)
    act(state, "pass", "pass", "pass")
    assert PASS not in state.legal_actions()


def test_rules_player_as_dealer_passes_a_hopeless_hand_when_allowed():
    from cardlab.games.kaiser.strategy import rules_action

    state = deal(load(dealer_may_pass=True).new_initial_state(), WEAK_FOR_P0)
    act(state, "pass", "pass", "pass")
    state.array[E.LOW_WEAK_HAND_NO_MISDEAL] = 1  # keep the weak hand from throwing in
    assert rules_action(state.array, make_stream(0)) == PASS


# ---- The 34-card kitty game (11.1) -----------------------------------------------------------------
KITTY_HANDS = {
    0: "7C 8C 9C TC JC QC KC AC",
    1: "7D 8D 9D TD JD QD KD AD",
    2: "5H 8H 9H TH JH QH KH AH",
    3: "3S 8S 9S TS JS QS KS AS",
}


def kitty_state(**params):
    """The 34-card game with one suit each and the 7H, 7S in the kitty."""
    state = deal(load(kitty_34_card=True, **params).new_initial_state(), KITTY_HANDS)
    assert state.is_chance_node() and sorted(a for a, _ in state.chance_outcomes()) == [
        parse_card("7H"), parse_card("7S")]
    state.apply_action(parse_card("7S"))
    state.apply_action(parse_card("7H"))
    return state


def test_kitty_34_card_deal_and_discards():
    game = load(kitty_34_card=True)
    assert bin(int(game.new_initial_state().array[E.DECK])).count("1") == 34
    state = kitty_state()
    assert not state.is_chance_node() and state.array[E.KITTY] == (1 << parse_card("7H")) | (
        1 << parse_card("7S"))
    # V-K4: the minimum bid stays min_bid (6).
    assert bid_action(6, 0) in state.legal_actions()
    act(state, "bid 6", "pass", "pass", "pass", "trump D")
    # The declarer took the kitty: ten cards, two discards in ascending order, never 5H or 3S.
    hand = int(state.array[E.HANDS + 1])
    assert bin(hand).count("1") == 10 and state.current_player() == 1
    # First discard: every eligible card but the highest (7S, id 44); then the cards above it.
    first = state.legal_actions()
    assert first == [parse_card(c) for c in "7D 8D 9D TD JD QD KD AD 7H".split()]
    act(state, "QD")
    assert state.legal_actions() == [parse_card(c) for c in ("KD", "AD", "7H", "7S")]
    act(state, "7H")
    assert state.array[E.PHASE] == E.PLAYING and state.current_player() == 1
    assert state.array[E.DISCARDS] == (1 << parse_card("QD")) | (1 << parse_card("7H"))
    play_out(state, {**{seat: text.split()[::-1] for seat, text in KITTY_HANDS.items()},
                     1: "AD KD JD TD 9D 8D 7D 7S".split()})
    assert state.returns() == [-10.0, 10.0, -10.0, 10.0]  # the discards score nothing


def test_kitty_point_cards_are_never_discarded():
    state = kitty_state()
    act(state, "pass", "bid 6", "pass", "pass", "trump H")  # P2 declares with the 5H
    legal = state.legal_actions()
    assert parse_card("5H") not in legal and parse_card("7H") in legal


def test_kitty_discards_are_seen_by_the_declarer_only():
    strings = {}
    for discards in (("7H", "7S"), ("7D", "8D")):
        state = kitty_state()
        act(state, "bid 6", "pass", "pass", "pass", "trump D", *discards)
        strings[discards] = [state.information_state_string(p) for p in range(4)]
        assert state.legal_actions()  # play goes on
    first, second = strings.values()
    assert first[1] != second[1]  # the declarer knows what he discarded
    assert [first[p] for p in (0, 2, 3)] == [second[p] for p in (0, 2, 3)]
    assert "kitty: 7H 7S, discarded: 7H 7S" in first[1] and "kitty" not in first[0]


def test_kitty_seven_ranks_above_the_point_cards():
    state = kitty_state()
    act(state, "pass", "pass", "bid 6NT", "pass")  # P3 declares, takes 7H 7S
    act(state, "8S", "9S")  # keeps 3S and 7S
    act(state, "7S", "7C", "7D", "5H")
    assert state.array[E.TRICK_WINNERS] == 3  # 7S led, nobody followed
    act(state, "3S", "8C", "8D", "8H")
    assert state.array[E.TRICK_WINNERS + 1] == 3


def test_kitty_resampling_keeps_what_each_seat_knows():
    from cardlab.games.kaiser.sampling import resample_hidden_hands

    state = kitty_state()
    act(state, "bid 6", "pass", "pass", "pass", "trump D", "JD", "7H")
    undiscardable = (1 << parse_card("5H")) | (1 << parse_card("3S"))
    for seat in range(4):
        for k in range(20):
            world = resample_hidden_hands(state.array, seat, make_stream(k))
            dealt = np.bitwise_or.reduce(world[E.DEALT:E.DEALT + 4]) | world[E.KITTY]
            assert dealt == world[E.DECK] and bin(int(world[E.KITTY])).count("1") == 2
            assert world[E.DISCARDS] & undiscardable == 0
            assert world[E.HANDS + seat] == state.array[E.HANDS + seat]
            if seat == 1:  # the declarer's kitty and discards are his own knowledge
                assert world[E.KITTY] == state.array[E.KITTY]
                assert world[E.DISCARDS] == state.array[E.DISCARDS]
            held = world[E.HANDS + 1] | world[E.DISCARDS]
            assert world[E.KITTY] & ~held == 0 and world[E.DEALT + 1] & world[E.KITTY] == 0


def test_rules_player_discards_its_weakest_side_cards():
    from cardlab.games.kaiser.strategy import rules_action

    state = kitty_state()
    act(state, "bid 6", "pass", "pass", "pass", "trump D")
    assert state.action_to_string(1, rules_action(state.array, make_stream(0))) == "7H"
    act(state, "7H")
    assert state.action_to_string(1, rules_action(state.array, make_stream(0))) == "7S"


# ---- High or low (11.5, 11.6) --------------------------------------------------------------------
LOW_DEAL = {
    0: "7C 8C 9C TC JC QC KC AC",
    1: "7D 8D 9D TD 5H 8H 9H TH",
    2: "JD QD KD AD JH QH KH AH",
    3: "3S 8S 9S TS JS QS KS AS",
}


def test_high_or_low_announced_after_bid():
    game = load(high_or_low_announced_after_bid=True)
    for choice, winner in (("low", 1), ("high", 2)):
        state = deal(game.new_initial_state(), LOW_DEAL)
        act(state, "bid 7NT", "pass", "pass", "pass")
        assert state.current_player() == 1 and state.legal_actions() == [PLAY_HIGH, PLAY_LOW]
        assert "choosing high or low" in str(state)
        act(state, choice, "7D", "AD", "8S", "7C")
        # Low: the 7D is the highest diamond; high: the ace.
        assert state.array[E.TRICK_WINNERS] == winner
    # A trump contract is not announced under 11.5.
    state = deal(game.new_initial_state(), LOW_DEAL)
    act(state, "bid 7", "pass", "pass", "pass", "trump D")
    assert state.array[E.PHASE] == E.PLAYING
    # Played low, a no-trump contract still scores double.
    s = finished_hand({"high_or_low_announced_after_bid": True}, bid=(7, 1), tricks=(2, 6), five=1, three=0)
    assert deltas(s) == [-1, 22]


def test_any_contract_high_or_low():
    game = load(any_contract_high_or_low=True)
    state = deal(game.new_initial_state(), LOW_DEAL)
    # V-K7: trump first, then high or low.
    act(state, "bid 7", "pass", "pass", "pass", "trump D")
    assert state.legal_actions() == [PLAY_HIGH, PLAY_LOW]
    act(state, "low", "7D", "AD", "8S", "7C")
    assert state.array[E.TRICK_WINNERS] == 1  # the low order holds in trumps too
    assert "contract: 7 played low by P1" in str(state)
    # A trump still beats every card of another suit, whatever the order.
    act(state, "5H", "JH", "3S", "8C")
    assert state.array[E.TRICK_WINNERS + 1] == 2  # JH beats 5H (below every heart), no trump played
    # A low trump contract scores single (μ = 1).
    s = finished_hand({"any_contract_high_or_low": True}, bid=(7, 0), tricks=(2, 6), five=1, three=0)
    assert deltas(s) == [-1, 11]
    # Never for the Kaiser bids.
    state = deal(load(any_contract_high_or_low=True, kaiser_bid_team=True).new_initial_state(), LOW_DEAL)
    act(state, "bid kaiser", "pass", "pass", "pass")
    assert state.array[E.PHASE] == E.PLAYING


def test_high_or_low_tensors_add_a_phase_and_the_choice():
    standard = load()
    game = load(any_contract_high_or_low=True)
    assert game.observation_tensor_size() == standard.observation_tensor_size() + 2
    state = deal(game.new_initial_state(), LOW_DEAL)
    act(state, "bid 7", "pass", "pass", "pass", "trump D")
    before = np.array(state.observation_tensor(0))
    act(state, "low")
    after = np.array(state.observation_tensor(0))
    assert after[-1] == 1.0 and before[-1] == 0.0


def test_rules_player_chooses_low_with_low_cards():
    from cardlab.games.kaiser.strategy import rules_action

    state = deal(load(any_contract_high_or_low=True).new_initial_state(), LOW_DEAL)
    act(state, "bid 7", "pass", "pass", "pass", "trump D")
    assert rules_action(state.array, make_stream(0)) == PLAY_LOW  # 7D 8D 9D 8H 9H: low cards
    state = deal(load(any_contract_high_or_low=True).new_initial_state(), LOW_DEAL)
    act(state, "pass", "bid 7", "pass", "pass", "trump H")
    assert rules_action(state.array, make_stream(0)) == PLAY_HIGH  # J Q K A of D and H


# ---- Kaiser bids (11.29-11.31) --------------------------------------------------------------------
# P1 runs seven clubs; P3 (his partner) drops the 5H on the first, P2 keeps the 3S for the last trick.
KAISER_DEAL = {
    0: "7C 8D 9D TD JD QD KD AD",
    1: "8C 9C TC JC QC KC AC 7D",
    2: "3S 8S 9S TS JS QS KS AS",
    3: "5H 8H 9H TH JH QH KH AH",
}
KAISER_PLAY = {
    1: "AC KC QC JC TC 9C 8C 7D".split(),
    2: "8S 9S TS JS QS KS AS 3S".split(),
    3: "5H 8H 9H TH JH QH KH AH".split(),
    0: "7C 8D 9D TD JD QD KD AD".split(),
}


def play_out(state, order):
    queues = {seat: list(cards) for seat, cards in order.items()}
    while not state.is_terminal() and state.current_player() in queues:
        act(state, queues[state.current_player()].pop(0))
    return state


def test_kaiser_bid_ranks_above_12_low_no_trump():
    game = load(kaiser_bid_solo=True, kaiser_40=True, low_no_trump=True)
    assert game.num_distinct_actions() == 101
    assert load(kaiser_bid_team=True).num_distinct_actions() == 100
    assert load().num_distinct_actions() == 99
    state = deal(game.new_initial_state(), KAISER_DEAL)
    assert state.legal_actions()[-3:] == [bid_action(12, 2), 99, 100]
    assert [state.action_to_string(1, a) for a in (99, 100)] == ["bid kaiser", "bid kaiser 40"]
    act(state, "bid 12LNT")
    assert state.legal_actions()[-2:] == [99, 100]
    act(state, "bid kaiser")
    assert state.legal_actions() == [PASS, 100]  # P3 must go above
    act(state, "pass")
    # The dealer may equal the Kaiser bid, and then declares it.
    assert state.legal_actions()[-2:] == [99, 100]
    act(state, "bid kaiser")
    assert state.array[E.DECLARER] == 0 and state.current_player() == 0  # no trump: P0 leads
    assert "contract: kaiser by P0" in str(state)


def test_kaiser_bid_solo_made():
    state = deal(load(kaiser_bid_solo=True).new_initial_state(), KAISER_DEAL)
    act(state, "bid kaiser", "pass", "pass", "pass")
    play_out(state, KAISER_PLAY)
    # Seven tricks to P1 with the 5H, the 3S trick to P0, none to P3: made, worth the target (V-K26).
    assert state.is_terminal() and state.returns() == [-52.0, 52.0, -52.0, 52.0]
    # A failure costs as much: the same cards with a 13-point target.
    state = deal(load(kaiser_bid_solo=True, target=13).new_initial_state(), KAISER_DEAL)
    act(state, "bid kaiser", "pass", "pass", "pass")
    play_out(state, {**KAISER_PLAY, 2: "3S 8S 9S TS JS QS KS AS".split()})  # 3S on P1's first trick
    assert state.returns() == [13.0, -13.0, 13.0, -13.0]


def _kaiser_hand(params, winners, five_trick, three_trick):
    """A finished hand on bid 99 by P1: the trick winners, and the tricks holding 5H and 3S."""
    s = new_engine_state(params)
    s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 39, 1, E.PLAYING
    s[E.TRICK_WINNERS:E.TRICK_WINNERS + 8] = winners
    s[E.TRICK_HISTORY + 4 * five_trick] = parse_card("5H")
    s[E.TRICK_HISTORY + 4 * three_trick + 1] = parse_card("3S")
    for team in range(2):
        s[E.TRICKS_WON + team] = sum(1 for w in winners if w % 2 == team)
    s[E.FIVE_HEARTS_TEAM] = winners[five_trick] % 2
    s[E.THREE_SPADES_TEAM] = winners[three_trick] % 2
    return s


def test_kaiser_bid_conditions():
    solo, team = {"kaiser_bid_solo": True}, {"kaiser_bid_team": True}
    alone = [1, 1, 1, 1, 1, 1, 1, 0]
    assert E.made_contract(_kaiser_hand(solo, alone, 0, 7))
    # V-K25: the partner must not take a trick in the solo bid; the team bid counts both.
    shared = [1, 3, 1, 1, 1, 1, 1, 0]
    assert not E.made_contract(_kaiser_hand(solo, shared, 0, 7))
    assert E.made_contract(_kaiser_hand(team, shared, 1, 7))
    # Exactly seven: eight tricks fail; the 5H must be in one of them, the 3S not.
    assert not E.made_contract(_kaiser_hand(team, [1] * 8, 0, 7))
    assert not E.made_contract(_kaiser_hand(team, alone, 7, 0))
    assert not E.made_contract(_kaiser_hand(team, alone, 0, 1))
    # Solo: the 5H trick must be the declarer's own.
    assert not E.made_contract(_kaiser_hand(solo, [3, 1, 1, 1, 1, 1, 1, 1], 0, 7))


def test_kaiser_bid_decides_the_match():
    # V-K3 step 1: after a hand on bid 99 the match ends, whatever the scores.
    for three_trick, winner in ((7, 1), (2, 0)):  # the 3S trick to team 0 (made) or team 1
        s = _kaiser_hand({"match": True, "kaiser_bid_team": True},
                         [1, 3, 1, 1, 1, 1, 1, 0], 1, three_trick)
        E._score_hand(s)
        assert s[E.PHASE] == E.GAME_OVER and s[E.WINNER] == winner
    # A failed Kaiser bid pays into the pot (11.36).
    s = _kaiser_hand({"match": True, "kaiser_bid_solo": True, "pot": 1.0}, [1] * 8, 0, 7)
    E._score_hand(s)
    assert s[E.POT_PAYMENTS + 1] == 1 and seat_returns(s) == [2.0, -2.0, 2.0, -2.0]


def test_kaiser_40():
    game = load(kaiser_40=True)
    hands = {0: "7D 8D 9D TD JD QD KD AD", 1: "7C 8C 9C TC JC QC KC AC",
             2: "3S 8S 9S TS JS QS KS AS", 3: "5H 8H 9H TH JH QH KH AH"}
    state = deal(game.new_initial_state(), hands)
    act(state, "bid kaiser 40", "pass", "pass", "pass")
    play_out(state, {seat: text.split()[::-1] for seat, text in hands.items()})
    # P1 took all eight tricks: +40; the others scored their 0 points (V-K27: no trump, high).
    assert state.returns() == [-40.0, 40.0, -40.0, 40.0]
    # One trick lost fails it: -40, and the other team keeps its points.
    s = state.array.copy()
    s[E.TRICK_WINNERS + 7] = 2
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [1, 9]
    assert not E.made_contract(s) and E.hand_deltas(s).tolist() == [1, -40]
    # A made Kaiser 40 is a made no-trump contract for the rising target (11.15).
    s = new_engine_state({"match": True, "kaiser_40": True, "target_after_no_trump": 62})
    s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 40, 1, E.PLAYING
    s[E.TRICK_WINNERS:E.TRICK_WINNERS + 8] = 1
    s[E.TRICKS_WON + 1], s[E.HAND_POINTS + 1] = 8, 10
    E._score_hand(s)
    assert s[E.MATCH_SCORE + 1] == 40 and s[E.TARGET_IN_FORCE] == 62


def test_rules_partner_of_a_solo_declarer_plays_low():
    from cardlab.games.kaiser.strategy import rules_action

    state = deal(load(kaiser_bid_solo=True).new_initial_state(), KAISER_DEAL)
    act(state, "bid kaiser", "pass", "pass", "pass", "AC", "8S")
    # The declarer is winning the trick: the partner feeds him the 5H ...
    assert state.action_to_string(3, rules_action(state.array, make_stream(0))) == "5H"
    # ... and otherwise plays his lowest card, keeping the 5H.
    act(state, "8H", "7C", "KC", "9S")
    state.array[E.TRICK + 1] = parse_card("AC")  # pretend P2 took the lead with the ace
    assert state.action_to_string(3, rules_action(state.array, make_stream(0))) == "9H"


# ---- load_game rejects --------------------------------------------------------------------------
REJECTS = [
    ({"dealer": 4}, "'dealer' must be a seat"),
    ({"players": 4, "three_teams": True}, "'three_teams' needs players = 6"),
    ({"les_rois": True, "joffre": True}, "at most one form"),
    ({"les_rois": True, "players": 6}, "played by 4 players"),
    ({"joffre": True, "low_no_trump": True}, "rules of the standard pack"),
    ({"les_rois_hetu": True, "kaiser_40": True}, "rules of the standard pack"),
    ({"joffre": True, "match": True, "target_after_no_trump": 60}, "rules of the standard pack"),
    ({"lost_heir": True, "non_bidder_limit": 40}, "has no non-bidder limit"),
    ({"must_bid_to_win": True, "match": True, "non_bidder_limit": 50}, "has no non-bidder limit"),
    ({"kitty_34_card": True, "players": 3}, "four-player rule"),
    ({"high_low_no_trump_equal": True}, "needs 'low_no_trump'"),
    ({"any_contract_high_or_low": True, "low_no_trump": True}, "replaces the low no-trump bid"),
    ({"any_contract_high_or_low": True, "high_or_low_announced_after_bid": True}, "only one of"),
    ({"kaiser_bid_solo": True, "kaiser_bid_team": True}, "only one of"),
    ({"kaiser_40": True, "players": 5}, "four-player rule"),
    ({"kaiser_bid_team": True, "must_bid_to_win": True, "match": True}, "hands the game"),
    ({"pass_one_to_partner": True, "hearts_style_passing": True}, "at most one passing rule"),
    ({"pass_two_to_partner": True, "players": 6}, "passes to a partner"),
    ({"target_after_no_trump": 62}, "need match = true"),
    ({"non_bidder_limit_after_no_trump": 56}, "need match = true"),
    ({"minus_target_loses": True}, "need match = true"),
    ({"must_bid_to_win": True}, "need match = true"),
    ({"pot": 1.0}, "need match = true"),
    ({"match": True, "target_after_no_trump": 52}, "above the target 52"),
    ({"match": True, "target": 56, "target_after_no_trump": 50}, "above the target 56"),
    ({"match": True, "non_bidder_limit_after_no_trump": 56}, "needs 'target_after_no_trump'"),
    ({"match": True, "target_after_no_trump": 62, "non_bidder_limit_after_no_trump": 45},
     "above 'non_bidder_limit' 45"),
    ({"match": True, "must_bid_to_win": True, "minus_target_loses": True}, "two different ways"),
    ({"match": True, "must_bid_to_win": True, "five_hearts_breaks_limit": True}, "no non-bidder limit"),
    ({"match": True, "pot": -1.0}, "'pot' must be in 0.0..1000.0"),
    ({"match": True, "pot": 1000.5}, "'pot' must be in 0.0..1000.0"),
    ({"players": 7}, "must be one of"),
    ({"target_after_no_trump": 1001}, "must be in 0..1000"),
]


@pytest.mark.parametrize("params, message", REJECTS, ids=[str(p) for p, _ in REJECTS])
def test_load_game_rejects(params, message):
    with pytest.raises(ValueError, match=message) as error:
        load(**params)
    assert any(name in str(error.value) for name in params), "the error names a parameter"


@pytest.mark.parametrize("params, message", [({"pot": "1"}, "'pot' must be a number"),
                                             ({"players": True}, "must be an integer"),
                                             ({"kitty_34_card": 2}, "must be true or false")])
def test_wrong_types_are_rejected_by_the_game_itself(params, message):
    """Spec clarification 1: no bool for an int; the game checks even what OpenSpiel lets through."""
    from cardlab.games.kaiser.game import KaiserGame

    with pytest.raises(ValueError, match=message):
        KaiserGame(params)


def test_every_variant_is_declared_and_the_implemented_ones_load():
    assert len(VARIANTS) == 36
    assert [v.variant_class for v in VARIANTS].count("P") == 31
    assert [v.variant_class for v in VARIANTS].count("C") == 5
    for variant in VARIANTS:  # every Kaiser variant is implemented: none is refused any more
        assert variant.status == "implemented" and variant.tests, variant.name
        load(**variant.settings())


# ---- Random play with each variant on ----------------------------------------------------------
COMBINATIONS = [
    {"no_overtricks": True, "three_spades_needs_three_tricks": True, "low_weak_hand_no_misdeal": True},
    {"low_no_trump": True, "high_low_no_trump_equal": True, "dealer_may_pass": True,
     "four_of_a_rank_misdeal": True},
    {"match": True, "target_after_no_trump": 62, "non_bidder_limit_after_no_trump": 56,
     "minus_target_loses": True, "non_bidder_limit": 47, "five_hearts_breaks_limit": True, "pot": 1.5},
    {"match": True, "must_bid_to_win": True, "dealer_may_pass": True, "no_overtricks": True, "pot": 2},
    {"kitty_34_card": True, "min_bid": 7, "low_no_trump": True},  # the Saskatchewan game (V-K4)
    {"kitty_34_card": True, "any_contract_high_or_low": True, "kaiser_40": True, "kaiser_bid_solo": True},
    {"kitty_34_card": True, "high_or_low_announced_after_bid": True, "kaiser_bid_team": True,
     "match": True, "pot": 1.0, "three_spades_needs_three_tricks": True},
    {"les_rois": True, "match": True, "no_overtricks": True, "dealer_may_pass": True, "pot": 1.0},
    {"les_rois_hetu": True, "min_bid": 7, "match": True, "minus_target_loses": True},
    {"joffre": True, "match": True, "target": 42, "non_bidder_limit": 30},
    # The passing rules (11.32-11.35) with the kitty, the misdeals, the match rules and the forms.
    {"pass_two_to_partner": True, "kitty_34_card": True, "four_of_a_rank_misdeal": True},
    {"hearts_style_passing": True, "match": True, "pot": 1.0, "dealer_may_pass": True},
    {"partner_exchange_after_bidding": True, "kitty_34_card": True, "any_contract_high_or_low": True,
     "kaiser_40": True},
    {"pass_one_to_partner": True, "les_rois_hetu": True},
    {"partner_exchange_after_bidding": True, "joffre": True, "match": True},
]
#: The four-player variants; the player counts (11.11-11.14) have their own invariants in
#: tests/kaiser/test_kaiser_players.py.
IMPLEMENTED = [v.settings() for v in VARIANTS if v.status == "implemented" and "players" not in v.settings()]


def random_play_invariants(params: dict, hands: int) -> None:
    """Play ``hands`` random games in the engine; check what holds in every variant."""
    template = new_engine_state(params)
    results = np.zeros((hands, 5))
    E.play_random_hands(template, hands, make_stream(3), results)
    match = params.get("match", False)
    if match:
        stake = float(params.get("pot", 0.0))
        decided = results[:, 0] != 0.0  # 0: drawn
        assert np.all(np.abs(results[decided, 0]) >= 1.0)
        assert np.all(np.abs(results[:, 0]) <= 1.0 + stake * template[E.MAX_HANDS])
    else:
        played = results[:, 4] >= 0
        points = results[played, 1] + results[played, 2]
        form = template[E.FORM]
        per_hand = NUM_TRICKS + BONUS_POINTS[form] + PENALTY_POINTS[form]  # 10; Hetu's 11
        if params.get("three_spades_needs_three_tricks"):
            assert np.all((points >= -6) & (points <= 13))
        elif form == JOFFRE:  # V-K11: the insult takes 5 more
            assert np.all((points == per_hand) | (points == per_hand + JOFFRE_INSULT_POINTS))
        elif form == LOST_HEIR:  # V-K14: a blank cancels the +5, the -3 or both
            assert np.all(np.isin(points, LOST_HEIR_HAND_POINTS))
        else:
            assert np.all(points == per_hand)
        assert np.all(np.abs(results[:, 0]) <= E.hand_utility_bound(template))
    # The whole-state check: a game played through the kernels stays zero-sum at every end.
    s = template.copy()
    out = np.zeros(4)
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    stream = make_stream(4)
    for _ in range(20):
        s[:] = template
        while s[E.PHASE] != E.GAME_OVER:
            E.apply_action(s, E.random_action(s, stream, legal))
        E.returns(s, out)
        assert abs(out.sum()) < 1e-9
        assert out[0] == out[2] and out[1] == out[3]


@pytest.mark.parametrize("params", IMPLEMENTED + COMBINATIONS, ids=str)
def test_random_play_invariants(params):
    random_play_invariants(params, 500)


@pytest.mark.slow
@pytest.mark.parametrize("params", IMPLEMENTED + COMBINATIONS, ids=str)
def test_random_play_invariants_ten_thousand_hands(params):
    random_play_invariants(params, 10_000)


def test_a_tournament_runs_variants_in_the_compiled_arena(tmp_path):
    """``cardlab tournament --param ...``: the compiled loop plays the variant (pot given as 1.5)."""
    import json

    out = tmp_path / "r"
    rows = tournament_rows(out, "--game", "kaiser", "--agents", "rules,random", "--deals", "3",
                           "--seed", "5", "--param", "kitty_34_card=true", "--param", "kaiser_bid_team=true",
                           "--param", "high_or_low_announced_after_bid=true", "--param", "match=true",
                           "--param", "pot=1.5", "--param", "max_hands=5")
    parameters = json.loads((out / "manifest.json").read_text())["settings"]["parameters"]
    assert parameters["pot"] == 1.5 and parameters["kitty_34_card"] is True
    assert len(rows) == 6 and all(abs(sum(row["returns"])) < 1e-9 for row in rows)
    # A kitty game deals 34 cards: every game's actions start with them.
    assert all(len(row["actions"]) > 34 for row in rows)
