"""What gets compiled, and that a first compile is announced: a game's kernels for that game only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cardlab.core import compiling
from cardlab.core.specialize import LiteralInt, by_key, key_set, switch_within
from cardlab.games import SPECS

ROOT = Path(__file__).resolve().parents[1]

#: Opens a script run from an empty cache: it records every function numba compiles, as module:name.
_RECORD = """
import json
from numba.core import event
compiled = []
class Record(event.Listener):
    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        compiled.append(getattr(function, "__module__", "") + ":" + function.__name__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Record())
"""


def compiled_from_cold(code: str, tmp_path: Path) -> list[str]:
    """What numba compiles (module:name) running ``code`` in a fresh process with an empty cache."""
    env = {**os.environ, "CARDLAB_NUMBA_CACHE": str(tmp_path / "cache")}
    script = _RECORD + code + "\nprint(json.dumps(sorted(set(compiled))))\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=1800, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compiled_modules(tmp_path: Path, *agents: str) -> set[str]:
    """The modules of the functions a Kaiser tournament of ``agents`` compiles from an empty cache."""
    functions = compiled_from_cold(f"""
from cardlab.arena.entrants import AgentSpec
from cardlab.arena.tournament import TournamentSettings, play_chunk
agents = tuple(AgentSpec(name, name) for name in {list(agents)!r})
play_chunk(TournamentSettings("cardlab_kaiser", {{}}, agents, 2, 1, 2), 0)
""", tmp_path)
    return {function.partition(":")[0] for function in functions}


@pytest.mark.integration  # compiles from an empty cache in a subprocess (about a minute)
def test_a_kaiser_tournament_compiles_no_other_game(tmp_path: Path) -> None:
    modules = compiled_modules(tmp_path, "rules", "random")
    assert any("kaiser" in module for module in modules)
    assert not [m for m in modules if "twenty_eight" in m or "literature" in m or "ismcts" in m
                or "pimc" in m or "solver" in m or "network" in m]


@pytest.mark.integration  # compiles PIMC and the double-dummy solver from an empty cache (minutes)
def test_a_kaiser_pimc_tournament_compiles_no_other_game(tmp_path: Path) -> None:
    modules = compiled_modules(tmp_path, "rules", "pimc")
    assert any("pimc" in module for module in modules) and any("solver" in module for module in modules)
    assert not [m for m in modules if "twenty_eight" in m or "literature" in m or "ismcts" in m]


@pytest.mark.integration  # compiles from an empty cache in a subprocess (about a minute)
def test_a_bound_on_the_rule_based_player_compiles_no_search_agent(tmp_path: Path) -> None:
    functions = compiled_from_cold("""
