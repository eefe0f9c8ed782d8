"""The players' API: join, the sheet, moves checked and stored, take back, done, watchers,
and what it refuses. A simulated box with a session store rolls; the page is served on
127.0.0.1 and driven with the standard library's HTTP client."""

from __future__ import annotations

import http.client
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitable.box.phones import PhoneTable
from pitable.box.players import PlayerBook
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.web.players import TOKEN_BURST
from pitable.web.server import WebServer
from tests.support.box import make
from tests.support.web import ANY_JSON, PIN, TIMEOUT_S


@dataclass
class Table:
    sim: Simulator
    server: WebServer
    store: SessionStore

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token is not None:
            sent["X-Pitable-Player"] = token
        data = body if isinstance(body, bytes) else (
            json.dumps(body).encode() if body is not None else None)
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=TIMEOUT_S)
        try:
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            raw = response.read()
            return response.status, json.loads(raw) if raw else None, dict(response.getheaders())
        finally:
            conn.close()

    def join(self, initials: str = "AB") -> tuple[str, dict[str, Any]]:
        status, answer, _ = self.call("POST", "/api/players", {"initials": initials})
        assert status == 201, answer
        return answer["token"], answer["sheet"]

    def sheet(self, token: str) -> dict[str, Any]:
        status, answer, _ = self.call("GET", "/api/sheet", token=token)
        assert status == 200, answer
        return answer

    def roll(self) -> None:
        self.sim.press()


def _serve(tmp_path: Path, *rolls: str, mode: str = "solo", title: str = "temple") -> Table:
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, mode=mode, title=title, store=store)
    server = WebServer("127.0.0.1", 0, PIN, sim.box.post, phones=PhoneTable(store))
    server.start()
    return Table(sim, server, store)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    served = _serve(tmp_path, "2,3,4", "1,2,2", "5,1,3", "3,3,1")
    yield served
    served.server.close()
    served.sim.close()


def _first_choice(sheet: dict[str, Any]) -> dict[str, Any]:
    where, choices = next(iter(sheet["choices"].items()))
    r, c = (int(v) for v in where.split(","))
    return {"act": choices[0]["act"], "cells": [[r, c]], "value": choices[0]["value"]}


def test_a_player_joins_with_initials_and_keeps_a_secret_token(table: Table) -> None:
    status, answer, headers = table.call("POST", "/api/players", {"initials": "ab"})
    assert status == 201
    token = answer["token"]
    assert len(token) >= 22  # 128 bits, URL-safe base64
    assert answer["initials"] == "AB"
    cookie = headers["set-cookie"]
    assert f"pitable_player={token}" in cookie
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    sheet = answer["sheet"]
    assert sheet["map"]["height"] == len(sheet["cells"]) == len(sheet["map"]["rows"])
    assert sheet["turn"] is None and sheet["choices"] == {}
    # The same phone again is the same player.
    status, again, _ = table.call("POST", "/api/players", {"initials": "ab"}, token=token)
    assert status == 200 and again["token"] == token
    # Other initials of the same letters are taken; bad ones are one clear line.
    assert table.call("POST", "/api/players", {"initials": "Ab"})[0] == 409
    for bad in ("", "ABCD", "A1", 7):
        status, refused, _ = table.call("POST", "/api/players", {"initials": bad})
        assert status == 400 and "\n" not in refused["error"]
    # The store keeps the hash, never the token.
    assert PlayerBook(table.store).player_by_token(token) is not None
    assert token.encode() not in Path(table.store.path).read_bytes()


def test_a_legal_move_is_stored_before_it_is_acknowledged(table: Table) -> None:
    token, _ = table.join()
    table.roll()
    sheet = table.sheet(token)
    assert sheet["turn"]["round"] == 1
    move = _first_choice(sheet)
    status, after, _ = table.call("POST", "/api/moves", move, token=token)
    assert status == 200, after
    (r, c), = move["cells"]
    assert after["cells"][r][c].endswith(str(move["value"]))
    assert after["turn"]["moves"][0]["act"] == move["act"]
    book = PlayerBook(table.store)
    record = book.player_by_token(token)
    assert record is not None
    stored = book.moves(record.id)
    assert [(m.round, m.act, list(map(list, m.cells)), m.value) for m in stored] == [
        (1, move["act"], move["cells"], move["value"])]


