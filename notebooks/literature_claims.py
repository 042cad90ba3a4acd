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
# # Study 3 — Literature: when a claim is certain, when to claim, and what an ask reveals
#
# The dataset is the deduction player (the rule-based Literature player) in
# every seat, played in the compiled arena at five tables: 4, 6 and 8 players,
# and 6 players under `major_sets_worth_two` and `misclaim_to_opponents`. Each
# game is replayed move by move in numba with the library's card-location
# inference (what the public asks prove, plus a seat's own hand) and its
# belief-consistent sampler (the worlds ISMCTS searches). Every few asks the
# seat on turn draws worlds consistent with everything it knows, which gives
# the entropy of the hidden cards and, for every live half-suit, the chance
# that a claim by its team now would be right — and the replay knows what that
# claim would really have done. This notebook only reads the dataset:
# `python -m experiments.literature_claims` (or `make notebooks`) writes it.
#
# Rates come with 95% Wilson intervals, means with 95% bootstrap intervals.
# The half-suits of one deal are not independent, so the intervals over
# half-suits are somewhat too narrow; the regression's intervals resample
# whole deals.

# %%
from preamble import finding, findings_json, mean_ci, np, open_study, pd, plot_intervals, plt, rate_ci, summarize

from experiments import literature_claims as study

parameters, rows, COMMAND = open_study("literature_claims", None)
TABLES = [label for label, _ in study.parse_tables(parameters["tables"])]
PLAYER_TABLES = [t for t in TABLES if t.isdigit()]
deals = rows["deal"].nunique()
print(f"{deals} deals at {len(TABLES)} tables ({', '.join(TABLES)}); {len(rows)} rows "
      f"(snapshot x live half-suit); parameters {parameters}")
print(f"reproduce: {COMMAND}")

# %% [markdown]
# ## One row per half-suit and game
#
# Every half-suit is live at the first snapshot (before the first ask), so
# those rows carry each half-suit's story: the ask at which some seat's
# deduction first made a claim of it certain for its team (`certain_at`), the
# ask at which the seat on turn could first claim it for certain
# (`mover_certain_at`), the ask at which one team really first held all six
# cards (`whole_at`), and when and how it was claimed (`status`: 0 or 1 the
# team that scored it, 2 void). -1 means never.

# %%
half = rows[rows["ask"] == 0].copy()
half["claim_team"] = half["claimant"] % 2
half["scored_by_claimant"] = half["status"] == half["claim_team"]
half["void"] = half["status"] == 2
half["ever_certain"] = half["certain_at"] >= 0
games = half.drop_duplicates(["table", "deal"])
summary = []
for table in TABLES:
    h = half[half["table"] == table]
    g = games[games["table"] == table]
    summary.append({
        "table": table, "games": len(g), "asks per game": g["game_asks"].mean(),
        "certain before claimed": h["ever_certain"].mean(),
        "claimed with certainty": (h["claim_certain"] == 1).mean(),
        "scored by claimant": h["scored_by_claimant"].mean(), "void": h["void"].mean(),
    })
pd.DataFrame(summary).round(3)

# %% [markdown]
# ## When claims become certain
#
# For each ask number, the share of half-suits that some seat could already
# claim for certain (deduction from the public asks and its own hand), the
# share one team really holds whole (an all-seeing team could claim), and the
# share already claimed. The gap between the first two curves is what
# deduction has not yet proved; between the last two, claims waiting for the
# right seat to have the turn.

# %%
fig, axes = plt.subplots(1, len(PLAYER_TABLES), figsize=(4.2 * len(PLAYER_TABLES), 3.8), sharey=True)
axes = np.atleast_1d(axes)
for ax, table in zip(axes, PLAYER_TABLES, strict=True):
    h = half[half["table"] == table]
    limit = int(np.percentile(h["game_asks"], 95)) + 1
    asks = np.arange(0, limit)
    for column, label in (("whole_at", "one team holds it whole"), ("certain_at", "certain for some seat"),
                          ("claimed_at", "claimed")):
        times = h[column].to_numpy()
        share = [(times >= 0) & (times <= a) for a in asks]
        ax.plot(asks, [s.mean() for s in share], label=label)
    ax.set_title(f"{table} players")
    ax.set_xlabel("asks made")
ax0 = axes[0]
ax0.set_ylabel("share of half-suits (of all dealt)")
ax0.legend(loc="lower right")
fig.tight_layout()

