"""MTD(f): a position's value found by zero-window searches from a first guess (``USE_MTD``).

The guess is the value of a narrower game in which each side weighs only the
cards the ordering puts first (``USE_NARROW_GUESS``), or of one line of play.
:func:`exact_value` is the solver's entry point; :func:`reaches` asks a single
zero-window question; :func:`card_values` values each card a seat may play.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import (
    lowest_card,
)
from cardlab.core.search_cards import NO_CARD
from cardlab.solver.bounds import boundary_bounds
from cardlab.solver.rules import (
    FLAGS,
    NARROW,
    NARROW_LINE_TRICKS,
    NARROW_WIDTH,
    NUM_SEATS,
    POINTS,
    TRICK_BASE,
    USE_MTD,
    USE_NARROW_GUESS,
    USE_ORDERING,
    USE_QUICK_TRICKS,
    USE_TT,
    beats,
    playable,
    points_left,
)
from cardlab.solver.search import _trick_so_far, search
from cardlab.solver.table import GENERATION

# MTD(f)'s first guess: the value of a narrower game, each side searching only the cards the
# ordering puts first. Within a point of the value on 167 of the 200 deals of bench_solver (a)
# for about 1,000 nodes, against 100 for the playout; from it MTD(f) needs 11% fewer nodes.
GUESS_WIDTH = 2  # the cards a node of the guess's search weighs ...
GUESS_LINE_TRICKS = 3  # ... and the last tricks where it follows one line


@njit(cache=True)
def _narrow_rules(rules, width, line_tricks):
    """The rules of a search that weighs only the first ``width`` ordered moves of each node, and
    one in the last ``line_tricks`` tricks."""
    narrow = rules.copy()
    narrow[FLAGS] |= NARROW
    narrow[NARROW_WIDTH] = width
    narrow[NARROW_LINE_TRICKS] = line_tricks
    return narrow


@njit(cache=True)
def playout_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from):
    """Team 0's points when every player plays the move the ordering puts first.

    One line of play to the end (a node per card), without the table, so
    nothing inexact is stored: the narrow search's own first guess.
    """
    playout = _narrow_rules(rules, 1, 0)
    playout[FLAGS] &= ~(USE_TT | USE_QUICK_TRICKS)
    return search(playout, table, counters, scratch, hands, trick, size, leader, tricks_left,
                  trumps_from, -1000, 1000)


@njit(cache=True, inline="always")
def _mtd(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
         lower, upper, guess):
    """MTD(f): zero-window searches from ``guess`` until the bounds ``[lower, upper]`` meet."""
    while lower < upper:
        beta = max(guess, lower + 1)
        guess = search(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                       trumps_from, beta - 1, beta)
        if guess < beta:
            upper = guess
        else:
            lower = guess
    return lower


@njit(cache=True)
def narrow_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from):
    """Team 0's points when each side weighs only its two best-ordered cards (one in the last
    three tricks): a guess of the exact value, MTD(f)'s first.

    The narrower game is searched like the real one (table, bounds, MTD(f) from the playout),
    its table entries under a generation of their own (``-generation - 2``): they are
    never taken for bounds of the real game, and later guesses of the same generation reuse
    them. The guess is kept within the real game's bounds.
    """
    lower, upper = _root_bounds(rules, hands, trick, size, leader, tricks_left)
    narrow = _narrow_rules(rules, GUESS_WIDTH, GUESS_LINE_TRICKS)
    guess = playout_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                          trumps_from)
    guess = min(max(guess, lower), upper)
    generation = counters[GENERATION]
    counters[GENERATION] = -generation - 2  # below every real generation and the empty rows' tag
    guess = _mtd(narrow, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
                 lower, upper, guess)
    counters[GENERATION] = generation
    return min(max(guess, lower), upper)


@njit(cache=True, inline="always")
def _root_bounds(rules, hands, trick, size, leader, tricks_left):
    """Team 0's least and most points from here: the points left, or the sure-winner bounds
    at a trick boundary."""
    if size == 0 and tricks_left > 1 and rules[FLAGS] & USE_QUICK_TRICKS:
        return boundary_bounds(rules, hands, leader, tricks_left)
    negative, highest, _ = points_left(rules, hands, trick, size, tricks_left)
    return negative, highest


@njit(cache=True)
def exact_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
                guess=-1000):
    """Team 0's exact points from here on: MTD(f) zero-window searches, or one full window.

    ``guess`` (e.g. the value of a sibling) starts MTD(f) nearer the answer; without one, the
    narrow search's value (:func:`narrow_value`), or the playout's when that is switched off.
    """
    if (rules[FLAGS] & USE_MTD) == 0:
        negative, highest, _ = points_left(rules, hands, trick, size, tricks_left)
        return search(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                      trumps_from, negative - 1, highest + 1)
    lower, upper = _root_bounds(rules, hands, trick, size, leader, tricks_left)
    if not lower <= guess <= upper and rules[FLAGS] & USE_ORDERING:
        if rules[FLAGS] & USE_NARROW_GUESS:
            guess = narrow_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                                 trumps_from)
        else:
            guess = playout_value(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                                  trumps_from)
    if not lower <= guess <= upper:
        guess = (lower + upper) // 2
    return _mtd(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
                lower, upper, guess)


@njit(cache=True)
def reaches(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
            target):
    """Does team 0 take at least ``target`` points from here on? One zero-window search."""
    return search(rules, table, counters, scratch, hands, trick, size, leader, tricks_left,
                  trumps_from, target - 1, target) >= target


@njit(cache=True)
def card_values(rules, table, counters, scratch, hands, trick, size, leader, tricks_left, trumps_from,
                cards_out, values_out):
    """Every playable card of the seat to move and team 0's points from here on after it.

    Writes the cards ascending into ``cards_out`` and their values into
    ``values_out``; returns how many (equivalent cards are each listed).
    """
    seat = (leader + size) % NUM_SEATS
    cards = playable(hands[seat], trick, size)
    _, trick_points, best_position = _trick_so_far(rules, hands, trick, size, trumps_from)
    n = 0
    guess = -1000
    while cards != 0:
        card = lowest_card(cards)
        cards &= cards - 1
        bit = np.int64(1) << card
        hands[seat] &= ~bit
        trick[size] = card
        if size < NUM_SEATS - 1:
            result = exact_value(rules, table, counters, scratch, hands, trick, size + 1, leader,
                                 tricks_left, trumps_from, guess)
        else:
            winning = best_position
            if beats(rules, card, size, trick[best_position], best_position, trumps_from):
                winning = size
            winner = (leader + winning) % NUM_SEATS
            gained = 0
            if (winner & 1) == 0:
                gained = trick_points + rules[POINTS + card] + rules[TRICK_BASE]
            first, second, third = trick[0], trick[1], trick[2]
            result = gained + exact_value(rules, table, counters, scratch, hands, trick, 0, winner,
                                          tricks_left - 1, 0, guess - gained)
            trick[0], trick[1], trick[2] = first, second, third
        hands[seat] |= bit
        trick[size] = NO_CARD
        cards_out[n] = card
        values_out[n] = result
        guess = result
        n += 1
    return n