def test_an_illegal_move_is_refused_with_its_rule_and_nothing_is_stored(table: Table) -> None:
    token, _ = table.join()
    table.roll()
    move = _first_choice(table.sheet(token))
    assert table.call("POST", "/api/moves", move, token=token)[0] == 200
    status, refused, _ = table.call("POST", "/api/moves", move, token=token)
    assert status == 422
    assert refused["error"] and "\n" not in refused["error"]
    assert refused["sheet"]["turn"]["moves"] == table.sheet(token)["turn"]["moves"]
    record = PlayerBook(table.store).player_by_token(token)
    assert record is not None and len(PlayerBook(table.store).moves(record.id)) == 1


@pytest.mark.parametrize("body", [
    None, [], "write", {"act": "fly", "cells": [[0, 0]]}, {"act": "write"},
    {"act": "write", "cells": [[0]]}, {"act": "write", "cells": [[999, 0]], "value": 1},
    {"act": "write", "cells": [[0, 0]], "value": [1]}, {"act": "write", "cells": "0,0"},
    {"act": "write", "cells": [[True, 0]], "value": 1},
])
def test_a_body_that_is_no_move_is_400_in_one_line(table: Table, body: Any) -> None:
    token, _ = table.join()
    table.roll()
    status, refused, _ = table.call("POST", "/api/moves", body, token=token)
    assert status == 400, refused
    assert "\n" not in refused["error"]


def test_a_move_sent_for_a_turn_the_next_roll_closed_is_refused(table: Table) -> None:
    token, _ = table.join()
    table.roll()
    move = {**_first_choice(table.sheet(token)), "round": 1}
    table.roll()
    status, refused, _ = table.call("POST", "/api/moves", move, token=token)
    assert status == 422 and "next roll" in refused["error"]
    assert refused["sheet"]["turn"]["moves"] == []
    assert table.call("POST", "/api/moves", {**move, "round": 0}, token=token)[0] == 400


def test_a_move_is_taken_back_until_the_turn_is_done(table: Table) -> None:
    token, _ = table.join()
    table.roll()
    before = table.sheet(token)
    move = _first_choice(before)
    table.call("POST", "/api/moves", move, token=token)
    status, after, _ = table.call("DELETE", "/api/moves/last", token=token)
    assert status == 200 and after["cells"] == before["cells"]
    assert after["choices"] == before["choices"]
    table.call("POST", "/api/moves", move, token=token)
    status, done, _ = table.call("POST", "/api/done", token=token)
    assert status == 200 and done["turn"]["done"] and done["choices"] == {}
    assert table.call("DELETE", "/api/moves/last", token=token)[0] == 409
    assert table.call("POST", "/api/moves", move, token=token)[0] == 422
    record = PlayerBook(table.store).player_by_token(token)
    assert record is not None and PlayerBook(table.store).done_rounds(record.id) == {1}


def test_a_turn_not_done_is_passed_by_the_next_roll_with_its_moves(table: Table) -> None:
    token, _ = table.join()
    table.roll()
    move = _first_choice(table.sheet(token))
    table.call("POST", "/api/moves", move, token=token)
    table.roll()
    sheet = table.sheet(token)
    assert sheet["turn"]["round"] == 2 and sheet["turn"]["moves"] == []
    (r, c), = move["cells"]
    assert sheet["cells"][r][c] != "_"


def test_the_box_restarted_gives_every_sheet_back(tmp_path: Path) -> None:
    served = _serve(tmp_path, "2,3,4", "1,2,2")
    token, _ = served.join("CD")
    served.roll()
    move = _first_choice(served.sheet(token))
    served.call("POST", "/api/moves", move, token=token)
    before = served.sheet(token)
    served.server.close()
    served.sim.close()
    again = _serve(tmp_path)
    try:
        assert again.sheet(token) == before
    finally:
        again.server.close()
        again.sim.close()


def test_a_call_without_a_known_token_is_401(table: Table) -> None:
    table.roll()
    assert table.call("GET", "/api/sheet")[0] == 401
    assert table.call("GET", "/api/sheet", token="x" * 22)[0] == 401
    assert table.call("POST", "/api/moves", {"act": "write", "cells": [[0, 0]], "value": 1},
                      token="nobody")[0] == 401
    assert table.call("POST", "/api/done")[0] == 401


