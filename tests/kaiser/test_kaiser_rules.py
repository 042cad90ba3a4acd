"""Kaiser: one hand-built scenario per ruling (docs/rules/kaiser.md#rulings) and per scoring case."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, deal

from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state
from cardlab.games.kaiser.rules import MISDEAL, PASS, bid_action

# Each seat holds one whole suit: whoever names his suit trumps takes every trick.
ONE_SUIT_EACH = {
    0: "7C 8C 9C TC JC QC KC AC",
    1: "7D 8D 9D TD JD QD KD AD",
    2: "5H 8H 9H TH JH QH KH AH",
    3: "3S 8S 9S TS JS QS KS AS",
}
# A deal where P0 may throw in: no A, K, Q, J, 5H or 3S.
WEAK_FOR_P0 = {
    0: "7C 8C 9C TC 7D 8D 9D TD",
    1: "JC QC KC AC JD QD KD AD",
    2: "5H 8H 9H TH JH QH KH AH",
    3: "3S 8S 9S TS JS QS KS AS",
}


def play_out(state: pyspiel.State, order: dict[int, list[str]]) -> pyspiel.State:
    """Play each seat's cards in the given order until the hand ends."""
    queues = {seat: list(cards) for seat, cards in order.items()}
    while state.current_player() in queues and not state.is_terminal():
        act(state, queues[state.current_player()].pop(0))
    return state


def lead_suit_order(hands):
    return {seat: text.split()[::-1] for seat, text in hands.items()}


def test_ruling1_bidding_starts_left_of_dealer_and_the_dealer_speaks_last():
    game = pyspiel.load_game("cardlab_kaiser", {"dealer": 2})
    state = deal(game.new_initial_state(), ONE_SUIT_EACH, dealer=2)
    speakers = []
    for move in ("pass", "bid 7", "pass", "pass"):
        speakers.append(state.current_player())
        act(state, move)
    assert speakers == [3, 0, 1, 2]
    assert state.current_player() == 0  # the winner names trump


def test_ruling1_bids_must_rise_and_the_dealer_may_equal(kaiser):
    state = deal(kaiser.new_initial_state(), ONE_SUIT_EACH)
    act(state, "bid 7NT")
    legal = state.legal_actions()
    assert bid_action(7, 1) not in legal and bid_action(7, 0) not in legal
    assert bid_action(8, 0) in legal
    act(state, "pass", "pass")  # P2, P3
    dealer_legal = state.legal_actions()  # P0 is the dealer
    assert bid_action(7, 1) in dealer_legal and bid_action(7, 0) not in dealer_legal
    act(state, "bid 7NT")
    assert E.side_of(state.array, int(state.array[E.DECLARER])) == 0 and state.array[E.DECLARER] == 0


def test_ruling1_bid_range_follows_min_bid():
    for min_bid in (5, 6, 7):
        game = pyspiel.load_game("cardlab_kaiser", {"min_bid": min_bid})
        state = deal(game.new_initial_state(), ONE_SUIT_EACH)
        strings = [state.action_to_string(1, a) for a in state.legal_actions()]
        bids = [s for s in strings if s.startswith("bid")]
        assert bids[0] == f"bid {min_bid}" and bids[-1] == "bid 12NT"
        assert "bid 12LNT" not in strings and len(bids) == 2 * (13 - min_bid)


def test_ruling1_dealer_may_not_pass_after_three_passes(kaiser):
    state = deal(kaiser.new_initial_state(), ONE_SUIT_EACH)
    act(state, "pass", "pass", "pass")
    assert state.current_player() == 0
    assert PASS not in state.legal_actions()
    assert state.action_to_string(0, state.legal_actions()[0]) == "bid 6"


def test_ruling2_misdeal_only_for_a_hand_without_honours_and_voids_the_hand(kaiser):
    state = deal(kaiser.new_initial_state(), WEAK_FOR_P0)
    assert MISDEAL not in state.legal_actions()  # P1 holds honours
    act(state, "pass", "pass", "pass")
    assert MISDEAL in state.legal_actions()  # the dealer too, even when forced to bid
    act(state, "misdeal")
    assert state.is_terminal() and state.returns() == [0.0, 0.0, 0.0, 0.0]


def test_ruling2_misdeal_in_match_mode_redeals_by_the_same_dealer():
    game = pyspiel.load_game("cardlab_kaiser", {"match": True, "dealer": 3})
    state = deal(game.new_initial_state(), {(s + 1) % 4: h for s, h in WEAK_FOR_P0.items()},
                 dealer=3)
    # P1 now holds the weak hand and speaks after P0.
    act(state, "pass", "misdeal")
    assert state.is_chance_node() and state.array[E.DEALER] == 3
    assert state.array[E.MATCH_SCORE] == 0 and state.array[E.MATCH_SCORE + 1] == 0


