"""Trick play shared by Kaiser and Twenty-Eight: following suit and who wins.

A game describes card strength with a table ``strength[card]`` (higher wins
within a suit), so the same kernels serve Kaiser's A-high order, Twenty-Eight's
J 9 A 10 K Q 8 7 and a low no-trump's reversed order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, lowest_card
from cardlab.core.cards import SUIT_MASKS, suit_of

NO_TRUMP = -1


@njit(cache=True)
def follow_suit_choices(hand, led_suit):
    """Cards of ``hand`` a player may play to a trick led in ``led_suit``.

    Follow suit if possible, otherwise any card; ``led_suit < 0`` means the
    player leads and may play anything.
    """
    if led_suit < 0:
        return hand
    same_suit = hand & SUIT_MASKS[led_suit]
    return same_suit if same_suit != 0 else hand


@njit(cache=True)
def trick_winner(cards, count, trump_suit, trumps_from, strength):
    """Position (0 = leader) of the card that wins the trick.

    ``cards[:count]`` are in play order. A card of ``trump_suit`` is a trump
    only if played at position ``>= trumps_from`` (Twenty-Eight's trump shown
    mid-trick; other games pass 0). Highest trump wins, otherwise the highest
    card of the led suit.
    """
    led_suit = suit_of(cards[0])
    best = 0
    best_class = _card_class(cards[0], 0, led_suit, trump_suit, trumps_from)
    for position in range(1, count):
        card = cards[position]
        card_class = _card_class(card, position, led_suit, trump_suit, trumps_from)
        if card_class > best_class or (
            card_class == best_class and card_class > 0 and strength[card] > strength[cards[best]]
        ):
            best = position
            best_class = card_class
    return best


@njit(cache=True)
def winning_cards(choices, cards, count, trump_suit, trumps_from, strength):
    """The cards of ``choices`` that would win the trick ``cards[:count]`` (count >= 1) played
    next: ``trick_winner`` of the trick with each card added is its position. The trick is read
    once, not once per card (rule-based players ask this of every card they may play)."""
    led_suit = suit_of(cards[0])
    winning = trick_winner(cards, count, trump_suit, trumps_from, strength)
    best = cards[winning]
    best_class = _card_class(best, winning, led_suit, trump_suit, trumps_from)
    winners = np.int64(0)
    rest = choices
    while rest != 0:
        card = lowest_card(rest)
        rest &= rest - 1
        card_class = _card_class(card, count, led_suit, trump_suit, trumps_from)
        if card_class > best_class or (
            card_class == best_class and card_class > 0 and strength[card] > strength[best]
        ):
            winners |= card_bit(card)
    return winners


@njit(cache=True, inline="always")
def _card_class(card, position, led_suit, trump_suit, trumps_from):
    suit = suit_of(card)
    if trump_suit >= 0 and suit == trump_suit and position >= trumps_from:
        return 2
    if suit == led_suit:
        return 1
    return 0


@njit(cache=True, inline="always")
def card_class(card, position, led_suit, trump_suit, trumps_from):
    """How a card ranks in its trick: 2 a trump, 1 of the led suit, 0 neither (cannot win).

    With :func:`beats`, the comparison :func:`trick_winner` makes, for a caller that keeps
    the trick's best card in locals as it is played (a random playout).
    """
    return _card_class(card, position, led_suit, trump_suit, trumps_from)


@njit(cache=True, inline="always")
def beats(card_class, card_strength, best_class, best_strength):
    """Does a card of ``card_class`` and ``card_strength`` take the trick from the best so far?

    A higher class wins; within the led suit or the trumps the stronger card; two
    cards that cannot win (class 0) never beat each other.
    """
    # Bitwise, not short-circuit: which card of a random trick leads is not predictable.
    return (card_class > best_class) | (
        (card_class == best_class) & (card_class > 0) & (card_strength > best_strength)
    )


@njit(cache=True, inline="always")
def takes_the_lead(card, position, best, best_class, led_suit, trump_suit, trumps_from, strength):
    """The class of ``card`` played at ``position`` if it takes the trick from ``best``, the
    trick's leading card of class ``best_class``, else -1: :func:`card_class` and :func:`beats`
    for a playout that keeps the leading card in a register; the trick's first card
    (``best_class`` -1) always leads.
    """
    its_class = card_class(card, position, led_suit, trump_suit, trumps_from)
    # Both strengths are loaded so that ``beats`` decides without a branch: whether a random
    # card takes the trick is a coin toss the CPU cannot predict. (best < 0 only when
    # best_class is -1, where the class alone decides.)
    wins = beats(its_class, strength[card], best_class, strength[max(best, 0)])
    return its_class if wins else -1


@njit(cache=True, inline="always")
def void_shown(position, suit, led_suit):
    """The void a card of ``suit`` played at ``position`` reveals, as a bit of ``led_suit``
    (0 when it follows suit or leads): a play-out ORs it in without a branch."""
    return np.int64((position > 0) & (suit != led_suit)) << max(led_suit, 0)
