"""Optimizing a kernel's whole program once, in the kernel Python calls.

numba compiles each kernel that another kernel calls as a library of its own,
and finishes every library as if Python were going to call it: LLVM optimizes
the library's module with every kernel it calls linked in (the module passes,
at level 3) and makes machine code of it. The caller then links those
libraries into its own module and runs the module passes over the lot again.
So in a chain of calls each kernel's code is optimized once at every level
above it, and only the last time, in the kernel Python calls, makes the code
that runs: a cold Kaiser tournament of ``rules`` against ``ismcts`` spent 28
of its 116 CPU seconds in module passes, 3.5 of them in the loop Python calls.

:func:`optimize_at_entry` keeps the module passes for the kernels Python calls
(a compile that no other compile started) and for small modules, and gives a
large module compiled on a caller's behalf numba's cheap pass (inlining what
must be inlined, pruning reference counts) only. The caller's module passes
then optimize its callees with it, inlining across them as before, so the
code that runs is optimized as fully, and the kernels' results are the same
(``tests/same_results.py``).

Nor is a kernel compiled for a caller made into machine code, which is a
third of LLVM's time (:func:`_defer_machine_code`): its callers link its
optimized module and make their own code, and the machine-code engine gets an
empty module. A cold Kaiser tournament made machine code for some 240 such
libraries that Python never ran. Such a kernel is not entered in the table
numba's dispatcher looks Python's calls up in; if Python calls it after all,
in this process or a later one (numba's disk cache keeps the mark, in the
library's name), its module gets what it lacks, the full passes if it had
only the cheap one, and then its machine code (:func:`_realize`), which the
disk cache keeps in its place. Nothing is compiled twice: the large kernels
that both Python and other kernels call (ISMCTS's ``decide``, PIMC's) go
through numba's front end once.
"""

from __future__ import annotations

from typing import Any

#: The kernels whose linked modules are optimized only where Python calls them: this package's.
PACKAGE = "cardlab."
#: A kernel compiled for a caller keeps the full passes while its module holds at most this many
#: functions (itself and what it calls). Optimized alone, a module inlines its callees as its
#: callers' passes do not always: a callee called once there is inlined for certain, and in a
#: caller's larger module it is one of many calls. With 16, Kaiser's batched random hands (whose
#: step kernels hold 17 to 38) ran some 4% slower; with 40 they keep their code. Above it (ISMCTS's
#: decide holds 81, its rollouts about 50) are most of the module passes this saves.
SMALL_MODULE = 40
#: Marks (in its name, which numba's disk cache keeps) a library compiled for a caller with the cheap
#: pass only, its machine code not made.
LINKED_ONLY = "linked-only:"
#: Marks a small library compiled for a caller, fully optimized, its machine code not made.
DEFERRED = "deferred:"


def _ours(dispatcher: Any) -> bool:
    return getattr(getattr(dispatcher, "py_func", None), "__module__", "").startswith(PACKAGE)


def deferred(library: Any) -> bool:
    """Is ``library`` one compiled for its callers, its machine code made only if Python calls it?"""
    return library.name.startswith((DEFERRED, LINKED_ONLY))


#: The dispatchers numba is compiling now, outermost first: it compiles a callee inside its caller.
COMPILING: list[Any] = []


def _nested_and_ours() -> bool:
    return len(COMPILING) >= 2 and _ours(COMPILING[-1])


def _defer_machine_code(library: Any, mark: str) -> None:
    """Callers get the optimized module; the engine an empty one, until Python calls the kernel.

    Machine code is a third of LLVM's time, and a library compiled for its callers is not run as
    itself: each caller links its module in (:meth:`_get_module_for_linking`, kept here) and makes
    its own code. ``mark`` (in the name, which numba's disk cache keeps) says what is left to do
    if Python calls the kernel after all (:func:`_realize`).
    """
    from llvmlite import binding

    module = library._final_module
    empty = binding.parse_assembly("")
    empty.triple, empty.data_layout, empty.name = module.triple, module.data_layout, module.name
    library._shared_module, library._final_module = _for_linking(module), empty
    library._name = mark + library._name


