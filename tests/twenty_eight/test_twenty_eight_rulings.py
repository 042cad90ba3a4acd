"""One test per bullet of Twenty-Eight's rulings 1-8 (docs/rules/twenty_eight.md#rulings), on set deals."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from twenty_eight_scenarios import (
    EXAMPLE1_FIRST,
    EXAMPLE1_SECOND,
    JSPADES_FIRST,
    JSPADES_SECOND,
    LEADER_FIRST,
    LEADER_SECOND,
    OPENING,
    E,
    act,
    cards,
    deal,
    legal_strings,
    mask,
    start,
)

from cardlab.core.cards import parse_card


def first_round(first: list[str], dealer: int = 0) -> pyspiel.State:
    game = pyspiel.load_game("cardlab_twenty_eight", {"dealer": dealer})
    state = game.new_initial_state()
    stage1, _ = deal(first, EXAMPLE1_SECOND, dealer)
    for card in stage1:
        state.apply_action(card)
    return state


# ---- Ruling 1: stage-1 deal and first round ---------------------------------------
@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_r1_stage_one_deals_four_each_from_dealer_plus_one(dealer):
    state = pyspiel.load_game("cardlab_twenty_eight", {"dealer": dealer}).new_initial_state()
    receivers = []
    for _k in range(16):
        assert state.is_chance_node()
        card = state.chance_outcomes()[0][0]
        before = [int(state.array[E.HANDS + seat]) for seat in range(4)]
        state.apply_action(card)
        receivers.append(next(seat for seat in range(4)
                              if state.array[E.HANDS + seat] != before[seat]))
    assert receivers == [(dealer + 1 + k) % 4 for k in range(16)]
    assert [bin(int(state.array[E.HANDS + seat])).count("1") for seat in range(4)] == [4] * 4
    assert state.current_player() == (dealer + 1) % 4  # bidding starts at dealer + 1


def test_r1_opener_must_bid_at_least_14_and_may_not_pass():
    state = first_round(EXAMPLE1_FIRST)  # P1 holds 8H 7H JS 9S: point cards
    assert legal_strings(state) == [f"bid {v}" for v in range(14, 29)]


def test_r1_redeal_only_for_opener_without_point_cards_voids_the_hand():
    pointless = ["JC 9C AC TC", "KH QH 8H 7H", "JD 9D AD TD", "JS 9S AS TS"]
    state = first_round(pointless)
    assert legal_strings(state) == ["redeal"] + [f"bid {v}" for v in range(14, 29)]
    act(state, "redeal")
    assert state.is_terminal()
    assert state.returns() == [0.0] * 4
    # Later speakers never get the redeal, even with pointless cards.
    state = first_round(["KH QH 8H 7H", "JC 9C AC TC", "KS QS 8S 7S", "JD 9D AD TD"])
    act(state, "bid 14")
    assert "redeal" not in legal_strings(state)


def test_r1_bidding_runs_rounds_until_three_passes_and_passed_players_bid_again():
    state = first_round(EXAMPLE1_FIRST)
    act(state, "bid 14", "pass", "pass", "bid 15", "pass", "pass")  # P1 P2 P3 P0 P1 P2
    assert state.current_player() == 3 and "bid 16" in legal_strings(state)
    act(state, "bid 16", "pass", "pass")  # P3 passed before and bids again
    assert state.array[E.PHASE] == E.BIDDING  # two passes do not end it
    act(state, "pass")
    assert state.array[E.PHASE] == E.PLACING
    assert state.current_player() == 3 and state.array[E.HIGH_BID] == 16


def test_r1_no_overcall_of_partner_below_20():
    state = first_round(EXAMPLE1_FIRST)
    act(state, "bid 14", "pass")  # P1 bids, P2 passes; P3 is P1's partner
    assert legal_strings(state) == ["pass"] + [f"bid {v}" for v in range(20, 29)]
    act(state, "bid 20")
    assert legal_strings(state) == ["pass"] + [f"bid {v}" for v in range(21, 29)]  # P0: opponent


# ---- Ruling 2: the face-down indicator ------------------------------------------------
def test_r2_bidder_places_one_of_his_four_cards_which_leaves_his_hand():
    state = first_round(EXAMPLE1_FIRST)
    act(state, *OPENING)
    assert state.current_player() == 0
    assert legal_strings(state) == ["trump 7C", "trump 8C", "trump KH", "trump AH"]
    act(state, "trump 7C")
    s = state.array
    assert s[E.INDICATOR] == parse_card("7C") and s[E.TRUMP] == 0
    assert s[E.HANDS + 0] == mask("8C AH KH")
    assert "7C" in state.information_state_string(0)
    for other in (1, 2, 3):
        assert "7C" not in state.information_state_string(other)
        assert "trump hidden" in state.observation_string(other)


# ---- Ruling 3: stage-2 deal and four jacks ---------------------------------------------
def test_r3_stage_two_deals_sixteen_more_cards_in_order():
    state = first_round(EXAMPLE1_FIRST)
    act(state, *OPENING, "trump 7C")
    _, stage2 = deal(EXAMPLE1_FIRST, EXAMPLE1_SECOND)
    for k, card in enumerate(stage2):
        assert state.is_chance_node()
        state.apply_action(card)
        assert state.array[E.HANDS + (1 + k) % 4] >> card & 1
    assert state.current_player() == 0 and state.array[E.PHASE] == E.RAISING
    assert [bin(int(state.array[E.DEALT + seat])).count("1") for seat in range(4)] == [8] * 4


def test_r3_four_jacks_void_the_hand_indicator_counted_as_bidders():
    first = ["JS JH JD 7C", "8H 7H AS 9S", "AC 9C TC KC", "QC 8C 8S 7S"]
    second = ["JC 9H TH QH", "KS TS QS 9D", "KD QD 8D 7D", "AH KH AD TD"]
    state = first_round(first)
    act(state, *OPENING, "trump JS")  # P0 places a jack: his hand holds only two
    _, stage2 = deal(first, second)
    for card in stage2:
        state.apply_action(card)
    assert state.is_terminal() and state.array[E.OUTCOME] == E.FOUR_JACKS
    assert state.returns() == [0.0] * 4


# ---- Ruling 4: second round ------------------------------------------------------------
def test_r4_bidder_then_partner_raise_to_at_least_24_bidder_keeps_indicator():
    state = first_round(EXAMPLE1_FIRST)
    act(state, *OPENING, "trump 7C")
    for card in deal(EXAMPLE1_FIRST, EXAMPLE1_SECOND)[1]:
        state.apply_action(card)
    assert state.current_player() == 0
    assert legal_strings(state) == ["pass"] + [f"bid {v}" for v in range(24, 29)]
    act(state, "bid 24")
    assert state.current_player() == 2
    assert legal_strings(state) == ["pass"] + [f"bid {v}" for v in range(25, 29)]
    act(state, "pass")
    s = state.array
    assert s[E.PHASE] == E.PLAYING and s[E.BIDDER] == 0 and s[E.HIGH_BID] == 24
    assert s[E.INDICATOR] == parse_card("7C")


def test_r4_partners_raise_makes_him_bidder_and_returns_the_old_indicator():
    state = first_round(EXAMPLE1_FIRST)
    act(state, *OPENING, "trump 7C")
    for card in deal(EXAMPLE1_FIRST, EXAMPLE1_SECOND)[1]:
        state.apply_action(card)
    act(state, "pass", "bid 25")
    s = state.array
    assert s[E.BIDDER] == 2 and s[E.PHASE] == E.PLACING and state.current_player() == 2
    assert s[E.HANDS + 0] >> parse_card("7C") & 1  # back in the old bidder's hand
    assert legal_strings(state) == ["trump " + c for c in
                                    "9C TC JC AC 7D 8D QD KD".split()]
    act(state, "trump KD")
    assert s[E.TRUMP] == 1 and s[E.PHASE] == E.PLAYING
    assert not s[E.HANDS + 2] >> parse_card("KD") & 1
    assert s[E.HIGH_BID] == 25 and state.current_player() == 1


# ---- Ruling 5: phase 1 -----------------------------------------------------------------
def test_r5_dealer_plus_one_leads_and_must_follow_suit():
    state = start(EXAMPLE1_FIRST, EXAMPLE1_SECOND, OPENING, "7C", dealer=0)
    assert state.current_player() == 1
    state = start(LEADER_FIRST, LEADER_SECOND, ["bid 16", "pass", "pass", "pass"], "7S")
    act(state, "JH", "JC")  # P2 has no heart
    assert legal_strings(state) == ["8H", "9H", "TH", "QH", "KH", "AH"]  # P3 follows, no call


def test_r5_only_a_player_who_cannot_follow_may_call_and_the_leader_never():
    state = start(LEADER_FIRST, LEADER_SECOND, ["bid 16", "pass", "pass", "pass"], "7S")
    assert "call trump" not in legal_strings(state)  # leader (the bidder)
    act(state, "JH")
    assert legal_strings(state)[-1] == "call trump"  # P2 is out of hearts
    state = start(EXAMPLE1_FIRST, EXAMPLE1_SECOND, OPENING, "7C")
    assert "call trump" not in legal_strings(state)  # leader P1, a non-bidder


def test_r5_call_shows_trump_indicator_joins_bidder_and_caller_must_trump():
    state = start(EXAMPLE1_FIRST, EXAMPLE1_SECOND, OPENING, "7C")
    act(state, "8H", "AC")  # P2 discards without calling
    assert "call trump" in legal_strings(state)
    act(state, "call trump")
    s = state.array
    assert s[E.TRUMP_SHOWN] == 1 and s[E.CALLER] == 3 and s[E.TRUMPS_FROM] == 2
    assert s[E.HANDS + 0] >> parse_card("7C") & 1
    assert state.current_player() == 3
    assert legal_strings(state) == ["QC", "KC"]  # a trump, since he holds one
    assert "trump C shown (indicator 7C)" in state.observation_string(1)


def test_r5_caller_without_trump_plays_any_card():
    state = start(JSPADES_FIRST, JSPADES_SECOND, OPENING, "8S")
    act(state, "JS", "call trump")  # P2 holds no spade
    assert legal_strings(state) == ["8D", "9D", "TD", "JD", "KD", "AD", "8H", "9H"]


def test_r5_bidder_leading_no_trump_suit_unless_nothing_else_and_no_show():
    state = start(LEADER_FIRST, LEADER_SECOND, ["bid 16", "pass", "pass", "pass"], "7S")
    assert state.current_player() == 1 == state.array[E.BIDDER]
    assert legal_strings(state) == ["7C", "7D", "8D", "JH"]  # no spade, no call
    # With only trump-suit cards left he must lead one; it has no trump power.
    s = state.array.copy()
    s[E.HANDS + 1] = mask("JS 9S")
    out = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = E.legal_actions(s, out)
    assert sorted(out[:n]) == sorted(cards("JS 9S"))


def test_r5_bidder_cannot_follow_plain_lead_plays_plain_or_shows_then_trumps():
    # P0 bids with spades (8S face down); P1 leads a club, P0 has none left after trick 1.
    state = start(JSPADES_FIRST, JSPADES_SECOND, OPENING, "8S")
    s = state.array.copy()
    s[E.HANDS + 0] = mask("7S QD")  # bidder: a trump and a diamond, no club
    s[E.TRICK] = parse_card("JC")
    s[E.TRICK + 1], s[E.TRICK + 2] = parse_card("7D"), parse_card("JH")
    s[E.TRICK_SIZE] = 3
    s[E.TO_MOVE] = 0
    out = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = E.legal_actions(s, out)
    assert out[:n].tolist() == [parse_card("QD"), 53]  # no trump from hand
    E.apply_action(s, 53)
    n = E.legal_actions(s, out)
    assert out[:n].tolist() == sorted(cards("7S 8S"))  # must play a trump
    # Holding only trumps, showing is his only action.
    s = state.array.copy()
    s[E.HANDS + 0] = mask("7S")
    s[E.TRICK], s[E.TRICK_SIZE], s[E.TO_MOVE] = parse_card("JC"), 1, 0
    n = E.legal_actions(s, out)
    assert out[:n].tolist() == [53]


def test_r5_bidder_on_trump_lead_follows_from_hand_else_any_card_or_show_indicator():
    state = start(JSPADES_FIRST, JSPADES_SECOND, OPENING, "8S")
    act(state, "JS", "8D", "KS")  # P2 discards without calling
    assert legal_strings(state) == ["7S"]  # the bidder follows from his hand
    s = state.array.copy()
    s[E.HANDS + 0] = mask("AC QD")  # no trump in hand
    out = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = E.legal_actions(s, out)
    assert out[:n].tolist() == sorted(cards("AC QD")) + [53]
    E.apply_action(s, 53)
    n = E.legal_actions(s, out)
    assert out[:n].tolist() == [parse_card("8S")]  # must follow with the indicator


def test_r5_bidder_with_empty_hand_plays_the_indicator_shown_as_a_trump():
    state = start(JSPADES_FIRST, JSPADES_SECOND, OPENING, "8S")
    s = state.array
    # Trick 8, trump still hidden: P1 leads AC, P2 plays 9D, P3 plays 7H, P0's hand is empty.
    for seat, hand in ((0, ""), (1, "AC"), (2, "9D"), (3, "7H")):
        s[E.HANDS + seat] = mask(hand) if hand else 0
    s[E.TRICK_NUMBER] = 7
    state.refresh()
    for card in ("AC", "9D", "7H"):
        act(state, card)
    assert legal_strings(state) == ["8S"]
    act(state, "8S")
    assert s[E.TRUMP_SHOWN] == 1 and s[E.CALLER] == -1
    assert state.is_terminal() and s[E.TRICK_WINNERS + 7] == 0  # the indicator won as a trump
    assert s[E.TRICK_TRUMPS_FROM + 7] == 3


def test_r5_phase_one_trick_goes_to_highest_card_of_led_suit_trump_suit_ordinary():
    state = start(JSPADES_FIRST, JSPADES_SECOND, OPENING, "8S")
    act(state, "TC", "8D", "AH", "AC")  # P2, P3 discard without calling; trump hidden
    assert state.array[E.TRICK_WINNERS] == 0  # AC beats TC
    act(state, "QC", "JC", "KD", "KH")  # a spade-less trick: P1's JC wins the clubs
    assert state.array[E.TRICK_WINNERS + 1] == 1
    act(state, "9S", "9D", "QS", "7S")  # spades led while hidden: 9S highest, no trumps
    assert state.array[E.TRICK_WINNERS + 2] == 1 and state.array[E.TRUMP_SHOWN] == 0


# ---- Ruling 6: phase 2 -------------------------------------------------------------------
def test_r6_example1_discard_before_show_is_not_a_trump():
    """Example 1 (docs/rules/twenty_eight.md#examples): 8H led, AC thrown, the third calls, wins with QC."""
    state = start(EXAMPLE1_FIRST, EXAMPLE1_SECOND, OPENING, "7C")
    act(state, "8H", "AC", "call trump", "QC", "AH")
    assert state.array[E.TRICK_WINNERS] == 3


def test_r6_jspades_example_kspades_after_show_beats_jspades_before():
    """Example 2 (docs/rules/twenty_eight.md#examples): J led before the show is no trump; K after is."""
    state = start(JSPADES_FIRST, JSPADES_SECOND, OPENING, "8S")
    act(state, "JS", "call trump", "8D", "KS")
    assert E.current_trick_winner(state.array) == 2  # P3's KS is winning
    act(state, "7S")
    assert state.array[E.TRICK_WINNERS] == 3


def test_r6_after_show_follow_suit_highest_trump_wins_no_restrictions():
    state = start(EXAMPLE1_FIRST, EXAMPLE1_SECOND, OPENING, "7C")
    act(state, "8H", "AC", "call trump", "QC", "AH")  # P3 wins, leads next
    act(state, "JD")
    assert legal_strings(state) == ["7C", "8C", "9H", "TH", "JH", "QH", "KH"]  # P0 void in D
    act(state, "7C")  # the indicator, now an ordinary trump in hand
    act(state, "7H", "KD")
    assert state.array[E.TRICK_WINNERS + 1] == 0  # the trump beats the diamonds
    assert "8C" in legal_strings(state)  # the bidder may lead a trump now


# ---- Ruling 7: bidding team dealt every trump ------------------------------------------
def test_r7_show_revealing_all_eight_trumps_with_bidding_team_voids_the_hand():
    first = list(EXAMPLE1_FIRST)
    second = list(EXAMPLE1_SECOND)
    first[3] = "KD QD 8S 7S"  # P3 gives his clubs to P2: team 0-2 holds all 8 clubs
    second[2] = "KC QC 8D 7D"
    state = start(first, second, OPENING, "7C")
    act(state, "8H", "call trump")
    assert state.is_terminal() and state.array[E.OUTCOME] == E.ALL_TRUMPS
    assert state.returns() == [0.0] * 4


# ---- Ruling 8: result ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "bid, made, points",
    [(14, True, 1), (19, True, 1), (19, False, -2), (20, True, 2), (24, False, -3),
     (25, True, 3), (28, False, -4)],
)
def test_r8_game_points_by_final_bid(bid, made, points):
    assert E.game_points_for(bid, made) == points


def test_r8_hand_returns_bidding_team_plus_minus_g():
    state = start(EXAMPLE1_FIRST, EXAMPLE1_SECOND, OPENING, "7C")
    rng = np.random.default_rng(5)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(int(rng.choice(legal)))
    s = state.array
    taken = int(s[E.CARD_POINTS_WON])  # bidding team 0 (bidder P0, bid 15)
    assert taken + s[E.CARD_POINTS_WON + 1] == 28
    g = E.game_points_for(15, taken >= 15)
    assert state.returns() == [g, -g, g, -g]
