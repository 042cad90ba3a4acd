"""Literature observation and information-state tensors, filled by a numba kernel.

The tensors are built from the player's *private knowledge* (what the public
events and its own hand prove), not from the raw history, so a learning agent
gets the deductions for free: for every card, which seats may hold it; for
every seat, its hand size and its proven half-suit minimums. Seats are
relative to the observer (0 = self, 1 = next seat, ...), so one network serves
every seat; the width of the seat planes is the game's number of players.
"""

from __future__ import annotations

from numba import njit

from cardlab.core.bitboard import cards_in
from cardlab.core.encoding import mark_cards
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.rules import CARDS_PER_HALF_SUIT, MAX_HALF_SUITS

NUM_CARDS = 54


def observation_pieces(num_players: int) -> tuple[tuple[str, int], ...]:
    """(name, size) of each piece of the observation tensor, in order."""
    n = num_players
    return (
        ("hand", NUM_CARDS),
        ("possible_holders", n * NUM_CARDS),
        ("hand_sizes", n),
        ("half_suit_minimums", n * MAX_HALF_SUITS),
        ("half_suit_status", MAX_HALF_SUITS * 4),
        ("scores", 2),
        ("to_move", n),
        ("phase", 4),
        ("claim_half_suit", MAX_HALF_SUITS),
        ("claim_named_seats", CARDS_PER_HALF_SUIT * n),
        ("dealer", n),
        ("asks_made", 1),
    )


def information_state_extra(num_players: int) -> tuple[tuple[str, int], ...]:
    """Pieces the information-state tensor adds: the dealt hand and the last ask."""
    n = num_players
    return (
        ("dealt_hand", NUM_CARDS),
        ("last_ask_asker", n),
        ("last_ask_target", n),
        ("last_ask_card", NUM_CARDS),
        ("last_ask_success", 1),
    )


def tensor_size(num_players: int, perfect_recall: bool) -> int:
    pieces = observation_pieces(num_players)
    if perfect_recall:
        pieces += information_state_extra(num_players)
    return sum(size for _, size in pieces)


@njit(cache=True)
def encode(s, player, perfect_recall, out):
    """Fill ``out`` (zeroed here) with what ``player`` sees."""
    out[:] = 0.0
    n = s[E.NUM_PLAYERS]
    view = E.private_knowledge(s, player)
    o = 0
    mark_cards(out, o, s[E.HANDS + player])
    o += NUM_CARDS
    for seat in range(n):
        relative = (seat - player) % n
        for card in cards_in(view[K.MAY_HOLD + seat]):
            out[o + relative * NUM_CARDS + card] = 1.0
    o += n * NUM_CARDS
    for seat in range(n):
        out[o + (seat - player) % n] = view[K.HAND_SIZE + seat] / s[E.CARDS_EACH]
    o += n
    for seat in range(n):
        relative = (seat - player) % n
        for h in range(MAX_HALF_SUITS):
            out[o + relative * MAX_HALF_SUITS + h] = (
                view[K.MINIMUM + seat * MAX_HALF_SUITS + h] / CARDS_PER_HALF_SUIT
            )
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
    total = 12.0
    out[o] = s[E.SCORES + own] / total
    out[o + 1] = s[E.SCORES + 1 - own] / total
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
    o += CARDS_PER_HALF_SUIT * n
    out[o + (s[E.DEALER] - player) % n] = 1.0
    o += n
    out[o] = s[E.ASKS] / s[E.MAX_ASKS]
    o += 1
    if not perfect_recall:
        return
    mark_cards(out, o, s[E.DEALT + player])
    o += NUM_CARDS
    for i in range(s[E.LOG_LENGTH] - 1, -1, -1):
        event = s[E.LOG + i]
        if E.event_kind(event) == E.EVENT_ASK:
            out[o + (E.event_actor(event) - player) % n] = 1.0
            out[o + n + (E.event_target(event) - player) % n] = 1.0
            out[o + 2 * n + E.event_card(event)] = 1.0
            out[o + 2 * n + NUM_CARDS] = 1.0 if E.event_success(event) else 0.0
            break
