"""cardlab: game-theory AI research for Literature, Kaiser and Twenty-Eight.

``import cardlab`` registers the games with OpenSpiel, so that
``pyspiel.load_game("cardlab_kaiser")`` works. :func:`load_game` does the same
by OpenSpiel name or alias (``"kaiser"``, ``"28"``) and checks the parameters
before OpenSpiel converts them, so every bad one is a ``ValueError``.
"""

from collections.abc import Mapping
from typing import Any

import pyspiel

from cardlab import _numba_cache

_numba_cache.configure()  # before any kernel is compiled or loaded

from cardlab.core.inlining import inline_once  # noqa: E402
from cardlab.core.optimizing import optimize_at_entry, quick_flag_values  # noqa: E402
from cardlab.core.specialize import compile_constants_once  # noqa: E402

compile_constants_once()  # a constant argument is no reason to compile a kernel again
inline_once()  # a small kernel inlined at many sites is no reason to compile it at each
optimize_at_entry()  # a kernel's whole program is optimized once, where Python calls it
quick_flag_values()  # numba's lookups compare flags by the thousand: a dict merge, not forty properties

from cardlab import games  # noqa: E402, F401

__version__ = "0.1.0"


def load_game(name: str, parameters: Mapping[str, Any] | None = None) -> pyspiel.Game:
    """The game called ``name`` (OpenSpiel name or alias) with ``parameters``, all checked."""
    return games.game_spec(name).load(parameters)
