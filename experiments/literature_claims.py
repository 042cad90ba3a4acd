"""Study 3, Literature claims and asks: when claims become certain, claiming early or late, what asks reveal.

    python -m experiments.literature_claims                      # full size (make notebooks)
    python -m experiments.literature_claims --set deals=40 --out /tmp/lc

Every deal is played by the deduction player (the rule-based Literature
player) in all seats in the compiled arena, once at each of the ``tables``:
4, 6 and 8 players, and 6 players under ``major_sets_worth_two`` and under
``misclaim_to_opponents``. Each game is then replayed move by move in numba
(:func:`trace_games`), with the library's card-location inference
(:mod:`cardlab.games.literature.knowledge`) and its belief-consistent sampler
(:func:`cardlab.games.literature.sampling.resample_hidden_hands`, the worlds
ISMCTS searches):

* for each half-suit, the ask at which some seat's deduction first makes a
  claim of it certain for its team, the ask at which the seat on turn first
  could claim it for certain, the ask at which one team first really held all
  six cards, and the ask at which it was claimed, by whom, how, and with what
  result;
* every ``sample_every`` asks, at the next decision, the seat on turn draws
  ``worlds`` deals consistent with everything it knows: the entropy of the
  hidden cards' locations (bits, summed over cards from the sampled marginals)
  and, for each live half-suit, the share of worlds where its team holds all
  six cards, the share where the most frequent assignment of them is exactly
  right, the deduction player's own estimate of that chance, and what a claim
  with that assignment would really do now (right, a wrong seat, a card with
  the opponents).

One row per (table, deal, snapshot, live half-suit), with the half-suit's
game facts repeated on each of its rows. The notebook is
notebooks/literature_claims.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa
from numba import njit

from cardlab.arena.native import agent_seed, seed_stream
from cardlab.core.bitboard import cards_in, popcount
from cardlab.core.layout import PHASE, TO_MOVE
from cardlab.core.rng import derive_seed, random_below
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.rules import (
    CLAIM,
    DECLINE,
    HALF_SUIT_MASKS,
    MAX_HALF_SUITS,
    MAX_PLAYERS,
    NUM_HALF_SUITS,
    UNRESOLVED,
)
from cardlab.games.literature.sampling import RESAMPLE_DRAWS, resample_hidden_hands
from cardlab.games.literature.strategy import holding_chance, naming_chance, rules_action
from experiments.frame import Study, deal_seeds, main

GAME = "cardlab_literature"
DEFAULTS: dict[str, Any] = {
    "seed": 2026,
    "deals": 400,
    "chunk_size": 25,
    "tables": "4,6,8,6-major,6-misclaim",  # player counts; -major, -misclaim: those variants
    "sample_every": 6,  # the seat on turn samples worlds after asks 0, 6, 12, ...
    "worlds": 64,  # worlds per sample
}
#: A table's variant suffix and the game parameter it sets.
VARIANTS = {"major": "major_sets_worth_two", "misclaim": "misclaim_to_opponents"}
#: What a claim made now with the sampler's likeliest assignment would do, with the real cards.
RIGHT, WRONG_SEAT, WITH_OPPONENTS = 0, 1, 2
NEVER = -1  # an event that did not happen in the game

# Per half-suit facts of a game (columns of ``facts``).
CERTAIN_AT, CERTAIN_TEAM, MOVER_CERTAIN_AT, WHOLE_AT, WHOLE_TEAM, CLAIMED_AT, CLAIMANT, CLAIM_CERTAIN, \
    STATUS, NUM_FACTS = range(10)
# Per snapshot (columns of ``snapshots``).
S_GAME, S_ASKS, S_OBSERVER, S_HIDDEN, S_SUCCESSES, S_FAILURES, S_RESOLVED, S_CONTESTED, S_PLACED, \
    S_WORLDS, NUM_SNAPSHOT_INTS = range(11)
# Per snapshot and half-suit (last axis of ``odds``).
P_TEAM, P_RIGHT, NAMING, CERTAIN_NOW, CLAIM_NOW, NUM_ODDS = range(6)


def parse_tables(text: str) -> list[tuple[str, dict[str, Any]]]:
    """``"4,6,8,6-major"`` as (label, game parameters) pairs."""
    tables = []
    for token in text.split(","):
        players, _, variant = token.strip().partition("-")
        if not players.isdigit() or (variant and variant not in VARIANTS):
            raise ValueError(f"table {token!r}: expected a player count, optionally -"
                             f"{' or -'.join(VARIANTS)} (e.g. 6-major)")
        parameters: dict[str, Any] = {"players": int(players)}
        if variant:
            parameters[VARIANTS[variant]] = True
        tables.append((token.strip(), parameters))
    if not tables or len({label for label, _ in tables}) != len(tables):
        raise ValueError(f"tables must name distinct tables, got {text!r}")
    return tables


# ---- the compiled self-play and replay -------------------------------------------------------------
@njit(cache=True)
def play_rules_games(initial, seeds):
    """Every deal of ``seeds`` played from ``initial`` by the deduction player in all seats.

    The streams are the arena's (chance from the deal seed, seat p from
    ``agent_seed(deal_seed, 0, p, players)``), so these are the games
    :func:`cardlab.arena.native.play_games` plays with the rules agent in every
    seat; only this small loop is compiled. Returns ``(actions, offsets,
    finals)`` as the arena does.
    """
    num_games = seeds.shape[0]
    num_players = initial[E.NUM_PLAYERS]
    per_game = 64 + initial[E.MAX_ASKS] + 8 * MAX_HALF_SUITS + 4 * num_players  # more than any game
    actions = np.empty(num_games * per_game, dtype=np.int64)
    offsets = np.zeros(num_games + 1, dtype=np.int64)
    finals = np.empty((num_games, initial.shape[0]), dtype=np.int64)
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    deal_stream = np.zeros(1, dtype=np.uint64)
    streams = np.zeros((num_players, 1), dtype=np.uint64)
    position = 0
    for g in range(num_games):
        s = initial.copy()
        seed_stream(deal_stream, seeds[g])
        for seat in range(num_players):
            seed_stream(streams[seat], agent_seed(seeds[g], 0, seat, num_players))
        while s[PHASE] != E.GAME_OVER:
            if s[PHASE] == E.DEALING:
                n = E.legal_actions(s, legal)
                action = legal[random_below(deal_stream, n)]
            else:
                action = rules_action(s, streams[s[TO_MOVE]])
            if position == actions.shape[0]:
                raise RuntimeError("a game ran longer than the action buffer")
            actions[position] = action
            position += 1
            E.apply_action(s, action)
        offsets[g + 1] = position
        finals[g] = s
    actions = actions[:position]
    return actions, offsets, finals


@njit(cache=True)
def _whole_team(s, h):
    """The team whose seats hold every card of half-suit h, or -1."""
    cards = HALF_SUIT_MASKS[s[E.LAYOUT], h]
    for team in range(2):
        if cards & ~E.team_cards(s, team) == 0:
            return team
    return -1


@njit(cache=True)
def live_cards(s):
    """The cards of the half-suits still in play."""
    live = np.int64(0)
    for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
        if s[E.STATUS + h] == UNRESOLVED:
            live |= HALF_SUIT_MASKS[s[E.LAYOUT], h]
    return live


@njit(cache=True)
def _note_certainty(s, facts):
    """After an event: half-suits some seat's deduction, or the truth, now gives to one team."""
    asks = s[E.ASKS]
    for seat in range(s[E.NUM_PLAYERS]):
        view = E.private_knowledge(s, seat)
        for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
            if s[E.STATUS + h] == UNRESOLVED and facts[h, CERTAIN_AT] == NEVER \
                    and K.claim_is_certain(view, h, seat & 1):
                facts[h, CERTAIN_AT] = asks
                facts[h, CERTAIN_TEAM] = seat & 1
    for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
        if s[E.STATUS + h] == UNRESOLVED and facts[h, WHOLE_AT] == NEVER:
            team = _whole_team(s, h)
            if team >= 0:
                facts[h, WHOLE_AT] = asks
                facts[h, WHOLE_TEAM] = team


