"""Variance-reduced duplicate scores: an AIVAT-style estimator (Burch et al. 2018).

A game's return ``u`` is noisy: the cards and the players' random choices
move it far more than the skill being measured. AIVAT subtracts correction
terms that are zero on average but move with that luck. At a random event
with known distribution (a card dealt, a move an agent draws from a known
distribution) the term is the value of what happened minus the expected
value over what could have happened, both from a *value function* ``V``::

    u_aivat = u - sum over events [ V(h . x) - sum_x' P(x') V(h . x') ]

Each term has mean zero whatever ``V`` is, so ``u_aivat`` is unbiased; the
closer ``V`` is to the expected outcome, the more of the luck it removes.

**Duplicate play already removes the deal.** Both seatings of a duplicate
deal see the same cards, so a correction for the deal as a whole is the same
in both and cancels from the duplicate score. What duplicate cannot remove is
the luck of *how the hidden cards fit the choices made*: an aggressive bid
that the partner's hand happens to carry. To reach it, the estimator uses an
equivalent order of chance (as AIVAT allows any order consistent with what
each player has seen): a seat's cards of a deal stage are *revealed* only at
its first decision after the stage, since no one's choice depended on them
before. At that moment the correction is ``V(h | revealed + seat) - V(h |
revealed)``. Twenty-Eight's second stage, dealt after the first auction, is a
stage like the first.

**The value function** ``V(h | R)`` is the mean return of ``samples`` play-outs
from the history ``h`` with the cards of the seats not in ``R`` redrawn: for
each stage, the cards of the unrevealed seats are shuffled among their places
in the deal, the history is replayed (a shuffle under which the replay
changes, e.g. a hand voided by four jacks, is drawn again), and the hand is
played out, later deal stages at random. In the play-outs each seat plays as
its agent where that agent is cheap and draws its moves from a known
distribution (``random``, ``rules``, ``cfr-bidding``, ``net``); a search
(ISMCTS, PIMC) plays itself with its budgets capped at ``stand_in_budget`` if
that is positive (:func:`stand_in_spec`), else the rule-based player plays for
it. The closer the play-outs are to the real players, the more luck the terms
remove. At a decision drawn from a known
distribution ``pi`` (recorded by the arena,
:func:`cardlab.arena.native.known_policies`) the term is ``V(h.a) - sum_a'
pi(a') V(h.a')``, on the same redrawn worlds and play-out streams for every
``a'`` (common random numbers). One value function throughout matters: the
terms then telescope, each taking up the luck of one step, and with exact
values they would leave only the skill (valuing the decisions on the real
cards instead, which is also unbiased, narrowed Kaiser's intervals half as
much in a trial).

**A search's decisions.** ISMCTS and PIMC draw their move from a distribution
that nothing short of rerunning the search reveals (it is that of the search's
result over its random stream). So rerun it: with ``search_draws`` K > 0, at
each decision of a search the estimator runs the same search K more times from
the same state on independent streams, and the term is ``V(h.a) - (1/K) sum_k
V(h.a_k)``. The reruns are independent draws from the distribution the real
move ``a`` was drawn from, so their mean value is an unbiased estimate of
``sum_a' pi(a') V(h.a')`` and the term still has mean zero; a term whose reruns
all chose ``a`` is zero and costs no play-out. It costs K times the searches'
thinking time. With K = 0 a search's decisions get no term: the estimator
stays unbiased, it only corrects less.

A reveal's two values share their samples as far as they can: each sample
draws the others' cards with the seat's real hand, then gives the seat a
uniformly random hand out of all the unrevealed cards by swapping cards with
the others (:func:`redraw_hand`), and plays both worlds out on one stream. Both
are still exact uniform draws, and the difference of the two play-outs is the
seat's hand alone. This needs every shuffle to replay, which holds while no
public event has depended on a hidden hand (the first deal stage's auction);
later reveals (Twenty-Eight's second stage, where four jacks in one hand void
it) draw the two values apart, each by rejection.

The play-outs' streams derive from the deal's seed and the step of the history,
so two seatings that agree up to a step compute the same values there; their
terms then cancel exactly, as the deal does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from cardlab.analysis.scores import DuplicateTable, duplicate_table, seat_returns
from cardlab.arena import native
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER
from cardlab.core.layout import CARDS_DEALT, DEALT, NUM_PLAYERS, UNDEALT, copy_state
from cardlab.core.limits import MAX_SEARCH_DRAWS, MAX_WORKERS, MAX_WORLDS, check_count
from cardlab.core.rng import derive_seed, random_below
from cardlab.games import kernels

#: Shuffles tried before a value falls back to the real cards (counted in ``fallbacks``).
MAX_TRIES = 64
#: Tags the estimator's streams apart from every other stream of a deal.
STREAM_TAG = 0xA1FA7
#: Tags the search reruns' streams apart from the play-outs'.
DRAWS_TAG = 0xD2A3
#: Agents the play-outs play as themselves: cheap, and their moves' distributions known.
PLAYED_OUT = (native.RANDOM, native.RULES, native.CFR_BIDDING, native.NET)


@njit(cache=True, inline="always")
def played_out(kind):
    """Whether the play-outs play an agent of ``kind`` as itself (:data:`PLAYED_OUT`)."""
    return kind == native.RANDOM or kind == native.RULES or kind == native.CFR_BIDDING or kind == native.NET


# ---- the history's structure -------------------------------------------------------
@njit(cache=True)
def history_structure(game, initial, actions, movers, receivers, stages):
    """One pass over the real history: the player at each step, who receives each card dealt, and
    each chance step's stage (a run of chance steps; -1 at decisions). Returns the number of
    stages and the first stage of the last deal (earlier deals are never redrawn)."""
    s = initial.copy()
    num_players = s[NUM_PLAYERS]
    before = np.empty(num_players, dtype=np.int64)
    stage = -1
    current_deal_first = 0
    previous_chance = False
    for i in range(actions.shape[0]):
        player = kernels.current_player(game, s)
        movers[i] = player
        if player == CHANCE_PLAYER:
            if not previous_chance:
                stage += 1
                if s[CARDS_DEALT] == 0:
                    current_deal_first = stage
            stages[i] = stage
            for seat in range(num_players):
                before[seat] = s[DEALT + seat]
            kernels.apply_action(game, s, actions[i])
            receivers[i] = -1
            for seat in range(num_players):
                if s[DEALT + seat] != before[seat]:
                    receivers[i] = seat
            previous_chance = True
        else:
            stages[i] = -1
            receivers[i] = -1
            kernels.apply_action(game, s, actions[i])
            previous_chance = False
    return stage + 1, current_deal_first


@njit(cache=True)
def last_stage(stages, upto):
    """The stage of the last card dealt before step ``upto``."""
    for i in range(upto - 1, -1, -1):
        if stages[i] >= 0:
            return stages[i]
    return -1


@njit(cache=True)
def _holds(receivers, stages, upto, stage, seat):
    for i in range(upto):
        if stages[i] == stage and receivers[i] == seat:
            return True
    return False


# ---- worlds with the unrevealed cards redrawn -------------------------------------------
@njit(cache=True)
def replay(game, initial, drawn, movers, upto, world):
    """Into ``world``: the first ``upto`` steps of ``drawn``. False if they are not the history's
    (a move became illegal, a card is dealt twice, or another player moved)."""
    copy_state(world, initial)
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    for i in range(upto):
        if kernels.current_player(game, world) != movers[i]:
            return False
        action = drawn[i]
        if movers[i] == CHANCE_PLAYER:
            if not (world[UNDEALT] >> action) & 1:
                return False
        else:
            n = kernels.legal_actions(game, world, legal)
            found = False
            for k in range(n):
                if legal[k] == action:
                    found = True
            if not found:
                return False
        kernels.apply_action(game, world, action)
    return kernels.current_player(game, world) == movers[upto]


@njit(cache=True)
def _unrevealed_places(receivers, stages, revealed, stage, upto, places):
    """The history's places of ``stage`` dealt to a seat not revealed in it, into ``places``; their count."""
    count = 0
    for i in range(upto):
        if stages[i] == stage and receivers[i] >= 0 and not revealed[stage, receivers[i]]:
            places[count] = i
            count += 1
    return count


