"""``cardlab serve`` as a careless or hostile client meets it: every request gets a JSON answer.

Malformed and oversized requests, other sites' pages (Host, Origin, content type), ``py:`` agents
and files over HTTP, search budgets beyond the caps, busy search slots; then (integration) a hint
at the cap that leaves other clients served, and a hundred concurrent scripted games on loopback
without a reset.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from http import HTTPStatus
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardlab.play.web import (
    MAX_BODY,
    MAX_DEPTH,
    ApiError,
    SearchSlots,
    WebApp,
    make_server,
    nesting_depth,
    web_agent,
)

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of a fresh app on a free loopback port, for the whole module."""
    server = make_server(WebApp(None, tmp_path_factory.mktemp("plays")), 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def raw(server, request: bytes, timeout: float = 60) -> tuple[int | None, dict | None, bytes]:
    """Send ``request`` as bytes; the status, the JSON body (None if none) and the whole answer."""
    with socket.create_connection(("127.0.0.1", server.server_port), timeout=timeout) as connection:
        connection.sendall(request)
        connection.shutdown(socket.SHUT_WR)  # all sent: the server reads to the end, not to a timeout
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    if not answer:
        return None, None, answer
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split()[1])
    assert b"Content-Type: application/json" in head or not head.startswith(b"HTTP/1.0 4"), answer
    return status, json.loads(body) if body else None, answer


def post(server, path: str, body: bytes, **headers: str) -> tuple[int | None, dict | None, bytes]:
    host = headers.pop("Host", f"127.0.0.1:{server.server_port}")
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}", "Connection: close",
             *(f"{name.replace('_', '-')}: {value}" for name, value in headers.items())]
    if "Content_Length" not in headers and "Transfer_Encoding" not in headers:
        lines.append(f"Content-Length: {len(body)}")
    return raw(server, ("\r\n".join(lines) + "\r\n\r\n").encode() + body)


def json_post(server, path: str, payload: dict, **headers: str):
    return post(server, path, json.dumps(payload).encode(), Content_Type="application/json", **headers)


# ---- malformed and oversized requests --------------------------------------------------------------
@pytest.mark.parametrize("headers, body, status, message", [
    ({"Content_Length": "abc"}, b"{}", 400, "Content-Length must be a number of bytes"),
    ({"Content_Length": "-5"}, b"{}", 400, "Content-Length must be a number of bytes"),
    ({"Content_Length": "99999999999999"}, b"{}", 413, f"at most {MAX_BODY} bytes"),
    ({"Content_Length": str(MAX_BODY + 1)}, b"{}", 413, f"at most {MAX_BODY} bytes"),
    ({"Transfer_Encoding": "chunked"}, b"2\r\n{}\r\n0\r\n\r\n", 411, "Content-Length"),
    ({"Content_Type": "text/plain"}, b'{"game": "kaiser"}', 415, "must be application/json"),
    ({"Content_Type": "application/x-www-form-urlencoded"}, b"game=kaiser", 415, "application/json"),
    ({}, b'{"game": "kaiser"}', 415, "must be application/json, got 'text/plain'"),
    ({"Content_Type": "application/json"}, b"[" * 60_000 + b"]" * 60_000, 413, "at most"),
    ({"Content_Type": "application/json"}, b"[" * 30_000 + b"]" * 30_000, 400, "must be a JSON object"),
    ({"Content_Type": "application/json"}, b'{"a":' * 20 + b"1" + b"}" * 20, 400,
     f"at most {MAX_DEPTH} deep"),
    ({"Content_Type": "application/json"}, b"\xff\xfe", 400, "must be a JSON object"),
])
def test_a_malformed_body_is_answered_in_json(server, headers, body, status, message):
    got, payload, answer = post(server, "/api/game", body, **headers)
    assert got == status, answer
    assert message in payload["error"]


