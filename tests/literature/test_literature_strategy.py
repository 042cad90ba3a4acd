"""Literature deduction player: far better than random, and blind to what its seat cannot see."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import decisions, play_to_the_end

import cardlab.agents
from cardlab.core.bitboard import popcount
from cardlab.core.rng import make_stream
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.rules import (
    ASSIGN,
    HALF_SUIT_VALUES,
    NUM_HALF_SUITS,
    PASS_TURN,
    UNRESOLVED,
)
from cardlab.games.literature.strategy import (
    action_scores,
    certain_assignment,
    expected_returns,
    play_against_random,
    rules_action,
)


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

    def check_and_choose(state: pyspiel.State) -> int:
        nonlocal checked
        world = state.resample_from_infostate(state.current_player(), rng.random)
        seed = int(rng.integers(1 << 30))
        action = rules_action(state.array, make_stream(seed))
        assert rules_action(world.array, make_stream(seed)) == action
        assert action in state.legal_actions()
        checked += 1
        legal = state.legal_actions()
        return action if rng.random() < 0.5 else legal[rng.integers(len(legal))]  # positions vary

    for _ in range(30):
        for _ in decisions(game.new_initial_state(), rng, check_and_choose):
            pass
    assert checked > 300


def test_rules_bot_through_the_agent_registry() -> None:
    game = pyspiel.load_game("cardlab_literature")
    bots = [cardlab.agents.make("rules" if seat % 2 == 0 else "random", game, seat, seed=seat)
            for seat in range(6)]
    rng = np.random.default_rng(1)
    assert play_to_the_end(game.new_initial_state(), rng, bots).returns()[0] > 0


def _decision_states(count: int, seed: int):
    """Positions of random-ish games (deduction moves mixed with random ones), every seat to move."""
    game = pyspiel.load_game("cardlab_literature")
    rng = np.random.default_rng(seed)
    produced = 0

    def choose(state: pyspiel.State) -> int:
        legal = state.legal_actions()
        action = rules_action(state.array, make_stream(produced))
        return action if rng.random() < 0.6 else legal[rng.integers(len(legal))]

    while produced < count:
        for state in decisions(game.new_initial_state(), rng, choose):
            yield state
            produced += 1
            if produced == count:
                return


def test_action_scores_rank_the_deduction_players_choice_first() -> None:
    """Search expands actions by these scores, so they must agree with the player's rules."""
    checked_kinds = set()
    for number, state in enumerate(_decision_states(3000, seed=4)):
        legal = np.array(state.legal_actions(), dtype=np.int64)
        scores = np.zeros(len(legal))
        action_scores(state.array, legal, len(legal), scores)
        choice = rules_action(state.array, make_stream(number))
        chosen_score = scores[list(legal).index(choice)]
        assert chosen_score >= scores.max() - 2e-6, (str(state), choice)
        checked_kinds.add(min(choice // 16, 66))  # asks (<64), claims 64, assigns 65, hand-offs 66
    assert {64, 65, 66} <= checked_kinds and min(checked_kinds) < 64


def test_certain_assignment_names_the_true_holder_and_only_when_known() -> None:
    found = 0
    for number, state in enumerate(_decision_states(4000, seed=5)):
        s = state.array
        action = certain_assignment(s)
        if s[E.PHASE] != E.CLAIMING:
            assert action == -1
            continue
        card = E.card_being_named(s)
        view = E.private_knowledge(s, s[E.TO_MOVE])
        if K.holder_of(view, card) >= 0 and K.holder_of(view, card) % 2 == s[E.CLAIMANT] % 2:
            assert action == ASSIGN + E.holder(s, card)  # knowledge is sound: the true holder
            assert rules_action(s, make_stream(number)) == action
            found += 1
        else:
            assert action == -1
    assert found > 50


def test_handing_the_turn_to_an_opponent_picks_the_fewest_cards() -> None:
    """Rule 4, at the end: a team without cards names the opponent with least to work with."""
    checked = 0
    for number, state in enumerate(_decision_states(6000, seed=6)):
        s = state.array
        legal = state.legal_actions()
        if legal[0] < PASS_TURN or (legal[0] - PASS_TURN) % 2 == s[E.TO_MOVE] % 2:
            continue
        fewest = min(popcount(s[E.HANDS + action - PASS_TURN]) for action in legal)
        choice = rules_action(s, make_stream(number))
        assert popcount(s[E.HANDS + choice - PASS_TURN]) == fewest
        checked += 1
    assert checked > 5


def test_expected_returns_are_zero_sum_and_exact_at_the_end() -> None:
    out = np.zeros(16)
    returns = np.zeros(16)
    for state in _decision_states(2000, seed=7):
        s = state.array
        expected_returns(s, out)
        seats = s[E.NUM_PLAYERS]
        assert np.allclose(out[:seats:2], out[0]) and np.allclose(out[1:seats:2], -out[0])
        at_stake = sum(HALF_SUIT_VALUES[s[E.MAJOR_SETS_WORTH_TWO], h]
                       for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]) if s[E.STATUS + h] == UNRESOLVED)
        assert abs(out[0] - (s[E.SCORES] - s[E.SCORES + 1])) <= at_stake  # each moves ± its value
    state = pyspiel.load_game("cardlab_literature").new_initial_state()
    for _ in decisions(state, np.random.default_rng(0),  # a whole deduction game: the estimate
                       lambda state: rules_action(state.array, make_stream(1))):  # meets the result
        pass
    expected_returns(state.array, out)
    E.returns(state.array, returns)
    assert np.array_equal(out, returns)
