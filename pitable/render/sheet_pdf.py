"""Adventure sheets for a home printer: pages of A4 or US Letter, at true size.

Each sheet takes half a page (A5 on A4, half letter on Letter), laid out across it as the
rulebooks place things: the initials box in the upper-left corner with the solo rounds'
bubbles below it, the grid of 13 mm spaces, the structures or dangers and the key to the
grid's right, the treasure chests and the score boxes at the bottom. Two sheets a page, with
a dashed line to cut along. The same sections as the thermal strip
(:class:`pitable.render.sheet.Flow`), in millimetres; painted with fpdf2 as a vector PDF, or
with Pillow as a picture of the page (:func:`page_image`).

The output is the same bytes for the same sheets: the creation date is fixed and the
fonts are the DejaVu files kept in the package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from itertools import combinations, pairwise
from typing import TYPE_CHECKING, TypeAlias

from pitable.errors import MissingDependency, UsageError
from pitable.i18n import SOURCE_LANGUAGE, translator
from pitable.render.fonts import FONT_DIR, REGULAR
from pitable.render.sheet import (
    HEAVY,
    METRICS,
    SEPARATOR,
    Circle,
    Drawing,
    Flow,
    Line,
    Metrics,
    Poly,
    Rect,
    Shape,
    Symbol,
    _grid,
    ascent,
    bottom,
    key_of,
    paint,
    said,
    scaled,
    split_tallies,
    text_width,
    which_map,
)
from pitable.render.text import words as split_words
from pitable.rules.base import ENGLISH, Translator
from pitable.rules.sheets import MAX_COLUMNS, Sheet

if TYPE_CHECKING:
    from PIL import Image

#: The side of one space on paper, in millimetres.
SPACE_MM = 13.0
#: Paper sizes, width by height in millimetres, as printed: landscape, two sheets across.
PAGES = {"a4": (297.0, 210.0), "letter": (279.4, 215.9)}
#: Most home printers cannot print closer than this to the paper's edge.
PAGE_MARGIN_MM = 6.0
#: White kept on each side of the line that cuts a page into its two sheets.
CUT_MARGIN_MM = 3.0
#: Room between the solo rounds and the grid beside them.
ROUNDS_GUTTER_MM = 2.5
PT_PER_MM = 72 / 25.4
#: A fixed date, so that the same sheets give the same bytes.
CREATION_DATE = datetime(2018, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Placement:
    """Where one sheet's drawing lands on a page, in millimetres from the top left."""

    page: int
    x: float
    y: float
    drawing: Drawing


def sheet_area(paper: str) -> tuple[float, float]:
    """The width and height, in millimetres, one sheet may fill: half of a landscape page,
    less the margins at the paper's edges and at the cut."""
    page_w, page_h = page_size(paper)
    return page_w / 2 - PAGE_MARGIN_MM - CUT_MARGIN_MM, page_h - 2 * PAGE_MARGIN_MM


Block = Callable[[Flow], None]


def page_layout(
    sheet: Sheet,
    paper: str = "a4",
    *,
    metrics: Metrics = METRICS,
    solo: bool = False,
    target: int | None = None,
    lang: str = SOURCE_LANGUAGE,
) -> Drawing:
    """``sheet`` laid out in millimetres on half a page of ``paper``, its words in ``lang``.

    Raises :class:`UsageError` when it does not fit (no title of the series comes near).
    """
    width, height = sheet_area(paper)
    s = SPACE_MM
    shapes: list[Shape] = []
    tr = translator(lang)
    sheet = said(sheet, tr)
    rounds, right, chests = split_tallies(sheet)

    # The initials box in the upper-left corner; the title and which map beside it.
    head = Flow(shapes, x=0.0, w=width, y=0.0, u=1.0, m=metrics, tr=tr)
    box_w, box_h = head.initials(0.0, 0.0)
    beside = Flow(shapes, x=box_w + 3.0, w=width - box_w - 3.0, y=-0.6, u=1.0, m=metrics,
                  tr=tr)
    beside.words(sheet.title.display_name(tr), bold=True, size=metrics.title)
    beside.parts([tr.gettext("\u2190 Initials"), *which_map(sheet, tr).split(SEPARATOR)])
    head.y = max(box_h, beside.y) + 1.5

    # The solo rounds at the left of the grid where its column holds them (the rulebook's
    # place), else above it; the grid, and the clouds above its first row.
    grid_x = (width - MAX_COLUMNS * s) / 2
    left_w = width - MAX_COLUMNS * s - ROUNDS_GUTTER_MM
    words = [w for tally in rounds for w in split_words(tally.label)]
    beside_grid = bool(rounds) and all(text_width(w, head.em, True) <= left_w for w in words)
    if beside_grid:
        grid_x = left_w + ROUNDS_GUTTER_MM
        column = Flow(shapes, x=0.0, w=left_w, y=head.y, u=1.0, m=metrics, tr=tr)
        for tally in rounds:
            column.tally(tally)
    else:
        for tally in rounds:
            head.tally(tally)
            head.skip(2.0)
    if any(r == 0 for r, _ in sheet.clouds):
        head.y += 0.45 * s
    grid_y = head.y
    _grid(shapes, sheet, x0=grid_x, y0=grid_y, s=s, thin=head.thin, thick=head.thick)
    top = max(grid_y + sheet.grid_height * s, column.y if beside_grid else 0.0) + 2.5

    # Below the grid: the key, then at the right the structures or dangers, the special
    # faces and the solo levels, in columns of equal height; the chests and the score boxes
    # at the bottom.
    blocks: list[Block] = [partial(Flow.entry, entry=e) for e in key_of(sheet, tr)]
    blocks += [partial(Flow.tally, tally=t) for t in right]
    blocks.append(partial(_reminders, reminders=sheet.reminders))
    if solo or target is not None:
        blocks.append(partial(Flow.solo, sheet=sheet, target=target))
    y = _columns(shapes, blocks, x=0.0, w=width, y=top, m=metrics, tr=tr)
    last = Flow(shapes, x=0.0, w=width, y=y + 2.0, u=1.0, m=metrics, tr=tr)
    bottom(last, chests, sheet.score_boxes)
    if last.y > height:
        raise UsageError(
            f"{sheet.label}: the sheet needs {last.y:.0f} mm of the {height:.0f} mm"
            f" that half a {paper} page holds"
        )
    return Drawing(width, height, shapes, grid_x, grid_y, s, 1.0)


