"""``cardlab serve`` in a real headless browser: Playwright drives Debian's Chromium (``/usr/bin/chromium``;
Playwright's own browser download is not used) against a server on a free port.

A Kaiser hand is played to the end by clicking the cards and bids the page draws (after a typed bad move,
whose error must show on the page, and an undo); the result the page shows must be the server-side game's
returns and the saved game's. That game is then replayed through every move and back. A Twenty-Eight
hand and a four-player Literature game are played to the end the same way. Without the browser the
tests skip, saying why; under CI (``CI`` set) they fail instead, so CI always runs them (``.ci/run``
installs Chromium).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardlab.play.record import load_deal
from cardlab.play.replay import Replay
from cardlab.play.web import WebApp, make_server

pytestmark = pytest.mark.integration  # a headless browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 300_000  # a cold numba cache compiles the bots on their first move
SUITS = set("♣♦♥♠")


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[web]')"
    if not CHROMIUM.is_file():
        return f"no {CHROMIUM} (apt-get install -y chromium; .ci/run installs it)"
    return None


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebApp, str]]:
    app = WebApp(None, tmp_path_factory.mktemp("serve") / "plays")
    http = make_server(app, 0)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{http.server_port}/"
    http.shutdown()
    http.server_close()


@pytest.fixture(scope="module")
def browser_page():
    reason = _missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser test: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="cardlab-chromium-") as profile, sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page, errors
        context.close()


def wait_for_turn(page) -> str:
    """Wait until the person is to move or the game is over; which of the two."""
    page.wait_for_function("['your-turn', 'over'].includes(document.body.dataset.phase)")
    return page.evaluate("document.body.dataset.phase")


def deal(page, url: str, game: str, seat: int, seed: int, players: int | None = None) -> None:
    page.goto(url)
    page.wait_for_selector(f"#game option[value='{game}']", state="attached")
    page.select_option("#game", game)
    if players is not None:
        page.select_option("#players", str(players))
    page.fill("#seat", str(seat))
    page.fill("#seed", str(seed))
    page.click("#deal")


def click_to_the_end(page) -> int:
    """Click the first move the page offers at every turn; the number of turns."""
    turns = 0
    while wait_for_turn(page) == "your-turn":
        page.locator(".move").first.click()
        turns += 1
    return turns


def shown_returns(page, selector: str) -> list[float]:
    return json.loads(page.get_attribute(selector, "data-returns"))


def test_a_kaiser_hand_played_by_clicking_then_replayed_move_by_move(server, browser_page) -> None:
    app, url = server
    page, errors = browser_page
    deal(page, url, "kaiser", seat=1, seed=5)
    assert wait_for_turn(page) == "your-turn"
    game_id = max(app.sessions)
    session = app.sessions[game_id]

    # the hand is drawn as cards: eight of them, each a rank over a suit symbol, hearts and diamonds red
    cards = page.locator("#hand-1 .card")
    assert cards.count() == 8
    for i in range(8):
        text = cards.nth(i).get_attribute("data-card")
        assert cards.nth(i).locator(".suit").inner_text() in SUITS
        assert ("red" in cards.nth(i).get_attribute("class")) == (text[1] in "HD")

    # a typed bad move is answered on the page, and the game waits
    page.fill("#move-text", "xyzzy")
    page.click("#type-move")
    page.wait_for_selector("#message:not([hidden])")
    assert "unknown move 'xyzzy'" in page.inner_text("#message")
    assert wait_for_turn(page) == "your-turn"

    # one move, the bots' answers, then undo back to the same decision
    before = session.state.history()
    page.locator(".move").first.click()
    assert wait_for_turn(page) == "your-turn"
    assert len(session.state.history()) > len(before)
    page.click("#undo")  # (a click sets the page busy at once, so the wait below is for its answer)
    assert wait_for_turn(page) == "your-turn"
    assert session.state.history() == before

    turns = click_to_the_end(page)
    assert turns == session.moves_by_seat()[1]
    assert session.state.is_terminal()
    returns = session.state.returns()
    assert shown_returns(page, "#result") == returns
    assert page.inner_text("#result-text") == session.result_text()
    last = session.moves_made()[-1]  # the last moves are listed, cards drawn as cards
    item = page.locator("#recent-moves li").last
    assert item.inner_text().startswith(f"P{last.player} ({session.labels[last.player]}): ")
    assert item.locator(".card").get_attribute("data-card") == last.text
    assert "trick 8" in page.inner_text("#rows")  # at the end, the whole table: every trick
    saved = app.saved[game_id]
    stored = load_deal(app.out, saved)
    assert stored.returns == returns and stored.actions == session.state.history()

    # the saved game, replayed through every move, then one step back
    page.click("#replay-this")
    page.wait_for_function("document.body.dataset.phase === 'replay'")
    length = len(Replay(stored))
    assert int(page.get_attribute("#step", "data-length")) == length
    assert page.locator("#replay-hands .hand").count() == 4
    for step in range(1, length + 1):
        page.click("#next")
        page.wait_for_function(f"document.body.dataset.phase === 'replay' && "
                               f"document.querySelector('#step').dataset.step === '{step}'")
    assert page.is_disabled("#next")
    assert shown_returns(page, "#replay-move") == returns
    page.click("#back")
    page.wait_for_function(f"document.querySelector('#step').dataset.step === '{length - 1}'")
    assert page.get_attribute("#replay-move", "data-returns") is None
    page.select_option("#replay-view", "2")
    page.wait_for_function("document.body.dataset.phase === 'replay' && "
                           "document.querySelectorAll('#replay-hands .hand').length === 1")
    assert page.locator("#hand-2").count() == 1
    assert errors == []


@pytest.mark.parametrize("game, seat, players", [("twenty_eight", 2, None), ("literature", 0, 4)])
def test_twenty_eight_and_literature_played_by_clicking(server, browser_page, game: str, seat: int,
                                                        players: int | None) -> None:
    app, url = server
    page, errors = browser_page
    deal(page, url, game, seat=seat, seed=3, players=players)  # (seed 4 ends at once: a void hand, redealt)
    assert wait_for_turn(page) == "your-turn"
    session = app.sessions[max(app.sessions)]
    assert session.game.num_players() == (players or 4)
    if game == "literature":
        page.click("#knows")
        page.wait_for_selector("#advice:not([hidden])")
        assert "claims certain for your team" in page.inner_text("#advice")
    turns = click_to_the_end(page)
    assert turns == session.moves_by_seat()[seat] > 0
    assert shown_returns(page, "#result") == session.state.returns()
    assert page.inner_text("#result-text") == session.result_text()
    assert errors == []
