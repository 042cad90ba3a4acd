"""``cardlab serve``: play against the bots and replay stored deals in the browser.

A small local HTTP server (the standard library's ``http.server``: a JSON
API and three static files need no framework, and the extra ``web`` then
only brings the browser driver that tests the page) over the very code of
the terminal: a game is a :class:`~cardlab.play.session.Session` (deal,
bots' moves, typed moves, undo, hint), a replay a
:class:`~cardlab.play.replay.Replay` of a deal read by
:func:`~cardlab.play.record.load_deal`, and what a seat sees is the game's
own observation string, cut into rows as the terminal table cuts it
(:mod:`cardlab.play.table`). The page (``static/``: plain HTML, CSS and
JavaScript, no build step) draws the cards.

The API (JSON in and out; an error is ``{"error": message}`` with status 400,
404 for an unknown path or game, 403 for a request from another site, 411,
413 or 415 for a body without a length, too long or not JSON, 429 for a game
busy with another request, 503 when every search slot is taken):

=======  ====================================  =================================================
GET      ``/api/games``                        the games, their player counts, agent suggestions
POST     ``/api/game``                         a new game: ``game, seat, partner, opponents, seed``
                                               (``players``, ``params``, ``hint_simulations``)
GET      ``/api/game/<id>``                    the game as the person's seat sees it
POST     ``/api/game/<id>/move``               ``{"move": "5H"}``, typed as the log writes it
POST     ``/api/game/<id>/bots``               the bots move up to the person's turn (``steps``: fewer)
POST     ``/api/game/<id>/undo``               back to before the person's last decision
POST     ``/api/game/<id>/hint``               the ISMCTS player's choice here, with its visit shares
GET      ``/api/game/<id>/knows``              Literature: what the seat can deduce
GET      ``/api/deals``                        the folders of stored deals (``--results``, ``--out``)
GET      ``/api/replay?source&deal&seating&step&view``  a stored deal before move ``step``, every
                                               hand (``view=all``) or one seat's view (``view=2``)
=======  ====================================  =================================================

A finished game is saved in ``--out`` as ``cardlab play`` saves it
(format ``cardlab-games/1``), so it can be replayed here or at the terminal.

What the server guarantees (docs/play.md): every request gets a JSON answer;
a request must name this server in ``Host`` (and ``Origin``, when a browser
sends one) and a POST must be ``application/json`` of at most
:data:`MAX_BODY` bytes nested at most :data:`MAX_DEPTH` deep, so another web
site cannot drive it; agents are the built-in ones by name, with search
budgets at most :data:`AGENT_BUDGETS` (no ``py:`` factories, no files);
searches run in their own threads, at most :data:`MAX_SEARCHES` at once and
:data:`MAX_WAITING` waiting; only files inside ``--results`` and ``--out`` are
read, and only ``--out`` is written.
"""

from __future__ import annotations

import ipaddress
import itertools
import json
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import asdict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

import pyspiel

from cardlab.agents.builtin import BUILTIN
from cardlab.arena.entrants import parse_agent
from cardlab.core.limits import check_seed
from cardlab.games import SPECS, game_spec
from cardlab.play.record import GAMES_FORMAT, StoredDeal, check_games_folder, load_deal, save_game
from cardlab.play.replay import Replay
from cardlab.play.session import Session, check_table, make_bots, seat_labels
from cardlab.play.table import observation_rows
from cardlab.results import FORMAT, MANIFEST, ResultsError

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
                "style.css": "text/css; charset=utf-8"}
#: Agent specs the page offers (any built-in agent may be typed).
SUGGESTED_AGENTS = ("rules", "random", "ismcts", "ismcts:simulations=300", "pimc")
#: Replays kept rebuilt between requests.
KEPT_REPLAYS = 16
#: Games kept in memory; beyond, the one least recently used is dropped (a finished one is saved).
MAX_GAMES = 256
HAND_LABEL = re.compile(r"^P(\d+) hand$")

