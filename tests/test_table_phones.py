"""A table on phones: the hazard dealt among the digital sheets and drawn there, the box
drawing what a player left, the pace, the ranking, paper players' stars, all kept in the
store. A simulated box with a session store rolls; the table is called as the page calls it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pitable.box.phones import PhoneTable, Seat
from pitable.box.players import PlayerBook
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.errors import BadMove, IllegalMove, InitialsTaken
from pitable.rules import Roll
from pitable.rules.base import ENGLISH
from pitable.rules.bot.model import Act, tokens_text
from pitable.rules.phone import PlayerSheet
from pitable.rules.scoring import parse_sheet
from pitable.rules.sheets import Side
from pitable.rules.table import deal
from pitable.rules.titles import find_title
from tests.conftest import run_cli
from tests.support.box import make
from tests.support.entropy import Seeded

HAZARD = "1,2,*"
PLAIN = "2,3,4"


@dataclass
class Table:
    sim: Simulator
    store: SessionStore
    phones: PhoneTable
    tokens: dict[str, str]

    def roll(self) -> None:
        self.sim.press()
        self.phones.sync()

    def seat(self, initials: str) -> Seat:
        return self.phones.seat(self.tokens[initials])

    def view(self, initials: str) -> dict:
        return self.phones.view(self.seat(initials), ENGLISH)

    def score(self, initials: str) -> int:
        seat = self.seat(initials)
        return seat.sheet.title.score(parse_sheet(tokens_text(seat.sheet.tokens()))).total


def seat_table(tmp_path: Path, *rolls: str, title: str = "temple",
               players: tuple[str, ...] = ("AA", "BB", "CC"), seed: int = 5) -> Table:
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, mode="table", title=title, store=store)
    # The deal draws from its own seeded bytes, so the scripted bytes stay the dice's.
    source = Seeded(seed)
    sim.box._deal = lambda ids: deal(ids, source)  # type: ignore[method-assign]
    phones = PhoneTable(store)
    tokens = {p: phones.join(p)[0] for p in players}
    return Table(sim, store, phones, tokens)


def end(table: Table) -> None:
    game = table.store.current_game()
    assert game is not None
    table.store.end_game(game.id)
    table.phones.sync()


def first_choice(view: dict) -> dict | None:
    for where, choices in view["choices"].items():
        for choice in choices:
            if choice["act"] != Act.HAZARD.value:
                r, c = (int(v) for v in where.split(","))
                return {"act": choice["act"], "cells": [[r, c]], "value": choice["value"]}
    return None


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    t = seat_table(tmp_path, PLAIN, HAZARD, PLAIN, HAZARD, PLAIN)
    yield t
    t.sim.close()


def test_at_a_hazard_roll_no_one_is_dealt_their_own_sheet_and_each_sheet_once(
        table: Table) -> None:
    table.roll()
    assert all(table.view(p)["deal"] is None for p in table.tokens)
    table.roll()
    deals = {p: table.view(p)["deal"] for p in table.tokens}
    assert all(d is not None and not d["own"] for d in deals.values())
    assert all(deals[p]["owner"] != p for p in deals)
    assert sorted(d["owner"] for d in deals.values()) == sorted(table.tokens)
    # The deal is on disk with the roll.
    game = table.store.current_game()
    assert game is not None
    stored = PlayerBook(table.store).deals(game.id, round=2)
    assert len(stored) == 3 and {d.cell for d in stored} == {None}


def test_a_placement_is_legal_on_the_dealt_sheet_and_the_owner_sees_it(table: Table) -> None:
    table.roll()
    table.roll()
    placer = "AA"
    dealt = table.view(placer)["deal"]
    owner = dealt["owner"]
    before = table.score(owner)
    spaces = [tuple(c) for c in dealt["spaces"]]
    assert spaces == table.seat(owner).sheet.hazard_spaces()
    cell = spaces[0]
    expected = table.seat(owner).sheet.score_with_hazard(cell)
    shown = table.view(owner)["score"]["total"]
    table.phones.place(table.tokens[placer], {"cells": [list(cell)], "round": 2})
    seen = table.view(owner)["hazard_on_me"]
    assert seen == {"round": 2, "placed": list(cell), "by_box": False, "by": placer}
    assert table.seat(owner).sheet.tokens()[cell[0]][cell[1]] != "_"
    # A mummy costs the Temple's owner stars: the running score the owner's phone shows
    # changes, to what the sheet exported is worth.
    assert table.score(owner) == expected == table.view(owner)["score"]["total"]
    assert expected < before == shown


def test_a_second_placement_a_filled_space_and_a_late_one_are_refused(table: Table) -> None:
    table.roll()
    table.roll()
    dealt = {p: table.view(p)["deal"] for p in table.tokens}
    a_cell = dealt["AA"]["spaces"][0]
    table.phones.place(table.tokens["AA"], {"cells": [a_cell], "round": 2})
    with pytest.raises(IllegalMove):
        table.phones.place(table.tokens["AA"], {"cells": [dealt["AA"]["spaces"][1]]})
    with pytest.raises(BadMove):
        table.phones.place(table.tokens["BB"], {"cells": "here"})
    # A space that is not the rules' for the hazard: one with a mark already, or a door.
    owner_b = table.seat(dealt["BB"]["owner"]).sheet
    allowed = set(owner_b.hazard_spaces())
    height, width = owner_b.sheet.grid_height, owner_b.sheet.grid_width
    refused = next((r, c) for r in range(height) for c in range(width)
                   if (r, c) not in allowed)
    with pytest.raises(IllegalMove):
        table.phones.place(table.tokens["BB"], {"cells": [list(refused)], "round": 2})
    with pytest.raises(IllegalMove):
        table.phones.place(table.tokens["BB"], {"cells": [dealt["BB"]["spaces"][0]],
                                                "round": 1})
    game = table.store.current_game()
    assert game is not None
    drawn = [d for d in PlayerBook(table.store).deals(game.id, round=2) if d.cell]
    assert len(drawn) == 1
    table.roll()
    # The turn closed: too late for the one who did not draw.
    with pytest.raises(IllegalMove):
        table.phones.place(table.tokens["BB"], {"cells": [dealt["BB"]["spaces"][0]],
                                                "round": 2})


def test_a_hazard_left_undrawn_is_drawn_by_the_box_at_the_next_roll(table: Table) -> None:
    table.roll()
    table.roll()
    owners = {p: table.view(p)["deal"]["owner"] for p in table.tokens}
    table.phones.place(table.tokens["AA"],
                       {"cells": [table.view("AA")["deal"]["spaces"][0]], "round": 2})
    table.roll()
    game = table.store.current_game()
    assert game is not None
    drawn = PlayerBook(table.store).deals(game.id, round=2)
    assert all(d.cell is not None for d in drawn)
    assert [d.by_box for d in sorted(drawn, key=lambda d: d.placer_id)] == [False, True, True]
    for placer in ("BB", "CC"):
        owner = owners[placer]
        on_owner = [a for r, a in table.seat(owner).sheet.placed.items() if r == 2]
        assert len(on_owner) == 1
        # Said on both phones: the placer's, and the owner's, with where it went.
        assert table.view(placer)["box_drew"]["for_you"] == owner
        assert table.view(owner)["box_drew"]["on_you"] == list(on_owner[0].cell)
    drawn_by_aa = owners["AA"]
    assert table.view("AA")["box_drew"] is None or table.view("AA")["box_drew"]["for_you"] is None
    assert (table.view(drawn_by_aa)["box_drew"] or {}).get("on_you") is None


def test_every_sheet_holds_one_hazard_a_hazard_roll_whoever_drew_it(table: Table) -> None:
    for _ in range(5):
        table.roll()
        for p in table.tokens:
            d = table.view(p)["deal"]
            if d is not None and d["spaces"] and p != "CC":
                table.phones.place(table.tokens[p], {"cells": [d["spaces"][-1]]})
    end(table)
    for p in table.tokens:
        placed = table.seat(p).sheet.placed
        assert sorted(placed) == [2, 4], (p, placed)


def test_a_lone_digital_player_draws_on_their_own_sheet(tmp_path: Path) -> None:
    t = seat_table(tmp_path, PLAIN, HAZARD, players=("AA",))
    try:
        t.roll()
        t.roll()
        dealt = t.view("AA")["deal"]
        assert dealt["own"] and dealt["owner"] == "AA"
        t.phones.place(t.tokens["AA"], {"cells": [dealt["spaces"][0]]})
        assert t.view("AA")["hazard_on_me"]["by"] == "AA"
    finally:
        t.sim.close()


def test_the_hazards_drawn_come_back_after_a_restart(tmp_path: Path) -> None:
    t = seat_table(tmp_path, PLAIN, HAZARD, PLAIN)
    t.roll()
    t.roll()
    t.phones.place(t.tokens["BB"], {"cells": [t.view("BB")["deal"]["spaces"][0]]})
    before = {p: (t.view(p)["cells"], t.view(p)["deal"], t.view(p)["hazard_on_me"])
              for p in t.tokens}
    t.sim.close()
    again = PhoneTable(SessionStore.open(tmp_path))
    after = {p: again.view(again.seat(tok), ENGLISH) for p, tok in t.tokens.items()}
    assert {p: (v["cells"], v["deal"], v["hazard_on_me"]) for p, v in after.items()} == before


def test_the_pace_counts_who_is_done_and_who_still_writes(table: Table) -> None:
    table.roll()
    pace = table.phones.pace(1)
    assert pace is not None
    assert (pace.players, pace.done, sorted(pace.writing)) == (3, 0, ["AA", "BB", "CC"])
    table.phones.done(table.tokens["BB"])
    pace = table.phones.pace(1)
    assert pace is not None and (pace.done, sorted(pace.writing)) == (2 - 1, ["AA", "CC"])
    table.roll()
    # A hazard dealt and not drawn keeps a player writing even once they said done.
    table.phones.done(table.tokens["AA"])
    pace = table.phones.pace(2)
    assert pace is not None and "AA" in pace.writing
    table.phones.place(table.tokens["AA"], {"cells": [table.view("AA")["deal"]["spaces"][0]]})
    pace = table.phones.pace(2)
    assert pace is not None and "AA" not in pace.writing and pace.done == 1


def test_paper_stars_wait_for_the_end_and_take_no_phone_player_s_initials(
        table: Table) -> None:
    table.roll()
    with pytest.raises(IllegalMove):
        table.phones.add_score(table.tokens["AA"], {"initials": "PQ", "total": 20})
    game = table.store.current_game()
    assert game is not None
    end(table)
    with pytest.raises(InitialsTaken):
        table.phones.add_score(table.tokens["AA"], {"initials": "bb", "total": 20})
    with pytest.raises(BadMove):
        table.phones.add_score(table.tokens["AA"], {"initials": "PQ", "total": "lots"})
    table.phones.add_score(table.tokens["AA"], {"initials": "PQ", "total": 999, "tie": 1})
    ranking = table.phones.standings(game.id)
    assert ranking[0].initials == "PQ" and ranking[0].paper
    assert sorted(p.initials for p in ranking) == ["AA", "BB", "CC", "PQ"]


def test_the_ranking_is_each_sheet_scored_as_pitable_score_does_with_the_tie_break(
        table: Table) -> None:
    for _ in range(5):
        table.roll()
        for p in table.tokens:
            view = table.view(p)
            if view["deal"] and view["deal"]["spaces"]:
                table.phones.place(table.tokens[p], {"cells": [view["deal"]["spaces"][0]]})
            move = first_choice(view)
            if move is not None:
                table.phones.move(table.tokens[p], move)
            table.phones.done(table.tokens[p])
    game = table.store.current_game()
    assert game is not None
    title = find_title(game.title)
    expected = {}
    for p in table.tokens:
        text, _name = table.phones.text(table.seat(p))
        sheet = parse_sheet(text)
        expected[p] = (title.score(sheet).total, title.tie_break(sheet))
    end(table)
    ranking = table.phones.standings(game.id)
    assert {p.initials: (p.total, p.tie) for p in ranking} == expected
    order = sorted(expected, key=lambda p: (-expected[p][0], -(expected[p][1] or 0)))
    assert [p.initials for p in ranking] == order or any(p.shared for p in ranking)
    json = table.phones.table(ENGLISH)
    assert json["ended"] and [r["initials"] for r in json["ranking"]] == [
        p.initials for p in ranking]


def test_pitable_history_shows_the_ranking_and_who_drew_on_whose_sheet(
        table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table.roll()
    table.roll()
    dealt = table.view("AA")["deal"]
    r, c = dealt["spaces"][0]
    table.phones.place(table.tokens["AA"], {"cells": [[r, c]]})
    game = table.store.current_game()
    assert game is not None
    end(table)
    ranking = table.phones.standings(game.id)
    code, out, _ = run_cli(capsys, "history", "--game", str(game.id),
                           "--state-dir", str(tmp_path))
    assert code == 0
    line = next(x for x in out.splitlines() if x.strip().startswith("ranking:"))
    for placing in ranking:
        assert f"{placing.initials} {placing.total}" in line
    assert f"AA on {dealt['owner']}'s {r},{c}" in out
    assert out.count("(by the box)") == 2
    code, out, _ = run_cli(capsys, "history", "--game", str(game.id), "--json",
                           "--state-dir", str(tmp_path))
    head = json.loads(out.splitlines()[0])
    assert [p["initials"] for p in head["ranking"]] == [p.initials for p in ranking]


@pytest.mark.parametrize("key", ["valley", "island", "temple"])
def test_the_spaces_offered_for_a_hazard_are_every_space_the_rules_allow(key: str) -> None:
    title = find_title(key)
    sheet = title.generate_sheet(Side.A, 7)
    rng = random.Random(key)
    phone = PlayerSheet(sheet)
    everywhere = [(r, c) for r in range(sheet.grid_height) for c in range(sheet.grid_width)]
    checked = 0
    for n in range(16):
        if n % 4 == 3:
            phone.start_turn(Roll.from_str("2,3,*"), phone.hazards)
            spaces = phone.hazard_spaces()
            assert spaces == [c for c in everywhere if not phone.hazard_breaches(c)]
            if not spaces:
                break
            phone.place_hazard(rng.choice(spaces))
            checked += 1
        else:
            phone.start_turn(Roll.from_str(rng.choice(["2,3,4", "5,1,3", "3,3,2", "4,2,5"])),
                             phone.hazards)
            legal = [a for a in phone.legal() if len(a.cells) == 1]
            if legal:
                phone.play(rng.choice(legal))
        phone.finish_turn()
    assert checked >= 3


def test_the_tv_shows_each_player_s_sheet_in_turn_and_the_winner_s_at_the_end(
        table: Table) -> None:
    shown = []
    for _ in range(3):
        table.roll()
        corner = table.phones.showcase()
        assert corner is not None
        initials, total, _rows, cells = corner
        seat = table.seat(initials)
        assert cells == seat.sheet.tokens() and total == table.score(initials)
        shown.append(initials)
    assert sorted(shown) == sorted(table.tokens)
    game = table.store.current_game()
    assert game is not None
    end(table)
    corner = table.phones.showcase()
    assert corner is not None and corner[0] == table.phones.standings(game.id)[0].initials


def test_a_game_that_ended_unranked_is_closed_and_ranked_when_the_box_comes_back(
        tmp_path: Path) -> None:
    t = seat_table(tmp_path, PLAIN, HAZARD, PLAIN)
    try:
        t.roll()
        t.roll()
        game = t.store.current_game()
        assert game is not None
        # The game ends, and the box stops before its table takes the end in.
        t.store.end_game(game.id)
        again = PhoneTable(t.store)
        again.sync()
        ranking = again.standings(game.id)
        assert sorted(p.initials for p in ranking) == sorted(t.tokens)
        deals = PlayerBook(t.store).deals(game.id, round=2)
        assert len(deals) == 3 and all(d.cell is not None and d.by_box for d in deals)
    finally:
        t.sim.close()
