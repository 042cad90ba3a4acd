"""ISMCTS in numba for every cardlab game: ``cardlab.agents.make("ismcts", game, player, seed, ...)``."""

from __future__ import annotations

from typing import Any

import pyspiel

from cardlab.agents.ismcts.bot import ISMCTSBot
from cardlab.agents.ismcts.options import OPTIONS


def make_ismcts(game: pyspiel.Game, player: int, seed: int, **options: Any) -> ISMCTSBot:
    """An :class:`ISMCTSBot`; ``options`` are checked against :data:`OPTIONS`."""
    return ISMCTSBot(game, player, seed, **options)


__all__ = ["OPTIONS", "ISMCTSBot", "make_ismcts"]
