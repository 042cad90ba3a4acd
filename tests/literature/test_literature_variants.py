"""Literature's rule variants (docs/variants.md): the load_game rejects of spec 4.6, and the
variants whose engine work is not done yet refused rather than played as another game.

The variants already implemented are shown by tests/literature/test_literature_rulings.py (each Variant
in cardlab/games/literature/variants.py names its test).
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, decisions
from test_literature_knowledge import _resampler_failures, _soundness_failures
from test_literature_rulings import hands_with, legal_strings, load

from cardlab.core.cards import parse_card
from cardlab.core.rng import make_stream
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.game import state_with_hands
from cardlab.games.literature.rules import VOID
from cardlab.games.literature.strategy import rules_action, should_challenge

OWN_CARD_VARIANTS = [{"ask_own_card_surrender": True}, {"bluff_own_card": True}]
OWN_CARD_IDS = ["surrender", "bluff"]
#: The variants of this issue that the engine plays, each alone, then together where allowed.
PLAYED = [*OWN_CARD_VARIANTS, {"opponent_picks_next_player": True},
          {"eights_in_play": True}, {"eights_in_play": True, "players": 8, "dealer": 3},
          {"eights_in_play": True, "players": 4, "claim_any_time": True,
           "ask_own_card_surrender": True},
          {"forced_claims": True}, {"challenge": True},
          {"forced_claims": True, "challenge": True, "claim_any_time": True, "players": 8,
           "opponent_picks_next_player": True},
          {"forced_claims": True, "challenge": True, "eights_in_play": True, "players": 4,
           "misclaim_to_opponents": True, "bluff_own_card": True},
          {"opponent_picks_next_player": True, "ask_own_card_surrender": True, "players": 8},
          {"opponent_picks_next_player": True, "bluff_own_card": True, "players": 4},
          {"claim_any_time": True},
          {"claim_any_time": True, "opponent_picks_next_player": True, "bluff_own_card": True}]
PLAYED_IDS = [*OWN_CARD_IDS, "picks", "eights", "eights-8-dealer3", "eights-4+any-time+surrender",
              "forced", "challenge", "forced+challenge+any-time+picks-8",
              "forced+challenge+eights+misclaim+bluff-4",
              "picks+surrender-8", "picks+bluff-4", "any-time",
              "any-time+picks+bluff"]


def holds(state: pyspiel.State, seat: int, card: str) -> bool:
    return bool((int(state.array[E.HANDS + seat]) >> parse_card(card)) & 1)


# ---- 12.12 ask_own_card_surrender and 12.13 bluff_own_card ------------------------------------
def test_asking_for_ones_own_card_surrenders_it():
    game = load(ask_own_card_surrender=True)
    state = state_with_hands(game, hands_with(game, {0: "2H 3H", 1: "9C"}))
    act(state, "ask P1 2H")
    assert holds(state, 1, "2H") and not holds(state, 0, "2H")
    assert state.current_player() == 1  # the turn passes to the target
    public = E.knowledge_of(state.array)
    assert K.may_hold(public, 1, parse_card("2H")) and K.holder_of(public, parse_card("2H")) == 1
    assert K.hand_size(public, 0) == 7 and K.hand_size(public, 1) == 9
    assert "P0 asks P1 2H: own card, surrendered" in str(state)
    assert int(state.array[E.ASKS]) == 1  # it counts toward max_asks (clarification 6)


def test_a_bluff_fails_like_a_refused_ask():
    game = load(bluff_own_card=True)
    bluff = state_with_hands(game, hands_with(game, {0: "2H 3H", 1: "9C"}))
    act(bluff, "ask P1 2H")
    assert holds(bluff, 0, "2H") and bluff.current_player() == 1
    event = int(bluff.array[E.LOG])
    assert not E.event_success(event) and not E.event_surrendered(event)  # as a refused ask
    assert "P0 asks P1 2H: no" in str(bluff)
    # A refused ask no longer proves that the asker lacks the card.
    assert K.may_hold(E.knowledge_of(bluff.array), 0, parse_card("2H"))


@pytest.mark.parametrize("params", OWN_CARD_VARIANTS, ids=OWN_CARD_IDS)
def test_v_l6_the_asked_card_meets_the_half_suit_condition(params: dict):
    game = load(**params)
    state = state_with_hands(game, hands_with(game, {0: "2H 9S", 1: "3H"}))
    assert "ask P1 2H" in legal_strings(state)  # his only low heart
    assert "ask P1 9S" in legal_strings(state) and "ask P1 2D" not in legal_strings(state)
    standard = state_with_hands(load(), hands_with(load(), {0: "2H 9S", 1: "3H"}))
    assert "ask P1 2H" not in legal_strings(standard)


@pytest.mark.parametrize("params", OWN_CARD_VARIANTS, ids=OWN_CARD_IDS)
def test_rules_player_never_asks_for_its_own_card(params: dict):
    game = load(**params)
    rng = np.random.default_rng(3)
    stream = make_stream(4)
    def checked_rules_action(state: pyspiel.State) -> int:
        action = int(rules_action(state.array, stream))
        if action < 1024:
            assert not holds(state, state.current_player(), state.action_to_string(
                state.current_player(), action).split()[-1])
        return action

    for _ in range(20):
        for _ in decisions(game.new_initial_state(), rng, checked_rules_action):
            pass


@pytest.mark.parametrize("params", PLAYED, ids=PLAYED_IDS)
def test_knowledge_stays_sound_under_each_played_variant(params: dict):
    game = load(**params)
    certain = np.zeros(2, dtype=np.int64)
    failures, steps = _soundness_failures(game.initial_array, 300, make_stream(9), certain)
    # Random players challenge often, and every challenge resolves a half-suit: short games.
    assert failures == 0 and steps > 300 * (10 if params.get("challenge") else 50)


@pytest.mark.parametrize("params", PLAYED, ids=PLAYED_IDS)
def test_resampled_worlds_fit_the_log_under_each_played_variant(params: dict):
    game = load(**params)
    failures, moved = _resampler_failures(game.initial_array, 300, make_stream(10))[:2]
    assert failures == 0


@pytest.mark.parametrize("params", PLAYED, ids=PLAYED_IDS)
def test_resampled_worlds_keep_the_information_state_under_each_played_variant(params: dict):
    game = load(**params)
    rng = np.random.default_rng(5)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    while checked < 60:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            if rng.random() < 0.05:
                player = int(rng.integers(game.num_players()))
                world = state.resample_from_infostate(player, sampler)
                assert world.information_state_string(player) == state.information_state_string(
                    player)
                assert world.information_state_tensor(player) == state.information_state_tensor(
                    player)
                checked += 1
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("params", PLAYED, ids=PLAYED_IDS)
def test_random_games_keep_the_invariants_under_each_played_variant(params: dict):
    random_game_invariants(params, 500, 13)


@pytest.mark.slow
@pytest.mark.parametrize("params", PLAYED, ids=PLAYED_IDS)
def test_ten_thousand_random_games_keep_the_invariants_under_each_played_variant(params: dict):
    random_game_invariants(params, 10_000, 14)


def random_game_invariants(params: dict, games: int, seed: int) -> None:
    game = load(**params)
    results = np.zeros((games, 4), dtype=np.int64)
    E.play_random_games(game.initial_array, games, make_stream(seed), results)
    scored_or_void = results[:, 0] + results[:, 1] + results[:, 3]
    assert np.all(scored_or_void == 8)  # every half-suit once (each worth 1 here)
    assert np.all(results[:, 2] <= 500)


# ---- 12.10 eights_in_play --------------------------------------------------------------------------
def test_v_l4_the_52_cards_are_dealt_round_unevenly():
    game = load(eights_in_play=True, dealer=2)
    state = state_with_hands(game, hands_with(game, {2: "8S 9S"}))
    sizes = [bin(int(state.array[E.HANDS + seat])).count("1") for seat in range(6)]
    assert sizes == [9, 8, 8, 9, 9, 9]  # dealer + 1 .. dealer + 4 get 9, dealer + 5 and the dealer 8
    assert sum(sizes) == 52 and int(state.array[E.DECK]) == (1 << 52) - 1
    public = E.knowledge_of(state.array)
    assert [K.hand_size(public, seat) for seat in range(6)] == sizes
    # The 8s are high cards: the dealer (on turn) asks for the others of S-high only.
    assert state.current_player() == 2
    strings = legal_strings(state)
    assert "ask P1 AS" in strings and "ask P1 TS" in strings and "ask P1 7S" not in strings
    assert int(load(eights_in_play=True, players=4).initial_array[E.CARDS_EACH]) == 13
    with pytest.raises(ValueError, match="hand sizes"):
        state_with_hands(game, [int(state.array[E.HANDS + (seat + 1) % 6]) for seat in range(6)])


def test_a_high_half_suit_claim_names_seven_seats():
    game = load(eights_in_play=True, players=4)
    spades = {0: "8S 9S TS JS", 2: "QS KS AS", 1: "2S 3S 4S 5S 6S 7S"}
    state = state_with_hands(game, hands_with(game, spades))
    act(state, "claim S-high", *["assign P0"] * 4, *["assign P2"] * 2)
    assert state.current_player() == 0 and int(state.array[E.CLAIM_COUNT]) == 6  # one card to go
    act(state, "assign P2")
    assert int(state.array[E.STATUS + 7]) == 0 and int(state.array[E.SCORES]) == 1
    event = int(state.array[E.LOG])
    assert [int(E.event_named_seat(event, i)) for i in range(7)] == [0, 0, 0, 0, 2, 2, 2]
    assert [int(E.event_holder(event, i)) for i in range(7)] == [0, 0, 0, 0, 2, 2, 2]
    assert not E.event_in_window(event) and int(E.event_status(event)) == 0
    assert "P0 claims S-high [8S:P0 9S:P0 TS:P0 JS:P0 QS:P2 KS:P2 AS:P2]" in str(state)
    # One wrong seat of seven voids a high half-suit.
    wrong = state_with_hands(game, hands_with(game, spades))
    act(wrong, "claim S-high", *["assign P0"] * 4, *["assign P2"] * 2, "assign P0")
    assert int(wrong.array[E.STATUS + 7]) == VOID
    # A low half-suit keeps its six cards and six assignment nodes.
    low = state_with_hands(game, hands_with(game, {0: "2H", 1: "2S 3S 4S 5S 6S 7S"}))
    act(low, "ask P1 3H")
    assert low.current_player() == 1
    act(low, "claim S-low", *["assign P1"] * 6)
    assert int(low.array[E.STATUS + 6]) == 1 and low.current_player() == 1


# ---- 12.11 opponent_picks_next_player ------------------------------------------------------------
def emptied_by_a_claim(asked_first: bool, **params) -> pyspiel.State:
    """Eight players; P0 holds exactly H-low and claims it, which leaves him on turn without cards."""
    game = load(players=8, first_ask_left_of_dealer=asked_first, **params)
    state = state_with_hands(game, hands_with(game, {0: "2H 3H 4H 5H 6H 7H", 1: "9S"}))
    if asked_first:
        act(state, "ask P0 TS")  # refused: the turn comes to P0
    return act(state, "claim H-low", *["assign P0"] * 6)


def test_the_last_opponent_to_ask_picks_the_next_player():
    state = emptied_by_a_claim(True, opponent_picks_next_player=True)
    assert state.current_player() == 1  # P1 asked P0 last
    assert legal_strings(state) == ["pass P2", "pass P4", "pass P6"]
    assert "P1 picks who plays for P0" in str(state)
    act(state, "pass P6")
    assert state.current_player() == 6 and int(state.array[E.PICKING_FOR]) == -1
    standard = emptied_by_a_claim(True)
    assert standard.current_player() == 0  # the contract: the empty-handed seat itself


def test_v_l5_a_seat_nobody_asked_picks_for_itself():
    state = emptied_by_a_claim(False, opponent_picks_next_player=True)
    assert state.current_player() == 0
    assert legal_strings(state) == ["pass P2", "pass P4", "pass P6"]


def test_rules_and_random_bots_play_opponent_picks():
    from cardlab import agents
    from cardlab.arena import play_deal

    game = load(opponent_picks_next_player=True, players=4)
    for seed in range(5):
        for name in ("rules", "random"):
            bots = [agents.make(name, game, seat, seed + seat) for seat in range(4)]
            state, returns = play_deal(game, bots, seed)
            assert state.is_terminal() and sum(returns) == 0


# ---- 12.5 claim_any_time --------------------------------------------------------------------------
SUITED = {0: "2C 3C 4C 5C 6C 7C 9C TC JC QC KC AC", 1: "2H 3H 4H 5H 6H 7H 9H TH JH QH KH AH",
          2: "2D 3D 4D 5D 6D 7D 9D TD JD QD KD AD", 3: "2S 3S 4S 5S 6S 7S 9S TS JS QS KS AS"}


def suited_game() -> pyspiel.State:
    """Four players, each holding two whole half-suits, claims at any time; P0 on turn."""
    game = load(players=4, claim_any_time=True)
    return state_with_hands(game, hands_with(game, SUITED))


def test_claim_windows_poll_the_other_seats_before_each_decision():
    state = suited_game()
    polled = []
    while state.current_player() != 0:
        polled.append(state.current_player())
        assert legal_strings(state)[-1] == "pass" and "claim H-low" in legal_strings(state)
        act(state, "pass")
    assert polled == [1, 2, 3]  # in turn order from the seat on turn + 1
    assert "claim C-low" in legal_strings(state) and "pass" not in legal_strings(state)
    act(state, "claim C-low", *["assign P0"] * 6)  # his decision: a window polls again
    assert state.current_player() == 1 and "claim window: P1 may claim (P0 on turn)" in str(state)


def test_v_l2_a_claim_in_a_window_leaves_the_turn_where_it_was():
    state = act(suited_game(), "claim H-low", *["assign P1"] * 6)
    assert state.current_player() == 2  # polling goes on with the next seat
    act(state, "pass", "pass")
    assert state.current_player() == 0  # P0 still on turn
    assert int(state.array[E.STATUS + 4]) == 1
    assert "P1 claims H-low in a claim window" in str(state)


def test_v_l3_empty_handed_seats_claim_in_windows_and_the_endgame_hand_off_widens():
    state = suited_game()
    act(state, "claim H-low", *["assign P1"] * 6, "claim D-low", *["assign P2"] * 6, "pass")
    act(state, "claim C-low", *["assign P0"] * 6)  # on turn: P0 keeps it; a window follows
    act(state, "claim H-high", *["assign P1"] * 6, "pass", "pass")  # P1 now holds no card
    act(state, "claim C-high", *["assign P0"] * 6)  # P0 holds none now
    assert state.current_player() == 1 and "claim S-low" in legal_strings(state)  # still polled
    act(state, "pass", "pass", "pass")
    assert legal_strings(state) == ["pass P2"]  # ruling 4: P0 hands the turn on
    act(state, "pass P2", "pass", "pass", "pass", "claim D-high", *["assign P2"] * 6)
    # Team 0 holds no card: P2 may hand the turn to any seat of team 1, with cards or not.
    assert state.current_player() == 2
    assert legal_strings(state) == ["pass P1", "pass P3"]
    act(state, "pass P1")
    assert legal_strings(state) == ["claim S-low", "claim S-high"]  # who may only claim


# ---- 12.15 forced_claims ----------------------------------------------------------------------------
def assert_worlds_keep_every_information_state(state: pyspiel.State) -> None:
    """Each seat's resampled worlds give it the same information state (string, tensor, key)."""
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for player in range(state.num_players()):
        for _ in range(3):
            world = state.resample_from_infostate(player, sampler)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.information_state_tensor(player) == state.information_state_tensor(player)
            assert world.information_state_key(player) == state.information_state_key(player)


