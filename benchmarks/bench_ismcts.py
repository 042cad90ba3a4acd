"""ISMCTS simulations per second at a typical mid-hand decision, against OpenSpiel's C++ ISMCTS.

The peer is OpenSpiel's C++ ``ISMCTSBot`` with a random-rollout evaluator on
its C++ ``hearts`` (the fastest ISMCTS available for a trick-taking game).
cardlab's numba ISMCTS searches a mid-hand position of each game, with random
rollouts (the like-for-like figure) and with rule-based rollouts. Targets
(``TARGETS``): random rollouts Kaiser >= 8x the peer, Twenty-Eight >= 6x,
Literature >= 2x; rules rollouts Kaiser and Twenty-Eight >= 4x. Every search is timed
in CPU time of the calling thread (the bots run in it), best of ``REPEATS``.
Memory is the tree's bytes per 10,000 simulations.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pyspiel

import cardlab  # noqa: F401
from benchmarks.common import emit
from cardlab.agents.ismcts import ISMCTSBot
from cardlab.games import game_names, game_spec, kernels

SIMULATIONS = 4000
REPEATS = 7  # best of: the machines here are noisy, and one search takes tens of milliseconds
#: The target ratios to the peer, by game and rollout policy.
TARGETS = {("kaiser", "random"): 8.0, ("twenty_eight", "random"): 6.0, ("literature", "random"): 2.0,
           ("kaiser", "rules"): 4.0, ("twenty_eight", "rules"): 4.0}


def mid_hand_state(game: pyspiel.Game, seed: int, decisions: int,
                   is_search_decision=lambda state: True) -> pyspiel.State:
    """The first real decision after the deal and ``decisions`` random decisions.

    A real decision has more than one legal action and, for ``is_search_decision``,
    is one the searcher would search (not one with a provably dominant action).
    """
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    made = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        if made >= decisions and len(state.legal_actions()) > 1 and is_search_decision(state):
            return state
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        made += 1
    raise RuntimeError("the game ended before the requested decision")


def openspiel_hearts_rate() -> float:
    hearts = pyspiel.load_game("hearts")
    state = mid_hand_state(hearts, 1, 38)  # 12 passed cards, then half of the 52 played
    bot = pyspiel.ISMCTSBot(1, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, SIMULATIONS, -1,
                            pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT, False, True)
    bot.step(state)
    return SIMULATIONS / _best_seconds(lambda: bot.step(state))


def _best_seconds(search) -> float:
    """The shortest CPU time of ``REPEATS`` calls of ``search``."""
    best = math.inf
    for _ in range(REPEATS):
        start = time.thread_time()
        search()
        best = min(best, time.thread_time() - start)
    return best


def cardlab_rate(game_name: str, rollout: str, decisions: int) -> tuple[float, int]:
    game = pyspiel.load_game(game_name)
    game_id = game_spec(game_name).kernel_id
    state = mid_hand_state(game, 1, decisions,
                           lambda state: kernels.dominant_action(game_id, state.array) < 0)
    bot = ISMCTSBot(game, state.current_player(), seed=1, simulations=SIMULATIONS, rollout=rollout)
    bot.step(state)  # compile
    best = SIMULATIONS / _best_seconds(lambda: bot.step(state))
    bytes_per_10k = bot.last_search["tree_bytes"] * 10_000 // SIMULATIONS
    return best, bytes_per_10k


# The decision number that lands in the middle of the play for each game.
MID_HAND = {"cardlab_kaiser": 20, "cardlab_twenty_eight": 20, "cardlab_literature": 30}


def main() -> dict:
    peer = openspiel_hearts_rate()
    figures: dict = {"openspiel_cpp_ismcts_hearts_sims_per_s": round(peer)}
    for name in game_names():
        short = name.removeprefix("cardlab_")
        for rollout in ("random", "rules"):
            rate, memory = cardlab_rate(name, rollout, MID_HAND[name])
            figures[f"{short}_{rollout}_rollouts_sims_per_s"] = round(rate)
            figures[f"{short}_{rollout}_ratio_vs_openspiel"] = round(rate / peer, 2)
            if (short, rollout) in TARGETS:
                figures[f"{short}_{rollout}_target_ratio"] = TARGETS[short, rollout]
        figures[f"{short}_tree_bytes_per_10k_sims"] = memory
    return emit("ismcts_simulations_per_second", figures)


if __name__ == "__main__":
    main()
