"""A rule-based Kaiser player, compiled with numba.

It reads only what its seat may know: its own hand, the bidding, the trump
and the cards played. Bidding estimates the points the hand can take with
partners of average strength (none when each seat plays alone, 11.12,
11.13); play follows the old table advice: win a trick as cheaply as
possible, give the 5 of hearts to your partners and never to the opponents,
and get rid of the 3 of spades on an opponents' trick. In the forms
(11.7-11.9) the same advice serves their order and their point cards (KH,
KS), and where the first lead fixes trump the declarer leads the top card of
his best suit. In Lost Heir (11.10) the Lost Heir counts as a sure trick and a
trump, the blanks as nothing; a player free to play a blank drops it on a
trick where it cancels the other side's Lost Heir or his own side's Wrong Boy,
and otherwise keeps it; the Wrong Boy is thrown away only where it cannot win
(it is a trump); the dealer sells the bid unless declaring is worth more to
his side than the sale (:func:`choose_sale`).

Giving cards (11.32-11.35): a seat decides at its first giving node which c
cards it gives and then gives them in ascending order. To its partner it
gives its strongest cards by the game's order (aces first), never the 3S
(the points it costs are the side's either way, and the partner would have
to get rid of it) nor the 5H (it scores for the side wherever it is). To an
opponent (11.34's left and right) it gives the 3S first, since the trick
that takes it costs the receiver's side 3 points, then its weakest cards,
and never the 5H. The forms' point cards (KH, KS) take the places of the 5H
and 3S. A hand that may be thrown in is thrown in, as in the auction.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core import tricks
from cardlab.core.bitboard import card_bit, lowest_card, popcount
from cardlab.core.cards import NINE, QUEEN, SUIT_MASKS, suit_of
from cardlab.core.kernel import borrowing_kernel
from cardlab.core.layout import NUM_PLAYERS
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.rules import (
    BID,
    BLANKS,
    BONUS_CARD,
    BONUS_POINTS,
    FIVE_OF_HEARTS,
    KAISER_40_RANK,
    KAISER_RANK,
    KING_OF_HEARTS,
    KING_OF_SPADES,
    LOST_HEIR,
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
    TRUMP_SPECIALS,
    WITH_TRUMP,
)

PARTNER_EXPECTED_POINTS = 2.5  # what an unknown partner adds on average (four players)
PILES_EXPECTED_POINTS = 4.5  # two players: the own face-down piles, half the cards of a 9-point share
KAISER_BID_ESTIMATE = 9.0  # no-trump points a hand needs for bid 99 (seven tricks and the 5H)
KAISER_40_ESTIMATE = 10.0  # ... and for bid 100, every trick alone


@borrowing_kernel
def top_strength(strength):
    """The strength of a suit's top card (an ace, or a form's 7): ``top_strength(strength) -
    strength[card]`` is how many ranks of its suit stand above ``card``.

    Found by a loop (``np.max`` allocates an iterator, which a borrowing kernel may not),
    once per hand evaluated: it reads the whole table."""
    top = strength[0]
    for other in range(1, len(strength)):
        top = max(top, strength[other])
    return top


@borrowing_kernel
def in_suit_order(cards, strength):
    """The cards of ``cards`` that rank in their printed suit (``strength`` >= 0): all of them but
    Lost Heir's four kings, which belong to the trump suit or to none (V-K13)."""
    kept = np.int64(0)
    cards_left = cards
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if strength[card] >= 0:
            kept |= card_bit(card)
    return kept


@borrowing_kernel
def suit_score(hand, suit, strength, top):
    """How well ``suit`` would serve as trump: length first, then high cards (``top``:
    :func:`top_strength`)."""
    cards = in_suit_order(hand & SUIT_MASKS[suit], strength)
    score = 2.0 * popcount(cards)
    cards_left = cards
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        place = top - strength[card]
        if place == 0:
            score += 1.5
        elif place == 1:
            score += 1.0
        elif place == 2:
            score += 0.5
    return score


@borrowing_kernel
def best_trump_suit(hand, strength):
    best = 0
    best_score = -1.0
    top = top_strength(strength)
    for suit in range(4):
        score = suit_score(hand, suit, strength, top)
        if score > best_score:
            best = suit
            best_score = score
    return best


