"""ISMCTS in numba for every cardlab game: ``cardlab.agents.make("ismcts", game, player, seed, ...)``."""

from __future__ import annotations

import pyspiel

from cardlab.agents.ismcts.bot import ISMCTSBot
from cardlab.agents.options import reject_unknown_options

OPTIONS = ("simulations", "time_ms", "rollout", "exploration", "reuse_tree", "workers", "debug",
           "max_nodes", "world_pool", "epsilon", "widening", "rollout_depth")


def make_ismcts(game: pyspiel.Game, player: int, seed: int, **options) -> ISMCTSBot:
    reject_unknown_options("ismcts", options, OPTIONS)
    return ISMCTSBot(game, player, seed, **options)


__all__ = ["ISMCTSBot", "make_ismcts"]
