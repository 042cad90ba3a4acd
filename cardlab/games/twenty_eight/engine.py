"""Twenty-Eight as pure array transitions, compiled with numba.

The whole game state is one ``int64`` array of ``STATE_SIZE`` slots whose
layout is the constants below (hands and card sets are bitmasks), starting
with the header every engine shares (:mod:`cardlab.core.layout`), exactly as
in :mod:`cardlab.games.kaiser.engine`: states copy with ``state.copy()``,
batch as rows of a 2-D array and cross process boundaries as bytes. The
hidden-hand sampler is :mod:`cardlab.games.twenty_eight.sampling`.

The flow of one hand (the numbered rulings are those of docs/rules/twenty_eight.md):

* ``DEALING`` stage 1: 16 chance nodes, 4 cards each (ruling 1).
* ``BIDDING``: first round on four cards (ruling 1); ``REDEAL`` ends the game.
* ``PLACING``: the bidder lays one card face down as the trump indicator
  (ruling 2); the card leaves his hand until it is shown.
* ``DEALING`` stage 2: 16 more chance nodes; four jacks in one hand void it
  (ruling 3).
* ``RAISING``: bidder, then partner, may raise to 24+ (ruling 4); a partner's
  raise sends the game back to ``PLACING`` for the new bidder.
* ``PLAYING``: phase 1 while the trump is hidden (ruling 5), phase 2 once it is
  shown (ruling 6); ruling 7 voids the hand at the show if the bidding team
  was dealt every trump; ruling 8 scores it.

Three and six players (docs/variants.md 3.3) change the deck, the deal, the
sides and the trick size, read from the parameter slots: three players deal
two stages of four and have the bidder's second-round node only; six deal all
36 cards in one stage before the first round and have no second round (the
bidder's indicator goes straight to play). Sides are :func:`side_of`.

Kernels do not validate their input; the checked entry points for Python
callers are :class:`cardlab.core.engine.Engine` and the OpenSpiel wrapper in
:mod:`cardlab.games.twenty_eight.game`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, nth_card, popcount, write_cards
from cardlab.core.cards import NUM_SUITS, SUIT_MASKS, suit_of
from cardlab.core.dealing import draw_card, receiving_seat
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
from cardlab.core.rng import random_below, random_choice_below
from cardlab.core.tricks import beats, card_class, trick_winner, void_shown
from cardlab.games.twenty_eight.rules import (
    ACCEPT,
    BID,
    CALL_TRUMP,
    CARD_POINTS,
    COT_FACTOR,
    GAME_POINT_BANDS,
    HAND_SIZE,
    JACKS,
    MAX_BID,
    MAX_CARDS_PLAYED,
    MAX_PLAYERS,
    MAX_SIDES,
    MAX_TRICKS,
    MIN_BID,
    NUM_STAGES,
    PARTNER_OVERCALL_MIN,
    PASS,
    PLAY_ON,
    PLAYER_COUNT_TABLE,
    POINT_CARDS,
    REDEAL,
    SECOND_ROUND_MIN,
    SHOW_POINTLESS,
    SMALL_DECK_POINTS,
    SMALL_DECKS,
    STRENGTH,
    SURRENDER,
    THANI,
    THANI_FAILED,
    THANI_MADE,
    TOTAL_CARD_POINTS,
    scaled_bid,
)

# ---- Phases (the header's convention: 0 deals, the last ends the game) ----------
BIDDING, PLACING, RAISING, PLAYING, GAME_OVER = 1, 2, 3, 4, 5  # DEALING (0): both deal stages
PHASE_NAMES = ("dealing", "bidding", "placing the trump", "raising", "playing", "game over")
NUM_PHASES = 6

# How the hand ended (OUTCOME slot).
PLAYED_OUT, REDEALT, FOUR_JACKS, ALL_TRUMPS = 0, 1, 2, 3
OUTCOME_NAMES = (
    "played out",
    "redeal by the first bidder (void hand)",
    "four jacks in one hand (void hand)",
    "the bidding side held every trump (void hand)",
    "a pointless hand was shown (void hand)",
)
POINTLESS_SHOWN = 4  # pointless_hand_redeal (13.2)

# Cot nodes before a trick (COT_NODE) and early ends that fix the game points (SPECIAL_END).
OFFER_PENDING, ANSWER_PENDING = 1, 2
END_SURRENDERED, END_COT_FAILED, END_THANI_LOST = 1, 2, 3
SPECIAL_END_NAMES = ("", "the opponents surrendered (cot accepted)",
                     "the bidding side lost a trick after playing on (cot)",
                     "the bidder lost a trick (Thani)")

NO_CARD = -1
NO_SEAT = -1

# 17 bids (12..28), at most 4 passes between two bids, 5 at the end (six players): 86.
MAX_FIRST_ROUND = 86

# ---- State layout ---------------------------------------------------------------
# Slots 0-13: the header every engine shares (cardlab.core.layout): PHASE, TO_MOVE,
# DEALER, NUM_PLAYERS, CARDS_DEALT, DECK, UNDEALT, GAME_OVER_PHASE and DEALT (6 slots:
# every card dealt to the seat; the indicator counts as the bidder's). Blocks "per seat"
# have MAX_PLAYERS slots and "per side" MAX_SIDES; a game of N players uses the first N.
_slot = Slots(DEALT + MAX_PLAYERS)  # the first slot after the header
HANDS = _slot(MAX_PLAYERS)  # the cards each seat holds (the hidden indicator is in nobody's hand)
# Parameters (fixed for the game): NUM_PARAMETERS slots from PARAMETERS.
FIRST_DEALER = _slot()
OPENING_MIN = _slot()  # the smallest opening bid (14 with four players, 12 with three or six)
JACK_RESTRICTION = _slot()  # 1: jack_discard_restriction (13.1)
POINTLESS_REDEAL = _slot()  # 1: pointless_hand_redeal (13.2)
COT = _slot()  # 1: cot (13.3)
THANI_ALLOWED = _slot()  # 1: thani (13.5)
STAGE_CARDS = _slot()  # chance nodes per deal stage: 16 (four players), 12 (three), 36 (six)
DEAL_CARDS = _slot()  # chance nodes of the whole deal: 32, 24, 36
HAND_TRICKS = _slot()  # tricks of the hand: 8, 8, 6
PARAMETERS, NUM_PARAMETERS = FIRST_DEALER, HAND_TRICKS + 1 - FIRST_DEALER
# The hand being played.
FIRST_FOUR = _slot(MAX_PLAYERS)  # the cards each seat received in deal stage 1 (six players: all)
PLAYED_BY = _slot(MAX_PLAYERS)  # the cards each seat has played this hand
HIGH_BID = _slot()  # value of the highest bid, -1 before any
HIGH_BIDDER = _slot()
PASSES_IN_ROW = _slot()  # consecutive passes since the last bid (first round)
NUM_BIDS = _slot()  # first-round actions so far
BID_HISTORY = _slot(MAX_FIRST_ROUND)  # first-round actions in order (seat = dealer + 1 + i)
RAISES = _slot(2)  # the second-round actions of bidder and partner, -1 before
FIRST_BIDDER = _slot()  # who won the first round (placed the first indicator)
BIDDER = _slot()  # the bidder now (the partner after a partner's raise)
INDICATOR = _slot()  # the face-down card, -1 before it is placed
OLD_INDICATOR = _slot()  # the first bidder's indicator after a partner's raise, else -1
TRUMP = _slot()  # suit of the indicator (hidden from the others until shown), -1 before
TRUMP_SHOWN = _slot()
SHOWN_IN_TRICK = _slot()  # trick number of the show, -1 before
CALLER = _slot()  # seat whose action 53 showed the trump (-1: shown by playing it)
MUST_PLAY_TRUMP = _slot()  # seat that just called and must now play a trump if it holds one
TRICK_NUMBER = _slot()  # 0.., HAND_TRICKS when the hand is over
TRICK_LEADER = _slot()
TRICK_SIZE = _slot()
TRICK = _slot(MAX_PLAYERS)  # cards of the current trick in play order
TRUMPS_FROM = _slot()  # position from which trump-suit cards are trumps in the current trick
CARD_POINTS_WON = _slot(MAX_SIDES)  # per side
TRICKS_WON = _slot(MAX_SIDES)  # per side
PLAYED = _slot()  # mask of cards played this hand
VOIDS = _slot(MAX_PLAYERS)  # per seat: bit s set when its hand showed out of suit s
BIDDER_DISCARDS = _slot()  # suits the bidder played without following, trump hidden
BIDDER_HIDDEN_LEADS = _slot(NUM_SUITS)  # per suit: first trick the bidder led it while hidden
OUTCOME = _slot()
GAME_POINTS = _slot(MAX_SIDES)  # per side: G for the bidding side, -G for every other side
TRICK_HISTORY = _slot(MAX_CARDS_PLAYED)  # every card of the hand in play order (N a trick)
TRICK_LEADERS = _slot(MAX_TRICKS)
TRICK_WINNERS = _slot(MAX_TRICKS)
TRICK_TRUMPS_FROM = _slot(MAX_TRICKS)  # each finished trick's ``trumps_from``
# Variant bookkeeping (docs/variants.md; all zero in the standard game).
LED_SUITS = _slot()  # suits led in a trick of this hand (jack_discard_restriction)
NO_HOLD = _slot(MAX_PLAYERS)  # per seat: cards it cannot hold, proven by a forced jack discard
SHOW_NODES = _slot()  # pointless-show nodes taken so far (pointless_hand_redeal)
COT_NODE = _slot()  # 0: none pending; OFFER_PENDING or ANSWER_PENDING before a trick
COT_PLAYED_ON = _slot()  # trick number + 1 at which the bidder played on, 0 if he has not
THANI_DECLARED = _slot()
SPECIAL_END = _slot()  # how the bidding side's game points were fixed early (END_* below)
# The small games (cardlab's research parameters, docs/rules/twenty_eight.md#small-games):
# the bid ladder of the pack in play, 28 card points but in a small game.
TOP_BID = _slot()  # parameter: the highest bid, MAX_BID (28) but in a small game
OVERCALL_MIN = _slot()  # the least overcall of one's partner, PARTNER_OVERCALL_MIN scaled (ruling 1)
RAISE_MIN = _slot()  # the least second-round raise, SECOND_ROUND_MIN scaled (ruling 4)
DECK_POINTS = _slot()  # the card points of the pack: 28 but in a small game
STATE_SIZE = _slot.size

#: Every parameter slot: the block from PARAMETERS, then the appended ones (the information-state
#: key's seed folds them all: cardlab.games.kernels.game_parameters).
PARAMETER_SLOTS = np.array([*range(PARAMETERS, PARAMETERS + NUM_PARAMETERS), TOP_BID, OVERCALL_MIN,
                            RAISE_MIN, DECK_POINTS], dtype=np.int64)

MAX_LEGAL_ACTIONS = 36  # a full deck of chance outcomes is the largest set (six players: 36)


@njit(cache=True, inline="always")
def side_of(s, seat):
    """The side ``seat`` scores with (docs/variants.md 3.3, V-T3).

    Four players: the contract's teams by parity; six: three teams of two,
    seat mod 3 (partner opposite, seat + 3); three: every seat its own side
    (the bidder plays alone against the other two).
    """
    return side_at_table(s[NUM_PLAYERS], seat)


@njit(cache=True, inline="always")
def side_at_table(num_players, seat):
    """:func:`side_of` from the table's size (kernels that keep it in a local)."""
    if num_players == 4:
        return seat & 1
    return seat % 3 if num_players == 6 else seat


