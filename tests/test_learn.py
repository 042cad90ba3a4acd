"""Training policy-and-value networks (cardlab.learn): learning, checkpoints, resuming, the command line."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import run_cli, tournament_rows

from cardlab.agents.network import load_model
from cardlab.games import game_spec

pytest.importorskip("jax")
from cardlab.learn.evaluate import duplicate_strength  # noqa: E402  (needs the learn extra)
from cardlab.learn.ppo import make_settings  # noqa: E402
from cardlab.learn.train import Run, exploring_moves, strip_training_state, train  # noqa: E402

#: Two-card Kaiser, small batches: every round of 32 decisions in 64 games finishes more than one
#: batch of decisions, so each round makes exactly one update.
SMALL = {"num_envs": 64, "rollout": 32, "batch": 1024, "minibatch": 256, "hidden": "64", "epochs": 2,
         "learning_rate": 0.001}
ROUND = 64 * 32  # decisions of one round


@pytest.fixture(scope="module")
def two_cards():
    return game_spec("kaiser").load({"hand_size": 2})


def small_run(game, algo: str, rounds: int, **fields) -> Run:
    fields = {"seed": 3, "checkpoint_every": 100, "eval_deals": 0, **fields}
    return Run(game, algo, rounds * ROUND, settings=make_settings(SMALL), **fields)


def test_imitation_learns_the_teacher(two_cards, tmp_path) -> None:
    first = train(small_run(two_cards, "bc", 1), tmp_path / "first.npz", progress=False)
    last = train(small_run(two_cards, "bc", 40), tmp_path / "last.npz", progress=False)
    before, after = first.metadata["training"]["last_update"], last.metadata["training"]["last_update"]
    assert last.metadata["training"]["progress"]["updates"] == 40
    assert after["loss"] < 0.2 * before["loss"]
    assert after["agreement"] > 0.95 > before["agreement"]


def test_exploring_imitation_plays_random_legal_moves_and_still_learns_the_teacher(two_cards,
                                                                                   tmp_path) -> None:
    rng = np.random.default_rng(0)
    masks = rng.random((2000, 12)) < 0.3
    masks[:, 5] = True
    teacher = np.full(2000, 5)
    moves = exploring_moves(teacher, masks, 0.25, np.random.default_rng(1))
    assert masks[np.arange(2000), moves].all()
    assert 0.15 < (moves != teacher).mean() < 0.25  # a random move is sometimes the teacher's own
    assert (exploring_moves(teacher, masks, 0.0, np.random.default_rng(1)) == teacher).all()
    settings = make_settings({**SMALL, "explore": 0.2})
    run = Run(two_cards, "bc", 20 * ROUND, seed=3, checkpoint_every=100, eval_deals=0, settings=settings)
    model = train(run, tmp_path / "explore.npz", progress=False)
    again = train(run, tmp_path / "again.npz", progress=False)
    assert model.metadata["training"]["run"]["settings"]["explore"] == 0.2
    assert model.metadata["training"]["last_update"]["agreement"] > 0.9  # the labels stay the teacher's
    assert all(np.array_equal(model.arrays[name], again.arrays[name]) for name in model.arrays)
    assert "explore" not in make_settings(SMALL).to_json()  # older runs' records, so that they resume


def test_imitation_on_the_learners_own_moves_still_learns_the_teacher(two_cards, tmp_path) -> None:
    """DAgger: half the moves are the learner's own, every label the teacher's; seeded, so a
    second run is the same, and the moves played are not the teacher's games."""
    settings = make_settings({**SMALL, "own_moves": 0.5})
    run = Run(two_cards, "bc", 30 * ROUND, seed=3, checkpoint_every=100, eval_deals=0, settings=settings)
    model = train(run, tmp_path / "own.npz", progress=False)
    again = train(run, tmp_path / "again.npz", progress=False)
    teacher_only = train(small_run(two_cards, "bc", 30), tmp_path / "teacher.npz", progress=False)
    assert model.metadata["training"]["run"]["settings"]["own_moves"] == 0.5
    assert model.metadata["training"]["last_update"]["agreement"] > 0.9
    assert all(np.array_equal(model.arrays[name], again.arrays[name]) for name in model.arrays)
    assert not np.array_equal(model.arrays["policy_w"], teacher_only.arrays["policy_w"])
    assert "own_moves" not in make_settings(SMALL).to_json()


