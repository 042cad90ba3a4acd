"""Where numba keeps cardlab's compiled kernels, and why that place changes with the code.

numba's on-disk cache (``cache=True``) checks only the file that holds each
compiled function. A kernel compiled against an older version of a function
it calls in another file (an engine, ``games/kernels.py``) would be loaded
unchanged after that file is edited. So cardlab points numba at a cache folder
named by a hash of all its sources: any edit starts a fresh cache, while
repeated runs of the same code still compile nothing.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

KEEP_FOLDERS = 4  # caches of recent source versions kept side by side


def source_fingerprint(package: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def configure() -> Path | None:
    """Set numba's cache folder for this source version; must run before any kernel is defined.

    ``CARDLAB_NUMBA_CACHE`` chooses the parent folder (default ``~/.cache/cardlab/numba``);
    an explicit ``NUMBA_CACHE_DIR`` is respected as it is.
    """
    import numba

    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    package = Path(__file__).resolve().parent
    root = Path(os.environ.get("CARDLAB_NUMBA_CACHE",
                               Path.home() / ".cache" / "cardlab" / "numba"))
    folder = root / source_fingerprint(package)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
        older = sorted((p for p in root.iterdir() if p.is_dir() and p != folder),
                       key=lambda p: p.stat().st_mtime, reverse=True)
        for stale in older[KEEP_FOLDERS - 1:]:
            shutil.rmtree(stale, ignore_errors=True)
    except OSError:
        return None  # no writable cache: numba falls back to its default place
    numba.config.CACHE_DIR = str(folder)
    return folder