def emptied_team_zero(**params) -> pyspiel.State:
    """Four players holding whole half-suits (``SUITED``); team 0 claims its four, which leaves
    it without cards: the endgame, team 1 never on turn."""
    game = load(players=4, **params)
    state = state_with_hands(game, hands_with(game, SUITED))
    claim_seats = {"C": 0, "D": 2}
    for suit in "CD":
        for half in ("low", "high"):
            act(state, f"claim {suit}-{half}", *[f"assign P{claim_seats[suit]}"] * 6)
        if suit == "C":
            act(state, "pass P2")  # P0 holds no card now
    return state


def test_forced_claims_the_endgame_is_declared_in_turn_or_passed():
    state = emptied_team_zero(forced_claims=True)
    # X = team 1, from LAST_TURN(team 1): it never had a turn, so its first seat after P0.
    assert state.current_player() == 1
    assert legal_strings(state) == ["claim H-low", "claim H-high", "claim S-low", "claim S-high",
                                    "pass"]
    assert "forced declaration (the endgame): team 1 declares" in str(state)
    assert_worlds_keep_every_information_state(state)
    act(state, "pass")
    assert state.current_player() == 3  # the next seat of the team
    act(state, "claim S-low", *["assign P3"] * 3)
    assert_worlds_keep_every_information_state(state)  # in the middle of a declaration
    act(state, *["assign P3"] * 3)
    assert int(state.array[E.STATUS + 6]) == 1 and "P3 declares after 1 passes" in str(state)
    # V-L7: the procedure restarts from the declarer, 2 m F = 12 nodes for the three left.
    assert state.current_player() == 3
    assert legal_strings(state) == ["claim H-low", "claim H-high", "claim S-high", "pass"]
    for node in range(12):
        assert state.current_player() == (3, 1)[node % 2]
        act(state, "pass")
    assert state.is_terminal() and state.returns() == [6.0, -6.0, 6.0, -6.0]  # 7 to 1
    assert "H-high undeclared, shown [9H:P1" in str(state)
    public = E.knowledge_of(state.array)
    assert K.hand_size(public, 1) == 0 and K.hand_size(public, 3) == 0