def test_ppo_improves_its_loss_and_its_play(two_cards, tmp_path) -> None:
    """A few hundred gradient steps (60 updates of 8) against random players: the value loss falls,
    and the network beats the random players by more on a fixed duplicate set."""
    first = train(small_run(two_cards, "ppo", 1, opponents="random"), tmp_path / "first.npz", progress=False)
    last = train(small_run(two_cards, "ppo", 60, opponents="random"), tmp_path / "last.npz", progress=False)
    before, after = first.metadata["training"]["last_update"], last.metadata["training"]["last_update"]
    assert after["value_loss"] < 0.5 * before["value_loss"]
    assert after["entropy"] < before["entropy"]
    weak = duplicate_strength(two_cards, tmp_path / "first.npz", "random", 400, seed=5)
    strong = duplicate_strength(two_cards, tmp_path / "last.npz", "random", 400, seed=5)
    assert strong.low > weak.high


def test_a_resumed_run_continues_where_it_stopped(two_cards, tmp_path) -> None:
    """Stopped at a checkpoint and resumed, a run ends with the very weights of one that never stopped."""
    whole = train(small_run(two_cards, "ppo", 3, checkpoint_every=1), tmp_path / "whole.npz", progress=False)
    out = tmp_path / "parts.npz"
    part = train(small_run(two_cards, "ppo", 1, checkpoint_every=1), out, progress=False)
    assert part.metadata["training"]["progress"]["updates"] == 1
    resumed = train(small_run(two_cards, "ppo", 3, checkpoint_every=1), out, resume=True, progress=False)
    assert resumed.metadata["training"]["progress"] == whole.metadata["training"]["progress"] | {
        "cpu_seconds": resumed.metadata["training"]["progress"]["cpu_seconds"],
        "wall_seconds": resumed.metadata["training"]["progress"]["wall_seconds"]}
    for name, array in whole.arrays.items():
        assert np.array_equal(resumed.arrays[name], array), name
    for name, array in whole.state.items():
        assert np.array_equal(resumed.state[name], array), name
    assert (tmp_path / "parts.previous.npz").exists()
    with pytest.raises(ValueError, match="the saved run used seed 3, not 4"):
        train(small_run(two_cards, "ppo", 4, seed=4), out, resume=True, progress=False)
    with pytest.raises(ValueError, match="does not exist"):
        train(small_run(two_cards, "ppo", 4), tmp_path / "none.npz", resume=True, progress=False)


def test_a_checkpoint_stripped_for_the_zoo_keeps_its_weights_and_record(two_cards, tmp_path) -> None:
    checkpoint = train(small_run(two_cards, "bc", 1), tmp_path / "run.npz", progress=False)
    zoo = strip_training_state(tmp_path / "run.npz", tmp_path / "zoo.npz", two_cards)
    loaded = load_model(tmp_path / "zoo.npz", two_cards)
    assert checkpoint.state and not loaded.state
    assert zoo.metadata["training"] == checkpoint.metadata["training"]
    assert all(np.array_equal(loaded.arrays[name], array) for name, array in checkpoint.arrays.items())
    assert (tmp_path / "zoo.npz").stat().st_size < (tmp_path / "run.npz").stat().st_size


def test_a_damaged_checkpoint_resumes_from_the_one_before(two_cards, tmp_path, capsys) -> None:
    out = tmp_path / "run.npz"
    train(small_run(two_cards, "bc", 2, checkpoint_every=1), out, progress=False)
    out.write_bytes(out.read_bytes()[:100])
    model = train(small_run(two_cards, "bc", 3, checkpoint_every=1), out, resume=True, progress=False)
    assert "resuming from the previous checkpoint" in capsys.readouterr().err
    assert model.metadata["training"]["progress"]["updates"] == 3
    assert load_model(out, two_cards).metadata["training"]["progress"]["updates"] == 3


