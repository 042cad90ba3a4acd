"""Hostile use of the game API: every case ends in a correct result or a clear error.

Property-based where it fits (hypothesis): any parameter value, any action,
any random position pickled, copied, serialized or resampled. The slow sweeps
(``-m slow``) run the same properties over many more games.
"""

from __future__ import annotations

import copy
import gc
import pickle
import random

import numpy as np
import pyspiel
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cardlab
from cardlab.games import SPECS, game_spec

GAME_NAMES = [spec.name for spec in SPECS]
#: Games with a different shape: a smaller table and a variant deck (Literature).
GAME_STRINGS = [*GAME_NAMES, "cardlab_literature(players=4)",
                "cardlab_literature(players=8,first_ask_left_of_dealer=true)",
                "cardlab_kaiser(les_rois_hetu=true)", "cardlab_kaiser(joffre=true)"]


def _random_state(name: str, seed: int, steps: int) -> pyspiel.State:
    rng = random.Random(seed)
    state = pyspiel.load_game(name).new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def _same_state(a: pyspiel.State, b: pyspiel.State) -> None:
    assert a.history() == b.history()
    assert np.array_equal(a.array, b.array)
    assert str(a) == str(b)
    assert a.current_player() == b.current_player()
    assert a.legal_actions() == b.legal_actions()


def _play_out(state: pyspiel.State, seed: int) -> list[float]:
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state.returns()


# -- 1. pickling and copying ------------------------------------------------------------
@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 400), how=st.sampled_from(
    ["pickle", "deepcopy", "copy", "serialize"]))
def test_a_state_survives_pickle_copy_and_serialization_exactly(name, seed, steps, how):
    state = _random_state(name, seed, steps)
    if how == "pickle":
        twin = pickle.loads(pickle.dumps(state))
    elif how == "deepcopy":
        twin = copy.deepcopy(state)
    elif how == "copy":
        twin = state.clone()
    else:
        _, twin = pyspiel.deserialize_game_and_state(
            pyspiel.serialize_game_and_state(state.get_game(), state))
    _same_state(state, twin)
    assert twin.array is not state.array
    assert _play_out(twin, seed) == _play_out(state.clone(), seed)


