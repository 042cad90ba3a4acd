"""Literature: one test per ruling (docs/rules/literature.md#rulings), the three claim examples
of the source rules (docs/rules/literature.md#claim-examples), the variants, and the checks on bad input."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, game_loader

from cardlab.core.cards import mask_of, parse_card
from cardlab.core.rng import make_stream
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.game import action_to_string, state_with_hands
from cardlab.games.literature.rules import (
    ASSIGN,
    CLAIM,
    DECKS,
    PASS_TURN,
    STANDARD,
    UNRESOLVED,
    VOID,
    ask_action,
)
from cardlab.games.literature.strategy import rules_action


def hands_with(game: pyspiel.Game, fixed: dict[int, str]) -> list[int]:
    """Hands giving each seat in ``fixed`` those cards, the rest of the deck dealt in id order
    (each seat gets the round deal's number of cards)."""
    n = game.num_players()
    layout = int(game.initial_array[E.LAYOUT])
    hands = [mask_of(fixed.get(seat, "").split()) for seat in range(n)]
    free = [c for c in range(54) if (int(DECKS[layout]) >> c) & 1 and not any(
        (h >> c) & 1 for h in hands)]
    for seat in range(n):
        size = K.hand_size(E.knowledge_of(game.initial_array), seat)
        while bin(hands[seat]).count("1") < size:
            hands[seat] |= 1 << free.pop(0)
    return hands


load = game_loader("cardlab_literature")


def legal_strings(state: pyspiel.State) -> list[str]:
    return [state.action_to_string(state.current_player(), a) for a in state.legal_actions()]


def claim(state: pyspiel.State, half_suit: str, seats: list[int]) -> pyspiel.State:
    return act(state, f"claim {half_suit}", *(f"assign P{s}" for s in seats))


# ---- Ruling 1 ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dealer", [0, 3, 5])
def test_ruling1_dealer_has_first_turn(dealer: int) -> None:
    game = load(dealer=dealer)
    state = state_with_hands(game, hands_with(game, {}))
    assert state.current_player() == dealer
    variant = load(dealer=dealer, first_ask_left_of_dealer=True)
    assert state_with_hands(variant, hands_with(variant, {})).current_player() == (dealer + 1) % 6


def test_deal_order_and_chance_outcomes() -> None:
    game = load(dealer=2)
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 48
    first = state.chance_outcomes()[0][0]
    state.apply_action(first)
    assert (int(state.array[E.HANDS + 3]) >> first) & 1  # the first card goes to dealer + 1


# ---- Ruling 2 ------------------------------------------------------------------------------------
def test_ruling2_ask_legality() -> None:
    game = load()
    hands = hands_with(game, {0: "2H 9S", 1: "3H", 3: "4H"})
    state = state_with_hands(game, hands)
    asks = [a for a in state.legal_actions() if a < CLAIM]
    low_hearts = mask_of("3H 4H 5H 6H 7H".split())
    high_spades = mask_of("TS JS QS KS AS".split())
    expected = sorted(ask_action(t, c) for t in (1, 3, 5) for c in range(54)
                      if ((low_hearts | high_spades) >> c) & 1)
    assert asks == expected  # only opponents; only other cards of half-suits he holds
    assert [a for a in state.legal_actions() if a >= CLAIM] == [CLAIM + h for h in range(8)]


def test_ruling2_success_keeps_the_turn_failure_passes_it() -> None:
    game = load()
    state = state_with_hands(game, hands_with(game, {0: "2H", 1: "3H", 3: "9C", 5: "4H"}))
    act(state, "ask P1 3H")
    assert state.current_player() == 0
    assert (int(state.array[E.HANDS]) >> parse_card("3H")) & 1
    act(state, "ask P3 4H")
    assert state.current_player() == 3


def test_ruling2_cannot_ask_a_player_without_cards() -> None:
    game = load(players=4, dealer=1)
    hands = hands_with(game, {1: "2C 3C 4C 5C 6C 7C 9C TC JC QC KC AC", 0: "2D", 2: "3H",
                              3: "2H 3D"})
    state = state_with_hands(game, hands)
    claim(state, "C-low", [1] * 6)
    claim(state, "C-high", [1] * 6)  # P1 is now out of cards
    act(state, "pass P3", "ask P0 3H")  # P2 holds the 3H: the turn goes to P0
    assert state.current_player() == 0
    targets = {a // 64 for a in state.legal_actions() if a < CLAIM}
    assert targets == {3}


# ---- Ruling 3 and the claim examples (docs/rules/literature.md#claim-examples) ---------------------
def test_seed_example1_claim_from_a_teammates_ask() -> None:
    """You hold 2-3-4-6-7H; Doug's failed ask for 3H shows he holds the 5H; you claim and win."""
    game = load()
    you, christina, doug = 0, 1, 2
    hands = hands_with(game, {you: "2H 3H 4H 6H 7H", doug: "5H 9C", christina: "9D"})
    state = state_with_hands(game, hands)
    act(state, "ask P1 5H")  # you, to hand the turn round: Christina lacks it
    assert state.current_player() == christina
    act(state, "ask P2 TD")
    assert state.current_player() == doug
    act(state, "ask P1 3H")
    assert state.current_player() == christina
    act(state, "ask P0 JD")
    assert state.current_player() == you
    view = E.private_knowledge(state.array, you)
    assert K.holder_of(view, mask_of(["5H"]).bit_length() - 1) == doug
    assert K.claim_is_certain(view, 4, 0)
    assert rules_action(state.array, make_stream(0)) == CLAIM + 4  # the deduction player claims
    claim(state, "H-low", [you, you, you, doug, you, you])
    assert state.array[E.STATUS + 4] == 0 and state.array[E.SCORES] == 1
    assert state.current_player() == you  # the claimant keeps the turn
    assert int(state.array[E.HANDS + you]) & mask_of("2H 3H 4H 6H 7H".split()) == 0


def test_seed_example2_wrong_seat_voids_the_half_suit() -> None:
    """Helen also holds QD, not Ben: the team held all six, so the high diamonds are void."""
    you, helen, ben = 0, 2, 4
    fixed = {you: "9D JD", helen: "QD KD", ben: "TD AD"}
    order = [you, ben, you, ben, helen, ben]  # 9D TD JD QD KD AD
    game = load()
    state = state_with_hands(game, hands_with(game, fixed))
    claim(state, "D-high", order)
    assert state.array[E.STATUS + 3] == VOID and list(state.array[E.SCORES:E.SCORES + 2]) == [0, 0]
    variant = load(misclaim_to_opponents=True)
    state = state_with_hands(variant, hands_with(variant, fixed))
    claim(state, "D-high", order)
    assert state.array[E.STATUS + 3] == 1 and state.array[E.SCORES + 1] == 1


def test_seed_example3_opponent_holding_a_card_wins_the_half_suit() -> None:
    """Laura (an opponent) holds the 5C: the low clubs go to her team."""
    game = load()
    laura = 1
    state = state_with_hands(game, hands_with(game, {0: "2C 3C 4C 6C 7C", laura: "5C"}))
    claim(state, "C-low", [0] * 6)
    assert state.array[E.STATUS + 0] == 1 and list(state.array[E.SCORES:E.SCORES + 2]) == [0, 1]
    assert state.current_player() == 0


def test_ruling3_claim_names_own_team_only_and_any_unresolved_half_suit() -> None:
    game = load()
    state = state_with_hands(game, hands_with(game, {0: "2C"}))
    act(state, "claim S-high")  # he holds no spade: still allowed
    assert legal_strings(state) == ["assign P0", "assign P2", "assign P4"]
    for _ in range(6):
        act(state, "assign P2")
    assert "claim S-high" not in legal_strings(state)
    assert state.array[E.STATUS + 7] != UNRESOLVED


# ---- Ruling 4 --------------------------------------------------------------------------------------
def test_ruling4_player_without_cards_hands_the_turn_to_a_teammate() -> None:
    game = load(players=4)
    hands = hands_with(game, {0: "2C 3C 4C 5C 6C 7C 9C TC JC QC KC AC"})
    state = state_with_hands(game, hands)
    claim(state, "C-low", [0] * 6)
    claim(state, "C-high", [0] * 6)
    assert state.array[E.SCORES] == 2
    assert legal_strings(state) == ["pass P2"]  # the only teammate (with cards)
    act(state, "pass P2")
    assert state.current_player() == 2


# ---- Ruling 5 --------------------------------------------------------------------------------------
def test_ruling5_end_game_when_a_team_has_no_cards() -> None:
    game = load(players=4, dealer=1)
    hands = hands_with(game, {1: "2C 3C 4C 5C 6C 7C 9C TC JC QC KC AC",
                              3: "2D 3D 4D 5D 6D 7D 9D TD JD QD KD AD"})
    state = state_with_hands(game, hands)
    assert state.current_player() == 1
    claim(state, "C-low", [1] * 6)
    claim(state, "C-high", [1] * 6)
    act(state, "pass P3")
    claim(state, "D-low", [3] * 6)
    claim(state, "D-high", [3] * 6)
    # Team 1 is out of cards: P3 names the opponent who must claim.
    assert legal_strings(state) == ["pass P0", "pass P2"]
    act(state, "pass P2")
    assert legal_strings(state) == ["claim H-low", "claim H-high", "claim S-low", "claim S-high"]


# ---- Ruling 6 --------------------------------------------------------------------------------------
def test_ruling6_ask_limit_voids_the_rest_and_returns_are_score_differences() -> None:
    game = load(max_asks=3)
    state = state_with_hands(game, hands_with(game, {0: "2C 3C 4C 5C 6C 7C", 1: "9C"}))
    claim(state, "C-low", [0] * 6)
    act(state, "ask P1 QC", "ask P1 9C", "ask P3 AC")
    assert state.is_terminal()
    statuses = list(state.array[E.STATUS:E.STATUS + 8])
    assert statuses == [0] + [VOID] * 7
    assert state.returns() == [1.0, -1.0] * 3


def test_ruling6_major_sets_worth_two() -> None:
    game = load(major_sets_worth_two=True)
    state = state_with_hands(game, hands_with(game, {0: "9S TS JS QS KS AS"}))
    claim(state, "S-high", [0] * 6)
    assert state.array[E.SCORES] == 2
    assert game.max_utility() == 12.0


# ---- Variants --------------------------------------------------------------------------------------
def test_sevens_removed_and_jokers_layouts() -> None:
    game = load(sevens_removed=True)
    state = state_with_hands(game, hands_with(game, {0: "AH 8S"}))
    strings = legal_strings(state)
    assert "ask P1 2H" in strings and "ask P1 7H" not in strings and "ask P1 9H" not in strings
    assert "ask P1 KS" in strings and "ask P1 AS" not in strings
    jokers = load(jokers_ninth_set=True)
    state = state_with_hands(jokers, hands_with(jokers, {0: "8C"}))
    strings = legal_strings(state)
    assert "ask P1 RJ" in strings and "ask P1 BJ" in strings and "ask P1 8S" in strings
    assert "claim 8-jokers" in strings and int(jokers.initial_array[E.CARDS_EACH]) == 9


@pytest.mark.parametrize("players, size", [(4, 12), (6, 8), (8, 6), (12, 4), (16, 3)])
def test_player_counts_deal_the_whole_deck(players: int, size: int) -> None:
    game = load(players=players)
    assert game.num_players() == players and int(game.initial_array[E.CARDS_EACH]) == size
    assert int(game.initial_array[E.LAYOUT]) == STANDARD


# ---- Strings and bad input ---------------------------------------------------------------------------
def test_action_strings_follow_the_contract() -> None:
    assert action_to_string(0, 64 * 3 + 49) == "ask P3 QS"
    assert action_to_string(0, CLAIM + 4) == "claim H-low"
    assert action_to_string(0, CLAIM + 7) == "claim S-high"
    assert action_to_string(0, ASSIGN + 2) == "assign P2"
    assert action_to_string(0, PASS_TURN + 4) == "pass P4"
    assert action_to_string(-1, 49) == "QS"
    assert action_to_string(0, 1072 + 5) == "challenge H-high"  # 12.17
    with pytest.raises(ValueError, match="no action with id 1081"):
        action_to_string(0, 1081)


def test_illegal_action_raises_and_leaves_the_state_unchanged() -> None:
    game = load()
    state = state_with_hands(game, hands_with(game, {0: "2H"}))
    before = state.array.copy()
    with pytest.raises(ValueError, match=r"illegal action 141 \(ask P2 2D\).*legal actions: \[.*"
                                         r"ask P1 3H"):
        state.apply_action(141)
    with pytest.raises(ValueError, match="ask P1 2H"):
        state.apply_action(64 + 26)  # asking for a card he holds
    assert np.array_equal(state.array, before)


@pytest.mark.parametrize("params, message", [
    ({"players": 5}, "players must be one of"),
    ({"players": 8, "jokers_ninth_set": True}, "does not divide evenly among 8 players"),
    ({"players": 16, "jokers_ninth_set": True}, "does not divide evenly"),
    ({"sevens_removed": True, "jokers_ninth_set": True}, "cannot be combined"),
    ({"dealer": 6}, "'dealer' must be in 0..5"),
    ({"max_asks": 0}, "'max_asks' must be in 1..1000"),
    ({"colour": 1}, "nknown parameter 'colour'"),
])
def test_bad_parameters_are_rejected_at_load_game(params: dict, message: str) -> None:
    # OpenSpiel itself rejects unknown names (SpielError); cardlab rejects bad values.
    with pytest.raises((ValueError, pyspiel.SpielError), match=message):
        pyspiel.load_game("cardlab_literature", params)
