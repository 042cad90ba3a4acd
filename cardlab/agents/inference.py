"""Hand inference: where a network believes each hidden card lies, and the worlds it weighs.

A searcher that cannot see the other hands plays in worlds drawn from what it
knows for certain (``kernels.resample``: uniform over the deals consistent
with the play so far). Play says more than that: a seat that bids high holds
high cards, a seat that asks for a card holds its half-suit and a seat that
does not lead trumps may have none. Kermit's Skat players (Rebstock et al.
2019) learn this from self-play; so does cardlab's *hand-inference model*: a
network over the observer's observation tensor whose head gives, for each
card and each other seat, the logit that this seat holds the card
(:data:`cardlab.agents.network.HEADS` ``holders``, trained by ``cardlab train
--algo holders``, :mod:`cardlab.learn.holders`).

Seats are counted from the observer, as its observation counts them: column
``k`` is the seat ``k + 1`` places after it. A card's softmax runs over the
seats that still hold cards (hand sizes are public in every game), so it is
the model's probability that each of them holds the card, given that one of
them does. A world then weighs as the product over the cards in the other
hands of the probability of where it puts them (:func:`world_log_belief`),
ISMCTS's ``inference=net`` drawing its worlds in proportion.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.agents.network import ACTIONS, INPUTS, PERFECT_RECALL, forward
from cardlab.core.bitboard import lowest_card
from cardlab.core.layout import seat_after
from cardlab.games import kernels


@njit(cache=True)
def card_holders(game, s, observer, out):
    """``out[c]``: the column of the seat other than ``observer`` holding card ``c`` in ``s`` (the
    seat ``out[c] + 1`` places after it), or -1 for a card in no other hand. Returns how many
    cards are in other hands."""
    out[:] = -1
    players = kernels.num_players(game, s)
    held = 0
    for k in range(players - 1):
        cards = kernels.hand(game, s, seat_after(observer, k + 1, players))
        while cards:
            card = lowest_card(cards)
            out[card] = k
            held += 1
            cards &= cards - 1
    return held


@njit(cache=True, inline="always")
def holding_seats(game, s, observer, out):
    """``out[k]``: does the seat ``k + 1`` places after ``observer`` hold cards in ``s``? (False
    past the table's last seat.)"""
    players = kernels.num_players(game, s)
    for k in range(out.shape[0]):
        out[k] = k < players - 1 and kernels.hand(game, s, seat_after(observer, k + 1, players)) != 0


@njit(cache=True)
def holder_log_beliefs(game, weights, shape, s, observer, cards, others, out):
    """``out[c, k]``: the model's log-probability that the seat ``k + 1`` places after ``observer``
    holds card ``c``, over the other seats that hold cards in ``s`` (minus infinity for a seat with
    none; every seat is empty once no other hand holds cards)."""
    x = np.empty(shape[INPUTS], dtype=np.float32)
    kernels.encode(game, s, observer, shape[PERFECT_RECALL] != 0, x)
    logits = np.empty(shape[ACTIONS], dtype=np.float32)
    forward(weights, shape, x, logits)
    holding = np.empty(others, dtype=np.bool_)
    holding_seats(game, s, observer, holding)
    for c in range(cards):
        top = -np.inf
        for k in range(others):
            if holding[k]:
                top = max(top, np.float64(logits[c * others + k]))
        total = 0.0
        for k in range(others):
            if holding[k]:
                total += np.exp(np.float64(logits[c * others + k]) - top)
        for k in range(others):
            out[c, k] = np.float64(logits[c * others + k]) - top - np.log(total) if holding[k] else -np.inf


@njit(cache=True, inline="always")
def world_log_belief(game, world, observer, log_beliefs):
    """The log-probability ``log_beliefs`` (:func:`holder_log_beliefs`) gives to where ``world`` puts
    each card of the other hands: the sum over those cards, each independent of the others."""
    players = kernels.num_players(game, world)
    total = 0.0
    for k in range(players - 1):
        cards = kernels.hand(game, world, seat_after(observer, k + 1, players))
        while cards:
            total += log_beliefs[lowest_card(cards), k]
            cards &= cards - 1
    return total
