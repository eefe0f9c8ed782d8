"""``pitable sheet`` writes every map it names: a format that holds one map writes one
numbered file a map (or a page), and an option that does not apply to the format is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from pitable.render.sheet import render_sheet
from pitable.render.sheet_pdf import page_image
from pitable.rules.sheets import generate
from tests.conftest import run_cli as run
from tests.support.pictures import same_picture


def saved_as(path: Path, expected: Image.Image) -> bool:
    with Image.open(path) as picture:
        return same_picture(picture, expected)


@pytest.mark.parametrize("suffix", [".png", ".pbm", ".txt"])
def test_maps_in_a_one_map_format_write_one_numbered_file_a_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    out = tmp_path / f"map{suffix}"
    code, stdout, _ = run(capsys, "sheet", "valley", "--seed", "7", "--maps", "3",
                          "--out", str(out))
    assert code == 0
    files = [tmp_path / f"map-{n}{suffix}" for n in (1, 2, 3)]
    assert sorted(tmp_path.iterdir()) == files
    assert stdout.strip().endswith("seeds 7, 8, 9: " + ", ".join(str(f) for f in files))
    for path, seed in zip(files, (7, 8, 9), strict=True):
        sheet = generate("valley", seed)
        if suffix == ".txt":
            assert path.read_text() == sheet.to_text(label=True)
        else:
            assert saved_as(path, render_sheet(sheet))


def test_one_map_keeps_the_name_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "map.txt"
    assert run(capsys, "sheet", "island", "--seed", "2", "--out", str(out))[0] == 0
    assert sorted(tmp_path.iterdir()) == [out]


def test_page_pictures_hold_two_sheets_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "page.png"
    code, stdout, _ = run(capsys, "sheet", "temple", "--seed", "4", "--maps", "3", "--page",
                          "--paper", "letter", "--out", str(out))
    assert code == 0
    pages = [tmp_path / "page-1.png", tmp_path / "page-2.png"]
    assert sorted(tmp_path.iterdir()) == pages
    sheets = [generate("temple", seed) for seed in (4, 5, 6)]
    assert saved_as(pages[0], page_image(sheets[:2], "letter"))
    assert saved_as(pages[1], page_image(sheets[2:], "letter"))
    assert "seeds 4, 5, 6" in stdout


@pytest.mark.parametrize(
    ("out", "options", "words"),
    [
        ("x.png", ["--copies", "3"], "--copies: copies on pages"),
        ("x.pbm", ["--copies", "1"], "--copies: copies on pages"),
        ("x.txt", ["--copies", "2"], "--copies: copies on pages"),
        ("x.png", ["--paper", "letter"], "--paper: the page size"),
        ("x.txt", ["--paper", "a4"], "--paper: the page size"),
        ("x.pdf", ["--page"], "--page: for a .png or .pbm only"),
        ("x.txt", ["--page"], "--page: for a .png or .pbm only"),
        ("x.pdf", ["--width", "576"], "--width: the strip's width"),
        ("x.png", ["--page", "--width", "576"], "--width: the strip's width"),
        ("x.txt", ["--width", "384"], "--width: the strip's width"),
        ("x.txt", ["--solo"], "--solo: a text map holds no levels"),
    ],
)
def test_an_option_the_format_ignores_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str, options: list[str],
    words: str,
) -> None:
    code, stdout, err = run(capsys, "sheet", "valley", *options, "--out", str(tmp_path / out))
    assert code == 2
    assert words in err and out in err and len(err.strip().splitlines()) == 1
    assert stdout == "" and not any(tmp_path.iterdir())


def test_a_numbered_file_that_cannot_be_written_is_refused_before_any_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "map-2.txt").mkdir()
    code, _, err = run(capsys, "sheet", "valley", "--maps", "3", "--out", str(tmp_path / "map.txt"))
    assert code == 2 and "map-2.txt: is a directory" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map-2.txt"]
