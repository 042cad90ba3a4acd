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
"""

from __future__ import annotations

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
