"""Literature as pure array transitions, compiled with numba.

The whole game state is one ``int64`` array of ``STATE_SIZE`` slots whose
layout is the constants below; hands are card bitmasks, and the slot blocks are
sized by ``MAX_PLAYERS`` (16) so that every player count shares one layout. The
array also holds the public knowledge (:mod:`cardlab.games.literature.knowledge`),
kept up to date with every ask and claim, and the log of public events, so
that an information state, a strategy or an observation needs nothing but the
array.

Kernels do not validate their input (numba does not bounds-check); the checked
entry points for Python callers are :class:`cardlab.core.engine.Engine` and the
OpenSpiel wrapper in :mod:`cardlab.games.literature.game`.

Rulings (docs/rules/literature.md#rulings): the dealer (or, as a variant, the
player after him) has the first turn; an ask names an opponent who holds a card
and a card of a half-suit the asker holds another card of; a success keeps the
turn, a failure hands it to the target. A claim names the holder of each of the
six cards in ascending id order; the claimant keeps the turn. A player on turn
without cards hands the turn to a teammate with cards; once a team is out of
cards, the other team may only claim.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, cards_in, popcount
from cardlab.core.dealing import receiving_seat
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER
from cardlab.core.rng import random_below
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.rules import (
    ASSIGN,
    CARDS_PER_HALF_SUIT,
    CLAIM,
    DECKS,
    HALF_SUIT_MASKS,
    HALF_SUIT_OF,
    HALF_SUIT_VALUES,
    MAX_ASKS_LIMIT,
    MAX_HALF_SUITS,
    MAX_PLAYERS,
    NUM_HALF_SUITS,
    PASS_TURN,
    UNRESOLVED,
    VOID,
)
from cardlab.games.literature.sampling import sample_hands

# ---- Phases -------------------------------------------------------------------------
DEALING, ASKING, CLAIMING, GAME_OVER = 0, 1, 2, 3
PHASE_NAMES = ("dealing", "asking", "claiming", "game over")

# ---- State layout -----------------------------------------------------------------------
# Parameters (fixed for the game).
NUM_PLAYERS = 0
DEALER = 1
MAX_ASKS = 2
LAYOUT = 3  # rules.STANDARD, SEVENS_REMOVED or JOKERS
MAJOR_SETS_WORTH_TWO = 4
MISCLAIM_TO_OPPONENTS = 5
FIRST_ASK_LEFT_OF_DEALER = 6
DECK = 7
CARDS_EACH = 8
# The game being played.
PHASE = 9
TO_MOVE = 10  # seat to act (meaningless at chance nodes)
CARDS_DEALT = 11
ASKS = 12  # asks made so far
CLAIMANT = 13  # seat making the current claim, -1 outside a claim
CLAIM_HALF_SUIT = 14
CLAIM_COUNT = 15  # seats named so far in the current claim
CLAIM_SEATS = 16  # 6 slots: the seat named for each card, ascending card ids
STATUS = CLAIM_SEATS + CARDS_PER_HALF_SUIT  # MAX_HALF_SUITS slots: UNRESOLVED, team, VOID
SCORES = STATUS + MAX_HALF_SUITS  # 2 slots, per team
HANDS = SCORES + 2  # MAX_PLAYERS slots
DEALT = HANDS + MAX_PLAYERS  # MAX_PLAYERS slots: each hand as dealt
LOG_LENGTH = DEALT + MAX_PLAYERS
KNOWLEDGE = LOG_LENGTH + 1  # K.KNOWLEDGE_SIZE slots: what the public events prove
LOG = KNOWLEDGE + K.KNOWLEDGE_SIZE  # LOG_CAPACITY slots: public events, packed
LOG_CAPACITY = MAX_ASKS_LIMIT + 2 * MAX_HALF_SUITS + 8  # asks, claims, hand-offs
STATE_SIZE = LOG + LOG_CAPACITY

#: 8 opponents x 54 cards + 9 claims is the most any decision offers; chance is 54.
MAX_LEGAL_ACTIONS = 8 * 54 + MAX_HALF_SUITS

# ---- Public events, packed one per log slot ---------------------------------------------------
# bits 0-1 kind, 2-5 actor; ask: 6-9 target, 10-15 card, 16 success;
# claim: 6-9 half-suit, 10-11 status after it, 12+4i seat named for card i,
# 36+4i seat that held card i; hand-off: 6-9 the seat receiving the turn.
EVENT_ASK, EVENT_CLAIM, EVENT_PASS = 0, 1, 2


@njit(cache=True)
def team_of(seat):
    return seat & 1


@njit(cache=True)
def new_state(num_players, dealer, max_asks, layout, major_sets_worth_two,
              misclaim_to_opponents, first_ask_left_of_dealer):
    """The state before the first card is dealt."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[NUM_PLAYERS] = num_players
    s[DEALER] = dealer
    s[MAX_ASKS] = max_asks
    s[LAYOUT] = layout
    s[MAJOR_SETS_WORTH_TWO] = major_sets_worth_two
    s[MISCLAIM_TO_OPPONENTS] = misclaim_to_opponents
    s[FIRST_ASK_LEFT_OF_DEALER] = first_ask_left_of_dealer
    s[DECK] = DECKS[layout]
    s[CARDS_EACH] = popcount(DECKS[layout]) // num_players
    s[PHASE] = DEALING
    s[TO_MOVE] = (dealer + 1) % num_players
    s[CLAIMANT] = -1
    s[CLAIM_HALF_SUIT] = -1
    s[CLAIM_SEATS:CLAIM_SEATS + CARDS_PER_HALF_SUIT] = -1
    for h in range(MAX_HALF_SUITS):
        s[STATUS + h] = UNRESOLVED if h < NUM_HALF_SUITS[layout] else VOID
    K.start(s[KNOWLEDGE:KNOWLEDGE + K.KNOWLEDGE_SIZE], num_players, layout, s[CARDS_EACH])
    return s


