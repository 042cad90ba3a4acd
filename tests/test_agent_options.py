"""Agent options and agents are declared once: defaults from the game spec, strict checks, one kernels'
row, one reader of option text, one table of the built-in agents."""

from __future__ import annotations

import dataclasses
import inspect
import math
import re

import numpy as np
import pyspiel
import pytest

from cardlab import agents
from cardlab.agents.builtin import BUILTIN, NATIVE_KINDS, NETWORK_KINDS
from cardlab.agents.ismcts import OPTIONS, ISMCTSBot
from cardlab.agents.ismcts import options as columns
from cardlab.agents.options import Option, OptionSet, parse_options, parse_value
from cardlab.arena import native
from cardlab.arena.entrants import (
    FILE_OPTIONS,
    NATIVE_AGENTS,
    AgentSpec,
    AgentSpecError,
    bot_factory,
    is_native,
    native_tables,
    parse_agent,
)
from cardlab.cli import CliError, parse_params
from cardlab.games import SPECS, game_spec

KAISER = game_spec("kaiser")
LITERATURE = game_spec("literature")


@pytest.fixture(scope="module")
def kaiser() -> pyspiel.Game:
    return pyspiel.load_game("cardlab_kaiser")


def _mid_hand(game: pyspiel.Game, seed: int = 1) -> pyspiel.State:
    """A decision with several legal actions, after a random deal."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.legal_actions()) < 2:
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    return state


# ---- defaults ----------------------------------------------------------------------------
@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_per_game_defaults_come_from_the_spec(spec):
    resolved = OPTIONS.resolve({}, spec)
    for name, value in spec.ismcts_defaults.items():
        assert resolved[name] == value
    row = resolved.row()
    assert row[columns.WIDENING] == spec.ismcts_defaults["widening"]
    assert row[columns.ROLLOUT_DEPTH] == spec.ismcts_defaults["rollout_depth"]
    assert row[columns.SIMULATIONS] == OPTIONS["simulations"].default


def test_given_values_override_the_games_defaults():
    assert OPTIONS.resolve({}, LITERATURE)["widening"] == 0.1
    assert OPTIONS.resolve({"widening": 0.5}, LITERATURE)["widening"] == 0.5
    assert OPTIONS.resolve({"rollout_depth": 0}, LITERATURE)["rollout_depth"] == 0


def test_a_spec_default_for_an_unknown_option_is_an_error():
    typo = dataclasses.replace(KAISER, ismcts_defaults={"widenning": 0.5})
    with pytest.raises(ValueError, match="widenning"):
        OPTIONS.resolve({}, typo)


# ---- strict checks ---------------------------------------------------------------------------
BAD_VALUES = [
    ("simulations", 0), ("simulations", -3), ("simulations", 1.5), ("simulations", 50.0),
    ("simulations", True), ("simulations", "x"), ("simulations", "1e3"), ("simulations", None),
    ("max_nodes", 0), ("max_nodes", -5), ("workers", 0), ("workers", np.bool_(True)),
    ("world_pool", -1), ("epsilon", 0), ("epsilon", 0.0), ("epsilon", 1.5), ("epsilon", -0.1),
    ("epsilon", math.nan), ("exploration", -1), ("exploration", math.inf), ("exploration", "nan"),
    ("widening", -0.1), ("widening", math.inf), ("rollout_depth", -1), ("rollout_depth", 2.0),
    ("time_ms", 0), ("time_ms", -1), ("time_ms", math.inf), ("time_ms", "inf"), ("time_ms", math.nan),
    ("time_ms", "abc"), ("time_ms", False), ("rollout", "smart"), ("rollout", 1),
    ("value", "cfr"), ("prior", "cfr"), ("puct", -1), ("puct", math.nan),
    ("reuse_tree", "no"), ("reuse_tree", "x"), ("reuse_tree", 1),
    ("reuse_tree", 0), ("reuse_tree", "yes"), ("debug", 1), ("debug", None),
]


@pytest.mark.parametrize(("name", "value"), BAD_VALUES)
def test_a_bad_value_names_the_option_and_its_valid_values(kaiser, name, value):
    game = pyspiel.load_game("cardlab_literature") if name == "rollout_depth" else kaiser
    expected = f"option {name} must be {OPTIONS[name].valid_text()}, got {value!r}"
    with pytest.raises(ValueError, match=re.escape(expected)):
        agents.make("ismcts", game, 0, **{name: value})


@pytest.mark.parametrize(("name", "valid"), [
    ("simulations", "an integer in [1, 10000000]"), ("max_nodes", "an integer in [1, 10000000]"),
    ("workers", "an integer in [1, 256]"), ("world_pool", "an integer in [0, 1000000]"),
    ("epsilon", "a finite number in (0, 1]"), ("exploration", "a finite number >= 0"),
    ("widening", "a finite number >= 0"), ("time_ms", "a finite number in (0, 3600000] or unset"),
])
def test_every_numeric_option_has_its_range(name, valid):
    assert OPTIONS[name].valid_text() == valid


def test_rollout_depth_needs_a_static_evaluation():
    with pytest.raises(ValueError, match="rollout_depth=3 needs a static evaluation, which "
                                         "cardlab_kaiser does not have"):
        OPTIONS.resolve({"rollout_depth": 3}, KAISER)
    assert OPTIONS.resolve({"rollout_depth": 3}, LITERATURE)["rollout_depth"] == 3


@pytest.mark.parametrize(("value", "expected"), [
    (True, True), (False, False), ("true", True), ("false", False), ("TRUE", True),
    (np.bool_(True), True),
])
def test_bools_are_true_false_or_their_names(value, expected):
    assert OPTIONS.resolve({"reuse_tree": value}, KAISER)["reuse_tree"] is expected


def test_numbers_take_python_and_numpy_types_and_strings():
    resolved = OPTIONS.resolve({"simulations": np.int32(50), "world_pool": np.int64(0),
                                "exploration": np.float32(0.5), "epsilon": 1, "widening": "0.5",
                                "max_nodes": "200"}, KAISER)
    assert resolved["simulations"] == 50 and type(resolved["simulations"]) is int
    assert resolved["world_pool"] == 0 and type(resolved["world_pool"]) is int
    assert resolved["exploration"] == 0.5 and type(resolved["exploration"]) is float
    assert resolved["epsilon"] == 1.0 and type(resolved["epsilon"]) is float
    assert resolved["widening"] == 0.5 and resolved["max_nodes"] == 200


def test_unknown_options_are_named():
    with pytest.raises(ValueError, match=r"unknown option\(s\) sims; known: simulations"):
        OPTIONS.resolve({"sims": 10}, KAISER)
    with pytest.raises(ValueError, match="it takes no options"):
        NATIVE_AGENTS["rules"].options.resolve({"depth": 3})


# ---- option text: one reader for agent specs, game parameters and the options themselves ----------
@pytest.mark.parametrize("text, expected", [
    ("500", 500), ("1.5", 1.5), ("1e3", 1000.0), ("TRUE", True), ("false", False), ("rules", "rules"),
    ("256x256", "256x256"),
])
def test_option_text_reads_as_bool_int_float_else_text(text, expected):
    value = parse_value(text)
    assert value == expected and type(value) is type(expected)


def test_option_items_become_a_dict_of_values():
    assert parse_options([" simulations = 500", "uct_c=1.5", "greedy=true"]) == {
        "simulations": 500, "uct_c": 1.5, "greedy": True}
    assert parse_options([]) == {}


@pytest.mark.parametrize("items, message", [
    (["simulations"], "option 'simulations' must look like key=value"),
    (["=5"], "option '=5' must look like key=value"),
    (["simulations="], "option 'simulations=' must look like key=value"),
    (["simulations=5", "simulations=6"], "option 'simulations' is given twice"),
])
def test_bad_option_text_is_named(items, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_options(items)


def test_every_reader_of_option_text_says_the_same(kaiser):
    with pytest.raises(AgentSpecError, match=re.escape("agent spec 'ismcts:simulations': option "
                                                       "'simulations' must look like key=value")):
        parse_agent("ismcts:simulations")
    with pytest.raises(AgentSpecError, match="'simulations' is given twice"):
        parse_agent("ismcts:simulations=5,simulations=6")
    with pytest.raises(CliError, match=re.escape("game parameter 'dealer' must look like key=value")):
        parse_params(["dealer"])
    assert parse_params(["dealer=1", "kitty=true"]) == {"dealer": 1, "kitty": True}
    # A declared option reads text the same way, then checks it against its kind.
    assert OPTIONS["simulations"].check("ismcts", "50") == 50
    with pytest.raises(ValueError, match=r"option simulations must be an integer in \[1, .*got '5.0'"):
        OPTIONS["simulations"].check("ismcts", "5.0")
    with pytest.raises(AgentSpecError, match=r"unknown option\(s\) simulatons; known: simulations"):
        bot_factory(AgentSpec("ismcts", *parse_agent("ismcts:simulatons=5")), kaiser)


# ---- one table of the built-in agents ------------------------------------------------------------
def test_a_native_agent_declared_once_is_in_every_derived_table():
    assert {name: agent.kind for name, agent in BUILTIN.items() if agent.kind is not None} == NATIVE_KINDS
    for name, kind in NATIVE_KINDS.items():
        assert NATIVE_AGENTS[name] is BUILTIN[name] and NATIVE_AGENTS[name].kind == kind
        assert agents.BUILTIN_AGENTS[name] is BUILTIN[name].factory
    assert set(agents.BUILTIN_AGENTS) == set(BUILTIN) and set(NATIVE_AGENTS) == set(NATIVE_KINDS)
    # The codes compiled into the kernels and written into results never change.
    assert (native.RANDOM, native.RULES, native.ISMCTS, native.PIMC, native.CFR_BIDDING, native.NET) == (
        NATIVE_KINDS["random"], NATIVE_KINDS["rules"], NATIVE_KINDS["ismcts"], NATIVE_KINDS["pimc"],
        NATIVE_KINDS["cfr-bidding"], NATIVE_KINDS["net"]) == (0, 1, 2, 3, 4, 5)
    assert "cfr" in BUILTIN and "cfr" not in NATIVE_AGENTS  # a Python bot only
    assert set(FILE_OPTIONS) == {"cfr", "cfr-bidding", "net", "ismcts"}
    assert (native.ISMCTS_NETWORK, NETWORK_KINDS) == (6, {"ismcts": 6})


def test_a_native_agent_plays_only_the_games_it_declares():
    with pytest.raises(ValueError, match="pimc plays cardlab_kaiser and cardlab_twenty_eight only"):
        NATIVE_AGENTS["pimc"].options_row({}, LITERATURE)
    assert not BUILTIN["cfr"].runs_compiled({})


def test_a_declaration_with_clashing_columns_is_refused():
    with pytest.raises(ValueError, match="unique"):
        OptionSet("twice", (Option("a", "int", 1, "a", column=0), Option("b", "int", 1, "b", column=0)))


# ---- one row for the Python bot and the compiled arena --------------------------------------------
@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
@pytest.mark.parametrize("given", [
    {}, {"simulations": 30, "rollout": "random"},
    {"exploration": 0.7, "world_pool": 0, "epsilon": 0.5, "widening": 0.0},
])
def test_the_bot_and_the_compiled_arena_read_the_same_row(spec, given):
    game = spec.load()
    bot = agents.make("ismcts", game, 0, 0, **given)
    agent = AgentSpec("ismcts", "ismcts", given)
    assert is_native(agent, game)
    _, table, _ = native_tables([agent], game)
    np.testing.assert_array_equal(table[0], bot.row)
    np.testing.assert_array_equal(NATIVE_AGENTS["ismcts"].options_row(given, spec), bot.row)


def test_the_row_holds_each_option_at_its_named_column():
    row = OPTIONS.resolve({"simulations": 77, "exploration": 0.5, "rollout": "random",
                           "world_pool": 9, "epsilon": 0.25, "widening": 2.0, "rollout_depth": 4},
                          LITERATURE).row()
    assert row[columns.SIMULATIONS] == 77 and row[columns.EXPLORATION] == 0.5
    assert row[columns.ROLLOUT] == columns.ROLLOUT_RANDOM and row[columns.WORLD_POOL] == 9
    assert row[columns.EPSILON] == 0.25 and row[columns.WIDENING] == 2.0
    assert row[columns.ROLLOUT_DEPTH] == 4 and row[columns.VALUE] == columns.VALUE_ROLLOUT
    assert row[columns.PRIOR] == columns.PRIOR_RULES and row[columns.PUCT] == 1.0
    row = OPTIONS.resolve({"value": "net", "prior": "net", "puct": 2.5}, LITERATURE).row()
    assert row[columns.VALUE] == columns.VALUE_NETWORK and row[columns.PRIOR] == columns.PRIOR_NETWORK
    assert row[columns.PUCT] == 2.5


def test_the_compiled_arena_runs_exactly_the_options_declared_with_a_column(kaiser):
    compiled = {option.name for option in OPTIONS if option.compiled}
    assert compiled == {"simulations", "exploration", "rollout", "world_pool", "epsilon",
                        "widening", "rollout_depth", "value", "prior", "puct", "inference",
                        "inference_weight"}
    for option in OPTIONS:
        value = option.default if option.default is not None else 5.0
        runs_compiled = option.compiled or option.name in ("model", "inference_model")  # networks: tables
        assert is_native(AgentSpec("ismcts", "ismcts", {option.name: value}), kaiser) == runs_compiled


def test_a_bad_value_fails_the_arena_in_one_line(kaiser):
    with pytest.raises(AgentSpecError, match=r"option epsilon must be a finite number in \(0, 1\]"):
        bot_factory(AgentSpec("ismcts", "ismcts", {"epsilon": 2}), kaiser)
    with pytest.raises(AgentSpecError, match="option max_nodes must be an integer in \\[1, 10000000\\]"):
        bot_factory(AgentSpec("ismcts", "ismcts", {"max_nodes": 0, "time_ms": 5}), kaiser)


# ---- bots made from command-line text; budgets at their edges ---------------------------------
def test_a_bot_from_command_line_text_plays(kaiser):
    state = _mid_hand(kaiser)
    name, options = parse_agent("ismcts:simulations=50,reuse_tree=true")
    bot = agents.make(name, kaiser, state.current_player(), 1, **options)
    assert bot.options["simulations"] == 50 and bot.options["reuse_tree"] is True
    texts = agents.make("ismcts", kaiser, state.current_player(), 1, simulations="50",
                        reuse_tree="true")
    assert texts.row.tolist() == bot.row.tolist()
    assert bot.step(state) == texts.step(state) in state.legal_actions()
    assert bot.last_search["iterations"] == 50


def test_a_tree_of_one_node_under_a_clock_still_plays(kaiser):
    state = _mid_hand(kaiser)
    bot = agents.make("ismcts", kaiser, state.current_player(), 1, time_ms=1, max_nodes=1)
    assert bot.step(state) in state.legal_actions()
    assert bot.last_search["nodes"] == 1 and bot.last_search["iterations"] >= 1


def test_time_ms_takes_integers_and_numeric_text(kaiser):
    assert agents.make("ismcts", kaiser, 0, time_ms=30).options["time_ms"] == 30.0
    assert agents.make("ismcts", kaiser, 0, time_ms="2.5").options["time_ms"] == 2.5
    assert agents.make("ismcts", kaiser, 0, time_ms=None).capacity == OPTIONS["simulations"].default + 1


def test_the_options_document_themselves():
    table = OPTIONS.describe(LITERATURE)
    for option in OPTIONS:
        assert option.name in table and option.doc in table
    assert re.search(r"^widening\s+float\s+0\.1\s", table, re.MULTILINE)
    assert inspect.cleandoc(ISMCTSBot.__doc__).endswith(OPTIONS.describe())
