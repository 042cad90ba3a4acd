"""Study 1, Kaiser bidding: rule-based self-play with each hand's features and the double-dummy result.

    python -m experiments.kaiser_bidding                        # full size (make notebooks)
    python -m experiments.kaiser_bidding --set deals=400 --out /tmp/kb

Every deal is played by the rule-based player in all four seats in the
compiled arena (dealer 0, hand mode). One row per deal and seat: the seat's
position in the auction, its hand and the features a bidder counts (aces,
kings, suit lengths, the 5 of hearts and the 3 of spades), its bid, the
contract, the points its team took and its score. On every
``double_dummy_every``-th deal the contract actually played is also solved
with all hands open (``dd_points``: the declaring team's points under perfect
play); on every ``par_every``-th deal the whole double-dummy table is solved
and its par contract recorded. The notebook is notebooks/kaiser_bidding.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from cardlab.core.cards import ACE, JACK, KING, QUEEN, SUIT_MASKS
from cardlab.core.layout import DEALER, DEALT
from cardlab.core.search_cards import NO_TRUMP_STRAIN
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.rules import BID, FIVE_OF_HEARTS, NUM_PLAYERS, PASS, THREE_OF_SPADES
from cardlab.solver import analyse, contract_points, par
from experiments.frame import Study, count_cards, main, self_play

GAME = "cardlab_kaiser"
DEFAULTS: dict[str, Any] = {
    "seed": 2026,
    "deals": 20000,
    "chunk_size": 2000,
    "double_dummy_every": 10,  # solve the played contract on deals 0, 10, 20, ...
    "par_every": 100,  # solve the whole table (20 contracts) on deals 0, 100, ...
}


def rank_mask(rank: int) -> int:
    return sum(1 << (13 * suit + rank) for suit in range(4))


def _column(values: np.ndarray, kind: pa.DataType) -> pa.Array:
    return pa.array(np.asarray(values), kind)


def play_chunk(parameters: dict[str, Any], deals: range) -> pa.Table:
    """The rows (deal, seat) of ``deals``: features, bids, contract, points, double-dummy points."""
    games = self_play(GAME, {}, parameters["seed"], deals)
    finals = games.finals
    n = len(deals)
    deal = np.repeat(np.arange(deals.start, deals.stop), NUM_PLAYERS)
    seat = np.tile(np.arange(NUM_PLAYERS), n)
    rows = np.repeat(np.arange(n), NUM_PLAYERS)
    dealer = finals[rows, DEALER]
    hand = finals[rows, DEALT + seat]
    spoken = finals[rows, E.SPOKEN + seat]
    is_bid = spoken >= BID
    declarer = finals[:, E.DECLARER]
    thrown_in = finals[:, E.WINNER] == 2
    declarer = np.where(thrown_in, -1, declarer)
    high = finals[:, E.HIGH_BID]
    team = seat % 2
    declaring_team = np.where(declarer >= 0, declarer % 2, -1)

    # Who took the contract how: the dealer's forced bid (three passes before him) and the
    # dealer's privilege (equalling the high bid, which only he may do).
    others_passed = np.ones(n, dtype=bool)
    previous_high = np.full(n, -1)
    for position in range(NUM_PLAYERS - 1):
        speaker = (finals[:, DEALER] + 1 + position) % NUM_PLAYERS
        action = finals[np.arange(n), E.SPOKEN + speaker]
        others_passed &= action == PASS
        previous_high = np.where(action >= BID, np.maximum(previous_high, action - BID), previous_high)
    dealer_won = declarer == finals[:, DEALER]
    forced = dealer_won & others_passed
    privilege = dealer_won & (high == previous_high)

    # Double dummy: the contract as played (declarer leads, its strain), and the whole table.
    solved = np.flatnonzero((np.arange(deals.start, deals.stop) % parameters["double_dummy_every"] == 0)
                            & (declarer >= 0))
    dd_points = np.full(n, np.nan)
    if len(solved):
        hands = finals[solved][:, DEALT:DEALT + NUM_PLAYERS]
        strains = np.where(finals[solved, E.TRUMP] >= 0, finals[solved, E.TRUMP], NO_TRUMP_STRAIN)
        team0 = contract_points(GAME, hands, declarer[solved], strains)
        dd_points[solved] = np.where(declarer[solved] % 2 == 0, team0, 10 - team0)
    par_rows = np.flatnonzero(np.arange(deals.start, deals.stop) % parameters["par_every"] == 0)
    par_declarer = np.full(n, -1)
    par_value = np.full(n, -1)
    par_strain = np.full(n, -1)
    par_net = np.full(n, np.nan)  # for team 0
    best_net = np.full((n, 2), np.nan)  # each team's best contract's net score
    for i in par_rows:
        table = analyse(GAME, finals[i, DEALT:DEALT + NUM_PLAYERS], low_no_trump=False)
        best0, best1, contract = par(table, dealer=int(finals[i, DEALER]))
        par_declarer[i], par_value[i], par_strain[i] = contract.declarer, contract.value, contract.strain
        par_net[i] = contract.net if contract.declarer % 2 == 0 else -contract.net
        best_net[i] = best0.net, best1.net

    suits = {name: count_cards(hand, SUIT_MASKS[s]) for s, name in enumerate(("clubs", "diamonds", "hearts",
                                                                               "spades"))}
    columns = {
        "deal": _column(deal, pa.int64()),
        "seat": _column(seat, pa.int8()),
        "position": _column((seat - dealer - 1) % NUM_PLAYERS, pa.int8()),  # 0 speaks first, 3 deals
        "hand": _column(hand, pa.int64()),
        "aces": _column(count_cards(hand, rank_mask(ACE)), pa.int8()),
        "kings": _column(count_cards(hand, rank_mask(KING)), pa.int8()),
        "queens": _column(count_cards(hand, rank_mask(QUEEN)), pa.int8()),
        "jacks": _column(count_cards(hand, rank_mask(JACK)), pa.int8()),
        **{name: _column(length, pa.int8()) for name, length in suits.items()},
        "five_hearts": _column(count_cards(hand, 1 << FIVE_OF_HEARTS) == 1, pa.bool_()),
        "three_spades": _column(count_cards(hand, 1 << THREE_OF_SPADES) == 1, pa.bool_()),
        "bid_value": _column(np.where(is_bid, (spoken - BID) // 3, 0), pa.int8()),
        "bid_no_trump": _column(is_bid & ((spoken - BID) % 3 == 1), pa.bool_()),
        "declarer": _column(declarer[rows], pa.int8()),
        "declaring": _column(declaring_team[rows] == team, pa.bool_()),
        "contract_value": _column(np.where(declarer >= 0, high // 3, 0)[rows], pa.int8()),
        "contract_no_trump": _column(((declarer >= 0) & (high % 3 == 1))[rows], pa.bool_()),
        "trump": _column(finals[rows, E.TRUMP], pa.int8()),  # -1: no trump
        "forced": _column(forced[rows], pa.bool_()),
        "privilege": _column(privilege[rows], pa.bool_()),
        "team_points": _column(finals[rows, E.HAND_POINTS + team], pa.int8()),
        "score": _column(finals[rows, E.LAST_DELTA + team], pa.int16()),
        "dd_points": _column(dd_points[rows], pa.float64()),  # declaring team, contract as played
        "par_declarer": _column(par_declarer[rows], pa.int8()),
        "par_value": _column(par_value[rows], pa.int8()),
        "par_strain": _column(par_strain[rows], pa.int8()),  # 0-3 a trump, 4 no trump
        "par_net": _column(np.where(team == 0, 1, -1) * par_net[rows], pa.float64()),  # for this team
        "best_net": _column(best_net[rows, team], pa.float64()),  # this team's best contract
    }
    return pa.table(columns)


STUDY = Study("kaiser-bidding", DEFAULTS, play_chunk)

if __name__ == "__main__":
    main(STUDY)