@njit(cache=True)
def redraw(game, initial, actions, movers, receivers, stages, first_stage, revealed, upto, stream,
           world, drawn):
    """Into ``world``: the history's first ``upto`` steps replayed with each stage's cards of the
    unrevealed seats shuffled among their places (``drawn`` the steps). False if the replay
    changed (:func:`replay`), the draw then to be tried again."""
    for i in range(upto):
        drawn[i] = actions[i]
    places = np.empty(upto, dtype=np.int64)
    for stage in range(first_stage, revealed.shape[0]):
        count = _unrevealed_places(receivers, stages, revealed, stage, upto, places)
        for k in range(count - 1, 0, -1):  # Fisher-Yates over the places
            j = random_below(stream, k + 1)
            swap = drawn[places[k]]
            drawn[places[k]] = drawn[places[j]]
            drawn[places[j]] = swap
    return replay(game, initial, drawn, movers, upto, world)


@njit(cache=True)
def draw_world(game, initial, actions, movers, receivers, stages, first_stage, revealed, upto, stream,
               world, drawn, fallbacks):
    """A consistent redrawn world (:func:`redraw`); after ``MAX_TRIES`` failures the real one (and
    ``drawn`` the real steps)."""
    for _ in range(MAX_TRIES):
        if redraw(game, initial, actions, movers, receivers, stages, first_stage, revealed, upto, stream,
                  world, drawn):
            return
    fallbacks[0] += 1
    copy_state(world, initial)
    for i in range(upto):
        drawn[i] = actions[i]
        kernels.apply_action(game, world, actions[i])


