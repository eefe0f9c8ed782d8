"""One state directory, one box; a store held by another writer loses no shown roll; the
options a user gives are applied or said not to be.

Two boxes on one store both showed every roll while the store refused some of the second's
(its rules disagreed with the first's rounds), and a write lock held by another program for
longer than SQLite's busy timeout lost the roll shown meanwhile.
"""

from __future__ import annotations

import fcntl
import os
import random
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pitable.box.games import RETRY_MOST_S, WRITES_PER_TURN, Asked
from pitable.box.store import DB_NAME, BoxLock, SessionStore, lock_path
from pitable.errors import StoreError, StoreInUse
from pitable.i18n import translator
from pitable.render.faces import tumble_panel
from pitable.rules import Die, Roll, find_title
from tests.conftest import run_cli
from tests.support.box import make, read_faces
from tests.support.pictures import same

ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).with_name("rolling_driver.py")


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# --- one state directory, one box ----------------------------------------------------


def test_a_second_store_for_a_box_is_refused_naming_the_first_ones_pid(tmp_path: Path) -> None:
    first = SessionStore.open(tmp_path)
    with pytest.raises(StoreInUse, match=rf"in use by another pitable box \(pid {os.getpid()}\)"):
        SessionStore.open(tmp_path)
    # Refused before anything was read or changed: the first box writes on.
    game = first.new_game("valley", "table")
    first.record_roll(game.id, Roll.from_str("1,2,3"), "os", False, 0)
    first.close()
    with SessionStore.open(tmp_path) as second:  # the first one has stopped
        assert second.current_game() is not None
    # A box that stops empties the lock file: no pid is left to be mistaken for a box's.
    assert lock_path(tmp_path / DB_NAME).read_bytes() == b""


def test_a_pid_left_by_a_box_that_died_does_not_hold_the_state(tmp_path: Path) -> None:
    lock_path(tmp_path / DB_NAME).write_text("999999\n")  # no lock is held on it
    with SessionStore.open(tmp_path) as store:
        assert store.lock is not None
        assert lock_path(tmp_path / DB_NAME).read_text() == f"{os.getpid()}\n"


def test_a_lock_file_of_garbage_still_says_that_another_box_holds_it(tmp_path: Path) -> None:
    lock = lock_path(tmp_path / DB_NAME)
    lock.write_bytes(b"\xff\x00 not a pid" * 100)
    with open(lock, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(StoreInUse, match=r"another pitable box \(its pid not yet written"):
            SessionStore.open(tmp_path)
    assert not (tmp_path / DB_NAME).exists()  # nothing was created behind the other box


@pytest.mark.parametrize(
    ("plant", "message"),
    [
        (lambda p: p.symlink_to(p.with_name("elsewhere")), "is a symbolic link"),
        (lambda p: p.mkdir(), "is a directory"),
        (os.mkfifo, "is not a regular file"),
    ],
    ids=["symlink", "directory", "fifo"],
)
def test_a_lock_path_that_is_not_a_file_is_refused_in_one_line(
    tmp_path: Path, plant: object, message: str
) -> None:
    lock = lock_path(tmp_path / DB_NAME)
    plant(lock)  # type: ignore[operator]
    with pytest.raises(StoreError, match=message):
        SessionStore.open(tmp_path, timeout=0.05)
    assert not (tmp_path / "elsewhere").exists()  # a planted link is never followed


@pytest.mark.skipif(os.geteuid() == 0, reason="root opens any file")
def test_a_lock_file_that_cannot_be_opened_is_refused_not_ignored(tmp_path: Path) -> None:
    SessionStore.open(tmp_path).close()
    lock = lock_path(tmp_path / DB_NAME)
    lock.chmod(0)
    try:
        with pytest.raises(StoreError, match=r"lock.* cannot be opened"):
            SessionStore.open(tmp_path)
        with SessionStore.open_read_only(tmp_path):  # a reader reads on, as beside a box
            pass
    finally:
        lock.chmod(0o644)


def test_a_box_waits_for_a_reader_and_refuses_one_that_holds_on(tmp_path: Path) -> None:
    SessionStore.open(tmp_path).close()
    lock = lock_path(tmp_path / DB_NAME)
    with open(lock, "rb") as reader:
        fcntl.flock(reader, fcntl.LOCK_SH)  # as `pitable history` holds it while it reads
        with pytest.raises(StoreInUse, match="being read by another process"):
            BoxLock.take(tmp_path / DB_NAME, wait=0.05)
    taken = BoxLock.take(tmp_path / DB_NAME, wait=0.05)
    assert taken is not None
    taken.release()


def test_a_reader_reads_while_a_box_holds_the_state(tmp_path: Path) -> None:
    box = SessionStore.open(tmp_path)
    game = box.new_game("island", "solo")
    box.record_roll(game.id, Roll.from_str("2,3,4"), "os", False, 0)
    with SessionStore.open_read_only(tmp_path) as reader:
        assert [str(r.roll) for r in reader.rolls(game.id)] == ["2,3,4"]
    # The reader let go of nothing the box needs: it writes on.
    box.record_roll(game.id, Roll.from_str("1,1,1"), "os", False, 0)
    box.close()


def driver(state: Path) -> subprocess.Popen[str]:
    """A box rolling in a loop on ``state`` (tests/rolling_driver.py), once it is ready."""
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), str(state)], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    ready = proc.stdout.readline()
    assert ready.startswith("ready"), (ready, proc.stderr.read() if proc.stderr else "")
    return proc


