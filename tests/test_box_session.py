"""Games that last: solo rounds and levels, hazard counts, power cuts, damaged state.

Driven through the simulator's inputs, read through its outputs, as in test_box.py.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path

import pytest

from pitable.box.store import DB_NAME, SessionStore
from pitable.render.status import SMALL, StatusView, draw_status
from pitable.render.text import wrap_text
from pitable.rules import Roll, default_title, find_title
from tests.support.box import TAG, end_with_score, make, read_faces
from tests.support.pictures import same


@pytest.mark.parametrize(
    ("snakes", "score", "level"),
    [(0, 112, "Voyager"), (5, 112, "Explorer"), (0, 89, "Tourist"), (2, 82, "Pathfinder")],
)
def test_a_solo_valley_game_ends_after_25_rounds_and_gives_the_level(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, snakes: int, score: int, level: str
) -> None:
    caplog.set_level(logging.INFO, logger="pitable")
    rolls = ["1,2,*"] * snakes + ["2,3,4"] * (25 - snakes) + ["5,5,5"]
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, mode="solo", store=store)
    leds = []
    for _ in range(25):
        sim.press()
        leds.append(sum(sim.led_states()))
    assert leds == [min(5, (r + 4) // 5) for r in range(1, 26)]
    assert "Last round played" in (sim.box.view().message or "")
    sim.press()  # round 26 does not exist
    assert sim.box.game.state.rounds == 25
    assert "Game over after 25 rounds" in (sim.box.view().message or "")
    end_with_score(sim, score)
    game = store.games()[-1]
    assert (game.score, game.level, game.hazards) == (score, level, snakes)
    assert f"{score} stars: {level}" in caplog.text
    sim.close()


def test_the_status_screen_tells_the_stars_needed_for_the_next_level() -> None:
    sim = make(*["2,3,4"] * 25, mode="solo")
    for _ in range(25):
        sim.press()
    end_with_score(sim, 100)
    valley = find_title("valley")
    message = "100 stars; 10 more for Voyager"
    expected = StatusView(title=valley, map_tag=TAG, solo=True, round=25, round_limit=25,
                          hazards=0, message=message, result="Pathfinder")
    assert same(sim.panel("status"), draw_status(expected))
    # The level and the stars still needed are there whole, not cut off.
    assert sim.box.view().message == message
    assert not any(line.endswith("…") for line in wrap_text(message, 128, 9, SMALL, 2))
    without = dataclasses.replace(expected, result=None, message=None)
    assert not same(draw_status(expected), draw_status(without))
    sim.close()


@pytest.mark.parametrize(
    ("title", "score", "level"),
    [("island", 59, "Tourist"), ("island", 60, "Pathfinder"), ("island", 90, "Explorer"),
     ("temple", 14, "Tourist"), ("temple", 25, "Voyager"), ("temple", 30, "Explorer")],
)
def test_island_and_temple_levels(tmp_path: Path, title: str, score: int, level: str) -> None:
    store = SessionStore.open(tmp_path)
    sim = make("1,2,3", "4,5,1", title=title, mode="solo", store=store)
    sim.press()
    sim.press()
    end_with_score(sim, score)
    assert store.games()[-1].level == level
    sim.close()


def test_the_island_ignores_the_sixth_danger_and_uses_the_other_dice() -> None:
    sim = make(*["2,3,*"] * 7, title="island", mode="solo")
    for _ in range(5):
        sim.press()
    assert sim.box.game.state.hazards == 5
    assert sim.led_states() == (True,) * 5  # the five danger bubbles
    sim.press()
    island = find_title("island")
    options = island.options(Roll.from_str("2,3,*"), 5)
    assert not options.hazard and options.numbers == (2, 3, 5)
    shown = StatusView(title=island, map_tag=TAG, solo=True, round=6, options=options,
                       reading=island.reading(options, solo=True), hazards=5)
    assert same(sim.panel("status"), draw_status(shown))
    assert sim.box.game.state.hazards == 5
    sim.close()


def test_after_a_power_cut_the_box_shows_the_same_round_and_last_roll(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path)
    sim = make("1,2,3", "4,*,2", "5,5,*", mode="solo", title="temple", store=store)
    for _ in range(3):
        sim.press()
    # The power goes: nothing is closed, nothing is flushed by hand; the kernel lets go of
    # the dead box's lock.
    assert store.lock is not None
    store.lock.release()
    again = make(mode="solo", title="temple", store=SessionStore.open(tmp_path))
    assert read_faces(again, "temple") == read_faces(sim, "temple")
    assert again.box.game.state.rounds == 3
    assert again.box.game.state.hazards == 1
    temple = find_title("temple")
    options = temple.options(Roll.from_str("5,5,*"), 0)
    assert again.box.view().options == options
    again.close()


def test_a_corrupted_database_is_moved_aside_and_the_box_rolls_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="pitable")
    (tmp_path / DB_NAME).write_bytes(os.urandom(8192))
    store = SessionStore.open(tmp_path)
    sim = make("3,1,4", store=store)
    moved = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(moved) == 1 and moved[0].stat().st_size == 8192
    sim.press()
    assert read_faces(sim, "valley") == (3, 1, 4)
    assert "state was damaged: fresh start" in sim.box.notices()
    assert "moved aside" in caplog.text
    assert len(store.rolls(store.games()[-1].id)) == 1
    sim.close()


def test_a_full_disk_does_not_stop_the_game_and_its_rolls_are_kept_until_it_has_room(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import sqlite3

    full = [True]

    class FullConnection:
        """SQLite's connection, on a disk that takes no more rolls while ``full``."""

        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __getattr__(self, name: str) -> object:
            return getattr(self.db, name)

        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
            if sql.startswith("INSERT INTO rolls") and full[0]:
                raise sqlite3.OperationalError("database or disk is full")
            return self.db.execute(sql, *args)  # type: ignore[arg-type]

    class FullDisk(SessionStore):
        def _connection(self) -> sqlite3.Connection:
            return FullConnection(super()._connection())  # type: ignore[return-value]

    store = FullDisk.open(tmp_path)
    sim = make("2,2,2", "3,3,3", store=store)
    sim.press()
    sim.press()
    assert read_faces(sim, "valley") == (3, 3, 3)
    assert "2 rolls waiting to be saved" in sim.box.notices()
    assert "disk is full" in caplog.text
    full[0] = False  # room again: the rolls land, in order, and the notice goes
    sim.advance(2.0)
    game = store.current_game()
    assert game is not None
    assert [str(r.roll) for r in store.rolls(game.id)] == ["2,2,2", "3,3,3"]
    assert not any("saved" in n for n in sim.box.notices())
    sim.close()


