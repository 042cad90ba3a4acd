"""Kaiser as pure array transitions, compiled with numba.

The whole game state is one ``int64`` array of ``STATE_SIZE`` slots whose
layout is the constants below (hands and card sets are bitmasks); it starts
with the header every engine shares (:mod:`cardlab.core.layout`), whose
kernels (``current_player``, ``team_of``, ``undealt_cards``) serve Kaiser too.
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

from cardlab.core.bitboard import card_bit, write_cards
from cardlab.core.cards import suit_of
from cardlab.core.dealing import draw_card, receiving_seat
from cardlab.core.layout import (
    CARDS_DEALT,
    DEALER,
    DEALING,
    DEALT,
    DECK,
    PHASE,
    TO_MOVE,
    current_player,
    empty_state,
    record_deal,
    start_deal,
    team_of,
    undealt_cards,
)
from cardlab.core.rng import random_below
from cardlab.core.tricks import NO_TRUMP, follow_suit_choices, trick_winner
from cardlab.games.kaiser.rules import (
    BID,
    FIVE_OF_HEARTS,
    FIVE_OF_HEARTS_POINTS,
    HAND_SIZE,
    HIGH_STRENGTH,
    LOW_NO_TRUMP,
    LOW_STRENGTH,
    MAX_BID,
    MISDEAL,
    MISDEAL_HONOURS,
    NAME_TRUMP,
    NUM_PLAYERS,
    NUM_TRICKS,
    PASS,
    STANDARD_DECK,
    THREE_OF_SPADES,
    THREE_OF_SPADES_POINTS,
    WITH_TRUMP,
)

# ---- Phases (the header's convention: 0 deals, the last ends the game) ------------
BIDDING, NAMING_TRUMP, PLAYING, GAME_OVER = 1, 2, 3, 4
PHASE_NAMES = ("dealing", "bidding", "naming trump", "playing", "game over")

# ---- State layout ---------------------------------------------------------------
# Slots 0-11: the header every engine shares (cardlab.core.layout): PHASE, TO_MOVE,
# DEALER, NUM_PLAYERS, CARDS_DEALT, DECK, UNDEALT, GAME_OVER_PHASE and DEALT (4 slots).
HANDS = DEALT + NUM_PLAYERS  # 4 slots (12-15): the cards each seat holds
# Parameters (fixed for the game): NUM_PARAMETERS slots from PARAMETERS.
FIRST_DEALER = 16
MIN_BID = 17
MATCH = 18  # 1: play hands until a team reaches TARGET
TARGET = 19
ALLOW_LOW_NO_TRUMP = 20
NON_BIDDER_LIMIT = 21  # from this match score up, non-bidders add only negative points
MAX_HANDS = 22  # match safety cap: a match still running after this many hands is drawn
PARAMETERS, NUM_PARAMETERS = FIRST_DEALER, MAX_HANDS + 1 - FIRST_DEALER
# The hand being played.
SPOKEN = 23  # 4 slots: each seat's bidding action, -1 before it speaks
HIGH_BID = 27  # 3 * value + kind of the best bid so far, -1 if none
DECLARER = 28  # seat of the winning bidder, -1 before the bidding ends
TRUMP = 29  # trump suit, NO_TRUMP (-1) for no trump or before it is named
TRICK_NUMBER = 30  # 0..7, 8 when the hand is over
TRICK_LEADER = 31
TRICK_SIZE = 32  # cards in the current trick
TRICK = 33  # 4 slots: cards of the current trick in play order
TRICKS_WON = 37  # 2 slots, per team
HAND_POINTS = 39  # 2 slots, per team: tricks + 5H - 3S
PLAYED = 41  # mask of cards played this hand
VOIDS = 42  # 4 slots: bit s set when that seat showed out of suit s
MATCH_SCORE = 46  # 2 slots
HAND_NUMBER = 48
WINNER = 49  # winning team (match), -1 undecided, 2 = drawn / void
LAST_DELTA = 50  # 2 slots: each team's score change on the last scored hand
MISDEAL_BY = 52  # seat that threw in the last hand, -1 if none
TRICK_HISTORY = 53  # 32 slots: every card of the hand in play order
TRICK_LEADERS = 85  # 8 slots
TRICK_WINNERS = 93  # 8 slots
STATE_SIZE = 101

MAX_LEGAL_ACTIONS = 40  # 32 cards or 1 + 3 * 7 bids + misdeal, rounded up


@njit(cache=True)
def new_state(first_dealer, min_bid, match, target, allow_low_no_trump, non_bidder_limit,
              max_hands):
    """The state before the first card of the first hand is dealt."""
    s = empty_state(STATE_SIZE, NUM_PLAYERS, GAME_OVER)
    s[DECK] = STANDARD_DECK
    s[FIRST_DEALER] = first_dealer
    s[MIN_BID] = min_bid
    s[MATCH] = match
    s[TARGET] = target
    s[ALLOW_LOW_NO_TRUMP] = allow_low_no_trump
    s[NON_BIDDER_LIMIT] = non_bidder_limit
    s[MAX_HANDS] = max_hands
    s[WINNER] = -1
    s[MISDEAL_BY] = -1
    start_hand(s, first_dealer)
    return s


@njit(cache=True)
def start_hand(s, dealer):
    """Clear the hand slots and wait for the deal (chance nodes)."""
    start_deal(s, dealer)
    for seat in range(NUM_PLAYERS):
        s[HANDS + seat] = 0
        s[SPOKEN + seat] = -1
        s[VOIDS + seat] = 0
        s[TRICK + seat] = -1
    s[HIGH_BID] = -1
    s[DECLARER] = -1
    s[TRUMP] = NO_TRUMP
    s[TRICK_NUMBER] = 0
    s[TRICK_SIZE] = 0
    s[TRICKS_WON] = s[TRICKS_WON + 1] = 0
    s[HAND_POINTS] = s[HAND_POINTS + 1] = 0
    s[PLAYED] = 0
    s[TRICK_HISTORY:TRICK_HISTORY + 32] = -1
    s[TRICK_LEADERS:TRICK_LEADERS + 8] = -1
    s[TRICK_WINNERS:TRICK_WINNERS + 8] = -1


@njit(cache=True)
def may_throw_in(s, seat):
    """Misdeal: no ace, no picture card, neither the 5 of hearts nor the 3 of spades."""
    return s[HANDS + seat] & MISDEAL_HONOURS == 0


@njit(cache=True)
def legal_actions(s, out):
    """Write the legal actions in ascending order into ``out``; return how many."""
    phase = s[PHASE]
    n = 0
    if phase == DEALING:
        n = write_cards(undealt_cards(s), out, 0)
    elif phase == BIDDING:
        seat = s[TO_MOVE]
        is_dealer = seat == s[DEALER]
        if not (is_dealer and s[HIGH_BID] < 0):
            out[n] = PASS
            n += 1
        if may_throw_in(s, seat):
            out[n] = MISDEAL
            n += 1
        kinds = 3 if s[ALLOW_LOW_NO_TRUMP] else 2
        for value in range(s[MIN_BID], MAX_BID + 1):
            for kind in range(kinds):
                rank = 3 * value + kind
                if rank > s[HIGH_BID] or (is_dealer and rank == s[HIGH_BID]):
                    out[n] = BID + rank
                    n += 1
    elif phase == NAMING_TRUMP:
        for suit in range(4):
            out[n] = NAME_TRUMP + suit
            n += 1
    elif phase == PLAYING:
        seat = s[TO_MOVE]
        n = write_cards(playable_cards(s, seat), out, 0)
    return n


@njit(cache=True)
def playable_cards(s, seat):
    led_suit = suit_of(s[TRICK]) if s[TRICK_SIZE] > 0 else -1
    return follow_suit_choices(s[HANDS + seat], led_suit)


@njit(cache=True)
def advance(s, action, out):
    """Apply ``action`` (none if negative), then list the legal actions: one call per step.

    Returns ``(number of legal actions, current player)``; the wrapper uses it so
    that a step of an OpenSpiel game costs a single compiled call (why every
    engine writes these lines itself: :mod:`cardlab.core.layout`).
    """
    if action >= 0:
        apply_action(s, action)
    return legal_actions(s, out), current_player(s)


@njit(cache=True)
def random_action(s, stream, legal):
    """A uniformly random legal action, drawn straight from the card masks when it can."""
    phase = s[PHASE]
    if phase == DEALING:
        return draw_card(undealt_cards(s), stream)
    if phase == PLAYING:
        return draw_card(playable_cards(s, s[TO_MOVE]), stream)
    n = legal_actions(s, legal)
    return legal[random_below(stream, n)]


@njit(cache=True)
def apply_action(s, action):
    """Apply a legal action (chance: the dealt card id)."""
    phase = s[PHASE]
    if phase == DEALING:
        _deal_card(s, action)
    elif phase == BIDDING:
        _bid(s, action)
    elif phase == NAMING_TRUMP:
        s[TRUMP] = action - NAME_TRUMP
        s[PHASE] = PLAYING
        s[TO_MOVE] = s[DECLARER]
        s[TRICK_LEADER] = s[DECLARER]
    else:
        _play_card(s, action)


@njit(cache=True)
def _deal_card(s, card):
    seat = receiving_seat(s[DEALER], s[CARDS_DEALT], NUM_PLAYERS)
    s[HANDS + seat] |= card_bit(card)
    record_deal(s, seat, card)
    if s[CARDS_DEALT] == NUM_PLAYERS * HAND_SIZE:
        s[PHASE] = BIDDING
        s[TO_MOVE] = (s[DEALER] + 1) % NUM_PLAYERS


@njit(cache=True)
def _bid(s, action):
    seat = s[TO_MOVE]
    if action == MISDEAL:
        s[MISDEAL_BY] = seat
        s[HAND_NUMBER] += 1  # counts deals, so a match of endless misdeals still ends
        if s[MATCH] and s[HAND_NUMBER] < s[MAX_HANDS]:
            start_hand(s, s[DEALER])  # the same dealer deals again
        else:
            s[WINNER] = 2
            s[PHASE] = GAME_OVER
        return
    s[SPOKEN + seat] = action
    if action != PASS:
        s[HIGH_BID] = action - BID
        s[DECLARER] = seat
    if seat == s[DEALER]:  # the dealer speaks last
        s[MISDEAL_BY] = -1
        if s[HIGH_BID] % 3 == WITH_TRUMP:
            s[PHASE] = NAMING_TRUMP
            s[TO_MOVE] = s[DECLARER]
        else:
            s[TRUMP] = NO_TRUMP
            s[PHASE] = PLAYING
            s[TO_MOVE] = s[DECLARER]
            s[TRICK_LEADER] = s[DECLARER]
    else:
        s[TO_MOVE] = (seat + 1) % NUM_PLAYERS


@njit(cache=True)
def _play_card(s, card):
    seat = s[TO_MOVE]
    position = s[TRICK_SIZE]
    if position > 0:
        led_suit = suit_of(s[TRICK])
        if suit_of(card) != led_suit:
            s[VOIDS + seat] |= 1 << led_suit
    s[HANDS + seat] &= ~card_bit(card)
    s[PLAYED] |= card_bit(card)
    s[TRICK + position] = card
    s[TRICK_HISTORY + 4 * s[TRICK_NUMBER] + position] = card
    s[TRICK_SIZE] = position + 1
    if position + 1 < NUM_PLAYERS:
        s[TO_MOVE] = (seat + 1) % NUM_PLAYERS
        return
    _finish_trick(s)


@njit(cache=True)
def card_strength(s):
    """The strength table of the contract being played (low no trump reverses it)."""
    if s[HIGH_BID] >= 0 and s[HIGH_BID] % 3 == LOW_NO_TRUMP:
        return LOW_STRENGTH
    return HIGH_STRENGTH


@njit(cache=True)
def _finish_trick(s):
    leader = s[TRICK_LEADER]
    winning_position = trick_winner(s[TRICK:TRICK + 4], 4, s[TRUMP], 0, card_strength(s))
    winner = (leader + winning_position) % NUM_PLAYERS
    team = team_of(winner)
    points = 1
    for position in range(4):
        card = s[TRICK + position]
        if card == FIVE_OF_HEARTS:
            points += FIVE_OF_HEARTS_POINTS
        elif card == THREE_OF_SPADES:
            points += THREE_OF_SPADES_POINTS
        s[TRICK + position] = -1
    s[TRICKS_WON + team] += 1
    s[HAND_POINTS + team] += points
    s[TRICK_LEADERS + s[TRICK_NUMBER]] = leader
    s[TRICK_WINNERS + s[TRICK_NUMBER]] = winner
    s[TRICK_NUMBER] += 1
    s[TRICK_SIZE] = 0
    s[TRICK_LEADER] = winner
    s[TO_MOVE] = winner
    if s[TRICK_NUMBER] == NUM_TRICKS:
        _score_hand(s)


@njit(cache=True)
def hand_deltas(s):
    """Each team's match-score change for the finished hand (rulings 4 and 5)."""
    declarer_team = team_of(s[DECLARER])
    other_team = 1 - declarer_team
    value = s[HIGH_BID] // 3
    multiplier = 1 if s[HIGH_BID] % 3 == WITH_TRUMP else 2
    taken = s[HAND_POINTS + declarer_team]
    deltas = np.zeros(2, dtype=np.int64)
    deltas[declarer_team] = multiplier * (taken if taken >= value else -value)
    other_points = s[HAND_POINTS + other_team]
    if s[MATCH_SCORE + other_team] < s[NON_BIDDER_LIMIT] or other_points < 0:
        deltas[other_team] = other_points
    return deltas


