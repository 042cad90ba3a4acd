"""Drawing the hidden cards of a Kaiser hand that fit everything a player knows.

What a seat knows in Kaiser: its own hand, every card played, and which suits
each player has shown out of (in Lost Heir, 11.10, of the suits the cards
belong to there; a blank lead shows a hand of blanks only, a void in every
suit). With a kitty (the 34-card game, 11.1, and the three players' missy,
11.12) two more cards are hidden: the kitty until the declarer takes it up
(from everyone), and then his two discards (from everyone but him), which are
never the 5H or the 3S. Every constraint is per card, so the core sampler
(:func:`cardlab.core.sampling.sample_hidden_hands`) draws the hidden cards
exactly uniformly, the kitty or the discards as one more "hand". Two players
(11.11) hide the face-down pile cards from both: they are one more group,
spread uniformly over the face-down places.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, cards_in, highest_card, lowest_card, popcount
from cardlab.core.cards import SUIT_MASKS
from cardlab.core.layout import CARDS_DEALT, DEALING, DEALT, NUM_PLAYERS, UNDEALT, recount_undealt
from cardlab.core.rng import random_below
from cardlab.core.sampling import redraw_deal_so_far, sample_hidden_hands
from cardlab.games.kaiser.engine import (
    DECLARER,
    DISCARDING,
    DISCARDS,
    FACE_UP,
    HANDS,
    KITTY,
    NUM_PILES,
    PHASE,
    PILE_CARDS,
    PILE_DEAL_START,
    PILES,
    VOIDS,
    has_piles,
    suit_cards,
    takes_kitty,
)
from cardlab.games.kaiser.rules import KITTY_SIZE, UNDISCARDABLE


@njit(cache=True)
def hidden_stash(s, seat):
    """The cards ``seat`` cannot see outside the hands: the untaken kitty, or another's discards."""
    if not takes_kitty(s):
        return np.int64(0)
    if s[PHASE] < DISCARDING:
        return s[KITTY]
    return s[DISCARDS] if s[DECLARER] != seat else np.int64(0)


@njit(cache=True)
def cards_unseen_by(s, seat):
    """Cards dealt this hand that ``seat`` has not seen: the others' hands and the hidden stash."""
    unseen = hidden_stash(s, seat)
    for other in range(s[NUM_PLAYERS]):
        if other != seat:
            unseen |= s[HANDS + other]
    return unseen


@njit(cache=True)
def may_hold_masks(s, seat):
    """For each seat, the cards it may hold as far as ``seat`` knows (voids shown)."""
    unseen = cards_unseen_by(s, seat)
    may_hold = np.zeros(s[NUM_PLAYERS], dtype=np.int64)
    for other in range(s[NUM_PLAYERS]):
        if other == seat:
            may_hold[other] = s[HANDS + seat]
            continue
        allowed = unseen
        for suit in range(4):
            if (s[VOIDS + other] >> suit) & 1:
                allowed &= ~suit_cards(s, suit)  # Lost Heir: the suit a card belongs to (V-K13)
        may_hold[other] = allowed
    return may_hold


@njit(cache=True)
def resample_hidden_hands(s, seat, stream):
    """A copy of ``s`` whose hidden cards are redrawn uniformly among those ``seat`` cannot rule out.

    Each redrawn seat's dealt cards become its new hand plus the cards it has
    played; a declarer who took a kitty ``seat`` never saw gets two of his
    cards (held, played or discarded) drawn as that kitty. While the hands are
    dealt the cards not dealt yet are unseen too (:func:`redraw_deal_so_far`);
    once the kitty is being dealt, it is one more hidden group.
    """
    if has_piles(s) and (s[PHASE] != DEALING or s[CARDS_DEALT] > PILE_DEAL_START):
        return _draw_world_with_piles(s, seat, stream)
    if s[PHASE] == DEALING and s[KITTY] == 0:
        return redraw_deal_so_far(s, seat, HANDS, stream)
    for _ in range(MAX_DRAWS):
        world = _draw_world(s, seat, stream)
        if _discards_in_order(world):
            return world
    return s.copy()


#: Draws before the sampler keeps the true world (only when the discard order nearly forces it).
MAX_DRAWS = 1000


@njit(cache=True)
def _discards_in_order(world):
    """The declarer discards in ascending order (multi-card choice): a first discard has a higher one left."""
    if world[PHASE] != DISCARDING or popcount(world[DISCARDS]) != 1:
        return True
    eligible = world[HANDS + world[DECLARER]] & ~UNDISCARDABLE
    return highest_card(eligible) > lowest_card(world[DISCARDS])