@njit(cache=True)
def redraw_hand(receivers, stages, first_stage, revealed, seat, upto, stream, drawn):
    """Give ``seat`` a uniformly random hand of each stage it is not revealed in, in ``drawn``.

    ``drawn`` deals ``seat`` its real cards and the other unrevealed seats a uniform shuffle of
    theirs; the seat's places then take a uniformly random subset of all the unrevealed places'
    cards, each card it gives up going to the place of one it takes, in a random matching. The
    result is a uniform shuffle of every unrevealed card, ``seat``'s included, that shares all it
    can with ``drawn``: the two worlds' play-outs differ by the seat's hand alone.
    """
    places = np.empty(upto, dtype=np.int64)
    chosen = np.zeros(upto, dtype=np.bool_)
    given, taken = np.empty(upto, dtype=np.int64), np.empty(upto, dtype=np.int64)
    for stage in range(first_stage, revealed.shape[0]):
        if revealed[stage, seat]:
            continue
        count = _unrevealed_places(receivers, stages, revealed, stage, upto, places)
        size = 0
        for k in range(count):
            size += receivers[places[k]] == seat
        for k in range(size):  # a random subset of the places: the first `size` of a partial shuffle
            j = k + random_below(stream, count - k)
            swap = places[k]
            places[k] = places[j]
            places[j] = swap
        for k in range(count):
            chosen[places[k]] = k < size
        outside, inside = 0, 0
        for k in range(count):
            q = places[k]
            if chosen[q] and receivers[q] != seat:
                taken[outside] = q
                outside += 1
            elif not chosen[q] and receivers[q] == seat:
                given[inside] = q
                inside += 1
        for k in range(inside - 1, 0, -1):  # the random matching
            j = random_below(stream, k + 1)
            swap = given[k]
            given[k] = given[j]
            given[j] = swap
        for k in range(outside):
            swap = drawn[taken[k]]
            drawn[taken[k]] = drawn[given[k]]
            drawn[given[k]] = swap


@njit(cache=True)
def play_out(game, allowed, world, x, action, playing, kinds, options, policies, stream, scratch, out):
    """One play-out's returns from ``world`` (after ``action`` if it is >= 0), into ``out``.

    The seat ``q`` plays as agent ``playing[q]`` of the tables
    (:func:`cardlab.arena.native.seat_action` with ``stream``): its own agent
    where that is cheap and its move's distribution is known (``random``,
    ``rules``, ``cfr-bidding``, ``net``), a smaller budget of its search if the
    estimator was given one (:func:`value_tables`); at -1 the rule-based player.
    """
    copy_state(x, world)
    if action >= 0:
        kernels.apply_action(game, x, action)
    while True:
        player = kernels.current_player(game, x)
        if player == TERMINAL_PLAYER:
            break
        if player == CHANCE_PLAYER:
            move = kernels.random_action(game, x, stream, scratch)
        else:
            agent = playing[player]
            if agent >= 0:
                move = native.seat_action(game, allowed, agent, kinds, options, policies, x, stream, scratch)
            else:
                move = kernels.rules_action(game, x, stream)
        kernels.apply_action(game, x, move)
    kernels.returns(game, x, out)


