"""A long duplicate match between two sides: chunks of deals over processes, resumable.

:func:`run_match` is :func:`~cardlab.arena.duplicate.play_duplicate_match` for
runs that take an hour: the deals are split into chunks played by a pool of
processes, every finished chunk is saved at once in ``<out>.partial.json``
(written atomically), and running the same match again plays only the missing
chunks. The scores, and so the result, are the same for any number of workers
and any interruption. A worker that dies is replaced and its chunk played
again (a bounded number of times, see :mod:`cardlab.arena.pool`). A side is
an agent of :func:`cardlab.agents.make` or a ``py:module:function`` factory,
made inside each worker; both play through the OpenSpiel loop, so any ``pyspiel.Bot`` can take part.

Use :mod:`cardlab.arena.tournament` for round robins between many agents and
results to analyse row by row (Parquet); a match keeps only each deal's score.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyspiel

from cardlab.arena.duplicate import BotFactory, DuplicateResult, play_duplicate_match
from cardlab.arena.pool import run_tasks
from cardlab.results import ResultsError, write_json_atomically


@dataclass(frozen=True)
class Side:
    """One side of a match: an agent name (or ``py:module:function``) and its options."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def factory(self) -> BotFactory:
        """``factory(game, seat, seed)`` making this side's bot (checked names, one-line errors)."""
        if self.name.startswith("py:"):
            from cardlab.arena.entrants import python_factory

            function = python_factory(self.name)
            return lambda game, seat, seed: function(game, seat, seed, **self.options)
        from cardlab import agents

        return lambda game, seat, seed: agents.make(self.name, game, seat, seed, **self.options)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "options": dict(self.options)}


@dataclass
class MatchRun:
    """The finished match: every deal's score (in deal order) and the wall time it took."""

    result: DuplicateResult
    seconds: float
    settings: dict[str, Any]


def play_chunk(game_name: str, parameters: dict[str, Any], side_a: Side, side_b: Side, seed: int,
               first: int, stop: int) -> list[float]:
    """The duplicate scores of deals ``first .. stop - 1`` (run inside a worker)."""
    import cardlab  # noqa: F401  (registers the games in a spawned worker)

    game = pyspiel.load_game(game_name, parameters)
    return play_duplicate_match(game, side_a.factory(), side_b.factory(), range(first, stop),
                                seed).scores


def _play_task(task: tuple) -> list[float]:
    return play_chunk(*task)


def read_partial(path: Path, settings: dict[str, Any]) -> dict[str, Any] | None:
    """The chunks an interrupted run of the same ``settings`` saved in ``path``, or None."""
    if not path.exists():
        return None
    try:
        saved = json.loads(path.read_text())
        chunks = saved["chunks"]
        size = int(saved["chunk_size"])
        valid = isinstance(chunks, dict) and size > 0 and all(
            int(first) % size == 0
            and len(scores) == min(size, settings["deals"] - int(first))
            and all(isinstance(score, int | float) and math.isfinite(score) for score in scores)
            for first, scores in chunks.items())
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        raise ResultsError(f"{path} is corrupt ({type(error).__name__}: {error}); "
                           f"delete it to start the match again") from error
    if not valid:
        raise ResultsError(f"{path} is corrupt (chunks do not match its chunk size); "
                           f"delete it to start the match again")
    if saved.get("settings") != settings:
        raise ResultsError(f"{path} holds a match with other settings; delete it or choose "
                           f"another --out")
    return saved


def run_match(
    game_name: str,
    side_a: Side,
    side_b: Side,
    deals: int,
    seed: int,
    *,
    parameters: dict[str, Any] | None = None,
    workers: int = 1,
    partial: Path | None = None,
    progress: bool = True,
    extra_settings: dict[str, Any] | None = None,
    on_start: Callable[[], dict[str, Any]] | None = None,
) -> MatchRun:
    """Play ``deals`` duplicate deals of A against B, resuming from ``partial`` if it exists.

    ``extra_settings`` join the settings a resumed run must share. ``on_start``
    runs only when the match starts afresh and returns values kept in the
    partial file (e.g. a calibrated simulation count), available to a resumed
    run as ``run.settings["kept"]``.
    """
    if deals < 1 or workers < 1:
        raise ValueError(f"a match needs at least one deal and one worker, got {deals} and {workers}")
    parameters = dict(parameters or {})
    settings = json.loads(json.dumps({
        "game": game_name, "parameters": parameters, "side_a": side_a.to_json(),
        "side_b": side_b.to_json(), "deals": deals, "seed": seed, **(extra_settings or {}),
    }))
    saved = read_partial(partial, settings) if partial else None
    if saved is None:
        saved = {"settings": settings, "kept": on_start() if on_start else {},
                 "chunk_size": max(1, math.ceil(deals / (8 * workers))), "seconds": 0.0,
                 "chunks": {}}
    size = saved["chunk_size"]
    bounds = [(first, min(first + size, deals)) for first in range(0, deals, size)
              if str(first) not in saved["chunks"]]
    start = time.perf_counter() - saved["seconds"]
    done = sum(len(scores) for scores in saved["chunks"].values())
    if bounds:
        from tqdm import tqdm

        tasks = {a: (game_name, parameters, side_a, side_b, seed, a, b) for a, b in bounds}
        with tqdm(total=deals, initial=done, unit="deal", disable=not progress,
                  desc=f"{side_a.name} vs {side_b.name}") as bar:
            for first, scores in run_tasks(_play_task, tasks, workers, what="the chunk from deal"):
                saved["chunks"][str(first)] = scores
                saved["seconds"] = round(time.perf_counter() - start, 1)
                if partial:
                    write_json_atomically(partial, saved)
                bar.update(len(scores))
    scores = [score for first in sorted(saved["chunks"], key=int) for score in saved["chunks"][first]]
    result = DuplicateResult(side_a.name, side_b.name, scores)
    return MatchRun(result, round(time.perf_counter() - start, 1), {**settings, "kept": saved["kept"]})