@njit(cache=True)
def partner_of(s, seat):
    """The seat opposite (four or six players; a three-player seat has none and gets itself)."""
    n = s[NUM_PLAYERS]
    return seat if n == 3 else seat_after(seat, n // 2, n)


@njit(cache=True)
def same_camp(s, seat, other):
    """In play: are both seats of the bidding side, or both against it?

    Every seat not on the bidding side gets the same return (V-T3), so in play
    the table is two camps, whatever the number of sides.
    """
    bidding_side = side_of(s, s[BIDDER])
    return (side_of(s, seat) == bidding_side) == (side_of(s, other) == bidding_side)


@njit(cache=True)
def num_sides(s):
    return 2 if s[NUM_PLAYERS] == 4 else 3


@njit(cache=True)
def no_trumps_in_trick(s):
    """``trumps_from`` past the last position of a trick: no card is a trump."""
    return s[NUM_PLAYERS]


@njit(cache=True)
def new_state(dealer, jack_restriction=0, pointless_redeal=0, cot=0, thani=0, players=4,
              hand_size=HAND_SIZE, bidding_rounds=NUM_STAGES, top_bid=MAX_BID):
    """The state before the first card is dealt (variant switches 0 or 1: docs/variants.md).

    ``hand_size``, ``bidding_rounds`` and ``top_bid`` make a four-seat small game
    (docs/rules/twenty_eight.md#small-games): its pack, its deal in one or two stages
    and its bid thresholds scaled to the pack's card points; the defaults, the standard game.
    """
    s = empty_state(STATE_SIZE, players, GAME_OVER)
    for row in range(PLAYER_COUNT_TABLE.shape[0]):
        if PLAYER_COUNT_TABLE[row, 0] == players:
            s[DECK] = PLAYER_COUNT_TABLE[row, 1]
            s[STAGE_CARDS] = PLAYER_COUNT_TABLE[row, 2]
            s[DEAL_CARDS] = PLAYER_COUNT_TABLE[row, 2] * PLAYER_COUNT_TABLE[row, 3]
            s[OPENING_MIN] = PLAYER_COUNT_TABLE[row, 4]
    s[DECK_POINTS] = TOTAL_CARD_POINTS
    if players == 4 and (hand_size != HAND_SIZE or bidding_rounds != NUM_STAGES):
        s[DECK] = SMALL_DECKS[hand_size]
        s[DEAL_CARDS] = players * hand_size
        s[STAGE_CARDS] = s[DEAL_CARDS] // bidding_rounds
        s[DECK_POINTS] = SMALL_DECK_POINTS[hand_size]
        s[OPENING_MIN] = scaled_bid(MIN_BID, s[DECK_POINTS])
    s[OVERCALL_MIN] = scaled_bid(PARTNER_OVERCALL_MIN, s[DECK_POINTS])
    s[RAISE_MIN] = scaled_bid(SECOND_ROUND_MIN, s[DECK_POINTS])
    s[TOP_BID] = top_bid
    s[HAND_TRICKS] = s[DEAL_CARDS] // players
    s[FIRST_DEALER] = dealer
    s[JACK_RESTRICTION] = jack_restriction
    s[POINTLESS_REDEAL] = pointless_redeal
    s[COT] = cot
    s[THANI_ALLOWED] = thani
    start_deal(s, dealer)
    s[HIGH_BID] = -1
    s[HIGH_BIDDER] = NO_SEAT
    s[BID_HISTORY:BID_HISTORY + MAX_FIRST_ROUND] = -1
    s[RAISES] = s[RAISES + 1] = -1
    s[FIRST_BIDDER] = s[BIDDER] = NO_SEAT
    s[INDICATOR] = s[OLD_INDICATOR] = NO_CARD
    s[TRUMP] = -1
    s[SHOWN_IN_TRICK] = -1
    s[CALLER] = s[MUST_PLAY_TRUMP] = NO_SEAT
    s[TRICK_LEADER] = seat_after(dealer, 1, players)
    s[TRICK:TRICK + MAX_PLAYERS] = NO_CARD
    s[TRUMPS_FROM] = no_trumps_in_trick(s)
    s[BIDDER_HIDDEN_LEADS:BIDDER_HIDDEN_LEADS + 4] = -1
    s[OUTCOME] = PLAYED_OUT
    s[TRICK_HISTORY:TRICK_HISTORY + MAX_CARDS_PLAYED] = NO_CARD
    s[TRICK_LEADERS:TRICK_LEADERS + MAX_TRICKS] = NO_SEAT
    s[TRICK_WINNERS:TRICK_WINNERS + MAX_TRICKS] = NO_SEAT
    s[TRICK_TRUMPS_FROM:TRICK_TRUMPS_FROM + MAX_TRICKS] = -1
    return s


@njit(cache=True)
def has_variants(s):
    """Is any rule variant of docs/variants.md switched on in this game?"""
    return s[JACK_RESTRICTION] + s[POINTLESS_REDEAL] + s[COT] + s[THANI_ALLOWED] > 0


@njit(cache=True)
def may_redeal(s, seat):
    """Ruling 1: only the opening bidder, at his first turn, with no J, 9, A or 10."""
    return opening_choice(s[NUM_BIDS], s[FIRST_FOUR + seat]) == REDEAL


@njit(cache=True)
def lowest_first_round_bid(s, seat):
    """Smallest bid ``seat`` may make now in the first round (above TOP_BID: none)."""
    return lowest_bid(s[HIGH_BID], s[HIGH_BIDDER], seat, s[NUM_PLAYERS], s[OPENING_MIN],
                      s[OVERCALL_MIN])


@njit(cache=True, inline="always")
def lowest_bid(high_bid, high_bidder, seat, num_players, opening_min, overcall_min):
    """:func:`lowest_first_round_bid` from the values it reads (scalars: free to ask in a loop)."""
    if high_bid < 0:
        return opening_min
    lowest = high_bid + 1
    if high_bidder != seat and side_at_table(num_players, high_bidder) == side_at_table(num_players, seat):
        lowest = max(lowest, overcall_min)  # no overcall of partner below 20
    return lowest


@njit(cache=True, inline="always")
def opening_choice(num_bids, first_four):
    """The first-round action listed before the bids: PASS once someone has bid, the opener's
    REDEAL on four pointless cards (ruling 1: he may not pass), else none (-1)."""
    if num_bids > 0:
        return PASS
    return REDEAL if first_four & POINT_CARDS == 0 else -1


@njit(cache=True, inline="always")
def trump_hidden(s):
    """The indicator is face down: trumps do not count yet (inlined: the solver's code for every game
    reads it, and a Kaiser solve must not compile Twenty-Eight's kernels)."""
    return s[INDICATOR] >= 0 and s[TRUMP_SHOWN] == 0


@njit(cache=True)
def led_suit(s):
    """Suit of the current trick's first card, -1 when the player to move leads."""
    return suit_of(s[TRICK]) if s[TRICK_SIZE] > 0 else -1


@njit(cache=True)
def play_choices(s, seat):
    """``(cards, may_call)``: the cards ``seat`` may play now and whether 53 is legal.

    This is the whole of rulings 5 and 6 for the player to move, and of the
    jack restriction (13.1) when it is on.
    """
    cards, may_call = contract_play_choices(s, seat)
    if s[JACK_RESTRICTION] == 1:
        cards &= ~barred_jacks(s, cards)
    return cards, may_call


@njit(cache=True)
def unled_jacks(s):
    """The jacks of the suits no trick of this hand has been led in (the current one counts)."""
    led = s[LED_SUITS]
    if s[TRICK_SIZE] > 0:
        led |= 1 << suit_of(s[TRICK])
    jacks = np.int64(0)
    for suit in range(4):
        if (led >> suit) & 1 == 0:
            jacks |= JACKS & SUIT_MASKS[suit]
    return jacks


@njit(cache=True)
def barred_jacks(s, cards):
    """13.1 (V-T4): the jacks of ``cards`` a player who does not follow may not play.

    None when he leads or follows suit, and none when such jacks are all he
    could play (a legal card is always left).
    """
    led = led_suit(s)
    if led < 0 or cards & SUIT_MASKS[led] != 0:
        return np.int64(0)
    barred = cards & unled_jacks(s)
    return barred if barred != cards else np.int64(0)


@njit(cache=True, inline="always")
def contract_play_choices(s, seat):
    """``(cards, may_call)`` under rulings 5 and 6 alone (no variant restriction)."""
    return card_choices(s[HANDS + seat], led_suit(s), s[TRUMP], s[TRUMP_SHOWN], seat == s[BIDDER],
                        s[MUST_PLAY_TRUMP] == seat, s[INDICATOR])


@njit(cache=True, inline="always")
def card_choices(hand, led, trump, trump_shown, is_bidder, must_play_trump, indicator):
    """:func:`contract_play_choices` from the values it reads: the seat's ``hand``, the ``led``
    suit (-1: he leads), the ``trump`` suit and whether it is shown, whether he is the bidder
    or the caller who ``must_play_trump``, the ``indicator``. Scalars only, so a kernel that
    keeps them in locals pays nothing to ask (an array argument costs reference counting)."""
    if must_play_trump:
        # Ruling 5: after calling or showing, play a trump if you hold one.
        trumps = hand & SUIT_MASKS[trump]
        return (trumps if trumps != 0 else hand), False
    if trump_shown == 1:
        # Ruling 6: follow suit if possible, otherwise any card; no restrictions remain.
        if led < 0:
            return hand, False
        same = hand & SUIT_MASKS[led]
        return (same if same != 0 else hand), False
    if is_bidder:
        if hand == 0:
            # Ruling 5: the bidder's last card is the indicator; it is shown as it is played.
            return card_bit(indicator), False
        others = hand & ~SUIT_MASKS[trump]
        if led < 0:
            # Ruling 5: no trump-suit lead while anything else is held; no show when leading.
            return (others if others != 0 else hand), False
        same = hand & SUIT_MASKS[led]
        if same != 0:
            return same, False
        if led != trump:
            # Ruling 5: a non-trump card, or show and play a trump; all trumps: show only.
            return others, True
        # Ruling 5: trump led, no trump in hand: any card, or show and play the indicator.
        return hand, True
    if led < 0:
        return hand, False
    same = hand & SUIT_MASKS[led]
    if same != 0:
        return same, False
    # Ruling 5: a non-bidder who cannot follow may play any card or call first.
    return hand, True


@njit(cache=True, inline="always")
def bidding_choices(s):
    """``(first, lowest)`` of a bidding node: the action listed before the bids (PASS, REDEAL,
    or -1 for none) and the lowest bid value (the bids run up to TOP_BID).

    Second round: PASS and the raises (a pointless-show node lists PASS and
    SHOW_POINTLESS only, a Thani declaration comes between: :func:`legal_actions`).
    """
    seat = s[TO_MOVE]
    if s[PHASE] == RAISING:
        return PASS, lowest_raise(s[RAISE_MIN], s[HIGH_BID])
    return opening_choice(s[NUM_BIDS], s[FIRST_FOUR + seat]), lowest_first_round_bid(s, seat)


@njit(cache=True, inline="always")
def may_declare_thani(s):
    """13.5: the bidder's first second-round node offers the Thani."""
    return thani_offered(s[THANI_ALLOWED], s[TO_MOVE], s[BIDDER], s[RAISES])


@njit(cache=True, inline="always")
def thani_offered(thani_allowed, seat, bidder, bidder_raise):
    """:func:`may_declare_thani` from the values it reads (scalars)."""
    return thani_allowed == 1 and seat == bidder and bidder_raise < 0


@njit(cache=True, inline="always")
def lowest_raise(raise_min, high_bid):
    """Ruling 4: the smallest second-round raise (above TOP_BID: none)."""
    return max(raise_min, high_bid + 1)


@njit(cache=True)
def raise_randomly(s, stream):
    """The second round's nodes with uniformly random moves (PASS, a Thani, a raise) while
    there are any: the state and the stream end as :func:`random_action` and
    :func:`apply_action` in turn leave them. Stops at a pointless-show node, at a new
    placing (a partner's raise) and at the play. Returns the actions taken."""
    n = s[NUM_PLAYERS]
    top = s[TOP_BID]
    actions = 0
    while s[PHASE] == RAISING and not (s[POINTLESS_REDEAL] == 1 and s[SHOW_NODES] < n):
        lowest = lowest_raise(s[RAISE_MIN], s[HIGH_BID])
        listed = 1  # PASS, then the Thani if offered, then the raises (legal_actions' order)
        if thani_offered(s[THANI_ALLOWED], s[TO_MOVE], s[BIDDER], s[RAISES]):
            listed = 2
        k = random_below(stream, listed + max(top + 1 - lowest, 0))
        _second_round(s, PASS if k == 0 else (THANI if k < listed else BID + lowest + k - listed))
        actions += 1
    return actions


@njit(cache=True)
def legal_actions(s, out):
    """Write the legal actions in ascending order into ``out``; return how many."""
    phase = s[PHASE]
    n = 0
    if phase == DEALING:
        n = write_cards(undealt_cards(s), out, 0)
    elif phase == BIDDING or phase == RAISING:
        first, lowest = bidding_choices(s)
        if first >= 0:
            out[n] = first
            n += 1
        if phase == RAISING and showing_pending(s):
            if pointless_hand(s, s[TO_MOVE]):
                out[n] = SHOW_POINTLESS
                n += 1
            return n
        if phase == RAISING and may_declare_thani(s):
            out[n] = THANI
            n += 1
        for value in range(lowest, s[TOP_BID] + 1):
            out[n] = BID + value
            n += 1
    elif phase == PLACING:
        n = write_cards(s[HANDS + s[BIDDER]], out, 0)
    elif phase == PLAYING:
        if s[COT_NODE] == OFFER_PENDING:
            out[0], out[1] = PASS, SURRENDER
            return 2
        if s[COT_NODE] == ANSWER_PENDING:
            out[0], out[1] = ACCEPT, PLAY_ON
            return 2
        cards, may_call = play_choices(s, s[TO_MOVE])
        n = write_cards(cards, out, 0)
        if may_call:
            out[n] = CALL_TRUMP
            n += 1
    return n


@njit(cache=True)
def random_action(s, stream, legal):
    """A uniformly random legal action: the draw of ``legal[random_below(stream, n)]`` after
    :func:`legal_actions`, straight from the card masks where the actions are cards (and the
    call, 53, after them)."""
    phase = s[PHASE]
    if phase == DEALING:
        return draw_card(undealt_cards(s), stream)
    if phase == PLAYING and s[COT_NODE] == 0:
        cards, may_call = play_choices(s, s[TO_MOVE])
        count = popcount(cards)
        k = random_choice_below(stream, count + may_call)
        return CALL_TRUMP if k == count else nth_card(cards, k)
    if phase == PLACING:
        hand = s[HANDS + s[BIDDER]]
        return nth_card(hand, random_below(stream, popcount(hand)))
    if phase == BIDDING or (phase == RAISING and not showing_pending(s)):
        first, lowest = bidding_choices(s)
        listed = 0 if first < 0 else 1  # the actions before the bids
        if phase == RAISING and may_declare_thani(s):
            listed += 1
        k = random_below(stream, listed + max(s[TOP_BID] + 1 - lowest, 0))
        if k >= listed:
            return BID + lowest + k - listed
        return first if k == 0 and first >= 0 else THANI
    n = legal_actions(s, legal)
    return legal[random_below(stream, n)]


@njit(cache=True)
def play_out_randomly(s, stream, legal):
    """Play ``s`` to its end with uniformly random moves, chance included: the moves of
    :func:`random_action` and :func:`apply_action` in turn (the deal and the play through
    :func:`deal_randomly` and :func:`play_cards_randomly`, which leave the same state and
    stream)."""
    while not is_terminal(s):
        if s[PHASE] == PLAYING and s[COT_NODE] == 0:
            play_cards_randomly(s, stream)
        elif s[PHASE] == DEALING:
            deal_randomly(s, stream)
        elif s[PHASE] == BIDDING:
            bid_randomly(s, stream)
        elif s[PHASE] == RAISING and not showing_pending(s):
            raise_randomly(s, stream)
        else:
            apply_action(s, random_action(s, stream, legal))


@njit(cache=True)
def play_cards_randomly(s, stream):
    """Play cards (and calls) uniformly at random until the play needs another kind of move.

    Stops at the end of the hand or at a cot node. The state and the stream end exactly as
    :func:`random_action` and :func:`apply_action` in turn would leave them (the same
    ``random_below`` draws, every slot the same). The hot loop reads the trick, the hands'
    owner, the trump and the cards played from locals and asks only scalar helpers (every
    kernel call with the state array costs an atomic reference count); what is rare (a call,
    the hidden bidder's records, a cot or Thani trick end, the score) goes through the
    step-by-step kernels themselves, and the jack restriction through
    :func:`play_cards_step_by_step`. Returns the moves made.

    Long on purpose: that loop is a single frame so the locals stay in registers (the random playouts'
    speed).
    """
    if s[JACK_RESTRICTION] == 1:
        return play_cards_step_by_step(s, stream)
    n = s[NUM_PLAYERS]
    bidder = s[BIDDER]
    trump = s[TRUMP]
    indicator = s[INDICATOR]
    variant_tricks = s[COT] + s[THANI_DECLARED] > 0
    last_trick = s[HAND_TRICKS] - 1
    moves = 0
    while s[PHASE] == PLAYING and s[COT_NODE] == 0:
        trick = s[TRICK_NUMBER]
        leader = s[TRICK_LEADER]
        position = s[TRICK_SIZE]
        seat = s[TO_MOVE]
        shown = s[TRUMP_SHOWN]
        trumps_from = s[TRUMPS_FROM]
        caller = s[MUST_PLAY_TRUMP]
        played = s[PLAYED]
        led = suit_of(s[TRICK]) if position > 0 else -1
        best = 0  # position of the card winning the trick so far
        best_class = best_strength = points = 0
        for earlier in range(position):  # a trick already begun (a search's world)
            card = s[TRICK + earlier]
            klass = card_class(card, earlier, led, trump, trumps_from)
            if earlier == 0 or beats(klass, STRENGTH[card], best_class, best_strength):
                best, best_class, best_strength = earlier, klass, STRENGTH[card]
            points += CARD_POINTS[card]
        while position < n:
            hand = s[HANDS + seat]
            cards, may_call = card_choices(hand, led, trump, shown, seat == bidder, caller == seat,
                                           indicator)
            count = popcount(cards)
            pick = random_choice_below(stream, count + may_call)
            moves += 1
            if pick == count:  # the call: the same seat then plays
                _show_trump(s, seat)
                if s[PHASE] == GAME_OVER:
                    return moves
                shown, trumps_from, caller = 1, position, seat
                continue
            card = nth_card(cards, pick)
            suit = suit_of(card)
            if shown == 0 and seat == bidder:
                _hidden_bidder_card(s, card, position)
                if s[PHASE] == GAME_OVER:
                    return moves
                shown, trumps_from, hand = s[TRUMP_SHOWN], s[TRUMPS_FROM], s[HANDS + seat]
            # What _play_card records, from the locals.
            s[VOIDS + seat] |= void_shown(position, suit, led)  # without a branch
            if caller == seat:
                if suit != trump:
                    s[VOIDS + seat] |= 1 << trump  # a caller who holds a trump must play one
                caller = NO_SEAT
                s[MUST_PLAY_TRUMP] = NO_SEAT
            bit = card_bit(card)
            s[HANDS + seat] = hand & ~bit
            played |= bit
            s[PLAYED] = played
            s[PLAYED_BY + seat] |= bit
            if position == 0:
                led = suit
                s[LED_SUITS] |= 1 << suit
            s[TRICK + position] = card
            s[TRICK_HISTORY + n * trick + position] = card
            klass = card_class(card, position, led, trump, trumps_from)
            strength = STRENGTH[card]
            takes = (position == 0) | beats(klass, strength, best_class, best_strength)
            best = position if takes else best  # selects, not a branch the CPU would mispredict
            best_class = klass if takes else best_class
            best_strength = strength if takes else best_strength
            points += CARD_POINTS[card]
            position += 1
            s[TRICK_SIZE] = position
            if position < n:
                seat = seat_after(seat, 1, n)
                s[TO_MOVE] = seat
        # What _play_card records at a trick's end, from the locals.
        winner = seat_after(leader, best, n)
        team = side_at_table(n, winner)
        for k in range(n):
            s[TRICK + k] = NO_CARD
        _record_trick(s, trick, leader, winner, team, points, trumps_from, shown, n)
        if variant_tricks:
            _after_variant_trick(s, winner, team)
        elif trick == last_trick:
            _score_hand(s)
    return moves


@njit(cache=True, inline="always")
def _record_trick(s, trick, leader, winner, team, points, trumps_from, shown, n):
    """What a finished trick leaves in the state: its points and count to the winner's team,
    its leader, winner and trump position in the record, the winner to lead the next. Shared
    by the card-by-card ``_play_card`` and the random play-out, which keeps the trick in locals."""
    s[CARD_POINTS_WON + team] += points
    s[TRICKS_WON + team] += 1
    s[TRICK_LEADERS + trick] = leader
    s[TRICK_WINNERS + trick] = winner
    s[TRICK_TRUMPS_FROM + trick] = trumps_from
    s[TRICK_NUMBER] = trick + 1
    s[TRICK_SIZE] = 0
    s[TRICK_LEADER] = winner
    s[TO_MOVE] = winner
    s[TRUMPS_FROM] = 0 if shown == 1 else n


@njit(cache=True)
def play_cards_step_by_step(s, stream):
    """:func:`play_cards_randomly` move by move, through :func:`play_choices` and the step
    kernels: the jack restriction's forced-jack proofs need the whole state at every card."""
    moves = 0
    while s[PHASE] == PLAYING and s[COT_NODE] == 0:
        moves += 1
        seat = s[TO_MOVE]
        cards, may_call = play_choices(s, seat)
        count = popcount(cards)
        pick = random_choice_below(stream, count + may_call)
        if pick == count:
            _show_trump(s, seat)
        else:
            _play_card(s, nth_card(cards, pick))
    return moves


@njit(cache=True)
def apply_action(s, action):
    """Apply a legal action (chance: the dealt card id)."""
    phase = s[PHASE]
    if phase == DEALING:
        _deal_card(s, action)
    elif phase == BIDDING:
        _first_round(s, action)
    elif phase == PLACING:
        _place_indicator(s, action)
    elif phase == RAISING:
        if showing_pending(s):
            _pointless_show(s, action)
        else:
            _second_round(s, action)
    elif s[COT_NODE] != 0:
        _cot_step(s, action)
    elif action == CALL_TRUMP:
        _show_trump(s, s[TO_MOVE])
    else:
        _play_card(s, action)


@njit(cache=True)
def advance(s, action, out):
    """Apply ``action`` (none if negative), then list the legal actions: one call per step.

    Returns ``(number of legal actions, current player)``, as the wrapper's
    :meth:`cardlab.core.engine.Engine.step` expects (why every engine writes
    these lines itself: :mod:`cardlab.core.layout`).
    """
    if action >= 0:
        apply_action(s, action)
    return legal_actions(s, out), current_player(s)


@njit(cache=True)
def _end_hand(s, outcome):
    s[OUTCOME] = outcome
    s[PHASE] = GAME_OVER


@njit(cache=True)
def _deal_card(s, card):
    n = s[NUM_PLAYERS]
    stage_cards = s[STAGE_CARDS]
    dealt = s[CARDS_DEALT]
    k = dealt - stage_cards if dealt >= stage_cards else dealt  # the deal has two stages at most
    seat = receiving_seat(s[DEALER], k, n)
    s[HANDS + seat] |= card_bit(card)
    if s[CARDS_DEALT] < stage_cards:
        s[FIRST_FOUR + seat] |= card_bit(card)
    record_deal(s, seat, card)
    _after_dealt_card(s)


@njit(cache=True, inline="always")
def _after_dealt_card(s):
    """The end of a deal stage, if ``CARDS_DEALT`` says it is: ruling 3's check, then the
    first or the second round."""
    n = s[NUM_PLAYERS]
    stage_cards = s[STAGE_CARDS]
    dealt = s[CARDS_DEALT]
    if dealt == s[DEAL_CARDS]:
        for other in range(n):  # ruling 3 (V-T2): four jacks in one hand void the deal
            if s[DEALT + other] & JACKS == JACKS:
                _end_hand(s, FOUR_JACKS)
                return
    if dealt == stage_cards:  # the first round (six players: on the whole deal)
        s[PHASE] = BIDDING
        s[TO_MOVE] = seat_after(s[DEALER], 1, n)
    elif dealt == s[DEAL_CARDS]:
        s[PHASE] = RAISING
        s[TO_MOVE] = s[BIDDER]
        if s[POINTLESS_REDEAL] == 1:
            s[TO_MOVE] = seat_after(s[DEALER], 1, n)  # 13.2: shows before the second round


@njit(cache=True)
def deal_randomly(s, stream):
    """Deal the rest of the stage with uniformly random cards: the state and the stream end as
    :func:`random_action` and :func:`apply_action` dealing card by card leave them.

    The undealt cards, their count and the receiving seat stay in locals, so each draw's
    division waits for no card; the slots are written per card only where a seat's cards go.
    Returns the cards dealt.
    """
    n = s[NUM_PLAYERS]
    stage_cards = s[STAGE_CARDS]
    dealt = s[CARDS_DEALT]
    first_stage = dealt < stage_cards
    end = stage_cards if first_stage else s[DEAL_CARDS]
    seat = receiving_seat(s[DEALER], dealt if first_stage else dealt - stage_cards, n)
    undealt = s[UNDEALT]
    remaining = popcount(undealt)  # counted down: the next draw's range is known before the card
    start = dealt
    while dealt < end:
        bit = card_bit(nth_card(undealt, random_below(stream, remaining)))
        remaining -= 1
        undealt &= ~bit
        s[HANDS + seat] |= bit
        s[DEALT + seat] |= bit
        if first_stage:
            s[FIRST_FOUR + seat] |= bit
        seat = seat_after(seat, 1, n)
        dealt += 1
    s[UNDEALT] = undealt
    s[CARDS_DEALT] = dealt
    _after_dealt_card(s)
    return dealt - start


@njit(cache=True)
def showing_pending(s):
    """13.2: is the step a seat's pointless-show node (before the second round)?"""
    return s[POINTLESS_REDEAL] == 1 and s[SHOW_NODES] < s[NUM_PLAYERS]


@njit(cache=True)
def pointless_hand(s, seat):
    """13.2: the seat's eight dealt cards (an indicator counted) hold no J, 9, A or 10."""
    return s[DEALT + seat] & POINT_CARDS == 0


@njit(cache=True)
def _pointless_show(s, action):
    """13.2 (V-T5): every seat in turn from dealer + 1 passes or shows; a show voids the hand."""
    if action == SHOW_POINTLESS:
        _end_hand(s, POINTLESS_SHOWN)
        return
    s[SHOW_NODES] += 1
    n = s[NUM_PLAYERS]
    s[TO_MOVE] = s[BIDDER] if s[SHOW_NODES] == n else seat_after(s[TO_MOVE], 1, n)


@njit(cache=True)
def _first_round(s, action):
    seat = s[TO_MOVE]
    if action == REDEAL:
        _end_hand(s, REDEALT)  # hand mode: a void hand
        return
    s[BID_HISTORY + s[NUM_BIDS]] = action
    s[NUM_BIDS] += 1
    if action == PASS:
        s[PASSES_IN_ROW] += 1
        if s[PASSES_IN_ROW] == s[NUM_PLAYERS] - 1:  # N - 1 passes after the last bid
            s[FIRST_BIDDER] = s[HIGH_BIDDER]
            s[BIDDER] = s[HIGH_BIDDER]
            s[PHASE] = PLACING
            s[TO_MOVE] = s[BIDDER]
            return
    else:
        s[HIGH_BID] = action - BID
        s[HIGH_BIDDER] = seat
        s[PASSES_IN_ROW] = 0
    s[TO_MOVE] = seat_after(seat, 1, s[NUM_PLAYERS])


@njit(cache=True)
def bid_randomly(s, stream):
    """The first round with uniformly random bids, from the seat to move to its end: the state
    and the stream end as :func:`random_action` and :func:`_first_round` in turn leave them.

    The bidding so far stays in locals (written back at the end); the choices come from the
    scalar helpers the listing uses. Returns the actions taken.
    """
    n = s[NUM_PLAYERS]
    top, opening_min, overcall_min = s[TOP_BID], s[OPENING_MIN], s[OVERCALL_MIN]
    seat, num_bids, passes = s[TO_MOVE], s[NUM_BIDS], s[PASSES_IN_ROW]
    high_bid, high_bidder = s[HIGH_BID], s[HIGH_BIDDER]
    start = num_bids
    while True:
        first = opening_choice(num_bids, s[FIRST_FOUR + seat])
        lowest = lowest_bid(high_bid, high_bidder, seat, n, opening_min, overcall_min)
        listed = 0 if first < 0 else 1
        k = random_below(stream, listed + max(top + 1 - lowest, 0))
        if k < listed and first == REDEAL:
            _end_hand(s, REDEALT)
            return 1
        action = first if k < listed else BID + lowest + k - listed
        s[BID_HISTORY + num_bids] = action
        num_bids += 1
        if action == PASS:
            passes += 1
            if passes == n - 1:  # N - 1 passes after the last bid
                break
        else:
            high_bid, high_bidder, passes = action - BID, seat, 0
        seat = seat_after(seat, 1, n)
    s[NUM_BIDS], s[PASSES_IN_ROW] = num_bids, passes
    s[HIGH_BID], s[HIGH_BIDDER] = high_bid, high_bidder
    s[FIRST_BIDDER] = s[BIDDER] = high_bidder
    s[PHASE] = PLACING
    s[TO_MOVE] = high_bidder
    return num_bids - start


@njit(cache=True)
def _place_indicator(s, card):
    bidder = s[BIDDER]
    s[INDICATOR] = card
    s[TRUMP] = suit_of(card)
    s[HANDS + bidder] &= ~card_bit(card)  # ruling 2: out of his hand until shown
    if s[CARDS_DEALT] < s[DEAL_CARDS]:
        s[PHASE] = DEALING
    else:
        _start_play(s)


@njit(cache=True)
def _second_round(s, action):
    seat = s[TO_MOVE]
    speaker = 0 if seat == s[BIDDER] else 1
    s[RAISES + speaker] = action
    if action == THANI:
        s[THANI_DECLARED] = 1  # 13.5: the partner does not speak; the bidder leads
        _start_play(s)
        return
    if action != PASS:
        s[HIGH_BID] = action - BID
        s[HIGH_BIDDER] = seat
    if speaker == 0:
        if s[NUM_PLAYERS] == 3:  # V-T1: the bidder's node only
            _start_play(s)
            return
        s[TO_MOVE] = partner_of(s, seat)
        return
    if action == PASS:
        _start_play(s)
        return
    # Ruling 4: the partner's raise stands; he becomes the bidder and places anew.
    old_bidder = s[BIDDER]
    s[HANDS + old_bidder] |= card_bit(s[INDICATOR])
    s[OLD_INDICATOR] = s[INDICATOR]
    s[INDICATOR] = NO_CARD
    s[TRUMP] = -1
    s[BIDDER] = seat
    s[PHASE] = PLACING
    s[TO_MOVE] = seat


@njit(cache=True)
def _start_play(s):
    s[PHASE] = PLAYING
    s[TRICK_LEADER] = seat_after(s[DEALER], 1, s[NUM_PLAYERS])  # ruling 5: dealer + 1 leads
    if s[THANI_DECLARED] == 1:
        s[TRICK_LEADER] = s[BIDDER]  # 13.5: the Thani bidder leads
    s[TO_MOVE] = s[TRICK_LEADER]
    s[TRUMPS_FROM] = no_trumps_in_trick(s)
    _offer_cot(s)


@njit(cache=True)
def _offer_cot(s):
    """13.3 (V-T6): before a trick, an opponent may offer to surrender while the bidding
    side has won every trick, nobody has played on and the hand is not a Thani."""
    if s[COT] == 0 or s[COT_PLAYED_ON] > 0 or s[THANI_DECLARED] == 1:
        return
    if s[TRICKS_WON + side_of(s, s[BIDDER])] != s[TRICK_NUMBER]:
        return
    s[COT_NODE] = OFFER_PENDING
    s[TO_MOVE] = seat_after(s[BIDDER], 1, s[NUM_PLAYERS])


@njit(cache=True)
def _cot_step(s, action):
    """13.3: the offer (56) or no offer (52), then the bidder's accept (57) or play on (58)."""
    if action == SURRENDER:
        s[COT_NODE] = ANSWER_PENDING
        s[TO_MOVE] = s[BIDDER]
        return
    s[COT_NODE] = 0
    if action == ACCEPT:
        _end_early(s, contract_game_points(s, True), END_SURRENDERED)
        return
    if action == PLAY_ON:
        s[COT_PLAYED_ON] = s[TRICK_NUMBER] + 1
    s[TO_MOVE] = s[TRICK_LEADER]


@njit(cache=True)
def bidding_team_held_all_trumps(s):
    """Ruling 7: was every card of the trump suit (8; 6 or 9 with three or six players) dealt
    to the bidding side?"""
    bidder = s[BIDDER]
    team_cards = s[DEALT + bidder] | s[DEALT + partner_of(s, bidder)]
    trumps = s[DECK] & SUIT_MASKS[s[TRUMP]]
    return team_cards & trumps == trumps


@njit(cache=True)
def _show_trump(s, caller):
    """Turn the indicator face up: it joins the bidder's hand; phase 2 starts now.

    ``caller`` is the seat whose action 53 showed it (it must then play a trump
    if it holds one), or -1 when the bidder shows it by playing it (ruling 5).
    """
    s[TRUMP_SHOWN] = 1
    s[SHOWN_IN_TRICK] = s[TRICK_NUMBER]
    s[CALLER] = caller
    s[TRUMPS_FROM] = s[TRICK_SIZE]
    s[HANDS + s[BIDDER]] |= card_bit(s[INDICATOR])
    if caller >= 0:
        s[MUST_PLAY_TRUMP] = caller
        # Only a player who cannot follow may call: his hand is void in the led suit.
        s[VOIDS + caller] |= 1 << led_suit(s)
    if bidding_team_held_all_trumps(s):
        _end_hand(s, ALL_TRUMPS)  # ruling 7


@njit(cache=True)
def _play_card(s, card):
    seat = s[TO_MOVE]
    position = s[TRICK_SIZE]
    if s[JACK_RESTRICTION] == 1 and position > 0:
        _note_forced_jack(s, seat, card)
    if s[TRUMP_SHOWN] == 0 and seat == s[BIDDER]:
        _hidden_bidder_card(s, card, position)
        if s[PHASE] == GAME_OVER:
            return
    # What every card records. One flat body, no kernel called with the state: each such call
    # costs an atomic reference count, as much as the rest of the card.
    n = s[NUM_PLAYERS]
    suit = suit_of(card)
    led = suit_of(s[TRICK]) if position > 0 else suit
    if suit != led:
        s[VOIDS + seat] |= 1 << led
    if s[MUST_PLAY_TRUMP] == seat:
        if suit != s[TRUMP]:
            s[VOIDS + seat] |= 1 << s[TRUMP]  # a caller who holds a trump must play one
        s[MUST_PLAY_TRUMP] = NO_SEAT
    bit = card_bit(card)
    s[HANDS + seat] &= ~bit
    s[PLAYED] |= bit
    s[PLAYED_BY + seat] |= bit
    if position == 0:
        s[LED_SUITS] |= 1 << suit
    s[TRICK + position] = card
    trick = s[TRICK_NUMBER]
    s[TRICK_HISTORY + n * trick + position] = card
    s[TRICK_SIZE] = position + 1
    if position + 1 < n:
        s[TO_MOVE] = seat_after(seat, 1, n)
        return
    # The trick is complete: its winner (trick_winner's comparison, card by card) takes it.
    trump, trumps_from = s[TRUMP], s[TRUMPS_FROM]
    best = best_class = best_strength = points = 0
    for k in range(n):
        played = s[TRICK + k]
        klass = card_class(played, k, led, trump, trumps_from)
        if k == 0 or beats(klass, STRENGTH[played], best_class, best_strength):
            best, best_class, best_strength = k, klass, STRENGTH[played]
        points += CARD_POINTS[played]
        s[TRICK + k] = NO_CARD
    leader = s[TRICK_LEADER]
    winner = seat_after(leader, best, n)
    team = side_at_table(n, winner)
    _record_trick(s, trick, leader, winner, team, points, trumps_from, s[TRUMP_SHOWN], n)
    if s[COT] + s[THANI_DECLARED] > 0:
        _after_variant_trick(s, winner, team)
    elif trick + 1 == s[HAND_TRICKS]:
        _score_hand(s)


@njit(cache=True)
def _hidden_bidder_card(s, card, position):
    """Before ``card`` is laid: the bidder plays while the trump is hidden. His indicator, as
    his last card, shows it (ruling 5; it may end the hand, ruling 7); any other card is
    recorded as a lead or a discard of its suit for the hidden-hand sampler."""
    if card == s[INDICATOR]:
        _show_trump(s, NO_SEAT)
    elif position == 0:
        suit = suit_of(card)
        if s[BIDDER_HIDDEN_LEADS + suit] < 0:
            s[BIDDER_HIDDEN_LEADS + suit] = s[TRICK_NUMBER]
    elif suit_of(card) != suit_of(s[TRICK]):
        s[BIDDER_DISCARDS] |= 1 << suit_of(card)


@njit(cache=True)
def current_trick_winner(s):
    """Position of the card winning the current (non-empty) trick so far.

    Phase 1 (ruling 5): highest card of the led suit, trump-suit cards being
    ordinary. Phase 2 (ruling 6): a trump-suit card is a trump only from
    position ``TRUMPS_FROM`` on (played after the show).
    """
    return trick_winner(s[TRICK:TRICK + MAX_PLAYERS], s[TRICK_SIZE], s[TRUMP], s[TRUMPS_FROM],
                        STRENGTH)


@njit(cache=True)
def _after_variant_trick(s, winner, team):
    """The end of a trick under cot or Thani: an early end, the score, or the next offer."""
    if s[THANI_DECLARED] == 1 and winner != s[BIDDER]:
        _end_early(s, THANI_FAILED, END_THANI_LOST)  # 13.5 (V-T7): the partner's trick too
    elif s[COT_PLAYED_ON] > 0 and team != side_of(s, s[BIDDER]):
        _end_early(s, COT_FACTOR * contract_game_points(s, False), END_COT_FAILED)
    elif s[TRICK_NUMBER] == s[HAND_TRICKS]:
        _score_hand(s)
    else:
        _offer_cot(s)


@njit(cache=True)
def _note_forced_jack(s, seat, card):
    """13.1: a barred jack played proves every other card the seat could play was one too.

    The proof goes to ``NO_HOLD`` for the hidden-hand sampler, unless the cards
    he could play depend on the hidden trump (the bidder before the show).
    """
    if seat == s[BIDDER] and s[TRUMP_SHOWN] == 0:
        return
    cards, _ = contract_play_choices(s, seat)
    led = suit_of(s[TRICK])
    if cards & SUIT_MASKS[led] != 0 or card_bit(card) & unled_jacks(s) == 0:
        return
    region = SUIT_MASKS[s[TRUMP]] if cards != s[HANDS + seat] else ~np.int64(0)
    s[NO_HOLD + seat] |= region & s[DECK] & ~unled_jacks(s) & ~s[PLAYED]


@njit(cache=True)
def _end_early(s, points, reason):
    """End the hand with the bidding side's game points fixed by a variant (13.3, 13.5)."""
    s[SPECIAL_END] = reason
    _set_game_points(s, points)


@njit(cache=True)
def _set_game_points(s, points):
    """The bidding side scores ``points``, every other side the opposite (V-T3); the hand ends."""
    bidding_side = side_of(s, s[BIDDER])
    for side in range(num_sides(s)):
        s[GAME_POINTS + side] = points if side == bidding_side else -points
    _end_hand(s, PLAYED_OUT)


@njit(cache=True)
def game_points_for(bid, made):
    """Ruling 8: game points of the bidding team for its final bid."""
    for band in range(GAME_POINT_BANDS.shape[0]):
        if bid <= GAME_POINT_BANDS[band, 0]:
            return GAME_POINT_BANDS[band, 1] if made else GAME_POINT_BANDS[band, 2]
    return 0


@njit(cache=True)
def contract_game_points(s, made):
    """Ruling 8 for the final bid; a small game's bid is banded as its standard equivalent, the
    same share of 28 points rounded up (docs/rules/twenty_eight.md#small-games)."""
    points = s[DECK_POINTS]
    standard = (s[HIGH_BID] * TOTAL_CARD_POINTS + points - 1) // points
    return game_points_for(standard, made)


@njit(cache=True)
def _score_hand(s):
    """Ruling 8: the bidding side makes its bid with at least that many card points."""
    team = side_of(s, s[BIDDER])
    made = s[CARD_POINTS_WON + team] >= s[HIGH_BID]
    points = contract_game_points(s, made)
    if s[THANI_DECLARED] == 1:
        points = THANI_MADE  # 13.5: he won every trick himself
    elif s[COT] == 1 and s[TRICKS_WON + team] == s[HAND_TRICKS]:
        points = COT_FACTOR * points  # 13.3: every trick wins the double game
    _set_game_points(s, points)


@njit(cache=True)
def returns(s, out):
    """Per-seat returns (void hands and unfinished: 0), V-T3: each seat of the bidding side
    gets its game points G and the other seats share -G equally (four players: -G each)."""
    n = s[NUM_PLAYERS]
    for seat in range(n):
        out[seat] = 0.0
    if s[PHASE] != GAME_OVER or s[OUTCOME] != PLAYED_OUT:
        return
    bidding = n // num_sides(s)
    share = bidding / (n - bidding)
    bidding_side = side_of(s, s[BIDDER])
    for seat in range(n):
        side = side_of(s, seat)
        points = s[GAME_POINTS + side]
        out[seat] = float(points) if side == bidding_side else points * share


# ---- Batched random play ----------------------------------------------------------
RESULT_FIELDS = (
    "return_seat0",
    "card_points_team0",
    "card_points_team1",
    "bidder",
    "final_bid",
    "outcome",
    "shown_in_trick",
    "return_sum",
)


@njit(cache=True)
def play_random_hands(template, num_hands, stream, results):
    """Play ``num_hands`` complete uniformly random games from ``template`` inside numba.

    ``results[i]`` receives the fields of ``RESULT_FIELDS``: seat 0's return,
    the card points of sides 0 and 1, the final bidder and bid (-1 if the first round
    never ended), the outcome code, the trick of the show (-1 if never shown)
    and the sum of the returns. Returns the number of actions applied.
    """
    legal = np.empty(MAX_LEGAL_ACTIONS, dtype=np.int64)
    seat_returns = np.zeros(MAX_PLAYERS, dtype=np.float64)
    steps = 0
    s = template.copy()
    for i in range(num_hands):
        copy_state(s, template)
        while s[PHASE] != GAME_OVER:
            phase = s[PHASE]
            # The two hot steps skip apply_action's dispatch (and listing): what it would call.
            if phase == DEALING:  # the chance outcomes are the undealt cards
                steps += deal_randomly(s, stream) - 1
            elif phase == PLAYING and s[COT_NODE] == 0:  # uniform over playable cards and the call
                steps += play_cards_randomly(s, stream) - 1
            elif phase == BIDDING:
                steps += bid_randomly(s, stream) - 1
            elif phase == RAISING and not showing_pending(s):
                steps += raise_randomly(s, stream) - 1
            elif phase == PLACING:  # random_action's card, without apply_action's dispatch
                hand = s[HANDS + s[BIDDER]]
                _place_indicator(s, nth_card(hand, random_below(stream, popcount(hand))))
            else:
                apply_action(s, random_action(s, stream, legal))
            steps += 1
        returns(s, seat_returns)
        results[i, 0] = seat_returns[0]
        results[i, 1] = s[CARD_POINTS_WON]
        results[i, 2] = s[CARD_POINTS_WON + 1]
        results[i, 3] = s[BIDDER]
        results[i, 4] = s[HIGH_BID] if s[BIDDER] >= 0 else -1
        results[i, 5] = s[OUTCOME]
        results[i, 6] = s[SHOWN_IN_TRICK]
        results[i, 7] = seat_returns.sum()
    return steps
