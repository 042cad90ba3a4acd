"""A monotonic nanosecond clock callable from numba code.

numba has no ``time.perf_counter`` in compiled code, yet the arena reports the
time each agent spends thinking, measured around every decision inside the
compiled game loop. This intrinsic calls the C library's
``clock_gettime(CLOCK_MONOTONIC)`` directly (a vDSO call of a few tens of
nanoseconds) and, unlike a ctypes function pointer, keeps numba's on-disk
cache working.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_CLOCK_MONOTONIC = 1  # Linux and macOS value of the constant


@intrinsic
def _clock_gettime_ns(typingctx):
    signature = types.int64()

    def codegen(context, builder, sig, args):
        i64 = ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])
        function_type = ir.FunctionType(ir.IntType(32), [ir.IntType(32), timespec.as_pointer()])
        clock_gettime = cgutils.get_or_insert_function(builder.module, function_type, "clock_gettime")
        value = cgutils.alloca_once(builder, timespec)
        builder.call(clock_gettime, [ir.Constant(ir.IntType(32), _CLOCK_MONOTONIC), value])
        seconds = builder.load(cgutils.gep_inbounds(builder, value, 0, 0))
        nanoseconds = builder.load(cgutils.gep_inbounds(builder, value, 0, 1))
        return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanoseconds)

    return signature, codegen


@njit(cache=True)
def monotonic_ns():
    """Nanoseconds on the monotonic clock (compare only differences)."""
    return _clock_gettime_ns()
