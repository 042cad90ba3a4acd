"""Kaiser observation and information-state tensors, filled by a numba kernel.

Seats are relative to the observer (0 = self, 1 = left, 2 = partner, 3 =
right), so one network serves every seat. Card planes are 52 wide (all card
ids) so that variant decks fit the same layout.
"""

from __future__ import annotations

from numba import njit

from cardlab.core.bitboard import highest_card, lowest_card
from cardlab.core.dealing import receiving_seat
from cardlab.core.encoding import (
    mark_cards,
    mark_current_trick,
    mark_dealer_and_mover,
    mark_tricks_played,
    mark_voids,
)
from cardlab.core.infostate import deal_token, seen_action, unseen_action
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.rules import HAND_SIZE, NUM_PLAYERS

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
INFORMATION_STATE_EXTRA = (
    ("dealt_hand", NUM_CARDS),
    ("trick_history", 8 * 4 * NUM_CARDS),
)
OBSERVATION_SIZE = sum(size for _, size in OBSERVATION_PIECES)
INFORMATION_STATE_SIZE = OBSERVATION_SIZE + sum(size for _, size in INFORMATION_STATE_EXTRA)


@njit(cache=True)
def kaiser_bid_slots(s):
    """Extra bid slots of a game with the Kaiser bids (0 in the standard game)."""
    return KAISER_BID_SLOTS if E.offers_kaiser_bid(s) or s[E.KAISER_40] else 0


def tensor_pieces(s, perfect_recall: bool) -> tuple[tuple[str, int], ...]:
    """The pieces of the tensor for the game whose parameters ``s`` holds.

    Only the Kaiser bids (11.29-11.31) widen them: two more bid slots per seat
    and a fourteenth contract value.
    """
    extra = kaiser_bid_slots(s)
    widths = {"bids": 4 * (NUM_BID_SLOTS + extra), "contract_value": NUM_CONTRACT_VALUES + (extra > 0),
              "phase": num_phase_slots(s)}
    pieces = tuple((name, widths.get(name, size)) for name, size in OBSERVATION_PIECES)
    if s[E.HIGH_OR_LOW_AFTER_BID] or s[E.ANY_CONTRACT_HIGH_OR_LOW]:
        pieces += (("played_low", 1),)
    if s[E.KITTY_34_CARD]:
        pieces += (("kitty_and_discards", 2 * NUM_CARDS),)  # as far as the player has seen them
    return pieces + (tuple(INFORMATION_STATE_EXTRA) if perfect_recall else ())


@njit(cache=True)
def has_high_or_low(s):
    return s[E.HIGH_OR_LOW_AFTER_BID] or s[E.ANY_CONTRACT_HIGH_OR_LOW]


@njit(cache=True)
def num_phase_slots(s):
    """The standard game's five phases, then choosing high or low (11.5, 11.6), then discarding (11.1)."""
    return NUM_STANDARD_PHASES + (1 if has_high_or_low(s) else 0) + (1 if s[E.KITTY_34_CARD] else 0)


@njit(cache=True)
def phase_slot(s):
    """Where the phase is marked: the standard game's phases keep their slots, the variants' follow."""
    phase = s[E.PHASE]
    if phase == E.HIGH_OR_LOW:
        return NUM_STANDARD_PHASES
    if phase == E.DISCARDING:
        return NUM_STANDARD_PHASES + (1 if has_high_or_low(s) else 0)
    if phase == E.PLAYING:
        return 3
    if phase == E.GAME_OVER:
        return 4
    return phase


@njit(cache=True)
def kitty_seen_by(s, player):
    """The kitty's cards and the discards, once ``player``, the declarer, has taken it up."""
    if s[E.KITTY_34_CARD] and s[E.PHASE] >= E.DISCARDING and s[E.DECLARER] == player:
        return s[E.KITTY], s[E.DISCARDS]
    return 0, 0


@njit(cache=True)
def hides_choice(s, observer):
    """Is the choice to be made in ``s`` out of ``observer``'s sight? The declarer's discards (11.1)."""
    return s[E.PHASE] == E.DISCARDING and s[E.TO_MOVE] != observer