def _for_linking(module: Any) -> Any:
    """A copy of ``module`` for callers to link: its definitions may appear in several callers."""
    from llvmlite import binding

    shared = module.clone()
    for function in shared.functions:
        if not function.is_declaration and function.linkage == binding.Linkage.external:
            function.linkage = "linkonce_odr"
    return shared


def _realize(cres: Any) -> Any:
    """The machine code of a kernel compiled for callers, now that Python calls it: ``cres`` with
    its entry point. A linked-only module is given the full passes first, as numba would have."""
    library, fndesc = cres.library, cres.fndesc
    module = library._shared_module.clone()
    for name in (fndesc.mangled_name, fndesc.llvm_cpython_wrapper_name):
        module.get_function(name).linkage = "external"
    made = library.codegen.create_library(library.name.split(":", 1)[1])
    made._final_module = module
    if linked_only(library):
        full, builder = made._codegen._module_pass_manager()
        full.run(module, builder)
    if library._object_caching_enabled:
        made.enable_object_caching()  # so the disk cache can keep this version in its place
    made._finalize_final_module()
    entry = cres.target_context.get_executable(made, fndesc, cres.environment)
    cres.target_context.insert_user_function(entry, fndesc, [made])  # later callers link this one
    return cres._replace(library=made, entry_point=entry)


def linked_only(library: Any) -> bool:
    """Was ``library`` compiled for its callers only (the cheap module pass, not the full one)?"""
    return library.name.startswith(LINKED_ONLY)


def _for_a_caller(library: Any) -> bool:
    """Is ``library`` the large module of one of our kernels, compiled because another kernel calls it?"""
    if not _nested_and_ours():
        return False
    functions = sum(1 for function in library._final_module.functions if not function.is_declaration)
    return functions > SMALL_MODULE


def _optimize_for_linking(library: Any) -> None:
    """numba's cheap module pass alone, and the library's name marked: callers optimize the rest."""
    from numba.core import codegen, config

    generator = library._codegen
    cheap, builder = generator._module_pass_manager(
        loop_vectorize=generator._loopvect, slp_vectorize=False, opt=generator._opt_level, cost="cheap")
    cheap.run(library._final_module, builder)
    if not config.LLVM_REFPRUNE_PASS:
        library._final_module = codegen.remove_redundant_nrt_refct(library._final_module)
    _defer_machine_code(library, LINKED_ONLY)


def _entry_not_made(library: Any, fndesc: Any, env: Any) -> Any:
    """A deferred kernel's entry point before it has code: never called, as the dispatcher does
    not list it, and replaced by :func:`_realize` when Python calls the kernel."""
    from numba import _dynfunc

    return _dynfunc.make_function(fndesc.lookup_module(), fndesc.qualname.split(".")[-1],
                                  "deferred", 0, env, (library,))


def _compile_for_python(dispatcher: Any, sig: Any, compile_kernel: Any, add_overload: Any) -> Any:
    """Python's call to one of our kernels: the entry point of its fully optimized machine code.

    A version compiled, or cached, for callers gets the passes it lacks and its machine code now
    (:func:`_realize`), under numba's compiler lock as every compile is.
    """
    from numba.core import sigutils
    from numba.core.compiler_lock import global_compiler_lock

    args = tuple(sigutils.normalize_signature(sig)[0])
    with global_compiler_lock:
        found = dispatcher.overloads.get(args)
        if found is None:
            entry = compile_kernel(dispatcher, sig)  # compiled now, or loaded from the disk cache
            found = dispatcher.overloads.get(args)
            if found is None or not deferred(found.library):
                return entry
        if not deferred(found.library):
            return found.entry_point
        made = _realize(found)
        del dispatcher.overloads[args]
        add_overload(dispatcher, made)
        dispatcher._cache.save_overload(made.signature, made)  # later processes load it ready
        return made.entry_point


