"""Kaiser's Lost Heir form (docs/rules/kaiser.md#variants, 11.10, rulings V-K12 ... V-K16).

One hand-built scenario per ruling: the pack and its orders (V-K12), the Lost Heir and the Wrong
Boy as trumps and the blanks in play (V-K13), blanks cancelling the specials' points (V-K14), the
dealer's sale both ways and the dealer's forced bid (V-K15), scoring and the target 25 (V-K16),
the rejected combinations; what a seat knows (voids, strings, keys, resampling at every node),
the rules player, random-play invariants (500 hands; 10,000 under ``-m slow``) and the compiled
arena. Engine/wrapper agreement and random_sim_test run in tests/test_all_games.py.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, deal, game_loader, tournament_rows
from test_kaiser_forms import SUIT_EACH

from cardlab import agents
from cardlab.core.bitboard import popcount
from cardlab.core.cards import card_string, cards_string, mask_of, parse_card
from cardlab.core.rng import make_stream
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state
from cardlab.games.kaiser.observation import encode, tensor_pieces
from cardlab.games.kaiser.rules import (
    BLANKS,
    FORM_DECK,
    FORM_STRENGTH,
    LOST_HEIR,
    LOST_HEIR_HAND_POINTS,
    LOST_HEIR_PLAY_STRENGTH,
    PASS,
    bid_action,
)
from cardlab.games.kaiser.sampling import resample_hidden_hands
from cardlab.games.kaiser.strategy import rules_action

# P0 deals, so P1 speaks first and P0 last. SUIT_EACH: one suit per seat, the kings with their own
# suits (the Les Rois pack is Lost Heir's). MIXED: P1 holds the Lost Heir, P3 the Wrong Boy, P0 and
# P2 a blank each.
MIXED = {
    0: "7C 6D 5D KD 4H 3H 2S AS",
    1: "AC 7D 3D 2D 7H 6S 5S KH",
    2: "KC 2C 6H 5H AH AD 3S 7S",
    3: "6C 5C 4C 3C 4D 2H 4S KS",
}


load = game_loader("cardlab_kaiser", lost_heir=True)


def table(hands: dict[int, str], trump: str, leader: int, declarer: int = 1, bid: int = 6) -> np.ndarray:
    """An engine state in the middle of a Lost Heir hand (trump fixed, trick 2): these hands,
    ``leader`` to lead."""
    s = new_engine_state({"lost_heir": True})
    s[E.PHASE], s[E.DECLARER], s[E.HIGH_BID] = E.PLAYING, declarer, 3 * bid
    s[E.TRUMP] = "CDHS".index(trump)
    s[E.TRICK_NUMBER] = 1
    s[E.TRICK_LEADER] = s[E.TO_MOVE] = leader
    for seat, text in hands.items():
        s[E.HANDS + seat] = s[E.DEALT + seat] = mask_of(text.split())
    return s


def playable(s: np.ndarray) -> str:
    return cards_string(int(E.playable_cards(s, s[E.TO_MOVE])))


def play(s: np.ndarray, *cards: str) -> np.ndarray:
    for card in cards:
        assert (E.playable_cards(s, s[E.TO_MOVE]) >> parse_card(card)) & 1, (card, playable(s))
        E.apply_action(s, parse_card(card))
    return s


def hand_points(s: np.ndarray) -> list[int]:
    return s[E.HAND_POINTS:E.HAND_POINTS + 2].tolist()


# ---- V-K12: the pack ----------------------------------------------------------------------------
def test_pack_and_orders_v_k12():
    pack = [card_string(c) for c in range(52) if FORM_DECK[LOST_HEIR] >> c & 1]
    assert pack == [f"{r}{s}" for s in "CDHS" for r in "234567KA"]  # 7 ... A of each suit, 4 kings
    assert load().new_initial_state().array[E.DECK] == FORM_DECK[LOST_HEIR]
    # Each printed suit runs 7 (high) ... 2, A (low); the kings stand outside it.
    for suit in "CDHS":
        plain = sorted((f"{r}{suit}" for r in "765432A"),
                       key=lambda c: -FORM_STRENGTH[LOST_HEIR][parse_card(c)])
        assert plain == [f"{r}{suit}" for r in "765432A"]
        assert FORM_STRENGTH[LOST_HEIR][parse_card(f"K{suit}")] == -1
    # In play the Lost Heir tops the trump suit and the Wrong Boy ends it (KH > 7 > ... > A > KS).
    order = sorted(("KH", "7C", "2C", "AC", "KS"), key=lambda c: -LOST_HEIR_PLAY_STRENGTH[parse_card(c)])
    assert order == ["KH", "7C", "2C", "AC", "KS"]
    assert popcount(BLANKS) == 2 and cards_string(BLANKS) == "KC KD"


# ---- V-K13: the specials in play -------------------------------------------------------------------
def test_first_lead_is_a_suit_card_and_fixes_trump_v_k13():
    state = deal(load().new_initial_state(), MIXED)
    act(state, "bid 6", "pass", "pass", "pass")  # the dealer sells; P1 declares
    assert state.array[E.PHASE] == E.PLAYING and E.trump_to_be_led(state.array)
    legal = {state.action_to_string(1, a) for a in state.legal_actions()}
    assert legal == {"AC", "7D", "3D", "2D", "7H", "6S", "5S"}  # not the Lost Heir
    act(state, "2D")
    assert state.array[E.TRUMP] == 1 and "trump: D" in str(state)
    # P2 has no diamond but the AD ... so must play it; P3 has the 4D.
    assert [state.action_to_string(2, a) for a in state.legal_actions()] == ["AD"]
    act(state, "AD")
    assert [state.action_to_string(3, a) for a in state.legal_actions()] == ["4D", "KS"]  # a trump


def test_lost_heir_and_wrong_boy_belong_to_the_trump_suit_v_k13():
    hands = {0: "3C KH 5H 6D", 1: "2C 7H 4D AS", 2: "KS 2H 5D 6S", 3: "4C 3H 3D 7S"}
    # Clubs are trump: a club lead must be followed by the Lost Heir or the Wrong Boy.
    s = table(hands, "C", leader=3)
    play(s, "4C")
    assert playable(s) == "3C KH"
    play(s, "KH", "2C")
    assert playable(s) == "KS"  # P2's only trump is the Wrong Boy
    play(s, "KS")
    assert s[E.TRICK_WINNERS + 1] == 0  # the Lost Heir wins: 1 + 5 - 3
    assert hand_points(s) == [1 + 5 - 3, 0]
    # A heart lead is not followed by the Lost Heir: it is a club (trump) here.
    s = table({0: "KH 6D", 1: "7H 4D", 2: "2H 5D", 3: "3H 3D"}, "C", leader=1)
    play(s, "7H", "2H", "3H")
    assert playable(s) == "6D KH"  # P0 holds no heart: any card
    play(s, "KH")
    assert s[E.TRICK_WINNERS + 1] == 0 and s[E.VOIDS + 0] == 1 << 2  # P0 showed out of hearts
    # The Wrong Boy ruffs a side suit but loses to every other trump, the A included.
    s = table({0: "KS 6D", 1: "7H 4D", 2: "AC 5D", 3: "3H 3D"}, "C", leader=1)
    play(s, "7H", "AC", "3H", "KS")
    assert s[E.TRICK_WINNERS + 1] == 2
    s = table({0: "KS 6D", 1: "7H 4D", 2: "2D 5D", 3: "3H 3D"}, "C", leader=1)
    play(s, "7H", "2D", "3H", "KS")
    assert s[E.TRICK_WINNERS + 1] == 0 and hand_points(s) == [1 - 3, 0]


def test_blanks_follow_only_when_out_of_suit_and_never_win_v_k13():
    hands = {0: "KC 6D 2S", 1: "7H 4D 3C", 2: "KD 5D 3H", 3: "4H 3D 7S"}
    s = table(hands, "S", leader=1)
    play(s, "7H")
    assert playable(s) == "3H"  # P2 holds a heart: no blank
    play(s, "3H", "4H")
    assert playable(s) == "KC 6D 2S"  # P0 cannot follow: any card, the blank too
    play(s, "KC")
    assert s[E.TRICK_WINNERS + 1] == 1 and s[E.VOIDS + 0] == 1 << 2
    # A blank is never led from a hand that holds anything else ...
    assert playable(s) == "3C 4D"
    s = table({0: "KC 6D", 1: "KD 4D", 2: "5D 3H", 3: "3D 7S"}, "S", leader=1)
    assert playable(s) == "4D"


def test_a_blank_led_from_a_hand_of_blanks_v_k13():
    s = table({0: "6D 2S", 1: "KD KC", 2: "5D 3H", 3: "3D 7S"}, "S", leader=1)
    assert playable(s) == "KC KD"
    play(s, "KD")
    assert s[E.VOIDS + 1] == 0b1111  # a hand of blanks only: out of every suit
    assert playable(s) == "5D 3H"  # nothing fixes the led suit yet: any card
    play(s, "3H")  # the first card that is not a blank fixes hearts as the led suit
    assert playable(s) == "3D 7S" and s[E.VOIDS + 2] == 0
    play(s, "3D")
    assert s[E.VOIDS + 3] == 1 << 2  # P3 showed out of hearts
    play(s, "6D")
    assert s[E.TRICK_WINNERS + 1] == 2  # the 3H: the blank led never wins
    # A second blank before any suit card: the next card still fixes the suit.
    s = table({0: "5D 2S", 1: "KD", 2: "KC 3H", 3: "3D 7S"}, "S", leader=1)
    play(s, "KD")
    assert playable(s) == "KC 3H"
    play(s, "KC")
    assert playable(s) == "3D 7S" and s[E.VOIDS + 2] == 0
    play(s, "3D")
    assert playable(s) == "5D"
    play(s, "5D")
    assert s[E.TRICK_WINNERS + 1] == 0


# ---- V-K14: blanks cancel -------------------------------------------------------------------------
def test_a_blank_cancels_the_lost_heir_and_the_wrong_boy_v_k14():
    # The Lost Heir wins a trick holding a blank: 1 point, not 6.
    s = table({0: "KH", 1: "7H", 2: "KC", 3: "3H"}, "C", leader=1)
    play(s, "7H", "KC", "3H", "KH")
    assert s[E.TRICK_WINNERS + 1] == 0 and hand_points(s) == [1, 0]
    # The Wrong Boy's -3 is cancelled too, and so are both together.
    s = table({0: "KS", 1: "7H", 2: "KD", 3: "3H"}, "C", leader=1)
    play(s, "7H", "KD", "3H", "KS")
    assert hand_points(s) == [1, 0]
    s = table({0: "KS", 1: "KH", 2: "KD", 3: "3C"}, "C", leader=1)
    play(s, "KH", "KD", "3C", "KS")
    assert s[E.TRICK_WINNERS + 1] == 1 and hand_points(s) == [0, 1]
    # Without a blank both count.
    s = table({0: "KS", 1: "KH", 2: "2C", 3: "3C"}, "C", leader=1)
    play(s, "KH", "2C", "3C", "KS")
    assert hand_points(s) == [0, 1 + 5 - 3]


# ---- V-K15: the sale --------------------------------------------------------------------------------
def test_dealer_accepts_the_sale_v_k15():
    state = deal(load().new_initial_state(), MIXED)
    act(state, "bid 6", "bid 7", "pass")
    # The dealer: 52 accepts, 60 + 3v refuses; no other bid, no misdeal.
    assert state.legal_actions() == [PASS, bid_action(7, 0)]
    act(state, "pass")
    assert state.array[E.DECLARER] == 2 and E.sold(state.array)
    assert "sold: team 0 scores +7 for the sale" in state.information_state_string(3)
    assert E.trump_to_be_led(state.array) and state.current_player() == 2


def test_dealer_refuses_the_sale_and_declares_v_k15():
    state = deal(load().new_initial_state(), MIXED)
    act(state, "bid 8", "pass", "pass")
    assert state.legal_actions() == [PASS, bid_action(8, 0)]  # never higher
    act(state, "bid 8")
    assert state.array[E.DECLARER] == 0 and state.array[E.HIGH_BID] == 24
    assert not E.sold(state.array) and state.current_player() == 0


def test_dealer_declares_at_the_minimum_when_nobody_bids_v_k15():
    state = deal(load().new_initial_state(), MIXED)
    act(state, "pass", "pass", "pass")
    assert state.legal_actions() == [bid_action(6, 0)]
    state = deal(load(min_bid=7).new_initial_state(), MIXED)
    act(state, "pass", "pass", "pass")
    assert state.legal_actions() == [bid_action(7, 0)]
    # With dealer_may_pass he may throw the hand in instead.
    state = deal(load(dealer_may_pass=True).new_initial_state(), MIXED)
    act(state, "pass", "pass", "pass")
    assert state.legal_actions() == [PASS, bid_action(6, 0)]
    act(state, "pass")
    assert state.is_terminal() and state.returns() == [0.0] * 4
    assert "everyone passed: void hand" in str(state)


def test_non_dealers_bid_with_trump_only_above_the_high_bid_v_k15():
    state = deal(load().new_initial_state(), MIXED)
    assert state.legal_actions() == [PASS] + [bid_action(v, 0) for v in range(6, 13)]
    act(state, "bid 9")
    assert state.legal_actions() == [PASS] + [bid_action(v, 0) for v in range(10, 13)]


# ---- V-K16: scoring ------------------------------------------------------------------------------
def scored(params: dict, declarer: int, bid: int, points: tuple[int, int], dealer_says: str = "bid",
           scores: tuple[int, int] = (0, 0)) -> np.ndarray:
    """The state after scoring a Lost Heir hand (dealer P0) with these hand points: the dealer
    either bid (refused, or declared at m) or passed (sold the bid to ``declarer``)."""
    s = new_engine_state({"lost_heir": True, **params})
    s[E.MATCH_SCORE:E.MATCH_SCORE + 2] = scores
    s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 3 * bid, declarer, E.PLAYING
    s[E.SPOKEN + 0] = PASS if dealer_says == "pass" else bid_action(bid, 0)
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = points
    E._score_hand(s)
    return s


def deltas(s: np.ndarray) -> list[int]:
    return s[E.LAST_DELTA:E.LAST_DELTA + 2].tolist()


def test_scoring_made_failed_and_the_sale_v_k16():
    # The dealer refused and declares 7: made scores p, failed scores 0 (not -7); the other side
    # always scores p, even negative.
    assert deltas(scored({}, 0, 7, (8, 2))) == [8, 2]
    assert deltas(scored({}, 0, 7, (6, 4))) == [0, 4]
    assert deltas(scored({}, 0, 7, (12, -2))) == [12, -2]
    assert deltas(scored({"no_overtricks": True}, 0, 7, (8, 2))) == [7, 2]
    # Sold to P1 (team 1): team 0 scores the sale besides its own points.
    assert deltas(scored({}, 1, 7, (3, 7), "pass")) == [3 + 7, 7]
    assert deltas(scored({}, 1, 7, (5, 5), "pass")) == [5 + 7, 0]
    # Sold to the dealer's partner (P2): the sale and the contract both go to team 0.
    assert deltas(scored({}, 2, 6, (8, 2), "pass")) == [8 + 6, 2]
    assert deltas(scored({}, 2, 6, (5, 5), "pass")) == [0 + 6, 5]
    # Hand mode returns: own delta minus the other's.
    out = np.zeros(4)
    E.returns(scored({}, 1, 7, (3, 7), "pass"), out)
    assert out.tolist() == [3.0, -3.0, 3.0, -3.0]


def test_target_25_and_the_declaring_side_wins_a_tie_v_k16():
    s = new_engine_state({"lost_heir": True})
    assert (s[E.MIN_BID], s[E.TARGET]) == (6, 25)
    assert new_engine_state({"lost_heir": True, "target": 30})[E.TARGET] == 30
    # Both sides reach 25: the declaring side (team 1) wins, though team 0 has more.
    s = scored({"match": True}, 1, 6, (4, 6), "pass", scores=(15, 19))
    assert s[E.MATCH_SCORE:E.MATCH_SCORE + 2].tolist() == [15 + 4 + 6, 25] and s[E.WINNER] == 1
    # Only the dealer's side reaches it, by the sale.
    s = scored({"match": True}, 1, 8, (4, 6), "pass", scores=(14, 10))
    assert s[E.MATCH_SCORE:E.MATCH_SCORE + 2].tolist() == [26, 10] and s[E.WINNER] == 0
    # No non-bidder limit: a side far up still scores.
    s = scored({"match": True}, 0, 6, (7, 3), scores=(0, 20))
    assert deltas(s) == [7, 3]


def test_pot_a_lost_heir_contract_fails_below_its_value():
    s = scored({"match": True, "pot": 1.0}, 0, 7, (6, 4))
    assert s[E.POT_PAYMENTS:E.POT_PAYMENTS + 2].tolist() == [1, 0] and deltas(s) == [0, 4]
    s = scored({"match": True, "pot": 1.0}, 0, 7, (7, 3))
    assert s[E.POT_PAYMENTS:E.POT_PAYMENTS + 2].tolist() == [0, 0]


# ---- §2.8: rejects ---------------------------------------------------------------------------------
REJECTS = [
    ({"les_rois": True}, "at most one form"),
    ({"players": 6}, "played by 4 players"),
    ({"non_bidder_limit": 40}, "has no non-bidder limit"),
    ({"match": True, "target": 60, "target_after_no_trump": 70}, "rules of the standard pack"),
    ({"low_no_trump": True}, "rules of the standard pack"),
    ({"kitty_34_card": True}, "rules of the standard pack"),
    ({"four_of_a_rank_misdeal": True}, "rules of the standard pack"),
    # V-K26's Kaiser bids (and their hand-mode +-target) belong to the standard pack.
    ({"kaiser_bid_solo": True}, "rules of the standard pack"),
    ({"kaiser_40": True}, "rules of the standard pack"),
    ({"three_spades_needs_three_tricks": True}, "rules of the standard pack"),
]


@pytest.mark.parametrize("params, message", REJECTS, ids=[str(p) for p, _ in REJECTS])
def test_load_game_rejects_with_lost_heir(params, message):
    with pytest.raises(ValueError, match=message):
        load(**params)


# ---- Information -----------------------------------------------------------------------------------
def test_lost_heir_is_part_of_every_information_state():
    keys = {pyspiel.load_game("cardlab_kaiser", params).new_initial_state().information_state_key(0)
            for params in ({"lost_heir": True}, {"les_rois": True, "min_bid": 6}, {"joffre": True})}
    assert len(keys) == 3
    assert "form lost_heir" in load().new_initial_state().observation_string(0)


def test_tensors_show_the_blank_leaders_voids_and_the_sale():
    state = deal(load().new_initial_state(), MIXED)
    act(state, "bid 6", "pass", "pass", "pass")  # sold to P1
    game = state.get_game()
    for seat in range(4):
        assert len(state.observation_tensor(seat)) == game.observation_tensor_size()
        assert len(state.information_state_tensor(seat)) == game.information_state_tensor_size()
        assert "sold: team 0 scores +6 for the sale" in state.observation_string(seat)
    # P2 leads his lone blank: P0's tensor shows his partner out of every suit.
    s = table({0: "6D 2S", 1: "5D 3H", 2: "KC", 3: "3D 7S"}, "S", leader=2)
    play(s, "KC")
    pieces = tensor_pieces(s, False)
    offset = sum(size for name, size in pieces[:[name for name, _ in pieces].index("voids")])
    out = np.zeros(sum(size for _, size in pieces))
    encode(s, 0, False, out)
    assert out[offset + 4 * 2:offset + 4 * 3].tolist() == [1.0] * 4  # P2, the partner: every suit


def test_resampled_worlds_keep_what_each_seat_knows_at_every_node():
    game = load(dealer_may_pass=True)
    rng = np.random.default_rng(21)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if not state.is_chance_node() or rng.random() < 0.1:
                for seat in range(4):
                    world = state.resample_from_infostate(seat, sampler)
                    assert world.information_state_string(seat) == state.information_state_string(seat)
                    assert np.array_equal(world.information_state_tensor(seat),
                                          state.information_state_tensor(seat))
                    assert world.legal_actions() == state.legal_actions() or seat != state.current_player()
            outcomes = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                        else state.legal_actions())
            state.apply_action(outcomes[rng.integers(len(outcomes))])


def test_resampling_gives_a_blank_leader_only_blanks():
    s = table({0: "6D 2S", 1: "KD KC", 2: "5D 3H", 3: "3D 7S"}, "S", leader=1)
    play(s, "KD")
    for seat in (0, 2, 3):
        for k in range(20):
            world = resample_hidden_hands(s, seat, make_stream(k))
            assert world[E.HANDS + 1] == mask_of(["KC"])
            assert world[E.HANDS + seat] == s[E.HANDS + seat]


# ---- The rules player -------------------------------------------------------------------------------
def test_rules_player_sells_an_ordinary_bid_and_refuses_with_a_long_suit():
    state = deal(load().new_initial_state(), MIXED)
    act(state, "bid 6", "pass", "pass")
    assert rules_action(state.array, make_stream(0)) == PASS  # sells
    long_clubs = {0: "7C 6C 5C 4C 3C 2C AC KH", 1: "7D 6D 5D 4D 3D 2D AD KD",
                  2: "7H 6H 5H 4H 3H 2H AH KC", 3: "7S 6S 5S 4S 3S 2S AS KS"}
    state = deal(load().new_initial_state(), long_clubs)
    act(state, "bid 6", "pass", "pass")
    assert rules_action(state.array, make_stream(0)) == bid_action(6, 0)  # refuses, declares
    # A partner's bid is always sold: the sale adds to his contract.
    state = deal(load().new_initial_state(), long_clubs)
    act(state, "pass", "bid 6", "pass")
    assert rules_action(state.array, make_stream(0)) == PASS
    # With no bid the dealer declares at the minimum.
    state = deal(load().new_initial_state(), MIXED)
    act(state, "pass", "pass", "pass")
    assert rules_action(state.array, make_stream(0)) == bid_action(6, 0)


def test_rules_player_bids_by_the_lost_heirs_values():
    # The Lost Heir and a long suit of 7s-high make a bid; aces (the lowest cards) and kings
    # (blanks, the Wrong Boy) do not.
    strong = {0: "KC 2C 6H 5H AH AD 3S 2S", 1: "KH 7D 6D 5D 4D 7C 6C 7S",
              2: "AC 3D 2D 4H 3H 2H 6S 5S", 3: "5C 4C 3C KD AS 4S KS 7H"}
    state = deal(load().new_initial_state(), strong)
    assert rules_action(state.array, make_stream(0)) >= bid_action(6, 0)
    weak = {0: "7C 6C 5C 4C 3C 2C 7D 6D", 1: "AC KC AD KD AH KS AS 2H",
            2: "7H 6H 5H 4H 3H KH 5D 4D", 3: "7S 6S 5S 4S 3S 2S 3D 2D"}
    state = deal(load().new_initial_state(), weak)
    assert rules_action(state.array, make_stream(0)) == PASS


def test_rules_player_cancels_the_other_sides_lost_heir_with_a_blank():
    # Opponent P1 led the Lost Heir; P2 is out of trumps and holds a blank: he drops it.
    s = table({0: "2D 3S", 1: "KH 4D", 2: "KC 5D", 3: "3D 7S"}, "C", leader=1, declarer=1)
    play(s, "KH")
    assert card_string(rules_action(s, make_stream(0))) == "KC"
    # On his partner's Lost Heir he keeps the blank.
    s = table({0: "2D 3S", 1: "KH 4D", 2: "KC 5D", 3: "KD 7S"}, "C", leader=1, declarer=1)
    play(s, "KH", "KC")
    assert card_string(rules_action(s, make_stream(0))) == "7S"


def test_rules_player_leads_a_suit_card_to_fix_trump_and_plays_legally():
    state = deal(load().new_initial_state(), SUIT_EACH)
    act(state, "pass", "bid 6", "pass", "pass")
    assert state.current_player() == 2
    action = rules_action(state.array, make_stream(0))
    assert card_string(action) == "7H"  # the top of his suit, not the Lost Heir
    game = load()
    bots = [agents.make("rules", game, seat, seat) for seat in range(4)]
    for deal_seed in range(5):
        state = game.new_initial_state()
        rng = np.random.default_rng(deal_seed)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            else:
                action = bots[state.current_player()].step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
        assert sum(state.returns()) == 0


# ---- Random play ------------------------------------------------------------------------------------
def lost_heir_invariants(params: dict, hands: int) -> None:
    """``hands`` random Lost Heir games in the engine: the hand points a Lost Heir hand can hold,
    the returns the contract and the sale allow, zero-sum seats."""
    template = new_engine_state({"lost_heir": True, **params})
    results = np.zeros((hands, 5))
    E.play_random_hands(template, hands, make_stream(8), results)
    played = results[:, 4] >= 0
    assert played.any()
    points = results[played, 1] + results[played, 2]
    assert set(points.tolist()) <= set(LOST_HEIR_HAND_POINTS)
    bound = 1.0 + params.get("pot", 0.0) * template[E.MAX_HANDS] if params.get("match") else (
        E.hand_utility_bound(template))
    assert np.all(np.abs(results[:, 0]) <= bound)
    assert np.all(results[played, 4] % 3 == 0)  # trump bids only
    s = template.copy()
    out = np.zeros(4)
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    stream = make_stream(9)
    for _ in range(hands // 5):
        s[:] = template
        while s[E.PHASE] != E.GAME_OVER:
            if s[E.PHASE] == E.PLAYING:
                hand = s[E.HANDS + s[E.TO_MOVE]]
                playable_cards = E.playable_cards(s, s[E.TO_MOVE])
                assert playable_cards & ~hand == 0 and playable_cards != 0
                if s[E.TRICK_SIZE] == 0 and hand & ~BLANKS:
                    assert playable_cards & BLANKS == 0  # a blank is led only from blanks
            E.apply_action(s, E.random_action(s, stream, legal))
        E.returns(s, out)
        assert abs(out.sum()) < 1e-9 and out[0] == out[2] and out[1] == out[3]
        if s[E.WINNER] == E.DRAWN:
            continue
        value, team = s[E.HIGH_BID] // 3, s[E.DECLARER] % 2
        p = s[E.HAND_POINTS:E.HAND_POINTS + 2]
        expected = [int(p[0]), int(p[1])]
        if p[team] < value:
            expected[team] = 0
        elif params.get("no_overtricks"):
            expected[team] = value
        if E.sold(s):
            expected[s[E.DEALER] % 2] += value
        assert s[E.LAST_DELTA:E.LAST_DELTA + 2].tolist() == expected


LOST_HEIR_CONFIGURATIONS = [{}, {"dealer_may_pass": True, "no_overtricks": True, "min_bid": 7},
                            {"match": True, "pot": 1.0, "minus_target_loses": True}]


@pytest.mark.parametrize("params", LOST_HEIR_CONFIGURATIONS, ids=str)
def test_random_play_invariants(params):
    lost_heir_invariants(params, 500)


@pytest.mark.slow
@pytest.mark.parametrize("params", LOST_HEIR_CONFIGURATIONS, ids=str)
def test_random_play_invariants_ten_thousand_hands(params):
    lost_heir_invariants(params, 10_000)


def test_a_tournament_plays_lost_heir_in_the_compiled_arena(tmp_path):
    rows = tournament_rows(tmp_path / "r", "--game", "kaiser", "--agents", "rules,random", "--deals", "3",
                           "--seed", "5", "--param", "lost_heir=true", "--param", "match=true",
                           "--param", "max_hands=5")
    assert len(rows) == 6 and all(abs(sum(row["returns"])) < 1e-9 for row in rows)
    deck = int(FORM_DECK[LOST_HEIR])
    assert all(all(deck >> card & 1 for card in row["actions"][:32]) for row in rows)