@njit(cache=True)
def encode(s, player, perfect_recall, out):
    """Fill ``out`` (zeroed here) with what ``player`` sees."""
    out[:] = 0.0
    o = 0
    mark_cards(out, o, s[E.HANDS + player])
    o += NUM_CARDS
    # Cards each seat has played this hand, and the current trick.
    o = mark_tricks_played(out, o, s, E.TRICK_HISTORY, E.TRICK_LEADERS, E.TRICK_NUMBER,
                           E.TRICK_LEADER, player, False)
    o = mark_current_trick(out, o, s, E.TRICK, E.TRICK_SIZE, E.TRICK_LEADER, player)
    bid_slots = NUM_BID_SLOTS + kaiser_bid_slots(s)
    for seat in range(4):
        relative = (seat - player) % 4
        spoken = s[E.SPOKEN + seat]
        if spoken < 0:
            slot = 0
        elif spoken < E.BID:
            slot = 1
        else:
            slot = 2 + spoken - E.BID
        out[o + relative * bid_slots + slot] = 1.0
    o += 4 * bid_slots
    values = NUM_CONTRACT_VALUES + (bid_slots > NUM_BID_SLOTS)
    if s[E.DECLARER] >= 0 and s[E.PHASE] > E.BIDDING:  # bids 99 and 100: value 13, kinds 0 and 1
        out[o + (s[E.DECLARER] - player) % 4] = 1.0
        out[o + 4 + s[E.HIGH_BID] // 3] = 1.0
        out[o + 4 + values + s[E.HIGH_BID] % 3] = 1.0
    o += 4 + values + 3
    # The information state keeps the trump after the hand: when nobody showed out, nothing else tells it.
    # A trump still to be fixed by the first lead (11.8, 11.9) is marked nowhere.
    if (s[E.PHASE] == E.PLAYING or (perfect_recall and s[E.PHASE] == E.GAME_OVER
                                    and s[E.TRICK_NUMBER] > 0)) and not E.trump_to_be_led(s):
        out[o + (s[E.TRUMP] if s[E.TRUMP] >= 0 else 4)] = 1.0
    o += 5
    o = mark_voids(out, o, s, E.VOIDS, player, 4)
    o = mark_dealer_and_mover(out, o, s, player)
    out[o + phase_slot(s)] = 1.0
    o += num_phase_slots(s)
    own = player & 1
    out[o + 0] = s[E.HAND_POINTS + own] / 10.0
    out[o + 1] = s[E.HAND_POINTS + 1 - own] / 10.0
    out[o + 2] = s[E.TRICKS_WON + own] / 8.0
    out[o + 3] = s[E.TRICKS_WON + 1 - own] / 8.0
    o += 4
    out[o + 0] = s[E.MATCH_SCORE + own] / s[E.TARGET]
    out[o + 1] = s[E.MATCH_SCORE + 1 - own] / s[E.TARGET]
    out[o + 2] = s[E.HAND_NUMBER] / s[E.MAX_HANDS]
    o += 3
    if has_high_or_low(s):
        out[o] = s[E.PLAYED_LOW]
        o += 1
    if s[E.KITTY_34_CARD]:
        kitty, discards = kitty_seen_by(s, player)
        mark_cards(out, o, kitty)
        mark_cards(out, o + NUM_CARDS, discards)
        o += 2 * NUM_CARDS
    if not perfect_recall:
        return
    mark_cards(out, o, s[E.DEALT + player])
    o += NUM_CARDS
    mark_tricks_played(out, o, s, E.TRICK_HISTORY, E.TRICK_LEADERS, E.TRICK_NUMBER, E.TRICK_LEADER,
                       player, True)


@njit(cache=True)
def observation_token(s, action, player):
    """What ``player`` observes when ``action`` is applied in ``s`` (:mod:`cardlab.core.infostate`).

    Kaiser hides the deal: the player sees its hand once every card is out (the
    kitty's two cards of 11.1 included, which nobody sees). Every other action
    (bid, misdeal, trump, high or low, card) is seen by everyone and reveals
    nothing more: who wins a trick, and the score, follow from the cards. With
    a kitty, the declarer alone sees it when he takes it up (the detail of the
    step that hands it to him) and his discards are seen by him only.
    """
    mover = s[E.TO_MOVE]
    if s[E.PHASE] == E.DEALING:
        k = s[E.CARDS_DEALT]
        receiver = receiving_seat(s[E.DEALER], k, NUM_PLAYERS) if k < NUM_PLAYERS * HAND_SIZE else -1
        return deal_token(s[E.HANDS + player], action, receiver, player, k + 1 == E.cards_to_deal(s), 0)
    if hides_choice(s, player):
        return unseen_action(mover)
    if s[E.KITTY_34_CARD] and s[E.PHASE] < E.DISCARDING:
        after = s.copy()
        E.apply_action(after, action)
        if after[E.PHASE] == E.DISCARDING and after[E.DECLARER] == player:
            first = lowest_card(after[E.KITTY])
            return seen_action(mover, action, 1 + first + 64 * highest_card(after[E.KITTY]))
    return seen_action(mover, action, 0)
