"""Same results for the same seeds: one digest per configuration, to compare two versions.

Speed work must not change what the games do. This prints one line per configuration (``all``,
``lit``, ``tricks`` or ``solver``): Literature random games and deals on its variant sets, and
compiled arena games (random, rules and ISMCTS agents with random and rules rollouts) on Literature,
Kaiser and Twenty-Eight variant sets; ``solver``: PIMC arena games and double-dummy tables (solver
speed work must keep every value). ``tests/golden/same-results-*.txt`` hold today's lines, and
``tests/test_same_results.py`` (``make check``) compares a run with them. To compare two checkouts
directly, run this in each (a checkout without the group runs this file with ``PYTHONPATH`` set to it):

    CARDLAB_NUMBA_CACHE=/tmp/numba-a PYTHONPATH=<version a> python tests/same_results.py all > a.txt
"""
from __future__ import annotations

import hashlib
import sys

import numpy as np
import pyspiel

import cardlab  # noqa: F401
from cardlab.agents.ismcts.options import OPTIONS as ISMCTS_OPTIONS
from cardlab.arena import native
from cardlab.core.rng import make_stream
from cardlab.games import game_spec
from cardlab.games.literature import engine as LE


def digest(*arrays: np.ndarray) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


LIT = [{}, {"players": 4}, {"players": 8}, {"ask_own_card_surrender": True}, {"bluff_own_card": True},
       {"opponent_picks_next_player": True}, {"eights_in_play": True},
       {"eights_in_play": True, "players": 8, "dealer": 3},
       {"eights_in_play": True, "players": 4, "claim_any_time": True, "ask_own_card_surrender": True},
       {"forced_claims": True}, {"challenge": True},
       {"forced_claims": True, "challenge": True, "claim_any_time": True, "players": 8,
        "opponent_picks_next_player": True},
       {"forced_claims": True, "challenge": True, "eights_in_play": True, "players": 4,
        "misclaim_to_opponents": True, "bluff_own_card": True},
       {"opponent_picks_next_player": True, "ask_own_card_surrender": True, "players": 8},
       {"claim_any_time": True}, {"claim_any_time": True, "opponent_picks_next_player": True,
                                  "bluff_own_card": True}]
KAISER = [{}, {"players": 5}, {"players": 6, "three_teams": True}, {"players": 3}, {"low_no_trump": True},
          {"kitty_34_card": True}, {"hearts_style_passing": True}, {"lost_heir": True},
          {"pass_one_to_partner": True}, {"les_rois": True}, {"hand_size": 6, "max_bid": 8}]
TWENTY_EIGHT = [{}, {"players": 6}, {"players": 3}, {"thani": True}, {"cot": True},
                {"jack_discard_restriction": True, "pointless_hand_redeal": True}, {"dealer": 2}]


def arena(name, params, kinds, rows, deals, seed):
    game = pyspiel.load_game(name, params)
    gid = game_spec(name).kernel_id
    n = game.num_players()
    seatings = np.array([[i % 2 for i in range(n)], [(i + 1) % 2 for i in range(n)]], dtype=np.int64)
    width = max(len(r) for r in rows)
    options = np.zeros((2, width))
    for i, r in enumerate(rows):
        options[i, :len(r)] = r
    status, actions, offsets, rets, _, decisions, finals = native.play_games(
        gid, game.initial_array, native.deal_seeds(seed, 0, deals), seatings,
        np.array(kinds, dtype=np.int64), options, native.empty_policies(2))
    return digest(status, actions, offsets, rets, decisions, finals)


def ismcts_row(name, **o):
    return ISMCTS_OPTIONS.resolve(o, game_spec(name)).row()


def solver_digests() -> None:
    """PIMC (6 worlds) against rules on 12 deals, and the full tables of 40 deals, each game.

    Twenty-Eight's PIMC bids by the rules here, as it did before it had simulation bidding, so the
    line compares with older checkouts; its simulation bidding has a line of its own (2 deals).
    """
    from cardlab.agents.pimc.options import OPTIONS as PIMC_OPTIONS
    from cardlab.solver.analysis import analyse, deal_from_seed

    for name in ("cardlab_kaiser", "cardlab_twenty_eight"):
        bidding = "rules" if name == "cardlab_twenty_eight" else "simulation"
        row = PIMC_OPTIONS.resolve({"worlds": 6, "bid_worlds": 4, "bidding": bidding}, game_spec(name)).row()
        print(name, "pimc-vs-rules", arena(name, {}, [native.PIMC, native.RULES], [row, np.zeros(1)], 12, 9))
        if name == "cardlab_twenty_eight":
            row = PIMC_OPTIONS.resolve({"worlds": 4, "bid_worlds": 2}, game_spec(name)).row()
            print(name, "pimc-simulation-bidding", arena(name, {}, [native.PIMC, native.RULES],
                                                         [row, np.zeros(1)], 2, 9))
        tables = [np.asarray(analyse(name, deal_from_seed(name, seed)).points) for seed in range(40)]
        print(name, "tables", digest(*tables))


def main(which: str) -> None:
    """Print the digests of the ``which`` group: all, lit, tricks or solver."""
    if which == "solver":
        solver_digests()
        return
    if which in ("all", "lit"):
        for i, params in enumerate(LIT):
            game = pyspiel.load_game("cardlab_literature", params)
            for seed in range(3):
                results = np.zeros((400, 4), dtype=np.int64)
                stream = make_stream(seed)
                steps = LE.play_random_games(game.initial_array, 400, stream, results)
                deals = np.array([LE.random_deal(game.initial_array, stream) for _ in range(20)])
                print("lit-random", i, seed, steps, digest(results, stream, deals))
            print("lit-arena", i, arena("cardlab_literature", params, [native.RANDOM, native.RULES],
                                       [np.zeros(1), np.zeros(1)], 30, 7))
        for i, params in enumerate(LIT[:6]):
            row = ismcts_row("cardlab_literature", simulations=60, rollout="random")
            print("lit-ismcts", i, arena("cardlab_literature", params, [native.ISMCTS, native.RANDOM],
                                        [row, np.zeros(1)], 2, 11))
        for i, params in enumerate(LIT[6:]):  # the rules rollouts, and every searcher's seat
            for rollout in ("rules", "random"):
                row = ismcts_row("cardlab_literature", simulations=40, rollout=rollout)
                print("lit-ismcts-" + rollout, i, arena("cardlab_literature", params,
                                                        [native.ISMCTS, native.ISMCTS], [row, row], 1, 13))

    games = (("cardlab_kaiser", KAISER, "kaiser"), ("cardlab_twenty_eight", TWENTY_EIGHT, "28"))
    for name, configs, tag in games:
        if which not in ("all", "tricks"):
            break
        for i, params in enumerate(configs):
            print(tag + "-rules-random", i, arena(name, params, [native.RULES, native.RANDOM],
                                                  [np.zeros(1), np.zeros(1)], 200, 5))
            for rollout in ("rules", "random"):
                row = ismcts_row(name, simulations=150, rollout=rollout)
                print(tag + "-ismcts-" + rollout, i, arena(name, params, [native.ISMCTS, native.RULES],
                                                          [row, np.zeros(1)], 4, 3))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "all")