#: The largest request body, in bytes, and the deepest nesting of its JSON.
MAX_BODY = 64 * 1024
MAX_DEPTH = 8
#: The most query fields of a request.
MAX_FIELDS = 16
#: Searches (a bot's move, a hint) running at once, and waiting for a slot; beyond: 503.
MAX_SEARCHES = 2
MAX_WAITING = 16
#: Connections waiting to be accepted: a burst of clients is queued, not reset.
LISTEN_BACKLOG = 512
#: Seconds a connection may stay silent (a half-sent request) before it is closed, and the seconds a
#: refused request's unread body is waited for.
IDLE_SECONDS = 30
DRAIN_SECONDS = 0.2
#: The agents a request may name: built-in ones only (no ``py:`` factory, whose module would be
#: imported and run); ``cfr`` needs a policy file, and files are not named over HTTP.
WEB_AGENTS = tuple(name for name in BUILTIN if name != "cfr")
#: Search budgets over HTTP: the most each agent option may ask for (a search answers in seconds).
AGENT_BUDGETS = {
    "ismcts": {"simulations": 100_000, "time_ms": 10_000, "workers": 1, "max_nodes": 1_000_000,
               "world_pool": 10_000},
    "pimc": {"worlds": 200, "time_ms": 10_000, "bid_worlds": 50},
    "cfr-bidding": {},
}
#: The most simulations of a hint over HTTP.
MAX_HINT_SIMULATIONS = 100_000
#: The host names this server answers to, besides the address it listens on.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")

Result = TypeVar("Result")


class ApiError(Exception):
    """A request the API refuses: the status and a one-line message for the page."""

    def __init__(self, message: str, status: HTTPStatus = HTTPStatus.BAD_REQUEST):
        super().__init__(message)
        self.status = status


# ---- what a seat sees -----------------------------------------------------------------------
def position_view(state: pyspiel.State, seat: int | None) -> dict[str, Any]:
    """The position as ``seat`` sees it (its observation string), or with every hand open (``None``).

    ``hands`` maps each shown seat to its cards; ``rows`` are the other lines as (label, value).
    """
    hands: dict[int, list[str]] = {}
    rows = []
    text = str(state) if seat is None else state.observation_string(seat)
    for label, value in observation_rows(text):
        match = HAND_LABEL.match(label)
        if match:
            hands[int(match.group(1))] = value.split()
        elif seat is not None and label == "hand":
            hands[seat] = value.split()
        elif not value.startswith("seat P"):
            rows.append([label, value])
    return {"hands": [{"seat": s, "cards": cards} for s, cards in sorted(hands.items())], "rows": rows}


def _int(body: dict[str, Any], key: str, default: int | None = None) -> int:
    value = body.get(key, default)
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiError(f"{key} must be an integer, got {value!r}")
    return value


def _text(body: dict[str, Any], key: str, default: str | None = None) -> str:
    value = body.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ApiError(f"{key} must be a non-empty string, got {value!r}")
    return value.strip()


def web_agent(text: str) -> str:
    """An agent spec a request may name: a built-in agent by name, options within :data:`AGENT_BUDGETS`.

    ``py:module:function`` would import and call any module on the machine, a
    ``policy`` would read any file: both are refused, as is a search budget
    that would hold a search slot for minutes.
    """
    name, options = parse_agent(text)
    if name not in WEB_AGENTS:
        raise ApiError(f"agent {name!r} is not offered here; choose from {', '.join(WEB_AGENTS)} "
                       f"(Python factories and policy files only at the terminal)")
    option_set = BUILTIN[name].options
    values = option_set.resolve(options)
    for option in option_set:
        if option.name in options and option.kind == "text":
            raise ApiError(f"agent {name!r}: option {option.name} names a file; files are not read over "
                           f"HTTP ({name} plays its committed default here)")
        most = AGENT_BUDGETS[name].get(option.name)
        if most is not None and values[option.name] is not None and values[option.name] > most:
            raise ApiError(f"agent {name!r}: option {option.name} may be at most {most:,} here, got "
                           f"{values[option.name]!r}")
    return text


