"""Bidding strategies by MCCFR: the auction of Kaiser and Twenty-Eight as an abstracted game.

The full games are far too large for CFR, but their auctions are small once
a hand is described by a few features. In the **abstracted bidding game**

* chance deals a whole hand (a random permutation of the deck: the cards of
  the auction's deal *and* those dealt later, in Twenty-Eight's second stage);
* a seat's information is its hand's **bucket** (its game's features, below), whether it
  may throw the hand in, and an abstraction of the auction so far: its
  position after the dealer, the high bid, whether partner or an opponent
  holds it (Twenty-Eight adds the passes in a row and whether the seat has
  spoken). This forgets the order of earlier passes: imperfect recall, as
  abstractions of real auctions usually are;
* the actions are the engine's legal auction actions (Twenty-Eight keeps
  pass, the redeal, the lowest legal bid and the jumps to 20 and 24);
* a leaf is the end of the auction (Kaiser's only round, Twenty-Eight's
  first round on four cards), and its value is the **hand result of that
  final contract on that deal** when everyone plays on with the rule-based
  player (the indicator, the second round and every card in Twenty-Eight).

Leaf values are estimated by simulation: every iteration draws a deal and
each contract the traversal reaches is played out once on it, in numba.
The rule-based play is deterministic, so all contracts of an iteration are
compared on the same cards (common random numbers), and a contract's value
is computed once per deal (a per-deal cache keyed by declarer and bid).

Each game describes its hands and auction in ``games/<game>/bidding_features.py``
(gathered by game in :mod:`cardlab.games.bidding_features`): a hand's **bucket**
at two granularities (``coarse`` and ``fine``), the auction as a seat sees it, the
actions kept and the slot of a contract in the leaf cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.cfr.mccfr import _sample
from cardlab.cfr.regret_matching import matched_policy
from cardlab.core.bitboard import cards_in
from cardlab.core.layout import DEALER, DECK, TO_MOVE
from cardlab.core.rng import random_below
from cardlab.games import kernels
from cardlab.games.bidding_features import (
    AUCTION_DEAL,
    CONTRACTS,
    abstract_actions,
    auction_features,
    contract_slot,
    in_auction,
)

#: Room for the actions of one information set (Kaiser with low no trump: pass, misdeal, 21 bids).
MAX_ACTIONS = 24
#: Default table size (a power of two); a policy of the fine grain uses a few tens of thousands.
CAPACITY = 1 << 17
MAX_DEPTH = 64
_KEY_MARK = np.uint64(1) << np.uint64(62)  # every key has it: 0 marks an empty slot


# ---- the abstracted game over the engine state ------------------------------------------

@njit(cache=True)
def information_key(game, s, fine):
    """The abstract information-set key of the seat to move in an auction state ``s``.

    Packed fields, so two different information sets never share a key.
    """
    seat = s[TO_MOVE]
    position = (seat - s[DEALER] - 1) % 4
    bucket, throw_in, auction = auction_features(game, s, seat, position, fine)
    key = ((np.uint64(auction) * np.uint64(2) + np.uint64(throw_in)) * np.uint64(1024)
           + np.uint64(bucket))
    key = key * np.uint64(4) + np.uint64(game * 2 + (1 if fine else 0))
    return key | _KEY_MARK


@njit(cache=True)
def playout_value(game, s, deal):
    """Team 0's return when the hand ``s`` is played to its end by the rule-based player.

    Chance deals the next card of ``deal`` (a permutation of the deck in dealing order).
    """
    t = s.copy()
    out = np.zeros(4)
    unused = np.zeros(1, dtype=np.uint64)
    while True:
        player = kernels.current_player(game, t)
        if player == -4:  # terminal
            break
        if player == -1:  # chance
            action = deal[t[4]]  # CARDS_DEALT
        else:
            action = kernels.rules_action(game, t, unused)
        kernels.apply_action(game, t, action)
    kernels.returns(game, t, out)
    return out[0]


@njit(cache=True)
def leaf_value(game, s, deal, cache):
    """Team 0's value of the auction's end ``s``: the played-out contract, once per deal."""
    if kernels.current_player(game, s) == -4:  # a thrown-in or redealt hand
        out = np.zeros(4)
        kernels.returns(game, s, out)
        return out[0]
    slot = contract_slot(game, s)
    if np.isnan(cache[slot]):
        cache[slot] = playout_value(game, s, deal)
    return cache[slot]


@njit(cache=True)
def draw_deal(s, stream):
    """A uniformly random permutation of the deck of ``s`` (the order the cards are dealt in)."""
    cards = cards_in(s[DECK])
    n = len(cards)
    for i in range(n - 1, 0, -1):
        j = random_below(stream, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@njit(cache=True)
def auction_start(game, initial, deal):
    """The state at the auction's first decision after the first cards of ``deal``."""
    s = initial.copy()
    for k in range(AUCTION_DEAL[game]):
        kernels.apply_action(game, s, deal[k])
    return s