from cardlab.arena.entrants import AgentSpec
from cardlab.evaluation.lbr import exploit
exploit("kaiser", {"hand_size": 1}, AgentSpec("rules", "rules"), 2, 0, {"worlds": 2})
""", tmp_path)
    assert "cardlab.evaluation.lbr:respond" in functions
    assert not [f for f in functions if "twenty_eight" in f or "literature" in f or "pimc" in f
                or "solver" in f or f.endswith((":decide", ":visit_shares", ":bidding_agent_action"))]


def test_by_key_compiles_only_the_literal_keys_kernel() -> None:
    from numba import njit

    @njit
    def first(x):
        return x + 1

    @njit
    def second(x):
        return x + 2

    choose = by_key("choose", {0: first, 1: second})

    @njit
    def call(key, x):
        return choose(key, x)

    assert call(LiteralInt(1), 5) == 7
    assert second.signatures and not first.signatures
    assert call(0, 5) == 6 and call(1, 5) == 7  # a key known at run time: every kernel
    assert choose(0, 5) == 6  # from Python, the kernel itself


def test_switch_within_compiles_the_allowed_keys_and_refuses_the_others() -> None:
    from numba import njit

    @njit
    def one(x):
        return 1

    @njit
    def two(x):
        return 2

    @njit
    def three(x):
        return 3

    @njit
    def unknown(x):
        return -1

    switch = switch_within("switch", {1: one, 2: two, 3: three, -1: unknown})

    @njit
    def call(allowed, keys):
        return [switch(allowed, key, 0.0) for key in keys]

    keys = np.array([1, 2, 3, 7])
    assert call(key_set([1, 3]), keys) == [1, -1, 3, -1]
    assert one.signatures and three.signatures and not two.signatures
    assert call(int(key_set([1, 3])), keys) == [1, -1, 3, -1]  # the same answers without a literal


def test_announce_speaks_once_when_numba_compiles_and_never_on_a_warm_call() -> None:
    from numba import njit

    @njit
    def fresh(x):
        return x * 3

    lines = []
    with compiling.announce("test kernels", 12, write=lines.append):
        fresh(2)
        fresh(2.5)
    assert lines == ["compiling test kernels, first run only, about 10 s"]
    with compiling.announce("test kernels", write=lines.append):
        fresh(4)  # compiled already
    assert len(lines) == 1


def test_nested_announcements_leave_the_line_to_the_innermost() -> None:
    from numba import njit

    @njit
    def fresh(x):
        return x - 1

    outer, inner = [], []
    with compiling.announce("everything", write=outer.append):
        with compiling.announce("the loop", write=inner.append):
            fresh(1)
    assert outer == [] and inner == ["compiling the loop, first run only (can take a minute)"]


def test_a_silenced_block_announces_nothing_and_the_next_one_speaks_again() -> None:
    from numba import njit

    @njit
    def fresh(x):
        return x + 7

    @njit
    def other(x):
        return x + 8

    lines = []
    with compiling.silenced(), compiling.announce("the loop", write=lines.append):
        fresh(1)
    assert lines == [] and compiling.watch().silenced == 0
    with compiling.announce("the loop", write=lines.append):
        other(1)
    assert lines == ["compiling the loop, first run only (can take a minute)"]


def test_every_game_has_distinct_literal_kernel_ids() -> None:
    ids = [spec.kernel_id for spec in SPECS]
    assert all(isinstance(kernel_id, LiteralInt) for kernel_id in ids)
    assert sorted(ids) == list(range(len(SPECS)))


def test_a_batch_of_environments_announces_its_first_compile_once(capsys: pytest.CaptureFixture) -> None:
    from numba import njit

    import cardlab.rl as rl

    @njit
    def fresh(x):
        return x + 5

    env = rl.make("kaiser", num_envs=2, seed=0)
    with env._compiling():  # stands for the kernels a first reset compiles
        fresh(1)
    step = env.reset()
    with env._compiling():
        fresh(1.5)
    env.step(np.argmax(step.legal_mask, axis=1))
    with env._compiling():  # after the first step, nothing is watched
        fresh(np.int8(1))
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("compiling ")]
    assert lines == [compiling.notice("Kaiser RL environment kernels", compiling.estimate("rl", "kaiser"))]


def test_the_cache_folder_is_named_by_the_optimization_level(tmp_path: Path) -> None:
    """Kernels compiled at one LLVM level are never loaded at another: numba's cache keys omit it."""
    probe = ("import numba.core.config as c, cardlab, numba; "
             "print(int(c.OPT) if str(c.OPT) != 'max' else 'max', numba.config.CACHE_DIR)")
    for setting, level in ((None, "3"), ("1", "1")):
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_OPT", "NUMBA_CACHE_DIR")}
        env["CARDLAB_NUMBA_CACHE"] = str(tmp_path)
        if setting:
            env["NUMBA_OPT"] = setting
        shown, folder = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                                       check=True).stdout.split()
        assert shown == level
        assert Path(folder).parent == tmp_path and folder.endswith(f"-o{level}")


def _nested_kernels(module: str) -> tuple:
    """A small tree of ``inline="always"`` kernels called at several sites, defined in ``module``."""
    from numba import njit

    def bit_count(mask):
        count = 0
        while mask:
            mask &= mask - 1
            count += 1
        return count

    def lowest(mask):
        return mask & -mask

    def shape(mask, weight):
        total = 0
        for step in range(weight):
            total += bit_count(mask >> step) * weight + lowest(mask)
        return total, bit_count(total) + lowest(total)

    def top(masks):
        total = 0
        for mask in masks:
            first, second = shape(mask, 3)
            total += first - second + bit_count(mask) + shape(mask ^ total, 2)[0]
        return total

    kernels = []
    for function in (bit_count, lowest, shape):
        function.__module__ = module
        kernels.append(njit(inline="always")(function))
    bit_count, lowest, shape = kernels  # noqa: F841  (the closure cells the bodies call: now the kernels)
    top.__module__ = module
    return njit(top)


