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
# Three small games, each a whole game from its first dealt card and small
# enough to solve exactly (docs/cfr.md, "Small games solved exactly"):
#
# * **one-card Kaiser** (`kaiser_1`, [small games](../docs/rules/kaiser.md#small-games)):
#   AH, 5H, AS, 3S, one each; one auction (pass, 2, 2NT, 3, 3NT; the dealer must
#   bid if all pass), trump named if any, one trick worth 3 points (1, +5 for
#   the 5H, −3 for the 3S). 19,073 nodes.
# * **one-card Twenty-Eight** (`twenty_eight_1`,
#   [small games](../docs/rules/twenty_eight.md#small-games)): JH, 9H, JS, 9S,
#   one each; one round of bids 5 to 8 (the opener may not pass; partner may
#   overcall only with 8), the bidder's one card lies face down as the hidden
#   trump, so *which* card is placed is never a choice; a seat void in the led
#   suit chooses between discarding and calling for the trump. 12,529 nodes.
#   (The shorter ladder, bids 5 and 6, is nearly trivial: after the opening
#   everyone passes.)
# * **Literature 2x2** (`literature_2x2_4`,
#   [small games](../docs/rules/literature.md#small-games)): 2C 3C | 9C TC, one
#   card each, at most four asks before the unclaimed half-suits are void.
#   Each asking turn chooses an opponent to ask, or a claim. 25,729 nodes.
#
# CFR+ brings each game's NashConv below 1e-3; that equilibrium is the yardstick:
#
# * **loss to the equilibrium** — the agent's team against an equilibrium team,
#   each side of the table in turn: the points per deal the equilibrium team wins;
# * **NashConv** — what best responses gain against the agent in all four seats
#   (summed over the seats; 0 at an equilibrium);
# * **choices** — at each kind of decision (the *situation*: an auction turn, a
#   void in the led suit, an asking turn), how often each choice is made, by the
#   hand held.
#
# All values are exact sums over the game tree, no cards dealt at random. The
# agents' own choices are random (ISMCTS searches sampled worlds), so each *draw*
# of the dataset is one draw of every choice the agent would make; the mean over
# draws is the agent's value and the interval (95%, bootstrap over draws) says
# how well the draws pin it down. The Kaiser and Twenty-Eight rule-based players
# are deterministic (Literature's breaks ties at random) and the equilibrium is
# one fixed policy: their intervals have no width. The dataset is
# `python -m experiments.small_games_solved` (or `make notebooks`).

# %%
from collections.abc import Callable

from IPython.display import display
from preamble import finding, findings_json, mean_ci, np, open_study, pd, plt, ratio_ci

parameters, rows, COMMAND = open_study("small_games_solved", "variant x agent x draw x decision read")
VARIANTS = parameters["variants"].split(",")
AGENTS = list(dict.fromkeys(rows["agent"]))  # the equilibrium first, then the study's order
draws = rows.drop_duplicates(["variant", "agent", "deal"])  # one row per drawn policy, its values
DRAWS = draws.groupby("variant")["deal"].nunique().to_dict()
for variant in VARIANTS:
    solved = draws[draws["variant"] == variant].iloc[0]
    print(f"{variant}: {DRAWS[variant]} draws, CFR+ {solved['cfr_iterations']} iterations, equilibrium "
          f"NashConv {solved['equilibrium_nash_conv']:.1e} (target {parameters['target']:g}), "
          f"{draws.loc[draws['variant'] == variant, 'seconds'].sum():.0f} s of draws")

# %% [markdown]
# ## What the equilibrium is worth, and what each player loses to it
#
# Loss to the equilibrium and NashConv are in each game's points per deal
# (Kaiser: the trick's 3 points, a failed contract costs its bid; Twenty-Eight:
# game points, 1 to 3 for a made bid and −2 to −4 for a failed one; Literature:
# half-suits won). The outcome is each game's own: Kaiser, the hand is played in
# no trump; Twenty-Eight, the bidding side makes its bid; Literature, a
# half-suit ends void.

# %%
values = []
for (variant, agent), group in draws.groupby(["variant", "agent"], sort=False):
    for column in ("loss_to_equilibrium", "nash_conv", "dealer_side_value", "outcome"):
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
# ## How each player chooses
#
# A share of choices is the expected number of times a choice is made over the
# expected number of such decisions (both summed over the tree), with its
# interval over draws.