@njit(cache=True)
def _score_hand(s):
    deltas = hand_deltas(s)
    for team in range(2):
        s[LAST_DELTA + team] = deltas[team]
        s[MATCH_SCORE + team] += deltas[team]
    s[HAND_NUMBER] += 1
    if not s[MATCH]:
        s[PHASE] = GAME_OVER
        return
    reached0 = s[MATCH_SCORE] >= s[TARGET]
    reached1 = s[MATCH_SCORE + 1] >= s[TARGET]
    if reached0 and reached1:
        s[WINNER] = team_of(s[DECLARER])  # ruling 7: the bidding team wins
    elif reached0:
        s[WINNER] = 0
    elif reached1:
        s[WINNER] = 1
    elif s[HAND_NUMBER] >= s[MAX_HANDS]:
        s[WINNER] = 2
    if s[WINNER] >= 0:
        s[PHASE] = GAME_OVER
    else:
        start_hand(s, (s[DEALER] + 1) % NUM_PLAYERS)


@njit(cache=True)
def returns(s, out):
    """Per-seat returns: hand mode, own team's delta minus the other's; match, +1 / -1."""
    for seat in range(NUM_PLAYERS):
        out[seat] = 0.0
    if s[PHASE] != GAME_OVER:
        return
    if s[MATCH]:
        if s[WINNER] == 0 or s[WINNER] == 1:
            for seat in range(NUM_PLAYERS):
                out[seat] = 1.0 if team_of(seat) == s[WINNER] else -1.0
        return
    if s[WINNER] == 2:  # thrown-in hand
        return
    for seat in range(NUM_PLAYERS):
        team = team_of(seat)
        out[seat] = float(s[LAST_DELTA + team] - s[LAST_DELTA + 1 - team])


