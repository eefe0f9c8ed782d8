"""The kill test: a rolling box killed with SIGKILL, hundreds of times, loses no shown roll.

tests/rolling_driver.py runs the whole box on its fakes with the session store, presses
ROLL in a loop, and prints ``shown <id> <faces>`` only once the faces are on the panels.
After each kill the database must hold every roll reported as shown, with the faces
shown, pass ``PRAGMA integrity_check``, and reopen without being moved aside.

Most kills come right after the driver has reported a random number of shown rolls (1 to
40), so they land while it is rolling however busy the machine is; the rest come at a
random moment of start-up, while the store is opening, checking or migrating (where they
land there does not matter to any check).

SIGKILL stops the process but not the kernel, so this proves the commit protocol (nothing
is reported before it is committed; nothing committed is lost or damaged by dying at any
instruction), not the disk's behaviour on a power cut, which synchronous=FULL covers.

The everyday run kills 10 times; the slow run (``scripts/test --all``, as in CI) 500 times.
PITABLE_KILLS overrides both.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pitable.box.store import DB_NAME
from pitable.rules import Roll, find_title
from pitable.rules.session import GameState, Mode

DRIVER = Path(__file__).with_name("rolling_driver.py")
#: Kills in the everyday run and in the slow one; PITABLE_KILLS overrides both.
QUICK_KILLS = 10
SLOW_KILLS = 500
OVERRIDE = os.environ.get("PITABLE_KILLS")
#: The most shown rolls read before a kill.
MOST_SHOWN_BEFORE_KILL = 40
#: The share of kills that come during start-up instead of while rolling.
EARLY = 0.15


def read_only(path: Path) -> sqlite3.Connection:
    # Read-only, so that checking neither checkpoints nor removes the WAL the killed
    # process left: the next driver must recover it by itself, as the box would.
    return sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)


def check_after_kill(path: Path, shown: dict[int, str], ended: set[int]) -> None:
    db = read_only(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        stored = {
            rid: f"{g},{p},{r}"
            for rid, g, p, r in db.execute("SELECT id, green, purple, red FROM rolls")
        }
        lost = {rid for rid in shown if rid not in stored}
        assert not lost, f"rolls shown but not in the database: {sorted(lost)[:10]}"
        wrong = {rid for rid, faces in shown.items() if stored[rid] != faces}
        assert not wrong, f"rolls stored with other faces than shown: {sorted(wrong)[:10]}"
        open_ended = [
            gid
            for (gid,) in db.execute("SELECT id FROM games WHERE ended_at IS NULL")
            if gid in ended
        ]
        assert not open_ended, f"games reported ended but open: {open_ended}"
    finally:
        db.close()


def check_games_follow_the_rules(path: Path) -> None:
    """Every stored game is what the rules give from its rolls, round after round."""
    db = read_only(path)
    try:
        games = db.execute("SELECT id, title, mode, hazards, ended_at FROM games").fetchall()
        assert sum(1 for g in games if g[4] is None) <= 1  # one game in progress at most
        for gid, title, mode, hazards, _ in games:
            state = GameState(find_title(title), Mode(mode))
            rows = db.execute(
                "SELECT n, green, purple, red, hazard, hazards_after FROM rolls"
                " WHERE game_id = ? ORDER BY n",
                (gid,),
            ).fetchall()
            for n, g, p, r, hazard, after in rows:
                turn = state.play(Roll.from_str(f"{g},{p},{r}"))
                assert (n, bool(hazard), after) == (turn.round, turn.hazard, turn.state.hazards)
                state = turn.state
            assert hazards == state.hazards
    finally:
        db.close()


def wait_for_shown(driver: subprocess.Popen[str], count: int) -> list[str]:
    """Read the driver's lines until ``count`` of them report a shown roll."""
    assert driver.stdout is not None
    lines = []
    seen = 0
    while seen < count:
        line = driver.stdout.readline()
        if not line:
            driver.kill()
            _, errors = driver.communicate(timeout=30)
            pytest.fail(f"the driver stopped before {count} rolls ({driver.returncode}): "
                        f"{''.join(lines)}{errors}")
        lines.append(line)
        seen += line.startswith("shown ")
    return lines


def kill_again_and_again(tmp_path: Path, kills: int) -> None:
    rng = random.Random(os.environ.get("PITABLE_KILL_SEED", "5"))
    path = tmp_path / DB_NAME
    shown: dict[int, str] = {}
    ended: set[int] = set()
    kills_while_rolling = 0
    for _ in range(kills):
        driver = subprocess.Popen(
            [sys.executable, str(DRIVER), str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert driver.stdout is not None
        early = rng.random() < EARLY
        if early:
            # A random moment from start-up to the first rolls: opening, checking, migrating.
            time.sleep(rng.uniform(0, 0.12))
            before = ""
        else:
            before = "".join(wait_for_shown(driver, rng.randint(1, MOST_SHOWN_BEFORE_KILL)))
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
        output = before + driver.stdout.read()
        driver.stdout.close()
        assert driver.stderr is not None
        errors = driver.stderr.read()
        driver.stderr.close()
        if driver.returncode != -signal.SIGKILL:
            pytest.fail(f"the driver stopped by itself ({driver.returncode}): {errors}")
        assert "Traceback" not in errors, errors
        new = 0
        for line in output.split("\n")[:-1]:  # a line cut by the kill has no newline
            word, *rest = line.split()
            assert word != "recovered", f"a killed store was moved aside: {line}"
            if word == "shown":
                shown[int(rest[0])] = rest[1]
                new += 1
            elif word == "ended":
                ended.add(int(rest[0]))
        kills_while_rolling += new > 0
        check_after_kill(path, shown, ended)

    check_games_follow_the_rules(path)
    assert sorted(p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name) == []
    # The test has teeth only if most kills came while rolling, across many games.
    assert kills_while_rolling > kills // 2
    assert len(ended) >= 3
    assert len(shown) > kills


def test_sigkill_while_rolling_never_loses_a_shown_roll(tmp_path: Path) -> None:
    kill_again_and_again(tmp_path, int(OVERRIDE or QUICK_KILLS))


@pytest.mark.slow
def test_sigkill_hundreds_of_times_never_loses_a_shown_roll(tmp_path: Path) -> None:
    kill_again_and_again(tmp_path, int(OVERRIDE or SLOW_KILLS))
