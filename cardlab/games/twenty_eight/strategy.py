"""A rule-based Twenty-Eight player, compiled with numba.

``rules_action(s, stream)`` picks the move of the player to move. It reads only
what that seat may know: its own cards (hand, first four, dealt cards), the
indicator if it placed it, and the public record (bids, cards played, the
current trick, voids, whether and from when trumps are shown). A non-bidder
never reads the trump suit before the show. The choices, in short:

* Bidding on four cards: value = half the card points + 2 per card beyond one
  in the longest suit + 1 per jack; bid the minimum while it stays within
  ``13 + value``; never overcall the partner. The opener takes the redeal on a
  pointless hand.
* The trump: the longest suit (ties: more points); the weakest card of it goes
  face down, so the strong ones stay in hand.
* Raising on eight cards: the bidder with 5+ trumps and 10+ card points raises
  to the minimum; the partner with a 5-card suit and 12+ points takes over.
* Play: lead a card that is master of its suit (cashing jacks), the bidding
  side drawing trumps with a master trump; otherwise a low card of the longest
  plain suit. Following: win cheaply when the opponents lead the trick, give
  points when the partner wins it as last to play, else play low. Out of the
  suit: ruff (or call / show the trump) when the opponents win a trick worth
  points, discard low when the partner wins.

Variants (docs/variants.md): show a pointless hand whenever allowed (13.2);
declare Thani only when every one of his eight cards is master of its suit
(13.5); the opponent offers to surrender once the bidding side has won the
first half of the tricks, and the bidder plays on only when every card he
holds is master of its suit, else accepts (13.3). The jack restriction
(13.1) needs no rule of its own: the legal cards already obey it. With three
or six players (13.6, 13.7) the bidding values a hand from a base of 10 (the
bidder's side holds a third of the cards), and in play every seat not on the
bidding side is an ally of every other such seat (:func:`engine.same_camp`):
they all score the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, lowest_card, popcount
from cardlab.core.cards import SUIT_MASKS, suit_of
from cardlab.core.dealing import draw_card
from cardlab.core.kernel import borrowing_kernel
from cardlab.core.layout import NUM_PLAYERS, team_of
from cardlab.core.rng import random_below
from cardlab.core.tricks import winning_cards
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.observation import known_trump
from cardlab.games.twenty_eight.rules import (
    ACCEPT,
    BID,
    CALL_TRUMP,
    CARD_POINTS,
    JACKS,
    MAX_PLAYERS,
    PASS,
    PLAY_ON,
    REDEAL,
    SHOW_POINTLESS,
    STRENGTH,
    SURRENDER,
    THANI,
)

NO_TRUMPS = MAX_PLAYERS  # trumps_from past the last position of any trick


@borrowing_kernel
def _points(mask):
    total = 0
    cards_left = mask
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        total += CARD_POINTS[card]
    return total


@borrowing_kernel
def _longest_suit(hand):
    """The suit with most cards (ties: more card points, then higher suit id)."""
    best = 0
    best_key = -1
    for suit in range(4):
        cards = hand & SUIT_MASKS[suit]
        key = popcount(cards) * 100 + _points(cards)
        if key >= best_key:
            best = suit
            best_key = key
    return best


@borrowing_kernel
def _weakest(mask):
    """Lowest-strength card of ``mask``."""
    best = -1
    cards_left = mask
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if best < 0 or STRENGTH[card] < STRENGTH[best]:
            best = card
    return best


@borrowing_kernel
def _cheapest(mask):
    """The card that costs least to give away: fewest points, then weakest."""
    best = -1
    cards_left = mask
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if best < 0 or CARD_POINTS[card] < CARD_POINTS[best] or (
            CARD_POINTS[card] == CARD_POINTS[best] and STRENGTH[card] < STRENGTH[best]
        ):
            best = card
    return best


@borrowing_kernel
def _richest(mask):
    """The card worth most points (ties: the weakest), to give to a partner's trick."""
    best = -1
    cards_left = mask
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if best < 0 or CARD_POINTS[card] > CARD_POINTS[best] or (
            CARD_POINTS[card] == CARD_POINTS[best] and STRENGTH[card] < STRENGTH[best]
        ):
            best = card
    return best


@njit(cache=True, inline="always")
def _unseen(s, seat):
    """The cards still out for ``seat``: in the deck, unplayed and not in his hand."""
    return s[E.DECK] & ~s[E.PLAYED] & ~s[E.HANDS + seat]


