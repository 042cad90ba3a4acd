"""Duplicate scores from result rows.

A tournament plays each deal in pairs of seatings: seating ``2p`` puts the
first agent of pair ``p`` on the even seats (team 0), seating ``2p + 1`` puts
it on the odd seats. Its duplicate score on a deal is its team's return in
both seatings added up; the same cards, played from both sides, cancel out,
and what is left is the difference the agents made.
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


def team_returns(table: pa.Table) -> np.ndarray:
    """``(rows, 2)``: the return of team 0 (seat 0) and team 1 (seat 1) of every row."""
    values = table.column("returns").combine_chunks().flatten().to_numpy()
    per_seat = values.reshape(table.num_rows, -1)
    return per_seat[:, :2]


def duplicate_table(table: pa.Table, agents: list[str], pairs: list[tuple[int, int]]) -> DuplicateTable:
    """Duplicate scores of every complete deal in ``table`` (rows in any order).

    A deal that lacks a seating is left out (a table may hold part of a run),
    but rows that cannot be right raise ``ValueError``: a return that is not a
    finite number, a seating no pair has, or a (deal, seating) given twice.
    """
    num_seatings = 2 * len(pairs)
    deal = table.column("deal").to_numpy()
    seating = table.column("seating").to_numpy().astype(np.int64)
    returns = team_returns(table)
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
    per_seating = np.full((len(deals), num_seatings, 2), np.nan)
    per_seating[row_deal, seating] = returns
    first_even = per_seating[:, 0::2, 0]  # first agent on team 0
    first_odd = per_seating[:, 1::2, 1]  # first agent on team 1
    scores = first_even + first_odd
    complete = ~np.isnan(scores).any(axis=1)
    return DuplicateTable(deals[complete], list(pairs), scores[complete], list(agents))
