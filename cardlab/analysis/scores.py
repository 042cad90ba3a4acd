"""Duplicate scores from result rows.

A tournament plays each deal once per side and pair (:func:`cardlab.results.seat_pattern`):
with S sides, seating ``S * p + k`` puts the first agent of pair ``p`` on
side ``k``; with two teams by parity, seating ``2p`` puts it on the even
seats and ``2p + 1`` on the odd ones. Its duplicate score on a deal is its
side's return summed over the pair's seatings; the same cards, played from
every side, cancel out, and what is left is the difference the agents made.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa


@dataclass
class DuplicateTable:
    """Per-deal duplicate scores: ``scores[d, p]`` is pair ``p``'s first agent's score on ``deals[d]``."""

    deals: np.ndarray  # (n_deals,) deal indices
    pairs: list[tuple[int, int]]  # agent indices of each pair (first, second)
    scores: np.ndarray  # (n_deals, n_pairs)
    agents: list[str]

    def agent_scores(self) -> np.ndarray:
        """``(n_deals, n_agents)``: each agent's mean duplicate score per deal over its pairs."""
        total = np.zeros((len(self.deals), len(self.agents)))
        count = np.zeros(len(self.agents))
        for p, (a, b) in enumerate(self.pairs):
            total[:, a] += self.scores[:, p]
            total[:, b] -= self.scores[:, p]
            count[a] += 1
            count[b] += 1
        return total / np.maximum(count, 1)


def seat_returns(table: pa.Table) -> np.ndarray:
    """``(rows, seats)``: every seat's return in every row."""
    values = table.column("returns").combine_chunks().flatten().to_numpy()
    return values.reshape(table.num_rows, -1)


def duplicate_table(table: pa.Table, agents: list[str], pairs: list[tuple[int, int]],
                    sides: list[int] | None = None) -> DuplicateTable:
    """Duplicate scores of every complete deal in ``table`` (rows in any order).

    ``sides`` is the side of each seat (default: two teams by parity). A deal
    that lacks a seating is left out (a table may hold part of a run), but
    rows that cannot be right raise ``ValueError``: a return that is not a
    finite number, a seating no pair has, or a (deal, seating) given twice.
    """
    deal = table.column("deal").to_numpy()
    seating = table.column("seating").to_numpy().astype(np.int64)
    returns = seat_returns(table)
    sides = [seat % 2 for seat in range(returns.shape[1])] if sides is None else list(sides)
    if len(sides) != returns.shape[1]:
        raise ValueError(f"sides lists {len(sides)} seats, the rows have {returns.shape[1]}")
    num_sides = max(sides) + 1
    num_seatings = num_sides * len(pairs)
    if not np.isfinite(returns).all():
        row = int(np.argmin(np.isfinite(returns).all(axis=1)))
        raise ValueError(f"deal {deal[row]} seating {seating[row]}: returns must be finite numbers, "
                         f"got {returns[row].tolist()}")
    if len(seating) and not (0 <= seating.min() and seating.max() < num_seatings):
        raise ValueError(f"seatings must be in 0..{num_seatings - 1} for {len(pairs)} pairs, "
                         f"got {seating.min()}..{seating.max()}")
    deals, row_deal = np.unique(deal, return_inverse=True)
    cell = row_deal * num_seatings + seating
    if len(np.unique(cell)) != len(cell):
        raise ValueError("a (deal, seating) appears in more than one row")
    # In seating S * p + k the first agent holds side k: its return is that of any seat of side k.
    held_seat = np.array([sides.index(side) for side in range(num_sides)])
    first_agent_return = returns[np.arange(len(seating)), held_seat[seating % num_sides]]
    per_seating = np.full((len(deals), num_seatings), np.nan)
    per_seating[row_deal, seating] = first_agent_return
    scores = per_seating.reshape(len(deals), len(pairs), num_sides).sum(axis=2)
    complete = ~np.isnan(scores).any(axis=1)
    return DuplicateTable(deals[complete], list(pairs), scores[complete], list(agents))