@borrowing_kernel
def estimated_points(s, hand, trump):
    """Points the hand should take by itself with ``trump`` (NO_TRUMP: -1), by the game's high
    order and point cards (the 5H and 3S, or a form's KH and KS). Lost Heir's Lost Heir is a
    sure trick and, with the Wrong Boy, one more trump; its blanks take nothing."""
    strength = E.high_strength(s)
    bonus = E.bonus_card(s)
    lost_heir = s[E.FORM] == LOST_HEIR
    top = top_strength(strength)
    points = 0.0
    for suit in range(4):
        cards = in_suit_order(hand & SUIT_MASKS[suit], strength)
        length = popcount(cards)
        cards_left = cards
        while cards_left != 0:
            card = lowest_card(cards_left)
            cards_left &= cards_left - 1
            place = top - strength[card]
            if place == 0:
                points += 1.0
            elif place == 1 and length >= 2:
                points += 0.7
            elif place == 2 and length >= 3:
                points += 0.4
            elif place == 3 and length >= 4:
                points += 0.2
        if suit == trump:
            length += popcount(hand & TRUMP_SPECIALS) if lost_heir else 0
            points += 0.6 * max(length - 2, 0)
        elif trump >= 0 and length <= 1:
            points += 0.3 * (2 - length)  # short side suits let trumps ruff
    if (hand >> bonus) & 1:  # worth 1.5 for a 5-point card, more when its suit is trump
        points += 0.3 * BONUS_POINTS[s[E.FORM]] + (1.0 if lost_heir else 0.5 if trump == suit_of(bonus)
                                                    else 0.0)
    if (hand >> E.penalty_card(s)) & 1:
        points -= 1.0
    return points


@borrowing_kernel
def partners_expected_points(s):
    """What the seat's unknown partners add on average: a fair share of the hand's points each
    (PARTNER_EXPECTED_POINTS with four players, nothing for a seat playing alone); two players
    count on their own unseen piles instead (11.11)."""
    if E.has_piles(s):
        return PILES_EXPECTED_POINTS
    players = s[E.NUM_PLAYERS]
    partners = players // s[E.NUM_SIDES] - 1
    return partners * POINTS_PER_HAND / players


@borrowing_kernel
def partner_holds_contract(s, seat):
    """Another seat of this seat's side is the declarer."""
    declarer = s[E.DECLARER]
    return declarer >= 0 and declarer != seat and E.side_of(s, declarer) == E.side_of(s, seat)


@borrowing_kernel
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


@borrowing_kernel
def declaring_estimate(s, hand):
    """The points the seat's side should take declaring with the hand's best suit as trump."""
    trump = best_trump_suit(hand, E.high_strength(s))
    return estimated_points(s, hand, trump) + partners_expected_points(s)


@borrowing_kernel
def choose_sale(s, seat):
    """The Lost Heir dealer (V-K15): accept (52) or refuse (declare at v), or declare at m.

    Selling pays v at once and his side still scores all it takes; refusing pays only if his
    side makes v, and what it gains by declaring (trump of its choice and the lead) counts
    twice, for it and no longer for the others. So he refuses only an opponent's bid, when he
    expects to make it and declaring gains more than half the bid over defending.
    """
    hand = s[E.HANDS + seat]
    as_declarer = declaring_estimate(s, hand)
    if s[E.HIGH_BID] < 0:
        if s[E.DEALER_MAY_PASS] and as_declarer < s[E.MIN_BID]:
            return PASS
        return BID + 3 * s[E.MIN_BID] + WITH_TRUMP
    value = s[E.HIGH_BID] // 3
    defending = estimated_points(s, hand, -1) + partners_expected_points(s)
    if partner_holds_contract(s, seat) or as_declarer < value or 2.0 * (as_declarer - defending) <= value:
        return PASS
    return BID + s[E.HIGH_BID]


@borrowing_kernel
def choose_bid(s, seat):
    hand = s[E.HANDS + seat]
    if E.may_throw_in(s, seat):
        return MISDEAL
    is_dealer = seat == s[E.DEALER]
    if is_dealer and s[E.FORM] == LOST_HEIR:
        return choose_sale(s, seat)
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


@borrowing_kernel
def highest_unplayed(s, suit, excluding):
    """The highest card of ``suit`` not yet played and not in ``excluding``."""
    remaining = s[E.DECK] & E.suit_cards(s, suit) & ~s[E.PLAYED] & ~excluding
    best = -1
    best_strength = -100
    strength = E.card_strength(s)
    cards_left = remaining
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if strength[card] > best_strength:
            best = card
            best_strength = strength[card]
    return best


