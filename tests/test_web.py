"""The table's web page: what it serves, what its actions need, what it refuses.

Every server here listens on 127.0.0.1 on a port the system picks, and is driven with the
standard library's HTTP client, which sends a path exactly as written (a browser or httpx
would tidy ``..`` away before the server saw it).
"""

from __future__ import annotations

import http.client
import json
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pitable.box.sim import Simulator
from pitable.errors import TooManyListeners, WebError
from pitable.hw.clock import FakeClock
from pitable.i18n import translator
from pitable.rules import all_titles, find_title
from pitable.rules.session import Mode
from pitable.web.app import MAX_BODY
from pitable.web.commands import NewGameCommand, RollCommand
from pitable.web.guard import LOCKOUT_S, TRIES, PinGuard, Verdict, random_pin
from pitable.web.hub import QUEUE_SIZE, Hub
from pitable.web.server import WebServer, bind
from pitable.web.words import PAGE_WORDS
from tests.support.box import make
from tests.support.web import (
    PAGES,
    PIN,
    SHARED_SCRIPTS,
    TIMEOUT_S,
    Events,
    Page,
    english_defaults,
    serve,
)


@pytest.fixture
def page() -> Iterator[Page]:
    served = serve()
    yield served
    served.server.close()


@pytest.fixture
def table() -> Iterator[tuple[Simulator, Page]]:
    """A simulated box whose snapshots the page serves, and whose queue takes its actions."""
    sim = make("2,4,5", "1,3,*", "5,5,5", tumble_ms=300)
    served = serve(sim.box.post)
    sim.box.publisher.subscribe(served.server.publish)
    yield sim, served
    served.server.close()
    sim.close()


def shown(event: dict[str, Any]) -> bool:
    return not event["rolling"] and event["roll"] is not None


# --- what the page shows -----------------------------------------------------------------


def test_the_events_carry_each_roll_after_its_tumble_and_the_state_matches(
    table: tuple[Simulator, Page],
) -> None:
    sim, page = table
    events = Events(page.port)
    first = events.next()
    assert first is not None and first["roll"] is None and first["title"] == "valley"
    sim.press()
    rolling = events.next()
    assert rolling is not None and rolling["rolling"] and rolling["roll"] is None
    assert rolling["numbers"] == [] and rolling["words"] == [], "no spoiler during the tumble"
    final = events.until(shown)
    expected = find_title("valley").options(sim.box.game.state.last_roll).to_json()
    assert final["roll"] == [2, 4, 5]
    assert final["options"] == expected
    assert final["numbers"] == expected["numbers"]
    status, _, body = page.request("GET", "/api/state")
    assert status == 200
    state = json.loads(body)
    assert {k: state[k] for k in final} == final
    assert [t["key"] for t in state["titles"]] == ["valley", "island", "temple"]
    events.close()


def test_a_new_listener_gets_the_latest_roll_at_once(table: tuple[Simulator, Page]) -> None:
    sim, page = table
    sim.press()
    events = Events(page.port)
    assert events.until(lambda e: True)["roll"] == [2, 4, 5]
    events.close()


def test_an_idle_stream_gets_a_keep_alive_comment() -> None:
    page = serve(keepalive_s=0.05)
    try:
        events = Events(page.port)
        while not events.comments:
            line = events.response.fp.readline().decode()
            assert line, "the stream ended"
            if line.startswith(":"):
                events.comments.append(line.strip())
        assert events.comments[0] == ": keep-alive"
        events.close()
    finally:
        page.server.close()


def test_closing_the_server_ends_every_stream() -> None:
    page = serve()
    events = Events(page.port)
    page.server.close()
    assert events.next() is None
    assert page.server._thread is not None and not page.server._thread.is_alive()
    events.close()


