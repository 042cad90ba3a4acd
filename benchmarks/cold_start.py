"""First use of each command, cold and warm: each in a fresh process, the cold one with an empty cache.

    python -m benchmarks.cold_start [--only solve,tournament] [--out benchmarks/results-cold-start.json]

A *cold* run starts with an empty numba cache folder (``CARDLAB_NUMBA_CACHE``
pointing at a new temporary folder), as on a fresh clone; the *warm* run
repeats the same command with that folder filled. Figures are wall seconds
and CPU seconds of the process and its children, and the child's compile time
as the notice line reports it. The ``groups`` part times ``cardlab warmup``
group by group for each game in one process (one core): the estimates that
``cardlab.core.compiling`` quotes in its notices.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CARDLAB = [sys.executable, "-m", "cardlab.cli"]
PLAY_INPUT = "quit\n"

#: Each first use, as a user types it.
COMMANDS: dict[str, list[str]] = {
    "import": [sys.executable, "-c", "import cardlab"],
    "demo": [*CARDLAB, "demo", "--game", "kaiser", "--deals", "200", "--seed", "1", "--quiet"],
    "tournament": [*CARDLAB, "tournament", "--game", "kaiser", "--agents", "rules,ismcts:simulations=100",
                   "--deals", "20", "--seed", "1", "--workers", "1", "--quiet", "--out", "{tmp}/tour"],
    "solve": [*CARDLAB, "solve", "--game", "kaiser", "--deal-seed", "7"],
    "play": [*CARDLAB, "play", "kaiser", "--seat", "0", "--seed", "1", "--out", "{tmp}/plays"],
    "train": [*CARDLAB, "train", "--game", "kaiser", "--param", "hand_size=1", "--solver", "cfr+",
              "--iterations", "20", "--out", "{tmp}/policy.npz", "--quiet"],
    "rl": [sys.executable, "-c", "import numpy as np, cardlab.rl as rl\n"
           "env = rl.make('kaiser', num_envs=64, seats=[0], opponents='rules')\n"
           "step = env.reset()\n"
           "for _ in range(20): step = env.step(np.argmax(step.legal_mask, axis=1))"],
}


def run(command: list[str], cache: Path, tmp: Path) -> dict[str, float]:
    """Wall and CPU seconds of ``command`` (with its children) and whether it announced compiling."""
    env = {**os.environ, "CARDLAB_NUMBA_CACHE": str(cache), "PYTHONUNBUFFERED": "1"}
    env.pop("NUMBA_CACHE_DIR", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([part.format(tmp=tmp) for part in command], cwd=ROOT, env=env, text=True,
                          input=PLAY_INPUT, capture_output=True, timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    announced = [line for line in done.stderr.splitlines() if line.startswith("compiling ")]
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "exit": done.returncode,
            "notice": announced[0] if announced else ""}


def groups() -> dict[str, dict[str, float]]:
    """``cardlab warmup`` of every game, group by group, in one process each from an empty cache."""
    from cardlab.games import SPECS

    figures = {}
    for spec in SPECS:
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, "CARDLAB_NUMBA_CACHE": folder}
            code = ("import json, sys; from cardlab.warmup import warm_game, GROUPS; "
                    f"print(json.dumps(warm_game({spec.name!r}, GROUPS)))")
            done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                                  capture_output=True, timeout=7200, check=True)
            figures[spec.aliases[0]] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated names of COMMANDS (and 'groups')")
    parser.add_argument("--out", default="benchmarks/results-cold-start.json")
    args = parser.parse_args(argv)
    chosen = args.only.split(",") if args.only else [*COMMANDS, "groups"]
    report: dict = {"benchmark": "cold_start", "cores": os.cpu_count(), "commands": {}}
    for name in chosen:
        if name == "groups":
            report["groups"] = groups()
            continue
        with tempfile.TemporaryDirectory() as folder:
            cache, tmp = Path(folder) / "cache", Path(folder)
            cold = run(COMMANDS[name], cache, tmp)
            warm = run(COMMANDS[name], cache, tmp)
        report["commands"][name] = {"cold": cold, "warm": warm}
        print(name, report["commands"][name], flush=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
