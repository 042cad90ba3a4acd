"""The frame every study runs in: seeded parameters in one place, chunks of deals, resumable Parquet.

A study is a name, a table of default parameters (``seed``, ``deals``,
``chunk_size`` and its own) and a function ``play_chunk(parameters, deals)``
that returns the Parquet rows of a range of deals. Deal ``d`` always has the
seed ``derive_seed(seed, d)`` (:func:`deal_seeds`), so the rows do not depend
on the chunking, the worker count or the order the chunks finish in.

::

    experiments/data/<study>/
        manifest.json          study, parameters, commands, completed chunks (with SHA-256)
        part-000000.parquet    the rows of chunk 0 ...

The files are written the way :mod:`cardlab.results` writes a tournament
(atomic parts, then the manifest, under the folder's lock), so a killed run
resumes by playing only the chunks the manifest lacks, and a run with other
parameters on the same folder stops with one line. The notebooks read a study
with :func:`load_study`, which checks every part against its checksum.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from cardlab.arena.native import deal_seeds as _deal_seeds
from cardlab.arena.pool import WorkerLostError, run_tasks
from cardlab.results import (
    LOCK,
    MANIFEST,
    ResultsError,
    check_part,
    chunk_deals,
    locked,
    num_chunks,
    part_name,
    read_part,
    remove_leftovers,
    write_json_atomically,
    write_part,
)

FORMAT = "cardlab-study/1"
#: Where ``make notebooks`` writes the datasets and the notebooks read them (see :func:`data_dir`).
DATA_ENV = "CARDLAB_STUDY_DATA"
DEFAULT_DATA = Path(__file__).resolve().parent / "data"
#: Parameters every study has.
COMMON = ("seed", "deals", "chunk_size")

PlayChunk = Callable[[dict[str, Any], range], pa.Table]


@dataclass(frozen=True)
class Study:
    """A dataset recipe: its name, default parameters, and the function that plays a chunk of deals."""

    name: str
    defaults: dict[str, Any]
    play_chunk: PlayChunk  # a module-level function, so worker processes can receive it
    check: Callable[[dict[str, Any]], None] | None = None  # the study's own checks: ValueError if bad

    def parameters(self, **overrides: Any) -> dict[str, Any]:
        """The defaults with ``overrides``, each checked against its default's type."""
        unknown = set(overrides) - set(self.defaults)
        if unknown:
            raise ValueError(f"{self.name} has no parameter {sorted(unknown)[0]!r}; "
                             f"its parameters are {', '.join(self.defaults)}")
        parameters = dict(self.defaults)
        for key, value in overrides.items():
            kind = type(self.defaults[key])
            if kind is bool and not isinstance(value, bool) or not isinstance(value, kind | int):
                raise ValueError(f"{self.name} parameter {key} must be {kind.__name__}, got {value!r}")
            parameters[key] = kind(value)
        for key in ("deals", "chunk_size"):
            if parameters[key] < 1:
                raise ValueError(f"{key} must be at least 1, got {parameters[key]}")
        if not 0 <= parameters["seed"] < 2**64:
            raise ValueError(f"seed must be in 0..2**64-1, got {parameters['seed']}")
        if self.check is not None:
            self.check(parameters)  # before any folder is written
        return parameters


def data_dir() -> Path:
    """The datasets' folder: ``$CARDLAB_STUDY_DATA`` if set (the tests' tiny ones), else experiments/data."""
    return Path(os.environ.get(DATA_ENV) or DEFAULT_DATA)


def deal_seeds(seed: int, deals: range) -> np.ndarray:
    """The seeds of ``deals``: the arena's ``derive_seed(seed, deal)``, so a study's deal d is the
    tournament's deal d."""
    return _deal_seeds(np.uint64(seed), deals.start, deals.stop)


def _work(task: tuple[PlayChunk, dict[str, Any], int, range]) -> tuple[int, pa.Table]:
    play_chunk, parameters, chunk, deals = task
    return chunk, play_chunk(parameters, deals)


