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
# # Study 6 — How good is a bot, really: exploitability lower bounds and variance-reduced scores
#
# Two questions a duplicate round robin cannot answer: *how exploitable is
# this bot* (it can beat every other bot and still lose to a player who adapts
# to it), and *how many deals does a match need*. This notebook reads the
# dataset of `python -m experiments.evaluation --game <game>` (or `make
# notebooks`):
#
# 1. **Local best response** (LBR, Lisý and Bowling 2017; `cardlab exploit`): a
#    responder team best-responds move by move to each agent's actual play. The
#    points per deal the agent loses to it are a lower bound on the agent's
#    exploitability.
# 2. **The check on the small games solved exactly**: LBR, one seat alone,
#    against the exact best response to the same policy.
# 3. **AIVAT** (Burch et al. 2018; `cardlab report --estimator aivat`): the same
#    duplicate scores with zero-mean corrections for the luck of the cards and
#    of the agents' known random draws, and how much narrower the intervals get.
#
# The methods, their estimators and the value function are in docs/evaluation.md.
# Every finding states its deal count and the command that made its data.

# %%
import json

from preamble import data_dir, finding, findings_json, np, pd, plt

from cardlab.analysis.stats import bootstrap_mean_ci
from experiments import evaluation

FOLDERS = {game: data_dir() / evaluation.dataset(game) for game in evaluation.EXACT_VARIANTS
           if (data_dir() / evaluation.dataset(game)).exists()}
GAMES = [game for game in evaluation.LBR_DEALS if game in FOLDERS]  # Literature: the exact check only
print("datasets:", {game: str(folder) for game, folder in FOLDERS.items()})

# %% [markdown]
# ## 1. Local best response against each agent
#
# Each deal is played twice, the agent holding each side once and the
# responder every other seat; a deal's score is what the agent loses, summed
# over its two seatings (the arena's duplicate points). The searching agents
# cost the responder one search per modelled move in every rollout, so they
# get few deals and wide intervals. An interval above zero is evidence of
# exploitability; the bound is only as tight as LBR's one-step lookahead.

# %%
lbr = pd.DataFrame([
    {"game": game, "agent": run["label"], "deals": run["deals"], "points lost": run["points_lost_per_deal"],
     "low": run["ci95"][0], "high": run["ci95"][1],
     "responder ms/decision": 1000 * run["responder_seconds"] / max(1, run["responder_decisions"]),
     "command": run["command"]}
    for game in GAMES for run in evaluation.load_lbr(FOLDERS[game])])
lbr.drop(columns="command").round(3) if len(lbr) else lbr

# %%
if len(lbr):
    fig, axes = plt.subplots(1, len(GAMES), figsize=(5.5 * len(GAMES), 3.8), squeeze=False)
    for ax, (game, group) in zip(axes[0], lbr.groupby("game", sort=False), strict=False):
        y = group["points lost"].to_numpy()
        ax.errorbar(np.arange(len(group)), y, yerr=[y - group["low"], group["high"] - y], fmt="o", capsize=4)
        ax.set_xticks(np.arange(len(group)), group["agent"], rotation=20)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_ylabel("points per deal lost to LBR (95% CI)")
        ax.set_title(game)
    fig.tight_layout()

# %% [markdown]
# ## 2. LBR against the exact best response, on the small games
#
# On the one-card games and Literature 2×2 the whole tree is solved: each seat
# alone plays LBR (the very kernel `cardlab exploit` plays, asked once per
# information set) while every other seat plays the agent, and the three
# values below are exact. LBR never exceeds the best response; `share` is the
# part of the best response's gain over the agent's own play that LBR takes.

# %%
checks = {game: json.loads((folder / "exact.json").read_text()) for game, folder in FOLDERS.items()
          if (folder / "exact.json").exists()}
exact = pd.DataFrame([{**row, "command": check["command"]}
                      for check in checks.values() for row in check["rows"]])
if len(exact):
    exact["gain"] = exact["best_response_value"] - exact["agent_value"]
    exact["found"] = exact["lbr_value"] - exact["agent_value"]
    exact["lbr_over_best"] = exact["lbr_value"] - exact["best_response_value"]
    summary = exact.groupby(["variant", "agent"], sort=False).agg(
        worst_seat=("fraction", "min"), gain=("gain", "sum"), found=("found", "sum"),
        lbr_over_best=("lbr_over_best", "max"), command=("command", "first"))
    summary["share"] = np.where(summary["gain"] > 1e-12, summary["found"] / summary["gain"].clip(lower=1e-12),
                                1.0)
    print(summary.drop(columns="command").round(3))

# %% [markdown]
# ## 3. AIVAT: the same scores, narrower intervals
#
# For each pair of the round robin, the plain duplicate score and the AIVAT
# score of every deal (the same deals), with 95% bootstrap intervals, and the
# ratio of the two standard deviations: how many times narrower the reduced
# interval is. Its own interval comes from resampling the deals. The
# correction's mean (reduced minus plain) must be zero up to its interval:
# the estimator is unbiased. ISMCTS and PIMC draw their moves from a search,
# whose distribution is unknown: their decisions get no correction and the
# rule-based player stands in for them in the value function's play-outs, so
# their pairs narrow less.

