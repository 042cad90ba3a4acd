"""The PIMC agent as a ``pyspiel.Bot``: the native kernel, or worlds until a clock budget is spent."""

from __future__ import annotations

import textwrap
import time
from typing import Any

import numpy as np
import pyspiel

from cardlab.agents.checks import check_can_move
from cardlab.agents.pimc import search
from cardlab.agents.pimc.options import OPTIONS
from cardlab.core.interrupt import StopRequest, deferred_interrupts
from cardlab.core.layout import DECK, TO_MOVE
from cardlab.core.rng import make_stream
from cardlab.games import game_spec, kernels
from cardlab.games.double_dummy import STANDARD_DECKS, UNMODELLED_VARIANTS, is_play_phase
from cardlab.solver.solve import game_id_of

WORLDS_PER_CHUNK = 4  # worlds between clock checks under time_ms


def check_pimc_game(game: pyspiel.Game) -> int:
    """The solver's id of ``game``; ValueError unless it is four-player Kaiser or Twenty-Eight it models."""
    name = game.get_type().short_name
    game_id = game_id_of(name)
    if game.num_players() != 4 or game.new_initial_state().array[DECK] != STANDARD_DECKS[game_id]:
        raise ValueError("pimc needs the standard four-player game and deck (the solver's)")
    parameters = game.get_parameters()
    unmodelled = [key for key in UNMODELLED_VARIANTS[game_id] if parameters.get(key)]
    if unmodelled:
        raise ValueError(f"pimc: the double-dummy solver does not model {', '.join(unmodelled)}")
    return game_id


class PIMCBot(pyspiel.Bot):
    """Perfect Information Monte Carlo over the double-dummy solver (:mod:`cardlab.agents.pimc.search`).

    With ``worlds`` the bot calls the very kernel the compiled arena calls,
    so a seed gives the same game on either loop; with ``time_ms`` it solves
    worlds until the budget is spent (results depend on the machine).
    """

    def __init__(self, game: pyspiel.Game, player: int, seed: int = 0, **options: Any):
        pyspiel.Bot.__init__(self)
        self.game = game
        self.game_id = check_pimc_game(game)
        self.options = OPTIONS.resolve(options, game_spec(game.get_type().short_name))
        self.row = self.options.row()
        self.player = player
        self._stream = make_stream(seed)
        self._scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
        self.last_worlds = 0

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def step(self, state: pyspiel.State) -> int:
        check_can_move("pimc", self.game, self.player, state)
        s = state.array
        time_ms = self.options["time_ms"]
        if time_ms is None or not is_play_phase(self.game_id, s):
            with deferred_interrupts():  # one kernel call: Ctrl-C waits for it, never cuts into it
                action = int(search.decide(self.game_id, self.row, s, self._stream, self._scratch))
        else:
            action = self._timed_play(state, time_ms)
        if action not in state.legal_actions():
            raise RuntimeError(f"pimc chose illegal action {action}")
        return action

    def _timed_play(self, state: pyspiel.State, time_ms: float) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        deadline = time.perf_counter() + time_ms / 1000.0
        entries, counters, scratch = search.new_search_memory()
        sums = np.zeros(search.MAX_ACTIONS, dtype=np.float64)
        worlds = 0
        with StopRequest() as stop:
            while worlds == 0 or time.perf_counter() < deadline:
                stop.check()
                search.add_world_values(self.game_id, state.array, int(state.array[TO_MOVE]),
                                        WORLDS_PER_CHUNK, self._stream, entries, counters, scratch, sums)
                worlds += WORLDS_PER_CHUNK
        self.last_worlds = worlds
        return legal[int(np.argmax(sums[:len(legal)]))]


def make_pimc(game: pyspiel.Game, player: int, seed: int, **options: Any) -> PIMCBot:
    """A :class:`PIMCBot`; ``options`` are checked against :data:`OPTIONS`."""
    return PIMCBot(game, player, seed, **options)


PIMCBot.__doc__ += "\n" + textwrap.indent(OPTIONS.describe(), "    ") + "\n"
