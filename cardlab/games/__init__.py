"""The games. Importing this package registers every game with OpenSpiel."""

# Each import registers one game: cardlab_kaiser, cardlab_literature, cardlab_twenty_eight.
from cardlab.games import kaiser, literature, twenty_eight  # noqa: F401
