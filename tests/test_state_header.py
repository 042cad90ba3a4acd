"""The state header every engine shares (cardlab.core.layout), and the kernels that read only it."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

from cardlab.core import layout
from cardlab.core.bitboard import popcount
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER
from cardlab.games import SPECS, kernels
from cardlab.games.literature.rules import MAX_PLAYERS

#: Seats each engine's DEALT block is sized for.
SEAT_BLOCKS = {"cardlab_kaiser": 6, "cardlab_twenty_eight": 6, "cardlab_literature": MAX_PLAYERS}
DECK_SIZES = {"cardlab_kaiser": 32, "cardlab_twenty_eight": 32, "cardlab_literature": 48}


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_every_engine_starts_with_the_header(spec):
    E = spec.engine
    game = spec.load(spec.small_parameters)
    s = game.new_initial_state().array
    assert E.HANDS == layout.DEALT + SEAT_BLOCKS[spec.name]  # the game's slots follow the header
    assert s[layout.NUM_PLAYERS] == game.num_players()
    assert s[layout.GAME_OVER_PHASE] == E.GAME_OVER == len(E.PHASE_NAMES) - 1
    assert s[layout.PHASE] == layout.DEALING and s[layout.CARDS_DEALT] == 0
    assert s[layout.TO_MOVE] == (s[layout.DEALER] + 1) % game.num_players()
    assert popcount(s[layout.DECK]) == DECK_SIZES[spec.name]
    assert s[layout.UNDEALT] == s[layout.DECK] == layout.undealt_cards(s)
    assert not s[layout.DEALT:layout.DEALT + SEAT_BLOCKS[spec.name]].any()


def undealt_from_dealt(s: np.ndarray) -> int:
    """What UNDEALT must be: the deck minus every seat's dealt cards."""
    dealt = s[layout.DEALT:layout.DEALT + s[layout.NUM_PLAYERS]]
    return int(s[layout.DECK]) & ~int(np.bitwise_or.reduce(dealt))


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_shared_kernels_agree_with_the_game_through_a_random_game(spec):
    game = spec.load(spec.small_parameters)
    rng = np.random.default_rng(4)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(5):
        state = game.new_initial_state()
        while True:
            s = state.array
            dealt = s[layout.DEALT:layout.DEALT + game.num_players()]
            assert sum(popcount(mask) for mask in dealt) == s[layout.CARDS_DEALT]
            undealt = int(layout.undealt_cards(s))
            assert undealt == undealt_from_dealt(s)
            if state.current_player() >= 0:  # the samplers keep UNDEALT in step with DEALT
                world = state.resample_from_infostate(state.current_player(), sampler).array
                assert world[layout.UNDEALT] == undealt_from_dealt(world)
            assert layout.current_player(s) == state.current_player()
            assert layout.is_terminal(s) == state.is_terminal()
            if state.is_terminal():
                assert layout.current_player(s) == TERMINAL_PLAYER
                break
            if state.current_player() == CHANCE_PLAYER:
                assert [a for a, _ in state.chance_outcomes()] == [
                    c for c in range(54) if (undealt >> c) & 1]
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])


def test_teams_alternate_round_the_table():
    assert [layout.team_of(seat) for seat in range(6)] == [0, 1, 0, 1, 0, 1]


#: One change of each parameter, per game.
PARAMETER_CHANGES = {
    "cardlab_kaiser": [{"dealer": 1}, {"min_bid": 7}, {"match": True}, {"target": 30},
                       {"low_no_trump": True}, {"non_bidder_limit": 30}, {"max_hands": 10}],
    "cardlab_twenty_eight": [{"dealer": 1}, {"hand_size": 4}, {"bidding_rounds": 1}, {"max_bid": 20}],
    "cardlab_literature": [{"players": 4}, {"dealer": 1}, {"max_asks": 100}, {"sevens_removed": True},
                           {"jokers_ninth_set": True}, {"major_sets_worth_two": True},
                           {"misclaim_to_opponents": True}, {"first_ask_left_of_dealer": True},
                           {"half_suit_size": 3}, {"half_suits": 4}],
}


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_game_parameters_see_every_parameter_and_stay_fixed_all_game(spec):
    def parameters(state):
        return kernels.game_parameters(spec.kernel_id, state.array).tolist()

    seen = {tuple(parameters(spec.load().new_initial_state()))}
    for change in PARAMETER_CHANGES[spec.name]:
        seen.add(tuple(parameters(spec.load(change).new_initial_state())))
    assert len(seen) == 1 + len(PARAMETER_CHANGES[spec.name])
    game = spec.load({"match": True, "target": 20} if spec.name == "cardlab_kaiser" else {})
    state, rng = game.new_initial_state(), np.random.default_rng(1)
    first = parameters(state)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        assert parameters(state) == first
