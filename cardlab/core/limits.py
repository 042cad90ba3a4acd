"""The one rule for numbers a person gives cardlab: seeds and counts, checked before any work.

A seed is an unsigned 64-bit integer, 0 to 2**64 - 1, and is never reduced
modulo anything. Every count (deals, worlds, simulations, iterations, ...)
has a documented maximum that one machine can serve in memory; a larger
value is refused with a ``ValueError`` naming it and the allowed range before
a kernel is compiled or a file written, instead of exhausting the memory or
the session later. The maxima are here, once, for the command line, the web
server and the library functions alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Seeds are unsigned 64-bit integers: 0 .. MAX_SEED - 1.
MAX_SEED = 2**64

#: Duplicate deals of a tournament or a demo match (a tournament's manifest lists its chunks).
MAX_DEALS = 10**9
#: Chunks of a tournament: the list of pending chunks and the manifest stay small.
MAX_CHUNKS = 1_000_000
#: Worker processes of any command.
MAX_WORKERS = 256
#: Reruns of a search at each of its decisions (``cardlab report --estimator aivat --search-draws``).
MAX_SEARCH_DRAWS = 1_000
#: Worlds of ``cardlab advise``: each is kept as a state and played out after every choice.
MAX_WORLDS = 100_000
#: ISMCTS simulations of a ``hint`` (the tree grows by one node per simulation, about 80 bytes).
MAX_HINT_SIMULATIONS = 1_000_000
#: Iterations of ``cardlab train`` (and its ``--merge-every``).
MAX_ITERATIONS = 10**12
#: Checkpoints of one ``cardlab train`` run.
MAX_CHECKPOINTS = 100_000
#: Bootstrap resamples of ``cardlab report``.
MAX_RESAMPLES = 100_000
#: A deal, seating or move number read from a results folder (an Arrow int64 column).
MAX_INDEX = 2**63 - 1


def is_integer(value: Any) -> bool:
    """An ``int`` or numpy integer, never a ``bool`` (``True`` is not the seed 1)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def check_seed(value: Any, what: str = "seed") -> int:
    """``value`` as a seed, else ``ValueError``: an integer from 0 to 2**64 - 1."""
    if not is_integer(value) or not 0 <= value < MAX_SEED:
        raise ValueError(f"{what} must be an integer from 0 to 2**64 - 1, got {_shown(value)}")
    return int(value)


def check_count(value: Any, what: str, high: int, low: int = 1) -> int:
    """``value`` as a count in ``low..high``, else ``ValueError`` naming ``what`` and the range."""
    if not is_integer(value) or not low <= value <= high:
        wanted = (f"a positive integer up to {high:,}" if low == 1
                  else f"an integer from {low:,} to {high:,}")
        raise ValueError(f"{what} must be {wanted}, got {_shown(value)}")
    return int(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
