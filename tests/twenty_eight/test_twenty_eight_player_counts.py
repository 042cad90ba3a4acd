"""Twenty-Eight for three and six players (docs/variants.md 3.3, 13.6, 13.7): hand-built
scenarios for the deal, the auction, the rounds, the sides and the scoring of each count and
for rulings V-T1, V-T2 and V-T3; random-play invariants, rules players and resampling.

The checks every game shares (engine/wrapper agreement, OpenSpiel's random_sim_test) run over
both counts in tests/test_all_games.py.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from test_twenty_eight_variants import random_hand_invariants, resampling_keeps_the_information_state
from twenty_eight_scenarios import E, act, legal_strings, mask

from cardlab.games.twenty_eight import observation
from cardlab.games.twenty_eight.game import deal_chance_actions, validated_parameters
from cardlab.games.twenty_eight.rules import SIX_PLAYER_DECK, THREE_PLAYER_DECK

# Six players, dealer P0: sides P0+P3, P1+P4, P2+P5. P0 and P3 hold all nine clubs.
SIX_DEAL = ["JC 9C AC TC KC QC", "JH 9H AH TH KH QH", "JD 9D AD TD KD QD",
            "8C 7C 6C 8H 7H 6H", "JS 9S AS TS KS QS", "8D 7D 6D 8S 7S 6S"]
# The same hands with the clubs and hearts mixed: the bidding side P0+P3 holds six hearts.
SIX_PLAY = ["JC 9C AC JH 9H AH", "TC KC QC TH KH QH", "JD 9D AD TD KD QD",
            "8C 7C 6C 8H 7H 6H", "JS 9S AS TS KS QS", "8D 7D 6D 8S 7S 6S"]
# P0 bids 13 after P1's 12; five passes follow each bid.
SIX_BIDS = ["bid 12", "pass", "pass", "pass", "pass", "bid 13", "pass", "pass", "pass", "pass",
            "pass"]
# Three players, dealer P0: P2 is dealt all six diamonds.
THREE_FIRST = ["JC 9C AC TC", "JH 9H AH TH", "JD 9D AD TD"]
THREE_SECOND = ["KC QC JS 9S", "KH QH AS TS", "KD QD KS QS"]
# The same with TD and JS exchanged: P2 holds five diamonds.
THREE_PLAY_FIRST = ["JC 9C AC TC", "JH 9H AH TH", "JD 9D AD JS"]
THREE_PLAY_SECOND = ["KC QC TD 9S", "KH QH AS TS", "KD QD KS QS"]
THREE_BIDS = ["bid 12", "bid 13", "pass", "pass"]  # P2 wins with 13 after two passes


def six_player_deal(hands: list[str], dealer: int = 0, params: dict | None = None):
    """The state after the whole six-player deal (one stage of 36 chance nodes)."""
    game = pyspiel.load_game("cardlab_twenty_eight", {"players": 6, "dealer": dealer,
                                                      **(params or {})})
    state = game.new_initial_state()
    stage, _ = deal_chance_actions(dealer, [hand.split() for hand in hands])
    for card in stage:
        state.apply_action(card)
    return state


def three_player_start(params: dict | None = None, bids=THREE_BIDS, indicator="TD",
                       first=THREE_FIRST, second=THREE_SECOND):
    """Three players: stage 1, the first round, the indicator and stage 2: the bidder's raise node."""
    game = pyspiel.load_game("cardlab_twenty_eight", {"players": 3, **(params or {})})
    state = game.new_initial_state()
    stage1, stage2 = deal_chance_actions(0, [h.split() for h in first],
                                         [h.split() for h in second])
    for card in stage1:
        state.apply_action(card)
    act(state, *bids, f"trump {indicator}")
    for card in stage2:
        state.apply_action(card)
    return state


def play_high(state: pyspiel.State) -> pyspiel.State:
    """Everyone plays his strongest legal card, calling (or showing) only when no card is legal."""
    while not state.is_terminal():
        cards = [a for a in state.legal_actions() if a < 52]
        if not cards:
            act(state, "call trump")
            continue
        state.apply_action(max(cards, key=lambda card: E.STRENGTH[card]))
    return state


def bids_from(low: int) -> list[str]:
    return [f"bid {v}" for v in range(low, 29)]


