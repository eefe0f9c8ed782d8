"""``pitable score`` as a user runs it: the rulebooks' worked examples, the level of a solo
game, a map from ``pitable sheet --out map.txt`` filled in, and sheets it refuses."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_cli as run

EXAMPLES = Path(__file__).parent / "golden" / "scoring"


@pytest.mark.parametrize(
    ("game", "lines"),
    [
        (
            "valley",
            ["Full grid     0", "Jungles      15", "Towns        18", "Ranges       14",
             "Pyramids     15", "Structures   24", "Snakes      -28", "Total        58"],
        ),
        ("island", ["Treasures   31", "Dangers     -4", "Total       27"]),
        ("temple", ["Sequence    9", "Groups     15", "Mummies     6", "Total      30"]),
    ],
)
def test_the_worked_examples_score_to_the_rulebooks_figures(
    capsys: pytest.CaptureFixture[str], game: str, lines: list[str]
) -> None:
    code, out, err = run(capsys, "score", game, "--sheet", str(EXAMPLES / f"{game}_henri.txt"))
    assert (code, err) == (0, "")
    assert [line.strip() for line in out.splitlines()[1:]] == lines


@pytest.mark.parametrize(
    ("game", "total", "hazards", "level"),
    [("valley", 58, 4, "Tourist"), ("island", 27, 3, "Tourist"), ("temple", 30, 5, "Explorer")],
)
def test_a_solo_game_gets_its_level_and_json_says_it_all(
    capsys: pytest.CaptureFixture[str], game: str, total: int, hazards: int, level: str
) -> None:
    sheet = str(EXAMPLES / f"{game}_henri.txt")
    code, out, _ = run(capsys, "score", game, "--sheet", sheet, "--solo", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["total"], data["hazards"], data["level"]) == (total, hazards, level)
    assert sum(data["components"].values()) == total
    code, out, _ = run(capsys, "score", game, "--sheet", sheet, "--solo")
    assert out.splitlines()[-1].startswith(f"Level: {level}")


def test_the_valleys_level_counts_the_snakes_placed(capsys: pytest.CaptureFixture[str]) -> None:
    sheet = str(EXAMPLES / "valley_henri.txt")
    # The 4 snakes on the sheet lower Pathfinder to 74: 58 stars stay Tourist.
    out = run(capsys, "score", "valley", "--sheet", sheet, "--solo")[1]
    assert "Level: Tourist (4 snakes placed)" in out
    # --snakes says how many were placed instead: with 10, Pathfinder starts at 50.
    out = run(capsys, "score", "valley", "--sheet", sheet, "--solo", "--snakes", "10")[1]
    assert "Level: Pathfinder (10 snakes placed)" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["island", "--solo", "--snakes", "3"], "depend on its hazards"),
        (["valley", "--snakes", "3"], "--solo"),
    ],
)
def test_snakes_is_refused_where_it_means_nothing(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    sheet = str(EXAMPLES / f"{argv[0]}_henri.txt")
    code, _, err = run(capsys, "score", *argv, "--sheet", sheet)
    assert code == 2
    assert words in err


@pytest.mark.parametrize(
    ("game", "text", "where"),
    [
        ("valley", "1/j1 2/j1 3/j1\n4/j1 4/j1 #\n", "row 1, column 1"),  # a repeated value
        ("island", "~ 4 4\n4 _/T4 2\n", "row 2, column 2"),  # a treasure without its four
        ("island", "~ 5\n3 x\n", "row 2, column 2"),  # a danger crossed out, no 9
        ("temple", "3 4\n5 H\n", "row 2, column 2"),  # a token the title does not know
        ("temple", "3 4\n5\n", "row 2"),  # rows of different lengths
    ],
)
def test_a_mark_the_rules_do_not_allow_is_one_line_naming_the_cell_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, text: str, where: str
) -> None:
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(text)
    code, out, err = run(capsys, "score", game, "--sheet", str(sheet))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"pitable score: error: {sheet}: {where}")


def test_a_file_that_is_not_a_sheet_is_refused_with_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    big = tmp_path / "big.txt"
    big.write_text("1 " * 40_000)
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"1 2\n\xff\xfe\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cases = [
        (tmp_path / "missing.txt", "No such file"),
        (tmp_path, "not a regular file"),
        (fifo, "not a regular file"),
        (big, "larger than 64 kB"),
        (binary, "not UTF-8"),
    ]
    for path, words in cases:
        code, _, err = run(capsys, "score", "temple", "--sheet", str(path))
        assert code == 2, path
        assert words in err
        assert "Traceback" not in err


def tokens(map_text: str) -> list[list[str]]:
    """The positions of a map printed by ``sheet --out map.txt``, a letter each, ``#`` where it
    prints nothing (its rows are cut after their last space)."""
    rows = map_text.splitlines()
    width = max(len(row) for row in rows)
    return [["#" if ch == " " else ch for ch in row.ljust(width)] for row in rows]


@pytest.mark.parametrize(("game", "side"), [("valley", "a"), ("valley", "b"), ("island", "a"),
                                            ("temple", "b")])
def test_a_map_from_sheet_out_txt_scores_as_printed_and_once_filled_in(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, side: str
) -> None:
    printed = tmp_path / "map.txt"
    assert run(capsys, "sheet", game, "--seed", "7", "--side", side, "--out", str(printed))[0] == 0
    grid = tokens(printed.read_text())
    blank = tmp_path / "blank.txt"
    blank.write_text("\n".join(" ".join(row) for row in grid) + "\n")
    code, out, err = run(capsys, "score", game, "--sheet", str(blank), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["total"] == 0
    # Every space filled with a 1, Doors too: no discovery, treasure or hazard.
    filled = tmp_path / "filled.txt"
    fill = {".": "1", "c": "1", "D": "D1"}
    filled.write_text("\n".join(" ".join(fill.get(t, t) for t in row) for row in grid) + "\n")
    code, out, err = run(capsys, "score", game, "--sheet", str(filled), "--json")
    assert (code, err) == (0, "")
    expected = {"valley": 7, "island": 0, "temple": 1 + 3}[game]  # full grid; a sequence, a group
    assert json.loads(out)["total"] == expected


@pytest.mark.parametrize("path", ["", "a\x00b"])
def test_a_sheet_path_that_cannot_name_a_file_is_one_line(
    capsys: pytest.CaptureFixture[str], path: str
) -> None:
    code, out, err = run(capsys, "score", "valley", "--sheet", path)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--sheet" in err
