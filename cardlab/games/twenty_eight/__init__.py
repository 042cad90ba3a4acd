"""Twenty-Eight: Indian partnership trick-taking with a face-down trump indicator."""

from cardlab.games.twenty_eight.game import (
    GAME_NAME,
    TWENTY_EIGHT_ENGINE,
    TwentyEightGame,
    TwentyEightState,
)

__all__ = ["GAME_NAME", "TWENTY_EIGHT_ENGINE", "TwentyEightGame", "TwentyEightState"]
