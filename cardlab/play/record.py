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


# ---- a position: one decision of a stored or hand-written game -----------------------------------
POSITION_FORMAT = "cardlab-position/1"


@dataclass
class Position:
    """A game position and the seat to advise there, as a position file describes it."""

    state: pyspiel.State
    seat: int
    where: str  # "before move 40 of deal 0 in plays", "after the history in pos.json"


def _position_error(path: Path, text: str) -> ResultsError:
    return ResultsError(f"{path}: {text}")


def load_position(path: str | Path) -> Position:
    """The position a JSON position file names (format :data:`POSITION_FORMAT`).

    Either a stored game and a move of it (``"games"``: a folder of played
    games or a tournament, relative to the file; ``"deal"``, ``"seating"``,
    ``"move"``: the position before that move, 1-based), or a game written out
    (``"game"``, ``"parameters"``, ``"history"``: every action from the start,
    the deal's chance actions included). ``"seat"``, optional, is the seat to
    advise (default: the player to move).
    """
    import cardlab  # noqa: F401  (registers the games)
    from cardlab.play.replay import Replay

    path = Path(path)
    try:
        spec = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise _position_error(path, f"not a readable position file ({type(error).__name__})") from error
    if not isinstance(spec, dict) or spec.get("format") != POSITION_FORMAT:
        raise _position_error(path, f"not a position file: expected \"format\": \"{POSITION_FORMAT}\"")
    if ("games" in spec) == ("history" in spec):
        raise _position_error(path, "give either \"games\" (a folder) with \"move\", or \"game\" with "
                                    "\"history\"")
    if "games" in spec:
        folder = path.parent / str(spec["games"])
        deal, seating = _integer(path, spec, "deal", 0), _integer(path, spec, "seating", 0)
        replay = Replay(load_deal(folder, deal, seating))
        move = _integer(path, spec, "move", None)
        if not 1 <= move <= len(replay) + 1:
            raise _position_error(path, f"\"move\" must be 1..{len(replay) + 1} (the end), got {move}")
        state = replay.state_before(move - 1)
        where = f"before move {move} of deal {replay.stored.deal} in {folder}"
    else:
        history = spec["history"]
        if not isinstance(history, list) or not all(isinstance(a, int) for a in history):
            raise _position_error(path, "\"history\" must be a list of action ids")
        try:
            game = pyspiel.load_game(str(spec.get("game", "")), dict(spec.get("parameters") or {}))
            state = game.new_initial_state()
            for step, action in enumerate(history):
                if action not in state.legal_actions():
                    raise _position_error(path, f"action {action} at step {step} of \"history\" is not legal")
                state.apply_action(action)
        except pyspiel.SpielError as error:
            raise _position_error(path, str(error).splitlines()[0]) from error
        where = f"after the history in {path}"
    seat = _integer(path, spec, "seat", state.current_player())
    if not 0 <= seat < state.num_players():
        raise _position_error(path, f"\"seat\" must be 0..{state.num_players() - 1}, got {seat}")
    return Position(state, seat, where)


def _integer(path: Path, spec: dict[str, Any], key: str, default: int | None) -> int:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _position_error(path, f"\"{key}\" must be an integer, got {value!r}")
    return value


def save_position(path: str | Path, state: pyspiel.State, seat: int | None = None) -> Path:
    """Write ``state`` (and the seat to advise) as a position file holding its whole history."""
    path = Path(path)
    game = state.get_game()
    spec: dict[str, Any] = {"format": POSITION_FORMAT, "game": game.get_type().short_name,
                            "parameters": dict(game.get_parameters()),
                            "history": [int(a) for a in state.history()]}
    if seat is not None:
        spec["seat"] = int(seat)
    path.write_text(json.dumps(spec) + "\n")
    return path
