"""Sheets drawn: the thermal strip and PNG against golden pictures, and the PDF at true size.

Golden pictures live in tests/golden/sheets/. To redraw them after a deliberate change,
run the tests once with PITABLE_REGEN_GOLDENS=1: they write the files and fail, so
that a redraw never passes unnoticed; look at the pictures, then run again without it.
"""

from __future__ import annotations

import io
import re
import zlib
from pathlib import Path

import pytest
from PIL import Image

from pitable.render.sheet import (
    DOTS_PER_MM,
    blank_rows,
    cell_size,
    layout,
    render_sheet,
    sheet_png,
)
from pitable.render.sheet_pdf import PAGES, PT_PER_MM, SPACE_MM, place, sheet_drawing, sheets_pdf
from pitable.rules.sheets import Sheet, generate
from tests.conftest import assert_golden_image

GOLDEN = Path(__file__).parent / "golden" / "sheets"
#: One sheet per title; the Valley on its side B, the valley that narrows to a pass.
PINNED = {"valley": ("b", 7), "island": ("a", 7), "temple": ("a", 7)}


def pinned(title: str) -> Sheet:
    side, seed = PINNED[title]
    return generate(title, seed, side)


@pytest.mark.parametrize("title", sorted(PINNED))
def test_the_thermal_strip_matches_its_golden_picture(title: str) -> None:
    assert_golden_image(render_sheet(pinned(title)), GOLDEN / f"{title}.png")


@pytest.mark.parametrize("title", sorted(PINNED))
def test_the_same_sheet_gives_the_same_png_bytes(title: str) -> None:
    assert sheet_png(pinned(title)) == sheet_png(generate(title, *reversed(PINNED[title])))
    assert sheet_png(pinned(title)) != sheet_png(generate(title, 8))


@pytest.mark.parametrize(("dots", "min_mm"), [(384, 5.0), (576, 7.0)])
def test_spaces_take_a_pencilled_two_digit_number(dots: int, min_mm: float) -> None:
    for title in PINNED:
        sheet = pinned(title)
        drawing = layout(sheet, cell=cell_size(dots), width=dots, mm=DOTS_PER_MM)
        assert drawing.cell / DOTS_PER_MM >= min_mm
        # The whole grid lies within the printable width.
        assert drawing.grid_x >= 0
        assert drawing.grid_x + sheet.grid_width * drawing.cell <= dots
        image = render_sheet(sheet, dots)
        assert image.mode == "1"
        assert image.width == dots


def test_a_png_can_be_any_width() -> None:
    small, large = render_sheet(pinned("island"), 200), render_sheet(pinned("island"), 1200)
    assert (small.width, large.width) == (200, 1200)
    assert large.height > 5 * small.height
    with pytest.raises(ValueError, match="width"):
        render_sheet(pinned("island"), 100)


def test_the_grid_is_drawn_where_the_layout_puts_it() -> None:
    sheet = pinned("island")
    image = render_sheet(sheet)
    drawing = layout(sheet, cell=cell_size(384), width=384, mm=DOTS_PER_MM)
    # A mountain is a solid triangle: the middle of its space is ink.
    r, c = sheet.cells(sheet.grid[0][0].MOUNTAIN)[0]
    x = round(drawing.grid_x + (c + 0.5) * drawing.cell)
    y = round(drawing.grid_y + (r + 0.6) * drawing.cell)
    assert image.getpixel((x, y)) == 0
    # An island space is empty in its middle: room for the number.
    r, c = sorted(sheet.starts)[0]
    x = round(drawing.grid_x + (c + 0.5) * drawing.cell)
    y = round(drawing.grid_y + (r + 0.5) * drawing.cell)
    assert image.getpixel((x, y)) != 0


def test_the_strip_leaves_white_bands_between_its_sections() -> None:
    # Blank rows are fed, not printed, so they make the print fast; a sheet that lost
    # them would print a third slower.
    for title in PINNED:
        rows = blank_rows(render_sheet(pinned(title)))
        ink = len(rows) - sum(rows)
        assert sum(rows) >= 0.45 * ink, title


