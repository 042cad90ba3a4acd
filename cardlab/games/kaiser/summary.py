"""Kaiser's result columns: the bidding, the contract and each side's points.

The arena calls :func:`summary` on the final engine states of each chunk of games
(one row per game); it reads the final state only, so the compiled and the Python
game loops give the same columns.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser.game import action_to_string
from cardlab.games.kaiser.rules import KAISER_40_RANK, MAX_DISTINCT_ACTIONS, contract_name


def summary(finals: np.ndarray) -> dict[str, pa.Array]:
    """Bids in seat order, declarer, contract, trump and each side's hand points.

    In match mode these describe the last hand of the match. Every row is a
    game of one configuration, so the first row gives the seats and sides.
    """
    players = int(finals[0, E.NUM_PLAYERS]) if len(finals) else 4
    sides = int(finals[0, E.NUM_SIDES]) if len(finals) else 2

    def spoken_name(action: int) -> str:
        try:
            return action_to_string(0, action)
        except ValueError:  # ids the contract leaves unused
            return ""

    names = np.array([spoken_name(a) for a in range(MAX_DISTINCT_ACTIONS)] + [""], dtype=object)
    spoken = finals[:, E.SPOKEN:E.SPOKEN + players]
    bids = names[np.where(spoken < 0, MAX_DISTINCT_ACTIONS, spoken)]
    high_bid = finals[:, E.HIGH_BID]
    thrown_in = finals[:, E.WINNER] == E.DRAWN
    has_contract = (high_bid >= 0) & ~thrown_in
    contract_names = np.array([contract_name(rank) for rank in range(KAISER_40_RANK + 1)] + [""],
                              dtype=object)
    contract = contract_names[np.where(has_contract, high_bid, len(contract_names) - 1)]
    contract = np.where(finals[:, E.PLAYED_LOW] == 1, contract + " low", contract)  # 11.5, 11.6
    trump_names = np.array(["C", "D", "H", "S", "NT", ""], dtype=object)
    trump_index = np.where(finals[:, E.TRUMP] >= 0, finals[:, E.TRUMP], 4)
    trump = trump_names[np.where(has_contract, trump_index, 5)]
    declarer = np.where(has_contract, finals[:, E.DECLARER], -1).astype(np.int8)
    points = finals[:, E.HAND_POINTS:E.HAND_POINTS + sides].astype(np.int16)
    return {
        "bids": pa.FixedSizeListArray.from_arrays(pa.array(bids.ravel(), pa.string()), players),
        "declarer": pa.array(declarer),
        "contract": pa.array(contract, pa.string()),
        "trump": pa.array(trump, pa.string()),
        "team_points": pa.FixedSizeListArray.from_arrays(pa.array(points.ravel()), sides),
    }


def contract_outcome(finals: np.ndarray, returns: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Per final state: does ``seat``'s side hold the contract, and did the declaring side make it?

    Both are False when every seat passed (the hand thrown in). Sides come from the state's own
    table (§0 "Sides"): a team of two or three, or a seat alone with three or five players. A
    hand's score (its last delta) is positive for the declaring side exactly when it makes the bid.
    """
    rows = np.arange(len(finals))
    declarer = finals[:, E.DECLARER]
    contract = (declarer >= 0) & (finals[:, E.WINNER] != E.DRAWN)
    declaring_side = finals[rows, E.SIDE_OF + np.maximum(declarer, 0)]
    ours = contract & (declaring_side == finals[:, E.SIDE_OF + seat])
    made = contract & (finals[rows, E.LAST_DELTA + declaring_side] > 0)
    return ours, made
