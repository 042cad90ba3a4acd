"""Hand inference: its labels, the numba beliefs against JAX's, training, and ISMCTS's ``inference=net``."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from conftest import decisions, run_cli

from cardlab import agents
from cardlab.agents.inference import card_holders, holder_log_beliefs, world_log_belief
from cardlab.agents.ismcts import OPTIONS, search
from cardlab.agents.ismcts.bot import network_of
from cardlab.agents.net import MODELS
from cardlab.agents.network import (
    action_links,
    flat_weights,
    holder_outputs,
    load_model,
    model_metadata,
    save_model,
)
from cardlab.arena.entrants import AgentSpec, input_files
from cardlab.core.layout import seat_after
from cardlab.core.rng import make_stream
from cardlab.games import SPECS, game_spec, kernels

jax = pytest.importorskip("jax")
from cardlab.learn.holders import collect_positions, log_loss, model_log_beliefs  # noqa: E402
from cardlab.learn.network import apply, init_params, to_model  # noqa: E402
from cardlab.learn.ppo import make_settings  # noqa: E402
from cardlab.learn.train import Run, train  # noqa: E402

BY_GAME = [pytest.param(spec.aliases[0], id=spec.aliases[0]) for spec in SPECS]


def random_holders(game: pyspiel.Game, seed: int, hidden=(64,)):
    """A hand-inference model of ``game`` with random weights (outputs of some size)."""
    metadata = model_metadata(game, "observation", hidden, head="holders")
    params = init_params(jax.random.PRNGKey(seed), metadata["inputs"], hidden, metadata["actions"],
                         action_links(game, "holders"))
    rng = np.random.default_rng(seed)
    noisy = {name: np.asarray(value) + 0.3 * rng.standard_normal(value.shape)
             for name, value in params.items()}
    params = {name: params[name] if name == "link_inputs" else noisy[name] for name in params}
    return to_model(params, metadata)


def mid_game(game: pyspiel.Game, seed: int, moves: int) -> pyspiel.State:
    """A state ``moves`` decisions into a deal of random play."""
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for count, _ in enumerate(decisions(state, rng, lambda s: int(rng.choice(s.legal_actions())))):
        if count == moves:
            break
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


@pytest.mark.parametrize("game_name", BY_GAME)
def test_the_labels_name_the_seat_after_the_observer_that_holds_each_card(game_name: str) -> None:
    game = game_spec(game_name).load()
    kernel_id = game_spec(game_name).kernel_id
    state = mid_game(game, seed=2, moves=12)
    players = game.num_players()
    holders = np.empty(holder_outputs(game)[0], dtype=np.int64)
    for observer in range(players):
        held = card_holders(kernel_id, state.array, observer, holders)
        expected = np.full(len(holders), -1)
        for k in range(players - 1):
            hand = int(kernels.hand(kernel_id, state.array, seat_after(observer, k + 1, players)))
            expected[[card for card in range(len(holders)) if hand >> card & 1]] = k
        assert holders.tolist() == expected.tolist() and held == (expected >= 0).sum() > 0
        own = int(kernels.hand(kernel_id, state.array, observer))
        assert all(holders[card] == -1 for card in range(len(holders)) if own >> card & 1)


@pytest.mark.parametrize("game_name", BY_GAME)
def test_numba_beliefs_are_jaxs_softmax_over_the_seats_that_hold_cards(game_name: str) -> None:
    game = game_spec(game_name).load()
    model = random_holders(game, seed=4)
    positions = collect_positions(game, 200, seed=6, num_envs=16)
    ours = model_log_beliefs(game, model, positions)
    kernel_id = game_spec(game_name).kernel_id
    x = np.empty((len(positions), model.inputs), dtype=np.float32)
    for i in range(len(positions)):
        kernels.encode(kernel_id, positions.states[i], int(positions.players[i]), False, x[i])
    logits, _ = apply({k: jax.numpy.asarray(v) for k, v in model.arrays.items()}, x)
    cards, others = holder_outputs(game)
    logits = np.asarray(logits).reshape(len(positions), cards, others)
    holding = positions.holding[:, None, :].repeat(cards, axis=1)
    expected = np.asarray(jax.nn.log_softmax(np.where(holding, logits, -np.inf), axis=-1))
    difference = np.abs(ours[holding] - expected[holding])  # JAX's float32 against float64 sums
    assert (difference <= 1e-5 * np.maximum(1, np.abs(expected[holding]))).all()
    assert np.isneginf(ours[~holding]).all()
    # a world's belief is the sum over the cards of the other hands of where it puts them
    for i in range(0, len(positions), 37):
        labelled = positions.holders[i] >= 0
        expected_belief = ours[i, np.flatnonzero(labelled), positions.holders[i][labelled]].sum()
        belief = world_log_belief(kernel_id, positions.states[i], int(positions.players[i]), ours[i])
        assert belief == pytest.approx(expected_belief, rel=1e-12)


def test_a_literature_belief_reads_whether_the_seat_may_hold_the_card_and_its_hand_size() -> None:
    """Literature's deductions rule seats out card by card: each (card, seat) logit is linked to the
    observation's "may hold" entry of that seat and card, and to the seat's hand size."""
    from cardlab.games.literature.observation import NUM_CARDS, piece_starts, pieces_of_state
    game = game_spec("literature").load()
    state = game.new_initial_state()
    cards, others = holder_outputs(game)
    links = action_links(game, "holders")
    start = piece_starts(pieces_of_state(state.array, False))
    assert links.shape == (cards * others, 2)
    assert list(links[9 * others + 2]) == [start["possible_holders"] + 3 * NUM_CARDS + 9,
                                           start["hand_sizes"] + 3]
    model = random_holders(game, seed=2)
    assert model.links == 2 and np.array_equal(model.arrays["link_inputs"], links)
    assert action_links(game_spec("kaiser").load(), "holders") is None


def test_a_hand_inference_model_and_a_policy_are_not_taken_for_each_other(kaiser, tmp_path) -> None:
    save_model(random_holders(kaiser, seed=1), tmp_path / "holders.npz")
    with pytest.raises(ValueError, match="a hand-inference model, not a policy network"):
        agents.make("net", kaiser, 0, 0, model=str(tmp_path / "holders.npz"))
    with pytest.raises(ValueError, match="a policy network, not a hand-inference model"):
        agents.make("ismcts", kaiser, 0, 0, inference="net",
                    inference_model=str(MODELS / "cardlab_kaiser.npz"))
    twenty_eight = game_spec("28").load()
    save_model(random_holders(twenty_eight, seed=1), tmp_path / "other.npz")
    with pytest.raises(ValueError, match="cardlab_twenty_eight"):
        agents.make("ismcts", kaiser, 0, 0, inference="net", inference_model=str(tmp_path / "other.npz"))
    with pytest.raises(ValueError, match="no hand-inference model is committed for cardlab_literature"):
        agents.make("ismcts", game_spec("literature").load(), 0, 0, inference="net")
    with pytest.raises(ValueError, match="world_pool > 0"):
        agents.make("ismcts", kaiser, 0, 0, inference="net", world_pool=0,
                    inference_model=str(tmp_path / "holders.npz"))


def _pool(game, state, options: dict, networked: int, network, seed: int = 9):
    row = OPTIONS.resolve(options).row()
    return search.draw_world_pool(game_spec("kaiser").kernel_id, state.array, state.current_player(),
                                  make_stream(seed), row, networked, network)


def test_the_pool_weighs_each_world_by_its_belief_to_the_power_asked(kaiser, tmp_path) -> None:
    path = tmp_path / "holders.npz"
    model = random_holders(kaiser, seed=3)
    save_model(model, path)
    state = mid_game(kaiser, seed=5, moves=6)
    searcher = state.current_player()
    plain_pool, plain = _pool(kaiser, state, {"world_pool": 50}, search.WITHOUT_NETWORK, search.no_network())
    for weight in (0.0, 1.0, 2.5):
        options = {"world_pool": 50, "inference": "net", "inference_model": str(path),
                   "inference_weight": weight}
        network = network_of(OPTIONS.resolve(options), kaiser)
        pool, cumulative = _pool(kaiser, state, options, search.WITH_NETWORK, network)
        assert np.array_equal(pool, plain_pool)  # the same worlds, drawn from the same stream
        if weight == 0:
            assert np.array_equal(cumulative, plain)  # to the last bit: no belief, the bids alone
            continue
        cards, others = holder_outputs(kaiser)
        beliefs = np.empty((cards, others))
        holder_log_beliefs(kernels.KAISER, *flat_weights(model), state.array, searcher, cards, others,
                           beliefs)
        logs = np.array([world_log_belief(kernels.KAISER, world, searcher, beliefs) for world in pool])
        expected = np.diff(plain, prepend=0.0) * np.exp(weight * (logs - logs.max()))
        assert np.diff(cumulative, prepend=0.0) == pytest.approx(expected, rel=1e-9)
        assert np.ptp(logs) > 1  # the beliefs tell the worlds apart


def test_a_search_with_inference_plays_and_records_its_model(kaiser, tmp_path) -> None:
    path = tmp_path / "holders.npz"
    save_model(random_holders(kaiser, seed=3), path)
    bot = agents.make("ismcts", kaiser, 0, 0, simulations=20, world_pool=20, inference="net",
                      inference_model=str(path), debug=True)
    state = kaiser.new_initial_state()
    count = 0
    rng = np.random.default_rng(0)
    for _ in decisions(state, rng, lambda s: bot.step(s) if s.current_player() == 0
                       else int(rng.choice(s.legal_actions()))):
        count += 1
        if count == 12:
            break
    files = input_files(AgentSpec("search", "ismcts", {"inference": "net", "inference_model": str(path)}),
                        kaiser)
    assert files == {"inference_model": path}


def test_training_a_few_hundred_steps_lowers_the_log_loss_below_the_samplers(tmp_path) -> None:
    """Seeded: on held-out positions of the rule-based player's games, a few hundred gradient steps
    take the log-loss down, and past the consistent sampler's (which reads the bids not at all)."""
    game = game_spec("kaiser").load({"hand_size": 4})
    settings = make_settings({"num_envs": 64, "rollout": 16, "batch": 2048, "minibatch": 256, "hidden": "64",
                              "epochs": 2, "learning_rate": 0.002})
    run = Run(game, "holders", 40 * 1024, seed=3, settings=settings, checkpoint_every=10, eval_deals=1500,
              eval_minutes=0)
    model = train(run, tmp_path / "holders.npz", progress=False)
    history = model.metadata["training"]["progress"]["history"]
    assert len(history) == 2 and history[0]["updates"] == 10 and history[1]["updates"] == 20
    first, last = history[0], history[-1]
    assert last["log_loss"] < first["log_loss"] - 0.01
    assert last["log_loss"] < last["sampler_log_loss"] - 0.01
    assert not model.arrays["value_w"].any()  # no value to learn: its head stays zero
    again = collect_positions(game, 1500, seed=run.eval_seed, teacher="rules")
    saved = load_model(tmp_path / "holders.npz", game, head="holders")
    assert log_loss(model_log_beliefs(game, saved, again), again.holders) == pytest.approx(last["log_loss"],
                                                                                           abs=1e-5)


