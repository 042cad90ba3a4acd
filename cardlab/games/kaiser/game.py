"""``cardlab_kaiser``: Kaiser as an OpenSpiel game over the numba engine.

The rules live once, in :mod:`cardlab.games.kaiser.engine`; this module gives
them OpenSpiel's shape (game type, game, state, observer) and the human-facing
strings of the contract.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from cardlab.core.cards import SUIT_CHARS, card_string, cards_string
from cardlab.core.engine import CHANCE_PLAYER, Engine
from cardlab.core.openspiel import (
    EngineGame,
    EngineState,
    GameView,
    card_game_type,
    checked_parameters,
)
from cardlab.games import kernels
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser import observation, sampling
from cardlab.games.kaiser.rules import (
    BID,
    MIN_BID_CHOICES,
    MISDEAL,
    NAME_TRUMP,
    NUM_DISTINCT_ACTIONS,
    NUM_PLAYERS,
    PASS,
    bid_of_action,
    bid_string,
)

GAME_NAME = "cardlab_kaiser"

DEFAULT_PARAMETERS = {
    "dealer": 0,
    "min_bid": 6,
    "match": False,
    "target": 52,
    "low_no_trump": False,
    "non_bidder_limit": 45,
    "max_hands": 200,
}
PARAMETER_RULES = {
    "dealer": (int, range(0, NUM_PLAYERS)),
    "min_bid": (int, MIN_BID_CHOICES),
    "match": (bool, None),
    "target": (int, range(1, 1001)),
    "low_no_trump": (bool, None),
    "non_bidder_limit": (int, range(0, 1001)),
    "max_hands": (int, range(1, 100001)),
}
HAND_LENGTH = 32 + NUM_PLAYERS + 1 + 32  # deal, bids, trump, play


def action_to_string(player: int, action: int) -> str:
    """The contract's string of ``action`` (chance actions are the dealt card)."""
    action = int(action)
    if 0 <= action < 52:
        return card_string(action)
    if action == PASS:
        return "pass"
    if NAME_TRUMP <= action < NAME_TRUMP + 4:
        return f"trump {SUIT_CHARS[action - NAME_TRUMP]}"
    if action == MISDEAL:
        return "misdeal"
    if BID <= action < NUM_DISTINCT_ACTIONS:
        return bid_string(*bid_of_action(action))
    raise ValueError(f"{GAME_NAME}: no action with id {action} (ids are 0..{NUM_DISTINCT_ACTIONS - 1})")


def state_action_to_string(s: np.ndarray, player: int, action: int) -> str:
    """The string of ``action`` in state ``s`` (the engine's); no Kaiser string depends on the state."""
    return action_to_string(player, action)


KAISER_ENGINE = Engine.from_kernels(E, GAME_NAME, NUM_PLAYERS, NUM_DISTINCT_ACTIONS,
                                   state_action_to_string)

GAME_TYPE = card_game_type(GAME_NAME, "Kaiser (cardlab)", NUM_PLAYERS, NUM_PLAYERS, DEFAULT_PARAMETERS)


def new_engine_state(parameters: dict[str, Any]) -> np.ndarray:
    """The engine array at the start of a game with these (validated) parameters."""
    p = {**DEFAULT_PARAMETERS, **parameters}
    return E.new_state(
        p["dealer"], p["min_bid"], int(p["match"]), p["target"], int(p["low_no_trump"]),
        p["non_bidder_limit"], p["max_hands"],
    )


class KaiserGame(EngineGame):
    """Kaiser, one hand (default) or a match to ``target``."""

    def __init__(self, params: dict[str, Any] | None = None):
        self.parameters = {
            **DEFAULT_PARAMETERS,
            **checked_parameters(GAME_NAME, params or {}, PARAMETER_RULES),
        }
        match = self.parameters["match"]
        # A hand moves at most 10 points; doubled for no trump, the swing is 2 * (12 + 10).
        utility = 1.0 if match else 44.0
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_DISTINCT_ACTIONS,
            max_chance_outcomes=52,
            num_players=NUM_PLAYERS,
            min_utility=-utility,
            max_utility=utility,
            utility_sum=0.0,
            max_game_length=HAND_LENGTH * (self.parameters["max_hands"] if match else 1),
        )
        super().__init__(GAME_TYPE, info, params or {})
        self.initial_array = new_engine_state(self.parameters)



class KaiserState(EngineState):
    """A Kaiser state: the engine array plus OpenSpiel's bookkeeping (history)."""

    engine = KAISER_ENGINE


def _seat_name(seat: int) -> str:
    return f"P{seat}"


