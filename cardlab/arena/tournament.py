"""Duplicate tournaments: deals in chunks, played on any backend, written so a run can resume.

Format. Every pair of agents (all pairs: a round robin; with two agents, a
head-to-head match) plays every deal once per side of the table. A side is
the set of seats that score together: a team, or a seat alone (Kaiser with
3 or 5 players). With S sides, seating ``S * p + k`` puts pair ``p``'s first
agent on every seat of side ``k`` and the second agent on all the others.
With the contract's two teams by parity this is seating ``2p``: first agent
on the even seats, ``2p + 1``: on the odd seats. Each side is one agent in
all its seats.

*Every seat pattern.* A side's seats are played by one agent, so rotating
the table only permutes which side holds which cards; over the S seatings
of a pair the first agent holds every side's cards once, and its summed
return (the duplicate score) is what the agents made of the same cards.
Since returns are zero-sum over sides, two copies of one agent score 0 in
expectation. (Mixed sides, with different agents in one side, would need
all rotations; the arena does not form them.)

Reproducibility. Deal ``d`` has seed ``derive_seed(seed, d)``, and every
random stream of the deal (cards, each seat's agent) derives from that seed,
never from the chunk, the worker or the backend: the same settings give the
same rows however the deals are spread out. Only the timing columns differ.

Chunks. Deals ``c * chunk_size ..`` form chunk ``c``: the unit of work sent to
a worker and of one Parquet part file (see :mod:`cardlab.results`).

Robustness. A run holds its folder's lock, so a second run on the same
folder stops at once. A worker process that dies (killed, out of memory) is
replaced and its chunk played again, at most :data:`RETRIES` times, then the
run stops with one line; chunks already written stay for the resume. The
settings pin every file the agents read (a policy, a ``py:`` factory's
module) by its SHA-256, so a resume after the file changed is refused
instead of mixing two versions in one run. The compiled loop plays a chunk
in batches of deals, so Ctrl-C stops even a serial run within about a second.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyspiel

from cardlab.arena import native
from cardlab.arena.duplicate import play_deal
from cardlab.arena.entrants import (
    FILE_OPTIONS,
    AgentSpec,
    behaviour_tables,
    bot_factory,
    input_hashes,
    is_native,
    native_tables,
)
from cardlab.arena.pool import WorkerLostError, run_tasks
from cardlab.arena.summaries import summarize
from cardlab.core.interrupt import StopRequest, timed_slices
from cardlab.core.limits import MAX_CHUNKS, MAX_DEALS, MAX_SEED
from cardlab.results import (
    FORMAT,
    KEYS,
    LOCK,
    MANIFEST,
    ResultsError,
    chunk_deals,
    locked,
    num_chunks,
    parity_sides,
    read_manifest,
    remove_leftovers,
    seat_pattern,
    verified_part,
    write_manifest,
    write_part,
)

BACKENDS = ("processes", "serial", "ray")
#: How many times the chunk of a lost worker is played again before the run stops.
RETRIES = 2


@dataclass(frozen=True)
class TournamentSettings:
    """Everything that decides the results; a resumed run must have the same."""

    game: str  # OpenSpiel short name, e.g. "cardlab_kaiser"
    parameters: dict[str, Any]
    agents: tuple[AgentSpec, ...]
    deals: int
    seed: int
    chunk_size: int
    #: The side of each seat; ``None`` asks the game (:func:`cardlab.games.seat_sides`).
    sides: tuple[int, ...] | None = None
    #: The SHA-256 of every file an agent reads, ``{label: {what: sha256}}``; ``None`` reads them now.
    inputs: dict[str, dict[str, str]] | None = None

    def __post_init__(self) -> None:
        """Refuse settings no run could play, each error naming the setting."""
        if not isinstance(self.game, str) or not isinstance(self.parameters, dict):
            raise ValueError(f"game must be a name and parameters a dict, got {self.game!r} and "
                             f"{self.parameters!r}")
        if len(self.agents) < 2 or not all(isinstance(agent, AgentSpec) for agent in self.agents):
            raise ValueError(f"a tournament needs at least two AgentSpec agents, got {self.agents!r}")
        for name, low, high, wanted in (("deals", 1, MAX_DEALS, f"a positive integer up to {MAX_DEALS:,}"),
                                        ("seed", 0, MAX_SEED - 1, "an integer from 0 to 2**64 - 1"),
                                        ("chunk_size", 1, MAX_DEALS,
                                         f"a positive integer up to {MAX_DEALS:,}")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or not low <= value <= high:
                raise ValueError(f"{name} must be {wanted}, got {value!r}")
            object.__setattr__(self, name, int(value))
        if self.num_chunks > MAX_CHUNKS:
            raise ValueError(f"chunk_size {self.chunk_size} cuts {self.deals} deals into {self.num_chunks:,} "
                             f"chunks, more than {MAX_CHUNKS:,}: give a larger chunk size")
        if self.inputs is None:
            reads = any(agent.is_python_factory or agent.name in FILE_OPTIONS for agent in self.agents)
            object.__setattr__(self, "inputs", input_hashes(self.agents, self.load_game()) if reads else {})
        if self.sides is None:
            from cardlab.games import seat_sides

            object.__setattr__(self, "sides", tuple(seat_sides(self.load_game())))
        sides = tuple(self.sides)
        if not (all(isinstance(side, int | np.integer) and not isinstance(side, bool) for side in sides)
                and len(set(sides)) >= 2 and sorted(set(sides)) == list(range(len(set(sides))))):
            raise ValueError(f"sides must give each seat's side, numbered 0, 1, ... with at least two "
                             f"sides, got {self.sides!r}")
        object.__setattr__(self, "sides", tuple(int(side) for side in sides))

    @property
    def labels(self) -> list[str]:
        return [agent.label for agent in self.agents]

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Every pair of agents, in order: a round robin (one pair: head-to-head)."""
        return list(combinations(range(len(self.agents)), 2))

    def load_game(self) -> pyspiel.Game:
        import cardlab  # noqa: F401  (registers the games)

        return pyspiel.load_game(self.game, dict(self.parameters))

    @property
    def num_sides(self) -> int:
        return max(self.sides) + 1

    def seatings(self) -> np.ndarray:
        """``seatings[k, seat]`` = agent index; one seating per side and pair (:func:`seat_pattern`)."""
        return seat_pattern(self.pairs, list(self.sides))

    @property
    def num_chunks(self) -> int:
        return num_chunks(self.deals, self.chunk_size)

    def chunk_deals(self, chunk: int) -> range:
        return chunk_deals(chunk, self.chunk_size, self.deals)

    def to_json(self) -> dict[str, Any]:
        return json.loads(json.dumps({
            "game": self.game,
            "parameters": self.parameters,
            "agents": [agent.to_json() for agent in self.agents],
            "format": "round-robin duplicate, both parities per pair" if self.num_sides == 2
            else "round-robin duplicate, each side per pair",
            "pairs": self.pairs,
            "sides": list(self.sides),
            "deals": self.deals,
            "seed": self.seed,
            "chunk_size": self.chunk_size,
            **({"inputs": self.inputs} if self.inputs else {}),
        }))


