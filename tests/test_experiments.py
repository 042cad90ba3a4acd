"""The strength experiment behind the README's table: its summary, resuming, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MATCH = ["--game", "kaiser", "--opponent", "rules", "--deals", "2", "--simulations", "10",
         "--workers", "1", "--seed", "7"]


def strength(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "experiments.ismcts_strength", *MATCH, *extra,
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True)


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