# %%
rows, scores = [], {}
for game in GAMES:
    data = evaluation.load_aivat(FOLDERS[game])
    if data is None:
        continue
    scores[game] = data
    for p, (a, b) in enumerate(data["pairs"]):
        plain, reduced = data["plain"][:, p], data["reduced"][:, p]
        (mean_plain,), (low_plain,), (high_plain,) = bootstrap_mean_ci(plain, resamples=1000)
        (mean_reduced,), (low_reduced,), (high_reduced,) = bootstrap_mean_ci(reduced, resamples=1000)
        (bias,), (bias_low,), (bias_high,) = bootstrap_mean_ci(reduced - plain, resamples=1000)
        factor = evaluation.narrowing(plain, reduced)
        rows.append({"game": game, "pair": f"{data['agents'][a]} vs {data['agents'][b]}", "deals": len(plain),
                     "plain": mean_plain, "plain low": low_plain, "plain high": high_plain,
                     "aivat": mean_reduced, "aivat low": low_reduced, "aivat high": high_reduced,
                     "narrower": factor[0], "narrower low": factor[1], "narrower high": factor[2],
                     "correction": bias, "correction low": bias_low, "correction high": bias_high,
                     "samples": data["samples"], "command": data["command"]})
aivat_table = pd.DataFrame(rows)
aivat_table.drop(columns="command").round(2) if len(aivat_table) else aivat_table

# %%
if len(aivat_table):
    fig, axes = plt.subplots(1, len(scores), figsize=(6 * len(scores), 4), squeeze=False)
    for ax, (game, group) in zip(axes[0], aivat_table.groupby("game", sort=False), strict=False):
        x = np.arange(len(group))
        for offset, name, color in ((-0.12, "plain", "tab:grey"), (0.12, "aivat", "tab:blue")):
            y = group[name].to_numpy()
            ax.errorbar(x + offset, y, yerr=[y - group[f"{name} low"], group[f"{name} high"] - y], fmt="o",
                        capsize=4, color=color, label=name)
        ax.set_xticks(x, group["pair"], rotation=25, ha="right", fontsize=8)
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_ylabel("first agent's duplicate points per deal (95% CI)")
        ax.set_title(game)
        ax.legend()
    fig.tight_layout()

# %% [markdown]
# ### A search's own decisions, corrected by rerunning it
#
# In the round robin above the searches' decisions get no term, and the
# rule-based player plays for them in the play-outs. Here one search pair,
# `rules` against `ismcts-100`, is scored on the same deals under two settings
# of the estimator: as above, and with each ISMCTS decision corrected from 8
# reruns of its search and ISMCTS playing itself in the play-outs on 10
# simulations (`--search-draws 8 --stand-in-budget 10`, docs/evaluation.md).
# The CPU time is the estimator's (its first-run compile included). This
# section's findings are stated here, with their commands.

# %%
search_rows = []
for game in GAMES:
    path = FOLDERS[game] / "aivat-search.json"
    if not path.exists():
        continue
    data = json.loads(path.read_text())
    plain = np.array(data["plain"])[:, 0]
    for run in data["runs"]:
        reduced = np.array(run["reduced"])[:, 0]
        (mean_reduced,), (low_reduced,), (high_reduced,) = bootstrap_mean_ci(reduced, resamples=1000)
        (bias,), (bias_low,), (bias_high,) = bootstrap_mean_ci(reduced - plain, resamples=1000)
        factor = evaluation.narrowing(plain, reduced)
        search_rows.append({"game": game, "pair": " vs ".join(data["agents"]), "deals": len(plain),
                            "search draws": run["search_draws"], "stand-in budget": run["stand_in_budget"],
                            "samples": run["samples"], "plain": plain.mean(), "aivat": mean_reduced,
                            "aivat low": low_reduced, "aivat high": high_reduced, "narrower": factor[0],
                            "narrower low": factor[1], "narrower high": factor[2], "correction": bias,
                            "correction low": bias_low, "correction high": bias_high,
                            "cpu s": run["cpu_seconds"], "command": data["command"]})
search_table = pd.DataFrame(search_rows)
for _, row in search_table.iterrows():
    key = (f"{row['game']}_aivat_search_{row['pair'].replace(' vs ', '_vs_')}_draws{row['search draws']}"
           f"_budget{row['stand-in budget']}")
    settings = f"{row['search draws']} reruns, stand-in budget {row['stand-in budget']}"
    finding(f"{key}_narrower", f"{row['game']}, {row['pair']} ({settings}): AIVAT interval narrower by",
            (row["narrower"], row["narrower low"], row["narrower high"]), row["deals"], row["command"])
    finding(f"{key}_correction", f"{row['game']}, {row['pair']} ({settings}): mean AIVAT correction (zero "
            "if unbiased)", (row["correction"], row["correction low"], row["correction high"]), row["deals"],
            row["command"])
search_table.drop(columns="command").round(2) if len(search_table) else search_table

# %% [markdown]
# ## Findings

# %%
for _, row in lbr.iterrows():
    finding(f"{row['game']}_lbr_{row['agent']}", f"{row['game']}: points per deal {row['agent']} loses to "
            "local best response", (row["points lost"], row["low"], row["high"]), row["deals"],
            row["command"])
for _, row in aivat_table.iterrows():
    key = f"{row['game']}_aivat_{row['pair'].replace(' vs ', '_vs_')}"
    finding(f"{key}_narrower", f"{row['game']}, {row['pair']}: AIVAT interval narrower by",
            (row["narrower"], row["narrower low"], row["narrower high"]), row["deals"], row["command"])
    finding(f"{key}_correction", f"{row['game']}, {row['pair']}: mean AIVAT correction (zero if unbiased)",
            (row["correction"], row["correction low"], row["correction high"]), row["deals"], row["command"])
if len(exact):
    for (variant, agent), row in summary.iterrows():
        finding(f"{variant}_{agent}_lbr_share", f"{variant}: LBR's share of the exact best response's gain "
                f"against {agent} (exact: no interval)", (row["share"],) * 3, 0, row["command"])

# %% [markdown]
# In plain words: each bullet gives the number, its 95% interval, the deals
# and the command. The LBR numbers are lower bounds, so an agent with a small
# one is not shown to be hard to exploit, only not shown to be easy.

# %%
print(findings_json())
