"""Kaiser's card passing (11.32-11.35, rulings V-K28-V-K30): giving nodes, delivery, the misdeal,
the hearts-style direction, the exchange after the auction, what each seat learns, resampling and
the rules player's gifts.

Random-play invariants run over every implemented variant in tests/kaiser/test_kaiser_variants.py, and
engine/wrapper agreement, random_sim_test and every agent over VARIANT_CASES in
tests/test_all_games.py.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import act, deal, game_loader, tournament_rows
from test_kaiser_rules import ONE_SUIT_EACH, WEAK_FOR_P0

from cardlab.core.cards import parse_card
from cardlab.core.rng import make_stream
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import new_engine_state
from cardlab.games.kaiser.rules import MISDEAL
from cardlab.games.kaiser.strategy import rules_action

#: One suit each: P0 clubs, P1 diamonds, P2 hearts with the 5H, P3 spades with the 3S. (In
#: WEAK_FOR_P0, P0, the dealer, who gives last, holds no A, K, Q, J, 5H or 3S.)
SUITS = ONE_SUIT_EACH


load = game_loader("cardlab_kaiser")


def cards(text: str) -> int:
    return sum(1 << parse_card(card) for card in text.split())


def hand(state, seat: int) -> int:
    return int(state.array[E.HANDS + seat])


def strings(state, seats=range(4)) -> list[str]:
    return [state.information_state_string(seat) for seat in seats]


# ---- Giving nodes and delivery (§2.4 step 2, §0) -------------------------------------------------
def test_pass_one_to_partner_gives_one_card_each_way():
    state = deal(load(pass_one_to_partner=True).new_initial_state(), SUITS)
    assert state.array[E.PHASE] == E.GIVING and state.current_player() == 1  # dealer + 1 first
    assert state.legal_actions() == sorted(parse_card(c) for c in SUITS[1].split())  # every card
    assert state.action_to_string(1, parse_card("AD")) == "give AD"
    act(state, "give AD")
    # The card left P1's hand at once and is in nobody's hand while in transit.
    assert not hand(state, 1) & cards("AD") and not any(hand(state, s) & cards("AD") for s in range(4))
    act(state, "give 5H", "give 3S")
    assert state.current_player() == 0
    act(state, "give AC")
    # Delivered together after the last node: each to the partner (seat + 2).
    assert hand(state, 3) & cards("AD") and hand(state, 0) & cards("5H")
    assert hand(state, 1) & cards("3S") and hand(state, 2) & cards("AC")
    assert all(bin(hand(state, seat)).count("1") == 8 for seat in range(4))
    assert state.array[E.DEALT + 1] == cards(SUITS[1])  # the deal is remembered as dealt
    assert state.array[E.PHASE] == E.BIDDING and state.current_player() == 1
    act(state, "bid 6", "pass", "pass", "pass", "trump D")
    assert state.array[E.PHASE] == E.PLAYING


def test_pass_two_cards_in_ascending_order():
    """§0 multi-card choice, c = 2: every card but the highest, then the cards above the first."""
    state = deal(load(pass_two_to_partner=True).new_initial_state(), SUITS)
    ids = sorted(parse_card(c) for c in SUITS[1].split())
    assert state.legal_actions() == ids[:-1]
    act(state, "give TD")
    assert state.current_player() == 1
    assert state.legal_actions() == [card for card in ids if card > parse_card("TD")]
    act(state, "give KD")
    assert state.current_player() == 2
    act(state, "give 5H", "give AH", "give 3S", "give 8S", "give 7C", "give 8C")
    assert hand(state, 3) & cards("TD KD") == cards("TD KD")
    assert hand(state, 0) & cards("5H AH") == cards("5H AH")
    assert state.array[E.PHASE] == E.BIDDING


def test_misdeal_only_at_the_first_giving_node_on_the_dealt_cards():
    """V-K28: 57 at a seat's first giving node when its dealt cards qualify, never in the auction."""
    state = deal(load(pass_two_to_partner=True).new_initial_state(), WEAK_FOR_P0)
    assert MISDEAL not in state.legal_actions()  # P1 has honours
    act(state, "give JC", "give AD", "give 5H", "give 8H", "give 3S", "give 8S")
    assert state.current_player() == 0 and state.legal_actions()[-1] == MISDEAL
    assert state.action_to_string(0, MISDEAL) == "misdeal"
    thrown = state.clone()
    act(thrown, "misdeal")
    assert thrown.is_terminal() and thrown.returns() == [0.0] * 4
    assert thrown.array[E.MISDEAL_BY] == 0
    act(state, "give 7C")
    assert MISDEAL not in state.legal_actions()  # not at the second node
    act(state, "give 8C")
    # P0 received 5H 8H; P3 gave him nothing. Even a hand still weak may not be thrown in now.
    act(state, "pass", "pass", "pass")
    assert MISDEAL not in state.legal_actions()