def nesting_depth(value: Any) -> int:
    """How deep ``value``'s lists and objects nest (a number is 0), without recursion."""
    deepest, pending = 0, [(value, 0)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth + 1)
            pending.extend((child, depth + 1) for child in children)
    return deepest


class SearchSlots:
    """Searches in threads of their own: at most ``running`` at once, ``waiting`` more queued; beyond, 503.

    A search's kernels return to Python every few milliseconds (the ISMCTS
    bot searches in chunks), so the threads that read requests and answer
    other games are never held up for long.
    """

    def __init__(self, running: int = MAX_SEARCHES, waiting: int = MAX_WAITING):
        self._admitted = threading.BoundedSemaphore(running + waiting)
        self._running = threading.BoundedSemaphore(running)

    def run(self, work: Callable[[], Result]) -> Result:
        if not self._admitted.acquire(blocking=False):
            raise ApiError("the server is busy with other searches; try again in a moment",
                           HTTPStatus.SERVICE_UNAVAILABLE)
        outcome: dict[str, Any] = {}

        def search() -> None:
            with self._running:
                try:
                    outcome["value"] = work()
                except BaseException as error:  # noqa: BLE001  (raised again in the request's thread)
                    outcome["error"] = error

        try:
            thread = threading.Thread(target=search, name="cardlab-search", daemon=True)
            thread.start()
            thread.join()
        finally:
            self._admitted.release()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]


