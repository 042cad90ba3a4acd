"""Each game's contract choice from solved worlds, gathered by game for PIMC's simulation bidding.

A game whose bids PIMC weighs on sampled worlds (:mod:`cardlab.agents.pimc.search`)
says in ``games/<game>/contract_choice.py`` which auction choices it weighs, what
the worlds need dealt and solved (the leader, the strains), and how its rules
turn the team's double-dummy points of each world into a bid, a trump or a
raise. The kernels here are tables by game kernel id
(:func:`cardlab.core.specialize.by_key`), so a literal game id compiles one
game's bidding alone: a Kaiser agent never compiles Twenty-Eight's.
"""

from __future__ import annotations

import numpy as np

from cardlab.core.specialize import by_key
from cardlab.games.kaiser import contract_choice as kaiser
from cardlab.games.kernels import KAISER, TWENTY_EIGHT
from cardlab.games.twenty_eight import contract_choice as twenty_eight

_GAMES = {KAISER: kaiser, TWENTY_EIGHT: twenty_eight}

#: Columns of a game's points table (its strains), by kernel id.
STRAINS = np.array([_GAMES[game].STRAINS for game in sorted(_GAMES)], dtype=np.int64)


def _per_game(name: str):
    return by_key(name, {game: getattr(module, name) for game, module in _GAMES.items()})


#: ``bids_by_simulation(game, s)``: is ``s`` an auction choice (a bid, a trump, a raise) the
#: simulation makes?
bids_by_simulation = _per_game("bids_by_simulation")
#: ``choice_without_worlds(game, s, stream)``: the action when no world needs weighing, else -1.
choice_without_worlds = _per_game("choice_without_worlds")
#: ``worlds_to_solve(game, s)``: ``(leader, strains)``, who leads the solved hands and the strains
#: (a bit each) the choice may be played in.
worlds_to_solve = _per_game("worlds_to_solve")
#: ``deal_to_the_end(game, world, hands, stream)``: deal a sampled world's undealt cards into its
#: open ``hands``; returns the world's trump suit (-1 where none is placed).
deal_to_the_end = _per_game("deal_to_the_end")
#: ``choose_contract(game, s, points, trumps)``: the choice of the seat to move from its team's
#: ``points[w, strain]`` of each world ``w`` (``trumps[w]``: the world's trump).
choose_contract = _per_game("choose_contract")
