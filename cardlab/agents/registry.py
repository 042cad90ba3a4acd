"""Agents by name: ``make(name, game, player, seed, **options)``.

A factory is registered for a name and either one game (``"cardlab_kaiser"``)
or every game (``None``); the game-specific one wins. Factories take
``(game, player, seed, **options)`` and must reject options they do not know.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyspiel

Factory = Callable[..., pyspiel.Bot]
_FACTORIES: dict[tuple[str, str | None], Factory] = {}


def register(name: str, game_name: str | None = None) -> Callable[[Factory], Factory]:
    """Decorator: make ``factory`` available as agent ``name`` (for ``game_name`` or all games)."""

    def decorate(factory: Factory) -> Factory:
        _FACTORIES[(name, game_name)] = factory
        return factory

    return decorate


def agent_names(game_name: str | None = None) -> list[str]:
    """Agent names available for ``game_name`` (all names if None)."""
    return sorted({n for (n, g) in _FACTORIES if g is None or game_name in (None, g)})


def make(name: str, game: pyspiel.Game, player: int, seed: int = 0, **options: Any) -> pyspiel.Bot:
    """Create agent ``name`` playing seat ``player`` of ``game``."""
    import cardlab.agents.builtin  # noqa: F401  (registers the built-in agents)

    game_name = game.get_type().short_name
    factory = _FACTORIES.get((name, game_name)) or _FACTORIES.get((name, None))
    if factory is None:
        raise ValueError(
            f"unknown agent {name!r} for {game_name}; available: {', '.join(agent_names(game_name))}"
        )
    if not isinstance(player, int) or not 0 <= player < game.num_players():
        raise ValueError(f"player must be 0..{game.num_players() - 1}, got {player!r}")
    return factory(game, player, seed, **options)


def reject_unknown_options(agent: str, options: dict[str, Any], known: tuple[str, ...] = ()) -> None:
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(
            f"agent {agent!r}: unknown option(s) {', '.join(unknown)}"
            + (f"; known: {', '.join(known)}" if known else "; it takes no options")
        )
