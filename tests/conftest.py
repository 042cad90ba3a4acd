"""Shared test helpers."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pyspiel
import pytest
from numba.core import event

import cardlab  # noqa: F401  (registers the games)
from cardlab.core.cards import parse_card
from cardlab.core.dealing import chance_sequence


def deal(state: pyspiel.State, hands: dict[int, str], dealer: int = 0) -> pyspiel.State:
    """Apply the chance actions that give each seat its cards ("AC KC ..." per seat)."""
    cards = {seat: [parse_card(c) for c in text.split()] for seat, text in hands.items()}
    for card in chance_sequence(cards, dealer, len(cards)):
        state.apply_action(card)
    return state


def game_loader(name: str, **fixed) -> Callable[..., pyspiel.Game]:
    """A test module's ``load(**params)``: the game ``name`` with the module's ``fixed`` parameters
    and the test's own on top."""
    def load(**params) -> pyspiel.Game:
        return pyspiel.load_game(name, {**fixed, **params})
    return load


def play_to_the_end(state: pyspiel.State, rng: np.random.Generator,
                    bots: Sequence[pyspiel.Bot] | None = None) -> pyspiel.State:
    """Play ``state`` out: chance draws from its outcomes with their probabilities, each seat's
    bot moves (uniformly random legal moves without bots). Returns the terminal state."""
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probabilities)))
        elif bots is None:
            state.apply_action(int(rng.choice(state.legal_actions())))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return state


def tournament_rows(out, *arguments: str) -> list[dict]:
    """Run ``cardlab tournament *arguments`` (one worker, quiet) into ``out``; the rows it wrote."""
    import pyarrow.parquet as pq

    from cardlab.cli import main

    assert main(["tournament", *arguments, "--out", str(out), "--workers", "1", "--quiet"]) == 0
    return [row for part in sorted(out.glob("part-*.parquet")) for row in pq.read_table(part).to_pylist()]


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``cardlab *argv`` in this process: its exit code, stdout and stderr."""
    from cardlab.cli import main

    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code: int, err: str, *fragments: str) -> None:
    """A refusal as every command gives one: exit code 2, one line ``cardlab: error: ...`` naming
    ``fragments``, and never a hint to unpickle a file."""
    assert code == 2, err
    assert err.startswith("cardlab: error: ") and err.count("\n") == 1, err
    assert "allow_pickle" not in err
    for fragment in fragments:
        assert fragment in err, err


def act(state: pyspiel.State, *moves: str) -> pyspiel.State:
    """Apply actions given by their contract strings ("bid 7", "trump H", "AC", ...)."""
    for move in moves:
        player = state.current_player()
        by_string = {state.action_to_string(player, a): a for a in state.legal_actions()}
        if move not in by_string:
            raise AssertionError(f"{move!r} is not legal for P{player}; legal: {sorted(by_string)}")
        state.apply_action(by_string[move])
    return state


def decisions(state: pyspiel.State, rng: np.random.Generator,
              choose: Callable[[pyspiel.State], int]) -> Iterator[pyspiel.State]:
    """Play ``state`` out, yielding it at each decision before ``choose`` picks the move.

    Chance outcomes are drawn uniformly with ``rng``; ``state`` is terminal at the end.
    """
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        yield state
        state.apply_action(choose(state))


@pytest.fixture
def kaiser() -> pyspiel.Game:
    return pyspiel.load_game("cardlab_kaiser")


class _CompileLog(event.Listener):
    """``CARDLAB_COMPILE_LOG=FILE pytest ...``: each test's numba compilations, appended to FILE.

    After ``cardlab warmup`` a test should compile nothing: a line here names a kernel (and the
    seconds spent compiling it and what it calls) that warmup misses or that the test asks for
    with other argument types.
    """

    def __init__(self, path: str) -> None:
        self.path, self.test, self.depth, self.started = path, "", 0, 0.0
        self.name = self.signature = ""  # of the outermost compilation running

    def on_start(self, ev) -> None:
        if self.depth == 0:
            self.started, self.name = time.perf_counter(), ev.data["dispatcher"].py_func.__qualname__
            self.signature = str(ev.data["args"])
        self.depth += 1

    def on_end(self, ev) -> None:
        self.depth -= 1
        if self.depth == 0:
            with open(self.path, "a") as log:
                log.write(f"{time.perf_counter() - self.started:.2f}\t{self.test}\t{self.name}"
                          f"\t{self.signature}\n")


def pytest_configure(config) -> None:
    path = os.environ.get("CARDLAB_COMPILE_LOG")
    if path:
        config._compile_log = _CompileLog(path)
        event.register("numba:compile", config._compile_log)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    log = getattr(item.config, "_compile_log", None)
    if log is not None:
        log.test = item.nodeid
    yield
