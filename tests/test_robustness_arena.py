"""No crash, no hang, no silent loss in the arena: bad input, damaged results, lost workers, two runs.

Every case ends in a correct result or in one line ``cardlab: error: ...`` with
exit code 2, and never loses a written chunk.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyspiel
import pytest
from conftest import assert_one_line_error, run_cli
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cardlab import agents
from cardlab.arena import native, tournament
from cardlab.arena.entrants import labelled, parse_agent_list
from cardlab.arena.pool import WorkerLostError, run_tasks
from cardlab.arena.tournament import TournamentSettings, run_tournament
from cardlab.cli import main
from cardlab.core.limits import MAX_DEALS, MAX_WORKERS
from cardlab.results import LOCK, MANIFEST, ResultsError, load_results, locked, part_name, read_manifest

ROOT = Path(__file__).resolve().parents[1]
TIMING = ["seat_seconds"]  # the only columns allowed to differ between runs
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def small_settings(agents_text: str = "rules,random", deals: int = 12, chunk_size: int = 4,
                   seed: int = 3) -> TournamentSettings:
    return TournamentSettings("cardlab_kaiser", {}, tuple(labelled(parse_agent_list(agents_text))), deals,
                              seed, chunk_size)


def rows(directory: Path) -> pa.Table:
    _, table = load_results(directory)
    return table.drop_columns(TIMING).sort_by([("deal", "ascending"), ("seating", "ascending")])


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A complete run of 12 deals in 3 chunks, never modified (tests damage copies)."""
    directory = tmp_path_factory.mktemp("finished") / "run"
    run_tournament(small_settings(), directory, backend="serial", progress=False)
    return directory


@pytest.fixture(scope="module")
def reference_summary(finished, tmp_path_factory) -> dict:
    copy = tmp_path_factory.mktemp("reference") / "run"
    shutil.copytree(finished, copy)
    assert main(["report", str(copy), "--no-plots", "--resamples", "20"]) == 0
    return json.loads((copy / "report" / "summary.json").read_text())


def copy_of(finished: Path, into: str) -> Path:
    target = Path(into) / "run"
    shutil.copytree(finished, target)
    return target


# ---- the command line --------------------------------------------------------------
TOURNAMENT = ["tournament", "--game", "kaiser", "--agents", "rules,random", "--deals", "4", "--quiet",
              "--backend", "serial"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--workers=0"], "workers must be a positive integer up to 256, got 0"),
        (["--workers=257"], "workers must be a positive integer up to 256, got 257"),
        ([f"--deals={10**9 + 1}"], "deals must be a positive integer up to 1,000,000,000"),
        (["--workers=-2"], "workers must be a positive integer"),
        (["--chunk-size=0"], "chunk_size must be a positive integer"),
        (["--deals=0"], "deals must be a positive integer"),
        (["--seed=-1"], "seed must be an integer from 0 to 2**64 - 1"),
        ([f"--seed={2**64}"], "seed must be an integer from 0 to 2**64 - 1"),
        (["--param", "dealer=99999999999"], "dealer=99999999999 is out of range"),
        (["--param", "dealer=x"], "dealer must be an integer, got 'x'"),
        (["--param", "dealer=true"], "dealer must be an integer, got True"),
        (["--param", "match=1"], "match must be true or false, got 1"),
        (["--param", "nosuch=1"], "has no parameter 'nosuch'"),
        (["--param", "=1"], "must look like key=value"),
        (["--workers", "two"], "invalid int value: 'two'"),
        (["--backend", "threads"], "unknown backend 'threads'"),
    ],
)
def test_bad_tournament_arguments_are_one_line_errors(capsys, tmp_path, extra, message):
    out = tmp_path / "r"
    code, _, err = run_cli(capsys, *TOURNAMENT, "--out", str(out), *extra)
    assert_one_line_error(code, err, message)
    assert not out.exists()


@pytest.mark.parametrize("where", ["file", "under-file", "unmakeable"])
def test_an_out_that_cannot_be_a_directory_is_a_one_line_error(capsys, tmp_path, where):
    (tmp_path / "file").write_text("precious")
    out = {"file": tmp_path / "file", "under-file": tmp_path / "file" / "sub",
           "unmakeable": Path("/proc/cardlab-cannot-make-this")}[where]
    code, _, err = run_cli(capsys, *TOURNAMENT, "--out", str(out))
    assert_one_line_error(code, err, str(out))
    assert (tmp_path / "file").read_text() == "precious"


