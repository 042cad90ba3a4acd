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
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyspiel

from cardlab.arena.tournament import result_columns
from cardlab.core.limits import MAX_INDEX, check_count
from cardlab.games import game_spec
from cardlab.results import (
    FORMAT,
    LOCK,
    MANIFEST,
    ResultsError,
    load_results,
    locked,
    part_name,
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
        try:
            return game_spec(self.game).load(dict(self.parameters))
        except (ValueError, TypeError, OverflowError, RuntimeError, pyspiel.SpielError) as error:
            raise ResultsError(f"deal {self.deal}: a stored game the rules do not take "
                               f"({str(error).splitlines()[0]})") from error


def _games_manifest(directory: Path) -> dict[str, Any]:
    """The checked manifest of a folder of played games (an empty one if the folder has none).

    Game ``i`` must name exactly its own part, ``part_name(i)`` in the folder,
    with one row and a SHA-256: a manifest edited to point elsewhere (another
    folder, ``../../etc/passwd``) is refused, never followed.
    """
    path = directory / MANIFEST
    if not path.exists():
        return {"format": GAMES_FORMAT, "games": []}
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, RecursionError, json.JSONDecodeError) as error:
        raise ResultsError(f"{path} is corrupt or truncated ({type(error).__name__})") from error
    if not isinstance(manifest, dict) or manifest.get("format") != GAMES_FORMAT \
            or not isinstance(manifest.get("games"), list):
        raise ResultsError(f"{path} is not a folder of played games (format {GAMES_FORMAT}); "
                           f"choose another --out")
    for deal, entry in enumerate(manifest["games"]):
        if not isinstance(entry, dict) or entry.get("file") != part_name(deal) or entry.get("rows") != 1 \
                or not isinstance(entry.get("sha256"), str) or not re.fullmatch(r"[0-9a-f]{64}",
                                                                                entry["sha256"]):
            raise ResultsError(f"{path}: game {deal} must name its own part file {part_name(deal)} "
                               f"with one row and a sha256 of 64 hex digits")
    return manifest


def check_games_folder(directory: str | Path) -> Path:
    """``directory`` as the place a finished game will be saved, checked before the first move.

    It is created if need be; a file, a tournament folder, a damaged manifest
    or a folder this process cannot write in is a ``ResultsError`` now, not
    after the whole hand has been played.
    """
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ResultsError(f"{directory} exists and is not a directory; choose another --out")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".probe.", suffix=".tmp"):
            pass
    except OSError as error:
        raise ResultsError(f"cannot save games in {directory}: {error.strerror or error}; "
                           f"choose another --out") from error
    _games_manifest(directory)
    return directory


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


def _row_deal(row: dict[str, Any], path: Path) -> StoredDeal:
    try:
        actions = [int(a) for a in row["actions"]]
        return StoredDeal(
            game=str(row["game"]), parameters=dict(json.loads(row["parameters"])), deal=int(row["deal"]),
            seating=int(row["seating"]), deal_seed=int(row["deal_seed"]),
            seat_agents=[str(agent) for agent in row["seat_agents"]], actions=actions,
            returns=[float(r) for r in row["returns"]],
            notes=[str(note) for note in row.get("notes") or [""] * len(actions)],
        )
    except (KeyError, TypeError, ValueError, RecursionError) as error:
        raise ResultsError(f"{path} does not hold a stored game ({type(error).__name__}: {error})") from error


def load_deal(directory: str | Path, deal: int, seating: int = 0) -> StoredDeal:
    """Deal ``deal`` in seating ``seating`` of a tournament folder, or game ``deal`` of played games."""
    directory = Path(directory)
    try:
        deal = check_count(deal, "the deal", MAX_INDEX, low=0)
        seating = check_count(seating, "the seating", MAX_INDEX, low=0)
    except ValueError as error:
        raise ResultsError(str(error)) from error
    if not (directory / MANIFEST).is_file():
        raise ResultsError(f"{directory} has no {MANIFEST}: not a results folder")
    try:
        head = json.loads((directory / MANIFEST).read_text()).get("format")
    except (OSError, UnicodeDecodeError, RecursionError, json.JSONDecodeError, AttributeError) as error:
        raise ResultsError(f"{directory / MANIFEST} is corrupt or truncated") from error
    if head == FORMAT:
        manifest, table = load_results(directory)
        mask = pc.and_(pc.equal(table["deal"], deal), pc.equal(table["seating"], seating))
        rows = table.filter(mask).to_pylist()
        if not rows:
            seatings = seatings_per_pair(manifest["settings"]) * len(manifest["settings"]["pairs"])
            raise ResultsError(f"{directory} has no deal {deal} in seating {seating}; deals "
                               f"0..{manifest['settings']['deals'] - 1}, seatings 0..{seatings - 1}")
        return _row_deal(rows[0], directory / MANIFEST)
    games = _games_manifest(directory)["games"]
    if seating != 0:
        raise ResultsError(f"a played game has one seating, 0; got --seating {seating}")
    if not 0 <= deal < len(games):
        raise ResultsError(f"{directory} holds games 0..{len(games) - 1}, not {deal}")
    path = directory / part_name(deal)
    if path.is_symlink() or not path.is_file() or sha256(path) != games[deal]["sha256"]:
        raise ResultsError(f"{path} is missing, not a regular file, or corrupt (its checksum differs "
                           f"from the manifest)")
    rows = read_part(path).to_pylist()
    if len(rows) != 1:
        raise ResultsError(f"{path} holds {len(rows)} rows, not the one of a played game")
    return _row_deal(rows[0], path)
