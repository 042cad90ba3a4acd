"""``cardlab serve``'s JSON API without a browser: games played to the end, undo, hint, knows, replays,
the errors of each request, one real HTTP round trip, and the command's one-line errors."""

from __future__ import annotations

import json
import socket
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import tournament_rows

from cardlab.cli import main
from cardlab.play.record import load_deal
from cardlab.play.replay import Replay
from cardlab.play.web import ApiError, WebApp, make_server


def play_to_the_end(app: WebApp, view: dict, bot_steps: int | None = None) -> tuple[dict, int]:
    """The person plays its first legal move at each turn, the bots theirs; the final view and the turns."""
    turns = 0
    while not view["over"]:
        if view["bots_to_move"]:
            assert not view["legal"]
            steps = {"steps": bot_steps} if bot_steps else {}
            view = app.handle("POST", f"/api/game/{view['id']}/bots", steps)
            assert view["made"] and (bot_steps is None or len(view["made"]) <= bot_steps)
        else:
            assert view["your_turn"] and view["legal"]
            turns += 1
            move = view["legal"][0]["text"]
            view = app.handle("POST", f"/api/game/{view['id']}/move", {"move": move})
            assert view["made"] == [{"player": view["seat"], "text": move, "note": ""}]
    return view, turns


@pytest.mark.parametrize("game, seat, extra", [("kaiser", 1, {}), ("28", 2, {}),
                                                ("literature", 3, {"players": 4})])
def test_each_game_is_played_to_the_end_and_saved(tmp_path: Path, game: str, seat: int, extra: dict) -> None:
    app = WebApp(None, tmp_path / "plays")
    view = app.handle("POST", "/api/game", {"game": game, "seat": seat, "seed": 11, **extra})
    assert view["seat"] == seat and view["labels"][seat] == "human" and not view["over"]
    assert [hand["seat"] for hand in view["position"]["hands"]] == [seat]  # the person sees its own hand only
    view, turns = play_to_the_end(app, view, bot_steps=1)
    session = app.sessions[view["id"]]
    assert session.state.is_terminal() and turns == session.moves_by_seat()[seat]
    assert view["result"]["returns"] == session.state.returns()
    assert view["result"]["text"] == session.result_text()
    stored = load_deal(tmp_path / "plays", view["result"]["saved"])
    assert stored.actions == session.state.history() and stored.returns == session.state.returns()
    assert stored.seat_agents[seat] == "human" and stored.deal_seed == 11
    assert len(view["moves"]) == sum(session.moves_by_seat())
    assert app.handle("GET", f"/api/game/{view['id']}")["result"]["saved"] == view["result"]["saved"]  # once


def test_the_page_offers_each_games_table_sizes_and_each_is_played_to_the_end(tmp_path: Path) -> None:
    """Every table size of every game, as the page offers it, deals and plays out with the bots."""
    from cardlab.games import SPECS

    app = WebApp(None, tmp_path / "plays")
    offered = {game["name"]: game for game in app.handle("GET", "/api/games")["games"]}
    for spec in SPECS:
        game = offered[spec.aliases[0]]
        assert game["players"] == list(spec.player_counts) and game["default_players"] in game["players"]
        for players in game["players"]:
            view = app.handle("POST", "/api/game", {"game": spec.aliases[0], "players": players,
                                                    "seat": players - 1, "seed": 3})
            assert view["num_players"] == players and len(view["labels"]) == players
            view, _ = play_to_the_end(app, view)
            assert len(view["result"]["returns"]) == players, (spec.name, players)


def test_the_same_seed_deals_the_same_cards_as_cardlab_play(tmp_path: Path) -> None:
    from cardlab.play.session import Session, make_bots

    app = WebApp(None, tmp_path)
    first = app.handle("POST", "/api/game", {"game": "kaiser", "seat": 0, "seed": 7})
    again = app.handle("POST", "/api/game", {"game": "kaiser", "seat": 0, "seed": "7"})
    other = app.handle("POST", "/api/game", {"game": "kaiser", "seat": 0, "seed": 8})
    assert first["position"] == again["position"] != other["position"] and first["id"] != again["id"]
    game = app.sessions[first["id"]].game
    terminal = Session(game, 0, make_bots(game, 0, "rules", "rules", 7), 7, ["human"] + ["rules"] * 3)
    terminal.deal()
    assert terminal.state.history() == app.sessions[first["id"]].state.history()


