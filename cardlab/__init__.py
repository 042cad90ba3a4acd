"""cardlab: game-theory AI research for Literature, Kaiser and Twenty-Eight.

``import cardlab`` registers the games with OpenSpiel, so that
``pyspiel.load_game("cardlab_kaiser")`` works.
"""

from cardlab import games  # noqa: F401

__version__ = "0.1.0"