def test_the_command_line_trains_a_hand_inference_model(tmp_path, capsys) -> None:
    out = tmp_path / "holders.npz"
    code, stdout, _ = run_cli(capsys, "train", "--algo", "holders", "--game", "kaiser",
                              "--param", "hand_size=2", "--steps", "2048", "--out", str(out),
                              "--eval-deals", "100", "--quiet",
                              "--set=num_envs=64", "--set=rollout=16", "--set=batch=1024",
                              "--set=minibatch=256", "--set=hidden=32")
    assert code == 0 and "holders on cardlab_kaiser" in stdout and "log-loss" in stdout
    assert load_model(out, head="holders").metadata["head"] == "holders"
    code, _, stderr = run_cli(capsys, "train", "--algo", "holders", "--game", "kaiser", "--steps", "10",
                              "--out", str(tmp_path / "x.npz"), "--opponents", "rules")
    assert code != 0 and "give no opponents" in stderr


@pytest.mark.parametrize("game_name", ["kaiser", "28"])
def test_the_committed_model_beats_the_consistent_sampler_on_positions_it_never_saw(game_name: str) -> None:
    """The zoo's hand-inference model, on fresh positions of the rule-based player's games: a lower
    log-loss per hidden card than the uniform-over-consistent-worlds sampler at its best smoothing."""
    from cardlab.agents.ismcts.bot import beliefs_path
    from cardlab.learn.holders import sampler_counts, sampler_score, score_holders
    game = game_spec(game_name).load()
    model = load_model(beliefs_path(None, game), game, head="holders")
    positions = collect_positions(game, 400, seed=31, num_envs=64)
    sampler = sampler_score(sampler_counts(game, positions, 128), positions)
    score = score_holders(game, model, positions, sampler)
    assert score.model < score.sampler - 0.03
