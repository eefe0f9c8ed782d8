"""Every sheet can be read and written on: measured on the pictures, for every title, side
and width of the strip and both paper sizes of the page.

The limits (capitals at least 2 mm tall, boxes for a pencilled number at least 6 mm square,
bubbles at least 3 mm across, the initials box at least 25 by 7 mm) are checked on the
painted picture: each text run is found drawn at its size with nothing else inking its
box, each box's clear inside and each bubble's ring are measured in dots. A layout shrunk
on purpose fails every one of the checks.
"""

from __future__ import annotations

import re
import zlib

import pytest
from PIL import Image, ImageDraw

from pitable.i18n import LANGUAGES
from pitable.render.sheet import (
    CAP_HEIGHT,
    INITIALS,
    LIMITS,
    METRICS,
    WRITE,
    Drawing,
    Rect,
    Text,
    paint,
    scaled,
    strip_layout,
)
from pitable.render.sheet_pdf import PAGES, PT_PER_MM, page_layout, sheets_pdf
from pitable.rules.sheets import generate
from pitable.rules.titles import Title
from tests.support.legibility import problems

#: Dots a millimetre of the printer, and of the pictures of pages measured here.
DPMM = 8
#: Solo sheets with a target carry the most words: the levels and the stars to beat.
TARGET = 123
#: The seed of the map each title is measured on.
SEED = 7


def strip(title: Title | str, side: str, width: int,
          **kwargs: object) -> tuple[Drawing, Image.Image]:
    drawing = strip_layout(generate(title, SEED, side), width, **kwargs)  # type: ignore[arg-type]
    return drawing, paint(drawing)


def page(title: Title | str, side: str, paper: str,
         **kwargs: object) -> tuple[Drawing, Image.Image]:
    drawing = scaled(page_layout(generate(title, SEED, side), paper, **kwargs), DPMM)  # type: ignore[arg-type]
    return drawing, paint(drawing)


@pytest.mark.parametrize("side", ["a", "b"])
@pytest.mark.parametrize("width", [384, 576])
def test_every_word_box_and_bubble_of_a_strip_is_legible(
    title: Title, width: int, side: str,
) -> None:
    drawing, image = strip(title, side, width, solo=True, target=TARGET)
    assert problems(drawing, image) == []
    # The measures saw the whole sheet: its key's words, a box and a bubble at least.
    texts = [s.text for s in drawing.shapes if isinstance(s, Text)]
    assert f"Stars to beat: {TARGET}" in texts
    assert any(isinstance(s, Rect) and s.role == WRITE for s in drawing.shapes)
    assert any(isinstance(s, Rect) and s.role == INITIALS for s in drawing.shapes)


@pytest.mark.parametrize("side", ["a", "b"])
@pytest.mark.parametrize("paper", sorted(PAGES))
def test_every_word_box_and_bubble_of_a_page_is_legible(
    title: Title, paper: str, side: str,
) -> None:
    drawing, image = page(title, side, paper, solo=True, target=TARGET)
    assert problems(drawing, image) == []
    # Spaces of at least 13 mm on paper.
    assert drawing.cell / drawing.mm >= 13.0


@pytest.mark.parametrize("shrunk", ["strip", "page"])
def test_the_measures_fail_on_a_layout_shrunk_on_purpose(shrunk: str) -> None:
    small = METRICS.scaled(0.7)
    if shrunk == "strip":
        drawing, image = strip("valley", "a", 384, metrics=small, solo=True)
    else:
        drawing, image = page("island", "a", "a4", metrics=small, solo=True)
    found = problems(drawing, image)
    assert any("capitals" in p for p in found)
    assert any(p.startswith(f"{WRITE} box") for p in found)
    assert any(p.startswith(f"{INITIALS} box") for p in found)
    assert any(p.startswith("bubble") for p in found)


def test_the_measures_find_text_that_something_else_inks() -> None:
    drawing, image = strip("temple", "a", 384)
    word = next(s for s in drawing.shapes if isinstance(s, Text) and s.text.startswith("Side"))
    ImageDraw.Draw(image).line((0, round(word.y) + 10, image.width, round(word.y) + 10), fill=0)
    assert any("something else inks" in p for p in problems(drawing, image))


@pytest.mark.slow
def test_every_font_in_the_pdf_has_capitals_of_2_mm(title: Title) -> None:
    sheets = [generate(title, SEED, side) for side in "ab"]
    data = sheets_pdf(sheets, "a4", solo=True, target=TARGET)
    sizes = []
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.DOTALL):
        try:
            content = zlib.decompress(m.group(1)).decode("latin-1")
        except zlib.error:
            continue
        sizes += [float(v) for v in re.findall(r"/F\d+ ([\d.]+) Tf", content)]
    assert sizes
    assert min(sizes) / PT_PER_MM * CAP_HEIGHT >= LIMITS.cap_mm


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("paper", sorted(PAGES))
def test_every_map_fits_half_a_page(title: Title, paper: str, lang: str) -> None:
    # The longest words a sheet prints: a solo sheet with a target, seeds of six digits, in
    # every language (a translation may not take a sheet onto a second page).
    from pitable.render.sheet_pdf import sheet_area

    _, height = sheet_area(paper)
    for side in "ab":
        for seed in [*range(40), 999_999]:
            drawing = page_layout(generate(title, seed, side), paper, solo=True, target=999,
                                  lang=lang)
            bottom = max(
                s.y + s.h if isinstance(s, Rect) else s.y
                for s in drawing.shapes
                if isinstance(s, Rect | Text)
            )
            assert bottom <= height, (side, seed)
