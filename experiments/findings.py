"""What every notebook does with a dataset: means and rates with 95% intervals, tables of them, findings.

A finding is a sentence with its number, the number's 95% interval, the count
of deals behind it and the command that reproduces the dataset; the notebooks
print each one with :func:`finding` and collect them in :data:`FINDINGS`, which
the tests read back.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from cardlab.analysis.stats import bootstrap_mean_ci, bootstrap_means

Z95 = NormalDist().inv_cdf(0.975)


def mean_ci(values: Any, seed: int = 0, resamples: int = 1000) -> tuple[float, float, float]:
    """Mean and 95% percentile-bootstrap interval (NaN for an empty sample)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return math.nan, math.nan, math.nan
    mean, low, high = bootstrap_mean_ci(values, resamples=resamples, seed=seed)
    return float(mean[0]), float(low[0]), float(high[0])


def ratio_ci(numerators: Any, denominators: Any, seed: int = 0,
             resamples: int = 1000) -> tuple[float, float, float]:
    """The ratio of two sums over deals (a share of expected counts) and its 95% bootstrap interval, the
    deals resampled together."""
    pairs = np.column_stack([np.asarray(numerators, dtype=np.float64),
                             np.asarray(denominators, dtype=np.float64)])
    if len(pairs) == 0 or pairs[:, 1].sum() == 0:
        return math.nan, math.nan, math.nan
    means = bootstrap_means(pairs, resamples, seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = np.nanquantile(means[:, 0] / means[:, 1], [0.025, 0.975])
    ratio = pairs[:, 0].sum() / pairs[:, 1].sum()
    return float(ratio), float(min(low, ratio)), float(max(high, ratio))


def rate_ci(successes: int, trials: int) -> tuple[float, float, float]:
    """A proportion and its 95% Wilson interval (good at small counts and near 0 or 1)."""
    if trials == 0:
        return math.nan, math.nan, math.nan
    p = successes / trials
    centre = (p + Z95**2 / (2 * trials)) / (1 + Z95**2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / (1 + Z95**2 / trials)
    return p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))  # p inside, despite rounding


def summarize(frame: pd.DataFrame, by: str | list[str], value: str, kind: str = "mean",
              min_count: int = 1) -> pd.DataFrame:
    """One row per group: ``n``, the mean (``kind="mean"``) or the rate of true values (``"rate"``), and
    its 95% interval."""
    if kind not in ("mean", "rate"):
        raise ValueError(f"kind must be mean or rate, got {kind!r}")
    rows = []
    for key, group in frame.groupby(by, observed=True):
        column = group[value].to_numpy()
        estimate = (rate_ci(int(column.sum()), len(column)) if kind == "rate" else mean_ci(column))
        keys = dict(zip([by] if isinstance(by, str) else by, key if isinstance(key, tuple) else (key,),
                        strict=True))
        rows.append({**keys, "n": len(column), value: estimate[0], "low": estimate[1], "high": estimate[2]})
    table = pd.DataFrame(rows)
    return table[table["n"] >= min_count].reset_index(drop=True) if len(table) else table


def plot_intervals(ax, table: pd.DataFrame, x: str, value: str, label: str | None = None, offset: float = 0.0,
                   **style: Any) -> None:
    """The estimates of a :func:`summarize` table with their 95% intervals as error bars."""
    xs = table[x].to_numpy(dtype=float) + offset
    ys = table[value].to_numpy(dtype=float)
    below = np.maximum(0.0, ys - table["low"].to_numpy(dtype=float))
    above = np.maximum(0.0, table["high"].to_numpy(dtype=float) - ys)
    ax.errorbar(xs, ys, yerr=[below, above], fmt="o-",
                capsize=3, label=label, **style)


@dataclass(frozen=True)
class Finding:
    key: str
    text: str
    value: float
    low: float
    high: float
    deals: int
    command: str

    def line(self) -> str:
        return (f"- {self.text}: **{self.value:.3g}** (95% CI {self.low:.3g} to {self.high:.3g}; "
                f"{self.deals} deals; `{self.command}`)")


#: The findings printed so far in this process, by key (the notebook's last cell writes them out).
FINDINGS: dict[str, Finding] = {}


def finding(key: str, text: str, estimate: tuple[float, float, float], deals: int, command: str) -> None:
    """Record and print one finding: ``estimate`` is ``(value, low, high)``."""
    value, low, high = (float(v) for v in estimate)
    FINDINGS[key] = Finding(key, text, value, low, high, int(deals), command)
    print(FINDINGS[key].line())


def findings_json() -> str:
    """Every finding as JSON, for the notebook's last output (the tests check these values)."""
    return json.dumps({key: {"value": f.value, "low": f.low, "high": f.high, "deals": f.deals}
                       for key, f in FINDINGS.items()}, indent=1)


def study_command(module: str, parameters: dict[str, Any], defaults: dict[str, Any]) -> str:
    """The command that regenerates a study's dataset with these parameters."""
    changed = [f"--set {key}={value}" for key, value in parameters.items() if defaults.get(key) != value]
    return " ".join([f"python -m experiments.{module}", *changed])