@njit(cache=True, inline="always")
def _is_master(unseen, card):
    """No stronger card of the suit is still out (``unseen``: :func:`_unseen` of the seat).

    Scalars only: the rule-based player asks it of card after card.
    """
    others_left = unseen & SUIT_MASKS[suit_of(card)]
    while others_left != 0:
        other = lowest_card(others_left)
        others_left &= others_left - 1
        if STRENGTH[other] > STRENGTH[card]:
            return False
    return True


@borrowing_kernel
def _trick_points(s):
    total = 0
    for position in range(s[E.TRICK_SIZE]):
        total += CARD_POINTS[s[E.TRICK + position]]
    return total


@njit(cache=True)
def _bid_limit(s, hand):
    """Highest bid this hand supports: four cards with four players; with three (the bidder
    alone) or six (a third of the deck on his side) the base is 10 and a suit counts from 3."""
    longest = popcount(hand & SUIT_MASKS[_longest_suit(hand)])
    if s[NUM_PLAYERS] == 4:
        return 13 + _points(hand) // 2 + 2 * (longest - 1) + popcount(hand & JACKS)
    return 10 + _points(hand) // 2 + 2 * max(longest - 2, 0) + popcount(hand & JACKS)


@njit(cache=True)
def _first_round(s, seat, legal, n):
    hand = s[E.HANDS + seat]
    for i in range(n):
        if legal[i] == REDEAL:
            return REDEAL
    lowest = -1
    for i in range(n):
        if legal[i] >= BID:
            lowest = legal[i]
            break
    if legal[0] != PASS:  # the forced opening
        return lowest
    high_bidder = s[E.HIGH_BIDDER]
    if high_bidder >= 0 and E.side_of(s, high_bidder) == E.side_of(s, seat):
        return PASS
    if lowest >= 0 and lowest - BID <= _bid_limit(s, hand):
        return lowest
    return PASS


@njit(cache=True)
def indicator_of_suit(hand, suit):
    """The card of ``suit`` placed face down as the trump: the weakest, so the strong ones stay in hand."""
    return _weakest(hand & SUIT_MASKS[suit])


@njit(cache=True)
def _place_indicator(s, seat):
    hand = s[E.HANDS + seat]
    return indicator_of_suit(hand, _longest_suit(hand))


@njit(cache=True)
def _all_masters(s, cards):
    """Is every card of ``cards`` master of its suit among the cards not played and not in ``cards``?"""
    out = s[E.DECK] & ~s[E.PLAYED] & ~cards
    cards_left = cards
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        others_left = out & SUIT_MASKS[suit_of(card)]
        while others_left != 0:
            other = lowest_card(others_left)
            others_left &= others_left - 1
            if STRENGTH[other] > STRENGTH[card]:
                return False
    return True


@njit(cache=True)
def _variant_node(s, seat, legal, n):
    """The move at a variant's node (pointless show, Thani, cot), -1 at any other node."""
    last = legal[n - 1]
    if last == SHOW_POINTLESS:
        return SHOW_POINTLESS
    if legal[0] == PASS and last == SURRENDER:
        return SURRENDER if s[E.TRICK_NUMBER] >= s[E.HAND_TRICKS] // 2 else PASS
    if legal[0] == ACCEPT:
        return PLAY_ON if _all_masters(s, s[E.HANDS + seat]) else ACCEPT
    if s[E.PHASE] == E.RAISING and n > 1 and legal[1] == THANI:
        own = s[E.HANDS + seat] | card_bit(s[E.INDICATOR])
        if _all_masters(s, own):
            return THANI
    return -1


@njit(cache=True)
def _second_round(s, seat, legal, n):
    if n == 1:
        return PASS
    hand = s[E.HANDS + seat]
    lowest_raise = PASS  # no raise is left after a bid of 28
    for i in range(n - 1, 0, -1):
        if legal[i] >= BID:
            lowest_raise = legal[i]
    if seat == s[E.BIDDER]:
        trump = suit_of(s[E.INDICATOR])
        trumps = popcount(hand & SUIT_MASKS[trump]) + 1
        strong = trumps >= 5 and _points(hand | card_bit(s[E.INDICATOR])) >= 10
    else:
        strong = popcount(hand & SUIT_MASKS[_longest_suit(hand)]) >= 5 and _points(hand) >= 12
    return lowest_raise if strong else PASS


