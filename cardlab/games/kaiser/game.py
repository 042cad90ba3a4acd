"""``cardlab_kaiser``: Kaiser as an OpenSpiel game over the numba engine.

The rules live once, in :mod:`cardlab.games.kaiser.engine`; this module gives
them OpenSpiel's shape (game type, game, state, observer) and the human-facing
strings of the contract.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pyspiel

from cardlab.core.bitboard import nth_card, popcount
from cardlab.core.cards import SUIT_CHARS, card_string, cards_string, voids_line
from cardlab.core.engine import CHANCE_PLAYER, Engine
from cardlab.core.openspiel import (
    EngineGame,
    EngineState,
    GameView,
    card_game_type,
    checked_parameters,
    next_dealt_cards,
)
from cardlab.core.parameters import Parameter, ParameterTable
from cardlab.games import kernels
from cardlab.games.kaiser import engine as E
from cardlab.games.kaiser import observation, sampling
from cardlab.games.kaiser.rules import (
    BID,
    FORM_NAMES,
    HAND_SIZE,
    KAISER_40_BID,
    KAISER_BID,
    KITTY_SIZE,
    MAX_BID,
    MAX_DISTINCT_ACTIONS,
    MAX_SEATS,
    MIN_BID_CHOICES,
    MISDEAL,
    NAME_TRUMP,
    NUM_DISTINCT_ACTIONS,
    NUM_PLAYERS,
    PASS,
    PLAY_HIGH,
    PLAY_LOW,
    PLAYER_COUNTS,
    STANDARD,
    bid_of_action,
    bid_string,
    contract_name,
    num_distinct_actions,
    small_game_bids,
)

GAME_NAME = "cardlab_kaiser"

FORMS = ("les_rois", "les_rois_hetu", "joffre", "lost_heir")
KAISER_BIDS = ("kaiser_bid_solo", "kaiser_bid_team", "kaiser_40")
PASSING = ("pass_one_to_partner", "pass_two_to_partner", "hearts_style_passing",
           "partner_exchange_after_bidding")
HIGH_OR_LOW = ("high_or_low_announced_after_bid", "any_contract_high_or_low")
MATCH_ONLY = ("target_after_no_trump", "non_bidder_limit_after_no_trump", "minus_target_loses",
              "must_bid_to_win", "pot")

#: Every parameter of the game: its default, allowed values and, where the engine holds it as
#: given, its slot (min_bid, target, non_bidder_limit, pot, the forms and the passing rules reach
#: the engine through engine_parameters). The default min_bid 6 and target 52 also mean "not
#: set": a form sets its own then (effective_values).
PARAMETER_TABLE = ParameterTable(
    Parameter("dealer", 0, range(0, 6), E.FIRST_DEALER),
    Parameter("min_bid", 6, range(1, MAX_BID + 1)),  # 5, 6, 7 but in a small game (check_combination)
    Parameter("match", False, slot=E.MATCH),
    Parameter("target", 52, range(1, 1001)),
    Parameter("low_no_trump", False, slot=E.ALLOW_LOW_NO_TRUMP),
    Parameter("non_bidder_limit", 45, range(0, 1001)),
    Parameter("max_hands", 200, range(1, 100001), E.MAX_HANDS),
    Parameter("players", 4, PLAYER_COUNTS, E.PLAYERS),
    Parameter("three_teams", False, slot=E.THREE_TEAMS),
    Parameter("kitty_34_card", False, slot=E.KITTY_34_CARD),
    Parameter("low_weak_hand_no_misdeal", False, slot=E.LOW_WEAK_HAND_NO_MISDEAL),
    Parameter("high_low_no_trump_equal", False, slot=E.HIGH_LOW_NO_TRUMP_EQUAL),
    Parameter("high_or_low_announced_after_bid", False, slot=E.HIGH_OR_LOW_AFTER_BID),
    Parameter("any_contract_high_or_low", False, slot=E.ANY_CONTRACT_HIGH_OR_LOW),
    Parameter("les_rois", False),
    Parameter("les_rois_hetu", False),
    Parameter("joffre", False),
    Parameter("lost_heir", False),
    Parameter("target_after_no_trump", 0, range(0, 1001), E.TARGET_AFTER_NO_TRUMP),
    Parameter("minus_target_loses", False, slot=E.MINUS_TARGET_LOSES),
    Parameter("five_hearts_breaks_limit", False, slot=E.FIVE_HEARTS_BREAKS_LIMIT),
    Parameter("non_bidder_limit_after_no_trump", 0, range(0, 1001), E.LIMIT_AFTER_NO_TRUMP),
    Parameter("must_bid_to_win", False, slot=E.MUST_BID_TO_WIN),
    Parameter("no_overtricks", False, slot=E.NO_OVERTRICKS),
    Parameter("three_spades_needs_three_tricks", False, slot=E.THREE_SPADES_NEEDS_THREE_TRICKS),
    Parameter("dealer_may_pass", False, slot=E.DEALER_MAY_PASS),
    Parameter("four_of_a_rank_misdeal", False, slot=E.FOUR_OF_A_RANK_MISDEAL),
    Parameter("kaiser_bid_solo", False, slot=E.KAISER_BID_SOLO),
    Parameter("kaiser_bid_team", False, slot=E.KAISER_BID_TEAM),
    Parameter("kaiser_40", False, slot=E.KAISER_40),
    Parameter("pass_one_to_partner", False),
    Parameter("pass_two_to_partner", False),
    Parameter("hearts_style_passing", False),
    Parameter("partner_exchange_after_bidding", False),
    Parameter("pot", 0.0),
    Parameter("hand_size", HAND_SIZE, range(1, HAND_SIZE + 1), E.HAND_CARDS, research=True),
    Parameter("max_bid", MAX_BID, range(1, MAX_BID + 1), research=True),
)
DEFAULT_PARAMETERS = PARAMETER_TABLE.defaults
#: cardlab's own parameters for exactly solvable small games (docs/rules/kaiser.md#small-games):
#: research tools, not rule variants of docs/variants.md.
RESEARCH_PARAMETERS = PARAMETER_TABLE.research
#: What a small game may change besides its research parameters; everything else stays at its default.
SMALL_GAME_PARAMETERS = ("dealer", "min_bid", "low_no_trump", "dealer_may_pass", "no_overtricks",
                         "match", "target", "non_bidder_limit", "max_hands")
PARAMETER_RULES = PARAMETER_TABLE.rules
MAX_POT = 1000.0


def _reject(*reasons: str) -> None:
    raise ValueError(f"{GAME_NAME}: " + "; ".join(reasons))


def effective_values(p: dict[str, Any]) -> tuple[int, int, int]:
    """Ruling V-K1: the minimum bid m, target T0 and non-bidder limit L the game plays with.

    A default ``min_bid`` or ``target`` stands for the value the form or the
    player count fixes; L is the parameter's (the games without a limit ignore it).
    """
    min_bid = p["min_bid"]
    if p["hand_size"] < HAND_SIZE:
        return small_values(p)[0], p["target"], p["non_bidder_limit"]
    if min_bid == DEFAULT_PARAMETERS["min_bid"]:  # not set
        min_bid = 4 if p["les_rois"] else 5 if p["les_rois_hetu"] or p["joffre"] else (
            7 if p["players"] == 3 else 6)
    target = p["target"]
    if target == DEFAULT_PARAMETERS["target"]:  # not set
        target = 40 if p["les_rois"] or p["les_rois_hetu"] or p["joffre"] else (
            25 if p["lost_heir"] else 52)
    return min_bid, target, p["non_bidder_limit"]


def small_values(p: dict[str, Any]) -> tuple[int, int]:
    """The lowest and highest bid values of a small game: the defaults ``min_bid`` 6 and
    ``max_bid`` 12 stand for those of its hand size (rules.small_game_bids), as in ruling V-K1."""
    lowest, highest = small_game_bids(p["hand_size"])
    return (lowest if p["min_bid"] == DEFAULT_PARAMETERS["min_bid"] else p["min_bid"],
            highest if p["max_bid"] == MAX_BID else p["max_bid"])


def check_small_game(p: dict[str, Any]) -> None:
    """A small game (docs/rules/kaiser.md#small-games): four seats, the standard pack cut down, a
    bid ladder inside what a side can take; the standard game keeps ``min_bid`` 5, 6, 7 and 12."""
    if p["hand_size"] == HAND_SIZE:
        if p["min_bid"] not in MIN_BID_CHOICES:
            _reject(f"parameter 'min_bid' must be one of {MIN_BID_CHOICES}, got {p['min_bid']!r} "
                    "(other values only in a small game: hand_size < 8)")
        if p["max_bid"] != MAX_BID:
            _reject(f"parameter 'max_bid' shortens a small game's ladder: it needs hand_size < 8, "
                    f"got max_bid = {p['max_bid']}")
        return
    others = sorted(name for name, default in DEFAULT_PARAMETERS.items()
                    if p[name] != default and name not in SMALL_GAME_PARAMETERS + RESEARCH_PARAMETERS)
    if others:
        _reject(f"a small game (hand_size = {p['hand_size']}) is four-player standard Kaiser: "
                f"{others} cannot be set with it (only {list(SMALL_GAME_PARAMETERS)})")
    lowest, highest = small_values(p)
    top = small_game_bids(p["hand_size"])[1]
    if not 1 <= lowest <= highest <= top:
        _reject(f"with hand_size = {p['hand_size']} the bids need 1 <= min_bid <= max_bid <= {top} "
                f"(the most one side can take), got min_bid = {lowest}, max_bid = {highest}")


def check_combination(p: dict[str, Any]) -> None:
    """The combined checks of docs/rules/kaiser.md#variants ("rejected combinations")."""
    check_small_game(p)
    pot = p["pot"]
    if isinstance(pot, bool) or not isinstance(pot, int | float | np.integer | np.floating):
        _reject(f"parameter 'pot' must be a number, got {pot!r}")
    if not 0.0 <= float(pot) <= MAX_POT:
        _reject(f"parameter 'pot' must be in 0.0..{MAX_POT}, got {pot!r}")
    players = p["players"]
    if p["dealer"] >= players:
        _reject(f"'dealer' must be a seat, 0..{players - 1} with players = {players}")
    if p["three_teams"] and players != 6:
        _reject("'three_teams' needs players = 6")
    forms = [name for name in FORMS if p[name]]
    if len(forms) > 1:
        _reject(f"at most one form, got {forms}")
    if forms and players != 4:
        _reject(f"the form {forms[0]!r} is played by 4 players, not players = {players}")
    standard_only = ("kitty_34_card", "low_no_trump", "high_low_no_trump_equal", *HIGH_OR_LOW,
                     "low_weak_hand_no_misdeal", "four_of_a_rank_misdeal",
                     "three_spades_needs_three_tricks", "five_hearts_breaks_limit", *KAISER_BIDS)
    clashing = [name for name in standard_only if p[name]]
    if p["target_after_no_trump"] > 0:
        clashing.append("target_after_no_trump")
    if forms and clashing:
        _reject(f"{clashing} are rules of the standard pack or of no-trump bids, which the form "
                f"{forms[0]!r} lacks")
    no_limit = [name for name in ("les_rois", "les_rois_hetu", "lost_heir", "must_bid_to_win") if p[name]]
    if no_limit and (p["non_bidder_limit"] != 45 or p["non_bidder_limit_after_no_trump"] > 0):
        _reject(f"{no_limit[0]!r} has no non-bidder limit: leave 'non_bidder_limit' at 45 and "
                "'non_bidder_limit_after_no_trump' at 0")
    if p["kitty_34_card"] and players != 4:
        _reject(f"'kitty_34_card' is a four-player rule (players = {players} has its own deck)")
    if p["high_low_no_trump_equal"] and not p["low_no_trump"]:
        _reject("'high_low_no_trump_equal' needs 'low_no_trump'")
    high_or_low = [name for name in HIGH_OR_LOW if p[name]]
    if high_or_low and p["low_no_trump"]:
        _reject(f"{high_or_low[0]!r} replaces the low no-trump bid: not with 'low_no_trump'")
    if len(high_or_low) > 1:
        _reject(f"only one of {list(HIGH_OR_LOW)}")
    if p["kaiser_bid_solo"] and p["kaiser_bid_team"]:
        _reject("only one of 'kaiser_bid_solo', 'kaiser_bid_team'")
    kaiser_bids = [name for name in KAISER_BIDS if p[name]]
    if kaiser_bids and players != 4:
        _reject(f"{kaiser_bids[0]!r} is a four-player rule, not players = {players}")
    if (p["kaiser_bid_solo"] or p["kaiser_bid_team"]) and p["must_bid_to_win"]:
        _reject("a failed Kaiser bid hands the game to the non-bidders: not with 'must_bid_to_win'")
    passing = [name for name in PASSING if p[name]]
    if len(passing) > 1:
        _reject(f"at most one passing rule, got {passing}")
    if passing and players != 4:
        _reject(f"{passing[0]!r} passes to a partner: players = 4, not {players}")
    match_only = [name for name in MATCH_ONLY if p[name]]
    if match_only and not p["match"]:
        _reject(f"{match_only} are match rules: they need match = true")
    _, target, limit = effective_values(p)
    if 0 < p["target_after_no_trump"] <= target:
        _reject(f"'target_after_no_trump' must be 0 (off) or above the target {target}")
    limit_after = p["non_bidder_limit_after_no_trump"]
    if limit_after > 0 and not p["target_after_no_trump"]:
        _reject("'non_bidder_limit_after_no_trump' rises with the target: it needs "
                "'target_after_no_trump'")
    if 0 < limit_after <= limit:
        _reject(f"'non_bidder_limit_after_no_trump' must be 0 (off) or above "
                f"'non_bidder_limit' {limit}")
    if p["must_bid_to_win"] and p["minus_target_loses"]:
        _reject("'must_bid_to_win' and 'minus_target_loses' are two different ways to end the match")
    if p["must_bid_to_win"] and p["five_hearts_breaks_limit"]:
        _reject("'must_bid_to_win' has no non-bidder limit for 'five_hearts_breaks_limit' to break")


def hand_length(players: int, cards_given: int = 0) -> int:
    """The most nodes a hand can take: deal and kitty, giving, bids, trump, high or low, discards,
    play.

    Every dealt card is played but the discards; two players also deal and play their piles;
    with a passing rule (11.32-11.35) each seat gives ``cards_given`` cards, one a node."""
    cards = 4 * HAND_SIZE if players == 2 else players * HAND_SIZE
    return (cards + KITTY_SIZE) + players * (1 + cards_given) + 2 + KITTY_SIZE + cards


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
    if action == PLAY_HIGH:
        return "high"
    if action == PLAY_LOW:
        return "low"
    if BID <= action < NUM_DISTINCT_ACTIONS:
        return bid_string(*bid_of_action(action))
    if action == KAISER_BID:
        return "bid kaiser"
    if action == KAISER_40_BID:
        return "bid kaiser 40"
    raise ValueError(f"{GAME_NAME}: no action with id {action} (ids are 0..{MAX_DISTINCT_ACTIONS - 1})")


def state_action_to_string(s: np.ndarray, player: int, action: int) -> str:
    """The string of ``action`` in state ``s`` (the engine's): a card given (11.32-11.35) reads
    ``"give 5H"``, every other string is the state's alone."""
    if s[E.PHASE] == E.GIVING and 0 <= int(action) < 52:
        return "give " + card_string(int(action))
    return action_to_string(player, action)


@cache
def kaiser_engine(num_players: int) -> Engine:
    """The checked Python face of the engine for ``num_players`` seats (11.11-11.14)."""
    return Engine.from_kernels(E, GAME_NAME, num_players, MAX_DISTINCT_ACTIONS, state_action_to_string)


KAISER_ENGINE = kaiser_engine(NUM_PLAYERS)

GAME_TYPE = card_game_type(GAME_NAME, "Kaiser (cardlab)", 2, MAX_SEATS, DEFAULT_PARAMETERS)


def passing_rule_of(p: dict[str, Any]) -> int:
    """The engine's PASSING_RULE for these parameters (at most one is set: check_combination)."""
    return next((rule for rule, name in enumerate(PASSING, start=E.PASS_ONE) if p[name]), E.NO_PASSING)


def form_of(p: dict[str, Any]) -> int:
    """The form these parameters play (rules.FORM_NAMES), STANDARD when none is set."""
    return next((form for form, name in enumerate(FORM_NAMES) if form != STANDARD and p[name]),
                STANDARD)


def engine_parameters(parameters: dict[str, Any]) -> np.ndarray:
    """The values of the engine's PARAMETER_SLOTS (:mod:`cardlab.games.kaiser.engine`)."""
    p = {**DEFAULT_PARAMETERS, **parameters}
    min_bid, target, limit = effective_values(p)
    slots = {
        **PARAMETER_TABLE.slot_values(p),
        E.MIN_BID: min_bid, E.TARGET: target, E.NON_BIDDER_LIMIT: limit,
        E.POT: np.array([float(p["pot"])]).view(np.int64)[0],
        E.FORM: form_of(p), E.PASSING_RULE: passing_rule_of(p),
        E.TOP_BID: small_values(p)[1] if p["hand_size"] < HAND_SIZE else MAX_BID,
    }
    position = {int(slot): k for k, slot in enumerate(E.PARAMETER_SLOTS)}
    values = np.zeros(E.NUM_PARAMETERS, dtype=np.int64)
    for slot, value in slots.items():
        values[position[slot]] = int(value)
    return values


def new_engine_state(parameters: dict[str, Any]) -> np.ndarray:
    """The engine array at the start of a game with these (validated) parameters."""
    return E.new_state(engine_parameters(parameters))


class KaiserGame(EngineGame):
    """Kaiser, one hand (default) or a match to ``target``."""

    def __init__(self, params: dict[str, Any] | None = None):
        self.parameters = {
            **DEFAULT_PARAMETERS,
            **checked_parameters(GAME_NAME, params or {}, PARAMETER_RULES),
        }
        check_combination(self.parameters)
        p = self.parameters
        initial_array = new_engine_state(p)
        # A match pays +1 / -1, plus at most every hand's stake into the pot (11.36).
        utility = 1.0 + p["pot"] * p["max_hands"] if p["match"] else E.hand_utility_bound(initial_array)
        info = pyspiel.GameInfo(
            num_distinct_actions=num_distinct_actions(p["kaiser_bid_solo"] or p["kaiser_bid_team"],
                                                      p["kaiser_40"]),
            max_chance_outcomes=52,
            num_players=p["players"],
            min_utility=-utility,
            max_utility=utility,
            utility_sum=0.0,
            max_game_length=hand_length(p["players"], int(E.CARDS_GIVEN[passing_rule_of(p)]))
            * (p["max_hands"] if p["match"] else 1),
        )
        super().__init__(GAME_TYPE, info, params or {})
        self.engine = kaiser_engine(p["players"])
        self.initial_array = initial_array



class KaiserState(EngineState):
    """A Kaiser state: the engine array plus OpenSpiel's bookkeeping (history)."""


def _seat_name(seat: int) -> str:
    return f"P{seat}"


def _piles_string(s: np.ndarray, player: int | None) -> str:
    """Two players' piles (11.11), bottom/top: face-up cards by name, face-down ones as ``??`` for
    a player (he does not know his own), by name for the full view; ``-`` where played."""
    seats = []
    for seat in range(2):
        piles = []
        for pile in range(E.NUM_PILES):
            levels = []
            for level in range(2):
                card = int(s[E.PILES + seat * 2 * E.NUM_PILES + pile * 2 + level])
                if card < 0 or not (int(s[E.PILE_CARDS]) >> card) & 1:
                    levels.append("-")
                elif player is None or (int(s[E.FACE_UP]) >> card) & 1:
                    levels.append(card_string(card))
                else:
                    levels.append("??")
            piles.append("/".join(levels))
        seats.append(f"{_seat_name(seat)} " + " ".join(piles))
    return ", ".join(seats)


def _side_name(s: np.ndarray, side: int) -> str:
    """``team 0`` where seats score together, ``P2`` where each seat plays alone (3 and 5 players)."""
    return f"team {side}" if s[E.NUM_SIDES] < s[E.NUM_PLAYERS] else _seat_name(side)


def _giving_lines(s: np.ndarray, player: int | None) -> list[str]:
    """Cards given (11.32-11.35): how many each seat has given (public), and the cards as
    ``player`` knows them: his own, and those he received once delivered (everything for the
    full view)."""
    players = int(s[E.NUM_PLAYERS])
    givers = [seat for seat in range(players) if s[E.GIVEN + seat]]
    if not givers and s[E.PHASE] != E.GIVING:
        return []
    order = [(int(s[E.DEALER]) + 1 + k) % players for k in range(players)]
    counts = ", ".join(f"{_seat_name(seat)} {popcount(int(s[E.GIVEN + seat]))}"
                       for seat in order if s[E.GIVEN + seat])
    lines = [f"cards given: {counts or '-'}" + (", delivered" if s[E.DELIVERED] else "")]
    for giver in order:
        given = int(s[E.GIVEN + giver])
        receiver = int(E.receiver_of(s, giver))
        if given and player in (None, giver):
            lines.append(f"{_seat_name(giver)} gave {cards_string(given)} to {_seat_name(receiver)}")
        elif given and player == receiver and s[E.DELIVERED]:
            lines.append(f"{_seat_name(receiver)} received {cards_string(given)} from {_seat_name(giver)}")
    return lines


def describe(s: np.ndarray, player: int | None, perfect_recall: bool) -> str:
    """A readable view of the state: everything (``player=None``) or what ``player`` sees.

    With ``perfect_recall`` the view holds the player's dealt hand and every trick
    in order, so two histories of the hand give the same string exactly when the
    player cannot tell them apart. In match mode earlier hands are summarised by
    the match score and hand number.

    Long on purpose: the lines of the view are built in the order they are printed, read top to bottom
    as the view.
    """
    players, sides = int(s[E.NUM_PLAYERS]), int(s[E.NUM_SIDES])
    lines = [f"dealer {_seat_name(int(s[E.DEALER]))}, phase {E.PHASE_NAMES[s[E.PHASE]]}"]
    if s[E.FORM] != STANDARD:
        lines[0] += f", form {FORM_NAMES[s[E.FORM]]}"
    if s[E.MATCH]:
        scores = "-".join(str(s[E.MATCH_SCORE + side]) for side in range(sides))
        lines.append(f"match: hand {s[E.HAND_NUMBER] + 1}, scores {scores} (target {s[E.TARGET_IN_FORCE]})")
    if player is None:
        for seat in range(players):
            lines.append(f"{_seat_name(seat)} hand: {cards_string(int(s[E.HANDS + seat]))}")
        if E.has_piles(s):
            lines.append(f"piles: {_piles_string(s, None)}")
        if E.takes_kitty(s):
            lines.append(f"kitty: {cards_string(int(s[E.KITTY]))}, "
                         f"discarded: {cards_string(int(s[E.DISCARDS])) or '-'}")
    else:
        lines.append(f"seat {_seat_name(player)}")
        lines.append(f"hand: {cards_string(int(s[E.HANDS + player]))}")
        if perfect_recall:
            lines.append(f"dealt: {cards_string(int(s[E.DEALT + player]))}")
        if E.has_piles(s):
            lines.append(f"piles: {_piles_string(s, player)}")
        kitty, discards = observation.kitty_seen_by(s, player)
        if kitty:
            discarded = cards_string(int(discards)) or "-"
            lines.append(f"kitty: {cards_string(int(kitty))}, discarded: {discarded}")
    if s[E.PHASE] == E.DEALING:
        return "\n".join(lines)
    lines += _giving_lines(s, player)
    bids = []
    for k in range(players):
        seat = (int(s[E.DEALER]) + 1 + k) % players
        spoken = int(s[E.SPOKEN + seat])
        if spoken >= 0:
            bids.append(f"{_seat_name(seat)} {action_to_string(seat, spoken)}")
    lines.append("bidding: " + (", ".join(bids) if bids else "-"))
    if s[E.PHASE] >= E.NAMING_TRUMP and s[E.DECLARER] >= 0:
        contract = contract_name(int(s[E.HIGH_BID])) + (" played low" if s[E.PLAYED_LOW] else "")
        lines.append(f"contract: {contract} by {_seat_name(int(s[E.DECLARER]))}")
        if E.sold(s):  # Lost Heir (V-K15): the dealer accepted the bid
            lines.append(f"sold: {_side_name(s, int(E.side_of(s, s[E.DEALER])))} scores "
                         f"+{s[E.HIGH_BID] // 3} for the sale")
    if s[E.PHASE] >= E.PLAYING and s[E.TRICK_NUMBER] + s[E.TRICK_SIZE] > 0 or (
        s[E.PHASE] == E.PLAYING
    ):
        trump = int(s[E.TRUMP])
        unnamed = "by the first lead" if E.trump_to_be_led(s) else "none (no trump)"
        lines.append(f"trump: {SUIT_CHARS[trump] if trump >= 0 else unnamed}")
        tricks = range(int(s[E.TRICK_NUMBER])) if perfect_recall else ()
        for trick in tricks:
            leader = int(s[E.TRICK_LEADERS + trick])
            first = E.TRICK_HISTORY + players * trick
            cards = " ".join(card_string(int(c)) for c in s[first:first + players])
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
        voids = voids_line(s[E.VOIDS:E.VOIDS + players])
        if voids:
            lines.append(voids)
        lines.append("points: " + ", ".join(
            f"{_side_name(s, side)} {s[E.HAND_POINTS + side]} ({s[E.TRICKS_WON + side]} tricks)"
            for side in range(sides)))
    if s[E.PHASE] == E.GAME_OVER:
        if s[E.WINNER] == E.DRAWN and s[E.MISDEAL_BY] >= 0:
            lines.append(f"thrown in by {_seat_name(int(s[E.MISDEAL_BY]))}: void hand")
        elif s[E.WINNER] == E.DRAWN and s[E.DECLARER] < 0:
            lines.append("everyone passed: void hand")
        else:
            lines.append("hand score: " + ", ".join(
                f"{_side_name(s, side)} {s[E.LAST_DELTA + side]:+d}" for side in range(sides)))
            if s[E.MATCH]:
                lines.append(f"match won by {_side_name(s, int(s[E.WINNER]))}"
                             if s[E.WINNER] != E.DRAWN else "match drawn")
    return "\n".join(lines)


def information_state_key(initial: np.ndarray, actions: np.ndarray, seat: int) -> int:
    """``seat``'s 64-bit information-state key after ``actions`` from ``initial`` (one kernel call)."""
    return kernels.information_state_key(kernels.KAISER, initial, actions, seat)


KaiserGame.state_class = KaiserState
def next_deal_cards(world: np.ndarray, replay: np.ndarray) -> int:
    """The world's cards for the next chance node of ``replay``: a seat's, the kitty's (11.1, 11.12),
    or the one card of the pile place being dealt (11.11)."""
    k = int(replay[E.CARDS_DEALT])
    if E.has_piles(replay) and k >= E.PILE_DEAL_START:
        return 1 << int(world[E.PILES + E.pile_place(int(replay[E.DEALER]), k)])
    if E.takes_kitty(replay) and replay[E.CARDS_DEALT] >= replay[E.NUM_PLAYERS] * replay[E.HAND_CARDS]:
        return int(world[E.KITTY]) & ~int(replay[E.KITTY])
    return next_dealt_cards(world, replay)


def hidden_action(world: np.ndarray, replay: np.ndarray, action: int) -> int:
    """The hidden choices of ``world``, each made in ascending order, one a node: the declarer's
    kitty discards (11.1, 11.12) and the cards given (11.32-11.35). A misdeal at a giving node
    is public and stays."""
    if replay[E.PHASE] == E.DISCARDING:
        return int(nth_card(world[E.DISCARDS], popcount(replay[E.DISCARDS])))
    if replay[E.PHASE] == E.GIVING and action != MISDEAL:
        giver = int(replay[E.TO_MOVE])
        return int(nth_card(world[E.GIVEN + giver], popcount(replay[E.GIVEN + giver])))
    return action


KaiserState.view = GameView(describe, observation.tensor_pieces, observation.encode,
                            sampling.resample_hidden_hands,
                            information_state_key, next_deal_cards, hidden_action,
                            observation.tensor_divisors, observation.PIECE_MEANINGS)

pyspiel.register_game(GAME_TYPE, KaiserGame)

__all__ = ["GAME_NAME", "KAISER_ENGINE", "KaiserGame", "KaiserState", "action_to_string",
           "state_action_to_string", "CHANCE_PLAYER"]
