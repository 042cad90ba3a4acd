"""A tournament's results directory: numbered Parquet part files plus a JSON manifest.

::

    results/kaiser-001/
        manifest.json          settings, versions, git commit, commands, completed chunks
        part-000000.parquet    one row per (deal, seating) of chunk 0
        part-000001.parquet    ...

Every write is atomic (a temporary file in the same directory, then
``os.replace``), and a part file is listed in the manifest, with its SHA-256,
only after it is safely on disk. The manifest is therefore the truth about
what is done: a kill at any moment loses at most the chunks in flight, and a
part file that is not listed (killed between the two writes) is simply played
again. A listed part file whose bytes changed is reported as corrupt.

Nothing in the folder is taken on trust: the manifest's structure, every chunk
entry (its part is exactly ``part_name(chunk)``, inside the folder, with the
rows its deals need) and every part's keys (each deal and seating of its
chunk exactly once, finite returns) are checked when read, and any
inconsistency is a :class:`ResultsError` of one line. A run holds the folder's
``.lock`` (an OS lock, freed when the process ends, however it ends), so two
runs never write one folder.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cardlab.core.files import write_atomically
from cardlab.core.limits import MAX_SEED  # seeds are unsigned 64-bit integers

MANIFEST = "manifest.json"
FORMAT = "cardlab-tournament/1"
LOCK = ".lock"
#: The columns that identify a row, with their types.
KEYS = {"deal": pa.int64(), "seating": pa.int16(), "pair": pa.int16()}
#: The columns :func:`check_rows` reads.
CHECKED = [*KEYS, "game", "parameters", "seat_agents", "returns"]


class ResultsError(Exception):
    """A results directory that is missing, corrupt, or made with other settings (one line)."""


def part_name(chunk: int) -> str:
    return f"part-{chunk:06d}.parquet"


def num_chunks(deals: int, chunk_size: int) -> int:
    return math.ceil(deals / chunk_size)


def chunk_deals(chunk: int, chunk_size: int, deals: int) -> range:
    """The deals of chunk ``chunk``: ``chunk * chunk_size ..`` up to the last deal."""
    return range(chunk * chunk_size, min((chunk + 1) * chunk_size, deals))


def remove_leftovers(directory: Path) -> None:
    """Delete the temporary files of writes cut off by a kill (call it only holding the lock)."""
    for leftover in directory.glob(".*.tmp"):
        if leftover.is_file():
            leftover.unlink()


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_part(directory: Path, chunk: int, table: pa.Table) -> dict[str, Any]:
    """Write chunk ``chunk`` atomically; return its manifest entry."""
    path = directory / part_name(chunk)
    write_atomically(path, lambda stream: pq.write_table(table, stream, compression="zstd"))
    return {"file": path.name, "rows": table.num_rows, "sha256": sha256(path)}


def write_json_atomically(path: Path, data: Any) -> None:
    """Write ``data`` as JSON so a kill leaves either the old file or the new one, never half."""
    text = json.dumps(data, indent=1, sort_keys=False).encode()
    write_atomically(path, lambda stream: stream.write(text))


def write_manifest(directory: Path, manifest: dict[str, Any]) -> None:
    write_json_atomically(directory / MANIFEST, manifest)


@contextmanager
def locked(path: Path, what: str = "run") -> Iterator[None]:
    """Hold the lock file ``path`` while the block runs; fail at once if another process holds it.

    The lock is ``flock``: the operating system frees it when the process
    exits, however it exits (even ``SIGKILL``), so a dead run never leaves it
    stuck. The file keeps the holder's process id, for the error message.
    """
    try:
        stream = open(path, "a+")
    except OSError as error:
        raise ResultsError(f"cannot write in {path.parent}: {error.strerror}") from error
    with stream:
        try:
            fcntl.flock(stream, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            stream.seek(0)
            holder = stream.read().strip() or "unknown"
            raise ResultsError(f"{path.parent} is in use by another {what} (process {holder}); "
                               f"wait for it to end or choose another --out") from None
        stream.seek(0)
        stream.truncate()
        stream.write(f"{os.getpid()}\n")
        stream.flush()
        yield


def _shown(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any, low: int, high: float = math.inf) -> bool:
    return type(value) is int and low <= value < high


def _check_settings(path: Path, settings: dict[str, Any]) -> None:
    agents = settings.get("agents")
    rules = {
        "game": ("a game name", lambda v: isinstance(v, str) and v),
        "parameters": ("a table of game parameters", lambda v: isinstance(v, dict)),
        "agents": ("a list of at least two agents, each with a unique label, a name and options",
                   lambda v: isinstance(v, list) and len(v) >= 2 and all(
                       isinstance(a, dict) and isinstance(a.get("label"), str)
                       and isinstance(a.get("name"), str) and isinstance(a.get("options"), dict)
                       for a in v) and len({a["label"] for a in v}) == len(v)),
        "pairs": ("every pair of agents in order",
                  lambda v: v == [list(p) for p in combinations(range(len(agents)), 2)]),
        "deals": ("a positive integer", lambda v: _is_int(v, 1)),
        "seed": ("an integer in 0..2**64-1", lambda v: _is_int(v, 0, MAX_SEED)),
        "chunk_size": ("a positive integer", lambda v: _is_int(v, 1)),
    }
    for key, (wanted, test) in rules.items():
        if key not in settings or not test(settings[key]):
            raise ResultsError(f"{path}: settings.{key} must be {wanted}, got {_shown(settings.get(key))}")
    inputs = settings.get("inputs", {})  # optional: the hashes of files the agents read
    if not (isinstance(inputs, dict) and all(
            isinstance(files, dict) and all(isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}|missing",
                                                                                    digest)
                                            for digest in files.values()) for files in inputs.values())):
        raise ResultsError(f"{path}: settings.inputs must map agents to their files' sha256, got "
                           f"{_shown(inputs)}")
    sides = settings.get("sides", [0, 1])  # optional: runs written before sides were stored
    if not (isinstance(sides, list) and all(_is_int(side, 0) for side in sides)
            and sorted(set(sides)) == list(range(max(sides, default=0) + 1)) and len(set(sides)) >= 2):
        raise ResultsError(f"{path}: settings.sides must list each seat's side, numbered from 0, "
                           f"at least two sides, got {_shown(sides)}")


def _check_chunks(path: Path, manifest: dict[str, Any]) -> None:
    settings = manifest["settings"]
    deals, size = settings["deals"], settings["chunk_size"]
    count = num_chunks(deals, size)
    seatings = seatings_per_pair(settings) * len(settings["pairs"])
    for key, entry in manifest["chunks"].items():
        if not re.fullmatch(r"0|[1-9][0-9]{0,17}", key) or int(key) >= count:
            raise ResultsError(f"{path}: chunk {key!r} is not one of the {count} chunks of {deals} deals "
                               f"in chunks of {size}")
        chunk = int(key)
        span = chunk_deals(chunk, size, deals)
        wanted = {"file": part_name(chunk), "rows": len(span) * seatings, "deals": [span.start, span.stop]}
        if not isinstance(entry, dict):
            raise ResultsError(f"{path}: chunk {chunk} must be a table, got {_shown(entry)}")
        for field, value in wanted.items():
            if json.dumps(entry.get(field)) != json.dumps(value):
                raise ResultsError(f"{path}: chunk {chunk} must have {field} {_shown(value)}, "
                                   f"got {_shown(entry.get(field))}")
        if not isinstance(entry.get("sha256"), str) or not re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]):
            raise ResultsError(f"{path}: chunk {chunk} must have a sha256 of 64 hex digits, "
                               f"got {_shown(entry.get('sha256'))}")
    if manifest["complete"] != (len(manifest["chunks"]) == count):
        raise ResultsError(f"{path}: complete is {_shown(manifest['complete'])} but "
                           f"{len(manifest['chunks'])} of {count} chunks are listed")


def check_manifest(path: Path, manifest: Any) -> None:
    """Raise ``ResultsError`` (one line, naming the key) unless ``manifest`` is consistent."""
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ResultsError(f"{path} is not a cardlab tournament manifest (expected format {FORMAT})")
    for key, kind, wanted in (("settings", dict, "a table"), ("chunks", dict, "a table"),
                              ("runs", list, "a list"), ("complete", bool, "true or false")):
        if not isinstance(manifest.get(key), kind):
            raise ResultsError(f"{path}: {key} must be {wanted}, got {_shown(manifest.get(key))}")
    _check_settings(path, manifest["settings"])
    _check_chunks(path, manifest)


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The checked manifest, None if the directory has none; a clear error if it is unreadable."""
    path = Path(directory) / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, RecursionError, json.JSONDecodeError) as error:
        raise ResultsError(f"{path} is corrupt or truncated ({type(error).__name__}: {error})") from error
    check_manifest(path, manifest)
    return manifest


