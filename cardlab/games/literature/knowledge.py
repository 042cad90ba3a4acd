"""Where the cards may be: Literature's card-location inference, in numba.

Literature is won by deduction: every ask tells the table something. This
module keeps what the public events prove, as a small ``int64`` array
(``KNOWLEDGE_SIZE`` slots) that lives inside the engine state and is updated
with each event:

* ``MAY_HOLD[seat]``: mask of the cards the seat may hold. A card whose only
  possible holder is one seat is *placed* with that seat.
* ``HAND_SIZE[seat]``: how many cards the seat holds (public: anyone may ask).
* ``MINIMUM[seat, h]``: the seat holds at least this many cards of half-suit h.
  An ask proves the asker holds a card of the asked card's half-suit, and a
  successful ask adds the asked card to it.

What an ask proves (``observe_ask``): the asker holds at least one card of the
half-suit and not the asked card; a target who says no does not hold it; a
successful ask places the card with the asker. A claim takes its half-suit
out of play (``observe_claim``, also for the half-suits a challenge or a forced
procedure resolves with their holders shown), and a challenge the challenged
team must answer proves that it holds the whole half-suit
(``observe_team_holds``). :func:`propagate` then draws every
consequence it can cheaply, to a fixed point:

1. a seat whose placed cards fill its hand holds nothing else;
2. a seat whose possible cards just fill its hand holds all of them;
3. a half-suit minimum that only as many cards as it needs can satisfy places
   those cards;
4. a seat whose placed cards plus its unmet minimums fill its hand holds no
   other card (hand-size counting).

Every rule only removes possibilities that the events exclude, so the
knowledge is *sound*: the true holder of a card is never ruled out (the tests
check this on every step of thousands of random games). A player's private
view adds its own hand (:func:`private_view`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, popcount
from cardlab.games.literature.rules import (
    HALF_SUIT_MASKS,
    HALF_SUIT_OF,
    MAX_HALF_SUITS,
    MAX_PLAYERS,
    NUM_HALF_SUITS,
    cards_dealt,
)

# ---- Layout of the knowledge array ------------------------------------------------------
NUM_SEATS = 0
LAYOUT = 1
MAY_HOLD = 2  # MAX_PLAYERS card masks
HAND_SIZE = MAY_HOLD + MAX_PLAYERS  # MAX_PLAYERS counts
MINIMUM = HAND_SIZE + MAX_PLAYERS  # MAX_PLAYERS * MAX_HALF_SUITS counts, seat-major
KNOWLEDGE_SIZE = MINIMUM + MAX_PLAYERS * MAX_HALF_SUITS


@njit(cache=True, inline="always")
def _minimum_slot(seat, h):
    return MINIMUM + seat * MAX_HALF_SUITS + h


@njit(cache=True)
def start(k, num_seats, layout, dealer):
    """Knowledge right after the deal: any seat may hold any card, no minimums; the hand
    sizes are the round deal's from ``dealer + 1`` (uneven only under 12.10)."""
    k[:] = 0
    k[NUM_SEATS] = num_seats
    k[LAYOUT] = layout
    deck = np.int64(0)
    for h in range(NUM_HALF_SUITS[layout]):
        deck |= HALF_SUIT_MASKS[layout, h]
    for seat in range(num_seats):
        k[MAY_HOLD + seat] = deck
        k[HAND_SIZE + seat] = cards_dealt(popcount(deck), num_seats, dealer, seat)


@njit(cache=True)
def new_knowledge(num_seats, layout, dealer=0):
    k = np.zeros(KNOWLEDGE_SIZE, dtype=np.int64)
    start(k, num_seats, layout, dealer)
    return k


@njit(cache=True)
def _place(k, seat, cards):
    """Every card of ``cards`` is held by ``seat``: nobody else may hold it."""
    for other in range(k[NUM_SEATS]):
        if other != seat:
            k[MAY_HOLD + other] &= ~cards
    k[MAY_HOLD + seat] |= cards