def _expected_field_error(name: str, value: int) -> bool:
    low, high = {"--deals": (1, MAX_DEALS + 1), "--seed": (0, 2**64), "--chunk-size": (1, MAX_DEALS + 1),
                 "--workers": (1, MAX_WORKERS + 1)}[name]
    return not low <= value < high


@FUZZ
@given(name=st.sampled_from(["--deals", "--seed", "--chunk-size", "--workers"]),
       value=st.one_of(st.integers(-10, 10), st.integers(), st.sampled_from([2**63 - 1, 2**63, 2**64 - 1,
                                                                             2**64])))
def test_integer_arguments_are_checked_before_any_work(name, value):
    """Every integer either passes (the run then stops at the --out that is a file) or is named."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "a-file"
        out.write_text("")
        code, err = _main_stderr(*TOURNAMENT, "--out", str(out), f"{name}={value}")
    if _expected_field_error(name, value):
        assert_one_line_error(code, err, name.strip("-").replace("-", "_"))
    else:
        assert_one_line_error(code, err, "exists and is not a directory")


@FUZZ
@given(text=st.text(max_size=30))
def test_any_game_parameter_text_is_a_result_or_one_line_error(text):
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "a-file"
        out.write_text("")
        code, err = _main_stderr(*TOURNAMENT, "--out", str(out), f"--param={text}")
    assert_one_line_error(code, err)


def _main_stderr(*argv: str) -> tuple[int, str]:
    import contextlib
    import io

    stream = io.StringIO()
    with contextlib.redirect_stderr(stream), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    return code, stream.getvalue()


def _toml(value) -> str:
    """A TOML value (inline tables and arrays), for the values the strategies below make."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"


TOML_VALUES = st.recursive(
    st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
                                                                inner, max_size=3),
    max_leaves=5,
)
CONFIG_KEYS = ["game", "params", "agents", "deals", "seed", "workers", "out", "backend", "address",
               "chunk_size"]


@FUZZ
@given(key=st.sampled_from(CONFIG_KEYS), value=TOML_VALUES)
def test_any_config_value_is_checked_in_one_line(key, value):
    """A config whose one value is random: always one line (the run stops at the --out file)."""
    assume(not (key == "out" and isinstance(value, str) and value))  # another folder: a real run
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "a-file"
        out.write_text("")
        config = {"game": "kaiser", "agents": ["rules", "random"], "deals": 4, "backend": "serial",
                  "out": str(out), key: value}
        path = Path(folder) / "c.toml"
        path.write_text("\n".join(f"{k} = {_toml(v)}" for k, v in config.items()) + "\n")
        code, err = _main_stderr("tournament", "--config", str(path), "--quiet")
        assert_one_line_error(code, err)
        assert out.read_text() == ""


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('workers = "two"', "workers must be an integer, got 'two'"),
        ("workers = true", "workers must be an integer, got True"),
        ("workers = 0", "workers must be a positive integer"),
        ("chunk_size = 0", "chunk_size must be a positive integer"),
        ("deals = false", "deals must be an integer, got False"),
        ("params = 5", "params must be a table, got 5"),
        ("out = 7", "out must be a string, got 7"),
        ("seed = 1.5", "seed must be an integer"),
        ('agents = [{name = "rules", options = 5}, "random"]', "needs options as a table"),
        ('agents = [{name = "rules", label = 3}, "random"]', "a label as a string"),
        ('agents = "rules,random"', "agents must be a list"),
    ],
)
def test_config_values_of_the_wrong_type_are_one_line_errors(capsys, tmp_path, line, message):
    base = {"game": '"kaiser"', "agents": '["rules", "random"]', "deals": "4",
            "out": json.dumps(str(tmp_path / "r"))}
    key = line.split(" = ")[0]
    text = "\n".join(f"{k} = {v}" for k, v in base.items() if k != key) + "\n" + line + "\n"
    (tmp_path / "c.toml").write_text(text)
    code, _, err = run_cli(capsys, "tournament", "--config", str(tmp_path / "c.toml"), "--quiet")
    assert_one_line_error(code, err, message)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("extra", "message"), [(["--resamples", "0"], "--resamples must be a positive"),
                                                (["--resamples=-3"], "--resamples must be a positive"),
                                                (["--seed=-1"], "--seed must be an integer from 0")])
def test_bad_report_arguments_are_one_line_errors(capsys, finished, extra, message):
    code, _, err = run_cli(capsys, "report", str(finished), "--no-plots", *extra)
    assert_one_line_error(code, err, message)
    assert not (finished / "report").exists()