# ---- one game's correction ------------------------------------------------------------
@njit(cache=True)
def rerun_search(game, allowed, agent, kinds, options, policies, real, event, draws, state, stream, scratch,
                 choices, weights):
    """The distribution of ``agent``'s move at ``real`` as ``draws`` reruns of its search on independent
    streams estimate it: the distinct moves into ``choices[:n]``, their shares into ``weights``. Returns
    n, or -1 if the agent does not run here (a kind outside ``allowed``)."""
    n = 0
    for k in range(draws):
        copy_state(state, real)
        native.seed_stream(stream, derive_seed(event, k))
        action = native.seat_action(game, allowed, agent, kinds, options, policies, state, stream, scratch)
        if action < 0:
            return -1
        found = False
        for i in range(n):
            if choices[i] == action:
                weights[i] += 1.0 / draws
                found = True
                break
        if not found:
            choices[n] = action
            weights[n] = 1.0 / draws
            n += 1
    return n


@njit(cache=True)
def game_correction(game, allowed, initial, actions, known_steps, known_offsets, known_actions,
                    known_probabilities, seat_agents, stand_ins, kinds, options, policies, samples,
                    search_draws, seed, correction, fallbacks):
    """The sum of one game's AIVAT terms, per seat, into ``correction`` (see the module docstring).

    ``known_steps[m]`` is a step of ``actions`` whose move was drawn from a known
    distribution: actions ``known_actions[known_offsets[m]:known_offsets[m + 1]]``
    with their probabilities. A search's decisions are corrected from
    ``search_draws`` reruns (none at 0). In the play-outs agent ``a`` plays as
    agent ``stand_ins[a]`` (-1: the rule-based player). ``fallbacks[0]`` counts values that could
    not redraw the hidden cards. Returns the number of terms.

    Long on purpose: one replay of the game, step by step, whose state, values and cursor into the known
    decisions are locals of a single compiled loop.
    """
    steps = actions.shape[0]
    num_players = initial[NUM_PLAYERS]
    movers = np.empty(steps + 1, dtype=np.int64)
    receivers = np.empty(steps, dtype=np.int64)
    stages = np.empty(steps, dtype=np.int64)
    num_stages, first_stage = history_structure(game, initial, actions, movers, receivers, stages)
    movers[steps] = TERMINAL_PLAYER  # after the last step
    revealed = np.zeros((max(num_stages, 1), num_players), dtype=np.bool_)
    for stage in range(first_stage):
        revealed[stage, :] = True
    world = initial.copy()
    x = initial.copy()
    real = initial.copy()  # the history's own state, for the searches' reruns
    drawn = np.empty(steps, dtype=np.int64)
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    choices = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    weights = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.float64)
    out = np.zeros(initial.shape[0], dtype=np.float64)
    mean_with = np.zeros(num_players, dtype=np.float64)
    stream = np.zeros(1, dtype=np.uint64)
    play_stream = np.zeros(1, dtype=np.uint64)
    playing = np.empty(num_players, dtype=np.int64)
    for seat in range(num_players):
        correction[seat] = 0.0
        playing[seat] = stand_ins[seat_agents[seat]]
    terms = 0
    next_known = 0
    for j in range(steps):
        seat = movers[j]
        if seat < 0:
            kernels.apply_action(game, real, actions[j])
            continue
        # A reveal: the seat's cards of every stage it has not acted after.
        after = revealed.copy()
        trivial = True
        for stage in range(first_stage, num_stages):
            if not revealed[stage, seat] and _holds(receivers, stages, j, stage, seat):
                after[stage, seat] = True
                for other in range(num_players):  # the last unrevealed hand is not random
                    if other != seat and not revealed[stage, other] and _holds(receivers, stages, j, stage,
                                                                               other):
                        trivial = False
        if not trivial:
            for q in range(num_players):
                mean_with[q] = 0.0
            event = derive_seed(seed, 2 * j)
            coupled = last_stage(stages, j) == first_stage  # no public event depends on a hidden hand yet
            for m in range(samples):
                native.seed_stream(stream, derive_seed(event, m))
                native.seed_stream(play_stream, derive_seed(event, samples + m))
                draw_world(game, initial, actions, movers, receivers, stages, first_stage, after, j, stream,
                           world, drawn, fallbacks)
                play_out(game, allowed, world, x, -1, playing, kinds, options, policies, play_stream,
                         legal, out)
                for q in range(num_players):
                    mean_with[q] += out[q]
                paired = False
                if coupled:
                    redraw_hand(receivers, stages, first_stage, revealed, seat, j, stream, drawn)
                    paired = replay(game, initial, drawn, movers, j, world)
                    if not paired:
                        fallbacks[0] += 1  # counted: the pairing assumes no redraw is refused
                if not paired:
                    draw_world(game, initial, actions, movers, receivers, stages, first_stage, revealed, j,
                               stream, world, drawn, fallbacks)
                native.seed_stream(play_stream, derive_seed(event, samples + m))
                play_out(game, allowed, world, x, -1, playing, kinds, options, policies, play_stream,
                         legal, out)
                for q in range(num_players):
                    mean_with[q] -= out[q]
            for q in range(num_players):
                correction[q] += mean_with[q] / samples
            terms += 1
        revealed[:, :] = after
        # The move's distribution: recorded if known, else estimated by rerunning a search.
        count = 0
        while next_known < known_steps.shape[0] and known_steps[next_known] < j:
            next_known += 1
        if next_known < known_steps.shape[0] and known_steps[next_known] == j:
            low, high = known_offsets[next_known], known_offsets[next_known + 1]
            count = high - low
            for k in range(count):
                choices[k] = known_actions[low + k]
                weights[k] = known_probabilities[low + k]
        elif search_draws > 0 and kinds[seat_agents[seat]] >= 0 and not played_out(kinds[seat_agents[seat]]):
            count = rerun_search(game, allowed, seat_agents[seat], kinds, options, policies, real,
                                 derive_seed(derive_seed(seed, DRAWS_TAG), j), search_draws, x, stream,
                                 legal, choices, weights)
            if count == 1 and choices[0] == actions[j]:
                count = 0  # every rerun chose the real move: the term is zero
        # The move's term, valued on the same redrawn worlds as the reveals (one value function
        # throughout: the terms then add up to the luck, step by step).
        if count > 1 or (count == 1 and choices[0] != actions[j]):
            for q in range(num_players):
                mean_with[q] = 0.0
            event = derive_seed(seed, 2 * j + 1)
            for m in range(samples):
                native.seed_stream(stream, derive_seed(event, m))
                draw_world(game, initial, actions, movers, receivers, stages, first_stage, revealed, j,
                           stream, world, drawn, fallbacks)
                play_seed = derive_seed(event, samples + m)
                native.seed_stream(play_stream, play_seed)
                play_out(game, allowed, world, x, actions[j], playing, kinds, options, policies,
                         play_stream, legal, out)
                for q in range(num_players):
                    mean_with[q] += out[q]
                for k in range(count):
                    if weights[k] > 0.0:
                        native.seed_stream(play_stream, play_seed)
                        play_out(game, allowed, world, x, choices[k], playing, kinds, options,
                                 policies, play_stream, legal, out)
                        for q in range(num_players):
                            mean_with[q] -= weights[k] * out[q]
            for q in range(num_players):
                correction[q] += mean_with[q] / samples
            terms += 1
        kernels.apply_action(game, real, actions[j])
    return terms