def test_the_cookie_names_the_sheet_but_a_change_needs_the_header(table: Table) -> None:
    token, _ = table.join()
    table.roll()
    cookie = {"Cookie": f"pitable_player={token}"}
    assert table.call("GET", "/api/sheet", headers=cookie)[0] == 200
    # A change with the cookie alone is what a form on another site would send.
    assert table.call("POST", "/api/done", headers=cookie)[0] == 401
    status, _, _ = table.call("POST", "/api/done", headers={**cookie,
                                                            "X-Pitable-Player": "cookie"})
    assert status == 200


def test_moves_are_limited_per_token(table: Table) -> None:
    token, _ = table.join()
    table.roll()
    statuses = [table.call("DELETE", "/api/moves/last", token=token)[0]
                for _ in range(int(TOKEN_BURST) + 10)]
    assert 429 in statuses
    assert statuses[0] == 200


def test_a_body_over_4_kb_is_413(table: Table) -> None:
    token, _ = table.join()
    status, _, _ = table.call("POST", "/api/moves", b"{" + b" " * 5000 + b"}", token=token)
    assert status == 413


def test_anyone_may_watch_every_sheet_but_not_its_choices(table: Table) -> None:
    first, _ = table.join("AB")
    table.join("CD")
    table.roll()
    table.call("POST", "/api/moves", _first_choice(table.sheet(first)), token=first)
    status, watched, _ = table.call("GET", "/api/sheets")
    assert status == 200
    assert [s["player"]["initials"] for s in watched["sheets"]] == ["AB", "CD"]
    assert all("choices" not in s and "warnings" not in s["turn"] for s in watched["sheets"])
    assert watched["sheets"][0]["cells"] == table.sheet(first)["cells"]


