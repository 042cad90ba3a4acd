"""Kaiser: Canadian partnership trick-taking with the +5 heart and the -3 spade."""

from cardlab.games.kaiser.game import GAME_NAME, KAISER_ENGINE, KaiserGame, KaiserState

__all__ = ["GAME_NAME", "KAISER_ENGINE", "KaiserGame", "KaiserState"]