def _reminders(flow: Flow, reminders: tuple[str, ...]) -> None:
    for words in reminders:
        flow.words(words)


def _columns(
    shapes: list[Shape], blocks: list[Block], *, x: float, w: float, y: float, m: Metrics,
    tr: Translator = ENGLISH,
) -> float:
    """Lay ``blocks`` in order into two or three columns, split where the tallest column is
    shortest; returns the bottom of the tallest."""
    gap = 4.0
    between = 1.6

    def heights(columns: int) -> list[float]:
        flow = Flow([], x=0.0, w=(w - gap * (columns - 1)) / columns, y=0.0, u=1.0, m=m, tr=tr)
        out = []
        for block in blocks:
            flow.y = 0.0
            block(flow)
            out.append(flow.y + between)
        return out

    best: tuple[float, int, list[int]] | None = None
    for columns in (2, 3):
        sizes = heights(columns)
        for cuts in combinations(range(1, len(blocks)), columns - 1):
            edges = [0, *cuts, len(blocks)]
            tallest = max(sum(sizes[a:b]) for a, b in pairwise(edges))
            if best is None or tallest < best[0] - 0.01:
                best = (tallest, columns, edges)
    assert best is not None
    tallest, columns, edges = best
    col_w = (w - gap * (columns - 1)) / columns
    for k, (a, b) in enumerate(pairwise(edges)):
        flow = Flow(shapes, x=x + k * (col_w + gap), w=col_w, y=y, u=1.0, m=m, tr=tr)
        for block in blocks[a:b]:
            block(flow)
            flow.skip(between)
    return y + tallest - between


def place(drawings: Sequence[Drawing], paper: str = "a4") -> list[Placement]:
    """Two sheets a landscape page, side by side, each in its half."""
    page_w, _ = page_size(paper)
    out = []
    for i, drawing in enumerate(drawings):
        page, half = divmod(i, 2)
        x = PAGE_MARGIN_MM if half == 0 else page_w / 2 + CUT_MARGIN_MM
        out.append(Placement(page, x, PAGE_MARGIN_MM, drawing))
    return out


def page_size(paper: str) -> tuple[float, float]:
    try:
        return PAGES[paper.lower()]
    except KeyError:
        raise UsageError(f"paper {paper!r}: expected one of {', '.join(PAGES)}") from None


#: The stars to beat on a sheet: one number for every sheet, or a number per sheet.
Target: TypeAlias = "int | Callable[[Sheet], int | None] | None"


def sheets_pdf(
    sheets: Sequence[Sheet], paper: str = "a4", *, solo: bool = False, target: Target = None,
    lang: str = SOURCE_LANGUAGE,
) -> bytes:
    """A PDF of ``sheets`` (repeat one sheet for copies), two to a page, their words in
    ``lang``. ``target`` is the stars to beat, or what gives each map's (a pad of different
    maps)."""
    try:
        from fpdf import FPDF
    except ImportError:
        raise MissingDependency("writing a PDF needs fpdf2: pip install 'pitable[draw]'") from None

    page_w, page_h = page_size(paper)
    pdf = FPDF(unit="mm", format=(page_w, page_h))
    pdf.set_creation_date(CREATION_DATE)
    pdf.set_creator("pitable")
    pdf.set_title(", ".join(dict.fromkeys(s.label for s in sheets)))
    pdf.set_lang(lang)
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    pdf.add_font("DejaVu", "", str(FONT_DIR / REGULAR))
    pdf.add_font("DejaVu", "B", str(FONT_DIR / HEAVY))
    pdf.set_draw_color(0)
    pdf.set_fill_color(0)
    drawings = _drawings(sheets, paper, solo=solo, target=target, lang=lang)
    placements = place(drawings, paper)
    current = -1
    for spot in placements:
        if spot.page != current:
            pdf.add_page()
            current = spot.page
            if sum(1 for p in placements if p.page == current) == 2:
                # Where to cut the page into its two sheets.
                pdf.set_line_width(0.2)
                pdf.set_dash_pattern(dash=2, gap=2)
                pdf.line(page_w / 2, PAGE_MARGIN_MM, page_w / 2, page_h - PAGE_MARGIN_MM)
                pdf.set_dash_pattern()
        for shape in spot.drawing.shapes:
            _paint(pdf, shape, spot.x, spot.y)
    return bytes(pdf.output())


