"""Double-dummy solving of Kaiser and Twenty-Eight: exact play with every hand open.

* :func:`solve`: the value of a play-phase position and of each legal action;
* :func:`analyse`, :func:`analyse_many`, :func:`par`: the double-dummy table
  of deals (every declarer and strain) and the par contract;
* the search itself (:mod:`cardlab.solver.search`, each technique in its own
  module: ``rules``, ``table``, ``bounds``, ``ordering``, ``endings``,
  ``node``, and ``mtd`` for the entry points), its reading of the
  engines' states (:mod:`cardlab.solver.position`, through each game's part
  gathered in :mod:`cardlab.games.double_dummy`) and the reference
  searches over engine states (:mod:`cardlab.solver.engine_search`).

How it works and what it assumes: docs/solver.md.
"""

from cardlab.solver.analysis import (
    DoubleDummyTable,
    analyse,
    analyse_many,
    contract_points,
    deal_from_seed,
    par,
    parse_hands,
)
from cardlab.solver.solve import Solution, reference_points, solve

__all__ = [
    "DoubleDummyTable",
    "Solution",
    "analyse",
    "analyse_many",
    "contract_points",
    "deal_from_seed",
    "par",
    "parse_hands",
    "reference_points",
    "solve",
]
