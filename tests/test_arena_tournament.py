"""Tournaments: the same rows on every backend, resume after an interruption, corrupt files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from cardlab.arena.entrants import labelled, parse_agent_list
from cardlab.arena.tournament import TournamentSettings, run_tournament
from cardlab.results import ResultsError, load_results, read_manifest

TIMING = ["seat_seconds"]  # the only columns allowed to differ between runs


def settings(agents: str = "rules,random,rules", deals: int = 60, chunk_size: int = 8) -> TournamentSettings:
    return TournamentSettings("cardlab_kaiser", {"dealer": 1}, tuple(labelled(parse_agent_list(agents))),
                              deals, 2024, chunk_size)


def rows(directory: Path) -> pa.Table:
    _, table = load_results(directory)
    return table.drop_columns(TIMING).sort_by([("deal", "ascending"), ("seating", "ascending")])


@pytest.fixture(scope="module")
def serial_run(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("serial")
    run_tournament(settings(), directory, backend="serial", progress=False)
    return directory


def test_serial_run_has_every_deal_and_seating_once(serial_run):
    table = rows(serial_run)
    assert table.num_rows == 60 * 6
    keys = set(zip(table.column("deal").to_pylist(), table.column("seating").to_pylist(), strict=True))
    assert keys == {(d, k) for d in range(60) for k in range(6)}
    manifest = read_manifest(serial_run)
    assert manifest["complete"] and len(manifest["chunks"]) == 8
    assert manifest["settings"]["seed"] == 2024 and manifest["versions"]["numba"]


def test_processes_give_the_same_rows_as_serial(serial_run, tmp_path):
    run_tournament(settings(), tmp_path, workers=2, progress=False)
    assert rows(tmp_path).equals(rows(serial_run))


@pytest.mark.integration  # a local Ray cluster
def test_local_ray_gives_the_same_rows_as_serial(serial_run, tmp_path):
    pytest.importorskip("ray", reason="ray is not installed (pip install 'cardlab[ray]')")
    run_tournament(settings(), tmp_path, backend="ray", workers=2, progress=False)
    assert rows(tmp_path).equals(rows(serial_run))


def test_chunk_size_does_not_change_the_games(serial_run, tmp_path):
    run_tournament(settings(chunk_size=25), tmp_path, backend="serial", progress=False)
    assert rows(tmp_path).equals(rows(serial_run))


def test_interrupted_run_resumes_without_losing_or_repeating_a_deal(serial_run, tmp_path):
    first = run_tournament(settings(), tmp_path, workers=2, progress=False, stop_after_chunks=3)
    assert first.interrupted and first.chunks_played == 3
    assert not read_manifest(tmp_path)["complete"]
    second = run_tournament(settings(), tmp_path, backend="serial", progress=False)
    assert not second.interrupted and second.chunks_played == 5
    assert rows(tmp_path).equals(rows(serial_run))
    assert len(read_manifest(tmp_path)["runs"]) == 2


@pytest.mark.integration  # a run killed in a subprocess, then resumed
def test_killed_process_resumes_every_deal_exactly_once(tmp_path):
    """SIGKILL a real ``cardlab tournament`` mid-run, then rerun the same command."""
    out = tmp_path / "killed"
    command = [
        sys.executable, "-m", "cardlab.cli", "tournament", "--game", "kaiser", "--quiet",
        "--agents", "py:cardlab.agents.random_agent:make_random,rules", "--deals", "1500",
        "--chunk-size", "10", "--seed", "5", "--workers", "1", "--out", str(out),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300  # a cold numba cache on a busy machine
    while time.monotonic() < deadline and process.poll() is None:
        manifest = out / "manifest.json"
        if manifest.exists() and len(json.loads(manifest.read_text() or "{}").get("chunks", {})) >= 2:
            break
        time.sleep(0.05)
    assert process.poll() is None, "the run ended before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    done_before = len(read_manifest(out)["chunks"])
    assert 2 <= done_before < 150

    finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    table = rows(out)
    keys = list(zip(table.column("deal").to_pylist(), table.column("seating").to_pylist(), strict=True))
    assert len(keys) == len(set(keys)) == 1500 * 2


def test_rerun_with_other_settings_is_refused(serial_run):
    with pytest.raises(ResultsError, match="other settings.*deals: 60 before, 61 now"):
        run_tournament(settings(deals=61), serial_run, backend="serial", progress=False)


def test_truncated_part_file_is_detected(serial_run, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in serial_run.glob("*.*"):
        (copy / path.name).write_bytes(path.read_bytes())
    part = copy / "part-000003.parquet"
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    with pytest.raises(ResultsError, match=r"part-000003.parquet is corrupt or truncated"):
        load_results(copy)
    with pytest.raises(ResultsError, match="corrupt or truncated"):
        run_tournament(settings(), copy, backend="serial", progress=False)


def test_deleted_part_file_is_played_again(serial_run, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in serial_run.glob("*.*"):
        (copy / path.name).write_bytes(path.read_bytes())
    (copy / "part-000002.parquet").unlink()
    summary = run_tournament(settings(), copy, backend="serial", progress=False)
    assert summary.chunks_played == 1
    assert rows(copy).equals(rows(serial_run))


def test_truncated_manifest_is_detected(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": "cardlab-tour')
    with pytest.raises(ResultsError, match="manifest.json is corrupt or truncated"):
        load_results(tmp_path)