@pytest.mark.parametrize("misclaim, status", [(False, VOID), (True, 0)])
def test_forced_claims_a_wrong_declaration_is_resolved_as_a_claim(misclaim: bool, status: int):
    state = emptied_team_zero(forced_claims=True, misclaim_to_opponents=misclaim)
    act(state, "claim H-low", *["assign P3"] * 6)
    assert int(state.array[E.STATUS + 4]) == status
    standard = emptied_team_zero()  # contract ruling 5: P2 hands the turn to team 1
    assert legal_strings(standard) == ["pass P1", "pass P3"]


# ---- 12.17 challenge --------------------------------------------------------------------------------
MIXED = {0: "2C 3C 4C 5C 6C 7C 9C TC JC QC KC AD", 1: "2H 3H 4H 5H 6H 7H 9H TH JH QH KH AH",
         2: "2D 3D 4D 5D 6D 7D 9D TD JD QD KD AC", 3: "2S 3S 4S 5S 6S 7S 9S TS JS QS KS AS"}


def challenge_game(hands: dict[int, str] = MIXED, **params) -> pyspiel.State:
    """Four players with challenges; P0 asks P1 for 9D (refused), so P1 is on turn after its
    window: LAST_TURN(team 0) = P0, LAST_TURN(team 1) = P1."""
    game = load(players=4, challenge=True, **params)
    state = state_with_hands(game, hands_with(game, hands))
    return act(state, "pass", "pass", "pass", "ask P1 9D", "pass", "pass", "pass")