def test_undo_hint_and_the_errors_of_a_game(tmp_path: Path) -> None:
    app = WebApp(None, tmp_path)
    view = app.handle("POST", "/api/game", {"game": "kaiser", "seat": 0, "seed": 3, "hint_simulations": 30})
    game_id = view["id"]
    if view["bots_to_move"]:
        view = app.handle("POST", f"/api/game/{game_id}/bots")
        with pytest.raises(ApiError, match="no bot is to move: it is your turn"):
            app.handle("POST", f"/api/game/{game_id}/bots")
    with pytest.raises(ApiError, match="nothing to undo: you have not moved yet"):
        app.handle("POST", f"/api/game/{game_id}/undo")
    with pytest.raises(ValueError, match="unknown move 'xyzzy'; legal: "):
        app.handle("POST", f"/api/game/{game_id}/move", {"move": "xyzzy"})
    with pytest.raises(ApiError, match="move must be a non-empty string"):
        app.handle("POST", f"/api/game/{game_id}/move", {"move": 5})
    hint = app.handle("POST", f"/api/game/{game_id}/hint")["hint"]
    assert hint.startswith("ISMCTS (30 simulations) plays ") and "visit shares" in hint
    with pytest.raises(ApiError, match="knows is for Literature"):
        app.handle("GET", f"/api/game/{game_id}/knows")
    before = app.sessions[game_id].state.history()
    legal = view["legal"]
    view = app.handle("POST", f"/api/game/{game_id}/move", {"move": legal[-1]["text"]})
    if view["bots_to_move"]:
        with pytest.raises(ValueError, match="it is not your turn: you are P0, P. is to move"):
            app.handle("POST", f"/api/game/{game_id}/move", {"move": legal[0]["text"]})
        with pytest.raises(ApiError, match="a hint is for your turn"):
            app.handle("POST", f"/api/game/{game_id}/hint")
        view = app.handle("POST", f"/api/game/{game_id}/bots")
    undone = app.handle("POST", f"/api/game/{game_id}/undo")
    assert app.sessions[game_id].state.history() == before and undone["legal"] == legal
    view, _ = play_to_the_end(app, undone)
    with pytest.raises(ApiError, match="the game is over and saved"):
        app.handle("POST", f"/api/game/{game_id}/undo")
    with pytest.raises(ValueError, match="it is not your turn: you are P0, the game is over"):
        app.handle("POST", f"/api/game/{game_id}/move", {"move": "pass"})


def test_knows_and_the_claim_prompt_in_literature(tmp_path: Path) -> None:
    app = WebApp(None, tmp_path)
    view = app.handle("POST", "/api/game", {"game": "literature", "players": 6, "seat": 0, "seed": 2})
    assert view["num_players"] == 6 and view["your_turn"]
    knows = app.handle("GET", f"/api/game/{view['id']}/knows")["knows"]
    assert knows.count(" cards): ") == 5 and "claims certain for your team: " in knows
    claims = [m["text"] for m in view["legal"] if m["text"].startswith("claim ")]
    assert claims and all(m["text"].startswith(("ask P", "claim ")) for m in view["legal"])
    view = app.handle("POST", f"/api/game/{view['id']}/move", {"move": claims[0]})
    assert view["prompt"].startswith(claims[0] + ": who holds ")
    assert {m["text"] for m in view["legal"]} <= {f"assign P{p}" for p in (0, 2, 4)}


@pytest.mark.parametrize("body, message", [
    ({"game": "chess"}, "unknown game 'chess'"),
    ({}, "game must be a non-empty string"),
    ({"game": "kaiser", "seat": 4}, "--seat must be 0..3, got 4"),
    ({"game": "kaiser", "seat": "north"}, "seat must be an integer, got 'north'"),
    ({"game": "kaiser", "seed": -1}, "seed must be an integer from 0 to 2\\*\\*64 - 1"),
    ({"game": "kaiser", "partner": "nobody"}, "agent 'nobody' is not offered here"),
    ({"game": "kaiser", "partner": "py:os:getcwd"}, "agent 'py:os:getcwd' is not offered here"),
    ({"game": "kaiser", "params": [1]}, "params must be an object"),
    ({"game": "kaiser", "params": {"min_bid": 3}}, "min_bid"),
    ({"game": "literature", "players": 5}, "players"),
    ({"game": "kaiser", "hint_simulations": 0}, "--hint-simulations must be a positive integer"),
])
def test_a_new_game_refuses_bad_settings(tmp_path: Path, body: dict, message: str) -> None:
    with pytest.raises(ValueError if "--" in message else ApiError, match=message):
        WebApp(None, tmp_path).handle("POST", "/api/game", body)


def test_unknown_requests_and_games_are_404(tmp_path: Path) -> None:
    app = WebApp(None, tmp_path)
    for method, url in [("GET", "/api/game/12"), ("GET", "/api/game/x/move"), ("GET", "/api/nothing"),
                        ("DELETE", "/api/game"), ("GET", "/api/game")]:
        with pytest.raises(ApiError) as error:
            app.handle(method, url)
        assert error.value.status == 404


