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
# # Study 1 — Kaiser bidding: what a hand is worth, and what the bidder leaves behind
#
# The dataset is rule-based self-play: the rule-based player in all four seats,
# one hand each deal (dealer is seat 0), played in the compiled arena, with the
# contract as played solved double dummy on every tenth deal and the whole
# double-dummy table (and its par contract) on every hundredth. This notebook
# only reads it: `python -m experiments.kaiser_bidding` (or `make notebooks`)
# writes it, and the command of each finding below regenerates it exactly.
#
# Every number comes with its 95% interval (bootstrap over deals for means,
# Wilson for rates) and the number of deals behind it.

# %%
from preamble import finding, findings_json, mean_ci, np, open_study, pd, plot_intervals, plt, rate_ci, summarize

parameters, rows, COMMAND = open_study("kaiser_bidding", "deal x seat")
deals = rows["deal"].nunique()

# %% [markdown]
# ## The declarer's hand and the points his team takes
#
# One row per contract: the declarer's hand, the points his team took (of the
# 10 a hand holds), and what the contract scored. The trump length is the
# length of the suit he named (0 at no trump).

# %%
declarers = rows[rows["seat"] == rows["declarer"]].copy()
suits = ["clubs", "diamonds", "hearts", "spades"]
lengths = declarers[suits].to_numpy()
declarers["longest"] = lengths.max(axis=1)
declarers["second"] = np.sort(lengths, axis=1)[:, -2]
declarers["trump_length"] = np.where(declarers["trump"] >= 0,
                                     lengths[np.arange(len(lengths)), declarers["trump"].clip(0)], 0)
declarers["made"] = declarers["team_points"] >= declarers["contract_value"]
contracts = len(declarers)
thrown_in = deals - contracts
print(f"{contracts} contracts, {thrown_in} hands thrown in")
declarers[["position", "aces", "kings", "queens", "jacks", "longest", "trump_length", "five_hearts",
           "three_spades", "contract_value", "contract_no_trump", "team_points", "score"]].describe().T

# %% [markdown]
# ### A model of the points a hand takes
#
# A linear model of the declaring team's points on the declarer's own hand —
# what a bidder can count before he speaks: aces, kings, queens, jacks, the
# longest and second-longest suit, the 5♥ and 3♠, and his position in the
# auction. It is fitted on 70% of the deals and judged on the other 30%
# (split by deal), against the baseline that predicts the mean.

# %%
FEATURES = ["aces", "kings", "queens", "jacks", "longest", "second", "five_hearts", "three_spades"]


def design(frame: pd.DataFrame) -> np.ndarray:
    position = np.eye(4)[frame["position"].to_numpy()][:, 1:]  # against the first to speak
    return np.column_stack([np.ones(len(frame)), frame[FEATURES].to_numpy(float), position])


NAMES = ["intercept", *FEATURES, "position 1", "position 2", "dealer"]
rng = np.random.default_rng(0)
test_deals = rng.random(declarers["deal"].max() + 1) < 0.3
test = test_deals[declarers["deal"].to_numpy()]
train_rows, test_rows = declarers[~test], declarers[test]
coefficients, *_ = np.linalg.lstsq(design(train_rows), train_rows["team_points"].to_numpy(float), rcond=None)
prediction = design(test_rows) @ coefficients
errors = test_rows["team_points"].to_numpy() - prediction
baseline = test_rows["team_points"].to_numpy() - train_rows["team_points"].mean()
boot = []
for _ in range(200):  # coefficient intervals: refit on deals resampled with replacement
    pick = rng.integers(0, len(train_rows), len(train_rows))
    sample = train_rows.iloc[pick]
    boot.append(np.linalg.lstsq(design(sample), sample["team_points"].to_numpy(float), rcond=None)[0])
low, high = np.quantile(np.array(boot), [0.025, 0.975], axis=0)
model = pd.DataFrame({"points": coefficients, "low": low, "high": high}, index=NAMES)
model.round(2)

# %%
mae = mean_ci(np.abs(errors))
mae_baseline = mean_ci(np.abs(baseline))
rmse = float(np.sqrt(np.mean(errors**2)))
r2 = 1 - np.sum(errors**2) / np.sum(baseline**2)
print(f"out of sample ({len(test_rows)} contracts): mean absolute error {mae[0]:.2f} points "
      f"[{mae[1]:.2f}, {mae[2]:.2f}], baseline {mae_baseline[0]:.2f}; RMSE {rmse:.2f}; R^2 {r2:.2f}")

fig, ax = plt.subplots(1, 2, figsize=(11, 4))
ax[0].errorbar(model.index[1:], model["points"][1:], capsize=3, fmt="o",
               yerr=[model["points"][1:] - model["low"][1:], model["high"][1:] - model["points"][1:]])
