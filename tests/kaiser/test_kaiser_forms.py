"""Kaiser's forms (docs/rules/kaiser.md#variants, 11.7-11.9): Les Rois, Hetu's Les Rois and Joffre.

One hand-built scenario per form and per ruling (V-K1, V-K8 ... V-K11): packs and strength
orders, bonus and penalty cards, trump named or fixed by the declarer's first lead, Joffre's
insult, scoring, targets and limits; the rules player and resampling in the forms. Random-play
invariants, engine/wrapper agreement and random_sim_test run over every implemented variant in
tests/kaiser/test_kaiser_variants.py and tests/test_all_games.py.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, deal, game_loader

from cardlab.core.bitboard import popcount
from cardlab.core.cards import card_string, mask_of, parse_card
from cardlab.core.rng import make_stream
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state
from cardlab.games.kaiser.observation import OBSERVATION_PIECES
from cardlab.games.kaiser.rules import (
    FORM_DECK,
    FORM_STRENGTH,
    JOFFRE,
    LES_ROIS,
    LES_ROIS_HETU,
    MISDEAL,
    NAME_TRUMP,
    PASS,
    bid_action,
)
from cardlab.games.kaiser.sampling import resample_hidden_hands
from cardlab.games.kaiser.strategy import rules_action

# One suit per seat, in the Les Rois pack (7 6 5 4 3 2 A K of each suit).
SUIT_EACH = {
    0: "7C 6C 5C 4C 3C 2C AC KC",
    1: "7D 6D 5D 4D 3D 2D AD KD",
    2: "7H 6H 5H 4H 3H 2H AH KH",
    3: "7S 6S 5S 4S 3S 2S AS KS",
}
# A mixed deal of the same pack.
MIXED = {
    0: "7C 6D 5D KD 4H 3H 2S AS",
    1: "AC 7D 3D 2D 7H 6S 5S 4S",
    2: "KC 2C 6H 5H AH AD 3S 7S",
    3: "6C 5C 4C 3C 4D 2H KH KS",
}


load = game_loader("cardlab_kaiser")


def hetu(hands: dict[int, str]) -> dict[int, str]:
    """Hetu's pack has the 8 of clubs and diamonds where Les Rois has their kings."""
    return {seat: text.replace("KC", "8C").replace("KD", "8D") for seat, text in hands.items()}


def play_first_legal(state: pyspiel.State, order: dict[int, str]) -> pyspiel.State:
    """Each seat plays the first card of its list that is legal, until the game ends."""
    queues = {seat: text.split() for seat, text in order.items()}
    while not state.is_terminal():
        seat = state.current_player()
        legal = {state.action_to_string(seat, a) for a in state.legal_actions()}
        card = next(c for c in queues[seat] if c in legal)
        queues[seat].remove(card)
        act(state, card)
    return state


def trick_winners(state: pyspiel.State) -> list[int]:
    return state.array[E.TRICK_WINNERS:E.TRICK_WINNERS + E.NUM_TRICKS].tolist()


def hand_points(state: pyspiel.State) -> list[int]:
    return state.array[E.HAND_POINTS:E.HAND_POINTS + 2].tolist()