@njit(cache=True)
def corrections(game, allowed, initial, actions, offsets, deal_seeds, known_game_offsets, known_steps,
                known_offsets, known_actions, known_probabilities, seat_agents, stand_ins, kinds, options,
                policies, samples, search_draws):
    """Every game's correction per seat (game g: ``actions[offsets[g]:offsets[g + 1]]``, the agent at
    each seat ``seat_agents[g]`` in the tables ``kinds``, ``options``, ``policies``), the number
    of terms, and the values that fell back to the real cards.

    The offsets index the whole flat arrays, so a slice of ``offsets``,
    ``deal_seeds``, ``known_game_offsets`` and ``seat_agents`` is a chunk of the
    games (:func:`game_corrections` feeds them to workers that way)."""
    num_games = offsets.shape[0] - 1
    num_players = initial[NUM_PLAYERS]
    out = np.zeros((num_games, num_players), dtype=np.float64)
    terms = np.zeros(num_games, dtype=np.int64)
    fallbacks = np.zeros(1, dtype=np.int64)
    row = np.zeros(num_players, dtype=np.float64)
    for g in range(num_games):
        low, high = known_game_offsets[g], known_game_offsets[g + 1]
        first, last = known_offsets[low], known_offsets[high]
        terms[g] = game_correction(game, allowed, initial, actions[offsets[g]:offsets[g + 1]],
                                   known_steps[low:high], known_offsets[low:high + 1] - first,
                                   known_actions[first:last], known_probabilities[first:last], seat_agents[g],
                                   stand_ins, kinds, options, policies, samples, search_draws,
                                   derive_seed(deal_seeds[g], STREAM_TAG), row, fallbacks)
        out[g] = row
    return out, terms, fallbacks[0]


