"""``cardlab advise``: what to bid with a hand, and which Literature claims to make.

**Bids** (Kaiser, Twenty-Eight). The position is rebuilt from the typed hand,
seat and bidding so far. A pool of worlds is drawn by the game's
belief-consistent sampler, each weighted by how well it explains the others'
bids (``epsilon ** k``, k the bids the rule-based player would not have made
holding that world's cards: the ISMCTS world pool,
:func:`cardlab.agents.ismcts.search.draw_world_pool`). Every world is then
played to the end once after each possible bid, in compiled code
(:func:`cardlab.play.kernels.play_out_choices`) by the rule-based or ISMCTS
players, with common random numbers: a world has one deal seed, so every bid
meets the same cards and the same players' draws, and differences between
bids are not luck. For each bid: the weighted mean return of the seat, its
95% interval (normal, over the effective number of worlds), a low quantile,
and the chance that the seat's team, when it ends up declaring, makes it.

**Claims** (Literature). From a stored position, each live half-suit: whether
the seat's team can claim it for certain (the card-location inference), else
the share of sampled worlds where the team holds it and where the most
frequent assignment is exactly right (:mod:`cardlab.games.literature.deductions`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyspiel

from cardlab.agents.ismcts.options import OPTIONS as ISMCTS_OPTIONS
from cardlab.agents.ismcts.search import WITHOUT_NETWORK, draw_world_pool, no_network
from cardlab.agents.pimc.bot import check_pimc_game
from cardlab.arena.entrants import NATIVE_AGENTS, AgentSpec, native_row, parse_agent
from cardlab.arena.native import agent_kinds
from cardlab.core import layout
from cardlab.core.cards import card_string, parse_card
from cardlab.core.interrupt import StopRequest, timed_slices
from cardlab.core.limits import MAX_WORLDS, check_count, check_seed
from cardlab.core.openspiel import receiving_seat_of
from cardlab.core.rng import make_stream
from cardlab.games import SPECS, game_spec
from cardlab.games.double_dummy import HIDDEN_TRUMP_CHECKS
from cardlab.play.kernels import play_out_choices
from cardlab.play.moves import MoveError, parse_move

#: The games whose auctions bid advice weighs (a game spec with a contract outcome).
BIDDING_GAMES = tuple(spec.name for spec in SPECS if spec.contract_outcome is not None)
#: How the worlds' hands are finished: played out by the chosen players, or their cards double dummy.
SOLVERS = ("play", "dd")
Z95 = 1.959963984540054


# ---- the position ------------------------------------------------------------------------
def parse_hand(text: str) -> list[int]:
    """``"AS KS QH 5H"`` as card ids, each once."""
    cards = [parse_card(token) for token in text.split()]
    repeated = sorted({card_string(c) for c in cards if cards.count(c) > 1})
    if repeated:
        raise ValueError(f"the hand holds {', '.join(repeated)} twice")
    return cards


def _deal_and_bid(game: pyspiel.Game, seat: int, hand: list[int], bids: list[str]) -> pyspiel.State:
    """Deal ``hand`` to ``seat`` (the other seats the lowest cards left) and make ``bids`` in turn."""
    state = game.new_initial_state()
    ours = list(hand)
    pending = list(bids)
    while True:
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            if receiving_seat_of(state.array) == seat:
                if not ours:
                    raise ValueError(f"this bidding goes on past the deal of your {len(hand)} cards: "
                                     f"give the cards of the next deal stage too")
                card = ours.pop(0)
                if card not in outcomes:
                    raise ValueError(f"{card_string(card)} is not in the deck of {game.get_type().long_name}")
                state.apply_action(card)
            else:
                state.apply_action(next(a for a in outcomes if a not in ours))
            continue
        if not pending or state.is_terminal():
            return state
        player = state.current_player()
        strings = [state.action_to_string(player, a) for a in state.legal_actions()]
        hidden = strings and all(text.startswith("trump ") and len(text) == 8 for text in strings)
        if player != seat and hidden:
            state.apply_action(state.legal_actions()[0])  # a hidden indicator: the sampler redraws it
            continue
        state.apply_action(parse_move(state, pending.pop(0)))


def bidding_position(game: pyspiel.Game, hand_text: str, seat: int, bids_text: str) -> pyspiel.State:
    """The position where ``seat``, holding ``hand_text``, speaks after ``bids_text``.

    The dealer is the one seat from which the bids so far lead to ``seat``'s turn.
    """
    short = game.get_type().short_name
    if short not in BIDDING_GAMES:
        titles = " and ".join(game_spec(name).title for name in BIDDING_GAMES)
        raise ValueError(f"bid advice is for {titles}, not {short}")
    num_players = game.num_players()
    if not 0 <= seat < num_players:
        raise ValueError(f"--seat must be 0..{num_players - 1}, got {seat}")
    hand = parse_hand(hand_text)
    sizes = game_spec(short).bidding_hand_sizes
    if len(hand) not in sizes:
        raise ValueError(f"a hand here is {' or '.join(map(str, sizes))} cards, got {len(hand)}")
    bids = bids_text.split(",") if "," in bids_text else _bid_words(bids_text)
    reasons = []
    for dealer in range(num_players):
        try:
            state = _deal_and_bid(_with_dealer(game, dealer), seat, hand, bids)
        except MoveError as error:
            reasons.append(f"dealer P{dealer}: {error}")
            continue
        if not state.is_terminal() and state.current_player() == seat and _all_dealt(state, seat, hand):
            return state
        reasons.append(f"dealer P{dealer}: then it is not P{seat}'s turn with these cards")
    raise ValueError(f"no dealer makes these bids lead to P{seat}'s turn ({reasons[0]})")


def _with_dealer(game: pyspiel.Game, dealer: int) -> pyspiel.Game:
    return pyspiel.load_game(game.get_type().short_name, {**game.get_parameters(), "dealer": dealer})


def _all_dealt(state: pyspiel.State, seat: int, hand: list[int]) -> bool:
    """Every card of ``hand`` dealt to ``seat`` by now (a 4-card hand only in the first stage)."""
    dealt = int(state.array[layout.DEALT + seat])
    return all(dealt >> card & 1 for card in hand)


def _bid_words(text: str) -> list[str]:
    """``"pass 7 bid 8NT"``: one bid per word, ``bid`` joined to the word after it."""
    words, out = text.split(), []
    for word in words:
        if out and out[-1].lower() in ("bid", "call"):
            out[-1] += " " + word
        else:
            out.append(word)
    return out


# ---- simulation ----------------------------------------------------------------------------
@dataclass
class BidRow:
    """One possible bid, seen from the advised seat."""

    bid: str
    mean: float
    low: float
    high: float
    quantile: float
    declared: float  # weighted share of worlds where the seat's team declares
    made: float | None  # of those, the weighted share where the contract is made


@dataclass
class Advice:
    rows: list[BidRow]
    worlds: int
    effective_worlds: float
    quantile_level: float
    players: str

    def text(self) -> str:
        q = f"{self.quantile_level:.0%} quantile"
        lines = [f"{self.worlds} worlds (effective {self.effective_worlds:.0f} after weighting by the bids), "
                 f"played out by {self.players}; returns of your seat, best first",
                 f"{'bid':<10} {'expected':>9} {'95% interval':>18} {q:>13} {'we declare':>11} {'made':>6}"]
        for row in self.rows:
            made = "-" if row.made is None else f"{row.made:.0%}"
            lines.append(f"{row.bid:<10} {row.mean:>+9.2f} {f'{row.low:+.2f} .. {row.high:+.2f}':>18} "
                         f"{row.quantile:>+13.1f} {row.declared:>11.0%} {made:>6}")
        return "\n".join(lines)


def weighted_summary(values: np.ndarray, weights: np.ndarray,
                     level: float) -> tuple[float, float, float, float]:
    """Weighted mean, its 95% interval over the effective sample size, and the ``level`` quantile."""
    total = weights.sum()
    mean = float(weights @ values / total)
    effective = total**2 / float(weights @ weights)
    spread = Z95 * float(np.sqrt(weights @ (values - mean) ** 2 / total / effective))
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order]) / total
    quantile = float(values[order][min(np.searchsorted(cumulative, level), len(values) - 1)])
    return mean, mean - spread, mean + spread, quantile


def agent_tables(text: str, game: pyspiel.Game) -> tuple[np.ndarray, np.ndarray]:
    """Every seat played by the native agent ``text`` (``rules``, ``ismcts:simulations=100``)."""
    name, options = parse_agent(text)
    if name not in NATIVE_AGENTS or name == "random":
        raise ValueError(f"advice plays the deals out with rules or ismcts, not {name!r}")
    if NATIVE_AGENTS[name].kind_for(options) != NATIVE_AGENTS[name].kind:
        raise ValueError(f"advice plays the deals out without networks, not with {text!r}")
    row = native_row(AgentSpec(name, name, options), game_spec(game.get_type().short_name))
    players = game.num_players()
    return (np.full(players, NATIVE_AGENTS[name].kind, dtype=np.int64), np.tile(row, (players, 1)))


def advise_bids(state: pyspiel.State, seat: int, worlds: int = 400, epsilon: float = 0.1,
                players: str = "rules", seed: int = 0, quantile: float = 0.1,
                solver: str = "play") -> Advice:
    """Each legal action of ``seat`` at ``state``, judged over ``worlds`` weighted worlds played out.

    ``solver="play"``: ``players`` play every hand to its end; ``"dd"``
    (Kaiser): they bid and name trump, and the cards are played double dummy
    (every hand open, perfect play by both sides: what the hand is worth, not
    what these players would make of it).
    """
    game = state.get_game()
    spec = game_spec(game.get_type().short_name)
    if spec.contract_outcome is None:
        raise ValueError(f"bid advice is for games with an auction, not {spec.title}")
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose from {', '.join(SOLVERS)}")
    if solver == "dd":
        if spec.kernel_id in HIDDEN_TRUMP_CHECKS:
            # The fast solver reads the hidden trump as known to all (open rules); played in the
            # engine, whose trumps count only from the show, its cards are not perfect play.
            raise ValueError(f"--solver dd: {spec.title} is not solved double dummy under the engine's "
                             "hidden-trump rules fast enough for advice; use --solver play")
        try:
            check_pimc_game(game)
        except ValueError as error:
            raise ValueError(f"--solver dd: {str(error).removeprefix('pimc: ')}") from error
    check_count(worlds, "worlds", MAX_WORLDS)
    check_seed(seed)
    if not 0 < quantile < 1:
        raise ValueError(f"the quantile level must be between 0 and 1, got {quantile}")
    row = ISMCTS_OPTIONS.resolve({"world_pool": worlds, "epsilon": epsilon}, spec).row()
    choices = np.array(state.legal_actions(), dtype=np.int64)
    kinds, options = agent_tables(players, game)
    with StopRequest() as stop:  # Ctrl-C acts between slices of worlds, never inside a kernel
        pool, cumulative = draw_world_pool(spec.kernel_id, state.array, seat, make_stream(seed), row,
                                           WITHOUT_NETWORK, no_network())
        weights = np.diff(cumulative, prepend=0.0)
        returns = np.zeros((len(pool), len(choices), game.num_players()))
        ours = np.zeros((len(pool), len(choices)), dtype=bool)  # our side holds the contract
        made = np.zeros((len(pool), len(choices)), dtype=bool)
        for slice_ in timed_slices(len(pool)):
            stop.check()
            part = slice(slice_.start, slice_.stop)
            part_returns, finals, ok = play_out_choices(spec.kernel_id, agent_kinds(kinds), pool[part],
                                                        choices, kinds, options, seed, solver == "dd",
                                                        slice_.start)
            if not ok.all():
                raise RuntimeError("an agent chose an illegal action while the deals were played out")
            returns[part] = part_returns
            for c in range(len(choices)):  # the final states are read here, not kept: they are large
                ours[part, c], made[part, c] = spec.contract_outcome(finals[:, c], part_returns[:, c], seat)
    rows = []
    for c, action in enumerate(choices):
        mean, low, high, low_value = weighted_summary(returns[:, c, seat], weights, quantile)
        declared = weights[ours[:, c]].sum()
        rows.append(BidRow(state.action_to_string(seat, int(action)), mean, low, high, low_value,
                           float(declared / weights.sum()),
                           float(weights[ours[:, c] & made[:, c]].sum() / declared)
                           if declared > 0 else None))
    rows.sort(key=lambda r: -r.mean)
    played_by = players if solver == "play" else f"{players}, the cards double dummy"
    return Advice(rows, worlds, float(weights.sum() ** 2 / (weights @ weights)), quantile, played_by)