def pitable(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pitable", *argv], cwd=ROOT, text=True, capture_output=True,
        env={**os.environ, **env}, check=False, timeout=120,
    )


def test_a_second_box_on_a_running_boxs_state_refuses_to_start(tmp_path: Path) -> None:
    state = tmp_path / "state"
    running = driver(state)
    try:
        for argv, env in [
            (["sim", "--state-dir", str(state), "--script", "press,press"], {}),
            (["sim", "--state-dir", str(state), "--game", "island", "--solo", "--script",
              "press"], {}),
            (["run", "--state-dir", str(state)], {"PITABLE_BACKENDS": "sim"}),
        ]:
            done = pitable(*argv, **env)
            assert done.returncode == 1, done.stderr
            line = one_line(done.stderr)
            assert f"in use by another pitable box (pid {running.pid})" in line, line
            assert done.stdout == ""
        # A reader still reads, beside the running box.
        history = pitable("history", "--state-dir", str(state))
        assert history.returncode == 0, history.stderr
        assert history.stdout.startswith("game ")
    finally:
        running.kill()
        running.wait()
    # Once that box is gone (the kernel drops a dead process's lock), a box starts.
    done = pitable("sim", "--state-dir", str(state), "--script", "press")
    assert done.returncode == 0, done.stderr


# --- a store held by another writer ------------------------------------------------------


ROLLS = ["1,2,3", "4,*,2", "5,5,*", "2,2,2", "3,1,4", "*,*,*", "5,4,3", "1,1,2"]


def stored_rolls(store: SessionStore, game_id: int) -> list[str]:
    return [str(r.roll) for r in store.rolls(game_id)]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_write_lock_held_15_s_by_another_writer_loses_no_shown_roll(
    tmp_path: Path, lang: str
) -> None:
    rolls = ROLLS
    store = SessionStore.open(tmp_path)  # SQLite's busy timeout: 5 s, less than the hold
    sim = make(*rolls, tumble_ms=300, store=store, asked=Asked(language=lang))
    valley = find_title("valley")
    sim.press()
    game = sim.box.game
    assert game.store_id is not None
    assert stored_rolls(store, game.store_id) == rolls[:1]
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program takes the write lock, and holds it
    shown = [read_faces(sim, "valley")]
    held_for = 0.0
    _ = translator(lang).ngettext
    for n, _roll in enumerate(rolls[1:], start=1):
        sim.button_down()
        sim.advance(0.12)
        sim.button_up()
        sim.advance(0.1)
        # The loop goes on while the store is held: the tumble runs ...
        tumbling = [same(sim.panel(str(d)), tumble_panel(shown[-1][d], d, valley, s, lang=lang))
                    for d in Die for s in range(6)]
        assert any(tumbling)
        sim.advance(0.4)
        # ... the roll is shown, and the status screen counts the rolls that wait.
        shown.append(read_faces(sim, "valley"))
        waiting = _("{count} roll waiting to be saved", "{count} rolls waiting to be saved",
                    n).format(count=n)
        assert waiting in sim.box.notices()
        assert sim.box.view().options is not None
        sim.advance(2.5)
        held_for += 3.12
    assert held_for >= 15
    assert stored_rolls(store, game.store_id) == rolls[:1]  # nothing got past the lock
    other.execute("ROLLBACK")
    other.close()
    sim.advance(RETRY_MOST_S + 0.1)
    faces = [",".join(str(f) for f in faces) for faces in shown]
    assert stored_rolls(store, game.store_id) == faces == rolls  # every one, in order
    assert not any("saved" in n for n in sim.box.notices())
    sim.close()


