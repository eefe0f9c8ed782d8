"""The players' kill test: phones' moves written while the box is killed with SIGKILL, again
and again, lose no acknowledged move.

tests/moving_driver.py seats five players at a table game and makes their moves through the
store in a loop (moves, take-backs, finished rounds, new games), printing each only once
the store has returned. After each kill the database must hold every move reported, as it
was reported, every finished round and every player who joined, pass ``PRAGMA
integrity_check``, and reopen without being moved aside.

A take-back is announced before it is made (``taking``): the last move reported in that
round may then be gone, or replaced by a move made after it, unless the take-back is
reported (``took``) and says which it removed. Every other reported move must be there.

Most kills come right after the driver has reported a random number of lines (1 to 40), so
they land while it is writing however busy the machine is; the rest come at a random
moment of start-up. As for the rolls' kill test, this proves the commit protocol, not the
disk's behaviour on a power cut, which synchronous=FULL covers.

The everyday run kills 5 times; the slow run (``scripts/test --all``, as in CI) 200 times.
PITABLE_KILLS overrides both.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pitable.box.players import PlayerBook, StoredMove
from pitable.box.store import DB_NAME, SessionStore
from tests.support.kill import read_only, wait_for_lines

DRIVER = Path(__file__).with_name("moving_driver.py")
#: Kills in the everyday run and in the slow one; PITABLE_KILLS overrides both.
QUICK_KILLS = 5
SLOW_KILLS = 200
OVERRIDE = os.environ.get("PITABLE_KILLS")
#: The most reported lines read before a kill.
MOST_LINES_BEFORE_KILL = 40
#: The share of kills that come during start-up instead of while moving.
EARLY = 0.15

#: A move as reported and as stored: (player, round, seq) -> (act, cells, value), JSON.
Key = tuple[int, int, int]
Move = tuple[str, str, str]


@dataclass
class Reported:
    """What the driver has promised is on disk."""

    moves: dict[Key, Move] = field(default_factory=dict)
    #: Reported moves that a take-back announced but not reported may have removed.
    maybe_gone: set[Key] = field(default_factory=set)
    done: set[tuple[int, int]] = field(default_factory=set)
    joined: set[tuple[int, int]] = field(default_factory=set)
    took: int = 0
    #: The last reported move of the round a take-back was announced for, while unreported.
    taking: Key | None = None

    def read(self, line: str) -> bool:
        """Take one reported line; True for a move."""
        word, *rest = line.split()
        assert word != "recovered", f"a killed store was moved aside: {line}"
        if word == "moved":
            player, rnd, seq = (int(x) for x in rest[:3])
            self.moves[player, rnd, seq] = (rest[3], rest[4], rest[5])
            self.maybe_gone.discard((player, rnd, seq))
            return True
        if word == "taking":
            player, rnd = int(rest[0]), int(rest[1])
            in_round = [k for k in self.moves if k[:2] == (player, rnd)]
            self.taking = max(in_round) if in_round else None
            if self.taking is not None:
                self.maybe_gone.add(self.taking)
        elif word == "took":
            player, rnd, seq = (int(x) for x in rest)
            # The store's last move of the round was ``seq`` (0: none): every reported move
            # after it was already gone, taken back by a take-back the kill left unreported.
            for key in [k for k in self.moves if k[:2] == (player, rnd) and k[2] > seq]:
                assert key in self.maybe_gone, f"{key} reported, then not in the store"
                self.moves.pop(key)
                self.maybe_gone.discard(key)
            if self.taking is not None and self.taking in self.moves:
                self.maybe_gone.discard(self.taking)
            self.taking = None
            if seq:
                self.moves.pop((player, rnd, seq), None)
                self.maybe_gone.discard((player, rnd, seq))
                self.took += 1
        elif word == "done":
            self.done.add((int(rest[0]), int(rest[1])))
        elif word == "joined":
            self.joined.add((int(rest[0]), int(rest[1])))
        return False


def same_text(act: str, cells: str, value: str) -> Move:
    """A move's JSON written one way, whichever way it was written (spacing, escapes)."""
    return act, json.dumps(json.loads(cells)), json.dumps(json.loads(value))


