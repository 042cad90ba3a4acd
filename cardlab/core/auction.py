"""What the partnership auctions share: who holds the high bid, as a seat sees it."""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def bid_holder_relation(seat, holder):
    """Who holds the high bid, seen from ``seat``: 0 nobody, 1 partner, 2 an opponent, 3 itself."""
    if holder < 0:
        return 0
    if holder == seat:
        return 3
    return 1 if (holder & 1) == (seat & 1) else 2