def test_writes_wait_in_order_behind_a_waiting_roll(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path)
    sim = make("1,2,3", "3,3,3", "4,4,4", store=store)
    sim.press()
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    sim.press()
    # Ended and a new game started while the roll still waits: each waits behind it.
    sim.box.end_game(30)
    sim.box.start_game(find_title("temple"), "solo")
    sim.press()
    assert "changes waiting to be saved" not in sim.box.notices()
    assert "2 rolls waiting to be saved" in sim.box.notices()
    other.execute("ROLLBACK")
    other.close()
    sim.advance(RETRY_MOST_S + 0.1)
    games = store.games()
    assert [(g.title, g.mode.value, g.score, g.ended) for g in games] == [
        ("valley", "table", 30, True), ("temple", "solo", None, False)]
    assert stored_rolls(store, games[0].id) == ["1,2,3", "3,3,3"]
    assert stored_rolls(store, games[1].id) == ["4,4,4"]
    assert sim.box.game.store_id == games[1].id
    sim.close()


def test_a_roll_that_waited_for_the_store_keeps_the_time_it_was_shown(tmp_path: Path) -> None:
    start = datetime(2026, 5, 1, 18, 0, tzinfo=UTC)
    now = [start]
    store = SessionStore.open(tmp_path, clock=lambda: now[0])
    sim = make("1,2,3", "3,3,3", store=store)
    sim.press()
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    now[0] = start + timedelta(minutes=1)
    sim.press()  # shown now, written only once the other writer lets go
    now[0] = start + timedelta(minutes=20)
    other.execute("ROLLBACK")
    other.close()
    sim.advance(RETRY_MOST_S + 0.1)
    game_id = sim.box.game.store_id
    assert game_id is not None
    assert [r.at for r in store.rolls(game_id)] == [start, start + timedelta(minutes=1)]
    sim.close()


def test_a_long_wait_is_drained_a_few_writes_a_turn(tmp_path: Path) -> None:
    rolls = [f"{n % 5 + 1},{n % 3 + 1},2" for n in range(13)]
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, store=store)
    sim.press()
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    for _ in rolls[1:]:
        sim.press()
    assert sim.box.games.waiting == 12
    other.execute("ROLLBACK")
    other.close()
    assert sim.fake_clock is not None
    sim.fake_clock.advance(RETRY_MOST_S)
    sim.box.step()  # one turn of the loop: a few writes, each synced, then the events
    assert sim.box.games.waiting == 12 - WRITES_PER_TURN
    sim.advance(0.01)
    assert sim.box.games.waiting == 0
    game_id = sim.box.game.store_id
    assert game_id is not None
    assert stored_rolls(store, game_id) == rolls
    sim.close()


def test_writes_still_waiting_when_the_box_stops_get_a_last_try(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path, timeout=0.2)
    sim = make("1,2,3", "2,3,4", store=store)
    sim.press()
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    sim.press()
    other.execute("ROLLBACK")  # let go before the box retried: its close takes it
    other.close()
    game_id = sim.box.game.store_id
    assert game_id is not None
    sim.close()
    with SessionStore.open(tmp_path) as again:
        assert stored_rolls(again, game_id) == ["1,2,3", "2,3,4"]


