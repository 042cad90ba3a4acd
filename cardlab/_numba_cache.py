"""Where numba keeps cardlab's compiled kernels, and why that place changes with the code.

numba's on-disk cache (``cache=True``) checks only the file that holds each
compiled function. A kernel compiled against an older version of a function
it calls in another file (an engine, ``games/kernels.py``) would be loaded
unchanged after that file is edited. So cardlab points numba at a cache folder
named by a hash of the sources kernels are made of: the modules that import
numba and every cardlab module they import (constants such as a game's
``rules.py`` are compiled into the kernels). An edit to any of them starts a
fresh cache, while an edit elsewhere (the command line, the report) and
repeated runs compile nothing.

It also names the folder by LLVM's optimization level (numba's ``NUMBA_OPT``,
3 unless the user sets it), since numba's cache does not record it: kernels
compiled at one level are never loaded at another. Level 1 was tried as the
default and dropped: the CI warmup took the same time at both levels (264 and
263 s), one first tournament compiled 9% faster (50.8 against 55.6 CPU s), and
the kernels ran 0-3% slower (docs/performance.md#first-use).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Collection
from pathlib import Path

KEEP_FOLDERS = 4  # caches of recent source versions kept side by side
OPTIMIZATION_LEVEL = 3  # LLVM's, for every kernel, unless NUMBA_OPT says otherwise (numba's own default)


#: ``from cardlab.x import a, b`` (to the end of its line) or ``from cardlab.x import (a,\n b)``.
_FROM_IMPORT = re.compile(
    rb"^[ \t]*from[ \t]+cardlab((?:\.\w+)*)[ \t]+import[ \t]+(?:\(([\w\s,]+)\)|([\w \t,]+))", re.MULTILINE)
_IMPORT = re.compile(rb"^\s*import\s+cardlab((?:\.\w+)*)", re.MULTILINE)
_NUMBA_IMPORT = re.compile(rb"^\s*(?:from|import)\s+numba\b", re.MULTILINE)


def _imported_modules(source: bytes, package: Path, known: Collection[Path]) -> list[Path]:
    """The files of the cardlab modules ``source`` takes names from, among ``known``.

    ``from cardlab.x import y`` reads ``x/y.py`` where y is a submodule, else ``x.py`` or
    ``x/__init__.py``, which defines y. Python also runs a package's ``__init__`` when it
    imports a submodule, but a kernel can read only the objects it is given, so a
    package's ``__init__`` (often a list of its bots and commands) counts only where a
    name comes from it.
    """
    found = []
    for match in _FROM_IMPORT.finditer(source):
        base = package.joinpath(*match.group(1).decode().split(".")[1:])
        for name in (match.group(2) or match.group(3)).decode().replace("\n", " ").split(","):
            name = name.split(" as ")[0].strip()
            if not name:
                continue
            submodule = [path for path in (base / f"{name}.py", base / name / "__init__.py") if path in known]
            found += submodule or [base.with_suffix(".py"), base / "__init__.py"]
    for match in _IMPORT.finditer(source):
        base = package.joinpath(*match.group(1).decode().split(".")[1:])
        found += [base.with_suffix(".py"), base / "__init__.py"]
    return [path for path in found if path in known]


def kernel_sources(package: Path) -> list[Path]:
    """The modules of ``package`` that kernels are compiled from, sorted.

    Every module that imports numba, and, transitively, every cardlab module
    such a module imports.
    """
    sources = {path: path.read_bytes() for path in package.rglob("*.py")}
    pending = [path for path, text in sources.items() if _NUMBA_IMPORT.search(text)]
    chosen: set[Path] = set()
    while pending:
        path = pending.pop()
        if path in chosen:
            continue
        chosen.add(path)
        pending += _imported_modules(sources[path], package, sources)
    return sorted(chosen)


def source_fingerprint(package: Path) -> str:
    """A hash of the kernel sources of ``package`` (:func:`kernel_sources`), with their paths."""
    digest = hashlib.sha256()
    for path in kernel_sources(package):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def optimization_level() -> str:
    """Set LLVM's optimization level for the kernels (:data:`OPTIMIZATION_LEVEL`, or the user's
    ``NUMBA_OPT``) and return it as numba spells it (``"1"``, ``"3"``, ``"max"``)."""
    from numba.core import config

    if not os.environ.get("NUMBA_OPT"):
        config.OPT = config._OptLevel(OPTIMIZATION_LEVEL)
    return "max" if config.OPT.is_opt_max else str(int(config.OPT))


def configure() -> Path | None:
    """Set numba's optimization level and its cache folder for this source version and level;
    must run before any kernel is defined.

    ``CARDLAB_NUMBA_CACHE`` chooses the parent folder (default ``~/.cache/cardlab/numba``);
    an explicit ``NUMBA_CACHE_DIR`` is respected as it is.
    """
    import numba

    level = optimization_level()
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    package = Path(__file__).resolve().parent
    root = Path(os.environ.get("CARDLAB_NUMBA_CACHE",
                               Path.home() / ".cache" / "cardlab" / "numba"))
    folder = root / f"{source_fingerprint(package)}-o{level}"
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
