# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Study 4 — Agents: ratings, pairwise results and strength against thinking time
#
# For each game, a duplicate round robin of the built-in agents: random, the
# rule-based player, and ISMCTS (rule-based rollouts) at several budgets of
# simulations per move. Every pair plays every deal twice, each side holding
# each hand once, so the luck of the deal cancels. The tournaments are the
# arena's (`python -m experiments.agents --game <game>`, or `make notebooks`);
# this notebook reads them with `cardlab.analysis`.
#
# A tournament still running is read as far as it went: each finding states
# its deal count, and the command resumes the tournament to its planned size.
#
# PIMC (a few worlds per card: it is the slowest entrant) joins where the
# double-dummy solver models the game (Kaiser, Twenty-Eight), and the CFR
# bidding agent where its policy file is found (`--cfr-policy-dir`, default
# `cardlab/agents/policies/<game>-coarse.npz`; the command prints why an agent is
# left out). The tables below list the agents each tournament really holds.
# The tabular `cfr` agent is not here: its policies exist only for small games
# (notebooks/small_games_solved.py).

# %%
import json

from preamble import data_dir, finding, findings_json, np, pd, plt

from cardlab.analysis.report import build_report, format_report
from experiments import agents

def started(game: str) -> bool:
    """A tournament with at least one chunk played (an unfinished one is read as far as it went)."""
    path = data_dir() / agents.dataset(game) / "manifest.json"
    return path.exists() and bool(json.loads(path.read_text())["chunks"])


GAMES = [game for game in agents.DEALS if started(game)]
reports = {game: build_report(data_dir() / agents.dataset(game), resamples=1000) for game in GAMES}
for game, report in reports.items():
    print(f"== {game}: {len(report.duplicate.deals)} of {report.planned_deals} duplicate deals; "
          f"reproduce: "
          f"{agents.command(game, report.manifest)}\n")
    print(format_report(report), "\n")

# %% [markdown]
# ## Ratings
#
# Bradley–Terry ratings on the Elo scale from the duplicate deals won and
# lost (95% bootstrap interval over deals), and the mean duplicate points per
# deal against the field.

# %%
fig, axes = plt.subplots(1, len(reports), figsize=(5 * len(reports), 4), squeeze=False)
for ax, (game, report) in zip(axes[0], reports.items(), strict=True):
    order = np.argsort(report.ratings.elo)
    elo, low, high = (np.asarray(v)[order] for v in (report.ratings.elo, report.ratings.low,
                                                      report.ratings.high))
    ax.errorbar(elo, np.arange(len(order)), xerr=[elo - low, high - elo], fmt="o", capsize=3)
    ax.set_yticks(np.arange(len(order)), [report.agents[i] for i in order])
    ax.set_xlabel("Bradley-Terry rating (Elo scale, 95% CI)")
    ax.set_title(game)
fig.tight_layout()

# %% [markdown]
# ## Pairwise matrices
#
# The row agent's duplicate points per deal against the column agent.

# %%
fig, axes = plt.subplots(1, len(reports), figsize=(5.5 * len(reports), 4.5), squeeze=False)
for ax, (game, report) in zip(axes[0], reports.items(), strict=True):
    n = len(report.agents)
    matrix = np.zeros((n, n))
    for p, (a, b) in enumerate(report.duplicate.pairs):
        matrix[a, b], matrix[b, a] = report.pair_mean[p], -report.pair_mean[p]
    bound = np.abs(matrix).max() or 1.0
    image = ax.imshow(matrix, cmap="RdBu", vmin=-bound, vmax=bound)
    ax.set_xticks(range(n), report.agents, rotation=45, ha="right")
    ax.set_yticks(range(n), report.agents)
    for i in range(n):
        for j in range(n):
            ax.text(j, i, f"{matrix[i, j]:+.1f}" if i != j else "", ha="center", va="center", fontsize=8)
    ax.set_title(f"{game}: row minus column, points per deal")
    fig.colorbar(image, ax=ax, shrink=0.8)
fig.tight_layout()

