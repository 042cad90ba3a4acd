"""Game-specific result columns: Twenty-Eight bidding and Literature claims."""

from __future__ import annotations

import glob

import pyarrow.parquet as pq

from cardlab.cli import main
from cardlab.games.literature.rules import CLAIM

DEALT_CARDS = 48


def _rows(tmp_path, game: str):
    out = tmp_path / game
    assert main(["tournament", "--game", game, "--agents", "rules,random", "--deals", "4",
                 "--seed", "3", "--workers", "1", "--backend", "serial", "--out", str(out),
                 "--quiet"]) == 0
    return pq.read_table(sorted(glob.glob(str(out / "part-*.parquet")))).to_pandas()


def test_twenty_eight_rows_name_the_bidding_and_the_trump(tmp_path):
    rows = _rows(tmp_path, "twenty_eight")
    for row in rows.itertuples():
        if row.outcome != "played out":
            continue
        assert sum(row.card_points) == 28
        assert row.first_round_bids[-3:].tolist() == ["pass"] * 3
        assert row.trump in ("C", "D", "H", "S") and 14 <= row.final_bid <= 28
        assert 0 <= row.trump_shown_in_trick < 8


def test_literature_rows_list_every_claim_and_half_suit(tmp_path):
    rows = _rows(tmp_path, "literature")
    for row in rows.itertuples():
        assert list(row.scores) == [list(row.half_suits).count("team 0"),
                                    list(row.half_suits).count("team 1")]
        played = row.actions[DEALT_CARDS:]  # after the deal of the 48-card standard deck
        assert row.asks == sum(1 for action in played if action < CLAIM)
        assert len(row.claims) == sum(1 for action in played if CLAIM <= action < CLAIM + 9)
        assert all(claim.startswith("P") for claim in row.claims)
        assert row.returns[0] == row.scores[0] - row.scores[1]
