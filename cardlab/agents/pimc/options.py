"""The options of the PIMC agent, and the columns of the row its kernels read.

:data:`OPTIONS` is the one declaration read by :class:`~cardlab.agents.pimc.PIMCBot`,
the registry's ``make_pimc`` and the arena's compiled loop.
"""

from __future__ import annotations

from cardlab.agents.options import Option, OptionSet

# Columns of the options row that the kernels read.
WORLDS = 0
BIDDING = 1
BID_WORLDS = 2

# Codes of the bidding choices.
BID_BY_RULES = 0
BID_BY_SIMULATION = 1

#: The most worlds of a decision: each is a double-dummy solve of up to a millisecond or so, and the
#: kernel that solves them is not stopped by Ctrl-C until it returns.
MAX_WORLDS = 10_000

OPTIONS = OptionSet("pimc", (
    Option("worlds", "int", 20, "sampled worlds solved double-dummy per card played (without time_ms)",
           low=1, high=MAX_WORLDS, column=WORLDS),
    Option("time_ms", "float", None, "a clock budget per card instead: worlds until it is spent",
           low=0, low_open=True, high=3_600_000),
    Option("bidding", "choice", "simulation",
           "bids by simulation (the mean score of each contract over sampled worlds solved "
           "double-dummy: Kaiser's net score, Twenty-Eight's game points) or by the rule-based player",
           choices={"rules": BID_BY_RULES, "simulation": BID_BY_SIMULATION}, column=BIDDING),
    Option("bid_worlds", "int", 8, "sampled worlds per bidding decision", low=1, high=MAX_WORLDS // 10,
           column=BID_WORLDS),
))
