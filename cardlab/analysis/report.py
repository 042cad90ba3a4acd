"""The report of a tournament: tables on the terminal, plots as PNG files.

``cardlab report results/kaiser-001`` reads every completed deal (verifying
each part file against the manifest), then prints:

- the **standings**: each agent's mean duplicate points per deal against the
  field with a bootstrap 95% interval, its deals won / lost / tied, its
  Bradley–Terry rating (Elo scale) with interval, and its thinking time;
- the **pairwise matrix**: row agent's mean duplicate points per deal against
  the column agent, with intervals.

It writes ``standings.png``, ``pairwise.png``, ``ratings.png``,
``convergence.png`` and ``summary.json`` into ``<results>/report/``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from cardlab.analysis.ratings import Ratings, fit_ratings
from cardlab.analysis.scores import DuplicateTable, duplicate_table
from cardlab.analysis.stats import bootstrap_mean_ci
from cardlab.results import load_results

COLUMNS = ["deal", "seating", "returns", "seat_agents", "seat_seconds", "seat_decisions"]


@dataclass
class Report:
    """Every number the report shows."""

    manifest: dict[str, Any]
    duplicate: DuplicateTable
    mean: np.ndarray  # per agent, points per deal against the field
    low: np.ndarray
    high: np.ndarray
    won: np.ndarray  # per agent: fraction of its duplicate deals won / lost / tied
    lost: np.ndarray
    tied: np.ndarray
    pair_mean: np.ndarray  # per pair, first agent's points per deal
    pair_low: np.ndarray
    pair_high: np.ndarray
    ratings: Ratings
    ms_per_decision: np.ndarray

    @property
    def agents(self) -> list[str]:
        return self.duplicate.agents

    @property
    def planned_deals(self) -> int:
        return self.manifest["settings"]["deals"]

    def warning(self) -> str | None:
        """Why these numbers are not the whole tournament, if they are not."""
        done = len(self.duplicate.deals)
        if done == self.planned_deals:
            return None
        return (f"incomplete run: only {done} of {self.planned_deals} deals are written; rerun the "
                f"tournament command to finish it")


def _thinking_time(table: pa.Table, agents: list[str]) -> np.ndarray:
    """Milliseconds per decision of each agent, over all its seats and games."""
    seat_agents = table.column("seat_agents").combine_chunks()
    num_players = len(seat_agents.flatten()) // max(1, table.num_rows)
    who = pc.index_in(seat_agents.flatten(), value_set=pa.array(agents)).to_numpy(zero_copy_only=False)
    who = who.reshape(-1, num_players)
    seconds = table.column("seat_seconds").combine_chunks().flatten().to_numpy().reshape(-1, num_players)
    moves = table.column("seat_decisions").combine_chunks().flatten().to_numpy().reshape(-1, num_players)
    result = np.full(len(agents), np.nan)
    for i in range(len(agents)):
        mask = who == i
        if moves[mask].sum():
            result[i] = 1000.0 * seconds[mask].sum() / moves[mask].sum()
    return result


def build_report(directory: str | Path, resamples: int = 2000, seed: int = 0) -> Report:
    """Read a results directory and compute every table of the report."""
    manifest, table = load_results(directory, COLUMNS)
    settings = manifest["settings"]
    agents = [agent["label"] for agent in settings["agents"]]
    pairs = [tuple(pair) for pair in settings["pairs"]]
    duplicate = duplicate_table(table, agents, pairs, settings.get("sides"))  # None: parity (older runs)
    per_agent = duplicate.agent_scores()
    mean, low, high = bootstrap_mean_ci(per_agent, resamples=resamples, seed=seed)
    pair_mean, pair_low, pair_high = bootstrap_mean_ci(duplicate.scores, resamples=resamples, seed=seed + 1)
    won, lost, tied = (np.zeros(len(agents)) for _ in range(3))
    played = np.zeros(len(agents))
    for p, (a, b) in enumerate(pairs):
        column = duplicate.scores[:, p]
        for agent, sign in ((a, 1), (b, -1)):
            won[agent] += np.count_nonzero(sign * column > 0)
            lost[agent] += np.count_nonzero(sign * column < 0)
            tied[agent] += np.count_nonzero(column == 0)
            played[agent] += len(column)
    played = np.maximum(played, 1)
    ratings = fit_ratings(duplicate, resamples=min(200, resamples), seed=seed + 2)
    return Report(
        manifest, duplicate, mean, low, high, won / played, lost / played, tied / played,
        pair_mean, pair_low, pair_high, ratings, _thinking_time(table, agents),
    )


def _format_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = ["  ".join(f"{cell:>{w}}" if i else f"{cell:<{w}}" for i, (cell, w) in enumerate(zip(line, widths,
                                                                                                  strict=True)))
             for line in [header, ["-" * w for w in widths], *rows]]
    return "\n".join(lines)


def format_report(report: Report) -> str:
    """The report's tables as text."""
    manifest = report.manifest
    settings = manifest["settings"]
    git = manifest.get("git")  # informational: shown only if it is what a run writes
    commit = git.get("commit") if isinstance(git, dict) else None
    commit = commit if isinstance(commit, str) and commit else "unknown"
    done = len(report.duplicate.deals)
    warning = report.warning()
    lines = [f"WARNING: {warning}", ""] if warning else []
    lines += [
        f"game {settings['game']}  parameters {json.dumps(settings['parameters'])}",
        f"duplicate deals {done} of {settings['deals']}  seed {settings['seed']}  "
        f"pairs {len(settings['pairs'])}  commit {commit[:12]}",
        "",
        "standings (duplicate points per deal against the field; 95% bootstrap CI)",
    ]
    order = np.argsort(-report.mean)
    rows = []
    for rank, i in enumerate(order, start=1):
        ratings = report.ratings
        rows.append([
            f"{rank}. {report.agents[i]}",
            f"{report.mean[i]:+.2f}",
            f"[{report.low[i]:+.2f}, {report.high[i]:+.2f}]",
            f"{100 * report.won[i]:.1f}/{100 * report.lost[i]:.1f}/{100 * report.tied[i]:.1f}",
            f"{ratings.elo[i]:+.0f} [{ratings.low[i]:+.0f}, {ratings.high[i]:+.0f}]",
            f"{report.ms_per_decision[i]:.4f}",
        ])
    lines.append(_format_table(
        ["agent", "points/deal", "95% CI", "won/lost/tied %", "Bradley-Terry Elo [95% CI]", "ms/decision"],
        rows,
    ))
    lines += ["", "pairwise (row agent's duplicate points per deal against the column agent; 95% CI)"]
    n = len(report.agents)
    cells = [["" if i != j else "-" for j in range(n)] for i in range(n)]
    for p, (a, b) in enumerate(report.duplicate.pairs):
        m, lo, hi = report.pair_mean[p], report.pair_low[p], report.pair_high[p]
        cells[a][b] = f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]"
        cells[b][a] = f"{0.0 - m:+.2f} [{0.0 - hi:+.2f}, {0.0 - lo:+.2f}]"
    lines.append(_format_table(["", *report.agents], [[report.agents[i], *cells[i]] for i in range(n)]))
    return "\n".join(lines)


