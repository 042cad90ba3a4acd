"""Information states are perfect recall: equal exactly when the player's observations were equal.

The oracle is built apart from the information-state code, after OpenSpiel's
definition: a player's information state is the sequence of what it observed
after every step, plus its own actions. An observation is taken to be the
observation string *and* the observation tensor: neither alone shows all the
player saw (the strings leave out the last card of a finished trick, which the
tensors keep), together they do. A deal stage counts as one step, its last
card: nobody decides during a deal, and information states (strings, tensors
and keys alike) forget the order in which one's own cards arrived.

Pairs of histories that are often equal come from mutating a random history
(two cards dealt to other seats swapped, the player's own cards dealt in
another order, a hidden choice or any decision changed, two decisions
swapped), replayed as far as it stays legal; the random histories themselves
make the unrelated pairs. States are recorded at every decision and at the
end (a chance node is nobody's decision), and all recorded states of a player
are compared at once: the oracle and each of information-state string, tensor
and key must split them into the same classes.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
import pyspiel
import pytest
from conftest import act, deal
from numba import njit

from cardlab.core.cards import EIGHT, mask_of, parse_card
from cardlab.core.dealing import receiving_seat
from cardlab.core.infostate import update_key
from cardlab.core.rng import make_stream
from cardlab.games import game_spec, kernels
from cardlab.games.literature.game import state_with_hands
from cardlab.games.literature.rules import CLAIM, ask_action
from cardlab.games.twenty_eight.game import deal_chance_actions

CHANCE = pyspiel.PlayerId.CHANCE
GAMES = [("cardlab_kaiser", {}), ("cardlab_twenty_eight", {}),
         ("cardlab_literature", {"players": 4})]
GAME_IDS = [f"{name[8:]}-{params}" for name, params in GAMES]
#: The histories' tables also cover Twenty-Eight's three- and six-player variants, and
#: Literature's forced procedure with challenges and windows (passes, declarations, forfeits).
TABLE_GAMES = GAMES + [("cardlab_twenty_eight", {"players": 3}),
                       ("cardlab_twenty_eight", {"players": 6}),
                       ("cardlab_literature", {"players": 4, "challenge": True,
                                               "forced_claims": True, "eights_in_play": True})]
TABLE_IDS = [f"{name[8:]}-{params}" for name, params in TABLE_GAMES]
#: Random histories per game in the default run, each with 13 mutations: 5-12 s a game.
#: Literature's strings list every event, so its states cost the most.
HISTORIES = {"cardlab_kaiser": 16, "cardlab_twenty_eight": 12, "cardlab_literature": 4}


@dataclass
class Trace:
    """One played history: each step's action, mover, legal actions and whether it was hidden."""

    actions: list[int] = field(default_factory=list)
    movers: list[int] = field(default_factory=list)
    legal: list[list[int]] = field(default_factory=list)
    hidden: list[bool] = field(default_factory=list)  # a choice some other seat cannot see


@dataclass
class Record:
    """What one player's information state looked like at one state, and the oracle's verdict."""

    oracle: bytes
    string: bytes
    tensor: bytes
    key: int
    history: bytes  # which history reached the state (for counting pairs)


def _digest(data: bytes | str) -> bytes:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).digest()


