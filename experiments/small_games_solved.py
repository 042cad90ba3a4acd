"""Study 5, small games solved: what the equilibrium does that the rule-based and ISMCTS players do not.

    python -m experiments.small_games_solved                      # full size (make notebooks)
    python -m experiments.small_games_solved --set deals=8 --set agents=rules,ismcts-30 --out /tmp/sg

Each small variant (``VARIANTS`` of :mod:`experiments.small_games`: a game and
its parameters, one-card Kaiser now; a small Twenty-Eight or Literature game
joins by being listed there and given a :data:`READERS` entry) is solved
exactly: its whole tree is built from the engine and CFR+ runs until the
average policy's NashConv is below ``target``. That policy is the
equilibrium the agents are measured against, with exact values over the tree,
no dealing of cards at random:

* **loss to the equilibrium**: the agent's team against equilibrium
  opponents, both sides of the table in turn (duplicate), points per deal
  the equilibrium team wins;
* **NashConv**: what a best response gains, summed over the seats, when all
  four seats play the agent;
* **bidding**: in self-play, how often a seat holding each hand speaks, bids,
  bids no trump, and how often the contract is no trump.

The agents (rules, ISMCTS) choose at random, or may; their policy is drawn.
A *deal* of this study is one draw of every agent's choice at every
information set of the game where it has a choice, from the deal's seed (seat
p's agent from ``agent_seed(deal_seed, 0, p)``, one decision after another,
each a fresh search). Every value is exact for that drawn policy, and,
because a value is linear in each information set's choice and the draws are
independent, the mean over deals is an unbiased estimate of the agent's own
(mixed) value; its interval comes from the deals. The equilibrium is drawn
too (it is the same every deal).

One row per (variant, agent, deal, hand a seat may hold): that hand's
bidding counts, with the agent's values for the deal repeated on each of its
rows. The notebook is notebooks/small_games_solved.py.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyspiel

from cardlab.arena.agents import AgentSpec, bot_factory
from cardlab.arena.native import agent_seed
from cardlab.cfr.engine_tree import build_from_engine
from cardlab.cfr.evaluation import expected_values, nash_conv
from cardlab.cfr.solvers import TabularSolver, edge_weights, reach_row
from cardlab.cfr.tree import TERMINAL, GameTree
from cardlab.core.bitboard import cards_in
from cardlab.core.cards import ACE, cards_string, rank_of
from cardlab.core.layout import DEALER
from cardlab.games.kaiser import engine as kaiser_engine
from experiments.agents import ismcts_entrant
from experiments.frame import Study, deal_seeds, main
from experiments.small_games import VARIANTS, load

DEFAULTS: dict[str, Any] = {
    "seed": 2026,
    "deals": 200,  # draws of every agent's choices (see the module docstring)
    "chunk_size": 20,
    "variants": "kaiser_1",  # names in experiments.small_games.VARIANTS, comma-separated
    "agents": "rules,ismcts-30,ismcts-100,ismcts-300",  # rules, random, ismcts-<simulations per move>
    "target": 1e-3,  # CFR+ runs until the equilibrium's NashConv is below this
    "max_iterations": 10000,
}
EQUILIBRIUM = "equilibrium"
SOLVER = "cfr+"
CHECK_EVERY = 100  # CFR+ iterations between NashConv checks


# ---- what a game's auction looks like --------------------------------------------------------------
@dataclass(frozen=True)
class Reading:
    """One auction decision: the hand of the seat to move, and what each legal action is."""

    hand: str  # the hand's name, as the notebook's tables show it
    strong: bool  # a hand that can take the contract alone (a bid without one is a bluff)
    bids: tuple[bool, ...]  # per legal action: a bid (not a pass)
    no_trump: tuple[bool, ...]  # per legal action: a no-trump bid
    forced: bool  # the seat may not pass


def kaiser_reading(state: pyspiel.State) -> Reading | None:
    """A Kaiser auction decision; a strong hand holds an ace (in one-card Kaiser a declarer holding
    the 5H or the 3S takes the one trick only through partner's ace)."""
    s = state.array
    if s[kaiser_engine.PHASE] != kaiser_engine.BIDDING:
        return None
    seat = state.current_player()
    hand = int(s[kaiser_engine.HANDS + seat])
    names = [state.action_to_string(seat, a) for a in state.legal_actions()]
    bids = tuple(name.startswith("bid ") for name in names)
    strong = any(rank_of(card) == ACE for card in cards_in(np.int64(hand)))
    return Reading(cards_string(hand), strong, bids,
                   tuple(b and "NT" in name for b, name in zip(bids, names, strict=True)), all(bids))


def kaiser_no_trump_contract(state: pyspiel.State) -> bool:
    """A finished hand was played in no trump (with a declarer: not thrown in)."""
    s = state.array
    return bool(s[kaiser_engine.DECLARER] >= 0 and s[kaiser_engine.TRUMP] == kaiser_engine.NO_TRUMP)


#: game -> (its auction decisions, whether a finished hand's contract was no trump).
READERS: dict[str, tuple[Callable[[pyspiel.State], Reading | None], Callable[[pyspiel.State], bool]]] = {
    "kaiser": (kaiser_reading, kaiser_no_trump_contract),
}


# ---- the solved game -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Solved:
    """A small variant's tree, its equilibrium, and where in the tree the agents choose and bid."""

    game: pyspiel.Game
    tree: GameTree
    equilibrium: np.ndarray  # per information-set action
    iterations: int
    nash_conv: float
    choices: dict[int, pyspiel.State]  # a state of each information set with more than one action
    hands: tuple[str, ...]  # the hands a seat may hold, in the rows' order
    strong: np.ndarray  # per hand
    edge_hand: np.ndarray  # per edge: the mover's hand at an auction decision, else -1
    edge_bid: np.ndarray  # per edge: a bid
    edge_no_trump: np.ndarray  # per edge: a no-trump bid
    edge_forced: np.ndarray  # per edge: a bid of a seat that may not pass
    terminal_no_trump: np.ndarray  # per node: a finished hand played in no trump


def _states_in_preorder(game: pyspiel.Game):
    """Every state of the game in the tree builders' node order (preorder, children in edge order)."""
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        yield state
        if not state.is_terminal():
            actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                       else state.legal_actions())
            stack.extend(state.child(a) for a in reversed(actions))