# ---- damaged results folders ---------------------------------------------------------
def _edit(manifest: dict, path: tuple, value) -> None:
    """Set (or, for the value ``DELETE``, remove) the item at ``path`` of the manifest."""
    *parents, last = path
    target = manifest
    for key in parents:
        target = target[key]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value


DELETE = object()


def _paths(data, prefix=()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


def _check_report_and_resume(directory: Path, reference: dict, expected_rows: pa.Table) -> None:
    """``report`` and a resume each end in the reference result or in one line, losing nothing."""
    code, err = _main_stderr("report", str(directory), "--no-plots", "--resamples", "20")
    if code == 0:
        assert json.loads((directory / "report" / "summary.json").read_text()) == reference
    else:
        assert_one_line_error(code, err)
    try:
        run_tournament(small_settings(), directory, backend="serial", progress=False)
    except ResultsError as error:
        assert "\n" not in str(error)
    else:
        assert rows(directory).equals(expected_rows)


@pytest.fixture(scope="module")
def manifest_paths(finished) -> list[tuple]:
    return _paths(json.loads((finished / MANIFEST).read_text()))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=4,
)


@FUZZ
@given(data=st.data())
def test_a_hand_edited_manifest_gives_the_right_result_or_one_line(finished, reference_summary,
                                                                   manifest_paths, data):
    path = data.draw(st.sampled_from(manifest_paths), label="path")
    value = data.draw(st.just(DELETE) | JSON_VALUES
                      | st.sampled_from([0, 1, -1, 99, True, "1", "part-000001.parquet",
                                         "../part-000000.parquet", [0, 4], [4, 8]]), label="value")
    expected = rows(finished)
    with tempfile.TemporaryDirectory() as folder:
        directory = copy_of(finished, folder)
        manifest = json.loads((directory / MANIFEST).read_text())
        _edit(manifest, path, value)
        (directory / MANIFEST).write_text(json.dumps(manifest))
        _check_report_and_resume(directory, reference_summary, expected)


DAMAGES = ["truncate", "flip", "folder", "delete", "other-chunk", "symlink", "empty"]


@FUZZ
@given(chunk=st.integers(0, 2), damage=st.sampled_from(DAMAGES), where=st.floats(0, 1))
def test_a_damaged_part_gives_the_right_result_or_one_line(finished, reference_summary, chunk, damage,
                                                           where):
    expected = rows(finished)
    with tempfile.TemporaryDirectory() as folder:
        directory = copy_of(finished, folder)
        part = directory / part_name(chunk)
        other = directory / part_name((chunk + 1) % 3)
        data = part.read_bytes()
        at = min(int(where * len(data)), len(data) - 1)
        part.unlink()
        if damage == "truncate":
            part.write_bytes(data[:at])
        elif damage == "flip":
            part.write_bytes(data[:at] + bytes([data[at] ^ 0x5A]) + data[at + 1:])
        elif damage == "folder":
            part.mkdir()
        elif damage == "other-chunk":
            part.write_bytes(other.read_bytes())
        elif damage == "symlink":
            part.symlink_to(other)
        elif damage == "empty":
            part.write_bytes(b"")
        code, err = _main_stderr("report", str(directory), "--no-plots", "--resamples", "20")
        assert_one_line_error(code, err, part.name)
        _check_report_and_resume(directory, reference_summary, expected)
        if damage == "delete":  # played again
            assert rows(directory).equals(expected)


def _point_chunk_at(directory: Path, chunk: int, source: int, copy_bytes: bool) -> None:
    """Make chunk ``chunk``'s entry describe ``source``'s part (as a careless hand edit would)."""
    manifest = json.loads((directory / MANIFEST).read_text())
    entry = manifest["chunks"][str(source)]
    if copy_bytes:  # a part with a matching checksum, but the wrong deals
        shutil.copy(directory / part_name(source), directory / part_name(chunk))
        manifest["chunks"][str(chunk)]["sha256"] = entry["sha256"]
    else:
        manifest["chunks"][str(chunk)]["file"] = entry["file"]
    (directory / MANIFEST).write_text(json.dumps(manifest))


