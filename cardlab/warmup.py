"""``cardlab warmup``: compile cardlab's kernels ahead of time, in parallel processes.

Kernels compile on first use and stay in the disk cache
(:mod:`cardlab._numba_cache`). A warm-up *uses* each group of kernels once, on
the smallest inputs that reach them (a game played through OpenSpiel, a
tournament loop called with no deals, one search decision, one double-dummy
solve, a step of an RL batch), so that exactly the specializations real runs
ask for land in the cache. Each game is one task, its groups compiled in turn
(they share the game's engine); the games' tasks run side by side in
``workers`` processes. A game's last groups (:data:`TAIL_GROUPS`) are a second
task, queued when the first is done: whichever process is free then takes
them, loading the game's engine from the cache, so one game's long task does
not hold the rest back.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait

import numpy as np

from cardlab.games import double_dummy

#: The groups of kernels a warm-up compiles, in the order it compiles them.
GROUPS = ("openspiel", "tournament", "ismcts", "pimc", "solver", "rl", "play")
#: The groups a game leaves to a second task, once the first has compiled (and cached) its engine.
TAIL_GROUPS = ("rl", "play")
#: Groups that exist only for the games the double-dummy solver plays.
SOLVER_GAMES = tuple(double_dummy.GAME_IDS)


def _openspiel(name: str) -> None:
    """The OpenSpiel game: steps, strings, tensors, information-state keys, resampling."""
    import pyspiel

    import cardlab  # noqa: F401  (registers the games)

    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if not state.is_chance_node():
            player = state.current_player()
            state.observation_tensor(player)
            state.information_state_tensor(player)
            state.information_state_key(player)
            state.observation_string(player)
            state.resample_from_infostate(player, lambda: 0.5)
        legal = state.legal_actions()
        state.apply_action(legal[int(rng.integers(len(legal)))])
    state.returns()
    str(state)


def _tournament(name: str) -> None:
    """The compiled tournament loop, for the light agents and each heavy one beside them."""
    from cardlab.agents.net import MODELS
    from cardlab.arena.entrants import AgentSpec
    from cardlab.arena.tournament import TournamentSettings, prepare_kernels

    heavy = ["ismcts"] + (["pimc", "cfr-bidding"] if name in SOLVER_GAMES else [])
    heavy += ["net"] if (MODELS / f"{name}.npz").exists() else []
    for extra in [None, *heavy]:
        agents = [AgentSpec("rules", "rules"), AgentSpec("random", "random")]
        if extra is not None:  # cfr-bidding and net play the policy and model cardlab ships for the game
            agents.append(AgentSpec(extra, extra))
        prepare_kernels(TournamentSettings(name, {}, tuple(agents), 1, 0, 1))


def _bot_decisions(name: str, agent: str, options: dict) -> None:
    import pyspiel

    from cardlab import agents

    game = pyspiel.load_game(name)
    bots = [agents.make(agent, game, seat, seed=seat, **options) for seat in range(game.num_players())]
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(12):
        while state.is_chance_node():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
        if state.is_terminal():
            return
        state.apply_action(bots[state.current_player()].step(state))


def _ismcts(name: str) -> None:
    """The ISMCTS bot's kernels (search in chunks, root statistics, tree reuse)."""
    _bot_decisions(name, "ismcts", {"simulations": 8})


def _pimc(name: str) -> None:
    """The PIMC bot's kernels."""
    _bot_decisions(name, "pimc", {"worlds": 2})


def _solver(name: str) -> None:
    """``cardlab solve``: a deal's double-dummy table and par."""
    from cardlab.solver import analyse, deal_from_seed, par

    table = analyse(name, deal_from_seed(name, 0))
    par(table)


def _rl(name: str) -> None:
    """The RL batch, float32 and compact, self-play and one seat against the rule-based house."""
    import cardlab.rl as rl

    for arguments in ({"dtype": "float32"}, {"dtype": "compact"}, {"seats": [0], "opponents": "rules"}):
        env = rl.make(name, num_envs=2, seed=0, **arguments)
        step = env.reset()
        for _ in range(3):
            step = env.step(np.array([np.flatnonzero(mask)[0] for mask in step.legal_mask]))


