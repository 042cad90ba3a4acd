"""A deduction player for Literature, as a numba kernel.

``rules_action(state_array, stream)`` chooses for the player to move using
only what that seat may know: its own hand and the public knowledge the engine
keeps (:mod:`cardlab.games.literature.knowledge`), combined in
:func:`cardlab.games.literature.engine.private_knowledge`. It plays by four
rules, in order:

1. claim a half-suit as soon as the claim is certain (every card placed within
   the team), naming the seats where the cards are placed;
2. ask for a card whose holder is known, otherwise the card most likely to be
   with the target (a card's possible holders share it in proportion to their
   hand sizes); between equal asks, prefer a half-suit the table already knows
   the player holds, since a new one gives information away;
3. when nothing can be gained by asking (every possible ask is hopeless) and
   the team surely holds a whole half-suit, claim it with the likeliest seats;
4. hand the turn to the teammate best placed to use it: the one with the most
   cards known to sit with opponents in half-suits he is known to hold, then
   the most cards; at the end, hand it to the opponent with the fewest cards.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import cards_in, popcount
from cardlab.core.rng import random_below, random_unit
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.rules import (
    ASSIGN,
    CLAIM,
    HALF_SUIT_MASKS,
    HALF_SUIT_OF,
    MAX_HALF_SUITS,
    NUM_HALF_SUITS,
    PASS_TURN,
    UNRESOLVED,
)

#: Score given up for an ask that tells the table of a half-suit it did not know the asker holds.
REVEAL_PENALTY = 0.05


@njit(cache=True)
def holding_chance(view, seat, card):
    """Chance that ``seat`` holds ``card``: its share of the card's possible holders, by hand size."""
    if not (view[K.MAY_HOLD + seat] >> card) & 1:
        return 0.0
    total = 0.0
    for other in range(view[K.NUM_SEATS]):
        if (view[K.MAY_HOLD + other] >> card) & 1:
            total += view[K.HAND_SIZE + other]
    return view[K.HAND_SIZE + seat] / total if total > 0 else 0.0


@njit(cache=True)
def likeliest_teammate(view, card, team, claimant):
    """The seat of ``team`` most likely to hold ``card`` (the claimant if none may)."""
    best = claimant
    best_chance = -1.0
    for seat in range(team, view[K.NUM_SEATS], 2):
        chance = holding_chance(view, seat, card)
        if chance > best_chance:
            best = seat
            best_chance = chance
    return best


@njit(cache=True)
def naming_chance(view, h, team):
    """Rough chance that a claim of h, naming the likeliest teammates, is right."""
    chance = 1.0
    for card in cards_in(HALF_SUIT_MASKS[view[K.LAYOUT], h]):
        best = 0.0
        for seat in range(team, view[K.NUM_SEATS], 2):
            best = max(best, holding_chance(view, seat, card))
        chance *= best
    return chance


@njit(cache=True)
def _best_claim(s, view, team, only_sure_team):
    """The unresolved half-suit with the best naming chance (-1 if none qualifies)."""
    best = -1
    best_chance = -1.0
    for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
        if s[E.STATUS + h] != UNRESOLVED:
            continue
        cards = HALF_SUIT_MASKS[s[E.LAYOUT], h]
        if only_sure_team and cards & K.team_may_hold(view, 1 - team) != 0:
            continue
        chance = naming_chance(view, h, team)
        if chance > best_chance:
            best = h
            best_chance = chance
    return best


@njit(cache=True)
def _hand_off(s, view, seat, legal, n):
    """Rule 4: the seat to hand the turn to."""
    team = seat & 1
    best = legal[0]
    best_score = -1.0
    for i in range(n):
        receiver = legal[i] - PASS_TURN
        if receiver & 1 == team:
            # Cards placed with opponents that the teammate may ask for.
            score = 0.01 * view[K.HAND_SIZE + receiver]
            for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
                if view[K.MINIMUM + receiver * MAX_HALF_SUITS + h] > 0:
                    cards = HALF_SUIT_MASKS[s[E.LAYOUT], h]
                    score += popcount(cards & _placed_with_team(view, 1 - team))
        else:
            score = -view[K.HAND_SIZE + receiver]  # the opponent with least to work with
        if score > best_score:
            best = legal[i]
            best_score = score
    return best


@njit(cache=True)
def _placed_with_team(view, team):
    contested = K.contested_cards(view)
    mask = np.int64(0)
    for seat in range(team, view[K.NUM_SEATS], 2):
        mask |= view[K.MAY_HOLD + seat] & ~contested
    return mask


@njit(cache=True)
def rules_action(s, stream):
    """The deduction player's action for the seat to move in state ``s``."""
    seat = s[E.TO_MOVE]
    team = seat & 1
    view = E.private_knowledge(s, seat)
    if s[E.PHASE] == E.CLAIMING:
        h = s[E.CLAIM_HALF_SUIT]
        card = cards_in(HALF_SUIT_MASKS[s[E.LAYOUT], h])[s[E.CLAIM_COUNT]]
        return ASSIGN + likeliest_teammate(view, card, team, s[E.CLAIMANT])
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = E.legal_actions(s, legal)
    if legal[0] >= PASS_TURN:
        return _hand_off(s, view, seat, legal, n)
    # Rule 1: a certain claim.
    for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
        if s[E.STATUS + h] == UNRESOLVED and K.claim_is_certain(view, h, team):
            return CLAIM + h
    if legal[0] >= CLAIM:  # only claims: the end of the game
        return CLAIM + _best_claim(s, view, team, False)
    # Rule 2: the most promising ask.
    public = E.knowledge_of(s)
    best = -1
    best_score = -1.0
    for i in range(n):
        action = legal[i]
        if action >= CLAIM:
            break
        target = action // 64
        card = action % 64
        h = HALF_SUIT_OF[s[E.LAYOUT], card]
        score = holding_chance(view, target, card)
        if public[K.MINIMUM + seat * MAX_HALF_SUITS + h] == 0:
            score -= REVEAL_PENALTY
        score += 1e-6 * random_unit(stream)  # random tie-break
        if score > best_score:
            best = action
            best_score = score
    # Rule 3: a hopeless ask is worse than a claim the team surely holds.
    if best < 0 or best_score <= 1e-5:
        h = _best_claim(s, view, team, True)
        if h >= 0:
            return CLAIM + h
    if best < 0:
        return legal[random_below(stream, n)]
    return best


@njit(cache=True)
def play_against_random(template, num_games, stream, deduction_team, results):
    """Play ``num_games`` games: seats of ``deduction_team`` use :func:`rules_action`, the rest
    play uniformly at random. ``results[i]`` gets the deduction team's return."""
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    for i in range(num_games):
        s = E.random_deal(template, stream)
        while s[E.PHASE] != E.GAME_OVER:
            if s[E.TO_MOVE] & 1 == deduction_team:
                action = rules_action(s, stream)
            else:
                n = E.legal_actions(s, legal)
                action = legal[random_below(stream, n)]
            E.apply_action(s, action)
        results[i] = s[E.SCORES + deduction_team] - s[E.SCORES + 1 - deduction_team]


__all__ = ["rules_action", "play_against_random", "holding_chance"]
