"""The house rules of the code base: layers without cycles, no side-effect registries, the cache key."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cardlab._numba_cache import kernel_sources, source_fingerprint

PACKAGE = Path(__file__).resolve().parents[1] / "cardlab"

#: What each layer may import (besides itself), lowest first; see docs/architecture.md.
ALLOWED = {
    "core": set(),
    "results": {"core"},
    "games": {"core"},
    "cfr": {"core", "games"},
    "solver": {"core", "games"},
    "agents": {"core", "games", "cfr", "solver"},
    "analysis": {"core", "games", "results"},
    "arena": {"core", "games", "cfr", "solver", "agents", "analysis", "results"},
    "evaluation": {"core", "games", "cfr", "solver", "agents", "analysis", "results", "arena"},
    "rl": {"core", "games", "cfr", "solver", "agents", "arena", "analysis", "results"},
    "learn": {"core", "games", "cfr", "solver", "agents", "arena", "analysis", "results", "rl"},
    "play": {"core", "games", "solver", "agents", "analysis", "results", "arena"},
    "warmup": {"core", "games", "solver", "agents", "analysis", "results", "arena", "cfr", "play", "rl"},
    "cli": {"core", "games", "solver", "agents", "analysis", "results", "arena", "cfr", "play", "rl",
            "warmup", "learn", "evaluation"},
}


def _layer(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "cardlab" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ALLOWED else None


def _imports(path: Path) -> set[str]:
    """Every cardlab module ``path`` imports, at the top or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("cardlab.")}


def test_every_layer_imports_only_the_layers_below_it() -> None:
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).with_suffix("")
        layer = relative.parts[0]
        if layer not in ALLOWED:
            continue
        for name in _imports(path):
            target = _layer(name)
            if target and target != layer and target not in ALLOWED[layer]:
                violations.append(f"{relative} imports {name}")
    assert violations == []


#: The game folders: each is the only place that names its game (its rules, state slots, kernels).
GAME_FOLDERS = sorted(path.name for path in (PACKAGE / "games").iterdir()
                      if (path / "spec.py").exists())


def _game_folder(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["cardlab", "games"] and len(parts) > 2 and parts[2] in GAME_FOLDERS \
        else None


def test_each_games_knowledge_stays_in_its_folder() -> None:
    """Above ``games/``, code reaches a game through its spec and the games-level dispatch tables
    (``games/kernels.py`` and its like), never a game's folder; and no game reads another's."""
    assert {"kaiser", "literature", "twenty_eight"} <= set(GAME_FOLDERS)
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        own = relative.parts[1] if relative.parts[0] == "games" and len(relative.parts) > 2 else None
        for name in _imports(path):
            folder = _game_folder(name)
            if folder is None or folder == own:
                continue
            if relative.parts[0] != "games":
                violations.append(f"{relative} imports {name}: reach the game through games/")
            elif own is not None:
                violations.append(f"{relative} imports {name}: one game reads another's folder")
    assert violations == [], "\n".join(violations)


def test_the_agent_table_is_complete_before_any_agent_is_made() -> None:
    code = "import cardlab.agents as a; print(','.join(a.agent_names()))"
    names = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert names.stdout.strip().split(",") == ["cfr", "cfr-bidding", "ismcts", "net", "pimc", "random",
                                               "rules"]


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "cardlab"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def test_the_numba_cache_key_follows_only_what_kernels_are_made_of(package_copy: Path) -> None:
    before = source_fingerprint(package_copy)
    for name in ("cli.py", "analysis/report.py", "play/web.py", "games/kaiser/__init__.py"):
        with open(package_copy / name, "a") as stream:
            stream.write("\n# an edit that cannot change a kernel\n")
    assert source_fingerprint(package_copy) == before
    # A game's constants are compiled into its kernels, though rules.py never imports numba.
    with open(package_copy / "games" / "kaiser" / "rules.py", "a") as stream:
        stream.write("\n# an edit kernels may depend on\n")
    assert source_fingerprint(package_copy) != before
    names = {str(path.relative_to(package_copy)) for path in kernel_sources(package_copy)}
    assert {"core/bitboard.py", "games/kernels.py", "games/kaiser/rules.py",
            "agents/ismcts/search.py", "arena/native.py"} <= names
    assert "cli.py" not in names
    # Every name of a multi-name import line counts, and the line after it too.
    assert {"core/dealing.py", "core/encoding.py", "core/infostate.py"} <= names


#: A function longer than this says why in its docstring ("Long on purpose: ...").
LONGEST_FUNCTION = 80


def test_no_function_is_long_without_saying_why() -> None:
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > LONGEST_FUNCTION and "Long on purpose" not in (ast.get_docstring(node) or ""):
                    where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                    unexplained.append(f"{where} {node.name} ({length} lines)")
    assert not unexplained, "\n".join(unexplained)