class Table:
    """Plays histories of one game and records every player's information state at every state."""

    def __init__(self, name: str, params: dict):
        self.game = pyspiel.load_game(name, params)
        self.game_id = game_spec(name).kernel_id
        self.num_players = self.game.num_players()
        self.dealer = int(self.game.parameters["dealer"])
        self.observation = self.game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False))
        self.information = self.game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
        self.records: list[list[Record]] = [[] for _ in range(self.num_players)]

    def play(self, plan: list[int], rng: np.random.Generator, record_from: int = 0,
             stop_off_plan: bool = False) -> Trace:
        """Follow ``plan`` while it is legal, then play at random (or stop); record from ``record_from``."""
        n = self.num_players
        state = self.game.new_initial_state()
        keys = [kernels.initial_key(self.game_id, state.array, p) for p in range(n)]
        oracles = [hashlib.sha256(self._observed(state, p, CHANCE, -1)) for p in range(n)]
        deal_seen: list[bytes | None] = [None] * n  # the latest observation of a deal stage
        history = hashlib.sha256()
        trace = Trace()
        on_plan = True
        while not state.is_terminal():
            i = len(trace.actions)
            legal = state.legal_actions()
            on_plan = on_plan and i < len(plan) and plan[i] in legal
            if stop_off_plan and not on_plan:
                break
            action = plan[i] if on_plan else int(legal[rng.integers(len(legal))])
            mover = state.current_player()
            trace.actions.append(action)
            trace.movers.append(mover)
            trace.legal.append(legal)
            trace.hidden.append(mover != CHANCE and any(
                kernels.observed_action(self.game_id, state.array, action, p) == kernels.HIDDEN_ACTION
                for p in range(n)))
            for p in range(n):
                keys[p] = update_key(keys[p], kernels.observation_token(self.game_id, state.array,
                                                                         action, p))
            state.apply_action(action)
            history.update(action.to_bytes(2, "little"))
            for p in range(n):
                observed = self._observed(state, p, mover, action)
                if mover == CHANCE:
                    deal_seen[p] = observed  # a deal stage is observed as a whole
                    continue
                if deal_seen[p] is not None:
                    oracles[p].update(deal_seen[p])
                    deal_seen[p] = None
                oracles[p].update(observed)
            if state.is_chance_node() or i + 1 < record_from:
                continue
            for p in range(n):
                oracle = oracles[p].copy()
                if deal_seen[p] is not None:
                    oracle.update(deal_seen[p])
                self.information.set_from(state, p)
                self.records[p].append(Record(
                    oracle.digest(), _digest(state.information_state_string(p)),
                    _digest(self.information.tensor.tobytes()), int(keys[p]), history.digest()))
        for p in range(n):  # the public API agrees with the pieces recorded above
            assert state.information_state_key(p) == keys[p]
            self.information.set_from(state, p)
            assert state.information_state_tensor(p) == self.information.tensor.tolist()
        return trace

    def _observed(self, state: pyspiel.State, player: int, mover: int, action: int) -> bytes:
        """The player's observation after a step: observation string and tensor, its own action."""
        self.observation.set_from(state, player)
        own_action = action if mover == player else -1
        return (_digest(state.observation_string(player)) + _digest(self.observation.tensor.tobytes())
                + own_action.to_bytes(2, "little", signed=True))

    # -- mutations: each returns (plan, first step that differs) or None ----------------------
    def dealt_to(self, trace: Trace) -> list[int]:
        """The seat receiving each chance card (-1 for decisions): the contract's dealing order."""
        seats, k = [], 0
        for mover in trace.movers:
            seats.append(receiving_seat(self.dealer, k, self.num_players) if mover == CHANCE else -1)
            k = k + 1 if mover == CHANCE else 0
        return seats

    def named_card(self, action: int) -> int:
        """The card a decision names (a card played or placed, a card asked for), or -1."""
        if self.game.get_type().short_name == "cardlab_literature":
            return action % 64 if action < CLAIM else -1
        return action if action < 52 else -1

    def swap_others_cards(self, trace: Trace, player: int, rng: np.random.Generator,
                          named_later: bool = False):
        """Swap two cards dealt to two other seats; ``named_later``: one that a decision names."""
        seats = self.dealt_to(trace)
        steps = [i for i, seat in enumerate(seats) if seat >= 0 and seat != player]
        firsts = steps
        if named_later:
            named = {self.named_card(a) for a, mover in zip(trace.actions, trace.movers, strict=True)
                     if mover != CHANCE}
            firsts = [i for i in steps if trace.actions[i] in named]
        if not firsts:
            return None
        i = int(rng.choice(firsts))
        j = int(rng.choice([k for k in steps if seats[k] != seats[i]]))
        plan = list(trace.actions)
        plan[i], plan[j] = plan[j], plan[i]
        return plan, min(i, j)

    def reorder_own_cards(self, trace: Trace, player: int, rng: np.random.Generator):
        seats = self.dealt_to(trace)
        plan = list(trace.actions)
        start = 0
        for i in range(len(seats) + 1):  # shuffle the player's cards within each deal stage
            if i == len(seats) or seats[i] < 0:
                own = [j for j in range(start, i) if seats[j] == player]
                for j, card in zip(own, rng.permutation([plan[j] for j in own]), strict=True):
                    plan[j] = int(card)
                start = i + 1
        changed = [i for i in range(len(plan)) if plan[i] != trace.actions[i]]
        return (plan, changed[0]) if changed else None

    def change_decision(self, trace: Trace, rng: np.random.Generator, hidden_only: bool):
        steps = [i for i, mover in enumerate(trace.movers) if mover != CHANCE
                 and len(trace.legal[i]) > 1 and (trace.hidden[i] or not hidden_only)]
        if not steps:
            return None
        i = int(rng.choice(steps))
        plan = list(trace.actions)
        plan[i] = int(rng.choice([a for a in trace.legal[i] if a != plan[i]]))
        return plan, i

    def swap_decisions(self, trace: Trace, rng: np.random.Generator):
        steps = [i for i in range(len(trace.actions) - 1) if CHANCE not in trace.movers[i:i + 2]
                 and trace.actions[i] != trace.actions[i + 1]]
        if not steps:
            return None
        i = int(rng.choice(steps))
        plan = list(trace.actions)
        plan[i], plan[i + 1] = plan[i + 1], plan[i]
        return plan, i