def expected_returns(state: pyspiel.State) -> list[float]:
    """V-T3 from the record: the bidding side's G by ruling 8, the others share -G equally."""
    s = state.array
    n = int(s[E.NUM_PLAYERS])
    bidder = int(s[E.BIDDER])
    side = int(E.side_of(s, bidder))
    taken = 0
    for trick in range(int(s[E.TRICK_NUMBER])):  # the bidding side's card points, trick by trick
        if E.side_of(s, int(s[E.TRICK_WINNERS + trick])) == side:
            taken += sum(int(E.CARD_POINTS[int(s[E.TRICK_HISTORY + n * trick + p])])
                         for p in range(n))
    g = E.game_points_for(int(s[E.HIGH_BID]), taken >= s[E.HIGH_BID])
    bidding = [seat for seat in range(n) if E.side_of(s, seat) == side]
    share = -g * len(bidding) / (n - len(bidding))
    return [float(g) if seat in bidding else share for seat in range(n)]


# ---- Six players (13.7, V-T2) ----------------------------------------------------------------
def test_six_players_are_dealt_six_cards_each_from_36_before_the_auction():
    state = six_player_deal(SIX_DEAL)
    s = state.array
    assert s[E.DECK] == SIX_PLAYER_DECK and bin(SIX_PLAYER_DECK).count("1") == 36
    assert len(state.history()) == 36 and s[E.PHASE] == E.BIDDING
    assert [int(s[E.HANDS + seat]) for seat in range(6)] == [mask(h) for h in SIX_DEAL]
    assert state.current_player() == 1  # dealer + 1 opens, on all six cards
    assert legal_strings(state) == bids_from(12)  # opening minimum 12, no pass


def test_v_t2_partner_overcalls_below_20_and_five_passes_end_the_first_round():
    state = act(six_player_deal(SIX_DEAL), "bid 12", "pass", "pass")
    assert state.current_player() == 4  # P1's partner (seat + 3)
    assert legal_strings(state) == ["pass", *bids_from(20)]
    act(state, "pass", "pass")
    assert legal_strings(state) == ["pass", *bids_from(13)]  # P0, another side
    act(state, "bid 13", "pass", "pass", "pass", "pass")
    assert state.array[E.PHASE] == E.BIDDING  # four passes do not end it
    act(state, "pass")
    assert state.current_player() == 0 and state.array[E.PHASE] == E.PLACING
    # Clarification 3: any one of the six cards he holds goes face down.
    assert legal_strings(state) == [f"trump {c}" for c in ("9C", "TC", "JC", "QC", "KC", "AC")]


def test_six_players_go_from_the_indicator_straight_to_play_and_play_six_tricks_of_six():
    state = act(six_player_deal(SIX_PLAY), *SIX_BIDS, "trump AH")
    s = state.array
    assert s[E.PHASE] == E.PLAYING and s[E.RAISES] == -1  # no second deal, no second round
    assert state.current_player() == 1  # dealer + 1 leads
    assert legal_strings(state) == ["TC", "QC", "KC", "TH", "QH", "KH"]
    play_high(state)
    assert state.is_terminal() and state.array[E.TRICK_NUMBER] == 6
    played = state.array[E.TRICK_HISTORY:E.TRICK_HISTORY + 36]
    assert sorted(int(c) for c in played) == sorted(
        c for c in range(52) if SIX_PLAYER_DECK >> c & 1)
    assert state.returns() == expected_returns(state)


def test_v_t3_six_player_bidding_side_gets_g_and_the_four_others_minus_g_over_2():
    state = act(six_player_deal(SIX_PLAY), *SIX_BIDS, "trump AH")
    play_high(state)
    # P0 wins every trick (jacks, nines and aces of clubs and hearts): 28 points, a made 13.
    assert [int(w) for w in state.array[E.TRICK_WINNERS:E.TRICK_WINNERS + 6]] == [0] * 6
    assert state.array[E.CARD_POINTS_WON] == 28
    assert state.returns() == [1.0, -0.5, -0.5, 1.0, -0.5, -0.5]  # <= 19 band: G = +1
    assert "team P0+P3 28 (6 tricks)" in str(state)


def test_v_t2_ruling_7_voids_the_hand_when_the_bidding_side_held_all_nine_trumps():
    state = act(six_player_deal(SIX_DEAL), *SIX_BIDS, "trump QC", "JH")
    assert state.current_player() == 2 and "call trump" in legal_strings(state)  # no heart
    act(state, "call trump")
    assert state.is_terminal() and state.array[E.OUTCOME] == E.ALL_TRUMPS
    assert state.returns() == [0.0] * 6


def test_v_t2_four_jacks_void_the_hand_before_the_auction():
    hands = ["JC JH JD JS KC QC", "9H AH TH KH QH 8H", "9D AD TD KD QD 8D",
             "9C AC TC 8C 7C 6C", "9S AS TS KS QS 8S", "7D 6D 7H 6H 7S 6S"]
    state = six_player_deal(hands)
    assert state.is_terminal() and state.array[E.OUTCOME] == E.FOUR_JACKS
    assert state.array[E.NUM_BIDS] == 0 and state.returns() == [0.0] * 6


