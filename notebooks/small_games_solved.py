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
# # Study 5 — Small games, solved: what the equilibrium does that our players do not
#
# One-card Kaiser (`hand_size=1`, [the small games](../docs/rules/kaiser.md#small-games)) is a
# whole game small enough to solve: four cards (AH, 5H, AS, 3S), one each, one
# auction (pass, 2, 2NT, 3, 3NT; the dealer must bid if all pass), trump named
# if any, then one trick worth 3 points (1, +5 for the 5H, -3 for the 3S). Its
# tree has 19,073 nodes; CFR+ brings NashConv below 1e-3 in a few hundred
# iterations. That equilibrium is the yardstick here:
#
# * **loss to the equilibrium** — the agent's team against an equilibrium team,
#   each side of the table in turn: the points per deal the equilibrium team wins;
# * **NashConv** — what best responses gain against the agent in all four seats
#   (summed over the seats; 0 at an equilibrium);
# * **bidding** — how often each hand bids, how many bids are no trump, how often
#   a hand without an ace bids (a *bluff*: 5H and 3S cannot win the trick alone).
#
# All values are exact sums over the game tree, no cards dealt at random. The
# agents' own choices are random (ISMCTS searches sampled worlds), so each *deal*
# of the dataset is one draw of every choice the agent would make; the mean over
# draws is the agent's value and the interval (95%, bootstrap over draws) says
# how well the draws pin it down. The rule-based player is deterministic and the
# equilibrium is one fixed policy: their intervals have no width. The dataset is
# `python -m experiments.small_games_solved` (or `make notebooks`).

# %%
from preamble import finding, findings_json, mean_ci, np, open_study, pd, plt, ratio_ci

parameters, rows, COMMAND = open_study("small_games_solved", "variant x agent x draw x hand")
VARIANTS = parameters["variants"].split(",")
AGENTS = list(dict.fromkeys(rows["agent"]))  # the equilibrium first, then the study's order
draws = rows.drop_duplicates(["variant", "agent", "deal"])  # one row per drawn policy, its values
DRAWS = rows["deal"].nunique()
for variant in VARIANTS:
    solved = draws[draws["variant"] == variant].iloc[0]
    print(f"{variant}: CFR+ {solved['cfr_iterations']} iterations, equilibrium NashConv "
          f"{solved['equilibrium_nash_conv']:.1e} (target {parameters['target']:g})")

# %% [markdown]
# ## What the equilibrium is worth, and what each player loses to it
#
# Loss to the equilibrium: points per deal (a deal is worth 3 points to the side
# that takes the trick, scored as in Kaiser: a failed contract costs its bid).
# NashConv: the four seats' best-response gains added up.

# %%
values = []
for (variant, agent), group in draws.groupby(["variant", "agent"], sort=False):
    for column in ("loss_to_equilibrium", "nash_conv", "dealer_side_value", "no_trump_contract"):
        value, low, high = mean_ci(group[column])
        values.append({"variant": variant, "agent": agent, "measure": column, "value": value, "low": low,
                       "high": high, "draws": len(group)})
values = pd.DataFrame(values)
table = values.pivot_table(index=["variant", "agent"], columns="measure", values="value", sort=False)
table.round(3)

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for ax, (measure, label) in zip(axes, [("loss_to_equilibrium", "points per deal lost to the equilibrium"),
                                       ("nash_conv", "NashConv (points per deal, 4 seats)")], strict=True):
    for v, variant in enumerate(VARIANTS):
        part = values[(values["variant"] == variant) & (values["measure"] == measure)]
        y = np.arange(len(part)) + 0.2 * v
        ax.errorbar(part["value"], y, xerr=[part["value"] - part["low"], part["high"] - part["value"]],
                    fmt="o", capsize=3, label=variant)
        ax.set_yticks(np.arange(len(part)), part["agent"])
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel(f"{label} (95% CI)")
axes[0].legend()
fig.tight_layout()

# %% [markdown]
# ## How each player bids
#
# For each hand a seat may hold: the share of its turns in the auction on which
# it bids (the dealer's forced bid included), and the share of those bids that
# are no trump. A bid on a hand without an ace is a bluff.

# %%
def bidding(group: pd.DataFrame) -> dict[str, tuple[float, float, float]]:
    """Bid rate and no-trump share of bids of the rows ``group`` (one variant and agent), with their
    intervals over draws."""
    per_draw = group.groupby("deal")[["speaks", "bids", "no_trump_bids"]].sum()
    return {"bid rate": ratio_ci(per_draw["bids"], per_draw["speaks"]),
            "no-trump share of bids": ratio_ci(per_draw["no_trump_bids"], per_draw["bids"])}