def test_a_tournament_deal_is_replayed_step_by_step_both_ways(tmp_path: Path) -> None:
    rows = tournament_rows(tmp_path / "results" / "k1", "--game", "kaiser", "--agents", "rules,random",
                           "--deals", "2", "--seed", "5", "--backend", "serial")
    (tmp_path / "results" / "empty").mkdir()
    app = WebApp(tmp_path / "results", tmp_path / "plays")
    sources = app.handle("GET", "/api/deals")["sources"]
    name = str(tmp_path / "results" / "k1")
    assert sources == [{"source": name, "kind": "tournament", "game": "cardlab_kaiser", "deals": 2,
                        "seatings": 2}]
    row = next(r for r in rows if r["deal"] == 1 and r["seating"] == 1)
    replay = Replay(load_deal(tmp_path / "results" / "k1", 1, 1))
    url = f"/api/replay?source={name}&deal=1&seating=1"
    views = [app.handle("GET", f"{url}&step={step}") for step in range(len(replay) + 1)]
    assert [v["move"]["text"] for v in views[:-1]] == [replay.move(step).text for step in range(len(replay))]
    assert views[-1]["move"] is None and views[-1]["returns"] == [float(r) for r in row["returns"]]
    assert all(v["returns"] is None for v in views[:-1])
    assert [h["seat"] for h in views[0]["position"]["hands"]] == [0, 1, 2, 3]
    assert all(len(h["cards"]) == 8 for h in views[0]["position"]["hands"])
    back = app.handle("GET", f"{url}&step={len(replay) - 1}")
    assert back == views[-2]
    seat_view = app.handle("GET", f"{url}&step=5&view=2")
    assert [h["seat"] for h in seat_view["position"]["hands"]] == [2] and seat_view["view"] == 2
    for query, message in [("&step=-1", "step must be 0.."), (f"&step={len(replay) + 1}", "step must be 0.."),
                           ("&view=4", "view must be all or a seat 0..3"), ("&view=east", "view must be")]:
        with pytest.raises(ApiError, match=message):
            app.handle("GET", url + query)
    with pytest.raises(ApiError, match="unknown source"):
        app.handle("GET", "/api/replay?source=/etc&deal=0")
    with pytest.raises(Exception, match="has no deal 7 in seating 0"):
        app.handle("GET", f"/api/replay?source={name}&deal=7")


def test_over_http_pages_json_and_errors(tmp_path: Path) -> None:
    server = make_server(WebApp(None, tmp_path), 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_port}"

    def call(path: str, data: bytes | None = None) -> tuple[int, str, bytes]:
        request = urllib.request.Request(base + path, data=data, method="POST" if data is not None else "GET",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, answer.headers["Content-Type"], answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers["Content-Type"], error.read()

    try:
        status, kind, page = call("/")
        assert status == 200 and kind.startswith("text/html") and b"/static/app.js" in page
        assert call("/static/app.js")[1].startswith("text/javascript")
        assert call("/static/style.css")[0] == 200
        for path in ("/static/../web.py", "/etc/passwd", "/static/nothing.js"):
            status, kind, body = call(path)
            assert status == 404 and kind == "application/json"
            assert "no such page" in json.loads(body)["error"]
        assert json.loads(call("/api/games")[2])["games"][0]["name"] == "kaiser"
        status, _, body = call("/api/game", b"{not json")
        assert status == 400 and json.loads(body) == {"error": "the request body must be a JSON object"}
        status, _, body = call("/api/game", json.dumps({"game": "kaiser", "seat": 9}).encode())
        assert status == 400 and json.loads(body) == {"error": "--seat must be 0..3, got 9"}
        status, _, body = call("/api/game", json.dumps({"game": "kaiser", "seed": 4}).encode())
        view = json.loads(body)
        assert status == 200 and view["id"] == 1 and view["game"] == "cardlab_kaiser"
        status, _, body = call("/api/game/1/move", json.dumps({"move": "bid 99"}).encode())
        assert status == 400 and "error" in json.loads(body)
        assert call("/api/game/2")[0] == 404
    finally:
        server.shutdown()
        server.server_close()


def test_serve_refuses_bad_arguments_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        for argv, message in [(["--port", "70000"], "--port must be 0..65535, got 70000"),
                              (["--results", str(tmp_path / "none")], "is not a directory"),
                              (["--port", str(taken.getsockname()[1])], "cardlab: error: "),
                              (["--port", "x"], "invalid int value")]:
            assert main(["serve", *argv, "--out", str(tmp_path / "plays")]) == 2
            err = capsys.readouterr().err
            assert message in err and err.count("\n") == 1, err
    finally:
        taken.close()


@pytest.mark.integration  # a server process stopped by a signal
def test_the_command_serves_the_page_until_stopped(tmp_path: Path) -> None:
    """``cardlab serve --port 0`` prints its address, answers there, and stops on Ctrl-C."""
    import os
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen([sys.executable, "-m", "cardlab.cli", "serve", "--port", "0", "--out",
                              str(tmp_path / "plays")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)})
    try:
        line = child.stdout.readline()
        address = line.split()[2]
        assert line.startswith("cardlab serve: http://127.0.0.1:") and line.rstrip().endswith(
            f"games are saved in {tmp_path / 'plays'}")
        with urllib.request.urlopen(address + "api/games", timeout=60) as answer:
            assert [g["name"] for g in json.load(answer)["games"]] == ["kaiser", "twenty_eight", "literature"]
    finally:
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    assert child.returncode == 0 and "stopped" in out and err == ""
