"""What every cardlab game must do, checked once for all of them (one case per game spec).

Game-specific rulings and scenarios stay in each game's own test files; these
are the contract of the house: the numba engine and the OpenSpiel wrapper
agree, OpenSpiel's own checks pass, bad input is refused, and the rule-based
player reads only what its seat may know.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import decisions

from cardlab import agents
from cardlab.agents.pimc.bot import check_pimc_game
from cardlab.core.rng import make_stream
from cardlab.games import SPECS, GameSpec

#: Each game as it is played by default, plus its smallest version where it has one.
CASES = [pytest.param(spec, {}, id=spec.aliases[0]) for spec in SPECS] + [
    pytest.param(spec, dict(spec.small_parameters), id=f"{spec.aliases[0]}-small")
    for spec in SPECS if spec.small_parameters
]
BY_GAME = [pytest.param(spec, id=spec.aliases[0]) for spec in SPECS]


def _short(params: dict) -> dict:
    """A match variant played over at most five deals, so that every check stays fast."""
    return {**params, "max_hands": 5} if params.get("match") else params


#: Each implemented named variant (docs/rules/<game>.md#variants), as its parameters switch it on.
VARIANT_CASES = [pytest.param(spec, _short(variant.settings()), id=variant.name)
                 for spec in SPECS for variant in spec.variants
                 if variant.status == "implemented" and variant.parameters]
#: Configurations a variant entry covers beside its own settings: Kaiser's six players in three
#: teams of two (11.14, ``three_teams``); a Lost Heir match whose dealer may throw the hand in (11.10);
#: the passing rules with the kitty game (11.32-11.35).
VARIANT_CASES += [pytest.param(SPECS[0], {"players": 6, "three_teams": True},
                               id="kaiser.six_player-three_teams"),
                  pytest.param(SPECS[0], _short({"lost_heir": True, "match": True, "dealer_may_pass": True}),
                               id="kaiser.lost_heir-match"),
                  # Passing before the auction and a kitty after it; the exchange before the kitty.
                  pytest.param(SPECS[0], {"pass_two_to_partner": True, "kitty_34_card": True},
                               id="kaiser.pass_two_to_partner-kitty_34_card"),
                  pytest.param(SPECS[0], {"partner_exchange_after_bidding": True, "kitty_34_card": True,
                                          "high_or_low_announced_after_bid": True},
                               id="kaiser.partner_exchange_after_bidding-kitty_34_card")]
#: Literature's 52-card deck dealt unevenly among 8, and the forced procedure with challenges,
#: windows and 12.10's seven-card claims together.
VARIANT_CASES += [
    pytest.param(SPECS[2], {"eights_in_play": True, "players": 8, "dealer": 5},
                 id="literature.eights_in_play-8"),
    pytest.param(SPECS[2], {"forced_claims": True, "challenge": True, "claim_any_time": True,
                            "eights_in_play": True, "players": 4},
                 id="literature.forced_claims-challenge-claim_any_time-eights_in_play-4"),
]


def _uniform(rng: np.random.Generator):
    def choose(state: pyspiel.State) -> int:
        legal = state.legal_actions()
        return legal[rng.integers(len(legal))]
    return choose


def _every(game: pyspiel.Game, rng: np.random.Generator, step: int):
    """Every ``step``-th decision of one uniformly random game (the first included)."""
    for count, state in enumerate(decisions(game.new_initial_state(), rng, _uniform(rng))):
        if count % step == 0:
            yield state


@pytest.mark.parametrize("spec, params", CASES + VARIANT_CASES)
def test_engine_and_wrapper_agree_on_a_thousand_random_games(spec: GameSpec, params: dict) -> None:
    """Legal actions, players, final arrays and returns: the same through both faces.

    A thousand games of each game's standard and small versions, fifty of each variant.
    """
    engine = spec.engine
    game = spec.load(params)
    rng = np.random.default_rng(5)
    legal = np.empty(engine.MAX_LEGAL_ACTIONS, dtype=np.int64)
    returns = np.zeros(game.num_players())
    for _ in range(1000 if params in ({}, dict(spec.small_parameters)) else 50):
        state = game.new_initial_state()
        array = state.array.copy()
        while not state.is_terminal():
            player = state.current_player()
            n = engine.legal_actions(array, legal)
            wrapper_legal = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                             else state.legal_actions())
            assert wrapper_legal == legal[:n].tolist()
            assert player == engine.current_player(array)
            action = wrapper_legal[rng.integers(len(wrapper_legal))]
            state.apply_action(action)
            engine.apply_action(array, action)
        engine.returns(array, returns)
        assert state.returns() == returns.tolist()
        assert sum(state.returns()) == 0
        assert np.array_equal(state.array, array)


@pytest.mark.parametrize("spec, params", CASES + VARIANT_CASES)
def test_openspiel_random_sim_test(spec: GameSpec, params: dict) -> None:
    pyspiel.random_sim_test(spec.load(params), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("spec", BY_GAME)
def test_openspiel_evaluate_bots_with_its_python_ismcts(spec: GameSpec) -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = spec.load(spec.small_parameters)
    bots = [agents.make("rules", game, seat, seed=seat) for seat in range(game.num_players())]
    bots[1] = ismcts.ISMCTSBot(
        game=game, evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        uct_c=2.0, max_simulations=10, random_state=np.random.RandomState(1),
    )
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)
    assert sum(returns) == 0
    assert all(returns[seat] == returns[seat % 2] for seat in range(game.num_players()))


@pytest.mark.parametrize("spec", BY_GAME)
def test_tensors_have_the_declared_shapes(spec: GameSpec) -> None:
    game = spec.load()
    rng = np.random.default_rng(1)
    for state in _every(game, rng, 7):
        for player in range(game.num_players()):
            info = np.array(state.information_state_tensor(player))
            observation = np.array(state.observation_tensor(player))
            assert info.shape == tuple(game.information_state_tensor_shape())
            assert observation.shape == tuple(game.observation_tensor_shape())
            assert info.any() and observation.any()


@pytest.mark.parametrize("spec", BY_GAME)
def test_a_finished_game_refuses_every_action(spec: GameSpec) -> None:
    game = spec.load()
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in decisions(state, rng, _uniform(rng)):
        pass
    before = state.array.copy()
    for action in (0, game.num_distinct_actions() - 1):
        with pytest.raises(ValueError, match="finished game"):
            state.apply_action(action)
    assert np.array_equal(state.array, before)


@pytest.mark.parametrize("spec", BY_GAME)
def test_illegal_actions_name_the_legal_ones_and_change_nothing(spec: GameSpec) -> None:
    game = spec.load()
    rng = np.random.default_rng(3)
    for state in _every(game, rng, 5):
        legal = set(state.legal_actions())
        illegal = next(a for a in range(game.num_distinct_actions()) if a not in legal)
        before, history = state.array.copy(), state.history()
        with pytest.raises(ValueError, match=rf"illegal action {illegal}\b.*legal actions: \["):
            state.apply_action(illegal)
        assert np.array_equal(state.array, before) and state.history() == history


@pytest.mark.parametrize("spec", BY_GAME)
def test_unknown_parameters_are_rejected_at_load_game(spec: GameSpec) -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'no_such_rule'"):
        pyspiel.load_game(spec.name, {"no_such_rule": True})
    with pytest.raises(ValueError, match="has no parameter 'no_such_rule'"):
        spec.load({"no_such_rule": True})
    with pytest.raises(ValueError, match="seat must be"):
        spec.load().new_initial_state().resample_from_infostate(99, lambda: 0.5)


@pytest.mark.parametrize("spec, params", [(spec, {}) for spec in SPECS] + VARIANT_CASES)
def test_rules_player_uses_only_its_own_information(spec: GameSpec, params: dict) -> None:
    """Redrawing everything the mover cannot see must not change the rule player's choice.

    The redrawn worlds (each game's resampler) keep the mover's information state exactly.
    """
    game = spec.load(params)
    rng = np.random.default_rng(12)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rules_action = spec.strategy.rules_action
    checked = 0
    while checked < (150 if not params else 30):
        for state in _every(game, rng, 9):
            player = state.current_player()
            action = rules_action(state.array, make_stream(0))
            assert action in state.legal_actions()
            for _ in range(3):
                world = state.resample_from_infostate(player, sampler)
                assert world.information_state_string(player) == state.information_state_string(player)
                assert rules_action(world.array, make_stream(0)) == action
            checked += 1


@pytest.mark.parametrize("spec, params", [(spec, None) for spec in SPECS] + VARIANT_CASES)
def test_every_builtin_agent_plays_every_game(spec: GameSpec, params: dict | None) -> None:
    game = spec.load(spec.small_parameters if params is None else params)
    for name in agents.BUILTIN_AGENTS:
        if name in ("cfr", "cfr-bidding", "net"):  # need policies or models trained on these parameters:
            continue  # tests/test_cfr_policy.py, tests/test_cfr_bidding.py, tests/test_net.py
        # A pool of worlds the size of the budget: drawing the default 400 would be most of the time.
        options = {"simulations": 20, "world_pool": 20} if name == "ismcts" else {}
        if name == "pimc":  # the double-dummy solver's games only, and the rules it models
            try:
                check_pimc_game(game)
            except ValueError:
                with pytest.raises(ValueError):
                    agents.make(name, game, 0)
                continue
            options = {"worlds": 2, "bid_worlds": 2}
        bots = [agents.make(name, game, seat, seat, **options) for seat in range(game.num_players())]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
        assert abs(sum(returns)) < 1e-9
    if params is not None:
        return
    with pytest.raises(ValueError, match="unknown agent 'genius'"):
        agents.make("genius", game, 0)
    with pytest.raises(ValueError, match="unknown option"):
        agents.make("rules", game, 0, depth=3)
    with pytest.raises(ValueError, match="player must be"):
        agents.make("random", game, game.num_players())


@pytest.mark.parametrize("name", sorted(set(agents.BUILTIN_AGENTS) - {"cfr", "cfr-bidding"})
                         + ["native-rules"])
def test_a_bot_refuses_a_state_of_another_game(name: str) -> None:
    """A kernel reading another game's array could crash: the bot names both games instead."""
    from cardlab.arena.entrants import AgentSpec, bot_factory

    kaiser, twenty_eight = SPECS[0].load(), SPECS[1].load()
    if name == "native-rules":
        bot = bot_factory(AgentSpec("rules", "rules"), kaiser)(kaiser, 1, 0)
    else:
        bot = agents.make(name, kaiser, 1, 0, **({"simulations": 10} if name == "ismcts" else {}))
    state = twenty_eight.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.current_player() == 1
    with pytest.raises(ValueError, match="cardlab_kaiser.*cardlab_twenty_eight"):
        bot.step(state)