def test_ruling3_trump_winner_names_trump_and_leads(kaiser):
    state = deal(kaiser.new_initial_state(), ONE_SUIT_EACH)
    act(state, "bid 7", "pass", "pass", "pass")  # P1 wins with a trump bid
    assert state.current_player() == 1
    assert [state.action_to_string(1, a) for a in state.legal_actions()] == [
        "trump C", "trump D", "trump H", "trump S"]
    act(state, "trump D")
    assert state.current_player() == 1 and state.array[E.TRUMP] == 1


def test_ruling3_no_trump_winner_leads_without_naming(kaiser):
    state = deal(kaiser.new_initial_state(), ONE_SUIT_EACH)
    act(state, "pass", "bid 6NT", "pass", "pass")  # P2 wins
    assert state.current_player() == 2
    assert all(a < 52 for a in state.legal_actions())


def test_ruling3_follow_suit_and_trick_winners(kaiser):
    hands = {
        0: "7C AC 7D 8D 9D TD JD QD",
        1: "8C 9C KD AD 8H 9H TH JH",
        2: "TC JC QC KC 5H QH KH AH",
        3: "3S 8S 9S TS JS QS KS AS",
    }
    state = deal(kaiser.new_initial_state(), hands)
    act(state, "bid 6", "pass", "pass", "pass", "trump S")  # P1 declares spades, leads
    act(state, "8C")
    # P2 must follow clubs; P3 has no clubs and may play anything.
    assert {state.action_to_string(2, a) for a in state.legal_actions()} == {"TC", "JC", "QC", "KC"}
    act(state, "KC")
    assert len(state.legal_actions()) == 8
    act(state, "3S")  # a trump, even the lowest, beats the led suit
    act(state, "AC")
    assert state.array[E.TRICK_WINNERS] == 3
    assert state.array[E.HAND_POINTS + 1] == 1 - 3  # the 3S goes with the trick
    # P3 leads spades; nobody else can follow, the highest spade wins.
    act(state, "AS", "7C", "KD", "5H")
    assert state.array[E.TRICK_WINNERS + 1] == 3
    assert state.array[E.HAND_POINTS + 1] == -2 + 1 + 5


def test_ruling3_highest_of_the_led_suit_wins_without_trumps(kaiser):
    hands = {
        0: "7C AC 7D 8D 9D TD JD QD",
        1: "8C 9C KD AD 8H 9H TH JH",
        2: "TC JC QC KC 5H QH KH AH",
        3: "3S 8S 9S TS JS QS KS AS",
    }
    state = deal(kaiser.new_initial_state(), hands)
    act(state, "bid 6NT", "pass", "pass", "pass")
    act(state, "KD", "5H", "AS", "QD")  # P1 leads KD; hearts and spades do not count
    assert state.array[E.TRICK_WINNERS] == 1
    assert state.array[E.HAND_POINTS + 1] == 1 + 5


@pytest.mark.parametrize(
    "bidding,declarer_suit,expected",
    [
        # Ruling 4: 8 tricks + 5 (5H) - 3 (3S) = 10 points; ruling 5: a made bid adds them.
        (("bid 6", "pass", "pass", "pass"), 1, [-10, 10, -10, 10]),
        # A made no-trump bid doubles: 2 * 10.
        (("bid 9NT", "pass", "pass", "pass"), 1, [-20, 20, -20, 20]),
        # A failed trump bid subtracts the bid: team 1 -12, team 0 takes 0.
        (("bid 12", "pass", "pass", "pass"), 1, [12, -12, 12, -12]),
        # A failed no-trump bid subtracts double the bid.
        (("bid 11NT", "pass", "pass", "pass"), 1, [22, -22, 22, -22]),
    ],
)
def test_ruling4_5_6_hand_points_scoring_and_returns(kaiser, bidding, declarer_suit, expected):
    state = deal(kaiser.new_initial_state(), ONE_SUIT_EACH)
    act(state, *bidding)
    if not bidding[0].endswith("NT"):
        act(state, "trump D")
    play_out(state, lead_suit_order(ONE_SUIT_EACH))
    assert state.is_terminal()
    assert state.array[E.HAND_POINTS + 1] == 10 and state.array[E.TRICKS_WON + 1] == 8
    assert state.returns() == expected


def test_ruling5_opponents_score_their_points_even_when_negative(kaiser):
    hands = {
        0: "7C AC 7D 8D 9D TD JD QD",
        1: "8C 9C KD AD 8H 9H TH JH",
        2: "TC JC QC KC 5H QH KH AH",
        3: "3S 8S 9S TS JS QS KS AS",
    }
    state = deal(kaiser.new_initial_state(), hands)
    act(state, "pass", "bid 6", "pass", "pass", "trump C")  # P2 declares clubs, leads
    act(state, "AH", "3S", "7C", "JH")  # P3 throws the 3S, P0 ruffs with the 7C
    assert state.array[E.TRICK_WINNERS] == 0
    act(state, "AC", "8C", "TC", "8S")  # P0 leads AC, wins again: team 0 has 1 - 3 + 1
    act(state, "7D", "KD", "5H", "9S")  # P1's KD wins; P2 throws the 5H away: +6 to team 1
    assert state.array[E.HAND_POINTS] == -1 and state.array[E.HAND_POINTS + 1] == 6
    # The kernel adds the opponents' negative points to their score.
    s = state.array.copy()
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [-2, 12]
    assert E.hand_deltas(s).tolist() == [-6, 12]  # P2 (team 0) declared 6 and failed
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [12, -2]
    assert E.hand_deltas(s).tolist() == [12, -2]