@njit(cache=True)
def _snapshot(s, stream, worlds, marginal, odds_row, ints_row):
    """The seat on turn samples ``worlds`` deals it cannot tell apart; returns the locations' entropy.

    Fills ``odds_row[h]`` for each live half-suit and the ``ints_row`` counts.
    The entropy is the sum over hidden cards of the plug-in entropy of each
    card's sampled holder, with the Miller-Madow correction (bits).
    """
    observer = s[TO_MOVE]
    team = observer & 1
    num_players = s[E.NUM_PLAYERS]
    layout = s[E.LAYOUT]
    view = E.private_knowledge(s, observer)
    hidden = live_cards(s) & ~s[E.HANDS + observer]
    marginal[:, :] = 0
    codes = np.empty((MAX_HALF_SUITS, worlds), dtype=np.int64)
    team_holds = np.zeros(MAX_HALF_SUITS, dtype=np.int64)
    drawn = 0
    for _ in range(worlds):
        world, draws = resample_hidden_hands(s, observer, stream, RESAMPLE_DRAWS)
        if draws <= 0:
            continue
        for seat in range(num_players):
            for card in cards_in(world[E.HANDS + seat] & hidden):
                marginal[card, seat] += 1
        for h in range(NUM_HALF_SUITS[layout]):
            if s[E.STATUS + h] != UNRESOLVED:
                continue
            code = np.int64(0)
            ours = True
            i = 0
            for card in cards_in(HALF_SUIT_MASKS[layout, h]):
                holder = -1
                for seat in range(num_players):
                    if (world[E.HANDS + seat] >> card) & 1:
                        holder = seat
                ours = ours and holder & 1 == team
                code |= np.int64(holder) << (4 * i)
                i += 1
            if ours:
                codes[h, team_holds[h]] = code
                team_holds[h] += 1
        drawn += 1
    entropy = 0.0
    if drawn > 0:
        for card in cards_in(hidden):
            occupied = 0
            for seat in range(num_players):
                if marginal[card, seat] > 0:
                    q = marginal[card, seat] / drawn
                    entropy -= q * math.log2(q)
                    occupied += 1
            entropy += (occupied - 1) / (2.0 * drawn * math.log(2.0))
    odds_row[:, :] = np.nan
    for h in range(NUM_HALF_SUITS[layout]):
        if s[E.STATUS + h] != UNRESOLVED:
            continue
        cards = cards_in(HALF_SUIT_MASKS[layout, h])
        # The claim now: the likeliest assignment among the worlds where the team holds the
        # half-suit, else each card's likeliest teammate in the sampled marginals.
        best_code = np.int64(-1)
        best_count = 0
        if team_holds[h] > 0:
            ordered = np.sort(codes[h, :team_holds[h]])
            run = 0
            for j in range(team_holds[h]):
                run = run + 1 if j > 0 and ordered[j] == ordered[j - 1] else 1
                if run > best_count:
                    best_count = run
                    best_code = ordered[j]
        outcome = RIGHT
        for i in range(len(cards)):
            if best_code >= 0:
                named = (best_code >> (4 * i)) & 15
            else:
                named = observer
                for seat in range(team, num_players, 2):
                    if marginal[cards[i], seat] > marginal[cards[i], named] \
                            or (s[E.HANDS + seat] >> cards[i]) & 1:
                        named = seat
            holder = E.holder(s, cards[i])
            if holder & 1 != team:
                outcome = WITH_OPPONENTS
            elif holder != named and outcome == RIGHT:
                outcome = WRONG_SEAT
        odds_row[h, P_TEAM] = team_holds[h] / drawn if drawn > 0 else np.nan
        odds_row[h, P_RIGHT] = best_count / drawn if drawn > 0 else np.nan
        odds_row[h, NAMING] = naming_chance(view, h, team)
        odds_row[h, CERTAIN_NOW] = 1.0 if K.claim_is_certain(view, h, team) else 0.0
        odds_row[h, CLAIM_NOW] = outcome
    ints_row[S_OBSERVER] = observer
    ints_row[S_HIDDEN] = popcount(hidden)
    ints_row[S_CONTESTED] = popcount(K.contested_cards(E.knowledge_of(s)))
    ints_row[S_WORLDS] = drawn
    ints_row[S_PLACED] = popcount(live_cards(s) & ~K.contested_cards(E.knowledge_of(s)))
    return entropy