# ---- Packs and strength --------------------------------------------------------------------------
def test_form_packs_and_strength_orders():
    les_rois = [card_string(c) for c in range(52) if FORM_DECK[LES_ROIS] >> c & 1]
    assert les_rois == [f"{r}{s}" for s in "CDHS" for r in "234567KA"]
    hetu_pack = [card_string(c) for c in range(52) if FORM_DECK[LES_ROIS_HETU] >> c & 1]
    assert hetu_pack == [f"{r}{s}" for s in "CD" for r in "2345678A"] + [
        f"{r}{s}" for s in "HS" for r in "234567KA"]
    assert FORM_DECK[JOFFRE] == FORM_DECK[LES_ROIS]  # V-K10
    for form in (LES_ROIS, LES_ROIS_HETU, JOFFRE):
        assert popcount(int(FORM_DECK[form])) == 32
        assert load(**{("les_rois", "les_rois_hetu", "joffre")[form - 1]: True}).new_initial_state(
        ).array[E.DECK] == FORM_DECK[form]
    # 7 high ... 2, then A, then K (Hetu's minors: the 8) lowest.
    for suit, lowest in (("C", "K"), ("H", "K")):
        order = sorted((f"{r}{suit}" for r in "765432A" + lowest),
                       key=lambda c: -FORM_STRENGTH[LES_ROIS][parse_card(c)])
        assert order == [f"{r}{suit}" for r in "765432A" + lowest]
    hetu_clubs = sorted((f"{r}C" for r in "765432A8"), key=lambda c: -FORM_STRENGTH[LES_ROIS_HETU][
        parse_card(c)])
    assert hetu_clubs == [f"{r}C" for r in "765432A8"]


def test_les_rois_tricks_points_and_trump_named():
    game = load(les_rois=True)
    state = deal(game.new_initial_state(), MIXED)
    # V-K1, V-K8: trump bids 4 ... 12 only, and no misdeal (V-K9).
    assert state.legal_actions() == [PASS] + [bid_action(v, 0) for v in range(4, 13)]
    act(state, "bid 6", "pass", "pass", "pass", "trump S")  # the declarer names trump (53-56)
    assert state.current_player() == 1 and state.array[E.TRUMP] == 3
    act(state, "AC", "KC", "3C", "7C")  # 7 high: P0 wins over A and K
    act(state, "KD", "2D", "AD", "4D")  # 4 > 2 > A > K: P3 wins
    act(state, "KH", "4H", "7H", "AH")  # P1's 7H takes the KH: 1 + 5
    act(state, "4S", "3S", "KS", "2S")  # trumps: 4S over 3S, 2S and KS: 1 - 3
    assert trick_winners(state)[:4] == [0, 3, 1, 1]
    assert hand_points(state) == [1, 1 + 6 - 2]
    play_first_legal(state, {seat: text for seat, text in MIXED.items()})
    assert sum(hand_points(state)) == 10  # 8 tricks + 5 - 3


def test_les_rois_dealer_may_equal_and_may_not_pass():
    # V-K8: the dealer (P0) may equal the high bid; with nobody bidding he must bid (4 is enough).
    state = deal(load(les_rois=True).new_initial_state(), MIXED)
    act(state, "bid 5", "pass", "pass")
    assert bid_action(5, 0) in state.legal_actions() and bid_action(4, 0) not in state.legal_actions()
    act(state, "bid 5")
    assert state.array[E.DECLARER] == 0
    state = deal(load(les_rois=True).new_initial_state(), MIXED)
    act(state, "pass", "pass", "pass")
    assert PASS not in state.legal_actions() and MISDEAL not in state.legal_actions()
    assert state.legal_actions()[0] == bid_action(4, 0)


def test_no_misdeal_in_any_form():
    # V-K9: P0's hand here holds no A, K, Q, J, 5H or 3S; Kaiser would let him throw it in.
    weak = {0: "7C 6C 5C 4C 7D 6D 5D 4D", 1: "3C 2C AC KC 3D 2D AD KD",
            2: "7H 6H 5H 4H 3H 2H AH KH", 3: "7S 6S 5S 4S 3S 2S AS KS"}
    for form in ("les_rois", "joffre"):
        state = deal(load(**{form: True}).new_initial_state(), weak)
        act(state, "pass", "pass", "pass")
        assert MISDEAL not in state.legal_actions()
        assert not E.may_throw_in(state.array, 0)


