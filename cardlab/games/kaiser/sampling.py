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

With a passing rule (11.32-11.35) a seat knows the cards it gave and, once
they are delivered, the cards it received. Until delivery the others' given
cards are in transit, one more group each. After it, the cards a seat gave
and nobody has played yet are in its receiver's hand (or his discards), which
the groups' allowed masks say; then the others' gifts among themselves are
drawn uniformly from what each receiver has held since (every choice of c
cards is one more history of equal weight), and the dealt hands follow.
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
    DELIVERED,
    DISCARDING,
    DISCARDS,
    FACE_UP,
    GIVEN,
    GIVING,
    HANDS,
    KITTY,
    NUM_PILES,
    PHASE,
    PILE_CARDS,
    PILE_DEAL_START,
    PILES,
    PLAYED,
    VOIDS,
    giver_to,
    giving_choices,
    has_piles,
    kitty_taken,
    receiver_of,
    suit_cards,
    takes_kitty,
)
from cardlab.games.kaiser.rules import KITTY_SIZE, UNDISCARDABLE


@njit(cache=True)
def hidden_stash(s, seat):
    """The cards ``seat`` cannot see outside the hands: the untaken kitty, or another's discards."""
    if not takes_kitty(s):
        return np.int64(0)
    if not kitty_taken(s):
        return s[KITTY]
    return s[DISCARDS] if s[DECLARER] != seat else np.int64(0)


@njit(cache=True)
def cards_unseen_by(s, seat):
    """Cards dealt this hand that ``seat`` has not seen: the others' hands, the hidden stash and
    the others' given cards in transit (11.32-11.35)."""
    unseen = hidden_stash(s, seat)
    for other in range(s[NUM_PLAYERS]):
        if other != seat:
            unseen |= s[HANDS + other] | in_transit(s, other)
    return unseen


@njit(cache=True, inline="always")
def in_transit(s, giver):
    """The cards ``giver`` has given that are not delivered yet (in nobody's hand)."""
    return np.int64(0) if s[DELIVERED] else s[GIVEN + giver]


@njit(cache=True)
def held_since_delivery(s, seat):
    """Every card ``seat`` has held since the deal's given cards were delivered (or since the deal):
    his hand, the cards he has played and, as a declarer, his kitty's discards."""
    held = (s[DEALT + seat] & ~s[GIVEN + seat]) | (s[KITTY] if kitty_taken(s) and s[DECLARER] == seat else 0)
    if s[DELIVERED]:
        held |= s[GIVEN + giver_to(s, seat)]
    return held


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
        if _discards_in_order(world) and _giving_in_order(world):
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
def _giving_in_order(world):
    """A giver half-way through his cards (11.33-11.35) chose the first below a card he still holds."""
    return world[PHASE] != GIVING or giving_choices(world) != 0


@njit(cache=True)
def _draw_world(s, seat, stream):
    world = s.copy()
    players = s[NUM_PLAYERS]
    taken = kitty_taken(s)
    unseen = cards_unseen_by(s, seat)
    may_hold = may_hold_masks(s, seat)
    stash = hidden_stash(s, seat)
    # Groups: the others' hands, the stash, then the others' given cards in transit.
    groups = players - 1 + (stash != 0)
    for other in range(players):
        if other != seat and in_transit(s, other):
            groups += 1
    owner = np.empty(groups, dtype=np.int64)  # the seat of a hand or of cards in transit, -1: stash
    sizes = np.empty(groups, dtype=np.int64)
    allowed = np.empty(groups, dtype=np.int64)
    # The cards ``seat`` gave are still with their receiver, unless played (or discarded by him).
    receiver = receiver_of(s, seat) if s[DELIVERED] else -1
    with_receiver = s[GIVEN + seat] & ~s[PLAYED] if receiver >= 0 else np.int64(0)
    k = 0
    for other in range(players):
        if other != seat:
            owner[k] = other
            sizes[k] = popcount(s[HANDS + other])
            allowed[k] = may_hold[other] & (-1 if other == receiver else ~with_receiver)
            k += 1
    if stash != 0:  # the kitty (any card) or the discards (never a point card)
        owner[k] = -1
        sizes[k] = popcount(stash)
        allowed[k] = unseen & (~UNDISCARDABLE if taken else -1)
        if s[DECLARER] != receiver or not taken:
            allowed[k] &= ~with_receiver
        k += 1
    for other in range(players):
        if other != seat and in_transit(s, other):
            owner[k] = other
            sizes[k] = popcount(s[GIVEN + other])
            allowed[k] = unseen
            k += 1
    cards = np.zeros(groups, dtype=np.int64)
    sample_hidden_hands(unseen, allowed, sizes, stream, cards)
    played = np.zeros(players, dtype=np.int64)
    for other in range(players):
        played[other] = held_since_delivery(s, other) & ~s[HANDS + other]
        if taken and other == s[DECLARER]:
            played[other] &= ~s[DISCARDS]
    for k in range(groups):
        if owner[k] < 0 and taken:
            world[DISCARDS] = cards[k]
        elif owner[k] < 0:
            world[KITTY] = cards[k]
        elif k < players - 1:
            world[HANDS + owner[k]] = cards[k]
        else:
            world[GIVEN + owner[k]] = cards[k]
    _draw_gifts_kitty_and_deals(s, world, seat, played, stream)
    recount_undealt(world)
    world[UNDEALT] &= ~world[KITTY]  # the kitty was dealt too
    return world


@njit(cache=True)
def _draw_gifts_kitty_and_deals(s, world, seat, played, stream):
    """The others' dealt cards in ``world``, whose hands (and stash) are drawn: what each has held
    since delivery, less the cards he received and a declarer's kitty, plus what he gave. Gifts
    between two others and a kitty ``seat`` never saw are drawn uniformly from what the receiver
    (the declarer) has held."""
    players = s[NUM_PLAYERS]
    taken = kitty_taken(s)
    held = np.zeros(players, dtype=np.int64)
    for other in range(players):
        held[other] = world[HANDS + other] | played[other]
        if taken and other == s[DECLARER]:
            held[other] |= world[DISCARDS]
    received = np.zeros(players, dtype=np.int64)
    if s[DELIVERED]:
        for giver in range(players):
            receiver = receiver_of(s, giver)
            if giver != seat and receiver != seat:
                world[GIVEN + giver] = _draw_cards(held[receiver], popcount(s[GIVEN + giver]), stream)
            received[receiver] = world[GIVEN + giver]
    declarer = s[DECLARER]
    if taken and declarer != seat:
        world[KITTY] = _draw_cards(held[declarer] & ~received[declarer], KITTY_SIZE, stream)
    for other in range(players):
        if other == seat:
            continue
        kitty = world[KITTY] if taken and other == declarer else 0
        world[DEALT + other] = (held[other] & ~received[other] & ~kitty) | world[GIVEN + other]


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
