"""A player's sheet, filled in on their phone, printed on the box's printer: chosen by
initials in the box's menu, or asked from the phone (``POST /api/print``, once a minute at
most), and queued by the box's loop alone. A simulated box with a session store and the
fake printer; the page on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from pitable.box.phones import PhoneTable, stored_seat
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.hw.fake_printer import FakePrinter
from pitable.render.sheet import Filled, render_sheet
from pitable.web.server import WebServer
from tests.support.box import fake_printer, make
from tests.support.web import PIN, TIMEOUT_S

ROLLS = ("2,3,4", "1,2,2", "5,1,3", "3,3,1")


@dataclass
class Table:
    sim: Simulator
    store: SessionStore
    phones: PhoneTable
    paper: FakePrinter

    def play(self, token: str) -> None:
        """Roll, and the player of ``token`` makes the first move offered and is done."""
        self.sim.press()
        seat = self.phones.seat(token)
        action = seat.sheet.legal()[0]
        self.phones.move(token, {"act": action.act.value,
                                 "cells": [list(c) for c in action.cells],
                                 "value": action.value})
        self.phones.done(token)

    def expected(self, token: str) -> Image.Image:
        """The player's sheet as it should print: drawn from the store, filled in."""
        seat = self.phones.seat(token)
        again = stored_seat(self.store, seat.game.id, seat.player.id)
        score = again.sheet.score()
        filled = Filled(again.sheet.tokens(), score.components, score.total,
                        again.player.initials)
        assert again.sheet.tokens() == seat.sheet.tokens()
        return render_sheet(again.sheet.sheet, self.sim.box.printer.settings.dots,  # type: ignore[union-attr]
                            solo=again.sheet.solo, filled=filled)

    def printed(self, expected: Image.Image) -> bool:
        out = self.paper.printouts()[-1].convert("1")
        top = out.crop((0, 0, expected.width, expected.height))
        return ImageChops.logical_xor(top, expected.convert("1")).getbbox() is None


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    store = SessionStore.open(tmp_path)
    printer, paper = fake_printer()
    sim = make(*ROLLS, mode="table", title="temple", store=store, printer=printer)
    yield Table(sim, store, PhoneTable(store), paper)
    sim.close()


def _choose(sim: Simulator, label: str) -> None:
    labels = [text for text, _ in sim.box.menu[-1].items]
    assert label in labels, labels
    sim.turn(labels.index(label) - sim.box.menu[-1].selected)
    sim.push()


def test_the_menu_prints_the_sheet_of_the_player_chosen_by_initials(table: Table) -> None:
    ab, _, _ = table.phones.join("AB")
    cd, _, _ = table.phones.join("CD")
    table.play(ab)
    table.play(cd)
    table.play(cd)
    table.sim.hold()
    _choose(table.sim, "Print a player's sheet")
    assert table.sim.box.view().menu is not None
    assert [label for label, _ in table.sim.box.menu[-1].items] == ["AB", "CD", "Back"]
    _choose(table.sim, "CD")
    table.sim.wait_for_prints()
    assert table.sim.box.view().message == "Printed: sheet of CD"
    assert table.printed(table.expected(cd))
    # CD's sheet, not AB's: they hold different moves.
    assert not table.printed(table.expected(ab))
    assert not table.paper.overran


def test_the_menu_offers_no_players_sheet_where_nobody_plays_on_a_phone(table: Table) -> None:
    table.sim.press()
    table.sim.hold()
    assert "Print a player's sheet" not in [label for label, _ in table.sim.box.menu[-1].items]


@dataclass
class Served:
    table: Table
    server: WebServer

    def call(self, path: str, *, token: str | None = None) -> tuple[int, Any, dict[str, str]]:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["X-Pitable-Player"] = token
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=TIMEOUT_S)
        try:
            conn.request("POST", path, body=b"", headers=headers)
            response = conn.getresponse()
            raw = response.read()
            return response.status, json.loads(raw) if raw else None, dict(response.getheaders())
        finally:
            conn.close()


@pytest.fixture
def served(table: Table) -> Iterator[Served]:
    server = WebServer("127.0.0.1", 0, PIN, table.sim.box.post, phones=table.phones,
                       prints=True)
    server.start()
    yield Served(table, server)
    server.close()


def test_a_phone_prints_its_own_sheet_once_a_minute(served: Served) -> None:
    table = served.table
    token, _, _ = table.phones.join("EF")
    other, _, _ = table.phones.join("GH")
    table.play(token)
    status, answer, _ = served.call("/api/print", token=token)
    assert status == 202 and answer == {"queued": "print"}
    # The box's loop takes the command and queues the print; the page never prints.
    assert table.paper.printouts() == []
    table.sim.settle()
    table.sim.wait_for_prints()
    assert table.sim.box.view().message == "Printed: sheet of EF"
    assert table.printed(table.expected(token))
    # Asked again within the minute: one clear line, and when to ask again.
    status, refused, headers = served.call("/api/print", token=token)
    assert status == 429
    assert "a minute" in refused["error"] and "\n" not in refused["error"]
    assert 1 <= int(headers["retry-after"]) <= 60
    # Another player's sheet is a sheet of its own.
    assert served.call("/api/print", token=other)[0] == 202


def test_printing_needs_a_players_token(served: Served) -> None:
    status, refused, _ = served.call("/api/print")
    assert status == 401 and refused["error"]
    status, refused, _ = served.call("/api/print", token="not-a-token")
    assert status == 401 and refused["error"]
    served.table.sim.settle()
    assert served.table.paper.printouts() == []


def test_a_box_without_a_printer_says_so(table: Table) -> None:
    server = WebServer("127.0.0.1", 0, PIN, table.sim.box.post, phones=table.phones)
    server.start()
    try:
        token, _, _ = table.phones.join("IJ")
        status, refused, _ = Served(table, server).call("/api/print", token=token)
        assert status == 409 and "printer" in refused["error"]
    finally:
        server.close()