def test_the_command_line_trains_measures_and_plays_the_model(tmp_path, capsys) -> None:
    out = tmp_path / "model.npz"
    code, stdout, _ = run_cli(capsys, "train", "--algo", "bc", "--game", "kaiser", "--param", "hand_size=2",
                              "--steps", str(3 * ROUND), "--out", str(out), "--eval-deals", "50", "--quiet",
                              "--eval-opponent", "rules", "--eval-opponent", "random",
                              *[f"--set={key}={value}" for key, value in SMALL.items()])
    assert code == 0 and "bc on cardlab_kaiser" in stdout and "vs rules" in stdout and "vs random" in stdout
    training = load_model(out).metadata["training"]
    assert training["command"].startswith("cardlab train --algo bc --game kaiser")
    last = [entry for entry in training["progress"]["history"] if entry["updates"] == 3]
    assert [(entry["opponent"], entry["deals"]) for entry in last] == [("rules", 50), ("random", 50)]
    assert last[1]["mean"] > last[0]["mean"]  # the same deals: random players are the weaker side
    rows = tournament_rows(tmp_path / "t", "--game", "kaiser", "--param", "hand_size=2",
                           "--agents", f"net:model={out},rules", "--deals", "20")
    assert len(rows) == 40 and {row["team0_agent"] for row in rows} == {"net", "rules"}


@pytest.mark.parametrize(("argv", "message"), [
    (["--steps", "100"], "--out"),
    (["--out", "{tmp}/m.npz"], "needs --steps"),
    (["--steps", "0", "--out", "{tmp}/m.npz"], "steps must be"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--set", "batch=0"], "setting batch must be in"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--set", "width=3"], "unknown setting"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--set", "batch"], "KEY=VALUE"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--set", "explore=0.1"], "explore is for --algo bc"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--set", "explore=2"], "setting explore must be in"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--set", "own_moves=0.5"], "own_moves is for --algo bc"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--set", "hidden=0x4"], "hidden layers must be"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--opponents", "nobody"], "nobody"),
    (["--steps", "100", "--out", "{tmp}/none/m.npz"], "does not exist"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--resume"], "does not exist"),
    (["--steps", "100", "--out", "{tmp}/m.npz", "--init", "{tmp}/missing.npz"], "no such model file"),
])
def test_bad_training_arguments_are_one_line_errors(argv, message, tmp_path, capsys) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        code, _, err = run_cli(capsys, "train", "--algo", "ppo", "--game", "kaiser", *argv)
    except SystemExit as exit_:  # argparse's own refusal (a required option missing)
        code, err = exit_.code, capsys.readouterr().err
    assert code != 0 and message in err
    assert len([line for line in err.splitlines() if line.startswith("cardlab")]) <= 1


def test_the_collector_speaks_the_movers_frame() -> None:
    """Literature's actions name seats: the collector hands the network legal masks, and takes
    its actions, with seats counted from the player to move (as its observation counts them)."""
    from cardlab.games import kernels
    from cardlab.learn.rollouts import Collector, Teacher
    game = game_spec("literature").load()
    collector = Collector(game, 8, seed=1)
    teacher = Teacher("rules", game, 8, seed=2)
    collector.reset(1)
    rng = np.random.default_rng(0)
    turned = 0
    for _ in range(200):
        _, masks, players = collector.observation()
        states = collector.states()
        expected = np.zeros_like(masks)
        actions = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
        for i, (s, player) in enumerate(zip(states, players, strict=True)):
            for action in actions[:kernels.legal_actions(kernels.LITERATURE, s, actions)]:
                expected[i, kernels.mover_action(kernels.LITERATURE, s, player, action)] = True
        assert np.array_equal(masks, expected)
        framed = collector.framed(teacher.actions(states))
        assert masks[np.arange(8), framed].all()
        chosen = np.argmax(rng.random(masks.shape) * masks, axis=1)
        after = states.copy()
        for i, (s, player) in enumerate(zip(after, players, strict=True)):
            absolute = kernels.absolute_action(kernels.LITERATURE, s, player, chosen[i])
            turned += absolute != chosen[i]
            kernels.apply_action(kernels.LITERATURE, s, absolute)
        ended, _ = collector.step(chosen)
        assert np.array_equal(collector.states()[~ended], after[~ended])
    assert turned > 100