def test_the_page_and_every_asset_it_names_are_served_from_the_box() -> None:
    page = serve()
    try:
        status, headers, html = page.request("GET", "/")
        assert status == 200 and headers["content-type"].startswith("text/html")
        assert "default-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        text = html.decode()
        assets = re.findall(r'<(?:script|link)\b[^>]*\b(?:src|href)="([^"]+)"', text)
        assert assets, "the page names its script and style"
        _, _, css = page.request("GET", "/static/style.css")
        assets += re.findall(r'url\("([^"]+)"\)', css.decode())
        assert any(a.startswith("/fonts/") for a in assets)
        for asset in assets:
            assert asset.startswith("/"), f"{asset}: an asset from elsewhere"
            status, _, body = page.request("GET", asset)
            assert status == 200 and body, asset
        assert "/api/events" in page.request("GET", "/static/stream.js")[2].decode()
    finally:
        page.server.close()


# --- the PIN -------------------------------------------------------------------------------


def test_an_action_needs_the_right_pin(page: Page) -> None:
    status, answer = page.act("/api/roll", pin=None)
    assert status == 403 and "X-Pitable-Pin" in answer["error"]
    assert answer["tries_left"] == TRIES, "a missing PIN is not counted as a wrong one"
    status, answer = page.act("/api/roll", pin="1111")
    assert status == 403
    assert answer == {"error": f"a wrong PIN: {TRIES - 1} tries left before a wait",
                      "tries_left": TRIES - 1}
    assert page.act("/api/roll", pin="")[1]["tries_left"] == TRIES - 2
    assert page.posted == []
    status, answer = page.act("/api/roll")
    assert status == 202 and answer == {"queued": "roll"}
    assert page.posted == [RollCommand()]


def test_five_wrong_pins_lock_the_address_out_for_a_minute(page: Page) -> None:
    pin = {"X-Pitable-Pin": PIN}
    for _ in range(TRIES):
        assert page.act("/api/roll", pin="0000")[0] == 403
    status, headers, body = page.request("POST", "/api/roll", headers=pin)
    assert status == 429 and headers["retry-after"] == f"{LOCKOUT_S:.0f}"
    assert json.loads(body) == {"error": f"too many wrong PINs: try again in {LOCKOUT_S:.0f} s",
                                "retry_after": LOCKOUT_S}
    assert page.act("/api/new-game", body={"title": "island"})[0] == 429
    page.clock.advance(LOCKOUT_S - 1.5)
    status, headers, body = page.request("POST", "/api/roll", headers=pin)
    assert status == 429 and headers["retry-after"] == "2", "whole seconds, rounded up"
    page.clock.advance(1.5)
    assert page.act("/api/roll")[0] == 202
    assert page.posted == [RollCommand()]


def test_a_right_pin_forgets_the_wrong_ones_before_it() -> None:
    guard = PinGuard(PIN, FakeClock(), bucket_size=100)
    for _ in range(3):
        for _ in range(TRIES - 1):
            assert guard.check("10.0.0.5", "0000").verdict is Verdict.FORBIDDEN
        assert guard.check("10.0.0.5", PIN).verdict is Verdict.ALLOWED


def test_a_lockout_is_for_one_address_only() -> None:
    guard = PinGuard(PIN, FakeClock())
    for _ in range(TRIES):
        guard.check("10.0.0.5", "0000")
    assert guard.check("10.0.0.5", PIN).verdict is Verdict.LOCKED
    assert guard.check("10.0.0.6", PIN).verdict is Verdict.ALLOWED


def test_a_flood_of_addresses_is_remembered_within_bounds() -> None:
    # A bucket big enough that every guess is counted: this is about memory, not about rate.
    guard = PinGuard(PIN, FakeClock(), max_addresses=100, bucket_size=10**6)
    for i in range(1000):
        guard.check(f"10.{i // 256}.{i % 256}.1", "0000")
    addresses, prefixes = guard.remembered
    assert 0 < addresses <= 100 and 0 < prefixes <= 100


def test_a_pin_chosen_at_start_is_six_digits() -> None:
    pins = {random_pin() for _ in range(50)}
    assert all(re.fullmatch(r"\d{6}", p) for p in pins)
    assert len(pins) > 1


# --- new games -------------------------------------------------------------------------------


def test_a_new_game_is_posted_by_the_title_s_key(page: Page) -> None:
    status, answer = page.act("/api/new-game", body={"title": "skull-island", "mode": "solo"})
    assert status == 202 and answer["title"] == "island"
    assert page.posted == [NewGameCommand("island", "solo")]


