"""Twenty-Eight observation and information-state tensors, filled by a numba kernel.

Seats are relative to the observer (0 = self, 1 = next, 2 = partner, 3 =
previous with four players), so one network serves every seat; with three or
six players every seat piece has that many entries (:func:`pieces_for`). Card planes are 52 wide (all card
ids) so variant decks fit the same layout. The face-down indicator and the
trump suit appear only for the seat that placed it until the trump is shown
(rulings 2 and 5); after the show they are public.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit
from cardlab.core.cards import suit_of
from cardlab.core.dealing import receiving_seat
from cardlab.core.encoding import (
    mark_cards,
    mark_current_trick,
    mark_tricks_played,
    mark_turn,
    mark_voids,
    piece_starts,
    put_ratio,
    ratio_divisors,
    relative_seat,
)
from cardlab.core.infostate import deal_token, seen_action, unseen_action
from cardlab.core.kernel import borrowing_kernel
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.rules import (
    BID,
    CALL_TRUMP,
    MAX_BID,
    MIN_BID,
    NUM_PLAYERS,
    PASS,
    SECOND_ROUND_MIN,
    THANI,
)

NUM_CARDS = 52
RAISE_SLOTS = 2 + MAX_BID - SECOND_ROUND_MIN + 1  # not spoken / pass / 24..28
#: Rows of the first-round history piece: at least the four-player game's 48, so its
#: tensor keeps its size.
STANDARD_FIRST_ROUND_ROWS = 48


def longest_first_round(players: int, opening_min: int) -> int:
    """The most first-round actions: every bid, N - 2 passes between two, N - 1 at the end."""
    bids = MAX_BID - opening_min + 1
    return max(STANDARD_FIRST_ROUND_ROWS, bids + (bids - 1) * (players - 2) + players - 1)


def pieces_for(players: int, opening_min: int, tricks: int,
               perfect_recall: bool) -> tuple[tuple[str, int], ...]:
    """(name, size) of each piece, in tensor order, for a table of ``players`` seats.

    Seat pieces have one entry per seat relative to the observer; bids run from
    the opening minimum to 28.
    """
    bid_values = MAX_BID - opening_min + 1
    bid_slots = 2 + bid_values  # not spoken / pass / each bid
    pieces = (
        ("hand", NUM_CARDS),
        ("indicator", NUM_CARDS),  # the indicator, if this seat may know it
        ("trump", 5),  # suit, or slot 4 once placed but unknown to this seat
        ("trump_shown", 1),
        ("played_by_seat", players * NUM_CARDS),
        ("current_trick", players * NUM_CARDS),
        ("current_trumps_from", players + 1),  # position from which trump-suit cards are trumps
        ("last_first_round_bid", players * bid_slots),
        ("high_bid", 1 + bid_values),
        ("high_bidder", players),
        ("bidder", players),
        ("second_round", 2 * RAISE_SLOTS),
        ("voids", 4 * players),
        ("dealer", players),
        ("to_move", players),
        ("phase", E.NUM_PHASES),
        ("team_points_tricks", 4),  # own side's card points and tricks, then the others'
        ("caller", players + 1),  # relative seat of the caller, last slot: shown by playing it
        ("must_play_trump", 1),
        ("outcome", 4),
    )
    if perfect_recall:
        pieces += (
            ("first_four", NUM_CARDS),
            ("dealt_hand", NUM_CARDS),
            ("own_indicators", NUM_CARDS),  # every card this seat placed face down
            ("first_round_history", longest_first_round(players, opening_min) * (bid_slots - 1)),
            ("trick_history", tricks * players * NUM_CARDS),
            ("trick_trumps_from", tricks * (players + 1)),
        )
    return pieces


_STANDARD = pieces_for(NUM_PLAYERS, MIN_BID, 8, True)
OBSERVATION_PIECES = _STANDARD[:20]
INFORMATION_STATE_EXTRA = _STANDARD[20:]
#: Appended to both tensors only when a variant switch of docs/variants.md is on, so the
#: standard game's tensors stay the contract's.
VARIANT_PIECES = (
    ("variant_nodes", 4),  # pointless-show node, cot offer, cot answer, shows taken / N
    ("variant_record", 6),  # pointless shown, played on (its trick / 8), Thani, the early end (3)
)
#: What each piece of the tensors holds (docs/rl.md's tables are made from these).
PIECE_MEANINGS = {
    "hand": "the cards the player holds",
    "indicator": "the face-down trump indicator, if this seat may know it",
    "trump": "the trump suit, or slot 4 once an indicator is placed that this seat cannot see",
    "trump_shown": "the trump has been shown",
    "played_by_seat": "the cards each seat has played, one plane of 52 per seat",
    "current_trick": "the cards on the table, one plane per seat",
    "current_trumps_from": "the position in the trick from which trump-suit cards count as trumps",
    "last_first_round_bid": "each seat's latest first-round action: not spoken, pass, or a bid",
    "high_bid": "the highest bid so far (or none)",
    "high_bidder": "the seat holding the highest bid",
    "bidder": "the bidder, once the first round is over",
    "second_round": "the second round's two speakers: not spoken, pass, or a raise",
    "voids": "suits each seat has shown out of",
    "dealer": "the dealer",
    "to_move": "the seat to act",
    "phase": "the phase of the hand",
    "team_points_tricks": "card points of own side and of the others (/ 28), then their tricks (/ tricks)",
    "caller": "the seat that called for the trump to be shown, last slot: shown by playing it",
    "must_play_trump": "the player must play a trump now",
    "outcome": "the outcome of a finished hand",
    "first_four": "the first four cards the player was dealt",
    "dealt_hand": "the player's hand as dealt",
    "own_indicators": "every card this seat placed face down",
    "first_round_history": "every first-round action in order",
    "trick_history": "every card of the hand by trick and seat, in the order of play",
    "trick_trumps_from": "each trick's position from which trump-suit cards counted as trumps",
    "variant_nodes": "pointless-show node, cot offer, cot answer, shows taken (/ players)",
    "variant_record": "pointless hand shown, the trick the bidder played on (/ 8), Thani, the early end",
}
OBSERVATION_SIZE = sum(size for _, size in OBSERVATION_PIECES)
INFORMATION_STATE_SIZE = OBSERVATION_SIZE + sum(size for _, size in INFORMATION_STATE_EXTRA)
VARIANT_SIZE = sum(size for _, size in VARIANT_PIECES)
TOTAL_POINTS = 28.0  # the card points of a hand: a side's points are a ratio of them
COT_TRICKS = 8.0


def tensor_pieces(s: np.ndarray, perfect_recall: bool) -> tuple[tuple[str, int], ...]:
    """The (name, size) pieces of the tensors of the game whose parameters ``s`` holds."""
    pieces = pieces_for(int(s[E.NUM_PLAYERS]), int(s[E.OPENING_MIN]), int(s[E.HAND_TRICKS]),
                        perfect_recall)
    return pieces + (VARIANT_PIECES if E.has_variants(s) else ())


def tensor_divisors(s: np.ndarray, perfect_recall: bool) -> np.ndarray:
    """The divisor of each entry of the tensor (:mod:`cardlab.core.encoding`): the sides' card
    points and tricks, and in the variants the shows taken and the trick the bidder played on."""
    pieces = tensor_pieces(s, perfect_recall)
    start = piece_starts(pieces)
    points = start["team_points_tricks"]
    ratios = {points: TOTAL_POINTS, points + 1: TOTAL_POINTS,
              points + 2: float(s[E.HAND_TRICKS]), points + 3: float(s[E.HAND_TRICKS])}
    if "variant_nodes" in start:
        ratios[start["variant_nodes"] + 3] = float(s[E.NUM_PLAYERS])
        ratios[start["variant_record"] + 1] = COT_TRICKS
    return ratio_divisors(sum(size for _, size in pieces), ratios)


@borrowing_kernel
def knows_indicator(s, player):
    """The bidder knows his indicator; everybody knows it once shown."""
    return s[E.INDICATOR] >= 0 and (s[E.TRUMP_SHOWN] == 1 or player == s[E.BIDDER])


@borrowing_kernel
def _bid_slot(s, action):
    if action < 0:
        return 0
    if action == PASS:
        return 1
    return 2 + action - BID - s[E.OPENING_MIN]


@borrowing_kernel
def _raise_slot(s, action):
    if action < 0 or action == THANI:  # Thani is no raise: the variant piece records it
        return 0
    if action == PASS:
        return 1
    return 2 + action - BID - s[E.RAISE_MIN]  # 24 but in a small game


@borrowing_kernel
def _first_round_rows(s):
    """``longest_first_round`` of the game ``s`` (numba's copy of the Python one)."""
    bids = MAX_BID - s[E.OPENING_MIN] + 1
    n = s[E.NUM_PLAYERS]
    return max(STANDARD_FIRST_ROUND_ROWS, bids + (bids - 1) * (n - 2) + n - 1)


@borrowing_kernel
def encode(s, player, perfect_recall, out):
    """Fill ``out`` (zeroed here) with what ``player`` sees.

    Long on purpose: one pass over the pieces in the tensor's order, so the code reads as the layout
    table of docs/rl.md does.
    """
    out[:] = 0.0
    n = s[E.NUM_PLAYERS]
    bid_slots = 2 + MAX_BID - s[E.OPENING_MIN] + 1
    o = 0
    mark_cards(out, o, s[E.HANDS + player])
    o += NUM_CARDS
    if knows_indicator(s, player):
        out[o + s[E.INDICATOR]] = 1.0
    o += NUM_CARDS
    if s[E.INDICATOR] >= 0:
        out[o + (s[E.TRUMP] if knows_indicator(s, player) else 4)] = 1.0
    o += 5
    out[o] = float(s[E.TRUMP_SHOWN])
    o += 1
    for seat in range(n):
        mark_cards(out, o + relative_seat(seat, player, n) * NUM_CARDS, s[E.PLAYED_BY + seat])
    o += n * NUM_CARDS
    o = mark_current_trick(out, o, s, E.TRICK, E.TRICK_SIZE, E.TRICK_LEADER, player, n)
    if s[E.PHASE] == E.PLAYING:
        out[o + s[E.TRUMPS_FROM]] = 1.0
    o += n + 1
    # Each seat's latest first-round action: the seats speak in turn, so the last n actions.
    first = max(0, s[E.NUM_BIDS] - n)
    relative = relative_seat((s[E.DEALER] + 1 + first) % n, player, n)
    for i in range(first, s[E.NUM_BIDS]):
        out[o + relative * bid_slots + _bid_slot(s, s[E.BID_HISTORY + i])] = 1.0
        relative = relative + 1 if relative + 1 < n else 0
    o += n * bid_slots
    out[o + (0 if s[E.HIGH_BID] < 0 else 1 + s[E.HIGH_BID] - s[E.OPENING_MIN])] = 1.0
    o += bid_slots - 1
    if s[E.HIGH_BIDDER] >= 0:
        out[o + relative_seat(s[E.HIGH_BIDDER], player, n)] = 1.0
    o += n
    if s[E.BIDDER] >= 0:
        out[o + relative_seat(s[E.BIDDER], player, n)] = 1.0
    o += n
    for speaker in range(2):
        out[o + speaker * RAISE_SLOTS + _raise_slot(s, s[E.RAISES + speaker])] = 1.0
    o += 2 * RAISE_SLOTS
    o = mark_voids(out, o, s, E.VOIDS, player, n)
    o = mark_turn(out, o, s, player, E.NUM_PHASES, n)
    own = E.side_of(s, player)
    tricks = s[E.HAND_TRICKS]
    points = s[E.CARD_POINTS_WON + own]  # own side, then the others together
    others_points = -points
    tricks_won = s[E.TRICKS_WON + own]
    others_tricks = -tricks_won
    for side in range(E.num_sides(s)):
        others_points += s[E.CARD_POINTS_WON + side]
        others_tricks += s[E.TRICKS_WON + side]
    put_ratio(out, o, points, TOTAL_POINTS)
    put_ratio(out, o + 1, others_points, TOTAL_POINTS)
    put_ratio(out, o + 2, tricks_won, tricks)
    put_ratio(out, o + 3, others_tricks, tricks)
    o += 4
    if s[E.TRUMP_SHOWN] == 1:
        out[o + (n if s[E.CALLER] < 0 else relative_seat(s[E.CALLER], player, n))] = 1.0
    o += n + 1
    out[o] = 1.0 if s[E.MUST_PLAY_TRUMP] == player else 0.0
    o += 1
    if s[E.PHASE] == E.GAME_OVER and s[E.OUTCOME] != E.POINTLESS_SHOWN:  # in the variant piece
        out[o + s[E.OUTCOME]] = 1.0
    o += 4
    if not perfect_recall:
        if E.has_variants(s):
            _encode_variants(s, out, o)
        return
    mark_cards(out, o, s[E.FIRST_FOUR + player])
    o += NUM_CARDS
    mark_cards(out, o, s[E.DEALT + player])
    o += NUM_CARDS
    mark_cards(out, o, own_indicators(s, player))
    o += NUM_CARDS
    for i in range(s[E.NUM_BIDS]):
        out[o + i * (bid_slots - 1) + _bid_slot(s, s[E.BID_HISTORY + i]) - 1] = 1.0
    o += _first_round_rows(s) * (bid_slots - 1)
    o = mark_tricks_played(out, o, s, E.TRICK_HISTORY, E.TRICK_LEADERS, E.TRICK_NUMBER,
                           E.TRICK_LEADER, player, True, n, tricks)
    for trick in range(min(s[E.TRICK_NUMBER], tricks)):
        out[o + (n + 1) * trick + s[E.TRICK_TRUMPS_FROM + trick]] = 1.0
    o += tricks * (n + 1)
    if E.has_variants(s):
        _encode_variants(s, out, o)


@borrowing_kernel
def _encode_variants(s, out, o):
    """``VARIANT_PIECES`` from offset ``o``: every entry is public."""
    out[o] = 1.0 if s[E.PHASE] == E.RAISING and E.showing_pending(s) else 0.0
    out[o + 1] = 1.0 if s[E.COT_NODE] == E.OFFER_PENDING else 0.0
    out[o + 2] = 1.0 if s[E.COT_NODE] == E.ANSWER_PENDING else 0.0
    put_ratio(out, o + 3, s[E.SHOW_NODES], s[E.NUM_PLAYERS])
    o += 4
    out[o] = 1.0 if s[E.OUTCOME] == E.POINTLESS_SHOWN else 0.0
    put_ratio(out, o + 1, s[E.COT_PLAYED_ON], COT_TRICKS)  # before which trick the bidder played on
    out[o + 2] = float(s[E.THANI_DECLARED])
    if s[E.SPECIAL_END] > 0:
        out[o + 2 + s[E.SPECIAL_END]] = 1.0


@borrowing_kernel
def own_indicators(s, player):
    """Cards ``player`` placed face down himself (rulings 2 and 4)."""
    cards = np.int64(0)
    if s[E.OLD_INDICATOR] >= 0 and player == s[E.FIRST_BIDDER]:
        cards |= card_bit(s[E.OLD_INDICATOR])
    if s[E.INDICATOR] >= 0 and player == s[E.BIDDER]:
        cards |= card_bit(s[E.INDICATOR])
    return cards


@njit(cache=True)
def known_trump(s, player):
    """The trump suit as ``player`` knows it, -1 if unknown to him (or not chosen)."""
    return suit_of(s[E.INDICATOR]) if knows_indicator(s, player) else -1


@njit(cache=True)
def hides_choice(s, observer):
    """Is the choice to be made in ``s`` out of ``observer``'s sight?

    Only the card a bidder lays face down as the trump indicator (ruling 2):
    the others see that he placed one, not which.
    """
    return s[E.PHASE] == E.PLACING and s[E.TO_MOVE] != observer


@njit(cache=True)
def shows_trump(s, action):
    """Does ``action`` turn the indicator face up: a call, or the bidder playing it (ruling 5)?"""
    if s[E.PHASE] != E.PLAYING or s[E.TRUMP_SHOWN] == 1:
        return False
    return action == CALL_TRUMP or (s[E.TO_MOVE] == s[E.BIDDER] and action == s[E.INDICATOR])


@njit(cache=True)
def _outcome_after(s, action):
    """How the hand stands after ``action``: ``E.PLAYED_OUT`` unless the step voided it."""
    after = s.copy()
    E.apply_action(after, action)
    return after[E.OUTCOME]


@njit(cache=True)
def observation_token(s, action, player):
    """What ``player`` observes when ``action`` is applied in ``s`` (:mod:`cardlab.core.infostate`).

    Hidden: the deal (the player sees its hand when a stage is complete) and
    the card a bidder places face down, seen only by him. Revealed by a step
    beyond its action: whether the completed deal is void for four jacks in
    one hand (ruling 3), and at the show the indicator and whether the bidding
    team held every trump (ruling 7). Everything else follows from the actions.
    """
    phase = s[E.PHASE]
    if phase == E.DEALING:
        k = s[E.CARDS_DEALT] % s[E.STAGE_CARDS]
        complete = k + 1 == s[E.STAGE_CARDS]
        outcome = _outcome_after(s, action) if complete else E.PLAYED_OUT
        receiver = receiving_seat(s[E.DEALER], k, s[E.NUM_PLAYERS])
        return deal_token(s[E.HANDS + player], action, receiver, player, complete, outcome)
    mover = s[E.TO_MOVE]
    if hides_choice(s, player):
        return unseen_action(mover)
    if shows_trump(s, action):
        return seen_action(mover, action, 1 + s[E.INDICATOR] + 64 * _outcome_after(s, action))
    return seen_action(mover, action, 0)
