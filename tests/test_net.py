"""The ``net`` agent: model files, the numba forward pass against JAX's, and play in every loop."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
from conftest import play_to_the_end

import cardlab.agents as agents
import cardlab.rl as rl
from cardlab.agents.net import NetBot
from cardlab.agents.network import flat_weights, forward, load_model, model_metadata, save_model
from cardlab.games import SPECS, game_spec, kernels

jax = pytest.importorskip("jax")
from cardlab.learn.network import apply, init_params, to_model  # noqa: E402  (needs the learn extra)

BY_GAME = [pytest.param(spec.aliases[0], id=spec.aliases[0]) for spec in SPECS]


def random_model(game, seed: int, hidden=(64, 32), scale: float = 1.0):
    """A model of ``game`` with random weights and biases; ``scale`` > 1 makes its outputs large."""
    metadata = model_metadata(game, "observation", hidden)
    params = init_params(jax.random.PRNGKey(seed), metadata["inputs"], hidden, metadata["actions"])
    rng = np.random.default_rng(seed)
    params = {name: scale * (np.asarray(value) + 0.1 * rng.standard_normal(value.shape))
              for name, value in params.items()}
    return to_model(params, metadata)


def observations(game_name: str, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` observations and legal masks of random self-play (every phase of the game)."""
    env = rl.make(game_name, num_envs=16, seed=seed)
    rng = np.random.default_rng(seed)
    step = env.reset()
    xs, masks = [], []
    while sum(len(x) for x in xs) < count:
        xs.append(step.observation)
        masks.append(step.legal_mask)
        uniform = rng.random(step.legal_mask.shape) * step.legal_mask
        step = env.step(uniform.argmax(axis=1))
    env.close()
    return np.concatenate(xs)[:count], np.concatenate(masks)[:count]