def test_a_challenged_team_holding_the_half_suit_must_declare_it():
    state = challenge_game()
    assert state.current_player() == 1 and "challenge C-high" in legal_strings(state)
    assert load(challenge=True).num_distinct_actions() == 1081 and load().num_distinct_actions() == 1072
    act(state, "challenge C-high")
    # The forced procedure (team 0, {C-high}, LAST_TURN(team 0) = P0): 2 m = 4 nodes.
    assert state.current_player() == 0 and legal_strings(state) == ["claim C-high", "pass"]
    assert "P1 challenges team 0 on C-high: it must declare" in str(state)
    public = E.knowledge_of(state.array)  # the challenge proves team 0 holds all of C-high
    assert not K.may_hold(public, 1, parse_card("AC")) and not K.may_hold(public, 3, parse_card("9C"))
    assert_worlds_keep_every_information_state(state)
    act(state, "pass", "claim C-high", *["assign P0"] * 5, "assign P2")
    assert int(state.array[E.STATUS + 1]) == 0  # right: the challenged team scores
    assert "P2 declares after 1 passes" in str(state)
    # Play resumes: P1 keeps the turn, after a window.
    assert state.current_player() == 2 and "(P1 on turn)" in str(state)


@pytest.mark.parametrize("moves", [["claim C-high", *["assign P0"] * 6], ["pass"] * 4],
                         ids=["wrong-seat", "all-pass"])
