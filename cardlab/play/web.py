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
or 404 for an unknown path or game):

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
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections import OrderedDict
from dataclasses import asdict
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyspiel

from cardlab.games import SPECS, game_spec
from cardlab.play import literature
from cardlab.play.record import GAMES_FORMAT, StoredDeal, load_deal, save_game
from cardlab.play.replay import Replay
from cardlab.play.session import Session, check_table, make_bots, seat_labels
from cardlab.play.table import observation_rows
from cardlab.results import FORMAT, MANIFEST, MAX_SEED, ResultsError

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {"index.html": "text/html; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
                "style.css": "text/css; charset=utf-8"}
#: Agent specs the page offers (any spec may be typed).
SUGGESTED_AGENTS = ("rules", "random", "ismcts", "ismcts:simulations=300", "pimc")
#: Player counts the page offers per game (Literature's ``players`` parameter).
PLAYER_COUNTS = {"cardlab_literature": (4, 6, 8, 12, 16)}
#: Replays kept rebuilt between requests.
KEPT_REPLAYS = 16
HAND_LABEL = re.compile(r"^P(\d+) hand$")


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


# ---- the application ------------------------------------------------------------------------
class WebApp:
    """The games being played, the replays, and the API's routes; one request at a time.

    ``results`` is a folder of stored deals (a tournament, played games, or a
    folder of such folders) offered for replay; ``out`` is where finished
    games are saved (and is offered for replay too).
    """

    def __init__(self, results: str | Path | None = None, out: str | Path = "plays"):
        self.results = Path(results) if results is not None else None
        self.out = Path(out)
        if self.results is not None and not self.results.is_dir():
            raise ValueError(f"--results {self.results} is not a directory")
        if self.out.exists() and not self.out.is_dir():
            raise ValueError(f"--out {self.out} exists and is not a directory")
        self.sessions: dict[int, Session] = {}
        self.saved: dict[int, int] = {}  # game id -> its deal number in ``out``
        self.replays: OrderedDict[tuple[str, int, int], Replay] = OrderedDict()
        self.ids = itertools.count(1)
        self.lock = threading.Lock()

    def handle(self, method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """Answer one API request (``ApiError`` for a refused one)."""
        parts = urlsplit(url)
        path = [p for p in parts.path.split("/") if p]
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        body = body or {}
        with self.lock:
            return self._route(method, path[1:] if path[:1] == ["api"] else None, query, body)

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
            game_id = self._game_id(path[1])
            action = path[2] if len(path) == 3 else None
            routes = {(None, "GET"): self.game_view, ("move", "POST"): self.move,
                      ("bots", "POST"): self.bots, ("undo", "POST"): self.undo, ("hint", "POST"): self.hint,
                      ("knows", "GET"): self.knows}
            if (action, method) in routes:
                return routes[action, method](game_id, body)
        raise ApiError(f"no such request: {method} /{'/'.join(['api', *(path or [])])}", HTTPStatus.NOT_FOUND)

    def _game_id(self, text: str) -> int:
        if not text.isdigit() or int(text) not in self.sessions:
            raise ApiError(f"no game {text!r} on this server (it may have been restarted)",
                           HTTPStatus.NOT_FOUND)
        return int(text)

    # -- playing -------------------------------------------------------------------------------
    def games(self) -> dict[str, Any]:
        return {"games": [{"name": spec.aliases[0], "title": spec.title,
                           "players": list(PLAYER_COUNTS.get(spec.name, ()))} for spec in SPECS],
                "agents": list(SUGGESTED_AGENTS)}

    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        """Seat the person and the bots, deal to the first decision; the bots have not moved yet."""
        params = body.get("params") or {}
        if not isinstance(params, dict):
            raise ApiError(f"params must be an object of game parameters, got {params!r}")
        if body.get("players") not in (None, ""):
            params = {**params, "players": _int(body, "players")}
        try:
            game = game_spec(_text(body, "game")).load(params)
        except (ValueError, TypeError, OverflowError, RuntimeError, pyspiel.SpielError) as error:
            raise ApiError(str(error).splitlines()[0]) from error
        seat, seed = _int(body, "seat", 0), _int(body, "seed", 0)
        if not 0 <= seed < MAX_SEED:
            raise ApiError(f"seed must be an integer from 0 to 2**64 - 1, got {seed}")
        partner, opponents = _text(body, "partner", "rules"), _text(body, "opponents", "rules")
        hint_simulations = _int(body, "hint_simulations", 1000)
        check_table(game, seat, hint_simulations)
        bots = make_bots(game, seat, partner, opponents, seed)
        session = Session(game, seat, bots, seed, seat_labels(game.num_players(), seat, partner, opponents),
                          hint_simulations)
        session.deal()
        game_id = next(self.ids)
        self.sessions[game_id] = session
        return self.game_view(game_id)

    def game_view(self, game_id: int, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """The game as the person's seat sees it, its legal moves on its turn, the result at the end."""
        session = self.sessions[game_id]
        state = session.state
        your_turn = not state.is_terminal() and state.current_player() == session.seat
        view = {
            "id": game_id, "game": state.get_game().get_type().short_name, "title": session.title,
            "seat": session.seat, "num_players": state.num_players(), "labels": session.labels,
            "to_move": state.current_player(), "your_turn": your_turn, "bots_to_move": session.bots_to_move,
            "over": state.is_terminal(), "position": self._table_view(state, session.seat),
            "legal": [{"action": a, "text": state.action_to_string(session.seat, a)}
                      for a in state.legal_actions()] if your_turn else [],
            "prompt": literature.claim_prompt(state) if session.is_literature and your_turn else None,
            "moves": [asdict(move) for move in session.moves_made()],
            "result": None,
        }
        if state.is_terminal():
            saved = self._save(game_id)
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

    def _save(self, game_id: int) -> int:
        """Save the finished game in ``out`` once; its deal number there."""
        if game_id not in self.saved:
            session = self.sessions[game_id]
            command = f"cardlab serve: {session.title}; " + ", ".join(
                f"P{seat} {label}" for seat, label in enumerate(session.labels))
            self.saved[game_id] = save_game(self.out, session.state, session.labels, session.seed,
                                            session.seconds, session.moves_by_seat(), session.notes, command)
        return self.saved[game_id]

    def move(self, game_id: int, body: dict[str, Any]) -> dict[str, Any]:
        session = self.sessions[game_id]
        made = session.human_move(_text(body, "move"))
        session.deal()
        return {**self.game_view(game_id), "made": [asdict(made)]}

    def bots(self, game_id: int, body: dict[str, Any]) -> dict[str, Any]:
        """The bots' moves until the person's turn or the end (at most ``steps`` of them, if given)."""
        session = self.sessions[game_id]
        steps = _int(body, "steps", 10**9)
        if steps < 1:
            raise ApiError(f"steps must be a positive integer, got {steps}")
        if not session.bots_to_move:
            raise ApiError("no bot is to move: " + ("the game is over" if session.state.is_terminal()
                                                    else "it is your turn"))
        made = []
        while session.bots_to_move and len(made) < steps:
            made.append(asdict(session.bot_move()))
            session.deal()
        return {**self.game_view(game_id), "made": made}

    def undo(self, game_id: int, body: dict[str, Any]) -> dict[str, Any]:
        if game_id in self.saved:
            raise ApiError("the game is over and saved; start a new one")
        if not self.sessions[game_id].undo():
            raise ApiError("nothing to undo: you have not moved yet")
        return self.game_view(game_id)

    def hint(self, game_id: int, body: dict[str, Any]) -> dict[str, Any]:
        session = self.sessions[game_id]
        if session.state.is_terminal() or session.state.current_player() != session.seat:
            raise ApiError("a hint is for your turn")
        return {"hint": session.hint()}

    def knows(self, game_id: int, body: dict[str, Any]) -> dict[str, Any]:
        session = self.sessions[game_id]
        if not session.is_literature:
            raise ApiError("knows is for Literature, where the asks reveal where the cards are")
        return {"knows": literature.knows_text(session.state, session.seat)}

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
        if key not in self.replays:
            self.replays[key] = Replay(load_deal(sources[name], deal, seating))
            while len(self.replays) > KEPT_REPLAYS:
                self.replays.popitem(last=False)
        self.replays.move_to_end(key)
        replay = self.replays[key]
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
    """Static files and the API's JSON; every failure answered as JSON in one line."""

    app: WebApp
    server_version = "cardlab"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (the base class's name)
        """Quiet: the terminal shows only the address and errors."""

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if not path.startswith("/api/"):
            name = "index.html" if path in ("/", "/index.html") else path.removeprefix("/static/")
            if name not in STATIC_TYPES:
                self._send(HTTPStatus.NOT_FOUND, {"error": f"no such page: {path}"})
                return
            self._send_bytes(HTTPStatus.OK, (STATIC / name).read_bytes(), STATIC_TYPES[name])
            return
        self._answer("GET", None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw.strip() else {}
            if not isinstance(body, dict):
                raise ValueError
        except ValueError:
            self._send(HTTPStatus.BAD_REQUEST, {"error": "the request body must be a JSON object"})
            return
        self._answer("POST", body)

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

    def _send(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json")

    def _send_bytes(self, status: HTTPStatus, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)


def make_server(app: WebApp, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server of ``app`` on ``host:port`` (port 0: a free one, see ``server.server_port``)."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {port}")
    handler = type("Handler", (_Handler,), {"app": app})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server
