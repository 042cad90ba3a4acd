"""Sets of cards as 64-bit masks (bit ``card_id`` set), with numba kernels.

Masks are stored as signed ``int64`` so that they sit in the same state array
as every other number of a game; card ids stop at 53, so the sign bit is never
used and every operation behaves as on unsigned masks.
"""

from __future__ import annotations

import numpy as np
from llvmlite import binding as llvm_binding
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@njit(cache=True, inline="always")
def card_bit(card):
    """The one-card mask of ``card``."""
    return np.int64(1) << np.int64(card)


@njit(cache=True, inline="always")
def has_card(mask, card):
    return (mask >> np.int64(card)) & np.int64(1) != 0


def _bit_intrinsic(name: str, with_zero_flag: bool):
    """A numba intrinsic calling LLVM's ``llvm.<name>.i64`` (one machine instruction)."""

    @intrinsic
    def bit_operation(typingctx, mask):
        if not isinstance(mask, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            word = ir.IntType(64)
            value = context.cast(builder, args[0], signature.args[0], types.int64)
            arguments = [word, ir.IntType(1)] if with_zero_flag else [word]
            function = builder.module.declare_intrinsic(f"llvm.{name}", [word],
                                                        ir.FunctionType(word, arguments))
            # The zero flag False: defined (64) for an empty mask; callers check it anyway.
            extra = [ir.Constant(ir.IntType(1), 0)] if with_zero_flag else []
            return builder.call(function, [value, *extra])

        return types.int64(mask), codegen

    return bit_operation


_count_ones = _bit_intrinsic("ctpop", False)
_trailing_zeros = _bit_intrinsic("cttz", True)
_leading_zeros = _bit_intrinsic("ctlz", True)


@njit(cache=True, inline="always")
def popcount(mask):
    """Number of cards in the mask (the CPU's population count)."""
    return _count_ones(mask)


@njit(cache=True, inline="always")
def lowest_card(mask):
    """Smallest card id in the mask, or -1 for the empty mask."""
    if mask == 0:
        return -1
    return _trailing_zeros(mask)


@njit(cache=True, inline="always")
def highest_card(mask):
    """Largest card id in the mask, or -1 for the empty mask."""
    if mask == 0:
        return -1
    return 63 - _leading_zeros(mask)


@njit(cache=True)
def nth_card(mask, n):
    """The ``n``-th smallest card of the mask (0-based); used for uniform draws."""
    for _ in range(n):
        mask &= mask - 1
    return lowest_card(mask)


@njit(cache=True)
def cards_in(mask):
    """The card ids of the mask in ascending order, as an int64 array."""
    out = np.empty(popcount(mask), dtype=np.int64)
    i = 0
    while mask != 0:
        out[i] = lowest_card(mask)
        mask &= mask - 1
        i += 1
    return out


@njit(cache=True)
def write_cards(mask, out, start):
    """Write the cards of ``mask`` ascending into ``out[start:]``; return the new end."""
    n = start
    while mask != 0:
        out[n] = lowest_card(mask)
        mask &= mask - 1
        n += 1
    return n


#: Does this machine have BMI2's ``pdep`` (x86-64 since Haswell)? Read once, at import: numba's
#: on-disk cache is keyed by the CPU, so a cached kernel never meets another machine's answer.
HAS_PDEP = llvm_binding.get_host_cpu_features().get("bmi2", False)


@intrinsic
def _deposit_bits(typingctx, source, mask):
    """BMI2 ``pdep``: the low bits of ``source`` scattered to the set bits of ``mask``, in order."""
    if not (isinstance(source, types.Integer) and isinstance(mask, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        word = ir.IntType(64)
        values = [context.cast(builder, value, kind, types.int64)
                  for value, kind in zip(args, signature.args, strict=True)]
        function = builder.module.declare_intrinsic("llvm.x86.bmi.pdep.64", [],
                                                    ir.FunctionType(word, [word, word]))
        return builder.call(function, values)

    return types.int64(source, mask), codegen


@njit(cache=True, inline="always")
def select_card(mask, n):
    """:func:`nth_card` without its loop: the same card, in one ``pdep`` where the CPU has it.

    Depositing the single bit ``1 << n`` into ``mask`` leaves exactly the mask's ``n``-th set
    bit, whose position is the card; a random ``n`` made the loop's exit a mispredicted branch.
    """
    if HAS_PDEP:
        return lowest_card(_deposit_bits(np.int64(1) << np.int64(n), mask))
    return nth_card(mask, n)