@njit(cache=True)
def knowledge_of(s):
    """The public knowledge block of the state (a view: writes go to the state)."""
    return s[KNOWLEDGE:KNOWLEDGE + K.KNOWLEDGE_SIZE]


@njit(cache=True)
def current_player(s):
    """Seat to act, CHANCE_PLAYER while dealing, TERMINAL_PLAYER at the end."""
    phase = s[PHASE]
    if phase == GAME_OVER:
        return TERMINAL_PLAYER
    if phase == DEALING:
        return CHANCE_PLAYER
    return s[TO_MOVE]


@njit(cache=True)
def is_terminal(s):
    return s[PHASE] == GAME_OVER


@njit(cache=True)
def half_suit_of(s, card):
    return HALF_SUIT_OF[s[LAYOUT], card]


@njit(cache=True)
def half_suit_cards(s, h):
    return HALF_SUIT_MASKS[s[LAYOUT], h]


@njit(cache=True)
def team_cards(s, team):
    """Every card the seats of ``team`` hold."""
    mask = np.int64(0)
    for seat in range(team, s[NUM_PLAYERS], 2):
        mask |= s[HANDS + seat]
    return mask


@njit(cache=True)
def undealt_cards(s):
    return s[DECK] & ~(team_cards(s, 0) | team_cards(s, 1))


@njit(cache=True)
def holder(s, card):
    """The seat holding ``card``, -1 if nobody does (claimed, or not in the deck)."""
    for seat in range(s[NUM_PLAYERS]):
        if (s[HANDS + seat] >> card) & 1:
            return seat
    return -1


@njit(cache=True)
def askable_cards(s, seat):
    """Cards ``seat`` may ask for: the others of each half-suit it holds a card of."""
    hand = s[HANDS + seat]
    mask = np.int64(0)
    for h in range(NUM_HALF_SUITS[s[LAYOUT]]):
        cards = HALF_SUIT_MASKS[s[LAYOUT], h]
        if hand & cards != 0:
            mask |= cards & ~hand
    return mask


