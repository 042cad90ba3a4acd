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
# # Study 2 — Twenty-Eight bidding: what four cards are worth
#
# In Twenty-Eight the first round of bidding is on four cards. The dataset is
# rule-based self-play (all four seats, dealer seat 0, the standard hand) in
# the compiled arena, one row per deal and seat: the seat's first four cards,
# its bids, the auction's outcome, the second-round raises, the call for the
# hidden trump, and the card points and game points its team got. This
# notebook only reads it (`python -m experiments.twenty_eight_bidding`, or
# `make notebooks`).
#
# What it measures is how the rule-based players fare: the chance that a
# bidder's team reaches a bid given the bidder's first four cards, when the
# rest of the auction and the play are the rule-based player's. Every number
# has its 95% interval (Wilson for rates, bootstrap over deals for means).

# %%
from preamble import finding, findings_json, mean_ci, np, open_study, pd, plot_intervals, plt, rate_ci, summarize

from cardlab.games.twenty_eight.rules import GAME_POINT_BANDS, MAX_BID, MIN_BID

parameters, rows, COMMAND = open_study("twenty_eight_bidding", "deal x seat")
deals = rows["deal"].nunique()


def game_points(bid: np.ndarray, made: np.ndarray) -> np.ndarray:
    """Ruling 8's game points of the bidding team (the game's band table)."""
    band = np.searchsorted(GAME_POINT_BANDS[:, 0], bid)
    return np.where(made, GAME_POINT_BANDS[band, 1], GAME_POINT_BANDS[band, 2])


# %% [markdown]
# ## The chance of making each bid, from the first four cards
#
# For each bidder (the seat that won the auction), the card points its team
# took decide which bids it would have made. Grouped by the card points among
# the bidder's first four cards (J 3, 9 2, A 1, 10 1), the share of bidders
# whose team took at least *b* points is the chance of making bid *b*.

# %%
bidders = rows[rows["seat"] == rows["bidder"]].copy()
bidders["made"] = bidders["team_card_points"] >= bidders["final_bid"]
bidders["points_class"] = pd.cut(bidders["points4"], [-1, 2, 4, 6, 8, 12],
                                 labels=["0-2", "3-4", "5-6", "7-8", "9+"])
BIDS = np.arange(MIN_BID, MAX_BID + 1)
chance = []
for label, group in bidders.groupby("points_class", observed=True):
    for bid in BIDS:
        p, low, high = rate_ci(int((group["team_card_points"] >= bid).sum()), len(group))
        chance.append({"first four points": label, "bid": bid, "n": len(group), "chance": p, "low": low,
                       "high": high})
chance = pd.DataFrame(chance)
fig, ax = plt.subplots(figsize=(7, 4))
for k, (label, group) in enumerate(chance.groupby("first four points", observed=True)):
    plot_intervals(ax, group, "bid", "chance", label=f"{label} points in the first four", offset=0.05 * k)
ax.set_xlabel("bid (card points)")
ax.set_ylabel("chance the bidder's team takes it (95% CI)")
ax.set_title("Making a bid, by the bidder's first four cards")
ax.legend(fontsize=8)
fig.tight_layout()
chance.pivot_table(index="first four points", columns="bid", values="chance", observed=True).round(2)

# %% [markdown]
# ## The bid-advice table
#
# For a four-card hand class — the number of jacks and the card points of the
# four cards — the expected game points of each bid: the chance of making it
# times the game points a made bid scores, plus the chance of failing times
# what a failed bid costs (ruling 8: 1/−2 up to 19, 2/−3 up to 24, 3/−4 above).
# The best bid of each class is marked.

# %%
bidders["hand_class"] = bidders["jacks4"].astype(str) + "J, " + bidders["points_class"].astype(str) + " pts"
advice = {}
for label, group in bidders.groupby("hand_class"):
    if len(group) < 30:
        continue
    taken = group["team_card_points"].to_numpy()[:, None]
    advice[label] = game_points(BIDS[None, :].repeat(len(group), 0), taken >= BIDS[None, :]).mean(axis=0)
advice = pd.DataFrame(advice, index=BIDS).T
advice["best bid"] = advice.idxmax(axis=1)
advice["n"] = bidders.groupby("hand_class").size().reindex(advice.index)
advice.round(2)

# %% [markdown]
# ## Raising in the second round
#
# After the trump is placed, the bidder (or his partner) may raise to 24 or
# more on all eight cards. A raise's value: the game points the team scored
# against those it would have scored keeping the first-round bid, with the same
# card points taken.

