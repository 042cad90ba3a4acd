"""``cardlab_twenty_eight``: Twenty-Eight as an OpenSpiel game over the numba engine.

The rules live once, in :mod:`cardlab.games.twenty_eight.engine`; this module
gives them OpenSpiel's shape (game type, game, state, observer) and the
contract's strings. One string depends on the state: a card id is ``"JS"``
when played but ``"trump JS"`` in the step that places the indicator.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import pyspiel

from cardlab.core.cards import SUIT_CHARS, card_string, cards_string, voids_line
from cardlab.core.dealing import receiving_seat
from cardlab.core.engine import Engine
from cardlab.core.openspiel import (
    EngineGame,
    EngineState,
    GameView,
    card_game_type,
    checked_parameters,
    receiving_seat_of,
)
from cardlab.core.parameters import Parameter, ParameterTable
from cardlab.games import kernels
from cardlab.games.twenty_eight import engine as E
from cardlab.games.twenty_eight import observation, sampling
from cardlab.games.twenty_eight.rules import (
    ACCEPT,
    BID,
    CALL_TRUMP,
    COT_FACTOR,
    HAND_SIZE,
    MAX_BID,
    MAX_GAME_POINTS,
    MIN_BID,
    NUM_DISTINCT_ACTIONS,
    NUM_PLAYERS,
    NUM_STAGES,
    PASS,
    PLAY_ON,
    PLAYER_COUNT_TABLE,
    PLAYER_COUNTS,
    REDEAL,
    SHOW_POINTLESS,
    SMALL_DECK_POINTS,
    SMALL_LOWEST_BID,
    SURRENDER,
    THANI,
    THANI_FAILED,
    scaled_bid,
)

GAME_NAME = "cardlab_twenty_eight"

#: The rule variants of docs/variants.md, each a switch (false: the contract's game).
VARIANT_SWITCHES = ("jack_discard_restriction", "pointless_hand_redeal", "cot", "thani")
#: Every parameter of the game, its default and allowed values (new_engine_state hands them to
#: the engine).
PARAMETER_TABLE = ParameterTable(
    Parameter("dealer", 0),  # 0 .. players - 1 (validated_parameters)
    Parameter("players", NUM_PLAYERS, PLAYER_COUNTS),
    *(Parameter(name, False) for name in VARIANT_SWITCHES),
    Parameter("hand_size", HAND_SIZE, range(1, HAND_SIZE + 1), research=True),
    Parameter("bidding_rounds", NUM_STAGES, (1, NUM_STAGES), research=True),
    Parameter("max_bid", MAX_BID, range(1, MAX_BID + 1), research=True),
)
DEFAULT_PARAMETERS = PARAMETER_TABLE.defaults
#: cardlab's own parameters for exactly solvable small games (docs/rules/twenty_eight.md#small-games):
#: research tools, not rule variants of docs/variants.md.
RESEARCH_PARAMETERS = PARAMETER_TABLE.research
PARAMETER_RULES = PARAMETER_TABLE.rules
#: Variants that need a second deal stage and a second round, which six players do not have.
NOT_WITH_SIX_PLAYERS = ("thani", "pointless_hand_redeal")


def validated_parameters(params: dict[str, Any] | None) -> dict[str, Any]:
    """The full parameter set, or ``ValueError`` naming the parameters and the reason."""
    p = {**DEFAULT_PARAMETERS, **checked_parameters(GAME_NAME, params or {}, PARAMETER_RULES)}
    players = p["players"]
    if not 0 <= p["dealer"] < players:
        raise ValueError(f"{GAME_NAME}: parameter 'dealer' must be in 0..{players - 1}, "
                         f"got {p['dealer']}")
    check_small_game(p)
    for name in NOT_WITH_SIX_PLAYERS:
        if p[name] and players == 6:
            raise ValueError(f"{GAME_NAME}: parameter {name!r} cannot be combined with "
                             "'players' = 6 (six players have no second deal stage and no "
                             "second round)")
    return p


def is_small_game(p: dict[str, Any]) -> bool:
    return any(p[name] != DEFAULT_PARAMETERS[name] for name in RESEARCH_PARAMETERS)


def bid_ladder(p: dict[str, Any]) -> tuple[int, int]:
    """The opening minimum and the top bid: a small game's scaled to its pack's card points, the
    default ``max_bid`` 28 standing for all of them (docs/rules/twenty_eight.md#small-games)."""
    if not is_small_game(p):
        return deal_shape(p["players"])[2], MAX_BID
    points = int(SMALL_DECK_POINTS[p["hand_size"]])
    return int(scaled_bid.py_func(MIN_BID, points)), points if p["max_bid"] == MAX_BID else p["max_bid"]


def check_small_game(p: dict[str, Any]) -> None:
    """A small game: four seats, the contract's rules, a pack of ``hand_size`` cards a seat dealt in
    ``bidding_rounds`` stages, a bid ladder inside the pack's card points."""
    if not is_small_game(p):
        return
    others = sorted(name for name in ("players", *VARIANT_SWITCHES) if p[name] != DEFAULT_PARAMETERS[name])
    if others:
        raise ValueError(f"{GAME_NAME}: a small game ({', '.join(RESEARCH_PARAMETERS)}) is four-player "
                         f"contract Twenty-Eight: {others} cannot be set with it")
    if p["hand_size"] % p["bidding_rounds"]:
        raise ValueError(f"{GAME_NAME}: two bidding rounds deal the hand in two equal stages: "
                         f"'hand_size' must be even, got {p['hand_size']}")
    lowest, top = bid_ladder(p)
    points = int(SMALL_DECK_POINTS[p["hand_size"]])
    if not lowest <= top <= points:
        raise ValueError(f"{GAME_NAME}: with hand_size = {p['hand_size']} the bids run from {lowest} "
                         f"to at most {points} (the pack's card points): 'max_bid' must be in "
                         f"{lowest}..{points}, got {top}")


def deal_shape(players: int) -> tuple[int, int, int]:
    """``(cards per stage, deal stages, opening minimum)`` of a table of ``players`` (3.3)."""
    for count, _, stage_cards, stages, opening_min in PLAYER_COUNT_TABLE.tolist():
        if count == players:
            return stage_cards, stages, opening_min
    raise ValueError(f"{GAME_NAME}: players must be one of {PLAYER_COUNTS}, got {players}")


def max_game_points(p: dict[str, Any]) -> int:
    """The largest game points a side can win or lose in one hand under these parameters."""
    largest = MAX_GAME_POINTS
    if p["cot"]:
        largest = COT_FACTOR * MAX_GAME_POINTS
    if p["thani"]:
        largest = max(largest, -THANI_FAILED)
    return largest


def max_game_length(p: dict[str, Any]) -> int:
    """The longest hand under these parameters.

    The deal, the longest first round, two placements, two raises, every card
    played and one show; with the variants one pointless-show node per seat
    (13.2) and a cot offer before each trick plus one answer (13.3).
    """
    players = p["players"]
    stage_cards, stages, _ = deal_shape(players)
    deal = players * p["hand_size"] if is_small_game(p) else stage_cards * stages
    opening_min = bid_ladder(p)[0]
    length = deal + observation.longest_first_round(players, opening_min) + 2 + 2 + deal + 1
    if p["pointless_hand_redeal"]:
        length += players
    if p["cot"]:
        length += deal // players + 1
    return length


def action_to_string(player: int, action: int) -> str:
    """The contract's string of ``action`` outside the placing step (cards: ``"JS"``)."""
    action = int(action)
    if 0 <= action < 52:
        return card_string(action)
    if action == PASS:
        return "pass"
    if action == CALL_TRUMP:
        return "call trump"
    if action == REDEAL:
        return "redeal"
    if action in VARIANT_ACTION_STRINGS:
        return VARIANT_ACTION_STRINGS[action]
    if BID + SMALL_LOWEST_BID <= action <= BID + MAX_BID:  # 12..28; a small game's from 5
        return f"bid {action - BID}"
    raise ValueError(
        f"{GAME_NAME}: no action with id {action} (cards 0..51, 52 pass, 53 call trump, "
        f"54 redeal, 55-59 variants, {BID + SMALL_LOWEST_BID}..{BID + MAX_BID} bids)"
    )


#: Strings of the variants' actions (docs/variants.md).
VARIANT_ACTION_STRINGS = {
    SHOW_POINTLESS: "show pointless",
    SURRENDER: "surrender",
    ACCEPT: "accept",
    PLAY_ON: "play on",
    THANI: "thani",
}


def state_action_to_string(s: np.ndarray, player: int, action: int) -> str:
    """The contract's string of ``action`` in state ``s``: ``"trump JS"`` when placing."""
    if s[E.PHASE] == E.PLACING and 0 <= int(action) < 52 and player == s[E.BIDDER]:
        return "trump " + card_string(int(action))
    return action_to_string(player, action)


@cache
def twenty_eight_engine(num_players: int) -> Engine:
    """The checked Python face of the engine for ``num_players`` seats."""
    return Engine.from_kernels(E, GAME_NAME, num_players, NUM_DISTINCT_ACTIONS,
                               state_action_to_string)


TWENTY_EIGHT_ENGINE = twenty_eight_engine(NUM_PLAYERS)

GAME_TYPE = card_game_type(GAME_NAME, "Twenty-Eight (cardlab)", min(PLAYER_COUNTS),
                           max(PLAYER_COUNTS), DEFAULT_PARAMETERS)


def new_engine_state(parameters: dict[str, Any]) -> np.ndarray:
    """The engine array at the start of a game with these (validated) parameters."""
    p = {**DEFAULT_PARAMETERS, **parameters}
    return E.new_state(p["dealer"], *(int(p[name]) for name in VARIANT_SWITCHES), p["players"],
                       p["hand_size"], p["bidding_rounds"], bid_ladder(p)[1])


def deal_chance_actions(
    dealer: int, first_four: Sequence[Sequence[int | str]],
    second_four: Sequence[Sequence[int | str]] = (),
) -> tuple[list[int], list[int]]:
    """The stages of chance actions that deal the given cards (contract order).

    ``first_four[seat]`` and ``second_four[seat]`` are the cards (ids or
    strings like ``"JS"``) each seat receives in stage 1 and stage 2: 4 each
    with three or four seats; six players are dealt their 6 cards in stage 1
    and ``second_four`` is empty. The k-th card of a stage goes to
    ``(dealer + 1 + k) % N``. Useful to set up a deal by hand (tests, puzzles,
    replaying a recorded deal).
    """
    from cardlab.core.cards import parse_card

    players = len(first_four)
    stage_cards, stages, _ = deal_shape(players)
    stage_size = stage_cards // players
    stages_given = [first_four, second_four] if second_four else [first_four]
    if len(stages_given) != stages:
        raise ValueError(f"{GAME_NAME}: {players} players are dealt in {stages} stage(s), "
                         f"got {len(stages_given)}")
    actions = []
    for cards_by_seat in stages_given:
        if len(cards_by_seat) != players or any(len(c) != stage_size for c in cards_by_seat):
            raise ValueError(f"{GAME_NAME}: a deal stage is {stage_size} cards for each of "
                             f"{players} seats")
        ids = [[parse_card(c) if isinstance(c, str) else int(c) for c in cards] for cards in
               cards_by_seat]
        actions.append([ids[receiving_seat(dealer, k, players)][k // players]
                        for k in range(stage_cards)])
    return actions[0], actions[1] if stages == 2 else []


class TwentyEightGame(EngineGame):
    """Twenty-Eight, one hand (hand mode; ``match`` is not supported)."""

    def __init__(self, params: dict[str, Any] | None = None):
        self.parameters = validated_parameters(params)
        largest = max_game_points(self.parameters)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_DISTINCT_ACTIONS,
            max_chance_outcomes=52,
            num_players=self.parameters["players"],
            min_utility=-float(largest),
            max_utility=float(largest),
            utility_sum=0.0,
            max_game_length=max_game_length(self.parameters),
        )
        super().__init__(GAME_TYPE, info, params or {})
        self.engine = twenty_eight_engine(self.parameters["players"])
        self.initial_array = new_engine_state(self.parameters)


class TwentyEightState(EngineState):
    """A Twenty-Eight state: the engine array plus OpenSpiel's bookkeeping (history)."""


def _seat_name(seat: int) -> str:
    return f"P{seat}"


def _side_name(s: np.ndarray, side: int) -> str:
    """``"team 0"`` (four players), ``"team P1+P4"`` (six) or ``"P2"`` (three players)."""
    n = int(s[E.NUM_PLAYERS])
    if n == 4:
        return f"team {side}"
    if n == 6:
        return f"team {_seat_name(side)}+{_seat_name(side + 3)}"
    return _seat_name(side)


def _trick_line(s: np.ndarray, trick: int, leader: int, size: int, trumps_from: int) -> str:
    """``"P1 led 7H 8H [trump S shown] QS AH"``: the cards, with the show where it happened."""
    words = []
    for position in range(size):
        if position == trumps_from and trick == s[E.SHOWN_IN_TRICK]:
            caller = int(s[E.CALLER])
            who = f"{_seat_name(caller)} calls, " if caller >= 0 else ""
            words.append(f"[{who}trump {card_string(int(s[E.INDICATOR]))} shown]")
        words.append(card_string(int(s[E.TRICK_HISTORY + s[E.NUM_PLAYERS] * trick + position])))
    if size == trumps_from and trick == s[E.SHOWN_IN_TRICK] and s[E.TRUMP_SHOWN]:
        caller = int(s[E.CALLER])
        words.append(f"[{_seat_name(caller)} calls, trump {card_string(int(s[E.INDICATOR]))} shown]")
    return f"{_seat_name(leader)} led " + " ".join(words) if words else f"{_seat_name(leader)} leads"


def describe(s: np.ndarray, player: int | None, perfect_recall: bool) -> str:
    """A readable view of the state: everything (``player=None``) or what ``player`` sees.

    The face-down indicator appears only in its placer's view until shown. With
    ``perfect_recall`` the view adds the player's stage-1 cards, dealt hand, the
    indicators he placed and every trick in order, so two histories give the
    same string exactly when the player cannot tell them apart.

    Long on purpose: the lines of the view are built in the order they are printed, read top to bottom
    as the view.
    """
    phase = int(s[E.PHASE])
    n = int(s[E.NUM_PLAYERS])
    lines = [f"dealer {_seat_name(int(s[E.DEALER]))}, phase {E.PHASE_NAMES[phase]}"]
    if player is None:
        for seat in range(n):
            lines.append(f"{_seat_name(seat)} hand: {cards_string(int(s[E.HANDS + seat]))}")
    else:
        lines.append(f"seat {_seat_name(player)}")
        lines.append(f"hand: {cards_string(int(s[E.HANDS + player]))}")
        if perfect_recall:
            lines.append(f"first four: {cards_string(int(s[E.FIRST_FOUR + player]))}")
            lines.append(f"dealt: {cards_string(int(s[E.DEALT + player]))}")
            placed = int(observation.own_indicators(s, player))
            if placed:
                lines.append(f"placed face down: {cards_string(placed)}")
    if phase == E.DEALING and s[E.NUM_BIDS] == 0:
        return "\n".join(lines)
    bids = []
    for i in range(int(s[E.NUM_BIDS])):
        seat = (int(s[E.DEALER]) + 1 + i) % n
        bids.append(f"{_seat_name(seat)} {action_to_string(seat, int(s[E.BID_HISTORY + i]))}")
    lines.append("bidding: " + (", ".join(bids) if bids else "-"))
    if s[E.FIRST_BIDDER] >= 0:
        speakers = (int(s[E.FIRST_BIDDER]), (int(s[E.FIRST_BIDDER]) + n // 2) % n)
        raises = [
            f"{_seat_name(seat)} {action_to_string(seat, int(s[E.RAISES + i]))}"
            for i, seat in enumerate(speakers)
            if s[E.RAISES + i] >= 0
        ]
        if s[E.POINTLESS_REDEAL] and (s[E.SHOW_NODES] or s[E.OUTCOME] == E.POINTLESS_SHOWN):
            shows = [f"{_seat_name((int(s[E.DEALER]) + 1 + i) % n)} pass"
                     for i in range(int(s[E.SHOW_NODES]))]
            if s[E.OUTCOME] == E.POINTLESS_SHOWN:
                shows.append(f"{_seat_name(int(s[E.TO_MOVE]))} show pointless")
            lines.append("pointless shows: " + ", ".join(shows))
        if raises:
            lines.append("second round: " + ", ".join(raises))
        lines.append(f"bidder {_seat_name(int(s[E.BIDDER]))}, bid {s[E.HIGH_BID]}")
    if s[E.INDICATOR] >= 0:
        if s[E.TRUMP_SHOWN]:
            lines.append(f"trump {SUIT_CHARS[s[E.TRUMP]]} shown (indicator "
                         f"{card_string(int(s[E.INDICATOR]))})")
        elif player is None or player == s[E.BIDDER]:
            lines.append(f"indicator {card_string(int(s[E.INDICATOR]))} face down (trump "
                         f"{SUIT_CHARS[s[E.TRUMP]]}, hidden)")
        else:
            lines.append("indicator face down (trump hidden)")
    if s[E.COT_PLAYED_ON]:
        lines.append(f"cot: surrender offered before trick {s[E.COT_PLAYED_ON]}, bidder plays on")
    elif s[E.COT_NODE] == E.ANSWER_PENDING or s[E.SPECIAL_END] == E.END_SURRENDERED:
        lines.append(f"cot: surrender offered before trick {s[E.TRICK_NUMBER] + 1}")
    if phase == E.PLAYING or s[E.TRICK_NUMBER] > 0:
        tricks = range(int(s[E.TRICK_NUMBER])) if perfect_recall else ()
        for trick in tricks:
            line = _trick_line(s, trick, int(s[E.TRICK_LEADERS + trick]), n,
                               int(s[E.TRICK_TRUMPS_FROM + trick]))
            lines.append(f"trick {trick + 1}: {line}, won by "
                         f"{_seat_name(int(s[E.TRICK_WINNERS + trick]))}")
        if phase == E.PLAYING:
            line = _trick_line(s, int(s[E.TRICK_NUMBER]), int(s[E.TRICK_LEADER]),
                               int(s[E.TRICK_SIZE]), int(s[E.TRUMPS_FROM]))
            lines.append(f"trick {s[E.TRICK_NUMBER] + 1}: {line}")
        voids = voids_line(s[E.VOIDS:E.VOIDS + n])
        if voids:
            lines.append(voids)
        lines.append("card points: " + ", ".join(
            f"{_side_name(s, side)} {s[E.CARD_POINTS_WON + side]} "
            f"({s[E.TRICKS_WON + side]} tricks)" for side in range(int(E.num_sides(s)))))
    if phase == E.GAME_OVER:
        if s[E.SPECIAL_END]:
            lines.append(E.SPECIAL_END_NAMES[int(s[E.SPECIAL_END])])
        if s[E.OUTCOME] == E.PLAYED_OUT:
            lines.append("hand score: " + ", ".join(
                f"{_side_name(s, side)} {s[E.GAME_POINTS + side]:+d}"
                for side in range(int(E.num_sides(s)))))
        else:
            lines.append(E.OUTCOME_NAMES[int(s[E.OUTCOME])])
    return "\n".join(lines)


def information_state_key(initial: np.ndarray, actions: np.ndarray, seat: int) -> int:
    """``seat``'s 64-bit information-state key after ``actions`` from ``initial`` (one kernel call)."""
    return kernels.information_state_key(kernels.TWENTY_EIGHT, initial, actions, seat)


TwentyEightGame.state_class = TwentyEightState
def next_deal_cards(world: np.ndarray, replay: np.ndarray) -> int:
    """The receiving seat's cards of the current deal stage in ``world`` not dealt yet (rulings 1, 3)."""
    seat = receiving_seat_of(replay)
    first_four = int(world[E.FIRST_FOUR + seat])
    if replay[E.CARDS_DEALT] < replay[E.STAGE_CARDS]:
        stage = first_four
    else:
        stage = int(world[E.DEALT + seat]) & ~first_four
    return stage & ~int(replay[E.DEALT + seat])


def hidden_action(world: np.ndarray, replay: np.ndarray, action: int) -> int:
    """The indicator laid in ``world`` where the drawn-from history laid ``action`` face down.

    A first bidder's indicator that a partner's raise sent back (ruling 4) is
    the world's old indicator; the indicator in place is the world's own.
    """
    if replay[E.PHASE] != E.PLACING:
        return action
    if replay[E.OLD_INDICATOR] == E.NO_CARD and world[E.OLD_INDICATOR] != E.NO_CARD:
        return int(world[E.OLD_INDICATOR])
    return int(world[E.INDICATOR])


TwentyEightState.view = GameView(describe, observation.tensor_pieces, observation.encode,
                                 sampling.resample_hidden_hands,
                                 information_state_key, next_deal_cards, hidden_action,
                                 observation.tensor_divisors, observation.PIECE_MEANINGS)

pyspiel.register_game(GAME_TYPE, TwentyEightGame)

__all__ = [
    "GAME_NAME",
    "TWENTY_EIGHT_ENGINE",
    "TwentyEightGame",
    "TwentyEightState",
    "action_to_string",
    "deal_chance_actions",
    "describe",
    "state_action_to_string",
]
