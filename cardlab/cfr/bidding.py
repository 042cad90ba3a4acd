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

Regrets and average-policy sums live in an open-addressing table of numpy
arrays (keys are packed features, so they never collide); its arrays copy,
merge and save as they are. :class:`BiddingSolver` runs external-sampling
MCCFR on it, in one process or in several with a periodic merge
(:meth:`BiddingSolver.run`).
"""

from __future__ import annotations

import multiprocessing
from typing import Any

import numpy as np
import pyspiel
from numba import njit

from cardlab.cfr.mccfr import _sample
from cardlab.cfr.policy import PolicyTable, game_identity
from cardlab.cfr.regret_matching import matched_policy
from cardlab.core.bitboard import cards_in
from cardlab.core.interrupt import quiet_worker
from cardlab.core.layout import DEALER, DECK, TO_MOVE
from cardlab.core.rng import derive_seed, make_stream, random_below
from cardlab.games import game_spec, kernels
from cardlab.games.bidding_features import (
    AUCTION_DEAL,
    CONTRACTS,
    MODELLED_PARAMETERS,
    abstract_actions,
    auction_features,
    contract_slot,
    in_auction,
)

GRANULARITIES = ("coarse", "fine")
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


# ---- the solver -----------------------------------------------------------------------------

def check_modelled(game: pyspiel.Game) -> int:
    """The kernel id of ``game``, or ``ValueError`` if its auction is not modelled."""
    name = game.get_type().short_name
    if name not in MODELLED_PARAMETERS:
        raise ValueError(f"bidding abstraction: game {name!r} has no modelled auction; "
                         f"choose from {', '.join(sorted(MODELLED_PARAMETERS))}")
    defaults = pyspiel.load_game(name).get_parameters()
    changed = sorted(key for key, value in game.get_parameters().items()
                     if key not in MODELLED_PARAMETERS[name] and defaults.get(key) != value)
    if changed:
        raise ValueError(f"bidding abstraction: {name} with {', '.join(changed)} changed is not "
                         f"modelled; it models only the parameters "
                         f"{', '.join(sorted(MODELLED_PARAMETERS[name]))}")
    return game_spec(name).kernel_id


def _check_granularity(granularity: str) -> bool:
    if granularity not in GRANULARITIES:
        raise ValueError(f"unknown granularity {granularity!r}; choose from "
                         f"{', '.join(GRANULARITIES)}")
    return granularity == "fine"


def _worker_run(args):
    """One worker's share of a round (a top-level function, so a process pool can call it)."""
    kernel_id, initial, arrays, stream, first, count, fine = args
    table = tuple(a.copy() for a in arrays)
    run_iterations(kernel_id, initial, table, stream, first, count, fine)
    return table, stream


