"""A small, explicit random stream for numba kernels.

Every kernel that draws random numbers takes a one-element ``uint64`` array as
its stream, so results depend only on the seed (never on numba's hidden global
generator or on which process ran the work). The generator is SplitMix64,
a fast, well-tested 64-bit mixer (Steele, Lea & Flood, 2014).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def make_stream(seed: int) -> np.ndarray:
    """A fresh stream for ``seed`` (any Python int)."""
    if not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    stream = np.zeros(1, dtype=np.uint64)
    stream[0] = np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF)
    next_u64(stream)
    return stream


@njit(cache=True, inline="always")
def mix64(z):
    z = np.uint64(z)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def next_u64(stream):
    stream[0] = stream[0] + _GOLDEN
    return mix64(stream[0])


#: Bounds up to this one are reduced by a reciprocal multiplication instead of a division.
RECIPROCAL_BOUNDS = 256


def _division_magic(divisor: int) -> tuple[int, int]:
    """libdivide's branch-free unsigned 64-bit magic for ``divisor`` >= 2: ``(multiplier, shift)``.

    ``n // divisor`` is then ``(((n - q) >> 1) + q) >> shift`` with ``q = high64(n * multiplier)``
    for every 64-bit ``n``: the multiplier of ``2**(64 + log2) / divisor`` needs 65 bits, and
    the halving add supplies the 65th (Granlund & Montgomery 1994; Fish, libdivide). A power of
    two has multiplier 0, so the same steps shift it. One formula for every divisor: no branch a
    random divisor would mispredict.
    """
    log2 = divisor.bit_length() - 1
    if divisor & (divisor - 1) == 0:
        return 0, log2 - 1
    proposed, remainder = divmod(1 << (64 + log2), divisor)
    proposed = 2 * proposed + (1 if 2 * remainder >= divisor else 0)
    return (proposed + 1) & (2**64 - 1), log2


def _magic_table() -> np.ndarray:
    table = np.zeros((RECIPROCAL_BOUNDS + 1, 2), dtype=np.uint64)
    for divisor in range(2, RECIPROCAL_BOUNDS + 1):
        table[divisor] = _division_magic(divisor)
    return table


_MAGIC = _magic_table()

#: 840 is the least common multiple of 1..8, so ``r % n == (r % 840) % n`` for every bound
#: up to 8 (every choice of a card from a hand of at most eight).
SMALL_BOUNDS_MULTIPLE = 840


def _small_remainder_table() -> np.ndarray:
    """``table[x * 8 + n - 1] == x % n`` for ``x < 840`` and ``1 <= n <= 8``."""
    x = np.arange(SMALL_BOUNDS_MULTIPLE)[:, None]
    n = np.arange(1, 9)[None, :]
    return (x % n).astype(np.uint8).ravel()


_SMALL_REMAINDERS = _small_remainder_table()


@intrinsic
def _multiply_high(typingctx, a, b):
    """The high 64 bits of the 128-bit product ``a * b`` (one ``mul`` instruction)."""
    if not (isinstance(a, types.Integer) and isinstance(b, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        wide = ir.IntType(128)
        x = builder.zext(context.cast(builder, args[0], signature.args[0], types.uint64), wide)
        y = builder.zext(context.cast(builder, args[1], signature.args[1], types.uint64), wide)
        product = builder.mul(x, y)
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return types.uint64(a, b), codegen


@njit(cache=True, inline="always")
def small_remainder(r, n):
    """``r % n`` for an unsigned 64-bit ``r`` and ``1 <= n``, without a division up to
    RECIPROCAL_BOUNDS.

    A 64-bit division is the costliest instruction of a random card draw (and of a seat count
    round a table whose size is known only at run time); a multiplication by ``n``'s
    precomputed reciprocal gives the same quotient, so every draw stays what it was.
    """
    if n > RECIPROCAL_BOUNDS:
        return r % np.uint64(n)
    high = _multiply_high(r, _MAGIC[n, 0])
    quotient = ((((r - high) >> np.uint64(1)) + high) >> _MAGIC[n, 1])
    divisor = np.uint64(n)
    quotient = r if n == 1 else quotient  # a select: 1 has no 64-bit multiplier
    return r - quotient * divisor


@njit(cache=True, inline="always")
def choice_remainder(r, n):
    """:func:`small_remainder` for a choice among at most eight (a card from a hand), where
    ``n`` is known only once the hand's playable cards are counted.

    ``r % 840`` waits only for the draw, which comes before ``n``; the choice then waits for
    one table load instead of a chain of multiplications. Larger bounds, and callers whose
    bounds are often larger (a branch on ``n <= 8`` they would mispredict), take
    :func:`small_remainder`.
    """
    if n <= 8:
        index = (r % np.uint64(SMALL_BOUNDS_MULTIPLE)) * np.uint64(8) + np.uint64(n - 1)
        return np.uint64(_SMALL_REMAINDERS[index])
    return small_remainder(r, n)


@njit(cache=True, inline="always")
def _accepted(r, bound):
    """Lemire-style rejection: a draw below ``2**64 mod bound`` (itself below ``bound``) is
    drawn again, so every remainder is equally likely; a draw of at least ``bound`` (all but
    bound / 2**64 of them) is accepted without computing the threshold."""
    return r >= bound or r >= (np.uint64(0) - bound) % bound


@njit(cache=True, inline="always")
def _accepted_draw(position, n):
    """The stream's next draw that :func:`_accepted` keeps for bound ``n``: ``(draw, new position)``."""
    bound = np.uint64(n)
    while True:
        position = position + _GOLDEN
        r = mix64(position)
        if _accepted(r, bound):
            return r, position


@njit(cache=True, inline="always")
def choice_below_from_position(position, n):
    """:func:`below_from_position` with :func:`choice_remainder`: the same draws."""
    r, position = _accepted_draw(position, n)
    return np.int64(choice_remainder(r, n)), position


@njit(cache=True, inline="always")
def random_choice_below(stream, n):
    """:func:`random_below` for a choice among a hand's cards: the same draws, faster."""
    draw, stream[0] = choice_below_from_position(stream[0], n)
    return draw


@njit(cache=True, inline="always")
def below_from_position(position, n):
    """:func:`random_below` on a stream held in a local variable: ``(draw, new position)``.

    ``position`` is what a stream array holds (``stream[0]``). A playout that keeps it in a
    register for a whole hand and writes it back at the end draws exactly the numbers the
    array would give, without a load and a store per draw that the compiler cannot drop
    (the state array the playout writes might, for all it knows, be the stream).
    """
    r, position = _accepted_draw(position, n)
    return np.int64(small_remainder(r, n)), position


@njit(cache=True)
def random_below(stream, n):
    """Uniform integer in ``[0, n)`` (n >= 1), by Lemire-style rejection (:func:`_accepted`).

    The remainder comes from :func:`small_remainder`, a multiplication instead of a
    division, and the same draws.
    """
    draw, stream[0] = below_from_position(stream[0], n)
    return draw


@njit(cache=True)
def random_unit(stream):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(stream) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# One explicit signature: a Python int above 2**63 (half of all seeds drawn from a stream)
# must not meet an (int64, int64) specialization compiled earlier, which cannot hold it.
@njit("uint64(uint64, int64)", cache=True)
def derive_seed(seed, index):
    """A seed for sub-stream ``index`` of ``seed``: deal k of a tournament, worker j, ..."""
    return mix64(np.uint64(seed) ^ mix64(np.uint64(index) + _GOLDEN))