@njit(cache=True)
def legal_actions(s, out):
    """Write the legal actions in ascending order into ``out``; return how many."""
    phase = s[PHASE]
    n = 0
    if phase == DEALING:
        for card in cards_in(undealt_cards(s)):
            out[n] = card
            n += 1
        return n
    if phase == GAME_OVER:
        return 0
    seat = s[TO_MOVE]
    num_players = s[NUM_PLAYERS]
    if phase == CLAIMING:
        for mate in range(team_of(s[CLAIMANT]), num_players, 2):
            out[n] = ASSIGN + mate
            n += 1
        return n
    team = team_of(seat)
    own_team_has_cards = team_cards(s, team) != 0
    other_team_has_cards = team_cards(s, 1 - team) != 0
    if own_team_has_cards and other_team_has_cards:
        if s[HANDS + seat] == 0:  # ruling 4: hand the turn to a teammate with cards
            for mate in range(team, num_players, 2):
                if s[HANDS + mate] != 0:
                    out[n] = PASS_TURN + mate
                    n += 1
            return n
        askable = askable_cards(s, seat)
        for target in range(1 - team, num_players, 2):
            if s[HANDS + target] != 0:
                for card in cards_in(askable):
                    out[n] = 64 * target + card
                    n += 1
    elif not own_team_has_cards:  # ruling 5: name the opponent who must claim
        for other in range(1 - team, num_players, 2):
            if s[HANDS + other] != 0:
                out[n] = PASS_TURN + other
                n += 1
        return n
    for h in range(NUM_HALF_SUITS[s[LAYOUT]]):
        if s[STATUS + h] == UNRESOLVED:
            out[n] = CLAIM + h
            n += 1
    return n


