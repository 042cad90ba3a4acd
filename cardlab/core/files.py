"""Files written so that a kill at any moment leaves the old file or the new one, never half of one."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


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
