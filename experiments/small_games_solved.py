"""Study 5, small games solved: what the equilibrium does that the rule-based and ISMCTS players do not.

    python -m experiments.small_games_solved                      # full size (make notebooks)
    python -m experiments.small_games_solved --set deals=8 --set agents=rules,ismcts-30 --out /tmp/sg

Each small variant (``VARIANTS`` of :mod:`experiments.small_games`: a game and
its parameters; a game joins by a :data:`READERS` entry saying which of its
decisions to read) is solved exactly: its whole tree is built from the engine
and CFR+ runs until the average policy's NashConv is below ``target``. That
policy is the equilibrium the agents are measured against, with exact values
over the tree, no dealing of cards at random:

* **loss to the equilibrium**: the agent's team against equilibrium
  opponents, both sides of the table in turn (duplicate), points per deal
  the equilibrium team wins;
* **NashConv**: what a best response gains, summed over the seats, when all
  four seats play the agent;
* **choices**: in self-play, the expected number of times a seat holding each
  hand meets each kind of decision (Kaiser's and Twenty-Eight's auction,
  Twenty-Eight's void in the led suit, Literature's asking turn by asks made)
  and makes each choice there;
* **outcome**: the chance of the game's own outcome of interest (Kaiser: a
  no-trump contract; Twenty-Eight: the bid made; Literature: a half-suit void).

The agents (rules, ISMCTS) choose at random, or may; their policy is drawn.
A *deal* of this study is one draw of every agent's choice at every
information set of the game where it has a choice, from the deal's seed (seat
p's agent from ``agent_seed(deal_seed, 0, p)``, one decision after another,
each a fresh search). Every value is exact for that drawn policy, and,
because a value is linear in each information set's choice and the draws are
independent, the mean over deals is an unbiased estimate of the agent's own
(mixed) value; its interval comes from the deals. The equilibrium is drawn
too (it is the same every deal).

One row per (variant, agent, deal, decision read: situation, hand, choice):
its expected count, with the agent's values for the deal repeated on each of
its rows. ``variant_draws`` gives a variant whose searches cost more fewer
draws (Literature's tree has ten thousand information sets to search). The
notebook is notebooks/small_games_solved.py.
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

from cardlab.arena.entrants import AgentSpec, bot_factory
from cardlab.arena.native import agent_seed
from cardlab.cfr.engine_tree import build_from_engine
from cardlab.cfr.evaluation import expected_values, nash_conv
from cardlab.cfr.solvers import TabularSolver, edge_weights, reach_row
from cardlab.cfr.tree import TERMINAL, GameTree
from cardlab.core.cards import cards_string
from cardlab.core.layout import DEALER
from cardlab.games.kaiser import engine as kaiser_engine
from cardlab.games.literature import engine as literature_engine
from cardlab.games.twenty_eight import engine as twenty_eight_engine
from experiments.agents import ismcts_entrant
from experiments.frame import Study, deal_seeds, main
from experiments.small_games import VARIANTS, load

DEFAULTS: dict[str, Any] = {
    "seed": 2026,
    "deals": 200,  # draws of every agent's choices (see the module docstring)
    "chunk_size": 20,
    "variants": "kaiser_1,twenty_eight_1,literature_2x2_4",  # names in experiments.small_games.VARIANTS
    # variant:draws, comma-separated: a variant whose searches cost more is drawn fewer times (< 10 min each)
    "variant_draws": "twenty_eight_1:150,literature_2x2_4:40",
    "agents": "rules,ismcts-30,ismcts-100,ismcts-300",  # rules, random, ismcts-<simulations per move>
    "target": 1e-3,  # CFR+ runs until the equilibrium's NashConv is below this
    "max_iterations": 10000,
}
EQUILIBRIUM = "equilibrium"
SOLVER = "cfr+"
CHECK_EVERY = 100  # CFR+ iterations between NashConv checks


# ---- what a game's decisions look like -----------------------------------------------------------
@dataclass(frozen=True)
class Reading:
    """One decision worth reading: what kind it is, the mover's hand, and a name for each legal action."""

    situation: str  # the kind of decision, as the notebook's tables show it ("auction", ...)
    hand: str  # the mover's hand
    choices: tuple[str, ...]  # per legal action: what choosing it means (several may share a name)


def _hand_line(state: pyspiel.State, seat: int) -> str:
    """The cards of ``seat`` as the state's text prints them ("P2 hand: JH")."""
    prefix = f"P{seat} hand:"
    line = next(line for line in str(state).splitlines() if line.startswith(prefix))
    return line[len(prefix):].strip() or "-"


