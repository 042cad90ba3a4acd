"""Hand analysis: the double-dummy table of a deal, its par contract, and many deals at once.

The table gives, for each seat that could lead the first trick and each
strain, the points each team takes under perfect play. In Kaiser the leader
is the declarer, so the rows are the four possible declarers and the strains
the four trumps, no trump and (when the game allows it) low no trump. In
Twenty-Eight the seat after the dealer always leads and the declarer matters
only while the trump is hidden, which the open table does not model
(:mod:`cardlab.solver.position`): the rows are the possible leaders, the
strains the four trumps.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context

import numpy as np
from numba import njit

from cardlab.core.cards import SUIT_CHARS, card_string, mask_of
from cardlab.core.dealing import receiving_seat
from cardlab.core.interrupt import quiet_worker
from cardlab.core.rng import make_stream, random_below
from cardlab.core.search_cards import LOW_NO_TRUMP_STRAIN
from cardlab.games.double_dummy import (
    CARDS_PER_STAGE,
    CONTRACTS,
    DECLARER_LEADS,
    HAND_TOTALS,
    STANDARD_DECKS,
    STRAINS,
    game_tables,
)
from cardlab.solver.mtd import exact_value
from cardlab.solver.node import new_scratch
from cardlab.solver.position import TABLE_BITS, to_search
from cardlab.solver.rules import ALL_TECHNIQUES, TECHNIQUE_SETS, make_rules
from cardlab.solver.solve import game_id_of
from cardlab.solver.table import CONTRACT, NUM_COUNTERS, new_table, prepare

NUM_SEATS = 4
HAND_SIZE = 8
STRAIN_NAMES = tuple(SUIT_CHARS) + ("NT", "LNT")


@njit(cache=True)
def _search_buffers(game):
    """A transposition table, its counters, the search's scratch, and the hands and trick of a deal."""
    entries = new_table(TABLE_BITS[game])
    counters = np.zeros(NUM_COUNTERS, dtype=np.int64)
    counters[CONTRACT] = -1
    scratch = new_scratch()
    return (entries, counters, scratch, np.zeros(NUM_SEATS, dtype=np.int64),
            np.full(NUM_SEATS, -1, dtype=np.int64))


@njit(cache=True)
def _strain_rules(game, strain, flags, counters):
    """The search's rules and card renumbering for ``strain``; the table is kept within a strain."""
    trump, search_card_of, _, points, trick_points = game_tables(game, strain)
    prepare(counters, (game * 8 + strain) * TECHNIQUE_SETS + flags)
    return make_rules(trump, trick_points, points, flags), search_card_of


@njit(cache=True)
def deal_tables(game, deals, leaders, strains, flags):
    """Team 0's points for every deal, leader and strain: ``out[deal, leader, strain]``.

    ``deals[i, seat]`` is the mask of card ids of each seat's eight cards. One
    transposition table serves a strain across deals (its keys hold the whole
    position), so a batch is faster than its deals one by one.
    """
    out = np.zeros((deals.shape[0], leaders.shape[0], strains.shape[0]), dtype=np.int64)
    entries, counters, scratch, hands, trick = _search_buffers(game)
    for k in range(strains.shape[0]):
        rules, search_card_of = _strain_rules(game, strains[k], flags, counters)
        for i in range(deals.shape[0]):
            for seat in range(NUM_SEATS):
                hands[seat] = to_search(deals[i, seat], search_card_of)
            guess = -1000  # the deal's first leader: the narrow search's guess
            for row in range(leaders.shape[0]):
                # Another leader's value is MTD(f)'s first guess: it is rarely far (7% fewer nodes
                # than a narrow search for each leader on Kaiser tables).
                guess = exact_value(rules, entries, counters, scratch, hands, trick, 0, leaders[row],
                                    HAND_SIZE, 0, guess)
                out[i, row, k] = guess
    return out


@njit(cache=True)
def contract_tables(game, deals, leaders, strains, flags):
    """Team 0's points of each deal in its own contract: ``out[i]`` for ``deals[i]`` led by
    ``leaders[i]`` in ``strains[i]``.

    The transposition table is kept while consecutive deals share a strain, so
    deals sorted by strain solve fastest (:func:`contract_points` sorts them).
    """
    out = np.zeros(deals.shape[0], dtype=np.int64)
    entries, counters, scratch, hands, trick = _search_buffers(game)
    for i in range(deals.shape[0]):
        rules, search_card_of = _strain_rules(game, strains[i], flags, counters)
        for seat in range(NUM_SEATS):
            hands[seat] = to_search(deals[i, seat], search_card_of)
        out[i] = exact_value(rules, entries, counters, scratch, hands, trick, 0, leaders[i], HAND_SIZE, 0)
    return out


