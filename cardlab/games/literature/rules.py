"""Literature's rules as constants: decks, half-suits, player counts and action ids.

Literature is a team game of asking: players of two alternating teams ask
opponents for named cards and try to collect, and then claim, the six cards of
a half-suit. A *layout* fixes which cards are in play and how they split into
half-suits:

* ``STANDARD``: the four 8s removed (48 cards); low = 2..7, high = 9..A.
* ``SEVENS_REMOVED``: the four 7s removed; low = A, 2..6, high = 8..K.
* ``JOKERS``: 54 cards; the standard eight half-suits plus the ninth set
  (``h = 8``) of the four 8s and both jokers.
* ``EIGHTS``: the full 52 cards (12.10); low = 2..7, high = 8..A, seven cards
  each, so the deal may give some seats one card more.

Half-suit ids follow the contract: ``h = 2 * suit`` (low) or ``2 * suit + 1``
(high), and 8 for the ninth set.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.cards import (
    ACE,
    BLACK_JOKER,
    EIGHT,
    NINE,
    NUM_CARD_IDS,
    RED_JOKER,
    SEVEN,
    SIX,
    SUIT_CHARS,
    TWO,
    card_id,
)

MAX_PLAYERS = 16
MAX_HALF_SUITS = 9
NINTH_SET = 8

# ---- Layouts -----------------------------------------------------------------
STANDARD, SEVENS_REMOVED, JOKERS, EIGHTS = 0, 1, 2, 3
NUM_LAYOUTS = 4
LAYOUT_NAMES = ("standard", "sevens removed", "jokers ninth set", "eights in play")
MAX_HALF_SUIT_SIZE = 7


def _half_suit_masks(layout: int) -> list[int]:
    """The card masks of the half-suits of ``layout`` (9 entries; unused ones are 0)."""
    if layout == SEVENS_REMOVED:
        low_ranks = (ACE, *range(TWO, SIX + 1))
        high_ranks = tuple(range(EIGHT, ACE))
    elif layout == EIGHTS:
        low_ranks = tuple(range(TWO, SEVEN + 1))
        high_ranks = tuple(range(EIGHT, ACE + 1))
    else:
        low_ranks = tuple(range(TWO, SEVEN + 1))
        high_ranks = tuple(range(NINE, ACE + 1))
    masks = []
    for suit in range(4):
        masks.append(sum(1 << card_id(suit, rank) for rank in low_ranks))
        masks.append(sum(1 << card_id(suit, rank) for rank in high_ranks))
    ninth = 0
    if layout == JOKERS:
        ninth = sum(1 << card_id(suit, EIGHT) for suit in range(4))
        ninth |= (1 << RED_JOKER) | (1 << BLACK_JOKER)
    masks.append(ninth)
    return masks


# ---- Small layouts (cardlab's research parameters, docs/rules/literature.md#small-games) -----
#: A small game keeps the first ``half_suits`` half-suits of the standard layout (ids 0, 1, ..: C-low,
#: C-high, D-low, ..), each cut to its first ``half_suit_size`` cards (low 2, 3, ..; high 9, 10, ..).
#: Each (size, count) is one more layout, so every kernel reads it from the same tables.
SMALL_HALF_SUIT_SIZES = tuple(range(2, 7))
SMALL_HALF_SUIT_COUNTS = tuple(range(1, 9))


def small_layout(half_suit_size: int, half_suits: int) -> int:
    """The layout id of a small game; six cards and eight half-suits are the standard layout."""
    if (half_suit_size, half_suits) == (6, 8):
        return STANDARD
    return (NUM_LAYOUTS + SMALL_HALF_SUIT_SIZES.index(half_suit_size) * len(SMALL_HALF_SUIT_COUNTS)
            + SMALL_HALF_SUIT_COUNTS.index(half_suits))


def _small_half_suit_masks(half_suit_size: int, half_suits: int) -> list[int]:
    standard = _half_suit_masks(STANDARD)
    masks = [0] * MAX_HALF_SUITS
    for h in range(half_suits):
        cards = [card for card in range(NUM_CARD_IDS) if (standard[h] >> card) & 1]
        masks[h] = sum(1 << card for card in cards[:half_suit_size])
    return masks


_SMALL = [(size, count) for size in SMALL_HALF_SUIT_SIZES for count in SMALL_HALF_SUIT_COUNTS]
NUM_ALL_LAYOUTS = NUM_LAYOUTS + len(_SMALL)
LAYOUT_NAMES += tuple(f"{count} half-suits of {size}" for size, count in _SMALL)
#: ``HALF_SUIT_MASKS[layout, h]``: the cards of half-suit h (0 if the layout lacks h).
HALF_SUIT_MASKS = np.array([_half_suit_masks(layout) for layout in range(NUM_LAYOUTS)]
                           + [_small_half_suit_masks(size, count) for size, count in _SMALL],
                           dtype=np.int64)
#: ``NUM_HALF_SUITS[layout]``: 8, or 9 with the jokers' ninth set; a small layout its count.
NUM_HALF_SUITS = np.array([8, 8, 9, 8] + [count for _, count in _SMALL], dtype=np.int64)
#: ``HALF_SUIT_SIZE[layout]``: cards in its largest half-suit (the seats a claim names).
HALF_SUIT_SIZE = np.array([6, 6, 6, 7] + [size for size, _ in _SMALL], dtype=np.int64)
#: ``DECKS[layout]``: every card in play at the deal.
DECKS = np.array([int(np.bitwise_or.reduce(row)) for row in HALF_SUIT_MASKS], dtype=np.int64)


def _half_suit_table() -> np.ndarray:
    table = np.full((NUM_ALL_LAYOUTS, NUM_CARD_IDS), -1, dtype=np.int64)
    for layout in range(NUM_ALL_LAYOUTS):
        for h in range(MAX_HALF_SUITS):
            for card in range(NUM_CARD_IDS):
                if (int(HALF_SUIT_MASKS[layout, h]) >> card) & 1:
                    table[layout, card] = h
    return table


#: ``HALF_SUIT_OF[layout, card]``: the half-suit of a card, -1 for a card out of the deck.
HALF_SUIT_OF = _half_suit_table()

# ---- Player counts -------------------------------------------------------------
#: Player counts the rules describe (6 and 8 standard; 4, 12 and 16 variants §12.2-12.4).
PLAYER_COUNTS = (4, 6, 8, 12, 16)


def deck_size(layout: int) -> int:
    return bin(int(DECKS[layout])).count("1")


@njit(cache=True)
def cards_dealt(deck_cards, num_players, dealer, seat):
    """How many of ``deck_cards`` the round deal gives ``seat``: the k-th card goes to
    ``dealer + 1 + k``, so with an uneven deck (12.10, V-L4) the first seats get one more."""
    extra = deck_cards % num_players
    return deck_cards // num_players + int((seat - dealer - 1) % num_players < extra)


def unsupported_reason(num_players: int, layout: int) -> str | None:
    """Why ``num_players`` cannot play ``layout``, or None if they can.

    The deal gives every player the same number of cards (48 cards: 12, 8, 6, 4
    or 3 each); the 54-card jokers deck divides evenly only among 6 players.
    The 52-card deck of 12.10 is exempt: its round deal is uneven (V-L4).
    """
    if num_players not in PLAYER_COUNTS:
        return f"players must be one of {PLAYER_COUNTS} (two alternating teams), got {num_players}"
    if layout != EIGHTS and deck_size(layout) % num_players:
        jokers = " (only 6 players receive 9 cards each)" if layout == JOKERS else ""
        return (
            f"the {deck_size(layout)}-card deck of the {LAYOUT_NAMES[layout]} layout does not "
            f"divide evenly among {num_players} players{jokers}"
        )
    return None


# ---- Scores ---------------------------------------------------------------------
def half_suit_value(h: int, major_sets_worth_two: bool) -> int:
    """Points for scoring half-suit ``h``: 1, or 2 for a high half-suit under §12.9."""
    return 2 if major_sets_worth_two and h < NINTH_SET and h % 2 == 1 else 1


#: ``HALF_SUIT_VALUES[major_sets_worth_two, h]``.
HALF_SUIT_VALUES = np.array(
    [[half_suit_value(h, bool(major)) for h in range(MAX_HALF_SUITS)] for major in (0, 1)],
    dtype=np.int64,
)

# ---- Status of a half-suit -------------------------------------------------------
UNRESOLVED = -1  # still in play
# 0 and 1: scored by that team
VOID = 2  # cancelled by a wrong claim, or left unresolved at the ask limit

# ---- Action ids (contract: docs/actions.md) ------------------------------------------
ASK = 0  # 64 * target + card
CLAIM = 1024  # + half-suit
DECLINE = 1033  # no claim in a claim window (12.5), or a forced declaration's pass (12.15): "pass"
ASSIGN = 1040  # + seat
PASS_TURN = 1056  # + seat
CHALLENGE = 1072  # + half-suit: challenge the other team on it (12.17)
NUM_DISTINCT_ACTIONS = 1072
MAX_DISTINCT_ACTIONS = CHALLENGE + MAX_HALF_SUITS  # 1081
DEFAULT_MAX_ASKS = 500
MAX_ASKS_LIMIT = 1000  # the state array keeps every event, so the ask limit is bounded


def ask_action(target: int, card: int) -> int:
    return ASK + 64 * target + card


def half_suit_name(h: int) -> str:
    """``"H-low"``, ``"S-high"``; the ninth set is ``"8-jokers"``."""
    if h == NINTH_SET:
        return "8-jokers"
    if not 0 <= h < NINTH_SET:
        raise ValueError(f"no half-suit with id {h} (ids are 0..8)")
    return f"{SUIT_CHARS[h // 2]}-{'low' if h % 2 == 0 else 'high'}"