def optimize_at_entry() -> bool:
    """Patch numba (once per process) so that cardlab's kernels are optimized where Python calls
    them; True if it is patched.

    Returns False, leaving numba as it is, when numba's code library or
    dispatcher is not the one this was written against.
    """
    from numba.core import codegen, dispatcher, event

    library_class, dispatcher_class = codegen.CPUCodeLibrary, dispatcher.Dispatcher
    if not hasattr(library_class, "_optimize_final_module") or not all(
            hasattr(dispatcher_class, name) for name in ("compile", "add_overload")):
        return False
    if getattr(library_class._optimize_final_module, "_cardlab", False):
        return True
    from numba.core import cpu

    make_executable = cpu.CPUContext.get_executable
    optimize_fully = library_class._optimize_final_module
    compile_kernel = dispatcher_class.compile
    add_overload = dispatcher_class.add_overload

    class Compiling(event.Listener):
        def on_start(self, ev: Any) -> None:
            COMPILING.append(ev.data.get("dispatcher"))

        def on_end(self, ev: Any) -> None:
            COMPILING.pop()

    def optimize_final_module(library: Any) -> None:
        if _for_a_caller(library):
            _optimize_for_linking(library)
        else:
            optimize_fully(library)
            if _nested_and_ours():
                _defer_machine_code(library, DEFERRED)

    def get_executable(self: Any, library: Any, fndesc: Any, env: Any) -> Any:
        library._ensure_finalized()  # which decides whether the machine code waits
        if deferred(library):
            return _entry_not_made(library, fndesc, env)
        return make_executable(self, library, fndesc, env)

    def add(self: Any, cres: Any) -> None:
        """A kernel compiled for its callers serves them, not Python: Python's first call with
        its types finds no entry, and comes to :func:`compile`."""
        if deferred(cres.library):
            self.overloads[tuple(cres.signature.args)] = cres
        else:
            add_overload(self, cres)

    def compile(self: Any, sig: Any) -> Any:
        if not _ours(self):
            return compile_kernel(self, sig)
        self.targetoptions["no_cfunc_wrapper"] = True  # no cardlab kernel is called by C pointer
        if COMPILING:
            return compile_kernel(self, sig)
        return _compile_for_python(self, sig, compile_kernel, add_overload)

    event.register("numba:compile", Compiling())
    optimize_final_module._cardlab = True  # type: ignore[attr-defined]
    library_class._optimize_final_module = optimize_final_module
    dispatcher_class.add_overload = add
    dispatcher_class.compile = compile
    cpu.CPUContext.get_executable = get_executable
    return True


def quick_flag_values() -> bool:
    """Patch numba (once per process) so that comparing two compilations' flags is a dict merge;
    True if it is patched.

    numba looks each overloaded function's implementation up by a key holding the compilation's
    flags, and every compilation has flags of its own, so each lookup compares two flag sets
    option by option through Python properties: in a cold Kaiser tournament of ``rules`` against
    ``ismcts``, a quarter of a million comparisons of some forty options each. The values are the
    same, and numba's ``__hash__`` (of the sorted option names) is unchanged.
    """
    from numba.core import targetconfig

    config_class = targetconfig.TargetConfig
    if getattr(config_class.values, "_cardlab", False):
        return True
    if "_values" not in getattr(config_class, "__slots__", ()):
        return False
    defaults: dict[type, dict[str, Any]] = {}

    def values(self: Any) -> dict[str, Any]:
        """Every option's value: the defaults, then what was set."""
        kind = type(self)
        known = defaults.get(kind)
        if known is None:
            known = defaults[kind] = {name: option.default for name, option in self.options.items()}
        return {**known, **self._values}

    values._cardlab = True  # type: ignore[attr-defined]
    config_class.values = values
    return True