def test_misdeal_at_a_giving_node_is_public():
    """Every seat sees the throw-in (only a given card is hidden)."""
    state = deal(load(pass_one_to_partner=True, match=True).new_initial_state(), WEAK_FOR_P0)
    act(state, "give JC", "give 5H", "give 3S", "misdeal")
    assert state.array[E.PHASE] == E.DEALING and state.array[E.DEALER] == 0  # the same dealer redeals
    assert state.array[E.HAND_NUMBER] == 1 and state.array[E.HANDS_SCORED] == 0


# ---- Hearts-style passing (11.34, V-K29) -----------------------------------------------------------
def test_hearts_style_hand_mode_passes_left():
    state = deal(load(hearts_style_passing=True).new_initial_state(), SUITS)
    act(state, "give 7D", "give 8D", "give 8H", "give 9H", "give 3S", "give 8S", "give 7C", "give 8C")
    assert hand(state, 2) & cards("7D 8D") and hand(state, 3) & cards("8H 9H")
    assert hand(state, 0) & cards("3S 8S") and hand(state, 1) & cards("7C 8C")


def finish_hand(state) -> None:
    """The rules player plays until the next deal begins (or the game ends)."""
    while not state.is_chance_node() and not state.is_terminal():
        state.apply_action(int(rules_action(state.array, make_stream(0))))


def test_hearts_style_direction_follows_the_scored_hands():
    """Left, right, partner by the hands scored so far; a thrown-in deal keeps the direction."""
    s = new_engine_state({"hearts_style_passing": True, "match": True})
    for scored, step in enumerate((1, 3, 2, 1, 3, 2)):
        s[E.HANDS_SCORED] = scored
        assert [E.receiver_of(s, giver) for giver in range(4)] == [(g + step) % 4 for g in range(4)]
    state = deal(load(hearts_style_passing=True, match=True).new_initial_state(), SUITS)
    finish_hand(state)
    assert state.array[E.HANDS_SCORED] == 1 and state.array[E.DEALER] == 1
    # Hand 2, dealt by P1: P0 holds a weak hand and throws it in at his first node.
    deal(state, WEAK_FOR_P0, dealer=1)
    assert state.current_player() == 2
    act(state, "give 5H", "give 8H", "give 3S", "give 8S")
    assert state.current_player() == 0 and MISDEAL in state.legal_actions()
    act(state, "misdeal")
    assert state.array[E.HANDS_SCORED] == 1 and state.array[E.DEALER] == 1  # redealt, same direction
    deal(state, SUITS, dealer=1)
    act(state, "give 5H", "give 8H", "give 3S", "give 8S", "give 7C", "give 8C", "give 7D", "give 8D")
    # Right (seat + 3): P2 to P1, P3 to P2, P0 to P3, P1 to P0.
    assert hand(state, 1) & cards("5H 8H") and hand(state, 2) & cards("3S 8S")
    assert hand(state, 3) & cards("7C 8C") and hand(state, 0) & cards("7D 8D")


# ---- The exchange after the auction (11.35, V-K30, clarification 8) --------------------------------
def test_partner_exchange_after_the_auction_before_trump():
    state = deal(load(partner_exchange_after_bidding=True).new_initial_state(), SUITS)
    act(state, "bid 7", "pass", "pass", "pass")
    assert state.array[E.PHASE] == E.GIVING and state.current_player() == 1
    assert MISDEAL not in state.legal_actions()
    assert "contract: 7 by P1" in state.information_state_string(0)
    act(state, "give 7D", "give 8D", "give 8H", "give 9H", "give 8S", "give 9S", "give 7C", "give 8C")
    # Both teams exchange two cards each way; then the declarer names trump.
    assert hand(state, 3) & cards("7D 8D") and hand(state, 1) & cards("8S 9S")
    assert hand(state, 0) & cards("8H 9H") and hand(state, 2) & cards("7C 8C")
    assert state.array[E.PHASE] == E.NAMING_TRUMP and state.current_player() == 1
    act(state, "trump D")
    assert state.array[E.PHASE] == E.PLAYING and state.current_player() == 1