@pytest.mark.parametrize("states", [30, pytest.param(120, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", GAME_NAMES)
def test_many_states_pickled_after_many_came_and_went(name, states):
    """The original crash: garbage histories once a few dozen states had been freed."""
    for seed in range(states):
        state = _random_state(name, seed, 30 + seed)
        for _ in range(3):
            state = pickle.loads(pickle.dumps(copy.deepcopy(state)))
        gc.collect(1)  # this state's cycles are young: the old generation (numba's objects) is not walked
        _same_state(state, _random_state(name, seed, 30 + seed))


# -- 9. deserialization replays and checks the history -------------------------------------
def _serialized(name: str, seed: int, steps: int) -> tuple[pyspiel.State, str]:
    state = _random_state(name, seed, steps)
    return state, pyspiel.serialize_game_and_state(state.get_game(), state)


def _with_history(text: str, history: list[tuple[int, int]]) -> str:
    lines = text.split("\n")
    index = next(i for i, line in enumerate(lines) if line.startswith("history="))
    lines[index] = "history=" + ",".join(f"{player}:{action}" for player, action in history)
    return "\n".join(lines)


def _steps(state: pyspiel.State) -> list[tuple[int, int]]:
    return [(step.player, step.action) for step in state.full_history()]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_serialized_state_with_a_missing_action_is_refused(name):
    state, text = _serialized(name, 3, 50)
    with pytest.raises(ValueError, match="does not match its history"):
        pyspiel.deserialize_game_and_state(_with_history(text, _steps(state)[:-1]))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_serialized_state_with_an_illegal_action_is_refused(name):
    state, text = _serialized(name, 3, 50)
    steps = _steps(state)
    before = pyspiel.load_game(name).new_initial_state()
    for _, action in steps[:-1]:
        before.apply_action(action)
    illegal = next(a for a in range(10_000) if a not in before.legal_actions())
    with pytest.raises(ValueError, match=f"history action {len(steps) - 1}: .*illegal action"):
        pyspiel.deserialize_game_and_state(_with_history(text, [*steps[:-1], (steps[-1][0], illegal)]))


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 300), data=st.data())
def test_any_edited_history_is_the_state_it_describes_or_an_error(name, seed, steps, data):
    state, text = _serialized(name, seed, steps)
    history = _steps(state)
    position = data.draw(st.integers(0, len(history) - 1))
    action = data.draw(st.integers(-5, 2000))
    history[position] = (history[position][0], action)
    edited = _with_history(text, history)
    try:
        _, twin = pyspiel.deserialize_game_and_state(edited)
    except ValueError:
        return
    replayed = pyspiel.load_game(name).new_initial_state()
    for _, step in history:
        replayed.apply_action(step)
    _same_state(twin, replayed)


# -- 6. resampling at every node, for every seat -----------------------------------------
def _check_every_node(name: str, seed: int) -> int:
    """Resample for every seat at every node of one random game; returns how many were drawn."""
    rng = random.Random(seed)
    state = pyspiel.load_game(name).new_initial_state()
    drawn = 0
    while True:
        for seat in range(state.num_players()):
            world = state.resample_from_infostate(seat, rng.random)
            assert world.information_state_string(seat) == state.information_state_string(seat)
            assert world.information_state_key(seat) == state.information_state_key(seat)
            assert world.current_player() == state.current_player()
            assert world.is_terminal() or world.legal_actions()
            if world.is_chance_node():
                assert abs(sum(p for _, p in world.chance_outcomes()) - 1.0) < 1e-9
            twin = pickle.loads(pickle.dumps(world))
            _same_state(world, twin)
            drawn += 1
        if state.is_terminal():
            return drawn
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", GAME_STRINGS)
def test_resampling_works_at_every_node_for_every_seat(name):
    assert _check_every_node(name, 0) > 100


@pytest.mark.slow
@pytest.mark.parametrize("name", GAME_STRINGS)
def test_resampling_works_at_every_node_of_many_games(name):
    for seed in range(1, 41):
        _check_every_node(name, seed)


def test_a_resampled_world_is_a_state_whose_history_deals_its_hands():
    state = _random_state("cardlab_kaiser", 11, 50)
    world = state.resample_from_infostate(0, random.Random(5).random)
    replayed = pyspiel.load_game("cardlab_kaiser").new_initial_state()
    for action in world.history():
        replayed.apply_action(action)
    _same_state(world, replayed)
    assert world.history() != state.history()  # the other hands were redealt
    own = [a for i, a in enumerate(state.history()[:32]) if i % 4 == 3]  # dealer 0: seat 0 gets k = 3, 7...
    assert own == [a for i, a in enumerate(world.history()[:32]) if i % 4 == 3]


@pytest.mark.parametrize("draw", ["x", None, 1.5, -0.1, float("nan"), True, 2**70])
def test_a_sampler_that_returns_no_probability_is_refused(draw):
    state = _random_state("cardlab_kaiser", 1, 40)
    with pytest.raises(ValueError, match="probability sampler must return a number"):
        state.resample_from_infostate(0, lambda: draw)


# -- 11. parameters ----------------------------------------------------------------------
_ANY_VALUE = st.one_of(
    st.integers(-2**80, 2**80), st.booleans(), st.floats(allow_nan=True), st.text(max_size=8),
    st.none(), st.sampled_from([0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 500, 2**31, -1]),
)


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_parameters_give_a_game_or_a_value_error(name, data):
    known = list(game_spec(name).game_type().parameter_specification)
    keys = data.draw(st.lists(st.one_of(st.sampled_from(known), st.text(max_size=6)), max_size=3))
    parameters = {key: data.draw(_ANY_VALUE) for key in keys}
    try:
        game = cardlab.load_game(name, parameters)
    except ValueError as error:
        assert str(error).strip() and "\n" not in str(error).strip()
        return
    state = game.new_initial_state()
    _play_out(state, 0)
    assert abs(sum(state.returns())) < 1e-9


@pytest.mark.parametrize(("parameters", "message"), [
    ({"dealer": 10**20}, "dealer=100000000000000000000 is out of range"),
    ({"dealer": True}, "dealer must be an integer"),
    ({"dealer": "1"}, "dealer must be an integer"),
    ({"nosuch": 1}, "has no parameter 'nosuch'"),
])
def test_load_game_names_the_bad_parameter(parameters, message):
    with pytest.raises(ValueError, match=message):
        cardlab.load_game("kaiser", parameters)


def test_load_game_takes_aliases_and_openspiel_names():
    assert cardlab.load_game("28").get_type().short_name == "cardlab_twenty_eight"
    assert cardlab.load_game("cardlab_literature", {"players": 4}).num_players() == 4


# -- actions --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 300),
       action=st.integers(-2**63, 2**63 - 1))
def test_any_action_is_played_or_refused_without_change(name, seed, steps, action):
    state = _random_state(name, seed, steps)
    before = state.clone()
    try:
        state.apply_action(action)
    except (ValueError, pyspiel.SpielError):
        _same_state(state, before)
        return
    assert action in before.legal_actions()


# -- 3, 8, 11. agent options -------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_any_agent_options_give_a_working_bot_or_a_value_error(data):
    from cardlab import agents
    from cardlab.agents.ismcts import OPTIONS

    name = data.draw(st.sampled_from(["kaiser", "28", "literature"]))
    game = cardlab.load_game(name)
    keys = data.draw(st.lists(st.one_of(st.sampled_from(sorted(OPTIONS.names)), st.text(max_size=5)),
                              max_size=3, unique=True))
    options = {key: data.draw(_ANY_VALUE) for key in keys}
    seed = data.draw(st.integers(0, 2**64 - 1))
    try:
        bot = agents.make("ismcts", game, 0, seed, **options)
    except ValueError as error:
        assert str(error).strip()
        return
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    small = (bot.options["simulations"] <= 2000 and (bot.options["time_ms"] or 0) <= 200
             and bot.options["workers"] == 1 and bot.options["world_pool"] <= 2000)
    if state.current_player() == 0 and small:
        assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_openspiels_invalid_action_is_a_value_error_naming_the_legal_ones(name):
    """-1 is OpenSpiel's kInvalidAction: its own check would raise a SpielError before the game's."""
    state = pyspiel.load_game(name).new_initial_state()
    with pytest.raises(ValueError, match="illegal action -1 .*legal actions"):
        state.apply_action(-1)
    with pytest.raises(ValueError, match="history action 1: .*illegal action -1"):  # a stored history
        state.get_game().replay([state.legal_actions()[0], -1])
