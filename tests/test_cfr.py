"""CFR: the flat tree, the solvers against OpenSpiel, and the two tree builders against each other."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability

from cardlab.cfr.engine_tree import build_from_engine, late_history
from cardlab.cfr.evaluation import best_response_value, expected_values, nash_conv
from cardlab.cfr.mccfr import SAMPLERS, MCCFRSolver
from cardlab.cfr.policy import to_tabular_policy
from cardlab.cfr.pyspiel_tree import build_from_pyspiel
from cardlab.cfr.solvers import SCHEDULES, SOLVERS, TabularSolver
from cardlab.games import game_spec
from experiments.cfr_convergence import swapped_deals


@pytest.fixture(scope="module")
def kuhn():
    game = pyspiel.load_game("kuhn_poker")
    return game, build_from_pyspiel(game)


@pytest.fixture(scope="module")
def leduc():
    game = pyspiel.load_game("leduc_poker")
    return game, build_from_pyspiel(game)


def test_kuhn_tree_sizes(kuhn):
    _, tree = kuhn
    assert tree.summary() == {"nodes": 58, "terminals": 30, "infosets": 12, "infoset_actions": 24}


def test_kuhn_equilibrium_value_is_minus_one_eighteenth(kuhn):
    _, tree = kuhn
    solver = TabularSolver(tree, "cfr+")
    solver.run(2000)
    policy = solver.average_policy()
    assert nash_conv(tree, policy) < 1e-3
    values = expected_values(tree, policy)
    assert values[0] == pytest.approx(-1 / 18, abs=1e-3)
    assert values.sum() == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_nash_conv_equals_openspiel(name, request):
    game, tree = request.getfixturevalue(name)
    solver = TabularSolver(tree, "cfr")
    for iterations in (0, 3, 20):
        solver.run(iterations)
        for policy in (solver.average_policy(), solver.policy):
            ours = nash_conv(tree, policy)
            theirs = exploitability.nash_conv(game, to_tabular_policy(game, tree, policy))
            assert ours == pytest.approx(theirs, abs=1e-6)


@pytest.mark.parametrize("name, iterations", [("kuhn", 100), ("leduc", 12)])
def test_vanilla_cfr_reproduces_openspiel_curve(name, iterations, request):
    game, tree = request.getfixturevalue(name)
    ours = TabularSolver(tree, "cfr", schedule="openspiel")
    theirs = pyspiel.CFRSolver(game)
    for _ in range(iterations):
        ours.run(1)
        theirs.evaluate_and_update_policy()
        expected = pyspiel.exploitability(game, theirs.average_policy())
        assert nash_conv(tree, ours.average_policy()) / 2 == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("solver", list(SOLVERS))
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_exploitability_decreases(kuhn, solver, schedule):
    _, tree = kuhn
    run = TabularSolver(tree, solver, schedule=schedule)
    curve = []
    for _ in range(4):
        run.run(100)
        curve.append(nash_conv(tree, run.average_policy()))
    assert curve[-1] < curve[0] < nash_conv(tree, tree.uniform_policy())
    assert curve[-1] < 0.03


def test_best_response_to_uniform_kuhn(kuhn):
    # Against a uniform opponent, OpenSpiel's best response gives the same values.
    game, tree = kuhn
    uniform = tree.uniform_policy()
    tabular = to_tabular_policy(game, tree, uniform)
    for player in range(2):
        theirs = exploitability.best_response(game, tabular, player)["best_response_value"]
        assert best_response_value(tree, uniform, player) == pytest.approx(theirs, abs=1e-12)


def test_bad_solver_arguments_are_refused(kuhn):
    _, tree = kuhn
    with pytest.raises(ValueError, match="unknown solver"):
        TabularSolver(tree, "cfr++")
    with pytest.raises(ValueError, match="unknown schedule"):
        TabularSolver(tree, "cfr", schedule="sometimes")
    with pytest.raises(ValueError, match="linear_averaging"):
        TabularSolver(tree, "cfr+", linear_averaging=True)
    with pytest.raises(ValueError, match="information-set actions"):
        nash_conv(tree, np.ones(3))


# Literature is left out: asks that fail change no cards, so a position's tree has no end.
# Slow: compiling the walk over every game's kernels takes longer than the default run allows.
@pytest.mark.slow
@pytest.mark.parametrize("name, actions_left", [("kaiser", 9), ("twenty_eight", 9)])
def test_engine_and_pyspiel_builders_give_the_same_tree(name, actions_left):
    game = game_spec(name).load(game_spec(name).small_parameters)
    history = late_history(game, actions_left, seed=3)
    worlds = swapped_deals(game, history, count=3)
    engine_tree = build_from_engine(game, worlds)
    roots = []
    for world in worlds:
        state = game.new_initial_state()
        for action in world:
            state.apply_action(action)
        roots.append((state, 1 / len(worlds)))
    pyspiel_tree = build_from_pyspiel(game, roots)
    assert engine_tree.num_nodes > 20
    for field in engine_tree.arrays._fields:
        np.testing.assert_array_equal(getattr(engine_tree.arrays, field),
                                      getattr(pyspiel_tree.arrays, field), err_msg=field)
    # The worlds share information sets: fewer sets than decision nodes.
    decisions = np.count_nonzero(engine_tree.arrays.node_player >= 0)
    assert engine_tree.num_infosets < decisions
    solver = TabularSolver(engine_tree, "cfr+")
    solver.run(200)
    with pytest.raises(ValueError, match="max_nodes"):
        build_from_engine(game, worlds, max_nodes=engine_tree.num_nodes - 1)
    assert nash_conv(engine_tree, solver.average_policy()) < nash_conv(
        engine_tree, engine_tree.uniform_policy()) + 1e-12


@pytest.fixture(scope="module")
def kaiser_position():
    """A Kaiser hand 16 actions before its end, in three deals (two seats' cards swapped)."""
    game = game_spec("kaiser").load()
    worlds = swapped_deals(game, late_history(game, 16, seed=3), count=3)
    return game, worlds, build_from_engine(game, worlds)


# Slow: the sampling walks recurse, and numba compiles recursive functions in every process.
@pytest.mark.slow
def test_mccfr_converges_on_a_kaiser_position(kaiser_position):
    game, worlds, tree = kaiser_position
    uniform = nash_conv(tree, tree.uniform_policy())
    assert uniform > 1.0
    external = MCCFRSolver(game, "external", seed=5, histories=worlds, capacity=100_000)
    external.run(100)
    early = nash_conv(tree, external.policy_on(tree))
    external.run(500)
    assert nash_conv(tree, external.policy_on(tree)) < min(early, uniform / 5)
    # Outcome sampling learns from one path per update: far more iterations, far slower progress.
    outcome = MCCFRSolver(game, "outcome", seed=1, histories=worlds, capacity=100_000)
    outcome.run(60_000)
    assert nash_conv(tree, outcome.policy_on(tree)) < uniform * 0.9
    # Exact CFR+ on the same position, for scale.
    exact = TabularSolver(tree, "cfr+")
    exact.run(100)
    assert nash_conv(tree, exact.average_policy()) < 1e-2


@pytest.mark.slow
@pytest.mark.parametrize("sampler", SAMPLERS)
def test_mccfr_resumes_bit_for_bit(kaiser_position, sampler):
    game, worlds, _ = kaiser_position
    whole = MCCFRSolver(game, sampler, seed=9, histories=worlds, capacity=100_000)
    whole.run(60)
    first = MCCFRSolver(game, sampler, seed=9, histories=worlds, capacity=100_000)
    first.run(25)
    second = MCCFRSolver(game, sampler, seed=123, histories=worlds, capacity=100_000)
    second.restore(first.state_arrays(), first.iteration)
    second.run(35)
    a, b = whole.state_arrays(), second.state_arrays()
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    with pytest.raises(ValueError, match="unknown sampler"):
        MCCFRSolver(game, "chance")
    with pytest.raises(ValueError, match="table is full"):
        MCCFRSolver(game, sampler, histories=worlds, capacity=10).run(5)
