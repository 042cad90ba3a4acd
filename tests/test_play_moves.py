"""Typed moves: the games' own strings, the shorthands, and one-line reasons for bad input."""

from __future__ import annotations

import pyspiel
import pytest

from cardlab.play.moves import MoveError, parse_move
from tests.conftest import act, deal

KAISER_HANDS = {0: "JD QD KD JH AH 3S AS 7C", 1: "8D 9D 5H 8H KH 8S 9S 8C",
                2: "QC KC AC AD QH TS 9C TC", 3: "TD 9H TH JS QS KS JC 7D"}


def kaiser_bidding() -> pyspiel.State:
    return deal(pyspiel.load_game("cardlab_kaiser").new_initial_state(), KAISER_HANDS)


def test_a_bid_is_typed_with_or_without_its_word() -> None:
    state = kaiser_bidding()
    player = state.current_player()
    assert state.action_to_string(player, parse_move(state, "7NT")) == "bid 7NT"
    assert state.action_to_string(player, parse_move(state, "bid 8")) == "bid 8"
    assert state.action_to_string(player, parse_move(state, " PASS ")) == "pass"


def test_a_card_is_typed_as_the_log_writes_it_and_10_reads_as_t() -> None:
    state = act(kaiser_bidding(), "bid 7", "pass", "pass", "pass", "trump H")
    player = state.current_player()
    legal = {state.action_to_string(player, a) for a in state.legal_actions()}
    card = sorted(legal)[0]
    assert state.action_to_string(player, parse_move(state, card.lower())) == card
    if "TH" in legal:
        assert state.action_to_string(player, parse_move(state, "10h")) == "TH"


def test_an_illegal_move_is_named_with_the_legal_ones() -> None:
    state = kaiser_bidding()
    with pytest.raises(MoveError, match=r"^AS is not a legal move now; legal: pass, bid 6"):
        parse_move(state, "AS")


def test_unknown_and_empty_input_say_so_in_one_line() -> None:
    state = kaiser_bidding()
    for text, reason in (("xyzzy", "unknown move 'xyzzy'"), ("", "type a move")):
        with pytest.raises(MoveError, match=reason) as error:
            parse_move(state, text)
        assert "\n" not in str(error.value)


def test_twenty_eight_call_is_short_for_call_trump() -> None:
    game = pyspiel.load_game("cardlab_twenty_eight")
    state = game.new_initial_state()
    # Find a position where "call trump" is legal by playing the rule-based players.
    from cardlab import agents
    from cardlab.core.rng import make_stream, random_below

    bots = [agents.make("rules", game, seat, seat) for seat in range(4)]
    stream = make_stream(5)
    found = False
    for _ in range(2000):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[random_below(stream, len(outcomes))][0])
            continue
        player = state.current_player()
        names = {state.action_to_string(player, a): a for a in state.legal_actions()}
        if "call trump" in names:
            assert parse_move(state, "call") == names["call trump"]
            found = True
            break
        state.apply_action(bots[player].step(state))
    assert found


def test_literature_asks_claims_and_guided_assignments() -> None:
    game = pyspiel.load_game("cardlab_literature", {"players": 4})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    player = state.current_player()
    ask = next(state.action_to_string(player, a) for a in state.legal_actions()
               if state.action_to_string(player, a).startswith("ask"))
    assert parse_move(state, ask.lower()) == next(a for a in state.legal_actions()
                                                  if state.action_to_string(player, a) == ask)
    with pytest.raises(MoveError, match="more than one move: claim C-low"):
        parse_move(state, "claim")
    state.apply_action(parse_move(state, "claim C-low"))
    assignment = parse_move(state, f"P{player}")
    assert state.action_to_string(player, assignment) == f"assign P{player}"
