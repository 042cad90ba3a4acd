"""``cardlab play`` and ``cardlab replay`` driven through a pseudo-terminal, as a person would.

Every prompt first gets a line of nonsense (and, where one exists, a card
that is not legal) and must answer it in one line and ask again; then the
test asks for the legal moves and plays the first. The hand is played to the
end, saved in the results format, and replayed.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # the terminal game in a subprocess

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[1]
PROMPT = r"P\d+> "
TIMEOUT = 900  # the first run may compile the kernels


def spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "4000"}
    return pexpect.spawn(sys.executable, ["-m", "cardlab.cli", *args], env=env, encoding="utf-8",
                         timeout=TIMEOUT, cwd=str(ROOT), dimensions=(50, 4000))


def legal_moves(child: pexpect.spawn) -> list[str]:
    child.sendline("moves")
    child.expect(PROMPT)
    listing = child.before.split("moves", 1)[1]  # after the echoed command; the terminal wraps long lines
    return [" ".join(move.split()) for move in " ".join(listing.splitlines()).split(",")]


def play_to_the_end(child: pexpect.spawn, illegal: str) -> tuple[int, str]:
    """Answer every prompt (bad input first) until the game is saved; the number of turns and the log."""
    turns = 0
    transcript = []
    while True:
        index = child.expect([PROMPT, r"saved as game (\d+) in"])
        transcript.append(child.before)
        if index == 1:
            child.expect(pexpect.EOF)
            return turns, "".join(transcript)
        turns += 1
        child.sendline("xyzzy")
        child.expect(r"unknown move 'xyzzy'; legal: .*\r\n")
        child.expect(PROMPT)
        moves = legal_moves(child)
        if illegal not in moves:
            child.sendline(illegal)
            child.expect(r"(is not a legal move now|unknown move).*\r\n")
            child.expect(PROMPT)
        child.sendline(moves[0])


def test_a_full_kaiser_hand_at_the_terminal_with_undo_and_hint(tmp_path: Path) -> None:
    out = tmp_path / "plays"
    child = spawn("play", "kaiser", "--seat", "1", "--seed", "11", "--out", str(out),
                  "--hint-simulations", "50")
    child.expect(PROMPT)
    child.sendline("undo")
    child.expect("nothing to undo")
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect(r"ISMCTS \(50 simulations\) plays .*; visit shares: .*%")
    child.expect(PROMPT)
    first = legal_moves(child)[0]
    child.sendline(first)
    child.expect(PROMPT)
    child.sendline("undo")
    child.expect("undone: back to your move")
    child.sendline("help")
    child.expect("take back your last decision")
    turns, transcript = play_to_the_end(child, "AS")
    child.close()
    assert child.exitstatus == 0
    assert turns >= 9  # a bid and eight cards at least
    assert re.search(r"you (won|lost|drew): your team [+-]?\d+", transcript)
    assert (out / "manifest.json").is_file()

    replay = spawn("replay", str(out), "--deal", "0", "--all")
    replay.expect(pexpect.EOF)
    text = replay.before
    total = int(re.search(r"move 1/(\d+):", text).group(1))
    for k in range(1, total + 1):
        assert f"move {k}/{total}: P" in text
    assert "end of the deal: returns P0" in text
    assert "P1 human" in text


def test_replay_steps_forward_and_back_in_one_seats_view(tmp_path: Path) -> None:
    out = tmp_path / "plays"
    child = spawn("play", "kaiser", "--seed", "4", "--out", str(out))
    play_to_the_end(child, "AS")
    child.close()
    replay = spawn("replay", str(out), "--deal", "0", "--seat", "2")
    replay.expect("replay> ")
    assert "P2's view" in replay.before and "move 1/" in replay.before
    replay.sendline("")
    replay.expect(r"move 2/\d+: P")
    replay.sendline("b")
    replay.expect(r"move 1/\d+: P")
    replay.sendline("what")
    replay.expect("unknown key 'what'")
    replay.sendline("e")
    replay.expect("end of the deal")
    replay.sendline("q")
    replay.expect(pexpect.EOF)


def test_a_full_literature_hand_at_the_terminal_with_knows(tmp_path: Path) -> None:
    out = tmp_path / "plays"
    child = spawn("play", "literature", "--players", "4", "--seed", "2", "--out", str(out))
    child.expect(PROMPT)
    child.sendline("knows")
    child.expect("claims certain for your team: ")
    turns, transcript = play_to_the_end(child, "ask P0 2C")
    child.close()
    assert child.exitstatus == 0
    assert turns >= 1
    assert re.search(r"you (won|lost|drew)", transcript)


def test_bad_command_lines_are_one_line_errors(capsys) -> None:
    from cardlab.cli import main

    for args, message in ((["play", "chess"], "unknown game"),
                          (["play", "kaiser", "--seat", "7"], "--seat must be 0..3"),
                          (["play", "kaiser", "--partner", "nobody"], "unknown agent"),
                          (["replay", "/nonexistent"], "not a results folder"),
                          (["replay", str(ROOT), "--deal", "3"], "not a results folder")):
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("cardlab: error:") and message in err, err


def test_a_twenty_eight_hand_plays_to_the_end_and_is_saved(tmp_path: Path) -> None:
    """In process: the prompt answered with a bad line, then the last legal move, every time."""
    import io

    import pyspiel
    from rich.console import Console

    import cardlab  # noqa: F401
    from cardlab.play.record import load_deal, save_game
    from cardlab.play.session import Session, make_bots

    game = pyspiel.load_game("cardlab_twenty_eight")
    answers = []

    def ask(prompt: str) -> str:
        if not answers or answers[-1] != "nonsense":
            answers.append("nonsense")
        else:
            state = session.state
            answers.append(state.action_to_string(state.current_player(), state.legal_actions()[-1]))
        return answers[-1]

    console = Console(file=io.StringIO(), width=200)
    labels = ["rules", "rules", "human", "rules"]
    session = Session(game, 2, make_bots(game, 2, "rules", "rules", 8), 8, labels, ask=ask, console=console)
    state = session.play()
    assert state.is_terminal() and answers.count("nonsense") * 2 == len(answers)
    deal = save_game(tmp_path, state, labels, 8, session.seconds, session.moves_by_seat(), session.notes)
    assert load_deal(tmp_path, deal).actions == state.history()
