"""Nanosecond clocks callable from numba code: monotonic wall time and the process's CPU time.

numba has no ``time.perf_counter`` in compiled code, yet the arena reports the
time each agent spends thinking, measured around every decision inside the
compiled game loop. The intrinsic calls the C library's ``clock_gettime``
directly (a vDSO call of a few tens of nanoseconds) and, unlike a ctypes
function pointer, keeps numba's on-disk cache working.

Thinking time is CPU time (:func:`cpu_ns`, like ``time.process_time`` in the
Python loop): on a shared machine, time spent waiting for a core is not the
agent's, and two agents compared "at equal time" must be compared on a clock
that load does not move.
"""

from __future__ import annotations

import sys

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_CLOCK_MONOTONIC = 1  # Linux and macOS value of the constant
#: CLOCK_PROCESS_CPUTIME_ID: the CPU time of every thread of this process (2 on Linux, 12 on macOS).
_CLOCK_PROCESS_CPU = 12 if sys.platform == "darwin" else 2


def _clock_reader(clock_id: int):
    """An intrinsic returning ``clock_gettime(clock_id)`` in nanoseconds."""

    @intrinsic
    def read_clock(typingctx):
        return types.int64(), lambda context, builder, sig, args: _read(builder, clock_id)

    return read_clock


def _read(builder, clock_id):
    i64 = ir.IntType(64)
    timespec = ir.LiteralStructType([i64, i64])
    function_type = ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()])
    clock_gettime = cgutils.get_or_insert_function(builder.module, function_type, "clock_gettime")
    value = cgutils.alloca_once(builder, timespec)
    builder.call(clock_gettime, [ir.Constant(ir.IntType(32), clock_id), value])
    seconds = builder.load(cgutils.gep_inbounds(builder, value, 0, 0))
    nanoseconds = builder.load(cgutils.gep_inbounds(builder, value, 0, 1))
    return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanoseconds)


_monotonic = _clock_reader(_CLOCK_MONOTONIC)
_process_cpu = _clock_reader(_CLOCK_PROCESS_CPU)


@njit(cache=True)
def monotonic_ns():
    """Nanoseconds on the monotonic clock (compare only differences)."""
    return _monotonic()


@njit(cache=True)
def cpu_ns():
    """Nanoseconds of CPU time this process has used (compare only differences)."""
    return _process_cpu()