# ---- result rows --------------------------------------------------------------------------
@dataclass
class Reduced:
    """The plain and the variance-reduced duplicate scores of one results folder."""

    plain: DuplicateTable
    reduced: DuplicateTable
    samples: int
    terms: int  # AIVAT terms over all games
    fallbacks: int  # values that kept the real cards (no consistent redraw in MAX_TRIES)
    notes: list[str]  # agents the rule-based player stands in for in the play-outs, and why
    search_draws: int = 0  # reruns of a search at each of its decisions (0: its decisions get no term)
    stand_in_budget: int = 0  # a search's budget when it plays itself in the play-outs (0: rules play)
    seconds: float = 0.0  # wall time of the corrections


#: The columns the estimator reads (the three policy columns are absent from older folders).
COLUMNS = ["deal", "seating", "returns", "actions", "deal_seed", "seat_agents"]
POLICY_COLUMNS = ["policy_steps", "policy_actions", "policy_probabilities"]
#: Games a task of :func:`game_corrections` corrects (the progress bar's step).
CHUNK_GAMES = 16


def _flat(column: pa.ChunkedArray) -> pa.Array:
    return column.combine_chunks()


def _known(table: pa.Table) -> tuple[np.ndarray, ...]:
    """The recorded known distributions as flat arrays (empty for a folder written before them)."""
    if not set(POLICY_COLUMNS) <= set(table.column_names):
        return (np.zeros(table.num_rows + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
                np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0))
    steps, actions, probabilities = (_flat(table.column(name)) for name in POLICY_COLUMNS)
    entries = actions.flatten()
    return (steps.offsets.to_numpy().astype(np.int64), steps.flatten().to_numpy().astype(np.int64),
            entries.offsets.to_numpy().astype(np.int64), entries.flatten().to_numpy().astype(np.int64),
            probabilities.flatten().flatten().to_numpy().astype(np.float64))


#: A search's options that a stand-in budget caps, by agent name.
BUDGET_OPTIONS = {"ismcts": ("simulations", "world_pool"), "pimc": ("worlds", "bid_worlds")}


def stand_in_spec(spec: Any, budget: int, game_name: str) -> Any:
    """The cheaper copy of a search that plays for it in the play-outs: each of its budgets
    (:data:`BUDGET_OPTIONS`) capped at ``budget``, and no clock budget (play-outs must not depend on
    the machine)."""
    from dataclasses import replace

    from cardlab.agents.builtin import BUILTIN
    from cardlab.games import game_spec

    resolved = BUILTIN[spec.name].options.resolve(spec.options, game_spec(game_name))
    options = {key: value for key, value in spec.options.items() if key != "time_ms"}
    for name in BUDGET_OPTIONS[spec.name]:
        own = resolved[name]
        options[name] = min(own, budget) if own else own  # world_pool 0 (uniform worlds) stays 0
    return replace(spec, label=f"{spec.label} (play-outs)", options=options)