@functools.cache
def solve(variant: str, target: float, max_iterations: int) -> Solved:
    """Build ``variant``'s tree, run CFR+ to NashConv below ``target``, and read its auction (cached)."""
    game = load(variant)
    read, no_trump_contract = READERS[VARIANTS[variant][0]]
    tree = build_from_engine(game)
    run = TabularSolver(tree, SOLVER)
    while True:
        run.run(min(CHECK_EVERY, max_iterations - run.iteration))
        policy = run.average_policy()
        distance = nash_conv(tree, policy)
        if distance < target or run.iteration >= max_iterations:
            break
    a = tree.arrays
    choices: dict[int, pyspiel.State] = {}
    hands: dict[str, int] = {}
    strong: list[bool] = []
    size = len(a.edge_child)
    edge_hand = np.full(size, -1, dtype=np.int64)
    edge_bid, edge_no_trump, edge_forced = (np.zeros(size, dtype=bool) for _ in range(3))
    terminal_no_trump = np.zeros(tree.num_nodes, dtype=bool)
    for node, state in enumerate(_states_in_preorder(game)):
        player = a.node_player[node]
        if player == TERMINAL:
            terminal_no_trump[node] = no_trump_contract(state)
            continue
        if player < 0:
            continue
        if state.current_player() != player:
            raise RuntimeError(f"{variant}: the walk left the tree's order at node {node}")
        infoset = a.node_infoset[node]
        if a.num_edges[node] > 1:
            choices.setdefault(infoset, state)
        reading = read(state)
        if reading is None:
            continue
        if reading.hand not in hands:
            hands[reading.hand] = len(hands)
            strong.append(reading.strong)
        edges = slice(a.first_edge[node], a.first_edge[node] + a.num_edges[node])
        edge_hand[edges] = hands[reading.hand]
        edge_bid[edges] = reading.bids
        edge_no_trump[edges] = reading.no_trump
        edge_forced[edges] = np.array(reading.bids) & reading.forced
    if node + 1 != tree.num_nodes:
        raise RuntimeError(f"{variant}: the walk met {node + 1} states, the tree has {tree.num_nodes} nodes")
    return Solved(game, tree, policy, run.iteration, distance, choices, tuple(hands), np.array(strong),
                  edge_hand, edge_bid, edge_no_trump, edge_forced, terminal_no_trump)


# ---- one draw of an agent's policy ---------------------------------------------------------------
def parse_agents(text: str) -> list[AgentSpec]:
    """``"rules,ismcts-100"`` as the arena's agent specs (ISMCTS with rule-based rollouts, as in study 4)."""
    specs = []
    for token in (t.strip() for t in text.split(",")):
        if token in ("rules", "random"):
            specs.append(AgentSpec(token, token))
        elif token.startswith("ismcts-") and token[7:].isdigit() and int(token[7:]) > 0:
            specs.append(ismcts_entrant(int(token[7:])))
        else:
            raise ValueError(f"agent {token!r}: expected rules, random or ismcts-<simulations>")
    if not specs or len({s.label for s in specs}) != len(specs) or EQUILIBRIUM in text.split(","):
        raise ValueError(f"agents must name distinct agents (the equilibrium is always there), got {text!r}")
    return specs


