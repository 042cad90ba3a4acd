"""The options of the ISMCTS agent, and the columns of the row its search kernels read.

:data:`OPTIONS` is the one declaration read by :class:`~cardlab.agents.ismcts.ISMCTSBot`,
the registry's ``make_ismcts`` and the arena's compiled loop; a game's tuned
values come from its spec (``GameSpec.ismcts_defaults``).
"""

from __future__ import annotations

from cardlab.agents.options import Option, OptionSet

# Columns of the options row (``Options.row``) that the search kernels read.
SIMULATIONS = 0
EXPLORATION = 1
ROLLOUT = 2
WORLD_POOL = 3
EPSILON = 4
WIDENING = 5
ROLLOUT_DEPTH = 6
VALUE = 7
PRIOR = 8
PUCT = 9
INFERENCE = 10
INFERENCE_WEIGHT = 11

# Codes of the choices, as the kernels read them.
ROLLOUT_RANDOM = 0
ROLLOUT_RULES = 1
VALUE_ROLLOUT = 0  # play on with the rollout policy (cut off after rollout_depth moves)
VALUE_NETWORK = 1  # the value head of a policy-and-value network (cardlab.agents.network)
PRIOR_RULES = 0  # widening offers the rule-based player's choice first; selection by UCB
PRIOR_NETWORK = 1  # widening in the policy head's order; selection by PUCT with its probabilities
INFERENCE_NONE = 0  # the pool's worlds weigh by the bids they explain only
INFERENCE_NETWORK = 1  # and by a hand-inference model's belief in where they put the cards

#: The largest search tree an option may ask for: about 1.2 GB of nodes (3.6 GB when reused).
MAX_TREE_NODES = 10_000_000

OPTIONS = OptionSet("ismcts", (
    Option("simulations", "int", 1000, "iterations per move (without time_ms)",
           low=1, high=MAX_TREE_NODES, column=SIMULATIONS),
    Option("time_ms", "float", None, "a clock budget per move instead; results depend on the machine",
           low=0, low_open=True, high=3_600_000),
    Option("rollout", "choice", "rules", "the rollout policy: the rule-based player or uniform",
           choices={"random": ROLLOUT_RANDOM, "rules": ROLLOUT_RULES}, column=ROLLOUT),
    Option("exploration", "float", 0.25, "UCB constant, for rewards scaled to about [-1, 1]",
           low=0, column=EXPLORATION),
    Option("reuse_tree", "bool", False, "keep the subtree of the position reached between moves"),
    Option("workers", "int", 1, "root parallelism: searches in that many processes, visits summed",
           low=1, high=256),
    Option("debug", "bool", False, "check that sampled worlds match the searcher's information"),
    Option("max_nodes", "int", 1_000_000, "tree capacity under time_ms", low=1,
           high=MAX_TREE_NODES),
    Option("world_pool", "int", 400, "worlds per move weighted by the others' bids; 0: uniform",
           low=0, high=1_000_000, column=WORLD_POOL),
    Option("epsilon", "float", 0.1, "a pooled world's weight factor per bid it does not explain",
           low=0, low_open=True, high=1, column=EPSILON),
    Option("widening", "float", 1.0, "a node offers 1 + widening * sqrt(visits) actions; 0: all",
           low=0, column=WIDENING),
    Option("rollout_depth", "int", 0, "moves before a rollout stops at the static evaluation; 0: end",
           low=0, high=10_000, column=ROLLOUT_DEPTH, needs="has_static_evaluation"),
    Option("value", "choice", "rollout", "how a new leaf is valued: a rollout with the rollout policy, "
           "or the network's value head", choices={"rollout": VALUE_ROLLOUT, "net": VALUE_NETWORK},
           column=VALUE),
    Option("prior", "choice", "rules", "which actions a node offers first: the rule-based player's "
           "(UCB), or the network's policy (its order, and PUCT selection)",
           choices={"rules": PRIOR_RULES, "net": PRIOR_NETWORK}, column=PRIOR),
    Option("puct", "float", 1.0, "weight of the network's prior in PUCT selection (prior=net)",
           low=0, high=1000, column=PUCT),
    Option("model", "text", None, "the network of prior=net and value=net (.npz of cardlab train); "
           "default: the model committed for the game"),
    Option("inference", "choice", "none", "net: weigh the world pool's worlds by a hand-inference "
           "model's belief in where each puts the hidden cards", choices={"none": INFERENCE_NONE,
                                                                          "net": INFERENCE_NETWORK},
           column=INFERENCE),
    Option("inference_weight", "float", 1.0, "the power of that belief in a world's weight (inference=net)",
           low=0, high=100, column=INFERENCE_WEIGHT),
    Option("inference_model", "text", None, "the hand-inference model of inference=net (.npz of cardlab "
           "train --algo holders); default: the one committed for the game"),
), game_defaults="ismcts_defaults")


def uses_policy_network(values: dict) -> bool:
    """True if the options ``values`` (given or resolved) read a policy-and-value network."""
    return values.get("prior") == "net" or values.get("value") == "net"


def uses_beliefs(values: dict) -> bool:
    """True if the options ``values`` (given or resolved) read a hand-inference model."""
    return values.get("inference") == "net"


def uses_network(values: dict) -> bool:
    """True if the options ``values`` need a network of either kind (the search that reads one)."""
    return uses_policy_network(values) or uses_beliefs(values)