def value_tables(game_name: str, parameters: dict[str, Any], agents: list[dict[str, Any]],
                 search_draws: int = 0, stand_in_budget: int = 0
                 ) -> tuple[tuple[np.ndarray, ...], np.ndarray, list[str]]:
    """The compiled tables of the agents and of their stand-ins in the play-outs, the index each
    agent plays as in them (``stand_ins``), and a note on each agent not played out as itself.

    The tables' first rows are ``agents`` (kind -1 for one that cannot be loaded
    here); each search (ISMCTS, PIMC) gets a row after them with its budgets
    capped at ``stand_in_budget`` (:func:`stand_in_spec`) if that is positive;
    otherwise, or for any other agent not cheap and known, ``stand_ins`` is -1:
    the rule-based player plays for it.
    """
    from cardlab.arena.entrants import NATIVE_AGENTS, AgentSpec, behaviour_tables
    from cardlab.games import game_spec

    game = game_spec(game_name).load(parameters)
    specs = [AgentSpec(agent["label"], agent["name"], dict(agent["options"])) for agent in agents]
    stand_ins = np.full(len(specs), -1, dtype=np.int64)
    cheaper, notes = [], []
    for i, spec in enumerate(specs):
        kind = NATIVE_AGENTS[spec.name].kind_for(spec.options) if spec.name in NATIVE_AGENTS else -1
        if kind in PLAYED_OUT:
            stand_ins[i] = i
        elif stand_in_budget and spec.name in BUDGET_OPTIONS:
            stand_ins[i] = len(specs) + len(cheaper)
            cheaper.append(stand_in_spec(spec, stand_in_budget, game_name))
    tables, failures = behaviour_tables(specs + cheaper, game)
    failed = dict(failures)
    for i, spec in enumerate(specs):
        if stand_ins[i] == i and i not in failed:
            continue
        if i in failed or stand_ins[i] in failed:
            stand_ins[i] = -1
        if i in failed:
            notes.append(f"{spec.label}: {failed[i]}; the rule-based player stands in for it in the "
                         "play-outs")
            continue
        if stand_ins[i] >= 0:
            budget = ", ".join(f"{name}={cheaper[stand_ins[i] - len(specs)].options[name]}"
                               for name in BUDGET_OPTIONS[spec.name])
            note = f"{spec.label}: plays itself in the play-outs with {budget}"
        else:
            note = f"{spec.label}: the rule-based player stands in for it in the play-outs"
        if tables[0][i] < 0:
            note += ", and its decisions get no term (not a native agent)"
        elif search_draws:
            note += f"; each of its decisions is corrected by {search_draws} reruns of its search"
        else:
            note += "; its decisions get no term (search_draws=K reruns its search K times to correct them)"
        notes.append(note)
    return tables, stand_ins, notes


def _correct_chunk(task: tuple) -> tuple[np.ndarray, np.ndarray, int]:
    game, allowed, initial, arrays, stand_ins, tables, samples, search_draws = task
    return corrections(game, allowed, initial, *arrays, stand_ins, *tables, samples, search_draws)