def default_chunk_size(deals: int, all_native: bool) -> int:
    """About 32 chunks, at most 1000 deals (compiled loop) or 25 deals (Python loop) each.

    It depends only on the settings, never on the number of workers, so a run
    resumed with other ``--workers`` keeps its chunks.
    """
    return max(1, min(1000 if all_native else 25, math.ceil(deals / 32)))


# ---- playing one chunk -----------------------------------------------------------
@dataclass
class _Context:
    """What a worker builds once per tournament: the game, its players and arrays."""

    game: pyspiel.Game
    seatings: np.ndarray
    native: bool
    game_id: int = -1
    initial: np.ndarray | None = None
    kinds: np.ndarray | None = None
    options: np.ndarray | None = None
    policies: tuple[np.ndarray, ...] | None = None
    factories: list[Callable] = field(default_factory=list)
    #: the agents' tables for :func:`native.known_policies` (kind -1: an agent it cannot read)
    behaviour: tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]] | None = None


_CONTEXTS: dict[str, _Context] = {}


def _context(settings: TournamentSettings) -> _Context:
    key = json.dumps(settings.to_json(), sort_keys=True)
    if key not in _CONTEXTS:
        game = settings.load_game()
        now = input_hashes(settings.agents, game)
        if now != settings.inputs:
            raise ResultsError(f"a file an agent reads changed since the run began "
                               f"({_inputs_difference(settings.inputs or {}, now)}); start a new --out")
        seatings = settings.seatings()
        if all(is_native(agent, game) for agent in settings.agents):
            from cardlab.games import game_spec

            kinds, options, policies = native_tables(list(settings.agents), game)
            _CONTEXTS[key] = _Context(
                game, seatings, True, game_spec(settings.game).kernel_id,
                game.initial_array.copy(), kinds, options, policies,
                behaviour=(kinds, options, policies),
            )
        else:
            factories = [bot_factory(agent, game) for agent in settings.agents]
            _CONTEXTS[key] = _Context(game, seatings, False, factories=factories,
                                      behaviour=behaviour_tables(list(settings.agents), game)[0])
    return _CONTEXTS[key]


