"""Bootstrap confidence intervals for mean scores per deal.

Deals are the independent unit of a tournament: every pair of agents plays
the same deals, so the scores of one deal are correlated across pairs. The
bootstrap therefore resamples whole deals (rows), all columns together.
Percentile intervals need no assumption about the shape of the score
distribution, which for card games is lumpy (a few big contracts decide).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

#: Resampled means computed at once; bounds memory at about 8 * this many bytes per column.
_BATCH_ELEMENTS = 4_000_000


def bootstrap_means(samples: np.ndarray, resamples: int = 2000, seed: int = 0) -> np.ndarray:
    """``(resamples, columns)`` means of ``samples`` (rows = deals) resampled with replacement."""
    samples = np.asarray(samples, dtype=np.float64)
    if samples.ndim == 1:
        samples = samples[:, None]
    n = samples.shape[0]
    if n == 0:
        raise ValueError("bootstrap of an empty sample")
    if isinstance(resamples, bool) or not isinstance(resamples, int | np.integer) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}")
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, samples.shape[1]))
    batch = max(1, _BATCH_ELEMENTS // n)
    for start in range(0, resamples, batch):
        stop = min(start + batch, resamples)
        rows = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = samples[rows].mean(axis=1)
    return means


def bootstrap_mean_ci(
    samples: np.ndarray, level: float = 0.95, resamples: int = 2000, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and percentile-bootstrap interval of each column: ``(mean, low, high)``.

    A 1-D ``samples`` gives arrays of one element.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    samples = np.asarray(samples, dtype=np.float64)
    if samples.ndim == 1:
        samples = samples[:, None]
    means = bootstrap_means(samples, resamples, seed)
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail], axis=0)
    return samples.mean(axis=0), low, high


def normal_mean_ci(samples, level: float = 0.95) -> tuple[float, float]:
    """Normal-approximation interval of the mean: ``mean +- z * sd / sqrt(n)``.

    The quick interval of a two-sided match, where thousands of independent
    deals make the mean close to normal; infinite for fewer than two deals.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    values = np.asarray(samples, dtype=np.float64)
    if values.size < 2:
        return (-math.inf, math.inf)
    if not np.isfinite(values).all():
        raise ValueError("scores must be finite numbers")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    mean = float(values.mean())
    half = z * float(values.std(ddof=1)) / math.sqrt(values.size)
    return (mean - half, mean + half)
