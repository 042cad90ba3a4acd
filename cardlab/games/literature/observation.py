"""Literature observation and information-state tensors, filled by a numba kernel.

The observation tensor is built from the player's *private knowledge* (what
the public events and its own hand prove), not from the raw history, so a
learning agent gets the deductions for free: for every card, which seats may
hold it; for every seat, its hand size and its proven half-suit minimums. The
information-state tensor adds the whole record: the dealt hand and every
public event in order. Seats are relative to the observer (0 = self, 1 = next
seat, ...), so one network serves every seat; the width of the seat planes is
the game's number of players, and the width of the per-card claim pieces is
the size of the layout's largest half-suit (6, or 7 under 12.10).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit, cards_in, has_card, popcount
from cardlab.core.dealing import receiving_seat
from cardlab.core.encoding import mark_cards, piece_starts, put_ratio, ratio_divisors
from cardlab.core.infostate import deal_token, seen_action
from cardlab.core.kernel import borrowing_kernel
from cardlab.core.rng import mix64
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.rules import (
    ASSIGN,
    CHALLENGE,
    CLAIM,
    DECLINE,
    HALF_SUIT_MASKS,
    HALF_SUIT_OF,
    HALF_SUIT_SIZE,
    MAX_HALF_SUITS,
    PASS_TURN,
    UNRESOLVED,
)

NUM_CARDS = 54
#: What each piece of the tensors holds (docs/rl.md's tables are made from these).
PIECE_MEANINGS = {
    "hand": "the cards the player holds",
    "possible_holders": "for each seat, the cards it may hold as far as the player can tell",
    "holder_counts": "for each card, how many seats may hold it (/ players)",
    "hand_sizes": "how many cards each seat holds (/ cards dealt each)",
    "half_suit_minimums": "the fewest cards of each half-suit each seat is known to hold (/ half-suit size)",
    "half_suit_status": "each half-suit: in play, claimed by own team, by the others, out of play",
    "scores": "own team's score, then the others' (/ 12)",
    "to_move": "the seat to act",
    "phase": "the phase: asking, claiming, ...",
    "claim_half_suit": "the half-suit being claimed",
    "claim_named_seats": "the seats named so far in the claim being made, one per card",
    "certain_claims": "each half-suit in play whose every card the player places with a seat of its team",
    "team_holds": "each half-suit in play no card of which the other team may hold",
    "next_card_holders": "in a claim, the seats that may hold the card to be named next",
    "dealer": "the dealer",
    "asks_made": "the asks made so far (/ max_asks)",
    "dealt_hand": "the player's hand as dealt",
    "events": "every public event in order: actor, target, half-suit, card, answer",
    "claims": "each claim's named seat and true holder of every card",
    "claim_window": "the seat on turn while a claim window polls the others, the polls left (/ players - 1)",
    "forced": "the half-suits to declare, the passes made (/ players x 9), the challenger",
}
SCORE_DIVISOR = 12.0  # the scores as ratios of twelve


def observation_pieces(num_players: int, half_suit_size: int = 6) -> tuple[tuple[str, int], ...]:
    """(name, size) of each piece of the observation tensor, in order."""
    n = num_players
    return (
        ("hand", NUM_CARDS),
        ("possible_holders", n * NUM_CARDS),
        ("holder_counts", NUM_CARDS),
        ("hand_sizes", n),
        ("half_suit_minimums", n * MAX_HALF_SUITS),
        ("half_suit_status", MAX_HALF_SUITS * 4),
        ("certain_claims", MAX_HALF_SUITS),
        ("team_holds", MAX_HALF_SUITS),
        ("scores", 2),
        ("to_move", n),
        ("phase", 4),
        ("claim_half_suit", MAX_HALF_SUITS),
        ("claim_named_seats", half_suit_size * n),
        ("next_card_holders", n),
        ("dealer", n),
        ("asks_made", 1),
    )


@njit(cache=True)
def event_slots(max_asks: int, forced: bool = False) -> int:
    """Events a game can log: ``max_asks`` asks, one claim per half-suit, one hand-off per claim;
    with the forced procedure (12.15, 12.17) a challenge and a declaration's passes per half-suit.

    A hand-off only follows a resolution: only a claimant (or a seat whose cards
    a challenge showed) can be on turn without cards (a failed ask hands the
    turn to a target with cards, a hand-off to a seat with cards), and after
    the hand-off the turn is with a seat with cards.
    """
    return max_asks + (4 if forced else 2) * MAX_HALF_SUITS


#: The flags a slot adds with the forced procedure: challenge, forfeit, declaration, passes.
FORCED_EVENT_FLAGS = 4


@njit(cache=True)
def event_width(num_players: int, surrenders: bool = False, half_suit_size: int = 6,
                forced: bool = False) -> int:
    """Slots of one event: actor, target, half-suit, card within it, answer, with
    ``ask_own_card_surrender`` (12.12) whether the asker surrendered the card, and with the
    forced procedure (12.15, 12.17) its ``FORCED_EVENT_FLAGS``."""
    return (2 * num_players + MAX_HALF_SUITS + half_suit_size + 1 + int(surrenders)
            + FORCED_EVENT_FLAGS * int(forced))


def information_state_extra(num_players: int, max_asks: int, surrenders: bool = False,
                            half_suit_size: int = 6,
                            forced: bool = False) -> tuple[tuple[str, int], ...]:
    """Pieces the information-state tensor adds: the dealt hand and the whole public record.

    ``events`` has a slot per logged event, in order (:func:`_encode_event`);
    ``claims``, for each half-suit and each of its cards (ascending ids), the
    seat the claim named and the seat shown to hold it.

    Why this is perfect recall: a player observes its dealt hand, then the
    public events in order (an ask: asker, target, card, answer; a claim:
    claimant, half-suit, the seat named for each card and the seat shown to
    hold it; a hand-off: giver and receiver) and the steps of a claim being
    made. The tensor holds the dealt hand, event i in slot i, each claim's
    seats under its half-suit (claimed at most once) and the claim being made
    in the observation part (half-suit, seats named so far, to move); all the
    rest of it follows from these. So two histories give equal tensors exactly
    when the player's observations were equal. Order matters: a per-card
    summary (who was asked for each card, and the answer) would not tell two
    successful asks of one asker from the same asks made the other way round.
    """
    n = num_players
    return (
        ("dealt_hand", NUM_CARDS),
        ("events", int(event_slots(max_asks, forced)
                       * event_width(n, surrenders, half_suit_size, forced))),
        ("claims", MAX_HALF_SUITS * half_suit_size * 2 * n),
    )


def tensor_pieces(num_players: int, max_asks: int, perfect_recall: bool,
                  surrenders: bool = False, windows: bool = False,
                  half_suit_size: int = 6, forced: bool = False) -> tuple[tuple[str, int], ...]:
    """(name, size) of each piece of the observation or information-state tensor, in order.

    With claim windows (12.5, 12.17) both end with ``claim_window``: the seat
    on turn while a window polls the others, and the polls left. With the
    forced procedure (12.15, 12.17), then ``forced``: the half-suits to declare,
    the passes made (over the most a procedure allows), and the challenger.
    """
    pieces = observation_pieces(num_players, half_suit_size)
    if perfect_recall:
        pieces += information_state_extra(num_players, max_asks, surrenders, half_suit_size,
                                          forced)
    if windows:
        pieces += (("claim_window", num_players + 1),)
    if forced:
        pieces += (("forced", MAX_HALF_SUITS + 1 + num_players),)
    return pieces


def pieces_of_state(s: np.ndarray, perfect_recall: bool) -> tuple[tuple[str, int], ...]:
    """The tensor pieces of the game whose parameters ``s`` holds (seats, ask limit, variants)."""
    return tensor_pieces(int(s[E.NUM_PLAYERS]), int(s[E.MAX_ASKS]), perfect_recall,
                         int(s[E.OWN_CARD_ASKS]) == E.SURRENDER_OWN_CARD, bool(has_windows(s)),
                         int(HALF_SUIT_SIZE[s[E.LAYOUT]]), bool(has_forced_procedure(s)))


def tensor_divisors(s: np.ndarray, perfect_recall: bool) -> np.ndarray:
    """The divisor of each entry of the tensor (:mod:`cardlab.core.encoding`): hand sizes, the
    least each seat holds of each half-suit, the scores, the asks made, and in the variants a
    window's polls and a forced declaration's passes (in the record, each event's too)."""
    pieces = pieces_of_state(s, perfect_recall)
    start = piece_starts(pieces)
    n = int(s[E.NUM_PLAYERS])
    size = int(HALF_SUIT_SIZE[s[E.LAYOUT]])
    passes = float(n * MAX_HALF_SUITS)
    ratios = {start["hand_sizes"] + seat: float(s[E.CARDS_EACH]) for seat in range(n)}
    ratios |= {start["holder_counts"] + card: float(n) for card in range(NUM_CARDS)}
    ratios |= {start["half_suit_minimums"] + k: float(size) for k in range(n * MAX_HALF_SUITS)}
    ratios |= {start["scores"]: SCORE_DIVISOR, start["scores"] + 1: SCORE_DIVISOR,
               start["asks_made"]: float(s[E.MAX_ASKS])}
    if "claim_window" in start:
        ratios[start["claim_window"] + n] = float(n - 1)
    forced = "forced" in start
    if forced:
        ratios[start["forced"] + MAX_HALF_SUITS] = passes
    if forced and perfect_recall:  # each event slot's passes (_encode_event)
        width = event_width(n, int(s[E.OWN_CARD_ASKS]) == E.SURRENDER_OWN_CARD, size, True)
        passes_at = width - FORCED_EVENT_FLAGS + 3
        for slot in range(event_slots(int(s[E.MAX_ASKS]), True)):
            ratios[start["events"] + slot * width + passes_at] = passes
    return ratio_divisors(sum(size for _, size in pieces), ratios)


#: Observation entries linked to each action (:func:`action_links`).
LINKS_PER_ACTION = 3


def holder_links(s: np.ndarray, cards: int, others: int) -> np.ndarray:
    """``links[c * others + k]``: the entries that speak of whether the seat ``k + 1`` places after
    the observer holds card ``c``: whether it may (the deductions' verdict, which a hand-inference
    network would otherwise have to learn to read back card by card) and its hand size."""
    start = piece_starts(pieces_of_state(s, False))
    n, layout = int(s[E.NUM_PLAYERS]), int(s[E.LAYOUT])
    links = np.full((cards * others, 2), -1, dtype=np.int64)
    for k in range(min(others, n - 1)):
        for card in range(min(cards, NUM_CARDS)):
            if HALF_SUIT_OF[layout, card] >= 0:
                links[card * others + k] = (start["possible_holders"] + (k + 1) * NUM_CARDS + card,
                                            start["hand_sizes"] + k + 1)
    return links


def action_links(s: np.ndarray, num_actions: int) -> np.ndarray:
    """``links[a]``: the observation entries that speak of action ``a`` (in the mover's frame,
    :func:`mover_action`), -1 for none; a network adds each, times a weight of its own, to
    ``a``'s logit.

    An ask of seat t for card c is hopeless unless t may hold c, and a claim's
    next seat must be one that may hold the card: one entry of the tensor each
    decides the action. A layer of a few hundred units, between those entries
    and the logits, would have to carry every such pair through itself; the
    link hands each logit its own entries: for an ask, whether the target may
    hold the card, its hand size and how many seats may hold the card (its
    odds, as the deduction player reckons them, follow from the three); for a
    claim, certain and held by the team; for a claim's seat, whether it may
    hold the card named next; for a hand-off, the receiver's hand size.
    """
    start = piece_starts(pieces_of_state(s, False))
    n, layout = int(s[E.NUM_PLAYERS]), int(s[E.LAYOUT])
    links = np.full((num_actions, LINKS_PER_ACTION), -1, dtype=np.int64)
    for seat in range(1, n):  # one never asks oneself
        for card in range(NUM_CARDS):
            if HALF_SUIT_OF[layout, card] >= 0:
                links[64 * seat + card] = (start["possible_holders"] + seat * NUM_CARDS + card,
                                           start["hand_sizes"] + seat, start["holder_counts"] + card)
    for h in range(MAX_HALF_SUITS):
        links[CLAIM + h, :2] = start["certain_claims"] + h, start["team_holds"] + h
    for seat in range(n):
        links[ASSIGN + seat, 0] = start["next_card_holders"] + seat
        links[PASS_TURN + seat, 0] = start["hand_sizes"] + seat
    return links


@borrowing_kernel
def has_windows(s):
    return s[E.CLAIM_ANY_TIME] == 1 or s[E.CHALLENGES] == 1


@borrowing_kernel
def has_forced_procedure(s):
    return s[E.FORCED_CLAIMS] == 1 or s[E.CHALLENGES] == 1


@njit(cache=True)
def _turned_action(num_players, action, turn):
    """``action`` with the seat it names (an ask's target, a claim's named holder, a hand-off's
    receiver) moved ``turn`` places round the table; actions that name no seat are unchanged."""
    if action < CLAIM:
        target, card = action >> 6, action & 63
        if target < num_players:
            return ((target + turn) % num_players << 6) | card
    elif ASSIGN <= action < ASSIGN + 16 or PASS_TURN <= action < PASS_TURN + 16:
        family = ASSIGN if action < PASS_TURN else PASS_TURN
        if action - family < num_players:
            return family + (action - family + turn) % num_players
    return action


@njit(cache=True)
def mover_action(s, player, action):
    """``action`` as ``player`` names it in its own frame, where seat 0 is itself and seat k the
    k-th seat after it, as in its observation tensor.

    The actions of Literature name seats (ask seat t, seat s holds this card,
    hand the turn to s), and the tensor names seats relative to the observer;
    a network reading the one and choosing among the others would have to
    learn each seat's own mapping. A network that speaks this frame learns
    one policy for every seat; :func:`absolute_action` turns its choice back.
    """
    return _turned_action(s[E.NUM_PLAYERS], action, -player)


@njit(cache=True)
def absolute_action(s, player, action):
    """The action id of ``action`` given in ``player``'s own frame (the inverse of :func:`mover_action`)."""
    return _turned_action(s[E.NUM_PLAYERS], action, player)


@njit(cache=True, inline="always")
def _mark_holder_counts(view, n, out, o):
    """For each card, how many seats may hold it: with the target's hand size, an ask's odds."""
    for card in range(NUM_CARDS):
        holders = 0
        for seat in range(n):
            holders += (view[K.MAY_HOLD + seat] >> card) & 1
        put_ratio(out, o + card, holders, n)


@njit(cache=True, inline="always")
def _mark_claims_in_reach(s, view, own, out, o):
    """The claims the player's deductions allow (what rule 1 of the deduction player reads): each
    half-suit in play placed card by card with its team, then each no opponent may hold."""
    others_may_hold = K.team_may_hold(view, 1 - own)
    for h in range(MAX_HALF_SUITS):
        cards = HALF_SUIT_MASKS[s[E.LAYOUT], h]
        if s[E.STATUS + h] == UNRESOLVED and cards != 0:
            out[o + h] = 1.0 if K.claim_is_certain(view, h, own) else 0.0
            out[o + MAX_HALF_SUITS + h] = 1.0 if cards & others_may_hold == 0 else 0.0


@njit(cache=True)
def encode(s, player, perfect_recall, out):
    """Fill ``out`` (zeroed here) with what ``player`` sees."""
    out[:] = 0.0
    n = s[E.NUM_PLAYERS]
    size = HALF_SUIT_SIZE[s[E.LAYOUT]]
    view = E.private_knowledge(s, player)
    o = 0
    mark_cards(out, o, s[E.HANDS + player])
    o += NUM_CARDS
    for seat in range(n):
        relative = (seat - player) % n
        for card in cards_in(view[K.MAY_HOLD + seat]):
            out[o + relative * NUM_CARDS + card] = 1.0
    o += n * NUM_CARDS
    _mark_holder_counts(view, n, out, o)
    o += NUM_CARDS
    for seat in range(n):
        put_ratio(out, o + (seat - player) % n, view[K.HAND_SIZE + seat], s[E.CARDS_EACH])
    o += n
    for seat in range(n):
        relative = (seat - player) % n
        for h in range(MAX_HALF_SUITS):
            put_ratio(out, o + relative * MAX_HALF_SUITS + h, view[K.MINIMUM + seat * MAX_HALF_SUITS + h],
                      size)
    o += n * MAX_HALF_SUITS
    own = player & 1
    for h in range(MAX_HALF_SUITS):
        status = s[E.STATUS + h]
        if status < 0:
            slot = 0
        elif status == own:
            slot = 1
        elif status == 1 - own:
            slot = 2
        else:
            slot = 3
        out[o + 4 * h + slot] = 1.0
    o += 4 * MAX_HALF_SUITS
    _mark_claims_in_reach(s, view, own, out, o)
    o += 2 * MAX_HALF_SUITS
    put_ratio(out, o, s[E.SCORES + own], SCORE_DIVISOR)
    put_ratio(out, o + 1, s[E.SCORES + 1 - own], SCORE_DIVISOR)
    o += 2
    if s[E.PHASE] == E.ASKING or s[E.PHASE] == E.CLAIMING:
        out[o + (s[E.TO_MOVE] - player) % n] = 1.0
    o += n
    out[o + s[E.PHASE]] = 1.0
    o += 4
    if s[E.PHASE] == E.CLAIMING:
        out[o + s[E.CLAIM_HALF_SUIT]] = 1.0
    o += MAX_HALF_SUITS
    for i in range(s[E.CLAIM_COUNT]):
        out[o + i * n + (s[E.CLAIM_SEATS + i] - player) % n] = 1.0
    o += size * n
    if s[E.PHASE] == E.CLAIMING:
        card = E.card_being_named(s)
        for seat in range(n):
            if K.may_hold(view, seat, card):
                out[o + (seat - player) % n] = 1.0
    o += n
    out[o + (s[E.DEALER] - player) % n] = 1.0
    o += n
    put_ratio(out, o, s[E.ASKS], s[E.MAX_ASKS])
    o += 1
    if not perfect_recall:
        _encode_variant_pieces(s, player, out, o)
        return
    mark_cards(out, o, s[E.DEALT + player])
    o += NUM_CARDS
    forced = has_forced_procedure(s)
    width = event_width(n, s[E.OWN_CARD_ASKS] == E.SURRENDER_OWN_CARD, size, forced)
    slots = event_slots(s[E.MAX_ASKS], forced)
    claims = o + slots * width
    for i in range(min(s[E.LOG_LENGTH], slots)):
        _encode_event(s, s[E.LOG + i], player, out, o + i * width, claims)
    _encode_variant_pieces(s, player, out, claims + MAX_HALF_SUITS * size * 2 * n)


@borrowing_kernel
def _encode_variant_pieces(s, player, out, o):
    """The ``claim_window`` and ``forced`` pieces from ``out[o:]``, each only where the
    variants have it (absent from the standard game)."""
    n = s[E.NUM_PLAYERS]
    if has_windows(s):
        if s[E.WINDOW_POLLS] > 0 and s[E.PHASE] == E.ASKING:
            out[o + (s[E.TURN_SEAT] - player) % n] = 1.0
            put_ratio(out, o + n, s[E.WINDOW_POLLS], n - 1)
        o += n + 1
    if has_forced_procedure(s) and s[E.FORCED_TEAM] >= 0:
        for h in range(MAX_HALF_SUITS):
            out[o + h] = (s[E.FORCED_SET] >> h) & 1
        put_ratio(out, o + MAX_HALF_SUITS, s[E.FORCED_PASSES], n * MAX_HALF_SUITS)
        if s[E.CHALLENGER] >= 0:
            out[o + MAX_HALF_SUITS + 1 + (s[E.CHALLENGER] - player) % n] = 1.0


@borrowing_kernel
def _encode_event(s, event, player, out, o, claims):
    """Write one logged event at ``out[o:]``; a claim's seats go under its half-suit in ``claims``.

    A slot is ``actor (n) | target (n) | half-suit (9) | card within the
    half-suit (6, or 7 under 12.10) | answer (1)``: an ask sets all, a claim
    the actor and the half-suit, a hand-off the actor and the target. The asker
    is implied by the turn rules but written out, so a network need not replay
    them; a card is its half-suit and its rank within it, 15 flags rather than
    54, so a slot of a 6-player game is 28 wide rather than 67.
    """
    n = s[E.NUM_PLAYERS]
    size = HALF_SUIT_SIZE[s[E.LAYOUT]]
    kind = E.event_kind(event)
    out[o + (E.event_actor(event) - player) % n] = 1.0
    if kind == E.EVENT_PASS:
        out[o + n + (E.event_target(event) - player) % n] = 1.0
        return
    o_half_suit = o + 2 * n
    o_answer = o_half_suit + MAX_HALF_SUITS + size
    o_forced = o_answer + 1 + int(s[E.OWN_CARD_ASKS] == E.SURRENDER_OWN_CARD)
    if kind == E.EVENT_FORCED and E.event_forced_kind(event) == E.FORCED_DECLARATION:
        out[o_forced + 2] = 1.0
        put_ratio(out, o_forced + 3, E.event_passes(event), n * MAX_HALF_SUITS)
        return
    if kind == E.EVENT_CLAIM or kind == E.EVENT_FORCED:
        h = E.event_half_suit(event)
        out[o_half_suit + h] = 1.0
        if kind == E.EVENT_FORCED:  # 12.17, 12.15: a challenge (answered or not), a forfeit
            out[o_forced + E.event_forced_kind(event)] = 1.0
            if E.event_status(event) == E.MUST_DECLARE:
                out[o_answer] = 1.0
                return
        elif E.event_in_window(event):  # the answer slot, unused by claims (12.5)
            out[o_answer] = 1.0
        block = claims + h * size * 2 * n
        for i in range(popcount(HALF_SUIT_MASKS[s[E.LAYOUT], h])):
            if kind == E.EVENT_CLAIM:
                out[block + 2 * n * i + (E.event_named_seat(event, i) - player) % n] = 1.0
            out[block + 2 * n * i + n + (E.event_holder(event, i) - player) % n] = 1.0
        return
    card = E.event_card(event)
    h = HALF_SUIT_OF[s[E.LAYOUT], card]
    out[o + n + (E.event_target(event) - player) % n] = 1.0
    out[o_half_suit + h] = 1.0
    lower_cards = HALF_SUIT_MASKS[s[E.LAYOUT], h] & (card_bit(card) - 1)
    out[o_half_suit + MAX_HALF_SUITS + popcount(lower_cards)] = 1.0
    if E.event_success(event):
        out[o_answer] = 1.0
    if E.event_surrendered(event):  # only set when the slot has this flag (12.12)
        out[o_answer + 1] = 1.0


@njit(cache=True)
def _holders(s, h):
    """The seats holding the cards of half-suit h, 4 bits each in ascending card order."""
    packed = np.int64(0)
    cards = cards_in(HALF_SUIT_MASKS[s[E.LAYOUT], h])
    for i in range(cards.shape[0]):
        packed |= E.holder(s, cards[i]) << (4 * i)
    return packed


@njit(cache=True)
def observation_token(s, action, player):
    """What ``player`` observes when ``action`` is applied in ``s`` (:mod:`cardlab.core.infostate`).

    Literature hides only the deal: the player sees its hand once every card is
    out. Asks, claims, seats named in a claim and hand-offs are public; an ask
    reveals its answer, and naming the last seat of a claim shows where each
    of the half-suit's cards was (which settles the claim). A challenge
    (12.17) reveals whether the challenged team holds the whole half-suit, and
    if not, where its cards were; the last pass of a forced procedure (12.15)
    shows the holders of every half-suit in it, folded into the detail by a
    hash (up to nine half-suits of seven holders do not fit its 46 bits).
    """
    phase = s[E.PHASE]
    if phase == E.DEALING:
        k = s[E.CARDS_DEALT]
        return deal_token(s[E.HANDS + player], action,
                          receiving_seat(s[E.DEALER], k, s[E.NUM_PLAYERS]), player,
                          k + 1 == popcount(s[E.DECK]), 0)
    detail = np.int64(0)
    if phase == E.CLAIMING:
        cards = cards_in(HALF_SUIT_MASKS[s[E.LAYOUT], s[E.CLAIM_HALF_SUIT]])
        if s[E.CLAIM_COUNT] + 1 == cards.shape[0]:
            detail = 1 | (_holders(s, s[E.CLAIM_HALF_SUIT]) << 1)
    elif action >= CHALLENGE:  # 12.17: the challenged team holds h, or its holders are shown
        h = action - CHALLENGE
        cards = HALF_SUIT_MASKS[s[E.LAYOUT], h]
        if E.team_cards(s, 1 - (s[E.TO_MOVE] & 1)) & cards == cards:
            detail = np.int64(1)
        else:
            detail = 2 | (_holders(s, h) << 2)
    elif action == DECLINE and s[E.FORCED_TEAM] >= 0 and (
            s[E.FORCED_PASSES] + 1 == s[E.NUM_PLAYERS] * popcount(s[E.FORCED_SET])):
        # The last pass of a forced procedure shows the holders of every half-suit in it.
        folded = np.uint64(0)
        for h in cards_in(s[E.FORCED_SET]):
            folded = mix64(folded ^ np.uint64(_holders(s, h) | (h << 28)))
        detail = 1 | (np.int64(folded >> np.uint64(20)) << 1)  # 44 bits of the fold: 45 of 46
    elif action < CLAIM:
        detail = np.int64(1 + has_card(s[E.HANDS + action // 64], action % 64))
        if s[E.OWN_CARD_ASKS] == E.SURRENDER_OWN_CARD and has_card(s[E.HANDS + s[E.TO_MOVE]],
                                                                     action % 64):
            detail = np.int64(3)  # 12.12: the asker's card went to the target, publicly
    return seen_action(s[E.TO_MOVE], action, detail)