def test_after_a_restart_a_new_game_keeps_the_title_and_mode_chosen_last(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path)
    sim = make("1,2,3", store=store)  # the config says: Valley, table
    sim.hold()
    sim.push()  # New game
    sim.turn(5 - 0)  # Temple: solo
    sim.push()
    end_with_score(sim, 20)
    sim.close()
    again = make("4,4,4", store=SessionStore.open(tmp_path))
    assert (again.box.game.state.title.key, again.box.game.state.mode) == ("temple", "solo")
    again.close()


def test_the_level_replaces_a_hazards_alarm() -> None:
    sim = make("2,3,*", mode="solo", title="temple")
    sim.press()
    end_with_score(sim, 27)
    temple = find_title("temple")
    expected = StatusView(title=temple, map_tag=TAG, solo=True, round=1, hazards=1,
                          result="Voyager", message="27 stars; 3 more for Explorer")
    for _ in range(3):  # no blinking any more
        assert same(sim.panel("status"), draw_status(expected))
        sim.advance(0.25)
    sim.close()


def test_a_box_with_no_title_set_plays_the_default_title() -> None:
    sim = make("1,2,3", title=None)
    assert sim.box.game.state.title is default_title()
    sim.press()
    assert read_faces(sim, default_title().key) == (1, 2, 3)
    sim.close()