ax[0].axhline(0, color="grey", lw=0.5)
ax[0].set_ylabel("points taken per unit (95% CI)")
ax[0].set_title("What each feature of the declarer's hand is worth")
ax[0].tick_params(axis="x", rotation=60)
bins = pd.DataFrame({"predicted": np.round(prediction), "taken": test_rows["team_points"].to_numpy()})
table = summarize(bins, "predicted", "taken", min_count=5)
plot_intervals(ax[1], table, "predicted", "taken", label="held-out contracts")
lims = [table["predicted"].min() - 0.5, table["predicted"].max() + 0.5]
ax[1].plot(lims, lims, "k--", lw=0.8, label="prediction = outcome")
ax[1].set_xlabel("predicted points of the declaring team")
ax[1].set_ylabel("points taken (mean, 95% CI)")
ax[1].set_title("Out-of-sample calibration")
ax[1].legend()
fig.tight_layout()

# %% [markdown]
# ## Bid success by level and by hand strength
#
# The share of contracts made, by the contract's value and by the model's
# estimate of the declarer's hand (in points, rounded).

# %%
declarers["strength"] = np.round(design(declarers) @ coefficients).astype(int)
by_level = summarize(declarers, "contract_value", "made", kind="rate")
by_strength = summarize(declarers, "strength", "made", kind="rate", min_count=10)
fig, ax = plt.subplots(1, 2, figsize=(11, 4))
for kind, group in declarers.groupby("contract_no_trump"):
    plot_intervals(ax[0], summarize(group, "contract_value", "made", kind="rate", min_count=5),
                   "contract_value", "made", label="no trump" if kind else "trump", offset=0.1 * kind)
ax[0].set_xlabel("contract (points bid)")
ax[0].set_ylabel("share made (95% CI)")
ax[0].set_title("Contracts made by level")
ax[0].legend()
plot_intervals(ax[1], by_strength, "strength", "made")
ax[1].set_xlabel("model estimate of the declarer's hand (points)")
ax[1].set_ylabel("share made (95% CI)")
ax[1].set_title("Contracts made by hand strength")
fig.tight_layout()
by_level

# %% [markdown]
# ## Trump or no trump
#
# No-trump contracts score double, made or failed. How often does the
# rule-based bidder choose them, how often do they make, and what do they score?
# And how often is the par contract (open hands, both teams bidding perfectly)
# a no-trump one?

# %%
kinds = []
for no_trump, group in declarers.groupby("contract_no_trump"):
    made = rate_ci(int(group["made"].sum()), len(group))
    score = mean_ci(group["score"])
    kinds.append({"contract": "no trump" if no_trump else "trump", "n": len(group), "made": made[0],
                  "made low": made[1], "made high": made[2], "score": score[0], "score low": score[1],
                  "score high": score[2]})
par_table = rows[(rows["seat"] == 0) & (rows["par_declarer"] >= 0)]
par_no_trump = rate_ci(int((par_table["par_strain"] == 4).sum()), len(par_table))
print(f"par is a no-trump contract in {par_no_trump[0]:.0%} of {len(par_table)} deals "
      f"[{par_no_trump[1]:.0%}, {par_no_trump[2]:.0%}]")
pd.DataFrame(kinds).round(3)

# %% [markdown]
# ## The dealer's privilege and the forced bid
#
# The dealer speaks last, may take the contract by *equalling* the high bid,
# and must bid when the other three pass. The dealer's team's net score per
# deal (its score minus the other team's) measures what sitting there is worth.

# %%
team_scores = rows.pivot_table(index="deal", columns="seat", values="score").to_numpy()
dealer_net = team_scores[:, 0] - team_scores[:, 1]  # dealer 0: team 0 is the dealer's team
privileged = declarers[declarers["privilege"]]
forced = declarers[declarers["forced"]]
for name, group in (("dealer equalled the high bid", privileged), ("dealer forced to bid", forced),
                    ("every other contract", declarers[~declarers["privilege"] & ~declarers["forced"]])):
    made = rate_ci(int(group["made"].sum()), len(group))
    score = mean_ci(group["score"])
    print(f"{name:>30}: {len(group):6d} contracts, made {made[0]:.1%} [{made[1]:.1%}, {made[2]:.1%}], "
          f"score {score[0]:+.2f} [{score[1]:+.2f}, {score[2]:+.2f}]")

# %% [markdown]
# ## Double dummy: the cost of hidden information
#
# On the solved deals, the declaring team's points under perfect play with all
# hands open, in the very contract the players chose, against the points the
# rule-based players actually took.

