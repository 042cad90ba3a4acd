"""CFR policies: files, resume, the cfr agent and ``cardlab train``."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pyspiel
import pytest
from conftest import play_to_the_end

from cardlab import agents
from cardlab.cfr.policy import load_policy, policy_table, save_policy
from cardlab.cfr.pyspiel_tree import build_from_pyspiel
from cardlab.cfr.solvers import TabularSolver
from cardlab.cfr.train import train
from cardlab.cli import main


@pytest.fixture(scope="module")
def kuhn():
    return pyspiel.load_game("kuhn_poker")


@pytest.fixture(scope="module")
def kuhn_policy(kuhn, tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "kuhn.npz"
    train(kuhn, path, iterations=300, solver="cfr+", progress=False)
    return path


def test_save_then_load_gives_the_same_policy(kuhn, tmp_path):
    tree = build_from_pyspiel(kuhn)
    solver = TabularSolver(tree, "dcfr")
    solver.run(30)
    table = policy_table(tree, solver.average_policy(), kuhn, solver="dcfr", iterations=30)
    loaded = load_policy(save_policy(table, tmp_path / "p.npz"), kuhn)
    assert loaded.names == table.names
    for name in ("offsets", "actions", "probabilities"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(table, name))
    assert loaded.metadata["solver"] == "dcfr" and loaded.metadata["iterations"] == 30
    assert loaded.metadata["game"] == "kuhn_poker" and loaded.metadata["commit"]
    tabular = loaded.to_tabular_policy(kuhn)
    state = kuhn.new_initial_state().child(0).child(1)
    found = loaded.lookup(state, 0)
    assert tabular.action_probabilities(state) == dict(zip(found[0].tolist(), found[1].tolist(), strict=True))


def test_resume_continues_the_run_bit_for_bit(kuhn, tmp_path):
    whole, split = tmp_path / "whole.npz", tmp_path / "split.npz"
    train(kuhn, whole, iterations=40, solver="cfr", checkpoints=3, progress=False)
    train(kuhn, split, iterations=17, solver="cfr", checkpoints=2, progress=False)
    train(kuhn, split, iterations=40, solver="cfr", checkpoints=1, resume=True, progress=False)
    a, b = load_policy(whole), load_policy(split)
    assert a.metadata["iterations"] == b.metadata["iterations"] == 40
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    for name in ("regrets", "cumulative", "current_policy"):
        np.testing.assert_array_equal(a.solver_state[name], b.solver_state[name])
    with pytest.raises(ValueError, match="used solver 'cfr', not 'cfr\\+'"):
        train(kuhn, split, iterations=50, solver="cfr+", resume=True, progress=False)


def test_a_policy_of_another_game_or_parameters_is_refused(kuhn_policy):
    with pytest.raises(ValueError, match="trained on kuhn_poker.*not on leduc_poker"):
        load_policy(kuhn_policy, pyspiel.load_game("leduc_poker"))
    with pytest.raises(ValueError, match="with players=2, not with players=3"):
        load_policy(kuhn_policy, pyspiel.load_game("kuhn_poker", {"players": 3}))
    with pytest.raises(ValueError, match="trained on kuhn_poker"):
        agents.make("cfr", pyspiel.load_game("cardlab_kaiser"), 0, policy=str(kuhn_policy),
                    fallback="rules")


def test_a_corrupt_or_foreign_file_is_refused(kuhn_policy, tmp_path):
    data = kuhn_policy.read_bytes()
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a readable policy file"):
        load_policy(truncated)
    with pytest.raises(ValueError, match="no such policy file"):
        load_policy(tmp_path / "missing.npz")
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, x=np.zeros(3))
    with pytest.raises(ValueError, match="not a cardlab policy file"):
        load_policy(foreign)
    # A valid archive whose probabilities were altered: the checksum catches it.
    with np.load(kuhn_policy) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays["probabilities"] = arrays["probabilities"][::-1].copy()
    altered = tmp_path / "altered.npz"
    np.savez(altered, **arrays)
    with pytest.raises(ValueError, match="corrupt"):
        load_policy(altered)
    with zipfile.ZipFile(kuhn_policy) as archive:
        metadata = json.loads(str(np.load(archive.open("metadata.npy"))))
    assert metadata["format"] == "cardlab-cfr-policy"


def test_cfr_agent_plays_its_policy(kuhn, kuhn_policy):
    bots = [agents.make("cfr", kuhn, seat, seed=seat, policy=str(kuhn_policy)) for seat in range(2)]
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(300):
        total += play_to_the_end(kuhn.new_initial_state(), rng, bots).returns()[0]
    assert total / 300 == pytest.approx(-1 / 18, abs=0.15)
    table = load_policy(kuhn_policy)
    state = kuhn.new_initial_state().child(2).child(0)
    policy, _ = bots[0].step_with_policy(state)
    assert [p for _, p in policy] == pytest.approx(table.lookup(state, 0)[1].tolist())


def test_cfr_agent_options_are_checked(kuhn, kuhn_policy):
    with pytest.raises(ValueError, match="option policy is required"):
        agents.make("cfr", kuhn, 0)
    with pytest.raises(ValueError, match="option fallback must be one of"):
        agents.make("cfr", kuhn, 0, policy=str(kuhn_policy), fallback="guess")
    with pytest.raises(ValueError, match="fallback=rules needs a cardlab game"):
        agents.make("cfr", kuhn, 0, policy=str(kuhn_policy), fallback="rules")


def test_cli_train_writes_and_resumes(tmp_path, capsys):
    out = tmp_path / "kuhn.npz"
    base = ["train", "--game", "kuhn_poker", "--solver", "cfr+", "--out", str(out), "--quiet"]
    assert main(base + ["--iterations", "50"]) == 0
    assert main(base + ["--iterations", "80", "--resume"]) == 0
    assert "80 iterations" in capsys.readouterr().out
    assert load_policy(out).metadata["iterations"] == 80
    assert main(base + ["--iterations", "10", "--resume"]) == 2
    assert "more than the 10 asked for" in capsys.readouterr().err
    assert main(["train", "--game", "no_such_game", "--iterations", "5", "--out", str(out)]) == 2


# Slow: the sampling walks recurse, and numba compiles recursive functions in every process.
@pytest.mark.slow
def test_cli_trains_mccfr_on_kaiser_and_the_cfr_agent_plays_it(tmp_path, capsys):
    whole, split = tmp_path / "whole.npz", tmp_path / "split.npz"
    base = ["train", "--game", "kaiser", "--solver", "outcome", "--seed", "4", "--quiet"]
    assert main(base + ["--iterations", "300", "--out", str(whole)]) == 0
    assert main(base + ["--iterations", "120", "--out", str(split)]) == 0
    assert main(base + ["--iterations", "300", "--out", str(split), "--resume"]) == 0
    a, b = load_policy(whole), load_policy(split)
    assert a.names == b.names and a.metadata["naming"] == "key"
    np.testing.assert_array_equal(a.probabilities, b.probabilities)
    assert main(["train", "--game", "kuhn_poker", "--solver", "external", "--iterations", "3",
                 "--out", str(tmp_path / "k.npz")]) == 2
    assert "walks the cardlab engines" in capsys.readouterr().err
    kaiser = pyspiel.load_game("cardlab_kaiser")
    bots = [agents.make("cfr", kaiser, seat, seed=seat, policy=str(whole), fallback="rules")
            for seat in range(4)]
    returns = pyspiel.evaluate_bots(kaiser.new_initial_state(), bots, 7)
    assert sum(returns) == 0
