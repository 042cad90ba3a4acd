"""Kaiser observation and information-state tensors, filled by a numba kernel.

Seats are relative to the observer (0 = self, 1 = left, 2 = partner, 3 =
right), so one network serves every seat. Card planes are 52 wide (all card
ids) so that variant decks fit the same layout. With 2, 3, 5 or 6 players
(11.11-11.14) every per-seat piece has one block per seat, and the per-side
pieces one per side, own side first, then the others in turn order. Two
players add their piles: the face-up pile cards of each and how many cards
lie face down in each pile.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import highest_card, lowest_card
from cardlab.core.dealing import receiving_seat
from cardlab.core.encoding import (
    mark_cards,
    mark_current_trick,
    mark_dealer_and_mover,
    mark_tricks_played,
    mark_voids,
    piece_starts,
    put_ratio,
    ratio_divisors,
)
from cardlab.core.infostate import deal_token, seen_action, unseen_action, unseen_action_revealing
from cardlab.core.kernel import borrowing_kernel
from cardlab.core.rng import mix64
from cardlab.games.kaiser import engine as E

NUM_CARDS = 52
NUM_BID_SLOTS = 2 + 39  # not spoken yet, pass, then 13 values x 3 kinds
NUM_CONTRACT_VALUES = 13
KAISER_BID_SLOTS = 2  # bids 99 and 100 (11.29-11.31), as bids and as contract value 13
NUM_STANDARD_PHASES = 5  # dealing, bidding, naming trump, playing, game over

#: (name, size) of each piece, in tensor order.
OBSERVATION_PIECES = (
    ("hand", NUM_CARDS),
    ("played_by_seat", 4 * NUM_CARDS),
    ("current_trick", 4 * NUM_CARDS),
    ("bids", 4 * NUM_BID_SLOTS),
    ("declarer", 4),
    ("contract_value", 13),
    ("contract_kind", 3),
    ("trump", 5),
    ("voids", 16),
    ("dealer", 4),
    ("to_move", 4),
    ("phase", 5),
    ("team_points_tricks", 4),
    ("match_scores", 3),
)
#: Two players' piles (11.11): each seat's face-up pile cards, then its face-down count per pile.
PILES_SIZE = 2 * NUM_CARDS + 2 * E.NUM_PILES
#: Pieces with one block per seat (size in the table: four seats) and per side (two sides).
PER_SEAT = ("played_by_seat", "current_trick", "bids", "declarer", "voids", "dealer", "to_move")
PER_SIDE = {"team_points_tricks": 2, "match_scores": 1}  # size = this * sides + the rest
INFORMATION_STATE_EXTRA = (
    ("dealt_hand", NUM_CARDS),
    ("trick_history", 8 * 4 * NUM_CARDS),
)
#: What each piece of the tensors holds (docs/rl.md's tables are made from these).
PIECE_MEANINGS = {
    "hand": "the cards the player holds",
    "played_by_seat": "the cards each seat has played this hand, one plane of 52 per seat",
    "current_trick": "the cards on the table, one plane per seat",
    "bids": "each seat's bid: not spoken, pass, or one of the bids (13 values x 3 kinds)",
    "declarer": "the declarer, once the auction is over",
    "contract_value": "the contract's value",
    "contract_kind": "the contract's kind: trump, no trump, low no trump",
    "trump": "the trump suit, or no trump (slot 4), during the play",
    "voids": "suits each seat has shown out of",
    "dealer": "the dealer",
    "to_move": "the seat to act",
    "phase": "dealing, bidding, naming trump, playing, game over (then the variants' phases)",
    "team_points_tricks": "each side's points this hand (/ 10), then its tricks (/ 8), own side first",
    "match_scores": "each side's match score (/ target), then the hand number (/ max_hands)",
    "played_low": "the declarer plays the contract low (11.5, 11.6)",
    "kitty_and_discards": "the kitty and the declarer's discards, as far as the player has seen them",
    "piles": "two players' face-up pile cards, then the face-down cards left in each pile (/ 2)",
    "given_and_received": "the cards the player gave and received (11.32-11.35)",
    "dealt_hand": "the player's hand as dealt",
    "trick_history": "every card of the hand by trick and seat, in the order of play",
}
OBSERVATION_SIZE = sum(size for _, size in OBSERVATION_PIECES)
HAND_POINTS_DIVISOR = 10.0  # a side's points of the hand, as a ratio
TRICKS_DIVISOR = 8.0
INFORMATION_STATE_SIZE = OBSERVATION_SIZE + sum(size for _, size in INFORMATION_STATE_EXTRA)


@borrowing_kernel
def kaiser_bid_slots(s):
    """Extra bid slots of a game with the Kaiser bids (0 in the standard game)."""
    return KAISER_BID_SLOTS if E.offers_kaiser_bid(s) or s[E.KAISER_40] else 0


def tensor_pieces(s, perfect_recall: bool) -> tuple[tuple[str, int], ...]:
    """The pieces of the tensor for the game whose parameters ``s`` holds.

    Only the Kaiser bids (11.29-11.31) widen them: two more bid slots per seat
    and a fourteenth contract value.
    """
    extra = kaiser_bid_slots(s)
    players, sides = int(s[E.NUM_PLAYERS]), int(s[E.NUM_SIDES])
    widths = {"bids": 4 * (NUM_BID_SLOTS + extra), "contract_value": NUM_CONTRACT_VALUES + (extra > 0),
              "phase": num_phase_slots(s)}
    pieces = []
    for name, size in OBSERVATION_PIECES:
        size = widths.get(name, size)
        if name in PER_SEAT:
            size = size // 4 * players
        elif name in PER_SIDE:
            size = PER_SIDE[name] * sides + size - 2 * PER_SIDE[name]
        pieces.append((name, size))
    if s[E.HIGH_OR_LOW_AFTER_BID] or s[E.ANY_CONTRACT_HIGH_OR_LOW]:
        pieces.append(("played_low", 1))
    if E.takes_kitty(s):
        pieces.append(("kitty_and_discards", 2 * NUM_CARDS))  # as far as the player has seen them
    if E.has_piles(s):
        pieces.append(("piles", PILES_SIZE))
    if s[E.PASSING_RULE] != E.NO_PASSING:
        pieces.append(("given_and_received", 2 * NUM_CARDS))  # the player's own, as he knows them
    if perfect_recall:
        tricks = 2 * E.NUM_TRICKS if E.has_piles(s) else E.NUM_TRICKS
        pieces += [("dealt_hand", NUM_CARDS), ("trick_history", tricks * players * NUM_CARDS)]
    return tuple(pieces)


def tensor_divisors(s: np.ndarray, perfect_recall: bool) -> np.ndarray:
    """The divisor of each entry of the tensor (:mod:`cardlab.core.encoding`): the sides' hand
    points, tricks and match scores, the hand number, and two players' face-down pile halves."""
    pieces = tensor_pieces(s, perfect_recall)
    start = piece_starts(pieces)
    sides = int(s[E.NUM_SIDES])
    ratios = {}
    for side in range(sides):
        ratios[start["team_points_tricks"] + side] = HAND_POINTS_DIVISOR
        ratios[start["team_points_tricks"] + sides + side] = TRICKS_DIVISOR
        ratios[start["match_scores"] + side] = float(s[E.TARGET])
    ratios[start["match_scores"] + sides] = float(s[E.MAX_HANDS])
    if "piles" in start:
        for entry in range(2 * E.NUM_PILES):
            ratios[start["piles"] + 2 * NUM_CARDS + entry] = 2.0
    return ratio_divisors(sum(size for _, size in pieces), ratios)