certainty = []
for table in PLAYER_TABLES:
    h = half[half["table"] == table]
    known = h[h["ever_certain"]]
    lag = known.loc[(known["whole_at"] >= 0) & (known["whole_team"] == known["certain_team"])]
    certainty.append({"table": table, "half-suits": len(h),
                      "median ask certain": known["certain_at"].median(),
                      "mean ask certain": mean_ci(known["certain_at"]),
                      "truth-to-proof lag (asks)": mean_ci(lag["certain_at"] - lag["whole_at"]),
                      "ever certain": rate_ci(int(h["ever_certain"].sum()), len(h))})
pd.DataFrame(certainty)

# %% [markdown]
# ## The cost of claiming late
#
# The deduction player claims the moment the seat on turn is certain. A
# half-suit certain for one seat must wait until that seat, or a teammate who
# can see it too, has the turn; meanwhile the opponents may ask a card of it
# away. How long is the wait, and how often is a certain half-suit lost?

# %%
late = []
for table in TABLES:
    h = half[(half["table"] == table) & half["ever_certain"]]
    waited = h["claimed_at"] - h["certain_at"]
    lost = h["status"] != h["certain_team"]
    late.append({"table": table, "certain half-suits": len(h), "wait (asks)": mean_ci(waited),
                 "claimed on the spot": rate_ci(int((waited == 0).sum()), len(h)),
                 "lost after certain": rate_ci(int(lost.sum()), len(h))})
late_table = pd.DataFrame(late)
late_table

# %% [markdown]
# ## The risk of claiming early
#
# At every snapshot the seat on turn's sampler gives, for each live
# half-suit, the share of its worlds where the likeliest assignment of the six
# cards to its team is exactly right (`p_right`). The replay knows what that
# claim would really have done *now*: right, a wrong seat (void, or the
# opponents' under `misclaim_to_opponents`), or a card with the opponents
# (the opponents score it). Against that, *waiting* is what actually happened
# to the half-suit in the game. Values are in points for the seat's team
# (1, or 2 for a high half-suit under `major_sets_worth_two`). Only snapshots
# where the claim is not yet certain by deduction are used. The comparison
# counts only the half-suit in question: an early claim would also change
# the rest of the game (who holds the turn, what the table learns), which a
# replay cannot show; and "waiting" means waiting against deduction players
# on both sides.

# %%
BINS = np.array([0, 0.05, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95, 1.0001])


def values(frame: pd.DataFrame) -> pd.DataFrame:
    """The claim-now and waiting values of each row, under its table's scoring."""
    frame = frame.copy()
    v = frame["value"].to_numpy()
    wrong = np.where(frame["misclaim_to_opponents"], -v, 0)
    frame["now"] = np.select([frame["claim_now"] == study.RIGHT, frame["claim_now"] == study.WRONG_SEAT],
                             [v, wrong], -v)
    frame["wait"] = np.select([frame["status"] == frame["team"], frame["status"] == 2], [v, 0], -v)
    frame["gain"] = frame["now"] - frame["wait"]
    frame["right"] = frame["claim_now"] == study.RIGHT
    frame["p_bin"] = pd.cut(frame["p_right"], BINS, right=False, labels=False)
    return frame


uncertain = values(rows[~rows["certain_now"] & (rows["worlds_drawn"] > 0)])
calibration = []
for table in TABLES:
    u = uncertain[uncertain["table"] == table]
    for b, group in u.groupby("p_bin"):
        right = rate_ci(int(group["right"].sum()), len(group))
        gain = mean_ci(group["gain"])
        calibration.append({"table": table, "p from": BINS[int(b)], "n": len(group),
                            "mean p": group["p_right"].mean(), "mean naming chance": group["naming_chance"].mean(),
                            "right": right[0], "right low": right[1], "right high": right[2],
                            "gain": gain[0], "gain low": gain[1], "gain high": gain[2]})
calibration = pd.DataFrame(calibration)

fig, ax = plt.subplots(1, 2, figsize=(12, 4.2))
for i, table in enumerate(TABLES):
    c = calibration[(calibration["table"] == table) & (calibration["n"] >= 5)]
    if table in PLAYER_TABLES:
        ax[0].errorbar(c["mean p"] + 0.005 * i, c["right"], yerr=[c["right"] - c["right low"],
                       c["right high"] - c["right"]], fmt="o-", capsize=3, label=f"{table} players")
    ax[1].errorbar(c["mean p"] + 0.005 * i, c["gain"], yerr=[c["gain"] - c["gain low"],
                   c["gain high"] - c["gain"]], fmt="o-", capsize=3, label=table)
