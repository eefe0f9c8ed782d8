"""Adventure sheets as a vector PDF for a home printer, at true size.

The same layout as the thermal strip (:func:`pitable.render.sheet.layout`), painted with
fpdf2 in millimetres: every space is 10 mm square when the PDF is printed at 100 % ("actual
size"; "fit to page" shrinks it). Sheets go two to a page, side by side, when they fit,
with a dashed line to cut along.

The output is the same bytes for the same sheets: the creation date is fixed and the
fonts are the DejaVu files kept in the package.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from pitable.errors import MissingDependency, UsageError
from pitable.render.fonts import BOLD, FONT_DIR, REGULAR
from pitable.render.sheet import (
    Circle,
    Drawing,
    Line,
    Poly,
    Rect,
    Shape,
    ascent,
    layout,
)
from pitable.rules.sheets import MAX_COLUMNS, Sheet

#: The side of one space on paper, in millimetres.
SPACE_MM = 10.0
#: White margin kept inside each sheet's own area, around its content.
SHEET_MARGIN_MM = 3.0
#: Paper sizes, width by height in millimetres (portrait).
PAGES = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
#: Most home printers cannot print closer than this to the paper's edge.
PAGE_MARGIN_MM = 6.0
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


def sheet_drawing(sheet: Sheet) -> Drawing:
    return layout(
        sheet,
        cell=SPACE_MM,
        width=MAX_COLUMNS * SPACE_MM + 2 * SHEET_MARGIN_MM,
        mm=1.0,
    )


def place(drawings: Sequence[Drawing], paper: str = "a4") -> list[Placement]:
    """Lay sheets out on pages: two side by side when two fit across, else one a page."""
    page_w, page_h = page_size(paper)
    room_w, room_h = page_w - 2 * PAGE_MARGIN_MM, page_h - 2 * PAGE_MARGIN_MM
    out = []
    page = 0
    column = 0
    for drawing in drawings:
        if drawing.width > room_w or drawing.height > room_h:
            raise UsageError(
                f"a sheet of {drawing.width:.0f} by {drawing.height:.0f} mm"
                f" does not fit on {paper} paper"
            )
        across = 2 if 2 * drawing.width <= room_w else 1
        if column == across:
            page, column = page + 1, 0
        slot_w = page_w / across
        x = column * slot_w + (slot_w - drawing.width) / 2
        y = (page_h - drawing.height) / 2
        out.append(Placement(page, x, y, drawing))
        column += 1
    return out


def page_size(paper: str) -> tuple[float, float]:
    try:
        return PAGES[paper.lower()]
    except KeyError:
        raise UsageError(f"paper {paper!r}: expected one of {', '.join(PAGES)}") from None


def sheets_pdf(sheets: Sequence[Sheet], paper: str = "a4") -> bytes:
    """A PDF of ``sheets`` (repeat one sheet for copies), two to a page where they fit."""
    try:
        from fpdf import FPDF
    except ImportError:
        raise MissingDependency("writing a PDF needs fpdf2: pip install 'pitable[draw]'") from None

    page_w, page_h = page_size(paper)
    pdf = FPDF(unit="mm", format=(page_w, page_h))
    pdf.set_creation_date(CREATION_DATE)
    pdf.set_creator("pitable")
    pdf.set_title(", ".join(dict.fromkeys(s.label for s in sheets)))
    pdf.set_auto_page_break(False)
    pdf.set_margins(0, 0, 0)
    pdf.add_font("DejaVu", "", str(FONT_DIR / REGULAR))
    pdf.add_font("DejaVu", "B", str(FONT_DIR / BOLD))
    pdf.set_draw_color(0)
    pdf.set_fill_color(0)
    placements = place([sheet_drawing(s) for s in sheets], paper)
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


def _paint(pdf: object, shape: Shape, dx: float, dy: float) -> None:
    from fpdf import FPDF

    assert isinstance(pdf, FPDF)
    if isinstance(shape, Rect):
        style = "DF" if shape.fill and shape.line else "F" if shape.fill else "D"
        if shape.line:
            pdf.set_line_width(shape.line)
        pdf.rect(dx + shape.x, dy + shape.y, shape.w, shape.h, style=style)
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
    else:
        pdf.set_font("DejaVu", "B" if shape.bold else "", shape.size * PT_PER_MM)
        pdf.text(dx + shape.x, dy + shape.y + ascent(shape.size), shape.text)