@pytest.mark.parametrize("request_bytes, status", [
    (b"PUT /api/game HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501),
    (b"DELETE /api/game/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501),
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET /" + b"x" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
    (b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120)) + b"\r\n", 431),
])
def test_http_level_refusals_are_json_too(server, request_bytes, status):
    got, payload, answer = raw(server, request_bytes)
    assert got == status, answer
    assert isinstance(payload["error"], str)


def request_of(method: str, path: str, extra: bytes) -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode() + extra + b"\r\n\r\n"


@FUZZ
@given(request_bytes=st.binary(max_size=300) | st.builds(
    request_of,
    st.sampled_from(["GET", "POST", "HEAD", "OPTIONS", "PATCH", "get"]),
    st.sampled_from(["/api/game", "/api/game/1/bots", "/api/replay?deal=1e30", "/api/%00", "/../../etc"]),
    st.binary(max_size=80)))
def test_any_bytes_get_a_json_answer_or_a_closed_connection(server, request_bytes):
    status, payload, answer = raw(server, request_bytes, timeout=30)
    if status is not None:
        assert 200 <= status < 600 and (payload is None or "error" in payload or status == 200), answer
    assert b"Traceback" not in answer


def test_numbers_beyond_range_are_400_not_500(server):
    for payload in ({"game": "kaiser", "seed": 10**30}, {"game": "kaiser", "seat": 10**30},
                    {"game": "kaiser", "hint_simulations": 10**9}, {"game": "literature", "players": 10**30},
                    {"game": "kaiser", "params": {"min_bid": 10**30}}, {"game": "kaiser", "seed": -1}):
        status, answer, raw_answer = json_post(server, "/api/game", payload)
        assert status == 400, raw_answer
    status, answer, _ = raw(server, f"GET /api/replay?source=x&deal={10**30} HTTP/1.1\r\nHost: 127.0.0.1:"
                                    f"{server.server_port}\r\n\r\n".encode())
    assert status == 400 and "unknown source" in answer["error"]


# ---- other sites ------------------------------------------------------------------------------------
@pytest.mark.parametrize("headers, message", [
    ({"Host": "evil.example:8765"}, "is not this server"),
    ({"Host": "evil.example"}, "is not this server"),
    ({"Host": ""}, "is not this server"),
    ({"Host": "127.0.0.1:1"}, "is not this server"),
    ({"Origin": "http://evil.example"}, "are not accepted"),
    ({"Origin": "null"}, "are not accepted"),
    ({"Sec_Fetch_Site": "cross-site"}, "from another site"),
])
def test_a_request_from_another_site_is_refused(server, headers, message):
    status, payload, _ = json_post(server, "/api/game", {"game": "kaiser"}, **headers)
    assert status == 403 and message in payload["error"]


def test_the_page_of_this_server_and_plain_clients_are_served(server):
    port = server.server_port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", "127.0.0.1"):
        status, payload, answer = json_post(server, "/api/game", {"game": "kaiser", "seed": 2}, Host=host,
                                            Origin=f"http://{host}", Sec_Fetch_Site="same-origin")
        assert status == 200 and payload["game"] == "cardlab_kaiser", answer


@given(host=st.text(max_size=30))
def test_only_this_servers_names_are_hosts(server, host):
    name, _, port = host.rpartition(":")
    ours = {"localhost", "127.0.0.1", "[::1]"}
    expected = host.lower() in ours or (name.lower() in ours and port == str(server.server_port))
    assert server.allows_host(host) == expected


