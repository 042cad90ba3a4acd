"""Game-specific columns of the results: what a researcher wants to see of a game at a glance.

Each game declares its summary in its folder (``cardlab/games/<game>/summary.py``,
named by its :class:`~cardlab.games.spec.GameSpec`): a function of the final
engine states of a batch of games that returns extra Parquet columns, e.g.
Kaiser's bids, declarer and contract. The arena adds them to every part file.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from cardlab.games import game_spec

#: Names the arena's own columns use; a summary must not reuse them.
RESERVED = frozenset(
    {
        "deal", "seating", "pair", "game", "parameters", "deal_seed", "seat_agents", "team0_agent",
        "team1_agent", "actions", "returns", "seat_seconds", "seat_decisions", "policy_steps",
        "policy_actions", "policy_probabilities",
    }
)


def summarize(game_name: str, finals: np.ndarray) -> dict[str, pa.Array]:
    """The extra columns of ``game_name`` for these final states."""
    columns = game_spec(game_name).summary(finals)
    clash = RESERVED & set(columns)
    if clash:
        raise ValueError(f"summary of {game_name} reuses reserved column(s) {sorted(clash)}")
    return columns
