"""A whole table game on phones in a real browser: Debian's headless Chromium, driven by
selenium, against a simulated box with a session store, its page and the box's own player,
on 127.0.0.1.

Three players join on the page and seat the box as a fourth from it; the box rolls until a
sheet ends the game, the box sees it and ends it at the press after the last round. At each
hazard roll every phone's page shows the sheet it was dealt, never its own, and the player
taps one of the spaces it offers; the owner's score changes. At the end the page's ranking
is each exported sheet scored as ``pitable score`` does, ordered with the title's
tie-break. The players' other moves go through the same API the page calls.
"""

from __future__ import annotations

import http.client
import itertools
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pitable.box.box_players import BoxPlayers
from pitable.box.phones import PhoneTable
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.rules.scoring import parse_sheet
from pitable.rules.table import deal
from pitable.rules.titles import find_title
from pitable.web.server import WebServer
from tests.support.box import make
from tests.support.browser import WAIT_S, chromium, need_chromium, wait_for
from tests.support.entropy import Seeded

pytestmark = pytest.mark.slow

PIN = "8642"
PHONES = ("AN", "BO", "CY")
#: Hazards drawn through the page in each game (the others through its API).
TAPPED = 2

need_chromium()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


@dataclass
class Table:
    sim: Simulator
    server: WebServer
    phones: PhoneTable
    bots: BoxPlayers
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"{self.server.url.rstrip('/')}/play"

    def call(self, method: str, path: str, token: str | None = None,
             body: Any = None) -> tuple[int, Any]:
        for _ in range(40):
            conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=WAIT_S)
            try:
                headers = {"Content-Type": "application/json"}
                if token is not None:
                    headers["X-Pitable-Player"] = token
                conn.request(method, path, body=None if body is None else json.dumps(body),
                             headers=headers)
                response = conn.getresponse()
                raw = response.read()
                if response.status == 429:
                    time.sleep(float(response.getheader("Retry-After") or 1))
                    continue
                text = raw.decode()
                return response.status, (json.loads(text) if path != "/api/sheet.txt"
                                         else text)
            finally:
                conn.close()
        raise AssertionError(f"{method} {path}: slowed down for too long")

    def sheet(self, initials: str) -> dict[str, Any]:
        status, sheet = self.call("GET", "/api/sheet", self.tokens[initials])
        assert status == 200, sheet
        return sheet

    def round(self) -> int:
        return self.sim.box.game.state.rounds


@pytest.fixture
def served(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Table]:
    title, seed = request.param
    dice = random.Random(seed)
    faces = ["1", "2", "3", "4", "5", "*"]
    rolls = [",".join(dice.choice(faces) for _ in range(3)) for _ in range(300)]
    # Two hazard rolls early, whatever the dice give after: a short game deals them too.
    rolls[2] = rolls[5] = "2,3,*"
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, tumble_ms=0, mode="table", title=title, store=store)
    source = Seeded(seed)
    sim.box._deal = lambda ids: deal(ids, source)  # type: ignore[method-assign]
    phones = PhoneTable(store)
    sim.box.pace = phones.pace
    phones.listen(sim.box.table_changed)
    bots = BoxPlayers(phones)
    server = WebServer("127.0.0.1", 0, PIN, sim.box.post, phones=phones, box_players=bots)
    server.start()
    sim.box.publisher.subscribe(server.publish)
    try:
        yield Table(sim, server, phones, bots)
    finally:
        server.close()
        bots.close()
        sim.close()


def as_phone(driver: Any, table: Table, initials: str | None) -> None:
    """The browser becomes ``initials``'s phone (None: a phone that has not joined)."""
    # A page of the box's origin that runs nothing (the phone's page would call the box
    # with the token it holds, and its answer could set the cookie again).
    driver.get(f"{table.server.url.rstrip('/')}/api/table")
    # Each phone its own: the page's token in its storage, and no other's cookie.
    driver.delete_all_cookies()
    token = table.tokens.get(initials) if initials else None
    if token:
        driver.execute_script("localStorage.setItem('pitable-player', arguments[0])", token)
    else:
        driver.execute_script("localStorage.removeItem('pitable-player')")
    driver.get(table.url)