def test_hetu_trump_is_the_suit_of_the_first_lead():
    state = deal(load(les_rois_hetu=True).new_initial_state(), hetu(SUIT_EACH))
    # m = 5 (V-K1).
    assert state.legal_actions() == [PASS] + [bid_action(v, 0) for v in range(5, 13)]
    act(state, "bid 5", "pass", "pass", "pass")
    # No naming node: the declarer leads at once, trump still open.
    assert state.array[E.PHASE] == E.PLAYING and state.current_player() == 1
    assert E.trump_to_be_led(state.array) and "trump: by the first lead" in str(state)
    assert not any(NAME_TRUMP <= a < NAME_TRUMP + 4 for a in state.legal_actions())
    act(state, "2D")  # the lowest diamond fixes diamonds as trump, and is itself a trump
    assert state.array[E.TRUMP] == 1 and not E.trump_to_be_led(state.array)
    act(state, "7H", "7S", "7C")
    assert trick_winners(state)[0] == 1
    play_first_legal(state, {0: SUIT_EACH[0].replace("KC", "8C"), 1: hetu(SUIT_EACH)[1],
                             2: "KH " + SUIT_EACH[2], 3: SUIT_EACH[3]})
    # P1 takes every trick, with the KH (+6) and the KS (-3): 11 points a hand (K9).
    assert hand_points(state) == [0, 11]
    assert state.returns() == [-11.0, 11.0, -11.0, 11.0]


def test_hetu_eight_is_the_lowest_minor_card():
    state = deal(load(les_rois_hetu=True).new_initial_state(), hetu(MIXED))
    act(state, "bid 5", "pass", "pass", "pass", "4S", "3S", "KS", "2S")  # spades trump
    act(state, "2D", "AD", "4D", "8D")  # 4D beats 2D, AD and the 8D
    assert trick_winners(state)[:2] == [1, 3]


# ---- Joffre ---------------------------------------------------------------------------------------
def test_joffre_insult():
    state = deal(load(joffre=True).new_initial_state(), SUIT_EACH)
    act(state, "pass", "pass", "bid 5", "pass")
    # P3 leads the Kaiser (KS): spades are trump, and it wins the trick holding the Joffre (KH).
    act(state, "KS", "7C", "7D", "KH")
    assert trick_winners(state)[0] == 3
    # V-K11: the Joffre's side (P2: team 0) scores -5; the trick is worth 1 + 5 - 3 to team 1.
    assert hand_points(state) == [-5, 3]
    play_first_legal(state, SUIT_EACH)
    assert hand_points(state) == [-5, 10]
    assert state.returns() == [-15.0, 15.0, -15.0, 15.0]  # negative points count at any limit


def joffre_trick(cards: str) -> list[int]:
    """Each team's hand points after one Joffre trick with spades trump, led by P3 (P3, P0, P1, P2)."""
    s = new_engine_state({"joffre": True})
    s[E.PHASE], s[E.DECLARER], s[E.HIGH_BID], s[E.TRUMP] = E.PLAYING, 3, 15, 3
    s[E.TRICK_LEADER] = s[E.TO_MOVE] = 3
    for position, card in enumerate(cards.split()):
        s[E.HANDS + (3 + position) % 4] = mask_of([card])
    for card in cards.split():
        E.apply_action(s, parse_card(card))
    return s[E.HAND_POINTS:E.HAND_POINTS + 2].tolist()


def test_joffre_insult_falls_on_the_side_that_played_the_joffre():
    # The Kaiser's own partner (P1) played the Joffre: the winners' side loses the 5.
    assert joffre_trick("KS 7C KH 7D") == [0, 1 + 5 - 3 - 5]
    # No insult when the KH is beaten by another card (the AS) ...
    assert joffre_trick("KS AS KH 7D") == [1 + 5 - 3, 0]
    # ... or when the KS wins a trick without it.
    assert joffre_trick("KS 7C 7H 7D") == [0, 1 - 3]


def scored(params: dict, scores: tuple[int, int], declarer: int, bid: int, points: tuple[int, int]):
    """The state after scoring a hand with these team hand points on these match scores."""
    s = new_engine_state(params)
    s[E.MATCH_SCORE:E.MATCH_SCORE + 2] = scores
    s[E.HIGH_BID], s[E.DECLARER], s[E.PHASE] = 3 * bid, declarer, E.PLAYING
    s[E.HAND_POINTS:E.HAND_POINTS + 2] = points
    E._score_hand(s)
    return s


