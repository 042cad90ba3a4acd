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
from cardlab.agents.network import (
    action_links,
    flat_weights,
    forward,
    forward_at,
    load_model,
    model_metadata,
    save_model,
)
from cardlab.games import SPECS, game_spec, kernels
from cardlab.learn.rollouts import fill_absolute_actions

jax = pytest.importorskip("jax")
from cardlab.learn.network import apply, init_params, to_model  # noqa: E402  (needs the learn extra)

BY_GAME = [pytest.param(spec.aliases[0], id=spec.aliases[0]) for spec in SPECS]


def random_model(game, seed: int, hidden=(64, 32), scale: float = 1.0):
    """A model of ``game`` with random weights and biases; ``scale`` > 1 makes its outputs large."""
    metadata = model_metadata(game, "observation", hidden)
    params = init_params(jax.random.PRNGKey(seed), metadata["inputs"], hidden, metadata["actions"],
                         action_links(game))
    rng = np.random.default_rng(seed)
    params = {name: value if name == "link_inputs" else scale * (np.asarray(value)
                                                                 + 0.1 * rng.standard_normal(value.shape))
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
    logits = h @ model.arrays["policy_w"] + model.arrays["policy_b"]
    if model.links:
        entries = model.arrays["link_inputs"].astype(np.int64)
        linked = np.where(entries >= 0, xs[:, np.maximum(entries, 0)].astype(np.float64), 0.0)
        logits = logits + (linked * model.arrays["link_w"]).sum(axis=-1)
    return logits, h @ model.arrays["value_w"] + model.arrays["value_b"][0]


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
def test_the_head_at_the_legal_actions_gives_the_whole_heads_logits_to_the_last_bit(game_name: str) -> None:
    """A decision evaluates its legal actions only (the head's transposed copy): the same sums in the
    same order, so the same float32 logits and value as the whole head's, with and without links."""
    game = game_spec(game_name).load()
    model = random_model(game, seed=11, hidden=(96, 80))
    weights, shape = flat_weights(model)
    xs, masks = observations(game_name, 600, seed=5)
    whole, values = numba_forward(model, xs)
    chosen = np.empty(model.actions, dtype=np.float64)
    for x, mask, row, value in zip(xs, masks, whole, values, strict=True):
        legal = np.flatnonzero(mask)
        assert forward_at(weights, shape, x, legal, len(legal), chosen) == value
        assert np.array_equal(chosen[:len(legal)], row[legal])
    every = np.arange(model.actions)  # and every head id, the ones no position allows included
    assert forward_at(weights, shape, xs[-1], every, len(every), chosen) == values[-1]
    assert np.array_equal(chosen, whole[-1])
    assert forward_at(weights, shape, xs[0], every, 0, chosen) == values[0]  # the value alone


@pytest.mark.parametrize("game_name", BY_GAME)
def test_the_bot_reads_the_observation_tensor_of_its_state(game_name: str) -> None:
    game = game_spec(game_name).load()
    model = random_model(game, seed=1)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    bot = NetBot(game, 0, 5, model)
    # the head names actions in the mover's frame: frame[player, a] is the game's id of its a
    frame = np.empty((game.num_players(), model.actions), dtype=np.int64)
    fill_absolute_actions(game_spec(game_name).kernel_id, state.array, frame)
    while not state.is_terminal():
        if not state.is_chance_node():
            player = state.current_player()
            logits, value = bot.evaluate(state, player)
            expected = np.empty(model.actions, dtype=np.float32)
            x = np.asarray(state.observation_tensor(player), dtype=np.float32)
            expected_value = forward(*flat_weights(model), x, expected)
            assert np.array_equal(logits[frame[player]], expected)
            assert value == pytest.approx(expected_value, abs=0)
        state.apply_action(int(rng.choice(state.legal_actions())))


def preferring(model, action: int):
    """``model`` with its policy head fixed on ``action`` (of its own frame), whatever it sees."""
    arrays = dict(model.arrays)
    arrays["policy_w"] = np.zeros_like(arrays["policy_w"])
    arrays["policy_b"] = np.where(np.arange(model.actions) == action, 10.0, 0.0).astype(np.float32)
    if model.links:
        arrays["link_w"] = np.zeros_like(arrays["link_w"])
    return type(model)(arrays, model.metadata)


def test_each_literature_action_reads_its_own_entries_of_the_observation(tmp_path) -> None:
    """An ask of seat t for card c reads "t may hold c" and t's hand size; a claim's next seat reads
    whether that seat may hold the card being named: each one weight, added to that logit alone."""
    from cardlab.games.literature.observation import action_links as literature_links
    from cardlab.games.literature.rules import ASSIGN, ask_action
    game = game_spec("literature").load()
    state = game.new_initial_state()
    links = literature_links(state.array, game.num_distinct_actions())
    possible_holders, holder_counts, hand_sizes = 54, 54 + 6 * 54, 54 + 7 * 54  # where the pieces start
    assert list(links[ask_action(2, 9)]) == [possible_holders + 2 * 54 + 9, hand_sizes + 2, holder_counts + 9]
    assert (links[ask_action(0, 9)] == -1).all() and (links[ask_action(6, 9)] == -1).all()
    model = random_model(game, seed=5)
    assert model.links == 3 and np.array_equal(model.arrays["link_inputs"], links)
    rng = np.random.default_rng(1)
    while state.is_chance_node():
        state.apply_action(int(rng.choice(state.legal_actions())))
    x = np.asarray(state.observation_tensor(state.current_player()), dtype=np.float32)
    assert x[links[ask_action(1, 9), 0]] == 1.0  # before any ask, every other seat may hold any card
    weights, shape = flat_weights(model)
    plain = np.empty(model.actions, dtype=np.float32)
    forward(weights, shape, x, plain)
    arrays = dict(model.arrays)
    arrays["link_w"] = arrays["link_w"].copy()
    arrays["link_w"][ask_action(1, 9), 0] += 2.5
    arrays["link_w"][ASSIGN + 1, 0] += 7.0  # no claim is being made: its entry reads 0
    moved = np.empty(model.actions, dtype=np.float32)
    forward(*flat_weights(type(model)(arrays, model.metadata)), x, moved)
    changed = np.flatnonzero(moved != plain)
    assert list(changed) == [ask_action(1, 9)] and moved[changed[0]] == pytest.approx(plain[changed[0]] + 2.5)
    # a model whose links are not the game's (an observation laid out since) is refused
    save_model(model, tmp_path / "m.npz")
    _rewrite(tmp_path / "m.npz", lambda a: a.__setitem__("link_inputs", np.roll(a["link_inputs"], 1)))
    with pytest.raises(ValueError, match="corrupt"):
        load_model(tmp_path / "m.npz", game)
    shifted = dict(model.arrays, link_inputs=np.roll(model.arrays["link_inputs"], 64, axis=0))
    save_model(type(model)(shifted, model.metadata), tmp_path / "m.npz")
    with pytest.raises(ValueError, match="action links are not"):
        load_model(tmp_path / "m.npz", game)


def test_a_literature_network_names_seats_counted_from_the_mover() -> None:
    """Literature's actions name seats (ask P4, P2 holds this card) and its tensor counts seats
    from the observer: a head fixed on "ask the next seat for the 5H" asks the seat after
    whoever moves, and a model of the older absolute frame asks P1 whoever moves."""
    from cardlab.core.cards import card_id
    from cardlab.games.literature.rules import ask_action
    game = game_spec("literature").load()
    five_hearts = card_id(2, 3)
    model = random_model(game, seed=2)
    assert model.action_frame == "mover"
    mover_frame = preferring(model, ask_action(1, five_hearts))
    absolute = preferring(type(model)(model.arrays, {**model.metadata, "action_frame": "absolute"}),
                          ask_action(1, five_hearts))
    rng = np.random.default_rng(4)
    movers = set()
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            player = state.current_player()
            if not state.is_chance_node() and all(
                    ask_action(target, five_hearts) in legal for target in ((player + 1) % 6, 1)):
                chosen = NetBot(game, player, 0, mover_frame).step(state)
                assert chosen == ask_action((player + 1) % 6, five_hearts)
                assert NetBot(game, player, 0, absolute).step(state) == ask_action(1, five_hearts)
                assert kernels.mover_action(kernels.LITERATURE, state.array, player, chosen) == \
                    ask_action(1, five_hearts)
                movers.add(player)
            state.apply_action(int(rng.choice(legal)))
    assert len(movers) >= 3


@pytest.mark.parametrize("players", [4, 6, 8])
def test_the_movers_frame_turns_every_action_id_one_to_one(players: int) -> None:
    game = game_spec("literature").load({"players": players})
    state = game.new_initial_state()
    for player in range(players):
        ids = np.arange(game.num_distinct_actions())
        own = np.array([kernels.mover_action(kernels.LITERATURE, state.array, player, a) for a in ids])
        back = np.array([kernels.absolute_action(kernels.LITERATURE, state.array, player, a) for a in own])
        assert np.array_equal(np.sort(own), ids) and np.array_equal(back, ids)
        # seat s of the game is seat (s - player) mod players of the mover's frame; seats
        # beyond the table, claims and the variants' actions are not moved
        assert own[64 * ((player + 2) % players) + 7] == 64 * 2 + 7
        assert own[1040 + player] == 1040 and own[1056 + (player + 1) % players] == 1056 + 1
        assert own[64 * 15 + 3] == 64 * 15 + 3 and own[1027] == 1027


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