def _manifest(study: Study, parameters: dict[str, Any], directory: Path) -> dict[str, Any]:
    """The folder's manifest (a fresh one if none), refusing one of another study or parameters."""
    path = directory / MANIFEST
    if not path.exists():
        return {"format": FORMAT, "study": study.name, "parameters": parameters, "chunks": {},
                "complete": False, "runs": []}
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsError(f"{path} is corrupt ({type(error).__name__}); delete the folder to start again") \
            from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ResultsError(f"{path} is not a study manifest (format {FORMAT})")
    if manifest.get("study") != study.name or manifest.get("parameters") != parameters:
        raise ResultsError(f"{directory} holds {manifest.get('study')} with parameters "
                           f"{json.dumps(manifest.get('parameters'))}; choose another --out for "
                           f"{study.name} with {json.dumps(parameters)}")
    for key, entry in list(manifest["chunks"].items()):
        if check_part(directory, int(key), entry) == "missing":
            del manifest["chunks"][key]  # deleted by hand: play it again
    return manifest


def run_study(study: Study, parameters: dict[str, Any], directory: str | Path, workers: int = 1,
              progress: bool = True, command: str = "") -> Path:
    """Play the chunks of ``study`` that ``directory`` lacks, in ``workers`` processes; return the folder."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    deals, size = parameters["deals"], parameters["chunk_size"]
    with locked(directory / LOCK, "study run"):
        remove_leftovers(directory)
        manifest = _manifest(study, parameters, directory)
        manifest["runs"].append({"command": command, "workers": workers,
                                 "started": datetime.now(UTC).isoformat(timespec="seconds")})
        write_json_atomically(directory / MANIFEST, manifest)
        pending = [c for c in range(num_chunks(deals, size)) if str(c) not in manifest["chunks"]]
        tasks = {c: (study.play_chunk, parameters, c, chunk_deals(c, size, deals)) for c in pending}
        done = deals - sum(len(task[3]) for task in tasks.values())
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=deals, initial=done, unit="deal", desc=study.name, dynamic_ncols=True)
        results = (map(_work, tasks.values()) if workers <= 1 else
                   (value for _, value in run_tasks(_work, tasks, workers, what="chunk")))
        start = time.perf_counter()
        try:
            for chunk, table in results:
                span = chunk_deals(chunk, size, deals)
                manifest["chunks"][str(chunk)] = {**write_part(directory, chunk, table),
                                                  "deals": [span.start, span.stop]}
                manifest["complete"] = len(manifest["chunks"]) == num_chunks(deals, size)
                write_json_atomically(directory / MANIFEST, manifest)
                if bar is not None:
                    bar.update(len(span))
        finally:
            if bar is not None:
                bar.close()
        manifest["runs"][-1]["seconds"] = round(time.perf_counter() - start, 1)
        write_json_atomically(directory / MANIFEST, manifest)
    return directory


def load_study(name: str, directory: str | Path | None = None) -> tuple[dict[str, Any], pd.DataFrame]:
    """The parameters and every row of a complete study, each part checked against its checksum."""
    directory = Path(directory) if directory is not None else data_dir() / name
    path = directory / MANIFEST
    if not path.exists():
        raise ResultsError(f"no dataset {directory}: run `python -m experiments.{name.replace('-', '_')}` "
                           f"or `make notebooks` first")
    manifest = json.loads(path.read_text())
    if manifest.get("format") != FORMAT or manifest.get("study") != name:
        raise ResultsError(f"{path} is not the manifest of study {name}")
    if not manifest.get("complete"):
        raise ResultsError(f"{directory} is incomplete ({len(manifest['chunks'])} chunks done); rerun its "
                           f"command to finish it")
    tables = []
    for key in sorted(manifest["chunks"], key=int):
        if check_part(directory, int(key), manifest["chunks"][key]) == "missing":
            raise ResultsError(f"{directory / part_name(int(key))} is missing; rerun the study to replay it")
        tables.append(read_part(directory / part_name(int(key))))
    return manifest["parameters"], pa.concat_tables(tables).to_pandas()


def _parse_value(text: str, default: Any) -> Any:
    if isinstance(default, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() == "true"
    return type(default)(text)


def main(study: Study, argv: list[str] | None = None) -> None:
    """The command line of a study: ``--set key=value`` for any parameter, ``--out``, ``--workers``."""
    parser = argparse.ArgumentParser(prog=f"python -m experiments.{study.name.replace('-', '_')}",
                                     description=f"Generate the {study.name} dataset. Parameters "
                                     f"(--set key=value): " + ", ".join(
                                         f"{k}={v}" for k, v in study.defaults.items()))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", default=None, help="folder (default: $CARDLAB_STUDY_DATA or "
                                                    "experiments/data, then the study's name)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    try:
        overrides = {}
        for item in args.set:
            key, sep, text = item.partition("=")
            if not sep or key not in study.defaults:
                raise ValueError(f"--set {item!r}: expected KEY=VALUE with KEY one of "
                                 f"{', '.join(study.defaults)}")
            try:
                overrides[key] = _parse_value(text, study.defaults[key])
            except ValueError as error:
                raise ValueError(f"--set {item!r}: {error}") from None
        if args.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        parameters = study.parameters(**overrides)
        out = Path(args.out) if args.out else data_dir() / study.name
        given = sys.argv[1:] if argv is None else argv
        command = " ".join(["python -m", f"experiments.{study.name.replace('-', '_')}", *given])
        run_study(study, parameters, out, args.workers, not args.no_progress, command)
    except (ResultsError, ValueError, WorkerLostError) as error:
        raise SystemExit(f"error: {str(error).splitlines()[0]}") from None
    print(out)


@dataclass(frozen=True)
class SelfPlay:
    """Deals played in the compiled arena with one native agent in every seat."""

    finals: np.ndarray  # final engine state of each deal
    returns: np.ndarray  # (deals, seats)
    actions: np.ndarray  # every action of every deal, chance included
    offsets: np.ndarray  # deal g's actions are actions[offsets[g]:offsets[g + 1]]


def self_play(game_name: str, game_parameters: dict[str, Any], seed: int, deals: range,
              agent: str = "rules") -> SelfPlay:
    """Play ``deals`` of ``game_name`` with ``agent`` (``rules`` or ``random``) in every seat, in numba."""
    import pyspiel

    import cardlab  # noqa: F401  (registers the games)
    from cardlab.arena import native
    from cardlab.games import game_spec

    kinds = {"rules": native.RULES, "random": native.RANDOM}
    if agent not in kinds:
        raise ValueError(f"self-play agent must be one of {', '.join(kinds)}, got {agent!r}")
    spec = game_spec(game_name)
    game = pyspiel.load_game(spec.name, dict(game_parameters))
    initial = game.new_initial_state().array.copy()
    seatings = np.zeros((1, game.num_players()), dtype=np.int64)
    status, actions, offsets, returns, _, _, finals = native.play_games(
        spec.kernel_id, initial, deal_seeds(seed, deals), seatings,
        np.array([kinds[agent]], dtype=np.int64), native.empty_options(1), native.empty_policies(1))
    if status[0] != native.OK:
        raise RuntimeError(f"self-play of {spec.name} stopped at game {status[1]} (code {status[0]})")
    return SelfPlay(finals, returns, actions, offsets)


def count_cards(hands: np.ndarray, cards: int) -> np.ndarray:
    """How many of the card set ``cards`` (one mask, or one per hand) each hand mask holds."""
    masked = (np.asarray(hands, dtype=np.int64) & np.asarray(cards, dtype=np.int64)).astype(np.uint64)
    return np.unpackbits(masked[..., None].view(np.uint8), axis=-1).sum(axis=-1).astype(np.int8)