@borrowing_kernel
def is_master(s, card):
    """True when no unplayed card of the suit outside our own hand beats ``card``."""
    seat = s[E.TO_MOVE]
    strength = E.card_strength(s)
    others = s[E.DECK] & E.suit_cards(s, E.card_suit(s, card)) & ~s[E.PLAYED] & ~s[E.HANDS + seat]
    others_left = others
    while others_left != 0:
        other = lowest_card(others_left)
        others_left &= others_left - 1
        if strength[other] > strength[card]:
            return False
    return True


@borrowing_kernel
def choose_lead(s, seat, choices):
    strength = E.card_strength(s)
    trump = s[E.TRUMP]
    bonus, penalty = E.bonus_card(s), E.penalty_card(s)
    declaring = E.side_of(s, s[E.DECLARER]) == E.side_of(s, seat)
    if E.trump_to_be_led(s):  # the first lead fixes trump (11.8-11.10): lead the best suit's top
        suit_cards = choices & SUIT_MASKS[best_trump_suit(choices, E.high_strength(s))]
        pool = suit_cards & ~card_bit(bonus) & ~card_bit(penalty)
        return highest_of(strength, pool if pool != 0 else suit_cards)
    # Declarers draw trumps with a master trump.
    if declaring and trump >= 0:
        cards_left = choices & E.suit_cards(s, trump)
        while cards_left != 0:
            card = lowest_card(cards_left)
            cards_left &= cards_left - 1
            if is_master(s, card) and card != bonus:
                return card
    # Cash a master in a side suit.
    best = -1
    cards_left = choices
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        suit = E.card_suit(s, card)
        if suit < 0 or suit == trump or card == bonus:
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
        length = popcount(choices & E.suit_cards(s, suit) & ~card_bit(bonus))
        if length > best_length:
            best_length = length
            best_suit = suit
    pool = choices & ~card_bit(bonus) & ~card_bit(penalty)
    if best_suit >= 0 and pool & E.suit_cards(s, best_suit) != 0:
        pool = pool & E.suit_cards(s, best_suit)
    if pool == 0:
        pool = choices
    return lowest_of(strength, pool)


@borrowing_kernel
def highest_of(strength, cards):
    """The strongest card of ``cards`` by ``strength``."""
    best = -1
    cards_left = cards
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if best < 0 or strength[card] > strength[best]:
            best = card
    return best


@borrowing_kernel
def lowest_of(strength, cards):
    """The weakest card of ``cards`` by the contract's strength order."""
    best = -1
    cards_left = cards
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if best < 0 or strength[card] < strength[best]:
            best = card
    return best


@borrowing_kernel
def choose_follow(s, seat, choices):
    """The card to play to a trick already led. Lost Heir's checks try cards in the trick's next
    slot of the state, which is empty before and after (a copy would cost a reference count)."""
    card = _choose_follow(s, seat, choices, s[E.TRICK:E.TRICK + MAX_SEATS])
    s[E.TRICK + s[E.TRICK_SIZE]] = -1
    return card


@borrowing_kernel
def _choose_follow(s, seat, choices, trick):
    strength = E.card_strength(s)
    trump = s[E.TRUMP]
    position = s[E.TRICK_SIZE]
    players = s[NUM_PLAYERS]
    form = s[E.FORM]
    leader = s[E.TRICK_LEADER]
    winning = E.winning_position(s, trick, position)  # -1: only Lost Heir blanks so far
    partner_winning = winning >= 0 and E.side_of(s, (leader + winning) % players) == E.side_of(s, seat)
    is_last = position == players - 1
    bonus, penalty = BONUS_CARD[form], PENALTY_CARD[form]
    holds_five = False
    trick_value = 1
    for i in range(position):
        if trick[i] == bonus:
            trick_value += BONUS_POINTS[form]
            holds_five = True
        elif trick[i] == penalty:
            trick_value += PENALTY_POINTS[form]
    if form == LOST_HEIR:
        blank = lost_heir_blank(s, choices, trick, position, partner_winning)
        if blank >= 0:
            return blank
        if choices & ~BLANKS != 0:  # keep the blanks for a trick they can cancel
            choices &= ~BLANKS
        if trick_has_blank(trick, position):
            trick_value, holds_five = 1, False
    # Partner already winning safely: feed him the 5H, else play low (keep the 3S away).
    partner_safe = partner_winning and (is_last or is_master_in_trick(s, trick[winning], trump))
    if partner_safe:
        if (choices >> bonus) & 1:
            return bonus
        pool = choices & ~card_bit(penalty)
        return lowest_of(strength, pool if pool != 0 else choices)
    # Cards that would take the trick, cheapest first.
    cheapest_winner = -1
    cards_left = winning_cards(s, choices, trick, position)
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if cheapest_winner < 0 or _cost(s, card, trump, strength) < _cost(
            s, cheapest_winner, trump, strength
        ):
            cheapest_winner = card
    worth_winning = trick_value + (BONUS_POINTS[form] if (choices >> bonus) & 1 else 0) > -1
    if cheapest_winner >= 0 and not partner_winning and worth_winning:
        # Last to play, or a winner nobody can beat: take it.
        if is_last or is_master_in_trick(s, cheapest_winner, trump) or holds_five:
            return cheapest_winner
    # Losing the trick: unload the 3S on the opponents, never the 5H (Lost Heir's Wrong Boy is a
    # trump: only where it does not take the trick).
    if not partner_winning and (choices >> penalty) & 1:
        if form != LOST_HEIR:
            return penalty
        trick[position] = penalty
        if E.winning_position(s, trick, position + 1) != position:
            return penalty
    pool = choices & ~card_bit(bonus)
    if partner_winning:
        pool &= ~card_bit(penalty)
    if pool == 0:
        pool = choices
    return lowest_of(strength, pool)


