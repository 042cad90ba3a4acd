"""ISMCTS with a policy-and-value network: ``prior=net`` (the policy's order and PUCT) and ``value=net``."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import decisions

from cardlab import agents
from cardlab.agents.ismcts import OPTIONS, search
from cardlab.agents.ismcts.bot import network_of, run_search
from cardlab.agents.net import MODELS
from cardlab.arena import native
from cardlab.arena.entrants import NATIVE_AGENTS, AgentSpec, bot_factory, input_files, native_tables
from cardlab.arena.tournament import _Context, _play_python
from cardlab.core.rng import make_stream
from cardlab.games import game_names, game_spec, kernels
from cardlab.play.advise import agent_tables

SEATINGS = np.array([[0, 1, 0, 1], [1, 0, 1, 0]], dtype=np.int64)
NETWORKED = {"prior": "net", "value": "net"}


def _mid_game(game: pyspiel.Game, seed: int, moves: int) -> pyspiel.State:
    """A state ``moves`` decisions into a deal played by the rule-based players."""
    rules = [agents.make("rules", game, seat, 0) for seat in range(game.num_players())]
    state = game.new_initial_state()
    for count, _ in enumerate(decisions(state, np.random.default_rng(seed),
                                        lambda s: rules[s.current_player()].step(s))):
        if count == moves:
            break
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


@pytest.mark.integration  # compiles the networked search for every game (the fast suite checks Kaiser's)
@pytest.mark.parametrize("game_name", game_names())
def test_every_move_is_legal_with_the_network(game_name):
    game = pyspiel.load_game(game_name)
    options = [NETWORKED, {"prior": "net"}, {"value": "net", "rollout": "random"}]
    bots = [agents.make("ismcts", game, seat, seat, simulations=12, debug=True, **options[seat % 3])
            for seat in range(game.num_players())]
    count = 0
    for _ in decisions(game.new_initial_state(), np.random.default_rng(0),
                       lambda s: bots[s.current_player()].step(s)):
        count += 1
        if count == 60:  # a Literature game is long; sixty decisions reach its asks and claims
            break
    assert count >= 20


def test_the_first_expansion_is_the_policys_favourite_and_keeps_its_probability(kaiser):
    state = _mid_game(kaiser, seed=3, moves=6)
    searcher = state.current_player()
    bot = agents.make("ismcts", kaiser, searcher, 0, simulations=1, prior="net")
    net = agents.make("net", kaiser, searcher, 0)
    policy, _ = net.step_with_policy(state)
    favourite, probability = max(policy, key=lambda pair: pair[1])
    tree = search.Tree(4)
    worlds = np.zeros((0, state.array.shape[0]), dtype=np.int64)
    run_search(bot.game_id, state.array, searcher, bot.row, tree, make_stream(1), None, worlds, bot.network)
    child = tree.nodes[0, search.FIRST_CHILD]
    assert tree.size[0] == 2 and tree.nodes[child, search.ACTION] == favourite
    assert tree.nodes[child, search.PRIOR_SHARE] / search.PRIOR_UNIT == pytest.approx(probability, abs=1e-6)


def test_puct_follows_the_prior_when_values_tie_and_the_values_when_they_do_not():
    nodes, reward, size = search.new_tree(8)
    children = np.array([search.add_child(nodes, reward, size, 0, action, 0) for action in (10, 11)])
    nodes[children, search.VISITS] = 4
    nodes[children, search.AVAILABLE] = 8
    nodes[children, search.PRIOR_SHARE] = [int(0.2 * search.PRIOR_UNIT), int(0.8 * search.PRIOR_UNIT)]
    row = OPTIONS.resolve({"prior": "net", "puct": 1.0}).row()
    assert search.child_choice(nodes, reward, children, 2, row) == 1
    reward[children] = [4.0, -4.0]  # a sure win against a sure loss: the prior's weight cannot catch up
    assert search.child_choice(nodes, reward, children, 2, row) == 0
    reward[children] = 0.0
    rules = OPTIONS.resolve({}).row()  # prior=rules: UCB, which reads no prior (a tie: the first)
    assert search.child_choice(nodes, reward, children, 2, rules) == 0


@pytest.mark.parametrize("game_name", ["cardlab_kaiser", "cardlab_twenty_eight"])
def test_the_value_at_a_leaf_is_the_heads_for_the_movers_side_and_zero_sum(game_name):
    game = pyspiel.load_game(game_name)
    state = _mid_game(game, seed=5, moves=9)
    mover = state.current_player()
    _, value = agents.make("net", game, mover, 0).evaluate(state)
    game_id = game_spec(game_name).kernel_id
    network = network_of(OPTIONS.resolve({"value": "net"}), game)
    seat_returns = np.zeros(search.MAX_SEATS)
    search.network_value(game_id, state.array.copy(), OPTIONS.resolve({"value": "net"}).row(), make_stream(0),
                         np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64), seat_returns, network)
    scale = kernels.utility_scale(game_id, state.array)
    players = game.num_players()
    assert seat_returns[mover] == pytest.approx(value * scale, rel=1e-5)
    assert seat_returns[(mover + 2) % players] == seat_returns[mover]
    assert seat_returns[:players].sum() == pytest.approx(0.0, abs=1e-4)


def test_a_search_compiled_without_the_network_refuses_a_row_that_needs_it(kaiser):
    state = _mid_game(kaiser, seed=1, moves=0)
    row = OPTIONS.resolve({"simulations": 5, "prior": "net"}).row()
    scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    with pytest.raises(ValueError, match="prior=net and value=net need a search given the network"):
        search.decide(kernels.KAISER, row, state.array, make_stream(0), scratch)


def test_a_model_of_another_game_or_a_missing_one_is_refused(kaiser):
    with pytest.raises(ValueError, match="cardlab_twenty_eight"):
        agents.make("ismcts", kaiser, 0, 0, prior="net", model=str(MODELS / "cardlab_twenty_eight.npz"))
    with pytest.raises(ValueError, match="no-such-model.npz"):
        agents.make("ismcts", kaiser, 0, 0, value="net", model="no-such-model.npz")
    with pytest.raises(ValueError, match="without networks"):
        agent_tables("ismcts:prior=net", kaiser)


def test_the_networked_search_is_a_kind_of_its_own_compiled_only_where_seated():
    ismcts = NATIVE_AGENTS["ismcts"]
    assert ismcts.kind_for({}) == ismcts.kind_for({"prior": "rules"}) == native.ISMCTS
    assert ismcts.kind_for({"prior": "net"}) == ismcts.kind_for({"value": "net"}) == native.ISMCTS_NETWORK
    assert ismcts.runs_compiled({"prior": "net", "model": "x.npz"})
    assert not ismcts.runs_compiled({"prior": "net", "time_ms": 5})


@pytest.mark.integration  # compiles a whole tournament loop seating the networked search
def test_the_compiled_loop_plays_the_networked_search_as_its_bot_does(kaiser):
    """The compiled arena reads the network from its tables as the bot reads it from the model file."""
    specs = [AgentSpec("search", "ismcts", {"simulations": 16, **NETWORKED}), AgentSpec("rules", "rules")]
    kinds, options, policies = native_tables(specs, kaiser)
    assert kinds.tolist() == [native.ISMCTS_NETWORK, native.RULES]
    seeds = native.deal_seeds(3, 0, 2)
    status, actions, _, returns, _, _, _ = native.play_games(
        kernels.KAISER, kaiser.new_initial_state().array.copy(), seeds, SEATINGS, kinds, options, policies)
    assert status[0] == native.OK
    factories = [bot_factory(spec, kaiser) for spec in specs]
    py_actions, _, py_returns, _, _, _ = _play_python(_Context(kaiser, SEATINGS, False, factories=factories),
                                                      seeds)
    assert py_actions.tolist() == actions.tolist()
    assert py_returns.tolist() == returns.tolist()


def test_a_result_records_the_model_a_networked_search_reads(kaiser):
    files = input_files(AgentSpec("search", "ismcts", {"prior": "net"}), kaiser)
    assert files == {"model": MODELS / "cardlab_kaiser.npz"}
    assert input_files(AgentSpec("search", "ismcts", {"simulations": 9}), kaiser) == {}