def test_exchange_keeps_the_misdeal_in_the_auction():
    state = deal(load(partner_exchange_after_bidding=True).new_initial_state(), WEAK_FOR_P0)
    act(state, "pass", "pass", "pass")
    assert MISDEAL in state.legal_actions()  # P0's auction node (§2.5)
    act(state, "bid 6")
    for _ in range(8):
        assert MISDEAL not in state.legal_actions()
        state.apply_action(state.legal_actions()[0])
    assert state.array[E.PHASE] == E.NAMING_TRUMP


def test_exchange_with_the_kitty_game():
    """Where two parameters touch the same step each applies: exchange, trump, then the kitty."""
    game = load(partner_exchange_after_bidding=True, kitty_34_card=True)
    state = deal(game.new_initial_state(), SUITS)
    state.apply_action(parse_card("7S"))
    state.apply_action(parse_card("7H"))
    act(state, "bid 6", "pass", "pass", "pass")
    assert "kitty" not in state.information_state_string(1)
    act(state, "give 7D", "give 8D", "give 8H", "give 9H", "give 8S", "give 9S", "give 7C", "give 8C",
        "trump D")
    assert state.array[E.PHASE] == E.DISCARDING and hand(state, 1) & cards("7H 7S") == cards("7H 7S")


# ---- Information -----------------------------------------------------------------------------------
def same(one: list, other: list) -> list[bool]:
    """Seat by seat: is what the two histories show that seat the same?"""
    return [a == b for a, b in zip(one, other, strict=True)]


def _gives(first: tuple[str, str]):
    state = deal(load(pass_two_to_partner=True).new_initial_state(), SUITS)
    act(state, *first)
    return state


def test_given_cards_are_seen_by_the_giver_and_the_receiver_only():
    one, other = _gives(("give 7D", "give 8D")), _gives(("give 9D", "give TD"))
    seats = range(4)
    keys = [[state.information_state_key(seat) for seat in seats] for state in (one, other)]
    tensors = [[state.information_state_tensor(seat) for seat in seats] for state in (one, other)]
    # In transit: the giver alone knows them.
    assert same(strings(one), strings(other)) == [True, False, True, True]
    assert same(*keys) == [True, False, True, True]
    assert same(*tensors) == [True, False, True, True]
    assert "P1 gave 7D 8D to P3" in one.information_state_string(1)
    assert "cards given: P1 2" in one.information_state_string(0)
    assert "7D" not in one.information_state_string(0)
    for state in (one, other):
        act(state, "give 5H", "give 8H", "give 3S", "give 8S", "give 7C", "give 8C")
    # Delivered: the receiver (P3, the partner) learns them too; the opponents still do not.
    assert same(strings(one), strings(other)) == [True, False, True, False]
    keys = [[state.information_state_key(seat) for seat in seats] for state in (one, other)]
    assert same(*keys) == [True, False, True, False]
    assert "P3 received 7D 8D from P1" in one.information_state_string(3)
    observation = [[state.observation_tensor(seat) for seat in seats] for state in (one, other)]
    assert same(*observation) == [True, False, True, False]


def test_tensors_add_a_phase_and_the_cards_given_and_received():
    game = load(pass_one_to_partner=True)
    standard = load()
    state = deal(game.new_initial_state(), SUITS)
    act(state, "give AD", "give 5H", "give 3S", "give AC")
    size = len(state.observation_tensor(3))
    assert size == len(deal(standard.new_initial_state(), SUITS).observation_tensor(3)) + 1 + 104
    tensor = np.array(state.observation_tensor(3))
    given, received = tensor[-104:-52], tensor[-52:]
    assert given[parse_card("3S")] == 1 and given.sum() == 1
    assert received[parse_card("AD")] == 1 and received.sum() == 1


# ---- Resampling (the belief-consistent sampler and the replay hooks) -------------------------------
RESAMPLED = [
    {"pass_one_to_partner": True},
    {"pass_two_to_partner": True, "kitty_34_card": True},
    {"hearts_style_passing": True, "match": True, "max_hands": 3},
    {"partner_exchange_after_bidding": True, "kitty_34_card": True, "any_contract_high_or_low": True},
]


