"""Inlining cardlab's small kernels at the cost of their size, not the square of it.

cardlab writes its hot paths as many small kernels marked ``inline="always"``
(a bit trick, a trick's winner, a bound of the double-dummy search), which numba
splices into their callers before typing. numba (0.68, the version cardlab is
tested with) pays for each splice far more than the code spliced:

* *The callee is compiled again at every call site.* numba runs its whole
  untyped pipeline on the callee's bytecode for each site, and that pipeline
  inlines the callee's own ``inline="always"`` calls: a tree of small kernels
  is rebuilt at every one of its transitive call sites.
* *Each block of the callee copies the whole callee.* The callee's IR is
  deep-copied block by block, each block with a fresh memo, and every variable
  refers to the function's scope, which holds every variable: copying one block
  copies them all. The copy is taken twice per site, the second one never used.

The double-dummy search inlines some 40 kernels into one: a cold
``cardlab solve`` took 71 s instead of 43, and a third more memory (numba issues
#8989 and #9204; numba-cuda #688 measures the same).

:func:`inline_once` changes how, not what, numba inlines cardlab's kernels:

* the untyped pipeline runs once per kernel (and compile flags), and each call
  site gets a copy of its result, made in one pass with one memo;
* numba's own two copies of that private copy are skipped.

The spliced IR is numba's own but for variable names, so the kernels and their speed are
the same (``tests/same_results.py`` checks results bit for bit). Other numba
code in the process is inlined as numba does it.
"""

from __future__ import annotations

import copy
from typing import Any

#: The kernels whose inlining is changed: the functions of these modules.
PACKAGE = "cardlab."
#: Each inlined kernel's IR after numba's untyped pipeline, by kernel and compile flags; never spliced
#: itself (each call site splices a copy).
UNTYPED_IR: dict[tuple, Any] = {}


def _ours(function: Any) -> bool:
    return getattr(function, "__module__", "").startswith(PACKAGE)


def _clone(function_ir: Any) -> Any:
    """A private copy of ``function_ir``'s blocks, made with one memo (the scope copied once)."""
    clone = function_ir.copy()
    memo: dict[int, Any] = {}
    clone.blocks = {label: copy.deepcopy(block, memo) for label, block in function_ir.blocks.items()}
    clone.block_entry_vars = {}
    return clone


class _SkipPrivateCopies:
    """Stands in for the ``copy`` module inside numba's inliner: blocks registered as private
    (a clone made for this one splice) are returned as they are; everything else is copied."""

    def __init__(self) -> None:
        self.private: set[int] = set()

    def deepcopy(self, value: Any, memo: dict | None = None) -> Any:
        if id(value) in self.private:
            return value
        return copy.deepcopy(value, memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


def inline_once() -> bool:
    """Patch numba's inliner (once per process) for cardlab's kernels; True if it is patched.

    Returns False, leaving numba as it is, when numba's inliner is not the one
    this was written against.
    """
    from numba.core import inline_closurecall

    worker = getattr(inline_closurecall, "InlineWorker", None)
    if worker is None or not all(hasattr(worker, name)
                                 for name in ("inline_ir", "inline_function", "run_untyped_passes")):
        return False
    if getattr(worker.inline_ir, "_cardlab", False):
        return True
    if inline_closurecall.copy is not copy:
        return False

    skip = _SkipPrivateCopies()
    inline_closurecall.copy = skip
    splice = worker.inline_ir
    compile_callee = worker.inline_function

    def inline_ir(self: Any, caller_ir: Any, block: Any, i: int, callee_ir: Any, callee_freevars: Any,
                  arg_typs: Any = None) -> Any:
        if not _ours(callee_ir.func_id.func):
            return splice(self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=arg_typs)
        private = _clone(callee_ir)
        ids = {id(each) for each in private.blocks.values()}
        skip.private |= ids
        try:
            return splice(self, caller_ir, block, i, private, callee_freevars, arg_typs=arg_typs)
        finally:
            skip.private -= ids

    def inline_function(self: Any, caller_ir: Any, block: Any, i: int, function: Any,
                        arg_typs: Any = None) -> Any:
        if not _ours(function):
            return compile_callee(self, caller_ir, block, i, function, arg_typs=arg_typs)
        flags = self.flags.copy()
        flags.enable_ssa = False  # as run_untyped_passes sets it
        key = (function, flags, tuple(sorted((self.locals or {}).items())), id(self.targetctx))
        canonical = UNTYPED_IR.get(key)
        if canonical is None:
            canonical = UNTYPED_IR[key] = self.run_untyped_passes(function)
        return self.inline_ir(caller_ir, block, i, canonical, function.__code__.co_freevars,
                              arg_typs=arg_typs)

    inline_ir._cardlab = True  # type: ignore[attr-defined]
    worker.inline_ir = inline_ir
    worker.inline_function = inline_function
    return True