def play_tables(name: str, params: dict, histories: int, seed: int) -> Table:
    """``histories`` random histories, each with a batch of mutations of it."""
    table = Table(name, params)
    rng = np.random.default_rng(seed)
    for _ in range(histories):
        trace = table.play([], rng)
        player = int(rng.integers(table.num_players))
        mutations = [table.swap_others_cards(trace, player, rng, named_later=k % 2 == 1)
                     for k in range(6)] + [
            table.reorder_own_cards(trace, player, rng),
            table.change_decision(trace, rng, hidden_only=True),
            table.change_decision(trace, rng, hidden_only=True),
            table.change_decision(trace, rng, hidden_only=False),
            table.change_decision(trace, rng, hidden_only=False),
            table.swap_decisions(trace, rng),
            table.swap_decisions(trace, rng),
        ]
        for mutation in mutations:
            if mutation is not None:  # replayed while legal: after that the histories are unrelated
                plan, first = mutation
                table.play(plan, rng, record_from=first, stop_off_plan=True)
    return table


def classes_agree(records: list[Record], view: str) -> tuple[bool, str]:
    """Do the oracle and ``view`` split the records into the same classes? (and a witness if not)"""
    by_oracle: dict[bytes, set] = defaultdict(set)
    by_view: dict[object, set] = defaultdict(set)
    for record in records:
        by_oracle[record.oracle].add(getattr(record, view))
        by_view[getattr(record, view)].add(record.oracle)
    for views in by_oracle.values():
        if len(views) > 1:
            return False, f"equal observations, {len(views)} different {view}s"
    for oracles in by_view.values():
        if len(oracles) > 1:
            return False, f"one {view} for {len(oracles)} different observation sequences"
    return True, ""


@pytest.fixture(scope="module", params=TABLE_GAMES, ids=TABLE_IDS)
def table(request) -> Table:
    name, params = request.param
    return play_tables(name, params, histories=HISTORIES[name], seed=7)


@pytest.mark.parametrize("view", ["string", "tensor", "key"])
def test_information_state_is_the_observation_sequence(table: Table, view: str):
    for player, records in enumerate(table.records):
        agree, witness = classes_agree(records, view)
        assert agree, f"player {player}: {witness}"


@pytest.mark.slow
@pytest.mark.parametrize("name, params", TABLE_GAMES, ids=TABLE_IDS)
def test_information_states_over_ten_times_more_histories(name: str, params: dict):
    table = play_tables(name, params, histories=10 * HISTORIES[name], seed=11)
    for view in ("string", "tensor", "key"):
        for player, records in enumerate(table.records):
            agree, witness = classes_agree(records, view)
            assert agree, f"player {player}: {witness}"


def test_many_distinct_histories_look_the_same(table: Table):
    """The pairs are not all trivially different: many histories share an information state."""
    shared = 0
    for records in table.records:
        histories: dict[bytes, set] = defaultdict(set)
        for record in records:
            histories[record.oracle].add(record.history)
        shared += sum(len(h) - 1 for h in histories.values())
    assert shared >= 500


