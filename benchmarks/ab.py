"""Two checkouts of cardlab timed against each other, kernel by kernel, in one run.

    python -m benchmarks.ab --base /path/to/old/checkout --head . [--rounds 5] [--out FILE]

Each figure is one subprocess that imports cardlab from the given checkout and times
one loop on its own thread's CPU clock (``time.thread_time``), so load from other
processes costs both sides alike; base and head alternate round by round and each
keeps its best. Both sides play the same seeds, so a speed change that also changed
results would show in the ``same_results`` column (a hash of every game's outcome).
This is how "the standard games keep their speed" was checked for the rule variants: the
checkout before the variants (74c971b) against today's. The ``*_ismcts_*`` figures
time bench_ismcts's searches (their hash: every search's root visit counts), with
OpenSpiel's C++ ISMCTS on hearts as the peer in the same run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: The Python each subprocess runs: prints ``rate hash`` (items per CPU second, outcome hash).
BATCHED = """
import hashlib, time, numpy as np, pyspiel
import cardlab
from cardlab.core.rng import make_stream
from cardlab.games.{game} import engine as E
template = pyspiel.load_game("cardlab_{game}").initial_array
results = np.zeros(({count}, {fields}), dtype=np.{dtype}); stream = make_stream(1)
E.{kernel}(template, 10, stream, results)
digest = hashlib.md5(); best = 0.0
for _ in range(5):
    start = time.thread_time(); E.{kernel}(template, {count}, stream, results)
    best = max(best, {count} / (time.thread_time() - start)); digest.update(results.tobytes())
print(best, digest.hexdigest())
"""
CONTENDERS = {
    "kaiser_batched_hands": BATCHED.format(game="kaiser", kernel="play_random_hands", count=20000,
                                           fields=5, dtype="float64"),
    "twenty_eight_batched_hands": BATCHED.format(game="twenty_eight", kernel="play_random_hands",
                                                 count=20000, fields=8, dtype="float64"),
    "literature_batched_games": BATCHED.format(game="literature", kernel="play_random_games", count=2000,
                                               fields=4, dtype="int64"),
}
WRAPPER = """
import hashlib, random, time, pyspiel
import cardlab
from benchmarks.common import python_random_games
game = pyspiel.load_game("{game}")
python_random_games(game, 5)
best = 0.0
for _ in range(5):
    start = time.thread_time(); python_random_games(game, 60)
    best = max(best, 60 / (time.thread_time() - start))
digest, rng = hashlib.md5(), random.Random(0)
for _ in range(20):  # what the games did: the returns of 20 seeded random games
    state = game.new_initial_state()
    while not state.is_terminal():
        legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    digest.update(repr(state.returns()).encode())
print(best, digest.hexdigest())
"""
for short in ("kaiser", "twenty_eight", "literature"):
    CONTENDERS[f"{short}_wrapper_games"] = WRAPPER.format(game=f"cardlab_{short}")
#: ISMCTS simulations per second at bench_ismcts's mid-hand decision; the hash is of the
#: root visit counts of every search (the bot's seeded stream runs on across them).
SEARCH = """
import hashlib, time, pyspiel
import cardlab
from benchmarks.bench_ismcts import MID_HAND, SIMULATIONS, mid_hand_state
from cardlab.agents.ismcts import ISMCTSBot
from cardlab.games import game_spec, kernels
name = "cardlab_{game}"
game, game_id = pyspiel.load_game(name), game_spec(name).kernel_id
state = mid_hand_state(game, 1, MID_HAND[name], lambda s: kernels.dominant_action(game_id, s.array) < 0)
bot = ISMCTSBot(game, state.current_player(), seed=1, simulations=SIMULATIONS, rollout="{rollout}")
digest = hashlib.md5(repr(bot.step_with_policy(state)[0]).encode()); best = 0.0
for _ in range(7):
    start = time.thread_time(); policy = bot.step_with_policy(state)[0]
    best = max(best, SIMULATIONS / (time.thread_time() - start)); digest.update(repr(policy).encode())
print(best, digest.hexdigest())
"""
for short in ("kaiser", "twenty_eight", "literature"):
    for rollout in ("random", "rules"):
        CONTENDERS[f"{short}_ismcts_{rollout}"] = SEARCH.format(game=short, rollout=rollout)
#: The ISMCTS figures' peer, OpenSpiel's C++ ISMCTSBot on hearts: the same code on both sides.
CONTENDERS["openspiel_cpp_ismcts_hearts"] = """
from benchmarks.bench_ismcts import openspiel_hearts_rate
print(openspiel_hearts_rate(), "peer")
"""


def measure(checkout: Path, code: str) -> tuple[float, str]:
    environment = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    key = hashlib.md5(str(checkout.resolve()).encode()).hexdigest()[:12]
    environment["CARDLAB_NUMBA_CACHE"] = str(Path(tempfile.gettempdir()) / f"cardlab-ab-{key}")
    # Run in the checkout: ``python -c`` puts the working directory first on the path.
    output = subprocess.run([sys.executable, "-c", code], env=environment, cwd=checkout, check=True,
                            capture_output=True, text=True).stdout.split()
    return float(output[-2]), output[-1]


def commit_of(checkout: Path) -> str:
    """The checkout's commit, marked ``+changes`` when its work tree differs from it."""
    def git(*arguments: str) -> str:
        done = subprocess.run(["git", *arguments], cwd=checkout, capture_output=True, text=True)
        return done.stdout.strip()
    changed = git("status", "--porcelain", "--", "cardlab")
    return git("rev-parse", "--short", "HEAD") + ("+changes" if changed else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--head", type=Path, default=Path("."))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", choices=sorted(CONTENDERS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    report = {"base": commit_of(args.base), "head": commit_of(args.head), "rounds": args.rounds,
              "clock": "thread CPU time, best of 5 loops a round and of the rounds", "figures": {}}
    for name in args.only or CONTENDERS:
        best = {"base": 0.0, "head": 0.0}
        hashes = {"base": set(), "head": set()}
        for _ in range(args.rounds):
            for side in ("base", "head"):
                rate, digest = measure(getattr(args, side), CONTENDERS[name])
                best[side] = max(best[side], rate)
                hashes[side].add(digest)
        report["figures"][name] = {
            "base_per_second": round(best["base"]), "head_per_second": round(best["head"]),
            "head_over_base": round(best["head"] / best["base"], 3),
            "same_results": hashes["base"] == hashes["head"]}
        print(name, report["figures"][name], flush=True)
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
