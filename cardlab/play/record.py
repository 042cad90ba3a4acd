"""Games played by hand, saved in the results format; any stored deal read back for a replay.

A tournament folder (``cardlab tournament``) holds duplicate deals between
two agents per pair. A game played at the terminal has its own seats (a
person, a partner, two opponents), so it is saved in a sibling folder of the
same build: one Parquet part per game with the very columns of a tournament
row (:func:`cardlab.arena.tournament.result_columns`: deal, seating, seed,
agents by seat, every action, returns, time, the game's summary columns)
plus ``notes``, one text per action (a bot's search statistics), and a
manifest of format :data:`GAMES_FORMAT` listing each part with its SHA-256.
Games are numbered as deals ``0, 1, ...`` in the order they were saved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyspiel

from cardlab.arena.tournament import result_columns
from cardlab.results import (
    FORMAT,
    LOCK,
    MANIFEST,
    ResultsError,
    load_results,
    locked,
    read_part,
    seatings_per_pair,
    sha256,
    write_json_atomically,
    write_part,
)

GAMES_FORMAT = "cardlab-games/1"


@dataclass
class StoredDeal:
    """One stored game: enough to replay it move by move."""

    game: str
    parameters: dict[str, Any]
    deal: int
    seating: int
    deal_seed: int
    seat_agents: list[str]
    actions: list[int]
    returns: list[float]
    notes: list[str]

    def load_game(self) -> pyspiel.Game:
        import cardlab  # noqa: F401  (registers the games)

        return pyspiel.load_game(self.game, dict(self.parameters))


def _games_manifest(directory: Path) -> dict[str, Any]:
    path = directory / MANIFEST
    if not path.exists():
        return {"format": GAMES_FORMAT, "games": []}
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsError(f"{path} is corrupt or truncated ({type(error).__name__})") from error
    if not isinstance(manifest, dict) or manifest.get("format") != GAMES_FORMAT \
            or not isinstance(manifest.get("games"), list):
        raise ResultsError(f"{path} is not a folder of played games (format {GAMES_FORMAT}); "
                           f"choose another --out")
    return manifest


def save_game(directory: str | Path, state: pyspiel.State, seat_agents: list[str], deal_seed: int,
              seconds: list[float], decisions: list[int], notes: list[str], command: str = "") -> int:
    """Append the finished game ``state`` to ``directory``; returns its deal number there."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ResultsError(f"{directory} exists and is not a directory; choose another --out")
    directory.mkdir(parents=True, exist_ok=True)
    game = state.get_game()
    with locked(directory / LOCK, "game"):
        manifest = _games_manifest(directory)
        deal = len(manifest["games"])
        history = np.array(state.history(), dtype=np.int16)
        columns = result_columns(
            game.get_type().short_name, dict(game.get_parameters()), np.array([deal]),
            np.array([0], dtype=np.int16), np.array([deal_seed], dtype=np.uint64),
            np.array([seat_agents], dtype=str), history, np.array([0, len(history)]),
            np.array([state.returns()]), np.array([seconds]), np.array([decisions]),
            state.array.reshape(1, -1),
        )
        columns["notes"] = pa.array([notes], pa.list_(pa.string()))
        entry = write_part(directory, deal, pa.table(columns))
        manifest["games"].append({**entry, "game": game.get_type().short_name, "command": command,
                                  "created": datetime.now(UTC).isoformat(timespec="seconds")})
        write_json_atomically(directory / MANIFEST, manifest)
    return deal


def _row_deal(row: dict[str, Any]) -> StoredDeal:
    actions = [int(a) for a in row["actions"]]
    return StoredDeal(
        game=row["game"], parameters=json.loads(row["parameters"]), deal=int(row["deal"]),
        seating=int(row["seating"]), deal_seed=int(row["deal_seed"]), seat_agents=list(row["seat_agents"]),
        actions=actions, returns=[float(r) for r in row["returns"]],
        notes=list(row.get("notes") or [""] * len(actions)),
    )


def load_deal(directory: str | Path, deal: int, seating: int = 0) -> StoredDeal:
    """Deal ``deal`` in seating ``seating`` of a tournament folder, or game ``deal`` of played games."""
    directory = Path(directory)
    if not (directory / MANIFEST).is_file():
        raise ResultsError(f"{directory} has no {MANIFEST}: not a results folder")
    try:
        head = json.loads((directory / MANIFEST).read_text()).get("format")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as error:
        raise ResultsError(f"{directory / MANIFEST} is corrupt or truncated") from error
    if head == FORMAT:
        manifest, table = load_results(directory)
        mask = pc.and_(pc.equal(table["deal"], deal), pc.equal(table["seating"], seating))
        rows = table.filter(mask).to_pylist()
        if not rows:
            seatings = seatings_per_pair(manifest["settings"]) * len(manifest["settings"]["pairs"])
            raise ResultsError(f"{directory} has no deal {deal} in seating {seating}; deals "
                               f"0..{manifest['settings']['deals'] - 1}, seatings 0..{seatings - 1}")
        return _row_deal(rows[0])
    games = _games_manifest(directory)["games"]
    if seating != 0:
        raise ResultsError(f"a played game has one seating, 0; got --seating {seating}")
    if not 0 <= deal < len(games):
        raise ResultsError(f"{directory} holds games 0..{len(games) - 1}, not {deal}")
    path = directory / games[deal]["file"]
    if not path.is_file() or sha256(path) != games[deal]["sha256"]:
        raise ResultsError(f"{path} is missing or corrupt (checksum differs from the manifest)")
    return _row_deal(read_part(path).to_pylist()[0])