@njit(cache=True)
def contested_cards(k):
    """Cards that two or more seats may still hold (all other live cards are placed)."""
    seen = np.int64(0)
    twice = np.int64(0)
    for seat in range(k[NUM_SEATS]):
        may = k[MAY_HOLD + seat]
        twice |= seen & may
        seen |= may
    return twice


@njit(cache=True)
def placed_cards(k, seat):
    """The cards known to be in ``seat``'s hand."""
    return k[MAY_HOLD + seat] & ~contested_cards(k)


@njit(cache=True)
def observe_ask(k, asker, target, card, success, surrendered=False, may_bluff=False):
    """Update for the public ask "asker asks target for card", answered yes or no.

    ``surrendered``: the asker held the card and it went to the target (12.12).
    ``may_bluff``: asks for one's own card are bluffs (12.13), so a refused ask
    does not prove that the asker lacks the card.
    """
    h = HALF_SUIT_OF[k[LAYOUT], card]
    bit = card_bit(card)
    asker_slot = _minimum_slot(asker, h)
    if surrendered:
        # He held the card (his minimum of h counted it at most once); the target holds it now.
        k[asker_slot] = max(k[asker_slot] - 1, 0)
        k[MAY_HOLD + asker] &= ~bit
        _place(k, target, bit)
        k[_minimum_slot(target, h)] += 1
        k[HAND_SIZE + asker] -= 1
        k[HAND_SIZE + target] += 1
        propagate(k)
        return
    # The asker holds a card of h other than the asked one, and not the asked one (with
    # bluffs, a card of h that may be the asked one).
    if k[asker_slot] < 1:
        k[asker_slot] = 1
    if not (may_bluff and not success):
        k[MAY_HOLD + asker] &= ~bit
    if success:
        # The target held the card (with its known cards of h); it now has one fewer.
        target_slot = _minimum_slot(target, h)
        target_known = popcount((placed_cards(k, target) | bit) & HALF_SUIT_MASKS[k[LAYOUT], h])
        held = max(k[target_slot], target_known)
        k[target_slot] = held - 1
        k[MAY_HOLD + target] &= ~bit
        _place(k, asker, bit)
        k[asker_slot] += 1
        k[HAND_SIZE + asker] += 1
        k[HAND_SIZE + target] -= 1
    else:
        k[MAY_HOLD + target] &= ~bit
    propagate(k)


@njit(cache=True)
def observe_claim(k, h, holders):
    """Update for a settled claim of half-suit h; ``holders[i]`` held its i-th card (shown)."""
    cards = HALF_SUIT_MASKS[k[LAYOUT], h]
    for seat in range(k[NUM_SEATS]):
        k[MAY_HOLD + seat] &= ~cards
        k[_minimum_slot(seat, h)] = 0
    for i in range(holders.shape[0]):
        k[HAND_SIZE + holders[i]] -= 1
    propagate(k)


@njit(cache=True)
def observe_team_holds(k, h, team):
    """Update for a challenge on h that ``team`` must answer (12.17): the team holds every
    card of h, so no seat of the other team holds one."""
    cards = HALF_SUIT_MASKS[k[LAYOUT], h]
    for seat in range(1 - team, k[NUM_SEATS], 2):
        k[MAY_HOLD + seat] &= ~cards
    propagate(k)


