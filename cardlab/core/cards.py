"""Cards, suits and ranks as the contract numbers them (docs/actions.md#cards).

A card id is ``suit * 13 + rank`` with suits C=0, D=1, H=2, S=3 and ranks
0=2, 1=3, ..., 8=10, 9=J, 10=Q, 11=K, 12=A. The two jokers of Literature's
ninth-set variant are 52 (red, ``"RJ"``) and 53 (black, ``"BJ"``). Every game
shares these ids; what differs between games is which cards form the deck and
how strong each card is, which live in each game's ``rules.py``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba import njit

from cardlab.core.bitboard import cards_in

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
NUM_SUITS = 4
NUM_RANKS = 13
RED_JOKER, BLACK_JOKER = 52, 53
NUM_CARD_IDS = 54

SUIT_CHARS = "CDHS"
RANK_CHARS = "23456789TJQKA"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

# Rank ids by name, so rules read "rank(JACK)" rather than "9".
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)

#: ``SUIT_MASKS[s]`` is the bitmask of the 13 ordinary cards of suit ``s``.
SUIT_MASKS = np.array([((1 << 13) - 1) << (13 * s) for s in range(NUM_SUITS)], dtype=np.int64)


def card_id(suit: int, rank: int) -> int:
    """The contract id of the card of ``rank`` in ``suit``."""
    if not (0 <= suit < NUM_SUITS and 0 <= rank < NUM_RANKS):
        raise ValueError(f"no card with suit {suit} and rank {rank}")
    return suit * NUM_RANKS + rank


@njit(cache=True)
def suit_of(card):
    """Suit of an ordinary card (jokers have none: -1)."""
    return card // 13 if card < 52 else -1


@njit(cache=True)
def rank_of(card):
    """Rank id of an ordinary card (jokers: -1)."""
    return card % 13 if card < 52 else -1


def card_string(card: int) -> str:
    """``"5H"``, ``"TD"``, ``"RJ"``: two characters, rank then suit."""
    card = int(card)
    if card == RED_JOKER:
        return "RJ"
    if card == BLACK_JOKER:
        return "BJ"
    if not 0 <= card < 52:
        raise ValueError(f"card id {card} is not in 0..53")
    return RANK_CHARS[card % NUM_RANKS] + SUIT_CHARS[card // NUM_RANKS]


def parse_card(text: str) -> int:
    """Inverse of :func:`card_string`; accepts ``"10H"`` for ``"TH"`` too."""
    token = text.strip().upper()
    if token == "RJ":
        return RED_JOKER
    if token == "BJ":
        return BLACK_JOKER
    if token.startswith("10"):
        token = "T" + token[2:]
    if len(token) != 2 or token[0] not in RANK_CHARS or token[1] not in SUIT_CHARS:
        raise ValueError(f"not a card: {text!r} (expected e.g. '5H', 'TD', 'AS')")
    return card_id(SUIT_CHARS.index(token[1]), RANK_CHARS.index(token[0]))


def mask_of(cards: Iterable[int | str]) -> int:
    """Bitmask of the given cards (ids or strings)."""
    mask = 0
    for card in cards:
        mask |= 1 << (parse_card(card) if isinstance(card, str) else int(card))
    return mask


def cards_string(mask: int, sep: str = " ") -> str:
    """The cards of a mask, suit by suit in id order: ``"7C AC 5H"``."""
    return sep.join(card_string(c) for c in cards_in(np.int64(mask)))


def voids_line(voids: Iterable[int]) -> str | None:
    """``"voids: P1 void H, P3 void CS"`` from each seat's mask of the suits it has shown out of
    (bit s: suit s), or None while no seat has shown a void."""
    shown = []
    for seat, mask in enumerate(voids):
        suits = "".join(SUIT_CHARS[suit] for suit in range(NUM_SUITS) if (int(mask) >> suit) & 1)
        if suits:
            shown.append(f"P{seat} void {suits}")
    return "voids: " + ", ".join(shown) if shown else None