# ---- the regret table ---------------------------------------------------------------------

@njit(cache=True)
def find_slot(keys, key):
    """The slot of ``key`` in the open-addressing table, or the empty slot where it belongs."""
    mask = np.uint64(len(keys) - 1)
    h = np.int64((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20) & mask)
    for _ in range(len(keys)):
        if keys[h] == key or keys[h] == 0:
            return h
        h = (h + 1) & np.int64(mask)
    raise ValueError("the bidding table is full: give the solver a larger capacity")


@njit(cache=True)
def entry(table, key, actions, m):
    """The slot of ``key``, added with ``actions[:m]`` on first sight."""
    keys, counts, entry_actions, used = table[0], table[1], table[2], table[5]
    h = find_slot(keys, key)
    if keys[h] == 0:
        if used[0] + 1 > len(keys) // 2:
            raise ValueError("the bidding table is half full: give the solver a larger capacity")
        keys[h] = key
        counts[h] = m
        entry_actions[h, :m] = actions[:m]
        used[0] += 1
    elif counts[h] != m:
        raise ValueError("one abstract information set met with two different action sets")
    return h


@njit  # recursive: numba's cache would load it broken (see cardlab.cfr.mccfr)
def _traverse(game, s, player, table, deal, cache, stream, fine, depth, legal, abstract, weight):
    """External-sampling walk of the auction updating ``player``; returns its sampled value."""
    if not in_auction(game, s):
        value = leaf_value(game, s, deal, cache)
        return value if player % 2 == 0 else -value
    if depth >= MAX_DEPTH:
        raise ValueError("auction deeper than MAX_DEPTH")
    regrets, cumulative = table[3], table[4]
    n = kernels.legal_actions(game, s, legal[depth])
    m = abstract_actions(game, s, legal[depth], n, abstract[depth])
    h = entry(table, information_key(game, s, fine), abstract[depth], m)
    policy = np.empty(m)
    matched_policy(regrets[h], 0, m, policy, 0)
    if s[TO_MOVE] != player:
        for k in range(m):
            cumulative[h, k] += weight * policy[k]
        child = s.copy()
        kernels.apply_action(game, child, abstract[depth, _sample(policy, m, stream)])
        return _traverse(game, child, player, table, deal, cache, stream, fine, depth + 1, legal,
                         abstract, weight)
    values = np.empty(m)
    value = 0.0
    for k in range(m):
        child = s.copy()
        kernels.apply_action(game, child, abstract[depth, k])
        values[k] = _traverse(game, child, player, table, deal, cache, stream, fine, depth + 1,
                              legal, abstract, weight)
        value += policy[k] * values[k]
    for k in range(m):
        regrets[h, k] += values[k] - value
    return value


@njit  # calls the recursive traversal
def run_iterations(game, initial, table, stream, first, count, fine):
    """Iterations ``first + 1 .. first + count``: one deal each, every seat updated in turn.

    Linear averaging: iteration t adds its policy to the average with weight t,
    so the uniform policy of the first iterations fades from the average.
    """
    legal = np.empty((MAX_DEPTH, kernels.MAX_LEGAL_ACTIONS), dtype=np.int64)
    abstract = np.empty((MAX_DEPTH, MAX_ACTIONS), dtype=np.int64)
    cache = np.empty(CONTRACTS[game])
    for i in range(count):
        weight = float(first + i + 1)
        deal = draw_deal(initial, stream)
        root = auction_start(game, initial, deal)
        cache[:] = np.nan
        for player in range(4):
            _traverse(game, root, player, table, deal, cache, stream, fine, 0, legal, abstract,
                      weight)


@njit(cache=True)
def merge_into(table, snapshot_keys, snapshot_regrets, snapshot_cumulative, worker):
    """Add what ``worker`` (a copy of the snapshot, then trained) learned to ``table``, key by key.

    For every set of the worker's table: its regrets and sums minus the
    snapshot's at the same slot (zero for a set the worker added).
    """
    w_keys, w_counts, w_actions, w_regrets, w_cumulative = (worker[0], worker[1], worker[2],
                                                            worker[3], worker[4])
    regrets, cumulative = table[3], table[4]
    for slot in range(len(w_keys)):
        key = w_keys[slot]
        if key == 0:
            continue
        m = w_counts[slot]
        h = entry(table, key, w_actions[slot], m)
        known = snapshot_keys[slot] == key
        for k in range(m):
            regrets[h, k] += w_regrets[slot, k] - (snapshot_regrets[slot, k] if known else 0.0)
            cumulative[h, k] += (w_cumulative[slot, k]
                                 - (snapshot_cumulative[slot, k] if known else 0.0))
