"""What a trick boundary of the solver costs, kernel by kernel: the table key, the sure-winner bounds,
the cards an entry's masks cover.

Positions: the deals of ``bench_solver`` (a) (seed ``s``, trump ``s % 4``), each with 1 to 6
random cards taken from every hand (1,200 positions), every kernel called on each in turn
(``REPEATS`` sweeps, the leader cycling); CPU nanoseconds a call, best of three sweeps of all.
Run as a file with ``PYTHONPATH`` set to another checkout to time that checkout's kernels.

    PYTHONPATH=<checkout> python benchmarks/solver_kernels.py
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from cardlab.games.double_dummy import GAME_IDS, game_tables
from cardlab.solver.analysis import deal_from_seed
from cardlab.solver.bounds import boundary_bounds
from cardlab.solver.position import to_search
from cardlab.solver.rules import ALL_TECHNIQUES, make_rules
from cardlab.solver.table import _bucket, _position_key, _rank_masks, _ranked_cards

REPEATS = 200


def positions(game: str = "cardlab_kaiser", deals: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """``(rules, hands)`` rows: every deal with 1 to 6 random cards taken from each hand."""
    rng = np.random.default_rng(1)
    rules_rows, hands_rows = [], []
    for seed in range(deals):
        trump, search_card_of, _, points, trick_points = game_tables(GAME_IDS[game], seed % 4)
        rules = make_rules(trump, trick_points, points, ALL_TECHNIQUES)
        hands = np.array([to_search(h, search_card_of) for h in deal_from_seed(game, seed)], dtype=np.int64)
        for taken in range(1, 7):
            position = hands.copy()
            for seat in range(4):
                cards = [c for c in range(32) if position[seat] >> c & 1]
                for card in rng.choice(cards, taken, replace=False):
                    position[seat] &= ~(1 << int(card))
            rules_rows.append(rules)
            hands_rows.append(position)
    return np.array(rules_rows), np.array(hands_rows)


@njit(cache=True)
def _keys(rules, hands, repeats):
    check = 0
    for r in range(repeats):
        for i in range(hands.shape[0]):
            low, high, fixed_low, fixed_high, lengths, tag = _position_key(rules[i], hands[i], r & 3, 5)
            check ^= _bucket(lengths, tag, low, high, fixed_low, fixed_high, 1 << 14)
    return check


@njit(cache=True)
def _bounds(rules, hands, repeats):
    check = 0
    for r in range(repeats):
        for i in range(hands.shape[0]):
            lower, upper = boundary_bounds(rules[i], hands[i], r & 3, 5)
            check += lower - upper
    return check


@njit(cache=True)
def _covered(rules, hands, repeats):
    check = 0
    for r in range(repeats):
        for i in range(hands.shape[0]):
            relevant = hands[i, r & 3]  # one hand's cards as the winning ranks
            mask_low, mask_high = _rank_masks(rules[i], hands[i], relevant)
            check ^= _ranked_cards(hands[i], mask_low, mask_high)
    return check


def main() -> None:
    rules, hands = positions()
    for name, kernel in (("table key and bucket", _keys), ("sure-winner bounds", _bounds),
                         ("masks and the cards they cover", _covered)):
        kernel(rules, hands, 1)  # compile
        best = np.inf
        for _ in range(3):
            start = time.thread_time()
            kernel(rules, hands, REPEATS)
            best = min(best, time.thread_time() - start)
        print(f"{name}: {1e9 * best / (REPEATS * hands.shape[0]):.1f} ns a call "
              f"({hands.shape[0]} positions x {REPEATS})")


if __name__ == "__main__":
    main()