def _drawings(
    sheets: Sequence[Sheet], paper: str, *, solo: bool, target: Target,
    lang: str = SOURCE_LANGUAGE,
) -> list[Drawing]:
    # Copies of one sheet share its layout: a pad of 20 is laid out once.
    done: dict[int, Drawing] = {}
    out = []
    for sheet in sheets:
        key = id(sheet)
        if key not in done:
            stars = target(sheet) if callable(target) else target
            done[key] = page_layout(sheet, paper, solo=solo, target=stars, lang=lang)
        out.append(done[key])
    return out


def page_image(
    sheets: Sequence[Sheet],
    paper: str = "a4",
    *,
    dots_per_mm: float = 8.0,
    solo: bool = False,
    target: Target = None,
    lang: str = SOURCE_LANGUAGE,
) -> Image.Image:
    """The first page of ``sheets`` as a 1-bit picture at ``dots_per_mm``: what the PDF
    prints, drawn with the same shapes by the strip's painter, its words in ``lang``."""
    from PIL import Image

    page_w, page_h = page_size(paper)
    page = Image.new("1", (round(page_w * dots_per_mm), round(page_h * dots_per_mm)), 1)
    spots = list(place(_drawings(sheets[:2], paper, solo=solo, target=target, lang=lang), paper))
    for spot in spots:
        picture = paint(scaled(spot.drawing, dots_per_mm))
        page.paste(picture, (round(spot.x * dots_per_mm), round(spot.y * dots_per_mm)))
    if len(spots) == 2:
        # The line to cut along, dashed as in the PDF.
        x = round(page_w / 2 * dots_per_mm)
        dash = round(2 * dots_per_mm)
        first, last = (round(v * dots_per_mm) for v in (PAGE_MARGIN_MM, page_h - PAGE_MARGIN_MM))
        for y in range(first, last, 2 * dash):
            page.paste(0, (x, y, x + max(1, round(0.2 * dots_per_mm)), y + dash))
    return page


def _paint(pdf: object, shape: Shape, dx: float, dy: float) -> None:
    from fpdf import FPDF

    assert isinstance(pdf, FPDF)
    if isinstance(shape, Rect):
        style = "DF" if shape.fill and shape.line else "F" if shape.fill else "D"
        if shape.line:
            pdf.set_line_width(shape.line)
        if shape.white:
            pdf.set_fill_color(255)
        pdf.rect(dx + shape.x, dy + shape.y, shape.w, shape.h, style=style)
        if shape.white:
            pdf.set_fill_color(0)
    elif isinstance(shape, Line):
        pdf.set_line_width(shape.line)
        if shape.dots:
            # Round dots: a zero-length dash with round caps, one every ``dots``.
            pdf.set_dash_pattern(dash=0.01, gap=shape.dots - 0.01)
        pdf.line(dx + shape.x1, dy + shape.y1, dx + shape.x2, dy + shape.y2)
        if shape.dots:
            pdf.set_dash_pattern()
    elif isinstance(shape, Circle):
        pdf.set_line_width(shape.line)
        r = shape.r
        pdf.ellipse(dx + shape.x - r, dy + shape.y - r, 2 * r, 2 * r, style="D")
    elif isinstance(shape, Poly):
        points = [(dx + x, dy + y) for x, y in shape.points]
        if shape.line:
            pdf.set_line_width(shape.line)
        if shape.closed:
            style = "DF" if shape.fill and shape.line else "F" if shape.fill else "D"
            pdf.polygon(points, style=style)
        else:
            pdf.polyline(points)
    elif isinstance(shape, Symbol):
        from PIL import ImageOps

        from pitable.render.faces import picture

        # The dice's pictures are drawn in dots: one at 8 dots a millimetre, black on white.
        drawn = ImageOps.invert(picture(shape.name, max(8, round(shape.size * 8))).convert("L"))
        pdf.image(drawn, dx + shape.x, dy + shape.y, shape.size, shape.size)
    else:
        pdf.set_font("DejaVu", "B" if shape.bold else "", shape.size * PT_PER_MM)
        pdf.text(dx + shape.x, dy + shape.y + ascent(shape.size), shape.text)
