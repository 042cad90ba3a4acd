"""Information-state keys: a 64-bit hash of everything a player has observed, kept step by step.

Counterfactual regret minimization and other tabular methods look a player's
information state up in a table at every node of a tree walk; building a
string or a tensor there would cost more than the rest of the walk. Each game
therefore also says, as one ``int64`` *token*, what a given player observes
when an action is applied (``observation_token(s, action, player)`` in the
game's ``observation.py``), and the key of an information state is a hash of
the player's seat, the game's parameters and the tokens so far::

    key = initial_key(game, parameters, player)
    for each action: key = update_key(key, observation_token(s, action, player))

A token is one of:

* ``NOTHING``: the step shows the player nothing it keeps: a card dealt
  before its deal stage is complete. A deal stage is observed as a whole, by
  the token of its last card, which is the player's hand then
  (``seen_deal``). Nobody decides during a deal, so the order in which one's
  own cards arrived is no information a decision can use; forgetting it keeps
  perfect recall (the player still remembers everything it knew at each of
  its decisions) and lets one key serve every order of the same hand, as the
  strings and tensors do.
* ``seen_action(mover, action, detail)``: an action the player saw, and
  ``detail``, what the step revealed beyond it (an ask's answer, the cards a
  claim shows, the trump indicator turned face up).
* ``unseen_action(mover)``: a choice made out of the player's sight; the
  player only sees who made it (``unseen_action_revealing(mover, detail)``:
  and what the step showed him anyway).

Equal keys mean equal token sequences, up to 64-bit hash collisions, and each
game chooses its tokens so that equal token sequences mean equal observation
sequences: a token must say everything the player learns from the step, and
nothing it does not.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.bitboard import card_bit
from cardlab.core.rng import mix64

NOTHING = 0
# Token kinds, in bits 0-1. Then, by kind:
# deal: bits 2-55 the hand (card ids 0..53), bits 56-62 the detail;
# action: bits 2-5 the mover, 6-16 the action id (< 2048), 17-62 the detail;
# unseen action: bits 2-5 the mover, 17-62 the detail (what the step revealed anyway).
_DEAL, _ACTION, _UNSEEN_ACTION = 1, 2, 3
_KEY_SEED = np.uint64(0x6A09E667F3BCC908)  # any fixed non-zero start


@njit(cache=True)
def seen_deal(hand, detail):
    """The token of a completed deal stage: the player's ``hand`` and what the deal revealed."""
    return np.int64(_DEAL) | (np.int64(hand) << 2) | (np.int64(detail) << 56)


@njit(cache=True)
def seen_action(mover, action, detail):
    """The token of ``mover``'s ``action``, seen by the player, and what the step revealed."""
    return (np.int64(_ACTION) | (np.int64(mover) << 2) | (np.int64(action) << 6)
            | (np.int64(detail) << 17))


@njit(cache=True)
def unseen_action(mover):
    """The token of a choice ``mover`` made out of the player's sight."""
    return np.int64(_UNSEEN_ACTION) | (np.int64(mover) << 2)


@njit(cache=True)
def unseen_action_revealing(mover, detail):
    """The token of a choice ``mover`` made out of the player's sight, whose step still showed the
    player ``detail`` (Kaiser: the cards handed to him when the last given card is delivered)."""
    return unseen_action(mover) | (np.int64(detail) << 17)


@njit(cache=True)
def deal_token(hand, card, receiver, player, stage_complete, detail):
    """The token of dealing ``card`` to ``receiver``: ``NOTHING`` until the stage is complete.

    ``hand`` is the player's hand before the card; the last card of a stage
    shows the player its hand (and ``detail``, what the deal revealed).
    """
    if not stage_complete:
        return np.int64(NOTHING)
    if receiver == player:
        hand |= card_bit(card)
    return seen_deal(hand, detail)


@njit(cache=True)
def _absorb(key, value):
    """Fold a 64-bit value into a key: a bijection of the key for each value, and back."""
    return mix64(key ^ mix64(np.uint64(value)))


@njit(cache=True)
def initial_key(game, parameters, player):
    """The key before any action: the game's kernel id, its parameters and the player's seat."""
    key = mix64(_KEY_SEED + np.uint64(game))
    for value in parameters:
        key = _absorb(key, value)
    return _absorb(key, player)


# One explicit signature: a key from Python above 2**63 (half of all keys) must not meet an
# (int64, int64) specialization, which cannot hold it.
@njit("uint64(uint64, int64)", cache=True)
def update_key(key, token):
    """The key after a step whose token is ``token`` (``NOTHING`` leaves it unchanged)."""
    if token == NOTHING:
        return key
    return _absorb(key, token)