def test_the_page_s_mode_reaches_the_box_as_the_mode_itself(page: Page) -> None:
    status, answer = page.act("/api/new-game", body={"title": "valley", "mode": "solo"})
    assert status == 202 and answer["mode"] == "solo"
    [command] = page.posted
    assert isinstance(command, NewGameCommand) and command.mode is Mode.SOLO


@pytest.mark.parametrize(("body", "said"), [
    ({"title": "chess"}, "title"),
    ({"title": 7}, "title"),
    ({"mode": "table"}, "title"),
    ({"title": "valley", "mode": "duo"}, "mode"),
    ([1, 2], "JSON object"),
])
def test_a_wrong_new_game_is_one_line_and_posts_nothing(page: Page, body: Any,
                                                        said: str) -> None:
    status, answer = page.act("/api/new-game", body=body)
    assert status == 400
    assert said in answer["error"] and "\n" not in answer["error"]
    assert page.posted == []


def test_a_body_that_is_not_json_is_400(page: Page) -> None:
    status, _, answer = page.request("POST", "/api/new-game", b"{title",
                                     {"X-Pitable-Pin": PIN})
    assert status == 400 and "JSON" in json.loads(answer)["error"]


# --- what the page refuses -------------------------------------------------------------------


def test_a_body_over_4_kb_is_413(page: Page) -> None:
    big = json.dumps({"title": "valley", "pad": "x" * MAX_BODY}).encode()
    status, _, answer = page.request("POST", "/api/new-game", big, {"X-Pitable-Pin": PIN})
    assert status == 413 and "4096" in json.loads(answer)["error"]
    assert page.posted == []


def test_a_chunked_body_over_4_kb_is_413_too(page: Page) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", page.port, timeout=TIMEOUT_S)
    chunks = [b"{" + b" " * 1000] * 5
    conn.request("POST", "/api/new-game", body=iter(chunks), encode_chunked=True,
                 headers={"X-Pitable-Pin": PIN, "Transfer-Encoding": "chunked"})
    assert conn.getresponse().status == 413
    conn.close()
    assert page.posted == []


def test_a_body_of_4_kb_is_taken(page: Page) -> None:
    body = json.dumps({"title": "temple", "mode": "table"}).encode()
    body += b" " * (MAX_BODY - len(body))
    status, _, _ = page.request("POST", "/api/new-game", body, {"X-Pitable-Pin": PIN})
    assert status == 202
    assert page.posted == [NewGameCommand("temple", "table")]


@pytest.mark.parametrize("path", ["/nothing", "/api/nothing", "/static/nothing.js", "/api",
                                  "/fonts/nothing.ttf", "/index.html/x"])
def test_an_unknown_path_is_404(page: Page, path: str) -> None:
    assert page.request("GET", path)[0] == 404


@pytest.mark.parametrize("path", [
    "/static/../web/app.py",
    "/static/../../pitable/config.py",
    "/static/../../../../../../etc/passwd",
    "/static/%2e%2e/app.py",
    "/static/%2e%2e/%2e%2e/config.py",
    "/static/..%2fapp.py",
    "/static/..%2f..%2fconfig.py",
    "/static/%2fetc%2fpasswd",
    "/static//etc/passwd",
    "/static/%2F%2Fetc/passwd",
    "/static/..\\app.py",
    "/fonts/..%2fweb%2fapp.py",
    "/fonts/LICENSE-DejaVu.txt",
    "/fonts/%2e%2e/config.py",
    "//etc/passwd",
    "/..%2fpitable/config.py",
])
def test_no_path_leaves_the_static_folder(page: Page, path: str) -> None:
    status, _, body = page.request("GET", path)
    assert status in (400, 404), f"{path}: {status}"
    for secret in (b"root:", b"import ", b"DejaVu"):
        assert secret not in body


def test_actions_are_posts_only(page: Page) -> None:
    assert page.request("GET", "/api/roll")[0] == 405
    assert page.posted == []