# --- the PDF ---------------------------------------------------------------------------


def pdf_pages(data: bytes) -> tuple[list[tuple[float, ...]], list[str]]:
    """Each page's MediaBox, and each content stream decompressed."""
    boxes = [
        tuple(float(v) for v in m.group(1).split())
        for m in re.finditer(rb"/MediaBox\s*\[([^\]]*)\]", data)
    ]
    streams = []
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.DOTALL):
        try:
            streams.append(zlib.decompress(m.group(1)).decode("latin-1"))
        except zlib.error:
            continue
    return boxes, [s for s in streams if " re" in s or " l S" in s]


def grid_edges(content: str) -> list[tuple[float, float, float, float]]:
    """The straight segments of a content stream that are one space long (10 mm)."""
    space = SPACE_MM * PT_PER_MM
    out = []
    for m in re.finditer(r"([\d.]+) ([\d.]+) m ([\d.]+) ([\d.]+) l S", content):
        x1, y1, x2, y2 = (float(v) for v in m.groups())
        if abs(abs(x2 - x1) + abs(y2 - y1) - space) < 0.02 and (x1 == x2 or y1 == y2):
            out.append((x1, y1, x2, y2))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("paper", "size_pt"), [("a4", (595.28, 841.89)), ("letter", (612, 792))])
def test_the_pdf_prints_at_true_size(paper: str, size_pt: tuple[float, float]) -> None:
    sheet = generate("valley", 7)
    data = sheets_pdf([sheet, sheet], paper)
    boxes, contents = pdf_pages(data)
    assert len(contents) == 1, "two copies share one page"
    for box in boxes:
        assert box[2] == pytest.approx(size_pt[0], abs=0.01)
        assert box[3] == pytest.approx(size_pt[1], abs=0.01)
    edges = grid_edges(contents[0])
    # Every space has its four 10 mm edges (shared edges once): two sheets' worth.
    assert len(edges) >= 2 * 2 * sheet.fillable_count
    # The grid of each sheet spans exactly 9 spaces (90 mm) across and 8 (80 mm) down.
    page_w = size_pt[0]
    left = [e for e in edges if max(e[0], e[2]) <= page_w / 2]
    xs = [x for e in left for x in (e[0], e[2])]
    ys = [y for e in left for y in (e[1], e[3])]
    assert max(xs) - min(xs) == pytest.approx(9 * SPACE_MM * PT_PER_MM, abs=0.05)
    assert max(ys) - min(ys) == pytest.approx(8 * SPACE_MM * PT_PER_MM, abs=0.05)
    # And it lies on the page, clear of the edges a home printer cannot reach.
    assert min(xs) > 6 * PT_PER_MM and max(ys) < size_pt[1] - 6 * PT_PER_MM


def test_the_pdf_is_the_same_bytes_every_time() -> None:
    sheets = [generate("temple", 3)] * 3
    assert sheets_pdf(sheets) == sheets_pdf(sheets)


def test_sheets_go_two_to_a_page() -> None:
    drawings = [sheet_drawing(generate(t, 1)) for t in ("valley", "island", "temple")]
    for paper, (width, height) in PAGES.items():
        spots = place(drawings, paper)
        assert [s.page for s in spots] == [0, 0, 1]
        for spot in spots:
            assert spot.x > 0 and spot.x + spot.drawing.width < width
            assert spot.y > 0 and spot.y + spot.drawing.height < height
        assert spots[0].x + spots[0].drawing.width <= spots[1].x


def test_the_pdf_draws_the_picture_a_png_shows() -> None:
    # The PDF and the strip come from one layout: the same shapes, scaled.
    sheet = pinned("valley")
    strip = layout(sheet, cell=40, width=384, mm=DOTS_PER_MM)
    page = sheet_drawing(sheet)
    assert [type(s).__name__ for s in strip.shapes] == [type(s).__name__ for s in page.shapes]
    png = Image.open(io.BytesIO(sheet_png(sheet)))
    assert png.size == render_sheet(sheet).size
