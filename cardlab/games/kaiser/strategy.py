"""A rule-based Kaiser player, compiled with numba.

It reads only what its seat may know: its own hand, the bidding, the trump
and the cards played. Bidding estimates the points the hand can take with
partners of average strength (none when each seat plays alone, 11.12,
11.13); play follows the old table advice: win a trick as cheaply as
possible, give the 5 of hearts to your partners and never to the opponents,
and get rid of the 3 of spades on an opponents' trick. In the forms
(11.7-11.9) the same advice serves their order and their point cards (KH,
KS), and where the first lead fixes trump the declarer leads the top card of
his best suit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, cards_in, popcount
from cardlab.core.cards import NINE, QUEEN, SUIT_MASKS, suit_of
from cardlab.core.layout import NUM_PLAYERS
from cardlab.core.tricks import trick_winner
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.rules import (
    BID,
    BONUS_CARD,
    BONUS_POINTS,
    FIVE_OF_HEARTS,
    KAISER_40_RANK,
    KAISER_RANK,
    MAX_SEATS,
    MISDEAL,
    NAME_TRUMP,
    PASS,
    PENALTY_CARD,
    PENALTY_POINTS,
    PLAY_HIGH,
    PLAY_LOW,
    POINTS_PER_HAND,
    THREE_OF_SPADES,
    WITH_TRUMP,
)

PARTNER_EXPECTED_POINTS = 2.5  # what an unknown partner adds on average (four players)
PILES_EXPECTED_POINTS = 4.5  # two players: the own face-down piles, half the cards of a 9-point share
KAISER_BID_ESTIMATE = 9.0  # no-trump points a hand needs for bid 99 (seven tricks and the 5H)
KAISER_40_ESTIMATE = 10.0  # ... and for bid 100, every trick alone


@njit(cache=True)
def places_from_top(strength, card):
    """How many ranks of its suit stand above ``card`` in ``strength`` (0: an ace, or a form's 7)."""
    return np.max(strength) - strength[card]


@njit(cache=True)
def suit_score(hand, suit, strength):
    """How well ``suit`` would serve as trump: length first, then high cards."""
    cards = hand & SUIT_MASKS[suit]
    score = 2.0 * popcount(cards)
    for card in cards_in(cards):
        place = places_from_top(strength, card)
        if place == 0:
            score += 1.5
        elif place == 1:
            score += 1.0
        elif place == 2:
            score += 0.5
    return score


@njit(cache=True)
def best_trump_suit(hand, strength):
    best = 0
    best_score = -1.0
    for suit in range(4):
        score = suit_score(hand, suit, strength)
        if score > best_score:
            best = suit
            best_score = score
    return best


@njit(cache=True)
def estimated_points(s, hand, trump):
    """Points the hand should take by itself with ``trump`` (NO_TRUMP: -1), by the game's high
    order and point cards (the 5H and 3S, or a form's KH and KS)."""
    strength = E.high_strength(s)
    bonus = E.bonus_card(s)
    points = 0.0
    for suit in range(4):
        cards = hand & SUIT_MASKS[suit]
        length = popcount(cards)
        for card in cards_in(cards):
            place = places_from_top(strength, card)
            if place == 0:
                points += 1.0
            elif place == 1 and length >= 2:
                points += 0.7
            elif place == 2 and length >= 3:
                points += 0.4
            elif place == 3 and length >= 4:
                points += 0.2
        if suit == trump:
            points += 0.6 * max(length - 2, 0)
        elif trump >= 0 and length <= 1:
            points += 0.3 * (2 - length)  # short side suits let trumps ruff
    if (hand >> bonus) & 1:  # worth 1.5 for a 5-point card, more when its suit is trump
        points += 0.3 * BONUS_POINTS[s[E.FORM]] + (0.5 if trump == suit_of(bonus) else 0.0)
    if (hand >> E.penalty_card(s)) & 1:
        points -= 1.0
    return points


@njit(cache=True)
def partners_expected_points(s):
    """What the seat's unknown partners add on average: a fair share of the hand's points each
    (PARTNER_EXPECTED_POINTS with four players, nothing for a seat playing alone); two players
    count on their own unseen piles instead (11.11)."""
    if E.has_piles(s):
        return PILES_EXPECTED_POINTS
    players = s[E.NUM_PLAYERS]
    partners = players // s[E.NUM_SIDES] - 1
    return partners * POINTS_PER_HAND / players


@njit(cache=True)
def partner_holds_contract(s, seat):
    """Another seat of this seat's side is the declarer."""
    declarer = s[E.DECLARER]
    return declarer >= 0 and declarer != seat and E.side_of(s, declarer) == E.side_of(s, seat)


@njit(cache=True)
def choose_kaiser_bid(s, seat, is_dealer):
    """Bid 100 or 99 with an overwhelming no-trump hand holding the 5H and not the 3S, else -1."""
    hand = s[E.HANDS + seat]
    if not (hand >> FIVE_OF_HEARTS) & 1 or (hand >> THREE_OF_SPADES) & 1:
        return -1
    own = estimated_points(s, hand, -1)
    if s[E.KAISER_40] and own >= KAISER_40_ESTIMATE and E.may_bid(s, KAISER_40_RANK, is_dealer):
        return BID + KAISER_40_RANK
    if s[E.KAISER_BID_TEAM]:
        own += PARTNER_EXPECTED_POINTS
    if E.offers_kaiser_bid(s) and own >= KAISER_BID_ESTIMATE and E.may_bid(s, KAISER_RANK, is_dealer):
        return BID + KAISER_RANK
    return -1


@njit(cache=True)
def choose_bid(s, seat):
    hand = s[E.HANDS + seat]
    if E.may_throw_in(s, seat):
        return MISDEAL
    is_dealer = seat == s[E.DEALER]
    kaiser = choose_kaiser_bid(s, seat, is_dealer)
    if kaiser >= 0:
        return kaiser
    trump = best_trump_suit(hand, E.high_strength(s))
    partners = partners_expected_points(s)
    with_trump = estimated_points(s, hand, trump) + partners
    no_trump = estimated_points(s, hand, -1) + partners - 1.0
    best_rank = -1
    for value in range(s[E.MIN_BID], s[E.TOP_BID] + 1):
        for kind in range(min(E.bid_kinds(s), 2)):  # never low no trump; the forms: trump only
            estimate = with_trump if kind == WITH_TRUMP else no_trump
            if estimate < value:
                continue
            rank = 3 * value + kind
            if E.may_bid(s, rank, is_dealer):
                best_rank = max(best_rank, rank)
    # Do not outbid a partner who holds the contract by a single step: his bid is ours.
    if partner_holds_contract(s, seat) and best_rank < s[E.HIGH_BID] + 6:
        best_rank = -1
    if best_rank >= 0:
        # Bid only what is needed: the cheapest winning rank of the same kind.
        kind = best_rank % 3
        for value in range(s[E.MIN_BID], s[E.TOP_BID] + 1):
            rank = 3 * value + kind
            if E.may_bid(s, rank, is_dealer):
                return BID + rank
    if is_dealer and s[E.HIGH_BID] < 0 and not s[E.DEALER_MAY_PASS]:
        return BID + 3 * s[E.MIN_BID] + WITH_TRUMP  # forced: the cheapest bid
    return PASS


@njit(cache=True)
def highest_unplayed(s, suit, excluding):
    """The highest card of ``suit`` not yet played and not in ``excluding``."""
    remaining = s[E.DECK] & SUIT_MASKS[suit] & ~s[E.PLAYED] & ~excluding
    best = -1
    best_strength = -100
    strength = E.card_strength(s)
    for card in cards_in(remaining):
        if strength[card] > best_strength:
            best = card
            best_strength = strength[card]
    return best


@njit(cache=True)
def is_master(s, card):
    """True when no unplayed card of the suit outside our own hand beats ``card``."""
    seat = s[E.TO_MOVE]
    strength = E.card_strength(s)
    others = s[E.DECK] & SUIT_MASKS[suit_of(card)] & ~s[E.PLAYED] & ~s[E.HANDS + seat]
    for other in cards_in(others):
        if strength[other] > strength[card]:
            return False
    return True


@njit(cache=True)
def choose_lead(s, seat, choices):
    strength = E.card_strength(s)
    trump = s[E.TRUMP]
    bonus, penalty = E.bonus_card(s), E.penalty_card(s)
    declaring = E.side_of(s, s[E.DECLARER]) == E.side_of(s, seat)
    if E.trump_to_be_led(s):  # the first lead fixes trump (11.8, 11.9): lead the best suit's top
        suit_cards = choices & SUIT_MASKS[best_trump_suit(choices, strength)]
        pool = suit_cards & ~card_bit(bonus) & ~card_bit(penalty)
        return highest_of(strength, pool if pool != 0 else suit_cards)
    # Declarers draw trumps with a master trump.
    if declaring and trump >= 0:
        for card in cards_in(choices & SUIT_MASKS[trump]):
            if is_master(s, card) and card != bonus:
                return card
    # Cash a master in a side suit.
    best = -1
    for card in cards_in(choices):
        if suit_of(card) == trump or card == bonus:
            continue
        if is_master(s, card):
            if best < 0 or strength[card] > strength[best]:
                best = card
    if best >= 0:
        return best
    # Otherwise a low card of the longest side suit, keeping the 5H and 3S out of it.
    best_suit = -1
    best_length = -1
    for suit in range(4):
        if suit == trump:
            continue
        length = popcount(choices & SUIT_MASKS[suit] & ~card_bit(bonus))
        if length > best_length:
            best_length = length
            best_suit = suit
    pool = choices & ~card_bit(bonus) & ~card_bit(penalty)
    if best_suit >= 0 and pool & SUIT_MASKS[best_suit] != 0:
        pool = pool & SUIT_MASKS[best_suit]
    if pool == 0:
        pool = choices
    return lowest_of(strength, pool)


@njit(cache=True)
def highest_of(strength, cards):
    """The strongest card of ``cards`` by ``strength``."""
    best = -1
    for card in cards_in(cards):
        if best < 0 or strength[card] > strength[best]:
            best = card
    return best


@njit(cache=True)
def lowest_of(strength, cards):
    """The weakest card of ``cards`` by the contract's strength order."""
    best = -1
    for card in cards_in(cards):
        if best < 0 or strength[card] < strength[best]:
            best = card
    return best


@njit(cache=True)
def choose_follow(s, seat, choices):
    strength = E.card_strength(s)
    trump = s[E.TRUMP]
    position = s[E.TRICK_SIZE]
    players = s[NUM_PLAYERS]
    trick = np.empty(MAX_SEATS, dtype=np.int64)
    for i in range(position):
        trick[i] = s[E.TRICK + i]
    leader = s[E.TRICK_LEADER]
    winning = trick_winner(trick, position, trump, 0, strength)
    partner_winning = E.side_of(s, (leader + winning) % players) == E.side_of(s, seat)
    is_last = position == players - 1
    form = s[E.FORM]
    bonus, penalty = BONUS_CARD[form], PENALTY_CARD[form]
    holds_five = False
    trick_value = 1
    for i in range(position):
        if trick[i] == bonus:
            trick_value += BONUS_POINTS[form]
            holds_five = True
        elif trick[i] == penalty:
            trick_value += PENALTY_POINTS[form]
    # Partner already winning safely: feed him the 5H, else play low (keep the 3S away).
    partner_safe = partner_winning and (is_last or is_master_in_trick(s, trick[winning], trump))
    if partner_safe:
        if (choices >> bonus) & 1:
            return bonus
        pool = choices & ~card_bit(penalty)
        return lowest_of(strength, pool if pool != 0 else choices)
    # Cards that would take the trick, cheapest first.
    cheapest_winner = -1
    for card in cards_in(choices):
        trick[position] = card
        if trick_winner(trick, position + 1, trump, 0, strength) == position:
            if cheapest_winner < 0 or _cost(card, trump, strength) < _cost(
                cheapest_winner, trump, strength
            ):
                cheapest_winner = card
    worth_winning = trick_value + (BONUS_POINTS[form] if (choices >> bonus) & 1 else 0) > -1
    if cheapest_winner >= 0 and not partner_winning and worth_winning:
        # Last to play, or a winner nobody can beat: take it.
        if is_last or is_master_in_trick(s, cheapest_winner, trump) or holds_five:
            return cheapest_winner
    # Losing the trick: unload the 3S on the opponents, never the 5H.
    if not partner_winning and (choices >> penalty) & 1:
        return penalty
    pool = choices & ~card_bit(bonus)
    if partner_winning:
        pool &= ~card_bit(penalty)
    if pool == 0:
        pool = choices
    return lowest_of(strength, pool)


@njit(cache=True)
def _cost(card, trump, strength):
    """What spending ``card`` costs: trumps cost more than side cards."""
    return strength[card] + (20 if suit_of(card) == trump else 0)


@njit(cache=True)
def is_master_in_trick(s, card, trump):
    """``card`` cannot be beaten by any card still unseen (no ruff considered for side suits)."""
    seat = s[E.TO_MOVE]
    strength = E.card_strength(s)
    unseen = s[E.DECK] & ~s[E.PLAYED] & ~s[E.HANDS + seat]
    for other in cards_in(unseen & SUIT_MASKS[suit_of(card)]):
        if strength[other] > strength[card]:
            return False
    if trump >= 0 and suit_of(card) != trump and unseen & SUIT_MASKS[trump] != 0:
        return False
    return True


@njit(cache=True)
def choose_discard(s):
    """The weakest card the declarer may discard next, a trump only when nothing else is left."""
    choices = E.discard_choices(s)
    trump = s[E.TRUMP]
    side = choices & ~SUIT_MASKS[trump] if trump >= 0 else choices
    return lowest_of(E.card_strength(s), side if side != 0 else choices)


@njit(cache=True)
def prefers_low(hand):
    """Low when the hand holds more of the lowest cards (7, 8, 9) than of the highest (A, K, Q)."""
    high = 0
    low = 0
    for card in cards_in(hand & ~card_bit(FIVE_OF_HEARTS) & ~card_bit(THREE_OF_SPADES)):
        rank = card % 13
        if rank >= QUEEN:
            high += 1
        elif rank <= NINE:
            low += 1
    return low > high


@njit(cache=True)
def partner_plays_alone(s, seat):
    """The partner declared a bid he must make without a trick from this seat (11.29, 11.31)."""
    bid = s[E.HIGH_BID]
    return partner_holds_contract(s, seat) and (
        bid == KAISER_40_RANK or (bid == KAISER_RANK and s[E.KAISER_BID_SOLO]))


@njit(cache=True)
def play_under_partner(s, seat, choices):
    """Stay out of the partner's way: the 5H onto his winning trick, otherwise the lowest card."""
    strength = E.card_strength(s)
    position = s[E.TRICK_SIZE]
    players = s[NUM_PLAYERS]
    if position > 0 and (choices >> FIVE_OF_HEARTS) & 1:
        winning = trick_winner(s[E.TRICK:E.TRICK + players], position, s[E.TRUMP], 0, strength)
        if partner_holds_contract(s, seat) and (s[E.TRICK_LEADER] + winning) % players == s[E.DECLARER]:
            return FIVE_OF_HEARTS
    pool = choices & ~card_bit(FIVE_OF_HEARTS)
    return lowest_of(strength, pool if pool != 0 else choices)


@njit(cache=True)
def rules_action(s, stream):
    """The rule-based action for the player to move (``stream`` is unused: it is deterministic)."""
    seat = s[E.TO_MOVE]
    phase = s[E.PHASE]
    if phase == E.BIDDING:
        return choose_bid(s, seat)
    if phase == E.NAMING_TRUMP:
        return NAME_TRUMP + best_trump_suit(s[E.HANDS + seat], E.high_strength(s))
    if phase == E.HIGH_OR_LOW:
        return PLAY_LOW if prefers_low(s[E.HANDS + seat]) else PLAY_HIGH
    if phase == E.DISCARDING:
        return choose_discard(s)
    choices = E.playable_cards(s, seat)
    if partner_plays_alone(s, seat):  # any trick this seat wins breaks the partner's bid
        return play_under_partner(s, seat, choices)
    if s[E.TRICK_SIZE] == 0:
        return choose_lead(s, seat, choices)
    return choose_follow(s, seat, choices)


@njit(cache=True)
def bidding_mismatches(world, observer):
    """How many bids by the others in ``world`` the rule-based player would not have made.

    A search that assumes the others bid like this player weights each
    sampled world by how well it explains their bids (a world in which a
    player who bid 9 holds nothing is unlikely). Each seat's bidding hand is
    the hand it was dealt.
    """
    dealer = world[E.DEALER]
    parameters = E.parameter_values(world)  # FIRST_DEALER and MATCH lead the slots
    parameters[E.FIRST_DEALER - E.PARAMETERS] = dealer
    parameters[E.MATCH - E.PARAMETERS] = 0
    s = E.new_state(parameters)
    players = s[NUM_PLAYERS]
    for seat in range(players):
        s[E.HANDS + seat] = s[E.DEALT + seat] = world[E.DEALT + seat]
    s[E.CARDS_DEALT] = E.cards_to_deal(s)
    s[E.PHASE] = E.BIDDING
    s[E.TO_MOVE] = (dealer + 1) % players
    mismatches = 0
    unused = np.zeros(1, dtype=np.uint64)
    for k in range(players):
        seat = (dealer + 1 + k) % players
        actual = world[E.SPOKEN + seat]
        if actual < 0:
            break
        if seat != observer and rules_action(s, unused) != actual:
            mismatches += 1
        E.apply_action(s, actual)
    return mismatches