def test_a_wrong_or_missing_answer_scores_for_the_challengers(moves: list[str]):
    state = act(challenge_game(misclaim_to_opponents=False), "challenge C-high", *moves)
    assert int(state.array[E.STATUS + 1]) == 1 and int(state.array[E.SCORES + 1]) == 1
    assert state.current_player() == 2  # P1's window, P1 still on turn
    assert K.hand_size(E.knowledge_of(state.array), 2) == 11  # the AC left play, shown


def test_v_l8_a_challenge_on_a_team_without_every_card_scores_for_it():
    state = act(challenge_game(), "challenge H-low")  # P1's own half-suit
    assert int(state.array[E.STATUS + 4]) == 0  # the challenged team scores
    assert "which does not hold it all: shown [2H:P1" in str(state)
    assert_worlds_keep_every_information_state(state)  # in a window, after the challenge
    assert bin(int(state.array[E.HANDS + 1])).count("1") == 6  # the cards left play
    assert state.current_player() == 2  # P1 keeps the turn: its window first


def test_v_l9_a_challenge_in_a_window_lets_the_window_go_on():
    game = load(players=4, challenge=True)
    state = state_with_hands(game, hands_with(game, MIXED))
    assert state.current_player() == 1 and legal_strings(state)[0] == "pass"
    assert "challenge C-high" in legal_strings(state) and "claim H-low" not in legal_strings(state)
    act(state, "challenge C-high")  # in P0's window: team 0 answers from P0 (on turn)
    assert state.current_player() == 0
    act(state, "claim C-high", *["assign P0"] * 5, "assign P2")
    assert state.current_player() == 2 and "(P0 on turn)" in str(state)  # polling goes on
    act(state, "pass", "pass")
    assert state.current_player() == 0 and "ask P1 9D" in legal_strings(state)


