"""The PIMC agent: legal play, the same choice as a bot and in the compiled arena, options."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from test_solver import kaiser_ending, random_play_state

from cardlab import agents
from cardlab.arena import native
from cardlab.arena.entrants import AgentSpec, bot_factory, native_row
from cardlab.core.cards import CLUBS, HEARTS, parse_card, suit_of
from cardlab.core.rng import make_stream
from cardlab.games import game_spec
from cardlab.games.kaiser import engine as K
from cardlab.games.twenty_eight import engine as T


@pytest.mark.parametrize("name", ["cardlab_kaiser", "cardlab_twenty_eight"])
def test_pimc_plays_the_same_card_as_bot_and_native(name):
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(1)
    row = native_row(AgentSpec("pimc", "pimc", {"worlds": 3}), game_spec(name))
    for _ in range(4):
        state = random_play_state(game, rng, 3)
        player = state.current_player()
        bot = agents.make("pimc", game, player, seed=9, worlds=3)
        action = bot.step(state)
        assert action in state.legal_actions()
        scratch = np.empty(1100, dtype=np.int64)
        kinds = np.array([native.PIMC])
        same = native.native_agent_step(game_spec(name).kernel_id, native.agent_kinds(kinds), kinds,
                                        row[None], native.empty_policies(1), state.array, make_stream(9),
                                        scratch)
        assert same == action


def test_pimc_cashes_the_ace_every_world_agrees_on():
    # The ending of test_solver's "cash the ace first", partner known to be void in
    # clubs: in every world the opponents hold the clubs and a club lead loses the AD.
    state = kaiser_ending(["AD 7C", "8C 9C", "KD QD", "TC JC"], leader=0, trump=None, won=(4, 4))
    state.array[K.VOIDS + 2] = 1 << CLUBS
    bot = agents.make("pimc", pyspiel.load_game("cardlab_kaiser"), 0, seed=1, worlds=6)
    assert bot.step(state) == parse_card("AD")


def test_pimc_bids_and_names_trump_legally():
    game = pyspiel.load_game("cardlab_kaiser")
    state = game.new_initial_state()
    rng = np.random.default_rng(2)
    while state.is_chance_node():
        state.apply_action(int(rng.choice(state.legal_actions())))
    bots = [agents.make("pimc", game, p, seed=p, bid_worlds=2, worlds=1) for p in range(4)]
    while state.array[0] != K.PLAYING and not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        assert action != 57  # simulation bidding never throws the hand in
        state.apply_action(action)


def _twenty_eight_first_round(first: list[str], bids: list[str]) -> pyspiel.State:
    """Stage one dealt from ``first`` (dealer 0, seat 1 opens), then ``bids`` by their strings."""
    from cardlab.games.twenty_eight.game import deal_chance_actions

    state = pyspiel.load_game("cardlab_twenty_eight").new_initial_state()
    second = ["JD 9D AD TD", "TH KH QH 8H", "JC 9C AC TC", "JS 9S AS TS"]  # not dealt yet
    for card in deal_chance_actions(0, [hand.split() for hand in first], [h.split() for h in second])[0]:
        state.apply_action(card)
    for text in bids:
        by_string = {state.action_to_string(state.current_player(), a): a for a in state.legal_actions()}
        state.apply_action(by_string[text])
    return state


TWENTY_EIGHT_FIRST = ["KD QD KC QC", "JH 9H AH 7C", "8D 7D 8S 7S", "QS KS 8C 7H"]


def test_pimc_bids_a_jack_nine_ace_suit_and_places_it_as_the_trump():
    state = _twenty_eight_first_round(TWENTY_EIGHT_FIRST, [])
    bot = agents.make("pimc", state.get_game(), 1, seed=3, bid_worlds=4)
    bid = bot.step(state)
    assert bid >= T.BID  # the opener must bid; this hand bids above the minimum
    assert bid - T.BID > 14
    state.apply_action(bid)
    for _ in range(3):
        state.apply_action(T.PASS)
    assert suit_of(bot.step(state)) == HEARTS
    assert bot.step(state) == parse_card("AH")  # the weakest heart goes face down


def test_pimc_passes_a_weak_hand_over_an_opponents_bid():
    state = _twenty_eight_first_round(TWENTY_EIGHT_FIRST, ["bid 14"])
    assert agents.make("pimc", state.get_game(), 2, seed=3, bid_worlds=4).step(state) == T.PASS


def test_pimc_bids_twenty_eight_the_same_in_python_and_in_the_compiled_loop():
    """Whole games of PIMC bidding by simulation against PIMC bidding by the rules: legal,
    complete, and the same games on both loops for the same seeds."""
    from cardlab.arena.tournament import _Context, _play_python
    from cardlab.games import kernels

    game = pyspiel.load_game("cardlab_twenty_eight")
    seatings = np.array([[0, 1, 0, 1], [1, 0, 1, 0]], dtype=np.int64)
    settings = [{"worlds": 1, "bid_worlds": 1}, {"worlds": 1, "bidding": "rules"}]
    options = np.stack([native_row(AgentSpec("pimc", "pimc", o), game_spec("28")) for o in settings])
    seeds = native.deal_seeds(5, 0, 1)
    status, actions, offsets, returns, _, _, finals = native.play_games(
        kernels.TWENTY_EIGHT, game.new_initial_state().array.copy(), seeds, seatings,
        np.array([native.PIMC, native.PIMC], dtype=np.int64), options, native.empty_policies(2))
    assert status[0] == native.OK
    assert (finals[:, 0] == T.GAME_OVER).all()
    factories = [lambda g, p, s, o=o: agents.make("pimc", g, p, s, **o) for o in settings]
    py_actions, py_offsets, py_returns, _, _, _ = _play_python(
        _Context(game, seatings, False, factories=factories), seeds)
    assert py_actions.tolist() == actions.tolist()
    assert py_offsets.tolist() == offsets.tolist()
    assert py_returns.tolist() == returns.tolist()


def test_pimc_time_budget_solves_at_least_one_batch_of_worlds():
    game = pyspiel.load_game("cardlab_twenty_eight")
    state = random_play_state(game, np.random.default_rng(3), 3)
    bot = agents.make("pimc", game, state.current_player(), seed=1, time_ms=1.0)
    assert bot.step(state) in state.legal_actions()
    assert bot.last_worlds >= 1


def test_pimc_refuses_games_the_solver_does_not_play():
    literature = pyspiel.load_game("cardlab_literature")
    with pytest.raises(ValueError, match="Kaiser and Twenty-Eight"):
        agents.make("pimc", literature, 0)
    with pytest.raises(ValueError, match="plays cardlab_kaiser and cardlab_twenty_eight only"):
        native_row(AgentSpec("pimc", "pimc", {}), game_spec("cardlab_literature"))
    with pytest.raises(ValueError):
        agents.make("pimc", pyspiel.load_game("cardlab_kaiser"), 0, worlds=0)


def test_pimc_is_a_native_arena_agent():
    game = pyspiel.load_game("cardlab_kaiser")
    factory = bot_factory(AgentSpec("pimc", "pimc", {"worlds": 2}), game)
    assert factory(game, 1, 0).kind == native.PIMC


@pytest.mark.parametrize("name, params, message", [
    ("cardlab_kaiser", {"three_spades_needs_three_tricks": True}, "does not model three_spades_needs"),
    ("cardlab_kaiser", {"kitty_34_card": True}, "standard four-player game and deck"),
    ("cardlab_kaiser", {"lost_heir": True}, "standard four-player game and deck"),
    ("cardlab_twenty_eight", {"players": 6}, "standard four-player game and deck"),
])
def test_the_compiled_arena_refuses_pimc_where_the_solver_does_not_model_the_game(name, params, message):
    from cardlab.arena.entrants import AgentSpecError, native_tables

    with pytest.raises(AgentSpecError, match=message):
        native_tables([AgentSpec("pimc", "pimc", {"worlds": 2})], pyspiel.load_game(name, params))