# %%
def share(part: pd.DataFrame, chosen: pd.Series,
          out_of: pd.Series | None = None) -> tuple[float, float, float]:
    """The share of ``part``'s decisions (rows of one variant and agent) that are ``chosen``, among those
    that are ``out_of`` (default all), with its interval over draws."""
    out_of = pd.Series(True, index=part.index) if out_of is None else out_of
    per_draw = pd.DataFrame({"deal": part["deal"], "chosen": part["weight"] * chosen,
                             "out_of": part["weight"] * out_of}).groupby("deal").sum()
    return ratio_ci(per_draw["chosen"], per_draw["out_of"])


def of(variant: str, agent: str, situation: str | None = None) -> pd.DataFrame:
    """The decision rows of one variant and agent (one situation, or those starting with it)."""
    part = rows[(rows["variant"] == variant) & (rows["agent"] == agent)]
    return part if situation is None else part[part["situation"].str.startswith(situation)]


def choice_table(variant: str, situation: str, by_hand: bool = True) -> pd.DataFrame:
    """The share of each choice in ``situation``, per agent (and hand held)."""
    table = []
    for agent in AGENTS:
        part = of(variant, agent, situation)
        for hand, group in (part.groupby("hand", sort=True) if by_hand else [("all", part)]):
            for choice in sorted(set(part["choice"])):
                table.append({"agent": agent, "hand": hand, "choice": choice,
                              "share": share(group, group["choice"] == choice)[0]})
    return pd.DataFrame(table).pivot_table(index=["agent", "hand"], columns="choice", values="share",
                                           sort=False).round(2)