def test_clarification5_no_challenge_in_the_endgame_without_forced_claims():
    game = load(players=4, challenge=True)
    state = state_with_hands(game, hands_with(game, SUITED))
    windows = ["pass"] * 3
    act(state, *windows, "claim C-low", *["assign P0"] * 6, *windows, "claim C-high",
        *["assign P0"] * 6, *windows, "pass P2", *windows, "claim D-low", *["assign P2"] * 6,
        *windows, "claim D-high", *["assign P2"] * 6)
    assert legal_strings(state) == ["pass P1", "pass P3"]  # contract ruling 5, no window
    act(state, "pass P1")
    assert legal_strings(state) == ["claim H-low", "claim H-high", "claim S-low", "claim S-high"]


def test_rules_player_challenges_only_what_the_other_team_cannot_place():
    split = {0: "2C 3C 4C 5C 6C 7C 9C TC JC QD KD AD", 1: "2S 3H 4H 5H 6H 7H 9S TH JH QH KH AH",
             2: "QC KC AC 2D 3D 4D 5D 6D 7D 9D TD JD", 3: "2H 3S 4S 5S 6S 7S 9H TS JS QS KS AS"}
    s = challenge_game(split).array
    assert not should_challenge(s, E.private_knowledge(s, 1), 1, 1)  # C-high not placed for P1
    assert rules_action(s, make_stream(0)) < 1072  # so it asks
    # Public facts as refused asks give them: P3 holds no C-high, P0 not QC KC AC, P2 not 9C TC JC.
    public = E.knowledge_of(s)
    for asker, cards in ((0, ("QC", "KC", "AC")), (2, ("9C", "TC", "JC"))):
        for card in cards:
            K.observe_ask(public, asker, 3, parse_card(card), False)
    # P1, who holds none, places every card with team 0; but P0 cannot tell whether P1 or P2
    # holds QC, nor P2 whether P0 or P1 holds 9C.
    assert should_challenge(s, E.private_knowledge(s, 1), 1, 1)
    assert rules_action(s, make_stream(0)) == 1072 + 1
    # Once P1 is known to lack QC KC AC, P0 can place them with P2: no challenge.
    for card in ("QC", "KC", "AC"):
        K.observe_ask(public, 0, 1, parse_card(card), False)
    assert not should_challenge(s, E.private_knowledge(s, 1), 1, 1)