def test_no_token_reaches_the_log(table: Table, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    token, _ = table.join()
    table.roll()
    table.call("POST", "/api/moves", _first_choice(table.sheet(token)), token=token)
    table.call("POST", "/api/done", token=token)
    assert all(token not in record.getMessage() for record in caplog.records)


def test_a_sheet_exports_as_pitable_score_reads_it_with_the_page_s_total(
    table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pitable.cli import main

    token, _ = table.join("EF")
    for _ in range(3):
        table.roll()
        table.call("POST", "/api/moves", _first_choice(table.sheet(token)), token=token)
        table.call("POST", "/api/done", token=token)
    page_total = table.sheet(token)["score"]["total"]
    conn = http.client.HTTPConnection("127.0.0.1", table.server.port, timeout=TIMEOUT_S)
    conn.request("GET", "/api/sheet.txt", headers={"X-Pitable-Player": token})
    response = conn.getresponse()
    text = response.read().decode()
    conn.close()
    assert response.status == 200
    assert "attachment" in response.getheader("content-disposition", "")
    exported = tmp_path / "sheet.txt"
    exported.write_text(text)
    assert main(["score", "temple", "--sheet", str(exported), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == page_total
    # The same sheet from the store, through `pitable history`.
    assert main(["history", "--state-dir", str(Path(table.store.path).parent),
                 "--sheet", "ef"]) == 0
    assert capsys.readouterr().out == text
    assert main(["history", "--state-dir", str(Path(table.store.path).parent)]) == 0
    assert f"  players: EF {page_total}" in capsys.readouterr().out
    assert main(["history", "--state-dir", str(Path(table.store.path).parent),
                 "--sheet", "ZZ"]) == 2
    assert "--sheet ZZ: no player" in capsys.readouterr().err


def test_the_event_stream_tells_watchers_of_each_sheet_s_change(table: Table) -> None:
    from tests.support.web import Events

    events = Events(table.server.port, kinds=("sheet",))
    token, _ = table.join("GH")
    table.roll()
    table.call("POST", "/api/moves", _first_choice(table.sheet(token)), token=token)
    changes = [events.until(lambda e: True) for _ in range(2)]
    assert changes[0]["initials"] == "GH" and changes[0]["moves"] == 0
    assert changes[1]["round"] == 1 and changes[1]["moves"] == 1
    events.conn.close()


def test_refusals_and_warnings_are_said_in_the_players_language(table: Table) -> None:
    french = {"X-Pitable-Lang": "fr"}
    token, _ = table.join()
    table.roll()
    status, sheet, _ = table.call("GET", "/api/sheet?lang=fr", token=token)
    assert status == 200
    assert sheet["turn"]["warnings"] == ["un tour écrit un nombre, pas 0"]
    move = _first_choice(sheet)
    assert table.call("POST", "/api/moves", move, token=token)[0] == 200
    status, refused, _ = table.call("POST", "/api/moves", move, token=token, headers=french)
    assert status == 422
    assert refused["error"] == "un tour écrit un nombre, pas 2"
    # The box's language where the phone names none: the rule as the validator says it.
    status, refused, _ = table.call("POST", "/api/moves", move, token=token)
    assert (status, refused["error"]) == (422, "a turn writes one number, not 2")
    status, refused, _ = table.call("POST", "/api/moves", {"act": "fly", "cells": [[0, 0]]},
                                    token=token, headers=french)
    assert (status, refused["error"]) == (400, "act\u202f: le mot d'un coup était attendu,"
                                               " reçu 'fly'")
    assert table.call("POST", "/api/done", token=token)[0] == 200
    status, refused, _ = table.call("DELETE", "/api/moves/last", token=token, headers=french)
    assert (status, refused["error"]) == (409, "le tour est fini")
    status, refused, _ = table.call("GET", "/api/sheet", token="x" * 22, headers=french)
    assert (status, refused["error"]) == (
        401, "ce téléphone n'a pas de fiche dans cette partie\u202f: rejoignez-la")
    status, refused, _ = table.call("POST", "/api/done", headers=french)
    assert (status, refused["error"]) == (
        401, "l'appel d'un joueur demande l'en-tête X-Pitable-Player")


_JSON = ANY_JSON
_MOVES = st.fixed_dictionaries({}, optional={
    "act": st.sampled_from(["write", "hazard", "cross", "structure", "discover", "boat",
                            "treasure", "fly"]) | _JSON,
    "cells": st.lists(st.lists(st.integers(-2, 20), max_size=3), max_size=9) | _JSON,
    "value": st.integers(-5, 120) | st.sampled_from(["H", "j", "t", "", "xx"]) | _JSON,
    "round": st.integers(-1, 5) | _JSON,
})


@pytest.fixture
def unlimited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Table]:
    """A table whose page lets each phone call as often as it likes: so that a fuzzer's
    bodies reach the rules, not the limits."""
    from pitable.web import players

    for name in ("TOKEN_RATE", "TOKEN_BURST", "ADDRESS_RATE", "ADDRESS_BURST"):
        monkeypatch.setattr(players, name, 1e6)
    served = _serve(tmp_path, "2,3,4", "*,*,2", "5,1,3", title="valley")
    yield served
    served.server.close()
    served.sim.close()


#: Moves of the right shape, anywhere on the map, of any act and value: the rules answer.
_SHAPED = st.fixed_dictionaries({
    "act": st.sampled_from(["write", "hazard", "cross", "structure", "discover", "boat",
                            "treasure"]),
    "cells": st.lists(st.lists(st.integers(0, 9), min_size=2, max_size=2), min_size=1,
                      max_size=6),
    "value": st.none() | st.integers(0, 20) | st.sampled_from(["H", "S", "M", "j", "t", "r",
                                                               "p", "X"]),
}, optional={"round": st.integers(1, 3)})


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=_SHAPED | _MOVES | _JSON)
def test_no_body_makes_the_players_api_fail(unlimited: Table, body: Any) -> None:
    """Whatever a phone sends, the answer is the rules' (200 or 422) or one line saying
    what is wrong (4xx): never a 500."""
    table = unlimited
    if not hasattr(table, "token"):
        table.token, _ = table.join("FZ")  # type: ignore[attr-defined]
        table.roll()
        table.roll()  # Penny Papers and Dakota Smith: every kind of value
    token = table.token  # type: ignore[attr-defined]
    status, answer, _ = table.call("POST", "/api/moves", body, token=token)
    assert status < 500, answer
    assert status != 429
    if status >= 400 and answer is not None:
        assert "\n" not in answer["error"]
    if status == 200:
        table.call("DELETE", "/api/moves/last", token=token)
