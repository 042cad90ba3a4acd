"""Drawing the hidden cards of a Twenty-Eight hand that fit everything a player knows.

Hidden from a seat: the other hands, the undealt cards, which of a player's
cards came in deal stage 1, the face-down trump indicator (unless the seat
placed it or it was shown) and the first bidder's indicator after a partner's
raise. Most of what the public history proves is per card (a seat that did not
follow a suit holds none of it), and the core sampler
(:func:`cardlab.core.sampling.sample_hidden_hands`) draws those deals exactly
uniformly. The rest couples cards, and is handled here:

* the hidden trump suit is weighted by the number of deals consistent with
  it, and the bidder's phase-1 play rules some suits out
  (:func:`trump_suit_possible`);
* the stage-1 cards and the old indicator are drawn uniformly within each
  redrawn hand;
* facts about the whole deal (no four-jack hand, the bidding team not dealt
  every trump, a pointless redeal hand) are enforced by rejection.

:func:`resample_hidden_hands` lists every constraint.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, has_card, lowest_card, nth_card, popcount
from cardlab.core.cards import SUIT_MASKS, suit_of
from cardlab.core.layout import (
    CARDS_DEALT,
    DEALER,
    DEALT,
    NUM_PLAYERS,
    recount_undealt,
    undealt_cards,
)
from cardlab.core.rng import random_below, random_unit
from cardlab.core.sampling import sample_hidden_hands
from cardlab.games.twenty_eight.engine import (
    BIDDER,
    BIDDER_DISCARDS,
    BIDDER_HIDDEN_LEADS,
    DEAL_CARDS,
    FIRST_BIDDER,
    FIRST_FOUR,
    HAND_TRICKS,
    HANDS,
    INDICATOR,
    NO_HOLD,
    NO_SEAT,
    OLD_INDICATOR,
    OUTCOME,
    PLAYED_BY,
    REDEALT,
    TRICK_HISTORY,
    TRICK_LEADER,
    TRICK_LEADERS,
    TRICK_NUMBER,
    TRUMP,
    TRUMP_SHOWN,
    VOIDS,
    bidding_team_held_all_trumps,
    trump_hidden,
)
from cardlab.games.twenty_eight.rules import JACKS, POINT_CARDS


@njit(cache=True)
def publicly_known_cards(s, seat):
    """Cards in ``seat``'s hand that everybody knows: the shown indicator not yet played."""
    if seat == s[BIDDER] and s[TRUMP_SHOWN] == 1 and has_card(s[HANDS + seat], s[INDICATOR]):
        return card_bit(s[INDICATOR])
    return np.int64(0)


@njit(cache=True)
def bidder_cards_after(s, trick):
    """Cards the bidder played from trick ``trick`` on (the shown indicator excluded)."""
    bidder = s[BIDDER]
    n = s[NUM_PLAYERS]
    cards = np.int64(0)
    for t in range(trick, min(s[TRICK_NUMBER] + 1, s[HAND_TRICKS])):
        leader = s[TRICK_LEADERS + t] if t < s[TRICK_NUMBER] else s[TRICK_LEADER]
        position = (bidder - leader) % n
        card = s[TRICK_HISTORY + n * t + position]
        if card >= 0 and card != s[INDICATOR]:
            cards |= card_bit(card)
    return cards


@njit(cache=True)
def trump_suit_possible(s, suit):
    """Could the hidden trump be ``suit``, judging by the bidder's phase-1 play alone?

    * A bidder who did not follow suit played a non-trump card (ruling 5: on a
      non-trump lead he may not play a trump from his hand; on a trump lead he
      had none), so no suit he discarded is trump.
    * A bidder who led a suit while the trump was hidden held nothing else if it
      was trump; every card he played from then on (the indicator aside) is then
      of that suit.
    """
    if (s[BIDDER_DISCARDS] >> suit) & 1:
        return False
    first_lead = s[BIDDER_HIDDEN_LEADS + suit]
    if first_lead >= 0 and bidder_cards_after(s, first_lead) & ~SUIT_MASKS[suit] != 0:
        return False
    return True


