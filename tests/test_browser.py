"""The table's page in a real browser: Debian's headless Chromium, driven by selenium
through Debian's chromedriver (nothing is downloaded when the tests run).

The page is served by a simulated box on 127.0.0.1; ROLL is pressed through the page's API
with the PIN, and the browser must show the new faces and numbers. One screenshot per
title is compared with its golden by the share of pixels that differ, so that a font's
antialiasing on another build of Chromium does not fail it while a change of the page does.
The page must also come back by itself to a box that turned it away (a full room) or that
restarted, the way a phone left open on the table meets them.
"""

from __future__ import annotations

import dataclasses
import http.client
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pitable.box.events import RollCommand
from pitable.box.sim import Simulator
from pitable.config import PageLimits
from pitable.web.server import WebServer
from tests.conftest import GOLDEN
from tests.support.box import make
from tests.support.browser import (
    WAIT_S,
    assert_looks_like_golden,
    chromium,
    need_chromium,
    wait_for,
)

pytestmark = pytest.mark.slow

PIN = "8642"

need_chromium()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


@dataclasses.dataclass
class Table:
    sim: Simulator
    server: WebServer

    def roll_through_the_api(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=WAIT_S)
        conn.request("POST", "/api/roll", headers={"X-Pitable-Pin": PIN})
        assert conn.getresponse().status == 202
        conn.close()
        # The server's thread has queued the press; the box's loop (this thread) takes it.
        self.sim.settle()


def table(title: str, *rolls: str, port: int = 0, limits: PageLimits | None = None) -> Table:
    sim = make(*rolls, tumble_ms=300, title=title)
    server = WebServer("127.0.0.1", port, PIN, sim.box.post, limits=limits)
    server.start()
    sim.box.publisher.subscribe(server.publish)
    return Table(sim, server)


def faces(browser: Any) -> list[str]:
    return [browser.find_element("id", f"die-{die}").get_attribute("data-face")
            for die in ("green", "purple", "red")]


def text_of(browser: Any, element_id: str) -> str:
    return str(browser.find_element("id", element_id).text)


def test_a_roll_pressed_through_the_api_appears_on_the_page(browser: Any) -> None:
    served = table("valley", "2,4,5", "1,3,3")
    try:
        browser.get(served.server.url)
        wait_for(browser, lambda: text_of(browser, "title") == "The Valley of Wiraqocha",
                 "the page drew the box's first snapshot")
        assert faces(browser) == ["", "", ""]
        served.roll_through_the_api()
        wait_for(browser, lambda: faces(browser) == ["2", "4", "5"], "the faces 2 4 5")
        latest = served.sim.box.publisher.latest
        assert latest is not None
        assert text_of(browser, "numbers") == " ".join(str(n) for n in latest.to_json()["numbers"])
        assert text_of(browser, "words").splitlines()[0] == latest.words[0]
        served.roll_through_the_api()
        wait_for(browser, lambda: faces(browser) == ["1", "3", "3"], "the second roll")
        recent = browser.find_elements("css selector", "#recent li")
        assert [li.text.split() for li in recent] == [["1", "3", "3"], ["2", "4", "5"]]
        assert "live" in text_of(browser, "link")
    finally:
        served.server.close()
        served.sim.close()


def test_the_page_s_own_roll_button_needs_the_pin(browser: Any) -> None:
    served = table("island", "3,3,1")
    try:
        browser.get(served.server.url)
        wait_for(browser, lambda: text_of(browser, "title") == "Skull Island", "the page")
        browser.find_element("css selector", "#actions summary").click()
        browser.find_element("id", "pin").send_keys("0000")
        browser.find_element("id", "roll").click()
        wait_for(browser, lambda: "PIN" in text_of(browser, "answer"), "the refusal")
        # The server's own words, with the tries the player has left before a wait.
        assert re.search(r"\b\d+ tr(?:y|ies) left\b", text_of(browser, "answer"))
        assert served.sim.box.events.qsize() == 0
        pin = browser.find_element("id", "pin")
        pin.clear()
        pin.send_keys(PIN)
        browser.find_element("id", "roll").click()
        wait_for(browser, lambda: served.sim.box.events.qsize() > 0, "the roll queued")
        served.sim.settle()
        wait_for(browser, lambda: faces(browser) == ["3", "3", "1"], "the faces 3 3 1")
        assert text_of(browser, "answer") == ""
    finally:
        served.server.close()
        served.sim.close()


