"""``cardlab play``: one hand against the bots at the terminal.

The person's seat waits for typed moves (:mod:`cardlab.play.moves`); every
other seat is an agent made as the arena makes it. Chance draws from the
deal's own stream exactly as the arena's Python loop does
(``legal[random_below(make_stream(seed), n)]``), so ``--seed`` gives the same
cards as deal seed ``seed`` anywhere in cardlab. Besides moves the prompt
takes ``help``, ``moves``, ``undo`` (back to the person's previous decision),
``hint`` (what the ISMCTS player would do there, with its visit shares),
``knows`` (Literature: what the seat can deduce) and ``quit``. A bad line is
answered in one line and asked again. At the end the result is printed and
the game saved in the results format (:mod:`cardlab.play.record`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pyspiel
from rich.console import Console

from cardlab import agents
from cardlab.agents.ismcts.bot import ISMCTSBot
from cardlab.arena.agents import AgentSpec, AgentSpecError, bot_factory, parse_agent
from cardlab.arena.duplicate import restart
from cardlab.arena.native import agent_seed
from cardlab.core.rng import make_stream, random_below
from cardlab.games import game_spec
from cardlab.play import literature
from cardlab.play.moves import MoveError, legal_moves, listed, parse_move
from cardlab.play.table import render

HUMAN = "human"
#: Moves of the others shown under the table.
RECENT = 8
COMMANDS = {
    "help": "this list",
    "moves": "every legal move",
    "undo": "take back your last decision (and the bots' moves after it)",
    "hint": "what the ISMCTS player would do here, with its visit shares",
    "knows": "Literature: what you can deduce about the cards",
    "quit": "leave without saving",
}


class LeftTableError(Exception):
    """The person left the table (``quit`` or end of input)."""


def make_bots(game: pyspiel.Game, seat: int, partner: str, opponents: str,
              seed: int) -> dict[int, pyspiel.Bot]:
    """The agents of every seat but ``seat``: its team's other seats play ``partner``, the rest ``opponents``.

    Seeds as in the arena: seat ``k`` of deal seed ``seed`` gets ``agent_seed(seed, 0, k, N)``.
    Agents come from the registry (ISMCTS as its bot, so its visit shares can be
    recorded); ``py:module:function`` specs from their factory.
    """
    bots = {}
    num_players = game.num_players()
    for other in range(num_players):
        if other == seat:
            continue
        text = partner if other % 2 == seat % 2 else opponents
        name, options = parse_agent(text)
        bot_seed = int(agent_seed(seed, 0, other, num_players))
        if name.startswith("py:"):
            bots[other] = bot_factory(AgentSpec(name, name, options), game)(game, other, bot_seed)
        else:
            try:
                bots[other] = agents.make(name, game, other, bot_seed, **options)
            except (ValueError, TypeError) as error:
                raise AgentSpecError(f"agent {text!r}: {str(error).splitlines()[0]}") from error
    return bots


def search_note(bot: pyspiel.Bot, state: pyspiel.State, policy: list[tuple[int, float]]) -> str:
    """An ISMCTS bot's statistics of its last move: simulations and the leading visit shares."""
    if not isinstance(bot, ISMCTSBot) or not bot.last_search:
        return ""
    return f"{bot.last_search['iterations']} simulations; " + shares_text(state, policy)


def shares_text(state: pyspiel.State, policy: list[tuple[int, float]], top: int = 5) -> str:
    player = state.current_player()
    ranked = sorted(policy, key=lambda item: -item[1])[:top]
    return ", ".join(f"{state.action_to_string(player, a)} {share:.0%}" for a, share in ranked)