def test_literature_record_keeps_the_order_of_asks():
    """Successful asks made in another order prove the same, but were seen differently."""
    game = pyspiel.load_game("cardlab_literature", {"players": 4})
    asker_cards, target_cards = mask_of(["2C", "3C", "4C"]), mask_of(["5C", "6C", "7C"])
    rest = [c for c in range(52) if c % 13 != EIGHT and not (asker_cards | target_cards) >> c & 1]
    hands = [asker_cards | mask_of(rest[:9]), target_cards | mask_of(rest[9:18]),
             mask_of(rest[18:30]), mask_of(rest[30:])]
    states = []
    for order in (["5C", "6C", "7C"], ["6C", "5C", "7C"]):
        state = state_with_hands(game, hands)
        for card in order:  # the dealer P0 asks first; every ask succeeds
            state.apply_action(ask_action(1, parse_card(card)))
        states.append(state)
    first, second = states
    assert first.observation_tensor(2) == second.observation_tensor(2)  # same knowledge, same last ask
    assert first.information_state_tensor(2) != second.information_state_tensor(2)
    assert first.information_state_string(2) != second.information_state_string(2)
    assert first.information_state_key(2) != second.information_state_key(2)


def test_kaiser_record_keeps_the_trump_after_the_hand():
    """Nobody shows out, so the trump never decides a trick: only the naming tells the hands apart."""
    game = pyspiel.load_game("cardlab_kaiser")
    ends = []
    for trump in ("trump H", "trump S"):
        state = deal(game.new_initial_state(), {  # two cards of every suit each
            0: "7C 8C 7D 8D 5H 8H 3S 8S", 1: "9C TC 9D TD 9H TH 9S TS",
            2: "JC QC JD QD JH QH JS QS", 3: "KC AC KD AD KH AH KS AS"})
        act(state, "bid 7", "pass", "pass", "pass", trump)
        while not state.is_terminal():
            state.apply_action(min(state.legal_actions()))
        ends.append(state)
    first, second = ends
    for player in range(4):
        assert first.information_state_tensor(player) != second.information_state_tensor(player)
        assert first.information_state_string(player) != second.information_state_string(player)
        assert first.information_state_key(player) != second.information_state_key(player)


def _twenty_eight(first: list[str], second: list[str], before_deal: list[str],
                  after_deal: list[str]) -> tuple[pyspiel.State, pyspiel.State]:
    """The state just before and just after ``after_deal``, for a deal given by stages."""
    stage1, stage2 = deal_chance_actions(0, [c.split() for c in first], [c.split() for c in second])
    state = pyspiel.load_game("cardlab_twenty_eight").new_initial_state()
    for card in stage1:
        state.apply_action(card)
    act(state, *before_deal)
    for card in stage2[:-1]:
        state.apply_action(card)
    if not after_deal:  # the last card of the deal is the step looked at
        before = state.clone()
        state.apply_action(stage2[-1])
        return before, state
    state.apply_action(stage2[-1])
    act(state, *after_deal[:-1])
    before = state.clone()
    act(state, after_deal[-1])
    return before, state


def _seen_alike(a: pyspiel.State, b: pyspiel.State, player: int) -> list[bool]:
    return [a.information_state_string(player) == b.information_state_string(player),
            a.information_state_tensor(player) == b.information_state_tensor(player),
            a.information_state_key(player) == b.information_state_key(player)]


OPENING = ["bid 14", "pass", "pass", "bid 15", "pass", "pass", "pass", "trump 7C"]  # P0 bids 15


def test_twenty_eight_four_jacks_void_is_seen_by_everyone():
    """Ruling 3: the others learn that some hand holds all four jacks from the deal's last card."""
    first = ["JS JH JD 7C", "8H 7H AS 9S", "AC 9C TC KC", "QC 8C 8S 7S"]
    void = ["JC 9H TH QH", "KS TS QS 9D", "KD QD 8D 7D", "AH KH AD TD"]
    played = ["KS 9H TH QH", "JC TS QS 9D", "KD QD 8D 7D", "AH KH AD TD"]
    void_before, void_after = _twenty_eight(first, void, OPENING, [])
    played_before, played_after = _twenty_eight(first, played, OPENING, [])
    assert void_after.is_terminal() and not played_after.is_terminal()
    for player in (2, 3):  # dealt the same cards in both deals
        assert _seen_alike(void_before, played_before, player) == [True] * 3
        assert _seen_alike(void_after, played_after, player) == [False] * 3