@njit(cache=True)
def _draw_world(s, seat, stream):
    world = s.copy()
    players = s[NUM_PLAYERS]
    kitty = takes_kitty(s)
    may_hold = may_hold_masks(s, seat)
    stash = hidden_stash(s, seat)
    groups = players - 1 + (stash != 0)
    hidden = np.empty(groups, dtype=np.int64)
    sizes = np.empty(groups, dtype=np.int64)
    allowed = np.empty(groups, dtype=np.int64)
    k = 0
    for other in range(players):
        if other != seat:
            hidden[k] = other
            sizes[k] = popcount(s[HANDS + other])
            allowed[k] = may_hold[other]
            k += 1
    if stash != 0:  # the kitty (any card) or the discards (never a point card)
        sizes[k] = popcount(stash)
        allowed[k] = cards_unseen_by(s, seat) & (~UNDISCARDABLE if s[PHASE] >= DISCARDING else -1)
    cards = np.zeros(groups, dtype=np.int64)
    sample_hidden_hands(cards_unseen_by(s, seat), allowed, sizes, stream, cards)
    for k in range(players - 1):
        other = hidden[k]
        played = s[DEALT + other] & ~s[HANDS + other]
        if kitty and s[PHASE] >= DISCARDING and other == s[DECLARER]:
            played = (s[DEALT + other] | s[KITTY]) & ~s[HANDS + other] & ~s[DISCARDS]
        world[HANDS + other] = cards[k]
        world[DEALT + other] = cards[k] | played
    if kitty and s[PHASE] < DISCARDING:
        world[KITTY] = cards[players - 1]
    elif kitty and s[DECLARER] != seat:
        declarer = s[DECLARER]
        if stash != 0:
            world[DISCARDS] = cards[players - 1]
        held = world[DEALT + declarer] | world[DISCARDS]  # his ten cards: eight dealt, the kitty
        kitty = _draw_cards(held, KITTY_SIZE, stream)
        world[KITTY] = kitty
        world[DEALT + declarer] = held & ~kitty
    recount_undealt(world)
    world[UNDEALT] &= ~world[KITTY]  # the kitty was dealt too
    return world


@njit(cache=True)
def _draw_cards(mask, count, stream):
    """``count`` cards of ``mask`` drawn uniformly without replacement."""
    drawn = np.int64(0)
    for _ in range(count):
        pool = mask & ~drawn
        n = random_below(stream, popcount(pool))
        for card in cards_in(pool):
            if n == 0:
                drawn |= card_bit(card)
                break
            n -= 1
    return drawn


@njit(cache=True)
def _draw_world_with_piles(s, seat, stream):
    """Two players (11.11): the other's hand (never a suit he showed out of) and every face-down
    pile card, the undealt cards too while the piles are being dealt."""
    world = s.copy()
    other = 1 - seat
    places = np.empty(2 * 2 * NUM_PILES, dtype=np.int64)
    face_down = np.int64(0)
    count = 0
    for place in range(2 * 2 * NUM_PILES):
        card = s[PILES + place]
        if card >= 0 and (s[PILE_CARDS] >> card) & 1 and not (s[FACE_UP] >> card) & 1:
            face_down |= card_bit(card)
            places[count] = place
            count += 1
    undealt = s[UNDEALT]
    unseen = s[HANDS + other] | face_down | undealt
    allowed_hand = unseen
    for suit in range(4):
        if (s[VOIDS + other] >> suit) & 1:
            allowed_hand &= ~SUIT_MASKS[suit]
    sizes = np.array([popcount(s[HANDS + other]), count, popcount(undealt)], dtype=np.int64)
    allowed = np.array([allowed_hand, unseen, unseen], dtype=np.int64)
    cards = np.zeros(3, dtype=np.int64)
    sample_hidden_hands(unseen, allowed, sizes, stream, cards)
    world[HANDS + other] = cards[0]
    world[DEALT + other] = cards[0] | (s[DEALT + other] & ~s[HANDS + other])
    drawn = np.empty(count, dtype=np.int64)
    k = 0
    for card in cards_in(cards[1]):
        drawn[k] = card
        k += 1
    for i in range(count - 1, 0, -1):  # uniformly over the face-down places
        j = random_below(stream, i + 1)
        drawn[i], drawn[j] = drawn[j], drawn[i]
    for i in range(count):
        world[PILES + places[i]] = drawn[i]
    world[PILE_CARDS] = (s[PILE_CARDS] & ~face_down) | cards[1]
    world[UNDEALT] = cards[2]
    return world
