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
the game saved in the results format (:mod:`cardlab.play.record`). Ctrl-C
during a hint stops the hint only; a game left by Ctrl-C is kept as a
position file to go on from (:meth:`Session.restore`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pyspiel
from rich.console import Console

from cardlab import agents
from cardlab.agents.ismcts.bot import ISMCTSBot
from cardlab.arena.duplicate import restart
from cardlab.arena.entrants import AgentSpec, AgentSpecError, bot_factory, parse_agent
from cardlab.arena.native import agent_seed
from cardlab.core.interrupt import deferred_interrupts
from cardlab.core.limits import MAX_HINT_SIMULATIONS, check_count
from cardlab.core.rng import make_stream, random_below
from cardlab.games import SPECS, game_spec
from cardlab.games.spec import GameSpec
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


def seat_labels(num_players: int, seat: int, partner: str, opponents: str) -> list[str]:
    """Who sits where, as saved with the game: ``human`` at ``seat``, the bots' specs elsewhere."""
    return [HUMAN if other == seat else partner if other % 2 == seat % 2 else opponents
            for other in range(num_players)]


def check_table(game: pyspiel.Game, seat: int, hint_simulations: int,
                most_simulations: int = MAX_HINT_SIMULATIONS) -> None:
    """The person's seat and the hint's budget (at most ``most_simulations``), checked before the bots."""
    if not 0 <= seat < game.num_players():
        raise ValueError(f"--seat must be 0..{game.num_players() - 1}, got {seat}")
    check_count(hint_simulations, "--hint-simulations", most_simulations)


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
class MoveMade:
    """One decision of the game as it stands: who, what (the log's string), and a bot's search note."""

    player: int
    text: str
    note: str


@dataclass
class Session:
    """A game between one person (``seat``) and bots, with its history kept for undo and saving.

    The steps (:meth:`deal`, :meth:`bot_move`, :meth:`human_move`, :meth:`undo`,
    :meth:`hint`) are shared by the terminal loop (:meth:`play`) and the
    browser (:mod:`cardlab.play.web`); only :meth:`play` reads and prints.
    """

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
        while True:
            self.deal()
            if self.state.is_terminal():
                return self.state
            if self.state.current_player() == self.seat:
                self._human_turn()
            else:
                move = self.bot_move()
                self.console.print(f"P{move.player} ({self.labels[move.player]}): {move.text}"
                                   + (f"   [dim]({move.note})[/dim]" if move.note else ""))

    # -- the steps of a game ---------------------------------------------------------------
    def deal(self) -> None:
        """Chance's moves up to the next decision, from the deal's own stream."""
        while self.state.is_chance_node():
            outcomes = self.state.chance_outcomes()
            self._apply(outcomes[random_below(self.stream, len(outcomes))][0], "")

    @property
    def bots_to_move(self) -> bool:
        """A bot is to move (after :meth:`deal`): the game is neither over nor waiting for the person."""
        return self.state.current_player() in self.bots

    def bot_move(self) -> MoveMade:
        """The bot to move chooses, timed; its move is made and returned."""
        player = self.state.current_player()
        if player not in self.bots:
            raise ValueError(f"no bot is to move: P{player} is to move and you are P{self.seat}")
        bot = self.bots[player]
        start = time.perf_counter()
        if isinstance(bot, ISMCTSBot):
            policy, action = bot.step_with_policy(self.state)
        else:
            policy, action = [], bot.step(self.state)
        self.seconds[player] += time.perf_counter() - start
        move = MoveMade(player, self.state.action_to_string(player, action),
                        search_note(bot, self.state, policy))
        self._apply(action, move.note)
        return move

    def human_move(self, text: str) -> MoveMade:
        """The person's move, typed as the log writes it (``MoveError`` if it is not legal now)."""
        if self.state.is_terminal() or self.state.current_player() != self.seat:
            raise MoveError(f"it is not your turn: you are P{self.seat}, "
                            + ("the game is over" if self.state.is_terminal()
                               else f"P{self.state.current_player()} is to move"))
        action = parse_move(self.state, text)
        move = MoveMade(self.seat, self.state.action_to_string(self.seat, action), "")
        self._apply(action, "")
        return move

    def _apply(self, action: int, note: str) -> None:
        with deferred_interrupts():  # Ctrl-C never leaves a move made without its note
            self.state.apply_action(action)
            self.notes.append(note)

    def _human_turn(self) -> None:
        render(self.console, self.state, self.seat, self.title, self.recent_moves())
        moves = legal_moves(self.state)
        question = self.move_prompt()
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
                self.human_move(line)
            except MoveError as error:
                self.console.print(f"[red]{error}[/red]", highlight=False)
                continue
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
            try:
                self.console.print(self.hint())
            except KeyboardInterrupt:
                self.console.print("hint stopped; your move")
        elif command == "knows":
            try:
                self.console.print(self.deductions())
            except ValueError as error:
                self.console.print(str(error))
        elif command == "undo":
            undone = self.undo()
            self.console.print("undone: back to your move before that" if undone
                               else "nothing to undo: you have not moved yet")
            return undone
        return False

    @property
    def spec(self) -> GameSpec:
        return game_spec(self.game.get_type().short_name)

    def move_prompt(self) -> str | None:
        """The question the next move answers, where the moves listed do not say it (a claim's next card)."""
        prompt = self.spec.move_prompt
        return prompt(self.state) if prompt is not None else None

    def deductions(self) -> str:
        """What this seat can deduce of the hidden cards; ``ValueError`` in a game whose moves reveal none."""
        if self.spec.deductions is None:
            games = ", ".join(spec.title for spec in SPECS if spec.deductions is not None)
            raise ValueError(f"knows is for {games}, where the moves reveal where the cards are")
        return self.spec.deductions(self.state, self.seat)

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
        """Back to before the person's last decision; False if there is none."""
        history = self.state.history()
        replay = self.game.new_initial_state()
        last = None
        for i, action in enumerate(history):
            if replay.current_player() == self.seat:
                last = i
            replay.apply_action(action)
        if last is None:
            return False
        self.restore(history[:last])
        return True

    def restore(self, history: list[int]) -> None:
        """The game after ``history`` (a prefix of this deal's), the deal's stream kept in step.

        Undo goes back this way, and a game left unfinished goes on from its
        saved history; the bots start again from the position.
        """
        state = self.game.new_initial_state()
        stream = make_stream(self.seed)
        for action in history:
            if state.is_chance_node():
                random_below(stream, len(state.chance_outcomes()))  # keep the deal's stream in step
            state.apply_action(action)
        self.state, self.stream = state, stream
        self.notes = (self.notes + [""] * len(history))[:len(history)]
        for bot in self.bots.values():
            restart(bot, self.state)

    def moves_by_seat(self) -> list[int]:
        """How many decisions each seat made in the game as it stands (undone moves not counted)."""
        counts = [0] * self.game.num_players()
        replay = self.game.new_initial_state()
        for action in self.state.history():
            if not replay.is_chance_node():
                counts[replay.current_player()] += 1
            replay.apply_action(action)
        return counts

    def moves_made(self) -> list[MoveMade]:
        """Every decision of the game as it stands, with the bots' search notes."""
        replay = self.game.new_initial_state()
        moves = []
        for action, note in zip(self.state.history(), self.notes, strict=True):
            player = replay.current_player()
            if player >= 0:
                moves.append(MoveMade(player, replay.action_to_string(player, action), note))
            replay.apply_action(action)
        return moves

    def recent_moves(self) -> list[str]:
        return [f"P{move.player} {move.text}" for move in self.moves_made()[-RECENT:]]

    def result_text(self) -> str:
        returns = self.state.returns()
        team = self.seat % 2
        verdict = "won" if returns[self.seat] > 0 else "lost" if returns[self.seat] < 0 else "drew"
        return (f"you {verdict}: your team {returns[self.seat]:+g}, the other team "
                f"{returns[1 - team]:+g}")
