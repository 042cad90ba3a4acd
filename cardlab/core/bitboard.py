"""Sets of cards as 64-bit masks (bit ``card_id`` set), with numba kernels.

Masks are stored as signed ``int64`` so that they sit in the same state array
as every other number of a game; card ids stop at 53, so the sign bit is never
used and every operation behaves as on unsigned masks.
"""

from __future__ import annotations

import numpy as np
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
_swap_bytes = _bit_intrinsic("bswap", False)
_trailing_zeros = _bit_intrinsic("cttz", True)
_leading_zeros = _bit_intrinsic("ctlz", True)


@njit(cache=True, inline="always")
def popcount(mask):
    """Number of cards in the mask (the CPU's population count)."""
    return _count_ones(mask)


@njit(cache=True, inline="always")
def byte_swap(word):
    """The eight bytes of a 64-bit word in reverse order (one instruction)."""
    return _swap_bytes(word)


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


def _host_has_bmi2() -> bool:
    """Whether this CPU deposits bits in one instruction (BMI2's ``pdep``, fast since Intel
    Haswell and AMD Zen 3; older AMD chips run it in microcode, slower than the loop)."""
    try:
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features()
        name = llvm.get_host_cpu_name()
    except Exception:  # pragma: no cover - llvmlite without host introspection
        return False
    slow_microcode = name in ("znver1", "znver2", "bdver4", "bdver3", "bdver2", "bdver1")
    return bool(features.get("bmi2", False)) and not slow_microcode


#: ``nth_card`` uses ``pdep`` on this machine (decided once, at import).
HAS_FAST_PDEP = _host_has_bmi2()


def _bmi2_intrinsic(name: str):
    """A numba intrinsic calling BMI2's ``llvm.x86.bmi.<name>.64`` on two 64-bit words."""

    @intrinsic
    def bmi2_operation(typingctx, source, mask):
        if not (isinstance(source, types.Integer) and isinstance(mask, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            word = ir.IntType(64)
            function = builder.module.declare_intrinsic(f"llvm.x86.bmi.{name}.64", (),
                                                        ir.FunctionType(word, [word, word]))
            value = context.cast(builder, args[0], signature.args[0], types.int64)
            bits = context.cast(builder, args[1], signature.args[1], types.int64)
            return builder.call(function, [value, bits])

        return types.int64(source, mask), codegen

    return bmi2_operation


#: ``pdep``: the low bits of ``source`` placed, in order, at the set bits of ``mask``.
_deposit_bits = _bmi2_intrinsic("pdep")
#: ``pext``: the bits of ``source`` at the set bits of ``mask``, packed into the low bits.
_extract_bits = _bmi2_intrinsic("pext")


@njit(cache=True, inline="always")
def _deposit_by_loop(source, mask):
    out = np.int64(0)
    k = 0
    while mask != 0:
        bit = mask & -mask
        if (source >> np.int64(k)) & 1:
            out |= bit
        mask ^= bit
        k += 1
    return out


@njit(cache=True, inline="always")
def _extract_by_loop(source, mask):
    out = np.int64(0)
    k = 0
    while mask != 0:
        bit = mask & -mask
        if source & bit:
            out |= np.int64(1) << np.int64(k)
        mask ^= bit
        k += 1
    return out


@njit(cache=True, inline="always")
def _nth_card_by_deposit(mask, n):
    return lowest_card(_deposit_bits(np.int64(1) << np.int64(n), mask))


@njit(cache=True, inline="always")
def _nth_card_by_clearing(mask, n):
    for _ in range(n):
        mask &= mask - 1
    return lowest_card(mask)


_nth_card = _nth_card_by_deposit if HAS_FAST_PDEP else _nth_card_by_clearing
_deposit = _deposit_bits if HAS_FAST_PDEP else _deposit_by_loop
_extract = _extract_bits if HAS_FAST_PDEP else _extract_by_loop


@njit(cache=True, inline="always")
def deposit_bits(source, mask):
    """The low bits of ``source`` placed, in order, at the set bits of ``mask`` (``pdep``)."""
    return _deposit(source, mask)


@njit(cache=True, inline="always")
def extract_bits(source, mask):
    """The bits of ``source`` at the set bits of ``mask``, packed into the low bits (``pext``).

    One instruction where the CPU has fast BMI2; a loop over the mask's bits elsewhere.
    """
    return _extract(source, mask)


@njit(cache=True, inline="always")
def nth_card(mask, n):
    """The ``n``-th smallest card of the mask (0-based), -1 past its end; used for uniform draws.

    One ``pdep`` deposits bit ``n`` at the mask's ``n``-th card where the CPU has a fast one;
    elsewhere the ``n`` lowest cards are cleared one by one. Both give the same card.
    """
    return _nth_card(mask, n)


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