# ---- agents and budgets over HTTP ------------------------------------------------------------------
@pytest.mark.parametrize("spec, message", [
    ("py:os:getcwd", "not offered here"),
    ("py:subprocess:run", "not offered here"),
    ("cfr:policy=/etc/passwd", "not offered here"),
    ("cfr-bidding:policy=/etc/passwd", "names a file"),
    ("ismcts:simulations=10000000", "simulations may be at most 100,000"),
    ("ismcts:workers=8", "workers may be at most 1"),
    ("ismcts:time_ms=600000", "time_ms may be at most 10,000"),
    ("pimc:worlds=5000", "worlds may be at most 200"),
    ("ismcts:nosuch=1", "unknown option"),
])
def test_agents_over_http_are_built_in_and_within_budget(server, spec, message):
    with pytest.raises((ApiError, ValueError), match=message):
        web_agent(spec)
    for side in ("partner", "opponents"):
        status, payload, _ = json_post(server, "/api/game", {"game": "kaiser", side: spec})
        assert status == 400 and message in payload["error"]


def test_agents_within_budget_are_taken():
    for spec in ("rules", "random", "ismcts", "ismcts:simulations=100000", "pimc:worlds=200", "cfr-bidding"):
        assert web_agent(spec) == spec


def test_a_hint_beyond_the_cap_is_refused(server):
    status, payload, _ = json_post(server, "/api/game", {"game": "kaiser", "hint_simulations": 100_001})
    assert status == 400 and "--hint-simulations must be a positive integer up to 100,000" in payload["error"]


def test_nesting_depth_without_recursion():
    assert nesting_depth(1) == 0 and nesting_depth({}) == 1 and nesting_depth({"a": [1, {"b": []}]}) == 4
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert nesting_depth(deep) == 100_001


def test_search_slots_refuse_beyond_the_waiting_room():
    slots = SearchSlots(running=1, waiting=1)
    release = threading.Event()
    started = threading.Event()
    results = []

    def long_search():
        started.set()
        release.wait(60)
        return "done"

    first = threading.Thread(target=lambda: results.append(slots.run(long_search)))
    first.start()
    started.wait(60)
    second = threading.Thread(target=lambda: results.append(slots.run(lambda: "second")))
    second.start()
    with pytest.raises(ApiError) as refused:  # one running, one waiting: a third is refused at once
        slots.run(lambda: "third")
    assert refused.value.status == HTTPStatus.SERVICE_UNAVAILABLE
    release.set()
    first.join(60)
    second.join(60)
    assert sorted(results) == ["done", "second"]
    with pytest.raises(ZeroDivisionError):  # an error of the search reaches the request
        slots.run(lambda: 1 / 0)


def test_a_game_busy_with_a_request_refuses_another(tmp_path):
    app = WebApp(None, tmp_path)
    view = app.handle("POST", "/api/game", {"game": "kaiser", "seed": 1})
    with app._game(str(view["id"])), pytest.raises(ApiError) as busy:
        app.handle("GET", f"/api/game/{view['id']}")
    assert busy.value.status == HTTPStatus.TOO_MANY_REQUESTS
    assert app.handle("GET", f"/api/game/{view['id']}")["id"] == view["id"]


def test_games_beyond_the_cap_drop_the_least_recently_used(tmp_path, monkeypatch):
    from cardlab.play import web

    monkeypatch.setattr(web, "MAX_GAMES", 3)
    app = WebApp(None, tmp_path)
    ids = [app.handle("POST", "/api/game", {"game": "kaiser", "seed": seed})["id"] for seed in range(3)]
    app.handle("GET", f"/api/game/{ids[0]}")  # used again: kept
    ids.append(app.handle("POST", "/api/game", {"game": "kaiser", "seed": 9})["id"])
    assert list(app.sessions) == [ids[2], ids[0], ids[3]]
    with pytest.raises(ApiError, match="no game"):
        app.handle("GET", f"/api/game/{ids[1]}")


