"""Files written so that a kill at any moment leaves the old file or the new one, never half of one;
and cardlab's ``.npz`` files of arrays with a JSON header and checksum, read with every fault named."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import numpy as np


def write_atomically(path: str | Path, write: Callable[[BinaryIO], object]) -> Path:
    """Write ``path`` through ``write(stream)``: into a temporary file of the same folder, flushed
    to disk, then renamed over ``path`` (one step for the file system). A write cut off leaves a
    ``.<name>.*.tmp`` file that nothing reads."""
    path = Path(path)
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
    return path


def previous_path(path: str | Path) -> Path:
    """Where the checkpoint before the latest is kept: ``run.npz`` -> ``run.previous.npz``."""
    path = Path(path)
    return path.with_name(f"{path.stem}.previous{path.suffix}")


def keep_previous(path: str | Path) -> None:
    """Before ``path`` is replaced: keep its current bytes (if any) at :func:`previous_path`, atomically.

    At every moment ``path`` is a whole file (the old or the new one), and so
    is the previous one once a first save has been replaced.
    """
    path = Path(path)
    if not path.exists():
        return
    previous = previous_path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{previous.name}.", suffix=".tmp")
    os.close(handle)
    try:
        os.unlink(temporary)
        try:
            os.link(path, temporary)  # the same bytes under a second name, nothing copied
        except OSError:
            shutil.copyfile(path, temporary)
        os.replace(temporary, previous)
    finally:
        Path(temporary).unlink(missing_ok=True)


Loaded = TypeVar("Loaded")


def load_or_previous(out: str | Path, load: Callable[[Path], Loaded],
                     describe: Callable[[Loaded], str] = lambda _: "") -> Loaded:
    """``load(out)``; if that raises ``ValueError`` (a damaged file), the checkpoint before it at
    :func:`previous_path`, said on stderr with ``describe`` of it (where it stands)."""
    import sys

    try:
        return load(Path(out))
    except ValueError as error:
        previous = previous_path(out)
        if not previous.exists():
            raise
        loaded = load(previous)
        print(f"cardlab: {str(error).splitlines()[0]}; resuming from the previous checkpoint {previous}"
              f"{describe(loaded)}", file=sys.stderr)
        return loaded


def check_checkpoint_path(out: str | Path, resume: bool, what: str = "checkpoint") -> None:
    """``out`` as a checkpoint file: its folder exists and takes files, it is no folder; with
    ``resume`` it (or its previous checkpoint) exists. ``ValueError`` now, before any work."""
    out = Path(out)
    if out.is_dir():
        raise ValueError(f"--out {out} is a directory; give the {what} file's name")
    if not out.parent.is_dir():
        raise ValueError(f"--out {out}: the folder {out.parent} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"):
            pass
    except OSError as error:
        raise ValueError(f"--out {out}: cannot write in {out.parent} ({error.strerror or error})") from error
    if resume and not out.exists() and not previous_path(out).exists():
        raise ValueError(f"--resume: {out} does not exist")


def checksum(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of ``arrays``, names and bytes, in name order."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()


def save_checked_npz(path: str | Path, arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> Path:
    """Write ``arrays`` and ``metadata`` (JSON, with the arrays' :func:`checksum` added) to ``path``
    atomically, compressed, read back by :func:`load_checked_npz`."""
    metadata = {**metadata, "checksum": checksum(arrays)}
    # Through a file object, or savez would append .npz to the name.
    return write_atomically(path, lambda out: np.savez_compressed(
        out, metadata=np.asarray(json.dumps(metadata, sort_keys=True)), **arrays))


def load_checked_npz(path: str | Path, what: str, file_format: str, version: int
                     ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and metadata of a file of :func:`save_checked_npz`, refused with a one-line
    ``ValueError`` naming ``path`` (a ``what`` file: "policy", "model") unless it is readable
    without pickle, of ``file_format`` and ``version``, and its arrays match their checksum."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise ValueError(f"{path}: no such {what} file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: a directory, not a {what} file") from None
    except ValueError as error:  # numpy's own words would suggest unpickling, which cardlab never does
        problem = "holds Python objects" if "pickle" in str(error) else f"is damaged ({error})"
        raise ValueError(f"{path}: not a readable {what} file (it {problem})") from None
    except (OSError, EOFError, zipfile.BadZipFile, RuntimeError) as error:
        raise ValueError(f"{path}: not a readable {what} file ({type(error).__name__})") from None
    try:
        metadata = json.loads(str(arrays.pop("metadata")))
    except (KeyError, RecursionError, json.JSONDecodeError):
        raise ValueError(f"{path}: not a cardlab {what} file (no metadata)") from None
    if not isinstance(metadata, dict) or metadata.get("format") != file_format:
        raise ValueError(f"{path}: not a cardlab {what} file (format {metadata!r:.60})")
    if metadata.get("version") != version:
        raise ValueError(f"{path}: {what} file version {metadata.get('version')!r:.20}, "
                         f"this cardlab reads version {version}")
    if checksum(arrays) != metadata.get("checksum"):
        raise ValueError(f"{path}: {what} file is corrupt (its arrays do not match their checksum)")
    return arrays, metadata