def test_a_port_in_use_is_one_clear_error() -> None:
    taken = bind("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        with pytest.raises(WebError, match=rf"127\.0\.0\.1:{port}: .*in use"):
            bind("127.0.0.1", port)
    finally:
        taken.close()


def test_the_server_keeps_its_url_as_bound_for_the_join_code_to_show() -> None:
    """A wildcard stays one: the join code reads the LAN address each time it is shown."""
    def url(host: str) -> str:
        return WebServer(host, 8080, PIN, lambda event: None).url

    assert url("127.0.0.1") == "http://127.0.0.1:8080/"
    assert url("::1") == "http://[::1]:8080/"
    assert url("0.0.0.0") == "http://0.0.0.0:8080/"
    assert url("::") == "http://[::]:8080/"


# --- the fan-out -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Snap:
    seq: int

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq}


def test_a_slow_listener_loses_its_oldest_events_not_its_newest() -> None:
    hub = Hub()
    client = hub.join()
    for seq in range(1, 101):
        hub.publish(_Snap(seq))
    waiting = client.take()
    assert len(waiting) == QUEUE_SIZE
    assert b'"seq":100' in waiting[-1] and b'"seq":85' in waiting[0]
    assert client.dropped == 100 - QUEUE_SIZE


def test_the_hub_takes_a_bounded_number_of_listeners() -> None:
    hub = Hub(max_clients=3)
    for _ in range(3):
        hub.join()
    with pytest.raises(TooManyListeners):
        hub.join()


def test_too_many_listeners_get_503() -> None:
    page = serve()
    page.server.hub.max_clients = 1
    try:
        first = Events(page.port)
        status, _, _ = page.request("GET", "/api/events")
        assert status == 503
        first.close()
    finally:
        page.server.close()


# --- the box takes the page's actions ----------------------------------------------------------


def test_the_page_s_roll_rolls_the_box(table: tuple[Simulator, Page]) -> None:
    sim, page = table
    events = Events(page.port)
    assert page.act("/api/roll")[0] == 202
    # The server's thread has put the command on the box's queue; the box's loop takes it.
    sim.settle()
    assert sim.box.game.state.rounds == 1
    assert events.until(shown)["roll"] == [2, 4, 5]
    events.close()


def test_a_roll_command_does_not_move_the_box_s_menu() -> None:
    sim = make("2,4,5")
    sim.hold()
    assert sim.box.menu
    selected = sim.box.menu[-1].selected
    sim.box.post(RollCommand())
    sim.settle()
    assert sim.box.menu and sim.box.menu[-1].selected == selected
    assert sim.box.game.state.rounds == 0
    sim.close()


def test_a_new_game_command_closes_the_menu_and_starts_the_game() -> None:
    sim = make("2,4,5", tumble_ms=300)
    sim.press()
    sim.hold()
    sim.box.post(NewGameCommand("island", "solo"))
    sim.settle()
    assert not sim.box.menu
    assert sim.box.game.title.key == "island" and sim.box.game.state.mode.value == "solo"
    assert sim.box.game.state.rounds == 0
    snapshot = sim.box.publisher.latest
    assert snapshot is not None and snapshot.title == "island" and snapshot.mode == "solo"
    sim.close()


def test_a_box_with_the_web_enabled_serves_it_and_closes_it_with_itself() -> None:
    import dataclasses

    from pitable.config import DEFAULTS

    web = dataclasses.replace(DEFAULTS.web, enabled=True, bind="127.0.0.1", port=0, pin="")
    sim = make("3,3,3", config=dataclasses.replace(DEFAULTS, web=web))
    server = sim.built.web
    assert server is not None
    assert sim.box.web_url == f"http://127.0.0.1:{server.port}/"
    assert sim.box.web_pin is not None and re.fullmatch(r"\d{6}", sim.box.web_pin)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT_S)
    conn.request("POST", "/api/roll", headers={"X-Pitable-Pin": sim.box.web_pin})
    assert conn.getresponse().status == 202
    conn.close()
    sim.settle()
    assert sim.box.game.state.rounds == 1
    sim.close()
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", server.port), 1):
        pass


def test_a_script_s_wait_with_the_web_on_lets_the_page_act_meanwhile() -> None:
    sim = make("2,4,5", tumble_ms=300, real_waits=True)
    clock = sim.fake_clock
    assert clock is not None
    before = clock.now()
    sim.box.post(RollCommand())  # as the page's thread does while the script waits
    sim.do("wait400")
    assert clock.now() - before == pytest.approx(0.4)
    assert sim.box.game.state.rounds == 1
    latest = sim.box.publisher.latest
    assert latest is not None and not latest.rolling and latest.roll == [2, 4, 5]
    sim.close()