def known_policy_columns(context: _Context, actions: np.ndarray, offsets: np.ndarray) -> dict[str, pa.Array]:
    """The decisions drawn from a known distribution (:func:`native.known_policies`), as three
    list columns: the step of each in the game's actions, its legal actions, their probabilities.

    Only ``random`` and a sampling ``cfr-bidding`` draw from such distributions (more
    than one possible move); other agents leave the lists empty.
    """
    from cardlab.games import game_spec

    kinds, options, policies = context.behaviour
    greedy = options[:, native.BIDDING_GREEDY] != 0
    stochastic = (kinds == native.RANDOM) | ((kinds == native.CFR_BIDDING) & ~greedy)
    num_games = len(offsets) - 1
    if stochastic.any():
        game_id = game_spec(context.game.get_type().short_name).kernel_id
        game_offsets, steps, entry_offsets, entry_actions, entry_probabilities = native.known_policies(
            game_id, native.agent_kinds(kinds[kinds >= 0]), context.game.initial_array.copy(),
            np.asarray(actions, dtype=np.int64),
            np.asarray(offsets, dtype=np.int64), context.seatings, kinds, options, policies)
    else:
        game_offsets, steps = np.zeros(num_games + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
        entry_offsets = np.zeros(1, dtype=np.int64)
        entry_actions, entry_probabilities = np.zeros(0, dtype=np.int64), np.zeros(0)
    entries = pa.array(entry_offsets.astype(np.int32))
    games = pa.array(game_offsets.astype(np.int32))
    return {
        "policy_steps": pa.ListArray.from_arrays(games, pa.array(steps.astype(np.int32))),
        "policy_actions": pa.ListArray.from_arrays(games, pa.ListArray.from_arrays(
            entries, pa.array(entry_actions.astype(np.int16)))),
        "policy_probabilities": pa.ListArray.from_arrays(games, pa.ListArray.from_arrays(
            entries, pa.array(entry_probabilities.astype(np.float64)))),
    }


def prepare_kernels(settings: TournamentSettings) -> None:
    """Compile (or load from the disk cache) what the chunks of ``settings`` run, in this process.

    The driver calls it before it starts the workers, so they all find the
    kernels in the cache instead of compiling the same ones side by side. The
    compiled loop is compiled by a call with no deals; the Python loop by one
    deal played and thrown away; the reading of known distributions by a call with no games.
    """
    context = _context(settings)
    seeds = native.deal_seeds(settings.seed, 0, 1)
    if context.native:
        native.play_games(context.game_id, context.initial, seeds[:0], context.seatings, context.kinds,
                          context.options, context.policies)
    else:
        _play_python(context, seeds)
    known_policy_columns(context, np.zeros(0, dtype=np.int16), np.zeros(1, dtype=np.int64))


def _play_python(context: _Context, seeds: np.ndarray):
    """The Python loop: the same outputs as :func:`native.play_games`, with ``pyspiel.Bot`` agents."""
    game, seatings = context.game, context.seatings
    num_seatings, num_players = seatings.shape
    num_games = len(seeds) * num_seatings
    offsets = np.zeros(num_games + 1, dtype=np.int64)
    actions: list[int] = []
    returns = np.zeros((num_games, num_players))
    seconds = np.zeros((num_games, num_players))
    decisions = np.zeros((num_games, num_players), dtype=np.int32)
    finals = []
    for g in range(num_games):
        deal_seed, seating = seeds[g // num_seatings], g % num_seatings
        bots = [
            context.factories[seatings[seating, seat]](
                game, seat, int(native.agent_seed(deal_seed, seating, seat, num_players))
            )
            for seat in range(num_players)
        ]
        time_used, moves = [0.0] * num_players, [0] * num_players
        state, game_returns = play_deal(game, bots, int(deal_seed), time_used, moves)
        actions.extend(state.history())
        offsets[g + 1] = len(actions)
        returns[g], seconds[g], decisions[g] = game_returns, time_used, moves
        finals.append(state.array.copy())
    return np.array(actions, dtype=np.int16), offsets, returns, seconds, decisions, np.array(finals)


def _play_native(settings: TournamentSettings, context: _Context, seeds: np.ndarray, first_deal: int):
    """The compiled loop over ``seeds`` in batches of deals (between them Ctrl-C is handled); the
    outputs are those of one call, each deal being played from its own seed."""
    parts = []
    for batch in timed_slices(len(seeds)):
        with StopRequest() as stop:
            status, *outputs = native.play_games(
                context.game_id, context.initial, seeds[batch.start:batch.stop], context.seatings,
                context.kinds, context.options, context.policies,
            )
        stop.check()
        if status[0] != native.OK:
            _, g, seat, action = (int(x) for x in status)
            agent = settings.agents[context.seatings[g % len(context.seatings), seat]]
            raise RuntimeError(
                f"agent {agent.label!r} chose illegal action {action} at seat {seat} "
                f"in deal {first_deal + batch.start + g // len(context.seatings)}"
            )
        parts.append(outputs)
    actions = np.concatenate([part[0] for part in parts])
    shifts = np.cumsum([0] + [len(part[0]) for part in parts[:-1]])
    offsets = np.concatenate([[0]] + [part[1][1:] + shift for part, shift in zip(parts, shifts, strict=True)])
    return (actions, offsets.astype(parts[0][1].dtype), *(np.concatenate([part[k] for part in parts])
                                                         for k in range(2, 6)))


def _fixed_lists(values: np.ndarray) -> pa.Array:
    return pa.FixedSizeListArray.from_arrays(pa.array(values.ravel()), values.shape[1])


def play_chunk(settings: TournamentSettings, chunk: int) -> pa.Table:
    """Play chunk ``chunk`` and return its rows, one per (deal, seating)."""
    context = _context(settings)
    deals = settings.chunk_deals(chunk)
    seeds = native.deal_seeds(settings.seed, deals.start, deals.stop)
    if context.native:
        actions, offsets, returns, seconds, decisions, finals = _play_native(settings, context, seeds,
                                                                             deals.start)
    else:
        actions, offsets, returns, seconds, decisions, finals = _play_python(context, seeds)
    finite = np.isfinite(returns).all(axis=1)
    if not finite.all():
        g = int(np.argmin(finite))
        raise RuntimeError(f"{settings.game} returned {returns[g].tolist()} in deal "
                           f"{deals.start + g // len(context.seatings)}: returns must be finite numbers")

    seatings = context.seatings
    num_seatings = seatings.shape[0]
    labels = np.array(settings.labels, dtype=object)
    seating = np.tile(np.arange(num_seatings, dtype=np.int16), len(deals))
    columns = result_columns(
        settings.game, settings.parameters,
        np.repeat(np.arange(deals.start, deals.stop, dtype=np.int64), num_seatings), seating,
        np.repeat(seeds, num_seatings), labels[seatings[seating]].astype(str),
        actions, offsets, returns, seconds, decisions, finals, settings.num_sides,
    )
    columns.update(known_policy_columns(context, actions, offsets))
    return pa.table(columns)


def result_columns(game: str, parameters: dict[str, Any], deal: np.ndarray, seating: np.ndarray,
                   deal_seeds: np.ndarray, seat_agents: np.ndarray, actions: np.ndarray,
                   offsets: np.ndarray, returns: np.ndarray, seconds: np.ndarray, decisions: np.ndarray,
                   finals: np.ndarray, seatings_per_pair: int = 2) -> dict[str, pa.Array]:
    """The columns of the results format, one row per game (a tournament's, or a game played by hand).

    ``seat_agents[row, seat]`` is the label of the agent at each seat; game
    ``row``'s actions are ``actions[offsets[row]:offsets[row + 1]]``; a pair
    of agents plays ``seatings_per_pair`` seatings (one per side).
    """
    rows = len(seating)
    columns: dict[str, pa.Array] = {
        "deal": pa.array(np.asarray(deal, dtype=np.int64)),
        "seating": pa.array(np.asarray(seating, dtype=np.int16)),
        "pair": pa.array(np.asarray(seating, dtype=np.int16) // seatings_per_pair),
        "game": pa.array([game] * rows, pa.string()),
        "parameters": pa.array([json.dumps(parameters, sort_keys=True)] * rows, pa.string()),
        "deal_seed": pa.array(np.asarray(deal_seeds, dtype=np.uint64)),
        "seat_agents": _fixed_lists(seat_agents),
        "team0_agent": pa.array(seat_agents[:, 0]),
        "team1_agent": pa.array(seat_agents[:, 1]),
        "actions": pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)),
                                            pa.array(np.asarray(actions, dtype=np.int16))),
        "returns": _fixed_lists(returns),
        "seat_seconds": _fixed_lists(seconds),
        "seat_decisions": _fixed_lists(decisions),
    }
    columns.update(summarize(game, finals))
    return columns