def hold_a_stream(port: int, address: str) -> http.client.HTTPConnection:
    """An event stream held open from ``address`` (another loopback address: another
    client to the page's budgets), as a phone at the table holds one."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S,
                                      source_address=(address, 0))
    conn.request("GET", "/api/events")
    # The answer's headers come once the hub has counted the stream.
    assert conn.getresponse().status == 200
    return conn


def test_a_page_turned_away_by_a_full_room_comes_back_by_itself(browser: Any) -> None:
    # Two streams in all, each held by a client of its own: the browser, holding none,
    # may take neither's place and is answered 503.
    served = table("valley", "2,4,5", limits=PageLimits(listeners=2))
    fillers = [hold_a_stream(served.server.port, address)
               for address in ("127.0.0.2", "127.0.0.3")]
    try:
        browser.get(served.server.url)
        wait_for(browser, lambda: text_of(browser, "link") == "reconnecting",
                 "the page saying it is not connected")
        served.roll_through_the_api()
        for conn in fillers:
            conn.close()
        wait_for(browser, lambda: text_of(browser, "link") == "live", "the page live again")
        wait_for(browser, lambda: faces(browser) == ["2", "4", "5"],
                 "the roll made while the page was away")
    finally:
        for conn in fillers:
            conn.close()
        served.server.close()
        served.sim.close()


def test_a_restarted_box_s_game_replaces_the_one_an_open_page_shows(browser: Any) -> None:
    first = table("valley", "2,4,5", "1,3,3", "5,5,2")
    second: Table | None = None
    try:
        browser.get(first.server.url)
        for roll in ("2,4,5", "1,3,3", "5,5,2"):
            first.roll_through_the_api()
            wait_for(browser, lambda roll=roll: faces(browser) == roll.split(","), roll)
        seq_before = int(browser.find_element("id", "table").get_attribute("data-seq"))
        port = first.server.port
        first.server.close()
        first.sim.close()
        wait_for(browser, lambda: text_of(browser, "link") == "reconnecting",
                 "the page saying the box went away")
        # The box starts again, its events numbered from 1 again, and rolls once before it
        # serves the page on the same port: the page's first event from it is that roll's,
        # numbered below the one it shows (and not 1).
        sim = make("3,1,2", tumble_ms=300, title="valley")
        sim.box.post(RollCommand())
        sim.settle()
        server = WebServer("127.0.0.1", port, PIN, sim.box.post)
        second = Table(sim, server)
        server.start()
        sim.box.publisher.subscribe(server.publish)
        wait_for(browser, lambda: faces(browser) == ["3", "1", "2"], "the new box's roll")
        assert text_of(browser, "link") == "live"
        assert [li.text.split() for li in browser.find_elements("css selector", "#recent li")] \
            == [["3", "1", "2"]]
        assert 1 < int(browser.find_element("id", "table").get_attribute("data-seq")) < seq_before
    finally:
        first.server.close()
        first.sim.close()
        if second is not None:
            second.server.close()
            second.sim.close()


def test_on_an_upright_phone_the_dice_are_large_and_the_words_fit_the_screen(
    browser: Any,
) -> None:
    # The temple's hazard has the longest words of the three titles.
    served = table("temple", "1,5,*")
    try:
        browser.get(served.server.url)
        served.roll_through_the_api()
        wait_for(browser, lambda: faces(browser) == ["1", "5", "*"], "the faces 1 5 *")
        wait_for(browser, lambda: browser.execute_script(
            "return document.fonts.status") == "loaded", "the fonts")
        width, height = browser.execute_script(
            "return [window.innerWidth, window.innerHeight]")
        for die in ("green", "purple", "red"):
            side = browser.find_element("id", f"die-{die}").rect["width"]
            assert side >= 0.4 * width, f"the {die} die is {side} px on a {width} px screen"
        words = browser.find_element("id", "words").rect
        assert words["y"] + words["height"] <= height, "the words run off the first screen"
        size = "return parseFloat(getComputedStyle(document.querySelector(arguments[0])).fontSize)"
        assert browser.execute_script(size, "#game") >= browser.execute_script(
            size, "#words p:last-child")
    finally:
        served.server.close()
        served.sim.close()


#: A roll per title that shows one of its special faces.
SHOWN_ROLLS = {"valley": "*,3,5", "island": "2,*,4", "temple": "1,5,*"}


@pytest.mark.parametrize("title", list(SHOWN_ROLLS))
def test_the_page_after_a_roll_looks_as_it_did(browser: Any, title: str,
                                               tmp_path: Path) -> None:
    roll = SHOWN_ROLLS[title]
    served = table(title, roll)
    try:
        browser.get(served.server.url)
        wait_for(browser, lambda: browser.find_element("id", "table").get_attribute("data-seq")
                 != "0", "the first snapshot")
        served.roll_through_the_api()
        wait_for(browser, lambda: faces(browser) == roll.split(","), f"the faces {roll}")
        # The fonts are the box's own, loaded from it: wait for them before the picture.
        wait_for(browser, lambda: browser.execute_script(
            "return document.fonts.status") == "loaded", "the fonts")
        png = browser.get_screenshot_as_png()
        path = tmp_path / f"pitable-web-{title}.png"
        path.write_bytes(png)
        with Image.open(path) as shot:
            assert_looks_like_golden(shot.convert("RGB"), GOLDEN / "web" / f"{title}.png")
    finally:
        served.server.close()
        served.sim.close()


def test_the_page_speaks_the_box_s_language_and_follows_a_change(browser: Any) -> None:
    """The page's own words, <html lang>, the title and the new-game list come in the box's
    language, and follow the box when its menu changes it; no English is left."""
    from pitable.i18n import translator
    from tests.support.i18n import english_in

    served = table("valley", "2,4,5", "1,3,3")
    try:
        served.sim.box.set_language("fr")
        served.sim.settle()
        fr = translator("fr")
        browser.get(served.server.url)
        french_title = served.sim.box.game.title.display_name(fr)
        wait_for(browser, lambda: text_of(browser, "title") == french_title, "the French title")
        wait_for(browser, lambda: browser.find_element("tag name", "html").get_attribute("lang")
                 == "fr", "<html lang=fr>")
        served.roll_through_the_api()
        wait_for(browser, lambda: faces(browser) == ["2", "4", "5"], "the faces 2 4 5")
        shown = browser.find_element("tag name", "body").get_attribute("innerText")
        assert fr.gettext("Last rolls") in shown and fr.gettext("Roll from here") in shown
        assert english_in(shown.splitlines(), "fr") == []
        served.sim.box.set_language("es")
        served.roll_through_the_api()
        es = translator("es")
        wait_for(browser, lambda: browser.find_element("tag name", "html").get_attribute("lang")
                 == "es", "<html lang=es>")
        wait_for(browser, lambda: es.gettext("Last rolls") in browser.find_element(
            "tag name", "body").get_attribute("innerText"), "the Spanish words")
        shown = browser.find_element("tag name", "body").get_attribute("innerText")
        assert english_in(shown.splitlines(), "es") == []
    finally:
        served.server.close()
        served.sim.close()
