"""Adventure sheets drawn as 1-bit pictures: for a thermal printer, and as a PNG at any width.

The sheet is first laid out as a list of shapes (:func:`layout`) in any unit, then painted:
here with Pillow, in :mod:`pitable.render.sheet_pdf` as a vector PDF. One layout for both
means the PDF and the printed strip show the same sheet.

On a thermal printer every dot row that holds ink costs the mechanism about 30 ms, while a
blank row is fed in about 2 ms. The layout is therefore compact across the page (text and
marks share rows where they can) and airy between sections: the white bands are nearly
free to print and make the strip easier to read.

Spaces are at least 5 mm on 58 mm paper (384 dots at 8 dots a millimetre) and at least
7 mm on 80 mm paper (576 dots): big enough for a two-digit number in pencil.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageDraw

from pitable.render.fonts import BOLD, REGULAR, font
from pitable.rules.sheets import MAP_FORMAT, MAX_COLUMNS, Kind, Mark, Sheet, Tally

#: Thermal printers print 8 dots a millimetre (203 dpi).
DOTS_PER_MM = 8
#: Printable width in dots of the two paper widths, and the smallest space each allows.
PAPER_DOTS = {58: 384, 80: 576}
MIN_SPACE_MM = {58: 5.0, 80: 7.0}
#: Narrower than this, the sheet's words stop being readable.
MIN_WIDTH = 180

Point = tuple[float, float]


# --- the shapes ----------------------------------------------------------------


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    line: float = 0.0  # outline width; 0: no outline
    fill: bool = False


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    line: float
    #: Dotted: a dot of the line's width every ``dots`` units; 0: solid.
    dots: float = 0.0


@dataclass(frozen=True)
class Circle:
    x: float  # centre
    y: float
    r: float
    line: float


@dataclass(frozen=True)
class Poly:
    points: tuple[Point, ...]
    line: float = 0.0
    fill: bool = False
    closed: bool = True


@dataclass(frozen=True)
class Text:
    x: float  # left
    y: float  # top of the font's ascender
    text: str
    size: float  # the font's em, in the drawing's unit
    bold: bool = False


Shape = Rect | Line | Circle | Poly | Text


@dataclass
class Drawing:
    """A laid-out sheet: shapes in some unit, on a ``width`` by ``height`` page."""

    width: float
    height: float
    shapes: list[Shape] = field(default_factory=list)
    #: Where the grid's top-left corner is and how big one space is, for tests and the PDF.
    grid_x: float = 0.0
    grid_y: float = 0.0
    cell: float = 0.0


# --- text metrics, the same for every painter (both use the DejaVu files kept here) ----

_REF = 100


@lru_cache(maxsize=4096)
def text_width(text: str, size: float, bold: bool = False) -> float:
    return font(_REF, BOLD if bold else REGULAR).getlength(text) * size / _REF


def ascent(size: float) -> float:
    """The font's ascender above the baseline, for painters that place text by baseline."""
    return font(_REF).getmetrics()[0] * size / _REF


# --- the layout ------------------------------------------------------------------


