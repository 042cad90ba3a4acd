"""Kaiser for 2, 3, 5 and 6 players (11.11-11.14, variants spec §2.3-2.6): packs, the two players'
piles (V-K17), the three players' kitty, sides from the side table, scoring with more than two
sides (V-K2, V-K18), the end check (V-K3) and the m-side returns of §0 "Sides", with hand-built
scenarios and random-play invariants.

The checks every game passes (engine and wrapper agree, random_sim_test, the rule player reading
only its own information, every built-in agent) run over these configurations in
tests/test_all_games.py (VARIANT_CASES).
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, deal, game_loader, tournament_rows

from cardlab.core.cards import parse_card
from cardlab.core.rng import make_stream
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state
from cardlab.games.kaiser.rules import bid_action

CONFIGURATIONS = [{"players": 2}, {"players": 3}, {"players": 5}, {"players": 6},
                  {"players": 6, "three_teams": True}]
IDS = ["two", "three", "five", "six", "six-three-teams"]


load = game_loader("cardlab_kaiser")


def cards(text: str) -> int:
    return sum(1 << parse_card(card) for card in text.split())


def dealt(game: pyspiel.Game, hands: dict[int, str], then: str = "") -> pyspiel.State:
    """A state after dealing ``hands`` (dealer 0), then the cards ``then`` (a kitty, or piles)."""
    state = deal(game.new_initial_state(), hands)
    for card in then.split():
        state.apply_action(parse_card(card))
    return state


def play_lowest(state: pyspiel.State) -> None:
    """Play the hand out, every seat choosing its lowest legal card."""
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])


def scored(params: dict, points: list[int], declarer: int, bid=(7, 0), scores=None) -> np.ndarray:
    """Score a hand built by hand: each side's hand points (tricks as points, no 5H or 3S
    bookkeeping needed), the declarer and contract, on match scores ``scores``."""
    s = new_engine_state(params)
    sides = len(points)
    assert s[E.NUM_SIDES] == sides
    if scores is not None:
        s[E.MATCH_SCORE:E.MATCH_SCORE + sides] = scores
    s[E.HIGH_BID] = 3 * bid[0] + bid[1]
    s[E.DECLARER] = declarer
    s[E.PHASE] = E.PLAYING
    s[E.HAND_POINTS:E.HAND_POINTS + sides] = points
    s[E.TRICKS_WON:E.TRICKS_WON + sides] = np.maximum(points, 0)
    E._score_hand(s)
    return s


def seat_returns(s: np.ndarray) -> list[float]:
    out = np.zeros(s[E.NUM_PLAYERS])
    E.returns(s, out)
    return out.tolist()


def deltas(s: np.ndarray) -> list[int]:
    return s[E.LAST_DELTA:E.LAST_DELTA + s[E.NUM_SIDES]].tolist()


# ---- Packs, seats and sides (§2.3) ----------------------------------------------------------------
@pytest.mark.parametrize("params, size, dealt, sides, side_of", [
    ({"players": 2}, 32, 32, 2, [0, 1]),
    ({"players": 3}, 26, 26, 3, [0, 1, 2]),
    ({"players": 4}, 32, 32, 2, [0, 1, 0, 1]),
    ({"players": 5}, 40, 40, 5, [0, 1, 2, 3, 4]),
    ({"players": 6}, 48, 48, 2, [0, 1, 0, 1, 0, 1]),
    ({"players": 6, "three_teams": True}, 48, 48, 3, [0, 1, 2, 0, 1, 2]),
], ids=["two", "three", "four", "five", "six", "six-three-teams"])
def test_packs_and_sides_per_player_count(params, size, dealt, sides, side_of):
    game = load(**params)
    s = game.new_initial_state().array
    players = params["players"]
    assert game.num_players() == players == s[E.NUM_PLAYERS]
    assert bin(int(s[E.DECK])).count("1") == size and E.cards_to_deal(s) == dealt
    assert s[E.NUM_SIDES] == sides and s[E.SIDE_OF:E.SIDE_OF + players].tolist() == side_of


def test_the_packs_hold_the_cards_the_rules_name():
    three = int(load(players=3).new_initial_state().array[E.DECK])
    assert three == cards("9C TC JC QC KC AC 9D TD JD QD KD AD 5H 9H TH JH QH KH AH 3S 9S TS JS QS KS AS")
    five = int(load(players=5).new_initial_state().array[E.DECK])
    assert five & cards("5S 4S 4H 2C") == 0 and five & cards("3S 5H 5C 5D 6S") == cards("3S 5H 5C 5D 6S")
    six = int(load(players=6).new_initial_state().array[E.DECK])
    assert six & cards("2C 2D 2H 2S") == 0 and six & cards("3C 3D 3H 3S 4S 5H") == cards("3C 3D 3H 3S 4S 5H")


# ---- Two players (11.11, V-K17): four piles of two each, turned up after the auction ------------
TWO_HANDS = {0: "7C 8C 9C TC JC QC KC AC", 1: "7D 8D 9D TD JD QD KD AD"}
# (seat, pile): bottom, top.
TWO_PILES = {(1, 0): "8H 9H", (1, 1): "TH JH", (1, 2): "QH KH", (1, 3): "AH 5H",
             (0, 0): "8S 9S", (0, 1): "TS JS", (0, 2): "QS KS", (0, 3): "AS 3S"}


def two_player_state(hands=TWO_HANDS) -> pyspiel.State:
    """Dealer 0: the hands (P1 first), then the bottoms of P1's pile 0, P0's pile 0, P1's pile 1,
    ..., then the tops in the same order."""
    order = [(1, 0), (0, 0), (1, 1), (0, 1), (1, 2), (0, 2), (1, 3), (0, 3)]
    piles = [TWO_PILES[place].split()[level] for level in (0, 1) for place in order]
    return dealt(load(players=2), hands, " ".join(piles))


def test_two_player_deal_fills_the_hands_then_the_piles():
    state = two_player_state()
    s = state.array
    assert s[E.HANDS] == cards(TWO_HANDS[0]) and s[E.HANDS + 1] == cards(TWO_HANDS[1])
    for (seat, pile), text in TWO_PILES.items():
        bottom, top = text.split()
        assert s[E.PILES + 8 * seat + 2 * pile] == parse_card(bottom)
        assert s[E.PILES + 8 * seat + 2 * pile + 1] == parse_card(top)
    assert s[E.FACE_UP] == 0 and s[E.PHASE] == E.BIDDING and state.current_player() == 1
    # Face down and unknown to both players, their owner included.
    for player in range(2):
        assert "piles: P0 ??/?? ??/?? ??/?? ??/??, P1 ??/?? ??/?? ??/?? ??/??" in \
            state.information_state_string(player)
        assert "dealt: " + TWO_HANDS[player] in state.information_state_string(player)


def test_two_player_pile_tops_turn_up_after_the_auction_and_are_playable():
    state = two_player_state()
    act(state, "bid 6", "pass")
    tops = cards("9H JH KH 5H 9S JS KS 3S")
    assert state.array[E.FACE_UP] == tops  # V-K17: right after the auction, before trump
    assert state.array[E.PHASE] == E.NAMING_TRUMP
    piles = "piles: P0 ??/9S ??/JS ??/KS ??/3S, P1 ??/9H ??/JH ??/KH ??/5H"
    assert piles in state.information_state_string(0)
    act(state, "trump D")
    # P1 leads from his hand or his own face-up tops.
    assert state.legal_actions() == sorted(parse_card(c) for c in (TWO_HANDS[1] + " 9H JH KH 5H").split())
    act(state, "KH")
    assert state.array[E.FACE_UP] == (tops & ~cards("KH")) | cards("QH")  # the card beneath turns up
    # P0 has no heart, hand or piles: any playable card, the spade tops included.
    assert state.legal_actions() == sorted(parse_card(c) for c in (TWO_HANDS[0] + " 9S JS KS 3S").split())
    act(state, "3S")
    assert state.array[E.TRICK_WINNERS] == 1 and state.array[E.HAND_POINTS + 1] == -2
    strings = [state.information_state_string(p) for p in range(2)]
    assert all("P1 ??/9H ??/JH QH/- ??/5H" in string for string in strings)
    play_lowest(state)
    s = state.array
    assert s[E.TRICK_NUMBER] == 16 and s[E.TRICKS_WON] + s[E.TRICKS_WON + 1] == 16
    assert s[E.HAND_POINTS] + s[E.HAND_POINTS + 1] == 18 and s[E.PILE_CARDS] == 0
    assert sum(state.returns()) == 0


def test_two_player_misdeal_looks_at_the_hand_only():
    weak = {0: "7C 8C 9C TC 7D 8D 9D TD", 1: "JC QC KC AC JD QD KD AD"}
    state = two_player_state(weak)  # P0's piles hold every spade honour and the 3S
    act(state, "pass")
    assert 57 in state.legal_actions()
    act(state, "misdeal")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]


def test_two_player_resampling_redraws_every_face_down_card():
    from cardlab.games.kaiser.sampling import resample_hidden_hands

    state = two_player_state()
    act(state, "bid 6", "pass", "trump D", "KH")
    s = state.array
    face_down = s[E.PILE_CARDS] & ~s[E.FACE_UP]
    differs = False
    for seat in range(2):
        hidden = s[E.HANDS + 1 - seat] | face_down
        for k in range(20):
            world = resample_hidden_hands(s, seat, make_stream(k))
            assert world[E.HANDS + seat] == s[E.HANDS + seat] and world[E.FACE_UP] == s[E.FACE_UP]
            assert world[E.HANDS + 1 - seat] | (world[E.PILE_CARDS] & ~world[E.FACE_UP]) == hidden
            assert bin(int(world[E.HANDS + 1 - seat])).count("1") == 8
            differs |= bool(world[E.PILES + 0] != s[E.PILES + 0])  # P0's own face-down card too
    assert differs
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seat in range(2):
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)


# ---- Three players (11.12): the missy, minimum bid 7, each seat alone ---------------------------
THREE_HANDS = {
    0: "9C TC JC QC KC AC 9D TD",
    1: "JD QD KD AD 5H 9H TH JH",
    2: "QH KH AH 3S 9S TS JS QS",
}
THREE_KITTY = "KS AS"


def three_player_state() -> pyspiel.State:
    state = dealt(load(players=3), THREE_HANDS, THREE_KITTY)
    assert state.array[E.KITTY] == cards(THREE_KITTY) and state.current_player() == 1
    return state


def test_three_player_kitty_minimum_bid_and_discards():
    state = three_player_state()
    # V-K1: the minimum bid is 7 with three players.
    assert bid_action(6, 0) not in state.legal_actions() and bid_action(7, 0) in state.legal_actions()
    act(state, "bid 7", "pass")
    # The dealer may equal the high bid.
    assert bid_action(7, 0) in state.legal_actions()
    act(state, "bid 7", "trump C")
    # The declarer took the missy: ten cards; discards in ascending order, never the 5H or the 3S.
    assert state.array[E.HANDS] == cards(THREE_HANDS[0] + " " + THREE_KITTY) and state.current_player() == 0
    assert state.legal_actions() == sorted(parse_card(c) for c in THREE_HANDS[0].split() + ["KS"])
    act(state, "9D", "TD")
    assert state.array[E.PHASE] == E.PLAYING and state.current_player() == 0
    play_lowest(state)
    # Every trick is P0's (trumps and the spade aces): 8 + 5 - 3; the others score nothing.
    assert state.array[E.HAND_POINTS:E.HAND_POINTS + 3].tolist() == [10, 0, 0]
    assert state.returns() == [10.0, -5.0, -5.0]


def test_three_player_dealer_may_not_pass_after_two_passes():
    state = three_player_state()
    act(state, "pass", "pass")
    assert state.legal_actions()[0] == bid_action(7, 0)  # no pass (52), no misdeal (57)


def test_three_player_no_trump_declarer_takes_the_missy_too():
    """V-K19: a no-trump declarer takes the kitty and discards two as well."""
    state = three_player_state()
    act(state, "bid 7NT", "pass", "pass")
    assert state.array[E.PHASE] == E.DISCARDING and state.current_player() == 1
    hand = int(state.array[E.HANDS + 1])
    assert hand == cards(THREE_HANDS[1] + " " + THREE_KITTY)
    assert parse_card("5H") not in state.legal_actions()


def test_three_player_kitty_is_seen_by_the_declarer_only():
    strings = {}
    for discards in (("9D", "TD"), ("9C", "KS")):
        state = three_player_state()
        act(state, "pass", "pass", "bid 7", "trump C", *discards)
        strings[discards] = [state.information_state_string(p) for p in range(3)]
        tensors = [state.information_state_tensor(p) for p in range(3)]
        assert tensors[0] != tensors[1]
    first, second = strings.values()
    assert first[0] != second[0]  # the declarer knows what he discarded
    assert [first[p] for p in (1, 2)] == [second[p] for p in (1, 2)]
    assert "kitty: KS AS, discarded: 9D TD" in first[0] and "kitty" not in first[1]


def test_three_player_resampling_keeps_what_each_seat_knows():
    from cardlab.games.kaiser.sampling import resample_hidden_hands

    state = three_player_state()
    act(state, "pass", "pass", "bid 7", "trump C", "9D")
    for seat in range(3):
        for k in range(20):
            world = resample_hidden_hands(state.array, seat, make_stream(k))
            everything = np.bitwise_or.reduce(world[E.DEALT:E.DEALT + 3]) | world[E.KITTY]
            assert everything == world[E.DECK] and bin(int(world[E.KITTY])).count("1") == 2
            assert world[E.HANDS + seat] == state.array[E.HANDS + seat]
            if seat == 0:
                assert world[E.KITTY] == state.array[E.KITTY] and world[E.DISCARDS] == state.array[E.DISCARDS]
            else:
                assert world[E.DISCARDS] & cards("5H 3S") == 0
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seat in range(3):
        world = state.resample_from_infostate(seat, sampler)
        assert world.information_state_string(seat) == state.information_state_string(seat)


def test_rules_player_discards_weak_side_cards_never_the_point_cards():
    from cardlab.games.kaiser.strategy import rules_action

    state = three_player_state()
    act(state, "pass", "pass", "bid 7", "trump C")
    first = state.action_to_string(0, rules_action(state.array, make_stream(0)))
    assert first == "9D"
    state = three_player_state()
    act(state, "pass", "bid 7", "pass", "trump S")  # P2 holds the 3S and takes KS AS
    choice = rules_action(state.array, make_stream(0))
    assert choice in state.legal_actions() and choice not in (parse_card("3S"), parse_card("5H"))
    assert state.action_to_string(2, choice) == "QH"


def test_three_player_limit_is_per_seat_and_opponents_score_separately():
    """V-K18: a seat at or above 45 scores only its own successful bid (and negative points)."""
    match = {"players": 3, "match": True}
    s = scored(match, [4, 3, 3], declarer=0, scores=[0, 45, 30])
    assert deltas(s) == [-7, 0, 3]
    s = scored(match, [10, -3, 3], declarer=0, scores=[0, 45, 30])
    assert deltas(s) == [10, -3, 3]
    s = scored(match, [4, 6, 0], declarer=1, bid=(7, 1), scores=[0, 45, 30])  # 6 < 7: failed NT
    assert deltas(s) == [4, -14, 0]


# ---- Five and six players (11.13, 11.14, V-K2) ---------------------------------------------------
SIX_HANDS = {
    0: "3C 4C 5C 6C 7C 8C 9C TC",
    1: "JC QC KC AC 3D 4D 5D 6D",
    2: "7D 8D 9D TD JD QD KD AD",
    3: "3H 6H 7H 8H 9H TH JH QH",
    4: "4H 5H KH AH 3S 4S 5S 6S",
    5: "7S 8S 9S TS JS QS KS AS",
}


@pytest.mark.parametrize("three_teams, side_of_p4", [(False, 0), (True, 1)])
def test_six_player_tricks_of_six_and_the_five_of_hearts_keeps_its_rank(three_teams, side_of_p4):
    state = dealt(load(players=6, three_teams=three_teams), SIX_HANDS)
    act(state, "pass", "pass", "bid 6NT", "pass", "pass", "pass")
    assert state.current_player() == 3
    act(state, "3H", "5H", "7S", "3C", "3D", "7D")  # 5H over 4H and 3H (11.14: natural rank)
    s = state.array
    assert s[E.TRICK_WINNERS] == 4 and s[E.TRICK_NUMBER] == 1 and state.current_player() == 4
    assert s[E.HAND_POINTS + side_of_p4] == 6 and s[E.TRICKS_WON + side_of_p4] == 1
    play_lowest(state)
    assert state.array[E.TRICK_NUMBER] == 8
    assert sum(state.array[E.HAND_POINTS:E.HAND_POINTS + 3]) == 10
    returns = state.returns()
    assert abs(sum(returns)) < 1e-9
    sides = state.array[E.SIDE_OF:E.SIDE_OF + 6]
    assert all(returns[a] == returns[b] for a in range(6) for b in range(6) if sides[a] == sides[b])


def test_five_player_tricks_of_five_each_seat_alone():
    game = load(players=5)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    assert [bin(int(state.array[E.HANDS + seat])).count("1") for seat in range(5)] == [8] * 5
    assert state.current_player() == 1
    for _ in range(4):
        state.apply_action(52)  # four passes: the dealer must bid
    assert 52 not in state.legal_actions()
    state.apply_action(bid_action(6, 1))
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    assert state.array[E.TRICK_NUMBER] == 1 and state.array[E.TRICK_SIZE] == 0


def test_more_than_two_sides_score_separately_v_k2():
    # Five players: seat 2 bids 6 and makes 7 points; the others keep their own points.
    s = scored({"players": 5}, [1, 0, 7, 2, 0], declarer=2, bid=(6, 0))
    assert deltas(s) == [1, 0, 7, 2, 0]
    # Hand mode (§0): own delta minus the mean of the others'.
    assert seat_returns(s) == [1 - 9 / 4, 0 - 10 / 4, 7 - 3 / 4, 2 - 8 / 4, 0 - 10 / 4]
    # Three teams of two: team 1 fails 8NT (-16); teams 0 and 2 score theirs.
    s = scored({"players": 6, "three_teams": True}, [4, 5, 1], declarer=4, bid=(8, 1))
    assert deltas(s) == [4, -16, 1]
    returns = seat_returns(s)
    assert returns == [4 + 15 / 2, -16 - 5 / 2, 1 + 12 / 2] * 2 and sum(returns) == 0


def test_match_returns_with_three_sides_and_the_pot():
    """§0: the winning side's seats +1, the others -1/(m-1); 11.36's pot stays zero-sum per seat."""
    params = {"players": 3, "match": True, "pot": 1.0}
    s = scored(params, [10, 0, 0], declarer=0, scores=[45, 10, 20])
    assert s[E.WINNER] == 0 and s[E.PHASE] == E.GAME_OVER
    assert seat_returns(s) == [1.0, -0.5, -0.5]
    s = new_engine_state(params)
    s[E.POT_PAYMENTS:E.POT_PAYMENTS + 3] = [0, 2, 1]
    s[E.PHASE], s[E.WINNER] = E.GAME_OVER, 0
    assert seat_returns(s) == [1.0 + 3.0, -0.5 - 2.0, -0.5 - 1.0]


@pytest.mark.parametrize("dealer, winner", [(0, 1), (1, 2)])
def test_end_check_tie_goes_to_the_side_nearest_dealer_plus_one(dealer, winner):
    """V-K3: two non-declaring sides at the same score over the target; the declarer failed."""
    params = {"players": 3, "match": True, "dealer": dealer, "non_bidder_limit": 60}
    s = scored(params, [2, 4, 4], declarer=0, scores=[0, 50, 50])
    assert s[E.MATCH_SCORE:E.MATCH_SCORE + 3].tolist() == [-7, 54, 54]
    assert s[E.WINNER] == winner


def test_minus_target_loses_with_more_sides():
    params = {"players": 5, "match": True, "minus_target_loses": True}
    s = scored(params, [0, 0, 2, 4, 4], declarer=2, bid=(12, 1), scores=[10, 5, -30, 0, 20])
    assert s[E.MATCH_SCORE + 2] == -54 and s[E.WINNER] == 4  # the best of those above -52


# ---- Tensors and strings --------------------------------------------------------------------------
@pytest.mark.parametrize("params", CONFIGURATIONS, ids=IDS)
def test_tensors_have_one_block_per_seat_and_per_side(params):
    game = load(**params)
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    shapes = set()
    while not state.is_terminal():
        for player in range(game.num_players()):
            info = state.information_state_tensor(player)
            observation = state.observation_tensor(player)
            shapes.add((len(info), len(observation)))
        legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(legal))
    assert shapes == {(game.information_state_tensor_size(), game.observation_tensor_size())}
    assert "hand score: " in state.information_state_string(0)


def test_standard_tensors_are_unchanged_by_the_seat_blocks():
    from cardlab.games.kaiser.observation import INFORMATION_STATE_SIZE, OBSERVATION_SIZE

    game = load()
    assert game.observation_tensor_size() == OBSERVATION_SIZE
    assert game.information_state_tensor_size() == INFORMATION_STATE_SIZE


# ---- Refusals, invariants, the arena --------------------------------------------------------------
def random_play_invariants(params: dict, hands: int) -> None:
    """Play ``hands`` random games in the engine: every card dealt once and played once, the
    hand's 10 points (two players: 18) shared out, partners' returns equal, every game zero-sum."""
    template = new_engine_state(params)
    players, sides = int(template[E.NUM_PLAYERS]), int(template[E.NUM_SIDES])
    side_of = template[E.SIDE_OF:E.SIDE_OF + players]
    results = np.zeros((hands, 5))
    E.play_random_hands(template, hands, make_stream(3), results)
    if not params.get("match"):
        assert np.all(np.abs(results[:, 0]) <= E.hand_utility_bound(template))
    s = template.copy()
    out = np.zeros(players)
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    stream = make_stream(4)
    for _ in range(hands // 10):
        s[:] = template
        while s[E.PHASE] != E.GAME_OVER:
            E.apply_action(s, E.random_action(s, stream, legal))
        E.returns(s, out)
        assert abs(out.sum()) < 1e-9
        for seat in range(players):
            assert out[seat] == out[np.flatnonzero(side_of == side_of[seat])[0]]
        if s[E.WINNER] == E.DRAWN:
            continue
        tricks = E.tricks_per_hand(s)
        assert s[E.HAND_POINTS:E.HAND_POINTS + sides].sum() == tricks + 2
        assert s[E.TRICKS_WON:E.TRICKS_WON + sides].sum() == tricks
        history = s[E.TRICK_HISTORY:E.TRICK_HISTORY + tricks * players]
        assert sorted(history.tolist()) == [c for c in range(52) if (int(s[E.DECK]) >> c) & 1
                                            and not (int(s[E.DISCARDS]) >> c) & 1]
        assert all(s[E.HANDS + seat] == 0 for seat in range(players))


#: Random bidders mostly fail their contracts, so random matches end at minus the target.
MATCHES = [{**params, "match": True, "minus_target_loses": True} for params in CONFIGURATIONS]
COMBINATIONS = [
    {"players": 2, "low_no_trump": True, "high_low_no_trump_equal": True,
     "match": True, "must_bid_to_win": True},
    {"players": 3, "low_no_trump": True, "no_overtricks": True, "dealer_may_pass": True},
    {"players": 5, "any_contract_high_or_low": True, "four_of_a_rank_misdeal": True},
    {"players": 6, "three_teams": True, "match": True, "minus_target_loses": True, "pot": 1.0,
     "max_hands": 30},
    {"players": 3, "high_or_low_announced_after_bid": True, "three_spades_needs_three_tricks": False,
     "match": True, "target_after_no_trump": 62, "max_hands": 30},
]


@pytest.mark.parametrize("params", CONFIGURATIONS + COMBINATIONS, ids=str)
def test_random_play_invariants(params):
    random_play_invariants(params, 500)


@pytest.mark.parametrize("params", MATCHES, ids=str)
def test_random_matches_stay_zero_sum(params):
    template = new_engine_state(params)
    results = np.zeros((100, 5))
    E.play_random_hands(template, 100, make_stream(8), results)
    decided = results[:, 0] != 0.0
    assert decided.mean() > 0.9
    sides = int(template[E.NUM_SIDES])
    assert set(np.round(results[decided, 0], 9)) <= {1.0, round(-1.0 / (sides - 1), 9)}


@pytest.mark.slow
@pytest.mark.parametrize("params", CONFIGURATIONS + COMBINATIONS, ids=str)
def test_random_play_invariants_ten_thousand_hands(params):
    random_play_invariants(params, 10_000)


def test_a_tournament_runs_five_players_in_the_compiled_arena(tmp_path):
    rows = tournament_rows(tmp_path / "r", "--game", "kaiser", "--agents", "rules,random", "--deals", "2",
                           "--seed", "5", "--param", "players=5")
    assert rows and all(len(row["returns"]) == 5 and abs(sum(row["returns"])) < 1e-9 for row in rows)
    assert all(len(row["actions"]) > 40 for row in rows)  # a 40-card deal starts every game
