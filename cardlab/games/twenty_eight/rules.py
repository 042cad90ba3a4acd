"""Twenty-Eight's rules as constants: the deck, card strength, card points and action ids.

Twenty-Eight (28) is an Indian partnership trick-taking game: 4 players,
partners opposite, 32 cards (J 9 A 10 K Q 8 7 of each suit), 8 tricks. Only
J (3), 9 (2), A (1) and 10 (1) carry card points, 28 in all. The high bidder
chooses trumps secretly by placing a card face down (the *indicator*); trumps
have no power until someone calls for it to be shown. The numbered rulings of
``docs/rules/twenty_eight.md#rulings`` decide every ambiguity of the source
rules; the engine quotes them by number.

Everything a variant might change (deck, strengths, points, bid limits) is
data here, so a variant is a new table rather than a new branch in a kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.cards import ACE, EIGHT, HEARTS, JACK, KING, NINE, QUEEN, SEVEN, SIX, SPADES, TEN, card_id

NUM_PLAYERS = 4  # the contract's game; 3 and 6 are variants (13.6, 13.7)
PLAYER_COUNTS = (3, 4, 6)
MAX_PLAYERS = 6
MAX_SIDES = 3  # sides that score: 2 teams of two (4 players), 3 of two (6), 3 single seats (3)
NUM_SUITS = 4
HAND_SIZE = 8
STAGE_SIZE = 4  # cards each player receives per deal stage (ruling 1 and 3)
NUM_STAGES = 2
CARDS_PER_STAGE = NUM_PLAYERS * STAGE_SIZE  # 16 chance nodes per stage
NUM_TRICKS = 8

#: Ranks in play, strongest first (contract: "28: J 9 A 10 K Q 8 7").
RANK_ORDER = (JACK, NINE, ACE, TEN, KING, QUEEN, EIGHT, SEVEN)
#: Card points of the ranks that score (J 3, 9 2, A 1, 10 1; the rest 0).
RANK_POINTS = {JACK: 3, NINE: 2, ACE: 1, TEN: 1}
TOTAL_CARD_POINTS = 28


def _suit_mask(ranks: tuple[int, ...]) -> int:
    return sum(1 << card_id(suit, rank) for suit in range(NUM_SUITS) for rank in ranks)


STANDARD_DECK = _suit_mask(RANK_ORDER)
#: Cards that carry points; dealer + 1 may ask for a redeal without any of them (ruling 1).
POINT_CARDS = _suit_mask(tuple(RANK_POINTS))
JACKS = _suit_mask((JACK,))

#: Six players add the 6s (13.7), below the 7; three players drop the 8s and 7s (13.6).
SIX_PLAYER_DECK = STANDARD_DECK | _suit_mask((SIX,))
THREE_PLAYER_DECK = _suit_mask(RANK_ORDER[:6])

#: ``STRENGTH[card]``: higher wins within a suit (J = 8 down to 7 = 1; the 6 and cards not in
#: the deck 0: the 6 is the lowest of its suit, and a trick compares only cards in play).
STRENGTH = np.zeros(54, dtype=np.int64)
#: ``CARD_POINTS[card]``: the card points a trick holding ``card`` is worth.
CARD_POINTS = np.zeros(54, dtype=np.int64)
for _suit in range(NUM_SUITS):
    for _position, _rank in enumerate(RANK_ORDER):
        STRENGTH[card_id(_suit, _rank)] = len(RANK_ORDER) - _position
        CARD_POINTS[card_id(_suit, _rank)] = RANK_POINTS.get(_rank, 0)

# ---- Small games (cardlab's research parameters, docs/rules/twenty_eight.md#small-games) ----
def _small_deck(hand_size: int) -> int:
    """A small game's pack: four seats of ``hand_size`` cards, the top ``hand_size`` ranks of
    every suit (J 9 A 10 K Q 8 7). One card a seat would leave each suit a single card, which
    nobody could follow nor hold as a trump with a partner: that pack is JH 9H JS 9S instead."""
    if hand_size == 1:
        return sum(1 << card_id(suit, rank) for suit in (HEARTS, SPADES) for rank in (JACK, NINE))
    return _suit_mask(RANK_ORDER[:hand_size])


#: The pack of a small game, indexed by ``hand_size`` (the standard deck at 8).
SMALL_DECKS = np.array([0] + [_small_deck(size) for size in range(1, HAND_SIZE + 1)], dtype=np.int64)


def deck_points(deck: int) -> int:
    """The card points of a pack (28 for every player count's)."""
    return int(sum(CARD_POINTS[card] for card in range(54) if (deck >> card) & 1))


#: ``SMALL_DECK_POINTS[hand_size]``: the card points of each small pack.
SMALL_DECK_POINTS = np.array([deck_points(int(deck)) for deck in SMALL_DECKS], dtype=np.int64)


@njit(cache=True)
def scaled_bid(value, points):
    """A standard bid threshold (14, 20, 24) on a pack of ``points`` card points: the same share of
    them, rounded up; the identity on 28 points (docs/rules/twenty_eight.md#small-games)."""
    return (value * points + TOTAL_CARD_POINTS - 1) // TOTAL_CARD_POINTS


# ---- Player counts (docs/variants.md 3.3): one row per count -------------------
#: ``(players, deck, cards per deal stage, deal stages, opening minimum)``.
PLAYER_COUNT_TABLE = np.array([
    [3, THREE_PLAYER_DECK, 3 * STAGE_SIZE, 2, 12],  # V-T1: two stages of four
    [4, STANDARD_DECK, CARDS_PER_STAGE, NUM_STAGES, 14],  # the contract
    [6, SIX_PLAYER_DECK, 36, 1, 12],  # V-T2: all six cards before the auction
], dtype=np.int64)
MAX_TRICKS = 8
MAX_CARDS_PLAYED = 36  # six tricks of six cards

# ---- Bids -------------------------------------------------------------------
MIN_BID = 14  # dealer + 1 must open with at least this (ruling 1)
LOWEST_BID = 12  # the opening minimum with three or six players (V-T1, V-T2)
MAX_BID = 28
PARTNER_OVERCALL_MIN = 20  # overcalling one's partner needs at least 20 (ruling 1)
SECOND_ROUND_MIN = 24  # a second-round raise is at least max(24, current + 1) (ruling 4)
#: Game points by final bid (ruling 8): bids up to the bound score (made, failed).
#: Rows ``(highest bid of the band, points if made, points if failed)``.
GAME_POINT_BANDS = np.array([[19, 1, -2], [24, 2, -3], [MAX_BID, 3, -4]], dtype=np.int64)
MAX_GAME_POINTS = 4
#: Thani (13.5): the bidder wins every trick himself, or the first trick he loses ends the hand.
THANI_MADE, THANI_FAILED = 4, -5
#: Cot (13.3): a side that wins every trick, or fails after playing on, scores double.
COT_FACTOR = 2

# ---- Action ids (contract: docs/actions.md) ---------------------------------
PASS = 52
CALL_TRUMP = 53  # a non-bidder calls for the trump to be shown; the bidder shows it
REDEAL = 54  # dealer + 1's redeal on four pointless cards
# Variant actions (docs/variants.md; 52 "pass" also declines an offer or a show).
SHOW_POINTLESS = 55  # pointless_hand_redeal: show an eight-card hand without J, 9, A or 10
SURRENDER = 56  # cot: the opponents offer to surrender
ACCEPT = 57  # cot: the bidder accepts the surrender
PLAY_ON = 58  # cot: the bidder plays on for the double game
THANI = 59  # thani: the bidder will win every trick himself
BID = 60  # 60 + v for a bid of v (14..28; 12..28 with three or six players)
NUM_DISTINCT_ACTIONS = 89


#: The lowest bid of any game: a small game's opening minimum on its smallest pack (10 points: 5).
SMALL_LOWEST_BID = min(int(scaled_bid.py_func(MIN_BID, int(points))) for points in SMALL_DECK_POINTS[1:])


def bid_action(value: int) -> int:
    """Action id of a bid of ``value`` points (12..28; from 5 in a small game)."""
    if not SMALL_LOWEST_BID <= value <= MAX_BID:
        raise ValueError(f"a bid is {SMALL_LOWEST_BID}..{MAX_BID} points, got {value}")
    return BID + value