class BiddingSolver:
    """External-sampling MCCFR on the abstracted auction of ``game``.

    With ``workers`` > 1, :meth:`run` trains in rounds of ``merge_every``
    iterations per worker: every worker starts from a copy of the table,
    runs its share with its own stream (``derive_seed(seed, 1 + w)``, kept
    from round to round), and the table becomes the snapshot plus the sum,
    in worker order, of each worker's change (:func:`merge_into`). So a run
    is deterministic for its seed and worker count, and ``workers=1`` is
    plain MCCFR with the stream of worker 0.
    """

    def __init__(self, game: pyspiel.Game, granularity: str = "coarse", seed: int = 0,
                 workers: int = 1, merge_every: int = 1000, capacity: int = CAPACITY):
        self.kernel_id = check_modelled(game)
        self.fine = _check_granularity(granularity)
        if workers < 1 or merge_every < 1:
            raise ValueError(f"workers and merge_every must be >= 1, got {workers}, {merge_every}")
        if capacity < 2 or capacity & (capacity - 1):
            raise ValueError(f"capacity must be a power of two, got {capacity}")
        self.game = game
        self.granularity = granularity
        self.seed = int(seed)
        self.workers = int(workers)
        self.merge_every = int(merge_every)
        self.iteration = 0
        self._initial = np.asarray(game.initial_array, dtype=np.int64)
        self.streams = [make_stream(int(derive_seed(self.seed, 1 + w))) for w in range(workers)]
        self.table = (np.zeros(capacity, dtype=np.uint64), np.zeros(capacity, dtype=np.int64),
                      np.zeros((capacity, MAX_ACTIONS), dtype=np.int64),
                      np.zeros((capacity, MAX_ACTIONS)), np.zeros((capacity, MAX_ACTIONS)),
                      np.zeros(1, dtype=np.int64))

    @property
    def num_infosets(self) -> int:
        return int(self.table[5][0])

    def run(self, iterations: int, pool: Any = None) -> None:
        """``iterations`` more iterations in all (split evenly over the workers, by rounds).

        With several workers, ``pool`` (a ``multiprocessing`` pool) runs them in
        parallel; without one they run one after the other in this process,
        which gives the very same table (the reference the tests check).
        """
        if iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {iterations}")
        if self.workers == 1:
            run_iterations(self.kernel_id, self._initial, self.table, self.streams[0],
                           self.iteration, iterations, self.fine)
            self.iteration += iterations
            return
        if iterations % self.workers:
            raise ValueError(f"iterations ({iterations}) must be a multiple of workers "
                             f"({self.workers})")
        left = iterations // self.workers
        while left > 0:
            share = min(left, self.merge_every)
            # Worker w's iterations are numbered as if the round's were run one worker after another.
            jobs = [(self.kernel_id, self._initial, self.table, self.streams[w],
                     self.iteration + w * share, share, self.fine) for w in range(self.workers)]
            # Every worker starts from the snapshot: all of them run before any merge.
            results = pool.map(_worker_run, jobs) if pool is not None else [
                _worker_run(job) for job in jobs]
            snapshot = tuple(a.copy() for a in self.table)
            for w, (worker_table, stream) in enumerate(results):
                merge_into(self.table, snapshot[0], snapshot[3], snapshot[4], worker_table)
                self.streams[w] = stream
            left -= share
            self.iteration += share * self.workers

    def make_pool(self):
        """A pool of ``workers`` processes, forked after compiling so none compiles again."""
        run_iterations(self.kernel_id, self._initial, tuple(a.copy() for a in self.table),
                       make_stream(0), 0, 1, self.fine)
        return multiprocessing.get_context("fork").Pool(self.workers, initializer=quiet_worker)

    def average_policy(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Key -> (actions, average probabilities) of every set met, in slot order."""
        keys, counts, actions, _, cumulative, _ = self.table
        policy = {}
        for slot in np.flatnonzero(keys):
            m = int(counts[slot])
            sums = cumulative[slot, :m]
            total = sums.sum()
            policy[int(keys[slot])] = (actions[slot, :m].copy(),
                                       sums / total if total > 0 else np.full(m, 1.0 / m))
        return policy

    def policy_table(self, **metadata: Any) -> PolicyTable:
        """The average policy as a policy file's table, with the run's state to resume from."""
        average = self.average_policy()
        offsets = np.zeros(len(average) + 1, dtype=np.int64)
        offsets[1:] = np.cumsum([len(a) for a, _ in average.values()])
        actions = np.concatenate([a for a, _ in average.values()] or [np.zeros(0, np.int64)])
        probabilities = np.concatenate([p for _, p in average.values()] or [np.zeros(0)])
        info = {**game_identity(self.game), "naming": "key", "abstraction": "bidding",
                "solver": "bidding", "granularity": self.granularity, "seed": self.seed,
                "workers": self.workers, "merge_every": self.merge_every,
                "capacity": len(self.table[0]), "iterations": self.iteration,
                "infosets": self.num_infosets, **metadata}
        table = PolicyTable(tuple(str(key) for key in average), offsets, actions, probabilities,
                            info)
        table.solver_state.update(self.state_arrays())
        return table

    def state_arrays(self) -> dict[str, np.ndarray]:
        """The occupied slots and the streams: all a checkpoint needs to resume bit for bit."""
        keys, counts, actions, regrets, cumulative, _ = self.table
        slots = np.flatnonzero(keys)
        return {"slots": slots, "keys": keys[slots], "counts": counts[slots],
                "entry_actions": actions[slots], "regrets": regrets[slots],
                "cumulative": cumulative[slots], "streams": np.concatenate(self.streams)}

    def restore(self, arrays: dict[str, np.ndarray], iteration: int) -> None:
        """Continue from :meth:`state_arrays` saved after ``iteration`` iterations."""
        if len(arrays["streams"]) != self.workers:
            raise ValueError(f"the saved run had {len(arrays['streams'])} workers, not "
                             f"{self.workers}")
        capacity = len(self.table[0])
        slots, counts = np.asarray(arrays["slots"], dtype=np.int64), np.asarray(arrays["counts"])
        if len(slots) and slots.max() >= capacity:
            raise ValueError(f"the saved run's table is larger than capacity {capacity}")
        if (any(len(arrays[name]) != len(slots) for name in ("keys", "counts", "entry_actions", "regrets",
                                                             "cumulative"))
                or len(slots) and (slots.min() < 0 or len(np.unique(slots)) != len(slots)
                                   or counts.min() < 1 or counts.max() > MAX_ACTIONS)):
            raise ValueError("the saved run's table is inconsistent (sizes, slots or counts out of range)")
        keys, counts, actions, regrets, cumulative, used = self.table
        for target in (keys, counts, actions, regrets, cumulative):
            target[:] = 0
        keys[slots] = arrays["keys"]
        counts[slots] = arrays["counts"]
        actions[slots] = arrays["entry_actions"]
        regrets[slots] = arrays["regrets"]
        cumulative[slots] = arrays["cumulative"]
        used[0] = len(slots)
        self.streams = [np.array(arrays["streams"][w:w + 1], dtype=np.uint64)
                        for w in range(self.workers)]
        self.iteration = int(iteration)


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