def layout(sheet: Sheet, *, cell: float, width: float, mm: float) -> Drawing:
    """Lay out ``sheet`` with spaces ``cell`` wide on a page ``width`` wide.

    ``mm`` is how many units make a millimetre: line widths are set in millimetres so that
    they print the same on any paper; everything else scales with ``cell``.
    """
    s = cell
    if width < MAX_COLUMNS * s:
        raise ValueError(f"a page {width} wide cannot hold {MAX_COLUMNS} spaces of {s}")
    thin = max(0.25 * mm, 1.0) if mm > 1 else 0.25  # at least one dot on a printer
    thick = 2 * thin
    title_size, text_size, small_size = 0.40 * s, 0.26 * s, 0.24 * s
    gap = 1.25 * s  # white band between sections: fed, not printed, on a thermal printer
    x0 = (width - MAX_COLUMNS * s) / 2
    x1 = x0 + MAX_COLUMNS * s
    shapes: list[Shape] = []
    y = 0.4 * s

    # Header: the initials box (top left, as in the rulebook), the title, which map it is.
    box_w, box_h = 1.8 * s, 0.68 * s
    shapes.append(Rect(x0, y, box_w, box_h, thin))
    shapes.append(Text(x0 + 0.08 * s, y + 0.05 * s, "Initials", small_size))
    tx = x0 + box_w + 0.2 * s
    title = _fit(sheet.title_name, x1 - tx, title_size, bold=True)
    shapes.append(Text(tx, y, sheet.title_name, title, bold=True))
    which = f"Side {sheet.side.value.upper()} \u00b7 seed {sheet.seed} \u00b7 map v{MAP_FORMAT}"
    shapes.append(Text(tx, y + 0.42 * s, which, text_size))
    y += box_h + gap

    # Bubbles and boxes: solo rounds, structures, dangers, treasures.
    # A lone total (Skull Island) ends the last row of boxes instead of taking a row.
    per_row = 4
    col_w = (x1 - x0) / per_row
    score_h = 0.56 * s
    labels = sheet.score_boxes
    inline_total = len(labels) == 1 and bool(sheet.tallies) and sheet.tallies[-1].mark is Mark.BOX
    for i, tally in enumerate(sheet.tallies):
        end = x1
        if inline_total and i == len(sheet.tallies) - 1:
            end = x1 - col_w
            _score_box(
                shapes, labels[0], x=end, y=y, w=col_w, h=score_h, s=s, line=thick, size=small_size
            )
        height = _tally(shapes, tally, x0=x0, x1=end, y=y, s=s, thin=thin, small=small_size)
        y += height + 0.35 * s
    if sheet.tallies:
        y += gap - 0.35 * s

    # Clouds sit above the spaces beside them; a band above the grid holds those of row 0.
    if any(r == 0 for r, _ in sheet.clouds):
        y += 0.45 * s
    grid_y = y
    _grid(shapes, sheet, x0=x0, y0=grid_y, s=s, thin=thin, thick=thick)
    y += sheet.grid_height * s + gap

    # The special faces, one line a die.
    for words in sheet.reminders:
        size = _fit(words, x1 - x0, text_size)
        shapes.append(Text(x0, y, words, size))
        y += 0.42 * s
    y += gap - 0.42 * s + 0.3 * s

    # Score boxes, four to a row, each with its caption at its left and room for a number
    # at its right.
    for i in range(0, 0 if inline_total else len(labels), per_row):
        row = labels[i : i + per_row]
        # A short last row keeps to the right, so that the total ends the sheet's corner.
        shift = per_row - len(row)
        for j, label in enumerate(row):
            line = thick if i + j == len(labels) - 1 else thin
            bx = x0 + (shift + j) * col_w
            _score_box(
                shapes, label, x=bx, y=y, w=col_w, h=score_h, s=s, line=line, size=small_size
            )
        y += score_h + 0.3 * s
    y += 0.5 * s - 0.3 * s
    return Drawing(width, y, shapes, x0, grid_y, s)


def _score_box(
    shapes: list[Shape],
    label: str,
    *,
    x: float,
    y: float,
    w: float,
    h: float,
    s: float,
    line: float,
    size: float,
) -> None:
    shapes.append(Rect(x + 0.05 * s, y, w - 0.1 * s, h, line))
    # Leave the box's right part, 0.8 of a space, for the number.
    size = _fit(label, w - 1.05 * s, size)
    shapes.append(Text(x + 0.12 * s, y + (h - 1.1 * size) / 2, label, size))


def _fit(text: str, room: float, size: float, bold: bool = False) -> float:
    """``size``, or smaller if ``text`` would not fit in ``room`` at that size."""
    wide = text_width(text, size, bold)
    return size if wide <= room else size * room / wide


