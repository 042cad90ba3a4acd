"""Saying what numba compiles before the wait, and how long it takes.

cardlab's kernels compile on first use and are kept on disk
(:mod:`cardlab._numba_cache`). A first use can take a minute, and a silent
minute looks like a hang. So code that may compile runs inside
:func:`announce`: the first time numba starts compiling in the block, one
line goes to standard error (``compiling Kaiser tournament kernels, first
run only, about 25 s``) and a progress bar can say so too; on a warm cache
nothing is printed. numba reports every compilation as a ``numba:compile``
event (loads from the disk cache are not compilations), which :class:`Watch`
follows.

The estimates come from ``benchmarks/cold_start.py`` on one core of the
reference machine (:data:`ESTIMATES`); :func:`estimate` names them by group and game.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from numba.core import event

#: Seconds of one core to compile what a first use needs, cold, by command (or group) and game: the
#: CPU seconds ``benchmarks/cold_start.py`` measured (docs/performance.md#first-use). A pair not
#: listed is announced without a figure.
ESTIMATES: dict[tuple[str, str], float] = {
    ("demo", "kaiser"): 25, ("play", "kaiser"): 25, ("train", "kaiser"): 35, ("solve", "kaiser"): 50,
    ("rl", "kaiser"): 35, ("tournament", "kaiser"): 55,
}


class Watch(event.Listener):
    """Follows numba's compilations: whether one is running, and the seconds spent in them."""

    def __init__(self) -> None:
        self.depth = 0
        self.seconds = 0.0
        self.compilations = 0
        self.silenced = 0  # inside silenced(): no announcement speaks
        self._started = 0.0
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def on_start(self, ev: event.Event) -> None:
        if self.depth == 0:
            self._started = time.perf_counter()
            with self._lock:
                innermost = self._callbacks[-1] if self._callbacks else None
            if innermost is not None and not self.silenced:  # the most specific announcement speaks
                innermost()
        self.depth += 1
        self.compilations += 1

    def on_end(self, ev: event.Event) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.seconds += time.perf_counter() - self._started

    def add(self, callback: Callable[[], None]) -> None:
        with self._lock:
            self._callbacks.append(callback)

    def remove(self, callback: Callable[[], None]) -> None:
        with self._lock:
            self._callbacks.remove(callback)


_WATCH: Watch | None = None


def watch() -> Watch:
    """The process's :class:`Watch`, registered with numba on first use."""
    global _WATCH
    if _WATCH is None:
        _WATCH = Watch()
        event.register("numba:compile", _WATCH)
    return _WATCH


@contextmanager
def silenced() -> Iterator[None]:
    """No announcement speaks inside the block: for a caller that has said already, in its own
    words, that it compiles (``cardlab warmup``'s one line for every game and group)."""
    current = watch()
    current.silenced += 1
    try:
        yield
    finally:
        current.silenced -= 1


def estimate(group: str, game: str | None = None) -> float | None:
    """The measured cold compile time of ``group`` (``"tournament"``, ``"rl"``...) for ``game``, if known."""
    return ESTIMATES.get((group, game or ""))


def notice(what: str, seconds: float | None = None) -> str:
    """The line that says a compilation started: ``compiling <what>, first run only, about N s``."""
    if seconds is None:
        return f"compiling {what}, first run only (can take a minute)"
    return f"compiling {what}, first run only, about {max(5, round(seconds / 5) * 5):.0f} s"


@contextmanager
def announce(what: str, seconds: float | None = None, write: Callable[[str], None] | None = None,
             on_start: Callable[[str], None] | None = None) -> Iterator[None]:
    """Write :func:`notice` once if numba starts compiling inside the block (and call ``on_start``).

    Blocks nest: a compilation is announced by the innermost block only, the
    one that knows best what is being compiled.

    ``write`` takes the line (default: standard error; a progress bar passes
    its own ``write``, which keeps the bar intact), ``on_start(line)`` lets the
    bar say it too. Nothing happens when everything comes from the disk cache.
    """
    said = threading.Event()

    def say() -> None:
        if said.is_set():
            return
        said.set()
        line = notice(what, seconds)
        if write is None:
            print(line, file=sys.stderr, flush=True)
        else:
            write(line)
        if on_start is not None:
            on_start(line)

    current = watch()
    current.add(say)
    try:
        yield
    finally:
        current.remove(say)
