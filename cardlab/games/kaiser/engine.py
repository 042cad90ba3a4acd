"""Kaiser as pure array transitions, compiled with numba.

The whole game state is one ``int64`` array of ``STATE_SIZE`` slots whose
layout is the constants below (hands and card sets are bitmasks); it starts
with the header every engine shares (:mod:`cardlab.core.layout`), whose
kernels (``current_player``, ``undealt_cards``) serve Kaiser too; its sides come from its own
side table (``side_of``), since 3, 5 and 6 players sit otherwise than in partners by parity.
Every kernel takes that array and nothing else, so states copy with
``state.copy()``, batch as rows of a 2-D array and cross process boundaries as
bytes. The game parameters are copied into the state for the same reason.
The hidden-hand sampler is :mod:`cardlab.games.kaiser.sampling`.

Kernels do not validate their input (numba does not bounds-check); the checked
entry points for Python callers are in :mod:`cardlab.core.engine` and the
OpenSpiel wrapper in :mod:`cardlab.games.kaiser.game`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, highest_card, nth_card, popcount, write_cards
from cardlab.core.cards import SUIT_MASKS, suit_of
from cardlab.core.dealing import draw_card, receiving_seat
from cardlab.core.kernel import borrowing_kernel
from cardlab.core.layout import (
    CARDS_DEALT,
    DEALER,
    DEALING,
    DEALT,
    DECK,
    NUM_PLAYERS,
    PHASE,
    TO_MOVE,
    UNDEALT,
    Slots,
    copy_state,
    current_player,
    empty_state,
    is_terminal,
    record_deal,
    seat_after,
    start_deal,
    undealt_cards,
)
from cardlab.core.rng import below_from_position, choice_below_from_position, random_below
from cardlab.core.tricks import NO_TRUMP, follow_suit_choices, takes_the_lead, trick_winner, void_shown
from cardlab.games.kaiser.rules import (
    BID,
    BLANKS,
    BONUS_CARD,
    BONUS_POINTS,
    DECKS,
    FAILED_CONTRACT_SCORES_NOTHING,
    FIVE_OF_HEARTS,
    FIVE_OF_HEARTS_POINTS,
    FORM_BLANKS,
    FORM_DECK,
    FORM_HAS_NO_LIMIT,
    FORM_STRENGTH,
    FOUR_OF_A_RANK,
    HAND_SIZE,
    HIGH_STRENGTH,
    JOFFRE,
    JOFFRE_INSULT_POINTS,
    KAISER_40_POINTS,
    KAISER_40_RANK,
    KAISER_RANK,
    KITTY_EXTRA_CARDS,
    KITTY_SIZE,
    LOST_HEIR,
    LOST_HEIR_PLAY_STRENGTH,
    LOW_NO_TRUMP,
    LOW_STRENGTH,
    MAX_SEATS,
    MAX_TRICKS,
    MISDEAL,
    MISDEAL_HONOURS,
    NAME_TRUMP,
    NUM_TRICKS,
    PASS,
    PENALTY_CARD,
    PENALTY_POINTS,
    PLAY_HIGH,
    PLAY_LOW,
    SMALL_DECKS,
    STANDARD,
    THREE_OF_SPADES,
    THREE_OF_SPADES_POINTS,
    TRUMP_BY_FIRST_LEAD,
    TRUMP_SPECIALS,
    UNDISCARDABLE,
    WITH_TRUMP,
)

# ---- Phases (the header's convention: 0 deals, the last ends the game) ------------
# In the order of a hand; choosing high or low (11.5, 11.6) comes after naming trump. Giving
# cards (11.32-11.35) comes before the auction or right after it, so it has a code of its own
# after PLAYING: never compare it with the others by order (``kitty_taken`` says why).
BIDDING, NAMING_TRUMP, HIGH_OR_LOW, DISCARDING, PLAYING, GIVING, GAME_OVER = 1, 2, 3, 4, 5, 6, 7
PHASE_NAMES = ("dealing", "bidding", "naming trump", "choosing high or low", "discarding", "playing",
               "giving cards", "game over")

HISTORY_SLOTS = 48  # 8 tricks of 6 cards, or 16 of 2 (11.11)
NUM_PILES = 4  # per player (11.11), two cards each

# ---- State layout ---------------------------------------------------------------
# Slots 0-13: the header every engine shares (cardlab.core.layout): PHASE, TO_MOVE,
# DEALER, NUM_PLAYERS, CARDS_DEALT, DECK, UNDEALT, GAME_OVER_PHASE and DEALT (MAX_SEATS slots).
# Every per-seat and per-side block has MAX_SEATS slots, so one layout serves 2 to 6 seats
# (11.11-11.14); a seat's side is read from the SIDE_OF table (its team, or the seat alone).
_slot = Slots(DEALT + MAX_SEATS)  # the first slot after the header
HANDS = _slot(MAX_SEATS)  # the cards each seat holds
# Parameters (fixed for the game): NUM_PARAMETERS slots from PARAMETERS. MIN_BID, TARGET and
# NON_BIDDER_LIMIT hold the effective values of ruling V-K1 (docs/rules/kaiser.md#variants).
FIRST_DEALER = _slot()
MIN_BID = _slot()
MATCH = _slot()  # 1: play hands until a side reaches the target in force
TARGET = _slot()
ALLOW_LOW_NO_TRUMP = _slot()
NON_BIDDER_LIMIT = _slot()  # from this match score up, non-bidders add only negative points
MAX_HANDS = _slot()  # match safety cap: a match still running after this many hands is drawn
LOW_WEAK_HAND_NO_MISDEAL = _slot()  # 11.3: a weak hand may not be thrown in
HIGH_LOW_NO_TRUMP_EQUAL = _slot()  # 11.4: vNT and vLNT rank equal in the auction
DEALER_MAY_PASS = _slot()  # 11.27: the dealer may pass when nobody has bid (the hand is thrown in)
FOUR_OF_A_RANK_MISDEAL = _slot()  # 11.28: four 10s, 9s or 8s may be thrown in
NO_OVERTRICKS = _slot()  # 11.25: a made contract scores its value, not the points taken
THREE_SPADES_NEEDS_THREE_TRICKS = _slot()  # 11.26
FIVE_HEARTS_BREAKS_LIMIT = _slot()  # 11.20: winning the 5H trick lifts the non-bidder limit
TARGET_AFTER_NO_TRUMP = _slot()  # 11.15: the target once a no-trump contract is made (0: off)
LIMIT_AFTER_NO_TRUMP = _slot()  # 11.21: the non-bidder limit from then on (0: off)
MINUS_TARGET_LOSES = _slot()  # 11.19: a side at minus the target loses the match
MUST_BID_TO_WIN = _slot()  # 11.22: only a declaring side that made its contract can win
POT = _slot()  # 11.36: the stake a failed contract pays into the pot, as float64 bits (0: off)
KAISER_BID_SOLO = _slot()  # 11.29: bid 99, made by the declarer alone
KAISER_BID_TEAM = _slot()  # 11.30: bid 99, made by the declaring team
KAISER_40 = _slot()  # 11.31: bid 100, every trick by the declarer alone
HIGH_OR_LOW_AFTER_BID = _slot()  # 11.5: a no-trump declarer chooses high or low
ANY_CONTRACT_HIGH_OR_LOW = _slot()  # 11.6: every declarer (not of bids 99, 100) chooses high or low
KITTY_34_CARD = _slot()  # 11.1: 7H and 7S join the deck; the declarer takes a 2-card kitty and discards two
PLAYERS = _slot()  # 11.11-11.14: seats at the table (2-6); new_state copies it into the header
THREE_TEAMS = _slot()  # 11.14: six players in three teams of two (team = seat mod 3)
PARAMETERS = FIRST_DEALER  # the first parameter slot; FORM is appended at the end of the layout
# The hand being played. Per-side slots are indexed by side (SIDE_OF), per-seat ones by seat.
SPOKEN = _slot(MAX_SEATS)  # each seat's bidding action, -1 before it speaks
HIGH_BID = _slot()  # 3 * value + kind of the best bid so far, -1 if none
DECLARER = _slot()  # seat of the winning bidder, -1 before the bidding ends
TRUMP = _slot()  # trump suit, NO_TRUMP (-1) for no trump or before it is named
TRICK_NUMBER = _slot()  # 0..7, 8 when the hand is over
TRICK_LEADER = _slot()
TRICK_SIZE = _slot()  # cards in the current trick
TRICK = _slot(MAX_SEATS)  # cards of the current trick in play order
TRICKS_WON = _slot(MAX_SEATS)  # per side
HAND_POINTS = _slot(MAX_SEATS)  # per side: tricks + 5H - 3S
PLAYED = _slot()  # mask of cards played this hand
VOIDS = _slot(MAX_SEATS)  # bit s set when that seat showed out of suit s
MATCH_SCORE = _slot(MAX_SEATS)  # per side
HAND_NUMBER = _slot()
WINNER = _slot()  # winning side (match), -1 undecided, DRAWN = drawn / void
LAST_DELTA = _slot(MAX_SEATS)  # each side's score change on the last scored hand
MISDEAL_BY = _slot()  # seat that threw in the last hand, -1 if none
TRICK_HISTORY = _slot(HISTORY_SLOTS)  # every card of the hand in play order (trick t at t * players)
TRICK_LEADERS = _slot(MAX_TRICKS)
TRICK_WINNERS = _slot(MAX_TRICKS)
FIVE_HEARTS_TEAM = _slot()  # side that won the 5H trick this hand, -1 before
THREE_SPADES_TEAM = _slot()  # side that won the 3S trick this hand, -1 before
TARGET_IN_FORCE = _slot()  # TARGET, or TARGET_AFTER_NO_TRUMP once a no-trump contract is made
LIMIT_IN_FORCE = _slot()  # NON_BIDDER_LIMIT, or LIMIT_AFTER_NO_TRUMP likewise
POT_PAYMENTS = _slot(MAX_SEATS)  # per side: contracts failed this match (each pays POT)
PLAYED_LOW = _slot()  # 1 when the declarer chose to play the contract low (11.5, 11.6)
KITTY = _slot()  # the kitty's cards this hand (11.1, 11.12); the declarer takes them into his hand
DISCARDS = _slot()  # the declarer's discards (11.1, 11.12), seen by him only
# The table (fixed for the game, derived from PLAYERS and THREE_TEAMS by new_state).
NUM_SIDES = _slot()  # sides that score separately: teams, or seats playing alone
SIDE_OF = _slot(MAX_SEATS)  # the side of each seat (§0 "Sides")
# Two players' piles (11.11): the card dealt to each place, kept for the whole hand.
PILES = _slot(2 * NUM_PILES * 2)  # seat * 8 + pile * 2 + level (0 bottom, 1 top); -1 before it is dealt
PILE_CARDS = _slot()  # mask of the pile cards not played yet
FACE_UP = _slot()  # mask of the pile cards lying face up (seen by both players)
# The forms (11.7-11.9).
FORM = _slot()  # parameter: the form played, rules.FORM_NAMES (0: the standard game)
# The card passing (11.32-11.35).
PASSING_RULE = _slot()  # parameter: NO_PASSING, PASS_ONE, PASS_TWO, HEARTS_STYLE or EXCHANGE_AFTER_BIDDING
GIVEN = _slot(MAX_SEATS)  # the cards each seat gave this hand (in transit until DELIVERED)
DELIVERED = _slot()  # 1 once this hand's given cards reached their receivers
HANDS_SCORED = _slot()  # hands scored so far in the match: the hearts-style direction (V-K29)
# The small games (cardlab's research parameters, docs/rules/kaiser.md#small-games).
HAND_CARDS = _slot()  # parameter: cards dealt to each seat, HAND_SIZE (8) but in a small game
TOP_BID = _slot()  # parameter: the highest bid value, MAX_BID (12) but in a small game
# Derived by new_state from the parameters, for the hot path of card play.
PLAIN_TRICKS = _slot()  # 1: every card is played from a hand and keeps its printed suit (no form, no piles)
STATE_SIZE = _slot.size

#: Every parameter slot, in the order ``new_state`` takes them: the block from PARAMETERS, then
#: the appended ones (FORM, PASSING_RULE, HAND_CARDS, TOP_BID).
PARAMETER_SLOTS = np.array([*range(PARAMETERS, THREE_TEAMS + 1), FORM, PASSING_RULE, HAND_CARDS, TOP_BID],
                           dtype=np.int64)
NUM_PARAMETERS = len(PARAMETER_SLOTS)

PILE_DEAL_START = 16  # the deal's card k >= this goes to a pile (11.11: the hands are dealt first)
DRAWN = MAX_SEATS  # WINNER of a drawn match or a thrown-in hand: no side has this number

# PASSING_RULE values (11.32-11.35): who gives how many cards to whom, and when.
NO_PASSING, PASS_ONE, PASS_TWO, HEARTS_STYLE, EXCHANGE_AFTER_BIDDING = 0, 1, 2, 3, 4
CARDS_GIVEN = np.array([0, 1, 2, 2, 2], dtype=np.int64)  # c, per PASSING_RULE
HEARTS_DIRECTIONS = np.array([1, 3, 2], dtype=np.int64)  # left, right, partner, by scored hands mod 3

MAX_LEGAL_ACTIONS = 52  # a six-player deal's 48 chance outcomes, or 1 + 3 * 7 bids + misdeal + 2, rounded up


@njit(cache=True)
def new_state(parameters):
    """The state before the first card of the first hand is dealt.

    ``parameters`` holds the values of PARAMETER_SLOTS in that order (the
    wrapper's ``engine_parameters`` builds it from the game parameters).
    """
    players = parameters[PLAYERS - PARAMETERS]
    s = empty_state(STATE_SIZE, players, GAME_OVER)
    for k in range(NUM_PARAMETERS):
        s[PARAMETER_SLOTS[k]] = parameters[k]
    deck = DECKS[players] if s[FORM] == STANDARD else FORM_DECK[s[FORM]]
    if s[HAND_CARDS] < HAND_SIZE:  # a small game (four seats, the standard form)
        deck = SMALL_DECKS[s[HAND_CARDS]]
    s[DECK] = deck | (KITTY_EXTRA_CARDS if s[KITTY_34_CARD] else 0)
    seat_sides(s)
    s[PLAIN_TRICKS] = s[FORM] == STANDARD and not has_piles(s)
    s[TARGET_IN_FORCE] = s[TARGET]
    s[LIMIT_IN_FORCE] = s[NON_BIDDER_LIMIT]
    s[POT_PAYMENTS:POT_PAYMENTS + MAX_SEATS] = 0
    s[WINNER] = -1
    s[MISDEAL_BY] = -1
    s[HANDS_SCORED] = 0
    start_hand(s, s[FIRST_DEALER])
    return s


@borrowing_kernel
def seat_sides(s):
    """Fill the side table (§0 "Sides", §2.3): partners alternate with four players and with six
    (two teams of three); ``three_teams`` pairs opposite seats (team = seat mod 3); two, three
    and five players each play alone."""
    players = s[NUM_PLAYERS]
    three_teams = players == 6 and s[THREE_TEAMS]
    two_teams = players == 4 or (players == 6 and not three_teams)
    for seat in range(players):
        s[SIDE_OF + seat] = seat % 2 if two_teams else seat % 3 if three_teams else seat
    s[NUM_SIDES] = 2 if two_teams else 3 if three_teams else players


@njit(cache=True, inline="always")
def side_of(s, seat):
    """The side ``seat`` scores with."""
    return s[SIDE_OF + seat]


@njit(cache=True, inline="always")
def has_piles(s):
    """Two players each have four piles of two cards beside the hand (11.11)."""
    return s[NUM_PLAYERS] == 2


@njit(cache=True, inline="always")
def tricks_per_hand(s):
    """8 tricks (a small game: one a card of the hand); two players play 16 two-card tricks (11.11)."""
    return 2 * NUM_TRICKS if has_piles(s) else s[HAND_CARDS]


@borrowing_kernel
def takes_kitty(s):
    """The declarer takes a 2-card kitty: the 34-card game (11.1) and three players' missy (11.12)."""
    return s[KITTY_34_CARD] or s[NUM_PLAYERS] == 3


@njit(cache=True)
def parameter_values(s):
    """The values of PARAMETER_SLOTS in ``s``: what ``new_state`` needs to start the same game."""
    values = np.empty(NUM_PARAMETERS, dtype=np.int64)
    for k in range(NUM_PARAMETERS):
        values[k] = s[PARAMETER_SLOTS[k]]
    return values


@borrowing_kernel
def start_hand(s, dealer):
    """Clear the hand slots and wait for the deal (chance nodes)."""
    start_deal(s, dealer)
    for seat in range(MAX_SEATS):
        s[HANDS + seat] = 0
        s[SPOKEN + seat] = -1
        s[VOIDS + seat] = 0
        s[TRICK + seat] = -1
    s[HIGH_BID] = -1
    s[DECLARER] = -1
    s[TRUMP] = NO_TRUMP
    s[TRICK_NUMBER] = 0
    s[TRICK_SIZE] = 0
    s[TRICKS_WON:TRICKS_WON + MAX_SEATS] = 0
    s[HAND_POINTS:HAND_POINTS + MAX_SEATS] = 0
    s[PLAYED] = 0
    s[TRICK_HISTORY:TRICK_HISTORY + HISTORY_SLOTS] = -1
    s[TRICK_LEADERS:TRICK_LEADERS + MAX_TRICKS] = -1
    s[TRICK_WINNERS:TRICK_WINNERS + MAX_TRICKS] = -1
    s[FIVE_HEARTS_TEAM] = s[THREE_SPADES_TEAM] = -1
    s[PLAYED_LOW] = 0
    s[KITTY] = s[DISCARDS] = 0
    s[PILES:PILES + 2 * 2 * NUM_PILES] = -1
    s[PILE_CARDS] = s[FACE_UP] = 0
    s[GIVEN:GIVEN + MAX_SEATS] = 0
    s[DELIVERED] = 0


@borrowing_kernel
def may_throw_in(s, seat):
    """Misdeal: no ace, no picture card, neither the 5 of hearts nor the 3 of spades.

    11.3 takes that misdeal away; 11.28 adds one for all four 10s, 9s or 8s. The forms
    have no misdeal (V-K9).
    """
    if s[FORM] != STANDARD:
        return False
    if passes_before_auction(s) and s[PHASE] != GIVING:  # V-K28: only at the first giving node
        return False
    hand = s[HANDS + seat]
    if not s[LOW_WEAK_HAND_NO_MISDEAL] and hand & MISDEAL_HONOURS == 0:
        return True
    if s[FOUR_OF_A_RANK_MISDEAL]:
        for rank_cards in FOUR_OF_A_RANK:
            if hand & rank_cards == rank_cards:
                return True
    return False


@njit(cache=True, inline="always")
def bid_rank(s, bid):
    """Where ``bid`` (3 * value + kind) stands in the auction: 11.4 ranks vLNT with vNT."""
    if s[HIGH_LOW_NO_TRUMP_EQUAL] and bid % 3 == LOW_NO_TRUMP:
        return bid - 1
    return bid


@borrowing_kernel
def offers_kaiser_bid(s):
    """Bid 99 (11.29 or 11.30) is in the auction."""
    return s[KAISER_BID_SOLO] or s[KAISER_BID_TEAM]


@borrowing_kernel
def bid_kinds(s):
    """How many bid kinds the auction has: with trump and no trump, low no trump too (11.2);
    the forms bid with trump only."""
    if s[FORM] != STANDARD:
        return 1
    return 3 if s[ALLOW_LOW_NO_TRUMP] else 2


@borrowing_kernel
def names_trump(bid):
    """The declarer of ``bid`` names trump: a trump bid, not a Kaiser bid."""
    return bid < KAISER_RANK and bid % 3 == WITH_TRUMP


@njit(cache=True, inline="always")
def may_bid(s, bid, is_dealer):
    """A bid must outrank the high bid; the dealer may also equal it (ruling 1)."""
    if s[HIGH_BID] < 0:
        return True
    rank, high = bid_rank(s, bid), bid_rank(s, s[HIGH_BID])
    return rank > high or (is_dealer and rank == high)


@borrowing_kernel
def legal_actions(s, out):
    """Write the legal actions in ascending order into ``out``; return how many."""
    phase = s[PHASE]
    n = 0
    if phase == DEALING:
        n = write_cards(undealt_cards(s), out, 0)
    elif phase == BIDDING:
        seat = s[TO_MOVE]
        is_dealer = seat == s[DEALER]
        if is_dealer and s[FORM] == LOST_HEIR:
            return sale_actions(s, out)
        if not (is_dealer and s[HIGH_BID] < 0) or s[DEALER_MAY_PASS]:
            out[n] = PASS
            n += 1
        if may_throw_in(s, seat):
            out[n] = MISDEAL
            n += 1
        kinds = bid_kinds(s)
        for value in range(s[MIN_BID], s[TOP_BID] + 1):
            for kind in range(kinds):
                bid = 3 * value + kind
                if may_bid(s, bid, is_dealer):
                    out[n] = BID + bid
                    n += 1
        if offers_kaiser_bid(s) and may_bid(s, KAISER_RANK, is_dealer):
            out[n] = BID + KAISER_RANK
            n += 1
        if s[KAISER_40] and may_bid(s, KAISER_40_RANK, is_dealer):
            out[n] = BID + KAISER_40_RANK
            n += 1
    elif phase == NAMING_TRUMP:
        for suit in range(4):
            if s[DECK] & SUIT_MASKS[suit]:  # every suit of a full pack; a small pack's own suits
                out[n] = NAME_TRUMP + suit
                n += 1
    elif phase == HIGH_OR_LOW:
        out[0], out[1] = PLAY_HIGH, PLAY_LOW
        n = 2
    elif phase == DISCARDING:
        n = write_cards(discard_choices(s), out, 0)
    elif phase == PLAYING:
        seat = s[TO_MOVE]
        n = write_cards(playable_cards(s, seat), out, 0)
    elif phase == GIVING:
        n = write_cards(giving_choices(s), out, 0)
        if may_throw_in_before_giving(s, s[TO_MOVE]):
            out[n] = MISDEAL
            n += 1
    return n


@borrowing_kernel
def random_bid(s, stream, legal):
    """``legal[random_below(stream, legal_actions(s, legal))]`` at a bidding node, counted rather
    than listed (``legal`` is scratch only for the Lost Heir dealer's node).

    The bids of the value-kind loop rank in their listed order (``bid_rank`` never decreases), so
    the ones ``may_bid`` allows are the loop's last ones: the draw's index maps straight to one.
    """
    seat = s[TO_MOVE]
    is_dealer = seat == s[DEALER]
    if is_dealer and s[FORM] == LOST_HEIR:
        return legal[random_below(stream, sale_actions(s, legal))]
    may_pass = not (is_dealer and s[HIGH_BID] < 0) or s[DEALER_MAY_PASS]
    misdeal = may_throw_in(s, seat)
    kinds = bid_kinds(s)
    first_bid = 3 * s[MIN_BID]
    bids = (s[TOP_BID] - s[MIN_BID] + 1) * kinds  # the loop's bids, in listed order
    skipped = 0  # the loop's first bids that may not be made
    value, kind = 0, 0  # the skipped-th bid's value above the minimum, and its kind
    while skipped < bids and not may_bid(s, first_bid + 3 * value + kind, is_dealer):
        skipped += 1
        kind += 1
        if kind == kinds:  # counted, not divided: the kinds are known only at run time
            value, kind = value + 1, 0
    kaiser = offers_kaiser_bid(s) and may_bid(s, KAISER_RANK, is_dealer)
    kaiser_40 = s[KAISER_40] and may_bid(s, KAISER_40_RANK, is_dealer)
    k = random_below(stream, may_pass + misdeal + bids - skipped + kaiser + kaiser_40)
    if may_pass:
        if k == 0:
            return PASS
        k -= 1
    if misdeal:
        if k == 0:
            return MISDEAL
        k -= 1
    if k < bids - skipped:
        listed = skipped + k
        return BID + first_bid + 3 * (listed // kinds) + listed % kinds
    k -= bids - skipped
    return BID + (KAISER_RANK if kaiser and k == 0 else KAISER_40_RANK)


@borrowing_kernel
def sale_actions(s, out):
    """The Lost Heir dealer's node (V-K15): facing a high bid v, 52 accepts (sells it) and 60 + 3v
    refuses (he declares at v, never higher); with no bid he declares at m (or, with
    ``dealer_may_pass``, passes and throws the hand in)."""
    n = 0
    if s[HIGH_BID] >= 0 or s[DEALER_MAY_PASS]:
        out[n] = PASS
        n += 1
    out[n] = BID + (s[HIGH_BID] if s[HIGH_BID] >= 0 else 3 * s[MIN_BID] + WITH_TRUMP)
    return n + 1


@borrowing_kernel
def sold(s):
    """The Lost Heir dealer accepted the high bid: his side scores its value for the sale (V-K15)."""
    return s[FORM] == LOST_HEIR and s[HIGH_BID] >= 0 and s[SPOKEN + s[DEALER]] == PASS


@njit(cache=True, inline="always")
def playable_cards(s, seat):
    if s[FORM] == LOST_HEIR:
        return lost_heir_playable_cards(s, seat)
    led_suit = suit_of(s[TRICK]) if s[TRICK_SIZE] > 0 else -1
    return follow_suit_choices(held_cards(s, seat), led_suit)


@borrowing_kernel
def suit_cards(s, suit):
    """The cards that belong to ``suit``: its printed cards, except in Lost Heir, where the blanks
    belong to no suit and the Lost Heir and the Wrong Boy to the trump suit (V-K13)."""
    if s[FORM] != LOST_HEIR:
        return SUIT_MASKS[suit]
    cards = SUIT_MASKS[suit] & ~(BLANKS | TRUMP_SPECIALS)
    return cards | TRUMP_SPECIALS if suit == s[TRUMP] else cards


@borrowing_kernel
def card_suit(s, card):
    """The suit ``card`` belongs to (:func:`suit_cards`): -1 for a blank, and for the Lost Heir
    and the Wrong Boy before the first lead fixes trump."""
    if s[FORM] != LOST_HEIR:
        return suit_of(card)
    if (BLANKS >> card) & 1:
        return -1
    if (TRUMP_SPECIALS >> card) & 1:
        return s[TRUMP]
    return suit_of(card)


@borrowing_kernel
def led_suit_of(s, cards, count):
    """The led suit of the trick ``cards[:count]``, -1 while none: the first card's suit, or in
    Lost Heir that of the first card that is not a blank (V-K13)."""
    for position in range(count):
        suit = card_suit(s, cards[position])
        if suit >= 0:
            return suit
    return -1


@borrowing_kernel
def lost_heir_playable_cards(s, seat):
    """V-K13: the declarer's first lead is a suit card (it fixes trump); a blank is led only from
    a hand of blanks; after a blank lead anything goes until a card fixes the led suit; then
    follow it if possible (the Lost Heir and the Wrong Boy are trumps), else play any card."""
    hand = s[HANDS + seat]
    if s[TRICK_SIZE] == 0:
        if trump_to_be_led(s):
            return hand & ~(BLANKS | TRUMP_SPECIALS)
        suited = hand & ~BLANKS
        return suited if suited != 0 else hand
    led = led_suit_of(s, s[TRICK:TRICK + s[TRICK_SIZE]], s[TRICK_SIZE])
    if led < 0:
        return hand
    following = hand & suit_cards(s, led)
    return following if following != 0 else hand


@njit(cache=True, inline="always")
def winning_position(s, cards, count):
    """Position of the card winning the trick ``cards[:count]`` under the contract played; -1 in
    Lost Heir while only blanks lie there (a blank never wins, V-K13)."""
    if s[FORM] == LOST_HEIR:
        return _lost_heir_winning_position(s, cards, count)
    return trick_winner(cards, count, s[TRUMP], 0, card_strength(s))


@borrowing_kernel
def _lost_heir_winning_position(s, cards, count):
    """V-K13: a trump (the Lost Heir and the Wrong Boy among them) beats the led suit, which beats
    everything else; blanks never win."""
    led = led_suit_of(s, cards, count)
    best = -1
    best_class = 0
    for position in range(count):
        suit = card_suit(s, cards[position])
        card_class = 2 if suit >= 0 and suit == s[TRUMP] else 1 if suit >= 0 and suit == led else 0
        if card_class > best_class or (card_class == best_class and card_class > 0 and
                                       LOST_HEIR_PLAY_STRENGTH[cards[position]]
                                       > LOST_HEIR_PLAY_STRENGTH[cards[best]]):
            best = position
            best_class = card_class
    return best


@borrowing_kernel
def _show_lost_heir_voids(s, seat, card, position):
    """What a Lost Heir card shows (V-K13): not following the led suit shows a void in it, and
    leading a blank shows a hand of blanks only (a void in every suit)."""
    if position == 0:
        if (BLANKS >> card) & 1:
            s[VOIDS + seat] |= 15
        return
    led = led_suit_of(s, s[TRICK:TRICK + position], position)
    if led >= 0 and card_suit(s, card) != led:
        s[VOIDS + seat] |= 1 << led


@njit(cache=True, inline="always")
def held_cards(s, seat):
    """The cards ``seat`` may play from: his hand, and with two players his face-up pile cards."""
    if has_piles(s):
        return s[HANDS + seat] | (s[FACE_UP] & own_pile_cards(s, seat))
    return s[HANDS + seat]


@borrowing_kernel
def own_pile_cards(s, seat):
    """The cards of ``seat``'s piles not played yet, face up or down (11.11)."""
    mine = np.int64(0)
    for place in range(seat * 2 * NUM_PILES, (seat + 1) * 2 * NUM_PILES):
        if s[PILES + place] >= 0:
            mine |= card_bit(s[PILES + place])
    return mine & s[PILE_CARDS]


@borrowing_kernel
def _play_pile_card(s, seat, card):
    """A face-up pile card leaves its pile; the card beneath a played top turns face up (11.11)."""
    s[PILE_CARDS] &= ~card_bit(card)
    s[FACE_UP] &= ~card_bit(card)
    for place in range(seat * 2 * NUM_PILES + 1, (seat + 1) * 2 * NUM_PILES, 2):
        if s[PILES + place] == card:
            s[FACE_UP] |= card_bit(s[PILES + place - 1])


@borrowing_kernel
def advance(s, action, out):
    """Apply ``action`` (none if negative), then list the legal actions: one call per step.

    Returns ``(number of legal actions, current player)``; the wrapper uses it so
    that a step of an OpenSpiel game costs a single compiled call (why every
    engine writes these lines itself: :mod:`cardlab.core.layout`).
    """
    if action >= 0:
        apply_action(s, action)
    return legal_actions(s, out), current_player(s)


@borrowing_kernel
def random_action(s, stream, legal):
    """A uniformly random legal action, drawn straight from the card masks when it can."""
    phase = s[PHASE]
    if phase == DEALING:
        return draw_card(undealt_cards(s), stream)
    if phase == PLAYING:
        return draw_card(playable_cards(s, s[TO_MOVE]), stream)
    if phase == BIDDING:
        return random_bid(s, stream, legal)
    n = legal_actions(s, legal)
    return legal[random_below(stream, n)]


@borrowing_kernel
def play_out_randomly(s, stream, legal):
    """Play ``s`` to its end with uniformly random moves, chance included: the moves of
    :func:`random_action` and :func:`apply_action` in turn, a plain hand's tricks in one call
    (:func:`play_plain_tricks_randomly`), the others' cards without the dispatch."""
    while not is_terminal(s):
        if s[PHASE] == PLAYING and s[PLAIN_TRICKS]:
            play_plain_tricks_randomly(s, stream)
        elif s[PHASE] == PLAYING:
            _play_card(s, draw_card(playable_cards(s, s[TO_MOVE]), stream))
        else:
            apply_action(s, random_action(s, stream, legal))


@borrowing_kernel
def apply_action(s, action):
    """Apply a legal action (chance: the dealt card id)."""
    phase = s[PHASE]
    if phase == DEALING:
        _deal_card(s, action)
    elif phase == BIDDING:
        _bid(s, action)
    elif phase == NAMING_TRUMP:
        s[TRUMP] = action - NAME_TRUMP
        _after_trump(s)
    elif phase == HIGH_OR_LOW:
        s[PLAYED_LOW] = action == PLAY_LOW
        _take_kitty_or_play(s)
    elif phase == DISCARDING:
        _discard(s, action)
    elif phase == GIVING:
        _give(s, action)
    else:
        _play_card(s, action)


@borrowing_kernel
def cards_to_deal(s):
    """The chance nodes of a deal: the hands, then the kitty's two cards (11.1, 11.12) or the
    two players' piles (11.11)."""
    if has_piles(s):
        return PILE_DEAL_START + 2 * 2 * NUM_PILES
    return s[NUM_PLAYERS] * s[HAND_CARDS] + (KITTY_SIZE if takes_kitty(s) else 0)


@borrowing_kernel
def pile_place(dealer, k):
    """The PILES index (seat * 8 + pile * 2 + level) of the deal's card ``k`` >= 16 (11.11):
    pile (k - 16) mod 8 // 2 of seat (dealer + 1 + k) % 2, bottoms first, then tops."""
    seat = (dealer + 1 + k) % 2
    pile = ((k - PILE_DEAL_START) % 8) // 2
    level = 0 if k < PILE_DEAL_START + 8 else 1
    return seat * 2 * NUM_PILES + pile * 2 + level


@borrowing_kernel
def _deal_card(s, card):
    players = s[NUM_PLAYERS]
    if has_piles(s) and s[CARDS_DEALT] >= PILE_DEAL_START:  # face down, seen by nobody
        s[PILES + pile_place(s[DEALER], s[CARDS_DEALT])] = card
        s[PILE_CARDS] |= card_bit(card)
        s[UNDEALT] &= ~card_bit(card)
        s[CARDS_DEALT] += 1
    elif s[CARDS_DEALT] >= players * s[HAND_CARDS]:  # the last two cards make the kitty
        s[KITTY] |= card_bit(card)
        s[UNDEALT] &= ~card_bit(card)
        s[CARDS_DEALT] += 1
    else:
        seat = receiving_seat(s[DEALER], s[CARDS_DEALT], players)
        s[HANDS + seat] |= card_bit(card)
        record_deal(s, seat, card)
    if s[CARDS_DEALT] == cards_to_deal(s):
        _end_deal(s)


@borrowing_kernel
def _end_deal(s):
    """The last card is dealt: the cards are given, or the auction starts, left of the dealer."""
    s[PHASE] = GIVING if passes_before_auction(s) else BIDDING
    s[TO_MOVE] = seat_after(s[DEALER], 1, s[NUM_PLAYERS])


@borrowing_kernel
def _bid(s, action):
    seat = s[TO_MOVE]
    if action == MISDEAL:
        s[MISDEAL_BY] = seat
        _throw_in(s)
        return
    s[SPOKEN + seat] = action
    if action != PASS:
        s[HIGH_BID] = action - BID
        s[DECLARER] = seat
    if seat == s[DEALER]:  # the dealer speaks last
        s[MISDEAL_BY] = -1
        if s[HIGH_BID] < 0:  # everyone passed (11.27)
            _throw_in(s)
            return
        if s[PASSING_RULE] == EXCHANGE_AFTER_BIDDING:  # 11.35: before trump is named
            s[PHASE] = GIVING
            s[TO_MOVE] = seat_after(s[DEALER], 1, s[NUM_PLAYERS])
            return
        _after_auction(s)
    else:
        s[TO_MOVE] = seat_after(seat, 1, s[NUM_PLAYERS])


@borrowing_kernel
def _after_auction(s):
    """The declarer's steps after the auction (and 11.35's exchange): piles, trump, high or low."""
    s[TO_MOVE] = s[DECLARER]
    if has_piles(s):  # V-K17: the pile tops turn face up before trump is named
        for place in range(1, 2 * 2 * NUM_PILES, 2):
            s[FACE_UP] |= card_bit(s[PILES + place])
    if names_trump(s[HIGH_BID]) and not TRUMP_BY_FIRST_LEAD[s[FORM]]:
        s[PHASE] = NAMING_TRUMP
    else:
        s[TRUMP] = NO_TRUMP
        _after_trump(s)


# ---- Giving cards (11.32-11.35, §2.4 steps 2 and 5) ------------------------------------------
@njit(cache=True, inline="always")
def passes_before_auction(s):
    """11.32-11.34: the cards are given between the deal and the auction."""
    return s[PASSING_RULE] != NO_PASSING and s[PASSING_RULE] != EXCHANGE_AFTER_BIDDING


@borrowing_kernel
def cards_to_give(s):
    """c: how many cards each seat gives (0 without a passing rule)."""
    return CARDS_GIVEN[s[PASSING_RULE]]


@borrowing_kernel
def receiver_of(s, giver):
    """Who receives ``giver``'s cards: the partner, or with 11.34 left, right, partner by the
    hands scored so far (V-K29: a thrown-in deal keeps the direction; hand mode passes left)."""
    if s[PASSING_RULE] == HEARTS_STYLE:
        return (giver + HEARTS_DIRECTIONS[s[HANDS_SCORED] % 3]) % 4
    return (giver + 2) % 4


@borrowing_kernel
def giver_to(s, receiver):
    """The seat whose cards ``receiver`` gets (the receivers are a permutation of the seats)."""
    for giver in range(s[NUM_PLAYERS]):
        if receiver_of(s, giver) == receiver:
            return giver
    return -1


@borrowing_kernel
def giving_choices(s):
    """The mover's next card to give, in ascending id order (§0 multi-card choice): above his
    previous choice, leaving enough higher cards for the choices still to come."""
    seat = s[TO_MOVE]
    given = s[GIVEN + seat]
    eligible = s[HANDS + seat]
    if given != 0:
        eligible &= ~((card_bit(highest_card(given)) << 1) - 1)
    for _ in range(cards_to_give(s) - 1 - popcount(given)):
        eligible &= ~card_bit(highest_card(eligible))
    return eligible


@borrowing_kernel
def may_throw_in_before_giving(s, seat):
    """V-K28: before the auction the misdeal is declared at the seat's first giving node, on its
    dealt cards (its hand then); never at 11.35's exchange (clarification 8)."""
    return passes_before_auction(s) and s[GIVEN + seat] == 0 and may_throw_in(s, seat)


@borrowing_kernel
def _give(s, action):
    """A card leaves the giver's hand at once; after the last node every given card is
    delivered together (§0 simultaneous choices)."""
    seat = s[TO_MOVE]
    if action == MISDEAL:
        s[MISDEAL_BY] = seat
        _throw_in(s)
        return
    s[HANDS + seat] &= ~card_bit(action)
    s[GIVEN + seat] |= card_bit(action)
    if popcount(s[GIVEN + seat]) < cards_to_give(s):
        return
    if seat != s[DEALER]:  # the dealer gives last
        s[TO_MOVE] = seat_after(seat, 1, s[NUM_PLAYERS])
        return
    for giver in range(s[NUM_PLAYERS]):
        s[HANDS + receiver_of(s, giver)] |= s[GIVEN + giver]
    s[DELIVERED] = 1
    if passes_before_auction(s):
        s[PHASE] = BIDDING
        s[TO_MOVE] = seat_after(s[DEALER], 1, s[NUM_PLAYERS])
    else:
        _after_auction(s)


@borrowing_kernel
def kitty_taken(s):
    """The declarer has taken the kitty up (11.1, 11.12). GIVING's code comes after DISCARDING's
    but 11.35's exchange is before it, hence this test rather than a comparison of phases."""
    return takes_kitty(s) and s[PHASE] >= DISCARDING and s[PHASE] != GIVING


@borrowing_kernel
def chooses_high_or_low(s):
    """The declarer announces high or low: 11.5 for no-trump contracts, 11.6 for all (never 99, 100)."""
    bid = s[HIGH_BID]
    if bid >= KAISER_RANK:
        return False
    return s[ANY_CONTRACT_HIGH_OR_LOW] or (s[HIGH_OR_LOW_AFTER_BID] and bid % 3 != WITH_TRUMP)


@borrowing_kernel
def _after_trump(s):
    """The steps between trump and the first lead (spec order: trump, high or low, play)."""
    if chooses_high_or_low(s):
        s[PHASE] = HIGH_OR_LOW
    else:
        _take_kitty_or_play(s)


@borrowing_kernel
def _take_kitty_or_play(s):
    """With a kitty (11.1, 11.12) the declarer takes it up and discards two cards; then play begins."""
    if takes_kitty(s):
        s[HANDS + s[DECLARER]] |= s[KITTY]
        s[PHASE] = DISCARDING
        s[TO_MOVE] = s[DECLARER]
    else:
        _start_play(s)


@borrowing_kernel
def discard_choices(s):
    """The declarer's next discard: one card at a time, in ascending id order (multi-card choice).

    Never the 5H or the 3S; the first discard leaves a higher eligible card for the second.
    """
    eligible = s[HANDS + s[DECLARER]] & ~UNDISCARDABLE
    if s[DISCARDS] == 0:
        return eligible & ~card_bit(highest_card(eligible))
    above = ~((card_bit(highest_card(s[DISCARDS])) << 1) - 1)
    return eligible & above


@borrowing_kernel
def _discard(s, card):
    s[HANDS + s[DECLARER]] &= ~card_bit(card)
    s[DISCARDS] |= card_bit(card)
    if popcount(s[DISCARDS]) == KITTY_SIZE:
        _start_play(s)


@borrowing_kernel
def _start_play(s):
    """The declarer leads the first trick."""
    s[PHASE] = PLAYING
    s[TO_MOVE] = s[DECLARER]
    s[TRICK_LEADER] = s[DECLARER]


@borrowing_kernel
def _throw_in(s):
    """A misdeal, or every seat passing (11.27): nothing is scored and the same dealer redeals."""
    s[HAND_NUMBER] += 1  # counts deals, so a match of endless misdeals still ends
    if s[MATCH] and s[HAND_NUMBER] < s[MAX_HANDS]:
        start_hand(s, s[DEALER])
    else:
        s[WINNER] = DRAWN
        s[PHASE] = GAME_OVER


@borrowing_kernel
def _play_card(s, card):
    seat = s[TO_MOVE]
    position = s[TRICK_SIZE]
    players = s[NUM_PLAYERS]
    if s[PLAIN_TRICKS]:
        if position > 0:
            _show_void(s, seat, card)
        s[HANDS + seat] &= ~card_bit(card)
    else:
        _play_form_or_pile_card(s, seat, card, position)
    s[PLAYED] |= card_bit(card)
    s[TRICK + position] = card
    s[TRICK_HISTORY + players * s[TRICK_NUMBER] + position] = card
    s[TRICK_SIZE] = position + 1
    if position + 1 < players:
        s[TO_MOVE] = seat_after(seat, 1, players)
        return
    _finish_trick(s)


@njit(cache=True, inline="always")
def _show_void(s, seat, card):
    """Not following the led suit shows a void in it (the trick's first card is the lead)."""
    led_suit = suit_of(s[TRICK])
    if suit_of(card) != led_suit:
        s[VOIDS + seat] |= 1 << led_suit


@borrowing_kernel
def _play_form_or_pile_card(s, seat, card, position):
    """What a card does beyond leaving the hand, in a form (11.7-11.10) or with piles (11.11): it
    may fix trump, show voids by the form's suits, or come from a pile."""
    if position > 0:
        if s[FORM] != LOST_HEIR:
            _show_void(s, seat, card)
    elif s[TRICK_NUMBER] == 0 and TRUMP_BY_FIRST_LEAD[s[FORM]]:
        s[TRUMP] = suit_of(card)  # the declarer's first lead fixes trump, this card included
    if s[FORM] == LOST_HEIR:
        _show_lost_heir_voids(s, seat, card, position)
    if has_piles(s) and (s[PILE_CARDS] >> card) & 1:
        _play_pile_card(s, seat, card)
    else:
        s[HANDS + seat] &= ~card_bit(card)


@njit(cache=True, inline="always")
def high_strength(s):
    """The game's high order: A high, or the form's (11.7-11.9)."""
    return FORM_STRENGTH[s[FORM]]


@njit(cache=True, inline="always")
def card_strength(s):
    """The strength table of the contract being played (low no trump or a low choice reverses it;
    a form has its own order)."""
    if s[FORM] == STANDARD:
        low = s[PLAYED_LOW] or (s[HIGH_BID] >= 0 and s[HIGH_BID] % 3 == LOW_NO_TRUMP)
        return LOW_STRENGTH if low else HIGH_STRENGTH
    return LOST_HEIR_PLAY_STRENGTH if s[FORM] == LOST_HEIR else high_strength(s)


@borrowing_kernel
def _finish_trick(s):
    leader = s[TRICK_LEADER]
    players = s[NUM_PLAYERS]
    winning = winning_position(s, s[TRICK:TRICK + players], players)
    winner = seat_after(leader, winning, players)
    team = side_of(s, winner)
    if s[FORM] != STANDARD:
        points = _form_trick_points(s, leader, winning)
    else:
        cards = np.int64(0)
        for position in range(players):
            cards |= card_bit(s[TRICK + position])
        points = _standard_trick_points(s, cards, team)
    for position in range(players):
        s[TRICK + position] = -1
    _record_trick(s, s[TRICK_NUMBER], leader, winner, team, points)
    s[TRICK_NUMBER] += 1
    s[TRICK_SIZE] = 0
    s[TRICK_LEADER] = winner
    s[TO_MOVE] = winner
    if s[TRICK_NUMBER] == tricks_per_hand(s):
        _score_hand(s)


@njit(cache=True, inline="always")
def _standard_trick_points(s, cards, team):
    """A trick of the standard game (``cards``, its mask) won by ``team``: 1, the 5H's +5 and the
    3S's -3; the hand remembers which side took those two (11.20, 11.26)."""
    points = 1
    if (cards >> FIVE_OF_HEARTS) & 1:
        points += FIVE_OF_HEARTS_POINTS
        s[FIVE_HEARTS_TEAM] = team
    if (cards >> THREE_OF_SPADES) & 1:
        points += THREE_OF_SPADES_POINTS
        s[THREE_SPADES_TEAM] = team
    return points


@njit(cache=True, inline="always")
def _record_trick(s, number, leader, winner, team, points):
    """The hand's record of trick ``number``: who led it, who won it, what the winning side took."""
    s[TRICKS_WON + team] += 1
    s[HAND_POINTS + team] += points
    s[TRICK_LEADERS + number] = leader
    s[TRICK_WINNERS + number] = winner


@borrowing_kernel
def play_plain_tricks_randomly(s, stream):
    """Play the hand's remaining cards at random and score it, for PLAIN_TRICKS hands.

    The cards, the draws from ``stream`` and the state at the end are those of ``_play_card``
    with ``draw_card(playable_cards(...))`` card by card; the trick's leading card, its seat and
    the cards played stay in locals (``takes_the_lead`` compares each card as it comes), and the
    trick's record is written once, when it ends. Returns the number of cards played.
    """
    players = s[NUM_PLAYERS]
    tricks = tricks_per_hand(s)
    trump = s[TRUMP]
    strength = card_strength(s)
    seat = s[TO_MOVE]
    leader = s[TRICK_LEADER]
    number = s[TRICK_NUMBER]
    position = s[TRICK_SIZE]
    played = s[PLAYED]
    cards = np.int64(0)  # the trick's cards so far
    led_suit = suit_of(s[TRICK]) if position > 0 else -1
    best, best_class, winner = -1, -1, leader  # the card leading the trick, and its seat
    if position > 0:
        best_position = trick_winner(s[TRICK:TRICK + position], position, trump, 0, strength)
        best = s[TRICK + best_position]
        best_class = takes_the_lead(best, best_position, -1, -1, led_suit, trump, 0, strength)
        winner = seat_after(leader, best_position, players)
        for earlier in range(position):
            cards |= card_bit(s[TRICK + earlier])
    count = players * (tricks - number) - position
    stream_position = stream[0]  # in a register for the hand, written back at its end
    while number < tricks:
        history = TRICK_HISTORY + players * number
        while position < players:
            hand = s[HANDS + seat]
            choices = follow_suit_choices(hand, led_suit)
            k, stream_position = choice_below_from_position(stream_position, popcount(choices))
            card = nth_card(choices, k)
            suit = suit_of(card)
            s[VOIDS + seat] |= void_shown(position, suit, led_suit)  # _show_void, without a branch
            led_suit = suit if position == 0 else led_suit
            card_class = takes_the_lead(card, position, best, best_class, led_suit, trump, 0, strength)
            takes = card_class >= 0
            best = card if takes else best
            best_class = card_class if takes else best_class
            winner = seat if takes else winner
            s[HANDS + seat] = hand & ~card_bit(card)
            s[history + position] = card
            cards |= card_bit(card)
            position += 1
            seat = seat_after(seat, 1, players)
        team = side_of(s, winner)
        _record_trick(s, number, leader, winner, team, _standard_trick_points(s, cards, team))
        played |= cards
        number += 1
        leader = seat = winner
        position = 0
        cards = np.int64(0)
        led_suit = best = best_class = -1
    stream[0] = stream_position
    for slot in range(players):
        s[TRICK + slot] = -1
    s[PLAYED] = played
    s[TRICK_NUMBER] = number
    s[TRICK_SIZE] = 0
    s[TRICK_LEADER] = leader
    s[TO_MOVE] = leader
    _score_hand(s)
    return count


@borrowing_kernel
def trump_to_be_led(s):
    """The declarer's first lead is still to fix trump (11.8-11.10)."""
    return TRUMP_BY_FIRST_LEAD[s[FORM]] and s[TRUMP] == NO_TRUMP and s[PHASE] == PLAYING


@borrowing_kernel
def bonus_card(s):
    """The card whose trick scores extra: the 5H, or a form's KH."""
    return BONUS_CARD[s[FORM]]


@borrowing_kernel
def penalty_card(s):
    """The card whose trick scores less: the 3S, or a form's KS."""
    return PENALTY_CARD[s[FORM]]


@borrowing_kernel
def _form_trick_points(s, leader, winning):
    """A form's trick (11.7-11.10): 1, plus its bonus and penalty cards' points, to the winner;
    in Lost Heir a blank in the trick cancels them (V-K14).

    Joffre's insult (V-K11): when the Kaiser (KS) wins a trick holding the Joffre (KH), the side
    of the seat that played the Joffre also scores -5, whichever side won the trick.
    """
    form = s[FORM]
    players = s[NUM_PLAYERS]
    team = side_of(s, seat_after(leader, winning, players))
    special_points = 0
    cancelled = False
    joffre_by = -1
    for position in range(players):
        card = s[TRICK + position]
        if card == BONUS_CARD[form]:
            special_points += BONUS_POINTS[form]
            s[FIVE_HEARTS_TEAM] = team
            joffre_by = seat_after(leader, position, players)
        elif card == PENALTY_CARD[form]:
            special_points += PENALTY_POINTS[form]
            s[THREE_SPADES_TEAM] = team
        elif (FORM_BLANKS[form] >> card) & 1:
            cancelled = True
    points = 1 if cancelled else 1 + special_points
    if form == JOFFRE and joffre_by >= 0 and s[TRICK + winning] == PENALTY_CARD[form]:
        s[HAND_POINTS + side_of(s, joffre_by)] += JOFFRE_INSULT_POINTS
    return points


@borrowing_kernel
def three_spades_needs_three_tricks_points(s, team):
    """11.26: the 5H counts only with three tricks, and two tricks or fewer with the 3S score -3."""
    tricks = s[TRICKS_WON + team]
    has_three = s[THREE_SPADES_TEAM] == team
    if has_three and tricks <= 2:
        return THREE_OF_SPADES_POINTS
    points = tricks + (THREE_OF_SPADES_POINTS if has_three else 0)
    if s[FIVE_HEARTS_TEAM] == team and tricks >= 3:
        points += FIVE_OF_HEARTS_POINTS
    return points


@borrowing_kernel
def is_no_trump(bid):
    """A no-trump contract: kind NT or LNT, or a Kaiser bid (played at no trump, V-K27)."""
    return bid >= KAISER_RANK or bid % 3 != WITH_TRUMP


@borrowing_kernel
def tricks_of_seat(s, seat):
    count = 0
    for trick in range(tricks_per_hand(s)):
        if s[TRICK_WINNERS + trick] == seat:
            count += 1
    return count


@borrowing_kernel
def seat_winning(s, card):
    """The seat that won the trick holding ``card`` this hand, -1 if none did."""
    players = s[NUM_PLAYERS]
    for position in range(players * tricks_per_hand(s)):
        if s[TRICK_HISTORY + position] == card:
            return s[TRICK_WINNERS + position // players]
    return -1


@borrowing_kernel
def made_contract(s):
    """The declaring side fulfilled its contract: its bid's value in hand points, or the
    conditions of a Kaiser bid (11.29-11.31, four players only)."""
    declarer = s[DECLARER]
    bid = s[HIGH_BID]
    if bid == KAISER_40_RANK:
        return tricks_of_seat(s, declarer) == NUM_TRICKS
    if bid == KAISER_RANK:
        team = side_of(s, declarer)
        if s[KAISER_BID_SOLO]:  # the declarer alone: his partner takes no trick (V-K25)
            return (tricks_of_seat(s, declarer) == 7 and tricks_of_seat(s, (declarer + 2) % 4) == 0
                    and seat_winning(s, FIVE_OF_HEARTS) == declarer
                    and seat_winning(s, THREE_OF_SPADES) != declarer)
        return (s[TRICKS_WON + team] == 7 and s[FIVE_HEARTS_TEAM] == team
                and s[THREE_SPADES_TEAM] != team)
    return s[HAND_POINTS + side_of(s, declarer)] >= bid // 3


@borrowing_kernel
def hand_utility_bound(s):
    """A bound on a seat's hand-mode return: a doubled 12 against 10 points (two players: a
    doubled 21 against -3), the Kaiser bid's +-target (V-K26), Kaiser 40's +-40 against 13 points."""
    bound = 45 if has_piles(s) else 44
    if offers_kaiser_bid(s):
        bound = max(bound, s[TARGET])
    if s[KAISER_40]:
        bound = max(bound, KAISER_40_POINTS + 13)
    return float(bound)


@njit(cache=True)
def hand_deltas(s):
    """Each side's match-score change for the finished hand (:func:`write_hand_deltas`)."""
    deltas = np.zeros(s[NUM_SIDES], dtype=np.int64)
    write_hand_deltas(s, deltas, 0)
    return deltas


@borrowing_kernel
def write_hand_deltas(s, out, first):
    """Write into ``out[first + side]`` each side's match-score change for the finished hand
    (rulings 4, 5 and V-K2, V-K18; variants 11.20-11.25): the declaring side by its contract, every
    other side separately; in Lost Heir a failed contract scores 0 and the dealer's side adds a
    sale's value (V-K15, V-K16). ``out`` may be the state itself (its LAST_DELTA block): a slot
    offset rather than a slice, because a view of the state costs a reference count per hand."""
    declarer_team = side_of(s, s[DECLARER])
    bid = s[HIGH_BID]
    value = bid // 3
    for side in range(s[NUM_SIDES]):
        out[first + side] = 0
    sign = 1 if made_contract(s) else -1
    if bid == KAISER_RANK:  # the game is won or lost on it (V-K26): the other team scores nothing
        out[first + declarer_team] = sign * s[TARGET]
        return
    if bid == KAISER_40_RANK:
        out[first + declarer_team] = sign * KAISER_40_POINTS
    elif sign < 0 and FAILED_CONTRACT_SCORES_NOTHING[s[FORM]]:
        out[first + declarer_team] = 0
    elif sign < 0:
        out[first + declarer_team] = -(2 if is_no_trump(bid) else 1) * value
    else:
        taken = s[HAND_POINTS + declarer_team]
        out[first + declarer_team] = (2 if is_no_trump(bid) else 1) * (value if s[NO_OVERTRICKS] else taken)
    no_limit = s[MUST_BID_TO_WIN] or FORM_HAS_NO_LIMIT[s[FORM]]  # 11.22, the Les Rois (V-K1)
    for other_team in range(s[NUM_SIDES]):
        if other_team == declarer_team:
            continue
        other_points = s[HAND_POINTS + other_team]
        if (no_limit or s[MATCH_SCORE + other_team] < s[LIMIT_IN_FORCE] or other_points < 0
                or (s[FIVE_HEARTS_BREAKS_LIMIT] and s[FIVE_HEARTS_TEAM] == other_team)):
            out[first + other_team] = other_points
    if sold(s):
        out[first + side_of(s, s[DEALER])] += value


@borrowing_kernel
def _score_hand(s):
    if s[THREE_SPADES_NEEDS_THREE_TRICKS]:
        for team in range(s[NUM_SIDES]):
            s[HAND_POINTS + team] = three_spades_needs_three_tricks_points(s, team)
    write_hand_deltas(s, s, LAST_DELTA)
    for team in range(s[NUM_SIDES]):
        s[MATCH_SCORE + team] += s[LAST_DELTA + team]
    s[HAND_NUMBER] += 1
    s[HANDS_SCORED] += 1
    if s[MATCH]:
        _after_match_hand(s)
    else:
        s[PHASE] = GAME_OVER


@borrowing_kernel
def _after_match_hand(s):
    """A match goes on after a scored hand unless a side won (ruling V-K3) or it ran too long."""
    made = made_contract(s)
    if not made:
        s[POT_PAYMENTS + side_of(s, s[DECLARER])] += 1
    if made and is_no_trump(s[HIGH_BID]) and s[TARGET_AFTER_NO_TRUMP] > 0:  # 11.15, 11.21
        s[TARGET_IN_FORCE] = s[TARGET_AFTER_NO_TRUMP]
        if s[LIMIT_AFTER_NO_TRUMP] > 0:
            s[LIMIT_IN_FORCE] = s[LIMIT_AFTER_NO_TRUMP]
    s[WINNER] = match_winner(s, made)
    if s[WINNER] < 0 and s[HAND_NUMBER] >= s[MAX_HANDS]:
        s[WINNER] = DRAWN
    if s[WINNER] >= 0:
        s[PHASE] = GAME_OVER
    else:
        start_hand(s, seat_after(s[DEALER], 1, s[NUM_PLAYERS]))


@borrowing_kernel
def _leading_team(s, candidates):
    """The candidate side (bit t of ``candidates``) with the highest score; a tie goes to the
    side of the seat nearest ``dealer + 1`` in turn order (ruling V-K3)."""
    best = -1
    players = s[NUM_PLAYERS]
    for k in range(players):
        team = side_of(s, (s[DEALER] + 1 + k) % players)
        if (candidates >> team) & 1 and (best < 0 or s[MATCH_SCORE + team] > s[MATCH_SCORE + best]):
            best = team
    return best


@borrowing_kernel
def match_winner(s, made):
    """The end check after a scored hand (ruling V-K3): the winning side, or -1 to play on."""
    target = s[TARGET_IN_FORCE]
    declarer_team = side_of(s, s[DECLARER])
    sides = s[NUM_SIDES]
    every_side = (1 << sides) - 1
    if s[HIGH_BID] == KAISER_RANK:  # won or lost on the Kaiser bid
        return declarer_team if made else 1 - declarer_team
    reached = 0
    if s[MUST_BID_TO_WIN]:
        if made and s[MATCH_SCORE + declarer_team] >= target:
            reached = 1 << declarer_team
    else:
        for team in range(sides):
            if s[MATCH_SCORE + team] >= target:
                reached |= 1 << team
    if (reached >> declarer_team) & 1:
        return declarer_team  # ruling 7: the bidding team wins
    if reached:
        return _leading_team(s, reached)
    if s[MINUS_TARGET_LOSES]:
        above = 0
        for team in range(sides):
            if s[MATCH_SCORE + team] > -target:
                above |= 1 << team
        if above != every_side:
            return _leading_team(s, above if above else every_side)
    return -1


@borrowing_kernel
def pot_stake(s):
    """11.36's stake per failed contract (stored as the bits of a float64)."""
    return s[POT:POT + 1].view(np.float64)[0]


@borrowing_kernel
def returns(s, out):
    """Per-seat returns (§0 "Sides"): hand mode, own side's delta minus the mean of the other
    sides'; match, +1 to the winning side and -1 / (m - 1) to every other, plus the pot."""
    players = s[NUM_PLAYERS]
    for seat in range(players):
        out[seat] = 0.0
    if s[PHASE] != GAME_OVER or s[WINNER] == DRAWN:  # unfinished, drawn or thrown in
        return
    others = float(s[NUM_SIDES] - 1)
    if s[MATCH]:
        # 11.36: the winners collect the pot, every side pays its own failures.
        stake = pot_stake(s)
        pot = 0
        for team in range(s[NUM_SIDES]):
            pot += s[POT_PAYMENTS + team]
        for seat in range(players):
            team = side_of(s, seat)
            won = team == s[WINNER]
            out[seat] = ((1.0 + stake * pot) if won else -1.0 / others) - stake * s[POT_PAYMENTS + team]
        return
    total = 0
    for team in range(s[NUM_SIDES]):
        total += s[LAST_DELTA + team]
    for seat in range(players):
        own = s[LAST_DELTA + side_of(s, seat)]
        out[seat] = own - (total - own) / others


@njit(cache=True)
def deal_at_random(s, stream):
    """Finish the deal in one go: the same distribution as drawing each chance node uniformly.

    A Fisher-Yates shuffle of the undealt cards, dealt in the contract's order;
    playouts use it because it skips one kernel step per card.
    """
    deal_shuffled(s, stream, np.empty(64, dtype=np.int64))


@borrowing_kernel
def deal_shuffled(s, stream, deck):
    """:func:`deal_at_random` with the caller's 64-slot scratch array (a playout loop allocates it
    once). The hands' cards go round the table seat by seat; the kitty or the piles after them
    through ``_deal_card``."""
    n = write_cards(undealt_cards(s), deck, 0)
    stream_position = stream[0]  # in a register for the shuffle, written back after it
    for i in range(n - 1, 0, -1):
        j, stream_position = below_from_position(stream_position, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    stream[0] = stream_position
    players = s[NUM_PLAYERS]
    hands_end = players * s[HAND_CARDS]
    dealt = s[CARDS_DEALT]
    to_hands = min(n, max(hands_end - dealt, 0))  # the shuffled deck's first cards go to hands
    first_seat = receiving_seat(s[DEALER], dealt, players)
    undealt = s[UNDEALT]
    for offset in range(players):  # record_deal's bookkeeping, one seat's cards in a register
        cards = np.int64(0)
        for k in range(offset, to_hands, players):  # round the table: every players-th card
            cards |= card_bit(deck[k])
        seat = seat_after(first_seat, offset, players)
        s[HANDS + seat] |= cards
        s[DEALT + seat] |= cards
        undealt &= ~cards
    s[UNDEALT] = undealt
    s[CARDS_DEALT] = dealt + to_hands
    if to_hands == n:
        _end_deal(s)
    for k in range(to_hands, n):
        _deal_card(s, deck[k])


@njit(cache=True)
def play_random_hands(template, num_hands, stream, results):
    """Play ``num_hands`` complete random games from ``template`` inside numba.

    ``results[i]`` receives seat 0's return, team 0 and team 1 hand points,
    the declarer and the winning bid rank (3 * value + kind, -1 if thrown in).
    Returns the total number of actions applied, chance included.
    """
    return _play_random_hands(template, num_hands, stream, results, template.copy(),
                              np.empty(MAX_LEGAL_ACTIONS, dtype=np.int64), np.empty(64, dtype=np.int64),
                              np.empty(MAX_SEATS, dtype=np.float64))


@borrowing_kernel
def _play_random_hands(template, num_hands, stream, results, s, legal, deck, seat_returns):
    """:func:`play_random_hands` in the state ``s`` with the scratch arrays it allocated."""
    steps = 0
    for i in range(num_hands):
        copy_state(s, template)
        while s[PHASE] != GAME_OVER:
            phase = s[PHASE]
            if phase == PLAYING and s[PLAIN_TRICKS]:  # the hot path: the hand's tricks in one go
                steps += play_plain_tricks_randomly(s, stream)
            elif phase == PLAYING:  # no listing, no dispatch
                _play_card(s, draw_card(playable_cards(s, s[TO_MOVE]), stream))
                steps += 1
            elif phase == DEALING:
                steps += cards_to_deal(s) - s[CARDS_DEALT]
                deal_shuffled(s, stream, deck)
            elif phase == BIDDING:  # what apply_action would call, without its dispatch
                _bid(s, random_bid(s, stream, legal))
                steps += 1
            else:
                apply_action(s, random_action(s, stream, legal))
                steps += 1
        returns(s, seat_returns)
        results[i, 0] = seat_returns[0]
        results[i, 1] = s[HAND_POINTS]
        results[i, 2] = s[HAND_POINTS + 1]
        results[i, 3] = s[DECLARER]
        results[i, 4] = s[HIGH_BID] if s[WINNER] != DRAWN else -1
    return steps
