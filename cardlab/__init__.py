"""cardlab: game-theory AI research for Literature, Kaiser and Twenty-Eight.

``import cardlab`` registers the games with OpenSpiel, so that
``pyspiel.load_game("cardlab_kaiser")`` works.
"""

from cardlab import _numba_cache

_numba_cache.configure()  # before any kernel is compiled or loaded

from cardlab import games  # noqa: E402, F401

__version__ = "0.1.0"
