"""The table's routes on the page: the hazard drawn on the sheet dealt, the table's pace and
ranking, paper players' stars, the box seated as a player; and what they refuse. A
simulated box with a session store rolls; the page is served on 127.0.0.1 and driven with
the standard library's HTTP client."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitable.box.box_players import BoxPlayers
from pitable.box.phones import PhoneTable
from pitable.box.players import PlayerBook
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.rules.session import MAX_PLAYERS
from pitable.rules.table import deal
from pitable.web.server import WebServer
from tests.support.box import make
from tests.support.entropy import Seeded
from tests.support.web import ANY_JSON, PIN, TIMEOUT_S


@dataclass
class Page:
    sim: Simulator
    server: WebServer
    store: SessionStore
    bots: BoxPlayers
    tokens: dict[str, str] = field(default_factory=dict)

    def call(self, method: str, path: str, body: Any = None, *,
             token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["X-Pitable-Player"] = token
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=TIMEOUT_S)
        try:
            conn.request(method, path, body=None if body is None else json.dumps(body),
                         headers=headers)
            response = conn.getresponse()
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
        finally:
            conn.close()

    def join(self, initials: str) -> str:
        status, answer = self.call("POST", "/api/players", {"initials": initials})
        assert status == 201, answer
        self.tokens[initials] = answer["token"]
        return answer["token"]

    def roll(self) -> None:
        self.sim.press()


def serve(tmp_path: Path, *rolls: str) -> Page:
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, mode="table", title="temple", store=store)
    source = Seeded(2)
    sim.box._deal = lambda ids: deal(ids, source)  # type: ignore[method-assign]
    phones = PhoneTable(store)
    bots = BoxPlayers(phones)
    server = WebServer("127.0.0.1", 0, PIN, sim.box.post, phones=phones, box_players=bots)
    server.start()
    sim.box.publisher.subscribe(server.publish)
    return Page(sim, server, store, bots)


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Page]:
    served = serve(tmp_path, "2,3,4", "1,2,*", "5,1,3", "3,3,1")
    yield served
    served.server.close()
    served.bots.close()
    served.sim.close()


def test_a_hazard_is_drawn_through_the_page_on_the_sheet_dealt(page: Page) -> None:
    for initials in ("AN", "BO"):
        page.join(initials)
    page.roll()
    page.roll()
    status, sheet = page.call("GET", "/api/sheet", token=page.tokens["AN"])
    assert status == 200 and sheet["deal"]["owner"] == "BO"
    where = sheet["deal"]["spaces"][0]
    status, answer = page.call("POST", "/api/hazard", {"cells": [where], "round": 2},
                               token=page.tokens["AN"])
    assert status == 200 and answer["deal"]["placed"] == where
    status, answer = page.call("POST", "/api/hazard", {"cells": [where], "round": 2},
                               token=page.tokens["AN"])
    assert status == 422 and answer["error"] == "you have drawn this roll's hazard already"
    status, owner = page.call("GET", "/api/sheet", token=page.tokens["BO"])
    assert owner["hazard_on_me"]["placed"] == where and owner["hazard_on_me"]["by"] == "AN"
    status, answer = page.call("POST", "/api/hazard", {"cells": [where]})
    assert status == 401


def test_the_table_says_the_pace_to_anyone(page: Page) -> None:
    token = page.join("AN")
    page.join("BO")
    page.roll()
    page.call("POST", "/api/done", token=token)
    status, table = page.call("GET", "/api/table")
    assert status == 200
    assert (table["players"], table["done"], table["writing"]) == (2, 1, ["BO"])
    assert table["ranking"] is None and table["tie_name"] == "Longest sequence"


def test_the_box_is_seated_as_a_player_by_a_player_of_the_game(page: Page) -> None:
    status, _ = page.call("POST", "/api/box-players", {"strength": "plan"})
    assert status == 401
    token = page.join("AN")
    status, answer = page.call("POST", "/api/box-players", {"strength": "wise"}, token=token)
    assert status == 400 and "strength" in answer["error"]
    status, answer = page.call("POST", "/api/box-players", {"strength": "plan"}, token=token)
    assert status == 201 and answer["initials"] == "ZA"
    assert answer["table"]["players"] == 2
    game = page.store.current_game()
    assert game is not None
    assert [(p.initials, p.bot) for p in PlayerBook(page.store).players(game.id)] == [
        ("AN", False), ("ZA", True)]


def test_paper_stars_wait_for_the_end_and_a_table_takes_a_hundred(page: Page) -> None:
    token = page.join("AN")
    page.roll()
    status, answer = page.call("POST", "/api/scores", {"initials": "PQ", "total": 30},
                               token=token)
    assert status == 409 and answer["error"] == "the stars are counted once the game has ended"
    game = page.store.current_game()
    assert game is not None
    page.store.end_game(game.id)
    status, answer = page.call("POST", "/api/scores", {"initials": "an", "total": 30},
                               token=token)
    assert status == 409
    status, answer = page.call("POST", "/api/scores", {"initials": "PQ", "total": "30"},
                               token=token)
    assert status == 400 and "\n" not in answer["error"]
    status, answer = page.call("POST", "/api/scores",
                               {"initials": "PQ", "total": 30, "tie": 4}, token=token)
    assert status == 200
    first = answer["table"]["ranking"][0]
    assert (first["initials"], first["paper"]) == ("PQ", True)
    book = PlayerBook(page.store)
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for k in range(MAX_PLAYERS - 2):
        book.add_paper_score(game.id, "X" + letters[k // 26] + letters[k % 26], 1)
    status, answer = page.call("POST", "/api/scores", {"initials": "QQQ", "total": 3},
                               token=token)
    assert status == 409 and answer["error"] == "the table is full"
    # Figures given again for one already in the ranking stand.
    status, answer = page.call("POST", "/api/scores", {"initials": "PQ", "total": 31},
                               token=token)
    assert status == 200


@pytest.fixture
def unlimited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Page]:
    from pitable.web import players

    for name in ("TOKEN_RATE", "TOKEN_BURST", "ADDRESS_RATE", "ADDRESS_BURST"):
        monkeypatch.setattr(players, name, 1e6)
    served = serve(tmp_path, "2,3,4", "1,2,*", "5,1,3")
    for initials in ("AN", "BO"):
        served.join(initials)
    served.roll()
    served.roll()
    yield served
    served.server.close()
    served.bots.close()
    served.sim.close()


_HAZARDS = st.fixed_dictionaries({}, optional={
    "cells": st.lists(st.lists(st.integers(-2, 12), max_size=3), max_size=3) | ANY_JSON,
    "round": st.integers(-1, 4) | ANY_JSON,
    "initials": st.text(max_size=5) | ANY_JSON,
    "total": st.integers(-2000, 2000) | ANY_JSON,
    "tie": st.integers(-2000, 2000) | ANY_JSON,
    "strength": st.sampled_from(["greedy", "plan", "deep", "x"]) | ANY_JSON,
})


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=_HAZARDS | ANY_JSON, route=st.sampled_from(["/api/hazard", "/api/scores"]))
def test_no_body_makes_the_table_s_routes_fail(unlimited: Page, body: Any, route: str) -> None:
    """Whatever a phone sends, the answer is the rules' or one line saying what is wrong:
    never a 500."""
    status, answer = unlimited.call("POST", route, body, token=unlimited.tokens["BO"])
    assert status < 500, answer
    if status >= 400 and answer is not None:
        assert "\n" not in answer["error"]
