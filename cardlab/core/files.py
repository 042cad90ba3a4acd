"""Files written so that a kill at any moment leaves the old file or the new one, never half of one."""

from __future__ import annotations

import os
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