# ---- the application ------------------------------------------------------------------------
class WebApp:
    """The games being played, the replays, and the API's routes.

    ``results`` is a folder of stored deals (a tournament, played games, or a
    folder of such folders) offered for replay; ``out`` is where finished
    games are saved (and is offered for replay too), checked before the
    first game. Requests run in many threads: the table of games is guarded
    by one lock held briefly, each game by its own (a second request on a
    game in use is refused with 429), and searches run in :class:`SearchSlots`.
    """

    def __init__(self, results: str | Path | None = None, out: str | Path = "plays"):
        self.results = Path(results) if results is not None else None
        if self.results is not None and not self.results.is_dir():
            raise ValueError(f"--results {self.results} is not a directory")
        self.out = check_games_folder(out)
        self.sessions: OrderedDict[int, Session] = OrderedDict()  # least recently used first
        self.game_locks: dict[int, threading.Lock] = {}
        self.saved: dict[int, int] = {}  # game id -> its deal number in ``out``
        self.replays: OrderedDict[tuple[str, int, int], Replay] = OrderedDict()
        self.ids = itertools.count(1)
        self.lock = threading.Lock()  # the tables above
        self.save_lock = threading.Lock()  # one save into ``out`` at a time
        self.searches = SearchSlots()

    def handle(self, method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """Answer one API request (``ApiError`` for a refused one)."""
        parts = urlsplit(url)
        path = [p for p in parts.path.split("/") if p]
        try:
            fields = parse_qs(parts.query, max_num_fields=MAX_FIELDS)
        except ValueError as error:
            raise ApiError(f"at most {MAX_FIELDS} query fields") from error
        query = {key: values[-1] for key, values in fields.items()}
        return self._route(method, path[1:] if path[:1] == ["api"] else None, query, body or {})

    def _route(self, method: str, path: list[str] | None, query: dict[str, str],
               body: dict[str, Any]) -> dict[str, Any]:
        if path == ["games"] and method == "GET":
            return self.games()
        if path == ["game"] and method == "POST":
            return self.new_game(body)
        if path == ["deals"] and method == "GET":
            return {"sources": [self.source_info(name, folder) for name, folder in self.sources().items()]}
        if path == ["replay"] and method == "GET":
            return self.replay_view(query)
        if path and len(path) in (2, 3) and path[0] == "game":
            action = path[2] if len(path) == 3 else None
            routes = {(None, "GET"): self.game_view, ("move", "POST"): self.move,
                      ("bots", "POST"): self.bots, ("undo", "POST"): self.undo, ("hint", "POST"): self.hint,
                      ("knows", "GET"): self.knows}
            if (action, method) in routes:
                with self._game(path[1]) as (game_id, session):
                    return routes[action, method](game_id, session, body)
        raise ApiError(f"no such request: {method} /{'/'.join(['api', *(path or [])])}", HTTPStatus.NOT_FOUND)

    @contextmanager
    def _game(self, text: str):
        """The game ``text`` names, held by this request alone (429 if another holds it)."""
        with self.lock:
            game_id = int(text) if re.fullmatch(r"[0-9]{1,18}", text) else None
            if game_id not in self.sessions:
                raise ApiError(f"no game {text[:40]!r} on this server (it may have been restarted)",
                               HTTPStatus.NOT_FOUND)
            self.sessions.move_to_end(game_id)
            session, lock = self.sessions[game_id], self.game_locks[game_id]
        if not lock.acquire(blocking=False):
            raise ApiError(f"game {game_id} is answering another request; try again when it is done",
                           HTTPStatus.TOO_MANY_REQUESTS)
        try:
            yield game_id, session
        finally:
            lock.release()

    # -- playing -------------------------------------------------------------------------------
    def games(self) -> dict[str, Any]:
        return {"games": [{"name": spec.aliases[0], "title": spec.title, "players": list(spec.player_counts),
                           "default_players": spec.game_type().parameter_specification["players"]}
                          for spec in SPECS],
                "agents": list(SUGGESTED_AGENTS)}

    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        """Seat the person and the bots, deal to the first decision; the bots have not moved yet."""
        params = body.get("params") or {}
        if not isinstance(params, dict):
            raise ApiError(f"params must be an object of game parameters, got {params!r:.60}")
        if body.get("players") not in (None, ""):
            params = {**params, "players": _int(body, "players")}
        try:
            game = game_spec(_text(body, "game")).load(params)
        except (ValueError, TypeError, OverflowError, RuntimeError, pyspiel.SpielError) as error:
            raise ApiError(str(error).splitlines()[0]) from error
        seat, seed = _int(body, "seat", 0), _int(body, "seed", 0)
        try:
            check_seed(seed)
        except ValueError as error:
            raise ApiError(str(error)) from error
        partner = web_agent(_text(body, "partner", "rules"))
        opponents = web_agent(_text(body, "opponents", "rules"))
        hint_simulations = _int(body, "hint_simulations", 1000)
        check_table(game, seat, hint_simulations, MAX_HINT_SIMULATIONS)
        bots = make_bots(game, seat, partner, opponents, seed)
        session = Session(game, seat, bots, seed, seat_labels(game.num_players(), seat, partner, opponents),
                          hint_simulations)
        session.deal()
        with self.lock:
            game_id = next(self.ids)
            self.sessions[game_id] = session
            self.game_locks[game_id] = threading.Lock()
            while len(self.sessions) > MAX_GAMES:
                dropped, _ = self.sessions.popitem(last=False)
                del self.game_locks[dropped]
        return self.game_view(game_id, session)

    def game_view(self, game_id: int, session: Session, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """The game as the person's seat sees it, its legal moves on its turn, the result at the end."""
        state = session.state
        your_turn = not state.is_terminal() and state.current_player() == session.seat
        view = {
            "id": game_id, "game": state.get_game().get_type().short_name, "title": session.title,
            "seat": session.seat, "num_players": state.num_players(), "labels": session.labels,
            "to_move": state.current_player(), "your_turn": your_turn, "bots_to_move": session.bots_to_move,
            "over": state.is_terminal(), "position": self._table_view(state, session.seat),
            "legal": [{"action": a, "text": state.action_to_string(session.seat, a)}
                      for a in state.legal_actions()] if your_turn else [],
            "prompt": session.move_prompt() if your_turn else None,
            "moves": [asdict(move) for move in session.moves_made()],
            "result": None,
        }
        if state.is_terminal():
            saved = self._save(game_id, session)
            source = next(name for name, folder in self.sources().items()
                          if folder.resolve() == self.out.resolve())
            view["result"] = {"returns": state.returns(), "text": session.result_text(),
                              "saved": saved, "out": str(self.out), "source": source}
        return view

    @staticmethod
    def _table_view(state: pyspiel.State, seat: int) -> dict[str, Any]:
        """The seat's view while the game runs; at the end the whole table: every trick or ask."""
        if not state.is_terminal():
            return position_view(state, seat)
        view = position_view(state, None)
        view["hands"] = [hand for hand in view["hands"] if hand["cards"]]
        return view

    def _save(self, game_id: int, session: Session) -> int:
        """Save the finished game in ``out`` once; its deal number there."""
        with self.save_lock:
            if game_id not in self.saved:
                command = f"cardlab serve: {session.title}; " + ", ".join(
                    f"P{seat} {label}" for seat, label in enumerate(session.labels))
                self.saved[game_id] = save_game(self.out, session.state, session.labels, session.seed,
                                                session.seconds, session.moves_by_seat(), session.notes,
                                                command)
            return self.saved[game_id]

    def move(self, game_id: int, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        made = session.human_move(_text(body, "move"))
        session.deal()
        return {**self.game_view(game_id, session), "made": [asdict(made)]}

    def bots(self, game_id: int, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        """The bots' moves until the person's turn or the end (at most ``steps`` of them, if given)."""
        steps = _int(body, "steps", 10**9)
        if steps < 1:
            raise ApiError(f"steps must be a positive integer, got {steps}")
        if not session.bots_to_move:
            raise ApiError("no bot is to move: " + ("the game is over" if session.state.is_terminal()
                                                    else "it is your turn"))
        made = []
        while session.bots_to_move and len(made) < steps:
            made.append(asdict(self.searches.run(session.bot_move)))
            session.deal()
        return {**self.game_view(game_id, session), "made": made}

    def undo(self, game_id: int, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        if game_id in self.saved:
            raise ApiError("the game is over and saved; start a new one")
        if not session.undo():
            raise ApiError("nothing to undo: you have not moved yet")
        return self.game_view(game_id, session)

    def hint(self, game_id: int, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        if session.state.is_terminal() or session.state.current_player() != session.seat:
            raise ApiError("a hint is for your turn")
        return {"hint": self.searches.run(session.hint)}

    def knows(self, game_id: int, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        try:
            return {"knows": session.deductions()}
        except ValueError as error:
            raise ApiError(str(error)) from error

    # -- replaying -----------------------------------------------------------------------------
    def sources(self) -> dict[str, Path]:
        """The folders of stored deals offered: ``--results`` (itself or its sub-folders), then ``--out``."""
        folders = []
        if self.results is not None:
            folders += [self.results] + sorted(p for p in self.results.iterdir() if p.is_dir())
        folders.append(self.out)
        found: dict[str, Path] = {}
        for folder in folders:
            seen = {f.resolve() for f in found.values()}
            if (folder / MANIFEST).is_file() and folder.resolve() not in seen:
                found[str(folder)] = folder
        return found

    @staticmethod
    def source_info(name: str, folder: Path) -> dict[str, Any]:
        """A folder's game and how many deals and seatings it holds, from its manifest."""
        try:
            manifest = json.loads((folder / MANIFEST).read_text())
            if manifest.get("format") == FORMAT:
                settings = manifest["settings"]
                return {"source": name, "kind": "tournament", "game": settings["game"],
                        "deals": settings["deals"], "seatings": 2 * len(settings["pairs"])}
            if manifest.get("format") == GAMES_FORMAT:
                games = manifest["games"]
                return {"source": name, "kind": "played games", "game": games[-1]["game"] if games else "",
                        "deals": len(games), "seatings": 1}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        return {"source": name, "kind": "unreadable", "game": "", "deals": 0, "seatings": 0}

    def replay_view(self, query: dict[str, str]) -> dict[str, Any]:
        """A stored deal before move ``step`` (its length: the end), with the move made there."""
        sources = self.sources()
        name = _text(query, "source")
        if name not in sources:
            raise ApiError(f"unknown source {name!r}; known: {', '.join(sources) or 'none'}")
        deal, seating = _int(query, "deal", 0), _int(query, "seating", 0)
        key = (name, deal, seating)
        with self.lock:
            replay = self.replays.get(key)
        if replay is None:
            replay = Replay(load_deal(sources[name], deal, seating))
        with self.lock:
            self.replays[key] = replay
            self.replays.move_to_end(key)
            while len(self.replays) > KEPT_REPLAYS:
                self.replays.popitem(last=False)
        stored: StoredDeal = replay.stored
        step = _int(query, "step", 0)
        if not 0 <= step <= len(replay):
            raise ApiError(f"step must be 0..{len(replay)} (the end), got {step}")
        view_text = query.get("view", "all")
        seat = None if view_text == "all" else _int(query, "view")
        if seat is not None and not 0 <= seat < replay.game.num_players():
            raise ApiError(f"view must be all or a seat 0..{replay.game.num_players() - 1}, got {seat}")
        state = replay.state_before(step)
        return {
            "source": name, "deal": deal, "seating": seating, "game": stored.game,
            "title": game_spec(stored.game).title,
            "deal_seed": stored.deal_seed, "seat_agents": stored.seat_agents, "step": step,
            "length": len(replay), "view": "all" if seat is None else seat,
            "position": position_view(state, seat),
            "move": asdict(replay.move(step)) if step < len(replay) else None,
            "returns": stored.returns if step == len(replay) else None,
        }


# ---- the server ------------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    """Static files and the API's JSON; every request answered, every failure as JSON in one line."""

    app: WebApp
    server: _Server
    server_version = "cardlab"
    timeout = IDLE_SECONDS

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base class's name)
        """Quiet: the terminal shows only the address and errors."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a bad request line, an unknown method, too many headers), as JSON."""
        status = HTTPStatus(code)
        if self.request_version == "HTTP/0.9":  # a line too garbled to name a version: answer in full
            self.request_version = self.protocol_version
        self._send(status, {"error": message or status.phrase}, close=True)

    def do_GET(self) -> None:
        if self._refused():
            return
        path = urlsplit(self.path).path
        if not path.startswith("/api/"):
            name = "index.html" if path in ("/", "/index.html") else path.removeprefix("/static/")
            if name not in STATIC_TYPES:
                self._send(HTTPStatus.NOT_FOUND, {"error": f"no such page: {path[:80]}"})
                return
            self._send_bytes(HTTPStatus.OK, (STATIC / name).read_bytes(), STATIC_TYPES[name])
            return
        self._answer("GET", None)

    def do_POST(self) -> None:
        if self._refused():
            return
        body = self._body()
        if body is not None:
            self._answer("POST", body)

    def _refused(self) -> bool:
        """Refuse (403) a request not addressed to this server by name, or sent by another site's page.

        ``Host`` defeats DNS rebinding (a site's own name pointed at 127.0.0.1),
        ``Origin`` and ``Sec-Fetch-Site`` a page of another site posting here.
        """
        host = self.headers.get("Host", "")
        origin = self.headers.get("Origin")
        if not self.server.allows_host(host):
            reason = f"Host {host[:80]!r} is not this server"
        elif origin is not None and origin != f"http://{host}":
            reason = f"requests from {origin[:80]!r} are not accepted"
        elif self.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            reason = "requests from another site are not accepted"
        else:
            return False
        self._send(HTTPStatus.FORBIDDEN, {"error": reason}, close=True)
        if self.command == "POST":
            self._drain()
        return True

    def _body(self) -> dict[str, Any] | None:
        """The request's JSON object, or None after answering why not (411, 413, 400, 415)."""
        length = self.headers.get("Content-Length", "0").strip()
        refusal = None
        if self.headers.get("Transfer-Encoding"):
            refusal = HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length, not in chunks"
        elif not re.fullmatch(r"[0-9]{1,18}", length):
            refusal = HTTPStatus.BAD_REQUEST, f"Content-Length must be a number of bytes, got {length[:40]!r}"
        elif int(length) > MAX_BODY:
            refusal = HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body may have at most {MAX_BODY} bytes"
        if refusal is not None:  # the body is not read: the connection closes after the answer
            status, message = refusal
            self._send(status, {"error": message}, close=True)
            self._drain()
            return None
        try:
            raw = self.rfile.read(int(length))
        except (TimeoutError, OSError):
            self.close_connection = True
            return None
        kind = self.headers.get_content_type()
        if raw and kind != "application/json":
            self._send(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, {"error": f"the body must be application/json, got "
                                                                    f"{kind!r}"})
            return None
        try:
            body = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError):
            body = None
        if not isinstance(body, dict):
            self._send(HTTPStatus.BAD_REQUEST, {"error": "the request body must be a JSON object"})
            return None
        if nesting_depth(body) > MAX_DEPTH:
            self._send(HTTPStatus.BAD_REQUEST, {"error": f"the body may nest at most {MAX_DEPTH} deep"})
            return None
        return body

    def _drain(self) -> None:
        """Read, briefly, what the client sent after a refused head: closing a socket with unread
        bytes would reset the connection and could lose the answer on its way."""
        try:
            self.connection.settimeout(DRAIN_SECONDS)
            left = 16 * MAX_BODY
            while left > 0 and (chunk := self.rfile.read1(65536)):
                left -= len(chunk)
        except (OSError, ValueError):
            pass

    def _answer(self, method: str, body: dict[str, Any] | None) -> None:
        try:
            payload, status = self.app.handle(method, self.path, body), HTTPStatus.OK
        except ApiError as error:
            payload, status = {"error": str(error)}, error.status
        except (ValueError, ResultsError, pyspiel.SpielError) as error:  # bad moves, agents, folders
            payload, status = {"error": str(error).splitlines()[0]}, HTTPStatus.BAD_REQUEST
        except Exception as error:  # noqa: BLE001  (the page gets one line, never a traceback)
            first = (str(error).splitlines() or [""])[0]
            payload = {"error": f"internal error: {type(error).__name__}: {first}"}
            status = HTTPStatus.INTERNAL_SERVER_ERROR
        self._send(status, payload)

    def _send(self, status: HTTPStatus, payload: dict[str, Any], close: bool = False) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json", close)

    def _send_bytes(self, status: HTTPStatus, data: bytes, content_type: str, close: bool = False) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            if status == HTTPStatus.SERVICE_UNAVAILABLE:
                self.send_header("Retry-After", "1")
            if close:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(data)
        except (ConnectionError, TimeoutError):  # the client left: nobody to answer
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    """A thread per connection, a deep listen queue, and the names it answers to."""

    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True

    def allows_host(self, host: str) -> bool:
        """``Host`` names this server, with its port if any: a loopback name, the address it listens
        on, or (listening on every address) any address, but never a name another site could own."""
        name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
        if not name or not port.isdigit():
            name, port = host, ""
        own = str(self.server_address[0])
        if port not in ("", str(self.server_port)):
            return False
        if name.lower() in {*LOOPBACK_NAMES, own, f"[{own}]"}:
            return True
        try:
            ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
        except ValueError:
            return False
        return ipaddress.ip_address(own).is_unspecified

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client gone mid-request is no news; anything else is one line, never a traceback."""
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError | TimeoutError):
            print(f"cardlab serve: {type(error).__name__}: {error}", file=sys.stderr)


def make_server(app: WebApp, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server of ``app`` on ``host:port`` (port 0: a free one, see ``server.server_port``)."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {port}")
    handler = type("Handler", (_Handler,), {"app": app})
    return _Server((host, port), handler)
