"""A state drawn for one seat: the seat's hand by suit, then what the game shows it.

Everything but the hand is the game's own observation string
(``state.observation_string(seat)``: bidding, contract, the current trick,
points, scores), one row per line, so the table shows exactly what the seat
may know, and a new game line appears here without a change.
"""

from __future__ import annotations

import pyspiel
from rich.console import Console
from rich.table import Table

from cardlab.core.cards import SUIT_CHARS, parse_card

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_STYLES = {"C": "green", "D": "yellow", "H": "red", "S": "blue"}
#: Observation labels the hand row and the title already show.
SKIPPED = ("hand",)


def hand_text(cards: list[str]) -> str:
    """Cards grouped by suit (clubs, diamonds, hearts, spades), low to high, as rich markup."""
    groups = []
    jokers = [card for card in cards if card[-1] not in SUIT_CHARS]
    for suit in SUIT_CHARS:
        ranks = sorted((card for card in cards if card[-1] == suit), key=parse_card)
        if ranks:
            style = SUIT_STYLES[suit]
            groups.append(f"[{style}]{SUIT_SYMBOLS[suit]}[/{style}] " + " ".join(ranks))
    return "   ".join(groups + jokers) or "(empty)"


def observation_rows(text: str) -> list[tuple[str, str]]:
    """The observation string as (label, value) rows; a line without a label keeps it whole."""
    rows = []
    for line in text.splitlines():
        label, sep, value = line.partition(": ")
        if sep and "," not in label:
            rows.append((label.strip(), value))
        else:
            rows.append(("", line))
    return rows


def seat_hand(state: pyspiel.State, seat: int) -> list[str]:
    """The seat's cards, read from its observation (the ``hand:`` line every game writes)."""
    for label, value in observation_rows(state.observation_string(seat)):
        if label == "hand":
            return value.split()
    return []


def render(console: Console, state: pyspiel.State, seat: int, title: str, recent: list[str]) -> None:
    """Draw the table for ``seat``: hand, the observation's lines, the last moves."""
    table = Table(title=title, show_header=False, box=None, padding=(0, 1))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.add_row("your hand", hand_text(seat_hand(state, seat)))
    for label, value in observation_rows(state.observation_string(seat)):
        if label not in SKIPPED and not value.startswith("seat P"):
            table.add_row(label, value)
    if recent:
        table.add_row("last moves", ", ".join(recent))
    console.print(table)
