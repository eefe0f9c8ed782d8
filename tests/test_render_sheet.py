"""Sheets drawn: the thermal strip and PNG against golden pictures, and the PDF at true size.

Golden pictures live in tests/golden/sheets/. To redraw them after a deliberate change,
run the tests once with PITABLE_REGEN_GOLDENS=1: they write the files and fail, so
that a redraw never passes unnoticed; look at the pictures, then run again without it.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest

from pitable.render.sheet import (
    DOTS_PER_MM,
    Text,
    blank_rows,
    render_sheet,
    sheet_png,
    strip_layout,
)
from pitable.render.sheet_pdf import (
    PAGE_MARGIN_MM,
    PAGES,
    PT_PER_MM,
    SPACE_MM,
    page_image,
    page_layout,
    place,
    sheets_pdf,
)
from pitable.rules import Title
from pitable.rules.sheets import Sheet, generate
from pitable.rules.titles import island
from tests.conftest import assert_golden_image

GOLDEN = Path(__file__).parent / "golden" / "sheets"
#: One sheet per title, side A of seed 7; the Valley on its side B, the valley that narrows
#: to a pass.
PINNED = {"valley": ("b", 7)}


def side_and_seed(title: Title | str) -> tuple[str, int]:
    return PINNED.get(title if isinstance(title, str) else title.key, ("a", 7))


def pinned(title: Title | str) -> Sheet:
    side, seed = side_and_seed(title)
    return generate(title, seed, side)


def test_the_thermal_strip_matches_its_golden_picture(title: Title) -> None:
    assert_golden_image(render_sheet(pinned(title)), GOLDEN / f"{title.key}.png")


def test_the_same_sheet_gives_the_same_png_bytes(title: Title) -> None:
    assert sheet_png(pinned(title)) == sheet_png(generate(title, *reversed(side_and_seed(title))))
    assert sheet_png(pinned(title)) != sheet_png(generate(title, 8))


@pytest.mark.parametrize(("dots", "min_mm"), [(384, 5.0), (576, 7.5)])
def test_spaces_take_a_pencilled_two_digit_number(title: Title, dots: int, min_mm: float) -> None:
    sheet = pinned(title)
    drawing = strip_layout(sheet, dots)
    assert drawing.cell / DOTS_PER_MM >= min_mm
    # The whole grid lies within the printable width.
    assert drawing.grid_x >= 0
    assert drawing.grid_x + sheet.grid_width * drawing.cell <= dots
    image = render_sheet(sheet, dots)
    assert image.mode == "1"
    assert image.width == dots


def test_a_png_can_be_any_width_that_holds_a_legible_sheet() -> None:
    small, large = render_sheet(pinned("island"), 400), render_sheet(pinned("island"), 1200)
    assert (small.width, large.width) == (400, 1200)
    # Past 80 mm paper's 576 dots, the 80 mm strip scaled up.
    assert large.height == pytest.approx(render_sheet(pinned("island"), 576).height * 1200 / 576,
                                         rel=0.02)
    with pytest.raises(ValueError, match="384 pixels or more"):
        render_sheet(pinned("island"), 383)


def test_the_grid_is_drawn_where_the_layout_puts_it() -> None:
    sheet = pinned("island")
    image = render_sheet(sheet)
    drawing = strip_layout(sheet, 384)
    # A mountain is a solid triangle: the middle of its space is ink.
    r, c = sheet.cells(island.MOUNTAIN)[0]
    x = round(drawing.grid_x + (c + 0.5) * drawing.cell)
    y = round(drawing.grid_y + (r + 0.6) * drawing.cell)
    assert image.getpixel((x, y)) == 0
    # An island space is empty in its middle: room for the number.
    r, c = sorted(sheet.starts)[0]
    x = round(drawing.grid_x + (c + 0.5) * drawing.cell)
    y = round(drawing.grid_y + (r + 0.5) * drawing.cell)
    assert image.getpixel((x, y)) != 0


def test_the_strip_leaves_white_bands_between_its_sections() -> None:
    # Blank rows are fed, not printed, so they make the print fast.
    for title in PINNED:
        rows = blank_rows(render_sheet(pinned(title)))
        ink = len(rows) - sum(rows)
        assert sum(rows) >= 0.3 * ink, title
        # The widest white band is the one after the grid: 3.5 mm or more.
        longest = run = 0
        for blank in rows:
            run = run + 1 if blank else 0
            longest = max(longest, run)
        assert longest >= 3.5 * DOTS_PER_MM, title


def test_a_solo_sheet_says_the_levels_and_the_stars_to_beat() -> None:
    sheet = pinned("valley")

    def words(**kwargs: object) -> str:
        drawing = strip_layout(sheet, 384, **kwargs)  # type: ignore[arg-type]
        return " ".join(s.text for s in drawing.shapes if isinstance(s, Text))

    assert "Pathfinder" not in words()
    assert "Pathfinder 90+, Voyager 110+, Explorer 130+" in words(solo=True)
    assert "each 4 fewer for every snake placed" in words(solo=True)
    assert "Stars to beat: 97" in words(solo=True, target=97)
    assert "Stars to beat" not in words(solo=True)


def test_every_sheet_has_its_titles_key(title: Title) -> None:
    sheet = pinned(title)
    texts = " ".join(s.text for s in strip_layout(sheet).shapes if isinstance(s, Text))
    for entry in sheet.title.sheet_key():
        assert entry.said().heading().split()[0] in texts
    expected = {
        "valley": ["Jungle 5\u2605", "Town 6\u2605", "Mountain range 7\u2605", "Pyramid 15\u2605",
                   "Full grid 7\u2605", "Snake", "largest adjacent", "A 9"],
        "island": ["Treasure", "boat", "Danger", "smallest adjacent", "a 9"],
        "temple": ["Sequence", "Groups 3\u2605", "Mummy \u22122\u2605", "Doors", "Lockpick"],
    }.get(title.key, [])
    for words in expected:
        assert words in texts, words


def test_the_pyramid_is_drawn_as_its_t_shape() -> None:
    pyramid = next(e for e in pinned("valley").title.sheet_key() if e.name == "Pyramid")
    assert pyramid.diagram is not None
    cells = {(r, c) for r, c, _ in pyramid.diagram.spaces}
    # A base of three in a row and one beside its middle.
    assert cells == {(1, 0), (1, 1), (1, 2), (0, 1)}
    assert all(int(text) >= 10 for _, _, text in pyramid.diagram.spaces)


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
    """The straight segments of a content stream that are one space long (13 mm)."""
    space = SPACE_MM * PT_PER_MM
    out = []
    for m in re.finditer(r"([\d.]+) ([\d.]+) m ([\d.]+) ([\d.]+) l S", content):
        x1, y1, x2, y2 = (float(v) for v in m.groups())
        if abs(abs(x2 - x1) + abs(y2 - y1) - space) < 0.02 and (x1 == x2 or y1 == y2):
            out.append((x1, y1, x2, y2))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("paper", "size_pt"), [("a4", (841.89, 595.28)), ("letter", (792, 612))])
def test_the_pdf_prints_at_true_size(paper: str, size_pt: tuple[float, float]) -> None:
    sheet = generate("valley", 7)
    data = sheets_pdf([sheet, sheet], paper)
    boxes, contents = pdf_pages(data)
    assert len(contents) == 1, "two copies share one page"
    for box in boxes:
        assert box[2] == pytest.approx(size_pt[0], abs=0.01)
        assert box[3] == pytest.approx(size_pt[1], abs=0.01)
    edges = grid_edges(contents[0])
    # Every space has its four 13 mm edges (shared edges once): two sheets' worth.
    assert len(edges) >= 2 * 2 * sheet.fillable_count
    # The grid of each sheet spans exactly 9 spaces (117 mm) across and 8 (104 mm) down.
    page_w = size_pt[0]
    left = [e for e in edges if max(e[0], e[2]) <= page_w / 2]
    xs = [x for e in left for x in (e[0], e[2])]
    ys = [y for e in left for y in (e[1], e[3])]
    assert max(xs) - min(xs) == pytest.approx(9 * SPACE_MM * PT_PER_MM, abs=0.05)
    assert max(ys) - min(ys) == pytest.approx(8 * SPACE_MM * PT_PER_MM, abs=0.05)
    # And it lies on the page, clear of the edges a home printer cannot reach.
    assert min(xs) > 6 * PT_PER_MM and min(ys) > 6 * PT_PER_MM


def test_the_pdf_is_the_same_bytes_every_time() -> None:
    sheets = [generate("temple", 3)] * 3
    assert sheets_pdf(sheets) == sheets_pdf(sheets)


def test_sheets_go_one_to_a_half_page() -> None:
    for paper, (width, height) in PAGES.items():
        drawings = [page_layout(generate(t, 1), paper) for t in ("valley", "island", "temple")]
        spots = place(drawings, paper)
        assert [s.page for s in spots] == [0, 0, 1]
        for spot in spots:
            # Each within its half, clear of the paper's edges.
            half = 0 if spot.x < width / 2 else 1
            assert spot.x >= half * width / 2 + (PAGE_MARGIN_MM if half == 0 else 0)
            assert spot.x + spot.drawing.width <= (half + 1) * width / 2 - (
                PAGE_MARGIN_MM if half == 1 else 0) + 1e-9
            assert spot.y >= PAGE_MARGIN_MM
            assert spot.y + spot.drawing.height <= height - PAGE_MARGIN_MM + 1e-9
        assert spots[0].x + spots[0].drawing.width <= spots[1].x


def test_the_page_and_the_strip_print_the_same_words(title: Title) -> None:
    # One set of sections for both: the page lays them out across, the strip down.
    sheet = pinned(title)

    def words(shapes: list[object]) -> list[str]:
        return sorted(
            w for s in shapes if isinstance(s, Text) for w in s.text.split()
            if any(ch.isalnum() for ch in w)
        )

    assert words(strip_layout(sheet, solo=True).shapes) == words(
        page_layout(sheet, "letter", solo=True).shapes
    )


def test_a_picture_of_the_page_is_the_page_at_8_dots_a_millimetre() -> None:
    image = page_image([pinned("island")] * 2, "a4")
    assert image.size == (297 * 8, 210 * 8)
    assert image.mode == "1"