@pytest.mark.parametrize("params", RESAMPLED, ids=str)
def test_resampling_keeps_what_each_seat_gave_and_received(params):
    """At every node (giving nodes included) every seat's world is a real state of its information
    set: same string and key, its own gifts, and its gifts still with their receiver."""
    game = load(**params)
    rng = np.random.default_rng(7)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked_giving = checked_delivered = 0
    for _ in range(2):
        state = game.new_initial_state()
        step = 0
        while not state.is_terminal():
            step += 1
            if step % 3 == 0 or state.array[E.PHASE] == E.GIVING:
                for seat in range(4):
                    world = state.resample_from_infostate(seat, sampler)
                    assert world.information_state_string(seat) == state.information_state_string(seat)
                    assert world.information_state_key(seat) == state.information_state_key(seat)
                    w, s = world.array, state.array
                    assert w[E.GIVEN + seat] == s[E.GIVEN + seat]
                    if s[E.DELIVERED] and s[E.PHASE] != E.DEALING:
                        receiver = E.receiver_of(s, seat)
                        kept = int(s[E.GIVEN + seat]) & ~int(s[E.PLAYED])
                        where = int(w[E.HANDS + receiver]) | int(w[E.DISCARDS])
                        assert kept & ~where == 0
                        giver = E.giver_to(s, seat)
                        assert w[E.GIVEN + giver] == s[E.GIVEN + giver]
                        checked_delivered += 1
                    checked_giving += s[E.PHASE] == E.GIVING
            legal = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                     else state.legal_actions())
            state.apply_action(int(legal[rng.integers(len(legal))]))
    assert checked_giving > 0 and checked_delivered > 0


def test_resampled_worlds_redraw_the_gifts_the_seat_never_saw():
    """P0 knows what P2 gave him and what he gave P2, not what P1 and P3 gave each other."""
    state = deal(load(pass_two_to_partner=True).new_initial_state(), SUITS)
    act(state, "give 7D", "give 8D", "give 5H", "give 8H", "give 3S", "give 8S", "give 7C", "give 8C")
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seen = set()
    for _ in range(30):
        world = state.resample_from_infostate(0, sampler).array
        assert world[E.GIVEN + 2] == cards("5H 8H") and world[E.HANDS + 2] & cards("7C 8C") == cards("7C 8C")
        seen.add(int(world[E.GIVEN + 1]))
        assert world[E.GIVEN + 1] & world[E.HANDS + 3] == world[E.GIVEN + 1]
    assert len(seen) > 1


# ---- The rules player --------------------------------------------------------------------------------
def rules_player_gifts(**params) -> list[str]:
    """What the rules player gives, node by node, from the one-suit deal."""
    state = deal(load(**params).new_initial_state(), SUITS)
    given = []
    while state.array[E.PHASE] == E.GIVING:
        action = int(rules_action(state.array, make_stream(0)))
        given.append(state.action_to_string(state.current_player(), action))
        state.apply_action(action)
    return given


def test_rules_player_gives_its_partner_strength():
    # The two top cards, never the 5H (P2) nor the 3S (P3).
    assert rules_player_gifts(pass_two_to_partner=True) == [
        "give KD", "give AD", "give KH", "give AH", "give KS", "give AS", "give KC", "give AC"]


def test_rules_player_gives_an_opponent_the_three_of_spades():
    # To the left (an opponent): the 3S first, then the weakest cards; the 5H is kept.
    assert rules_player_gifts(hearts_style_passing=True) == [
        "give 7D", "give 8D", "give 8H", "give 9H", "give 3S", "give 8S", "give 7C", "give 8C"]


def test_rules_player_throws_a_weak_hand_in_at_its_first_giving_node():
    state = deal(load(pass_one_to_partner=True).new_initial_state(), WEAK_FOR_P0)
    while state.current_player() != 0:
        state.apply_action(int(rules_action(state.array, make_stream(0))))
    assert rules_action(state.array, make_stream(0)) == MISDEAL


# ---- Agents and the compiled arena -------------------------------------------------------------------
def test_ismcts_plays_through_the_giving_nodes():
    from cardlab import agents

    game = load(hearts_style_passing=True)
    bots = [agents.make("ismcts", game, seat, seat, simulations=30, world_pool=30) if seat % 2
            else agents.make("rules", game, seat, seat) for seat in range(4)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 11)
    assert abs(sum(returns)) < 1e-9


@pytest.mark.parametrize("rule", ["pass_two_to_partner", "hearts_style_passing",
                                  "partner_exchange_after_bidding"])
def test_a_tournament_runs_the_passing_rules_in_the_compiled_arena(tmp_path, rule):
    rows = tournament_rows(tmp_path / "r", "--game", "kaiser", "--agents", "rules,random", "--deals", "2",
                           "--seed", "3", "--param", f"{rule}=true", "--param", "match=true",
                           "--param", "max_hands=3")
    assert len(rows) == 4 and all(abs(sum(row["returns"])) < 1e-9 for row in rows)
    assert all(len(row["actions"]) > 32 + 8 for row in rows)  # the deal, then the giving nodes
