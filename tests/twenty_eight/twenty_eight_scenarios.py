"""Hand-built Twenty-Eight deals for the ruling tests (imported by the test modules)."""

from __future__ import annotations

import numpy as np
import pyspiel

import cardlab  # noqa: F401  (registers the games)
from cardlab.core.cards import parse_card
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight.game import TWENTY_EIGHT_ENGINE, deal_chance_actions

GAME = pyspiel.load_game("cardlab_twenty_eight")


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


def mask(text: str) -> int:
    total = 0
    for card in cards(text):
        total |= 1 << card
    return total


def act(state: pyspiel.State, *texts: str) -> pyspiel.State:
    """Apply actions by their contract strings ("bid 15", "pass", "trump 7S", "JH", ...)."""
    for text in texts:
        player = state.current_player()
        legal = state.legal_actions()
        strings = {state.action_to_string(player, a): a for a in legal}
        assert text in strings, f"{text!r} is not legal; legal: {sorted(strings)}"
        state.apply_action(strings[text])
    return state


def legal_strings(state: pyspiel.State) -> list[str]:
    player = state.current_player()
    return [state.action_to_string(player, a) for a in state.legal_actions()]


def deal(first: list[str], second: list[str], dealer: int = 0):
    """Chance actions of both stages for ``first[seat]`` / ``second[seat]`` card strings."""
    return deal_chance_actions(dealer, [c.split() for c in first], [c.split() for c in second])


def start(first: list[str], second: list[str], bids: list[str], indicator: str,
          raises: tuple[str, ...] = ("pass", "pass"), dealer: int = 0,
          params: dict | None = None) -> pyspiel.State:
    """Deal, bid, place, deal again and run the second round: the state at the first lead.

    ``params`` are further game parameters (variants); ``raises`` then includes
    any variant node before the first lead (pointless shows, a cot offer).
    """
    stage1, stage2 = deal(first, second, dealer)
    game = pyspiel.load_game("cardlab_twenty_eight", {"dealer": dealer, **(params or {})})
    state = game.new_initial_state()
    for card in stage1:
        state.apply_action(card)
    act(state, *bids, f"trump {indicator}")
    for card in stage2:
        state.apply_action(card)
    act(state, *raises)
    return state


# Example 1 of docs/rules/twenty_eight.md#examples: trump clubs, bidder P0 places 7C; P1 leads.
EXAMPLE1_FIRST = ["7C 8C AH KH", "8H 7H JS 9S", "AC JC 9C TC", "QC KC 8S 7S"]
EXAMPLE1_SECOND = ["JH 9H TH QH", "AS TS KS QS", "KD QD 8D 7D", "JD 9D AD TD"]
# The J-spades example (Example 2 there): trump spades, bidder P0 places 8S; P1 leads JS.
JSPADES_FIRST = ["8S 7S AC KC", "JS 9S AS TS", "JD 9D AD TD", "KS QS JH AH"]
JSPADES_SECOND = ["QC 8C 7C QD", "JC 9C TC 7D", "KD 8D 9H 8H", "TH KH QH 7H"]
# Bidder P1 (trump spades, places 7S) leads the first trick himself.
LEADER_FIRST = ["KD QD KC QC", "JS 9S AS 7S", "JD 9D AD TD", "9H AH TH KH"]
LEADER_SECOND = ["8C 7H TS 8S", "JH 8D 7D 7C", "JC 9C AC TC", "QH 8H KS QS"]
OPENING = ["bid 14", "pass", "pass", "bid 15", "pass", "pass", "pass"]  # P0 wins with 15


def raw_replay(state: pyspiel.State) -> np.ndarray:
    """The engine array reached by applying ``state``'s history to the raw kernels."""
    array = GAME.new_initial_state().array.copy()
    for action in state.history():
        TWENTY_EIGHT_ENGINE.apply(array, action)
    return array


__all__ = ["E", "GAME", "act", "cards", "deal", "legal_strings", "mask", "raw_replay", "start"]