# %% [markdown]
# ## Strength against thinking time
#
# ISMCTS at each budget against the rule-based player (duplicate points per
# deal, 95% CI), against its mean thinking time per decision. The arena now
# records thinking time as CPU time; the three datasets here were played
# before that change, on the wall clock of a shared two-core machine running
# other jobs, so their times are inflated by the load (alike for every agent
# of one tournament, not across tournaments).

# %%
curves = []
for game, report in reports.items():
    rules = report.agents.index("rules")
    for p, (a, b) in enumerate(report.duplicate.pairs):
        if report.agents[a].startswith("ismcts") and b == rules or report.agents[b].startswith("ismcts") \
                and a == rules:
            sign, agent = (1, a) if b == rules else (-1, b)
            low, high = sorted((sign * report.pair_low[p], sign * report.pair_high[p]))
            curves.append({"game": game, "agent": report.agents[agent],
                           "ms per decision": report.ms_per_decision[agent],
                           "points vs rules": sign * report.pair_mean[p], "low": low, "high": high,
                           "deals": len(report.duplicate.deals)})
curves = pd.DataFrame(curves)
fig, axes = plt.subplots(1, len(reports), figsize=(5 * len(reports), 4), squeeze=False)
for ax, (game, group) in zip(axes[0], curves.groupby("game", sort=False), strict=False):
    y = group["points vs rules"].to_numpy()
    ax.errorbar(group["ms per decision"], y, yerr=[y - group["low"], group["high"] - y], fmt="o-", capsize=3)
    for _, row in group.iterrows():
        ax.annotate(row["agent"], (row["ms per decision"], row["points vs rules"]), fontsize=8,
                    textcoords="offset points", xytext=(4, 4))
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xscale("log")
    ax.set_xlabel("thinking time per decision (ms, log scale)")
    ax.set_ylabel("duplicate points per deal vs rules (95% CI)")
    ax.set_title(game)
fig.tight_layout()
curves.round(3)

# %% [markdown]
# ## Findings

# %%
for game, report in reports.items():
    command = agents.command(game, report.manifest)
    best = int(np.argmax(report.mean))
    finding(f"{game}_best", f"{game}: the strongest agent is {report.agents[best]}, with duplicate points "
            "per deal against the field", (report.mean[best], report.low[best], report.high[best]),
            len(report.duplicate.deals), command)
    rules = report.agents.index("rules")
    for _, row in curves[curves["game"] == game].iterrows():
        finding(f"{game}_{row['agent']}_vs_rules", f"{game}: {row['agent']} "
                f"({row['ms per decision']:.2g} ms a decision) against rules, duplicate points per deal",
                (row["points vs rules"], row["low"], row["high"]), row["deals"], command)
    for p, (a, b) in enumerate(report.duplicate.pairs):  # PIMC and the CFR bidder against rules
        if rules in (a, b) and not {report.agents[a], report.agents[b]} & {"random"} and not any(
                report.agents[x].startswith("ismcts") for x in (a, b)):
            sign, agent = (1, a) if b == rules else (-1, b)
            low, high = sorted((sign * report.pair_low[p], sign * report.pair_high[p]))
            finding(f"{game}_{report.agents[agent]}_vs_rules", f"{game}: {report.agents[agent]} "
                    f"({report.ms_per_decision[agent]:.2g} ms a decision) against rules, duplicate "
                    "points per deal", (sign * report.pair_mean[p], low, high), len(report.duplicate.deals),
                    command)
    random = report.agents.index("random")
    finding(f"{game}_rules_elo_over_random", f"{game}: rules' rating above random (Elo)",
            (report.ratings.elo[rules] - report.ratings.elo[random],
             report.ratings.low[rules] - report.ratings.high[random],
             report.ratings.high[rules] - report.ratings.low[random]), len(report.duplicate.deals), command)

# %% [markdown]
# In plain words: each bullet gives the number, its 95% interval, the deals and
# the command. The last interval (a difference of two ratings) is
# conservative: it combines the two agents' own intervals.

# %%
print(findings_json())