def test_a_played_games_manifest_pointing_outside_its_folder_is_refused(tmp_path):
    app = WebApp(None, tmp_path / "plays")
    view = app.handle("POST", "/api/game", {"game": "kaiser", "seed": 3})
    while not view["over"]:
        view = app.handle("POST", f"/api/game/{view['id']}/" + ("bots" if view["bots_to_move"] else "move"),
                          {} if view["bots_to_move"] else {"move": view["legal"][0]["text"]})
    source = view["result"]["source"]
    for deal in (10**30, -1, 2**63):
        with pytest.raises(Exception, match="the deal must be an integer from 0 to"):
            app.handle("GET", f"/api/replay?source={source}&deal={deal}")
    manifest_path = tmp_path / "plays" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["games"][0]["file"] = "../../../../etc/passwd"
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(Exception, match="must name its own part file"):
        app.handle("GET", f"/api/replay?source={view['result']['source']}&deal=0")


# ---- under load (integration: real sockets, many threads) ---------------------------------------
def http(base: str, path: str, payload: dict | None = None) -> tuple[int, dict]:
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(base + path, data=data, method="GET" if data is None else "POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=300) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


@pytest.mark.integration
def test_a_hint_at_the_cap_leaves_other_clients_served(tmp_path):
    """While the largest hint allowed runs, other clients still create games and are answered.

    The bound below is a liveness check (no client waits for the whole search), not a speed claim.
    """
    server = make_server(WebApp(None, tmp_path), 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        view = http(base, "/api/game", {"game": "literature", "players": 4, "seed": 1,
                                        "hint_simulations": 100_000})[1]
        while not view["your_turn"]:
            view = http(base, f"/api/game/{view['id']}/bots", {})[1]
        hint: dict = {}
        path = f"/api/game/{view['id']}/hint"
        searching = threading.Thread(target=lambda: hint.update(http(base, path, {})[1]))
        began = time.perf_counter()
        searching.start()
        time.sleep(0.5)
        answered = []
        while searching.is_alive() and len(answered) < 5:
            start = time.perf_counter()
            assert http(base, "/api/games")[0] == 200
            answered.append(time.perf_counter() - start)
        searching.join(600)
        assert "ISMCTS (100000 simulations)" in hint["hint"]
        hint_seconds = time.perf_counter() - began
        if hint_seconds > 5:  # the hint ran long enough for the others to have been kept waiting
            assert answered and max(answered) < hint_seconds / 2
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.integration
def test_a_hundred_concurrent_scripted_games_without_a_reset(tmp_path):
    """100 clients at once on loopback, each a whole Kaiser game (hint, bots, moves): every request
    answered in JSON, none reset; a busy search slot (503) is retried as its Retry-After says."""
    server = make_server(WebApp(None, tmp_path), 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    statuses: Counter = Counter()
    failures: list[str] = []
    lock = threading.Lock()

    def call(path: str, payload: dict | None = None) -> dict:
        for _ in range(600):
            status, answer = http(base, path, payload)
            with lock:
                statuses[status] += 1
            if status != 503:
                assert status == 200, answer
                return answer
            time.sleep(0.2)
        raise AssertionError(f"{path} busy for two minutes")

    def client(number: int) -> None:
        try:
            view = call("/api/game", {"game": "kaiser", "seed": number, "hint_simulations": 200,
                                      "opponents": "ismcts:simulations=50"})
            hinted = False
            while not view["over"]:
                if view["bots_to_move"]:
                    view = call(f"/api/game/{view['id']}/bots", {})
                    continue
                if not hinted:
                    assert "ISMCTS (200 simulations)" in call(f"/api/game/{view['id']}/hint", {})["hint"]
                    hinted = True
                view = call(f"/api/game/{view['id']}/move", {"move": view["legal"][0]["text"]})
            assert view["result"]["saved"] >= 0
        except Exception as error:  # noqa: BLE001  (collected, reported below)
            with lock:
                failures.append(f"client {number}: {type(error).__name__}: {error}")

    threads = [threading.Thread(target=client, args=(number,)) for number in range(100)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(1800)
    finally:
        server.shutdown()
        server.server_close()
    assert failures == []
    assert set(statuses) <= {200, 503} and statuses[200] >= 100 * 10
    saved = json.loads((Path(tmp_path) / "manifest.json").read_text())["games"]
    assert len(saved) == 100