def test_twenty_eight_show_reveals_the_indicator_and_an_all_trump_void():
    """Ruling 7: at the show everybody learns the indicator and whether the hand is void."""
    first = ["7C 8C AH KH", "8H 7H JS 9S", "AC JC 9C TC", "KD QD 8S 7S"]
    void = ["JH 9H TH QH", "AS TS KS QS", "KC QC 8D 7D", "JD 9D AD TD"]  # team 0-2: all clubs
    played = ["JH 9H TH QH", "AS TS KS QS", "KC JD 8D 7D", "QC 9D AD TD"]
    void_before, void_after = _twenty_eight(first, void, OPENING, ["pass", "pass", "8H", "call trump"])
    played_before, played_after = _twenty_eight(first, played, OPENING,
                                                ["pass", "pass", "8H", "call trump"])
    assert void_after.is_terminal() and not played_after.is_terminal()
    for player in (0, 1):  # dealt the same cards in both deals
        assert _seen_alike(void_before, played_before, player) == [True] * 3
        assert _seen_alike(void_after, played_after, player) == [False] * 3
    _, other_indicator = _twenty_eight(first, void, OPENING[:-1] + ["trump 8C"], ["pass", "pass", "8H"])
    assert _seen_alike(void_before, other_indicator, 1) == [True] * 3  # face down: unseen


# ---- keys do not collide -----------------------------------------------------------------------
@njit(cache=True)
def _murmur_mix(h):
    """MurmurHash3's 64-bit finalizer: a second mixer, independent of the keys' SplitMix64."""
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    return h ^ (h >> np.uint64(33))


@njit(cache=True)
def _second_absorb(h, value):
    return _murmur_mix(h * np.uint64(0x100000001B3) + np.uint64(value) + np.uint64(1))


@njit(cache=True)
def _collect_keys(game, template, stream, keys, second):
    """Fill ``keys`` and ``second`` with every player's key and second hash, state by state."""
    n = kernels.num_players(game, template)
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    key = np.empty(n, dtype=np.uint64)
    other = np.empty(n, dtype=np.uint64)
    count = 0
    while count < keys.shape[0]:
        s = template.copy()
        for p in range(n):
            key[p] = kernels.initial_key(game, s, p)
            other[p] = _second_absorb(np.uint64(game), p)
            for value in kernels.game_parameters(game, s):
                other[p] = _second_absorb(other[p], value)
        while True:
            player = kernels.current_player(game, s)
            if player != -1:
                for p in range(n):
                    if count < keys.shape[0]:
                        keys[count] = key[p]
                        second[count] = other[p]
                        count += 1
            if player == -4:
                break
            action = kernels.random_action(game, s, stream, legal)
            for p in range(n):
                token = kernels.observation_token(game, s, action, p)
                key[p] = update_key(key[p], token)
                if token != 0:
                    other[p] = _second_absorb(other[p], token)
            kernels.apply_action(game, s, action)


def _distinct_states_share_no_key(records_per_game: int) -> int:
    keys, second = [], []
    for name, params in GAMES:
        game = pyspiel.load_game(name, params)
        k = np.empty(records_per_game, dtype=np.uint64)
        h = np.empty(records_per_game, dtype=np.uint64)
        _collect_keys(game_spec(name).kernel_id, game.new_initial_state().array, make_stream(5), k, h)
        keys.append(k)
        second.append(h)
    keys, second = np.concatenate(keys), np.concatenate(second)
    distinct = len(np.unique(second))
    order = np.lexsort((keys, second))
    pairs = 1 + np.count_nonzero((np.diff(second[order]) != 0) | (np.diff(keys[order]) != 0))
    assert pairs == distinct, "the second hash collided"
    assert len(np.unique(keys)) == distinct, "two distinct information states share a key"
    return distinct


def test_a_million_information_states_share_no_key():
    assert _distinct_states_share_no_key(360_000) >= 1_000_000
