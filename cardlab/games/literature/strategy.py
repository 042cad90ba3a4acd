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
   the player holds, since a new one gives information away; never ask for a
   card of one's own where the variants allow it (12.12 gives the card away,
   12.13 only hands the turn to the target);
   in a claim window (12.5) claim only a certain half-suit, else pass;
3. when nothing can be gained by asking (every possible ask is hopeless) and
   the team surely holds a whole half-suit, claim it with the likeliest seats;
4. hand the turn to the teammate best placed to use it: the one with the most
   cards known to sit with opponents in half-suits he is known to hold, then
   the most cards; at the end, hand it to the opponent with the fewest cards.

With challenges (12.17) it challenges the other team on a half-suit, before
asking (or in a window), only when deduction places every card of it with
that team *and* no seat of that team can place them all from the public
record and its own hand as far as the player can tell: for each of them a
card it lacks still has two or more possible holders publicly
(:func:`should_challenge`; a heuristic: the challenged seats may deduce more
than that test sees). In a forced procedure (12.15, 12.17) it declares a
certain half-suit at once, passes while it is unsure and teammates still
have turns to come, and in the last round (at most m nodes left) declares
the half-suit it names most likely right: a pass there gives the half-suits
away for sure.
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
    CHALLENGE,
    CLAIM,
    DECLINE,
    HALF_SUIT_MASKS,
    HALF_SUIT_OF,
    HALF_SUIT_VALUES,
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
def hand_off_score(s, view, team, receiver):
    """Rule 4's preference for handing the turn to ``receiver``.

    A teammate scores the cards known to sit with opponents in half-suits he is
    known to hold (he can ask for them), then his hand size; an opponent scores
    minus his hand size (the one with least to work with).
    """
    if receiver & 1 != team:
        return -float(view[K.HAND_SIZE + receiver])
    score = 0.01 * view[K.HAND_SIZE + receiver]
    for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
        if view[K.MINIMUM + receiver * MAX_HALF_SUITS + h] > 0:
            cards = HALF_SUIT_MASKS[s[E.LAYOUT], h]
            score += popcount(cards & _placed_with_team(view, 1 - team))
    return score


@njit(cache=True)
def _hand_off(s, view, seat, legal, n):
    """Rule 4: the seat to hand the turn to."""
    best = legal[0]
    best_score = -1e300
    for i in range(n):
        score = hand_off_score(s, view, seat & 1, legal[i] - PASS_TURN)
        if score > best_score:
            best = legal[i]
            best_score = score
    return best


@njit(cache=True)
def ask_score(s, view, public, seat, action):
    """Rule 2's value of an ask: the chance the target holds the card, less a small
    penalty when the ask tells the table of a half-suit it did not know the asker holds."""
    target = action // 64
    card = action % 64
    score = holding_chance(view, target, card)
    if public[K.MINIMUM + seat * MAX_HALF_SUITS + HALF_SUIT_OF[s[E.LAYOUT], card]] == 0:
        score -= REVEAL_PENALTY
    return score


@njit(cache=True)
def _placed_with_team(view, team):
    contested = K.contested_cards(view)
    mask = np.int64(0)
    for seat in range(team, view[K.NUM_SEATS], 2):
        mask |= view[K.MAY_HOLD + seat] & ~contested
    return mask


@njit(cache=True)
def should_challenge(s, view, team, h):
    """12.17: the other team surely holds every card of h, yet none of its seats can place
    them all: each lacks a card that the public record leaves with two or more possible
    holders besides it (what the player can tell; see the module docstring)."""
    other = 1 - team
    if s[E.STATUS + h] != UNRESOLVED or not K.claim_is_certain(view, h, other):
        return False
    public = E.knowledge_of(s)
    cards = HALF_SUIT_MASKS[s[E.LAYOUT], h]
    for seat in range(other, s[E.NUM_PLAYERS], 2):
        blind = False
        for card in cards_in(cards & ~view[K.MAY_HOLD + seat]):
            others = 0
            for candidate in range(s[E.NUM_PLAYERS]):
                if candidate != seat and (public[K.MAY_HOLD + candidate] >> card) & 1:
                    others += 1
            if others >= 2:
                blind = True
                break
        if not blind:
            return False
    return True


@njit(cache=True)
def _forced_choice(s, view, team):
    """12.15: declare a certain half-suit; else pass until the last round, then declare the
    half-suit most likely named right."""
    best = -1
    best_chance = -1.0
    for h in cards_in(s[E.FORCED_SET]):
        if K.claim_is_certain(view, h, team):
            return CLAIM + h
        chance = naming_chance(view, h, team)
        if chance > best_chance:
            best = h
            best_chance = chance
    nodes_left = s[E.NUM_PLAYERS] * popcount(s[E.FORCED_SET]) - s[E.FORCED_PASSES]
    if 2 * nodes_left <= s[E.NUM_PLAYERS]:  # the last round: m nodes or fewer
        return CLAIM + best
    return DECLINE


@njit(cache=True)
def _is_legal(legal, n, action):
    for i in range(n):
        if legal[i] == action:
            return True
    return False


