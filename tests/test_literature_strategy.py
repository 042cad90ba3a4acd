"""Literature deduction player: far better than random, and blind to what its seat cannot see."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import cardlab.agents
from cardlab.core.rng import make_stream
from cardlab.games.literature.strategy import play_against_random, rules_action


@pytest.mark.parametrize("players", [6, 8])
def test_deduction_player_beats_random_with_seats_swapped(players: int) -> None:
    game = pyspiel.load_game("cardlab_literature", {"players": players})
    for team in (0, 1):
        results = np.zeros(300)
        play_against_random(game.initial_array, 300, make_stream(40 + team), team, results)
        assert results.mean() > 5.0  # of at most 8 points
        assert (results > 0).mean() > 0.95


def test_deduction_player_uses_only_what_its_seat_knows() -> None:
    """Redrawing the hidden hands (same public record, same own hand) never changes its move."""
    game = pyspiel.load_game("cardlab_literature")
    rng = np.random.default_rng(9)
    checked = 0
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            seat = state.current_player()
            world = state.resample_from_infostate(seat, rng.random)
            seed = int(rng.integers(1 << 30))
            action = rules_action(state.array, make_stream(seed))
            assert rules_action(world.array, make_stream(seed)) == action
            assert action in state.legal_actions()
            checked += 1
            legal = state.legal_actions()
            # Mix in random moves so positions vary.
            state.apply_action(action if rng.random() < 0.5 else legal[rng.integers(len(legal))])
    assert checked > 300


def test_rules_bot_through_the_agent_registry() -> None:
    game = pyspiel.load_game("cardlab_literature")
    bots = [cardlab.agents.make("rules" if seat % 2 == 0 else "random", game, seat, seed=seat)
            for seat in range(6)]
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    assert state.returns()[0] > 0