def plot_shares(ax, variant: str, measures: dict[str, Callable], title: str) -> None:
    """One bar per agent for each measure (``name -> f(part)``, ``part`` the rows of the variant and
    agent, giving an estimate), with its interval."""
    width = 0.8 / len(AGENTS)
    for k, agent in enumerate(AGENTS):
        part = of(variant, agent)
        v, lo, hi = (np.array(e) for e in zip(*[f(part) for f in measures.values()], strict=True))
        x = np.arange(len(measures)) + (k - (len(AGENTS) - 1) / 2) * width
        ax.bar(x, v, width, label=agent, yerr=[v - lo, hi - v], capsize=2)
    ax.set_xticks(np.arange(len(measures)), list(measures), rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("share of the decisions (95% CI)")
    ax.set_title(title)
    ax.legend(fontsize=8)


# %% [markdown]
# ### One-card Kaiser: the auction
#
# For each hand, the share of its auction turns on which it bids (the dealer's
# forced bid included), and the share of those bids that are no trump. A bid on
# a hand without an ace is a bluff: 5H and 3S cannot win the trick alone.

# %%
def kaiser_bid(part: pd.DataFrame) -> pd.Series:
    return part["choice"] != "pass"


def kaiser_no_trump(part: pd.DataFrame) -> pd.Series:
    return kaiser_bid(part) & part["choice"].str.contains("NT")


def kaiser_no_ace(part: pd.DataFrame) -> pd.Series:
    return ~part["hand"].str.contains("A")


KAISER = {
    **{f"bid rate, {hand}": (lambda p, h=hand: share(p[p["hand"] == h], kaiser_bid(p[p["hand"] == h])))
       for hand in ("AH", "AS", "5H", "3S")},
    "bid rate, no ace (bluff)": lambda p: share(p[kaiser_no_ace(p)], kaiser_bid(p[kaiser_no_ace(p)])),
    "no-trump share of bids": lambda p: share(p, kaiser_no_trump(p), kaiser_bid(p)),
}
if "kaiser_1" in VARIANTS:
    fig, ax = plt.subplots(figsize=(10, 3.8))
    plot_shares(ax, "kaiser_1", KAISER, "kaiser_1: the auction")
    fig.tight_layout()
    display(choice_table("kaiser_1", "auction"))

# %% [markdown]
# ### One-card Twenty-Eight: bid levels, passing, calling for the trump
#
# The opener must bid 5 to 8; the others bid higher or pass (partner only with
# 8). A jack wins its suit's trick; a nine only if its suit is trump and the
# jack of it is not played against it. A seat void in the led suit (it holds the
# other suit's card) may call for the hidden trump to be shown, and must then
# play a trump if it holds one.

# %%
def is_(situation: str, choice: str | None = None) -> Callable[[pd.DataFrame], pd.Series]:
    """Rows of ``situation`` (with ``choice``: that choice only)."""
    return lambda p: (p["situation"] == situation) & (True if choice is None else p["choice"] == choice)


def jack(part: pd.DataFrame) -> pd.Series:
    return part["hand"].str.startswith("J")


TWENTY_EIGHT = {
    "opens 8, jack": lambda p: share(p[jack(p)], is_("opening bid (forced)", "bid 8")(p[jack(p)]),
                                     is_("opening bid (forced)")(p[jack(p)])),
    "opens 8, nine": lambda p: share(p[~jack(p)], is_("opening bid (forced)", "bid 8")(p[~jack(p)]),
                                     is_("opening bid (forced)")(p[~jack(p)])),
    "overcalls, jack": lambda p: share(p[jack(p)], is_("auction")(p[jack(p)]) & (p["choice"] != "pass"),
                                       is_("auction")(p[jack(p)])),
    "overcalls, nine": lambda p: share(p[~jack(p)], is_("auction")(p[~jack(p)]) & (p["choice"] != "pass"),
                                       is_("auction")(p[~jack(p)])),
    "calls for trump when void": lambda p: share(p, is_("void in the led suit", "call trump")(p),
                                                 is_("void in the led suit")(p)),
}
if "twenty_eight_1" in VARIANTS:
    fig, ax = plt.subplots(figsize=(10, 3.8))
    plot_shares(ax, "twenty_eight_1", TWENTY_EIGHT, "twenty_eight_1: bids and calls")
    fig.tight_layout()
    for situation in ("opening bid (forced)", "auction", "void in the led suit"):
        print(situation)
        display(choice_table("twenty_eight_1", situation))

# %% [markdown]
# ### Literature 2x2: asks and claims
#
# Every ask names the one other card of the asker's half-suit, so every ask
# shows the table the asker's card; the choices left are whom to ask (the
# holder, an opponent without it, or again one who refused before: an ask that
# tells the table nothing new) and when to claim, and which half-suit (one the
# claimant holds a card of, or the other: for its partner).

# %%
def asking(part: pd.DataFrame) -> pd.Series:
    return part["situation"].str.startswith("asking turn")


def claims(part: pd.DataFrame) -> pd.Series:
    return part["choice"].str.startswith("claim")


LITERATURE = {
    **{f"claims after {k} asks": (lambda p, k=k: share(p, is_(f"asking turn, {k} asks made")(p) & claims(p),
                                                      is_(f"asking turn, {k} asks made")(p)))
       for k in range(4)},
    "asks that find the card": lambda p: share(p, p["choice"] == "ask: finds it", asking(p) & ~claims(p)),
    "asks repeating a refused one": lambda p: share(p, p["choice"] == "ask again (refused before)",
                                                    asking(p) & ~claims(p)),
    "claims of the other half-suit": lambda p: share(p, p["choice"] == "claim the other half-suit",
                                                     claims(p)),
}
if "literature_2x2_4" in VARIANTS:
    fig, ax = plt.subplots(figsize=(10, 3.8))
    plot_shares(ax, "literature_2x2_4", LITERATURE, "literature_2x2_4: asks and claims")
    fig.tight_layout()
    display(choice_table("literature_2x2_4", "asking turn", by_hand=False))

# %% [markdown]
# ## Findings

# %%
MEASURES = {"kaiser_1": KAISER, "twenty_eight_1": TWENTY_EIGHT, "literature_2x2_4": LITERATURE}
KEYS = {"bid rate, no ace (bluff)": "bluff_rate", "no-trump share of bids": "no_trump_share"}


def key_of(measure: str) -> str:
    return KEYS.get(measure, measure.replace(",", "").replace(" ", "_"))


def value_of(variant: str, agent: str, measure: str) -> tuple[float, float, float]:
    row = values[(values["variant"] == variant) & (values["agent"] == agent)
                 & (values["measure"] == measure)].iloc[0]
    return row["value"], row["low"], row["high"]


for variant in VARIANTS:
    outcome = draws.loc[draws["variant"] == variant, "outcome_name"].iloc[0]
    finding(f"{variant}_dealer_side_value", f"{variant}: the equilibrium's value to the dealer's side "
            "(points per deal)", value_of(variant, "equilibrium", "dealer_side_value"), DRAWS[variant],
            COMMAND)
    for agent in AGENTS:
        if agent != "equilibrium":
            finding(f"{variant}_{agent}_loss",
                    f"{variant}: {agent} loses to the equilibrium (points per deal)",
                    value_of(variant, agent, "loss_to_equilibrium"), DRAWS[variant], COMMAND)
            finding(f"{variant}_{agent}_nash_conv", f"{variant}: NashConv of {agent} in all four seats "
                    "(points per deal, each draw of its choices)",
                    value_of(variant, agent, "nash_conv"), DRAWS[variant], COMMAND)
        finding(f"{variant}_{agent}_outcome", f"{variant}: {outcome} in {agent}'s self-play (share of deals)",
                value_of(variant, agent, "outcome"), DRAWS[variant], COMMAND)
        for measure, estimate in MEASURES.get(variant, {}).items():
            finding(f"{variant}_{agent}_{key_of(measure)}", f"{variant}: {agent}, {measure}",
                    estimate(of(variant, agent)), DRAWS[variant], COMMAND)

# %% [markdown]
# In plain words (numbers from the bullets above, on the full dataset: 200
# draws of Kaiser, 150 of Twenty-Eight, 40 of Literature, whose ISMCTS choices
# barely vary from draw to draw):
#
# **One-card Kaiser**
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
#   it bids its aces 69–75% of the time (the equilibrium 50%) and 29–34% of its
#   hands without an ace. It loses 0.80–0.82 points a deal at 30, 100 and 300
#   simulations alike (intervals 0.75–0.86); more search makes it harder to
#   exploit (NashConv 3.07, 2.45, 2.26) but not better against the equilibrium.
#
# **One-card Twenty-Eight** (game points a deal)
#
# * **The opening side is worth 0.33 game points a deal** at the equilibrium
#   (the dealer's side −0.33), and the bidding side makes its bid in 67% of the
#   deals.
# * **The equilibrium bids by its card**: it opens 8 (the top of the ladder, 2
#   game points) on every jack and never on a nine, where it opens 5, 6 or 7
#   about a third of the time each; after the opening a jack overcalls (8) on a
#   third of its turns, a nine on 3%.
# * **Calling for the trump does not matter here**: the equilibrium calls on half
#   of its voids whatever it holds, and making it always call or always discard
#   changes its value against the equilibrium by less than 1e-4 (exact; checked
#   by `tests/test_notebooks.py`, not read from the dataset).
# * **The rule-based player cannot tell a jack from a nine**: it always opens 5
#   and overcalls on half of its turns with either card, loses 0.82 game points a
#   deal to the equilibrium and best responses take 2.75 a deal from it.
# * **ISMCTS nearly finds the equilibrium**: it opens 8 on 98–100% of its jacks
#   and overcalls on 32% of a jack's turns and 4–6% of a nine's; it loses 0.064
#   game points a deal at 30 simulations (0.057–0.071), 0.033 at 100 and 0.024
#   at 300 (0.021–0.026), and NashConv falls from 0.37 to 0.15.
#
# **Literature 2x2, four asks**
#
# * **It is a draw, and every player already plays it perfectly**: the
#   equilibrium is worth 0.000 to either side; the rule-based player and ISMCTS
#   at every budget lose nothing to it (−0.0004, inside the equilibrium's own
#   NashConv of 0.001) and no seat can gain against them (NashConv 0).
# * **Nothing to signal, nothing to hide**: every ask must name the one other card
#   of the asker's half-suit, so every ask shows the table the asker's card; the
#   only choices are whom to ask and when to claim. All players claim only after
#   the first two asks, when the deduction makes a claim certain (the rule-based
#   and ISMCTS players on half of those turns, the equilibrium on 36%).
# * **The equilibrium's extra moves are free**: it sometimes claims the half-suit
#   it holds no card of (15% of its claims, for its partner), repeats an ask
#   already refused (0.7% of its asks) and lets 9% of its games end with a
#   half-suit void; these change no one's score in expectation, so a solver's
#   mixture there is indifference, not strategy.

# %%
print(findings_json())
