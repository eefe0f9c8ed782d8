"""One map for the table: every sheet the box prints for a game is of the map its status
screen names, chosen when the game starts and kept across restarts.

Driven through the simulator's inputs and read through its outputs (the panels, the fake
printer's paper, the store), as in test_box.py.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pitable.box.backends import printer_settings
from pitable.box.printing import BoxPrinter
from pitable.box.sim import Simulator
from pitable.box.store import MIGRATIONS, SessionStore
from pitable.box.table_map import TableMap, seed_from, stored_map
from pitable.config import DEFAULTS
from pitable.hw.clock import FakeClock
from pitable.hw.fake_printer import FakePrinter
from pitable.hw.printer import PrintReport, ThermalPrinter
from pitable.render.sheet import render_sheet
from pitable.render.status import StatusView, draw_status
from pitable.rules import Roll, find_title
from pitable.rules.bot import target
from pitable.rules.sheets import MAP_FORMATS, Side, generate
from tests.conftest import run_cli
from tests.support.box import make
from tests.support.entropy import ScriptedBytes
from tests.support.pictures import same


class CountingPrinter:
    """The thermal printer, counting the pictures it is asked to print."""

    def __init__(self, printer: ThermalPrinter) -> None:
        self.printer = printer
        self.calls: list[int] = []

    def print_image(self, image: Image.Image, *, copies: int = 1) -> PrintReport:
        self.calls.append(copies)
        return self.printer.print_image(image, copies=copies)


def printer_and_paper() -> tuple[BoxPrinter, FakePrinter, CountingPrinter]:
    settings = DEFAULTS.printer
    clock = FakeClock()
    paper = FakePrinter(dots=settings.dots, clock=clock)
    driver = ThermalPrinter(printer_settings(settings), transport=paper, clock=clock)
    counting = CountingPrinter(driver)
    return BoxPrinter(counting, settings), paper, counting


def named_map(sim: Simulator) -> TableMap:
    """The map the status screen names: its tag in the header, as the screen shows it."""
    view = sim.box.view()
    assert view.map_tag is not None
    assert same(sim.panel("status"), draw_status(view))
    other = dataclasses.replace(view, map_tag="B·1")
    assert not same(sim.panel("status"), draw_status(other))
    side, seed = view.map_tag.split("·")
    return TableMap(view.title, Side.from_str(side), int(seed))


def labels(sim: Simulator) -> list[str]:
    return [label for label, _ in sim.box.menu[-1].items]


def sheets_for_players(sim: Simulator, turns: int) -> None:
    """Menu: Sheets for N players; turn the number of players; push."""
    sim.hold()
    sim.turn(+1)
    assert labels(sim)[1].startswith("Sheets for ")
    sim.push()
    sim.turn(turns)
    sim.push()
    sim.wait_for_prints()


def copies_on(paper: FakePrinter, picture: Image.Image) -> int:
    """How many whole copies of ``picture`` came out on the paper, with nothing else printed
    between or around them (paper fed between copies is blank)."""
    out = paper.printout().convert("1")
    picture = picture.convert("1")
    assert out.width == picture.width
    stride = (out.width + 7) // 8
    data, wanted = out.tobytes(), picture.tobytes()
    starts: list[int] = []
    at = data.find(wanted)
    while at != -1:
        if at % stride == 0:
            starts.append(at // stride)
            at = data.find(wanted, at + len(wanted))
        else:
            at = data.find(wanted, at + 1)
    rest = out.copy()
    for row in starts:
        rest.paste(1, (0, row, out.width, row + picture.height))
    assert ImageChops.invert(rest.convert("L")).getbbox() is None, "something else printed"
    return len(starts)


def test_six_copies_are_six_identical_sheets_of_the_map_the_status_screen_names() -> None:
    printer, paper, counting = printer_and_paper()
    sim = make("2,3,5", title="valley", printer=printer, map_seeds=lambda: 86420)
    sim.press()
    sheets_for_players(sim, +2)  # 4 players, the first time: 6
    table_map = named_map(sim)
    assert table_map == TableMap(find_title("valley"), Side.A, 86420)
    assert sim.box.view().message == "Printed: 6 sheets of Valley A·86420"
    expected = render_sheet(generate("valley", 86420, "a"), printer.settings.dots)
    assert copies_on(paper, expected) == 6
    # One job, one picture to encode, sent six times.
    assert counting.calls == [6]
    assert [job.copies for job in printer.spooler.jobs()] == [6]
    assert not paper.overran
    sim.close()


def test_the_number_of_players_is_remembered_and_one_more_sheet_prints_one(
    tmp_path: Path,
) -> None:
    printer, _, _ = printer_and_paper()
    sim = make("1,2,3", printer=printer, store=SessionStore.open(tmp_path))
    sheets_for_players(sim, +3)
    assert sim.box.view().message == "Printed: 7 sheets of Valley A·1234"
    sim.hold()
    assert labels(sim)[1:3] == ["Sheets for 7 players", "One more sheet"]
    sim.turn(+2)
    sim.push()  # One more sheet
    sim.wait_for_prints()
    assert sim.box.view().message == "Printed: Valley A·1234"
    sim.close()
    again_printer, _, _ = printer_and_paper()
    again = make("1,2,3", printer=again_printer, store=SessionStore.open(tmp_path))
    again.hold()
    assert labels(again)[1] == "Sheets for 7 players"
    again.close()


def test_the_number_of_players_goes_round_from_1_to_100() -> None:
    printer, _, _ = printer_and_paper()
    sim = make(printer=printer)
    sim.hold()
    sim.turn(+1)
    sim.push()  # Sheets for 4 players
    assert sim.box.view().menu is not None
    sim.turn(-3)
    assert sim.box.view().menu.items[0] == "1 player"  # type: ignore[union-attr]
    sim.turn(-1)
    assert sim.box.view().menu.items[0] == "100 players"  # type: ignore[union-attr]
    sim.turn(+1)
    assert sim.box.view().menu.items[0] == "1 player"  # type: ignore[union-attr]
    sim.close()


def test_a_solo_game_prints_one_sheet_of_its_map() -> None:
    printer, paper, counting = printer_and_paper()
    sim = make("1,2,3", title="temple", mode="solo", printer=printer)
    sim.hold()
    assert labels(sim)[:2] == ["New game", "Print a sheet"]
    assert not any(label.startswith("Sheets for") for label in labels(sim))
    sim.turn(+1)
    sim.push()
    sim.wait_for_prints()
    assert counting.calls == [1]
    assert sim.box.view().message == "Printed: Temple A·1234"
    # A solo sheet: the adventurer levels, and the bot's median on this map to beat.
    sheet = generate("temple", 1234)
    expected = render_sheet(sheet, printer.settings.dots, solo=True,
                            target=target("temple", "a", 1234))
    assert copies_on(paper, expected) == 1
    sim.close()


def test_a_new_game_may_take_the_last_printed_sheets_map() -> None:
    seeds = iter([1234, 5678, 9012])
    printer, _, _ = printer_and_paper()
    sim = make("1,2,3", printer=printer, map_seeds=lambda: next(seeds))
    sim.hold()
    sim.turn(+2)
    sim.push()  # One more sheet: of A·1234
    sim.wait_for_prints()
    sim.hold()
    sim.push()  # New game
    sim.push()  # Valley: table
    assert sim.box.menu[-1].heading == "Map"
    assert labels(sim) == ["New map", "Last sheet: A·1234", "Back"]
    sim.turn(+1)
    sim.push()
    assert sim.box.game.map.tag == "A·1234"
    assert sim.box.view().map_tag == "A·1234"
    sim.hold()
    sim.push()  # New game
    sim.push()  # Valley: table
    sim.push()  # New map
    assert sim.box.game.map.tag == "A·5678"
    # Another title's new game has nothing to take: it starts on a fresh map at once.
    sim.hold()
    sim.push()
    sim.turn(+2)
    sim.push()  # Island: table
    assert sim.box.game.map == TableMap(find_title("island"), Side.A, 9012)
    sim.close()


def test_sheets_printed_after_the_end_are_for_the_next_game() -> None:
    seeds = iter([1234, 5678])
    printer, _, _ = printer_and_paper()
    sim = make("1,2,3", "4,4,4", printer=printer, map_seeds=lambda: next(seeds))
    sim.press()
    sim.hold()
    sim.turn(labels(sim).index("End game"))
    sim.push()  # End game
    first = sim.box.game
    assert first.ended
    sim.hold()
    sim.turn(+2)
    sim.push()  # One more sheet
    sim.wait_for_prints()
    assert sim.box.game is not first and not sim.box.game.ended
    assert sim.box.view().map_tag == "A·5678"
    assert sim.box.view().message == "Printed: Valley A·5678"
    sim.press()  # rolls in that game, on that map
    assert sim.box.game.map.tag == "A·5678"
    assert sim.box.game.state.rounds == 1
    sim.close()


def test_a_new_games_seed_is_drawn_from_the_boxs_entropy_every_seed_alike() -> None:
    # 20 bits a draw: 0xFFFFF (1,048,575) is past 999,999 and drawn again; 0x0F423F is
    # 999,999, the largest seed; the top four bits of the first byte do not count.
    assert seed_from(ScriptedBytes(before=b"\xff\xff\xff\x0f\x42\x3f")) == 999_999
    assert seed_from(ScriptedBytes(before=b"\xf0\x00\x07")) == 7
    box = dataclasses.replace(DEFAULTS.box, tumble_ms=0, mode="table", title="island")
    sim = Simulator(dataclasses.replace(DEFAULTS, box=box),
                    entropy=ScriptedBytes("2,3,5", before=b"\x01\x02\x03"))
    assert sim.box.view().map_tag == "A·66051"
    sim.press()  # the bytes after the seed's are the rolls
    assert sim.box.game.state.last_roll == Roll.from_str("2,3,5")
    sim.close()


def test_a_game_keeps_its_map_after_a_restart(tmp_path: Path) -> None:
    sim = make("1,2,3", store=SessionStore.open(tmp_path), map_seeds=lambda: 4321)
    sim.press()
    sim.close()
    again = make(store=SessionStore.open(tmp_path), map_seeds=lambda: 1)
    assert again.box.view().map_tag == "A·4321"
    again.close()


def test_a_map_drawn_by_another_generator_format_is_not_printed_under_its_old_seed(
    tmp_path: Path,
) -> None:
    sim = make("1,2,3", store=SessionStore.open(tmp_path), map_seeds=lambda: 4321)
    sim.press()
    sim.close()
    # The same game as a generator format this version no longer draws would have stored
    # it: its seed now draws another map, so the box must not print sheets of it under the
    # old tag.
    db = sqlite3.connect(tmp_path / "pitable.db", isolation_level=None)
    db.execute(f"UPDATE games SET map_format = {min(MAP_FORMATS) - 1}")
    db.close()
    again = make(store=SessionStore.open(tmp_path), map_seeds=lambda: 55)
    assert again.box.view().map_tag == "A·55"
    assert again.box.game.state.rounds == 1, "the game itself goes on"
    again.close()


def test_the_last_sheets_map_is_kept_with_its_generator_format() -> None:
    table_map = TableMap(find_title("temple"), Side.B, 99)
    assert TableMap.from_text(table_map.to_text()) == table_map
    assert stored_map(f"temple b 99 v{min(MAP_FORMATS) - 1}") is None
    assert stored_map("temple b 99") is None


def test_a_game_on_an_older_formats_map_goes_on_on_that_map(tmp_path: Path) -> None:
    sim = make("1,2,3", store=SessionStore.open(tmp_path), map_seeds=lambda: 4321)
    sim.press()
    sim.close()
    # Stored by the format before this one: that format's map of the seed is drawn again.
    older = MAP_FORMATS[-2]
    db = sqlite3.connect(tmp_path / "pitable.db", isolation_level=None)
    db.execute(f"UPDATE games SET map_format = {older}")
    db.close()
    again = make(store=SessionStore.open(tmp_path), map_seeds=lambda: 55)
    assert again.box.view().map_tag == "A·4321"
    table_map = again.box.game.map
    assert table_map.version == older and table_map.sheet().version == older
    assert stored_map(table_map.to_text()) == table_map
    again.close()


# --- the store: its schema moves forward, nothing is lost ---------------------------------


def version_2_database(directory: Path) -> Path:
    """A database as pitable kept it before games had maps: one game in progress."""
    path = directory / "pitable.db"
    db = sqlite3.connect(path, isolation_level=None)
    for step in MIGRATIONS[:2]:
        for statement in (s for s in step.split(";") if s.strip()):
            db.execute(statement)
    db.execute("PRAGMA user_version = 2")
    db.execute("INSERT INTO games (title, mode, started_at) VALUES"
               " ('island', 'table', '2026-11-29T20:00:00+00:00')")
    db.execute("INSERT INTO rolls (game_id, n, at, green, purple, red, source, hazard,"
               " hazards_after) VALUES (1, 1, '2026-11-29T20:00:01+00:00', '2', '3', '4',"
               " 'os', 0, 0)")
    db.close()
    return path


def test_history_reads_a_database_from_before_maps_without_changing_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = version_2_database(tmp_path)
    before = path.read_bytes()
    code, out, _ = run_cli(capsys, "history", "--state-dir", str(tmp_path))
    assert code == 0
    assert out.splitlines()[0].startswith("game 1: Skull Island, table, started ")
    code, out, _ = run_cli(capsys, "history", "--json", "--state-dir", str(tmp_path))
    game = json.loads(out.splitlines()[0])["game"]
    assert (game["map"], game["parts"], game["rounds"]) == (None, None, 1)
    assert path.read_bytes() == before


def test_an_old_game_is_resumed_as_it_was_and_given_a_map(tmp_path: Path) -> None:
    version_2_database(tmp_path)
    store = SessionStore.open(tmp_path)
    assert store.version == len(MIGRATIONS)
    sim = make("5,5,5", store=store, map_seeds=lambda: 777)
    assert sim.box.game.state.rounds == 1
    assert sim.box.game.state.last_roll == Roll.from_str("2,3,4")
    assert sim.box.view().map_tag == "A·777"
    (game,) = store.games()
    assert game.map == TableMap(find_title("island"), Side.A, 777)
    sim.close()


def test_history_names_the_map_of_a_game_played_in_the_box(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sim = make("1,2,3", title="temple", store=SessionStore.open(tmp_path),
               map_seeds=lambda: 31415)
    sim.press()
    sim.close()
    code, out, _ = run_cli(capsys, "history", "--state-dir", str(tmp_path))
    assert code == 0
    first, second = out.splitlines()[:2]
    assert first.startswith("game 1: The Temple of Apikhabou, table, map A·31415, started ")
    assert second == "  the sheet: pitable sheet temple --seed 31415 --side a"
    code, out, _ = run_cli(capsys, "history", "--json", "--state-dir", str(tmp_path))
    game = json.loads(out.splitlines()[0])["game"]
    assert game["map"] == {"title": "temple", "side": "a", "seed": 31415}


def test_a_map_of_another_title_is_refused(tmp_path: Path) -> None:
    from pitable.errors import StoreError

    with (
        SessionStore.open(tmp_path) as store,
        pytest.raises(StoreError, match="a map of island for a game of valley"),
    ):
        store.new_game("valley", "table", TableMap(find_title("island"), Side.A, 1))


def test_the_header_shows_the_tag_whole_or_not_at_all() -> None:
    temple = find_title("temple")
    table = StatusView(title=temple, round=3)
    assert not same(draw_status(table), draw_status(dataclasses.replace(table, map_tag="A·7")))
    # In solo play beside "12 mummies  R 120" a six-digit seed has no room: a seed cut short
    # would name another map, so the header keeps the title and leaves the tag out.
    crowded = StatusView(title=temple, solo=True, round=120, hazards=12)
    tagged = dataclasses.replace(crowded, map_tag="A·999999")
    assert same(draw_status(tagged), draw_status(crowded))
