"""The games, and the table of their specs.

Importing this package registers every game with OpenSpiel
(``cardlab_kaiser``, ``cardlab_twenty_eight``, ``cardlab_literature``).
:data:`SPECS` is the one list of games the rest of cardlab reads; a new game
adds its :class:`~cardlab.games.spec.GameSpec` here.
"""

from __future__ import annotations

import pyspiel

from cardlab.games.kaiser.spec import SPEC as KAISER
from cardlab.games.literature.spec import SPEC as LITERATURE
from cardlab.games.spec import GameSpec
from cardlab.games.twenty_eight.spec import SPEC as TWENTY_EIGHT

SPECS: tuple[GameSpec, ...] = (KAISER, TWENTY_EIGHT, LITERATURE)
_BY_NAME = {spec.name: spec for spec in SPECS} | {
    alias: spec for spec in SPECS for alias in spec.aliases
}


def game_spec(name: str) -> GameSpec:
    """The spec of a game by its OpenSpiel name (``cardlab_kaiser``) or alias (``kaiser``, ``28``)."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        choices = ", ".join(alias for spec in SPECS for alias in spec.aliases)
        raise ValueError(f"unknown game {name!r}; choose from {choices}") from None


def game_names() -> list[str]:
    """The OpenSpiel names of every cardlab game."""
    return [spec.name for spec in SPECS]


def seat_sides(game: pyspiel.Game) -> list[int]:
    """The side each seat of ``game`` scores with (what duplicate seatings rotate).

    A cardlab game asks its engine; any other game (``kuhn_poker``, ...) is
    taken to seat two sides by parity, as two-player games do.
    """
    name = game.get_type().short_name
    if name in _BY_NAME:
        return _BY_NAME[name].seat_sides(game)
    return [seat % 2 for seat in range(game.num_players())]


__all__ = ["SPECS", "GameSpec", "game_names", "game_spec", "seat_sides"]
