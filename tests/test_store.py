"""The session store: games and rolls that survive a power cut; bad state never stops the box."""

from __future__ import annotations

import logging
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pitable.box.store import (
    APPLICATION_ID,
    DB_NAME,
    MIGRATIONS,
    SCHEMA_VERSION,
    SessionStore,
    database_path,
    default_state_dir,
    lock_path,
)
from pitable.errors import (
    GameEnded,
    GameOver,
    InconsistentRoll,
    StoreDamaged,
    StoreError,
    UnknownGame,
)
from pitable.rules import Roll, find_title
from pitable.rules.session import GameState, Mode

T0 = datetime(2026, 11, 29, 11, 22, 33, tzinfo=UTC)
STAMP = "20261129T112233Z"
#: The box's lock file, beside the database of every box that ran.
LOCK = lock_path(Path(DB_NAME)).name
ROLLS = [Roll.from_str(r) for r in ("2,3,5", "*,1,*", "4,*,2", "5,5,*", "1,2,3", "*,*,4")]


class Clock:
    """A clock that moves one second at each reading: times that differ, and are known."""

    def __init__(self, start: datetime = T0, step: timedelta = timedelta(seconds=1)) -> None:
        self.now = start
        self.step = step

    def __call__(self) -> datetime:
        now = self.now
        self.now += self.step
        return now


def frozen(when: datetime = T0) -> Callable[[], datetime]:
    return lambda: when


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore.open(tmp_path, clock=Clock()) as s:
        yield s


def play(store: SessionStore, game_id: int, rolls: list[Roll], source: str = "os") -> None:
    """Roll as the controller does: the rules give the hazard, the store records it."""
    state = store.state(game_id)
    for roll in rolls:
        turn = state.play(roll)
        store.record_roll(game_id, roll, source, turn.hazard, turn.state.hazards)
        state = turn.state


def snapshot(store: SessionStore) -> tuple[object, ...]:
    game = store.current_game()
    assert game is not None
    return (game, store.state(game.id), store.last_roll(game.id), store.rolls(game.id))