@borrowing_kernel
def _lead(s, seat, choices, trump):
    """Lead a master card (a master trump first for the bidding side), else a low plain card."""
    bidding_side = E.same_camp(s, seat, s[E.BIDDER])
    unseen = _unseen(s, seat)
    if trump >= 0 and s[E.TRUMP_SHOWN] == 1 and bidding_side:
        trumps = choices & SUIT_MASKS[trump]
        out_trumps = unseen & SUIT_MASKS[trump]
        cards_left = trumps
        while cards_left != 0:
            card = lowest_card(cards_left)
            cards_left &= cards_left - 1
            if out_trumps != 0 and _is_master(unseen, card):
                return card
    plain = choices
    if trump >= 0:
        plain = choices & ~SUIT_MASKS[trump]
        if plain == 0:
            plain = choices
    best = -1
    cards_left = plain
    while cards_left != 0:
        card = lowest_card(cards_left)
        cards_left &= cards_left - 1
        if _is_master(unseen, card) and (best < 0 or CARD_POINTS[card] > CARD_POINTS[best]):
            best = card
    if best >= 0:
        return best
    suit = _longest_suit(plain)
    return _cheapest(plain & SUIT_MASKS[suit])


@borrowing_kernel
def _winning_cards(s, choices, trump, trumps_from):
    """The cards of ``choices`` that would be winning the trick if played now (trumps as the
    seat knows them)."""
    return winning_cards(choices, s[E.TRICK:E.TRICK + MAX_PLAYERS], s[E.TRICK_SIZE], trump,
                         trumps_from, STRENGTH)


@borrowing_kernel
def _follow(s, seat, choices, trump, trumps_from):
    """Play to a trick someone else led (``choices``: the legal cards)."""
    n = s[NUM_PLAYERS]
    last = s[E.TRICK_SIZE] == n - 1
    winning_position = E.current_trick_winner(s)
    winner_seat = (s[E.TRICK_LEADER] + winning_position) % n
    partner_wins = E.same_camp(s, winner_seat, seat)
    unseen = _unseen(s, seat)
    plain = choices
    if trump >= 0:
        plain = choices & ~SUIT_MASKS[trump]
    if partner_wins:
        keep = plain if plain != 0 else choices
        if last or _is_master(unseen, s[E.TRICK + winning_position]):
            return _richest(keep)
        return _cheapest(keep)
    winners = _winning_cards(s, choices, trump, trumps_from)
    if winners != 0:
        if last:
            return _weakest(winners)
        cards_left = winners
        while cards_left != 0:
            card = lowest_card(cards_left)
            cards_left &= cards_left - 1
            if _is_master(unseen, card):
                return card
        if _trick_points(s) >= 2:
            return _weakest(winners)
    return _cheapest(plain if plain != 0 else choices)


@borrowing_kernel
def _worth_showing(s, seat):
    """Call (or show) the trump: the opponents win a trick that holds points."""
    winner_seat = (s[E.TRICK_LEADER] + E.current_trick_winner(s)) % s[NUM_PLAYERS]
    if E.same_camp(s, winner_seat, seat):
        return False
    return _trick_points(s) >= 1


@njit(cache=True, inline="always")
def rules_action(s, stream):
    """The rule-based move of the player to move (see the module docstring).

    Deterministic: ``stream`` is accepted for the common strategy signature. Inlined
    into its callers, so a rollout's card play reaches :func:`play_action` (compiled
    without reference counts) without a counted call between.
    """
    if s[E.PHASE] == E.PLAYING and s[E.COT_NODE] == 0:
        return play_action(s)
    return _auction_action(s)


@borrowing_kernel
def play_action(s):
    """The rule-based card (or call for the trump) in the card play, no cot node pending.

    A rollout's hot path: it lists no legal actions and allocates nothing.
    """
    seat = s[E.TO_MOVE]
    choices, may_call = E.play_choices(s, seat)
    if popcount(choices) + may_call == 1:
        return CALL_TRUMP if may_call else lowest_card(choices)
    return _play(s, seat, choices, may_call)


@borrowing_kernel
def play_cards_by_rules(s):
    """Play cards (and calls) by :func:`play_action` until the play needs another kind of
    move: the end of the hand or a cot node. The moves of :func:`rules_action` and
    ``engine.apply_action`` in turn, in one call without reference counts (a rules rollout's
    card play). Returns the moves made.
    """
    moves = 0
    while s[E.PHASE] == E.PLAYING and s[E.COT_NODE] == 0:
        E.apply_action(s, play_action(s))
        moves += 1
    return moves