@njit(cache=True)
def apply_action(s, action):
    """Apply a legal action (chance: the dealt card id)."""
    phase = s[PHASE]
    if phase == DEALING:
        _deal_card(s, action)
    elif phase == CLAIMING:
        _assign(s, action - ASSIGN)
    elif action < CLAIM:
        _ask(s, action // 64, action % 64)
    elif action < ASSIGN:
        s[PHASE] = CLAIMING
        s[CLAIMANT] = s[TO_MOVE]
        s[CLAIM_HALF_SUIT] = action - CLAIM
        s[CLAIM_COUNT] = 0
    else:
        target = action - PASS_TURN
        _log(s, EVENT_PASS | (s[TO_MOVE] << 2) | (target << 6))
        s[TO_MOVE] = target


@njit(cache=True)
def _log(s, event):
    s[LOG + s[LOG_LENGTH]] = event
    s[LOG_LENGTH] += 1


@njit(cache=True)
def _deal_card(s, card):
    num_players = s[NUM_PLAYERS]
    seat = receiving_seat(s[DEALER], s[CARDS_DEALT], num_players)
    s[HANDS + seat] |= card_bit(card)
    s[CARDS_DEALT] += 1
    if s[CARDS_DEALT] == popcount(s[DECK]):
        for other in range(num_players):
            s[DEALT + other] = s[HANDS + other]
        s[PHASE] = ASKING
        first = s[DEALER] + 1 if s[FIRST_ASK_LEFT_OF_DEALER] else s[DEALER]
        s[TO_MOVE] = first % num_players


@njit(cache=True)
def _ask(s, target, card):
    asker = s[TO_MOVE]
    bit = card_bit(card)
    success = s[HANDS + target] & bit != 0
    if success:
        s[HANDS + target] &= ~bit
        s[HANDS + asker] |= bit
    else:
        s[TO_MOVE] = target
    _log(s, EVENT_ASK | (asker << 2) | (target << 6) | (card << 10) | (np.int64(success) << 16))
    K.observe_ask(knowledge_of(s), asker, target, card, success)
    s[ASKS] += 1
    if s[ASKS] >= s[MAX_ASKS]:
        _end_game(s)


@njit(cache=True)
def card_being_named(s):
    """In a claim, the card whose holder the claimant names next (the half-suit's in rank order)."""
    return cards_in(HALF_SUIT_MASKS[s[LAYOUT], s[CLAIM_HALF_SUIT]])[s[CLAIM_COUNT]]


@njit(cache=True)
def _assign(s, seat):
    s[CLAIM_SEATS + s[CLAIM_COUNT]] = seat
    s[CLAIM_COUNT] += 1
    if s[CLAIM_COUNT] == CARDS_PER_HALF_SUIT:
        _settle_claim(s)


@njit(cache=True)
def claim_status(claimant_team, all_with_team, all_named_right, misclaim_to_opponents):
    """Ruling 3: the team scores, the opponents score, or the half-suit is void."""
    if not all_with_team:
        return 1 - claimant_team
    if all_named_right:
        return claimant_team
    return 1 - claimant_team if misclaim_to_opponents else VOID


@njit(cache=True)
def _settle_claim(s):
    claimant = s[CLAIMANT]
    team = team_of(claimant)
    h = s[CLAIM_HALF_SUIT]
    cards = cards_in(HALF_SUIT_MASKS[s[LAYOUT], h])
    holders = np.empty(CARDS_PER_HALF_SUIT, dtype=np.int64)
    all_with_team = True
    all_named_right = True
    event = EVENT_CLAIM | (claimant << 2) | (h << 6)
    for i in range(CARDS_PER_HALF_SUIT):
        seat = holder(s, cards[i])
        holders[i] = seat
        all_with_team &= team_of(seat) == team
        all_named_right &= seat == s[CLAIM_SEATS + i]
        event |= (s[CLAIM_SEATS + i] << (12 + 4 * i)) | (seat << (36 + 4 * i))
        s[HANDS + seat] &= ~card_bit(cards[i])
    status = claim_status(team, all_with_team, all_named_right, s[MISCLAIM_TO_OPPONENTS])
    s[STATUS + h] = status
    if status != VOID:
        s[SCORES + status] += HALF_SUIT_VALUES[s[MAJOR_SETS_WORTH_TWO], h]
    _log(s, event | (status << 10))
    K.observe_claim(knowledge_of(s), h, holders)
    s[CLAIMANT] = -1
    s[CLAIM_HALF_SUIT] = -1
    s[CLAIM_COUNT] = 0
    s[CLAIM_SEATS:CLAIM_SEATS + CARDS_PER_HALF_SUIT] = -1
    s[PHASE] = ASKING
    s[TO_MOVE] = claimant  # ruling 3: the claimant keeps the turn
    for other in range(NUM_HALF_SUITS[s[LAYOUT]]):
        if s[STATUS + other] == UNRESOLVED:
            return
    s[PHASE] = GAME_OVER


@njit(cache=True)
def _end_game(s):
    """The ask limit: every unresolved half-suit is void."""
    for h in range(NUM_HALF_SUITS[s[LAYOUT]]):
        if s[STATUS + h] == UNRESOLVED:
            s[STATUS + h] = VOID
    s[PHASE] = GAME_OVER


@njit(cache=True)
def returns(s, out):
    """Per-seat returns: own team's score minus the other team's (0 before the end)."""
    num_players = s[NUM_PLAYERS]
    for seat in range(num_players):
        out[seat] = 0.0
    if s[PHASE] != GAME_OVER:
        return
    for seat in range(num_players):
        team = team_of(seat)
        out[seat] = float(s[SCORES + team] - s[SCORES + 1 - team])


# ---- The public log ------------------------------------------------------------------------
@njit(cache=True)
def event_kind(event):
    return event & 3


@njit(cache=True)
def event_actor(event):
    return (event >> 2) & 15


@njit(cache=True)
def event_target(event):
    """Ask: the target; hand-off: the seat receiving the turn; claim: the half-suit."""
    return (event >> 6) & 15


@njit(cache=True)
def event_card(event):
    return (event >> 10) & 63


@njit(cache=True)
def event_success(event):
    return (event >> 16) & 1 == 1


@njit(cache=True)
def event_status(event):
    return (event >> 10) & 3


@njit(cache=True)
def event_named_seat(event, i):
    return (event >> (12 + 4 * i)) & 15


@njit(cache=True)
def event_holder(event, i):
    return (event >> (36 + 4 * i)) & 15


# ---- Batched random play -----------------------------------------------------------------------
@njit(cache=True)
def play_random_games(template, num_games, stream, results):
    """Play ``num_games`` complete uniformly random games from ``template`` inside numba.

    ``results[i]`` receives team 0's score, team 1's score, the number of asks
    and the number of half-suits voided. Returns the number of actions applied,
    chance included.
    """
    legal = np.empty(MAX_LEGAL_ACTIONS, dtype=np.int64)
    steps = 0
    for i in range(num_games):
        s = template.copy()
        while s[PHASE] != GAME_OVER:
            n = legal_actions(s, legal)
            apply_action(s, legal[random_below(stream, n)])
            steps += 1
        results[i, 0] = s[SCORES]
        results[i, 1] = s[SCORES + 1]
        results[i, 2] = s[ASKS]
        voided = 0
        for h in range(NUM_HALF_SUITS[s[LAYOUT]]):
            voided += s[STATUS + h] == VOID
        results[i, 3] = voided
    return steps


@njit(cache=True)
def random_deal(template, stream):
    """``template`` (a fresh game) with every card dealt at random."""
    s = template.copy()
    legal = np.empty(MAX_LEGAL_ACTIONS, dtype=np.int64)
    while s[PHASE] == DEALING:
        n = legal_actions(s, legal)
        apply_action(s, legal[random_below(stream, n)])
    return s


# ---- Hidden information --------------------------------------------------------------------------
@njit(cache=True)
def private_knowledge(s, seat):
    """What ``seat`` knows: the public knowledge plus its own hand, propagated."""
    view = np.empty(K.KNOWLEDGE_SIZE, dtype=np.int64)
    K.private_view(knowledge_of(s), seat, s[HANDS + seat], view)
    return view


@njit(cache=True)
def dealt_hands_for(s, hands):
    """The deal that, with the logged events, leads to the current ``hands``.

    Every event is public and moves cards deterministically, so running the log
    backwards from any current hands gives the only deal they can come from.
    """
    num_players = s[NUM_PLAYERS]
    dealt = hands[:num_players].copy()
    for i in range(s[LOG_LENGTH] - 1, -1, -1):
        event = s[LOG + i]
        kind = event_kind(event)
        if kind == EVENT_ASK and event_success(event):
            bit = card_bit(event_card(event))
            dealt[event_actor(event)] &= ~bit
            dealt[event_target(event)] |= bit
        elif kind == EVENT_CLAIM:
            cards = cards_in(HALF_SUIT_MASKS[s[LAYOUT], event_target(event)])
            for j in range(CARDS_PER_HALF_SUIT):
                dealt[event_holder(event, j)] |= card_bit(cards[j])
    return dealt


@njit(cache=True)
def consistent_with_log(s, hands):
    """True if the current ``hands`` agree with every logged event.

    Replays the log forwards from the deal the hands imply, checking that each
    ask was legal (asker held another card of the half-suit, not the card; the
    target held a card) and answered as logged, and that each claim's cards
    were where the claim showed them.
    """
    num_players = s[NUM_PLAYERS]
    layout = s[LAYOUT]
    current = dealt_hands_for(s, hands)
    for seat in range(num_players):
        if popcount(current[seat]) != s[CARDS_EACH]:
            return False
    for i in range(s[LOG_LENGTH]):
        event = s[LOG + i]
        kind = event_kind(event)
        actor = event_actor(event)
        if kind == EVENT_ASK:
            target = event_target(event)
            card = event_card(event)
            bit = card_bit(card)
            cards = HALF_SUIT_MASKS[layout, HALF_SUIT_OF[layout, card]]
            if current[actor] & bit != 0 or current[actor] & cards == 0:
                return False
            if current[target] == 0:
                return False
            if (current[target] & bit != 0) != event_success(event):
                return False
            if event_success(event):
                current[target] &= ~bit
                current[actor] |= bit
        elif kind == EVENT_CLAIM:
            h = event_target(event)
            cards = cards_in(HALF_SUIT_MASKS[layout, h])
            for j in range(CARDS_PER_HALF_SUIT):
                seat = event_holder(event, j)
                if current[seat] & card_bit(cards[j]) == 0:
                    return False
                current[seat] &= ~card_bit(cards[j])
    return True


@njit(cache=True)
def resample_hidden_hands(s, seat, stream, max_draws):
    """A copy of ``s`` whose hidden hands are redrawn to fit everything ``seat`` knows.

    Draws deals that meet ``seat``'s knowledge (hand sizes, placed cards,
    absences, half-suit minimums) and keeps the first that also agrees with
    the whole event log, so the world could really have been played. Returns
    ``(world, draws)``; ``draws`` is -1 when the knowledge admits no deal at all
    and 0 when ``max_draws`` draws all contradicted the log.
    """
    view = private_knowledge(s, seat)
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    world = s.copy()
    for draw in range(1, max_draws + 1):
        if not sample_hands(view, seat, s[HANDS + seat], stream, hands):
            return world, -1
        if consistent_with_log(s, hands):
            num_players = s[NUM_PLAYERS]
            dealt = dealt_hands_for(s, hands)
            for other in range(num_players):
                world[HANDS + other] = hands[other]
                world[DEALT + other] = dealt[other]
            return world, draw
    return world, 0