def test_joffre_keeps_the_limit_les_rois_has_none():
    # Team 0 (not declaring) at 45 takes 4 points: Joffre's limit stops them, Les Rois has none.
    joffre = scored({"joffre": True, "match": True}, (45, 0), 1, 6, (4, 6))
    assert joffre[E.LAST_DELTA:E.LAST_DELTA + 2].tolist() == [0, 6]
    for form in ("les_rois", "les_rois_hetu"):
        s = scored({form: True, "match": True}, (45, 0), 1, 6, (4, 6))
        assert s[E.LAST_DELTA:E.LAST_DELTA + 2].tolist() == [4, 6]
    # Failed: -v; made: +p (no_overtricks: +v).
    s = scored({"les_rois": True, "match": True}, (0, 0), 1, 7, (4, 6))
    assert s[E.LAST_DELTA:E.LAST_DELTA + 2].tolist() == [4, -7]
    s = scored({"les_rois": True, "match": True, "no_overtricks": True}, (0, 0), 1, 5, (4, 6))
    assert s[E.LAST_DELTA:E.LAST_DELTA + 2].tolist() == [4, 5]


def test_form_targets_and_minimum_bids():
    # V-K1: the defaults stand for the form's values; explicit values keep their meaning.
    for params, m, target in (({"les_rois": True}, 4, 40), ({"les_rois_hetu": True}, 5, 40),
                              ({"joffre": True}, 5, 40), ({"joffre": True, "target": 41}, 5, 41),
                              ({"les_rois": True, "min_bid": 7}, 7, 40)):
        s = new_engine_state(params)
        assert (s[E.MIN_BID], s[E.TARGET]) == (m, target)
    # Both sides reach 40: the declaring side wins (ruling 7), even with fewer points.
    s = scored({"les_rois": True, "match": True}, (38, 36), 1, 4, (4, 6))
    assert s[E.MATCH_SCORE:E.MATCH_SCORE + 2].tolist() == [42, 42] and s[E.WINNER] == 1
    s = scored({"joffre": True, "match": True, "target": 42}, (30, 36), 1, 5, (4, 6))
    assert s[E.WINNER] == 1 and s[E.MATCH_SCORE + 1] == 42


FORM_REJECTS = [
    ({"les_rois": True, "les_rois_hetu": True}, "at most one form"),
    ({"joffre": True, "kitty_34_card": True}, "rules of the standard pack"),
    ({"les_rois": True, "kaiser_bid_team": True}, "rules of the standard pack"),
    ({"les_rois_hetu": True, "four_of_a_rank_misdeal": True}, "rules of the standard pack"),
    ({"joffre": True, "any_contract_high_or_low": True}, "rules of the standard pack"),
    ({"les_rois": True, "non_bidder_limit": 40}, "has no non-bidder limit"),
    ({"les_rois_hetu": True, "match": True, "target": 60, "target_after_no_trump": 70,
      "non_bidder_limit_after_no_trump": 50}, "rules of the standard pack"),
]


@pytest.mark.parametrize("params, message", FORM_REJECTS, ids=[str(p) for p, _ in FORM_REJECTS])
def test_load_game_rejects_what_the_forms_lack(params, message):
    with pytest.raises(ValueError, match=message):
        load(**params)


def test_joffre_accepts_a_non_bidder_limit():
    assert new_engine_state({"joffre": True, "non_bidder_limit": 40})[E.NON_BIDDER_LIMIT] == 40


