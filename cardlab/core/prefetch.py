"""Asking the CPU to start loading memory a kernel will read soon.

A transposition-table probe reads a bucket at a random place in a table of
megabytes: a miss in every cache, some hundred nanoseconds of waiting. When
the bucket's address is known before the work that precedes the probe (the
search's sure-winner bounds), a *prefetch* lets that work and the load run at
once. It is only a hint: it never faults and changes no value.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Start loading the cache line of ``array[index]`` (``index`` a tuple, one int per axis)."""
    if not (isinstance(array, types.Array) and isinstance(index, types.UniTuple)
            and isinstance(index.dtype, types.Integer) and index.count == array.ndim):
        return None

    def codegen(context, builder, signature, args):
        array_type, index_type = signature.args
        view = context.make_array(array_type)(context, builder, args[0])
        indices = [context.cast(builder, builder.extract_value(args[1], axis), index_type.dtype, types.intp)
                   for axis in range(index_type.count)]
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, indices, wraparound=False)
        address = builder.bitcast(pointer, ir.IntType(8).as_pointer())
        flag = ir.IntType(32)
        function = builder.module.declare_intrinsic(
            "llvm.prefetch", [address.type], ir.FunctionType(ir.VoidType(), [address.type, flag, flag, flag]))
        # A read (0), kept in every cache level (locality 3), of data (1).
        builder.call(function, [address, ir.Constant(flag, 0), ir.Constant(flag, 3), ir.Constant(flag, 1)])
        return context.get_dummy_value()

    return types.none(array, index), codegen
