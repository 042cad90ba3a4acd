"""Learning curves of the committed models: their training replayed, measured against rules and ISMCTS-300.

    python -m experiments.learning_curve --games kaiser 28 --data-dir /tmp/learning-curve
    python -m experiments.learning_curve --games kaiser --opponents rules --eval-deals 100 \\
        --data-dir /tmp/lc --out-dir /tmp/lc-results

Each committed model (``cardlab/agents/models/``) records the commands that
trained it (``metadata["zoo"]``: imitation, then PPO against ``rules``). This
replays them, each phase as the same ``cardlab train`` command with the
measurements changed: at checkpoints, every ``--eval-minutes``, the model plays
a fixed duplicate set of ``--eval-deals`` deals against each of
``--opponents`` (default ``rules`` and ``ismcts:simulations=300``). A run
depends only on its seed, its settings and where its checkpoints fall, not on
its measurements, so the replay ends with the committed weights, which the
result records (``replayed_exactly``). Writes
``learning-curve-<game>.json`` to ``--out-dir``: each phase's command, CPU
seconds and measurements (decisions, CPU seconds so far, the model's
duplicate points per deal with a normal 95% interval). Resumable: a phase
already done is read back, one cut short is resumed. The notebook is
notebooks/learning.py.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np

import cardlab  # noqa: F401
from cardlab.agents.net import MODELS
from cardlab.agents.network import load_model
from cardlab.games import game_spec

RESULTS = Path(__file__).resolve().parent / "results"
OPPONENTS = ("rules", "ismcts:simulations=300")
#: Options of the zoo's commands this replay sets itself.
REPLACED = {"--out", "--init", "--eval-deals", "--eval-minutes", "--eval-opponent"}


def replay_argv(command: str, folder: Path, opponents: tuple[str, ...], deals: int,
                minutes: float) -> list[str]:
    """The zoo's ``cardlab train ...`` command, its files in ``folder`` and its measurements ours."""
    words = shlex.split(command)[1:]  # without "cardlab"
    argv: list[str] = []
    files: dict[str, str] = {}
    i = 0
    while i < len(words):
        if words[i] in REPLACED:
            files[words[i]] = words[i + 1]
            i += 2
            continue
        argv.append(words[i])
        i += 1
    for option in ("--out", "--init"):
        if option in files:
            argv += [option, str(folder / Path(files[option]).name)]
    argv += ["--eval-deals", str(deals), "--eval-minutes", str(minutes)]
    for opponent in opponents:
        argv += ["--eval-opponent", opponent]
    return argv


def run_phase(argv: list[str], out: Path, steps: int) -> dict[str, Any]:
    """Train (or resume, or read back) one phase; its record."""
    from cardlab.cli import main as cardlab_main

    done = out.exists() and load_model(out).metadata["training"]["progress"]["decisions"] >= steps
    if not done:
        code = cardlab_main(argv + (["--resume"] if out.exists() else []))
        if code != 0:
            raise SystemExit(f"cardlab {shlex.join(argv)} failed with exit code {code}")
    training = load_model(out).metadata["training"]
    progress = training["progress"]
    return {"command": shlex.join(["cardlab", *argv]), "algo": training["run"]["algo"],
            "decisions": progress["decisions"], "cpu_seconds": progress["cpu_seconds"],
            "history": progress["history"]}


def learning_curve(game_alias: str, folder: Path, opponents: tuple[str, ...], deals: int,
                   minutes: float) -> dict[str, Any]:
    """Replay the committed model's training for ``game_alias`` in ``folder``; the curve's record."""
    spec = game_spec(game_alias)
    committed = load_model(MODELS / f"{spec.name}.npz", spec.load())
    folder.mkdir(parents=True, exist_ok=True)
    phases, last = [], None
    for command in committed.metadata["zoo"]["commands"]:
        argv = replay_argv(command, folder, opponents, deals, minutes)
        last = Path(argv[argv.index("--out") + 1])
        steps = int(argv[argv.index("--steps") + 1])
        phases.append(run_phase(argv, last, steps))
    replayed = load_model(last)
    same = all(np.array_equal(replayed.arrays[name], array) for name, array in committed.arrays.items())
    return {"game": spec.name, "opponents": list(opponents), "eval_deals": deals, "eval_minutes": minutes,
            "committed_model": f"cardlab/agents/models/{spec.name}.npz", "replayed_exactly": same,
            "phases": phases}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kaiser", "28"])
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    parser.add_argument("--eval-deals", type=int, default=500)
    parser.add_argument("--eval-minutes", type=float, default=1.5)
    parser.add_argument("--data-dir", type=Path, required=True, help="the replayed runs' models (resumable)")
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    command = "python -m experiments.learning_curve " + " ".join(sys.argv[1:] if argv is None else argv)
    for game in args.games:
        name = game_spec(game).name
        record = learning_curve(game, args.data_dir / name, tuple(args.opponents), args.eval_deals,
                                args.eval_minutes)
        path = args.out_dir / f"learning-curve-{name.removeprefix('cardlab_')}.json"
        path.write_text(json.dumps({"command": command, **record}, indent=2) + "\n")
        print(f"{name}: {len(record['phases'])} phases, replayed exactly: {record['replayed_exactly']}, "
              f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
