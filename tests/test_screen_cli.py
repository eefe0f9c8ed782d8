"""``pitable screen``: the status screen's pages for one roll, as text or as a picture."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from pitable.cli import main
from pitable.i18n import LANGUAGES
from pitable.render.status import StatusView, draw_status, status_lines
from pitable.rules import Roll, find_title


def screen(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["screen", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def pages_of(text: str) -> list[list[str]]:
    return [page.splitlines() for page in text.strip("\n").split("\n\n")]


@pytest.mark.parametrize(
    ("lang", "bubble", "smallest", "nine"),
    [
        ("en", "bubble to mark: 3", "smallest number", "A 9 written next to it"),
        ("fr", "bulle de danger à cocher\u202f: 3", "plus petit nombre", "Un 9 écrit à côté"),
        ("es", "burbuja de peligro que marcar: 3", "número más bajo", "Un 9 escrito junto"),
    ],
)
def test_an_island_danger_names_its_bubble_its_cost_and_the_nine(
    capsys: pytest.CaptureFixture[str], lang: str, bubble: str, smallest: str, nine: str
) -> None:
    code, out, err = screen(capsys, "island", "2,4,*", "--dangers", "2", "--text",
                            "--lang", lang)
    assert (code, err) == (0, "")
    words = " ".join(" ".join(page) for page in pages_of(out))
    assert bubble in words and "5" in words
    assert smallest in words
    assert nine in words


@pytest.mark.parametrize(
    ("game", "lang", "cost", "nine"),
    [
        ("valley", "en", "largest number next to it", "make a 9"),
        ("valley", "fr", "plus grand nombre", "faites un 9"),
        ("valley", "es", "mayor número adyacente", "haz un 9"),
        ("temple", "en", "costs 2 stars", "A 9 written next to it vanquishes"),
        ("temple", "fr", "coûte 2 points", "Un 9 écrit à côté"),
        ("temple", "es", "cuesta 2 estrellas", "Un 9 escrito junto"),
    ],
)
def test_a_snake_and_a_mummy_say_what_they_cost_and_how_a_nine_beats_them(
    capsys: pytest.CaptureFixture[str], game: str, lang: str, cost: str, nine: str
) -> None:
    code, out, _ = screen(capsys, game, "2,4,*", "--text", "--lang", lang)
    words = " ".join(" ".join(page) for page in pages_of(out))
    assert code == 0
    assert cost in words
    assert nine in words


def test_the_text_is_the_screens_own_lines_page_by_page(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = screen(capsys, "valley", "*,*,4", "--solo", "--round", "7", "--size",
                          "256x64", "--text")
    valley = find_title("valley")
    view = StatusView(valley, solo=True, round=7, round_limit=25,
                      options=valley.options(Roll.from_str("*,*,4")), hazards=0)
    assert code == 0
    assert pages_of(out) == [list(page) for page in status_lines(view, (256, 64))]
    assert len(pages_of(out)) > 1


def test_the_picture_holds_every_page_side_by_side(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_png = tmp_path / "screen.png"
    code, out, _ = screen(capsys, "temple", "1,2,*", "--png", str(out_png))
    temple = find_title("temple")
    view = StatusView(temple, options=temple.options(Roll.from_str("1,2,*")))
    pages = len(status_lines(view))
    assert (code, out) == (0, "")
    with Image.open(out_png) as image:
        assert image.size == (128 * pages + 4 * (pages - 1), 64)
        first = image.crop((0, 0, 128, 64)).convert("1")
    assert first.tobytes() == draw_status(view).tobytes()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["chess", "1,2,3"], "unknown game"),
        (["island", "1,2"], "three faces"),
        (["island", "1,2,3", "--dangers", "6"], "--dangers 6"),
        (["valley", "1,2,3", "--size", "64x32"], "128x64, 256x64"),
        (["valley", "1,2,3", "--lang", "it"], ", ".join(LANGUAGES)),
        (["valley", "1,2,3", "--solo", "--round", "26"], "25 rounds"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    try:
        code = main(["screen", *argv])
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    _, err = capsys.readouterr()
    assert code == 2
    assert said in err.strip().splitlines()[-1]
    assert "Traceback" not in err


def test_the_pages_example_is_what_the_command_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    readme = (Path(__file__).resolve().parent.parent / "docs/using.md").read_text()
    command = "$ pitable screen island 2,4,* --dangers 2 --text\n"
    example = readme.split(command, 1)[1].split("```", 1)[0]
    assert main(["screen", "island", "2,4,*", "--dangers", "2", "--text"]) == 0
    assert capsys.readouterr().out == example


@pytest.mark.parametrize("command", ["run", "sim"])
def test_run_and_sim_take_the_language_over_the_configs(command: str) -> None:
    import argparse

    from pitable.commands import box

    parser = argparse.ArgumentParser()
    getattr(box, f"setup_{command}")(parser)
    args = parser.parse_args(["--lang", "es"])
    assert box._config(args).box.language == "es"
    assert box._config(parser.parse_args([])).box.language == ""  # the environment's
    assert box._config(parser.parse_args(["--lang", "fr_FR"])).box.language == "fr"
    with pytest.raises(SystemExit):
        parser.parse_args(["--lang", "it"])
