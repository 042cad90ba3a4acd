"""One node of the search: a row of the scratch array the search walks as its stack.

numba cannot cache recursive kernels, so the search keeps its own stack: one
row per card played, plus the root (:func:`new_scratch`). Columns
``0..MOVE_SLOTS-1`` hold the node's moves, the next ``MOVE_SLOTS`` their
ordering scores, the rest the node's fields (``NODE_*``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.core.search_cards import CARDS_PER_SUIT

MAX_DEPTH = 33  # one row of move scratch per card played, plus the root


# Columns 0..7 hold the node's moves, 8..15 their ordering scores; the rest are the node's
# fields. The search walks the tree with an explicit stack of these rows (numba cannot
# cache recursive kernels), addressed as ``scratch[d, column]`` (a row view would be a new
# array, reference counted). NODE_RANKS is the node's *winning ranks*: the cards whose
# ranks its value depended on (a position agreeing on them, and on everything the table
# key fixes, has the same bound).
MOVE_SLOTS = CARDS_PER_SUIT  # a hand holds at most eight cards
(NODE_SIZE, NODE_LEADER, NODE_TRICKS_LEFT, NODE_TRUMPS_FROM, NODE_ALPHA, NODE_BETA,
 NODE_WINDOW_ALPHA, NODE_WINDOW_BETA, NODE_BEST, NODE_BEST_MOVE, NODE_COUNT, NODE_NEXT,
 NODE_SLOT, NODE_KEY_LOW, NODE_KEY_HIGH, NODE_FIXED_LOW, NODE_FIXED_HIGH, NODE_LENGTHS, NODE_TAG,
 NODE_GAINED, NODE_BEST_POSITION, NODE_TRICK_POINTS, NODE_RANKS, NODE_TRICK_RANK,
 NODE_SKIPPED, NODE_LIVE, NODE_ASKED_ALPHA, NODE_ASKED_BETA, NODE_LOWER_MASKS) = range(2 * MOVE_SLOTS,
                                                                                   2 * MOVE_SLOTS + 29)
# The winning-ranks masks (two words) of the table entries whose lower and upper bounds narrowed the window.
NODE_UPPER_MASKS = NODE_LOWER_MASKS + 2
NODE_SAVED = NODE_UPPER_MASKS + 2
NODE_WIDTH = NODE_SAVED + 3  # the three cards of a finished trick, kept while the next is searched


@njit(cache=True)
def new_scratch():
    """The stack of nodes a search walks: one row per card played, plus the root."""
    return np.zeros((MAX_DEPTH, NODE_WIDTH), dtype=np.int64)