@njit(cache=True)
def _world_property_flags(s):
    """Facts the history made public about the whole deal, as bits (checked by rejection).

    Bit 0: some seat was dealt all four jacks (ruling 3; only once all cards are dealt).
    Bit 1: the bidding team was dealt every trump (ruling 7; only once shown).
    Bit 2: the opening bidder's first four cards hold no point card (ruling 1;
    only known when he took the redeal).
    """
    flags = 0
    n = s[NUM_PLAYERS]
    if s[CARDS_DEALT] == s[DEAL_CARDS]:
        for seat in range(n):
            if s[DEALT + seat] & JACKS == JACKS:
                flags |= 1
    if s[TRUMP_SHOWN] == 1 and bidding_team_held_all_trumps(s):
        flags |= 2
    if s[OUTCOME] == REDEALT and s[FIRST_FOUR + (s[DEALER] + 1) % n] & POINT_CARDS == 0:
        flags |= 4
    return flags


@njit(cache=True)
def _random_subset(mask, size, must_include, stream):
    """A uniformly drawn ``size``-card subset of ``mask`` containing ``must_include`` (a mask)."""
    chosen = must_include
    rest = mask & ~must_include
    for _ in range(size - popcount(must_include)):
        card = nth_card(rest, random_below(stream, popcount(rest)))
        chosen |= card_bit(card)
        rest &= ~card_bit(card)
    return chosen


MAX_RESAMPLE_ATTEMPTS = 2000


@njit(cache=True)
def resample_hidden_hands(s, seat, stream):
    """A copy of ``s`` that ``seat`` cannot tell apart from it, drawn from the consistent worlds.

    Hidden from ``seat``: the other hands, the undealt cards, which of a player's
    cards came in deal stage 1, the face-down indicator (unless ``seat`` placed
    it or it was shown) and the first bidder's indicator after a partner's raise
    (unless ``seat`` placed it). Enforced constraints, every one a fact of the
    public history:

    1. own hand and every card played stay; a shown indicator stays in the
       bidder's hand until played;
    2. a seat that did not follow a suit holds none of it (for the bidder in
       phase 1 this is about his hand, never about the indicator); a caller or
       showing bidder could not follow the led suit; a caller who then played a
       non-trump holds no trump;
    3. while the trump is hidden from ``seat``, the indicator is a card of a
       suit the bidder's play allows (:func:`trump_suit_possible`); if the
       bidder led the trump suit while hidden, his hand then, hence every card
       he still hides, is of that suit (also applied once the trump is shown);
    4. the indicator a bidder placed in stage 1 is one of his first four cards;
    5. the deal-wide facts (:func:`_world_property_flags`): no four-jack hand
       once all cards are out (unless the hand was voided for it), the bidding
       team not dealt all trumps once shown (unless voided for it), and the
       redealing opener's first four pointless;
    6. with the jack restriction (13.1), a seat that played a barred jack held
       no other card it could have played then (``NO_HOLD``).

    Within these constraints the draw is uniform over deals: suits of the hidden
    indicator weighted by their number of completions, hands by
    :func:`cardlab.core.sampling.sample_hidden_hands`, stage-1 cards and the old
    indicator uniformly, and facts 5 by rejection. Likelihoods of the players'
    free choices (how they bid, which card they chose) are not modelled. If
    ``MAX_RESAMPLE_ATTEMPTS`` draws all fail the constraints of 5 (possible
    only when they are nearly forced), ``s`` itself is returned.
    """
    target_flags = _world_property_flags(s)
    for _ in range(MAX_RESAMPLE_ATTEMPTS):
        world = _draw_world(s, seat, stream)
        if _world_property_flags(world) == target_flags:
            return world
    return s.copy()