@dataclass(frozen=True)
class DoubleDummyTable:
    """Team 0's points ``points[row, column]`` for leader ``leaders[row]`` and strain ``strains[column]``."""

    game: str
    hands: tuple[int, ...]
    leaders: tuple[int, ...]
    strains: tuple[int, ...]
    points: np.ndarray

    def team_points(self, leader: int, strain: int) -> tuple[int, int]:
        """Each team's points when ``leader`` leads the first trick in ``strain``."""
        p = int(self.points[self.leaders.index(leader), self.strains.index(strain)])
        return p, HAND_TOTALS[game_id_of(self.game)] - p

    def text(self) -> str:
        """The table as the command line prints it: the leading seat's team's points."""
        row_name = "declarer" if DECLARER_LEADS[game_id_of(self.game)] else "leader"
        lines = [f"{row_name:>9} " + " ".join(f"{STRAIN_NAMES[s]:>4}" for s in self.strains)]
        for leader in self.leaders:
            cells = [self.team_points(leader, s)[leader % 2] for s in self.strains]
            lines.append(f"{'seat ' + str(leader):>9} " + " ".join(f"{c:>4}" for c in cells))
        return "\n".join(lines)


def table_strains(game_name: str, low_no_trump: bool = True) -> tuple[int, ...]:
    """The strains of a game's table: four trumps, and Kaiser's no trump and low no trump."""
    return tuple(s for s in STRAINS[game_id_of(game_name)] if low_no_trump or s != LOW_NO_TRUMP_STRAIN)


def check_deal(game_name: str, hands: np.ndarray) -> None:
    """Four hands of eight distinct cards of the game's deck, else a one-line ValueError."""
    deck = STANDARD_DECKS[game_id_of(game_name)]
    if len(hands) != NUM_SEATS:
        raise ValueError(f"a deal has {NUM_SEATS} hands, got {len(hands)}")
    seen = 0
    for seat, hand in enumerate(int(h) for h in hands):
        if hand & ~deck:
            outside = " ".join(card_string(c) for c in range(54) if hand >> c & 1 and not deck >> c & 1)
            raise ValueError(f"seat {seat}: {outside} not in the {game_name} deck")
        if hand & seen:
            twice = " ".join(card_string(c) for c in range(54) if (hand & seen) >> c & 1)
            raise ValueError(f"seat {seat}: {twice} dealt twice")
        if bin(hand).count("1") != HAND_SIZE:
            raise ValueError(f"seat {seat} has {bin(hand).count('1')} cards, not {HAND_SIZE}")
        seen |= hand


def parse_hands(game_name: str, text: str) -> np.ndarray:
    """``"AS KS ... / ... / ... / ..."``: the four hands of seats 0 to 3, checked."""
    parts = text.split("/")
    if len(parts) != NUM_SEATS:
        raise ValueError(f"a deal is {NUM_SEATS} hands separated by '/', got {len(parts)}")
    hands = np.array([mask_of(part.split()) for part in parts], dtype=np.int64)
    for seat, part in enumerate(parts):
        if len(part.split()) != bin(int(hands[seat])).count("1"):
            raise ValueError(f"seat {seat}: a card is written twice in {part.strip()!r}")
    check_deal(game_name, hands)
    return hands


def deal_from_seed(game_name: str, seed: int, dealer: int = 0) -> np.ndarray:
    """The deal of ``seed`` as the arena deals it: chance draws ``legal[random_below(stream, n)]``.

    Twenty-Eight's two stages of four cards each follow on the same stream.
    """
    game = game_id_of(game_name)
    stream = make_stream(seed)
    undealt = [c for c in range(54) if STANDARD_DECKS[game] >> c & 1]
    stage = CARDS_PER_STAGE[game]
    hands = np.zeros(NUM_SEATS, dtype=np.int64)
    for k in range(NUM_SEATS * HAND_SIZE):
        card = undealt.pop(int(random_below(stream, len(undealt))))
        hands[receiving_seat(dealer, k % stage, NUM_SEATS)] |= 1 << card
    return hands


def _tables(game_name: str, deals: np.ndarray, leaders: tuple[int, ...], strains: tuple[int, ...],
            flags: int) -> np.ndarray:
    return deal_tables(game_id_of(game_name), np.asarray(deals, dtype=np.int64),
                       np.array(leaders, dtype=np.int64), np.array(strains, dtype=np.int64), flags)


