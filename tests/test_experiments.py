"""The strength experiments behind the README's table: their summaries, resuming, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MATCH = ["--game", "kaiser", "--opponent", "rules", "--deals", "2", "--simulations", "10",
         "--workers", "1", "--seed", "7"]


def strength(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "experiments.ismcts_strength", *MATCH, *extra,
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.integration  # a match killed in a subprocess, then resumed
def test_an_interrupted_match_resumes_from_its_saved_chunks(tmp_path):
    out = tmp_path / "match.json"
    first = strength(out)
    assert first.returncode == 0, first.stderr
    summary = json.loads(out.read_text())
    assert summary["deals"] == 2 and summary["ismcts_options"]["simulations"] == 10
    assert not Path(f"{out}.partial.json").exists()  # removed once the summary is written

    # As if the run had been killed after deal 0, with a score no deal can give:
    # the rerun must keep it and play deal 1 only.
    settings = {"game": "cardlab_kaiser", "parameters": {},
                "side_a": {"name": "ismcts", "options": {"simulations": 10, "rollout": "rules"}},
                "side_b": {"name": "rules", "options": {}}, "deals": 2, "seed": 7,
                "opponent": "rules"}
    Path(f"{out}.partial.json").write_text(json.dumps({
        "settings": settings, "kept": {"openspiel_simulations": 0}, "chunk_size": 1, "seconds": 5.0,
        "chunks": {"0": [1000.0]}}))
    resumed = strength(out)
    assert resumed.returncode == 0, resumed.stderr
    again = json.loads(out.read_text())
    assert again["scores"] == [1000.0, summary["scores"][1]]  # deal 0 kept, deal 1 replayed alike
    assert again["seconds"] >= 5.0  # the earlier run's time counts


def test_a_corrupt_or_foreign_partial_file_stops_with_one_line(tmp_path):
    out = tmp_path / "match.json"
    partial = Path(f"{out}.partial.json")
    partial.write_text('{"settings": {"game": "cardlab_kaiser"}, "chunks": {"0": [1')
    broken = strength(out)
    assert broken.returncode != 0
    assert broken.stderr.strip().splitlines()[-1].startswith("error:") and "corrupt" in broken.stderr
    partial.write_text(json.dumps({"settings": {"game": "other"}, "kept": {},
                                   "chunk_size": 1, "seconds": 0.0, "chunks": {}}))
    foreign = strength(out)
    assert foreign.returncode != 0 and "other settings" in foreign.stderr
    assert not out.exists()


def test_bad_arguments_are_rejected():
    result = subprocess.run([sys.executable, "-m", "experiments.ismcts_strength", "--deals", "0"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 2 and "--deals must be at least 1" in result.stderr


def test_strategy_fusion_records_every_pimc_card_decision_of_two_deals(tmp_path):
    import numpy as np

    from experiments.strategy_fusion import main

    out = tmp_path / "fusion.json"
    main(["--deals", "2", "--worlds", "2", "--resamples", "50", "--out", str(out)])
    summary = json.loads(out.read_text())
    assert summary["parameters"]["deals"] == 2 and "--deals 2" in summary["command"]
    for game in ("cardlab_kaiser", "cardlab_twenty_eight"):
        decisions = summary["games"][game]["decisions"]
        gaps, splits = np.array(decisions["gap"]), np.array(decisions["split"])
        assert len(gaps) > 0 and set(decisions["deal"]) == {0, 1}
        assert (gaps >= 0).all() and ((gaps > 0) == splits).all()  # a gap exactly when split
        assert (np.array(decisions["legal"]) >= 2).all()
        (overall,) = summary["games"][game]["tables"]["all"]
        assert overall["decisions"] == len(gaps)
        assert overall["gap_points"][1] <= overall["gap_points"][0] <= overall["gap_points"][2]
    assert {row["shown"] for row in summary["games"]["cardlab_twenty_eight"]["tables"]["shown"]} <= {
        False, True}


def test_pimc_against_ismcts_calibrates_fixed_budgets_and_plays_natively(tmp_path):
    out = tmp_path / "pimc.json"
    command = [sys.executable, "-m", "experiments.pimc_strength", "--game", "kaiser", "--opponent", "ismcts",
               "--deals", "2", "--worlds", "2", "--bid-worlds", "1", "--calibration-deals", "1",
               "--workers", "1", "--seed", "3", "--out", str(out), "--data-dir", str(tmp_path / "data")]
    first = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    summary = json.loads(out.read_text())
    assert summary["deals"] == 2 and len(summary["scores"]) == 2
    calibration = summary["calibration"]
    round_one, *_ = calibration["measured"]
    counts = [m["ismcts_simulations"] for m in calibration["measured"]]
    assert len(counts) == 3 and counts[0] == 200
    expected = 200 * round_one["pimc_cpu_ms_per_decision"] / round_one["ismcts_cpu_ms_per_decision"]
    assert abs(counts[1] - expected) <= 1 + 0.02 * expected  # rescaled by the measured (rounded) ratio
    assert summary["opponent_options"]["simulations"] == calibration["ismcts_simulations"] >= 1
    assert min(summary["match_ms_per_decision"].values()) > 0
    # played again with the kept calibration: the same games
    shutil.rmtree(tmp_path / "data" / f"{out.name}.tournament")
    again = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert json.loads(out.read_text())["scores"] == summary["scores"]


def test_the_calibration_steps_along_the_line_of_the_last_two_rounds():
    from experiments.pimc_strength import _next_count

    # ISMCTS costs 0.8 ms a decision plus 3 us a simulation; PIMC 1.1 ms: the count is 100
    measured = [{"ismcts_simulations": 200, "ismcts_cpu_ms_per_decision": 1.4}]
    assert _next_count(measured, 1.1, 1.4) == round(200 * 1.1 / 1.4)  # one round: rescaled
    measured.append({"ismcts_simulations": 157, "ismcts_cpu_ms_per_decision": 0.8 + 0.003 * 157})
    assert _next_count(measured, 1.1, 0.8 + 0.003 * 157) == 100
    measured.append({"ismcts_simulations": 157, "ismcts_cpu_ms_per_decision": 1.3})  # no slope: rescaled
    assert _next_count(measured, 1.1, 1.3) == round(157 * 1.1 / 1.3)


def test_pimc_strength_can_let_pimc_bid_by_the_rules(tmp_path):
    out = tmp_path / "pimc-28.json"
    command = [sys.executable, "-m", "experiments.pimc_strength", "--game", "twenty_eight", "--opponent",
               "rules", "--bidding", "rules", "--deals", "2", "--worlds", "2", "--workers", "1",
               "--out", str(out)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    summary = json.loads(out.read_text())
    assert summary["pimc_options"] == {"worlds": 2, "bid_worlds": 8, "bidding": "rules"}
    assert summary["deals"] == 2 and len(summary["scores"]) == 2
    assert "--bidding rules" in summary["command"]


def test_net_strength_measures_any_agent_against_any_opponent(tmp_path):
    from experiments.net_strength import main

    out = tmp_path / "match.json"
    assert main(["--games", "kaiser", "--deals", "3", "--agent", "net", "--opponent", "random",
                 "--data-dir", str(tmp_path / "data"), "--out", str(out)]) == 0
    match = json.loads(out.read_text())["matches"][0]
    assert (match["agent"], match["opponent"], match["deals"]) == ("net", "random", 3)
    low, high = match["ci95"]
    assert low <= match["agent_minus_opponent_points_per_deal"] <= high
    times = match["cpu_ms_per_decision"]
    assert match["cpu_time_ratio"] == pytest.approx(times["agent"] / times["opponent"], rel=0.02)
    assert match["model"]["file"] == "cardlab/agents/models/cardlab_kaiser.npz"


def test_a_learning_curve_replays_the_zoo_commands_with_its_own_measurements(tmp_path):
    from cardlab.agents.net import MODELS
    from cardlab.agents.network import load_model
    from cardlab.cli import build_parser
    from experiments.learning_curve import replay_argv

    _, ppo = load_model(MODELS / "cardlab_kaiser.npz").metadata["zoo"]["commands"]
    argv = replay_argv(ppo, tmp_path, ("rules", "ismcts:simulations=300"), 500, 1.5)
    args = build_parser().parse_args(argv)
    assert (args.algo, args.out, args.init) == ("ppo", str(tmp_path / "kaiser-ppo.npz"),
                                                str(tmp_path / "kaiser-bc.npz"))
    assert (args.eval_opponent, args.eval_deals, args.eval_minutes) == (
        ["rules", "ismcts:simulations=300"], 500, 1.5)
    original = build_parser().parse_args(ppo.split()[1:])
    # what the run is (its seed, settings, steps, opponents, checkpoints) is the zoo's own
    for name in ("game", "steps", "seed", "set", "opponents", "checkpoint_every"):
        assert getattr(args, name) == getattr(original, name)
