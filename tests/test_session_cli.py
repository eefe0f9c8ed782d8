"""``pitable history`` and ``pitable level`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pitable.box.store import DB_NAME, SessionStore
from pitable.rules import Roll
from tests.conftest import run_cli as run


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def saved_games(directory: Path) -> None:
    """Game 1, ended; game 2, a solo Island game in progress, its sixth danger ignored."""
    times = iter(
        datetime(2026, 11, 29, 20, 0, tzinfo=UTC) + timedelta(seconds=s) for s in range(100)
    )
    with SessionStore.open(directory, clock=lambda: next(times)) as store:
        first = store.new_game("valley", "solo")
        store.record_roll(first.id, Roll.from_str("2,3,5"), "os", False, 0)
        store.end_game(first.id, 95)
        game = store.new_game("island", "solo")
        state = store.state(game.id)
        for text in ["1,2,*"] * 6 + ["*,3,4"]:
            turn = state.play(Roll.from_str(text))
            store.record_roll(
                game.id, turn.roll, "hwrng:/dev/hwrng", turn.hazard, turn.state.hazards
            )
            state = turn.state


# --- history -----------------------------------------------------------------------


def test_history_json_of_the_current_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved_games(tmp_path)
    code, out, _ = run(capsys, "history", "--json", "--state-dir", str(tmp_path))
    assert code == 0
    game, *rolls = [json.loads(line) for line in out.splitlines()]
    assert game["game"]["id"] == 2 and game["game"]["map"] is None
    assert [r["n"] for r in rolls] == [1, 2, 3, 4, 5, 6, 7]
    assert rolls[0] == {
        "n": 1,
        "at": "2026-11-29T20:00:04.000+00:00",
        "faces": [1, 2, "*"],
        "source": "hwrng:/dev/hwrng",
        "hazard": True,
        "hazards_after": 1,
    }
    assert [r["hazard"] for r in rolls] == [True] * 5 + [False, False]
    assert rolls[-1]["faces"] == ["*", 3, 4]
    assert all(datetime.fromisoformat(r["at"]).tzinfo is not None for r in rolls)


def test_history_of_an_ended_game_by_id(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved_games(tmp_path)
    code, out, _ = run(capsys, "history", "--game", "1", "--state-dir", str(tmp_path))
    assert code == 0
    header, roll = out.splitlines()
    assert header.startswith("game 1: The Valley of Wiraqocha, solo, started ")
    assert header.endswith("round 1 of 25, 0 snakes, ended: 95 stars, Pathfinder")
    assert roll.split()[0] == "1"
    assert roll.split()[2:] == ["2,3,5", "os"]


def test_history_reads_as_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved_games(tmp_path)
    code, out, _ = run(capsys, "history", "--state-dir", str(tmp_path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("game 2: Skull Island, solo")
    assert lines[0].endswith("round 7, 5 dangers")
    assert lines[1].endswith("1,2,*  hwrng:/dev/hwrng  danger (1)")
    assert lines[6].endswith("danger ignored (5 marked)")
    assert len(lines) == 8


def test_history_names_the_players_of_the_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from pitable.box.players import PlayerBook

    saved_games(tmp_path)
    with SessionStore.open(tmp_path) as store:
        book = PlayerBook(store)
        for initials, token in (("ann", "a"), ("Bo", "b"), ("Émé", "e")):
            book.join(2, initials, token)
        book.join(2, "X", "x", bot=True)
    code, out, _ = run(capsys, "history", "--state-dir", str(tmp_path))
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "  players: ANN, BO, ÉMÉ, X (bot)"
    assert len(lines) == 9
    code, out, _ = run(capsys, "history", "--json", "--state-dir", str(tmp_path))
    first = json.loads(out.splitlines()[0])
    assert [(p["initials"], p["bot"]) for p in first["players"]] == [
        ("ANN", False), ("BO", False), ("ÉMÉ", False), ("X", True)]
    # Game 1 had nobody on a phone: no line, and an empty list.
    code, out, _ = run(capsys, "history", "--game", "1", "--state-dir", str(tmp_path))
    assert "players" not in out
    code, out, _ = run(capsys, "history", "--game", "1", "--json", "--state-dir", str(tmp_path))
    assert json.loads(out.splitlines()[0])["players"] == []


@pytest.mark.parametrize(
    ("setup", "argv", "message"),
    [
        ("nothing", [], "no saved games"),
        ("ended", [], "no game in progress"),
        ("ended", ["--game", "7"], "no game 7"),
        ("junk", [], "not a database"),
    ],
)
def test_history_errors_are_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    setup: str,
    argv: list[str],
    message: str,
) -> None:
    if setup == "ended":
        with SessionStore.open(tmp_path) as store:
            store.end_game(store.new_game("temple", "table").id)
    elif setup == "junk":
        (tmp_path / DB_NAME).write_bytes(b"junk" * 1000)
    code, out, err = run(capsys, "history", "--state-dir", str(tmp_path), *argv)
    assert code == 2
    assert out == ""
    assert message in one_error_line(err)


def test_history_changes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run(capsys, "history", "--state-dir", str(tmp_path / "none"))
    assert not (tmp_path / "none").exists()  # no store is created by reading one
    (tmp_path / DB_NAME).write_bytes(b"junk" * 1000)
    run(capsys, "history", "--state-dir", str(tmp_path))
    # A damaged store is the box's to move aside, not a reader's.
    assert sorted(p.name for p in tmp_path.iterdir()) == [DB_NAME]


def test_history_on_an_empty_database_is_no_saved_games_and_leaves_it_empty(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / DB_NAME
    path.write_bytes(b"")
    mtime = path.stat().st_mtime_ns
    code, out, err = run(capsys, "history", "--state-dir", str(tmp_path))
    # As for a missing database: nothing to show is the caller's mistake, not a failure.
    assert code == 2
    assert out == ""
    assert "no saved games" in one_error_line(err)
    assert path.read_bytes() == b""
    assert path.stat().st_mtime_ns == mtime
    assert sorted(p.name for p in tmp_path.iterdir()) == [DB_NAME]


def test_history_on_a_directory_says_so_and_creates_nothing_in_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / DB_NAME).mkdir()
    for state_dir in (tmp_path, tmp_path / DB_NAME):
        code, out, err = run(capsys, "history", "--state-dir", str(state_dir))
        assert code == 2
        assert out == ""
        one_error_line(err)
    assert list((tmp_path / DB_NAME).iterdir()) == []


def test_history_reads_without_changing_a_byte_or_making_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved_games(tmp_path)
    path = tmp_path / DB_NAME
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    for argv in ([], ["--json"], ["--game", "1"]):
        code, _, err = run(capsys, "history", "--state-dir", str(tmp_path), *argv)
        assert code == 0, err
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [DB_NAME, f"{DB_NAME}.lock"]


def test_history_finds_the_state_directory_in_the_environment(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved_games(tmp_path)
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    code, out, _ = run(capsys, "history")
    assert code == 0
    assert out.startswith("game 2:")


# --- level -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "first_line"),
    [
        (
            ["valley", "112", "--snakes", "5"],
            "The Valley of Wiraqocha, 112 stars with 5 snakes: Explorer, the highest level",
        ),
        (
            ["valley", "109", "--snakes", "5"],
            "The Valley of Wiraqocha, 109 stars with 5 snakes: Voyager; 1 more for Explorer",
        ),
        (["valley", "89"], "The Valley of Wiraqocha, 89 stars: Tourist; 1 more for Pathfinder"),
        (["skull-island", "74"], "Skull Island, 74 stars: Pathfinder; 1 more for Voyager"),
        (["temple", "30"], "The Temple of Apikhabou, 30 stars: Explorer, the highest level"),
        (["island", "-3"], "Skull Island, -3 stars: Tourist; 63 more for Pathfinder"),
    ],
)
def test_level_answers(
    capsys: pytest.CaptureFixture[str], argv: list[str], first_line: str
) -> None:
    code, out, _ = run(capsys, "level", *argv)
    assert code == 0
    assert out.splitlines()[0] == first_line


def test_level_shows_the_thresholds_with_the_snakes(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "level", "valley", "100", "--snakes", "5")
    assert out.splitlines()[1] == (
        "levels with 5 snakes: Tourist below 70, Pathfinder 70+, Voyager 90+, Explorer 110+"
    )


def test_level_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "level", "wiraqocha", "100", "--snakes", "5", "--json")
    assert code == 0
    assert json.loads(out) == {
        "game": "valley",
        "score": 100,
        "snakes": 5,
        "level": "Voyager",
        "next_level": "Explorer",
        "stars_needed": 10,
        "thresholds": {"Pathfinder": 70, "Voyager": 90, "Explorer": 110},
    }
    _, out, _ = run(capsys, "level", "temple", "40", "--json")
    assert json.loads(out)["level"] == "Explorer"
    assert json.loads(out)["stars_needed"] is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["island", "70", "--snakes", "2"], "--snakes: only The Valley of Wiraqocha"),
        (["valley", "ninety"], "'ninety' is not a whole number of stars"),
        (["valley", "9.5"], "is not a whole number of stars"),
        (["valley", "90", "--snakes", "-1"], "expected 0 to 25"),
        (["atlantis", "90"], "unknown game 'atlantis'"),
        (["valley"], "the following arguments are required: SCORE"),
    ],
)
def test_level_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, "level", *argv)
    assert code == 2
    assert out == ""
    assert message in one_error_line(err)


def test_the_installed_command_runs_level() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pitable", "level", "valley", "110", "--snakes", "5"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert "Explorer" in done.stdout


def test_history_while_the_box_is_rolling(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with SessionStore.open(tmp_path) as box:
        game = box.new_game("temple", "table")
        box.record_roll(game.id, Roll.from_str("1,2,3"), "os", False, 0)
        code, out, _ = run(capsys, "history", "--json", "--state-dir", str(tmp_path))
        assert code == 0
        assert len(out.splitlines()) == 2  # the game, its roll
        # The reader took no lock that stops the box's next roll.
        box.record_roll(game.id, Roll.from_str("4,5,*"), "os", True, 1)
        assert [r.n for r in box.rolls(game.id)] == [1, 2]


def test_no_snakes_is_fine_for_every_title(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "level", "temple", "25", "--snakes", "0")
    assert code == 0 and "Voyager" in out


@pytest.mark.parametrize(
    ("title", "rolls", "words"),
    [
        ("temple", ["*,1,*", "1,2,*"], "2 mummies"),  # once "2 mummys"
        ("temple", ["1,2,*"], "1 mummy"),
        ("valley", ["1,2,*", "1,2,*", "1,2,*"], "3 snakes"),
        ("island", ["1,2,*"], "1 danger"),
        ("valley", ["1,2,3"], "0 snakes"),
    ],
)
def test_history_counts_each_titles_hazards_in_proper_plurals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, title: str, rolls: list[str],
    words: str
) -> None:
    with SessionStore.open(tmp_path) as store:
        game = store.new_game(title, "table")
        state = store.state(game.id)
        for text in rolls:
            turn = state.play(Roll.from_str(text))
            store.record_roll(game.id, turn.roll, "os", turn.hazard, turn.state.hazards)
            state = turn.state
    code, out, _ = run(capsys, "history", "--state-dir", str(tmp_path))
    assert code == 0
    assert out.splitlines()[0].endswith(f", {words}")