ax[0].plot([0, 1], [0, 1], "k--", lw=0.8, label="calibrated")
ax[0].set_xlabel("sampler's chance the likeliest claim is right")
ax[0].set_ylabel("claims that would be right now (95% CI)")
ax[0].set_title("Is the sampler calibrated?")
ax[0].legend()
ax[1].axhline(0, color="grey", lw=0.5)
ax[1].set_xlabel("sampler's chance the likeliest claim is right")
ax[1].set_ylabel("claim now minus wait (points, 95% CI)")
ax[1].set_title("Claiming early against waiting, by table")
ax[1].legend(fontsize=8)
fig.tight_layout()
calibration.round(3)

# %% [markdown]
# **Break-even.** For each table, the claim-now gain over all uncertain
# snapshots with `p_right` at or above a threshold, for a few thresholds:
# where the gain turns positive, an early claim pays for its risk.

# %%
THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95)
breakeven = []
for table in TABLES:
    u = uncertain[uncertain["table"] == table]
    for threshold in THRESHOLDS:
        pick = u[u["p_right"] >= threshold]
        gain = mean_ci(pick["gain"])
        right = rate_ci(int(pick["right"].sum()), len(pick))
        breakeven.append({"table": table, "p at least": threshold, "n": len(pick), "right": right[0],
                          "gain": gain[0], "low": gain[1], "high": gain[2]})
breakeven = pd.DataFrame(breakeven)
breakeven.round(3)

# %% [markdown]
# ## The deduction player's own estimate
#
# The deduction player judges a doubtful claim by the product over cards of
# each card's likeliest holder's share (possible holders weighted by hand
# size): it ignores the half-suit minimums and what the whole log implies.
# Against the truth of the same snapshots:

# %%
naming = []
for table in PLAYER_TABLES:
    u = uncertain[uncertain["table"] == table]
    bins = pd.cut(u["naming_chance"], BINS, right=False, labels=False)
    for b, group in u.groupby(bins):
        right = rate_ci(int(group["right"].sum()), len(group))
        naming.append({"table": table, "n": len(group), "mean naming chance": group["naming_chance"].mean(),
                       "mean sampler p": group["p_right"].mean(), "right": right[0], "low": right[1],
                       "high": right[2]})
naming = pd.DataFrame(naming)
fig, ax = plt.subplots(figsize=(6, 4.2))
for table in PLAYER_TABLES:
    c = naming[(naming["table"] == table) & (naming["n"] >= 5)]
    ax.errorbar(c["mean naming chance"], c["right"], yerr=[c["right"] - c["low"], c["high"] - c["right"]],
                fmt="o-", capsize=3, label=f"{table} players")
ax.plot([0, 1], [0, 1], "k--", lw=0.8, label="calibrated")
ax.set_xlabel("deduction player's estimate that its claim is right")
ax.set_ylabel("claims that would be right now (95% CI)")
ax.legend()
fig.tight_layout()
naming.round(3)

# %% [markdown]
# ## What an ask reveals
#
# The entropy of the hidden deal as the seat on turn sees it: for every card
# it cannot see, the entropy of who holds it among its sampled worlds, summed
# (bits; the sum of the marginals' entropies, an upper bound on the deal's
# joint entropy). Beside it, the same sum under the deduction player's own
# estimate of where each card is.

# %%
snapshots = rows.drop_duplicates(["table", "deal", "ask"])
fig, ax = plt.subplots(1, 2, figsize=(12, 4.2))
for table in PLAYER_TABLES:
    s = snapshots[snapshots["table"] == table]
    by_ask = summarize(s, "ask", "entropy_bits", min_count=10)
    plot_intervals(ax[0], by_ask, "ask", "entropy_bits", label=f"{table} players, sampler")
    heuristic = s.groupby("ask")["heuristic_bits"].mean()
    counts = s.groupby("ask").size()
    heuristic = heuristic[counts >= 10]
    ax[0].plot(heuristic.index, heuristic.to_numpy(), ":", color=ax[0].lines[-1].get_color(),
               label=f"{table} players, deduction player's estimate")
    per_card = s.assign(per_card=s["entropy_bits"] / s["hidden_cards"].clip(lower=1))
    plot_intervals(ax[1], summarize(per_card, "ask", "per_card", min_count=10), "ask", "per_card",
                   label=f"{table} players")
