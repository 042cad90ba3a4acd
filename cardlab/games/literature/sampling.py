"""Drawing the hidden hands of a Literature game that fit everything a player knows.

A player's knowledge (:mod:`cardlab.games.literature.knowledge`) gives, for
every other seat, its hand size, the cards it may hold, and a minimum number
of cards per half-suit. The core sampler handles only per-card constraints;
the half-suit minimums couple cards, so Literature deals with a matching.

Each seat's hand is cut into *slots*: ``MINIMUM[seat, h]`` slots that accept
only cards of half-suit h, and the rest of its hand as free slots that accept
any card the seat may hold. A deal meets every constraint exactly when it is a
perfect matching of hidden cards to slots (a seat holding more than its
minimum of h puts the extra cards in free slots), so:

1. a first perfect matching is built by augmenting paths (none exists exactly
   when the constraints are contradictory);
2. then the cards are fixed one at a time, in random order: each draws a seat
   among those it may go to, with probability proportional to the room still
   unfixed in that seat, and moves there along an alternating path through
   the unfixed cards. A seat without such a path cannot take the card in any
   completion, so another is drawn; the card's current seat always works.

Every step keeps a perfect matching, so the result always satisfies every
constraint, in polynomial time and without giving up. The draw is close to,
but not exactly, uniform over consistent deals; :func:`resample_hidden_hands`
also rejects draws that contradict the event log.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, cards_in, popcount
from cardlab.core.layout import DEALT, NUM_PLAYERS, recount_undealt, team_of
from cardlab.core.rng import random_below
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.engine import (
    EVENT_ASK,
    EVENT_FORCED,
    FORCED_CHALLENGE,
    HANDS,
    LAYOUT,
    LOG,
    LOG_LENGTH,
    NO_OWN_CARD_ASKS,
    OWN_CARD_ASKS,
    SURRENDER_OWN_CARD,
    event_actor,
    event_card,
    event_forced_kind,
    event_half_suit,
    event_holder,
    event_kind,
    event_shows_holders,
    event_success,
    event_surrendered,
    event_target,
    private_knowledge,
)
from cardlab.games.literature.rules import (
    HALF_SUIT_MASKS,
    HALF_SUIT_OF,
    MAX_HALF_SUITS,
    MAX_PLAYERS,
)

_MAX_NODES = MAX_PLAYERS * (MAX_HALF_SUITS + 1)


@njit(cache=True)
def sample_hands(view, observer, observer_hand, stream, out_hands):
    """Deal every card ``observer`` cannot see, consistently with its knowledge ``view``.

    ``view`` is the observer's private knowledge. Fills ``out_hands[seat]`` for
    every seat (the observer keeps ``observer_hand``) and returns True, or
    returns False if no deal satisfies the constraints.

    Long on purpose: the constraint propagation and the draw share their masks as locals of one compiled
    frame.
    """
    num_seats = view[K.NUM_SEATS]
    layout = view[K.LAYOUT]
    for seat in range(num_seats):
        out_hands[seat] = 0
    out_hands[observer] = observer_hand
    hidden = np.int64(0)
    for seat in range(num_seats):
        if seat != observer:
            hidden |= view[K.MAY_HOLD + seat]
    hidden &= ~observer_hand
    cards = cards_in(hidden)
    num_cards = cards.shape[0]
    half_suit = np.empty(num_cards, dtype=np.int64)
    for i in range(num_cards):
        half_suit[i] = HALF_SUIT_OF[layout, cards[i]]
    # Slot groups ("nodes"): one free node per seat, one per (seat, h) with a minimum.
    node_seat = np.empty(_MAX_NODES, dtype=np.int64)
    node_h = np.empty(_MAX_NODES, dtype=np.int64)
    capacity = np.empty(_MAX_NODES, dtype=np.int64)
    num_nodes = 0
    total = 0
    for seat in range(num_seats):
        if seat == observer:
            continue
        free = view[K.HAND_SIZE + seat]
        total += free
        for h in range(MAX_HALF_SUITS):
            need = view[K.MINIMUM + seat * MAX_HALF_SUITS + h]
            if need > 0:
                node_seat[num_nodes] = seat
                node_h[num_nodes] = h
                capacity[num_nodes] = need
                num_nodes += 1
                free -= need
        if free < 0:
            return False
        node_seat[num_nodes] = seat
        node_h[num_nodes] = -1
        capacity[num_nodes] = free
        num_nodes += 1
    if total != num_cards:
        return False
    # Which nodes each card may go to.
    fits = np.zeros((num_cards, num_nodes), dtype=np.bool_)
    for i in range(num_cards):
        for j in range(num_nodes):
            seat = node_seat[j]
            if (view[K.MAY_HOLD + seat] >> cards[i]) & 1 and (
                node_h[j] < 0 or node_h[j] == half_suit[i]
            ):
                fits[i, j] = True
    node_of = np.full(num_cards, -1, dtype=np.int64)
    load = np.zeros(num_nodes, dtype=np.int64)
    fixed = np.zeros(num_cards, dtype=np.bool_)
    # 1. A first perfect matching, card by card along augmenting paths.
    order = _shuffled(num_cards, stream)
    for i in order:
        if not _augment(i, -1, -1, fits, node_seat, node_of, load, capacity, fixed, num_nodes, num_cards):
            return False
    # 2. Fix the cards one by one at a drawn seat.
    room = np.zeros(num_seats, dtype=np.int64)
    for seat in range(num_seats):
        if seat != observer:
            room[seat] = view[K.HAND_SIZE + seat]
    order = _shuffled(num_cards, stream)
    for i in order:
        options = np.int64(0)
        for j in range(num_nodes):
            if fits[i, j]:
                options |= np.int64(1) << node_seat[j]
        while True:
            weight = 0
            for seat in range(num_seats):
                if (options >> seat) & 1:
                    weight += room[seat]
            pick = random_below(stream, weight)
            seat = 0
            for candidate in range(num_seats):
                if (options >> candidate) & 1:
                    if pick < room[candidate]:
                        seat = candidate
                        break
                    pick -= room[candidate]
            if node_seat[node_of[i]] == seat or _augment(
                i, seat, node_of[i], fits, node_seat, node_of, load, capacity, fixed, num_nodes,
                num_cards,
            ):
                break
            options &= ~(np.int64(1) << seat)
        fixed[i] = True
        room[seat] -= 1
    for i in range(num_cards):
        out_hands[node_seat[node_of[i]]] |= card_bit(cards[i])
    return True


@njit(cache=True)
def _shuffled(n, stream):
    order = np.arange(n)
    for k in range(n - 1, 0, -1):
        j = random_below(stream, k + 1)
        order[k], order[j] = order[j], order[k]
    return order


@njit(cache=True)
def _augment(card, seat, vacated, fits, node_seat, node_of, load, capacity, fixed, num_nodes,
             num_cards):
    """Move ``card`` along an alternating path; True if one exists (then applied).

    With ``seat < 0`` the card is unplaced and may go to any node it fits; the
    path ends at a node with spare capacity. Otherwise the card moves into a
    node of ``seat``, displacing unfixed cards along the path, which ends at the
    node it ``vacated``.
    """
    parent_node = np.full(num_nodes, -2, dtype=np.int64)  # node the mover came from
    mover = np.full(num_nodes, -1, dtype=np.int64)  # card that moves into the node
    queue = np.empty(num_nodes, dtype=np.int64)
    head = 0
    tail = 0
    end = -1
    for j in range(num_nodes):
        if not fits[card, j] or j == vacated:
            continue
        if seat >= 0 and node_seat[j] != seat:
            continue
        parent_node[j] = -1
        mover[j] = card
        queue[tail] = j
        tail += 1
    while head < tail and end < 0:
        x = queue[head]
        head += 1
        if seat < 0 and load[x] < capacity[x]:
            end = x
            break
        for d in range(num_cards):
            if node_of[d] != x or fixed[d] or d == card:
                continue
            for y in range(num_nodes):
                if not fits[d, y] or parent_node[y] != -2:
                    continue
                parent_node[y] = x
                mover[y] = d
                if (seat >= 0 and y == vacated) or (seat < 0 and load[y] < capacity[y]):
                    end = y
                    break
                queue[tail] = y
                tail += 1
            if end >= 0:
                break
    if end < 0:
        return False
    # Walk back: each mover enters its node, leaving the parent node.
    if seat < 0:
        load[end] += 1
    y = end
    while y >= 0:
        node_of[mover[y]] = y
        y = parent_node[y]
    return True


# ---- Worlds a seat cannot tell apart: hands that also fit the event log ------------------------
@njit(cache=True)
def dealt_hands_for(s, hands):
    """The deal that, with the logged events, leads to the current ``hands``.

    Every event is public and moves cards deterministically, so running the log
    backwards from any current hands gives the only deal they can come from.
    """
    num_players = s[NUM_PLAYERS]
    dealt = hands[:num_players].copy()
    for i in range(s[LOG_LENGTH] - 1, -1, -1):
        event = s[LOG + i]
        kind = event_kind(event)
        if kind == EVENT_ASK and event_success(event):
            bit = card_bit(event_card(event))
            dealt[event_actor(event)] &= ~bit
            dealt[event_target(event)] |= bit
        elif kind == EVENT_ASK and event_surrendered(event):
            bit = card_bit(event_card(event))
            dealt[event_target(event)] &= ~bit
            dealt[event_actor(event)] |= bit
        elif event_shows_holders(event):
            cards = cards_in(HALF_SUIT_MASKS[s[LAYOUT], event_half_suit(event)])
            for j in range(cards.shape[0]):
                dealt[event_holder(event, j)] |= card_bit(cards[j])
    return dealt


@njit(cache=True)
def consistent_with_log(s, hands):
    """True if the current ``hands`` agree with every logged event.

    Replays the log forwards from the deal the hands imply, checking that each
    ask was legal (asker held another card of the half-suit, not the card,
    unless asks for one's own card are allowed; the target held a card) and
    answered as logged (a surrender exactly when the asker held the card),
    that each claim's cards were where the claim showed them, and that a
    challenge the challenged team had to answer met a team holding the whole
    half-suit (12.17; one it did not hold shows the holders).
    """
    num_players = s[NUM_PLAYERS]
    layout = s[LAYOUT]
    own_card_asks = s[OWN_CARD_ASKS] != NO_OWN_CARD_ASKS
    current = dealt_hands_for(s, hands)
    for seat in range(num_players):  # hand sizes at the deal are public
        if popcount(current[seat]) != popcount(s[DEALT + seat]):
            return False
    for i in range(s[LOG_LENGTH]):
        event = s[LOG + i]
        kind = event_kind(event)
        actor = event_actor(event)
        if kind == EVENT_ASK:
            target = event_target(event)
            card = event_card(event)
            bit = card_bit(card)
            cards = HALF_SUIT_MASKS[layout, HALF_SUIT_OF[layout, card]]
            held = current[actor] & bit != 0
            if (held and not own_card_asks) or current[actor] & cards == 0:
                return False
            if current[target] == 0:
                return False
            if (current[target] & bit != 0) != event_success(event):
                return False
            if event_surrendered(event) != (held and s[OWN_CARD_ASKS] == SURRENDER_OWN_CARD):
                return False
            if event_success(event):
                current[target] &= ~bit
                current[actor] |= bit
            elif event_surrendered(event):
                current[actor] &= ~bit
                current[target] |= bit
        elif kind == EVENT_FORCED and event_forced_kind(event) == FORCED_CHALLENGE and (
                not event_shows_holders(event)):
            cards = HALF_SUIT_MASKS[layout, event_half_suit(event)]
            for seat in range(team_of(actor), num_players, 2):
                if current[seat] & cards != 0:  # the challenger's team held a card of it
                    return False
        elif event_shows_holders(event):
            h = event_half_suit(event)
            cards = cards_in(HALF_SUIT_MASKS[layout, h])
            for j in range(cards.shape[0]):
                seat = event_holder(event, j)
                if current[seat] & card_bit(cards[j]) == 0:
                    return False
                current[seat] &= ~card_bit(cards[j])
    return True


#: Drawn deals a resample tries before it gives up on fitting the event log.
RESAMPLE_DRAWS = 10_000


@njit(cache=True)
def resample_hidden_hands(s, seat, stream, max_draws):
    """A copy of ``s`` whose hidden hands are redrawn to fit everything ``seat`` knows.

    Draws deals that meet ``seat``'s knowledge (hand sizes, placed cards,
    absences, half-suit minimums) and keeps the first that also agrees with
    the whole event log, so the world could really have been played. Returns
    ``(world, draws)``; ``draws`` is -1 when the knowledge admits no deal at all
    and 0 when ``max_draws`` draws all contradicted the log.
    """
    view = private_knowledge(s, seat)
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    world = s.copy()
    for draw in range(1, max_draws + 1):
        if not sample_hands(view, seat, s[HANDS + seat], stream, hands):
            return world, -1
        if consistent_with_log(s, hands):
            num_players = s[NUM_PLAYERS]
            dealt = dealt_hands_for(s, hands)
            for other in range(num_players):
                world[HANDS + other] = hands[other]
                world[DEALT + other] = dealt[other]
            recount_undealt(world)
            return world, draw
    return world, 0


@njit(cache=True)
def hands_of_resampled_worlds(s, seat, stream, worlds):
    """Every seat's hand in ``worlds`` draws of :func:`resample_hidden_hands`; ``ok[w]`` if drawn."""
    hands = np.zeros((worlds, MAX_PLAYERS), dtype=np.int64)
    ok = np.zeros(worlds, dtype=np.bool_)
    for w in range(worlds):
        world, draws = resample_hidden_hands(s, seat, stream, RESAMPLE_DRAWS)
        if draws > 0:
            ok[w] = True
            hands[w, :] = world[HANDS:HANDS + MAX_PLAYERS]
    return hands, ok
