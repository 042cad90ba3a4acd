"""Solving a position of the play: the exact value of the hand and of each legal action.

:func:`solve` takes a play-phase state of ``cardlab_kaiser`` or
``cardlab_twenty_eight`` (the standard four-player games), with every hand
visible to the solver, and returns each team's points of the hand under
perfect play by both teams, the same for every legal action, and the
resulting score of the hand.

Twenty-Eight's trump has two readings (``rules``):

* ``"open"`` (default): solved as if the trump were known to all and shown
  from the next card on (:mod:`cardlab.solver.position`); fast;
* ``"engine"``: the engine's own rules of the phase before the show (the
  trump hidden, calls for it as moves, the bidder's restrictions), by the
  slower search over engine states (:mod:`cardlab.solver.engine_search`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pyspiel
from numba import njit

from cardlab.core.cards import cards_string
from cardlab.core.layout import DECK, NUM_PLAYERS, TO_MOVE, team_of
from cardlab.games import kernels
from cardlab.games.double_dummy import (
    GAME_IDS,
    HAND_TOTALS,
    HANDS,
    HIDDEN_TRUMP_CHECKS,
    STANDARD_DECKS,
    hand_score,
    is_play_phase,
    strain_of_state,
)
from cardlab.solver import engine_search
from cardlab.solver.mtd import card_values
from cardlab.solver.position import TABLE_BITS, load
from cardlab.solver.rules import ALL_TECHNIQUES, TECHNIQUE_SETS
from cardlab.solver.search import Table
from cardlab.solver.table import prepare

Rules = Literal["open", "engine"]


@dataclass(frozen=True)
class Solution:
    """The double-dummy result of a position.

    ``points`` are each team's points of the whole hand (those taken already
    included) under perfect play; ``action_points[a]`` the same after action
    ``a``; ``score`` each team's score of the hand when it ends with
    ``points`` (Kaiser: the match-score change; Twenty-Eight: game points).
    """

    to_move: int
    points: tuple[int, int]
    action_points: dict[int, tuple[int, int]]
    score: tuple[int, int]

    @property
    def best_actions(self) -> list[int]:
        """Every legal action that keeps the value for the side to move."""
        team = team_of(self.to_move)
        return sorted(a for a, p in self.action_points.items() if p[team] == self.points[team])


@njit(cache=True)
def contract_code(game, s, flags):
    """The code :func:`cardlab.solver.search.prepare` compares: game, strain and techniques."""
    return (game * 8 + strain_of_state(game, s)) * TECHNIQUE_SETS + flags


@njit(cache=True)
def open_card_values(game, s, flags, entries, counters, scratch, cards_out, values_out):
    """Each card the player to move may play (open rules) and team 0's points of the hand after it.

    Returns how many cards were written; the table is kept while the contract is the same.
    """
    hands = np.zeros(4, dtype=np.int64)
    trick = np.full(4, -1, dtype=np.int64)
    rules, card_of, size, leader, tricks_left, trumps_from, won = load(game, s, flags, hands, trick)
    prepare(counters, contract_code(game, s, flags))
    search_cards = np.empty(32, dtype=np.int64)
    n = card_values(rules, entries, counters, scratch, hands, trick, size, leader, tricks_left,
                    trumps_from, search_cards, values_out)
    for i in range(n):
        cards_out[i] = card_of[search_cards[i]]
        values_out[i] += won
    return n


@njit(cache=True)
def open_action_values(game, s, flags, entries, counters, scratch, actions_out, values_out):
    """Each *legal* action of ``s`` and team 0's points of the hand after it, open rules.

    The engine's restrictions on the player to move (Twenty-Eight's bidder
    before the show, a caller who must trump) are kept at this move; a call
    for the trump is worth the best trump the caller may then play.
    """
    n = kernels.legal_actions(game, s, actions_out)
    cards = np.empty(32, dtype=np.int64)
    values = np.empty(32, dtype=np.int64)
    count = open_card_values(game, s, flags, entries, counters, scratch, cards, values)
    for i in range(n):
        action = actions_out[i]
        found = False
        for k in range(count):
            if cards[k] == action:
                values_out[i] = values[k]
                found = True
        if not found:  # Twenty-Eight's call for the trump: the caller plays on at once
            child = s.copy()
            kernels.apply_action(game, child, action)
            child_actions = np.empty(64, dtype=np.int64)
            child_cards = np.empty(32, dtype=np.int64)
            child_values = np.empty(32, dtype=np.int64)
            m = kernels.legal_actions(game, child, child_actions)
            c = open_card_values(game, child, flags, entries, counters, scratch, child_cards,
                                 child_values)
            maximising = team_of(s[TO_MOVE]) == 0
            best = -1000 if maximising else 1000
            for j in range(m):
                for k in range(c):
                    if child_cards[k] == child_actions[j]:
                        v = child_values[k]
                        best = max(best, v) if maximising else min(best, v)
            values_out[i] = best
    return n


def game_id_of(game_name: str) -> int:
    """The solver's id of a game; a clear error for a game it does not solve."""
    if game_name not in GAME_IDS:
        raise ValueError(f"the double-dummy solver plays Kaiser and Twenty-Eight, not {game_name!r}")
    return GAME_IDS[game_name]


