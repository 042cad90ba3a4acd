"""Regret matching, the policy every CFR solver here plays (Hart and Mas-Colell 2000).

At an information set, each action is played in proportion to its positive
cumulative regret, or uniformly when no regret is positive. The tabular
solvers (:mod:`cardlab.cfr.solvers`), external-sampling MCCFR
(:mod:`cardlab.cfr.mccfr`) and the bidding abstraction
(:mod:`cardlab.cfr.bidding`) keep their regrets in different tables; each
hands this kernel its slice.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def matched_policy(regrets, start, n, out, out_start):
    """``out[out_start:out_start + n]``: the policy of the ``n`` regrets from ``regrets[start]``."""
    total = 0.0
    for k in range(n):
        if regrets[start + k] > 0:
            total += regrets[start + k]
    for k in range(n):
        out[out_start + k] = max(0.0, regrets[start + k]) / total if total > 0 else 1.0 / n