@borrowing_kernel
def has_high_or_low(s):
    return s[E.HIGH_OR_LOW_AFTER_BID] or s[E.ANY_CONTRACT_HIGH_OR_LOW]


@borrowing_kernel
def num_phase_slots(s):
    """The standard game's five phases, then choosing high or low (11.5, 11.6), discarding (11.1)
    and giving cards (11.32-11.35)."""
    return (NUM_STANDARD_PHASES + (1 if has_high_or_low(s) else 0) + (1 if E.takes_kitty(s) else 0)
            + (1 if s[E.PASSING_RULE] != E.NO_PASSING else 0))


@borrowing_kernel
def phase_slot(s):
    """Where the phase is marked: the standard game's phases keep their slots, the variants' follow."""
    phase = s[E.PHASE]
    if phase == E.HIGH_OR_LOW:
        return NUM_STANDARD_PHASES
    if phase == E.DISCARDING:
        return NUM_STANDARD_PHASES + (1 if has_high_or_low(s) else 0)
    if phase == E.GIVING:
        return num_phase_slots(s) - 1
    if phase == E.PLAYING:
        return 3
    if phase == E.GAME_OVER:
        return 4
    return phase


@borrowing_kernel
def kitty_seen_by(s, player):
    """The kitty's cards and the discards, once ``player``, the declarer, has taken it up."""
    if E.kitty_taken(s) and s[E.DECLARER] == player:
        return s[E.KITTY], s[E.DISCARDS]
    return 0, 0