@borrowing_kernel
def winning_cards(s, choices, trick, position):
    """The cards of ``choices`` that would take the trick ``trick[:position]`` played next
    (Lost Heir's blanks and specials card by card, writing ``trick[position]``: a copy)."""
    if s[E.FORM] != LOST_HEIR:
        return tricks.winning_cards(choices, trick, position, s[E.TRUMP], 0, E.card_strength(s))
    winners = np.int64(0)
    cards_left = choices
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        trick[position] = card
        if E.winning_position(s, trick, position + 1) == position:
            winners |= card_bit(card)
    return winners


@borrowing_kernel
def trick_has_blank(trick, count):
    """A Lost Heir blank lies in the trick: its Lost Heir and Wrong Boy score nothing (V-K14)."""
    for i in range(count):
        if (BLANKS >> trick[i]) & 1:
            return True
    return False


@borrowing_kernel
def lost_heir_blank(s, choices, trick, position, partner_winning):
    """A blank to play, or -1: one that cancels the other side's Lost Heir (whoever plays it wins
    the trick) or, on a trick the partner wins without it, the Wrong Boy's -3 (V-K14)."""
    blanks = choices & BLANKS
    if blanks == 0 or trick_has_blank(trick, position):
        return -1
    holds_heir = holds_boy = False
    for i in range(position):
        holds_heir = holds_heir or trick[i] == KING_OF_HEARTS
        holds_boy = holds_boy or trick[i] == KING_OF_SPADES
    if (holds_heir and not partner_winning) or (holds_boy and not holds_heir and partner_winning):
        return lowest_card(blanks)
    return -1


@borrowing_kernel
def _cost(s, card, trump, strength):
    """What spending ``card`` costs: trumps cost more than side cards."""
    return strength[card] + (20 if E.card_suit(s, card) == trump else 0)


@borrowing_kernel
def is_master_in_trick(s, card, trump):
    """``card`` cannot be beaten by any card still unseen (no ruff considered for side suits)."""
    seat = s[E.TO_MOVE]
    strength = E.card_strength(s)
    unseen = s[E.DECK] & ~s[E.PLAYED] & ~s[E.HANDS + seat]
    suit = E.card_suit(s, card)
    others_left = unseen & E.suit_cards(s, suit)
    while others_left != 0:
        other = lowest_card(others_left)
        others_left &= others_left - 1
        if strength[other] > strength[card]:
            return False
    if trump >= 0 and suit != trump and unseen & E.suit_cards(s, trump) != 0:
        return False
    return True


@borrowing_kernel
def choose_discard(s):
    """The weakest card the declarer may discard next, a trump only when nothing else is left."""
    choices = E.discard_choices(s)
    trump = s[E.TRUMP]
    side = choices & ~SUIT_MASKS[trump] if trump >= 0 else choices
    return lowest_of(E.card_strength(s), side if side != 0 else choices)


@borrowing_kernel
def prefers_low(hand):
    """Low when the hand holds more of the lowest cards (7, 8, 9) than of the highest (A, K, Q)."""
    high = 0
    low = 0
    cards_left = hand & ~card_bit(FIVE_OF_HEARTS) & ~card_bit(THREE_OF_SPADES)
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        rank = card % 13
        if rank >= QUEEN:
            high += 1
        elif rank <= NINE:
            low += 1
    return low > high


@borrowing_kernel
def partner_plays_alone(s, seat):
    """The partner declared a bid he must make without a trick from this seat (11.29, 11.31)."""
    bid = s[E.HIGH_BID]
    return partner_holds_contract(s, seat) and (
        bid == KAISER_40_RANK or (bid == KAISER_RANK and s[E.KAISER_BID_SOLO]))


