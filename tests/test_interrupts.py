"""Ctrl-C, SIGTERM and kills, sent for real to the commands in subprocesses.

Each long command stops cleanly on Ctrl-C (SIGINT) or SIGTERM: exit code 130, one line on
stderr and no traceback, what it finished kept, and the way to go on said. Workers of a
tournament stay quiet when their driver dies, and a training checkpoint killed while being
written is never lost. The time bounds here are liveness checks (a command that ignored the
signal would run for minutes), not speed claims.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
import pytest

pytestmark = pytest.mark.integration
pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
#: A stopped command must be gone this long after the signal (its kernels return within a second).
STOP_SECONDS = 15
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "4000"}


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "cardlab.cli", *args]


def start(*args: str, cwd: Path = ROOT) -> subprocess.Popen:
    return subprocess.Popen(command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, env=ENV, start_new_session=True)


def warm(*args: str) -> None:
    """Run a short version of a command once, so the kernels are compiled before the timed run."""
    subprocess.run(command(*args), capture_output=True, cwd=ROOT, env=ENV, timeout=1800)


def stop(child: subprocess.Popen, after: float, how: int = signal.SIGINT,
         group: bool = False) -> tuple[int, str, str, float]:
    """Send ``how`` after ``after`` seconds (to the process group: as Ctrl-C in a terminal); the exit
    code, stdout, stderr and the seconds from the signal to the exit."""
    time.sleep(after)
    sent = time.perf_counter()
    os.killpg(child.pid, how) if group else child.send_signal(how)
    out, err = child.communicate(timeout=600)
    return child.returncode, out, err, time.perf_counter() - sent


def assert_clean_stop(code: int, err: str, seconds: float, *fragments: str) -> None:
    assert code == 130, err
    assert "Traceback" not in err and "Error" not in err.replace("error:", ""), err
    assert seconds < STOP_SECONDS, f"took {seconds:.1f} s to stop"
    for fragment in fragments:
        assert fragment in err, err


# ---- advise -------------------------------------------------------------------------------------------
ADVICE = ["advise", "kaiser", "--hand", "AS KS QH 5H JH 9H 8D 7C", "--seat", "1", "--bids", "pass 7"]


@pytest.mark.parametrize("solver, how", [("play", signal.SIGINT), ("play", signal.SIGTERM),
                                         ("dd", signal.SIGINT)])
def test_advise_stops_on_a_signal_without_a_crash(solver, how):
    warm(*ADVICE, "--worlds", "2", "--solver", solver)
    child = start(*ADVICE, "--worlds", "100000", "--solver", solver)
    code, out, err, seconds = stop(child, 4.0, how, group=how == signal.SIGINT)
    assert_clean_stop(code, err, seconds)
    assert err.strip() == "cardlab: interrupted"


# ---- play: hint and the game left by Ctrl-C -------------------------------------------------------
def spawn(*args: str, cwd: Path = ROOT) -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-m", "cardlab.cli", *args], env=ENV, encoding="utf-8",
                         timeout=900, cwd=str(cwd), dimensions=(50, 4000))


def test_ctrl_c_stops_a_hint_and_then_keeps_the_game_to_go_on_with(tmp_path):
    out = tmp_path / "plays"
    child = spawn("play", "kaiser", "--seat", "0", "--seed", "3", "--hint-simulations", "1000000",
                  "--out", str(out))
    child.expect(r"P0> ")
    child.sendline("hint")
    time.sleep(3)
    sent = time.perf_counter()
    child.sendintr()
    child.expect("hint stopped; your move")
    assert time.perf_counter() - sent < STOP_SECONDS
    child.expect(r"P0> ")
    child.sendline("moves")
    child.expect(r"P0> ")
    first = child.before.split("moves", 1)[1].split(",")[0].strip()
    child.sendline(first)  # the game goes on after the stopped hint
    child.expect(r"P0> ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    match = re.search(r"the game so far is in (\S+); to go on: cardlab play --resume (\S+) --out (\S+)",
                      " ".join(child.before.split()))
    assert match, child.before
    saved = Path(match.group(1))
    assert saved.is_file() and saved.parent == out and "Traceback" not in child.before

    from cardlab.play.position import load_position

    position = load_position(saved)
    assert position.table == {"seed": 3, "partner": "rules", "opponents": "rules",
                              "hint_simulations": 1000000}
    moved = position.state.history()
    resumed = spawn("play", "--resume", str(saved), "--out", str(out))
    while True:
        index = resumed.expect([r"P0> ", r"saved as game (\d+) in"])
        if index == 1:
            break
        resumed.sendline("moves")
        resumed.expect(r"P0> ")
        resumed.sendline(resumed.before.split("moves", 1)[1].split(",")[0].strip())
    deal = int(resumed.match.group(1))
    resumed.expect(pexpect.EOF)

    from cardlab.play.record import load_deal

    stored = load_deal(out, deal)
    assert stored.actions[:len(moved)] == moved and stored.deal_seed == 3


# ---- replay, report, train ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("results") / "run"
    subprocess.run(command("tournament", "--game", "kaiser", "--agents", "rules,random", "--deals", "2000",
                           "--workers", "1", "--quiet", "--out", str(folder)),
                   check=True, cwd=ROOT, env=ENV, timeout=1800)
    return folder


def test_ctrl_c_in_replay_ends_it_in_one_line(results):
    child = spawn("replay", str(results), "--deal", "1")
    child.expect("replay> ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "cardlab: interrupted" in child.before
    assert "Traceback" not in child.before


def test_sigterm_in_report_ends_it_in_one_line(results):
    child = start("report", str(results), "--resamples", "100000", "--no-plots")
    code, _, err, seconds = stop(child, 5.0, signal.SIGTERM)
    assert_clean_stop(code, err, seconds)
    assert err.strip() == "cardlab: interrupted"


def load_arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files if name != "metadata"}


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_train_stops_saving_its_iteration_and_resumes_bit_for_bit(tmp_path, how):
    from cardlab.cfr.policy import load_policy

    train = ["train", "--game", "leduc_poker", "--solver", "cfr+", "--checkpoints", "2", "--quiet"]
    warm(*train, "--iterations", "2", "--out", str(tmp_path / "warm.npz"))
    out = tmp_path / "run.npz"
    child = start(*train, "--iterations", "200000", "--out", str(out))
    code, _, err, seconds = stop(child, 8.0, how)
    assert_clean_stop(code, err, seconds, "cardlab: interrupted at iteration", f"saved in {out}",
                      "--resume")
    reached = load_policy(out).metadata["iterations"]
    assert 0 < reached < 200000
    # Going on from there to a fixed end gives the arrays of a run that never stopped.
    end = reached + 7
    resumed = subprocess.run(command(*train, "--iterations", str(end), "--out", str(out), "--resume"),
                             capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=1800)
    assert resumed.returncode == 0, resumed.stderr
    whole = tmp_path / "whole.npz"
    straight = subprocess.run(command(*train, "--iterations", str(end), "--out", str(whole)),
                              capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=1800)
    assert straight.returncode == 0, straight.stderr
    a, b = load_arrays(out), load_arrays(whole)
    for name in ("probabilities", "regrets", "cumulative", "current_policy"):
        np.testing.assert_array_equal(a[name], b[name])


def test_a_checkpoint_killed_while_written_is_never_lost(tmp_path):
    """SIGKILL at many moments of a run that checkpoints often: the file (or the one before it)
    always loads, and --resume goes on from it."""
    from cardlab.cfr.train import load_checkpoint

    train = ["train", "--game", "leduc_poker", "--solver", "cfr", "--quiet"]
    warm(*train, "--iterations", "2", "--out", str(tmp_path / "warm.npz"))
    out = tmp_path / "run.npz"
    game = pyspiel.load_game("leduc_poker")
    rng = np.random.default_rng(7)
    iterations = 0
    for attempt in range(8):
        child = start(*train, "--iterations", "100000", "--checkpoints", "100000", "--out", str(out),
                      *(["--resume"] if out.exists() else []))
        time.sleep(4 + rng.uniform(0, 2))
        child.kill()
        child.communicate(timeout=120)
        if out.exists():
            table = load_checkpoint(out, game)
            assert table.metadata["iterations"] >= iterations, attempt
            iterations = table.metadata["iterations"]
    assert iterations > 0


# ---- tournaments: the driver stopped or killed ----------------------------------------------------
TOURNAMENT = ["tournament", "--game", "kaiser", "--agents", "ismcts:simulations=300,rules", "--deals", "400",
              "--chunk-size", "4", "--workers", "2", "--quiet"]


@pytest.fixture(scope="module")
def warm_tournament(tmp_path_factory):
    warm(*TOURNAMENT[:-5], "--deals", "2", "--workers", "1", "--quiet", "--backend", "serial", "--out",
         str(tmp_path_factory.mktemp("warm") / "t"))


def alive(pid: int) -> bool:
    """A process still running (an orphan that ended may stay a zombie until init reaps it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_tournament_keeps_its_chunks_and_its_workers_are_quiet(tmp_path, warm_tournament, how):
    out = tmp_path / "t"
    child = start(*TOURNAMENT, "--out", str(out))
    time.sleep(15)
    workers = children_of(child.pid)
    code, _, err, seconds = stop(child, 0, how, group=how == signal.SIGINT)
    assert_clean_stop(code, err, seconds, "deals written to", "rerun the same command to resume")
    time.sleep(1)
    assert workers and not [pid for pid in workers if alive(pid)]

    from cardlab.results import read_manifest

    manifest = read_manifest(out)  # whole, with the chunks finished before the signal
    assert manifest["chunks"] and not manifest["complete"]


def test_workers_of_a_killed_driver_end_at_once_and_print_nothing(tmp_path, warm_tournament):
    out = tmp_path / "t"
    child = start(*TOURNAMENT, "--out", str(out))
    time.sleep(15)
    workers = children_of(child.pid)
    assert workers
    child.kill()  # SIGKILL: the driver cannot clean up; the workers must notice by themselves
    # The workers share the driver's stderr: it reaches its end only once every one of them is gone.
    _, err = child.communicate(timeout=60)
    assert err == "", err
    time.sleep(1)
    assert not [pid for pid in workers if alive(pid)]


def test_a_serial_tournament_stops_within_its_chunk(tmp_path, warm_tournament):
    out = tmp_path / "t"
    child = start(*TOURNAMENT[:-5], "--deals", "400", "--chunk-size", "400", "--backend", "serial",
                  "--quiet", "--out", str(out))
    code, _, err, seconds = stop(child, 12.0, signal.SIGINT)
    assert_clean_stop(code, err, seconds, "rerun the same command to resume")


# ---- warmup ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_warmup_ends_its_compiling_workers_at_once(tmp_path, how):
    """numba cannot stop in the middle of compiling a kernel: the workers are ended, not awaited."""
    child = subprocess.Popen(command("warmup", "--game", "kaiser", "--game", "28", "--workers", "2"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                             env={**ENV, "CARDLAB_NUMBA_CACHE": str(tmp_path)}, start_new_session=True)
    time.sleep(8)
    workers = children_of(child.pid)
    assert workers
    code, _, err, seconds = stop(child, 0.0, how)
    assert_clean_stop(code, err, seconds, "interrupted")
    time.sleep(1)
    assert not [pid for pid in workers if alive(pid)]


# ---- the server --------------------------------------------------------------------------------------
def test_serve_stops_on_sigterm(tmp_path):
    child = start("serve", "--port", "0", "--out", str(tmp_path / "plays"), cwd=tmp_path)
    assert child.stdout.readline().startswith("cardlab serve: http://127.0.0.1:")
    sent = time.perf_counter()
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0 and "stopped" in out and err == ""
    assert time.perf_counter() - sent < STOP_SECONDS


@pytest.mark.parametrize("reader", ["head -1", "true"])
def test_a_broken_pipe_ends_quietly(reader):
    warm("solve", "--game", "kaiser", "--deal-seed", "7")
    pipeline = subprocess.run(f"set -o pipefail; {sys.executable} -m cardlab.cli solve --game kaiser "
                              f"--deal-seed 7 | {reader}", shell=True, capture_output=True, text=True,
                              cwd=ROOT, env=ENV, timeout=600, executable="/bin/bash")
    assert pipeline.returncode == 0 and pipeline.stderr == "", pipeline.stderr
    assert pipeline.stdout.startswith("seat 0: ") or reader == "true"
