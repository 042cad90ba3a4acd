"""What a bot checks before it moves: that the state is of its game and that it is its turn.

A bot made for one game and handed another game's state would read the state
array with the wrong layout (a compiled kernel can crash on it), and a bot
asked to move at a chance node, at the end or for another player would pick
from an empty or foreign list of actions. Both are caller errors, so both are
a ``ValueError`` that says what was asked.
"""

from __future__ import annotations

import pyspiel


def _node(state: pyspiel.State) -> str:
    if state.is_terminal():
        return "the end of the game"
    if state.is_chance_node():
        return "a chance node"
    return f"player {state.current_player()}'s turn"


def check_can_move(bot: str, game: pyspiel.Game, player: int, state: pyspiel.State) -> None:
    """Raise ``ValueError`` unless ``state`` is of ``game`` and waits for ``player`` to move."""
    state_game = state.get_game()
    if state_game is not game and state_game != game:
        raise ValueError(f"{bot} bot made for {game} cannot act on a state of {state_game}")
    if state.is_terminal() or state.is_chance_node() or state.current_player() != player:
        raise ValueError(f"{bot} bot for player {player} asked to move at {_node(state)}")
