"""The header every engine's state array starts with, and the kernels that need only the header.

Each game keeps its whole state in one ``int64`` array. The first slots mean
the same in every game, so the questions every caller asks (who acts? is it
over? which cards are still to be dealt? which team is a seat on?) are
answered once, here, for all of them:

=====  ===============  ==========================================================
slot   name             meaning
=====  ===============  ==========================================================
0      PHASE            the game's phase code (convention below)
1      TO_MOVE          seat to act (meaningless at chance and terminal nodes)
2      DEALER           seat that deals the current hand
3      NUM_PLAYERS      seats at the table
4      CARDS_DEALT      chance nodes of the current hand's deal so far
5      DECK             mask of the cards in play
6      UNDEALT          mask of the cards of DECK not dealt yet this hand
7      GAME_OVER_PHASE  the game's phase code for "game over" (fixed for the game)
8...   DEALT            one slot per seat: every card dealt to the seat this hand
=====  ===============  ==========================================================

The DEALT block has as many slots as the game has seats at most (6 in Kaiser,
6 in Twenty-Eight, 16 in Literature); a game's own slots start right after it.

Phase codes. Each game numbers its phases ``0..GAME_OVER_PHASE`` (its
observation tensors one-hot them, so the numbers stay the game's own):

* ``DEALING`` (0) is the only chance phase: every chance node deals the next
  card, uniformly over :func:`undealt_cards`. A game that deals in stages
  returns to phase 0 for each stage (Twenty-Eight deals four cards each, bids,
  then deals four more) and tells the stages apart by ``CARDS_DEALT``;
* the game's last code means the game is over, and the header records it in
  ``GAME_OVER_PHASE``;
* every other code is a decision of the seat ``TO_MOVE``.

Transitions stay each game's own: every engine module provides
``legal_actions(s, out)``, ``apply_action(s, action)``, ``returns(s, out)``
and the fused ``advance(s, action, out)``. ``advance`` is the same three lines
in every engine (apply, then list the legal actions and read the current
player), written out per engine on purpose: numba cannot take the game's
kernels as arguments and still cache the compiled code on disk, and a
dispatch on a game id (as in :mod:`cardlab.games.kernels`) would make the core
import the games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER

PHASE = 0
TO_MOVE = 1
DEALER = 2
NUM_PLAYERS = 3
CARDS_DEALT = 4
DECK = 5
UNDEALT = 6
GAME_OVER_PHASE = 7
DEALT = 8

#: The chance phase of every game.
DEALING = 0


class Slots:
    """Numbers a game's own state slots in the order its engine declares them.

    Each field is declared once, with its width, and takes the next free slots::

        _slot = Slots(DEALT + MAX_SEATS)  # the first slot after the header
        HANDS = _slot(MAX_SEATS)          # one slot per seat
        TRUMP = _slot()
        STATE_SIZE = _slot.size

    So a new field is one line where it belongs, and no slot is numbered by hand.
    The numbers are plain ints, which numba compiles in as constants.
    """

    def __init__(self, first: int) -> None:
        self.size = first

    def __call__(self, width: int = 1) -> int:
        """The first of ``width`` (>= 1) consecutive slots, the next free ones."""
        if width < 1:
            raise ValueError(f"a field takes at least one slot, not {width}")
        slot = self.size
        self.size += width
        return slot


@njit(cache=True, inline="always")
def seat_after(seat, steps, num_players):
    """The seat ``steps`` (0 <= steps < num_players) places after ``seat`` in turn order.

    A compare instead of ``%``: the table's size is known only at run time, and an integer
    division there would be the most expensive instruction of a card play.
    """
    later = seat + steps
    return later - num_players if later >= num_players else later


@njit(cache=True, inline="always")
def copy_state(target, source):
    """Overwrite ``target`` with ``source`` (same size): how a playout loop starts each game.

    A plain loop, which LLVM vectorises: numba's ``target[:] = source`` checks for broadcasting
    and overlap and took 5 times as long for a Kaiser state (60 ns against 12).
    """
    for k in range(len(source)):
        target[k] = source[k]


@njit(cache=True)
def empty_state(size, num_players, game_over_phase):
    """A zeroed state of ``size`` slots for ``num_players`` seats (the game then sets its DECK)."""
    s = np.zeros(size, dtype=np.int64)
    s[NUM_PLAYERS] = num_players
    s[GAME_OVER_PHASE] = game_over_phase
    return s


@njit(cache=True)
def start_deal(s, dealer):
    """Wait for ``dealer``'s deal of a new hand (DECK set): no card dealt; the seat after him acts first."""
    s[PHASE] = DEALING
    s[DEALER] = dealer
    s[TO_MOVE] = seat_after(dealer, 1, s[NUM_PLAYERS])
    s[CARDS_DEALT] = 0
    s[UNDEALT] = s[DECK]
    for seat in range(s[NUM_PLAYERS]):
        s[DEALT + seat] = 0


@njit(cache=True, inline="always")
def record_deal(s, seat, card):
    """Book ``card`` as dealt to ``seat`` (the game puts it in the seat's hand)."""
    bit = np.int64(1) << card
    s[UNDEALT] &= ~bit
    s[DEALT + seat] |= bit
    s[CARDS_DEALT] += 1


@njit(cache=True)
def recount_undealt(s):
    """Set UNDEALT from the DEALT slots, after a sampler has redrawn who was dealt what."""
    dealt = np.int64(0)
    for seat in range(s[NUM_PLAYERS]):
        dealt |= s[DEALT + seat]
    s[UNDEALT] = s[DECK] & ~dealt


@njit(cache=True, inline="always")
def current_player(s):
    """Seat to act, ``CHANCE_PLAYER`` while dealing, ``TERMINAL_PLAYER`` once the game is over."""
    phase = s[PHASE]
    if phase == s[GAME_OVER_PHASE]:
        return TERMINAL_PLAYER
    if phase == DEALING:
        return CHANCE_PLAYER
    return s[TO_MOVE]


@njit(cache=True, inline="always")
def is_terminal(s):
    return s[PHASE] == s[GAME_OVER_PHASE]


@njit(cache=True)
def team_of(seat):
    """Partners sit alternately in two-team games: even seats are team 0, odd seats team 1.

    Kaiser, whose 2, 3, 5 and 6 players sit otherwise, reads its own side table instead.
    """
    return seat & 1


@njit(cache=True, inline="always")
def undealt_cards(s):
    """Cards of the deck not yet dealt this hand: the chance outcomes of the next deal node.

    Kept in a slot of its own (always ``DECK`` minus every seat's DEALT) because
    playouts ask at every dealt card.
    """
    return s[UNDEALT]