@pytest.mark.parametrize("copy_bytes", [False, True])
def test_a_chunk_entry_naming_another_chunks_part_is_refused(capsys, finished, tmp_path, copy_bytes):
    directory = copy_of(finished, tmp_path)
    _point_chunk_at(directory, 1, 2, copy_bytes)
    code, _, err = run_cli(capsys, "report", str(directory), "--no-plots")
    assert_one_line_error(code, err, "part-000001.parquet" if copy_bytes else "chunk 1 must have file")
    with pytest.raises(ResultsError):
        run_tournament(small_settings(), directory, backend="serial", progress=False)


def test_a_chunk_entry_outside_the_folder_is_refused(capsys, finished, tmp_path):
    directory = copy_of(finished, tmp_path)
    manifest = json.loads((directory / MANIFEST).read_text())
    manifest["chunks"]["0"]["file"] = "../../elsewhere.parquet"
    (directory / MANIFEST).write_text(json.dumps(manifest))
    code, _, err = run_cli(capsys, "report", str(directory), "--no-plots")
    assert_one_line_error(code, err, "chunk 0 must have file \"part-000000.parquet\"")


def test_edited_deals_count_is_refused(capsys, finished, tmp_path):
    directory = copy_of(finished, tmp_path)
    manifest = json.loads((directory / MANIFEST).read_text())
    manifest["settings"]["deals"] = 8  # 12 deals were played: chunk 2 cannot exist
    (directory / MANIFEST).write_text(json.dumps(manifest))
    code, _, err = run_cli(capsys, "report", str(directory), "--no-plots")
    assert_one_line_error(code, err, "chunk '2' is not one of the 2 chunks of 8 deals")


def test_a_nan_return_is_an_error_not_a_dropped_deal(capsys, finished, tmp_path):
    import pyarrow.parquet as pq

    from cardlab.results import sha256

    directory = copy_of(finished, tmp_path)
    part = directory / part_name(1)
    table = pq.read_table(part)
    returns = table.column("returns").combine_chunks()
    values = returns.flatten().to_numpy().copy()
    values[0] = np.nan
    table = table.set_column(table.schema.get_field_index("returns"), "returns",
                             pa.FixedSizeListArray.from_arrays(pa.array(values), returns.type.list_size))
    pq.write_table(table, part)
    manifest = json.loads((directory / MANIFEST).read_text())
    manifest["chunks"]["1"]["sha256"] = sha256(part)
    (directory / MANIFEST).write_text(json.dumps(manifest))
    code, _, err = run_cli(capsys, "report", str(directory), "--no-plots")
    assert_one_line_error(code, err, "deal 4 seating 0 has a return that is not a finite number")


def test_report_of_an_incomplete_run_warns(capsys, tmp_path):
    run_tournament(small_settings(), tmp_path / "r", backend="serial", progress=False, stop_after_chunks=2)
    code, out, _ = run_cli(capsys, "report", str(tmp_path / "r"), "--no-plots", "--resamples", "20")
    assert code == 0
    assert out.startswith("WARNING: incomplete run: only 8 of 12 deals are written; rerun")
    summary = json.loads((tmp_path / "r" / "report" / "summary.json").read_text())
    assert (summary["deals"], summary["planned_deals"]) == (8, 12)


# ---- two runs on one folder ---------------------------------------------------------
def test_a_second_run_is_refused_while_the_first_holds_the_folder(capsys, tmp_path):
    out = tmp_path / "busy"
    command = [sys.executable, "-m", "cardlab.cli", "tournament", "--game", "kaiser", "--quiet",
               "--agents", "py:cardlab.agents.random_agent:make_random,rules", "--deals", "1000000",
               "--chunk-size", "200", "--seed", "5", "--backend", "serial", "--out", str(out)]
    first = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not (out / MANIFEST).exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert first.poll() is None, first.stderr.read().decode()
        for seed in ("5", "6"):  # the same run, or another one: both refused, nothing touched
            code, _, err = run_cli(capsys, *command[3:-5], seed, "--backend", "serial", "--out", str(out))
            assert_one_line_error(code, err, f"{out} is in use by another tournament (process {first.pid})")
            assert read_manifest(out)["settings"]["seed"] == 5 and len(read_manifest(out)["runs"]) == 1
    finally:
        first.kill()
        first.wait()
    with locked(out / LOCK):  # a killed run does not leave the lock behind
        pass
    settings = TournamentSettings("cardlab_kaiser", {}, tuple(labelled(parse_agent_list(
        "py:cardlab.agents.random_agent:make_random,rules"))), 1_000_000, 5, 200)
    summary = run_tournament(settings, out, backend="serial", progress=False, stop_after_chunks=1)
    assert summary.interrupted and summary.chunks_played == 1  # resumed, after the killed run's chunks