def summary_json(report: Report) -> dict[str, Any]:
    return {
        "deals": int(len(report.duplicate.deals)),
        "planned_deals": report.planned_deals,
        "standings": [
            {
                "agent": agent,
                "points_per_deal": float(report.mean[i]),
                "ci95": [float(report.low[i]), float(report.high[i])],
                "won": float(report.won[i]), "lost": float(report.lost[i]), "tied": float(report.tied[i]),
                "elo": float(report.ratings.elo[i]),
                "elo_ci95": [float(report.ratings.low[i]), float(report.ratings.high[i])],
                "ms_per_decision": float(report.ms_per_decision[i]),
            }
            for i, agent in enumerate(report.agents)
        ],
        "pairs": [
            {
                "agents": [report.agents[a], report.agents[b]],
                "points_per_deal": float(report.pair_mean[p]),
                "ci95": [float(report.pair_low[p]), float(report.pair_high[p])],
            }
            for p, (a, b) in enumerate(report.duplicate.pairs)
        ],
    }


def write_plots(report: Report, directory: Path) -> list[Path]:
    """Standings, pairwise heat map, ratings and convergence plots as PNG files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    agents = report.agents
    n = len(agents)
    written = []

    def save(figure, name: str) -> None:
        path = directory / name
        figure.tight_layout()
        figure.savefig(path, dpi=120)
        plt.close(figure)
        written.append(path)

    order = np.argsort(-report.mean)
    figure, axes = plt.subplots(figsize=(1.5 + 1.2 * n, 4))
    axes.bar(range(n), report.mean[order], color="tab:blue",
             yerr=[report.mean[order] - report.low[order], report.high[order] - report.mean[order]],
             capsize=6)
    axes.set_xticks(range(n), [agents[i] for i in order], rotation=20)
    axes.axhline(0, color="black", linewidth=0.8)
    axes.set_ylabel("duplicate points per deal (95% CI)")
    axes.set_title("standings")
    save(figure, "standings.png")

    matrix = np.full((n, n), np.nan)
    for p, (a, b) in enumerate(report.duplicate.pairs):
        matrix[a, b], matrix[b, a] = report.pair_mean[p], -report.pair_mean[p]
    limit = max(1e-9, float(np.nanmax(np.abs(matrix)))) if n > 1 else 1.0
    figure, axes = plt.subplots(figsize=(2 + 1.1 * n, 1.5 + 1.0 * n))
    image = axes.imshow(matrix, cmap="RdBu", vmin=-limit, vmax=limit)
    axes.set_xticks(range(n), agents, rotation=20)
    axes.set_yticks(range(n), agents)
    for a in range(n):
        for b in range(n):
            if not np.isnan(matrix[a, b]):
                axes.text(b, a, f"{matrix[a, b]:+.1f}", ha="center", va="center")
    figure.colorbar(image, label="row agent's points per deal")
    axes.set_title("pairwise duplicate score")
    save(figure, "pairwise.png")

    ratings = report.ratings
    order = np.argsort(-ratings.elo)
    figure, axes = plt.subplots(figsize=(1.5 + 1.2 * n, 4))
    axes.errorbar(range(n), ratings.elo[order], fmt="o", capsize=6,
                  yerr=[ratings.elo[order] - ratings.low[order], ratings.high[order] - ratings.elo[order]])
    axes.set_xticks(range(n), [agents[i] for i in order], rotation=20)
    axes.set_ylabel("Bradley-Terry rating, Elo scale (95% CI)")
    axes.set_title("ratings")
    save(figure, "ratings.png")

    figure, axes = plt.subplots(figsize=(7, 4))
    count = np.arange(1, len(report.duplicate.deals) + 1)
    for p, (a, b) in enumerate(report.duplicate.pairs):
        scores = report.duplicate.scores[:, p]
        running = np.cumsum(scores) / count
        spread = np.sqrt(np.maximum(np.cumsum(scores**2) / count - running**2, 0) / count)
        line = axes.plot(count, running, label=f"{agents[a]} vs {agents[b]}")[0]
        axes.fill_between(count, running - 1.96 * spread, running + 1.96 * spread, alpha=0.2,
                          color=line.get_color())
    axes.set_xscale("log")
    axes.set_xlabel("duplicate deals")
    axes.set_ylabel("running mean points per deal")
    axes.legend(fontsize="small")
    axes.set_title("convergence")
    save(figure, "convergence.png")
    return written


def report(
    directory: str | Path, plots: bool = True, resamples: int = 2000, seed: int = 0
) -> tuple[str, list[Path]]:
    """Build the report of ``directory``: its text, and the files written to ``directory/report``."""
    result = build_report(directory, resamples, seed)
    out = Path(directory) / "report"
    out.mkdir(exist_ok=True)
    (out / "summary.json").write_text(json.dumps(summary_json(result), indent=1))
    written = [out / "summary.json"]
    if plots:
        written += write_plots(result, out)
    return format_report(result), written


# ---- two estimators side by side ---------------------------------------------------------
@dataclass
class Comparison:
    """Standings and pairs under the plain duplicate score and a variance-reduced one."""

    agents: list[str]
    pairs: list[tuple[int, int]]
    deals: int
    plain: tuple[np.ndarray, np.ndarray, np.ndarray]  # per agent: mean, low, high
    reduced: tuple[np.ndarray, np.ndarray, np.ndarray]
    pair_plain: tuple[np.ndarray, np.ndarray, np.ndarray]  # per pair
    pair_reduced: tuple[np.ndarray, np.ndarray, np.ndarray]

    @staticmethod
    def narrowing(plain: tuple[np.ndarray, ...], reduced: tuple[np.ndarray, ...]) -> np.ndarray:
        """How many times narrower the reduced interval is."""
        return (plain[2] - plain[1]) / np.maximum(reduced[2] - reduced[1], 1e-12)

    def to_json(self) -> dict[str, Any]:
        def entry(plain, reduced, i):
            return {"plain": float(plain[0][i]), "plain_ci95": [float(plain[1][i]), float(plain[2][i])],
                    "reduced": float(reduced[0][i]),
                    "reduced_ci95": [float(reduced[1][i]), float(reduced[2][i])],
                    "narrowing": float(self.narrowing(plain, reduced)[i])}

        standings = [{"agent": agent, **entry(self.plain, self.reduced, i)}
                     for i, agent in enumerate(self.agents)]
        pairs = [{"agents": [self.agents[a], self.agents[b]], **entry(self.pair_plain, self.pair_reduced, p)}
                 for p, (a, b) in enumerate(self.pairs)]
        return {"deals": self.deals, "standings": standings, "pairs": pairs}


def compare_estimators(plain: DuplicateTable, reduced: DuplicateTable, resamples: int = 2000,
                       seed: int = 0) -> Comparison:
    """Bootstrap intervals of both estimators over the same resampled deals (the deals must agree)."""
    if not np.array_equal(plain.deals, reduced.deals):
        raise ValueError("the two estimators must score the same deals")
    both = np.hstack([plain.agent_scores(), reduced.agent_scores()])
    mean, low, high = bootstrap_mean_ci(both, resamples=resamples, seed=seed)
    n = len(plain.agents)
    pairs = np.hstack([plain.scores, reduced.scores])
    pair_mean, pair_low, pair_high = bootstrap_mean_ci(pairs, resamples=resamples, seed=seed + 1)
    k = len(plain.pairs)
    return Comparison(plain.agents, plain.pairs, len(plain.deals),
                      (mean[:n], low[:n], high[:n]), (mean[n:], low[n:], high[n:]),
                      (pair_mean[:k], pair_low[:k], pair_high[:k]),
                      (pair_mean[k:], pair_low[k:], pair_high[k:]))


def format_comparison(comparison: Comparison, name: str = "aivat") -> str:
    """The standings and pairs under both estimators, with how many times narrower the intervals got."""
    def cells(values, i):
        return [f"{values[0][i]:+.2f}", f"[{values[1][i]:+.2f}, {values[2][i]:+.2f}]"]

    narrowing = Comparison.narrowing(comparison.plain, comparison.reduced)
    order = np.argsort(-comparison.plain[0])
    rows = [[f"{rank}. {comparison.agents[i]}", *cells(comparison.plain, i), *cells(comparison.reduced, i),
             f"{narrowing[i]:.2f}x"] for rank, i in enumerate(order, start=1)]
    header = ["agent", "plain", "95% CI", name, "95% CI", "narrower"]
    lines = [f"standings, plain and {name} estimators ({comparison.deals} duplicate deals; points per deal "
             f"against the field; 95% bootstrap CI)", _format_table(header, rows), ""]
    pair_narrowing = Comparison.narrowing(comparison.pair_plain, comparison.pair_reduced)
    rows = [[f"{comparison.agents[a]} vs {comparison.agents[b]}", *cells(comparison.pair_plain, p),
             *cells(comparison.pair_reduced, p), f"{pair_narrowing[p]:.2f}x"]
            for p, (a, b) in enumerate(comparison.pairs)]
    lines += [f"pairs (first agent's duplicate points per deal), plain and {name}",
              _format_table(["pair", *header[1:]], rows)]
    return "\n".join(lines)
