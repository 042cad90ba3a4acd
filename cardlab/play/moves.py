"""Typed moves: what a person writes at the prompt, read as an action id.

The words are the games' own action strings (``state.action_to_string``,
docs/actions.md), so a move is typed as the log prints it. A few shorthands
drop a word the context makes clear: ``7NT`` for ``bid 7NT``, ``H`` for
``trump H``, ``KC`` for Twenty-Eight's ``trump KC`` indicator, ``P2`` for a
claim's ``assign P2``, ``call`` for ``call trump``; ``10H`` is ``TH``. Case
and spacing do not matter.
"""

from __future__ import annotations

import re

import pyspiel

#: Words a move may leave out, tried in this order.
IMPLIED_WORDS = ("", "bid ", "trump ", "assign ")
#: How many legal moves an error lists before "...".
SHOWN_MOVES = 16


class MoveError(ValueError):
    """A typed move that is unknown, ambiguous or illegal now, with the reason in one line."""


def normal(text: str) -> str:
    """Upper case, single spaces, ``10H`` written ``TH``."""
    words = text.upper().split()
    return " ".join(re.sub(r"^10([CDHS])$", r"T\1", word) for word in words)


def legal_moves(state: pyspiel.State) -> dict[str, int]:
    """The legal actions of the player to move, by their normalised strings."""
    player = state.current_player()
    return {normal(state.action_to_string(player, a)): a for a in state.legal_actions()}


def listed(moves: list[str], limit: int = SHOWN_MOVES) -> str:
    shown = ", ".join(moves[:limit])
    return shown + (f", ... ({len(moves)} in all)" if len(moves) > limit else "")


def parse_move(state: pyspiel.State, text: str) -> int:
    """The legal action ``text`` names, or ``MoveError`` saying why there is none."""
    wanted = normal(text)
    if not wanted:
        raise MoveError("type a move, or help")
    moves = legal_moves(state)
    for word in IMPLIED_WORDS:
        action = moves.get(normal(word + wanted))
        if action is not None:
            return action
    starting = [name for name in moves if name.startswith(wanted + " ")]
    if len(starting) == 1:
        return moves[starting[0]]
    player = state.current_player()
    strings = [state.action_to_string(player, a) for a in state.legal_actions()]
    if starting:
        meant = [name for name in strings if normal(name) in starting]
        raise MoveError(f"{text.strip()!r} is more than one move: {listed(meant)}")
    known = _known_move(state, wanted)
    if known is not None:
        raise MoveError(f"{known} is not a legal move now; legal: {listed(strings)}")
    raise MoveError(f"unknown move {text.strip()!r}; legal: {listed(strings)} (or help)")


def _known_move(state: pyspiel.State, wanted: str) -> str | None:
    """The string of the action ``wanted`` names among all the game's actions, legal or not."""
    names = _every_move(state.get_game(), state.current_player())
    for word in IMPLIED_WORDS:
        name = names.get(normal(word + wanted))
        if name is not None:
            return name
    return None


_EVERY_MOVE: dict[tuple[str, int], dict[str, str]] = {}


def _every_move(game: pyspiel.Game, player: int) -> dict[str, str]:
    """Every action string of ``player`` in ``game`` (as at the start of a game), by its normal form.

    Built once per game and seat: Literature alone has over a thousand action ids.
    """
    key = (str(game), player)
    if key not in _EVERY_MOVE:
        start = game.new_initial_state()
        names = {}
        for action in range(game.num_distinct_actions()):
            try:
                name = start.action_to_string(player, action)
            except (ValueError, pyspiel.SpielError):
                continue
            names.setdefault(normal(name), name)
        _EVERY_MOVE[key] = names
    return _EVERY_MOVE[key]