def kaiser_reading(state: pyspiel.State) -> Reading | None:
    """A Kaiser auction decision; every action by its name ("pass", "bid 2", "bid 2NT")."""
    s = state.array
    if s[kaiser_engine.PHASE] != kaiser_engine.BIDDING:
        return None
    seat = state.current_player()
    names = tuple(state.action_to_string(seat, a) for a in state.legal_actions())
    return Reading("auction", cards_string(int(s[kaiser_engine.HANDS + seat])), names)


def kaiser_no_trump_contract(state: pyspiel.State) -> bool:
    """A finished hand was played in no trump (with a declarer: not thrown in)."""
    s = state.array
    return bool(s[kaiser_engine.DECLARER] >= 0 and s[kaiser_engine.TRUMP] == kaiser_engine.NO_TRUMP)


def twenty_eight_reading(state: pyspiel.State) -> Reading | None:
    """A Twenty-Eight auction decision (the opening bid is forced), or a seat void in the led suit
    choosing between a discard and calling for the hidden trump."""
    s = state.array
    seat = state.current_player()
    names = tuple(state.action_to_string(seat, a) for a in state.legal_actions())
    hand = _hand_line(state, seat)
    if s[twenty_eight_engine.PHASE] == twenty_eight_engine.BIDDING:
        return Reading("auction" if "pass" in names else "opening bid (forced)", hand, names)
    if "call trump" in names:
        return Reading("void in the led suit", hand,
                       tuple(name if name == "call trump" else "discard" for name in names))
    return None


def twenty_eight_bid_made(state: pyspiel.State) -> bool:
    """A finished hand's bidding side made its bid (won game points)."""
    s = state.array
    bidder = s[twenty_eight_engine.BIDDER]
    return bool(bidder >= 0 and s[twenty_eight_engine.GAME_POINTS + bidder % 2] > 0)


def literature_reading(state: pyspiel.State) -> Reading | None:
    """A Literature asking turn (by the asks made so far): each ask as one that finds the card, one
    that misses, or one repeating an ask already refused (it tells the table nothing new); each claim
    as of a half-suit the claimant holds a card of, or of the other."""
    s = state.array
    if s[literature_engine.PHASE] != literature_engine.ASKING:
        return None
    seat = state.current_player()
    names = [state.action_to_string(seat, a) for a in state.legal_actions()]
    if not any(name.startswith("ask ") for name in names):
        return None
    text = str(state)
    hand = _hand_line(state, seat)
    choices = []
    for name in names:
        if name.startswith("ask "):
            _, asked, card = name.split()
            if f"P{seat} asks {asked} {card}: no" in text:
                choices.append("ask again (refused before)")
            else:
                choices.append("ask: finds it" if card in _hand_line(state, int(asked[1:])).split()
                               else "ask: misses")
        else:
            held = name.split()[1] in {_half_suit(card) for card in hand.split()}
            choices.append("claim a half-suit it holds" if held else "claim the other half-suit")
    return Reading(f"asking turn, {int(s[literature_engine.ASKS])} asks made", hand, tuple(choices))


def _half_suit(card: str) -> str:
    """A Literature card's half-suit as the actions name it: "2C" is C-low, "TC" C-high."""
    return f"{card[-1]}-{'low' if card[0] in '234567' else 'high'}"


def literature_void(state: pyspiel.State) -> bool:
    """A finished game left a half-suit void (a wrong claim, or unresolved at the ask limit)."""
    s = state.array
    in_play = literature_engine.NUM_HALF_SUITS[s[literature_engine.LAYOUT]]
    statuses = s[literature_engine.STATUS:literature_engine.STATUS + in_play]
    return bool((statuses == literature_engine.VOID).any())


#: game -> (its decisions read, a finished game's outcome of interest, that outcome's name).
READERS: dict[str, tuple[Callable[[pyspiel.State], Reading | None], Callable[[pyspiel.State], bool], str]] = {
    "kaiser": (kaiser_reading, kaiser_no_trump_contract, "no-trump contract"),
    "twenty_eight": (twenty_eight_reading, twenty_eight_bid_made, "bid made"),
    "literature": (literature_reading, literature_void, "a half-suit void"),
}


