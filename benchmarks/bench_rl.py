"""Decision steps per second of the batched RL environments, against OpenSpiel's rl_environment.

    python -m benchmarks.bench_rl [--envs 4096] [--steps 60] [--out benchmarks/results-rl.json]

Every figure counts the caller's decision steps per CPU second of this
thread (``benchmarks.common``), observations and masks returned to Python at
every step; the actions are drawn uniformly among the legal ones by a numba
kernel outside the timed calls, so only the environment is timed. The
baseline, measured in the same run, is what an RL researcher can use today for
a trick-taking game: OpenSpiel's Python ``rl_environment.Environment`` over
its C++ ``hearts``, stepped with uniformly random legal actions.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
import pyspiel
from numba import njit

import cardlab.rl as rl
from benchmarks.common import emit
from cardlab.core.rng import make_stream, random_below

#: The targets the figures are held against (decision steps per second, one core).
TARGETS = {"kaiser_compact": 2_000_000, "twenty_eight_compact": 2_000_000, "kaiser_float32": 500_000,
           "twenty_eight_float32": 500_000, "literature_compact": 300_000, "kaiser_vs_rules": 1_000_000,
           "ratio_to_openspiel_hearts": 200.0, "state_megabytes_4096": 50.0}


@njit(cache=True)
def random_legal(masks, stream, out):
    """A uniformly random legal action of every row of ``masks``."""
    for i in range(masks.shape[0]):
        n = 0
        for a in range(masks.shape[1]):
            n += masks[i, a]
        k = random_below(stream, n)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


def env_rate(env: rl.VectorEnv, steps: int, repeats: int = 3) -> float:
    """Best decision steps per CPU second of ``env.step`` over ``repeats`` runs of ``steps`` steps."""
    stream = make_stream(1)
    actions = np.zeros(env.num_envs, dtype=np.int64)
    step = env.reset()
    best = 0.0
    for _ in range(repeats):
        spent = 0.0
        for _ in range(steps):
            random_legal(step.legal_mask, stream, actions)
            start = time.thread_time()
            step = env.step(actions)
            spent += time.thread_time() - start
        best = max(best, steps * env.num_envs / spent)
    return best


def hearts_rate(seconds: float = 3.0) -> float:
    """OpenSpiel's rl_environment over C++ hearts with random legal actions: decision steps per CPU second."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(pyspiel.load_game("hearts"), seed=0)
    rng = random.Random(0)
    steps = 0
    start = time.thread_time()
    time_step = env.reset()
    while time.thread_time() - start < seconds:
        if time_step.last():
            time_step = env.reset()
            continue
        player = time_step.observations["current_player"]
        time_step = env.step([rng.choice(time_step.observations["legal_actions"][player])])
        steps += 1
    return steps / (time.thread_time() - start)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--out", default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    n = args.envs
    figures: dict[str, float] = {}
    for game, key in (("kaiser", "kaiser"), ("28", "twenty_eight"), ("literature", "literature")):
        for dtype in ("compact", "float32"):
            env = rl.make(game, num_envs=n, seed=0, dtype=dtype)
            env_rate(env, 2)  # compile outside the timing
            figures[f"{key}_{dtype}"] = env_rate(env, args.steps)
            if dtype == "compact":
                figures[f"{key}_state_megabytes"] = env.state_bytes / 1e6
    single = rl.make("kaiser", num_envs=n, seed=0, seats=[0], opponents="rules", dtype="compact")
    env_rate(single, 2)
    figures["kaiser_vs_rules"] = env_rate(single, args.steps)
    figures["state_megabytes_4096"] = rl.make("kaiser", num_envs=4096).state_bytes / 1e6
    figures["openspiel_hearts_rl_environment"] = hearts_rate()
    hearts = figures["openspiel_hearts_rl_environment"]
    figures["ratio_to_openspiel_hearts"] = figures["kaiser_compact"] / hearts
    report = emit("rl_environments", {
        "unit": "decision steps per CPU second (one thread); state in MB",
        "num_envs": n, "figures": {k: round(v, 1) for k, v in figures.items()},
        "targets": TARGETS,
        "met": {k: bool(figures[k] <= v if k.startswith("state") else figures[k] >= v)
                for k, v in TARGETS.items()},
        "baseline": "open_spiel.python.rl_environment.Environment(hearts), uniformly random legal actions",
    })
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