# ---- backends: where chunks are played -------------------------------------------
def _work(task: tuple[TournamentSettings, int]) -> tuple[int, pa.Table]:
    settings, chunk = task
    return chunk, play_chunk(settings, chunk)


def run_serial(settings: TournamentSettings, chunks: list[int], workers: int, address: str | None):
    """Every chunk in this process, in order: no start-up cost, one core."""
    for chunk in chunks:
        yield chunk, play_chunk(settings, chunk)


def run_processes(settings: TournamentSettings, chunks: list[int], workers: int, address: str | None):
    """``workers`` spawned processes, each playing whole chunks as they come free (a lost one is replaced)."""
    tasks = {chunk: (settings, chunk) for chunk in chunks}
    for _, result in run_tasks(_work, tasks, workers, retries=RETRIES, what="chunk"):
        yield result


def run_ray(settings: TournamentSettings, chunks: list[int], workers: int, address: str | None):
    """The chunks as Ray tasks: on a local Ray with ``workers`` CPUs, or the cluster at ``address``."""
    try:
        import ray
    except ImportError as error:
        raise ValueError("the ray backend needs ray: pip install 'cardlab[ray]'") from error
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1, max_retries=RETRIES)(_work)  # Ray replays a lost worker's task
        capacity = 2 * max(1, int(ray.cluster_resources().get("CPU", workers)))
        queue = list(chunks)
        in_flight: dict[Any, int] = {}
        while queue or in_flight:
            while queue and len(in_flight) < capacity:
                chunk = queue.pop(0)
                in_flight[remote.remote((settings, chunk))] = chunk
            done, _ = ray.wait(list(in_flight), num_returns=1)
            chunk = in_flight.pop(done[0])
            try:
                result = ray.get(done[0])
            except ray.exceptions.RayTaskError:
                raise  # an error of the chunk itself, as on the other backends
            except ray.exceptions.RayError as error:
                raise WorkerLostError(f"Ray lost the worker of chunk {chunk} {RETRIES + 1} times "
                                      f"({type(error).__name__})") from error
            yield result
    finally:
        if started_here:
            ray.shutdown()