@njit(cache=True)
def heuristic_entropy(s, seat):
    """Entropy (bits) of the hidden cards' holders under the deduction player's own estimate
    (:func:`~cardlab.games.literature.strategy.holding_chance`: possible holders by hand size)."""
    view = E.private_knowledge(s, seat)
    total = 0.0
    for card in cards_in(live_cards(s) & ~s[E.HANDS + seat]):
        for other in range(s[E.NUM_PLAYERS]):
            q = holding_chance(view, other, card)
            if q > 0:
                total -= q * math.log2(q)
    return total


@njit(cache=True)
def trace_games(initial, actions, offsets, deal_seeds, sample_every, worlds):
    """Replay each game's ``actions`` from ``initial``; return its half-suit facts and its snapshots.

    ``facts[g, h]`` (columns ``CERTAIN_AT`` ... ``STATUS``, asks counted when
    the thing first held); ``snapshot_ints[k]``, ``snapshot_bits[k]`` (sampler
    entropy, deduction player's entropy) and ``odds[k, h]`` per snapshot, in
    game order. The worlds of game g's snapshots come from the stream of
    ``derive_seed(deal_seeds[g], 0x5EED)``, so each game is reproducible alone.
    """
    num_games = offsets.shape[0] - 1
    capacity = 0
    for g in range(num_games):
        capacity += (offsets[g + 1] - offsets[g]) // sample_every + 2
    facts = np.full((num_games, MAX_HALF_SUITS, NUM_FACTS), NEVER, dtype=np.int64)
    snapshot_ints = np.zeros((capacity, NUM_SNAPSHOT_INTS), dtype=np.int64)
    snapshot_bits = np.zeros((capacity, 2), dtype=np.float64)
    odds = np.full((capacity, MAX_HALF_SUITS, NUM_ODDS), np.nan, dtype=np.float64)
    marginal = np.zeros((64, MAX_PLAYERS), dtype=np.int64)
    stream = np.zeros(1, dtype=np.uint64)
    k = 0
    for g in range(num_games):
        s = initial.copy()
        stream[0] = derive_seed(deal_seeds[g], 0x5EED)
        next_sample = 0
        successes = 0
        failures = 0
        resolved = 0
        dealt = False
        for i in range(offsets[g], offsets[g + 1]):
            action = actions[i]
            deciding = s[PHASE] == E.ASKING and s[E.WINDOW_POLLS] == 0
            if deciding and not dealt:
                dealt = True
                _note_certainty(s, facts[g])
            if deciding:
                mover = s[TO_MOVE]
                view = E.private_knowledge(s, mover)
                for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
                    if s[E.STATUS + h] == UNRESOLVED and facts[g, h, MOVER_CERTAIN_AT] == NEVER \
                            and K.claim_is_certain(view, h, mover & 1):
                        facts[g, h, MOVER_CERTAIN_AT] = s[E.ASKS]
                if s[E.ASKS] >= next_sample:
                    row = snapshot_ints[k]
                    row[S_GAME] = g
                    row[S_ASKS] = s[E.ASKS]
                    row[S_SUCCESSES] = successes
                    row[S_FAILURES] = failures
                    row[S_RESOLVED] = resolved
                    snapshot_bits[k, 0] = _snapshot(s, stream, worlds, marginal, odds[k], row)
                    snapshot_bits[k, 1] = heuristic_entropy(s, mover)
                    k += 1
                    next_sample = (s[E.ASKS] // sample_every + 1) * sample_every
                if CLAIM <= action < DECLINE:
                    h = action - CLAIM
                    facts[g, h, CLAIMED_AT] = s[E.ASKS]
                    facts[g, h, CLAIMANT] = mover
                    facts[g, h, CLAIM_CERTAIN] = 1 if K.claim_is_certain(view, h, mover & 1) else 0
            asks = s[E.ASKS]
            asker = s[TO_MOVE]
            E.apply_action(s, action)
            if s[E.ASKS] > asks:  # an ask: it succeeded if the asker now holds the card
                if (s[E.HANDS + asker] >> (action % 64)) & 1:
                    successes += 1
                else:
                    failures += 1
                _note_certainty(s, facts[g])
            elif dealt and _resolved(s) > resolved:  # a claim settled
                resolved = _resolved(s)
                _note_certainty(s, facts[g])
        for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
            facts[g, h, STATUS] = s[E.STATUS + h]
    return facts, snapshot_ints[:k], snapshot_bits[:k], odds[:k]


@njit(cache=True)
def _resolved(s):
    count = 0
    for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
        count += s[E.STATUS + h] != UNRESOLVED
    return count


# ---- the dataset ---------------------------------------------------------------------------------
def _column(values: np.ndarray, kind: pa.DataType) -> pa.Array:
    return pa.array(np.asarray(values), kind)


def trace_table(parameters: dict[str, Any], game_parameters: dict[str, Any], deals: range):
    """Self-play ``deals`` at one table and replay them: the final states and :func:`trace_games`."""
    import pyspiel

    initial = pyspiel.load_game(GAME, dict(game_parameters)).new_initial_state().array.copy()
    seeds = deal_seeds(parameters["seed"], deals)
    actions, offsets, finals = play_rules_games(initial, seeds)
    return finals, trace_games(initial, actions, offsets, seeds, parameters["sample_every"],
                               parameters["worlds"])


def check_parameters(parameters: dict[str, Any]) -> None:
    """The tables parse and load as games; at least one sample and one world."""
    import pyspiel

    for key in ("sample_every", "worlds"):
        if parameters[key] < 1:
            raise ValueError(f"{key} must be at least 1, got {parameters[key]}")
    for label, game_parameters in parse_tables(parameters["tables"]):
        try:
            pyspiel.load_game(GAME, dict(game_parameters))
        except (ValueError, pyspiel.SpielError) as error:
            raise ValueError(f"table {label}: {str(error).splitlines()[0]}") from None


def play_chunk(parameters: dict[str, Any], deals: range) -> pa.Table:
    """The rows (table, deal, snapshot, live half-suit) of ``deals`` at every table."""
    parts = []
    for label, game_parameters in parse_tables(parameters["tables"]):
        finals, (facts, ints, bits, odds) = trace_table(parameters, game_parameters, deals)
        snapshot, h = np.nonzero(~np.isnan(odds[:, :, CLAIM_NOW]))
        game = ints[snapshot, S_GAME]
        observer = ints[snapshot, S_OBSERVER]
        team = observer % 2
        fact = facts[game, h]
        major = bool(game_parameters.get("major_sets_worth_two", False))
        scores = finals[:, E.SCORES:E.SCORES + 2]
        n = len(h)
        columns = {
            "table": pa.array([label] * n, pa.string()),
            "players": _column(np.full(n, game_parameters["players"]), pa.int8()),
            "major_sets_worth_two": _column(np.full(n, major), pa.bool_()),
            "misclaim_to_opponents": _column(np.full(n, game_parameters.get("misclaim_to_opponents", False)),
                                             pa.bool_()),
            "deal": _column(deals.start + game, pa.int64()),
            "game_asks": _column(finals[game, E.ASKS], pa.int16()),
            "margin": _column(scores[game, team] - scores[game, 1 - team], pa.int8()),  # observer's team
            "ask": _column(ints[snapshot, S_ASKS], pa.int16()),
            "observer": _column(observer, pa.int8()),
            "team": _column(team, pa.int8()),
            "hidden_cards": _column(ints[snapshot, S_HIDDEN], pa.int8()),
            "successes": _column(ints[snapshot, S_SUCCESSES], pa.int16()),
            "failures": _column(ints[snapshot, S_FAILURES], pa.int16()),
            "resolved": _column(ints[snapshot, S_RESOLVED], pa.int8()),
            "contested_cards": _column(ints[snapshot, S_CONTESTED], pa.int8()),
            "placed_cards": _column(ints[snapshot, S_PLACED], pa.int8()),
            "worlds_drawn": _column(ints[snapshot, S_WORLDS], pa.int16()),
            "entropy_bits": _column(bits[snapshot, 0], pa.float64()),
            "heuristic_bits": _column(bits[snapshot, 1], pa.float64()),
            "half_suit": _column(h, pa.int8()),
            "high": _column(h % 2 == 1, pa.bool_()),
            "value": _column(np.where(major & (h % 2 == 1), 2, 1), pa.int8()),
            "p_team": _column(odds[snapshot, h, P_TEAM], pa.float64()),
            "p_right": _column(odds[snapshot, h, P_RIGHT], pa.float64()),
            "naming_chance": _column(odds[snapshot, h, NAMING], pa.float64()),
            "certain_now": _column(odds[snapshot, h, CERTAIN_NOW] == 1, pa.bool_()),
            "claim_now": _column(odds[snapshot, h, CLAIM_NOW].astype(np.int8), pa.int8()),
            **{name: _column(fact[:, column], pa.int16()) for name, column in (
                ("certain_at", CERTAIN_AT), ("certain_team", CERTAIN_TEAM),
                ("mover_certain_at", MOVER_CERTAIN_AT), ("whole_at", WHOLE_AT), ("whole_team", WHOLE_TEAM),
                ("claimed_at", CLAIMED_AT), ("claimant", CLAIMANT), ("claim_certain", CLAIM_CERTAIN),
                ("status", STATUS))},
        }
        parts.append(pa.table(columns))
    return pa.concat_tables(parts)


STUDY = Study("literature-claims", DEFAULTS, play_chunk, check_parameters)

if __name__ == "__main__":
    main(STUDY)
