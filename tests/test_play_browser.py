"""The phone's sheet (/play) in a real browser: Debian's headless Chromium on a phone's
viewport, driven by selenium, against a simulated box with a session store on 127.0.0.1.

A player joins by initials, taps a space the box offers, chooses what goes in it, says the
turn is done and reads the score the box counts; the next roll reaches the page by itself;
a move the rules refuse, posted by hand, is answered with the rule in the page's words.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pitable.box.phones import PhoneTable
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.web.players import TOKEN_RATE
from pitable.web.server import WebServer
from tests.support.box import make
from tests.support.browser import WAIT_S, chromium, need_chromium, wait_for

pytestmark = pytest.mark.slow

PIN = "8642"

need_chromium()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


@dataclass
class Table:
    sim: Simulator
    server: WebServer

    @property
    def url(self) -> str:
        return f"{self.server.url.rstrip('/')}/play"

    def call(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=WAIT_S)
        try:
            conn.request(method, path, body=None if body is None else json.dumps(body),
                         headers={"X-Pitable-Player": token,
                                  "Content-Type": "application/json"})
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()


@pytest.fixture
def served(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Table]:
    title, *rolls = request.param
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, tumble_ms=0, mode="solo", title=title, store=store)
    server = WebServer("127.0.0.1", 0, PIN, sim.box.post, phones=PhoneTable(store))
    server.start()
    sim.box.publisher.subscribe(server.publish)
    try:
        yield Table(sim, server)
    finally:
        server.close()
        sim.close()


def join(driver: Any, table: Table, initials: str = "AB") -> str:
    """Joins on the page; the player's token, as the page keeps it."""
    driver.get(table.url)
    wait_for(driver, lambda: driver.find_element("id", "initials").is_displayed(),
             "the join form")
    driver.find_element("id", "initials").send_keys(initials)
    driver.find_element("css selector", "#join-form button[type=submit]").click()
    wait_for(driver, lambda: driver.find_elements("css selector", "#map [data-cell]"),
             "the sheet drawn")
    token = driver.execute_script("return localStorage.getItem('pitable-player')")
    assert isinstance(token, str) and token
    return token


def tokens_of(driver: Any) -> dict[str, str]:
    """Each cell's token as the page draws it (read at once: the map may be redrawn)."""
    return dict(driver.execute_script(
        "return [...document.querySelectorAll('#map [data-cell]')]"
        ".map((g) => [g.dataset.cell, g.dataset.token])"))


def server_tokens(sheet: dict[str, Any]) -> dict[str, str]:
    return {f"{r},{c}": token for r, row in enumerate(sheet["cells"])
            for c, token in enumerate(row) if token != "#"}


@pytest.mark.parametrize("served", [("temple", "2,3,4", "1,2,2", "5,1,3")], indirect=True)
def test_a_player_joins_taps_a_space_chooses_says_done_and_reads_the_score(
    browser: Any, served: Table,
) -> None:
    served.sim.press()
    token = join(browser, served)
    status, sheet = served.call("GET", "/api/sheet", token)
    assert status == 200 and tokens_of(browser) == server_tokens(sheet)
    offered = browser.find_elements("css selector", "#map .cell.can")
    assert {c.get_attribute("data-cell") for c in offered} == set(sheet["choices"])
    # Every space a fingertip wide on an upright phone.
    assert min(c.rect["width"] for c in offered) >= 32
    cell = offered[0]
    where = cell.get_attribute("data-cell")
    cell.click()
    buttons = browser.find_elements("css selector", "#choices button[data-act]")
    wait_for(browser, buttons[0].is_displayed, "the chooser")
    assert [b.text for b in buttons] == [c["label"] for c in sheet["choices"][where]]
    choice = sheet["choices"][where][0]
    buttons[0].click()
    wait_for(browser, lambda: tokens_of(browser)[where] != server_tokens(sheet)[where],
             "the move drawn")
    status, after = served.call("GET", "/api/sheet", token)
    assert tokens_of(browser) == server_tokens(after)
    assert server_tokens(after)[where].endswith(str(choice["value"]))
    assert [m["label"] for m in after["turn"]["moves"]] == [choice["label"]]
    r, c = (int(n) for n in where.split(","))
    aria = browser.find_element("css selector", f'[data-cell="{where}"]').get_attribute(
        "aria-label")
    assert aria == f"row {r + 1}, column {c + 1}: {choice['value']}"
    browser.find_element("id", "done").click()
    if after["turn"]["warnings"]:
        wait_for(browser, lambda: browser.find_element("id", "done-anyway").is_displayed(),
                 "the warnings and Done anyway")
        browser.find_element("id", "done-anyway").click()
    wait_for(browser, lambda: not browser.find_element("id", "done").is_enabled(),
             "the turn done")
    status, finished = served.call("GET", "/api/sheet", token)
    assert finished["turn"]["done"]
    assert browser.find_element("id", "score-total").text == str(finished["score"]["total"])
    # The next roll reaches the page by itself: a new turn to play.
    served.sim.press()
    wait_for(browser, lambda: browser.find_element("id", "done").is_enabled(), "the next turn")
    faces = [f.get_attribute("data-face") for f in browser.find_elements(
        "css selector", "#faces .die")]
    status, now = served.call("GET", "/api/sheet", token)
    assert faces == now["turn"]["faces"] and now["turn"]["round"] == 2


