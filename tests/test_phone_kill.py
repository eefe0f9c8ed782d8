"""The phones' kill test: the box killed with SIGKILL while five phones post their moves
through its page, again and again: no move the page acknowledged is ever missing from the
store, and every phone picks up where it was when the box is back.

tests/phone_box_driver.py is the box (its page on 127.0.0.1, a roll every 0.4 s, a
new game when the sheets are full). Five phones, threads of this test, each take the first
move their sheet offers and post it, or say done when none is left, as fast as the page
answers; a move is acknowledged when its answer (200) has arrived. The box is killed at a
random moment, 0.05 to 0.6 s after the phones started; the store is then read as the
killed box left it, and every acknowledged move must be there. The next box must give each
phone its sheet back (its token is its sheet), with every acknowledged move of its game.

The everyday run kills once; the slow run (``scripts/test --all``, as in CI) 200 times.
PITABLE_KILLS overrides both.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pitable.box.players import PlayerBook
from pitable.box.store import SessionStore

DRIVER = Path(__file__).with_name("phone_box_driver.py")
QUICK_KILLS = 1
SLOW_KILLS = 200
OVERRIDE = os.environ.get("PITABLE_KILLS")
SEATS = ("AN", "BO", "CY", "DI", "EV")
CALL_S = 5.0

#: A move as acknowledged: (round, act, cells, value).
Move = tuple[int, str, tuple[tuple[int, int], ...], Any]


@dataclass
class Phone:
    """One phone: its initials, its token (None before it joined a game), and the moves the
    page acknowledged, by the token they were made with."""

    initials: str
    #: The loopback address it calls from: a phone of its own, with its own limits.
    source: str = "127.0.0.1"
    token: str | None = None
    acknowledged: dict[str, list[Move]] = field(default_factory=dict)

    def call(self, port: int, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=CALL_S,
                                          source_address=(self.source, 0))
        headers = {"Content-Type": "application/json"}
        if self.token is not None:
            headers["X-Pitable-Player"] = self.token
        try:
            conn.request(method, path, body=json.dumps(body).encode() if body else None,
                         headers=headers)
            response = conn.getresponse()
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
        finally:
            conn.close()

    def play(self, port: int, stop: threading.Event) -> None:
        """Post moves until ``stop`` or until the box is gone."""
        try:
            while not stop.is_set():
                status, sheet = self.call(port, "GET", "/api/sheet")
                if status == 429:
                    stop.wait(0.2)  # as the page does: wait, then ask again
                    continue
                if status == 401 or (status == 200 and sheet["game"]["ended"]):
                    self.token = None
                    status, joined = self.call(port, "POST", "/api/players",
                                               {"initials": self.initials})
                    if status in (200, 201):
                        self.token = joined["token"]
                    continue
                if status != 200 or sheet["turn"] is None:
                    continue
                if not sheet["choices"] or sheet["turn"]["done"]:
                    if not sheet["turn"]["done"]:
                        self.call(port, "POST", "/api/done")
                    continue
                where, choices = next(iter(sheet["choices"].items()))
                cell = tuple(int(v) for v in where.split(","))
                move = {"act": choices[0]["act"], "cells": [list(cell)],
                        "value": choices[0]["value"], "round": sheet["turn"]["round"]}
                token = self.token
                status, _ = self.call(port, "POST", "/api/moves", move)
                if status == 200 and token is not None:
                    self.acknowledged.setdefault(token, []).append(
                        (move["round"], move["act"], (cell,), move["value"]))
        except (OSError, http.client.HTTPException, ValueError):
            return  # the box is gone


def start_box(directory: Path) -> tuple[subprocess.Popen[str], int]:
    child = subprocess.Popen([sys.executable, str(DRIVER), str(directory)],
                             stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).parent.parent)
    assert child.stdout is not None
    line = child.stdout.readline().split()
    assert line and line[0] == "port", f"the box did not start: {line}"
    return child, int(line[1])


def check_every_acknowledged_move_is_stored(directory: Path, phones: list[Phone]) -> None:
    with SessionStore.open_read_only(directory) as store:
        book = PlayerBook(store)
        for phone in phones:
            for token, moves in phone.acknowledged.items():
                player = book.player_by_token(token)
                assert player is not None, f"{phone.initials}: a player who moved is gone"
                stored = {(m.round, m.act, m.cells, m.value) for m in book.moves(player.id)}
                lost = [m for m in moves if m not in stored]
                assert not lost, f"{phone.initials}: acknowledged but not stored: {lost[:5]}"


def check_every_phone_resumes(port: int, phones: list[Phone]) -> None:
    for phone in phones:
        if phone.token is None:
            continue
        status, sheet = phone.call(port, "GET", "/api/sheet")
        assert status == 200, f"{phone.initials}: the box restarted does not know its phone"
        for r, act, ((row, col),), value in phone.acknowledged.get(phone.token, []):
            assert shows(sheet["cells"][row][col], act, value), (
                f"{phone.initials}: round {r}'s {act} {value} at {row},{col} is not on its"
                f" sheet: {sheet['cells'][row][col]!r}")


def shows(token: str, act: str, value: Any) -> bool:
    """A space's token shows the move made there: a snake crossed out (``x``), a group
    found (its ``/D1`` mark), a number written or a structure drawn (its value)."""
    first = token.split("/", maxsplit=1)[0]
    if act == "cross":
        return first == "x"
    if act == "discover":
        return "/" in token
    return first == str(value)


def kills(request: pytest.FixtureRequest) -> int:
    if OVERRIDE:
        return int(OVERRIDE)
    return SLOW_KILLS if request.node.get_closest_marker("slow") else QUICK_KILLS


def run_kills(directory: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    phones = [Phone(initials, f"127.0.2.{k + 1}") for k, initials in enumerate(SEATS)]
    acknowledged_before = 0
    for _ in range(count):
        child, port = start_box(directory)
        try:
            check_every_phone_resumes(port, phones)
            stop = threading.Event()
            threads = [threading.Thread(target=p.play, args=(port, stop)) for p in phones]
            for thread in threads:
                thread.start()
            stop.wait(rng.uniform(0.05, 0.6))
            # The first kill waits for a move (the box has rolled, the phones joined), so
            # that even one kill checks something.
            waited = 0.0
            while not any(p.acknowledged for p in phones) and waited < CALL_S * 2:
                stop.wait(0.05)
                waited += 0.05
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
        stop.set()
        for thread in threads:
            thread.join(CALL_S * 2)
        check_every_acknowledged_move_is_stored(directory, phones)
    acknowledged = sum(len(m) for p in phones for m in p.acknowledged.values())
    assert acknowledged > acknowledged_before, "no move was acknowledged at all"


def test_sigkill_while_phones_move_never_loses_an_acknowledged_move(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    run_kills(tmp_path, kills(request), seed=1)


@pytest.mark.slow
def test_sigkill_hundreds_of_times_while_phones_move(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    run_kills(tmp_path, kills(request), seed=2)
