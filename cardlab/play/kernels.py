"""The compiled loops behind ``cardlab advise``: many deals played on from one position.

Kept apart from the Python around them so that the numba cache (keyed by
the sources of every module that imports numba) does not change with it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardlab.agents.pimc.search import TABLE_BITS, new_search_memory
from cardlab.arena.native import agent_action, seed_stream
from cardlab.core.engine import CHANCE_PLAYER, TERMINAL_PLAYER
from cardlab.core.layout import TO_MOVE, team_of
from cardlab.core.rng import derive_seed, random_below
from cardlab.games import kernels
from cardlab.games.double_dummy import is_play_phase
from cardlab.solver.rules import ALL_TECHNIQUES
from cardlab.solver.solve import open_action_values


@njit(cache=True)
def double_dummy_action(game, s, entries, counters, scratch, actions, values):
    """The legal action best for the mover's team with every hand open (the first of equals).

    ``entries`` is the transposition table of this hand's solves: positions
    later in the same hand are found in it, so a hand played out this way
    costs about one full solve.
    """
    n = open_action_values(game, s, ALL_TECHNIQUES, entries, counters, scratch, actions, values)
    sign = 1 if team_of(s[TO_MOVE]) == 0 else -1
    best = 0
    for i in range(1, n):
        if sign * values[i] > sign * values[best]:
            best = i
    return actions[best]


@njit(cache=True)
def play_out(game, allowed, s, kinds, options, deal_seed, double_dummy=False):
    """Play ``s`` to the end in place, seat ``p`` by agent ``kinds[p]`` with ``options[p]``.

    ``allowed`` is the bit set of the kinds (:func:`cardlab.arena.native.agent_kinds`).
    Chance draws from the stream of ``deal_seed`` and seat ``p`` from that of
    ``derive_seed(deal_seed, 1 + p)``: the same seed gives the
    same cards and the same agents' draws whatever happened before (common
    random numbers). With ``double_dummy`` every decision of the play phase
    is instead the double-dummy best (:func:`double_dummy_action`): the agents
    bid and name trump, the cards are played perfectly with all hands open.
    Returns False if an agent chose an illegal action.
    """
    legal = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    scratch = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    # A table only where it is used: advice without double dummy plays thousands of hands.
    entries, counters, search_scratch = new_search_memory(TABLE_BITS if double_dummy else 0)
    solved_values = np.empty(kernels.MAX_LEGAL_ACTIONS, dtype=np.int64)
    chance = np.zeros(1, dtype=np.uint64)
    seed_stream(chance, deal_seed)
    streams = np.zeros((kinds.shape[0], 1), dtype=np.uint64)
    for seat in range(kinds.shape[0]):
        seed_stream(streams[seat], derive_seed(deal_seed, 1 + seat))
    while True:
        player = kernels.current_player(game, s)
        if player == TERMINAL_PLAYER:
            return True
        n = kernels.legal_actions(game, s, legal)
        if player == CHANCE_PLAYER:
            action = legal[random_below(chance, n)]
        elif double_dummy and is_play_phase(game, s):
            action = double_dummy_action(game, s, entries, counters, search_scratch, scratch,
                                         solved_values)
        else:
            action = agent_action(allowed, kinds[player], game, options[player], s, streams[player], scratch)
            found = False
            for i in range(n):
                found = found or legal[i] == action
            if not found:
                return False
        kernels.apply_action(game, s, action)


@njit(cache=True)
def play_out_choices(game, allowed, worlds, choices, kinds, options, seed, double_dummy=False,
                     first_world=0):
    """Each world played on after each choice: ``returns[w, c, seat]`` and the final states.

    World ``w`` uses the deal seed ``derive_seed(seed, first_world + w)`` after
    every choice, so the choices are compared on the same cards and the same
    agents' draws, and a pool played in slices (``first_world`` the slice's
    start) gives what one call gives. ``ok[w, c]`` is False where an agent
    chose an illegal action.
    """
    num_worlds, size = worlds.shape
    num_choices = choices.shape[0]
    num_players = kinds.shape[0]
    returns = np.zeros((num_worlds, num_choices, num_players), dtype=np.float64)
    finals = np.zeros((num_worlds, num_choices, size), dtype=np.int64)
    ok = np.zeros((num_worlds, num_choices), dtype=np.bool_)
    seat_returns = np.zeros(num_players, dtype=np.float64)
    for w in range(num_worlds):
        deal_seed = derive_seed(seed, first_world + w)
        for c in range(num_choices):
            s = worlds[w].copy()
            kernels.apply_action(game, s, choices[c])
            ok[w, c] = play_out(game, allowed, s, kinds, options, deal_seed, double_dummy)
            kernels.returns(game, s, seat_returns)
            returns[w, c] = seat_returns
            finals[w, c] = s
    return returns, finals, ok
