"""Game-specific columns of the results: what a researcher wants to see of a game at a glance.

A summary function takes the final engine state arrays of a batch of games
(one row per game) and returns extra Parquet columns, e.g. Kaiser's bids,
declarer and contract. It reads the final state only, so it is the same for
the compiled and the Python loop and costs a few numpy operations per chunk.
Register one for a new game with :func:`register_summary`; games without one
get no extra columns.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

Summary = Callable[[np.ndarray], dict[str, pa.Array]]
_SUMMARIES: dict[str, Summary] = {}

#: Names the arena's own columns use; a summary must not reuse them.
RESERVED = frozenset(
    {
        "deal", "seating", "pair", "game", "parameters", "deal_seed", "seat_agents", "team0_agent",
        "team1_agent", "actions", "returns", "seat_seconds", "seat_decisions",
    }
)


def register_summary(game_name: str) -> Callable[[Summary], Summary]:
    """Decorator: ``summary(finals) -> {column: pyarrow array}`` for ``game_name``."""

    def decorate(summary: Summary) -> Summary:
        _SUMMARIES[game_name] = summary
        return summary

    return decorate


def summarize(game_name: str, finals: np.ndarray) -> dict[str, pa.Array]:
    """The extra columns of ``game_name`` for these final states (none if it has no summary)."""
    summary = _SUMMARIES.get(game_name)
    if summary is None:
        return {}
    columns = summary(finals)
    clash = RESERVED & set(columns)
    if clash:
        raise ValueError(f"summary of {game_name} reuses reserved column(s) {sorted(clash)}")
    return columns


@register_summary("cardlab_kaiser")
def kaiser_summary(finals: np.ndarray) -> dict[str, pa.Array]:
    """Bids in seat order, declarer, contract, trump and each team's hand points.

    In match mode these describe the last hand of the match.
    """
    from cardlab.games.kaiser import engine as E
    from cardlab.games.kaiser.game import action_to_string
    from cardlab.games.kaiser.rules import BID_KIND_SUFFIX, NUM_DISTINCT_ACTIONS, NUM_PLAYERS

    def spoken_name(action: int) -> str:
        try:
            return action_to_string(0, action)
        except ValueError:  # ids the contract leaves unused
            return ""

    names = np.array([spoken_name(a) for a in range(NUM_DISTINCT_ACTIONS)] + [""], dtype=object)
    spoken = finals[:, E.SPOKEN:E.SPOKEN + NUM_PLAYERS]
    bids = names[np.where(spoken < 0, NUM_DISTINCT_ACTIONS, spoken)]
    high_bid = finals[:, E.HIGH_BID]
    thrown_in = finals[:, E.WINNER] == 2
    has_contract = (high_bid >= 0) & ~thrown_in
    contract_names = np.array(
        [f"{rank // 3}{BID_KIND_SUFFIX[rank % 3]}" for rank in range(3 * 13)] + [""], dtype=object
    )
    contract = contract_names[np.where(has_contract, high_bid, len(contract_names) - 1)]
    trump_names = np.array(["C", "D", "H", "S", "NT", ""], dtype=object)
    trump_index = np.where(finals[:, E.TRUMP] >= 0, finals[:, E.TRUMP], 4)
    trump = trump_names[np.where(has_contract, trump_index, 5)]
    declarer = np.where(has_contract, finals[:, E.DECLARER], -1).astype(np.int8)
    points = finals[:, E.HAND_POINTS:E.HAND_POINTS + 2].astype(np.int16)
    return {
        "bids": pa.FixedSizeListArray.from_arrays(pa.array(bids.ravel(), pa.string()), NUM_PLAYERS),
        "declarer": pa.array(declarer),
        "contract": pa.array(contract, pa.string()),
        "trump": pa.array(trump, pa.string()),
        "team_points": pa.FixedSizeListArray.from_arrays(pa.array(points.ravel()), 2),
    }


@register_summary("cardlab_twenty_eight")
def twenty_eight_summary(finals: np.ndarray) -> dict[str, pa.Array]:
    """First-round bidding, the final bidder, bid and trump, the show, outcome, card points."""
    from cardlab.games.twenty_eight import engine as E
    from cardlab.games.twenty_eight.rules import BID, PASS, REDEAL

    def bid_name(action: int) -> str:
        return {PASS: "pass", REDEAL: "redeal"}.get(action, f"bid {action - BID}")

    first_round = [
        [bid_name(int(a)) for a in row[E.BID_HISTORY:E.BID_HISTORY + row[E.NUM_BIDS]]]
        for row in finals
    ]
    has_bidder = finals[:, E.BIDDER] >= 0
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
            pa.array(finals[:, E.CARD_POINTS_WON:E.CARD_POINTS_WON + 2].astype(np.int16).ravel()), 2),
    }


@register_summary("cardlab_literature")
def literature_summary(finals: np.ndarray) -> dict[str, pa.Array]:
    """Every claim (claimant, half-suit, result), each half-suit's fate, asks and scores."""
    from cardlab.games.literature import engine as E
    from cardlab.games.literature.rules import half_suit_name

    results = {E.UNRESOLVED: "unresolved", 0: "team 0", 1: "team 1", E.VOID: "void"}
    claims = []
    for row in finals:
        row_claims = []
        for event in row[E.LOG:E.LOG + row[E.LOG_LENGTH]]:
            if E.event_kind(event) == E.EVENT_CLAIM:
                h = int(E.event_target(event))
                row_claims.append(f"P{E.event_actor(event)} {half_suit_name(h)}: "
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