@pytest.mark.slow
def test_a_lock_held_15_real_seconds_loses_no_roll_shown_meanwhile(tmp_path: Path) -> None:
    """The same in real time: the box's clock follows the wall clock, SQLite's own busy
    timeout (5 s) runs out three times over, and presses come every second."""
    rng = random.Random(25)
    rolls = [f"{rng.randint(1, 5)},{rng.randint(1, 5)},{rng.randint(1, 5)}" for _ in range(17)]
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, tumble_ms=300, store=store, real_waits=True)
    sim.press()
    other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    shown = [read_faces(sim, "valley")]
    for _ in rolls[1:16]:
        sim.button_down()
        sim.wait(0.1)
        sim.button_up()
        sim.wait(0.9)
        shown.append(read_faces(sim, "valley"))
    other.execute("ROLLBACK")
    other.close()
    sim.wait(RETRY_MOST_S + 0.5)
    game_id = sim.box.game.store_id
    assert game_id is not None
    faces = [",".join(str(f) for f in faces) for faces in shown]
    assert stored_rolls(store, game_id) == faces == rolls[:16]
    sim.close()


# --- the options a user gives ------------------------------------------------------------


def started_valley(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "sim", "--state-dir", str(state), "--script", "press,press")
    assert code == 0, err


def test_options_that_a_resumed_game_cannot_take_are_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started_valley(tmp_path, capsys)
    code, out, err = run_cli(capsys, "sim", "--state-dir", str(tmp_path), "--game", "island",
                             "--solo", "--seed", "7", "--script", "press")
    assert code == 0, err
    line = one_line(err)
    for option in ("--game island", "--solo", "--seed 7"):
        assert option in line
    assert "game 1" in line and "resumed" in line and "New game" in line
    assert out.startswith("The Valley of Wiraqocha, table: 3 rolls")


def test_options_that_the_resumed_game_already_has_say_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started_valley(tmp_path, capsys)
    code, _, err = run_cli(capsys, "sim", "--state-dir", str(tmp_path), "--game", "valley",
                           "--script", "press")
    assert code == 0 and err == ""


def test_after_an_ended_game_the_options_choose_the_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with SessionStore.open(tmp_path) as store:
        store.end_game(store.new_game("temple", "table").id)
    code, out, err = run_cli(capsys, "sim", "--state-dir", str(tmp_path), "--game", "island",
                             "--solo", "--script", "press")
    assert code == 0 and err == ""
    assert out.startswith("Skull Island, solo: 1 roll")


def test_the_command_lines_language_wins_over_the_menus(tmp_path: Path) -> None:
    from pitable.box.controller import LANGUAGE_SETTING

    with SessionStore.open(tmp_path) as store:
        store.set_setting(LANGUAGE_SETTING, "es")  # chosen in the menu
    sim = make("1,2,3", store=SessionStore.open(tmp_path), asked=Asked(language="fr"))
    assert sim.box.language == "fr"
    assert sim.box.view().lang == "fr"
    sim.close()
    with SessionStore.open(tmp_path) as store:
        # For this run only: the menu's choice is still the menu's.
        assert store.setting(LANGUAGE_SETTING) == "es"
    without = make("1,2,3", store=SessionStore.open(tmp_path))
    assert without.box.language == "es"
    without.close()


def test_the_command_line_lang_reaches_the_box(tmp_path: Path, monkeypatch:
                                               pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from pitable.box import sim as sim_module
    from pitable.box.controller import LANGUAGE_SETTING

    with SessionStore.open(tmp_path) as store:
        store.set_setting(LANGUAGE_SETTING, "es")
    spoken: list[str] = []
    close = sim_module.Simulator.close

    def closing(self: sim_module.Simulator) -> None:
        spoken.append(self.box.language)
        close(self)

    monkeypatch.setattr(sim_module.Simulator, "close", closing)
    code, _, err = run_cli(capsys, "sim", "--state-dir", str(tmp_path), "--lang", "fr",
                           "--script", "press")
    assert code == 0, err
    assert spoken == ["fr"]