def real_database(directory: Path, rolls: int = 600) -> Path:
    """A database of the store with many rolls, closed cleanly: one file, no WAL."""
    with SessionStore.open(directory, clock=Clock(step=timedelta(milliseconds=10))) as s:
        game = s.new_game("valley", "table")
        play(s, game.id, (ROLLS * (rolls // len(ROLLS) + 1))[:rolls])
        return s.path


def fails_integrity_check(path: Path) -> bool:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA integrity_check").fetchall() != [("ok",)]
    except (sqlite3.DatabaseError, MemoryError):
        return True
    finally:
        db.close()


def moved_aside(directory: Path) -> list[str]:
    return sorted(
        p.name for p in directory.iterdir() if ".corrupt-" in p.name or ".foreign-" in p.name
    )


# --- games and rolls ---------------------------------------------------------------


def test_a_game_from_first_roll_to_its_level(store: SessionStore) -> None:
    game = store.new_game("wiraqocha", "solo")
    assert (game.title, game.mode, game.rounds, game.hazards, game.ended) == (
        "valley",
        Mode.SOLO,
        0,
        0,
        False,
    )
    assert store.current_game() == game
    play(store, game.id, ROLLS, source="hwrng:/dev/hwrng")
    records = store.rolls(game.id)
    assert [r.n for r in records] == [1, 2, 3, 4, 5, 6]
    assert [r.roll for r in records] == ROLLS
    assert [r.hazard for r in records] == [False, True, False, True, False, False]
    assert [r.hazards_after for r in records] == [0, 1, 1, 2, 2, 2]
    assert {r.source for r in records} == {"hwrng:/dev/hwrng"}
    assert records == sorted(records, key=lambda r: r.at)
    assert store.last_roll(game.id) == records[-1]
    # 2 snakes: Explorer takes 130 - 8 = 122 stars.
    ended = store.end_game(game.id, score=122)
    assert (ended.score, ended.level, ended.hazards, ended.rounds) == (122, "Explorer", 2, 6)
    assert ended.ended
    assert store.current_game() is None
    assert store.games() == [ended]


def test_the_store_checks_hazards_against_the_rules(store: SessionStore) -> None:
    game = store.new_game("island", "table")
    with pytest.raises(InconsistentRoll):
        store.record_roll(game.id, Roll.from_str("1,2,*"), "os", False, 0)
    with pytest.raises(InconsistentRoll):
        store.record_roll(game.id, Roll.from_str("1,2,3"), "os", False, 1)
    assert store.rolls(game.id) == []  # a refused roll leaves nothing behind
    danger = Roll.from_str("1,2,*")
    play(store, game.id, [danger] * 7)
    # The sixth and seventh dangers are ignored: five bubbles, no more.
    assert [r.hazard for r in store.rolls(game.id)] == [True] * 5 + [False] * 2
    assert store.game(game.id).hazards == 5


def test_a_solo_valley_game_takes_25_rolls_and_no_more(store: SessionStore) -> None:
    game = store.new_game("valley", Mode.SOLO)
    play(store, game.id, [ROLLS[0]] * 25)
    assert store.state(game.id).over
    with pytest.raises(GameOver):
        store.record_roll(game.id, ROLLS[0], "os", False, 0)
    assert store.game(game.id).rounds == 25


def test_an_ended_game_takes_no_roll_and_an_unknown_one_is_named(store: SessionStore) -> None:
    game = store.new_game("temple", "table")
    store.end_game(game.id)
    with pytest.raises(GameEnded):
        store.record_roll(game.id, ROLLS[0], "os", False, 0)
    with pytest.raises(UnknownGame, match="no game 99"):
        store.rolls(99)
    with pytest.raises(UnknownGame):
        store.end_game(99, 10)


def test_a_new_game_ends_the_one_in_progress(store: SessionStore) -> None:
    first = store.new_game("valley", "table")
    second = store.new_game("island", "solo")
    assert store.current_game() == second
    assert store.game(first.id).ended
    assert store.game(first.id).score is None


def test_a_score_entered_again_replaces_the_first(store: SessionStore) -> None:
    game = store.new_game("temple", "solo")
    first = store.end_game(game.id, 14)
    again = store.end_game(game.id, 15)
    assert (first.level, again.level) == ("Tourist", "Pathfinder")
    assert again.ended_at == first.ended_at


def test_table_games_have_a_score_but_no_level(store: SessionStore) -> None:
    game = store.new_game("island", "table")
    assert store.end_game(game.id, 80).level is None
    assert store.game(game.id).score == 80


def test_a_closed_store_says_so(tmp_path: Path) -> None:
    s = SessionStore.open(tmp_path)
    s.close()
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.games()


def test_roll_json(store: SessionStore) -> None:
    game = store.new_game("valley", "table")
    play(store, game.id, [Roll.from_str("*,3,*")])
    record = store.rolls(game.id)[0]
    assert record.to_json() == {
        "n": 1,
        "at": "2026-11-29T11:22:34.000+00:00",
        "faces": ["*", 3, "*"],
        "source": "os",
        "hazard": True,
        "hazards_after": 1,
    }


# --- durability --------------------------------------------------------------------


def test_what_is_on_disk_when_record_roll_returns_is_the_whole_state(tmp_path: Path) -> None:
    live = SessionStore.open(tmp_path / "box")
    game = live.new_game("valley", "solo")
    play(live, game.id, ROLLS)
    before = snapshot(live)
    # Copy the files while the store is still open, as a power cut would leave them: the
    # last commits are only in the WAL, nothing was checkpointed or closed.
    assert (tmp_path / "box" / f"{DB_NAME}-wal").stat().st_size > 0
    (tmp_path / "cut").mkdir()
    for suffix in ("", "-wal"):
        shutil.copy(tmp_path / "box" / f"{DB_NAME}{suffix}", tmp_path / "cut")
    live.close()
    with SessionStore.open(tmp_path / "cut") as after:
        assert after.recovered is None
        assert snapshot(after) == before
        assert after.state(game.id) == GameState(find_title("valley"), Mode.SOLO, 6, 2, ROLLS[-1])


def test_a_process_that_dies_without_closing_loses_nothing(tmp_path: Path) -> None:
    driver = (
        "import os, sys\n"
        "from pitable.box.store import SessionStore\n"
        "from pitable.rules import Roll\n"
        "s = SessionStore.open(sys.argv[1])\n"
        "g = s.new_game('island', 'solo')\n"
        "state = s.state(g.id)\n"
        "for text in ('1,2,*', '3,4,5', '*,*,*'):\n"
        "    turn = state.play(Roll.from_str(text))\n"
        "    s.record_roll(g.id, turn.roll, 'os', turn.hazard, turn.state.hazards)\n"
        "    state = turn.state\n"
        "os._exit(0)  # no close, no checkpoint, no atexit\n"
    )
    subprocess.run([sys.executable, "-c", driver, str(tmp_path)], check=True, timeout=60)
    with SessionStore.open(tmp_path) as s:
        game = s.current_game()
        assert game is not None
        assert (game.title, game.mode, game.rounds, game.hazards) == ("island", Mode.SOLO, 3, 2)
        last = s.last_roll(game.id)
        assert last is not None
        assert (last.n, last.roll) == (3, Roll.from_str("*,*,*"))


def test_the_database_is_in_wal_mode_with_full_sync(store: SessionStore) -> None:
    db = store._connection()
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


# --- schema versions ---------------------------------------------------------------


def test_a_version_1_database_is_migrated_without_losing_rows(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(MIGRATIONS[0])
    db.execute("PRAGMA user_version = 1")
    db.execute(
        "INSERT INTO games (id, title, mode, started_at, hazards) VALUES"
        " (1, 'valley', 'solo', '2026-11-28T20:00:00+00:00', 1)"
    )
    for n, (faces, hazard, after) in enumerate(
        [(("2", "3", "5"), 0, 0), (("*", "1", "*"), 1, 1), (("4", "4", "4"), 0, 1)], start=1
    ):
        db.execute(
            "INSERT INTO rolls (game_id, n, at, green, purple, red, source, hazard,"
            " hazards_after) VALUES (1, ?, ?, ?, ?, ?, 'os', ?, ?)",
            (n, f"2026-11-28T20:0{n}:00+00:00", *faces, hazard, after),
        )
    db.close()

    with SessionStore.open(tmp_path) as s:
        assert s.recovered is None
        db = s._connection()
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type='index'")}
        assert "rolls_game_round" in indexes
        game = s.current_game()
        assert game is not None
        assert (game.id, game.rounds, game.hazards) == (1, 3, 1)
        assert [r.roll for r in s.rolls(1)] == [
            Roll.from_str("2,3,5"),
            Roll.from_str("*,1,*"),
            Roll.from_str("4,4,4"),
        ]
        # The migrated game goes on where it was.
        play(s, 1, [Roll.from_str("1,1,*")])
        assert s.state(1).hazards == 2
    assert moved_aside(tmp_path) == []


@pytest.mark.parametrize("empty", ["no file", "0 bytes", "sqlite, version 0"])
def test_a_version_0_database_becomes_the_current_schema(tmp_path: Path, empty: str) -> None:
    path = tmp_path / DB_NAME
    if empty == "0 bytes":
        path.write_bytes(b"")
    elif empty == "sqlite, version 0":
        sqlite3.connect(path).execute("PRAGMA user_version = 0").connection.close()
    with SessionStore.open(tmp_path) as s:
        assert s.recovered is None
        db = s._connection()
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert s.games() == []


def test_a_database_of_a_newer_pitable_is_moved_aside_untouched(tmp_path: Path) -> None:
    path = real_database(tmp_path, rolls=10)
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    original = path.read_bytes()
    with SessionStore.open(tmp_path, clock=frozen()) as s:
        assert s.recovered is not None
        assert "newer" in s.recovered
        assert s.games() == []
    assert moved_aside(tmp_path) == [f"{DB_NAME}.foreign-{STAMP}"]
    assert (tmp_path / f"{DB_NAME}.foreign-{STAMP}").read_bytes() == original


def test_another_programs_database_is_moved_aside(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / DB_NAME)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.commit()
    db.close()
    with SessionStore.open(tmp_path, clock=frozen()) as s:
        assert s.recovered is not None
        assert "another program" in s.recovered
    assert moved_aside(tmp_path) == [f"{DB_NAME}.foreign-{STAMP}"]


# --- damaged state never stops the box ---------------------------------------------


def test_random_bytes_are_moved_aside_and_a_fresh_database_rolls(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    junk = random.Random(5).randbytes(20_000)
    (tmp_path / DB_NAME).write_bytes(junk)
    with (
        caplog.at_level(logging.WARNING, logger="pitable.store"),
        SessionStore.open(tmp_path, clock=frozen()) as s,
    ):
        assert s.recovered == (
            f"{DB_NAME} was damaged (file is not a database): moved aside to"
            f" {DB_NAME}.corrupt-{STAMP}, started a fresh one"
        )
        assert s.moved_aside == tmp_path / f"{DB_NAME}.corrupt-{STAMP}"
        game = s.new_game("valley", "table")
        play(s, game.id, ROLLS)
        assert len(s.rolls(game.id)) == len(ROLLS)
    assert [r.name for r in caplog.records] == ["pitable.store"]
    assert "moved aside" in caplog.records[0].getMessage()
    assert (tmp_path / f"{DB_NAME}.corrupt-{STAMP}").read_bytes() == junk  # nothing lost
    with SessionStore.open(tmp_path) as s:
        assert s.recovered is None  # the fresh database is sound on the next start


def test_a_truncated_database_is_moved_aside(tmp_path: Path) -> None:
    path = real_database(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2 + 100])
    with SessionStore.open(tmp_path, clock=frozen()) as s:
        assert s.recovered is not None
        assert s.games() == []
    assert moved_aside(tmp_path) == [f"{DB_NAME}.corrupt-{STAMP}"]


def test_a_database_that_fails_its_integrity_check_is_moved_aside(tmp_path: Path) -> None:
    path = real_database(tmp_path)
    data = bytearray(path.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    # A page of rolls in the middle of the file (the first table leaf there that holds
    # cells: byte 0 is its type, 0x0D, bytes 3-4 its count of cells; the empty tables of
    # the schema's later versions lie in the middle too).
    middle = next(
        offset
        for offset in range(len(data) // page_size // 2 * page_size, len(data), page_size)
        if data[offset] == 0x0D and int.from_bytes(data[offset + 3 : offset + 5], "big")
    )
    # Garbage over the cell pointers of that page: the file still opens, and only reading
    # that page (as the integrity check does) finds it.
    data[middle + 12 : middle + 28] = b"\xff" * 16
    path.write_bytes(bytes(data))
    assert fails_integrity_check(path)
    with SessionStore.open(tmp_path, clock=frozen()) as s:
        assert s.recovered is not None
        assert "damaged" in s.recovered
        assert "\n" not in s.recovered  # one line for the status screen
    assert moved_aside(tmp_path) == [f"{DB_NAME}.corrupt-{STAMP}"]
    assert (tmp_path / f"{DB_NAME}.corrupt-{STAMP}").read_bytes() == bytes(data)


def test_the_wal_and_shm_files_go_with_the_database(tmp_path: Path) -> None:
    # (A damaged main file beside a sound WAL that holds every page is not damaged at all:
    # SQLite reads the pages from the WAL. Both files are damaged here.)
    files = {
        "": b"not a database, not at all" * 200,
        "-wal": b"a damaged WAL" * 300,
        "-shm": bytes(32768),
    }
    for suffix, content in files.items():
        (tmp_path / f"{DB_NAME}{suffix}").write_bytes(content)
    with SessionStore.open(tmp_path, clock=frozen()) as s:
        assert s.recovered is not None
        assert s.games() == []
    assert moved_aside(tmp_path) == [
        f"{DB_NAME}.corrupt-{STAMP}",
        f"{DB_NAME}.corrupt-{STAMP}-shm",
        f"{DB_NAME}.corrupt-{STAMP}-wal",
    ]
    # The -shm file is only an index of the WAL, which SQLite may rebuild while reading.
    for suffix in ("", "-wal"):
        assert (tmp_path / f"{DB_NAME}.corrupt-{STAMP}{suffix}").read_bytes() == files[suffix]


def test_two_corruptions_in_a_row_keep_both_files(tmp_path: Path) -> None:
    first, second = b"first damaged file" * 100, b"second damaged file" * 100
    (tmp_path / DB_NAME).write_bytes(first)
    SessionStore.open(tmp_path, clock=frozen()).close()
    (tmp_path / DB_NAME).write_bytes(second)
    with SessionStore.open(tmp_path, clock=frozen()) as s:  # the same second
        assert s.moved_aside == tmp_path / f"{DB_NAME}.corrupt-{STAMP}-2"
    assert moved_aside(tmp_path) == [f"{DB_NAME}.corrupt-{STAMP}", f"{DB_NAME}.corrupt-{STAMP}-2"]
    assert (tmp_path / f"{DB_NAME}.corrupt-{STAMP}").read_bytes() == first
    assert (tmp_path / f"{DB_NAME}.corrupt-{STAMP}-2").read_bytes() == second


def test_without_recovery_damaged_state_is_reported_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"\x00garbage" * 1000)
    with pytest.raises(StoreDamaged, match="not a database"):
        SessionStore.open(tmp_path, recover=False)
    assert moved_aside(tmp_path) == []
    assert (tmp_path / DB_NAME).read_bytes() == b"\x00garbage" * 1000


def test_a_database_locked_by_another_process_is_never_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")  # rollback-journal mode: a writer blocks readers
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO t VALUES (1)")
    try:
        with pytest.raises(StoreError, match="in use"):
            SessionStore.open(tmp_path, timeout=0.05)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert moved_aside(tmp_path) == []


# --- where the state lives ---------------------------------------------------------


def test_systemd_state_directory_comes_first() -> None:
    env = {
        "STATE_DIRECTORY": "/var/lib/pitable:/var/lib/other",
        "XDG_STATE_HOME": "/x",
        "HOME": "/home/pi",
    }
    assert default_state_dir(env) == Path("/var/lib/pitable")


def test_then_the_xdg_state_directory() -> None:
    assert default_state_dir({"XDG_STATE_HOME": "/x/state", "HOME": "/h"}) == Path(
        "/x/state/pitable"
    )
    # A relative XDG_STATE_HOME is invalid by the XDG spec and is ignored.
    assert default_state_dir({"XDG_STATE_HOME": "rel", "HOME": "/h"}) == Path(
        "/h/.local/state/pitable"
    )
    assert default_state_dir({"HOME": "/home/pi"}) == Path("/home/pi/.local/state/pitable")


def test_an_explicit_location_wins(tmp_path: Path) -> None:
    assert database_path(tmp_path) == tmp_path / DB_NAME
    assert database_path(tmp_path / "elsewhere") == tmp_path / "elsewhere" / DB_NAME
    assert database_path(tmp_path / "games.db") == tmp_path / "games.db"
    env = {"STATE_DIRECTORY": "/var/lib/pitable"}
    assert database_path("", env) == Path("/var/lib/pitable") / DB_NAME
    assert database_path(None, env) == Path("/var/lib/pitable") / DB_NAME


def test_the_store_opens_in_the_state_directory_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    with SessionStore.open() as s:
        s.new_game("temple", "solo")
        assert s.path == tmp_path / "state" / DB_NAME
    assert (tmp_path / "state" / DB_NAME).is_file()
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    with SessionStore.open() as s:
        assert s.path == tmp_path / "xdg" / "pitable" / DB_NAME
        assert s.games() == []


def test_a_state_directory_that_cannot_be_created_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("in the way")
    with pytest.raises(StoreError, match="file is not a directory"):
        SessionStore.open(tmp_path / "file" / "state")
    assert (tmp_path / "file").read_text() == "in the way"


def test_moving_aside_never_touches_other_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("keep")
    (tmp_path / DB_NAME).write_bytes(os.urandom(4096))
    SessionStore.open(tmp_path, clock=frozen()).close()
    assert (tmp_path / "notes.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "notes.txt",
        DB_NAME,
        f"{DB_NAME}.corrupt-{STAMP}",
        LOCK,
    ]


def test_a_failed_write_leaves_the_store_usable(store: SessionStore) -> None:
    game = store.new_game("valley", "table")
    db = store._connection()
    # Stands in for a write that SQLite refuses (a full disk, an I/O error).
    db.execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON rolls BEGIN SELECT RAISE(ABORT, 'disk"
        " full'); END"
    )
    with pytest.raises(StoreError, match="disk full"):
        store.record_roll(game.id, ROLLS[0], "os", False, 0)
    db.execute("DROP TRIGGER refuse")
    play(store, game.id, ROLLS[:2])
    assert [r.n for r in store.rolls(game.id)] == [1, 2]


# --- a database that cannot be written is read-only, not damaged --------------------


def untouched(path: Path) -> tuple[bytes, int]:
    """What a reader must leave as it was: the file's bytes and its modification time."""
    return path.read_bytes(), path.stat().st_mtime_ns


@pytest.fixture
def refuse_writes(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Once called, every read-write connection that SQLite makes to a file refuses writes
    with its own SQLITE_READONLY, as for a read-only file, directory or filesystem (these
    tests run as root in CI, which file permissions do not stop)."""
    real_connect = sqlite3.connect

    def connect(database: str | os.PathLike[str], *args: object, **kwargs: object) -> object:
        db = real_connect(database, *args, **kwargs)  # type: ignore[call-overload]
        if not kwargs.get("uri") and database != ":memory:":
            db.execute("PRAGMA query_only = ON")
        return db

    return lambda: monkeypatch.setattr(sqlite3, "connect", connect)


def saved_game(directory: Path) -> Path:
    with SessionStore.open(directory, clock=Clock()) as s:
        game = s.new_game("island", "solo")
        play(s, game.id, ROLLS[:3])
        return s.path


def test_a_sound_database_that_cannot_be_written_opens_read_only_and_untouched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, refuse_writes: Callable[[], None]
) -> None:
    path = saved_game(tmp_path)
    before = untouched(path)
    refuse_writes()
    with caplog.at_level(logging.WARNING, logger="pitable.store"):
        s = SessionStore.open(tmp_path)
    with s:
        assert s.recovered is None
        assert s.moved_aside is None
        assert s.read_only is not None
        assert "rolls are not being saved" in s.read_only
        game = s.current_game()
        assert game is not None and game.rounds == 3
        assert [r.roll for r in s.rolls(game.id)] == ROLLS[:3]
        with pytest.raises(StoreError, match="readonly"):
            s.record_roll(game.id, ROLLS[3], "os", *hazard_of(s, game.id, ROLLS[3]))
        with pytest.raises(StoreError, match="readonly"):
            s.new_game("temple", "table")
    assert "rolls are not being saved" in caplog.text
    assert untouched(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [DB_NAME, LOCK]


def test_an_empty_database_that_cannot_be_written_reads_as_no_games(
    tmp_path: Path, refuse_writes: Callable[[], None]
) -> None:
    (tmp_path / DB_NAME).write_bytes(b"")
    refuse_writes()
    with SessionStore.open(tmp_path) as s:
        assert s.read_only is not None
        assert s.current_game() is None
        assert s.games() == []
        with pytest.raises(StoreError, match="readonly"):
            s.new_game("valley", "table")
    assert (tmp_path / DB_NAME).read_bytes() == b""
    assert moved_aside(tmp_path) == []


def test_a_damaged_database_is_moved_aside_even_when_writes_are_refused(
    tmp_path: Path, refuse_writes: Callable[[], None]
) -> None:
    (tmp_path / DB_NAME).write_bytes(b"\x00garbage" * 1000)
    refuse_writes()
    with pytest.raises(StoreError):
        SessionStore.open(tmp_path, clock=frozen())
    # Moved aside, as any damaged database; the fresh one could not be written either.
    assert moved_aside(tmp_path) == [f"{DB_NAME}.corrupt-{STAMP}"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only files")
def test_a_read_only_file_in_a_read_only_directory_is_left_alone(tmp_path: Path) -> None:
    path = saved_game(tmp_path)
    before = untouched(path)
    path.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        with SessionStore.open(tmp_path) as s:
            assert s.read_only is not None and s.recovered is None
            assert s.current_game() is not None
    finally:
        tmp_path.chmod(0o755)
    assert untouched(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [DB_NAME, LOCK]


def hazard_of(store: SessionStore, game_id: int, roll: Roll) -> tuple[bool, int]:
    turn = store.state(game_id).play(roll)
    return turn.hazard, turn.state.hazards


# --- readers open read-only ----------------------------------------------------------


def test_a_reader_changes_no_byte_and_makes_no_file(tmp_path: Path) -> None:
    path = saved_game(tmp_path)
    before = untouched(path)
    with SessionStore.open_read_only(tmp_path) as s:
        game = s.current_game()
        assert game is not None
        assert len(s.rolls(game.id)) == 3
        with pytest.raises(StoreError):
            s.end_game(game.id)
    assert untouched(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [DB_NAME, LOCK]


def every_file(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in ``directory``: its bytes and its modification time."""
    return {p.name: untouched(p) for p in sorted(directory.iterdir())}


def died_while_rolling(directory: Path, rolls: int) -> None:
    """A box that recorded ``rolls`` rolls and then died (SIGKILL, a power cut): its last
    rolls are only in the WAL beside the database, with the WAL's index."""
    code = (
        "import os, sys\n"
        "from pitable.box.store import SessionStore\n"
        "from pitable.rules import Roll\n"
        "s = SessionStore.open(sys.argv[1])\n"
        "g = s.new_game('temple', 'table')\n"
        "for n in range(int(sys.argv[2])):\n"
        "    s.record_roll(g.id, Roll.from_str(f'{n % 5 + 1},2,3'), 'os', False, 0)\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(directory), str(rolls)], check=True,
                   cwd=Path(__file__).resolve().parent.parent)


@pytest.mark.parametrize("how", ["history", "open_read_only"])
def test_a_reader_after_a_box_died_sees_every_roll_and_changes_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    died_while_rolling(tmp_path, 7)
    assert (tmp_path / f"{DB_NAME}-wal").stat().st_size > 0
    before = every_file(tmp_path)
    if how == "history":
        from tests.conftest import run_cli

        code, out, err = run_cli(capsys, "history", "--state-dir", str(tmp_path))
        assert code == 0, err
        assert "round 7" in out
        assert [line.split()[2] for line in out.splitlines()[1:]] == [
            f"{n % 5 + 1},2,3" for n in range(7)]
    else:
        with SessionStore.open_read_only(tmp_path) as s:
            game = s.current_game()
            assert game is not None and game.rounds == 7
            assert [str(r.roll) for r in s.rolls(game.id)] == [
                f"{n % 5 + 1},2,3" for n in range(7)]
    # Not a byte of the database, its WAL, the WAL's index or the lock file changed.
    assert every_file(tmp_path) == before
    # And the box, when it starts again, recovers the same rolls from its own WAL.
    with SessionStore.open(tmp_path) as box:
        game = box.current_game()
        assert game is not None and game.rounds == 7


def test_a_reader_of_a_database_with_an_empty_wal_changes_no_file(tmp_path: Path) -> None:
    path = saved_game(tmp_path)
    # What a box leaves that stopped between a checkpoint and its next roll.
    Path(f"{path}-wal").write_bytes(b"")
    before = every_file(tmp_path)
    with SessionStore.open_read_only(tmp_path) as s:
        game = s.current_game()
        assert game is not None and game.rounds == 3
    assert every_file(tmp_path) == before


def test_a_reader_beside_a_running_box_sees_its_last_roll(tmp_path: Path) -> None:
    with SessionStore.open(tmp_path) as box:
        game = box.new_game("valley", "solo")
        play(box, game.id, ROLLS[:4])
        # The box's rolls are in its WAL, not yet in the file: a reader must see them.
        assert (tmp_path / f"{DB_NAME}-wal").stat().st_size > 0
        with SessionStore.open_read_only(tmp_path) as reader:
            assert [r.roll for r in reader.rolls(game.id)] == ROLLS[:4]
        play(box, game.id, ROLLS[4:5])
        with SessionStore.open_read_only(tmp_path) as reader:
            assert [r.roll for r in reader.rolls(game.id)] == ROLLS[:5]


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda p: None, UnknownGame, "no saved games: .* does not exist"),
        (lambda p: p.write_bytes(b""), UnknownGame, "no saved games: .* is empty"),
        (lambda p: p.mkdir(), StoreError, "is a directory, not a database"),
        (os.mkfifo, StoreError, "not a regular file"),
        (lambda p: p.write_bytes(b"junk" * 1000), StoreDamaged, "not a database"),
    ],
    ids=["missing", "empty", "directory", "fifo", "junk"],
)
def test_a_reader_names_what_is_there_and_creates_nothing(
    tmp_path: Path, make: Callable[[Path], object], error: type[Exception], message: str
) -> None:
    path = tmp_path / DB_NAME
    make(path)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(error, match=message):
        SessionStore.open_read_only(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    if path.is_dir():
        assert list(path.iterdir()) == []


def test_the_box_refuses_a_directory_or_fifo_where_its_database_goes(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).mkdir()
    with pytest.raises(StoreError, match="is a directory"):
        SessionStore.open(tmp_path)
    assert list((tmp_path / DB_NAME).iterdir()) == []
    fifo = tmp_path / "fifo" / DB_NAME
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match="not a regular file"):
        SessionStore.open(fifo.parent)


def test_the_simulator_rolls_on_a_database_it_may_not_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], refuse_writes: Callable[[], None]
) -> None:
    from tests.conftest import run_cli

    path = saved_game(tmp_path)
    before = untouched(path)
    refuse_writes()
    code, _, err = run_cli(capsys, "sim", "--state-dir", str(tmp_path), "--script", "press")
    assert code == 0, err
    assert "Traceback" not in err
    assert untouched(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [DB_NAME, LOCK]


def _read_only_mount_works(directory: Path) -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c",
         f"mount --bind '{directory}' '{directory}' && mount -o remount,ro,bind"
         f" '{directory}' '{directory}'"],
        capture_output=True, check=False,
    )
    return probe.returncode == 0