@dataclass
class Session:
    """A game between one person (``seat``) and bots, with its history kept for undo and saving."""

    game: pyspiel.Game
    seat: int
    bots: dict[int, pyspiel.Bot]
    seed: int
    labels: list[str]
    hint_simulations: int = 1000
    ask: Callable[[str], str] = input
    console: Console = field(default_factory=Console)
    notes: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = self.game.new_initial_state()
        self.stream = make_stream(self.seed)
        self.seconds = [0.0] * self.game.num_players()
        self.title = f"{game_spec(self.game.get_type().short_name).title}, deal seed {self.seed}: " \
                     f"you are P{self.seat} (team {self.seat % 2})"
        for bot in self.bots.values():
            restart(bot, self.state)

    # -- the game loop -------------------------------------------------------------------
    def play(self) -> pyspiel.State:
        """Play to the end; raises ``LeftTableError`` if the person leaves."""
        while not self.state.is_terminal():
            if self.state.is_chance_node():
                outcomes = self.state.chance_outcomes()
                self._apply(outcomes[random_below(self.stream, len(outcomes))][0], "")
            elif self.state.current_player() == self.seat:
                self._human_turn()
            else:
                self._bot_turn()
        return self.state

    def _apply(self, action: int, note: str) -> None:
        self.state.apply_action(action)
        self.notes.append(note)

    def _bot_turn(self) -> None:
        player = self.state.current_player()
        bot = self.bots[player]
        start = time.perf_counter()
        if isinstance(bot, ISMCTSBot):
            policy, action = bot.step_with_policy(self.state)
        else:
            policy, action = [], bot.step(self.state)
        self.seconds[player] += time.perf_counter() - start
        note = search_note(bot, self.state, policy)
        self.console.print(f"P{player} ({self.labels[player]}): {self.state.action_to_string(player, action)}"
                           + (f"   [dim]({note})[/dim]" if note else ""))
        self._apply(action, note)

    def _human_turn(self) -> None:
        render(self.console, self.state, self.seat, self.title, self.recent_moves())
        moves = legal_moves(self.state)
        question = literature.claim_prompt(self.state) if self._is_literature else None
        if question:
            self.console.print(question)
        elif len(moves) <= 16:
            player = self.state.current_player()
            self.console.print("legal: " + ", ".join(self.state.action_to_string(player, a)
                                                     for a in self.state.legal_actions()))
        else:
            self.console.print(f"{len(moves)} legal moves (type moves to list them)")
        while True:
            try:
                line = self.ask(f"P{self.seat}> ")
            except EOFError as error:
                raise LeftTableError from error
            command = line.strip().lower()
            if command in COMMANDS:
                if self._command(command):
                    return
                continue
            try:
                action = parse_move(self.state, line)
            except MoveError as error:
                self.console.print(f"[red]{error}[/red]", highlight=False)
                continue
            self._apply(action, "")
            return

    def _command(self, command: str) -> bool:
        """Run a prompt command; True if the turn is over (undo went back)."""
        if command == "quit":
            raise LeftTableError
        if command == "help":
            for name, text in COMMANDS.items():
                self.console.print(f"  {name:<6} {text}")
            self.console.print("  a move as the log writes it: 5H, 7NT (bid 7NT), pass, call, "
                               "ask P3 QS, claim S-high, P2 (in a claim)")
        elif command == "moves":
            player = self.state.current_player()
            self.console.print(listed([self.state.action_to_string(player, a)
                                       for a in self.state.legal_actions()], limit=2000))
        elif command == "hint":
            self.console.print(self.hint())
        elif command == "knows":
            if not self._is_literature:
                self.console.print("knows is for Literature, where the asks reveal where the cards are")
            else:
                self.console.print(literature.knows_text(self.state, self.seat))
        elif command == "undo":
            return self.undo()
        return False

    @property
    def _is_literature(self) -> bool:
        return self.game.get_type().short_name == "cardlab_literature"

    # -- hint and undo ---------------------------------------------------------------------
    def hint(self) -> str:
        """The ISMCTS player's choice for this seat here, seeded by the position, with visit shares."""
        bot = agents.make("ismcts", self.game, self.seat, self.seed + len(self.state.history()),
                          simulations=self.hint_simulations)
        policy, action = bot.step_with_policy(self.state.clone())
        player = self.state.current_player()
        return (f"ISMCTS ({self.hint_simulations} simulations) plays "
                f"{self.state.action_to_string(player, action)}; visit shares: "
                + shares_text(self.state, policy))

    def undo(self) -> bool:
        """Back to before the person's last decision; False (and a message) if there is none."""
        history = self.state.history()
        replay = self.game.new_initial_state()
        last = None
        for i, action in enumerate(history):
            if replay.current_player() == self.seat:
                last = i
            replay.apply_action(action)
        if last is None:
            self.console.print("nothing to undo: you have not moved yet")
            return False
        self.state = self.game.new_initial_state()
        self.stream = make_stream(self.seed)
        for action in history[:last]:
            if self.state.is_chance_node():
                random_below(self.stream, len(self.state.chance_outcomes()))  # keep the deal's stream in step
            self.state.apply_action(action)
        del self.notes[last:]
        for bot in self.bots.values():
            restart(bot, self.state)
        self.console.print("undone: back to your move before that")
        return True

    def moves_by_seat(self) -> list[int]:
        """How many decisions each seat made in the game as it stands (undone moves not counted)."""
        counts = [0] * self.game.num_players()
        replay = self.game.new_initial_state()
        for action in self.state.history():
            if not replay.is_chance_node():
                counts[replay.current_player()] += 1
            replay.apply_action(action)
        return counts

    def recent_moves(self) -> list[str]:
        replay = self.game.new_initial_state()
        moves = []
        for action in self.state.history():
            player = replay.current_player()
            if player >= 0:
                moves.append(f"P{player} {replay.action_to_string(player, action)}")
            replay.apply_action(action)
        return moves[-RECENT:]

    def result_text(self) -> str:
        returns = self.state.returns()
        team = self.seat % 2
        verdict = "won" if returns[self.seat] > 0 else "lost" if returns[self.seat] < 0 else "drew"
        return (f"you {verdict}: your team {returns[self.seat]:+g}, the other team "
                f"{returns[1 - team]:+g}")
