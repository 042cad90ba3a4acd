"""Agents by name: ``make(name, game, player, seed, **options)``.

The built-in agents are :data:`BUILTIN_AGENTS`, read from the one table of
:mod:`cardlab.agents.builtin`; every one of them plays every cardlab game
(each game's spec names its rule-based player and its search defaults), but
``pimc``, which plays the games of the double-dummy solver (Kaiser and
Twenty-Eight) and refuses the others, and ``cfr-bidding``, which bids in the
auctions of Kaiser and Twenty-Eight. Outside code adds agents with
:func:`register`, for one game (``"cardlab_kaiser"``) or every game
(``None``); a game-specific factory wins over a general one. A factory takes
``(game, player, seed, **options)`` and must reject options it does not know.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from cardlab.agents.builtin import BUILTIN, Factory

#: The agents cardlab ships, by name.
BUILTIN_AGENTS: dict[str, Factory] = {name: agent.factory for name, agent in BUILTIN.items()}
_REGISTERED: dict[tuple[str, str | None], Factory] = {}


def register(name: str, game_name: str | None = None) -> Callable[[Factory], Factory]:
    """Decorator: make ``factory`` available as agent ``name`` (for ``game_name`` or all games)."""

    def decorate(factory: Factory) -> Factory:
        _REGISTERED[(name, game_name)] = factory
        return factory

    return decorate


def agent_names(game_name: str | None = None) -> list[str]:
    """Agent names available for ``game_name`` (all names if None)."""
    registered = {n for (n, g) in _REGISTERED if g is None or game_name in (None, g)}
    return sorted(set(BUILTIN_AGENTS) | registered)


def _factory(name: str, game_name: str) -> Factory | None:
    return (_REGISTERED.get((name, game_name)) or _REGISTERED.get((name, None))
            or BUILTIN_AGENTS.get(name))


def make(name: str, game: pyspiel.Game, player: int, seed: int = 0, **options: Any) -> pyspiel.Bot:
    """Create agent ``name`` playing seat ``player`` of ``game``."""
    game_name = game.get_type().short_name
    factory = _factory(name, game_name)
    if factory is None:
        raise ValueError(
            f"unknown agent {name!r} for {game_name}; available: {', '.join(agent_names(game_name))}"
        )
    if (isinstance(player, bool) or not isinstance(player, int | np.integer)
            or not 0 <= player < game.num_players()):
        raise ValueError(f"player must be 0..{game.num_players() - 1}, got {player!r}")
    return factory(game, int(player), seed, **options)