@pytest.mark.parametrize("served", [("valley", "2,3,4")], indirect=True)
def test_a_move_the_rules_refuse_is_answered_with_the_rule(
    browser: Any, served: Table,
) -> None:
    served.sim.press()
    token = join(browser, served, "CD")
    # A number the roll does not give, posted by hand through the page's own call.
    body = {"act": "write", "cells": [[0, 0]], "value": 15}
    status, refused = served.call("POST", "/api/moves", token, body)
    assert status == 422 and refused["error"]
    browser.execute_script("move('write', [[0, 0]], 15)")
    wait_for(browser, lambda: browser.find_element("id", "message").text == refused["error"],
             "the rule said")
    assert tokens_of(browser) == server_tokens(refused["sheet"])


def _rolls(seed: int, count: int = 120) -> tuple[str, ...]:
    import random

    rng = random.Random(seed)
    return tuple(",".join(str(rng.choice([1, 2, 3, 4, 5, "*"])) for _ in range(3))
                 for _ in range(count))


def tap(driver: Any, selector: str) -> None:
    """Click what ``selector`` finds, found again if the page redrew it meanwhile (a sheet
    that arrives between finding and clicking replaces the map's cells)."""
    from selenium.common.exceptions import StaleElementReferenceException

    def click() -> None:
        found = driver.find_element("css selector", selector)
        # In the middle of the screen, as a finger scrolls to it: not under the bar of
        # actions that stays at the bottom.
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", found)
        found.click()

    for _ in range(5):
        try:
            click()
            return
        except StaleElementReferenceException:
            continue
    click()


def tap_move(driver: Any, table: Table, token: str, action: Any, made: int) -> None:
    """Make ``action`` by the page's taps: its space, then its choice; a discovery's
    button, then each of its spaces. Waits until the box has it as move ``made + 1``."""
    value = "" if action.value is None else str(action.value)
    if len(action.cells) == 1:
        (r, c), = action.cells
        tap(driver, f'[data-cell="{r},{c}"]')
        pick = f'#choices button[data-act="{action.act.value}"][data-value="{value}"]'
        wait_for(driver, lambda: driver.execute_script(
            "const b = document.querySelector(arguments[0]);"
            " return Boolean(b && b.offsetParent !== null);", pick), "the chooser")
        tap(driver, pick)
    else:
        group = (f'button[data-group-act="{action.act.value}"]'
                 f'[data-group-value="{value}"]')
        wait_for(driver, lambda: driver.find_elements("css selector", group), "the group")
        tap(driver, group)
        for r, c in action.cells:
            tap(driver, f'[data-cell="{r},{c}"]')

    def made_it() -> bool:
        status, sheet = table.call("GET", "/api/sheet", token)
        return status == 200 and len(sheet["turn"]["moves"]) == made + 1

    wait_for(driver, made_it, f"{action} made")


@pytest.mark.parametrize("served", [
    ("valley", *_rolls(1)), ("island", *_rolls(2)), ("temple", *_rolls(3))],
    indirect=True, ids=["valley", "island", "temple"])