def _tally(
    shapes: list[Shape],
    tally: Tally,
    *,
    x0: float,
    x1: float,
    y: float,
    s: float,
    thin: float,
    small: float,
) -> float:
    """One row of bubbles or boxes after its label; returns the row's height."""
    label = tally.label
    shapes.append(Text(x0, y + 0.02 * s, label, small))
    x = x0 + text_width(label, small) + 0.2 * s
    r = 0.13 * s
    if tally.mark is Mark.BUBBLE and not tally.names:
        # Solo rounds: bubbles in groups of five, so a glance counts them.
        groups = math.ceil(tally.count / 5)
        pitch = min(0.45 * s, (x1 - x) / (tally.count + 0.5 * (groups - 1)))
        r = min(r, 0.4 * pitch)
        for i in range(tally.count):
            cx = x + pitch * (i + 0.5 * (i // 5)) + pitch / 2
            shapes.append(Circle(cx, y + r + 0.02 * s, r, thin))
        return 2 * r + 0.04 * s
    if tally.mark is Mark.BUBBLE:
        # Structures: a bubble and its name, spread over the row.
        step = (x1 - x) / tally.count
        for i, name in enumerate(tally.names):
            cx = x + i * step + r
            shapes.append(Circle(cx, y + r + 0.02 * s, r, thin))
            shapes.append(Text(cx + r + 0.1 * s, y + 0.02 * s, name, small))
        return 2 * r + 0.04 * s
    box_h = 0.56 * s
    if tally.mark is Mark.BUBBLE_AND_BOX:
        # Dangers: mark the bubble, write the stars gained (+) or lost (-) in the box.
        step = (x1 - x) / tally.count
        box_w = step - 2 * r - 0.3 * s
        for i in range(tally.count):
            bx = x + i * step
            shapes.append(Circle(bx + r, y + box_h / 2, r, thin))
            shapes.append(Rect(bx + 2 * r + 0.1 * s, y, box_w, box_h, thin))
            shapes.append(Text(bx + 2 * r + 0.16 * s, y + 0.04 * s, "\u00b1", small))
        return box_h
    # Treasure chests: a box for the number that found each treasure.
    step = (x1 - x) / tally.count
    for i in range(tally.count):
        shapes.append(Rect(x + i * step, y, step - 0.2 * s, box_h, thin))
    return box_h


def _grid(
    shapes: list[Shape], sheet: Sheet, *, x0: float, y0: float, s: float, thin: float, thick: float
) -> None:
    def at(cell: tuple[int, int]) -> tuple[float, float]:
        return x0 + cell[1] * s, y0 + cell[0] * s

    for cell in sheet.cells(Kind.SEA):
        x, y = at(cell)
        _sea(shapes, x, y, s, thin)
    for cell in sheet.cells(Kind.MOUNTAIN):
        x, y = at(cell)
        m = 0.18 * s
        peak = ((x + s / 2, y + m), (x + s - m, y + s - m), (x + m, y + s - m))
        shapes.append(Poly(peak, fill=True))
    for cell in sheet.cells(Kind.DOOR):
        x, y = at(cell)
        # A door frame: a second, inner outline.
        inset = 0.1 * s
        shapes.append(Rect(x + inset, y + inset, s - 2 * inset, s - 2 * inset, thin))
    for cell in sorted(sheet.clouds):
        x, y = at(cell)
        shapes.append(Poly(_cloud(x + 0.05 * s, y - 0.04 * s, 0.9 * s, 0.38 * s), thin))
    # Edges: thin between two spaces of the map, thick where the map meets what is not
    # part of it, so that the valley, island or temple stands out as one shape.
    inside = {Kind.SPACE, Kind.DOOR, Kind.MOUNTAIN}
    for r in range(sheet.grid_height + 1):
        for c in range(sheet.grid_width):
            a, b = sheet.kind((r - 1, c)) in inside, sheet.kind((r, c)) in inside
            if a or b:
                x, y = at((r, c))
                shapes.append(Line(x, y, x + s, y, thin if a and b else thick))
    for c in range(sheet.grid_width + 1):
        for r in range(sheet.grid_height):
            a, b = sheet.kind((r, c - 1)) in inside, sheet.kind((r, c)) in inside
            if a or b:
                x, y = at((r, c))
                shapes.append(Line(x, y, x, y + s, thin if a and b else thick))


def _sea(shapes: list[Shape], x: float, y: float, s: float, thin: float) -> None:
    """A sea space: dotted edges (a boat goes in one space) and a small wave."""
    for x1, y1, x2, y2 in (
        (x, y, x + s, y),
        (x, y, x, y + s),
        (x + s, y, x + s, y + s),
        (x, y + s, x + s, y + s),
    ):
        shapes.append(Line(x1, y1, x2, y2, thin, dots=0.125 * s))
    points = []
    for k in range(9):
        t = k / 8
        points.append((x + s * (0.3 + 0.4 * t), y + s * (0.62 - 0.07 * math.sin(2 * math.pi * t))))
    shapes.append(Poly(tuple(points), thin, closed=False))


def _cloud(x: float, y_bottom: float, w: float, h: float) -> tuple[Point, ...]:
    """The outline of a cloud on a flat base: three bumps, the middle one tallest."""
    bumps = ((0.22, 0.22, 0.55), (0.5, 0.28, 1.0), (0.78, 0.22, 0.6))
    points: list[Point] = [(x + w, y_bottom), (x, y_bottom)]
    steps = 24
    for k in range(steps + 1):
        u = k / steps
        # The outline is the highest bump over each point of the base.
        top = 0.0
        for cx, rx, height in bumps:
            d = (u - cx) / rx
            if abs(d) <= 1:
                top = max(top, height * math.sqrt(1 - d * d))
        points.append((x + w * u, y_bottom - h * top))
    return tuple(points)


# --- the raster painter ------------------------------------------------------------


def cell_size(width: int) -> int:
    """The side of one space, in pixels, on a picture ``width`` pixels wide."""
    return int(width * 0.94) // MAX_COLUMNS


def render_sheet(sheet: Sheet, width: int = PAPER_DOTS[58]) -> Image.Image:
    """``sheet`` as a 1-bit picture ``width`` pixels wide (black is 0), as tall as it needs.

    384 is 58 mm paper's printable width, 576 is 80 mm paper's; any other width makes a
    PNG whose spaces are scaled alike.
    """
    if width < MIN_WIDTH:
        raise ValueError(f"a sheet needs a width of {MIN_WIDTH} pixels or more, not {width}")
    drawing = layout(sheet, cell=cell_size(width), width=width, mm=DOTS_PER_MM)
    return paint(drawing)


def paint(drawing: Drawing) -> Image.Image:
    image = Image.new("1", (round(drawing.width), math.ceil(drawing.height)), 1)
    draw = ImageDraw.Draw(image)
    for shape in drawing.shapes:
        _paint(draw, shape)
    return image


def _px(v: float) -> int:
    return math.floor(v + 0.5)


def _paint(draw: ImageDraw.ImageDraw, shape: Shape) -> None:
    if isinstance(shape, Rect):
        x0, y0 = _px(shape.x), _px(shape.y)
        x1, y1 = _px(shape.x + shape.w), _px(shape.y + shape.h)
        if shape.fill:
            draw.rectangle((x0, y0, x1, y1), fill=0)
        if shape.line:
            w = max(1, _px(shape.line))
            draw.rectangle((x0, y0, x1, y1), outline=0, width=w)
    elif isinstance(shape, Line):
        _line(draw, shape)
    elif isinstance(shape, Circle):
        x, y, r = shape.x, shape.y, shape.r
        box = (_px(x - r), _px(y - r), _px(x + r), _px(y + r))
        draw.ellipse(box, outline=0, width=max(1, _px(shape.line)))
    elif isinstance(shape, Poly):
        pts = [(_px(x), _px(y)) for x, y in shape.points]
        if shape.fill:
            draw.polygon(pts, fill=0)
        if shape.line:
            if shape.closed:
                pts = [*pts, pts[0]]
            draw.line(pts, fill=0, width=max(1, _px(shape.line)), joint="curve")
    else:
        size = max(6, _px(shape.size))
        draw.text(
            (_px(shape.x), _px(shape.y)),
            shape.text,
            font=font(size, BOLD if shape.bold else REGULAR),
            fill=0,
            anchor="la",
        )


def _line(draw: ImageDraw.ImageDraw, shape: Line) -> None:
    """Lines along the axes as exact rectangles, so that shared grid edges coincide."""
    w = max(1, _px(shape.line))
    lo, hi = w // 2, (w - 1) // 2
    x1, y1, x2, y2 = _px(shape.x1), _px(shape.y1), _px(shape.x2), _px(shape.y2)
    if x1 != x2 and y1 != y2:
        draw.line((x1, y1, x2, y2), fill=0, width=w)
        return
    x1, x2 = sorted((x1, x2))
    y1, y2 = sorted((y1, y2))
    if not shape.dots:
        draw.rectangle((x1 - lo, y1 - lo, x2 + hi, y2 + hi), fill=0)
        return
    step = max(2, _px(shape.dots))
    length = max(x2 - x1, y2 - y1)
    for k in range(0, length + 1, step):
        px, py = (x1 + k, y1) if x2 > x1 else (x1, y1 + k)
        draw.rectangle((px - lo, py - lo, px + hi, py + hi), fill=0)


def blank_rows(image: Image.Image) -> list[bool]:
    """For each row of a 1-bit picture, whether it holds no ink at all."""
    data = image.convert("1").tobytes()
    stride = (image.width + 7) // 8
    full = bytes([0xFF]) * stride
    pad = stride * 8 - image.width
    last_mask = (0xFF << pad) & 0xFF if pad else 0xFF
    out = []
    for r in range(image.height):
        row = data[r * stride : (r + 1) * stride]
        # Padding bits past the picture's width carry no ink whatever they hold.
        out.append(row[:-1] == full[:-1] and (row[-1] & last_mask) == last_mask)
    return out


def sheet_png(sheet: Sheet, width: int = PAPER_DOTS[58]) -> bytes:
    """The PNG file of ``sheet``: the same bytes for the same sheet and width, every time."""
    import io

    buffer = io.BytesIO()
    render_sheet(sheet, width).save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()
