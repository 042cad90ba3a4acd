"""Kaiser's rules as constants: the deck, card strength, point cards and action ids.

Kaiser is a Canadian partnership trick-taking game: 4 players, partners
opposite, 32 cards, 8 tricks. Every trick is worth 1 point, the trick holding
the 5 of hearts is worth 5 more and the trick holding the 3 of spades 3 less,
so a hand distributes exactly 10 points. One round of bidding (6 to 12, with
trumps or no trump) decides who names trumps and what it must make. The rules,
with the numbered rulings the engine cites, are in docs/rules/kaiser.md.
"""

from __future__ import annotations

import numpy as np

from cardlab.core.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    EIGHT,
    FIVE,
    FOUR,
    HEARTS,
    JACK,
    KING,
    NINE,
    QUEEN,
    SEVEN,
    SIX,
    SPADES,
    TEN,
    THREE,
    TWO,
    card_id,
)

NUM_PLAYERS = 4  # the standard game's seats; 11.11-11.14 seat 2, 3, 5 or 6 (``players``)
PLAYER_COUNTS = (2, 3, 4, 5, 6)
MAX_SEATS = 6  # the engine's per-seat and per-side blocks hold this many
MAX_TRICKS = 16  # two players play 16 two-card tricks (11.11); everyone else 8
NUM_TRICKS = 8
HAND_SIZE = 8
NUM_SUITS = 4

FIVE_OF_HEARTS = card_id(HEARTS, FIVE)
THREE_OF_SPADES = card_id(SPADES, THREE)
FIVE_OF_HEARTS_POINTS = 5
THREE_OF_SPADES_POINTS = -3
POINTS_PER_HAND = NUM_TRICKS + FIVE_OF_HEARTS_POINTS + THREE_OF_SPADES_POINTS  # 10


def _standard_deck() -> int:
    """7 to A of clubs and diamonds; 8 to A plus the 5 of hearts; 8 to A plus the 3 of spades."""
    mask = 0
    for suit in (CLUBS, DIAMONDS, HEARTS, SPADES):
        for rank in range(SEVEN if suit in (CLUBS, DIAMONDS) else EIGHT, ACE + 1):
            mask |= 1 << card_id(suit, rank)
    return mask | (1 << FIVE_OF_HEARTS) | (1 << THREE_OF_SPADES)


STANDARD_DECK = _standard_deck()


def _ranks_of(suit: int, ranks: tuple[int, ...]) -> int:
    return sum(1 << card_id(suit, rank) for rank in ranks)


def _three_player_deck() -> int:
    """11.12: A K Q J 10 9 of each suit, the 5H and the 3S (26 cards)."""
    top = (NINE, TEN, JACK, QUEEN, KING, ACE)
    return sum(_ranks_of(suit, top) for suit in range(4)) | (1 << FIVE_OF_HEARTS) | (1 << THREE_OF_SPADES)


def _five_player_deck() -> int:
    """11.13: A to 5 of clubs, diamonds and hearts; A to 6 and the 3 of spades (40 cards)."""
    ranks = tuple(range(FIVE, ACE + 1))
    return (_ranks_of(CLUBS, ranks) | _ranks_of(DIAMONDS, ranks) | _ranks_of(HEARTS, ranks)
            | _ranks_of(SPADES, ranks[1:]) | (1 << THREE_OF_SPADES))


def _six_player_deck() -> int:
    """11.14: A to 3 of every suit, the 2s removed (48 cards)."""
    return sum(_ranks_of(suit, tuple(range(THREE, ACE + 1))) for suit in range(4))


def _small_deck(hand_size: int) -> int:
    """A small game's pack (cardlab's research parameter ``hand_size``, not a rule variant).

    Four seats of ``hand_size`` cards: the top ``hand_size`` ranks of clubs and
    diamonds, the top ``hand_size - 1`` of hearts and spades plus the 5H and the
    3S, so the point cards keep their role. Eight cards a seat give the standard
    deck. One card a seat would leave every suit a single card, which nobody
    could follow: that pack is AH 5H AS 3S instead.
    """
    if hand_size == 1:
        return _ranks_of(HEARTS, (ACE,)) | _ranks_of(SPADES, (ACE,)) | (1 << FIVE_OF_HEARTS) | (
            1 << THREE_OF_SPADES)
    top = tuple(range(ACE, ACE - hand_size, -1))
    return (_ranks_of(CLUBS, top) | _ranks_of(DIAMONDS, top) | _ranks_of(HEARTS, top[:-1])
            | _ranks_of(SPADES, top[:-1]) | (1 << FIVE_OF_HEARTS) | (1 << THREE_OF_SPADES))


