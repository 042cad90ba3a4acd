"""``cardlab replay``: a stored deal, move by move, forward and back.

Any deal of a tournament folder (``--deal``, ``--seating``) or any game saved
by ``cardlab play`` is rebuilt by replaying its actions through the rules.
Each step shows the position, with every hand open or as one seat saw it
(``--seat``), then the move made there, who made it and, where the game
recorded them, the agent's search statistics.
"""

from __future__ import annotations

from collections.abc import Callable

import pyspiel
from rich.console import Console

from cardlab.play.record import StoredDeal
from cardlab.play.session import MoveMade
from cardlab.play.table import render

KEYS = "Enter or n: next move, b: back, a number: go to that move, s: start, e: end, q: quit"


class Replay:
    """The positions of a stored deal where a player moved, and the move made at each."""

    def __init__(self, stored: StoredDeal):
        self.stored = stored
        self.game = stored.load_game()
        state = self.game.new_initial_state()
        self.moves: list[int] = []  # index in the history of each player's move
        for i, action in enumerate(stored.actions):
            if not state.is_chance_node():
                self.moves.append(i)
            try:
                state.apply_action(action)
            except (ValueError, pyspiel.SpielError) as error:
                raise ValueError(f"deal {stored.deal}: action {action} at step {i} is illegal; "
                                 f"the stored game does not follow the rules") from error
        self.final = state

    def __len__(self) -> int:
        return len(self.moves)

    def state_before(self, step: int) -> pyspiel.State:
        """The position before move ``step`` (``len(self)``: the end of the game)."""
        upto = self.moves[step] if step < len(self.moves) else len(self.stored.actions)
        return self.game.replay(self.stored.actions[:upto])

    def move(self, step: int) -> MoveMade:
        """Move ``step``: who made it, the log's string, and the search note where one was recorded."""
        state = self.state_before(step)
        player = state.current_player()
        action = self.stored.actions[self.moves[step]]
        note = self.stored.notes[self.moves[step]] if self.moves[step] < len(self.stored.notes) else ""
        return MoveMade(player, state.action_to_string(player, action), note)

    def move_text(self, step: int) -> str:
        move = self.move(step)
        text = (f"move {step + 1}/{len(self)}: P{move.player} ({self.stored.seat_agents[move.player]}) "
                f"{move.text}")
        return text + (f"   search: {move.note}" if move.note else "")

    def show(self, console: Console, step: int, seat: int | None) -> None:
        state = self.state_before(step)
        if seat is None or step == len(self):
            console.print(str(state), highlight=False)
        else:
            render(console, state, seat, f"P{seat}'s view", [])
        if step < len(self):
            console.print(self.move_text(step), highlight=False)
        else:
            returns = ", ".join(f"P{p} {r:+g}" for p, r in enumerate(self.stored.returns))
            console.print(f"end of the deal: returns {returns}", highlight=False)


def header(stored: StoredDeal) -> str:
    seats = ", ".join(f"P{seat} {label}" for seat, label in enumerate(stored.seat_agents))
    return (f"{stored.game} deal {stored.deal}, seating {stored.seating} (deal seed {stored.deal_seed}): "
            f"{seats}")


def run_replay(stored: StoredDeal, seat: int | None, every_step: bool, ask: Callable[[str], str] = input,
               console: Console | None = None) -> None:
    """Step through ``stored``: every step at once (``every_step``), or as the keys typed ask."""
    console = console or Console()
    replay = Replay(stored)
    if seat is not None and not 0 <= seat < replay.game.num_players():
        raise ValueError(f"--seat must be 0..{replay.game.num_players() - 1}, got {seat}")
    console.print(header(stored), highlight=False)
    if every_step:
        for step in range(len(replay) + 1):
            replay.show(console, step, seat)
        return
    console.print(KEYS)
    step = 0
    while True:
        replay.show(console, step, seat)
        try:
            key = ask("replay> ").strip().lower()
        except EOFError:
            return
        if key == "q":
            return
        target = {"": step + 1, "n": step + 1, "b": step - 1, "s": 0, "e": len(replay)}.get(key)
        if target is None and key.isdigit():
            target = int(key) - 1
        if target is None:
            console.print(f"unknown key {key!r}; {KEYS}")
            continue
        step = min(max(target, 0), len(replay))
