"""Twenty-Eight's result columns: the bidding, the trump, the show and the card points.

The arena calls :func:`summary` on the final engine states of each chunk of games
(one row per game); it reads the final state only, so the compiled and the Python
game loops give the same columns.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.rules import BID, PASS, REDEAL


def summary(finals: np.ndarray) -> dict[str, pa.Array]:
    """First-round bidding, the final bidder, bid and trump, the show, outcome, card points by side."""

    def bid_name(action: int) -> str:
        return {PASS: "pass", REDEAL: "redeal"}.get(action, f"bid {action - BID}")

    first_round = [
        [bid_name(int(a)) for a in row[E.BID_HISTORY:E.BID_HISTORY + row[E.NUM_BIDS]]]
        for row in finals
    ]
    has_bidder = finals[:, E.BIDDER] >= 0
    # Card points per side (a chunk is one game): two teams, or three sides with 3 or 6 players.
    sides = 2 if len(finals) == 0 or finals[0, E.NUM_PLAYERS] == 4 else 3
    suits = np.array(["C", "D", "H", "S", ""], dtype=object)
    trump = suits[np.where(has_bidder & (finals[:, E.TRUMP] >= 0), finals[:, E.TRUMP], 4)]
    return {
        "first_round_bids": pa.array(first_round, pa.list_(pa.string())),
        "bidder": pa.array(np.where(has_bidder, finals[:, E.BIDDER], -1).astype(np.int8)),
        "final_bid": pa.array(np.where(has_bidder, finals[:, E.HIGH_BID], -1).astype(np.int8)),
        "trump": pa.array(trump, pa.string()),
        "trump_shown_in_trick": pa.array(finals[:, E.SHOWN_IN_TRICK].astype(np.int8)),
        "outcome": pa.array([E.OUTCOME_NAMES[int(o)] for o in finals[:, E.OUTCOME]], pa.string()),
        "card_points": pa.FixedSizeListArray.from_arrays(
            pa.array(finals[:, E.CARD_POINTS_WON:E.CARD_POINTS_WON + sides].astype(np.int16).ravel()),
            sides),
    }


def contract_outcome(finals: np.ndarray, returns: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Per final state: does ``seat``'s side hold the contract, and did the bidding side make it?

    Both are False when no hand was played out (redealt or void). The bidding side is the
    bidder's team with four or six players and the bidder alone with three (V-T3); its seats
    score above zero exactly when it makes the bid.
    """
    players = int(finals[0, E.NUM_PLAYERS]) if len(finals) else 4
    bidder = finals[:, E.BIDDER]
    contract = (bidder >= 0) & (finals[:, E.OUTCOME] == E.PLAYED_OUT)
    sides = np.array([E.side_at_table(players, s) for s in range(players)])  # the engine's, seat by seat
    ours = contract & (sides[np.maximum(bidder, 0)] == sides[seat])
    made = contract & (returns[np.arange(len(finals)), np.maximum(bidder, 0)] > 0)
    return ours, made