def check_solvable(game: int, s: np.ndarray) -> None:
    """A standard four-player deck and a state in the play phase, else ValueError."""
    if s[NUM_PLAYERS] != 4 or s[DECK] != STANDARD_DECKS[game]:
        raise ValueError("the double-dummy solver needs the standard four-player game and deck")
    if not is_play_phase(game, s):
        raise ValueError("the double-dummy solver starts from the play phase (every bid made, trump chosen)")
    # A hand-built state can hold cards the deck lacks (Kaiser's 7H and 7S); the search renumbers
    # the deck's cards by strength, so such a card would silently stand for another.
    seen = 0
    for seat in range(4):
        hand = int(s[HANDS[game] + seat])
        if hand & seen or hand & ~int(s[DECK]):
            raise ValueError(f"seat {seat}'s cards are not in the deck or are held twice: "
                             f"{cards_string(hand & (seen | ~int(s[DECK])))}")
        seen |= hand


def solve(state: pyspiel.State, rules: Rules = "open", techniques: int = ALL_TECHNIQUES,
          table: Table | None = None) -> Solution:
    """The double-dummy solution of a play-phase ``state`` (every hand open to the solver).

    ``techniques`` switches the search's speed-ups (flags of
    :mod:`cardlab.solver.search`; the value never depends on them); ``table``
    reuses a transposition table across calls.
    """
    if rules not in ("open", "engine"):
        raise ValueError(f"rules must be 'open' or 'engine', got {rules!r}")
    game = game_id_of(state.get_game().get_type().short_name)
    s = state.array
    check_solvable(game, s)
    actions = np.empty(64, dtype=np.int64)
    values = np.empty(64, dtype=np.int64)
    if rules == "engine" and game in HIDDEN_TRUMP_CHECKS:
        HIDDEN_TRUMP_CHECKS[game](s)
        entries, generation = engine_search.new_table()
        n = engine_search.action_values(game, s, False, entries, generation, actions, values)
        values[:n] += engine_search.team_points(game, s)
    else:
        table = table or Table(TABLE_BITS[game])
        n = open_action_values(game, s, techniques, table.entries, table.counters, table.scratch,
                               actions, values)
    total = HAND_TOTALS[game]
    to_move = int(state.current_player())
    team = team_of(to_move)
    action_points = {int(a): (int(v), total - int(v)) for a, v in zip(actions[:n], values[:n], strict=True)}
    best = max(p[team] for p in action_points.values())
    points = next(p for p in action_points.values() if p[team] == best)
    return Solution(to_move, points, action_points, hand_score(game, s, points))


def reference_points(state: pyspiel.State) -> dict[int, int]:
    """Team 0's points of the hand after each legal action, by plain exhaustive minimax (slow)."""
    game = game_id_of(state.get_game().get_type().short_name)
    s = state.array
    check_solvable(game, s)
    actions = np.empty(64, dtype=np.int64)
    values = np.empty(64, dtype=np.int64)
    entries, generation = engine_search.new_table(1)
    n = engine_search.action_values(game, s, True, entries, generation, actions, values)
    won = int(engine_search.team_points(game, s))
    return {int(a): won + int(v) for a, v in zip(actions[:n], values[:n], strict=True)}
