"""Position files: one decision of a stored or hand-written game, for `advise` and `play --resume`.

A position file is JSON of format :data:`POSITION_FORMAT`. It names a move of
a stored game (a folder of played games or a tournament, read by
:mod:`cardlab.play.record` and replayed by :mod:`cardlab.play.replay`), or
writes a game out action by action. Every field is checked: a file is a
user's, and a bad one is a one-line error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyspiel

from cardlab.core.limits import is_integer
from cardlab.games import game_spec
from cardlab.play.record import load_deal
from cardlab.play.replay import Replay
from cardlab.results import ResultsError, write_json_atomically

POSITION_FORMAT = "cardlab-position/1"


#: The keys a position file may have (:func:`load_position`).
POSITION_KEYS = ("format", "games", "deal", "seating", "move", "game", "parameters", "history", "seat",
                 "table")
#: The keys of a position file's ``table``: who sat where, to go on playing (``cardlab play --resume``).
TABLE_KEYS = {"seed": int, "partner": str, "opponents": str, "hint_simulations": int}


@dataclass
class Position:
    """A game position and the seat to advise there, as a position file describes it.

    ``table`` is the unfinished game's table, when the file was written by
    ``cardlab play`` on leaving a game: its deal seed and agents.
    """

    state: pyspiel.State
    seat: int
    where: str  # "before move 40 of deal 0 in plays", "after the history in pos.json"
    table: dict[str, Any] | None = None


def _position_error(path: Path, text: str) -> ResultsError:
    return ResultsError(f"{path}: {text}")


def load_position(path: str | Path) -> Position:
    """The position a JSON position file names (format :data:`POSITION_FORMAT`), every field checked.

    Either a stored game and a move of it (``"games"``: a folder of played
    games or a tournament, relative to the file; ``"deal"``, ``"seating"``,
    ``"move"``: the position before that move, 1-based), or a game written out
    (``"game"``, ``"parameters"``, ``"history"``: every action from the start,
    the deal's chance actions included). ``"seat"``, optional, is the seat to
    advise (default: the player to move). A file is a user's: any key, type or
    action that is not as described is a one-line ``ResultsError``.
    """
    path = Path(path)
    try:
        spec = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, RecursionError, json.JSONDecodeError) as error:
        raise _position_error(path, f"not a readable position file ({type(error).__name__})") from error
    if not isinstance(spec, dict) or spec.get("format") != POSITION_FORMAT:
        raise _position_error(path, f"not a position file: expected \"format\": \"{POSITION_FORMAT}\"")
    unknown = sorted(set(spec) - set(POSITION_KEYS))
    if unknown:
        raise _position_error(path, f"unknown key(s) {', '.join(unknown)}; known: {', '.join(POSITION_KEYS)}")
    if ("games" in spec) == ("history" in spec):
        raise _position_error(path, "give either \"games\" (a folder) with \"move\", or \"game\" with "
                                    "\"history\"")
    if "games" in spec:
        if not isinstance(spec["games"], str) or not spec["games"]:
            raise _position_error(path, f"\"games\" must be a folder name, got {_shown(spec['games'])}")
        folder = path.parent / spec["games"]
        deal, seating = _integer(path, spec, "deal", 0), _integer(path, spec, "seating", 0)
        try:
            replay = Replay(load_deal(folder, deal, seating))
        except ValueError as error:
            raise _position_error(path, str(error).splitlines()[0]) from error
        move = _integer(path, spec, "move", None)
        if not 1 <= move <= len(replay) + 1:
            raise _position_error(path, f"\"move\" must be 1..{len(replay) + 1} (the end), got {move}")
        state = replay.state_before(move - 1)
        where = f"before move {move} of deal {replay.stored.deal} in {folder}"
    else:
        state = _written_out(path, spec)
        where = f"after the history in {path}"
    seat = _integer(path, spec, "seat", state.current_player())
    if not 0 <= seat < state.num_players():
        raise _position_error(path, f"\"seat\" must be 0..{state.num_players() - 1}, got {seat}")
    return Position(state, seat, where, _table(path, spec.get("table")))


def _written_out(path: Path, spec: dict[str, Any]) -> pyspiel.State:
    """The state of a game written out: ``game``, ``parameters`` and every action of ``history``."""
    name, parameters, history = spec.get("game"), spec.get("parameters", {}), spec["history"]
    if not isinstance(name, str):
        raise _position_error(path, f"\"game\" must be a game's name, got {_shown(name)}")
    if not isinstance(parameters, dict) or not all(
            isinstance(value, bool | int | float | str) for value in parameters.values()):
        raise _position_error(path, f"\"parameters\" must be an object of numbers, booleans and strings, "
                                    f"got {_shown(parameters)}")
    if not isinstance(history, list) or not all(is_integer(action) for action in history):
        raise _position_error(path, "\"history\" must be a list of action ids (integers)")
    try:
        game = game_spec(name).load(parameters)
    except (ValueError, TypeError, OverflowError, RuntimeError, pyspiel.SpielError) as error:
        raise _position_error(path, str(error).splitlines()[0]) from error
    state = game.new_initial_state()
    for step, action in enumerate(history):
        if state.is_terminal() or action not in state.legal_actions():
            raise _position_error(path, f"action {_shown(action)} at step {step} of \"history\" is not legal")
        state.apply_action(action)
    return state


def _table(path: Path, table: Any) -> dict[str, Any] | None:
    if table is None:
        return None
    if not isinstance(table, dict) or set(table) != set(TABLE_KEYS) or not all(
            isinstance(table[key], kind) and not isinstance(table[key], bool)
            for key, kind in TABLE_KEYS.items()):
        raise _position_error(path, f"\"table\" must have {', '.join(TABLE_KEYS)} (integers and agent "
                                    f"specs), got {_shown(table)}")
    return dict(table)


def _integer(path: Path, spec: dict[str, Any], key: str, default: int | None) -> int:
    value = spec.get(key, default)
    if not is_integer(value):
        raise _position_error(path, f"\"{key}\" must be an integer, got {_shown(value)}")
    return int(value)


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def save_position(path: str | Path, state: pyspiel.State, seat: int | None = None,
                  table: dict[str, Any] | None = None) -> Path:
    """Write ``state`` (and the seat to advise, the game's table) as a position file of its whole history.

    Written atomically: a kill while writing leaves the old file or none, never half of one.
    """
    path = Path(path)
    game = state.get_game()
    spec: dict[str, Any] = {"format": POSITION_FORMAT, "game": game.get_type().short_name,
                            "parameters": dict(game.get_parameters()),
                            "history": [int(a) for a in state.history()]}
    if seat is not None:
        spec["seat"] = int(seat)
    if table is not None:
        spec["table"] = table
    write_json_atomically(path, spec)
    return path