def check_part(directory: Path, chunk: int, entry: dict[str, Any]) -> str:
    """``"ok"``, ``"missing"``, or raise ``ResultsError`` if the listed part file is corrupt."""
    path = Path(directory) / part_name(chunk)
    if not path.exists() and not path.is_symlink():
        return "missing"
    if path.is_symlink() or not path.is_file():
        raise ResultsError(f"{path} is not a regular file; delete it and rerun the tournament "
                           f"to play chunk {chunk} again")
    if sha256(path) != entry["sha256"]:
        raise ResultsError(
            f"{path} is corrupt or truncated (checksum differs from the manifest); "
            f"delete it and rerun the tournament to play chunk {chunk} again"
        )
    return "ok"


def read_part(path: Path, columns: list[str] | None = None) -> pa.Table:
    try:
        return pq.read_table(path, columns=columns)
    except (OSError, pa.ArrowException) as error:
        raise ResultsError(f"{path} is corrupt or truncated ({str(error).splitlines()[0]})") from error


def parity_sides(num_players: int) -> list[int]:
    """The contract's two teams: even seats are side 0, odd seats side 1."""
    return [seat % 2 for seat in range(num_players)]


def settings_sides(settings: dict[str, Any], num_players: int) -> list[int]:
    """The side of each seat a run was played with (runs written before sides were stored: parity)."""
    return list(settings.get("sides") or parity_sides(num_players))


