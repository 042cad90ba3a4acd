"""Worker processes that survive losing one of them.

``multiprocessing.Pool`` waits forever for the result of a worker that was
killed (by the out-of-memory killer, say). Here the driver gives each worker
one task at a time over its own pipe and watches the pipe together with the
process: a worker that dies is replaced by a fresh one and the task it held
is run again, at most ``retries`` times, after which :class:`WorkerLostError`
stops the run. Tasks must be deterministic, so a retried task gives exactly
the result the lost worker would have given.
"""

from __future__ import annotations

import multiprocessing
import signal
import traceback
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from itertools import chain
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from cardlab.core.interrupt import quiet_worker


class WorkerLostError(RuntimeError):
    """A task whose worker process died more often than the retries allow (one line)."""


def _serve(connection: Connection, function: Callable[[Any], Any]) -> None:
    """A worker's life: run the tasks sent on ``connection`` until it sends None.

    Signals are the driver's (:func:`~cardlab.core.interrupt.quiet_worker`); a
    driver gone (its pipe closed) ends the worker without a word.
    """
    quiet_worker()
    try:
        while (task := connection.recv()) is not None:
            try:
                reply = (True, function(task), "")
            except Exception as error:
                reply = (False, error, traceback.format_exc())
            try:
                connection.send(reply)
            except (EOFError, OSError):
                raise
            except Exception as error:  # an error that does not pickle still arrives, as text
                connection.send((False, RuntimeError(f"{type(reply[1]).__name__}: {reply[1]}"),
                                 str(error)))
    except (EOFError, OSError):  # the driver is gone: nobody to answer
        return


def _exit_cause(process: BaseProcess) -> str:
    process.join()
    code = process.exitcode
    if code is not None and code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit code {code}"


def run_tasks(
    function: Callable[[Any], Any],
    tasks: Mapping[Hashable, Any],
    workers: int,
    retries: int = 2,
    what: str = "task",
) -> Iterator[tuple[Hashable, Any]]:
    """Yield ``(key, function(tasks[key]))`` for every task, in the order they finish.

    ``workers`` spawned processes run the tasks; an error raised by ``function``
    is raised here. A task whose worker dies is run again in a fresh worker, and
    raises :class:`WorkerLostError` once it has lost ``retries + 1`` workers.
    Closing the iterator (or an error) terminates the workers at once.

    Long on purpose: one generator whose local state is the pool's bookkeeping (workers, tasks in
    flight, retries).
    """
    context = multiprocessing.get_context("spawn")
    queue = deque(tasks)
    losses = dict.fromkeys(tasks, 0)
    idle: list[tuple[Connection, BaseProcess]] = []
    busy: dict[Connection, tuple[BaseProcess, Hashable]] = {}

    def start() -> tuple[Connection, BaseProcess]:
        parent, child = context.Pipe()
        process = context.Process(target=_serve, args=(child, function), daemon=True)
        process.start()
        child.close()
        return parent, process

    def lost(connection: Connection, process: BaseProcess, key: Hashable) -> None:
        connection.close()
        cause = _exit_cause(process)
        losses[key] += 1
        if losses[key] > retries:
            times = "once" if losses[key] == 1 else f"{losses[key]} times"
            raise WorkerLostError(f"a worker process died ({cause}) while running {what} {key}, {times}")
        queue.appendleft(key)
        idle.append(start())

    def feed() -> None:
        """Give a queued task to every idle worker."""
        while queue and idle:
            connection, process = idle.pop()
            key = queue.popleft()
            try:
                connection.send(tasks[key])
            except OSError:  # died while idle
                lost(connection, process, key)
                continue
            busy[connection] = (process, key)

    try:
        idle.extend(start() for _ in range(min(workers, len(queue))))
        feed()
        while busy:
            ready = set(wait([*busy, *(process.sentinel for process, _ in busy.values())]))
            finished = []
            for connection, (process, key) in list(busy.items()):
                if connection not in ready and process.sentinel not in ready:
                    continue
                del busy[connection]
                try:
                    ok, value, remote = connection.recv()
                except (EOFError, OSError):
                    lost(connection, process, key)
                    continue
                idle.append((connection, process))
                if not ok:
                    value.add_note(f"raised in a worker process:\n{remote}")
                    raise value
                finished.append((key, value))
            feed()  # the workers go on while the caller handles the results
            yield from finished
    finally:
        for connection, _ in idle:
            try:
                connection.send(None)
            except OSError:
                pass
        everyone = [process for _, process in idle] + [process for process, _ in busy.values()]
        for process, _ in busy.values():
            process.terminate()
        for process in everyone:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join()
        for connection in [*(c for c, _ in idle), *busy]:
            connection.close()


def run_chunks(function: Callable[[Any], Any], tasks: Mapping[Hashable, Any], workers: int,
               progress: bool = False, total: int = 0, unit: str = "deal", description: str = "",
               what: str = "chunk", size: Callable[[Any], int] = lambda result: len(result[0]),
               compiling: str | None = None) -> Iterator[tuple[Hashable, Any]]:
    """Yield ``(key, function(tasks[key]))`` for chunks of a long computation, with a progress bar.

    With one worker every chunk runs here. With more, the first chunk runs
    here and the rest over ``workers`` processes (:func:`run_tasks`): the first
    compiles the kernels they share once, to the disk cache, and the workers
    load them instead of each compiling its own. The bar (if ``progress``)
    counts to ``total``, each finished chunk adding ``size(result)``; if the
    kernels compile here, one line says so (``compiling`` names them) above it.
    """
    from contextlib import nullcontext

    from cardlab.core.compiling import announce

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, desc=description, unit=unit)
    try:
        with (nullcontext() if compiling is None else
              announce(compiling, write=None if bar is None else bar.write)):
            yield from _finished_chunks(function, tasks, workers, what, bar, size)
    finally:
        if bar is not None:
            bar.close()


def _finished_chunks(function: Callable[[Any], Any], tasks: Mapping[Hashable, Any], workers: int, what: str,
                     bar: Any, size: Callable[[Any], int]) -> Iterator[tuple[Hashable, Any]]:
    chunks = iter(tasks.items())
    finished: Iterable[tuple[Hashable, Any]] = ((key, function(task)) for key, task in chunks)
    if workers > 1 and len(tasks) > 1:
        key, task = next(chunks)
        finished = chain([(key, function(task))], run_tasks(function, dict(chunks), workers, what=what))
    for key, result in finished:
        if bar is not None:
            bar.update(size(result))
        yield key, result

