"""Literature: two alternating teams ask each other for cards and claim half-suits."""

from cardlab.games.literature.game import (
    GAME_NAME,
    LiteratureGame,
    LiteratureState,
    action_to_string,
    literature_engine,
)

__all__ = ["GAME_NAME", "LiteratureGame", "LiteratureState", "action_to_string",
           "literature_engine"]