def seatings_per_pair(settings: dict[str, Any]) -> int:
    """One seating per side: the pair's first agent holds that side, the second every other."""
    sides = settings.get("sides")
    return max(sides) + 1 if sides else 2


def seat_pattern(pairs: list, sides: list[int]) -> np.ndarray:
    """``pattern[seating, seat]`` = agent index.

    With S sides, seating ``S * p + k`` puts pair ``p``'s first agent on every
    seat of side ``k`` and the second agent on all other seats. Over the S
    seatings of a pair the first agent holds each side's cards once, so what
    the cards are worth cancels out of its summed return. Two teams by parity
    give seating ``2p``: first agent on the even seats, ``2p + 1``: on the odd.
    """
    num_sides = max(sides) + 1
    rows = []
    for a, b in pairs:
        for side in range(num_sides):
            rows.append([a if seat_side == side else b for seat_side in sides])
    return np.array(rows, dtype=np.int64)


def check_rows(path: Path, table: pa.Table, settings: dict[str, Any], deals: range) -> None:
    """The rows of the chunk of ``deals``, as ``settings`` made them, or ``ResultsError``.

    Each (deal, seating) exactly once with ``pair = seating // seatings_per_pair``, the game and
    parameters of the settings, each seat held by the agent the format puts
    there, and finite returns.
    """
    schema = table.schema
    kinds = {**KEYS, "game": pa.string(), "parameters": pa.string()}
    lists = {"returns": pa.types.is_floating, "seat_agents": pa.types.is_string}
    if (any(name not in schema.names or schema.field(name).type != kind for name, kind in kinds.items())
            or any(name not in schema.names or not pa.types.is_fixed_size_list(schema.field(name).type)
                   or not test(schema.field(name).type.value_type) for name, test in lists.items())
            or any(table.column(name).null_count for name in [*kinds, *lists])):
        raise ResultsError(f"{path} does not have the columns of a part file ({', '.join([*kinds, *lists])} "
                           f"of the expected types, without nulls)")
    per_pair = seatings_per_pair(settings)
    seatings = per_pair * len(settings["pairs"])
    deal, seating, pair = (table.column(name).to_numpy() for name in KEYS)
    order = np.lexsort((seating, deal))
    if not (np.array_equal(deal[order], np.repeat(np.arange(deals.start, deals.stop), seatings))
            and np.array_equal(seating[order], np.tile(np.arange(seatings), len(deals)))
            and np.array_equal(pair, seating // per_pair)):
        raise ResultsError(f"{path} does not hold each deal {deals.start}..{deals.stop - 1} in each of "
                           f"{seatings} seatings exactly once")
    parameters = json.dumps(settings["parameters"], sort_keys=True)
    for name, wanted in (("game", settings["game"]), ("parameters", parameters)):
        if table.column(name).unique().to_pylist() != [wanted]:
            raise ResultsError(f"{path}: column {name} differs from the manifest's {_shown(wanted)}")
    labels = pa.array([agent["label"] for agent in settings["agents"]])
    num_players = schema.field("seat_agents").type.list_size
    if len(settings_sides(settings, num_players)) != num_players:
        raise ResultsError(f"{path}: {num_players} seats per row, but settings.sides lists "
                           f"{len(settings['sides'])}")
    seat_agents = table.column("seat_agents").combine_chunks().flatten()
    agents = pc.index_in(seat_agents, value_set=labels).fill_null(-1).to_numpy().reshape(-1, num_players)
    pattern = seat_pattern(settings["pairs"], settings_sides(settings, num_players))
    if not np.array_equal(agents, pattern[seating]):
        raise ResultsError(f"{path}: the agents at the seats differ from the manifest's agents and pairs")
    values = table.column("returns").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    bad = ~np.isfinite(values.reshape(table.num_rows, -1)).all(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        raise ResultsError(f"{path}: deal {deal[row]} seating {seating[row]} has a return that is not "
                           f"a finite number")


def verified_part(directory: Path, manifest: dict[str, Any], chunk: int,
                  columns: list[str] | None = None) -> pa.Table | None:
    """Chunk ``chunk``'s rows (``columns`` of them) after every check; None if its part is missing."""
    entry = manifest["chunks"][str(chunk)]
    if check_part(directory, chunk, entry) == "missing":
        return None
    path = Path(directory) / part_name(chunk)
    table = read_part(path, None if columns is None else list(dict.fromkeys([*columns, *CHECKED])))
    if table.num_rows != entry["rows"]:
        raise ResultsError(f"{path} has {table.num_rows} rows, manifest says {entry['rows']}")
    settings = manifest["settings"]
    check_rows(path, table, settings, chunk_deals(chunk, settings["chunk_size"], settings["deals"]))
    return table if columns is None else table.select(columns)


def load_results(directory: str | Path, columns: list[str] | None = None) -> tuple[dict[str, Any], pa.Table]:
    """The manifest and every completed row, in (deal, seating) order, after verifying each part."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ResultsError(f"no results directory {directory}")
    manifest = read_manifest(directory)
    if manifest is None:
        raise ResultsError(f"{directory} has no {MANIFEST}: not a tournament results directory")
    tables = []
    for chunk in sorted(int(key) for key in manifest["chunks"]):
        table = verified_part(directory, manifest, chunk, columns)
        if table is None:
            raise ResultsError(f"{directory / part_name(chunk)} is missing; rerun the tournament to play "
                               f"it again")
        tables.append(table)
    if not tables:
        raise ResultsError(f"{directory} has no completed deals yet")
    return manifest, pa.concat_tables(tables)
