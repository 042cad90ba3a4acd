"""Ctrl-C and SIGTERM: long work stops between its steps, never inside one, and workers stay quiet.

Python raises ``KeyboardInterrupt`` at whatever line runs when Ctrl-C comes,
but not inside a compiled kernel: a kernel that runs for minutes cannot be
stopped, and one that returns arrays while the interrupt is pending fails
with ``SystemError`` (numba boxes its result with an exception set; in the
worst case the process crashes). A step cut in half (a kernel's arrays
advanced but its iteration count not yet) would leave a wrong state behind.
So long work is done in short kernel calls (well under a second each) inside
a :class:`StopRequest`: its handler only notes the signal, and the loop acts
on it between calls (:meth:`StopRequest.check`), keeping what is finished.
SIGTERM is treated as Ctrl-C (:func:`sigterm_as_interrupt`), so ``kill``
stops a command as cleanly; :func:`is_interrupt` recognizes an interrupt
that reached a kernel anyway.

Worker processes leave both signals to the driver (:func:`quiet_worker`):
Ctrl-C in a terminal reaches the whole process group, and a worker that
raised its own ``KeyboardInterrupt`` would print a traceback; a worker whose
driver is gone ends at once instead of finishing its task for nobody.
"""

from __future__ import annotations

import _signal
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType

#: The signals that ask a command to stop.
STOP_SIGNALS = (int(signal.SIGINT), int(signal.SIGTERM))
#: Seconds of work per kernel call that long loops aim at: a signal is acted on within about that.
SLICE_SECONDS = 0.25
#: ``prctl`` option: the signal a process gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1
#: True in a worker process (:func:`quiet_worker`): its signals stay the driver's to act on.
_IN_WORKER = False


def in_main_thread() -> bool:
    """Only the main thread may set signal handlers (a web server's request threads may not)."""
    return threading.current_thread() is threading.main_thread()


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does (main thread only)."""
    if not in_main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class StopRequest:
    """Ctrl-C or SIGTERM noted, not raised, while the block runs; the loop asks :attr:`requested`.

    A second signal raises ``KeyboardInterrupt`` at once, for a step that
    turns out long. With ``raise_on_exit`` a noted signal is raised when the
    block ends: the block finishes whole, then the interrupt goes on as usual.
    Outside the main thread (where handlers cannot be set), in a worker
    process, and for a signal ignored already, it notes nothing.
    """

    def __init__(self, raise_on_exit: bool = False):
        self.raise_on_exit = raise_on_exit
        self.requested = False
        self._previous: dict[int, object] = {}

    def _note(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self) -> StopRequest:
        if in_main_thread() and not _IN_WORKER:  # C-level calls: the signal module's wrappers cost 15 us
            self._previous = {number: _signal.signal(number, self._note) for number in STOP_SIGNALS
                              if _signal.getsignal(number) != _signal.SIG_IGN}
        return self

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if a signal came: call it between kernel calls."""
        if self.requested:
            raise KeyboardInterrupt

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        for number, handler in self._previous.items():
            _signal.signal(number, handler)
        if self.raise_on_exit and self.requested and kind is None:
            raise KeyboardInterrupt


def deferred_interrupts() -> StopRequest:
    """Hold Ctrl-C and SIGTERM until the block ends, then raise: the block is never cut in half."""
    return StopRequest(raise_on_exit=True)


def timed_slices(total: int, granule: int = 1) -> Iterator[range]:
    """``range(total)`` in consecutive slices, each about :data:`SLICE_SECONDS` of the caller's work.

    The first slice is ``granule`` long; a slice is doubled while the caller
    spends under half the target on one and halved (in whole granules) while
    it spends over twice. Work that gives the same result in any slicing
    (each item seeded on its own, or a stream carried over) stays the same.
    """
    size, start = granule, 0
    while start < total:
        stop = min(total, start + size)
        began = time.perf_counter()
        yield range(start, stop)
        seconds = time.perf_counter() - began
        if seconds < SLICE_SECONDS / 2 and stop - start == size:
            size *= 2
        elif seconds > 2 * SLICE_SECONDS and size > granule:
            size = max(granule, size // 2 // granule * granule)
        start = stop


def is_interrupt(error: BaseException) -> bool:
    """Ctrl-C or SIGTERM, also as the ``SystemError`` of a kernel it reached while running."""
    cause = error.__cause__ or error.__context__
    return isinstance(error, KeyboardInterrupt) or (isinstance(error, SystemError)
                                                    and isinstance(cause, KeyboardInterrupt))


def quiet_worker() -> None:
    """Start of a worker process: Ctrl-C is the driver's, SIGTERM ends it, and so does the driver's death.

    Forked workers inherit the driver's Python handlers, so both signals are
    set here explicitly, and :class:`StopRequest` leaves them alone in the
    worker. On Linux the kernel sends SIGTERM when the driver dies
    (``PR_SET_PDEATHSIG``), even by SIGKILL.
    """
    global _IN_WORKER
    _IN_WORKER = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))
    except (OSError, AttributeError):
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # the driver died before prctl
        os._exit(0)