@njit(cache=True)
def propagate(k):
    """Apply the deduction rules 1-4 (module docstring) until nothing changes."""
    num_seats = k[NUM_SEATS]
    layout = k[LAYOUT]
    num_half_suits = NUM_HALF_SUITS[layout]
    changed = True
    while changed:
        changed = False
        contested = contested_cards(k)
        for seat in range(num_seats):
            may = k[MAY_HOLD + seat]
            placed = may & ~contested
            size = k[HAND_SIZE + seat]
            # Rule 1: the placed cards are the whole hand.
            if popcount(placed) == size and may != placed:
                k[MAY_HOLD + seat] = placed
                changed = True
                break
            # Rule 2: the possible cards are exactly enough to fill the hand.
            if popcount(may) == size and placed != may:
                _place(k, seat, may)
                changed = True
                break
            # Rule 3: a minimum that only as many cards as it needs can meet.
            unmet = 0
            allowed = placed
            for h in range(num_half_suits):
                cards = HALF_SUIT_MASKS[layout, h]
                slot = _minimum_slot(seat, h)
                known = popcount(placed & cards)
                if k[slot] < known:
                    k[slot] = known
                candidates = may & cards
                if k[slot] > known:
                    if popcount(candidates) == k[slot]:
                        _place(k, seat, candidates)
                        changed = True
                        break
                    unmet += k[slot] - known
                    allowed |= candidates
            if changed:
                break
            # Rule 4: placed cards plus unmet minimums fill the hand.
            if popcount(placed) + unmet == size and may & ~allowed != 0:
                k[MAY_HOLD + seat] = may & allowed
                changed = True
                break


@njit(cache=True)
def private_view(k, seat, hand, out):
    """``out``: the knowledge of ``seat``, who also sees its own ``hand``."""
    out[:] = k
    for other in range(k[NUM_SEATS]):
        out[MAY_HOLD + other] &= ~hand
    out[MAY_HOLD + seat] = hand
    layout = k[LAYOUT]
    for h in range(NUM_HALF_SUITS[layout]):
        out[_minimum_slot(seat, h)] = popcount(hand & HALF_SUIT_MASKS[layout, h])
    propagate(out)


@njit(cache=True)
def is_sound(k, hands):
    """True if the real ``hands`` satisfy every fact in ``k`` (the soundness invariant)."""
    layout = k[LAYOUT]
    for seat in range(k[NUM_SEATS]):
        hand = hands[seat]
        if hand & ~k[MAY_HOLD + seat] != 0:
            return False
        if popcount(hand) != k[HAND_SIZE + seat]:
            return False
        for h in range(NUM_HALF_SUITS[layout]):
            if popcount(hand & HALF_SUIT_MASKS[layout, h]) < k[_minimum_slot(seat, h)]:
                return False
    return True


@njit(cache=True)
def certain_cards(k, team):
    """How many live cards are placed with a seat of ``team`` (0 even, 1 odd seats)."""
    contested = contested_cards(k)
    count = 0
    for seat in range(team, k[NUM_SEATS], 2):
        count += popcount(k[MAY_HOLD + seat] & ~contested)
    return count


@njit(cache=True)
def team_may_hold(k, team):
    mask = np.int64(0)
    for seat in range(team, k[NUM_SEATS], 2):
        mask |= k[MAY_HOLD + seat]
    return mask


@njit(cache=True)
def claim_is_certain(k, h, team):
    """Every card of half-suit h is placed with a seat of ``team``."""
    cards = HALF_SUIT_MASKS[k[LAYOUT], h]
    if cards == 0:
        return False
    contested = contested_cards(k)
    if cards & contested != 0:
        return False
    return cards & ~team_may_hold(k, team) == 0 and cards & team_may_hold(k, 1 - team) == 0


@njit(cache=True)
def holder_of(k, card):
    """The seat ``card`` is placed with, or -1 if it is not placed (or not in play)."""
    found = -1
    for seat in range(k[NUM_SEATS]):
        if (k[MAY_HOLD + seat] >> card) & 1:
            if found >= 0:
                return -1
            found = seat
    return found


@njit(cache=True)
def may_hold(k, seat, card):
    return (k[MAY_HOLD + seat] >> card) & 1 == 1


@njit(cache=True)
def minimum(k, seat, h):
    return k[_minimum_slot(seat, h)]


@njit(cache=True)
def hand_size(k, seat):
    return k[HAND_SIZE + seat]


__all__ = [
    "KNOWLEDGE_SIZE", "MAY_HOLD", "HAND_SIZE", "MINIMUM", "MAX_PLAYERS", "new_knowledge",
    "start", "observe_ask", "observe_claim", "observe_team_holds", "propagate", "private_view",
    "is_sound",
    "certain_cards", "claim_is_certain", "holder_of", "placed_cards", "contested_cards",
]