@njit(cache=True)
def _auction_action(s):
    """The rule-based move at the other nodes (bidding, the indicator, raising, the
    variants' nodes), from the list of legal actions."""
    seat = s[E.TO_MOVE]
    phase = s[E.PHASE]
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    n = E.legal_actions(s, legal)
    if n == 1:
        return legal[0]
    variant_move = _variant_node(s, seat, legal, n)
    if variant_move >= 0:
        return variant_move
    if phase == E.BIDDING:
        return _first_round(s, seat, legal, n)
    if phase == E.PLACING:
        return _place_indicator(s, seat)
    return _second_round(s, seat, legal, n)  # raising: the cot's nodes are variant nodes


@borrowing_kernel
def _play(s, seat, choices, may_call):
    """A card of ``choices`` to play, or the call for the trump (``may_call``)."""
    trump = known_trump(s, seat)
    if s[E.TRICK_SIZE] == 0:
        return _lead(s, seat, choices, trump)
    if may_call:
        if choices == 0 or _worth_showing(s, seat):
            if seat != s[E.BIDDER]:
                return CALL_TRUMP
            # The bidder shows only if a trump of his would then win the trick.
            own_trumps = (s[E.HANDS + seat] & SUIT_MASKS[trump]) | card_bit(s[E.INDICATOR])
            if choices == 0 or _winning_cards(s, own_trumps, trump, s[E.TRICK_SIZE]) != 0:
                return CALL_TRUMP
        plain = choices & ~SUIT_MASKS[trump] if trump >= 0 else choices
        return _cheapest(plain if plain != 0 else choices)
    if s[E.TRUMP_SHOWN] == 1:
        return _follow(s, seat, choices, trump, s[E.TRUMPS_FROM])
    return _follow(s, seat, choices, -1, NO_TRUMPS)


@njit(cache=True)
def play_duplicate_deals(template, num_deals, stream, results):
    """Rules players against uniform random players, each deal played twice with seats swapped.

    Four players (two teams). For deal ``i`` the 32 chance actions are drawn
    once; ``results[i, 0]`` is the rules team's return when it holds the even seats and ``results[i, 1]``
    when it holds the odd seats (void hands return 0). Random moves come from
    ``stream``.
    """
    legal = np.empty(E.MAX_LEGAL_ACTIONS, dtype=np.int64)
    seat_returns = np.empty(4, dtype=np.float64)
    deal = np.empty(32, dtype=np.int64)
    for i in range(num_deals):
        undealt = template[E.DECK]
        for k in range(32):
            card = draw_card(undealt, stream)
            deal[k] = card
            undealt &= ~card_bit(card)
        for rules_team in range(2):
            s = template.copy()
            dealt = 0
            while s[E.PHASE] != E.GAME_OVER:
                player = E.current_player(s)
                if player < 0:
                    action = deal[dealt]
                    dealt += 1
                elif team_of(player) == rules_team:
                    action = rules_action(s, stream)
                else:
                    n = E.legal_actions(s, legal)
                    action = legal[random_below(stream, n)]
                E.apply_action(s, action)
            E.returns(s, seat_returns)
            results[i, rules_team] = seat_returns[rules_team]


__all__ = ["play_action", "play_cards_by_rules", "play_duplicate_deals", "rules_action"]


@njit(cache=True)
def bidding_mismatches(world, observer):
    """How many first-round bids by the others in ``world`` this player would not have made.

    Used by search to weight sampled worlds by how well they explain the
    others' bids under the assumption that they bid like this player. The
    first round is replayed on each seat's first-stage cards.
    """
    dealer = world[E.DEALER]
    n = world[NUM_PLAYERS]
    s = E.new_state(dealer, players=n, hand_size=world[E.HAND_TRICKS],
                    bidding_rounds=world[E.DEAL_CARDS] // world[E.STAGE_CARDS], top_bid=world[E.TOP_BID])
    first_four = np.zeros(n, dtype=np.int64)
    for seat in range(n):
        first_four[seat] = world[E.FIRST_FOUR + seat]
    for k in range(world[E.STAGE_CARDS]):
        seat = (dealer + 1 + k) % n
        card = lowest_card(first_four[seat])
        if card < 0:
            return 0  # the world does not record the first four cards: no evidence
        first_four[seat] &= first_four[seat] - 1
        E.apply_action(s, card)
    mismatches = 0
    unused = np.zeros(1, dtype=np.uint64)
    for i in range(world[E.NUM_BIDS]):
        if s[E.PHASE] != E.BIDDING:
            break
        seat = s[E.TO_MOVE]
        actual = world[E.BID_HISTORY + i]
        if seat != observer and rules_action(s, unused) != actual:
            mismatches += 1
        E.apply_action(s, actual)
    return mismatches
