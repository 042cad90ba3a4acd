"""Local best response: a lower bound on how much an agent can be exploited.

A bot can beat every other bot and still lose heavily to a player who adapts
to it. Its *exploitability* is what a best response to it wins, and a best
response in a full card game is far out of reach. Local best response (LBR;
Lisý and Bowling 2017) plays a strategy that is computable move by move:

1. at each of its decisions it draws ``worlds`` worlds the responder cannot
   tell from the real one (the game's belief-consistent sampler,
   :func:`cardlab.games.kernels.resample`), each weighted by ``epsilon ** k``,
   k the others' bids that the rule-based player would not have made there
   (the inference ISMCTS uses; ``epsilon = 1`` weighs all worlds alike);
2. in each world it tries every legal action and plays the rest of the hand
   out: the agent's next ``agent_moves`` moves are the agent's own (its move
   with a fresh random stream, a draw from what it actually does; or, with
   ``agent_model=policy``, a draw from the distribution it exposes,
   :func:`cardlab.arena.native.agent_policy`), and every other move, the
   responders' own later moves included, is the *continuation policy*'s (the
   rule-based player, or uniform random);
3. it plays the action with the best weighted mean return. Rollouts of one
   world start from the same random stream for every action (common random
   numbers), so the actions are compared on the same luck.

LBR is a strategy like any other, so what it wins against the agent, on
average, is at most what a best response wins: the points per deal the agent
loses to it are a lower bound on the agent's exploitability, up to the
sampling error of the match, which the result's 95% interval carries.
Deals are played duplicate: the agent holds each side of the table once, and
LBR every other seat; a deal's score is what the agent's sides lose, summed
over its seatings (the arena's duplicate convention).

Everything that repeats runs in numba: the world draws, the rollouts and the
agent's moves (native agents, :mod:`cardlab.arena.native`). Seeding is the
arena's: the cards of deal ``d`` come from ``derive_seed(seed, d)``, and the
player at each seat of each seating draws from its own stream.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyspiel
from numba import njit

from cardlab.agents.ismcts import search
from cardlab.agents.ismcts.options import ROLLOUT_RANDOM, ROLLOUT_RULES
from cardlab.agents.options import Option, OptionSet
from cardlab.analysis.stats import normal_mean_ci
from cardlab.arena import native
from cardlab.arena.clock import cpu_ns
from cardlab.arena.entrants import AgentSpec, is_native, native_tables
from cardlab.arena.pool import run_chunks
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER
from cardlab.core.layout import copy_state
from cardlab.core.rng import derive_seed, next_u64, random_below, random_unit
from cardlab.games import game_spec, kernels, seat_sides

# Columns of the responder's options row.
WORLDS, ROLLOUTS, AGENT_MOVES, CONTINUATION, EPSILON, AGENT_MODEL = 0, 1, 2, 3, 4, 5
AGENT_ACTION, AGENT_POLICY = 0, 1  # how the agent's moves are drawn in rollouts

OPTIONS = OptionSet("lbr", (
    Option("worlds", "int", 16, "worlds drawn per decision, each consistent with the responder's "
           "information", low=1, high=1_000_000, column=WORLDS),
    Option("rollouts", "int", 1, "rollouts per world and action", low=1, high=10_000, column=ROLLOUTS),
    Option("agent_moves", "int", 2, "the agent's own moves in each rollout, before the continuation "
           "policy plays for everyone", low=0, high=10_000, column=AGENT_MOVES),
    Option("continuation", "choice", "rules", "who plays the rest of each rollout: the rule-based "
           "player or uniform random", choices={"random": ROLLOUT_RANDOM, "rules": ROLLOUT_RULES},
           column=CONTINUATION),
    Option("epsilon", "float", 0.1, "a world's weight factor per bid of the others the rule-based "
           "player would not make there; 1: every world alike", low=0, low_open=True, high=1,
           column=EPSILON),
    Option("agent_model", "choice", "action", "the agent's moves in rollouts: its action with a fresh "
           "stream, or a draw from the distribution it exposes (ISMCTS: visit shares)",
           choices={"action": AGENT_ACTION, "policy": AGENT_POLICY}, column=AGENT_MODEL),
))

#: The agent's index in the tables (one agent: index 0).
AGENT = 0
#: The one error code of the loop besides ``native.OK`` and ``native.UNKNOWN_KIND``.
ILLEGAL_ACTION = native.ILLEGAL_ACTION


# ---- the responder's decision ---------------------------------------------------------
@njit(cache=True)
def agent_move(game, allowed, s, kinds, options, policies, model, stream, scratch, actions, probabilities):
    """The agent's move at ``s``: its own action with ``stream``, or a draw from its distribution.

    ``allowed`` is :func:`cardlab.arena.native.agent_kinds` of the tables' kinds. -1 for a kind
    outside it.
    """
    if model == AGENT_POLICY:
        n, _ = native.agent_policy(game, allowed, AGENT, kinds, options, policies, s, stream, actions,
                                   probabilities)
        if n < 0:
            return -1
        target = random_unit(stream)
        total = 0.0
        for i in range(n):
            total += probabilities[i]
            if target < total:
                return actions[i]
        return actions[n - 1]
    return native.seat_action(game, allowed, AGENT, kinds, options, policies, s, stream, scratch)


@njit(cache=True)
def rollout(game, allowed, x, responders, kinds, options, policies, row, stream, legal, scratch, actions,
            probabilities, seat_returns):
    """Play ``x`` out: the agent's next ``agent_moves`` moves its own, then the continuation policy.

    Fills ``seat_returns`` with every seat's return.
    """
    left = np.int64(row[AGENT_MOVES])
    continuation = np.int64(row[CONTINUATION])
    model = np.int64(row[AGENT_MODEL])
    while left > 0:
        player = kernels.current_player(game, x)
        if player == TERMINAL_PLAYER:
            kernels.returns(game, x, seat_returns)
            return
        if player == CHANCE_PLAYER:
            action = kernels.random_action(game, x, stream, legal)
        elif responders[player]:
            action = search.policy_action(game, x, continuation, stream, legal)
        else:
            action = agent_move(game, allowed, x, kinds, options, policies, model, stream, scratch,
                                actions, probabilities)
            if action < 0:  # a kind the tables' loop does not play: the rest is the continuation's
                break
            left -= 1
        kernels.apply_action(game, x, action)
    search.rollout(game, x, continuation, 0, stream, legal, seat_returns)


@njit(cache=True)
def respond(game, allowed, s, seat, responders, kinds, options, policies, row, stream):
    """The local best response's action for ``seat`` at ``s`` (see the module docstring).

    ``responders[q]`` is True for the seats the responders hold; the agent of
    the tables holds the others. Ties go to the first action in legal order.
    """
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = kernels.legal_actions(game, s, legal)
    if n == 1:
        return legal[0]
    choices = legal[:n].copy()
    buffer = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    actions = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    probabilities = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.float64)
    seat_returns = np.zeros(s.shape[0], dtype=np.float64)  # more room than any seat count
    values = np.zeros(n, dtype=np.float64)
    rollout_stream = np.zeros(1, dtype=np.uint64)
    x = s.copy()
    epsilon = row[EPSILON]
    for _ in range(np.int64(row[WORLDS])):
        world = kernels.resample(game, s, seat, stream)
        weight = 1.0 if epsilon >= 1.0 else epsilon ** kernels.bidding_mismatches(game, world, seat)
        for _ in range(np.int64(row[ROLLOUTS])):
            start = next_u64(stream)
            for i in range(n):
                copy_state(x, world)
                kernels.apply_action(game, x, choices[i])
                native.seed_stream(rollout_stream, start)
                rollout(game, allowed, x, responders, kinds, options, policies, row, rollout_stream,
                        buffer, scratch, actions, probabilities, seat_returns)
                values[i] += weight * seat_returns[seat]
    best = 0
    for i in range(1, n):
        if values[i] > values[best]:
            best = i
    return choices[best]


@njit(cache=True)
def respond_at_states(game, allowed, states, seats, responders, kinds, options, policies, row, seed):
    """:func:`respond` at each of ``states`` for ``seats[i]``, with stream ``derive_seed(seed, i)``."""
    chosen = np.empty(states.shape[0], dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    for i in range(states.shape[0]):
        native.seed_stream(stream, derive_seed(seed, i))
        chosen[i] = respond(game, allowed, states[i], seats[i], responders, kinds, options, policies, row,
                            stream)
    return chosen


# ---- deals against the agent ------------------------------------------------------------
@njit(cache=True)
def play_deals(game, allowed, initial, deal_seeds, responders, kinds, options, policies, row):
    """Every deal of ``deal_seeds`` once per seating, the responders at ``responders[k]`` in seating k.

    Seeds as the arena's compiled loop (:func:`cardlab.arena.native.play_games`).
    Returns ``(status, returns, responder_seconds, agent_seconds, responder_decisions)``, per game
    (game ``g`` is deal ``g // seatings``, seating ``g % seatings``); ``status`` as the arena's.
    """
    num_seatings, num_players = responders.shape
    num_games = deal_seeds.shape[0] * num_seatings
    status = np.zeros(4, dtype=np.int64)
    game_returns = np.zeros((num_games, num_players), dtype=np.float64)
    responder_seconds = np.zeros(num_games, dtype=np.float64)
    agent_seconds = np.zeros(num_games, dtype=np.float64)
    responder_decisions = np.zeros(num_games, dtype=np.int64)
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    deal_stream = np.zeros(1, dtype=np.uint64)
    streams = np.zeros((num_players, 1), dtype=np.uint64)
    seat_returns = np.zeros(num_players, dtype=np.float64)
    s = initial.copy()
    for g in range(num_games):
        seating = g % num_seatings
        native.start_deal(s, initial, deal_stream, streams, deal_seeds[g // num_seatings], seating)
        while True:
            player = kernels.current_player(game, s)
            if player == TERMINAL_PLAYER:
                break
            n = kernels.legal_actions(game, s, legal)
            if player == CHANCE_PLAYER:
                action = legal[random_below(deal_stream, n)]
            else:
                start = cpu_ns()
                if responders[seating, player]:
                    action = respond(game, allowed, s, player, responders[seating], kinds, options,
                                     policies, row, streams[player])
                    responder_seconds[g] += (cpu_ns() - start) * 1e-9
                    responder_decisions[g] += 1
                else:
                    action = native.seat_action(game, allowed, AGENT, kinds, options, policies, s,
                                                streams[player], scratch)
                    agent_seconds[g] += (cpu_ns() - start) * 1e-9
                legal_choice = False
                for i in range(n):
                    if legal[i] == action:
                        legal_choice = True
                if not legal_choice:
                    status[0] = native.UNKNOWN_KIND if action == -1 else ILLEGAL_ACTION
                    status[1] = g
                    status[2] = player
                    status[3] = action
                    return status, game_returns, responder_seconds, agent_seconds, responder_decisions
            kernels.apply_action(game, s, action)
        kernels.returns(game, s, seat_returns)
        game_returns[g] = seat_returns
    return status, game_returns, responder_seconds, agent_seconds, responder_decisions


# ---- the Python face ------------------------------------------------------------------------
@dataclass(frozen=True)
class Responder:
    """What the compiled loop needs to play one agent in one game: tables, options row, seatings."""

    game: pyspiel.Game
    game_id: int
    agent: AgentSpec
    allowed: int  # the kinds the kernels are compiled for (:func:`cardlab.arena.native.agent_kinds`)
    kinds: np.ndarray
    options: np.ndarray
    policies: tuple[np.ndarray, ...]
    row: np.ndarray
    settings: dict[str, Any]

    @property
    def initial(self) -> np.ndarray:
        return self.game.new_initial_state().array.copy()

    def team_seatings(self) -> np.ndarray:
        """``responders[k, seat]``: in seating k the agent holds side k, the responders every other seat."""
        sides = seat_sides(self.game)
        return np.array([[side != k for side in sides] for k in range(max(sides) + 1)], dtype=np.bool_)


def make_responder(game: pyspiel.Game, agent: AgentSpec, options: dict[str, Any] | None = None) -> Responder:
    """The responder to ``agent`` in ``game`` with LBR ``options``; ``ValueError`` naming what is wrong.

    The agent must be one the compiled arena plays (``random``, ``rules``,
    ``ismcts``, ``pimc``, ``cfr-bidding`` with ``play=rules``): the rollouts
    ask it for moves inside numba.
    """
    name = game.get_type().short_name
    spec = game_spec(name)
    if not is_native(agent, game):
        raise ValueError(f"exploit needs an agent of the compiled arena (random, rules, ismcts, pimc, "
                         f"cfr-bidding with play=rules) and its compiled options; got {agent.text()!r}")
    kinds, rows, policies = native_tables([agent], game)
    resolved = OPTIONS.resolve(dict(options or {}))
    return Responder(game, spec.kernel_id, agent, native.agent_kinds(kinds), kinds, rows, policies,
                     resolved.row(), dict(resolved))


@dataclass
class ExploitResult:
    """The deals LBR played against an agent: per-deal points the agent lost, and what it cost."""

    game: str
    parameters: dict[str, Any]
    agent: str
    options: dict[str, Any]
    seed: int
    scores: np.ndarray  # per deal: the agent's sides' returns summed over its seatings, negated
    responder_seconds: float = 0.0
    agent_seconds: float = 0.0
    responder_decisions: int = 0
    wall_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def deals(self) -> int:
        return len(self.scores)

    @property
    def mean(self) -> float:
        return float(np.mean(self.scores)) if len(self.scores) else math.nan

    def interval(self, level: float = 0.95) -> tuple[float, float]:
        """Normal-approximation interval of the mean points per deal."""
        return normal_mean_ci(self.scores, level)

    def text(self) -> str:
        low, high = self.interval()
        per_decision = 1000 * self.responder_seconds / max(1, self.responder_decisions)
        return "\n".join([
            f"{self.game} {self.parameters}: local best response against {self.agent}",
            f"responder options {self.options}",
            f"duplicate deals {self.deals}, seed {self.seed}",
            f"points per deal the agent loses: {self.mean:+.3f}  (95% CI {low:+.3f} .. {high:+.3f})",
            f"responder {per_decision:.1f} ms/decision over {self.responder_decisions} decisions; "
            f"agent {self.agent_seconds:.1f} s; wall {self.wall_seconds:.1f} s",
        ])

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval()
        return {"game": self.game, "parameters": self.parameters, "agent": self.agent,
                "options": self.options, "seed": self.seed, "deals": self.deals,
                "points_lost_per_deal": self.mean, "ci95": [low, high],
                "scores": [float(x) for x in self.scores],
                "responder_seconds": self.responder_seconds, "agent_seconds": self.agent_seconds,
                "responder_decisions": self.responder_decisions, "wall_seconds": self.wall_seconds,
                **self.extra}


def _play_chunk(task: tuple[str, dict[str, Any], AgentSpec, dict[str, Any], int, int, int]):
    """Deals ``first .. stop - 1``: per-deal scores and the clocks (a worker's unit of work)."""
    import cardlab  # noqa: F401  (registers the games in a fresh worker)

    name, parameters, agent, options, seed, first, stop = task
    responder = make_responder(game_spec(name).load(parameters), agent, options)
    seatings = responder.team_seatings()
    seeds = native.deal_seeds(seed, first, stop)
    status, returns, responder_seconds, agent_seconds, decisions = play_deals(
        responder.game_id, responder.allowed, responder.initial, seeds, seatings, responder.kinds,
        responder.options, responder.policies, responder.row)
    if status[0] != native.OK:
        _, g, seat, action = (int(x) for x in status)
        raise RuntimeError(f"agent {agent.text()!r} chose illegal action {action} at seat {seat} in deal "
                           f"{first + g // len(seatings)}")
    sides = seat_sides(responder.game)
    agent_seat = [sides.index(k) for k in range(len(seatings))]
    per_game = returns[np.arange(len(returns)), np.tile(agent_seat, stop - first)]
    scores = -per_game.reshape(stop - first, len(seatings)).sum(axis=1)
    return scores, float(responder_seconds.sum()), float(agent_seconds.sum()), int(decisions.sum())


def exploit(game: str, parameters: dict[str, Any], agent: AgentSpec, deals: int, seed: int,
            options: dict[str, Any] | None = None, workers: int = 1, chunk_size: int = 10,
            progress: bool = False) -> ExploitResult:
    """Local best response against ``agent`` on ``deals`` duplicate deals of ``game`` (seed ``seed``).

    The deals are split into chunks of ``chunk_size`` over ``workers`` processes;
    the result is the same for any split. ``ValueError`` names a bad game,
    parameter, agent, option or count before any deal is played.
    """
    for label, value, low in (("deals", deals, 1), ("workers", workers, 1), ("chunk_size", chunk_size, 1),
                              ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or not low <= value < 2**64:
            raise ValueError(f"{label} must be an integer from {low} to 2**64 - 1, got {value!r}")
    spec = game_spec(game)
    parameters = spec.checked(parameters)
    responder = make_responder(spec.load(parameters), agent, options)  # every check, before any deal
    given = dict(options or {})
    tasks = {first: (spec.name, parameters, agent, given, int(seed), first, min(first + chunk_size, deals))
             for first in range(0, deals, chunk_size)}
    start = time.perf_counter()
    results = dict(run_chunks(_play_chunk, tasks, workers, progress, deals, "deal", "exploit",
                              "chunk of deals"))
    scores = np.concatenate([results[first][0] for first in sorted(results)])
    return ExploitResult(spec.name, parameters, agent.text(), responder.settings, int(seed), scores,
                         responder_seconds=sum(r[1] for r in results.values()),
                         agent_seconds=sum(r[2] for r in results.values()),
                         responder_decisions=sum(r[3] for r in results.values()),
                         wall_seconds=time.perf_counter() - start)


__all__ = ["OPTIONS", "ExploitResult", "Responder", "exploit", "make_responder",
           "play_deals", "respond", "respond_at_states"]
