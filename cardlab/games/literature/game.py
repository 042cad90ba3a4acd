"""``cardlab_literature``: Literature as an OpenSpiel game over the numba engine.

The rules live once, in :mod:`cardlab.games.literature.engine`; this module
gives them OpenSpiel's shape (game type, game, state, observer), checks the
parameters, and writes the contract's strings.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np
import pyspiel

from cardlab.core.bitboard import cards_in
from cardlab.core.cards import card_string, cards_string
from cardlab.core.engine import CHANCE_PLAYER, Engine
from cardlab.core.openspiel import (
    EngineGame,
    EngineState,
    GameView,
    card_game_type,
    checked_parameters,
)
from cardlab.core.parameters import Parameter, ParameterTable
from cardlab.core.sampling import redraw_deal_so_far
from cardlab.games import kernels
from cardlab.games.literature import engine as E
from cardlab.games.literature import knowledge as K
from cardlab.games.literature import observation, sampling
from cardlab.games.literature.rules import (
    ASSIGN,
    CHALLENGE,
    CLAIM,
    DECLINE,
    DEFAULT_MAX_ASKS,
    EIGHTS,
    HALF_SUIT_SIZE,
    HALF_SUIT_VALUES,
    JOKERS,
    MAX_ASKS_LIMIT,
    MAX_DISTINCT_ACTIONS,
    MAX_HALF_SUITS,
    MAX_PLAYERS,
    NUM_DISTINCT_ACTIONS,
    NUM_HALF_SUITS,
    PASS_TURN,
    SEVENS_REMOVED,
    SMALL_HALF_SUIT_COUNTS,
    SMALL_HALF_SUIT_SIZES,
    UNRESOLVED,
    VOID,
    deck_size,
    half_suit_name,
    small_layout,
    unsupported_reason,
)

GAME_NAME = "cardlab_literature"

#: Every parameter of the game, its default and allowed values (the engine takes them from
#: engine_parameters).
PARAMETER_TABLE = ParameterTable(
    Parameter("players", 6),  # checked against the deck by unsupported_reason
    Parameter("dealer", 0),  # 0 .. players - 1
    Parameter("max_asks", DEFAULT_MAX_ASKS, range(1, MAX_ASKS_LIMIT + 1)),
    *(Parameter(name, False) for name in (
        "sevens_removed", "jokers_ninth_set", "major_sets_worth_two", "misclaim_to_opponents",
        "first_ask_left_of_dealer", "claim_any_time", "eights_in_play", "opponent_picks_next_player",
        "ask_own_card_surrender", "bluff_own_card", "forced_claims", "challenge")),
    Parameter("half_suit_size", 6, SMALL_HALF_SUIT_SIZES, research=True),
    Parameter("half_suits", 8, SMALL_HALF_SUIT_COUNTS, research=True),
)
DEFAULT_PARAMETERS = PARAMETER_TABLE.defaults
#: cardlab's own parameters for exactly solvable small games (docs/rules/literature.md#small-games):
#: research tools, not rule variants of docs/variants.md.
RESEARCH_PARAMETERS = PARAMETER_TABLE.research
#: What a small game may change besides its research parameters; everything else stays at its default.
SMALL_GAME_PARAMETERS = ("players", "dealer", "max_asks", "major_sets_worth_two",
                         "misclaim_to_opponents", "first_ask_left_of_dealer")
PARAMETER_RULES = PARAMETER_TABLE.rules


def is_small_game(p: dict[str, Any]) -> bool:
    return (p["half_suit_size"], p["half_suits"]) != (6, 8)


def check_small_game(p: dict[str, Any]) -> None:
    """A small game (docs/rules/literature.md#small-games) is the standard deck cut down, with the
    contract's rules: the layout switches and the procedure variants cannot be set with it."""
    if not is_small_game(p):
        return
    others = sorted(name for name, default in DEFAULT_PARAMETERS.items()
                    if p[name] != default and name not in SMALL_GAME_PARAMETERS + RESEARCH_PARAMETERS)
    if others:
        raise ValueError(f"{GAME_NAME}: a small game (half_suit_size = {p['half_suit_size']}, "
                         f"half_suits = {p['half_suits']}) is contract Literature on a cut-down deck: "
                         f"{others} cannot be set with it (only {list(SMALL_GAME_PARAMETERS)})")


def validated_parameters(params: dict[str, Any] | None) -> dict[str, Any]:
    """The full parameter set, or ``ValueError`` saying what is wrong."""
    p = {**DEFAULT_PARAMETERS, **checked_parameters(GAME_NAME, params or {}, PARAMETER_RULES)}
    if p["eights_in_play"] and (p["sevens_removed"] or p["jokers_ninth_set"]):
        raise ValueError(
            f"{GAME_NAME}: eights_in_play cannot be combined with sevens_removed or "
            "jokers_ninth_set: the 8s join the high half-suits, the 7s stay in the low ones"
        )
    if p["ask_own_card_surrender"] and p["bluff_own_card"]:
        raise ValueError(
            f"{GAME_NAME}: ask_own_card_surrender and bluff_own_card cannot be combined: "
            "they give an ask for one's own card two different outcomes"
        )
    check_small_game(p)
    if p["sevens_removed"] and p["jokers_ninth_set"]:
        raise ValueError(
            f"{GAME_NAME}: sevens_removed and jokers_ninth_set cannot be combined: the ninth set "
            "is the four 8s, which the sevens-removed deck keeps in its high half-suits"
        )
    reason = unsupported_reason(p["players"], layout_of(p))
    if reason:
        raise ValueError(f"{GAME_NAME}: {reason}")
    if not 0 <= p["dealer"] < p["players"]:
        raise ValueError(
            f"{GAME_NAME}: parameter 'dealer' must be in 0..{p['players'] - 1}, got {p['dealer']}"
        )
    return p


def layout_of(p: dict[str, Any]) -> int:
    if p["eights_in_play"]:
        return EIGHTS
    if p["jokers_ninth_set"]:
        return JOKERS
    if p["sevens_removed"]:
        return SEVENS_REMOVED
    return small_layout(p["half_suit_size"], p["half_suits"])


def action_to_string(player: int, action: int) -> str:
    """The contract's string of ``action``; chance actions (``player`` -1) are the dealt card."""
    action = int(action)
    if player == CHANCE_PLAYER:
        return card_string(action)
    if 0 <= action < CLAIM:
        target, card = divmod(action, 64)
        return f"ask P{target} {card_string(card)}"
    if CLAIM <= action < CLAIM + MAX_HALF_SUITS:
        return f"claim {half_suit_name(action - CLAIM)}"
    if action == DECLINE:
        return "pass"
    if ASSIGN <= action < ASSIGN + MAX_PLAYERS:
        return f"assign P{action - ASSIGN}"
    if PASS_TURN <= action < NUM_DISTINCT_ACTIONS:
        return f"pass P{action - PASS_TURN}"
    if CHALLENGE <= action < MAX_DISTINCT_ACTIONS:
        return f"challenge {half_suit_name(action - CHALLENGE)}"
    raise ValueError(f"{GAME_NAME}: no action with id {action} "
                     f"(ids are 0..{MAX_DISTINCT_ACTIONS - 1})")


def state_action_to_string(s: np.ndarray, player: int, action: int) -> str:
    """The string of ``action`` in state ``s`` (the engine's); no Literature string depends on the state."""
    return action_to_string(player, action)


@cache
def literature_engine(num_players: int) -> Engine:
    """The checked Python face of the engine for ``num_players`` seats."""
    return Engine.from_kernels(E, GAME_NAME, num_players, MAX_DISTINCT_ACTIONS,
                               state_action_to_string)


GAME_TYPE = card_game_type(GAME_NAME, "Literature (cardlab)", 4, MAX_PLAYERS, DEFAULT_PARAMETERS)


def new_engine_state(p: dict[str, Any]) -> np.ndarray:
    """The engine array at the start of a game with these validated parameters."""
    return E.new_state(
        p["players"], p["dealer"], p["max_asks"], layout_of(p), int(p["major_sets_worth_two"]),
        int(p["misclaim_to_opponents"]), int(p["first_ask_left_of_dealer"]), own_card_asks(p),
        int(p["opponent_picks_next_player"]), int(p["claim_any_time"]), int(p["forced_claims"]),
        int(p["challenge"]),
    )


def own_card_asks(p: dict[str, Any]) -> int:
    """What an ask for one's own card does under these parameters (12.12, 12.13)."""
    if p["ask_own_card_surrender"]:
        return E.SURRENDER_OWN_CARD
    return E.BLUFF_OWN_CARD if p["bluff_own_card"] else E.NO_OWN_CARD_ASKS


class LiteratureGame(EngineGame):
    """Literature for 4, 6 (default), 8, 12 or 16 players in two alternating teams."""

    def __init__(self, params: dict[str, Any] | None = None):
        self.parameters = validated_parameters(params)
        p = self.parameters
        layout = layout_of(p)
        major = int(p["major_sets_worth_two"])
        utility = float(sum(HALF_SUIT_VALUES[major, h] for h in range(NUM_HALF_SUITS[layout])))
        # Asks, a claim's nodes (the claim and one per card), at most one hand-off per claim,
        # and the deal; with claims at any time or challenges (12.5, 12.17) a window of
        # players - 1 nodes before every on-turn decision; a forced procedure's passes: N F per
        # (re)start with F half-suits (12.15), N per challenge (12.17).
        half_suits = int(NUM_HALF_SUITS[layout])
        length = (deck_size(layout) + p["max_asks"]
                  + (HALF_SUIT_SIZE[layout] + 3) * half_suits)
        if p["claim_any_time"] or p["challenge"]:
            length += (p["players"] - 1) * (p["max_asks"] + 2 * half_suits + 1)
        if p["forced_claims"]:
            length += p["players"] * half_suits * (half_suits + 1) // 2
        if p["challenge"]:
            length += p["players"] * half_suits
        info = pyspiel.GameInfo(
            num_distinct_actions=(MAX_DISTINCT_ACTIONS if p["challenge"]
                                  else NUM_DISTINCT_ACTIONS),
            max_chance_outcomes=54,
            num_players=p["players"],
            min_utility=-utility,
            max_utility=utility,
            utility_sum=0.0,
            max_game_length=int(length),
        )
        super().__init__(GAME_TYPE, info, params or {})
        self.engine = literature_engine(p["players"])
        self.initial_array = new_engine_state(p)



class LiteratureState(EngineState):
    """A Literature state: the engine array plus OpenSpiel's bookkeeping (history)."""


def _status_text(status: int) -> str:
    if status == UNRESOLVED:
        return "in play"
    if status == VOID:
        return "void"
    return f"team {status}"


def event_string(s: np.ndarray, event: int) -> str:
    """One logged public event, as the table saw it."""
    return _event_text(int(s[E.LAYOUT]), int(event))


@lru_cache(maxsize=1 << 16)
def _event_text(layout: int, event: int) -> str:
    """An event's text depends on the deck's layout and the event word only, so a
    perfect-recall view (every event of the log, at every step) decodes each once."""
    event = np.int64(event)
    actor = int(E.event_actor(event))
    kind = int(E.event_kind(event))
    if kind == E.EVENT_ASK:
        answer = "yes" if E.event_success(event) else "no"
        if E.event_surrendered(event):
            answer = "own card, surrendered"
        return (f"P{actor} asks P{int(E.event_target(event))} "
                f"{card_string(int(E.event_card(event)))}: {answer}")
    if kind == E.EVENT_PASS:
        return f"P{actor} passes to P{int(E.event_target(event))}"
    if kind == E.EVENT_FORCED and E.event_forced_kind(event) == E.FORCED_DECLARATION:
        return f"P{actor} declares after {int(E.event_passes(event))} passes"
    h = int(E.event_half_suit(event))
    cards = cards_in(int(E.HALF_SUIT_MASKS[layout, h])).tolist()
    shown = " ".join(f"{card_string(c)}:P{int(E.event_holder(event, i))}"
                     for i, c in enumerate(cards))
    status = int(E.event_status(event))
    if kind == E.EVENT_FORCED and E.event_forced_kind(event) == E.FORCED_CHALLENGE:
        if status == E.MUST_DECLARE:
            return f"P{actor} challenges team {1 - actor % 2} on {half_suit_name(h)}: it must declare"
        return (f"P{actor} challenges team {1 - actor % 2} on {half_suit_name(h)}, which does not "
                f"hold it all: shown [{shown}] -> {_status_text(status)}")
    if kind == E.EVENT_FORCED:
        return (f"P{actor} passes the last time: {half_suit_name(h)} undeclared, shown [{shown}] "
                f"-> {_status_text(status)}")
    named = " ".join(f"{card_string(c)}:P{int(E.event_named_seat(event, i))}"
                     for i, c in enumerate(cards))
    when = " in a claim window" if E.event_in_window(event) else ""
    return (f"P{actor} claims {half_suit_name(h)}{when} [{named}] shown [{shown}] -> "
            f"{_status_text(status)}")


def describe(s: np.ndarray, player: int | None, perfect_recall: bool) -> str:
    """A readable view of the state: everything (``player=None``) or what ``player`` sees.

    With ``perfect_recall`` the view holds the player's dealt hand and every
    public event in order (asks with their answers, claims with the cards
    shown, hand-offs), so two histories give the same string exactly when the
    player cannot tell them apart. Without it, the view is the present: hands,
    sizes, statuses and what the player can deduce.
    """
    n = int(s[E.NUM_PLAYERS])
    lines = [f"{n} players, dealer P{int(s[E.DEALER])}, phase {E.PHASE_NAMES[s[E.PHASE]]}"]
    if player is None:
        for seat in range(n):
            lines.append(f"P{seat} hand: {cards_string(int(s[E.HANDS + seat]))}")
    else:
        lines.append(f"seat P{player}")
        if perfect_recall:
            lines.append(f"dealt: {cards_string(int(s[E.DEALT + player]))}")
        lines.append(f"hand: {cards_string(int(s[E.HANDS + player]))}")
    if s[E.PHASE] == E.DEALING:
        lines.append(f"cards dealt: {int(s[E.CARDS_DEALT])}")
        return "\n".join(lines)
    lines.append("hand sizes: " + " ".join(
        f"P{seat}:{int(E.knowledge_of(s)[K.HAND_SIZE + seat])}" for seat in range(n)))
    layout = int(s[E.LAYOUT])
    lines.append("half-suits: " + ", ".join(
        f"{half_suit_name(h)} {_status_text(int(s[E.STATUS + h]))}"
        for h in range(int(NUM_HALF_SUITS[layout]))))
    lines.append(f"scores: team 0 {int(s[E.SCORES])}, team 1 {int(s[E.SCORES + 1])}; "
                 f"asks {int(s[E.ASKS])}/{int(s[E.MAX_ASKS])}")
    if perfect_recall:
        for i in range(int(s[E.LOG_LENGTH])):
            lines.append(event_string(s, int(s[E.LOG + i])))
    elif s[E.LOG_LENGTH] > 0:
        lines.append("last: " + event_string(s, int(s[E.LOG + s[E.LOG_LENGTH] - 1])))
        if player is not None:
            view = E.private_knowledge(s, player)
            known = []
            for seat in range(n):
                placed = int(K.placed_cards(view, seat))
                if seat != player and placed:
                    known.append(f"P{seat} holds {cards_string(placed)}")
            if known:
                lines.append("known: " + "; ".join(known))
    if s[E.PHASE] == E.CLAIMING:
        named = " ".join(f"P{int(s[E.CLAIM_SEATS + i])}" for i in range(int(s[E.CLAIM_COUNT])))
        lines.append(f"P{int(s[E.CLAIMANT])} claiming {half_suit_name(int(s[E.CLAIM_HALF_SUIT]))}"
                     f": {named or '-'}")
    if s[E.PHASE] != E.GAME_OVER:
        lines.append(f"to move: P{int(s[E.TO_MOVE])}")
        if s[E.WINDOW_POLLS] > 0 and s[E.PHASE] == E.ASKING:
            lines.append(f"claim window: P{int(s[E.TO_MOVE])} may claim "
                         f"(P{int(s[E.TURN_SEAT])} on turn)")
        if s[E.PICKING_FOR] >= 0:
            lines.append(f"P{int(s[E.TO_MOVE])} picks who plays for P{int(s[E.PICKING_FOR])}")
        if s[E.FORCED_TEAM] >= 0:
            forced = ", ".join(half_suit_name(h) for h in range(MAX_HALF_SUITS)
                               if (int(s[E.FORCED_SET]) >> h) & 1)
            cause = (f"answering P{int(s[E.CHALLENGER])}'s challenge" if s[E.CHALLENGER] >= 0
                     else "the endgame")
            lines.append(f"forced declaration ({cause}): team {int(s[E.FORCED_TEAM])} declares "
                         f"{forced} or passes; {int(s[E.FORCED_PASSES])} of "
                         f"{int(s[E.NUM_PLAYERS]) * len(forced.split(', '))} passes made")
    return "\n".join(lines)


def resample(array: np.ndarray, seat: int, stream: np.ndarray) -> np.ndarray:
    """A world ``seat`` cannot tell apart from ``array``.

    The other hands are redrawn to meet every hard constraint the player knows
    (hand sizes, placed cards, absences, half-suit minimums), and a draw is kept
    only if the whole event log could have been played with it
    (:func:`cardlab.games.literature.sampling.resample_hidden_hands`). Raises
    ``RuntimeError`` rather than return a world that breaks a constraint.
    """
    if array[E.PHASE] == E.DEALING:
        return redraw_deal_so_far(array, seat, E.HANDS, stream)
    world, draws = sampling.resample_hidden_hands(array, seat, stream, sampling.RESAMPLE_DRAWS)
    if draws < 0:
        raise RuntimeError(f"{GAME_NAME}: no deal fits player {seat}'s knowledge; "
                           "the state is inconsistent")
    if draws == 0:
        raise RuntimeError(f"{GAME_NAME}: {sampling.RESAMPLE_DRAWS} drawn deals all contradicted "
                           "the event log")
    return world


LiteratureGame.state_class = LiteratureState
def information_state_key(initial: np.ndarray, actions: np.ndarray, seat: int) -> int:
    """``seat``'s 64-bit information-state key after ``actions`` from ``initial`` (one kernel call)."""
    return kernels.information_state_key(kernels.LITERATURE, initial, actions, seat)


LiteratureState.view = GameView(describe, observation.pieces_of_state, observation.encode, resample,
                                 information_state_key, tensor_divisors=observation.tensor_divisors,
                                 piece_meanings=observation.PIECE_MEANINGS)

pyspiel.register_game(GAME_TYPE, LiteratureGame)


def deal_actions(hands: list[int], dealer: int) -> list[int]:
    """The chance actions that deal exactly ``hands`` (card masks, one per seat).

    The k-th card dealt goes to seat ``(dealer + 1 + k) % N``, so each seat's
    cards are dealt in turn; useful to set up a position for analysis or tests.
    The hand sizes must be the round deal's: equal, or (12.10's uneven deck)
    one card more for the first seats from ``dealer + 1``.
    """
    n = len(hands)
    queues = [sorted(c for c in range(54) if (int(hand) >> c) & 1) for hand in hands]
    total = sum(len(q) for q in queues)
    sizes = [len(q) for q in queues]
    if sizes != [total // n + int((seat - dealer - 1) % n < total % n) for seat in range(n)]:
        raise ValueError(f"{GAME_NAME}: the hand sizes {sizes} are not those of a round deal "
                         f"from P{(dealer + 1) % n} (equal, or one more for the first seats)")
    return [queues[(dealer + 1 + k) % n].pop(0) for k in range(total)]


def state_with_hands(game: LiteratureGame, hands: list[int]) -> LiteratureState:
    """A new state of ``game`` whose deal gives seat i the cards of ``hands[i]``."""
    if len(hands) != game.num_players():
        raise ValueError(f"{GAME_NAME}: {game.num_players()} hands needed, got {len(hands)}")
    state = game.new_initial_state()
    for card in deal_actions(hands, game.parameters["dealer"]):
        state.apply_action(card)
    return state