# ---- lost workers --------------------------------------------------------------------
def _dies_once(task: tuple[str, int]) -> int:
    """A task whose first worker dies: it leaves a mark, then kills itself; the retry finds the mark."""
    mark, value = task
    if value == 1 and not os.path.exists(mark):
        Path(mark).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return value * 10


def _always_dies(task: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return task


def _dies_once_then_raises(task: tuple[str, int]) -> int:
    if task[1] == 2:
        raise KeyError("task 2")
    return _dies_once(task)


def test_a_lost_worker_is_replaced_and_its_task_run_again(tmp_path):
    """One worker: task 1 kills it, a fresh one plays task 1 again, then task 2's error arrives."""
    mark = str(tmp_path / "mark")
    tasks = {value: (mark, value) for value in range(3)}
    results = run_tasks(_dies_once_then_raises, tasks, workers=1)
    assert [next(results), next(results)] == [(0, 0), (1, 10)]
    assert os.path.exists(mark)
    with pytest.raises(KeyError, match="task 2") as raised:
        next(results)
    assert "raised in a worker process" in raised.value.__notes__[0]


def test_a_task_that_keeps_losing_workers_stops_in_one_line():
    with pytest.raises(WorkerLostError, match=r"^a worker process died \(killed by SIGKILL\) while running "
                                              r"task 7, once$"):
        list(run_tasks(_always_dies, {7: 7}, workers=1, retries=0))


def dying_random(game: pyspiel.Game, player: int, seed: int) -> pyspiel.Bot:
    """The random bot, except that a worker asked for the poisoned seat's bot dies on the spot."""
    if multiprocessing.parent_process() is not None and seed == int(os.environ.get("POISON_SEED", "-1")):
        os.kill(os.getpid(), signal.SIGKILL)
    return agents.make("random", game, player, seed)


def test_a_chunk_that_always_kills_its_worker_stops_the_run_keeping_the_others(tmp_path, monkeypatch):
    settings = small_settings(f"py:{__name__}:dying_random,rules", deals=12, chunk_size=4)
    deal_seed = native.deal_seeds(settings.seed, 9, 10)[0]  # deal 9: chunk 2
    monkeypatch.setenv("POISON_SEED", str(int(native.agent_seed(deal_seed, 0, 0, 4))))
    monkeypatch.setattr(tournament, "RETRIES", 0)  # one spawn less per retry; the bound is tested above
    with pytest.raises(WorkerLostError, match=r"while running chunk 2, once; the 8 deals written .* "
                                              r"are kept: rerun the same command to resume$"):
        run_tournament(settings, tmp_path, backend="processes", workers=1, progress=False)
    assert sorted(read_manifest(tmp_path)["chunks"]) == ["0", "1"]


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every child process of ``pid``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append((int(entry.name), command))
    return found


@pytest.mark.integration  # a real command in a subprocess, killed mid-run: make check
def test_a_killed_worker_is_replaced_and_the_rows_are_those_of_an_uninterrupted_run(tmp_path):
    """SIGKILL one of two pool workers of a real ``cardlab tournament``: the run still finishes."""
    out = tmp_path / "killed"
    agents_text = "py:cardlab.agents.random_agent:make_random,rules"
    command = [sys.executable, "-m", "cardlab.cli", "tournament", "--game", "kaiser", "--quiet", "--agents",
               agents_text, "--deals", "1500", "--chunk-size", "100", "--seed", "11", "--workers", "2",
               "--out", str(out)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    victim = None
    deadline = time.monotonic() + 120
    while victim is None and process.poll() is None and time.monotonic() < deadline:
        manifest = out / MANIFEST
        if manifest.exists() and json.loads(manifest.read_text() or "{}").get("chunks"):
            workers = [pid for pid, line in _children(process.pid) if "spawn_main" in line]
            if workers:
                victim = workers[0]
                os.kill(victim, signal.SIGKILL)
        time.sleep(0.02)
    assert victim is not None, "the run ended before a worker could be killed"
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err.decode()
    assert read_manifest(out)["complete"]

    reference = tmp_path / "reference"
    settings = TournamentSettings("cardlab_kaiser", {}, tuple(labelled(parse_agent_list(agents_text))), 1500,
                                  11, 100)
    run_tournament(settings, reference, backend="serial", progress=False)
    assert rows(out).equals(rows(reference))
    assert main(command[3:]) == 0  # a rerun finds the run complete
    assert rows(out).equals(rows(reference))


@pytest.mark.slow
def test_a_killed_ray_worker_is_retried(tmp_path):
    """Ray replays the task of a lost worker (max_retries); the rows are those of a serial run."""
    pytest.importorskip("ray")
    agents_text = "py:cardlab.agents.random_agent:make_random,rules"
    settings = TournamentSettings("cardlab_kaiser", {}, tuple(labelled(parse_agent_list(agents_text))), 4000,
                                  11, 400)
    killer = subprocess.Popen([sys.executable, "-c", _KILL_A_RAY_WORKER, str(os.getpid())])
    try:
        run_tournament(settings, tmp_path / "ray", backend="ray", workers=2, progress=False)
    finally:
        killer.wait(timeout=300)
    assert killer.returncode == 0, "no Ray worker was killed"
    run_tournament(settings, tmp_path / "serial", backend="serial", progress=False)
    assert rows(tmp_path / "ray").equals(rows(tmp_path / "serial"))


_KILL_A_RAY_WORKER = """
import os, signal, sys, time
from pathlib import Path

def parent(pid):
    return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])

def ours(pid):  # a descendant of the test process (its Ray), never another session's
    while pid > 1:
        pid = parent(pid)
        if pid == int(sys.argv[1]):
            return True
    return False

deadline = time.monotonic() + 240
while time.monotonic() < deadline:
    for entry in Path("/proc").iterdir():
        try:
            if (entry.name.isdigit() and (entry / "cmdline").read_bytes().startswith(b"ray::_work")
                    and ours(int(entry.name))):
                os.kill(int(entry.name), signal.SIGKILL)
                sys.exit(0)
        except (OSError, ValueError, IndexError):
            pass
    time.sleep(0.05)
sys.exit(1)
"""


# ---- bots asked the wrong question ----------------------------------------------------
GAMES = ["cardlab_kaiser", "cardlab_twenty_eight", "cardlab_literature"]


def _first_decision(game: pyspiel.Game) -> pyspiel.State:
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.integers(len(outcomes))][0])
    return state


