"""Literature as pure array transitions, compiled with numba.

The whole game state is one ``int64`` array of ``STATE_SIZE`` slots whose
layout is the constants below; hands are card bitmasks, and the slot blocks are
sized by ``MAX_PLAYERS`` (16) so that every player count shares one layout. The
array also holds the public knowledge (:mod:`cardlab.games.literature.knowledge`),
kept up to date with every ask and claim, and the log of public events, so
that an information state, a strategy or an observation needs nothing but the
array. It starts with the header every engine shares (:mod:`cardlab.core.layout`);
the hidden-hand sampler is :mod:`cardlab.games.literature.sampling`.

Kernels do not validate their input (numba does not bounds-check); the checked
entry points for Python callers are :class:`cardlab.core.engine.Engine` and the
OpenSpiel wrapper in :mod:`cardlab.games.literature.game`.

Rulings (docs/rules/literature.md#rulings): the dealer (or, as a variant, the
player after him) has the first turn; an ask names an opponent who holds a card
and a card of a half-suit the asker holds another card of; a success keeps the
turn, a failure hands it to the target. A claim names the holder of each of the
half-suit's cards (six, or seven under 12.10) in ascending id order; the
claimant keeps the turn. A player on turn without cards hands the turn to a
teammate with cards; once a team is out of cards, the other team may only claim.

Variants 12.15 and 12.17 add the *forced procedure* (docs/variants.md 4.5): the
seats of one team, in turn order from a given seat, each either declare (a
claim) one of a set of half-suits or pass (1033), until a declaration restarts
it or every seat has passed twice the number of half-suits, which then go to
the other team. It is the endgame under ``forced_claims`` and the answer to a
challenge (1072 + h) when the challenged team holds the whole half-suit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, cards_in, lowest_card, nth_card, popcount
from cardlab.core.dealing import receiving_seat
from cardlab.core.layout import (
    CARDS_DEALT,
    DEALER,
    DEALING,
    DEALT,
    DECK,
    NUM_PLAYERS,
    PHASE,
    TO_MOVE,
    Slots,
    copy_state,
    current_player,
    empty_state,
    record_deal,
    seat_after,
    start_deal,
    team_of,
    undealt_cards,
)
from cardlab.core.rng import random_below
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.rules import (
    ASSIGN,
    CHALLENGE,
    CLAIM,
    DECKS,
    DECLINE,
    HALF_SUIT_MASKS,
    HALF_SUIT_VALUES,
    MAX_ASKS_LIMIT,
    MAX_HALF_SUIT_SIZE,
    MAX_HALF_SUITS,
    MAX_PLAYERS,
    NUM_HALF_SUITS,
    PASS_TURN,
    UNRESOLVED,
    VOID,
    cards_dealt,
)

# ---- Phases (the header's convention: 0 deals, the last ends the game) ---------------------
ASKING, CLAIMING, GAME_OVER = 1, 2, 3
PHASE_NAMES = ("dealing", "asking", "claiming", "game over")

#: Public events the log holds: asks; per half-suit its resolution, a hand-off, a challenge and a
#: declaration's passes.
LOG_CAPACITY = MAX_ASKS_LIMIT + 4 * MAX_HALF_SUITS + 8

# ---- State layout -----------------------------------------------------------------------
# Slots 0-23: the header every engine shares (cardlab.core.layout): PHASE, TO_MOVE, DEALER,
# NUM_PLAYERS, CARDS_DEALT, DECK, UNDEALT, GAME_OVER_PHASE and DEALT (MAX_PLAYERS slots:
# each hand as dealt).
_slot = Slots(DEALT + MAX_PLAYERS)  # the first slot after the header
HANDS = _slot(MAX_PLAYERS)  # the cards each seat holds
# Parameters (fixed for the game): NUM_PARAMETERS slots from PARAMETERS.
FIRST_DEALER = _slot()  # the dealer: one deal, so DEALER keeps this value all game
MAX_ASKS = _slot()
LAYOUT = _slot()  # rules.STANDARD, SEVENS_REMOVED, JOKERS or EIGHTS
MAJOR_SETS_WORTH_TWO = _slot()
MISCLAIM_TO_OPPONENTS = _slot()
FIRST_ASK_LEFT_OF_DEALER = _slot()
CARDS_EACH = _slot()  # the largest hand dealt (12.10's uneven deal gives the first seats one more)
OWN_CARD_ASKS = _slot()  # asks for one's own card: NO_OWN_CARD_ASKS, SURRENDER_OWN_CARD or BLUFF_OWN_CARD
OPPONENT_PICKS = _slot()  # 1: opponent_picks_next_player (12.11)
CLAIM_ANY_TIME = _slot()  # 1: claim_any_time (12.5)
FORCED_CLAIMS = _slot()  # 1: forced_claims (12.15)
CHALLENGES = _slot()  # 1: challenge (12.17)
PARAMETERS, NUM_PARAMETERS = FIRST_DEALER, CHALLENGES + 1 - FIRST_DEALER
# The game being played.
ASKS = _slot()  # asks made so far
CLAIMANT = _slot()  # seat making the current claim, -1 outside a claim
CLAIM_HALF_SUIT = _slot()
CLAIM_COUNT = _slot()  # seats named so far in the current claim
CLAIM_SEATS = _slot(MAX_HALF_SUIT_SIZE)  # the seat named for each card, ascending card ids
STATUS = _slot(MAX_HALF_SUITS)  # per half-suit: UNRESOLVED, the team that won it, or VOID
SCORES = _slot(2)  # per team
PICKING_FOR = _slot()  # 12.11: the empty-handed seat on turn an opponent picks for, else -1
LAST_ASKER = _slot(MAX_PLAYERS)  # the seat that last asked each seat, -1 if none
WINDOW_POLLS = _slot()  # 12.5: seats still to poll in the claim window, 0: none
TURN_SEAT = _slot()  # 12.5: the seat on turn while a window polls the others
LAST_TURN = _slot(2)  # LAST_TURN(team) of docs/variants.md 4.4
FORCED_TEAM = _slot()  # the team of a forced procedure under way, -1 if none
FORCED_SET = _slot()  # its half-suits still to declare (bit h)
FORCED_PASSES = _slot()  # passes since it (re)started; 2 m F of them end it
CHALLENGER = _slot()  # the seat whose challenge the procedure answers, -1 if none
LOG_LENGTH = _slot()
KNOWLEDGE = _slot(K.KNOWLEDGE_SIZE)  # what the public events prove
LOG = _slot(LOG_CAPACITY)  # public events, packed
STATE_SIZE = _slot.size

#: 8 opponents x 54 cards + 9 claims + 9 challenges is the most any decision offers; chance is 54.
MAX_LEGAL_ACTIONS = 8 * 54 + 2 * MAX_HALF_SUITS

#: What an ask for a card the asker holds does (variants 12.12 and 12.13; the contract forbids it).
NO_OWN_CARD_ASKS, SURRENDER_OWN_CARD, BLUFF_OWN_CARD = 0, 1, 2

# ---- Public events, packed one per log slot ---------------------------------------------------
# bits 0-1 kind, 2-5 actor; ask: 6-9 target, 10-15 card, 16 success, 17 surrendered (12.12);
# hand-off: 6-9 the seat receiving the turn;
# claim: 6-9 half-suit, 10-11 status after it, 12 made in a claim window (12.5), then for
# card i (i < 7, ascending ids): 13+3i the seat named, as its index in the claimant's team
# (seat // 2: a claim names only teammates), and 34+4i the seat that held it (bits 34-61).
# Seven cards of 12.10 fit one word this way: 3 bits per named seat, 4 per holder.
# forced (12.15, 12.17): 6-7 which: a challenge or a forfeit has 8-11 the half-suit, 12-13
# the status after it (3 for a challenge the challenged team must answer by declaring) and,
# when shown, the holders as a claim's (34+4i); a declaration's passes: 8-15 the passes since
# the procedure (re)started (the claim itself is logged when settled).
EVENT_ASK, EVENT_CLAIM, EVENT_PASS, EVENT_FORCED = 0, 1, 2, 3
FORCED_CHALLENGE, FORCED_FORFEIT, FORCED_DECLARATION = 0, 1, 2
MUST_DECLARE = 3  # a challenge's status: the challenged team holds h and must declare it
_NAMED_SHIFT, _HOLDER_SHIFT = 13, 13 + 3 * MAX_HALF_SUIT_SIZE


@njit(cache=True)
def new_state(num_players, dealer, max_asks, layout, major_sets_worth_two,
              misclaim_to_opponents, first_ask_left_of_dealer, own_card_asks=NO_OWN_CARD_ASKS,
              opponent_picks=0, claim_any_time=0, forced_claims=0, challenges=0):
    """The state before the first card is dealt."""
    s = empty_state(STATE_SIZE, num_players, GAME_OVER)
    s[DECK] = DECKS[layout]
    start_deal(s, dealer)
    s[FIRST_DEALER] = dealer
    s[MAX_ASKS] = max_asks
    s[LAYOUT] = layout
    s[MAJOR_SETS_WORTH_TWO] = major_sets_worth_two
    s[MISCLAIM_TO_OPPONENTS] = misclaim_to_opponents
    s[FIRST_ASK_LEFT_OF_DEALER] = first_ask_left_of_dealer
    s[OWN_CARD_ASKS] = own_card_asks
    s[OPPONENT_PICKS] = opponent_picks
    s[CLAIM_ANY_TIME] = claim_any_time
    s[FORCED_CLAIMS] = forced_claims
    s[CHALLENGES] = challenges
    s[FORCED_TEAM] = -1
    s[CHALLENGER] = -1
    s[PICKING_FOR] = -1
    s[LAST_ASKER:LAST_ASKER + MAX_PLAYERS] = -1
    s[CARDS_EACH] = cards_dealt(popcount(DECKS[layout]), num_players, dealer, dealer + 1)
    s[CLAIMANT] = -1
    s[CLAIM_HALF_SUIT] = -1
    s[CLAIM_SEATS:CLAIM_SEATS + MAX_HALF_SUIT_SIZE] = -1
    for h in range(MAX_HALF_SUITS):
        s[STATUS + h] = UNRESOLVED if h < NUM_HALF_SUITS[layout] else VOID
    K.start(s[KNOWLEDGE:KNOWLEDGE + K.KNOWLEDGE_SIZE], num_players, layout, dealer)
    return s


@njit(cache=True)
def knowledge_of(s):
    """The public knowledge block of the state (a view: writes go to the state)."""
    return s[KNOWLEDGE:KNOWLEDGE + K.KNOWLEDGE_SIZE]


@njit(cache=True, inline="always")
def half_suit_cards(s, h):
    return HALF_SUIT_MASKS[s[LAYOUT], h]


@njit(cache=True, inline="always")
def side_of(s, seat):
    """The side ``seat`` scores with: Literature always has two teams, by parity (contract)."""
    return team_of(seat)


@njit(cache=True, inline="always")
def team_cards(s, team):
    """Every card the seats of ``team`` hold."""
    mask = np.int64(0)
    for seat in range(team, s[NUM_PLAYERS], 2):
        mask |= s[HANDS + seat]
    return mask


@njit(cache=True, inline="always")
def holder(s, card):
    """The seat holding ``card``, -1 if nobody does (claimed, or not in the deck)."""
    for seat in range(s[NUM_PLAYERS]):
        if (s[HANDS + seat] >> card) & 1:
            return seat
    return -1


@njit(cache=True, inline="always")
def askable_cards(s, seat):
    """Cards ``seat`` may ask for: the others of each half-suit it holds a card of.

    With asks for one's own card (12.12, 12.13) his own cards of those
    half-suits too: holding the asked card meets the half-suit condition (V-L6).
    """
    hand = s[HANDS + seat]
    own = s[OWN_CARD_ASKS] != NO_OWN_CARD_ASKS
    mask = np.int64(0)
    for h in range(NUM_HALF_SUITS[s[LAYOUT]]):
        cards = HALF_SUIT_MASKS[s[LAYOUT], h]
        if hand & cards != 0:
            mask |= cards if own else cards & ~hand
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
    if s[FORCED_TEAM] >= 0:  # 12.15: declare a half-suit of the procedure, or pass
        for h in cards_in(s[FORCED_SET]):
            out[n] = CLAIM + h
            n += 1
        out[n] = DECLINE
        return n + 1
    if s[WINDOW_POLLS] > 0:  # 12.5, 12.17: a claim window polls this seat
        if s[CLAIM_ANY_TIME] == 1:
            n = _write_claims(s, out)
        out[n] = DECLINE
        return _write_claims(s, out, n + 1, CHALLENGE) if s[CHALLENGES] == 1 else n + 1
    team = team_of(seat)
    own_team_has_cards = team_cards(s, team) != 0
    other_team_has_cards = team_cards(s, 1 - team) != 0
    if s[PICKING_FOR] >= 0:  # 12.11: the opponent picks among the seat's teammates
        for mate in range(team_of(s[PICKING_FOR]), num_players, 2):
            if s[HANDS + mate] != 0:
                out[n] = PASS_TURN + mate
                n += 1
        return n
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
        n = _write_claims(s, out, n)
        return _write_claims(s, out, n, CHALLENGE) if s[CHALLENGES] == 1 else n
    elif not own_team_has_cards:  # ruling 5: name the opponent who must claim
        for other in range(1 - team, num_players, 2):
            # V-L3: with claims at any time, any seat of the other team
            if s[HANDS + other] != 0 or s[CLAIM_ANY_TIME] == 1:
                out[n] = PASS_TURN + other
                n += 1
        return n
    return _write_claims(s, out, n)


@njit(cache=True)
def _write_claims(s, out, n=0, first=CLAIM):
    """Append a claim (or, from ``first = CHALLENGE``, a challenge) of every unresolved
    half-suit to ``out[n:]``; return the new count."""
    for h in range(NUM_HALF_SUITS[s[LAYOUT]]):
        if s[STATUS + h] == UNRESOLVED:
            out[n] = first + h
            n += 1
    return n


@njit(cache=True, inline="always")
def unresolved_half_suits(s):
    """The half-suits still in play, as a mask (bit h)."""
    mask = np.int64(0)
    for h in range(NUM_HALF_SUITS[s[LAYOUT]]):
        if s[STATUS + h] == UNRESOLVED:
            mask |= np.int64(1) << h
    return mask


@njit(cache=True, inline="always")
def _seats_with_cards(s, first):
    """The seats ``first``, ``first + 2``, ... holding cards, as a mask (bit seat)."""
    seats = np.int64(0)
    for seat in range(first, s[NUM_PLAYERS], 2):
        if s[HANDS + seat] != 0:
            seats |= card_bit(seat)
    return seats


#: Every action from a claim on (CLAIM .. CHALLENGE + 8) fits one 64-bit mask from here.
HIGH_ACTIONS = CLAIM


@njit(cache=True, inline="always")
def _at(mask, first):
    """The actions ``first + i`` for ``i`` in ``mask``, as a mask from ``HIGH_ACTIONS``."""
    return mask << (first - HIGH_ACTIONS)


@njit(cache=True, inline="always")
def legal_action_set(s):
    """The legal actions as ``(targets, cards, high)``: ``64 * target + card`` for every
    target of ``targets`` and card of ``cards`` (asks; a deal's cards have target 0), then
    ``HIGH_ACTIONS + i`` for each ``i`` of ``high``. That is :func:`legal_actions`' ascending
    list, without writing it."""
    phase = s[PHASE]
    none = np.int64(0)
    if phase == DEALING:
        return np.int64(1), undealt_cards(s), none
    if phase == GAME_OVER:
        return none, none, none
    seat = s[TO_MOVE]
    num_players = s[NUM_PLAYERS]
    if phase == CLAIMING:
        mates = np.int64(0)
        for mate in range(team_of(s[CLAIMANT]), num_players, 2):
            mates |= card_bit(mate)
        return none, none, _at(mates, ASSIGN)
    if s[FORCED_TEAM] >= 0:  # 12.15
        return none, none, _at(s[FORCED_SET], CLAIM) | _at(np.int64(1), DECLINE)
    claims = _at(unresolved_half_suits(s), CLAIM)
    challenges = _at(unresolved_half_suits(s), CHALLENGE) if s[CHALLENGES] == 1 else none
    if s[WINDOW_POLLS] > 0:  # 12.5, 12.17
        window = claims if s[CLAIM_ANY_TIME] == 1 else none
        return none, none, window | _at(np.int64(1), DECLINE) | challenges
    team = team_of(seat)
    own_team_has_cards = team_cards(s, team) != 0
    other_team_has_cards = team_cards(s, 1 - team) != 0
    if s[PICKING_FOR] >= 0:  # 12.11
        return none, none, _at(_seats_with_cards(s, team_of(s[PICKING_FOR])), PASS_TURN)
    if own_team_has_cards and other_team_has_cards:
        if s[HANDS + seat] == 0:  # ruling 4
            return none, none, _at(_seats_with_cards(s, team), PASS_TURN)
        return _seats_with_cards(s, 1 - team), askable_cards(s, seat), claims | challenges
    elif not own_team_has_cards:  # ruling 5 (V-L3: with claims at any time, any seat)
        others = _seats_with_cards(s, 1 - team)
        if s[CLAIM_ANY_TIME] == 1:
            for other in range(1 - team, num_players, 2):
                others |= card_bit(other)
        return none, none, _at(others, PASS_TURN)
    return none, none, claims


@njit(cache=True, inline="always")
def random_action(s, stream):
    """A uniformly random legal action: the same draw as ``legal[random_below(stream, n)]``
    after :func:`legal_actions`, without the list."""
    targets, cards, high = legal_action_set(s)
    per_target = popcount(cards)
    low = popcount(targets) * per_target
    k = random_below(stream, low + popcount(high))
    if k >= low:
        return HIGH_ACTIONS + nth_card(high, k - low)
    target = lowest_card(targets)
    while k >= per_target:  # k // per_target and k % per_target, without dividing
        k -= per_target
        targets &= targets - 1
        target = lowest_card(targets)
    return 64 * target + nth_card(cards, k)


@njit(cache=True)
def apply_action(s, action):
    """Apply a legal action (chance: the dealt card id)."""
    _apply(s, action, True)


@njit(cache=True)
def apply_unrecorded(s, action):
    """:func:`apply_action` without the public log and knowledge, for play that reads
    neither (uniform random playouts): the game's course is the same, its record goes stale."""
    _apply(s, action, False)


@njit(cache=True, inline="always")
def _apply(s, action, record):
    """:func:`apply_action`; with ``record`` False the public log and knowledge are not kept
    (random play, which reads neither: the game's course is the same)."""
    phase = s[PHASE]
    if phase == DEALING:
        _deal_card(s, action)
    elif phase == CLAIMING:
        _assign(s, action - ASSIGN, record)
    elif action < CLAIM:
        _ask(s, action // 64, action % 64, record)
    elif action == DECLINE:
        if s[FORCED_TEAM] >= 0:
            _forced_pass(s, record)
        else:
            _next_poll(s)
    elif action >= CHALLENGE:
        _challenge(s, action - CHALLENGE, record)
    elif action < ASSIGN:
        if s[FORCED_TEAM] >= 0 and record:  # a declaration: its passes are public (12.15)
            _log(s, EVENT_FORCED | (s[TO_MOVE] << 2) | (FORCED_DECLARATION << 6)
                 | (s[FORCED_PASSES] << 8))
        s[PHASE] = CLAIMING
        s[CLAIMANT] = s[TO_MOVE]
        s[CLAIM_HALF_SUIT] = action - CLAIM
        s[CLAIM_COUNT] = 0
    else:
        target = action - PASS_TURN
        if record:
            _log(s, EVENT_PASS | (s[TO_MOVE] << 2) | (target << 6))
        s[TO_MOVE] = target
        s[PICKING_FOR] = -1
        _begin_turn(s)


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
def _log(s, event):
    s[LOG + s[LOG_LENGTH]] = event
    s[LOG_LENGTH] += 1


@njit(cache=True, inline="always")
def _deal_card(s, card):
    num_players = s[NUM_PLAYERS]
    seat = receiving_seat(s[DEALER], s[CARDS_DEALT], num_players)
    s[HANDS + seat] |= card_bit(card)
    record_deal(s, seat, card)
    if s[CARDS_DEALT] == popcount(s[DECK]):
        s[PHASE] = ASKING
        first = s[DEALER] + 1 if s[FIRST_ASK_LEFT_OF_DEALER] else s[DEALER]
        first = first - num_players if first >= num_players else first
        s[TO_MOVE] = first
        # LAST_TURN of the team not on turn before its first turn: its first seat in turn order
        s[LAST_TURN + team_of(first + 1)] = seat_after(first, 1, num_players)
        _begin_turn(s)


@njit(cache=True, inline="always")
def _ask(s, target, card, record):
    asker = s[TO_MOVE]
    bit = card_bit(card)
    success = s[HANDS + target] & bit != 0
    # 12.12: asking for one's own card hands it to the target, publicly; 12.13: a bluff that
    # fails like any ask the target cannot meet.
    surrendered = s[OWN_CARD_ASKS] == SURRENDER_OWN_CARD and s[HANDS + asker] & bit != 0
    if success:
        s[HANDS + target] &= ~bit
        s[HANDS + asker] |= bit
    else:
        s[TO_MOVE] = target
    if surrendered:
        s[HANDS + asker] &= ~bit
        s[HANDS + target] |= bit
    s[LAST_ASKER + target] = asker
    if record:
        _log(s, EVENT_ASK | (asker << 2) | (target << 6) | (card << 10)
             | (np.int64(success) << 16) | (np.int64(surrendered) << 17))
        K.observe_ask(knowledge_of(s), asker, target, card, success, surrendered,
                      s[OWN_CARD_ASKS] == BLUFF_OWN_CARD)
    s[ASKS] += 1
    if s[ASKS] >= s[MAX_ASKS]:
        _end_game(s)
    else:
        _begin_turn(s)


@njit(cache=True, inline="always")
def card_being_named(s):
    """In a claim, the card whose holder the claimant names next (the half-suit's in rank order)."""
    return cards_in(HALF_SUIT_MASKS[s[LAYOUT], s[CLAIM_HALF_SUIT]])[s[CLAIM_COUNT]]


@njit(cache=True, inline="always")
def _assign(s, seat, record):
    s[CLAIM_SEATS + s[CLAIM_COUNT]] = seat
    s[CLAIM_COUNT] += 1
    if s[CLAIM_COUNT] == popcount(HALF_SUIT_MASKS[s[LAYOUT], s[CLAIM_HALF_SUIT]]):
        _settle_claim(s, record)


@njit(cache=True, inline="always")
def claim_status(claimant_team, all_with_team, all_named_right, misclaim_to_opponents):
    """Ruling 3: the team scores, the opponents score, or the half-suit is void."""
    if not all_with_team:
        return 1 - claimant_team
    if all_named_right:
        return claimant_team
    return 1 - claimant_team if misclaim_to_opponents else VOID


@njit(cache=True, inline="always")
def _settle_claim(s, record):
    claimant = s[CLAIMANT]
    team = team_of(claimant)
    h = s[CLAIM_HALF_SUIT]
    cards = HALF_SUIT_MASKS[s[LAYOUT], h]
    count = popcount(cards)
    event = EVENT_CLAIM | (claimant << 2) | (h << 6)
    for i in range(count):
        event |= (s[CLAIM_SEATS + i] >> 1) << (_NAMED_SHIFT + 3 * i)
    event = _take_half_suit(s, cards, event)
    all_with_team = True
    all_named_right = True
    for i in range(count):
        seat = event_holder(event, i)
        all_with_team &= team_of(seat) == team
        all_named_right &= seat == s[CLAIM_SEATS + i]
    if s[CHALLENGER] >= 0:  # 12.17: right, the challenged team scores; wrong, the challengers
        status = team if all_named_right else team_of(s[CHALLENGER])
    else:
        status = claim_status(team, all_with_team, all_named_right, s[MISCLAIM_TO_OPPONENTS])
    _score(s, h, status)
    if record:
        in_window = s[WINDOW_POLLS] > 0 and s[FORCED_TEAM] < 0
        _log(s, event | (status << 10) | (np.int64(in_window) << 12))
        K.observe_claim(knowledge_of(s), h, shown_holders(event, count))
    s[CLAIMANT] = -1
    s[CLAIM_HALF_SUIT] = -1
    s[CLAIM_COUNT] = 0
    s[CLAIM_SEATS:CLAIM_SEATS + MAX_HALF_SUIT_SIZE] = -1
    s[PHASE] = ASKING
    if s[FORCED_TEAM] >= 0:
        s[FORCED_SET] &= ~(np.int64(1) << h)
        if s[FORCED_SET] != 0:  # 12.15: the procedure restarts from the declarer
            _start_forced(s, team, s[FORCED_SET], claimant, s[CHALLENGER])
            return
        _end_forced(s)
        return
    _resume(s, claimant)


@njit(cache=True, inline="always")
def _score(s, h, status):
    s[STATUS + h] = status
    if status != VOID:
        s[SCORES + status] += HALF_SUIT_VALUES[s[MAJOR_SETS_WORTH_TWO], h]


@njit(cache=True, inline="always")
def _resume(s, seat):
    """After ``seat``'s claim or challenge: the game ends with the last half-suit; a window
    polls on (12.5: the turn stays where it was); on turn, ``seat`` keeps it (ruling 3)."""
    if unresolved_half_suits(s) == 0:
        s[PHASE] = GAME_OVER
    elif s[WINDOW_POLLS] > 0:
        s[TO_MOVE] = seat
        _next_poll(s)
    else:
        s[TO_MOVE] = seat
        _begin_turn(s)


@njit(cache=True)
def _show_and_score(s, h, status, event, record):
    """Take half-suit h out of play for ``status``, its holders shown in ``event``."""
    cards = HALF_SUIT_MASKS[s[LAYOUT], h]
    event = _take_half_suit(s, cards, event)
    _score(s, h, status)
    if record:
        _log(s, event | (h << 8) | (status << 12))
        K.observe_claim(knowledge_of(s), h, shown_holders(event, popcount(cards)))


@njit(cache=True, inline="always")
def _take_half_suit(s, cards, event):
    """Take a half-suit's ``cards`` out of their holders' hands; ``event`` with the holders
    shown, in card order (:func:`event_holder`)."""
    i = 0
    cards_left = cards
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        seat = holder(s, card)
        event |= seat << (_HOLDER_SHIFT + 4 * i)
        s[HANDS + seat] &= ~card_bit(card)
        i += 1
    return event


@njit(cache=True)
def shown_holders(event, count):
    """The seats an event shows holding its half-suit's ``count`` cards, in card order."""
    holders = np.empty(count, dtype=np.int64)
    for i in range(count):
        holders[i] = event_holder(event, i)
    return holders


@njit(cache=True)
def _challenge(s, h, record):
    """12.17: the seat to move challenges the other team on h (V-L8: it works only against
    a team holding every card of h, which must then declare it in the forced procedure)."""
    challenger = s[TO_MOVE]
    challenged = 1 - team_of(challenger)
    cards = HALF_SUIT_MASKS[s[LAYOUT], h]
    event = EVENT_FORCED | (challenger << 2) | (FORCED_CHALLENGE << 6)
    if team_cards(s, challenged) & cards != cards:
        _show_and_score(s, h, challenged, event, record)
        _resume(s, challenger)
        return
    if record:
        _log(s, event | (h << 8) | (np.int64(MUST_DECLARE) << 12))
        K.observe_team_holds(knowledge_of(s), h, challenged)
    _start_forced(s, challenged, np.int64(1) << h, s[LAST_TURN + challenged], challenger)


@njit(cache=True)
def _start_forced(s, team, half_suits, first, challenger):
    """The forced procedure (``team``, ``half_suits``, from seat ``first``)."""
    s[FORCED_TEAM] = team
    s[FORCED_SET] = half_suits
    s[FORCED_PASSES] = 0
    s[CHALLENGER] = challenger
    s[TO_MOVE] = first


@njit(cache=True)
def _forced_pass(s, record):
    """A pass; once every seat of the team has passed twice per half-suit (2 m F = N F
    nodes), the other team scores every half-suit of the procedure (holders shown)."""
    team = s[FORCED_TEAM]
    s[FORCED_PASSES] += 1
    if s[FORCED_PASSES] < s[NUM_PLAYERS] * popcount(s[FORCED_SET]):  # 2 m F = N F
        s[TO_MOVE] = seat_after(s[TO_MOVE], 2, s[NUM_PLAYERS])
        return
    if s[CHALLENGER] >= 0:
        other = team_of(s[CHALLENGER])
    else:
        other = 1 - team
    for h in cards_in(s[FORCED_SET]):
        _show_and_score(s, h, other, EVENT_FORCED | (s[TO_MOVE] << 2) | (FORCED_FORFEIT << 6),
                        record)
    s[FORCED_SET] = 0
    _end_forced(s)


@njit(cache=True)
def _end_forced(s):
    """The procedure is over: a challenge's play resumes where it stopped; the endgame's ends."""
    challenger = s[CHALLENGER]
    s[FORCED_TEAM] = -1
    s[FORCED_PASSES] = 0
    s[CHALLENGER] = -1
    if challenger >= 0:
        _resume(s, challenger)
    else:
        s[PHASE] = GAME_OVER  # the endgame's procedure resolves every half-suit left


@njit(cache=True, inline="always")
def both_teams_hold_cards(s):
    return team_cards(s, 0) != 0 and team_cards(s, 1) != 0


@njit(cache=True, inline="always")
def _begin_turn(s):
    """The turn structure before the decision of the seat on turn (``TO_MOVE``).

    With claims at any time or challenges (12.5, V-L2; 12.17, V-L9) a claim
    window first polls the other seats in turn order while both teams hold
    cards; then the decision (:func:`_decide`).
    """
    s[LAST_TURN + team_of(s[TO_MOVE])] = s[TO_MOVE]
    if (s[CLAIM_ANY_TIME] == 1 or s[CHALLENGES] == 1) and both_teams_hold_cards(s):
        s[TURN_SEAT] = s[TO_MOVE]
        s[WINDOW_POLLS] = s[NUM_PLAYERS] - 1
        s[TO_MOVE] = seat_after(s[TO_MOVE], 1, s[NUM_PLAYERS])
        return
    _decide(s)


@njit(cache=True, inline="always")
def _decide(s):
    """The decision of the seat on turn: once a team holds no cards under 12.15, the forced
    procedure of the team holding them, from LAST_TURN(team); else (12.11) an opponent may
    pick for an empty-handed seat."""
    if s[FORCED_CLAIMS] == 1 and not both_teams_hold_cards(s):
        team = 0 if team_cards(s, 0) != 0 else 1
        _start_forced(s, team, unresolved_half_suits(s), s[LAST_TURN + team], -1)
        return
    _let_an_opponent_pick(s, s[TO_MOVE])


@njit(cache=True)
def _next_poll(s):
    """12.5: the next seat of the window, or, after the last one or once a team holds no
    cards, the decision of the seat on turn."""
    s[WINDOW_POLLS] -= 1
    if s[WINDOW_POLLS] > 0 and both_teams_hold_cards(s):
        s[TO_MOVE] = seat_after(s[TO_MOVE], 1, s[NUM_PLAYERS])
        return
    s[WINDOW_POLLS] = 0
    s[TO_MOVE] = s[TURN_SEAT]
    _decide(s)


@njit(cache=True, inline="always")
def _let_an_opponent_pick(s, seat):
    """12.11: an empty-handed seat on turn, both teams holding cards: the opponent who last
    asked it decides who takes the turn (V-L5: nobody asked it, it decides itself).

    Only a claim can leave the seat on turn without cards (an ask or a hand-off
    gives the turn to a seat holding cards), so this is checked after claims.
    """
    if s[OPPONENT_PICKS] == 0 or s[HANDS + seat] != 0 or s[LAST_ASKER + seat] < 0:
        return
    team = team_of(seat)
    if team_cards(s, team) == 0 or team_cards(s, 1 - team) == 0:
        return
    s[PICKING_FOR] = seat
    s[TO_MOVE] = s[LAST_ASKER + seat]


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
def event_surrendered(event):
    """An ask for the asker's own card, which went to the target (12.12)."""
    return (event >> 17) & 1 == 1


@njit(cache=True)
def event_in_window(event):
    """A claim made in a claim window (12.5)."""
    return (event >> 12) & 1 == 1


@njit(cache=True)
def event_status(event):
    """The status after a claim, challenge or forfeit (a challenge's MUST_DECLARE: the
    challenged team holds the half-suit and must declare it)."""
    return (event >> (10 if event_kind(event) == EVENT_CLAIM else 12)) & 3


@njit(cache=True)
def event_forced_kind(event):
    """A forced event's kind: FORCED_CHALLENGE, FORCED_FORFEIT or FORCED_DECLARATION."""
    return (event >> 6) & 3


@njit(cache=True)
def event_half_suit(event):
    """The half-suit of a claim, challenge or forfeit."""
    return (event >> 6) & 15 if event_kind(event) == EVENT_CLAIM else (event >> 8) & 15


@njit(cache=True)
def event_passes(event):
    """A declaration's passes since the forced procedure (re)started."""
    return (event >> 8) & 255


@njit(cache=True)
def event_shows_holders(event):
    """Claims, forfeits and challenges the challenged team did not hold show every holder."""
    kind = event_kind(event)
    if kind == EVENT_CLAIM:
        return True
    if kind != EVENT_FORCED:
        return False
    forced = event_forced_kind(event)
    return forced == FORCED_FORFEIT or (forced == FORCED_CHALLENGE
                                        and event_status(event) != MUST_DECLARE)


@njit(cache=True)
def event_named_seat(event, i):
    """The seat a claim named for its i-th card: a teammate of the claimant."""
    return (event_actor(event) & 1) + 2 * ((event >> (_NAMED_SHIFT + 3 * i)) & 7)


@njit(cache=True)
def event_holder(event, i):
    """The seat shown to hold a claim's i-th card."""
    return (event >> (_HOLDER_SHIFT + 4 * i)) & 15


# ---- Batched random play -----------------------------------------------------------------------
@njit(cache=True)
def play_random_games(template, num_games, stream, results):
    """Play ``num_games`` complete uniformly random games from ``template`` inside numba.

    ``results[i]`` receives team 0's score, team 1's score, the number of asks
    and the number of half-suits voided. Returns the number of actions applied,
    chance included. The games are those of ``apply_action`` on ``legal[random_below(stream,
    n)]``; the public log and knowledge, which nothing here reads, are not kept.
    """
    steps = 0
    s = template.copy()
    for i in range(num_games):
        copy_state(s[:KNOWLEDGE], template[:KNOWLEDGE])  # the knowledge and the log stay unwritten
        while s[PHASE] != GAME_OVER:
            _apply(s, random_action(s, stream), False)
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
    while s[PHASE] == DEALING:
        apply_action(s, random_action(s, stream))
    return s


# ---- Hidden information --------------------------------------------------------------------------
@njit(cache=True)
def private_knowledge(s, seat):
    """What ``seat`` knows: the public knowledge plus its own hand, propagated."""
    view = np.empty(K.KNOWLEDGE_SIZE, dtype=np.int64)
    K.private_view(knowledge_of(s), seat, s[HANDS + seat], view)
    return view
