"""The games. Importing this package registers every game with OpenSpiel."""

from cardlab.games import kaiser  # noqa: F401  (registers cardlab_kaiser)