@pytest.mark.parametrize("params, message", [
    ({"eights_in_play": True, "sevens_removed": True}, "eights_in_play cannot be combined"),
    ({"eights_in_play": True, "jokers_ninth_set": True}, "eights_in_play cannot be combined"),
    ({"ask_own_card_surrender": True, "bluff_own_card": True}, "two different outcomes"),
])
def test_combinations_the_spec_forbids_are_rejected(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game("cardlab_literature", params)


def test_ismcts_and_the_compiled_arena_play_forced_declarations_and_challenges():
    """The searcher's worlds match its information (debug mode checks) through windows,
    challenges and forced procedures; the compiled duplicate loop plays them to the end."""
    from cardlab import agents
    from cardlab.arena import native
    from cardlab.games import kernels

    game = load(players=4, challenge=True, forced_claims=True, eights_in_play=True)
    bots = [agents.make("ismcts", game, seat, seed=seat, simulations=20, world_pool=20, debug=True,
                        rollout="random" if seat % 2 else "rules") for seat in range(4)]
    state = game.new_initial_state()
    for _ in decisions(state, np.random.default_rng(2), lambda s: bots[s.current_player()].step(s)):
        pass
    assert state.is_terminal() and sum(state.returns()) == 0
    seatings = np.array([[0, 1, 0, 1], [1, 0, 1, 0]], dtype=np.int64)
    status, _, _, returns, _, _, finals = native.play_games(
        kernels.LITERATURE, game.new_initial_state().array.copy(), native.deal_seeds(7, 0, 4),
        seatings, np.array([native.RULES, native.RANDOM], dtype=np.int64),
        native.empty_options(2), native.empty_policies(2))
    assert status[0] == native.OK and np.all(returns.sum(axis=1) == 0)
    assert np.all(finals[:, E.STATUS:E.STATUS + 8] != -1)  # every half-suit resolved
