"""PIMC for Kaiser and Twenty-Eight: ``cardlab.agents.make("pimc", game, player, seed, ...)``."""

from __future__ import annotations

from cardlab.agents.pimc.bot import PIMCBot, check_pimc_game, make_pimc
from cardlab.agents.pimc.options import OPTIONS

__all__ = ["OPTIONS", "PIMCBot", "check_pimc_game", "make_pimc"]