# ---- the solved game -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Solved:
    """A small variant's tree, its equilibrium, and which decision each edge of the tree is."""

    game: pyspiel.Game
    tree: GameTree
    equilibrium: np.ndarray  # per information-set action
    iterations: int
    nash_conv: float
    choices: dict[int, pyspiel.State]  # a state of each information set with more than one action
    labels: tuple[tuple[str, str, str], ...]  # (situation, hand, choice) read, in the rows' order
    edge_label: np.ndarray  # per edge: its index in labels, -1 if not read
    terminal_outcome: np.ndarray  # per node: a finished game with the reader's outcome


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
    """Build ``variant``'s tree, run CFR+ to NashConv below ``target``, and read its decisions (cached)."""
    game = load(variant)
    read, outcome, _ = READERS[VARIANTS[variant][0]]
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
    labels: dict[tuple[str, str, str], int] = {}
    edge_label = np.full(len(a.edge_child), -1, dtype=np.int64)
    terminal_outcome = np.zeros(tree.num_nodes, dtype=bool)
    for node, state in enumerate(_states_in_preorder(game)):
        player = a.node_player[node]
        if player == TERMINAL:
            terminal_outcome[node] = outcome(state)
            continue
        if player < 0:
            continue
        if state.current_player() != player:
            raise RuntimeError(f"{variant}: the walk left the tree's order at node {node}")
        if a.num_edges[node] > 1:
            choices.setdefault(a.node_infoset[node], state)
        reading = read(state)
        if reading is None:
            continue
        first = a.first_edge[node]
        for k, choice in enumerate(reading.choices):
            edge_label[first + k] = labels.setdefault((reading.situation, reading.hand, choice), len(labels))
    if node + 1 != tree.num_nodes:
        raise RuntimeError(f"{variant}: the walk met {node + 1} states, the tree has {tree.num_nodes} nodes")
    return Solved(game, tree, policy, run.iteration, distance, choices, tuple(labels), edge_label,
                  terminal_outcome)


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
    """The rows (variant, agent, deal, decision read) of ``deals``: exact values and choices of each
    drawn policy."""
    columns: dict[str, list] = {name: [] for name in (
        "variant", "agent", "deal", "situation", "hand", "choice", "weight", "loss_to_equilibrium",
        "nash_conv", "dealer_side_value", "outcome", "outcome_name", "cfr_iterations",
        "equilibrium_nash_conv", "seconds")}
    seeds = deal_seeds(parameters["seed"], deals)
    draws = variant_draws(parameters)
    for variant in parameters["variants"].split(","):
        drawn = [(deal, seed) for deal, seed in zip(deals, seeds, strict=True) if deal < draws[variant]]
        if not drawn:
            continue
        solved = solve(variant, parameters["target"], parameters["max_iterations"])
        dealer_side = int(solved.game.new_initial_state().array[DEALER]) % 2
        read = solved.edge_label >= 0
        for spec in [AgentSpec(EQUILIBRIUM, EQUILIBRIUM), *parse_agents(parameters["agents"])]:
            for deal, deal_seed in drawn:
                start = time.perf_counter()
                policy = (solved.equilibrium if spec.name == EQUILIBRIUM
                          else drawn_policy(solved, spec, int(deal_seed)))
                reach = node_reach(solved.tree, policy)
                edge = reach[solved.tree.arrays.edge_child]  # an edge's probability is its child's
                weights = np.bincount(solved.edge_label[read], weights=edge[read],
                                      minlength=len(solved.labels))
                deal_values = {
                    "loss_to_equilibrium": loss_to_equilibrium(solved, policy),
                    "nash_conv": nash_conv(solved.tree, policy),
                    "dealer_side_value": float(expected_values(solved.tree, policy)[dealer_side]),
                    "outcome": float(reach[solved.terminal_outcome].sum()),
                    "outcome_name": READERS[VARIANTS[variant][0]][2],
                    "cfr_iterations": solved.iterations, "equilibrium_nash_conv": solved.nash_conv,
                    "seconds": time.perf_counter() - start}
                for (situation, hand, choice), weight in zip(solved.labels, weights, strict=True):
                    row = {"variant": variant, "agent": spec.label, "deal": deal, "situation": situation,
                           "hand": hand, "choice": choice, "weight": float(weight), **deal_values}
                    for key, value in row.items():
                        columns[key].append(value)
    return pa.table(columns)


def variant_draws(parameters: dict[str, Any]) -> dict[str, int]:
    """How many draws each variant has: ``deals``, or fewer where ``variant_draws`` says so."""
    draws = dict.fromkeys(parameters["variants"].split(","), parameters["deals"])
    for item in filter(None, parameters["variant_draws"].split(",")):
        variant, _, count = item.partition(":")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"variant_draws {item!r}: expected <variant>:<draws at least 1>")
        if variant in draws:
            draws[variant] = min(draws[variant], int(count))
    return draws


def check(parameters: dict[str, Any]) -> None:
    for variant in parameters["variants"].split(","):
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r}: expected one of {', '.join(VARIANTS)}")
        if VARIANTS[variant][0] not in READERS:
            raise ValueError(f"variant {variant!r}: no decision reader for {VARIANTS[variant][0]} yet")
    parse_agents(parameters["agents"])
    variant_draws(parameters)
    if not 0 < parameters["target"] < 1 or parameters["max_iterations"] < 1:
        raise ValueError("target must be in (0, 1) and max_iterations at least 1")


STUDY = Study("small-games-solved", DEFAULTS, play_chunk, check)

if __name__ == "__main__":
    main(STUDY)
