"""Literature's result columns: every claim, each half-suit's fate, asks and scores.

The arena calls :func:`summary` on the final engine states of each chunk of games
(one row per game); it reads the final state only, so the compiled and the Python
game loops give the same columns.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from cardlab.games.literature import engine as E
from cardlab.games.literature.rules import half_suit_name


def summary(finals: np.ndarray) -> dict[str, pa.Array]:
    """Every claim (claimant, half-suit, result; forfeits and challenges that showed the
    cards too), each half-suit's fate, asks and scores."""

    results = {E.UNRESOLVED: "unresolved", 0: "team 0", 1: "team 1", E.VOID: "void"}
    claims = []
    for row in finals:
        row_claims = []
        for event in row[E.LOG:E.LOG + row[E.LOG_LENGTH]]:
            if E.event_shows_holders(event):  # claims, and 12.15's forfeits, 12.17's challenges
                h = int(E.event_half_suit(event))
                what = "" if E.event_kind(event) == E.EVENT_CLAIM else (
                    "challenge " if E.event_forced_kind(event) == E.FORCED_CHALLENGE
                    else "forfeit ")
                row_claims.append(f"P{E.event_actor(event)} {what}{half_suit_name(h)}: "
                                  f"{results[int(E.event_status(event))]}")
        claims.append(row_claims)
    status = finals[:, E.STATUS:E.STATUS + E.MAX_HALF_SUITS]
    return {
        "claims": pa.array(claims, pa.list_(pa.string())),
        "half_suits": pa.array([[results[int(x)] for x in row] for row in status],
                               pa.list_(pa.string())),
        "asks": pa.array(finals[:, E.ASKS].astype(np.int16)),
        "scores": pa.FixedSizeListArray.from_arrays(
            pa.array(finals[:, E.SCORES:E.SCORES + 2].astype(np.int16).ravel()), 2),
    }
