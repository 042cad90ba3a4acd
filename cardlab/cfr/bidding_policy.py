"""A bidding policy at play: a saved policy as the table the compiled arena reads, and a duel.

:func:`policy_arrays` lays a saved policy out in the training table's open
addressing (:func:`cardlab.cfr.bidding_game.find_slot`), and :func:`policy_bid`
is the bid the ``cfr-bidding`` agent makes from it, in numba. :func:`duel` plays
a table's average policy against the rule-based bidder on duplicate deals, a
quick check of a run's progress.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.cfr.bidding_game import MAX_ACTIONS, draw_deal, find_slot, information_key
from cardlab.cfr.mccfr import _sample
from cardlab.cfr.policy import PolicyTable
from cardlab.games import kernels
from cardlab.games.bidding_features import (
    in_auction,
)

# ---- a saved policy as a table the compiled arena reads ------------------------------------

def policy_arrays(table: PolicyTable, capacity: int = 0,
                  width: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A saved bidding policy as ``(keys, counts, actions, probabilities)`` for numba.

    The same open addressing as the training table (:func:`find_slot`): the
    slot of an information set's key holds its number of actions, the actions
    and their average-policy probabilities. At least twice as many slots as
    sets (a power of two; ``capacity`` if larger) keep the probes short and
    leave an empty slot for every unmet key; ``width`` action columns at least.
    """
    offsets = np.asarray(table.offsets, dtype=np.int64)
    capacity = max(capacity, policy_capacity(table))
    width = max(width, 1, int(np.diff(offsets).max(initial=1)))
    keys = np.zeros(capacity, dtype=np.uint64)
    counts = np.zeros(capacity, dtype=np.int64)
    actions = np.zeros((capacity, width), dtype=np.int64)
    probabilities = np.zeros((capacity, width), dtype=np.float64)
    for i, name in enumerate(table.names):
        key = np.uint64(int(name))
        h = find_slot(keys, key)
        low, high = offsets[i], offsets[i + 1]
        weights = np.asarray(table.probabilities[low:high], dtype=np.float64)
        keys[h] = key
        counts[h] = high - low
        actions[h, :high - low] = table.actions[low:high]
        probabilities[h, :high - low] = weights / weights.sum()
    return keys, counts, actions, probabilities


def policy_capacity(table: PolicyTable) -> int:
    """The smallest power of two above twice the policy's number of information sets."""
    return 1 << (2 * len(table.names)).bit_length()


@njit(cache=True)
def policy_bid(game, s, fine, greedy, keys, counts, actions, probabilities, stream):
    """The policy's bid at auction state ``s`` (:func:`policy_arrays`): drawn from its
    probabilities, or the most likely with ``greedy``; at an abstract set the training never
    met, the rule-based bid."""
    h = find_slot(keys, information_key(game, s, fine))
    if keys[h] == 0:
        return kernels.rules_action(game, s, stream)
    m = counts[h]
    if greedy:
        return actions[h, np.argmax(probabilities[h, :m])]
    return actions[h, _sample(probabilities[h], m, stream)]


# ---- a quick duel against the rule-based bidder, in numba -----------------------------------

@njit(cache=True)
def policy_action(game, s, table, fine, stream, legal, abstract):
    """An action of the table's average policy at ``s`` (the rule-based bid at an unmet set)."""
    keys, counts, actions, cumulative = table[0], table[1], table[2], table[4]
    h = find_slot(keys, information_key(game, s, fine))
    if keys[h] == 0:
        return kernels.rules_action(game, s, stream)
    m = counts[h]
    total = 0.0
    for k in range(m):
        total += cumulative[h, k]
    policy = np.empty(m)
    for k in range(m):
        policy[k] = cumulative[h, k] / total if total > 0 else 1.0 / m
    return actions[h, _sample(policy, m, stream)]


@njit(cache=True)
def duel(game, initial, table, fine, deals, stream):
    """Duplicate deals of the table's bidding against the rule-based bidder, card play by rules.

    Each deal is played twice, the table's team on the even then on the odd
    seats; the score of a deal is that team's return summed over the two.
    """
    scores = np.zeros(deals)
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    abstract = np.empty(MAX_ACTIONS, dtype=np.int64)
    out = np.zeros(4)
    for d in range(deals):
        deal = draw_deal(initial, stream)
        for team in range(2):
            s = initial.copy()
            while True:
                player = kernels.current_player(game, s)
                if player == -4:
                    break
                if player == -1:
                    action = deal[s[4]]
                elif player % 2 == team and in_auction(game, s):
                    action = policy_action(game, s, table, fine, stream, legal, abstract)
                else:
                    action = kernels.rules_action(game, s, stream)
                kernels.apply_action(game, s, action)
            kernels.returns(game, s, out)
            scores[d] += out[team]
    return scores
