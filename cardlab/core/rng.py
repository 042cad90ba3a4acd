"""A small, explicit random stream for numba kernels.

Every kernel that draws random numbers takes a one-element ``uint64`` array as
its stream, so results depend only on the seed (never on numba's hidden global
generator or on which process ran the work). The generator is SplitMix64,
a fast, well-tested 64-bit mixer (Steele, Lea & Flood, 2014).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def make_stream(seed: int) -> np.ndarray:
    """A fresh stream for ``seed`` (any Python int)."""
    if not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    stream = np.zeros(1, dtype=np.uint64)
    stream[0] = np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF)
    next_u64(stream)
    return stream


@njit(cache=True)
def mix64(z):
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def next_u64(stream):
    stream[0] = stream[0] + _GOLDEN
    return mix64(stream[0])


@njit(cache=True)
def random_below(stream, n):
    """Uniform integer in ``[0, n)`` (n >= 1), by Lemire-style rejection.

    A draw is rejected below ``threshold = 2**64 mod n``, which is below ``n``: a draw of at
    least ``n`` (all but n / 2**64 of them) is accepted without computing it, one division
    instead of two, and the same draws.
    """
    bound = np.uint64(n)
    while True:
        r = next_u64(stream)
        if r >= bound or r >= (np.uint64(0) - bound) % bound:
            return np.int64(r % bound)


@njit(cache=True)
def random_unit(stream):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# One explicit signature: a Python int above 2**63 (half of all seeds drawn from a stream)
# must not meet an (int64, int64) specialization compiled earlier, which cannot hold it.
@njit("uint64(uint64, int64)", cache=True)
def derive_seed(seed, index):
    """A seed for sub-stream ``index`` of ``seed``: deal k of a tournament, worker j, ..."""
    return mix64(np.uint64(seed) ^ mix64(np.uint64(index) + _GOLDEN))
