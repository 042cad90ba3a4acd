"""How the hot kernels are compiled: without numba's reference counts.

numba counts the references to every array a compiled function binds, with an atomic
increment and decrement of the array's count (a call into its runtime each). A kernel
that passes the state array on to helpers pays them at almost every step: they were half
the CPU time of a random Kaiser hand. A kernel that only reads and writes the
arrays its caller gives it (it allocates none and returns none, not even a view) needs no
count: the caller's references keep those arrays alive for the whole call.

A kernel that must allocate (a search's tables) hands its helpers owner-less views instead
(:mod:`cardlab.core.borrowed`); a small helper can simply be ``inline="always"``.
"""

from __future__ import annotations

from numba import njit

#: ``@njit(cache=True)`` for a kernel that only borrows arrays (see the module's docstring).
#: numba refuses to compile an allocation in it, so a misuse fails loudly, at compile time.
borrowing_kernel = njit(cache=True, _nrt=False)