# %%
contracts = bidders.copy()
contracts["raised"] = contracts["raised_by"] >= 0
kept = game_points(contracts["first_round_high"].to_numpy(),
                   contracts["team_card_points"].to_numpy() >= contracts["first_round_high"].to_numpy())
contracts["raise_value"] = contracts["game_points"] - kept
raised = contracts[contracts["raised"]]
raise_rate = rate_ci(len(raised), len(contracts))
raise_value = mean_ci(raised["raise_value"])
raised_made = rate_ci(int(raised["made"].sum()), len(raised))
print(f"raised in {raise_rate[0]:.1%} of {len(contracts)} contracts; made {raised_made[0]:.1%}; "
      f"value of the raise {raise_value[0]:+.2f} game points [{raise_value[1]:+.2f}, {raise_value[2]:+.2f}]")
summarize(contracts, "raised", "game_points")

# %% [markdown]
# ## Calling for the hidden trump
#
# A defender who cannot follow suit may call for the trump to be shown. The
# defenders' game points, by the trick in which the trump was shown and by
# who showed it (a defender's call, or the bidder trumping on his own):
# observational, since the players call when their hands suggest it.

# %%
defenders = rows[(rows["bidder"] >= 0) & ~rows["declaring"] & (rows["seat"] % 2 == 1 - rows["bidder"] % 2)]
defenders = defenders[defenders["seat"] == (defenders["bidder"] + 1) % 4].copy()  # one row per deal
defenders["how"] = np.select([defenders["caller"] >= 0, defenders["shown_in_trick"] >= 0],
                             ["a defender called", "shown by the bidder"], "never shown")
calls = summarize(defenders, ["how", "shown_in_trick"], "game_points", min_count=20)
fig, ax = plt.subplots(figsize=(7, 4))
for k, (how, group) in enumerate(calls[calls["shown_in_trick"] >= 0].groupby("how")):
    plot_intervals(ax, group, "shown_in_trick", "game_points", label=how, offset=0.1 * k)
ax.axhline(0, color="grey", lw=0.5)
ax.set_xlabel("trick in which the trump was shown (0 = first)")
ax.set_ylabel("defenders' game points (mean, 95% CI)")
ax.set_title("When the hidden trump comes out")
ax.legend()
fig.tight_layout()
summarize(defenders, "how", "game_points")

# %% [markdown]
# ## The first bidder's redeal
#
# The opener (the seat after the dealer) may ask for a redeal when his first
# four cards hold no points; the hand is then void.

# %%
openers = rows[rows["position"] == 0]
pointless = openers[openers["points4"] == 0]
redeal_rate = rate_ci(int(openers["redeal"].sum()), len(openers))
redeal_when_pointless = rate_ci(int(pointless["redeal"].sum()), len(pointless))
print(f"pointless first four for the opener: {len(pointless) / len(openers):.1%} of deals; he asks for "
      f"a redeal in {redeal_when_pointless[0]:.1%} of those; redeals in {redeal_rate[0]:.2%} of all deals")

# %% [markdown]
# ## Findings

# %%
made_all = rate_ci(int(bidders["made"].sum()), len(bidders))
finding("made_rate", "The rule-based bidder's team makes its final bid (share)", made_all, len(bidders),
        COMMAND)
strong = bidders[bidders["points4"] >= 7]
finding("make_20_strong", "With 7 or more points in the first four cards, the bidder's team takes 20 or "
        "more (share)", rate_ci(int((strong["team_card_points"] >= 20).sum()), len(strong)), len(strong),
        COMMAND)
finding("raise_rate", "Contracts raised in the second round (share)", raise_rate, len(contracts), COMMAND)
finding("raise_value", "A second-round raise changes the team's game points by", raise_value, len(raised),
        COMMAND)
called = defenders[defenders["how"] == "a defender called"]
finding("call_defenders", "When a defender calls for the trump, the defenders score (game points per hand)",
        mean_ci(called["game_points"]), len(called), COMMAND)
finding("redeal_rate", "The opener asks for a redeal (share of deals)", redeal_rate, len(openers), COMMAND)

# %% [markdown]
# In plain words: the bullets above, each with its number, interval, deal
# count and command. The chance curves and the advice table say how high a
# four-card hand can open when the partner and the play are the rule-based
# player's; the raise and the call are measured on the same self-play.

# %%
print(findings_json())