def test_the_simulator_on_a_read_only_filesystem_leaves_the_database_as_it_was(
    tmp_path: Path,
) -> None:
    # A real read-only filesystem stops root too: a bind mount made read-only in a mount
    # namespace of the test's own, gone when the command ends.
    state = tmp_path / "state"
    state.mkdir()
    if not _read_only_mount_works(state):
        pytest.skip("needs unshare and mount (root, CAP_SYS_ADMIN)")
    path = saved_game(state)
    before = untouched(path)
    command = (
        f"mount --bind '{state}' '{state}' && mount -o remount,ro,bind '{state}' '{state}'"
        f" && exec '{sys.executable}' -m pitable sim --state-dir '{state}' --script press,press"
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", command], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "rolls are not being saved" in done.stderr
    assert "moved aside" not in done.stderr
    assert untouched(path) == before
    assert sorted(p.name for p in state.iterdir()) == [DB_NAME, LOCK]


def test_the_page_cache_is_bounded_so_a_long_running_box_does_not_grow(tmp_path: Path) -> None:
    from pitable.box.store import PAGE_CACHE_KIB

    store = SessionStore.open(tmp_path)
    try:
        db = store._connection()
        assert db.execute("PRAGMA cache_size").fetchone()[0] == -PAGE_CACHE_KIB
    finally:
        store.close()