RUNNERS = {"serial": run_serial, "processes": run_processes, "ray": run_ray}


# ---- the driver: manifest, resume, progress ---------------------------------------
def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for package in ("cardlab", "numpy", "numba", "open_spiel", "pyarrow", "pandas", "ray"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    return versions


def _git_commit() -> dict[str, Any]:
    """The commit of the cardlab checkout (read-only git queries), if it is one."""
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    if commit.returncode != 0:
        return {"commit": None, "dirty": None}
    return {"commit": commit.stdout.strip(), "dirty": bool(dirty.stdout.strip())}


def _settings_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
    return "; ".join(_inputs_difference(old.get(k) or {}, new.get(k) or {}) if k == "inputs"
                     else f"{k}: {json.dumps(old.get(k))} before, {json.dumps(new.get(k))} now" for k in keys)


def _inputs_difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """Which agent's file changed: ``the policy of cfr: sha256 1a2b3c4d... before, 5e6f7a8b... now``."""
    changes = []
    for label in sorted(set(old) | set(new)):
        before, now = old.get(label) or {}, new.get(label) or {}
        for what in sorted(set(before) | set(now)):
            if before.get(what) != now.get(what):
                then, today = (str(side.get(what, "none"))[:12] for side in (before, now))
                changes.append(f"the {what} of {label}: sha256 {then}... before, {today}... now")
    return "; ".join(changes)


class Standings:
    """Running mean duplicate score per agent, for the progress bar."""

    def __init__(self, settings: TournamentSettings):
        self.settings = settings
        self.total = np.zeros(len(settings.agents))
        self.count = np.zeros(len(settings.agents))

    def add(self, table: pa.Table) -> None:
        from cardlab.analysis.scores import duplicate_table

        settings = self.settings
        scores = duplicate_table(table, settings.labels, settings.pairs, list(settings.sides)).agent_scores()
        self.total += scores.sum(axis=0)
        self.count += len(scores)

    def text(self) -> str:
        means = self.total / np.maximum(self.count, 1)
        order = np.argsort(-means)
        return "  ".join(f"{self.settings.labels[i]} {means[i]:+.2f}" for i in order)


@dataclass
class RunSummary:
    """What one call of :func:`run_tournament` did."""

    directory: Path
    chunks_played: int
    chunks_total: int
    deals_done: int
    seconds: float
    interrupted: bool = False


def _resumed_manifest(settings: TournamentSettings, directory: Path) -> dict[str, Any]:
    """The directory's manifest for these settings (a new one if it has none), without lost parts."""
    wanted = settings.to_json()
    manifest = read_manifest(directory)
    if manifest is None:
        return {
            "format": FORMAT,
            "settings": wanted,
            "seeds": {
                "tournament": settings.seed,
                "deal": "derive_seed(seed, deal)",
                "agent": "derive_seed(deal_seed, 1 + seating * num_players + seat)",
            },
            "versions": _versions(),
            "git": _git_commit(),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "runs": [],
            "chunks": {},
            "complete": False,
        }
    if {"sides": parity_sides(len(settings.sides)), **manifest["settings"]} != wanted:
        raise ResultsError(
            f"{directory / MANIFEST} holds a tournament with other settings "
            f"({_settings_difference(manifest['settings'], wanted)}); choose another --out"
        )
    for chunk in list(manifest["chunks"]):
        if verified_part(directory, manifest, int(chunk), list(KEYS)) is None:
            del manifest["chunks"][chunk]  # deleted by hand: play it again
    manifest["complete"] = len(manifest["chunks"]) == settings.num_chunks
    return manifest


def run_tournament(
    settings: TournamentSettings,
    directory: str | Path,
    backend: str = "processes",
    workers: int | None = None,
    address: str | None = None,
    progress: bool = True,
    command: str = "",
    stop_after_chunks: int | None = None,
) -> RunSummary:
    """Play the tournament into ``directory``, resuming it if it holds a run of the same settings.

    The run holds ``directory``'s lock throughout: a second run on it raises
    ``ResultsError`` at once. ``stop_after_chunks`` is a test hook: it behaves
    like Ctrl-C once that many chunks have been written.
    """
    if backend not in RUNNERS:
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    workers = workers or os.cpu_count() or 1
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise ResultsError(f"{directory} exists and is not a directory; choose another --out")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ResultsError(f"cannot use {directory} as a results directory: {error.strerror or error}") \
            from error
    with locked(directory / LOCK, "tournament"):
        remove_leftovers(directory)  # writes cut off by a kill
        manifest = _resumed_manifest(settings, directory)
        manifest["runs"].append({
            "command": command,
            "backend": backend,
            "workers": workers,
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "versions": _versions(),
            "git": _git_commit(),
        })
        write_manifest(directory, manifest)
        return _play_pending(settings, directory, manifest, backend, workers, address, progress,
                             stop_after_chunks)


def _prepare_announced(settings: TournamentSettings, bar: Any) -> None:
    """:func:`prepare_kernels`, saying so on standard error and on the progress bar if it compiles."""
    from cardlab.core.compiling import announce, estimate
    from cardlab.games import game_spec

    spec = game_spec(settings.game)
    group = "tournament" if all(is_native(agent, settings.load_game()) for agent in settings.agents) \
        else "tournament-python"
    description = bar.desc if bar is not None else ""

    def on_bar(line: str) -> None:
        if bar is not None:
            bar.set_description_str("compiling (first run only)")

    write = None
    if bar is not None:
        import sys

        from tqdm import tqdm

        def write(line: str) -> None:
            tqdm.write(line, file=sys.stderr)
    with announce(f"{spec.title} kernels for {', '.join(a.name for a in settings.agents)}",
                  estimate(group, spec.aliases[0]), write=write, on_start=on_bar):
        prepare_kernels(settings)
    if bar is not None:
        bar.set_description_str(description)


def _play_pending(settings: TournamentSettings, directory: Path, manifest: dict[str, Any], backend: str,
                  workers: int, address: str | None, progress: bool,
                  stop_after_chunks: int | None) -> RunSummary:
    """Play the chunks the manifest lacks, writing each part and the manifest as it comes."""
    pending = [c for c in range(settings.num_chunks) if str(c) not in manifest["chunks"]]
    done_deals = settings.deals - sum(len(settings.chunk_deals(c)) for c in pending)
    standings = Standings(settings)
    start = time.perf_counter()
    played = 0
    interrupted = False
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=settings.deals, initial=done_deals, unit="deal", desc="duplicate deals",
                   dynamic_ncols=True, smoothing=0.1)
    if pending:
        _prepare_announced(settings, bar)
    runner = RUNNERS[backend](settings, pending, workers, address)
    try:
        for chunk, table in runner:
            entry = write_part(directory, chunk, table)
            deals = settings.chunk_deals(chunk)
            manifest["chunks"][str(chunk)] = {**entry, "deals": [deals.start, deals.stop]}
            manifest["complete"] = len(manifest["chunks"]) == settings.num_chunks
            write_manifest(directory, manifest)
            played += 1
            done_deals += len(deals)
            standings.add(table)
            if bar is not None:
                bar.update(len(deals))
                bar.set_postfix_str(standings.text(), refresh=False)
            if stop_after_chunks is not None and played >= stop_after_chunks and not manifest["complete"]:
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        interrupted = True
    except WorkerLostError as error:
        raise WorkerLostError(f"{error}; the {done_deals} deals written to {directory} are kept: rerun "
                              f"the same command to resume") from error
    finally:
        runner.close()
        if bar is not None:
            bar.close()
    return RunSummary(directory, played, settings.num_chunks, done_deals, time.perf_counter() - start,
                      interrupted)
