"""ISMCTS in numba for every cardlab game: ``cardlab.agents.make("ismcts", game, player, seed, ...)``."""

from __future__ import annotations

from typing import Any

import pyspiel

from cardlab.agents.ismcts.bot import ISMCTSBot
from cardlab.agents.ismcts.options import OPTIONS, uses_network


def make_ismcts(game: pyspiel.Game, player: int, seed: int, **options: Any) -> ISMCTSBot:
    """An :class:`ISMCTSBot`; ``options`` are checked against :data:`OPTIONS`."""
    return ISMCTSBot(game, player, seed, **options)


def runs_compiled(given: dict[str, Any]) -> bool:
    """The compiled arena plays ``ismcts`` with its row's options and its models (loaded as tables)."""
    return OPTIONS.runs_compiled({name: value for name, value in given.items()
                                  if name not in ("model", "inference_model")})


__all__ = ["OPTIONS", "ISMCTSBot", "make_ismcts", "runs_compiled", "uses_network"]