def test_cardlabs_kernels_are_inlined_once_each_and_compute_what_numbas_inlining_computes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from numba.core.inline_closurecall import InlineWorker

    from cardlab.core import inlining

    assert getattr(InlineWorker.inline_ir, "_cardlab", False), "import cardlab patches numba's inliner"
    runs: list[str] = []
    untyped = InlineWorker.run_untyped_passes

    def counted(self, function, enable_ssa=False):
        runs.append(f"{function.__module__}:{function.__name__}")
        return untyped(self, function, enable_ssa)

    monkeypatch.setattr(InlineWorker, "run_untyped_passes", counted)
    masks = np.array([0b1011, 0xF0F0, 12345, 2**40 + 7], dtype=np.int64)
    results = {}
    for module in ("cardlab.inlining_probe", "inlining_probe"):  # patched, and numba's own
        kernel = _nested_kernels(module)
        results[module] = kernel(masks)
    assert results["cardlab.inlining_probe"] == results["inlining_probe"] == kernel.py_func(masks)
    ours = [run for run in runs if run.startswith("cardlab.")]
    theirs = [run for run in runs if not run.startswith("cardlab.")]
    assert sorted(ours) == [f"cardlab.inlining_probe:{name}" for name in ("bit_count", "lowest", "shape")]
    assert len(theirs) >= 11  # numba compiles a callee at every site, a nested one at each of its caller's
    assert sum(key[0].__module__ == "cardlab.inlining_probe" for key in inlining.UNTYPED_IR) == 3


def _caller_and_callee(module: str) -> tuple:
    """Two fresh kernels of ``module``: ``outer`` calls ``inner`` twice."""
    from numba import njit

    def inner(x):
        return x * 2 + 1

    def outer(x):
        return inner(x) + inner(x + 1)

    inner.__module__ = outer.__module__ = module
    inner = njit(inner)  # noqa: F841  (the closure cell outer calls: now the kernel)
    return njit(outer), inner


def test_a_kernel_compiled_for_a_caller_is_optimized_in_it_and_compiled_again_for_python(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cardlab.core import optimizing
    from cardlab.core.optimizing import linked_only

    small_outer, small_inner = _caller_and_callee("cardlab.optimizing_probe")
    assert small_outer(3) == 16  # a small module keeps the full passes
    assert not any(linked_only(each.library) for each in small_inner.overloads.values())
    monkeypatch.setattr(optimizing, "SMALL_MODULE", 0)  # every module is large
    outer, inner = _caller_and_callee("cardlab.optimizing_probe")
    assert outer(3) == 16
    (for_outer,) = inner.overloads.values()
    assert linked_only(for_outer.library), "compiled inside outer's compile: the cheap pass only"
    assert not [function for function in for_outer.library._final_module.functions
                if not function.is_declaration], "no machine code made for outer's sake"
    assert not any(linked_only(each.library) for each in outer.overloads.values())
    assert inner(3) == 7  # Python's first call: the full passes on inner's module, then machine code
    (for_python,) = inner.overloads.values()
    assert not linked_only(for_python.library) and for_python is not for_outer
    assert outer(5) == 24 and inner(4) == 9
    theirs_outer, theirs_inner = _caller_and_callee("optimizing_probe")  # numba's own: left as it is
    assert theirs_outer(3) == 16

    def c_wrappers(kernel) -> list[str]:
        (compiled,) = kernel.overloads.values()
        return [function.name for function in compiled.library._final_module.functions
                if function.name.startswith("cfunc.") and not function.is_declaration]

    assert not c_wrappers(outer) and c_wrappers(theirs_outer)  # ours compile without numba's C wrapper
    assert not any(linked_only(each.library) for each in theirs_inner.overloads.values())


def test_a_small_kernel_compiled_for_a_caller_gets_its_machine_code_when_python_first_calls_it() -> None:
    from numba import njit

    from cardlab.core.optimizing import deferred

    outer, inner = _caller_and_callee("cardlab.optimizing_probe")
    assert outer(3) == 16
    (for_outer,) = inner.overloads.values()
    assert deferred(for_outer.library), "fully optimized for outer, its own machine code not made"
    assert not [function for function in for_outer.library._final_module.functions
                if not function.is_declaration]
    assert [function for function in for_outer.library._get_module_for_linking().functions
            if not function.is_declaration], "callers link the optimized module"
    assert inner(3) == 7  # Python's first call makes the machine code
    (for_python,) = inner.overloads.values()
    assert not deferred(for_python.library)
    assert inner(4) == 9 and outer(5) == 24

    def later(x):
        return inner(x) - 1

    later.__module__ = "cardlab.optimizing_probe"
    assert njit(later)(5) == 10  # a caller compiled after Python's call links the kernel as before

def test_threads_that_first_call_a_kernel_compiled_for_a_caller_all_get_its_one_realized_version() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from cardlab.core.optimizing import deferred

    outer, inner = _caller_and_callee("cardlab.optimizing_probe")
    assert outer(3) == 16 and all(deferred(each.library) for each in inner.overloads.values())
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(inner, range(64)))
    assert results == [2 * x + 1 for x in range(64)]
    (for_python,) = inner.overloads.values()
    assert not deferred(for_python.library)