def _score_after(match_scores, bid_rank, declarer, team_points, non_bidder_limit=45):
    """Run the scoring kernel on a finished hand with the given match scores."""
    s = new_engine_state({"match": True, "non_bidder_limit": non_bidder_limit})
    s[E.MATCH_SCORE:E.MATCH_SCORE + 2] = match_scores
    s[E.HIGH_BID] = bid_rank
    s[E.DECLARER] = declarer
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = team_points
    return E.hand_deltas(s).tolist()


def test_ruling5_the_45_rule():
    # Below 45 the opponents add what they took.
    assert _score_after([0, 44], 3 * 7, 0, [7, 3]) == [7, 3]
    # From 45 up, positive points are lost ...
    assert _score_after([0, 45], 3 * 7, 0, [7, 3]) == [7, 0]
    # ... but negative points still count.
    assert _score_after([0, 50], 3 * 7, 0, [12, -2]) == [12, -2]
    # The bidding team scores whatever its match score.
    assert _score_after([47, 0], 3 * 6 + 1, 0, [8, 2]) == [16, 2]


def _match_hand(match_scores, bidding):
    """A match whose scores stand at ``match_scores``, after ``bidding`` and naming diamonds."""
    game = pyspiel.load_game("cardlab_kaiser", {"match": True})
    state = deal(game.new_initial_state(), ONE_SUIT_EACH)
    state.array[E.MATCH_SCORE:E.MATCH_SCORE + 2] = match_scores
    act(state, *bidding, "trump D")
    return state


def test_ruling7_match_first_team_to_target_wins_and_dealer_rotates():
    state = _match_hand([0, 40], ("bid 6", "pass", "pass", "pass"))
    play_out(state, lead_suit_order(ONE_SUIT_EACH))
    # Team 1 made 10: 50 < 52, the match goes on with the next dealer.
    assert not state.is_terminal() and state.is_chance_node()
    assert state.array[E.DEALER] == 1 and state.array[E.MATCH_SCORE + 1] == 50
    state = _match_hand([0, 44], ("bid 6", "pass", "pass", "pass"))
    play_out(state, lead_suit_order(ONE_SUIT_EACH))
    assert state.is_terminal() and state.returns() == [-1.0, 1.0, -1.0, 1.0]


def test_ruling7_both_teams_reaching_the_target_the_bidding_team_wins():
    # Impossible under the standard 45 rule (see the rules, K7): raise the limit to test it.
    s = new_engine_state({"match": True, "non_bidder_limit": 100})
    s[E.MATCH_SCORE:E.MATCH_SCORE + 2] = [50, 50]
    s[E.HIGH_BID], s[E.DECLARER] = 3 * 6, 1
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [4, 6]
    E._score_hand(s)
    assert s[E.MATCH_SCORE] == 54 and s[E.MATCH_SCORE + 1] == 56
    assert s[E.PHASE] == E.GAME_OVER and s[E.WINNER] == 1  # team 1 was the bidding team
    out = np.zeros(4)
    E.returns(s, out)
    assert out.tolist() == [-1.0, 1.0, -1.0, 1.0]
    s[E.PHASE], s[E.WINNER], s[E.DECLARER] = E.PLAYING, -1, 0
    s[E.MATCH_SCORE:E.MATCH_SCORE + 2] = [50, 50]
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = [6, 4]
    E._score_hand(s)
    assert s[E.WINNER] == 0


def test_low_no_trump_variant_reverses_the_order_but_not_the_point_cards():
    game = pyspiel.load_game("cardlab_kaiser", {"low_no_trump": True, "min_bid": 7})
    state = deal(game.new_initial_state(), {
        0: "7C AC 7D 8D 9D TD JD QD",
        1: "8C 9C KD AD 8H 9H TH JH",
        2: "TC JC QC KC 5H QH KH AH",
        3: "3S 8S 9S TS JS QS KS AS",
    })
    assert "bid 7LNT" in [state.action_to_string(1, a) for a in state.legal_actions()]
    act(state, "bid 7LNT", "pass", "pass", "pass")  # P1 declares low no trump and leads
    act(state, "8H", "5H", "AS", "7C")  # 8H beats the 5H: 5H is the lowest heart
    assert state.array[E.TRICK_WINNERS] == 1
    act(state, "9C", "KC", "KS", "AC")  # clubs led: the 9 beats K and A
    assert state.array[E.TRICK_WINNERS + 1] == 1