def click(driver: Any, element: Any) -> None:
    """Tap ``element`` as a thumb does: scrolled to the middle of the screen first, out
    from under the bar of actions at its bottom."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def join(driver: Any, table: Table, initials: str) -> None:
    as_phone(driver, table, None)
    wait_for(driver, lambda: driver.find_element("id", "initials").is_displayed(),
             "the join form")
    driver.find_element("id", "initials").send_keys(initials)
    driver.find_element("css selector", "#join-form button[type=submit]").click()
    wait_for(driver, lambda: driver.find_elements("css selector", "#map [data-cell]"),
             "the sheet drawn")
    token = driver.execute_script("return localStorage.getItem('pitable-player')")
    assert isinstance(token, str) and token
    table.tokens[initials] = token


def first_move(sheet: dict[str, Any]) -> dict[str, Any] | None:
    for where, choices in sheet["choices"].items():
        for choice in choices:
            if choice["act"] != "hazard":
                r, c = (int(v) for v in where.split(","))
                return {"act": choice["act"], "cells": [[r, c]], "value": choice["value"],
                        "round": sheet["turn"]["round"]}
    return None


def roll(table: Table) -> None:
    """Press ROLL as a table does: once, and again when the box says some still write
    (the box's own player may still be thinking)."""
    before = table.round()
    for _ in range(int(WAIT_S / 0.05)):
        table.sim.press()
        if table.round() != before or table.sim.box.game.ended:
            return
        time.sleep(0.05)
    raise AssertionError(f"the box neither rolled nor ended: {table.sim.box.message}")


def tap_hazard(driver: Any, table: Table, initials: str) -> tuple[str, list[int]]:
    """On ``initials``'s phone, tap the first space the dealt sheet offers: the owner's
    initials and the space."""
    as_phone(driver, table, initials)
    wait_for(driver, lambda: driver.find_elements("css selector", "#deal-map .cell.can"),
             "the dealt sheet's spaces")
    heading = driver.find_element("id", "deal-say").text
    cell = driver.find_elements("css selector", "#deal-map .cell.can")[0]
    where = [int(v) for v in cell.get_attribute("data-cell").split(",")]
    click(driver, cell)
    wait_for(driver, lambda: not driver.find_elements("css selector", "#deal-map .cell.can"),
             "the hazard drawn")
    return heading, where


@pytest.mark.parametrize("served", [("valley", 7), ("island", 8), ("temple", 9)],
                         indirect=True)
def test_three_phones_and_the_box_play_a_table_game_to_its_end_and_read_the_ranking(
        browser: Any, served: Table) -> None:
    table = served
    for initials in PHONES:
        join(browser, table, initials)
    # The first phone seats the box as a player, from the page.
    as_phone(browser, table, PHONES[0])
    wait_for(browser, lambda: browser.find_element("id", "add-rival").is_displayed(),
             "the box-as-a-player button")
    click(browser, browser.find_element("id", "add-rival"))
    wait_for(browser, lambda: "ZA" in browser.find_element("id", "message").text,
             "the box seated")
    title = find_title(table.sim.box.game.title.key)
    hazards = tapped = 0
    while not table.sim.box.game.ended:
        roll(table)
        if table.sim.box.game.ended:
            break
        rnd = table.round()
        hazard = False
        for initials in PHONES:
            sheet = table.sheet(initials)
            dealt = sheet["deal"]
            if dealt is not None:
                hazard = True
                assert dealt["round"] == rnd
                # Never one's own, with another player on a phone at the table.
                assert dealt["owner"] != initials and not dealt["own"]
            if dealt is not None and dealt["spaces"] and dealt["placed"] is None:
                owner = dealt["owner"]
                owner_sheet = (table.sheet(owner) if owner in table.tokens else None)
                if tapped < TAPPED and owner in table.tokens:
                    heading, where = tap_hazard(browser, table, initials)
                    assert owner in heading
                    tapped += 1
                else:
                    where = dealt["spaces"][0]
                    status, answer = table.call("POST", "/api/hazard", table.tokens[initials],
                                                {"cells": [where], "round": rnd})
                    assert status == 200, answer
                # Legal on the dealt sheet: among the spaces the rules allow there.
                assert where in dealt["spaces"]
                if owner_sheet is not None:
                    after = table.sheet(owner)
                    r, c = where
                    assert after["cells"][r][c] != owner_sheet["cells"][r][c]
                    assert after["hazard_on_me"]["placed"] == where
                    assert after["score"]["total"] != owner_sheet["score"]["total"] or (
                        title.key != "temple")
            sheet = table.sheet(initials)
            move = first_move(sheet)
            if move is not None:
                status, answer = table.call("POST", "/api/moves", table.tokens[initials], move)
                assert status == 200, answer
            status, answer = table.call("POST", "/api/done", table.tokens[initials])
            assert status == 200, answer
        hazards += hazard
        assert rnd < 120, "the game never ended"
    assert hazards >= 2 and tapped == TAPPED
    table.phones.sync()
    # Every sheet exported, scored as `pitable score` does, with the tie-break.
    scored = {}
    for initials in PHONES:
        status, text = table.call("GET", "/api/sheet.txt", table.tokens[initials])
        assert status == 200
        sheet = parse_sheet(text)
        scored[initials] = (title.score(sheet).total, title.tie_break(sheet))
    for seat in table.phones.seats():
        if seat.player.bot:
            text, _name = table.phones.text(seat)
            sheet = parse_sheet(text)
            scored[seat.player.initials] = (title.score(sheet).total, title.tie_break(sheet))
    assert set(scored) == {*PHONES, "ZA"}
    assert len(set(table.tokens.values())) == len(PHONES)
    as_phone(browser, table, PHONES[1])
    wait_for(browser, lambda: browser.find_elements("css selector", "#ranking li"),
             "the ranking")
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#ranking li')]"
        ".map((li) => [li.dataset.place, li.dataset.initials, li.dataset.total])")
    assert {i: int(t) for _p, i, t in shown} == {i: s[0] for i, s in scored.items()}
    order = sorted(scored, key=lambda i: (-scored[i][0], -(scored[i][1] or 0)))
    places = {i: int(p) for p, i, _t in shown}
    for a, b in itertools.pairwise(order):
        if scored[a] == scored[b]:
            assert places[a] == places[b]
        else:
            assert places[a] < places[b]
    assert browser.find_element("css selector", "#ranking li.first").is_displayed()
    # Every finished sheet, the box's player's too, each drawn as its player filled it.
    wait_for(browser, lambda: len(browser.find_elements(
        "css selector", "#finished-sheets figure")) == len(scored), "every finished sheet")
    drawn = browser.execute_script(
        "return [...document.querySelectorAll('#finished-sheets figure')].map((f) =>"
        " [f.dataset.initials, f.querySelectorAll('[data-cell]').length])")
    assert {i for i, _ in drawn} == set(scored) and all(n > 0 for _, n in drawn)