ax[0].set_xlabel("asks made")
ax[0].set_ylabel("entropy of the hidden cards (bits, mean, 95% CI)")
ax[0].legend(fontsize=7)
ax[1].set_xlabel("asks made")
ax[1].set_ylabel("entropy per hidden card (bits)")
ax[1].legend()
fig.tight_layout()

# %% [markdown]
# **Bits per ask.** A linear model of the seat on turn's entropy on the asks
# made so far, split into successes and failures, and the half-suits already
# claimed (each takes its cards out of play), fitted per player count; the
# intervals resample whole deals (500 bootstrap refits).

# %%
def normal_equations(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per deal, X'X and X'y of the model (so a bootstrap over deals only sums them)."""
    x = np.column_stack([np.ones(len(frame)), frame["successes"], frame["failures"], frame["resolved"]])
    y = frame["entropy_bits"].to_numpy(float)
    deal_index = frame["deal"].factorize()[0]
    xtx = np.zeros((deal_index.max() + 1, 4, 4))
    xty = np.zeros((deal_index.max() + 1, 4))
    np.add.at(xtx, deal_index, x[:, :, None] * x[:, None, :])
    np.add.at(xty, deal_index, x * y[:, None])
    return xtx, xty


rng = np.random.default_rng(0)
information = []
for table in PLAYER_TABLES:
    xtx, xty = normal_equations(snapshots[snapshots["table"] == table])
    n = len(xtx)
    estimate = np.linalg.lstsq(xtx.sum(0), xty.sum(0), rcond=None)[0]
    weights = rng.multinomial(n, np.full(n, 1 / n), size=500)  # 500 resamples of whole deals
    boot = np.array([np.linalg.lstsq(np.tensordot(w, xtx, 1), w @ xty, rcond=None)[0] for w in weights])
    low, high = np.quantile(boot, [0.025, 0.975], axis=0)
    for i, name in enumerate(("at the deal", "per successful ask", "per failed ask", "per claim")):
        information.append({"table": table, "term": name, "bits": estimate[i], "low": low[i], "high": high[i],
                            "deals": n})
information = pd.DataFrame(information)
information.round(2)

# %% [markdown]
# ## The variants
#
# `major_sets_worth_two` and `misclaim_to_opponents` change only the scores:
# the deduction player plays the same moves on the same cards (checked below
# on every deal), so the tables differ in what its claims are worth, not in
# how it plays. Under `misclaim_to_opponents` a right team with a wrong seat
# gives the half-suit away instead of voiding it, so the price of an early
# claim rises; under `major_sets_worth_two` both the gain and the loss on a
# high half-suit double.

# %%
variant_tables = [t for t in TABLES if not t.isdigit()]
base = games[games["table"] == "6"].set_index("deal")["game_asks"]
for table in variant_tables:
    same = games[games["table"] == table].set_index("deal")["game_asks"].reindex(base.index)
    print(f"{table}: the same number of asks as at 6 players in {(same == base).mean():.0%} of "
          f"{len(base)} deals")
claims = half[half["claimed_at"] >= 0]
outcomes = []
for table in TABLES:
    c = claims[claims["table"] == table]
    uncertain_claims = c[c["claim_certain"] == 0]
    outcomes.append({"table": table, "claims": len(c), "uncertain claims": len(uncertain_claims),
                     "uncertain claims scored": uncertain_claims["scored_by_claimant"].mean(),
                     "uncertain claims given away": (uncertain_claims["status"] == 1 - uncertain_claims["claim_team"]).mean(),
                     "margin per game": games.loc[games["table"] == table, "margin"].abs().mean()})
pd.DataFrame(outcomes).round(3)

# %% [markdown]
# ## Findings

# %%
def table_rate(frame: pd.DataFrame, mask: pd.Series) -> tuple[float, float, float]:
    return rate_ci(int(mask.sum()), len(frame))


for table in PLAYER_TABLES:
    h = half[half["table"] == table]
    n_deals = h["deal"].nunique()
    known = h[h["ever_certain"]]
    finding(f"certain_share_{table}", f"{table} players: share of half-suits some seat can claim for certain "
            f"before they are claimed", table_rate(h, h["ever_certain"]), n_deals, COMMAND)
    finding(f"certain_ask_{table}", f"{table} players: asks made when a half-suit first becomes certain "
            f"for some seat (mean)", mean_ci(known["certain_at"]), n_deals, COMMAND)
    lag = known[(known["whole_at"] >= 0) & (known["whole_team"] == known["certain_team"])]
    finding(f"proof_lag_{table}", f"{table} players: asks between a team really holding a half-suit whole "
            f"and a seat proving it", mean_ci(lag["certain_at"] - lag["whole_at"]), n_deals, COMMAND)
    finding(f"wait_{table}", f"{table} players: asks from certain (some seat) to claimed",
            mean_ci(known["claimed_at"] - known["certain_at"]), n_deals, COMMAND)
    finding(f"lost_{table}", f"{table} players: share of certain half-suits the certain team does not score",
            table_rate(known, known["status"] != known["certain_team"]), n_deals, COMMAND)
    likely = uncertain[(uncertain["table"] == table) & (uncertain["p_right"] >= 0.5)]
    finding(f"right_at_50_{table}", f"{table} players: not-yet-certain claims the sampler gives at least "
            f"0.5 that would be right now", rate_ci(int(likely["right"].sum()), len(likely)),
            likely["deal"].nunique(), COMMAND)
    finding(f"gain_at_50_{table}", f"{table} players: claiming such a half-suit now instead of waiting "
            f"(points per claim)", mean_ci(likely["gain"]), likely["deal"].nunique(), COMMAND)
    bits = information[(information["table"] == table)].set_index("term")
    finding(f"bits_success_{table}", f"{table} players: entropy of the hidden deal removed per successful "
            f"ask (bits, the seat on turn)", tuple(-bits.loc["per successful ask", ["bits", "high", "low"]]),
            int(bits["deals"].iloc[0]), COMMAND)
    finding(f"bits_failure_{table}", f"{table} players: entropy removed per failed ask (bits)",
            tuple(-bits.loc["per failed ask", ["bits", "high", "low"]]), int(bits["deals"].iloc[0]), COMMAND)

for table in variant_tables:
    likely = uncertain[(uncertain["table"] == table) & (uncertain["p_right"] >= 0.5)]
    finding(f"gain_at_50_{table}", f"{table}: claiming a not-yet-certain half-suit at sampler p >= 0.5 now "
            f"instead of waiting (points per claim)", mean_ci(likely["gain"]), likely["deal"].nunique(),
            COMMAND)
for table in [t for t in TABLES if t.startswith("6")]:
    doubtful = claims[(claims["table"] == table) & (claims["claim_certain"] == 0)]
    finding(f"doubtful_given_away_{table}", f"{table}: the deduction player's uncertain claims (end of the "
            f"game) that go to the opponents", table_rate(doubtful, doubtful["status"] == 1 - doubtful["claim_team"]),
            doubtful["deal"].nunique(), COMMAND)
for table in ("6", "8"):
    rated = uncertain[(uncertain["table"] == table) & (uncertain["naming_chance"] >= 0.5)]
    finding(f"naming_right_{table}", f"{table} players: not-yet-certain claims the deduction player rates "
            f"at least 0.5 (mean {rated['naming_chance'].mean():.2f}) that would be right now",
            rate_ci(int(rated["right"].sum()), len(rated)), rated["deal"].nunique(), COMMAND)

# %% [markdown]
# In plain words: the bullets above are the study's findings, each with its
# number, 95% interval, deal count and the command that rebuilt the dataset.
# What a Literature player can take from them:
#
# * **Claim the moment you can prove it, and expect to prove it late.** A
#   team holds a half-suit whole some asks before anyone can prove it, and
#   the lag grows with the table; once proven, the only risk in waiting is an
#   opponent asking a card away before the proving seat gets the turn, which
#   is small but grows with the number of players.
# * **Do not claim on odds against a table that deduces.** Even when the
#   worlds consistent with everything you know make the likeliest claim right
#   half the time or more, claiming at once loses points against waiting:
#   the half-suit is usually yours anyway, and deduction will prove it. The
#   sampler's odds are roughly calibrated; the deduction player's own quick
#   estimate is over-confident at 8 players.
# * **A refused ask gives more away than a granted one.** It tells the table
#   that the asker holds the half-suit and that the target lacks the card, so
#   it narrows the hidden deal several times more than a success does.
# * **The variants change the price, not the play.** Under
#   `misclaim_to_opponents` a claim on odds that names a wrong seat hands the
#   half-suit to the opponents instead of voiding it, and under
#   `major_sets_worth_two` a high half-suit claimed wrongly costs double:
#   both make waiting for proof worth more.

# %%
print(findings_json())