def check_after_kill(path: Path, reported: Reported) -> None:
    db = read_only(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        stored = {
            (p, r, s): same_text(act, cells, value if value is not None else "null")
            for p, r, s, act, cells, value in db.execute(
                "SELECT player_id, round, seq, act, cells, value FROM moves"
            )
        }
        lost = sorted(k for k in reported.moves if k not in stored and k not in reported.maybe_gone)
        assert not lost, f"moves reported but not in the database: {lost[:10]}"
        wrong = sorted(
            k
            for k, move in reported.moves.items()
            if k in stored and k not in reported.maybe_gone and stored[k] != same_text(*move)
        )
        assert not wrong, f"moves stored otherwise than reported: {wrong[:10]}"
        done = set(db.execute("SELECT player_id, round FROM turns_done"))
        assert reported.done <= done, f"rounds reported done but open: {reported.done - done}"
        joined = set(db.execute("SELECT id, game_id FROM players"))
        assert reported.joined <= joined, (
            f"players reported but missing: {reported.joined - joined}"
        )
    finally:
        db.close()


def check_the_store_gives_every_sheet_back(directory: Path, reported: Reported) -> None:
    """The store reopens as it was, and its players' book gives back every reported move."""
    with SessionStore.open(directory) as store:
        assert store.recovered is None
        book = PlayerBook(store)
        for game in store.games():
            for player, moves in book.all_moves(game.id).items():
                assert moves == book.moves(player)
                assert [(m.round, m.seq) for m in moves] == sorted((m.round, m.seq) for m in moves)
                by_key = {(player, m.round, m.seq): m for m in moves}
                for key, (act, cells, value) in reported.moves.items():
                    if key[0] == player and key not in reported.maybe_gone:
                        cells_back = tuple(tuple(c) for c in json.loads(cells))
                        assert by_key[key] == StoredMove(
                            key[1], key[2], act, cells_back, json.loads(value)
                        )


def kill_again_and_again(tmp_path: Path, kills: int) -> None:
    rng = random.Random(os.environ.get("PITABLE_KILL_SEED", "5"))
    path = tmp_path / DB_NAME
    reported = Reported()
    kills_while_moving = 0
    for _ in range(kills):
        driver = subprocess.Popen(
            [sys.executable, str(DRIVER), str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert driver.stdout is not None
        if rng.random() < EARLY:
            # A random moment from start-up to the first moves: opening, checking, migrating.
            time.sleep(rng.uniform(0, 0.12))
            before = ""
        else:
            # The game and its five players come first, then the moves.
            before = "".join(wait_for_lines(driver, 6 + rng.randint(1, MOST_LINES_BEFORE_KILL)))
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
            new += reported.read(line)
        kills_while_moving += new > 0
        check_after_kill(path, reported)

    check_the_store_gives_every_sheet_back(tmp_path, reported)
    assert sorted(p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name) == []
    # The test has teeth only if most kills came while moving.
    assert kills_while_moving > kills // 2
    assert len(reported.moves) > kills
    if kills >= 50:
        # Over many kills: take-backs, finished rounds and new games were all reported.
        assert reported.took and reported.done
        assert len({game for _, game in reported.joined}) >= 3


def test_sigkill_while_moving_never_loses_an_acknowledged_move(tmp_path: Path) -> None:
    kill_again_and_again(tmp_path, int(OVERRIDE or QUICK_KILLS))


@pytest.mark.slow
def test_sigkill_hundreds_of_times_never_loses_an_acknowledged_move(tmp_path: Path) -> None:
    kill_again_and_again(tmp_path, int(OVERRIDE or SLOW_KILLS))
