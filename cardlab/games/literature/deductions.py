"""What a Literature seat can deduce at the table: where the cards are, and the odds of each claim.

``cardlab play`` and ``cardlab serve`` show these (the claim's question, the
``knows`` command), ``cardlab advise`` the odds, through the game's spec. The
deductions are the card-location inference (:mod:`cardlab.games.literature.knowledge`)
seen from one seat (its own hand added, :func:`~cardlab.games.literature.engine.private_knowledge`);
the odds count the worlds of the game's belief-consistent sampler, drawn in compiled code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyspiel

from cardlab.core.cards import card_string, cards_string
from cardlab.core.interrupt import StopRequest, timed_slices
from cardlab.core.limits import MAX_WORLDS, check_count, check_seed
from cardlab.core.rng import make_stream
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature.rules import HALF_SUIT_MASKS, NUM_HALF_SUITS, UNRESOLVED, half_suit_name
from cardlab.games.literature.sampling import hands_of_resampled_worlds


def half_suit_cards(s: np.ndarray, h: int) -> list[int]:
    mask = int(HALF_SUIT_MASKS[s[E.LAYOUT], h])
    return [card for card in range(64) if mask >> card & 1]


def claim_prompt(state: pyspiel.State) -> str | None:
    """During a claim, the question of its next card: ``claim S-high: who holds 9S?``."""
    s = state.array
    if s[E.CLAIMANT] < 0 or s[E.CLAIMANT] != state.current_player():
        return None
    h = int(s[E.CLAIM_HALF_SUIT])
    card = half_suit_cards(s, h)[int(s[E.CLAIM_COUNT])]
    return f"claim {half_suit_name(h)}: who holds {card_string(card)}? (e.g. P{state.current_player()})"


def live_half_suits(s: np.ndarray) -> list[int]:
    return [h for h in range(NUM_HALF_SUITS[s[E.LAYOUT]]) if s[E.STATUS + h] == UNRESOLVED]


def knows_text(state: pyspiel.State, seat: int) -> str:
    """What ``seat`` can deduce: cards placed with each other seat, absences, certain claims."""
    s = state.array
    view = E.private_knowledge(s, seat)
    lines = []
    for other in range(int(s[E.NUM_PLAYERS])):
        if other == seat:
            continue
        placed = int(K.placed_cards(view, other))
        minimums = [f"{half_suit_name(h)} >= {K.minimum(view, other, h)}" for h in live_half_suits(s)
                    if K.minimum(view, other, h) > 0]
        parts = [f"holds {cards_string(placed)}" if placed else "", ", ".join(minimums)]
        text = "; ".join(part for part in parts if part)
        lines.append(f"P{other} ({K.hand_size(view, other)} cards): {text or 'nothing certain'}")
    team = seat % 2
    certain = [half_suit_name(h) for h in live_half_suits(s) if K.claim_is_certain(view, h, team)]
    lines.append("claims certain for your team: " + (", ".join(certain) or "none"))
    return "\n".join(lines)


@dataclass
class ClaimOdds:
    """One half-suit seen from a seat: how likely its team holds it, and the best way to claim it."""

    half_suit: str
    certain: bool
    team_holds: float  # share of the worlds where the seat's team holds every card
    best_claim: str  # the most frequent assignment among those worlds, "9S:P0 TS:P2 ..."
    best_claim_right: float  # share of all worlds where that assignment is exactly right


def claim_odds(state: pyspiel.State, seat: int, worlds: int = 2000,
               seed: int = 0) -> tuple[list[ClaimOdds], int]:
    """Every live half-suit: certain (by deduction) or its odds over sampled worlds; and the worlds used."""
    s = state.array
    view = E.private_knowledge(s, seat)
    check_count(worlds, "worlds", MAX_WORLDS)
    stream = make_stream(check_seed(seed))
    drawn = []
    with StopRequest() as stop:  # slices of worlds from one stream: the draws of one call
        for part_worlds in timed_slices(worlds):
            stop.check()
            part, ok = hands_of_resampled_worlds(s, seat, stream, len(part_worlds))
            drawn.append(part[ok, : int(s[E.NUM_PLAYERS])])
    hands = np.concatenate(drawn)
    if len(hands) == 0:
        raise ValueError("no deal fits this seat's knowledge: the position is inconsistent")
    team = seat % 2
    odds = []
    for h in live_half_suits(s):
        cards = half_suit_cards(s, h)
        holders = np.stack([np.argmax((hands >> card) & 1, axis=1) for card in cards], axis=1)
        ours = (holders % 2 == team).all(axis=1)
        keys, counts = np.unique(holders[ours], axis=0, return_counts=True) if ours.any() else ([], [])
        best = keys[int(np.argmax(counts))] if len(keys) else None
        odds.append(ClaimOdds(
            half_suit_name(h), bool(K.claim_is_certain(view, h, team)), float(ours.mean()),
            " ".join(f"{card_string(c)}:P{p}" for c, p in zip(cards, best, strict=True)) if best is not None
            else "-",
            float(np.max(counts)) / len(hands) if len(keys) else 0.0,
        ))
    return odds, len(hands)