def test_a_whole_solo_game_is_played_by_taps_and_scores_as_pitable_score_counts(
    browser: Any, served: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    from pitable.cli import main
    from pitable.rules import find_title
    from pitable.rules.dice import Roll
    from pitable.rules.sheets import Side, generate

    served.sim.press()
    token = join(browser, served)
    _, sheet = served.call("GET", "/api/sheet", token)
    game = sheet["game"]
    title = find_title(game["title"])
    bot = title.bot()
    assert bot is not None
    paper = generate(title, game["seed"], Side.from_str(game["side"]), game["format"])
    player = bot.player(title, paper)
    while True:
        turn = sheet["turn"]
        options = title.options(Roll.from_str(",".join(turn["faces"])), turn["hazards_marked"])
        for made, action in enumerate(player.turn(options, turn["round"])):
            tap_move(browser, served, token, action, made)
        tap(browser, "#done")
        _, sheet = served.call("GET", "/api/sheet", token)
        if sheet["turn"]["warnings"]:
            wait_for(browser, lambda: browser.find_element("id", "done-anyway").is_displayed(),
                     "Done anyway")
            tap(browser, "#done-anyway")
        wait_for(browser, lambda: served.call("GET", "/api/sheet", token)[1]["turn"]["done"],
                 "the turn done")
        _, sheet = served.call("GET", "/api/sheet", token)
        if sheet["over"]:
            break
        round_ = sheet["turn"]["round"]
        served.sim.press()
        wait_for(browser, lambda: browser.find_element("id", "done").is_enabled(),
                 "the next turn on the page")
        _, sheet = served.call("GET", "/api/sheet", token)
        assert sheet["turn"]["round"] == round_ + 1
    total = sheet["score"]["total"]
    assert total == sum(stars for _, stars in player.components())
    wait_for(browser, lambda: browser.find_element("id", "score-total").text == str(total),
             "the page's total")
    conn = http.client.HTTPConnection("127.0.0.1", served.server.port, timeout=WAIT_S)
    conn.request("GET", "/api/sheet.txt", headers={"X-Pitable-Player": token})
    exported = tmp_path / "sheet.txt"
    exported.write_bytes(conn.getresponse().read())
    conn.close()
    capsys.readouterr()
    assert main(["score", title.key, "--sheet", str(exported), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == total
    # The finished sheet offers the printer: this box has none, and the page says so.
    wait_for(browser, lambda: browser.find_element("id", "print").is_displayed(),
             "the print button of a finished sheet")
    status, refused = served.call("POST", "/api/print", token)
    assert status == 409
    tap(browser, "#print")
    wait_for(browser, lambda: browser.find_element("id", "message").text == refused["error"],
             "the box's answer to printing")


#: The README's pictures of a phone's sheet, one per title.
DOCS = Path(__file__).resolve().parent.parent / "docs" / "phone"
#: Rounds played before the picture: a sheet well under way.
SHOWN_ROUNDS = 9


@pytest.mark.parametrize("served", [
    ("valley", *_rolls(11)), ("island", *_rolls(12)), ("temple", *_rolls(13))],
    indirect=True, ids=["valley", "island", "temple"])
def test_the_phone_s_sheet_looks_as_the_readme_shows_it(
    browser: Any, served: Table, tmp_path: Path,
) -> None:
    from PIL import Image

    from pitable.rules import find_title
    from pitable.rules.dice import Roll
    from pitable.rules.sheets import Side, generate
    from tests.support.browser import assert_looks_like_golden

    served.sim.press()
    token = join(browser, served, "ANN")
    _, sheet = served.call("GET", "/api/sheet", token)
    game = sheet["game"]
    title = find_title(game["title"])
    bot = title.bot()
    assert bot is not None
    player = bot.player(title, generate(title, game["seed"], Side.from_str(game["side"]),
                                        game["format"]))
    for round_ in range(1, SHOWN_ROUNDS + 1):
        turn = sheet["turn"]
        options = title.options(Roll.from_str(",".join(turn["faces"])), turn["hazards_marked"])
        for action in player.turn(options, round_):
            status, _ = served.call("POST", "/api/moves", token, {
                "act": action.act.value, "cells": [list(c) for c in action.cells],
                "value": action.value})
            assert status == 200
            time.sleep(1 / TOKEN_RATE)  # a player's pace: the page limits each token's
        if round_ < SHOWN_ROUNDS:
            served.call("POST", "/api/done", token)
            time.sleep(1 / TOKEN_RATE)
            served.sim.press()
        _, sheet = served.call("GET", "/api/sheet", token)
    # The moves were posted beside the page: it shows them once opened again.
    browser.refresh()
    wait_for(browser, lambda: tokens_of(browser) == server_tokens(sheet)
             and browser.find_element("id", "score-total").text
             == str(sheet["score"]["total"]), "the sheet as the box has it")
    wait_for(browser, lambda: browser.execute_script("return document.fonts.status")
             == "loaded", "the fonts")
    path = tmp_path / f"phone-{title.key}.png"
    path.write_bytes(browser.get_screenshot_as_png())
    with Image.open(path) as shot:
        assert_looks_like_golden(shot.convert("RGB"), DOCS / f"{title.key}.png")