def game_corrections(game_name: str, parameters: dict[str, Any], agents: list[dict[str, Any]],
                     table: pa.Table, samples: int = 64, search_draws: int = 0, stand_in_budget: int = 0,
                     workers: int = 1, progress: bool = False
                     ) -> tuple[np.ndarray, np.ndarray, int, list[str]]:
    """Each row's AIVAT correction per seat, its number of terms, the values that fell back to the
    real cards, and notes on the play-outs' agents (:func:`value_tables`).

    ``search_draws`` reruns a search K times at each of its decisions to correct
    it (K times its thinking time); ``stand_in_budget`` lets each search play
    itself in the play-outs with its budgets capped there (0: the rule-based
    player plays for it). The rows are corrected in chunks of
    :data:`CHUNK_GAMES` over ``workers`` processes; the result does not depend on
    the split.
    """
    from cardlab.games import SPECS, game_spec

    if game_spec(game_name).cards_change_hands:
        covered = " and ".join(spec.name for spec in SPECS if not spec.cards_change_hands)
        raise ValueError(f"the AIVAT estimator covers {covered}, whose hidden cards only the holder's own "
                         f"choices depend on; not {game_name}")
    check_count(samples, "samples", MAX_WORLDS)
    check_count(search_draws, "search_draws", MAX_SEARCH_DRAWS, low=0)
    check_count(stand_in_budget, "stand_in_budget", MAX_WORLDS, low=0)
    check_count(workers, "workers", MAX_WORKERS)
    spec = game_spec(game_name)
    initial = spec.load(parameters).new_initial_state().array.copy()
    tables, stand_ins, notes = value_tables(game_name, parameters, agents, search_draws, stand_in_budget)
    kinds = tables[0]
    # Compiled in: the kinds the play-outs play, and the agents' own if their searches are rerun.
    compiled = list(kinds[stand_ins[stand_ins >= 0]])
    if search_draws:
        compiled += [kind for kind in kinds[:len(agents)] if kind >= 0]
    allowed = native.agent_kinds(compiled)
    labels = pa.array([agent["label"] for agent in agents])
    seat_labels = _flat(table.column("seat_agents"))
    seat_agents = pc.index_in(seat_labels.flatten(), value_set=labels).to_numpy(zero_copy_only=False)
    seat_agents = seat_agents.astype(np.int64).reshape(table.num_rows, -1)
    actions = _flat(table.column("actions"))
    offsets = actions.offsets.to_numpy().astype(np.int64)
    history = actions.flatten().to_numpy().astype(np.int64)
    seeds = table.column("deal_seed").to_numpy().astype(np.uint64)
    known = _known(table)
    tasks = {}
    for first in range(0, table.num_rows, CHUNK_GAMES):
        stop = min(first + CHUNK_GAMES, table.num_rows)
        arrays = (history, offsets[first:stop + 1], seeds[first:stop], known[0][first:stop + 1], *known[1:],
                  seat_agents[first:stop])
        tasks[first] = (spec.kernel_id, allowed, initial, arrays, stand_ins, tables, samples, search_draws)
    from cardlab.arena.pool import run_chunks

    results = dict(run_chunks(_correct_chunk, tasks, workers, progress, table.num_rows, "game", "aivat",
                              "chunk of games", compiling="the AIVAT estimator's kernels"))
    ordered = [results[first] for first in sorted(results)]
    out = np.concatenate([r[0] for r in ordered]) if ordered else np.zeros((0, initial[NUM_PLAYERS]))
    terms = np.concatenate([r[1] for r in ordered]) if ordered else np.zeros(0, dtype=np.int64)
    return out, terms, int(sum(r[2] for r in ordered)), notes


def reduce(manifest: dict[str, Any], table: pa.Table, samples: int = 64, search_draws: int = 0,
           stand_in_budget: int = 0, workers: int = 1, progress: bool = False) -> Reduced:
    """The plain and AIVAT duplicate tables of a tournament's rows (``manifest`` its settings)."""
    settings = manifest["settings"]
    agents = [agent["label"] for agent in settings["agents"]]
    pairs = [tuple(pair) for pair in settings["pairs"]]
    sides = settings.get("sides")
    start = time.perf_counter()
    out, terms, fallbacks, notes = game_corrections(settings["game"], settings["parameters"],
                                                    settings["agents"], table, samples, search_draws,
                                                    stand_in_budget, workers, progress)
    seconds = time.perf_counter() - start
    returns = seat_returns(table) - out
    corrected = pa.table({"deal": table.column("deal"), "seating": table.column("seating"),
                          "returns": pa.FixedSizeListArray.from_arrays(pa.array(returns.ravel()),
                                                                       returns.shape[1])})
    return Reduced(duplicate_table(table, agents, pairs, sides),
                   duplicate_table(corrected, agents, pairs, sides), samples, int(terms.sum()), fallbacks,
                   notes, search_draws, stand_in_budget, seconds)


__all__ = ["COLUMNS", "POLICY_COLUMNS", "Reduced", "corrections", "game_corrections", "reduce"]