@njit(cache=True)
def deal_at_random(s, stream):
    """Finish the deal in one go: the same distribution as drawing each chance node uniformly.

    A Fisher-Yates shuffle of the undealt cards, dealt in the contract's order;
    playouts use it because it skips one kernel step per card.
    """
    deck = np.empty(64, dtype=np.int64)
    n = write_cards(undealt_cards(s), deck, 0)
    for i in range(n - 1, 0, -1):
        j = random_below(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    for i in range(n):
        _deal_card(s, deck[i])


@njit(cache=True)
def play_random_hands(template, num_hands, stream, results):
    """Play ``num_hands`` complete random games from ``template`` inside numba.

    ``results[i]`` receives seat 0's return, team 0 and team 1 hand points,
    the declarer and the winning bid rank (3 * value + kind, -1 if thrown in).
    Returns the total number of actions applied, chance included.
    """
    legal = np.empty(MAX_LEGAL_ACTIONS, dtype=np.int64)
    seat_returns = np.empty(NUM_PLAYERS, dtype=np.float64)
    s = template.copy()
    steps = 0
    for i in range(num_hands):
        s[:] = template
        while s[PHASE] != GAME_OVER:
            phase = s[PHASE]
            if phase == PLAYING:  # the hot path: no listing, no dispatch
                _play_card(s, draw_card(playable_cards(s, s[TO_MOVE]), stream))
                steps += 1
            elif phase == DEALING:
                steps += NUM_PLAYERS * HAND_SIZE - s[CARDS_DEALT]
                deal_at_random(s, stream)
            else:
                apply_action(s, random_action(s, stream, legal))
                steps += 1
        returns(s, seat_returns)
        results[i, 0] = seat_returns[0]
        results[i, 1] = s[HAND_POINTS]
        results[i, 2] = s[HAND_POINTS + 1]
        results[i, 3] = s[DECLARER]
        results[i, 4] = s[HIGH_BID] if s[WINNER] != 2 else -1
    return steps
