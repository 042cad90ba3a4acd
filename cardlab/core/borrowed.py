"""Borrowed arrays: views a kernel's inner calls pass around without reference counting.

Numba counts references to every array it passes to a compiled function: an
atomic increment on entry and a decrement on exit, for each array argument.
In a search that calls its helpers millions of times with the same few
arrays, those atomic operations cost as much as the work itself. A
*borrowed* view points at the same data with no owner (a null memory-info
pointer), so its reference counting is a null test. It is safe only while
the array it views stays alive: a kernel borrows its own arguments for the
length of one call, never returns or stores the views. A kernel that allocates nothing
at all is simpler compiled without counts (:mod:`cardlab.core.kernel`).

A kernel that walks a batch larger than the core's cache can also :func:`prefetch` the
next item's rows while it works on this one.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrowed(typingctx, array):
    """The same array (data, shape, strides) with no owner: reference counting skips it."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        view = cgutils.create_struct_proxy(signature.return_type)(context, builder, value=args[0])
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to fetch the cache line holding ``array[index]`` (a 1-D array), and return at
    once: a hint that never faults, for the next item of a batch while this one is worked on."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, signature.args[0], view, [args[1]])
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        signature_of_prefetch = ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32])
        function = cgutils.get_or_insert_function(builder.module, signature_of_prefetch, "llvm.prefetch.p0")
        # read, high temporal locality, data cache
        builder.call(function, [builder.bitcast(pointer, byte_pointer), ir.Constant(int32, 0),
                                ir.Constant(int32, 3), ir.Constant(int32, 1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen
