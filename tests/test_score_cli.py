"""``pitable score`` as a user runs it: the rulebooks' worked examples, the level of a solo
game, a map from ``pitable sheet --out map.txt`` filled in, and sheets it refuses."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pitable.rules import Title
from pitable.rules.sheets import MAP_FORMAT
from tests.conftest import run_cli as run
from tests.support.titles import says_its_shapes, scores, title_params

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


def henri_with(game: str, cell: tuple[int, int], token: str) -> str:
    """The worked example of ``game`` with ``token`` at ``cell`` (row, column from 0)."""
    lines = (EXAMPLES / f"{game}_henri.txt").read_text().splitlines()
    rows = [i for i, line in enumerate(lines) if line.strip() and not line.startswith(";")]
    at = rows[cell[0]]
    tokens = lines[at].split()
    tokens[cell[1]] = token
    lines[at] = " ".join(tokens)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("game", "change", "where"),
    [
        ("valley", ((2, 1), "1/j1"), "row 3, column 2"),  # the value a jungle repeats
        ("island", ((2, 1), "5"), "row 3, column 4"),  # the treasure of 1 loses its pair
        ("island", ((3, 6), "8"), "row 4, column 8"),  # a danger crossed out, no 9 beside it
        ("temple", ((4, 1), "H"), "row 5, column 2"),  # a token the title does not know
        ("temple", ((3, 3), "16"), "row 4, column 4"),  # a number out of range
        ("temple", ((3, 3), "3a"), "row 4, column 4"),  # no token at all
    ],
)
def test_a_mark_the_rules_do_not_allow_is_one_line_naming_the_cell_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str,
    change: tuple[tuple[int, int], str], where: str
) -> None:
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(henri_with(game, *change))
    code, out, err = run(capsys, "score", game, "--sheet", str(sheet))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"pitable score: error: {sheet}: {where}")


def test_rows_of_different_lengths_are_one_line_naming_the_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sheet = tmp_path / "sheet.txt"
    sheet.write_text("3 4\n5\n")
    code, _, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert code == 2
    assert err.startswith(f"pitable score: error: {sheet}: row 2 (line 2): 1 tokens")


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
    prints nothing (its rows are cut after their last space); its comment left out."""
    rows = [row for row in map_text.splitlines() if not row.startswith(";")]
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
    name = printed.read_text().splitlines()[0]
    assert name == f"; {game} {side.upper()} 7 (map v{MAP_FORMAT})"
    blank = tmp_path / "blank.txt"
    blank.write_text("\n".join(" ".join(row) for row in grid) + "\n")
    code, out, err = run(capsys, "score", game, "--sheet", str(blank), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["total"] == 0
    # Every space filled with a 1, Doors too: no discovery, treasure or hazard.
    filled = tmp_path / "filled.txt"
    fill = {".": "1", "c": "1", "D": "D1"}
    filled.write_text(name + "\n"
                      + "\n".join(" ".join(fill.get(t, t) for t in row) for row in grid) + "\n")
    code, out, err = run(capsys, "score", game, "--sheet", str(filled), "--json")
    assert (code, err) == (0, "")
    expected = {"valley": 7, "island": 0, "temple": 1 + 3}[game]  # full grid; a sequence, a group
    assert json.loads(out)["total"] == expected


def test_a_temple_filled_in_on_map_v3_but_named_map_v2_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    printed = tmp_path / "map.txt"
    assert run(capsys, "sheet", "temple", "--seed", "7", "--out", str(printed))[0] == 0
    grid = tokens(printed.read_text())
    named = tmp_path / "named.txt"
    rows = "\n".join(" ".join(row) for row in grid) + "\n"
    named.write_text("; temple A 7 (map v2)\n" + rows)
    code, out, err = run(capsys, "score", "temple", "--sheet", str(named))
    # Map v2's temple of seed 7 is drawn again: 46 to 52 spaces, not map v3's 21.
    assert code == 2 and out == "" and "not the map of side A of" in err
    named.write_text(f"; temple A 7 (map v{MAP_FORMAT})\n" + rows)
    assert run(capsys, "score", "temple", "--sheet", str(named))[0] == 0


@pytest.mark.parametrize("path", ["", "a\x00b"])
def test_a_sheet_path_that_cannot_name_a_file_is_one_line(
    capsys: pytest.CaptureFixture[str], path: str
) -> None:
    code, out, err = run(capsys, "score", "valley", "--sheet", path)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--sheet" in err


# --- hostile sheets: answered at once, in one line ------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0" * 20_000 + "a", "is not a token"),  # backtracked quadratically: 17 s of CPU
        ("1" * 5_000, "is not a token"),  # int() refused it with a traceback
        ("7" * 12, "numbers go from 1 to 15"),
        ("0" * 11 + "7/T" + "9" * 60_000, "is not a token"),
    ],
)
def test_a_long_token_is_one_line_quoting_at_most_40_characters(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, words: str
) -> None:
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(text + "\n")
    code, out, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and words in err and "Traceback" not in err
    message = err.split(f"{sheet}: ", 1)[1]
    assert len(message) < 120 and (len(text) <= 40 or text[:41] not in message)


@pytest.mark.parametrize(
    "title", title_params(lambda t: scores(t) and says_its_shapes(t)), indirect=True)
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1\n", "not 1"),
        ("1 " * 120 + "\n", "not 120"),
        (("1 " * 120 + "\n") * 120, "not 120"),
        (("# " * 9 + "\n") * 9, "the map of"),
        (("1 " * 9 + "\n") * 8, "the map of"),
    ],
)
def test_a_sheet_that_is_no_map_of_its_title_is_refused_saying_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, title: Title, text: str, words: str
) -> None:
    # Each of these once scored a full grid's 7 stars, or a sequence, with exit status 0.
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(text)
    code, out, err = run(capsys, "score", title.key, "--sheet", str(sheet))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "not the map of" in err and words in err


def test_a_sheet_is_checked_against_the_map_its_comment_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    henri = (EXAMPLES / "temple_henri.txt").read_text()
    assert henri.startswith("; temple A 1 (map v2)\n")
    sheet = tmp_path / "sheet.txt"
    # Another seed's temple: a temple's shape, but not this map's.
    sheet.write_text(henri.replace("; temple A 1 (map v2)", "; temple A 3 (map v2)", 1))
    code, _, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert code == 2 and "the map temple A 3 (map v2)" in err
    assert err.count("\n") == 1
    # A Door left out of the map it names (written as a plain space).
    sheet.write_text(henri.replace("#  #  #   D   X", "#  #  #   _   X", 1))
    code, _, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert code == 2 and "row 1, column 4" in err and "a Door (D) here" in err
    # Another title's map.
    sheet.write_text(henri.replace("; temple A 1", "; valley A 1", 1))
    code, _, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert code == 2 and "names the map valley A 1 (map v2), not a map of" in err
    # A seed no map has: refused, not taken for a plain comment and the map unchecked.
    sheet.write_text(henri.replace("; temple A 1", "; temple A 99999999999999999999", 1))
    code, _, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert code == 2 and "names a seed no map has" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("mummy", ["X", "x"])
def test_a_mummy_typed_on_a_door_of_the_map_is_refused_naming_the_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mummy: str
) -> None:
    # 002: "draw the Mummy symbol on this sheet in a doorless space of your choice".
    henri = (EXAMPLES / "temple_henri.txt").read_text()
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(henri.replace("#  #  #   D   X", f"#  #  #   {mummy}   X", 1))
    code, out, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "row 1, column 4" in err
    assert "a mummy goes in a doorless space" in err and "has a Door (D) here" in err


def test_a_door_typed_with_a_mummy_in_it_is_refused_naming_the_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    henri = (EXAMPLES / "temple_henri.txt").read_text()
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(henri.replace("#  #  #   D   X", "#  #  #   DX  X", 1))
    code, out, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "row 1, column 4" in err
    assert "a Door holds a number, never a hazard" in err


def test_with_the_2_6_dice_sums_of_16_to_18_are_numbers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # With faces 2 to 6 the sum of all three dice reaches 6+6+6 = 18.
    temple = (EXAMPLES / "temple_henri.txt").read_text()
    sheet = tmp_path / "sheet.txt"
    base, top = "2  3  D4  5   6  7  8   9   10", "#  #  10  8   6  D  3"
    assert base in temple and top in temple
    sheet.write_text(temple.replace(base, base[:-2] + "16").replace(top, "#  #  18  17  6  D  3"))
    code, out, err = run(capsys, "score", "temple", "--sheet", str(sheet), "--dice", "2-6",
                         "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["total"] > 0
    # With the rulebooks' dice (the default) 16 is no number.
    code, out, err = run(capsys, "score", "temple", "--sheet", str(sheet))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "numbers go from 1 to 15" in err
    # And 19 is none with either.
    sheet.write_text(temple.replace("#  #  10  8", "#  #  19  8", 1))
    code, out, err = run(capsys, "score", "temple", "--sheet", str(sheet), "--dice", "2-6")
    assert (code, out) == (2, "")
    assert "row 2, column 3" in err and "numbers go from 1 to 18" in err


def test_an_unknown_dice_set_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "score", "temple", "--sheet",
                         str(EXAMPLES / "temple_henri.txt"), "--dice", "3-7")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "unknown dice set '3-7'" in err


def test_a_byte_order_mark_is_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sheet = tmp_path / "sheet.txt"
    sheet.write_bytes(b"\xef\xbb\xbf" + (EXAMPLES / "island_henri.txt").read_bytes())
    code, out, err = run(capsys, "score", "island", "--sheet", str(sheet), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["total"] == 27


@pytest.mark.parametrize(
    "argv",
    [
        ["screen", "valley", "1,2,3", "--lang", "x" * 5_000],
        ["sim", "--script", "press", "--web", "127.0.0.1:" + "9" * 5_000],
        ["sim", "--script", "press", "--web", "h" * 5_000 + ":80"],
        ["sheet", "valley", "--side", "q" * 5_000, "--out", "x.txt"],
        ["options", "z" * 5_000, "1,2,3"],
    ],
)
def test_the_command_line_quotes_at_most_40_characters_of_what_it_was_given(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert len(err.strip().splitlines()[-1]) < 300, err[:400]
    assert "x" * 41 not in err and "9" * 41 not in err and "q" * 41 not in err
    assert "h" * 41 not in err and "z" * 41 not in err