def _play(name: str) -> None:
    """``cardlab advise``'s compiled play-outs (Kaiser and Twenty-Eight bidding advice)."""
    if name not in SOLVER_GAMES:
        return
    import pyspiel

    from cardlab.play.advise import advise_bids

    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    advise_bids(state, state.current_player(), worlds=2, seed=0)


TASKS: dict[str, Callable[[str], None]] = {
    "openspiel": _openspiel, "tournament": _tournament, "ismcts": _ismcts, "pimc": _pimc,
    "solver": _solver, "rl": _rl, "play": _play,
}


def applies(group: str, name: str) -> bool:
    """Does ``group`` exist for the game ``name``?"""
    return name in SOLVER_GAMES or group not in ("pimc", "solver", "play")


def warm_game(name: str, groups: Iterable[str]) -> dict[str, float | str]:
    """Compile ``groups`` for the game ``name`` in this process: the seconds each took (0 when
    everything came from the cache), or the error that stopped it (the other groups still run)."""
    from cardlab.core.compiling import silenced, watch

    spent: dict[str, float | str] = {}
    current = watch()
    for group in groups:
        if not applies(group, name):
            continue
        before = current.seconds
        start = time.perf_counter()
        try:
            with silenced():  # the warm-up's own line said it compiles; the commands inside say nothing
                TASKS[group](name)
        except Exception as error:  # reported, and the warm-up goes on with the next group
            first_line = str(error).splitlines()[0] if str(error) else ""
            spent[group] = f"failed: {type(error).__name__}: {first_line}"
            continue
        spent[group] = round(time.perf_counter() - start, 1) if current.seconds > before else 0.0
    return spent


def warm_up(games: list[str], groups: Iterable[str] = GROUPS, workers: int = 2,
            progress: Callable[[str, dict[str, float | str]], None] | None = None
            ) -> dict[str, dict[str, float | str]]:
    """Compile ``groups`` for every game of ``games`` (OpenSpiel names), one process per game at a time.

    ``progress(game, seconds_by_group)`` is called as each game finishes.
    Returns the seconds each group of each game took (0 when it came from the cache).
    """
    groups = [group for group in GROUPS if group in set(groups)]
    results: dict[str, dict[str, float | str]] = {}
    if workers <= 1 or len(games) == 1:
        for name in games:
            results[name] = warm_game(name, groups)
            if progress:
                progress(name, results[name])
        return results
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(min(workers, len(games)), mp_context=context)
    try:
        results = run_in_pool(pool, warm_game, games, groups, progress)
    except BaseException:  # Ctrl-C, SIGTERM: a compile cannot be interrupted, so its process is ended
        for process in list(pool._processes.values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results


def run_in_pool(pool: Executor, warm: Callable[[str, list[str]], dict[str, float | str]], games: list[str],
                groups: list[str], progress: Callable[[str, dict[str, float | str]], None] | None = None
                ) -> dict[str, dict[str, float | str]]:
    """``warm(game, groups)`` for every game in ``pool``: each game's :data:`TAIL_GROUPS` queued
    only once its other groups are done, ``progress`` called as each game's last part ends."""
    head = [group for group in groups if group not in TAIL_GROUPS]
    tail = [group for group in groups if group in TAIL_GROUPS]
    results: dict[str, dict[str, float | str]] = {}
    pending: dict[Future, tuple[str, bool]] = {}
    for name in _apart(games):
        results[name] = {}
        pending[pool.submit(warm, name, head or tail)] = (name, not head)
    while pending:
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            name, is_tail = pending.pop(future)
            results[name].update(future.result())
            if not is_tail and tail:
                pending[pool.submit(warm, name, tail)] = (name, True)
            elif progress:
                progress(name, results[name])
    return results


def _apart(games: list[str]) -> list[str]:
    """The games in the order that keeps the solver's games apart: the double-dummy search, the
    largest kernel, is the same for Kaiser and Twenty-Eight, so the second of them to start loads it
    from the cache instead of compiling it beside the first."""
    solver = [name for name in games if name in SOLVER_GAMES]
    others = [name for name in games if name not in SOLVER_GAMES]
    return solver[:1] + others + solver[1:]

