"""The table's kill test: hazards dealt and drawn while the box is killed with SIGKILL, again
and again, lose no roll's deal and no acknowledged placement, and never leave a sheet with
two hazards from one roll.

tests/dealing_driver.py seats four players on phones at a Temple table and rolls through
the store, every other roll a hazard dealt with the roll; players draw theirs on the sheets
they were dealt, or leave them for the box, which draws them when the next roll closes the
turn. It reports each roll and placement only once the store has returned. After each kill
the database must hold every reported roll, each hazard roll with its whole deal (a
derangement of the game's players: each draws once, on another's sheet, each sheet drawn on
once), every reported placement where it was reported, and pass ``PRAGMA integrity_check``;
at the end every sheet, rebuilt from the store, has at most one hazard a roll, each where
its deal says.

The everyday run kills 4 times; the slow run (``scripts/test --all``, as in CI) 200 times.
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

from pitable.box.phones import stored_seats
from pitable.box.players import PlayerBook
from pitable.box.store import DB_NAME, SessionStore
from tests.support.kill import read_only, wait_for_lines

DRIVER = Path(__file__).with_name("dealing_driver.py")
QUICK_KILLS = 4
SLOW_KILLS = 200
OVERRIDE = os.environ.get("PITABLE_KILLS")
MOST_LINES_BEFORE_KILL = 30
EARLY = 0.15


@dataclass
class Reported:
    rolls: set[tuple[int, int, int]] = field(default_factory=set)
    #: (game, round, placer's initials) -> (owner's initials, row, col)
    placed: dict[tuple[int, int, str], tuple[str, int, int]] = field(default_factory=dict)

    def read(self, line: str) -> bool:
        word, *rest = line.split()
        assert word != "recovered", f"a killed store was moved aside: {line}"
        assert word != "refused", f"a placement the table offered was refused: {line}"
        if word == "rolled":
            game, rnd, hazard = (int(x) for x in rest)
            self.rolls.add((game, rnd, hazard))
            return True
        if word == "placed":
            game, rnd = int(rest[0]), int(rest[1])
            self.placed[game, rnd, rest[2]] = (rest[3], int(rest[4]), int(rest[5]))
            return True
        return False


def check_after_kill(path: Path, reported: Reported) -> None:
    db = read_only(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        rolls = {(g, n): h for g, n, h in db.execute("SELECT game_id, n, hazard FROM rolls")}
        for game, rnd, hazard in reported.rolls:
            assert rolls.get((game, rnd)) == hazard, f"roll {rnd} of game {game} lost"
        players: dict[int, dict[int, str]] = {}
        for pid, game, initials in db.execute("SELECT id, game_id, initials FROM players"):
            players.setdefault(game, {})[pid] = initials
        deals: dict[tuple[int, int], list[tuple[int, int, str | None, int]]] = {}
        for g, r, placer, owner, cell, by_box in db.execute(
                "SELECT game_id, round, placer_id, owner_id, cell, by_box FROM deals"):
            deals.setdefault((g, r), []).append((placer, owner, cell, by_box))
        for (game, rnd), hazard in rolls.items():
            dealt = deals.get((game, rnd), [])
            if not hazard:
                assert not dealt, f"a deal at round {rnd} of game {game}, no hazard roll"
                continue
            seated = set(players.get(game, {}))
            # Every player of the game when it was rolled: the four joined before any roll.
            assert {p for p, _, _, _ in dealt} == seated, (game, rnd, dealt)
            assert sorted(o for _, o, _, _ in dealt) == sorted(seated)
            assert all(p != o for p, o, _, _ in dealt)
        for (game, rnd, placer), (owner, r, c) in reported.placed.items():
            names = players[game]
            found = [d for d in deals[(game, rnd)] if names[d[0]] == placer]
            assert len(found) == 1
            _placer, owner_id, cell, by_box = found[0]
            assert names[owner_id] == owner and not by_box
            assert cell is not None and json.loads(cell) == [r, c], (cell, r, c)
    finally:
        db.close()


def check_every_sheet_has_one_hazard_a_roll(directory: Path, reported: Reported) -> None:
    with SessionStore.open(directory) as store:
        assert store.recovered is None
        book = PlayerBook(store)
        for game in store.games():
            if game.map is None:
                continue
            deals = book.deals(game.id)
            for seat in stored_seats(store, game):
                on_it = [d for d in deals if d.owner_id == seat.player.id and d.cell]
                rounds = [d.round for d in on_it]
                assert len(rounds) == len(set(rounds))
                assert {r: a.cell for r, a in seat.sheet.placed.items()} == {
                    d.round: d.cell for d in on_it}
                tokens = seat.sheet.tokens()
                for d in on_it:
                    assert d.cell is not None
                    assert tokens[d.cell[0]][d.cell[1]] not in ("_", "")


def kill_again_and_again(tmp_path: Path, kills: int) -> None:
    rng = random.Random(os.environ.get("PITABLE_KILL_SEED", "6"))
    path = tmp_path / DB_NAME
    reported = Reported()
    kills_while_dealing = 0
    for _ in range(kills):
        driver = subprocess.Popen([sys.executable, str(DRIVER), str(tmp_path)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert driver.stdout is not None
        if rng.random() < EARLY:
            time.sleep(rng.uniform(0, 0.12))
            before = ""
        else:
            before = "".join(wait_for_lines(driver, 1 + rng.randint(1, MOST_LINES_BEFORE_KILL)))
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
        kills_while_dealing += new > 0
        check_after_kill(path, reported)
    check_every_sheet_has_one_hazard_a_roll(tmp_path, reported)
    assert sorted(p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name) == []
    assert kills_while_dealing > kills // 2
    assert reported.placed and any(h for _, _, h in reported.rolls)


def test_sigkill_while_dealing_loses_no_placement_and_no_sheet_gets_two(
        tmp_path: Path) -> None:
    kill_again_and_again(tmp_path, int(OVERRIDE or QUICK_KILLS))


@pytest.mark.slow
def test_sigkill_hundreds_of_times_while_dealing(tmp_path: Path) -> None:
    kill_again_and_again(tmp_path, int(OVERRIDE or SLOW_KILLS))