def _terminal(game: pyspiel.Game) -> pyspiel.State:
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(actions[rng.integers(len(actions))])
    return state


@pytest.mark.parametrize("name", ["random", "rules"])
@pytest.mark.parametrize("game_name", GAMES)
def test_a_bot_refuses_to_move_off_its_turn(name, game_name):
    game = pyspiel.load_game(game_name)
    decision = _first_decision(game)
    mover = decision.current_player()
    bot = agents.make(name, game, (mover + 1) % game.num_players(), 0)
    for state, where in ((game.new_initial_state(), "a chance node"),
                         (_terminal(game), "the end of the game"), (decision, f"player {mover}'s turn")):
        with pytest.raises(ValueError, match=f"{name} bot for player .* asked to move at {where}"):
            bot.step(state)
    assert agents.make(name, game, mover, 0).step(decision) in decision.legal_actions()


@pytest.mark.parametrize("name", ["random", "rules"])
@pytest.mark.parametrize(("made_for", "asked_on"), [("cardlab_kaiser", "cardlab_twenty_eight"),
                                                    ("cardlab_twenty_eight", "cardlab_literature"),
                                                    ("cardlab_literature", "cardlab_kaiser")])
def test_a_bot_refuses_another_games_state(name, made_for, asked_on):
    state = _first_decision(pyspiel.load_game(asked_on))
    bot = agents.make(name, pyspiel.load_game(made_for), state.current_player(), 0)
    with pytest.raises(ValueError, match=f"made for {made_for}.* cannot act on a state of {asked_on}"):
        bot.step(state)


def test_a_bot_refuses_the_same_game_with_other_parameters():
    state = _first_decision(pyspiel.load_game("cardlab_literature", {"players": 8}))
    bot = agents.make("rules", pyspiel.load_game("cardlab_literature"), state.current_player(), 0)
    with pytest.raises(ValueError, match=r"made for cardlab_literature\(.*players=6.*state of .*players=8"):
        bot.step(state)


def test_the_same_game_loaded_twice_is_the_bots_game():
    state = _first_decision(pyspiel.load_game("cardlab_kaiser", {"dealer": 2}))
    bot = agents.make("random", pyspiel.load_game("cardlab_kaiser", {"dealer": 2}), state.current_player(), 0)
    assert bot.step(state) in state.legal_actions()