# --- the page's language -----------------------------------------------------------------


STATIC = Path(__file__).parent.parent / "pitable" / "web" / "static"


def test_the_page_speaks_the_boxs_language_and_follows_a_change(
    table: tuple[Simulator, Page],
) -> None:
    """``/api/state`` names the box's language, its title and the titles in it; the page's
    own words come in it from ``/api/words/<lang>``; a refused PIN is said in it."""
    sim, page = table
    sim.box.set_language("fr")  # type: ignore[attr-defined]
    sim.press()
    status, _, body = page.request("GET", "/api/state")
    state = json.loads(body)
    fr = translator("fr")
    assert status == 200 and state["lang"] == "fr"
    assert state["title_name"] == find_title("valley").display_name(fr) != "The Valley of Wiraqocha"
    assert {t["name"] for t in state["titles"]} == {t.display_name(fr) for t in all_titles()}
    status, _, body = page.request("GET", "/api/words/fr")
    words = json.loads(body)
    assert status == 200 and words["lang"] == "fr"
    assert words["words"] == {key: fr.gettext(m) for key, m in PAGE_WORDS.items()}
    assert words["words"]["new_game"] == fr.gettext("New game") != "New game"
    assert words["dice"]["purple"] == fr.gettext("purple") != "purple"
    status, answer = page.act("/api/roll", pin="0000")
    left = answer["tries_left"]
    assert status == 403 and answer["error"] == fr.ngettext(
        "a wrong PIN: {left} try left before a wait",
        "a wrong PIN: {left} tries left before a wait", left).format(left=left)
    assert "PIN" in answer["error"] and "wrong" not in answer["error"]
    # The box changes its language: the state says so at once.
    sim.box.set_language("es")  # type: ignore[attr-defined]
    state = json.loads(page.request("GET", "/api/state")[2])
    assert state["lang"] == "es"
    assert state["title_name"] == find_title("valley").display_name(translator("es"))


def test_a_language_the_box_lacks_is_a_404_naming_those_it_has(page: Page) -> None:
    status, _, body = page.request("GET", "/api/words/xx")
    assert status == 404
    assert "expected one of" in json.loads(body)["error"]


@pytest.mark.parametrize("html_name", list(PAGES))
def test_every_word_the_page_writes_is_one_of_its_messages(html_name: str) -> None:
    """The page's English (what it shows before the box's language is known) is the source
    of its messages, and every key it or the scripts it shares asks for has one: no word of
    the page escapes the catalogues."""
    script = (STATIC / PAGES[html_name]).read_text()
    html = (STATIC / html_name).read_text()
    english = english_defaults(script)
    assert english and english.items() <= PAGE_WORDS.items(), set(english.items()) - set(
        PAGE_WORDS.items())
    shared = "".join((STATIC / name).read_text() for name in SHARED_SCRIPTS)
    asked = set()
    for text in (script, shared):
        asked |= set(re.findall(r'say\("(\w+)"', text))
        asked |= set(re.findall(r'key: "(\w+)"', text))
    asked |= set(re.findall(r'data-word(?:-title|-label)?="(\w+)"', html))
    assert asked and asked <= set(english), asked - set(english)
    # The page's text outside those elements is the box's name alone (and on the table's
    # page, the PIN's field and the ROLL button's word, as on the box).
    visible = re.sub(r"<[^>]*>", " ", re.sub(r"<[^>]*data-word=[^>]*>[^<]*", " ", html))
    assert visible.split() == {"index.html": ["pitable", "pitable", "PIN", "ROLL"],
                               "play.html": ["pitable", "pitable"]}[html_name]


def test_every_word_is_shown_by_one_of_the_pages() -> None:
    """No message of PAGE_WORDS is left that no page shows."""
    shown: dict[str, str] = {}
    for script in PAGES.values():
        shown |= english_defaults((STATIC / script).read_text())
    assert shown == PAGE_WORDS