#: Research parameters (cardlab's own, for exact solving; docs/rules/kaiser.md#small-games).
HAND_SIZES = tuple(range(1, HAND_SIZE + 1))
#: The pack of a small game, indexed by ``hand_size`` (the standard deck at 8).
SMALL_DECKS = np.array([0] + [_small_deck(size) for size in HAND_SIZES], dtype=np.int64)


def small_game_bids(hand_size: int) -> tuple[int, int]:
    """The bid values a small game allows by default: a bare majority of the hand's points up to
    the most one side can take (one trick with the 5H, the 3S's trick lost; a single trick holds
    both). Eight cards give the standard game's 6 and 12."""
    points = hand_size + FIVE_OF_HEARTS_POINTS + THREE_OF_SPADES_POINTS
    most = hand_size - 1 + FIVE_OF_HEARTS_POINTS if hand_size > 1 else points
    return points // 2 + 1, most


#: The pack of each player count (§2.3 of the variants spec), indexed by ``players``.
DECKS = np.array([0, 0, STANDARD_DECK, _three_player_deck(), STANDARD_DECK, _five_player_deck(),
                  _six_player_deck()], dtype=np.int64)


#: 11.1: the 34-card game adds the 7H and the 7S, and deals the last two cards to a kitty.
KITTY_EXTRA_CARDS = (1 << card_id(HEARTS, SEVEN)) | (1 << card_id(SPADES, SEVEN))
KITTY_SIZE = 2
#: The point cards may never be discarded from the kitty.
UNDISCARDABLE = (1 << FIVE_OF_HEARTS) | (1 << THREE_OF_SPADES)

#: A hand with none of these cards may be thrown in as a misdeal.
MISDEAL_HONOURS = (
    sum(1 << card_id(s, r) for s in range(4) for r in (JACK, QUEEN, KING, ACE))
    | (1 << FIVE_OF_HEARTS)
    | (1 << THREE_OF_SPADES)
)

#: 11.28: a hand holding one of these whole ranks (the four 10s, 9s or 8s) may be thrown in.
FOUR_OF_A_RANK = np.array([sum(1 << card_id(s, rank) for s in range(4)) for rank in (TEN, NINE, EIGHT)],
                          dtype=np.int64)

#: Strength within a suit: A K Q J 10 9 8 7 5 3 is simply the rank id order.
HIGH_STRENGTH = np.arange(54, dtype=np.int64) % 13


def _low_strength() -> np.ndarray:
    """Low no trump: every card reversed (7 highest, A lowest) but the 5H and 3S stay lowest."""
    strength = 13 - HIGH_STRENGTH
    strength[FIVE_OF_HEARTS] = -1
    strength[THREE_OF_SPADES] = -1
    return strength.astype(np.int64)


LOW_STRENGTH = _low_strength()

# ---- Bids -------------------------------------------------------------------
WITH_TRUMP, NO_TRUMP, LOW_NO_TRUMP = 0, 1, 2
BID_KIND_SUFFIX = ("", "NT", "LNT")
MAX_BID = 12
MIN_BID_CHOICES = (5, 6, 7)

# ---- Action ids (contract: docs/actions.md) ---------------------------------
PASS = 52
NAME_TRUMP = 53  # 53..56: name clubs, diamonds, hearts, spades
MISDEAL = 57
PLAY_HIGH = 58  # the declarer's choice of 11.5, 11.6
PLAY_LOW = 59
BID = 60  # 60 + 3 * value + kind
KAISER_RANK = 39  # bid 99 "bid kaiser" (11.29, 11.30), above 12LNT
KAISER_40_RANK = 40  # bid 100 "bid kaiser 40" (11.31)
KAISER_BID = BID + KAISER_RANK  # 99
KAISER_40_BID = BID + KAISER_40_RANK  # 100
KAISER_40_POINTS = 40
NUM_DISTINCT_ACTIONS = 99  # the standard game's; 100 with bid 99, 101 with bid 100
MAX_DISTINCT_ACTIONS = 101


