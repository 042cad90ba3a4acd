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
# # Study 7 — Learning curves: how the committed networks got their strength
#
# Each committed model (`cardlab/agents/models/`, the `net` agent) was trained
# in two phases: imitation of the rule-based player (`cardlab train --algo
# bc`), then PPO against it (`--algo ppo --opponents rules`). The model records
# its commands, and `python -m experiments.learning_curve` replays them with
# more measurements: at checkpoints, every minute and a half, the model plays a
# fixed duplicate set of 500 deals against `rules` and against ISMCTS with 300
# simulations (rule-based rollouts). A run depends only on its seed, its
# settings and where its checkpoints fall, so the replay ends with the
# committed weights (the result says whether it did).
#
# Each point is the model's duplicate points per deal (its return summed over
# the deal's two seatings) with a normal 95% interval, against the CPU time the
# training had used so far (the learner's process, every thread; the
# measurements' own time is not counted). The results are in
# `experiments/results/learning-curve-*.json`, made by the command each prints.

# %%
import json

from preamble import ROOT, finding, findings_json, plt

RESULTS = sorted((ROOT / "experiments" / "results").glob("learning-curve-*.json"))
CURVES = [json.loads(path.read_text()) for path in RESULTS]
print("results:", [path.name for path in RESULTS])


def points(curve: dict, opponent: str) -> list[dict]:
    """Every measurement against ``opponent``, with the CPU hours of training before it (phases summed)."""
    out, before = [], 0.0
    for phase in curve["phases"]:
        for entry in phase["history"]:
            if entry["opponent"] == opponent:
                out.append({**entry, "hours": (before + entry["cpu_seconds"]) / 3600, "algo": phase["algo"]})
        before += phase["cpu_seconds"]
    return out


# %% [markdown]
# ## The curves

# %%
figure, axes = plt.subplots(1, max(len(CURVES), 1), figsize=(6 * max(len(CURVES), 1), 4), squeeze=False)
for axis, curve in zip(axes[0], CURVES, strict=False):
    for opponent in curve["opponents"]:
        measured = points(curve, opponent)
        hours = [p["hours"] for p in measured]
        axis.errorbar(hours, [p["mean"] for p in measured],
                      yerr=[[p["mean"] - p["ci95"][0] for p in measured],
                            [p["ci95"][1] - p["mean"] for p in measured]],
                      marker="o", capsize=3, label=f"net vs {opponent}")
    axis.axvline(curve["phases"][0]["cpu_seconds"] / 3600, color="grey", linestyle=":",
                 label="imitation ends, PPO starts")
    axis.axhline(0, color="black", linewidth=0.8)
    axis.set_title(curve["game"])
    axis.set_xlabel("training CPU hours")
    axis.set_ylabel("duplicate points per deal")
    axis.legend(fontsize=8)
figure.tight_layout()
plt.show()

# %% [markdown]
# ## Findings
#
# Where the replay started (the first measurement of imitation) and where it
# ended (the last measurement of PPO, the committed model), against each
# opponent; each with its deals and the command that made it.

# %%
for curve in CURVES:
    name = curve["game"].removeprefix("cardlab_")
    print(f"{curve['game']}: replayed exactly: {curve['replayed_exactly']}; "
          f"{sum(p['cpu_seconds'] for p in curve['phases']) / 60:.1f} CPU minutes of training")
    for opponent in curve["opponents"]:
        measured = points(curve, opponent)
        for when, entry in (("first", measured[0]), ("final", measured[-1])):
            finding(f"{name}_{when}_vs_{opponent.split(':')[0]}",
                    f"{curve['game']}: net vs {opponent} after {entry['hours'] * 60:.1f} CPU minutes "
                    f"({entry['algo']}, {entry['decisions']:,} decisions)",
                    (entry["mean"], *entry["ci95"]), entry["deals"], curve["command"])

# %%
print(findings_json())
