"""What the double-dummy solver needs of each game it solves, gathered by kernel id.

The solver (:mod:`cardlab.solver`) is written once for every game of four
seats, eight cards a suit and eight tricks; what it reads of a game's state
and how it scores a hand live in the game's folder
(``games/<game>/double_dummy.py``). This module gathers them: each kernel is a
table from kernel id to the game's own kernel (:func:`cardlab.core.specialize.by_key`),
so a solve called with a game's literal id compiles that game's kernels alone,
at no cost over a direct call; the Python-level facts are dicts keyed by
kernel id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cardlab.core.specialize import by_key
from cardlab.games.kaiser import double_dummy as kaiser
from cardlab.games.kernels import KAISER, TWENTY_EIGHT
from cardlab.games.twenty_eight import double_dummy as twenty_eight

_GAMES = {KAISER: kaiser, TWENTY_EIGHT: twenty_eight}
#: The games the solver plays, by OpenSpiel short name.
GAME_IDS = {"cardlab_kaiser": KAISER, "cardlab_twenty_eight": TWENTY_EIGHT}


def _per_game(name: str) -> dict[int, Any]:
    """What every game's module calls ``name``, by kernel id (each module has the same names)."""
    return {game: getattr(module, name) for game, module in _GAMES.items()}


def _kernel(name: str) -> Callable:
    return by_key(name, _per_game(name))


# ---- Kernels: reading a game's state ----------------------------------------------
#: ``team_points(game, s)``: team 0's points taken so far this hand.
team_points = _kernel("team_points")
#: ``hand_over(game, s)``: is the play of the hand over?
hand_over = _kernel("hand_over")
#: ``boundary_key(game, s)``: ``(hands..., tag part)``, what decides the rest of the hand at a
#: trick boundary.
boundary_key = _kernel("boundary_key")
#: ``at_boundary(game, s)``: is the state at a trick boundary?
at_boundary = _kernel("at_boundary")
#: ``game_tables(game, strain)``: ``(trump, search_card_of, card_of, points, trick_points)``.
game_tables = by_key("game_tables", _per_game("strain_tables"))
#: ``strain_of_state(game, s)``: the strain of the contract being played.
strain_of_state = _kernel("strain_of_state")
#: ``open_hands(game, s, hands)``: every seat's cards as the open solve sees them.
open_hands = _kernel("open_hands")
#: ``trick_in_progress(game, s)``: ``(size, leader, tricks_left, trumps_from, won, first)``.
trick_in_progress = _kernel("trick_in_progress")
#: ``is_play_phase(game, s)``: are cards being played?
is_play_phase = _kernel("is_play_phase")

# ---- Python-level facts, by kernel id --------------------------------------------
#: The points a whole hand distributes.
HAND_TOTALS = _per_game("HAND_TOTAL")
#: The standard four-player deck, the only one the solver plays.
STANDARD_DECKS = _per_game("STANDARD_DECK")
#: The first of the four state slots holding each seat's cards.
HANDS = _per_game("HANDS")
#: The cards dealt in one stage (dealing order restarts with each stage).
CARDS_PER_STAGE = _per_game("CARDS_PER_STAGE")
#: The strains of a deal's double-dummy table.
STRAINS = _per_game("STRAINS")
#: Does the declarer lead the first trick (else the seat after the dealer does)?
DECLARER_LEADS = _per_game("DECLARER_LEADS")
#: The game parameters a solve reads (it plays the standard deal and tricks).
SOLVED_PARAMETERS = _per_game("SOLVED_PARAMETERS")
#: Rule variants (boolean parameters) whose card play or trick values the solver does not model.
UNMODELLED_VARIANTS = _per_game("UNMODELLED_VARIANTS")
#: ``CONTRACTS[game](table_points, leaders, strains, dealer, min_bid)``: every contract of a
#: deal's table as ``(declarer, strain, value, rank, points, net)``.
CONTRACTS = _per_game("contracts")
#: Games whose engine rules differ from the open solve while the trump is hidden: the check that
#: those rules do not void the hand.
HIDDEN_TRUMP_CHECKS = {TWENTY_EIGHT: twenty_eight.check_hand_stands}


def hand_score(game: int, s: np.ndarray, points: tuple[int, int]) -> tuple[int, int]:
    """Each team's score of the hand of ``s`` if it ends with ``points`` (the engine's scoring)."""
    return _GAMES[game].hand_score(s, points)