@njit(cache=True)
def _draw_world(s, seat, stream):
    bidder = s[BIDDER]
    n = s[NUM_PLAYERS]
    guess_indicator = trump_hidden(s) and seat != bidder
    # Hidden seats: the N - 1 others, plus the undealt cards as a last "seat".
    hidden = np.empty(n, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    may_hold = np.zeros(n, dtype=np.int64)
    known = np.zeros(n, dtype=np.int64)
    pool = undealt_cards(s)
    k = 0
    for other in range(n):
        if other == seat:
            continue
        known[k] = publicly_known_cards(s, other)
        secret = s[HANDS + other] & ~known[k]
        hidden[k] = other
        sizes[k] = popcount(secret)
        pool |= secret
        k += 1
    hidden[k] = NO_SEAT  # the undealt cards
    sizes[k] = popcount(undealt_cards(s))
    if guess_indicator:
        pool |= card_bit(s[INDICATOR])
    for k in range(n):
        allowed = pool
        other = hidden[k]
        if other >= 0:
            for suit in range(4):
                if (s[VOIDS + other] >> suit) & 1:
                    allowed &= ~SUIT_MASKS[suit]
            if other == bidder and s[TRUMP_SHOWN] == 1 and s[BIDDER_HIDDEN_LEADS + s[TRUMP]] >= 0:
                allowed &= SUIT_MASKS[s[TRUMP]]  # he led a trump while hidden: all trumps
            allowed &= ~s[NO_HOLD + other]
        may_hold[k] = allowed
    hands = np.zeros(n, dtype=np.int64)
    indicator = s[INDICATOR]
    if guess_indicator:
        indicator = _draw_indicator(s, pool, may_hold, hidden, sizes, stream)
        pool &= ~card_bit(indicator)
    sample_hidden_hands(pool, _with_indicator_suit(s, may_hold, hidden, indicator), sizes, stream,
                        hands)
    world = s.copy()
    for k in range(n - 1):
        world[HANDS + hidden[k]] = hands[k] | known[k]
    if guess_indicator:
        world[INDICATOR] = indicator
        world[TRUMP] = suit_of(indicator)
    # Dealt cards and the stage-1 split of every hidden seat.
    for k in range(n - 1):
        other = hidden[k]
        dealt = world[HANDS + other] | world[PLAYED_BY + other]
        if other == bidder and trump_hidden(world):
            dealt |= card_bit(world[INDICATOR])
        world[DEALT + other] = dealt
        first_size = popcount(s[FIRST_FOUR + other])
        must = np.int64(0)
        if other == s[FIRST_BIDDER]:
            if s[OLD_INDICATOR] >= 0:
                first_four = _random_subset(dealt, first_size, must, stream)
                world[FIRST_FOUR + other] = first_four
                world[OLD_INDICATOR] = nth_card(first_four, random_below(stream, first_size))
                continue
            if world[INDICATOR] >= 0:
                must = card_bit(world[INDICATOR])
        if first_size == popcount(dealt):
            world[FIRST_FOUR + other] = dealt
        else:
            world[FIRST_FOUR + other] = _random_subset(dealt, first_size, must, stream)
    recount_undealt(world)  # the undealt cards were hidden too
    return world


@njit(cache=True)
def _with_indicator_suit(s, may_hold, hidden, indicator):
    """Constraint 3 for a hypothesised trump: the bidder's hand all trumps if he led one hidden."""
    constrained = may_hold.copy()
    if indicator < 0 or s[TRUMP_SHOWN] == 1:
        return constrained
    trump = suit_of(indicator)
    if s[BIDDER_HIDDEN_LEADS + trump] < 0:
        return constrained
    for k in range(hidden.shape[0]):
        if hidden[k] == s[BIDDER]:
            constrained[k] &= SUIT_MASKS[trump]
    return constrained


@njit(cache=True)
def _indicator_group(candidates, group, per_card):
    """Candidate indicators of one suit with the same possible holders: all of them, or
    (``per_card``: forced-jack proofs single out jacks) the jack (0) and the rest (1)."""
    if not per_card:
        return candidates if group == 0 else np.int64(0)
    return candidates & JACKS if group == 0 else candidates & ~JACKS


@njit(cache=True)
def _draw_indicator(s, pool, may_hold, hidden, sizes, stream):
    """The hidden indicator, drawn in proportion to the deals consistent with it.

    Without forced-jack proofs every unseen card of a suit has the same
    possible holders (all constraints are per suit), so the weight of a suit is
    its number of candidate cards times the completions with one of them
    removed; with them (13.1) the jacks are weighed on their own.
    """
    weights = np.zeros(8, dtype=np.float64)  # suit * 2 + group
    scratch = np.zeros(hidden.shape[0], dtype=np.int64)
    per_card = False
    for k in range(hidden.shape[0] - 1):
        per_card = per_card or s[NO_HOLD + hidden[k]] != 0
    for suit in range(4):
        candidates = pool & SUIT_MASKS[suit]
        if candidates == 0 or not trump_suit_possible(s, suit):
            continue
        for g in range(2):
            group = _indicator_group(candidates, g, per_card)
            if group == 0:
                continue
            one = lowest_card(group)
            constrained = _with_indicator_suit(s, may_hold, hidden, one)
            weights[2 * suit + g] = popcount(group) * sample_hidden_hands(
                pool & ~card_bit(one), constrained, sizes, stream, scratch
            )
    target = random_unit(stream) * weights.sum()
    chosen = -1
    for i in range(8):
        if weights[i] > 0.0:
            chosen = i
            target -= weights[i]
            if target < 0.0:
                break
    candidates = _indicator_group(pool & SUIT_MASKS[chosen // 2], chosen % 2, per_card)
    return nth_card(candidates, random_below(stream, popcount(candidates)))