styles = []
for (variant, agent), group in rows.groupby(["variant", "agent"], sort=False):
    for hand, part in [*group.groupby("hand", sort=False), ("no ace (bluff)", group[~group["strong"]]),
                       ("all hands", group)]:
        for measure, (value, low, high) in bidding(part).items():
            styles.append({"variant": variant, "agent": agent, "hand": hand, "measure": measure,
                           "value": value, "low": low, "high": high})
styles = pd.DataFrame(styles)
styles.pivot_table(index=["variant", "agent"], columns=["measure", "hand"], values="value",
                   sort=False).round(2)

# %%
HANDS = list(dict.fromkeys(styles["hand"]))
fig, axes = plt.subplots(len(VARIANTS), 2, figsize=(12, 4 * len(VARIANTS)), squeeze=False)
for row, variant in enumerate(VARIANTS):
    for ax, measure in zip(axes[row], ("bid rate", "no-trump share of bids"), strict=True):
        width = 0.8 / len(AGENTS)
        for k, agent in enumerate(AGENTS):
            part = styles[(styles["variant"] == variant) & (styles["agent"] == agent)
                          & (styles["measure"] == measure)].set_index("hand").reindex(HANDS)
            x = np.arange(len(HANDS)) + (k - (len(AGENTS) - 1) / 2) * width
            ax.bar(x, part["value"], width, label=agent,
                   yerr=[part["value"] - part["low"], part["high"] - part["value"]], capsize=2)
        ax.set_xticks(np.arange(len(HANDS)), HANDS)
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("hand held")
        ax.set_ylabel(f"{measure} (95% CI)")
        ax.set_title(f"{variant}: {measure}")
    axes[row, 0].legend(fontsize=8)
fig.tight_layout()

# %% [markdown]
# ## Findings

# %%
for variant in VARIANTS:
    def value_of(agent: str, measure: str) -> tuple[float, float, float]:
        row = values[(values["variant"] == variant) & (values["agent"] == agent)
                     & (values["measure"] == measure)].iloc[0]
        return row["value"], row["low"], row["high"]

    def style_of(agent: str, hand: str, measure: str) -> tuple[float, float, float]:
        row = styles[(styles["variant"] == variant) & (styles["agent"] == agent) & (styles["hand"] == hand)
                     & (styles["measure"] == measure)].iloc[0]
        return row["value"], row["low"], row["high"]

    finding(f"{variant}_dealer_side_value", f"{variant}: the equilibrium's value to the dealer's side "
            "(points per deal)", value_of("equilibrium", "dealer_side_value"), DRAWS, COMMAND)
    for agent in AGENTS[1:]:
        finding(f"{variant}_{agent}_loss", f"{variant}: {agent} loses to the equilibrium (points per deal)",
                value_of(agent, "loss_to_equilibrium"), DRAWS, COMMAND)
        finding(f"{variant}_{agent}_nash_conv", f"{variant}: NashConv of {agent} in all four seats "
                "(points per deal, each draw of its choices)",
                value_of(agent, "nash_conv"), DRAWS, COMMAND)
    for agent in AGENTS:
        finding(f"{variant}_{agent}_bluff_rate", f"{variant}: {agent} bids on a hand without an ace "
                "(share of its turns)", style_of(agent, "no ace (bluff)", "bid rate"), DRAWS, COMMAND)
        finding(f"{variant}_{agent}_no_trump_share", f"{variant}: share of {agent}'s bids that are no trump",
                style_of(agent, "all hands", "no-trump share of bids"), DRAWS, COMMAND)

# %% [markdown]
# In plain words (numbers from the bullets above, on the full dataset of 200 draws):
#
# * **The dealer's side is worth 1.25 points a deal** at the equilibrium: the
#   dealer speaks last and may take the contract by equalling the high bid.
# * **The equilibrium bids only no trump, and bluffs.** The declarer leads the
#   one trick, so a led ace wins whatever the trump, and a no-trump contract
#   scores double. It bids an ace half of the time and a hand without an ace
#   (5H, 3S: only partner's ace can win the trick) a quarter of the time. This is
#   the equilibrium CFR+ finds; the game may have others that bid otherwise.
# * **The rule-based player gives away the most**: it names trump on 73% of its
#   bids, bids 71% of its hands without an ace, loses 2.62 points a deal to the
#   equilibrium, and best responses take 11.6 points a deal from it (summed over
#   the four seats).
# * **ISMCTS learns no trump, not the balance**: 78–82% of its bids are no trump,
#   it bids its aces 70–75% of the time (the equilibrium 50%) and 29–34% of its
#   hands without an ace. It loses 0.81 points a deal at 30, 100 and 300
#   simulations alike (intervals 0.75–0.86); more search makes it harder to
#   exploit (NashConv 3.07, 2.45, 2.26) but not better against the equilibrium.
#   In its own self-play the dealer's side takes 2.3–2.7 points a deal, twice
#   the equilibrium's 1.25.

# %%
print(findings_json())