@njit(cache=True)
def hides_choice(s, observer):
    """Is the choice to be made in ``s`` hidden from ``observer``? The declarer's discards (11.1,
    11.12) and the cards given (11.32-11.35), though a misdeal at a giving node is public."""
    return (s[E.PHASE] == E.DISCARDING or s[E.PHASE] == E.GIVING) and s[E.TO_MOVE] != observer


@njit(cache=True)
def hides_action(s, action, observer):
    """Is ``action``, taken in ``s``, hidden from ``observer``? A hidden choice's card is; a
    misdeal thrown in at a giving node is seen by everyone."""
    return hides_choice(s, observer) and not (s[E.PHASE] == E.GIVING and action == E.MISDEAL)


@njit(cache=True, inline="always")
def relative_side(s, player, side):
    """``side`` as ``player`` sees it: 0 his own, then the others in turn order from his left."""
    return (side - E.side_of(s, player)) % s[E.NUM_SIDES]


@borrowing_kernel
def encode(s, player, perfect_recall, out):
    """Fill ``out`` (zeroed here) with what ``player`` sees."""
    out[:] = 0.0
    players, sides = s[E.NUM_PLAYERS], s[E.NUM_SIDES]
    o = 0
    mark_cards(out, o, s[E.HANDS + player])
    o += NUM_CARDS
    # Cards each seat has played this hand, and the current trick.
    o = mark_tricks_played(out, o, s, E.TRICK_HISTORY, E.TRICK_LEADERS, E.TRICK_NUMBER,
                           E.TRICK_LEADER, player, False, players)
    o = mark_current_trick(out, o, s, E.TRICK, E.TRICK_SIZE, E.TRICK_LEADER, player, players)
    bid_slots = NUM_BID_SLOTS + kaiser_bid_slots(s)
    for seat in range(players):
        relative = (seat - player) % players
        spoken = s[E.SPOKEN + seat]
        if spoken < 0:
            slot = 0
        elif spoken < E.BID:
            slot = 1
        else:
            slot = 2 + spoken - E.BID
        out[o + relative * bid_slots + slot] = 1.0
    o += players * bid_slots
    values = NUM_CONTRACT_VALUES + (bid_slots > NUM_BID_SLOTS)
    if s[E.DECLARER] >= 0 and s[E.PHASE] > E.BIDDING:  # bids 99 and 100: value 13, kinds 0 and 1
        out[o + (s[E.DECLARER] - player) % players] = 1.0
        out[o + players + s[E.HIGH_BID] // 3] = 1.0
        out[o + players + values + s[E.HIGH_BID] % 3] = 1.0
    o += players + values + 3
    # The information state keeps the trump after the hand: when nobody showed out, nothing else tells it.
    # A trump still to be fixed by the first lead (11.8, 11.9) is marked nowhere.
    if (s[E.PHASE] == E.PLAYING or (perfect_recall and s[E.PHASE] == E.GAME_OVER
                                    and s[E.TRICK_NUMBER] > 0)) and not E.trump_to_be_led(s):
        out[o + (s[E.TRUMP] if s[E.TRUMP] >= 0 else 4)] = 1.0
    o += 5
    o = mark_voids(out, o, s, E.VOIDS, player, players)
    o = mark_dealer_and_mover(out, o, s, player, players)
    out[o + phase_slot(s)] = 1.0
    o += num_phase_slots(s)
    for side in range(sides):
        relative = relative_side(s, player, side)
        put_ratio(out, o + relative, s[E.HAND_POINTS + side], HAND_POINTS_DIVISOR)
        put_ratio(out, o + sides + relative, s[E.TRICKS_WON + side], TRICKS_DIVISOR)
        put_ratio(out, o + 2 * sides + relative, s[E.MATCH_SCORE + side], s[E.TARGET])
    o += 3 * sides
    put_ratio(out, o, s[E.HAND_NUMBER], s[E.MAX_HANDS])
    o += 1
    if has_high_or_low(s):
        out[o] = s[E.PLAYED_LOW]
        o += 1
    if E.takes_kitty(s):
        kitty, discards = kitty_seen_by(s, player)
        mark_cards(out, o, kitty)
        mark_cards(out, o + NUM_CARDS, discards)
        o += 2 * NUM_CARDS
    if E.has_piles(s):
        o = mark_piles(out, o, s, player)
    if s[E.PASSING_RULE] != E.NO_PASSING:
        mark_cards(out, o, s[E.GIVEN + player])
        mark_cards(out, o + NUM_CARDS, received_by(s, player))
        o += 2 * NUM_CARDS
    if not perfect_recall:
        return
    mark_cards(out, o, s[E.DEALT + player])
    o += NUM_CARDS
    mark_tricks_played(out, o, s, E.TRICK_HISTORY, E.TRICK_LEADERS, E.TRICK_NUMBER, E.TRICK_LEADER,
                       player, True, players, E.tricks_per_hand(s))


@borrowing_kernel
def received_by(s, player):
    """The cards given to ``player`` (11.32-11.35), once delivered: he learns them then."""
    if not s[E.DELIVERED]:
        return np.int64(0)
    return s[E.GIVEN + E.giver_to(s, player)]


@njit(cache=True)
def giving_detail(s, action, player):
    """What a giving node's step shows ``player`` beyond the action: nothing, or at the last node
    the cards he receives (and, as a declarer, a kitty taken up at once by 11.35's last node)."""
    after = s.copy()
    E.apply_action(after, action)
    if not after[E.DELIVERED] or s[E.DELIVERED]:
        return 0
    revealed = mix64(np.uint64(received_by(after, player)))
    kitty, _ = kitty_seen_by(after, player)
    if kitty:
        revealed = mix64(revealed ^ np.uint64(kitty))
    return 1 + (revealed >> np.uint64(20))


@borrowing_kernel
def mark_piles(out, o, s, player):
    """The piles as both players see them (11.11): face-up cards by seat (own first), and the
    face-down cards left in each pile (0, 1 or 2, as halves)."""
    for relative in range(2):
        seat = (player + relative) % 2
        mark_cards(out, o + relative * NUM_CARDS, s[E.FACE_UP] & E.own_pile_cards(s, seat))
        for pile in range(E.NUM_PILES):
            place = E.PILES + seat * 2 * E.NUM_PILES + pile * 2
            face_down = 0
            for level in range(2):
                card = s[place + level]
                if card >= 0 and (s[E.PILE_CARDS] >> card) & 1 and not (s[E.FACE_UP] >> card) & 1:
                    face_down += 1
            put_ratio(out, o + 2 * NUM_CARDS + relative * E.NUM_PILES + pile, face_down, 2)
    return o + PILES_SIZE


@njit(cache=True)
def observation_token(s, action, player):
    """What ``player`` observes when ``action`` is applied in ``s`` (:mod:`cardlab.core.infostate`).

    Kaiser hides the deal: the player sees its hand once every card is out (the
    kitty's two cards of 11.1 and two players' face-down piles of 11.11
    included, which nobody sees). Pile cards turning face up are seen by both. Every other action
    (bid, misdeal, trump, high or low, card) is seen by everyone and reveals
    nothing more: who wins a trick, and the score, follow from the cards. With
    a kitty, the declarer alone sees it when he takes it up (the detail of the
    step that hands it to him) and his discards are seen by him only.
    """
    mover = s[E.TO_MOVE]
    if s[E.PHASE] == E.DEALING:
        k = s[E.CARDS_DEALT]
        players = s[E.NUM_PLAYERS]
        receiver = receiving_seat(s[E.DEALER], k, players) if k < players * s[E.HAND_CARDS] else -1
        # (two players: 2 * 8 is where the face-down piles begin, seen by nobody)
        return deal_token(s[E.HANDS + player], action, receiver, player, k + 1 == E.cards_to_deal(s), 0)
    if s[E.PHASE] == E.GIVING and action != E.MISDEAL:  # the card is the giver's and nobody else's
        detail = giving_detail(s, action, player)
        return seen_action(mover, action, detail) if mover == player else unseen_action_revealing(
            mover, detail)
    if hides_choice(s, player):
        return unseen_action(mover)
    if E.has_piles(s) and (s[E.PHASE] == E.BIDDING or s[E.PHASE] == E.PLAYING):
        after = s.copy()
        E.apply_action(after, action)
        turned_up = after[E.FACE_UP] & ~s[E.FACE_UP]
        if turned_up:  # the pile tops after the auction, a card beneath a played top (11.11)
            return seen_action(mover, action, 1 + (mix64(turned_up) >> np.uint64(20)))
    if E.takes_kitty(s) and not E.kitty_taken(s):
        after = s.copy()
        E.apply_action(after, action)
        if after[E.PHASE] == E.DISCARDING and after[E.DECLARER] == player:
            first = lowest_card(after[E.KITTY])
            return seen_action(mover, action, 1 + first + 64 * highest_card(after[E.KITTY]))
    return seen_action(mover, action, 0)