def numba_forward(model, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    weights, shape = flat_weights(model)
    logits = np.empty((len(xs), model.actions), dtype=np.float32)
    values = np.array([forward(weights, shape, x, row) for x, row in zip(xs, logits, strict=True)])
    return logits, values


def exact_forward(model, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network in float64 (each hidden layer's output rounded to float32, as the model keeps it)."""
    h = xs.astype(np.float64)
    for k in range(len(model.hidden)):
        h = np.maximum(h @ model.arrays[f"hidden_w{k}"] + model.arrays[f"hidden_b{k}"], 0)
        h = h.astype(np.float32).astype(np.float64)
    return (h @ model.arrays["policy_w"] + model.arrays["policy_b"],
            h @ model.arrays["value_w"] + model.arrays["value_b"][0])


@pytest.mark.parametrize("game_name", BY_GAME)
def test_numba_forward_matches_jax_on_many_observations(game_name: str) -> None:
    game = game_spec(game_name).load()
    model = random_model(game, seed=7, hidden=(256, 256))
    xs, _ = observations(game_name, 600, seed=3)
    logits, values = numba_forward(model, xs)
    jax_logits, jax_values = apply({k: jax.numpy.asarray(v) for k, v in model.arrays.items()}, xs)
    assert np.abs(jax_logits).max() > 2 and np.ptp(np.asarray(jax_values)) > 1  # outputs of some size
    assert np.abs(logits - np.asarray(jax_logits)).max() <= 1e-5
    assert np.abs(values - np.asarray(jax_values)).max() <= 1e-5
    # numba sums in float64: its outputs are the exact network's, rounded once to float32
    exact_logits, exact_values = exact_forward(model, xs)
    assert (np.abs(logits - exact_logits) <= 1e-6 * np.maximum(1, np.abs(exact_logits))).all()
    assert (np.abs(values - exact_values) <= 1e-6 * np.maximum(1, np.abs(exact_values))).all()


@pytest.mark.parametrize("game_name", BY_GAME)
def test_the_bot_reads_the_observation_tensor_of_its_state(game_name: str) -> None:
    game = game_spec(game_name).load()
    model = random_model(game, seed=1)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    bot = NetBot(game, 0, 5, model)
    while not state.is_terminal():
        if not state.is_chance_node():
            player = state.current_player()
            logits, value = bot.evaluate(state, player)
            expected = np.empty(model.actions, dtype=np.float32)
            x = np.asarray(state.observation_tensor(player), dtype=np.float32)
            expected_value = forward(*flat_weights(model), x, expected)
            assert np.array_equal(logits, expected) and value == pytest.approx(expected_value, abs=0)
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_save_load_gives_identical_outputs(tmp_path) -> None:
    game = game_spec("28").load()
    model = random_model(game, seed=2)
    path = save_model(model, tmp_path / "m.npz")
    loaded = load_model(path, game)
    assert loaded.metadata["game"] == "cardlab_twenty_eight" and loaded.hidden == (64, 32)
    xs, _ = observations("28", 200, seed=1)
    for a, b in zip(numba_forward(model, xs), numba_forward(loaded, xs), strict=True):
        assert np.array_equal(a, b)


@pytest.fixture
def kaiser_model(tmp_path):
    game = game_spec("kaiser").load()
    return game, save_model(random_model(game, seed=4), tmp_path / "kaiser.npz")


def test_a_model_of_another_game_or_parameter_set_is_refused(kaiser_model) -> None:
    game, path = kaiser_model
    with pytest.raises(ValueError, match="trained on cardlab_kaiser, not on cardlab_twenty_eight"):
        load_model(path, game_spec("28").load())
    with pytest.raises(ValueError, match="min_bid=6.*not with min_bid=7"):
        load_model(path, game_spec("kaiser").load({"min_bid": 7}))
    with pytest.raises(ValueError, match="trained on cardlab_kaiser"):
        agents.make("net", game_spec("literature").load(), 0, 1, model=str(path))


def _rewrite(path, change) -> None:
    """Rewrite the npz at ``path`` with ``change(arrays)`` applied (metadata included)."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    change(arrays)
    np.savez(path, **arrays)


def test_corrupt_and_foreign_files_are_refused_with_a_clear_error(kaiser_model, tmp_path) -> None:
    game, path = kaiser_model
    good = path.read_bytes()

    def refused(pattern: str) -> None:
        with pytest.raises(ValueError, match=pattern) as error:
            load_model(path, game)
        assert str(path) in str(error.value) and "\n" not in str(error.value)
        path.write_bytes(good)

    path.write_bytes(good[: len(good) // 2])
    refused("not a readable model file")
    path.write_bytes(b"not a zip at all")
    refused("not a readable model file")
    _rewrite(path, lambda a: a["hidden_w0"].__setitem__((0, 0), 1.5))
    refused("corrupt")
    _rewrite(path, lambda a: a.pop("metadata"))
    refused("no metadata")
    _rewrite(path, lambda a: a.__setitem__("metadata", np.asarray(json.dumps({"format": "other"}))))
    refused("not a cardlab model file")

    def wrong_shape(arrays):
        metadata = json.loads(str(arrays["metadata"]))
        metadata["hidden"] = [65, 32]
        arrays["metadata"] = np.asarray(json.dumps(metadata))
    _rewrite(path, wrong_shape)
    refused("corrupt|not float32")
    with zipfile.ZipFile(path, "a") as archive:  # an object array: numpy would need pickle to read it
        archive.writestr("evil.npy", b"\x93NUMPY\x01\x00v\x00{'descr': '|O', 'fortran_order': False, "
                                     b"'shape': (1,), }" + b" " * 60 + b"\n")
    refused("not a readable model file|corrupt")
    with pytest.raises(ValueError, match="no such model file"):
        load_model(tmp_path / "missing.npz", game)
    with pytest.raises(ValueError, match="a directory"):
        load_model(tmp_path, game)


def test_the_compiled_arena_plays_net_as_the_python_bot_does(kaiser_model) -> None:
    from cardlab.arena import native
    from cardlab.arena.entrants import AgentSpec, is_native, native_tables
    from cardlab.arena.tournament import _play_python

    game, path = kaiser_model
    for temperature in (0.0, 1.0):
        options = {"model": str(path), "temperature": temperature}
        specs = [AgentSpec("net", "net", options), AgentSpec("rules", "rules")]
        assert is_native(specs[0], game)
        kinds, rows, policies = native_tables(specs, game)
        assert kinds.tolist() == [native.NET, native.RULES]
        seatings = np.array([[0, 1, 0, 1], [1, 0, 1, 0]])
        seeds = native.deal_seeds(5, 0, 6)
        status, actions, offsets, returns, *_ = native.play_games(
            kernels.KAISER, game.new_initial_state().array.copy(), seeds, seatings, kinds, rows, policies)
        assert status[0] == native.OK

        class Context:  # what _play_python reads: the registry bots, seeded as the compiled loop seeds
            factories = [lambda g, p, s, o=options: agents.make("net", g, p, s, **o),
                         lambda g, p, s: agents.make("rules", g, p, s)]

        Context.game, Context.seatings = game, seatings
        py_actions, py_offsets, py_returns, *_ = _play_python(Context, seeds)
        np.testing.assert_array_equal(py_offsets, offsets)
        np.testing.assert_array_equal(py_actions, actions)
        np.testing.assert_allclose(py_returns, returns)


def test_net_is_a_vector_env_opponent(kaiser_model) -> None:
    """The house's net seats play, inside numba, what the registry's bot plays from the same seed."""
    from cardlab.arena.native import agent_seed
    from cardlab.core.rng import make_stream, random_below

    game, path = kaiser_model
    model = load_model(path, game)
    env = rl.make("kaiser", num_envs=2, seed=8, seats=[0], opponents=f"net:model={path},temperature=1")
    step = env.reset()
    seed = env.deal_seed(0, 0)
    state, chance = game.new_initial_state(), make_stream(seed)
    house = {seat: NetBot(game, seat, int(agent_seed(np.uint64(seed), 0, seat, 4)), model, 1.0)
             for seat in (1, 2, 3)}
    rng = np.random.default_rng(1)
    while True:
        while not state.is_terminal() and (state.is_chance_node() or state.current_player() in house):
            if state.is_chance_node():
                legal = state.legal_actions()
                state.apply_action(legal[int(random_below(chance, len(legal)))])
            else:
                state.apply_action(house[state.current_player()].step(state))
        if state.is_terminal():
            break
        assert np.array_equal(env.state(0).array, state.array)
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        step = env.step(np.array([action, step.legal_mask[1].argmax()]))
    assert step.terminated[0] and step.rewards[0].tolist() == state.returns()
    with pytest.raises(ValueError, match="min_bid"):
        rl.make("kaiser", num_envs=2, seed=0, params={"min_bid": 7}, seats=[0], opponents=f"net:model={path}")


@pytest.mark.parametrize("game_name", BY_GAME)
def test_the_committed_model_of_each_game_plays_out_of_the_box(game_name: str) -> None:
    from cardlab.agents.net import MODELS

    game = game_spec(game_name).load()
    model = load_model(MODELS / f"{game.get_type().short_name}.npz", game)
    assert not model.state and model.metadata["zoo"]["commands"]  # how it was made, and no optimizer state
    bots = [agents.make("net", game, seat, seed=seat) for seat in range(game.num_players())]
    # Every move of a whole game is legal (an illegal one raises).
    assert play_to_the_end(game.new_initial_state(), np.random.default_rng(0), bots).is_terminal()
    variant = {"kaiser": {"min_bid": 7}, "twenty_eight": {"thani": True},
               "literature": {"players": 4}}[game_name]
    with pytest.raises(ValueError, match="trained on"):
        agents.make("net", game_spec(game_name).load(variant), 0, 0)