# %%
solved = declarers.dropna(subset=["dd_points"]).copy()
solved["gap"] = solved["dd_points"] - solved["team_points"]
gap = mean_ci(solved["gap"])
dd_made = rate_ci(int((solved["dd_points"] >= solved["contract_value"]).sum()), len(solved))
made_solved = rate_ci(int(solved["made"].sum()), len(solved))
fig, ax = plt.subplots(1, 2, figsize=(11, 4))
ax[0].hist(solved["gap"], bins=np.arange(-10.5, 11.5), color="tab:blue")
ax[0].set_xlabel("double-dummy points minus points taken (declaring team)")
ax[0].set_ylabel("contracts")
ax[0].set_title(f"Hidden information costs the declarer {gap[0]:.2f} points")
plot_intervals(ax[1], summarize(solved, "contract_value", "dd_points", min_count=5), "contract_value",
               "dd_points", label="double dummy")
plot_intervals(ax[1], summarize(solved, "contract_value", "team_points", min_count=5), "contract_value",
               "team_points", label="taken by the players", offset=0.1)
ax[1].set_xlabel("contract (points bid)")
ax[1].set_ylabel("declaring team's points (mean, 95% CI)")
ax[1].legend()
fig.tight_layout()
print(f"{len(solved)} solved contracts: made double dummy {dd_made[0]:.1%}, made at the table "
      f"{made_solved[0]:.1%}")

# %% [markdown]
# ## Par and the points left on the table
#
# On the deals with a whole table, *par* is the contract both teams bidding
# perfectly with open hands reach. Its net score (a team's score minus the
# other's, for the dealer's team) against the double-dummy net of the contract
# the rule-based bidders chose measures how far their auction lands from par,
# with the play held perfect on both sides: points one team or the other left
# on the table (`left`, in absolute value).

# %%
par_deals = rows[(rows["seat"] == 0) & (rows["par_declarer"] >= 0)].set_index("deal")
played = declarers.set_index("deal")
both = par_deals.merge(played[["declarer", "contract_value", "contract_no_trump", "dd_points"]],
                       left_index=True, right_index=True, suffixes=("", "_played"))
both = both.dropna(subset=["dd_points_played"])
multiplier = np.where(both["contract_no_trump_played"], 2, 1)
dd = both["dd_points_played"]
own = multiplier * np.where(dd >= both["contract_value_played"], dd, -both["contract_value_played"])
declaring_net = own - (10 - dd)
played_net = np.where(both["declarer_played"] % 2 == 0, declaring_net, -declaring_net)  # for team 0
both["left"] = np.abs(both["par_net"] - played_net)
left = mean_ci(both["left"])
same_side = rate_ci(int((both["par_declarer"] % 2 == both["declarer_played"] % 2).sum()), len(both))
print(f"{len(both)} deals with par and the played contract solved")
both[["par_declarer", "par_value", "par_strain", "par_net", "declarer_played", "contract_value_played",
      "dd_points_played", "left"]].head(10)

# %% [markdown]
# ## Findings

# %%
made_all = rate_ci(int(declarers["made"].sum()), contracts)
nt = declarers[declarers["contract_no_trump"]]
finding("model_mae", "Out of sample, the hand model predicts the declaring team's points within (mean "
        "absolute error, points)", mae, len(test_rows), COMMAND)
finding("ace_value", "Each ace in the declarer's hand adds (points to his team)",
        tuple(model.loc["aces", ["points", "low", "high"]]), len(train_rows), COMMAND)
finding("five_hearts_value", "Holding the 5 of hearts adds (points)",
        tuple(model.loc["five_hearts", ["points", "low", "high"]]), len(train_rows), COMMAND)
finding("made_rate", "The rule-based bidder makes its contract (share)", made_all, contracts, COMMAND)
finding("no_trump_share", "Share of contracts at no trump",
        rate_ci(len(nt), contracts), contracts, COMMAND)
finding("par_no_trump", "Share of par contracts at no trump", par_no_trump, len(par_table), COMMAND)
finding("dealer_net", "The dealer's team nets per deal (its score minus the other team's)",
        mean_ci(dealer_net), deals, COMMAND)
finding("forced_made", "A dealer forced to bid makes the contract (share)",
        rate_ci(int(forced["made"].sum()), len(forced)), len(forced), COMMAND)
finding("hidden_information_cost", "Perfect play with open hands takes more for the declarer, per "
        "contract (points)", gap, len(solved), COMMAND)
finding("left_on_table", "Double dummy, the rule-based auction ends this far from par (net points per "
        "deal, to either side)", left, len(both), COMMAND)
finding("par_same_side", "The rule-based auction gives the contract to the par side (share)", same_side,
        len(both), COMMAND)

# %% [markdown]
# In plain words: the bullets above are the study's findings, each with its
# number, 95% interval, deal count and the command that rebuilt the dataset.
# A Kaiser player can read the model's coefficients as a point count for
# bidding (what an ace, a king or the 5♥ adds to the team's expected take),
# the success curves as how far to stretch, and the double-dummy gap as how
# much of the deal's value is lost to not seeing the cards.

# %%
print(findings_json())