@borrowing_kernel
def play_under_partner(s, seat, choices):
    """Stay out of the partner's way: the 5H onto his winning trick, otherwise the lowest card."""
    strength = E.card_strength(s)
    position = s[E.TRICK_SIZE]
    players = s[NUM_PLAYERS]
    if position > 0 and (choices >> FIVE_OF_HEARTS) & 1:
        winning = E.winning_position(s, s[E.TRICK:E.TRICK + players], position)
        if partner_holds_contract(s, seat) and (s[E.TRICK_LEADER] + winning) % players == s[E.DECLARER]:
            return FIVE_OF_HEARTS
    pool = choices & ~card_bit(FIVE_OF_HEARTS)
    return lowest_of(strength, pool if pool != 0 else choices)


@borrowing_kernel
def gift_score(s, card, to_partner):
    """How much this seat wants to give ``card`` (the heuristic of the module docstring)."""
    strength = E.high_strength(s)[card]
    if card == E.bonus_card(s):
        return -1000
    if card == E.penalty_card(s):
        return -500 if to_partner else 1000
    return strength if to_partner else -strength


@borrowing_kernel
def choose_gift(s):
    """The next card to give (11.32-11.35): the lowest not yet given of the c cards the seat gives."""
    seat = s[E.TO_MOVE]
    if E.may_throw_in_before_giving(s, seat):
        return MISDEAL
    to_partner = E.side_of(s, E.receiver_of(s, seat)) == E.side_of(s, seat)
    hand = s[E.HANDS + seat] | s[E.GIVEN + seat]  # as it was before the first card left it
    chosen = np.int64(0)
    for _ in range(E.cards_to_give(s)):
        best, best_score = -1, -10000
        cards_left = hand & ~chosen
        while cards_left != 0:
            card = lowest_card(cards_left)
            cards_left &= cards_left - 1
            score = gift_score(s, card, to_partner)
            if score > best_score:
                best, best_score = card, score
        chosen |= card_bit(best)
    choices = E.giving_choices(s) & chosen
    return lowest_card(choices) if choices != 0 else lowest_card(E.giving_choices(s))


@borrowing_kernel
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
    if phase == E.GIVING:
        return choose_gift(s)
    return play_action(s)


@borrowing_kernel
def play_action(s):
    """The rule-based card for the player to move in the play."""
    seat = s[E.TO_MOVE]
    choices = E.playable_cards(s, seat)
    if partner_plays_alone(s, seat):  # any trick this seat wins breaks the partner's bid
        return play_under_partner(s, seat, choices)
    if s[E.TRICK_SIZE] == 0:
        return choose_lead(s, seat, choices)
    return choose_follow(s, seat, choices)


@borrowing_kernel
def play_cards_by_rules(s):
    """Play the hand's cards by :func:`play_action` to the end of the play: the moves of
    :func:`rules_action` and ``engine.apply_action`` in turn, in one call (a rules rollout's
    card play, as in Twenty-Eight). Returns the moves made.
    """
    moves = 0
    while s[E.PHASE] == E.PLAYING:
        E.apply_action(s, play_action(s))
        moves += 1
    return moves


@njit(cache=True)
def bidding_mismatches(world, observer):
    """How many bids by the others in ``world`` the rule-based player would not have made.

    A search that assumes the others bid like this player weights each
    sampled world by how well it explains their bids (a world in which a
    player who bid 9 holds nothing is unlikely). Each seat's bidding hand is
    the hand it was dealt, with the cards given before the auction (11.32-11.34) gone and the
    cards received come.
    """
    dealer = world[E.DEALER]
    parameters = E.parameter_values(world)  # FIRST_DEALER and MATCH lead the slots
    parameters[E.FIRST_DEALER - E.PARAMETERS] = dealer
    parameters[E.MATCH - E.PARAMETERS] = 0
    s = E.new_state(parameters)
    s[E.HANDS_SCORED] = world[E.HANDS_SCORED]  # 11.34's direction
    players = s[NUM_PLAYERS]
    for seat in range(players):
        s[E.HANDS + seat] = s[E.DEALT + seat] = world[E.DEALT + seat]
    if E.passes_before_auction(world):
        for giver in range(players):
            s[E.HANDS + giver] &= ~world[E.GIVEN + giver]
            s[E.HANDS + E.receiver_of(world, giver)] |= world[E.GIVEN + giver]
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