_CACHED_PROBE = """
from numba import njit

@njit(cache=True)
def inner(x):
    return x * 2 + 1

@njit(cache=True)
def outer(x):
    return inner(x) + inner(x + 1)

@njit(cache=True)
def other_outer(x):
    return inner(x) * 3
"""

#: After :data:`_RECORD`: calls the probe's kernel named on the command line from Python.
_CALL_FROM_PYTHON = """
import sys
from cardlab.core import optimizing
optimizing.PACKAGE = ("cardlab.", "cached_probe")  # the probe's module counts as cardlab's
optimizing.SMALL_MODULE = int(sys.argv[2])  # 0: its one-function modules count as large
import cached_probe
result = getattr(cached_probe, sys.argv[1])(3)
probe = [name for name in compiled if name.startswith("cached_probe:")]  # not what import cardlab compiles
kinds = ["linked-only" if optimizing.linked_only(each.library) else
         "deferred" if optimizing.deferred(each.library) else "full"
         for each in cached_probe.inner.overloads.values()]
print(json.dumps([result, probe, kinds]))
"""


@pytest.mark.integration  # six fresh processes sharing a cache folder
def test_pythons_call_optimizes_fully_a_kernel_the_disk_cache_holds_for_callers_only(tmp_path: Path) -> None:
    outer, inner = "cached_probe:outer", "cached_probe:inner"
    call = _probe_caller(tmp_path, "0")
    assert call("outer") == [16, [outer, inner], ["linked-only"]]  # inner cached for outer only
    assert call("other_outer") == [21, ["cached_probe:other_outer"], ["linked-only"]]  # links its module
    assert call("inner") == [7, [], ["full"]]  # loaded, fully optimized and made code, not compiled
    assert call("inner") == [7, [], ["full"]]  # the full version, now in the cache
    assert call("other_outer") == [21, [], []]  # from the cache: inner is not needed
    assert call("outer") == [16, [], []]  # outer from the cache: inner is not needed


def _probe_caller(tmp_path: Path, small_module: str) -> Any:
    """Runs one of the cached probe's kernels in a fresh process sharing ``tmp_path``'s cache."""
    (tmp_path / "cached_probe.py").write_text(_CACHED_PROBE)
    (tmp_path / "call.py").write_text(_RECORD + _CALL_FROM_PYTHON)
    env = {**os.environ, "CARDLAB_NUMBA_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}

    def call(kernel: str) -> list:
        done = subprocess.run([sys.executable, str(tmp_path / "call.py"), kernel, small_module], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    return call


@pytest.mark.integration  # three fresh processes sharing a cache folder
def test_pythons_call_makes_the_machine_code_of_a_kernel_cached_for_callers(tmp_path: Path) -> None:
    outer, inner = "cached_probe:outer", "cached_probe:inner"
    call = _probe_caller(tmp_path, str(40))
    assert call("outer") == [16, [outer, inner], ["deferred"]]  # inner small: its machine code waits
    assert call("other_outer") == [21, ["cached_probe:other_outer"], ["deferred"]]  # links its module
    assert call("inner") == [7, [], ["full"]]  # from the cache, nothing compiled: machine code made


def test_quick_flag_values_are_numbas_values_and_compare_as_before() -> None:
    from numba.core.compiler import Flags

    from cardlab.core.optimizing import quick_flag_values

    assert quick_flag_values()  # patched by import cardlab, and again: a no-op
    flags, other = Flags(), Flags()
    flags.nrt, flags.boundscheck = True, True
    by_property = {name: getattr(flags, name) for name in flags.options}  # numba's own definition
    assert flags.values() == by_property and len(by_property) == len(Flags.options)
    assert flags != other and Flags(flags) == flags and hash(flags) == hash(other)
    other.nrt, other.boundscheck = True, True
    assert flags == other