def test_six_player_opener_redeals_on_six_pointless_cards():
    hands = ["JC 9C AC TC JH 9H", "KC QC 8C 7C 6C KH", "AH TH QH 8H 7H 6H",
             "JD 9D AD TD KD QD", "JS 9S AS TS KS QS", "8D 7D 6D 8S 7S 6S"]
    state = six_player_deal(hands)
    assert legal_strings(state) == ["redeal", *bids_from(12)]
    act(state, "redeal")
    assert state.is_terminal() and state.array[E.OUTCOME] == E.REDEALT


def test_six_player_cot_offer_comes_from_the_seat_after_the_bidder():
    state = act(six_player_deal(SIX_DEAL, params={"cot": True}), *SIX_BIDS, "trump QC")
    assert state.current_player() == 1 and legal_strings(state) == ["pass", "surrender"]
    act(state, "surrender", "accept")
    assert state.returns() == [1.0, -0.5, -0.5, 1.0, -0.5, -0.5]  # a 13 bid made: G = +1


# ---- Three players (13.6, V-T1) --------------------------------------------------------------
def test_three_players_deal_two_stages_of_four_from_24_cards():
    game = pyspiel.load_game("cardlab_twenty_eight", {"players": 3})
    state = game.new_initial_state()
    assert state.array[E.DECK] == THREE_PLAYER_DECK and bin(THREE_PLAYER_DECK).count("1") == 24
    stage1, stage2 = deal_chance_actions(0, [h.split() for h in THREE_FIRST],
                                         [h.split() for h in THREE_SECOND])
    assert len(stage1) == len(stage2) == 12
    for card in stage1:
        state.apply_action(card)
    assert state.current_player() == 1 and legal_strings(state) == bids_from(12)


def test_v_t1_two_passes_end_the_first_round_without_a_partner_rule():
    game = pyspiel.load_game("cardlab_twenty_eight", {"players": 3})
    state = game.new_initial_state()
    stage1, _ = deal_chance_actions(0, [h.split() for h in THREE_FIRST],
                                    [h.split() for h in THREE_SECOND])
    for card in stage1:
        state.apply_action(card)
    act(state, "bid 12")
    assert legal_strings(state) == ["pass", *bids_from(13)]  # nobody is anyone's partner
    act(state, "bid 13", "pass")
    assert state.array[E.PHASE] == E.BIDDING
    act(state, "pass")
    assert state.array[E.PHASE] == E.PLACING and state.current_player() == 2


def test_v_t1_the_second_round_is_the_bidders_node_only():
    state = three_player_start()
    assert state.current_player() == 2 and legal_strings(state) == ["pass", *bids_from(24)]
    act(state, "bid 24")
    assert state.array[E.PHASE] == E.PLAYING and state.current_player() == 1
    assert state.array[E.HIGH_BID] == 24 and state.array[E.BIDDER] == 2


def test_v_t3_three_player_bidder_alone_gets_g_and_each_opponent_minus_g_over_2():
    state = act(three_player_start(indicator="AD", first=THREE_PLAY_FIRST,
                                   second=THREE_PLAY_SECOND), "pass")
    play_high(state)
    assert state.array[E.TRICK_NUMBER] == 8
    assert state.returns() == expected_returns(state)
    # P1 takes the first three tricks (16 points), P2 the rest once he shows: 12 < 13.
    assert list(state.array[E.CARD_POINTS_WON:E.CARD_POINTS_WON + 3]) == [0, 16, 12]
    assert state.returns() == [1.0, 1.0, -2.0]  # a failed 13: G = -2, each opponent +1


def test_three_player_ruling_7_voids_when_the_bidder_alone_held_all_six_trumps():
    state = act(three_player_start(), "pass", "JH")
    assert state.current_player() == 2 and legal_strings(state) == ["QS", "KS", "call trump"]
    act(state, "call trump")  # the bidder shows: P2 was dealt every diamond
    assert state.array[E.OUTCOME] == E.ALL_TRUMPS and state.returns() == [0.0] * 3


def test_three_player_thani_is_the_bidders_alone():
    state = three_player_start({"thani": True})
    assert legal_strings(state)[:2] == ["pass", "thani"]
    act(state, "thani")
    assert state.current_player() == 2  # the Thani bidder leads


def test_three_player_pointless_shows_give_every_seat_a_node():
    state = three_player_start({"pointless_hand_redeal": True})
    seats = []
    for _ in range(3):
        seats.append(state.current_player())
        act(state, "pass")
    assert seats == [1, 2, 0] and state.current_player() == 2  # then the bidder's raise node