def bid_action(value: int, kind: int) -> int:
    """Action id of the bid ``value`` of ``kind`` (WITH_TRUMP, NO_TRUMP, LOW_NO_TRUMP)."""
    return BID + 3 * value + kind


def bid_of_action(action: int) -> tuple[int, int]:
    """``(value, kind)`` of a bid action."""
    return (action - BID) // 3, (action - BID) % 3


def bid_string(value: int, kind: int) -> str:
    return f"bid {value}{BID_KIND_SUFFIX[kind]}"


def contract_name(rank: int) -> str:
    """The contract of the high bid ``3 * value + kind``: ``"7NT"``, ``"kaiser"``, ``"kaiser 40"``."""
    if rank == KAISER_RANK:
        return "kaiser"
    if rank == KAISER_40_RANK:
        return "kaiser 40"
    return f"{rank // 3}{BID_KIND_SUFFIX[rank % 3]}"


def num_distinct_actions(kaiser_bid: bool, kaiser_40: bool) -> int:
    """99 in the standard game; 100 with bid 99 (11.29, 11.30); 101 with bid 100 (11.31)."""
    return 101 if kaiser_40 else 100 if kaiser_bid else NUM_DISTINCT_ACTIONS


# ---- Forms (11.7-11.10): other packs and strength orders on Kaiser's frame --------------------
# One row per form in each table below, indexed by the form's number, so that the engine reads a
# form's pack, strength and point cards from data rather than testing for it.
STANDARD, LES_ROIS, LES_ROIS_HETU, JOFFRE, LOST_HEIR = 0, 1, 2, 3, 4
FORM_NAMES = ("standard", "les_rois", "les_rois_hetu", "joffre", "lost_heir")
NUM_FORMS = len(FORM_NAMES)

KING_OF_HEARTS = card_id(HEARTS, KING)  # Les Rois' +5 (Hetu: +6); Joffre's "Joffre"
KING_OF_SPADES = card_id(SPADES, KING)  # Les Rois' -3; Joffre's "Kaiser"
#: V-K11: the side that lost the Joffre (KH) to the Kaiser (KS) scores this too.
JOFFRE_INSULT_POINTS = -5

#: Les Rois' ranks in order of strength, lowest first: K A 2 3 4 5 6 7 (7 high, K low).
LES_ROIS_ORDER = (KING, ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN)
#: Hetu's clubs and diamonds: the 8 replaces the K as the lowest card (K9).
HETU_MINOR_ORDER = (EIGHT, ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN)


def _form_pack(minor_order: tuple[int, ...], major_order: tuple[int, ...]) -> tuple[int, np.ndarray]:
    """The deck mask and strength table of a pack whose clubs and diamonds rank in ``minor_order``
    and hearts and spades in ``major_order`` (each lowest first); cards outside it get -1."""
    strength = np.full(54, -1, dtype=np.int64)
    deck = 0
    for suit in (CLUBS, DIAMONDS, HEARTS, SPADES):
        for position, rank in enumerate(minor_order if suit in (CLUBS, DIAMONDS) else major_order):
            strength[card_id(suit, rank)] = position
            deck |= 1 << card_id(suit, rank)
    return deck, strength


_LES_ROIS_DECK, _LES_ROIS_STRENGTH = _form_pack(LES_ROIS_ORDER, LES_ROIS_ORDER)
_HETU_DECK, _HETU_STRENGTH = _form_pack(HETU_MINOR_ORDER, LES_ROIS_ORDER)