# ---- Information ----------------------------------------------------------------------------------
def test_trump_to_be_led_is_marked_nowhere_in_the_tensor():
    state = deal(load(joffre=True).new_initial_state(), SUIT_EACH)
    act(state, "pass", "pass", "bid 5", "pass")
    offset = sum(size for name, size in OBSERVATION_PIECES[:OBSERVATION_PIECES.index(("trump", 5))])
    for seat in range(4):
        assert not any(state.observation_tensor(seat)[offset:offset + 5])
    act(state, "KS")
    for seat in range(4):
        assert state.observation_tensor(seat)[offset + 3] == 1.0  # spades


def test_the_form_is_part_of_every_information_state():
    # Les Rois with m = 5 and Joffre have the same pack and auction; their keys still differ.
    keys = {load(**params).new_initial_state().information_state_key(0)
            for params in ({"les_rois": True, "min_bid": 5}, {"joffre": True}, {})}
    assert len(keys) == 3


def test_form_resampling_keeps_what_each_seat_knows():
    state = deal(load(les_rois_hetu=True).new_initial_state(), hetu(MIXED))
    act(state, "bid 5", "pass", "pass", "pass", "4S", "3S", "KS")
    for seat in range(4):
        for k in range(20):
            world = resample_hidden_hands(state.array, seat, make_stream(k))
            assert np.bitwise_or.reduce(world[E.DEALT:E.DEALT + 4]) == FORM_DECK[LES_ROIS_HETU]
            assert world[E.HANDS + seat] == state.array[E.HANDS + seat]
            assert world[E.TRUMP] == 3
            # P3 showed out of nothing; P2 played the 3S, P3 the KS: spades stay possible for P0.
            for other in range(4):
                played = int(state.array[E.DEALT + other]) & ~int(state.array[E.HANDS + other])
                assert int(world[E.DEALT + other]) & played == played


# ---- The rules player -----------------------------------------------------------------------------
def test_rules_player_bids_by_the_forms_card_values():
    # In Les Rois P1's diamonds 7 6 5 4 ... are masters: with bids from 7 it bids.
    state = deal(load(les_rois=True, min_bid=7).new_initial_state(), SUIT_EACH)
    assert rules_action(state.array, make_stream(0)) == bid_action(7, 0)
    # Kings and aces, Kaiser's best cards, are the weakest of Les Rois: the same seat passes.
    weak = deal(load(les_rois=True, min_bid=7).new_initial_state(), {
        0: "7C 6C 5C 4C 3C 2C AC KC", 1: "KD AD 2D KH AH 2H KS AS", 2: "7D 6D 5D 4D 3D 7H 6H 5H",
        3: "4H 3H 7S 6S 5S 4S 3S 2S"})
    assert rules_action(weak.array, make_stream(0)) == PASS


def test_rules_player_fixes_trump_with_the_top_of_its_best_suit():
    state = deal(load(joffre=True).new_initial_state(), MIXED)
    act(state, "bid 5", "pass", "pass", "pass")
    # P1 holds AC 7D 3D 2D 7H 6S 5S 4S: diamonds (with the master 7) score as well as spades
    # (6 5 4), the first of them is trump, led with its top card.
    assert card_string(rules_action(state.array, make_stream(0))) == "7D"


def test_a_tournament_plays_a_form_in_the_compiled_arena(capsys, tmp_path):
    """``cardlab tournament --param joffre=true``: the compiled loop deals Joffre's pack."""
    import pyarrow.parquet as pq

    from cardlab.cli import main

    out = tmp_path / "r"
    code = main(["tournament", "--game", "kaiser", "--agents", "rules,random", "--deals", "3",
                 "--seed", "5", "--out", str(out), "--workers", "1", "--quiet",
                 "--param", "joffre=true", "--param", "match=true", "--param", "max_hands=5"])
    assert code == 0, capsys.readouterr().err
    rows = [row for part in sorted(out.glob("part-*.parquet")) for row in pq.read_table(part).to_pylist()]
    assert len(rows) == 6 and all(abs(sum(row["returns"])) < 1e-9 for row in rows)
    deck = int(FORM_DECK[JOFFRE])
    assert all(all(deck >> card & 1 for card in row["actions"][:32]) for row in rows)