# ---- load_game -------------------------------------------------------------------------------
@pytest.mark.parametrize("params, message", [
    ({"players": 6, "thani": True}, "thani"),
    ({"players": 6, "pointless_hand_redeal": True}, "pointless_hand_redeal"),
    ({"players": 3, "dealer": 3}, "dealer"),
    ({"players": 5}, "players"),
])
def test_player_count_rejects(params, message):
    with pytest.raises(ValueError, match=message):
        validated_parameters(params)
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game("cardlab_twenty_eight", params)


def test_game_info_follows_the_player_count():
    for players in (3, 6):
        game = pyspiel.load_game("cardlab_twenty_eight", {"players": players})
        assert game.num_players() == players and game.num_distinct_actions() == 89
        state = game.new_initial_state()
        sizes = dict(observation.tensor_pieces(state.array, True))
        assert sizes["played_by_seat"] == players * 52
        assert len(state.information_state_tensor(0)) == sum(sizes.values())
    standard = pyspiel.load_game("cardlab_twenty_eight").new_initial_state()
    assert len(standard.information_state_tensor(0)) == observation.INFORMATION_STATE_SIZE


# ---- Random play -----------------------------------------------------------------------------
COUNT_SETTINGS = [
    {"players": 6}, {"players": 6, "cot": True, "jack_discard_restriction": True},
    {"players": 3}, {"players": 3, "cot": True, "jack_discard_restriction": True, "thani": True,
                     "pointless_hand_redeal": True},
]
COUNT_IDS = ["six", "six-variants", "three", "three-variants"]


def count_invariants(params: dict, hands: int, seed: int) -> np.ndarray:
    """The variants' random-hand invariants (zero-sum, bounded, card points) and most hands played."""
    results = random_hand_invariants(params, hands, seed)
    played = (results[:, 5] == E.PLAYED_OUT) & (results[:, 3] >= 0)
    assert played.mean() > 0.5
    return results


@pytest.mark.parametrize("params", COUNT_SETTINGS, ids=COUNT_IDS)
def test_random_hands_keep_the_invariants_for_each_player_count(params):
    count_invariants(params, 500, 21)


@pytest.mark.slow
@pytest.mark.parametrize("params", COUNT_SETTINGS, ids=COUNT_IDS)
def test_ten_thousand_random_hands_keep_the_invariants_for_each_player_count(params):
    results = count_invariants(params, 10_000, 22)
    outcomes = set(results[:, 5].astype(int))
    # Three players: the bidder alone is often dealt all six trumps; six players: a side holds
    # all nine too rarely to see, but four jacks in six cards come up.
    rare = E.ALL_TRUMPS if params["players"] == 3 else E.FOUR_JACKS
    assert {E.PLAYED_OUT, E.REDEALT, rare} <= outcomes


@pytest.mark.parametrize("players", [3, 6])
def test_rules_bots_play_every_player_count(players):
    from cardlab import agents
    from cardlab.arena import play_deal

    game = pyspiel.load_game("cardlab_twenty_eight", {"players": players, "cot": True})
    for seed in range(20):
        bots = [agents.make("rules", game, seat, seed + seat) for seat in range(players)]
        state, returns = play_deal(game, bots, seed)
        assert state.is_terminal() and abs(sum(returns)) < 1e-9


@pytest.mark.parametrize("params", COUNT_SETTINGS, ids=COUNT_IDS)
def test_resampled_worlds_keep_the_information_state_for_each_player_count(params):
    resampling_keeps_the_information_state(params, 100, 9)


@pytest.mark.parametrize("players, sides", [(3, 3), (6, 3)])
def test_a_tournament_runs_each_player_count_in_the_compiled_arena(capsys, tmp_path, players, sides):
    """``cardlab tournament --param players=N``: the compiled loop plays the count."""
    import pyarrow.parquet as pq

    from cardlab.cli import main

    out = tmp_path / "r"
    code = main(["tournament", "--game", "28", "--agents", "rules,random", "--deals", "3",
                 "--seed", "5", "--out", str(out), "--workers", "1", "--quiet",
                 "--param", f"players={players}", "--param", "cot=true"])
    assert code == 0, capsys.readouterr().err
    rows = [row for part in sorted(out.glob("part-*.parquet")) for row in pq.read_table(part).to_pylist()]
    assert len(rows) == 3 * sides  # one seating per side of the table (each pair: rules, random)
    assert all(len(row["returns"]) == players and abs(sum(row["returns"])) < 1e-9 for row in rows)
    assert all(len(row["card_points"]) == sides for row in rows)