def analyse(game_name: str, hands: np.ndarray, low_no_trump: bool = True,
            flags: int = ALL_TECHNIQUES) -> DoubleDummyTable:
    """The double-dummy table of one deal (see the module's note on rows and strains)."""
    check_deal(game_name, hands)
    leaders = tuple(range(NUM_SEATS))
    strains = table_strains(game_name, low_no_trump)
    points = _tables(game_name, np.asarray(hands)[None, :], leaders, strains, flags)[0]
    return DoubleDummyTable(game_name, tuple(int(h) for h in hands), leaders, strains, points)


def analyse_many(game_name: str, deals: np.ndarray, workers: int = 1, low_no_trump: bool = True,
                 flags: int = ALL_TECHNIQUES) -> np.ndarray:
    """Team 0's points ``[deal, leader, strain]`` of many deals, in ``workers`` processes."""
    deals = np.asarray(deals, dtype=np.int64)
    for hands in deals:
        check_deal(game_name, hands)
    leaders = tuple(range(NUM_SEATS))
    strains = table_strains(game_name, low_no_trump)
    if workers <= 1 or len(deals) < 2:
        return _tables(game_name, deals, leaders, strains, flags)
    chunks = np.array_split(deals, workers)
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=quiet_worker) as pool:
        parts = pool.map(_tables, [game_name] * workers, chunks, [leaders] * workers,
                         [strains] * workers, [flags] * workers)
        return np.concatenate(list(parts))


def contract_points(game_name: str, deals: np.ndarray, leaders: np.ndarray, strains: np.ndarray,
                    flags: int = ALL_TECHNIQUES) -> np.ndarray:
    """Team 0's double-dummy points of each deal played in one contract: ``deals[i]`` led by
    ``leaders[i]`` in strain ``strains[i]`` (the row and column of :func:`analyse`'s table)."""
    deals = np.asarray(deals, dtype=np.int64).reshape(-1, NUM_SEATS)
    leaders, strains = np.asarray(leaders, dtype=np.int64), np.asarray(strains, dtype=np.int64)
    if not len(deals) == len(leaders) == len(strains):
        raise ValueError(f"one leader and one strain per deal, got {len(deals)} deals, {len(leaders)} "
                         f"leaders and {len(strains)} strains")
    allowed = table_strains(game_name)
    for hands, leader, strain in zip(deals, leaders, strains, strict=True):
        check_deal(game_name, hands)
        if leader not in range(NUM_SEATS) or strain not in allowed:
            raise ValueError(f"leader must be 0..3 and strain one of {allowed}, got {leader} and {strain}")
    order = np.argsort(strains, kind="stable")
    out = np.empty(len(deals), dtype=np.int64)
    out[order] = contract_tables(game_id_of(game_name), deals[order], leaders[order], strains[order], flags)
    return out

# ---- Par ------------------------------------------------------------------------
@dataclass(frozen=True)
class Contract:
    """A contract of the table: who declares, in which strain, for how many points."""

    declarer: int
    strain: int
    value: int
    rank: int  # bidding order: a higher rank outbids
    points: tuple[int, int]  # each team's points, from the table
    net: int  # the declaring team's score minus the other's


def par(table: DoubleDummyTable, dealer: int = 0, min_bid: int = 6) -> tuple[Contract, Contract, Contract]:
    """``(best for team 0, best for team 1, par)`` of a deal's table.

    A team's best contract has the highest net score (its score minus the
    other team's: Kaiser scored as at the start of a match, the defenders
    adding their points). Par is found by outbidding: from the better of the
    two, the other team outbids while a higher-ranked contract of its own
    beats what defending gives it.
    """
    contracts = [Contract(*found) for found in CONTRACTS[game_id_of(table.game)](
        table.team_points, table.leaders, table.strains, dealer, min_bid)]

    def best(team: int, above: int) -> Contract | None:
        mine = [c for c in contracts if c.declarer % 2 == team and c.rank > above]
        return max(mine, key=lambda c: (c.net, -c.rank), default=None)

    best0, best1 = best(0, -1), best(1, -1)
    current = best0 if best0.net >= best1.net else best1
    while True:
        other = 1 - current.declarer % 2
        challenger = best(other, current.rank)
        if challenger is None or challenger.net <= -current.net:
            return best0, best1, current
        current = challenger


def contract_text(game_name: str, contract: Contract) -> str:
    """``seat 1 9 H: team 0 takes 12 points, team 1 -2; net +14 for team 0`` (a Kaiser side's points
    may be negative: the 3 of spades)."""
    strain = STRAIN_NAMES[contract.strain]
    return (f"seat {contract.declarer} {contract.value} {strain}: team 0 takes {contract.points[0]} points, "
            f"team 1 {contract.points[1]}; net {contract.net:+d} for team {contract.declarer % 2}")