@njit(cache=True)
def rules_action(s, stream):
    """The deduction player's action for the seat to move in state ``s``."""
    seat = s[E.TO_MOVE]
    team = seat & 1
    view = E.private_knowledge(s, seat)
    if s[E.PHASE] == E.CLAIMING:
        card = E.card_being_named(s)
        return ASSIGN + likeliest_teammate(view, card, team, s[E.CLAIMANT])
    if s[E.FORCED_TEAM] >= 0:
        return _forced_choice(s, view, team)
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = E.legal_actions(s, legal)
    if legal[0] >= PASS_TURN:
        return _hand_off(s, view, seat, legal, n)
    # Rule 1: a certain claim.
    for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
        if s[E.STATUS + h] == UNRESOLVED and K.claim_is_certain(view, h, team) and _is_legal(
                legal, n, CLAIM + h):
            return CLAIM + h
    # 12.17: a challenge the other team cannot answer.
    if s[E.CHALLENGES] == 1:
        for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]):
            if _is_legal(legal, n, CHALLENGE + h) and should_challenge(s, view, team, h):
                return CHALLENGE + h
    if s[E.WINDOW_POLLS] > 0:  # 12.5: claim out of turn only when certain
        return DECLINE
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
        if (s[E.HANDS + seat] >> (action % 64)) & 1:
            continue  # never ask for one's own card (12.12 gives it away, 12.13 wastes the turn)
        score = ask_score(s, view, public, seat, action) + 1e-6 * random_unit(stream)  # tie-break
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
def action_scores(s, legal, n, out):
    """The deduction player's preference for each of the ``n`` legal actions, into ``out``.

    One scale for all its rules, so that search can try actions in the order the
    player would: a certain claim 2; a challenge 1.5 when :func:`should_challenge`,
    else -1.5; an ask its rule-2 score (-0.05 to 1); a claim
    the team surely holds 1 + its naming chance once every ask is hopeless (rule
    3), any other claim its naming chance - 1; an assignment the chance that the
    named teammate holds the card; a hand-off its rule-4 score.
    """
    seat = s[E.TO_MOVE]
    team = seat & 1
    layout = s[E.LAYOUT]
    view = E.private_knowledge(s, seat)
    if s[E.PHASE] == E.CLAIMING:
        card = E.card_being_named(s)
        for i in range(n):
            out[i] = holding_chance(view, legal[i] - ASSIGN, card)
        return
    public = E.knowledge_of(s)
    best_ask = -1.0
    for i in range(n):
        action = legal[i]
        if action >= CHALLENGE:  # 12.17: above any ask when it should be made, else below all
            out[i] = 1.5 if should_challenge(s, view, team, action - CHALLENGE) else -1.5
        elif action >= PASS_TURN:
            out[i] = hand_off_score(s, view, team, action - PASS_TURN)
        elif action == DECLINE:
            out[i] = 0.0  # 12.5: below a certain claim, above a doubtful one
        elif action < CLAIM:
            out[i] = ask_score(s, view, public, seat, action)
            best_ask = max(best_ask, out[i])
    surely_ours = ~K.team_may_hold(view, 1 - team)
    for i in range(n):
        action = legal[i]
        if CLAIM <= action < PASS_TURN and action != DECLINE:
            h = action - CLAIM
            if K.claim_is_certain(view, h, team):
                out[i] = 2.0
            elif best_ask <= 1e-5 and HALF_SUIT_MASKS[layout, h] & ~surely_ours == 0:
                out[i] = 1.0 + naming_chance(view, h, team)
            else:
                out[i] = naming_chance(view, h, team) - 1.0


@njit(cache=True)
def certain_assignment(s):
    """In a claim, the seat the next card is known to be with (as its ASSIGN action), else -1.

    Naming anyone else loses the claim, so search need not consider it.
    """
    if s[E.PHASE] != E.CLAIMING:
        return -1
    seat = s[E.TO_MOVE]
    view = E.private_knowledge(s, seat)
    card = E.card_being_named(s)
    holder = K.holder_of(view, card)
    if holder >= 0 and holder & 1 == s[E.CLAIMANT] & 1:
        return ASSIGN + holder
    return -1


@njit(cache=True)
def expected_returns(s, out):
    """A static evaluation for search cut-offs: per-seat returns if every unresolved
    half-suit went to the teams in proportion to the cards of it they hold.

    Scored half-suits count as they stand. Cards in hand are the truth of a
    sampled world, so this is a judgement of a determinized position.
    """
    layout = s[E.LAYOUT]
    margin = float(s[E.SCORES] - s[E.SCORES + 1])  # team 0 over team 1
    if s[E.PHASE] != E.GAME_OVER:
        even_seats = np.int64(0)
        for seat in range(0, s[E.NUM_PLAYERS], 2):
            even_seats |= s[E.HANDS + seat]
        for h in range(NUM_HALF_SUITS[layout]):
            if s[E.STATUS + h] != UNRESOLVED:
                continue
            cards = HALF_SUIT_MASKS[layout, h]
            share = popcount(cards & even_seats) / popcount(cards)
            margin += HALF_SUIT_VALUES[s[E.MAJOR_SETS_WORTH_TWO], h] * (2.0 * share - 1.0)
    for seat in range(s[E.NUM_PLAYERS]):
        out[seat] = margin if seat & 1 == 0 else -margin


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


__all__ = ["rules_action", "play_against_random", "holding_chance", "action_scores",
           "certain_assignment", "expected_returns"]