def describe(s: np.ndarray, player: int | None, perfect_recall: bool) -> str:
    """A readable view of the state: everything (``player=None``) or what ``player`` sees.

    With ``perfect_recall`` the view holds the player's dealt hand and every trick
    in order, so two histories of the hand give the same string exactly when the
    player cannot tell them apart. In match mode earlier hands are summarised by
    the match score and hand number.
    """
    lines = [f"dealer {_seat_name(int(s[E.DEALER]))}, phase {E.PHASE_NAMES[s[E.PHASE]]}"]
    if s[E.MATCH]:
        lines.append(
            f"match: hand {s[E.HAND_NUMBER] + 1}, scores {s[E.MATCH_SCORE]}-{s[E.MATCH_SCORE + 1]}"
            f" (target {s[E.TARGET]})"
        )
    if player is None:
        for seat in range(NUM_PLAYERS):
            lines.append(f"{_seat_name(seat)} hand: {cards_string(int(s[E.HANDS + seat]))}")
    else:
        lines.append(f"seat {_seat_name(player)}")
        lines.append(f"hand: {cards_string(int(s[E.HANDS + player]))}")
        if perfect_recall:
            lines.append(f"dealt: {cards_string(int(s[E.DEALT + player]))}")
    if s[E.PHASE] == E.DEALING:
        return "\n".join(lines)
    bids = []
    for k in range(NUM_PLAYERS):
        seat = (int(s[E.DEALER]) + 1 + k) % NUM_PLAYERS
        spoken = int(s[E.SPOKEN + seat])
        if spoken >= 0:
            bids.append(f"{_seat_name(seat)} {action_to_string(seat, spoken)}")
    lines.append("bidding: " + (", ".join(bids) if bids else "-"))
    if s[E.PHASE] >= E.NAMING_TRUMP and s[E.DECLARER] >= 0:
        value, kind = divmod(int(s[E.HIGH_BID]), 3)
        lines.append(f"contract: {bid_string(value, kind)[4:]} by {_seat_name(int(s[E.DECLARER]))}")
    if s[E.PHASE] >= E.PLAYING and s[E.TRICK_NUMBER] + s[E.TRICK_SIZE] > 0 or (
        s[E.PHASE] == E.PLAYING
    ):
        trump = int(s[E.TRUMP])
        lines.append(f"trump: {SUIT_CHARS[trump] if trump >= 0 else 'none (no trump)'}")
        tricks = range(int(s[E.TRICK_NUMBER])) if perfect_recall else ()
        for trick in tricks:
            leader = int(s[E.TRICK_LEADERS + trick])
            cards = " ".join(card_string(int(c)) for c in s[E.TRICK_HISTORY + 4 * trick:
                                                               E.TRICK_HISTORY + 4 * trick + 4])
            lines.append(
                f"trick {trick + 1}: {_seat_name(leader)} led {cards}, won by "
                f"{_seat_name(int(s[E.TRICK_WINNERS + trick]))}"
            )
        if s[E.PHASE] == E.PLAYING:
            current = " ".join(card_string(int(c)) for c in s[E.TRICK:E.TRICK + s[E.TRICK_SIZE]])
            lines.append(
                f"trick {s[E.TRICK_NUMBER] + 1}: {_seat_name(int(s[E.TRICK_LEADER]))} leads"
                f"{': ' + current if current else ''}"
            )
        voids = []
        for seat in range(NUM_PLAYERS):
            suits = "".join(SUIT_CHARS[x] for x in range(4) if (s[E.VOIDS + seat] >> x) & 1)
            if suits:
                voids.append(f"{_seat_name(seat)} void {suits}")
        if voids:
            lines.append("voids: " + ", ".join(voids))
        lines.append(
            f"points: team 0 {s[E.HAND_POINTS]} ({s[E.TRICKS_WON]} tricks), "
            f"team 1 {s[E.HAND_POINTS + 1]} ({s[E.TRICKS_WON + 1]} tricks)"
        )
    if s[E.PHASE] == E.GAME_OVER:
        if s[E.WINNER] == 2 and s[E.MISDEAL_BY] >= 0:
            lines.append(f"thrown in by {_seat_name(int(s[E.MISDEAL_BY]))}: void hand")
        else:
            lines.append(f"hand score: team 0 {s[E.LAST_DELTA]:+d}, team 1 {s[E.LAST_DELTA + 1]:+d}")
            if s[E.MATCH]:
                lines.append(f"match won by team {s[E.WINNER]}" if s[E.WINNER] < 2 else "match drawn")
    return "\n".join(lines)


def information_state_key(initial: np.ndarray, actions: np.ndarray, seat: int) -> int:
    """``seat``'s 64-bit information-state key after ``actions`` from ``initial`` (one kernel call)."""
    return kernels.information_state_key(kernels.KAISER, initial, actions, seat)


KaiserGame.state_class = KaiserState
KaiserState.view = GameView(describe, GameView.fixed_pieces(observation), observation.encode,
                            sampling.resample_hidden_hands,
                            information_state_key)

pyspiel.register_game(GAME_TYPE, KaiserGame)

__all__ = ["GAME_NAME", "KAISER_ENGINE", "KaiserGame", "KaiserState", "action_to_string",
           "state_action_to_string", "CHANCE_PLAYER"]