# Lost Heir (11.10, V-K12): each suit is 7 6 5 4 3 2 A (A = 1, lowest); the four kings are its
# special cards, outside the printed suits: the Lost Heir (KH, +5) and the Wrong Boy (KS, -3)
# join whatever suit is trump, as its highest and its lowest card, and the blanks (KC, KD)
# belong to no suit, never win and cancel the Lost Heir's and the Wrong Boy's points (V-K13,
# V-K14). The pack is Les Rois' 32 cards.
LOST_HEIR_ORDER = (ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN)
BLANKS = (1 << card_id(CLUBS, KING)) | (1 << card_id(DIAMONDS, KING))
TRUMP_SPECIALS = (1 << KING_OF_HEARTS) | (1 << KING_OF_SPADES)  # the Lost Heir and the Wrong Boy
_LOST_HEIR_DECK, _LOST_HEIR_STRENGTH = _form_pack(LOST_HEIR_ORDER, LOST_HEIR_ORDER)
_LOST_HEIR_DECK |= BLANKS | TRUMP_SPECIALS


def _lost_heir_play_strength() -> np.ndarray:
    """Strength in play: the plain order one step up, the Wrong Boy below the A, the Lost Heir
    above the 7 (they only ever meet cards of the trump suit); the blanks never win."""
    strength = np.where(_LOST_HEIR_STRENGTH >= 0, _LOST_HEIR_STRENGTH + 1, -1)
    strength[KING_OF_SPADES] = 0
    strength[KING_OF_HEARTS] = len(LOST_HEIR_ORDER) + 1
    return strength.astype(np.int64)


#: Lost Heir's order in play (the table FORM_STRENGTH holds is the plain suits', specials -1).
LOST_HEIR_PLAY_STRENGTH = _lost_heir_play_strength()

#: Each form's deck (Joffre plays the Les Rois pack, V-K10; so does Lost Heir, with other roles).
FORM_DECK = np.array([STANDARD_DECK, _LES_ROIS_DECK, _HETU_DECK, _LES_ROIS_DECK, _LOST_HEIR_DECK],
                     dtype=np.int64)
#: Each form's strength within a suit (high; only the standard game has a low order). A card of
#: the pack at -1 belongs to no printed suit (Lost Heir's four specials).
FORM_STRENGTH = np.stack([HIGH_STRENGTH, _LES_ROIS_STRENGTH, _HETU_STRENGTH, _LES_ROIS_STRENGTH,
                          _LOST_HEIR_STRENGTH])
#: The bonus card and its points, the penalty card and its points, of each form.
BONUS_CARD = np.array([FIVE_OF_HEARTS, KING_OF_HEARTS, KING_OF_HEARTS, KING_OF_HEARTS, KING_OF_HEARTS],
                      dtype=np.int64)
BONUS_POINTS = np.array([FIVE_OF_HEARTS_POINTS, 5, 6, 5, 5], dtype=np.int64)
PENALTY_CARD = np.array([THREE_OF_SPADES, KING_OF_SPADES, KING_OF_SPADES, KING_OF_SPADES, KING_OF_SPADES],
                        dtype=np.int64)
PENALTY_POINTS = np.array([THREE_OF_SPADES_POINTS, -3, -3, -3, -3], dtype=np.int64)
#: Cards whose presence in a trick cancels the bonus and penalty cards' points: Lost Heir's blanks.
FORM_BLANKS = np.array([0, 0, 0, 0, BLANKS], dtype=np.int64)
#: The suit of the declarer's first lead is trump (no naming node): Hetu, Joffre and Lost Heir.
TRUMP_BY_FIRST_LEAD = np.array([False, False, True, True, True])
#: Non-bidding sides always score (no limit, V-K1): both Les Rois and Lost Heir.
FORM_HAS_NO_LIMIT = np.array([False, True, True, False, True])
#: A failed contract scores nothing rather than minus the bid (Lost Heir, V-K16).
FAILED_CONTRACT_SCORES_NOTHING = np.array([False, False, False, False, True])
#: Every hand-point total a Lost Heir hand can give (8 tricks; +5 and -3 unless a blank cancels).
LOST_HEIR_HAND_POINTS = (NUM_TRICKS + THREE_OF_SPADES_POINTS, NUM_TRICKS,
                         NUM_TRICKS + FIVE_OF_HEARTS_POINTS + THREE_OF_SPADES_POINTS,
                         NUM_TRICKS + FIVE_OF_HEARTS_POINTS)