def drawn_policy(solved: Solved, spec: AgentSpec, deal_seed: int) -> np.ndarray:
    """The agent's choice at every information set with a choice, as a pure per-action policy."""
    factory = bot_factory(spec, solved.game)
    players = solved.game.num_players()
    bots = [factory(solved.game, p, int(agent_seed(np.uint64(deal_seed), 0, p, players)))
            for p in range(players)]
    a = solved.tree.arrays
    policy = np.ones(solved.tree.num_actions)  # one action: certain
    for infoset in sorted(solved.choices):
        state = solved.choices[infoset]
        bot = bots[state.current_player()]
        bot.restart_at(state)  # a fresh search at every decision
        action = bot.step(state)
        slots = slice(a.infoset_offset[infoset], a.infoset_offset[infoset + 1])
        policy[slots] = a.infoset_actions[slots] == action
    return policy


def node_reach(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """The probability of reaching every node when every seat follows ``policy``."""
    a = tree.arrays
    weights = np.empty(len(a.edge_child))
    edge_weights(a, policy, weights)
    inner = np.flatnonzero(a.node_player != TERMINAL)
    rows = np.empty((tree.num_players + 1, tree.num_nodes))
    for row in range(tree.num_players + 1):
        reach_row(a, inner, weights, rows, row)
    return rows.prod(axis=0)


def loss_to_equilibrium(solved: Solved, policy: np.ndarray) -> float:
    """Points per deal the equilibrium's team wins against ``policy``'s, each side of the table in turn."""
    tree = solved.tree
    side_of_slot = np.repeat(tree.arrays.infoset_player % 2, np.diff(tree.arrays.infoset_offset))
    values = [expected_values(tree, np.where(side_of_slot == side, policy, solved.equilibrium))[side]
              for side in (0, 1)]
    return -float(np.mean(values))  # zero-sum: the equilibrium team wins what the agent's loses


def play_chunk(parameters: dict[str, Any], deals: range) -> pa.Table:
    """The rows (variant, agent, deal, hand) of ``deals``: exact values and bidding of each drawn policy."""
    columns: dict[str, list] = {name: [] for name in (
        "variant", "agent", "deal", "hand", "strong", "speaks", "bids", "no_trump_bids", "forced_bids",
        "loss_to_equilibrium", "nash_conv", "dealer_side_value", "no_trump_contract", "cfr_iterations",
        "equilibrium_nash_conv", "seconds")}
    seeds = deal_seeds(parameters["seed"], deals)
    for variant in parameters["variants"].split(","):
        solved = solve(variant, parameters["target"], parameters["max_iterations"])
        dealer_side = int(solved.game.new_initial_state().array[DEALER]) % 2
        for spec in [AgentSpec(EQUILIBRIUM, EQUILIBRIUM), *parse_agents(parameters["agents"])]:
            for deal, deal_seed in zip(deals, seeds, strict=True):
                start = time.perf_counter()
                policy = (solved.equilibrium if spec.name == EQUILIBRIUM
                          else drawn_policy(solved, spec, int(deal_seed)))
                reach = node_reach(solved.tree, policy)
                edge = reach[solved.tree.arrays.edge_child]  # an edge's probability is its child's
                speaking = solved.edge_hand >= 0
                per_hand = {name: np.bincount(solved.edge_hand[speaking], weights=(edge * flag)[speaking],
                                              minlength=len(solved.hands))
                            for name, flag in (("speaks", 1.0), ("bids", solved.edge_bid),
                                               ("no_trump_bids", solved.edge_no_trump),
                                               ("forced_bids", solved.edge_forced))}
                deal_values = {
                    "loss_to_equilibrium": loss_to_equilibrium(solved, policy),
                    "nash_conv": nash_conv(solved.tree, policy),
                    "dealer_side_value": float(expected_values(solved.tree, policy)[dealer_side]),
                    "no_trump_contract": float(reach[solved.terminal_no_trump].sum()),
                    "cfr_iterations": solved.iterations, "equilibrium_nash_conv": solved.nash_conv,
                    "seconds": time.perf_counter() - start}
                for h, hand in enumerate(solved.hands):
                    row = {"variant": variant, "agent": spec.label, "deal": deal, "hand": hand,
                           "strong": bool(solved.strong[h]), **{k: float(v[h]) for k, v in per_hand.items()},
                           **deal_values}
                    for key, value in row.items():
                        columns[key].append(value)
    return pa.table(columns)


def check(parameters: dict[str, Any]) -> None:
    for variant in parameters["variants"].split(","):
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r}: expected one of {', '.join(VARIANTS)}")
        if VARIANTS[variant][0] not in READERS:
            raise ValueError(f"variant {variant!r}: no auction reader for {VARIANTS[variant][0]} yet")
    parse_agents(parameters["agents"])
    if not 0 < parameters["target"] < 1 or parameters["max_iterations"] < 1:
        raise ValueError("target must be in (0, 1) and max_iterations at least 1")


STUDY = Study("small-games-solved", DEFAULTS, play_chunk, check)

if __name__ == "__main__":
    main(STUDY)
