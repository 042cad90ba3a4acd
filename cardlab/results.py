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
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

MANIFEST = "manifest.json"
FORMAT = "cardlab-tournament/1"


class ResultsError(Exception):
    """A results directory that is missing, corrupt, or made with other settings (one line)."""


def part_name(chunk: int) -> str:
    return f"part-{chunk:06d}.parquet"


def _atomic_write(path: Path, write) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_part(directory: Path, chunk: int, table: pa.Table) -> dict[str, Any]:
    """Write chunk ``chunk`` atomically; return its manifest entry."""
    path = directory / part_name(chunk)
    _atomic_write(path, lambda stream: pq.write_table(table, stream, compression="zstd"))
    return {"file": path.name, "rows": table.num_rows, "sha256": sha256(path)}


def write_json_atomically(path: Path, data: Any) -> None:
    """Write ``data`` as JSON so a kill leaves either the old file or the new one, never half."""
    text = json.dumps(data, indent=1, sort_keys=False).encode()
    _atomic_write(Path(path), lambda stream: stream.write(text))


def write_manifest(directory: Path, manifest: dict[str, Any]) -> None:
    write_json_atomically(directory / MANIFEST, manifest)


def read_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest, None if the directory has none; a clear error if it is unreadable."""
    path = Path(directory) / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResultsError(f"{path} is corrupt or truncated ({type(error).__name__}: {error})") from error
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or "settings" not in manifest:
        raise ResultsError(f"{path} is not a cardlab tournament manifest (expected format {FORMAT})")
    return manifest


def check_part(directory: Path, chunk: int, entry: dict[str, Any]) -> str:
    """``"ok"``, ``"missing"``, or raise ``ResultsError`` if the listed part file is corrupt."""
    path = Path(directory) / entry["file"]
    if not path.exists():
        return "missing"
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


def load_results(directory: str | Path, columns: list[str] | None = None) -> tuple[dict[str, Any], pa.Table]:
    """The manifest and every completed row, in (deal, seating) order, after verifying each part."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ResultsError(f"no results directory {directory}")
    manifest = read_manifest(directory)
    if manifest is None:
        raise ResultsError(f"{directory} has no {MANIFEST}: not a tournament results directory")
    tables = []
    for chunk, entry in sorted(manifest["chunks"].items(), key=lambda item: int(item[0])):
        if check_part(directory, int(chunk), entry) == "missing":
            raise ResultsError(f"{directory / entry['file']} is missing; rerun the tournament to replay it")
        table = read_part(directory / entry["file"], columns)
        if table.num_rows != entry["rows"]:
            raise ResultsError(
                f"{directory / entry['file']} has {table.num_rows} rows, manifest says {entry['rows']}"
            )
        tables.append(table)
    if not tables:
        raise ResultsError(f"{directory} has no completed deals yet")
    return manifest, pa.concat_tables(tables)
