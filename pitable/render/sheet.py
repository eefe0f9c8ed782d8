"""Adventure sheets drawn as 1-bit pictures: the thermal printer's strip, and any width.

A sheet is first laid out as a list of shapes in some unit (:func:`strip_layout` in printer
dots; :func:`pitable.render.sheet_pdf.page_layout` in millimetres for a home printer's
page), then painted: here with Pillow, in :mod:`pitable.render.sheet_pdf` as a vector PDF.
The sections are the same on both (:class:`Flow`): the initials box, which map it is, the
tallies, the grid, the key from the title's own rules, the special faces, the solo levels
and the score boxes; the strip stacks them top to bottom, the page puts them where the
rulebooks do.

Legible on paper, whatever the width: every word has capitals at least 2 mm tall, every box
for a pencilled number is at least 6 mm square, every bubble at least 3 mm across, the
initials box at least 25 by 7 mm (:data:`LIMITS`; ``tests/test_sheet_legibility.py``
measures them on the pictures). The strip's spaces are as large as the paper allows: 5.25 mm
on 58 mm paper (384 dots at 8 dots a millimetre), 7.9 mm on 80 mm paper (576 dots); the
strip grows in length for the rest.

On a thermal printer every dot row that holds ink costs the mechanism about 30 ms, while a
blank row is fed in about 2 ms: sections are parted by white bands, nearly free to print.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from pitable.i18n import SOURCE_LANGUAGE, translator
from pitable.render.fonts import CONDENSED_BOLD, REGULAR, font
from pitable.render.status import LEVEL_WORDS
from pitable.render.text import words as split_words
from pitable.rules.base import ENGLISH, Translator, penny_range
from pitable.rules.sheet_key import Diagram, KeyEntry
from pitable.rules.sheets import MAX_COLUMNS, Mark, Sheet, Tally

#: Thermal printers print 8 dots a millimetre (203 dpi).
DOTS_PER_MM = 8
#: Printable width in dots of the two paper widths.
PAPER_DOTS = {58: 384, 80: 576}
#: The narrowest picture that holds a legible sheet: 58 mm paper's 48 mm.
MIN_WIDTH = PAPER_DOTS[58]
#: Wider pictures than 80 mm paper's are that strip scaled up (for screens, say).
WIDEST_MM = PAPER_DOTS[80] / DOTS_PER_MM
#: The font's capitals, as a fraction of its em (DejaVu Sans: 1493 of 2048 units).
CAP_HEIGHT = 1493 / 2048
#: Lines of text are this many ems apart, so that two lines' ink never touches.
LINE_PITCH = 1.2
#: The font of headings and labels: DejaVu's condensed bold, narrower than the bold.
HEAVY = CONDENSED_BOLD

Point = tuple[float, float]


@dataclass(frozen=True)
class Limits:
    """The least a player can read and write in, in millimetres."""

    cap_mm: float = 2.0
    box_mm: float = 6.0
    bubble_mm: float = 3.0
    initials_mm: tuple[float, float] = (25.0, 7.0)


LIMITS = Limits()


@dataclass(frozen=True)
class Metrics:
    """The sizes a layout draws, in millimetres: each a little above its limit in
    :data:`LIMITS`, so that rounding to whole dots never takes it under."""

    #: The em of every word: capitals of 2.1 mm.
    text: float = 2.9
    title: float = 4.0
    #: The side of a box for a pencilled number.
    box: float = 7.0
    #: A bubble's diameter.
    bubble: float = 3.6
    initials: tuple[float, float] = (26.0, 8.0)
    #: A space of the key's small diagrams.
    diagram: float = 5.0

    def scaled(self, k: float) -> Metrics:
        """Every size times ``k`` (a test shrinks a layout on purpose with it)."""
        w, h = self.initials
        return replace(
            self,
            text=self.text * k,
            title=self.title * k,
            box=self.box * k,
            bubble=self.bubble * k,
            initials=(w * k, h * k),
            diagram=self.diagram * k,
        )


METRICS = Metrics()


# --- the shapes ----------------------------------------------------------------


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    line: float = 0.0  # outline width; 0: no outline
    fill: bool = False
    #: What the player does with it: WRITE (a number), INITIALS; "" for a drawing.
    role: str = ""
    #: Filled with paper, not ink: what a player's writing clears of the map's drawing.
    white: bool = False


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
    #: BUBBLE for one a player ticks; "" for a drawing.
    role: str = ""


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


@dataclass(frozen=True)
class Symbol:
    """One of the special faces' pictures (:func:`pitable.render.faces.picture`), drawn on
    a square: a hazard drawn on a player's sheet."""

    x: float  # left
    y: float  # top
    size: float
    #: The picture's name: the title's ``hazard_symbol``.
    name: str


Shape = Rect | Line | Circle | Poly | Text | Symbol

#: Roles of the shapes a player writes in or ticks, which the legibility test measures.
WRITE = "write"
INITIALS = "initials"
BUBBLE = "bubble"


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
    #: How many units make a millimetre on paper.
    mm: float = 1.0


@dataclass(frozen=True)
class Filled:
    """What a player wrote on their sheet, to draw it filled in: the map one token a
    position as ``pitable score`` reads it (:meth:`pitable.rules.phone.PlayerSheet.tokens`),
    the score's components by the names the title scores them under, its total, and the
    player's initials."""

    tokens: tuple[tuple[str, ...], ...]
    components: tuple[tuple[str, int], ...] = ()
    total: int | None = None
    initials: str = ""


# --- text metrics, the same for every painter (both use the DejaVu files kept here) ----

_REF = 100


@lru_cache(maxsize=4096)
def text_width(text: str, size: float, bold: bool = False) -> float:
    return font(_REF, HEAVY if bold else REGULAR).getlength(text) * size / _REF


def ascent(size: float) -> float:
    """The font's ascender above the baseline, for painters that place text by baseline."""
    return font(_REF).getmetrics()[0] * size / _REF


# --- sections, laid out down a column ----------------------------------------------


def wrap(
    text: str, room: float, size: float, bold: bool = False, *, first: float | None = None
) -> list[str]:
    """``text`` broken at spaces into lines at most ``room`` wide at ``size`` (the first
    line ``first`` wide, when given); a word wider than its line gets a line of its own."""
    lines: list[str] = []
    line = ""
    for word in split_words(text):
        trial = f"{line} {word}" if line else word
        limit = first if first is not None and not lines else room
        if line and text_width(trial, size, bold) > limit:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return lines


class Flow:
    """A column ``w`` wide at ``x`` that sections are laid down, from ``y`` downward.

    ``u`` units make a millimetre; every size comes from ``m`` (millimetres), so the same
    sections make the strip (dots) and the page (millimetres).
    """

    def __init__(
        self, shapes: list[Shape], *, x: float, w: float, y: float, u: float, m: Metrics,
        tr: Translator = ENGLISH,
    ) -> None:
        self.shapes = shapes
        self.x, self.w, self.y, self.u, self.m = x, w, y, u, m
        #: The language of the words the sections add of their own ("Solo levels:").
        self.tr = tr
        #: Outline widths: at least one dot on a printer, 0.25 mm on paper.
        self.thin = max(0.25 * u, 1.0) if u > 1 else 0.25
        self.thick = 2 * self.thin

    @property
    def em(self) -> float:
        return self.m.text * self.u

    def skip(self, mm: float) -> None:
        self.y += mm * self.u

    def words(
        self,
        text: str,
        *,
        bold: bool = False,
        size: float | None = None,
        indent: float = 0.0,
        room: float | None = None,
    ) -> None:
        """``text`` wrapped to the column (or ``room``), one line after another."""
        em = size if size is not None else self.em
        width = room if room is not None else self.w - indent
        for line in wrap(text, width, em, bold):
            self.shapes.append(Text(self.x + indent, self.y, line, em, bold))
            self.y += LINE_PITCH * em

    def parts(self, parts: list[str]) -> None:
        """Short phrases joined by a middle dot, as many to a line as fit, never broken."""
        line = ""
        for part in parts:
            trial = f"{line}{SEPARATOR}{part}" if line else part
            if line and text_width(trial, self.em) > self.w:
                self.words(line, room=math.inf)
                line = part
            else:
                line = trial
        self.words(line, room=math.inf)

    def label_at(self, text: str, x: float, centre_y: float, *, bold: bool = False) -> None:
        """One line whose capitals are centred on ``centre_y``."""
        em = self.em
        top = centre_y - (ascent(em) - CAP_HEIGHT * em / 2)
        self.shapes.append(Text(x, top, text, em, bold))

    # --- things to write in or tick ------------------------------------------------

    def bubble(self, cx: float, cy: float) -> None:
        self.shapes.append(Circle(cx, cy, self.m.bubble * self.u / 2, self.thin, BUBBLE))

    def box(self, x: float, y: float, *, thick: bool = False) -> float:
        """A box for a pencilled number, top left at ``x``, ``y``; returns its side."""
        side = self.m.box * self.u
        line = self.thick if thick else self.thin
        self.shapes.append(Rect(x, y, side, side, line, role=WRITE))
        return side

    def initials(self, x: float, y: float) -> tuple[float, float]:
        w, h = (v * self.u for v in self.m.initials)
        self.shapes.append(Rect(x, y, w, h, self.thin, role=INITIALS))
        return w, h

    # --- sections --------------------------------------------------------------------

    def tally(self, tally: Tally) -> None:
        """A tally: its label, then its bubbles or boxes; on the label's line when they
        fit there, else in rows below it."""
        u, m = self.u, self.m
        d, side = m.bubble * u, m.box * u
        if tally.mark is Mark.BUBBLE and not tally.names:
            self.rounds(tally)
            return
        if tally.mark is Mark.BUBBLE:
            # Structures: a bubble before each name.
            widths = [d + 1.0 * u + text_width(n, self.em) for n in tally.names]
            gap, height = 2.5 * u, max(d, self.em)
            middle = height / 2
        elif tally.mark is Mark.BUBBLE_AND_BOX:
            # Dangers: a bubble to mark above a box for the stars it gains or loses.
            widths = [side] * tally.count
            gap, height = 2.0 * u, d + 0.8 * u + side
            middle = height - side / 2
        else:
            # Treasure chests: a box for the number that found each treasure.
            widths = [side] * tally.count
            gap, height = 2.0 * u, side
            middle = height / 2
        lead = text_width(tally.label, self.em, True) + 2.0 * u
        x0 = self.x + lead
        if lead + sum(widths) + gap * (len(widths) - 1) > self.w:
            self.words(tally.label, bold=True)
            self.skip(0.6)
            x0 = self.x
        else:
            # The label beside the boxes' middle (the dangers' boxes, not their bubbles).
            self.label_at(tally.label, self.x, self.y + middle, bold=True)
        x = x0
        for i, wide in enumerate(widths):
            if x > x0 and x + wide > self.x + self.w:
                x = x0
                self.y += height + 1.5 * u
            if tally.mark is Mark.BUBBLE:
                self.bubble(x + d / 2, self.y + height / 2)
                self.label_at(tally.names[i], x + d + 1.0 * u, self.y + height / 2)
            elif tally.mark is Mark.BUBBLE_AND_BOX:
                self.bubble(x + side / 2, self.y + d / 2)
                self.box(x, self.y + d + 0.8 * u)
            else:
                self.box(x, self.y)
            x += wide + gap
        self.y += height

    def rounds(self, tally: Tally) -> None:
        """Solo rounds: bubbles in groups of five, so that a glance counts them. Across
        the column after their label when they fit there, else in rows below it; in a
        column narrower than one group, each group runs down, side by side as they fit."""
        u, d = self.u, self.m.bubble * self.u
        pitch, gap = d + 0.8 * u, 1.6 * u
        group = 5 * pitch + gap
        lead = text_width(tally.label, self.em, True) + 2.0 * u
        groups = math.ceil(tally.count / 5)
        if lead + groups * group - gap <= self.w:
            self.label_at(tally.label, self.x, self.y + d / 2, bold=True)
            spots = [(lead + i * pitch + (i // 5) * gap, 0.0) for i in range(tally.count)]
        elif group - gap <= self.w:
            self.words(tally.label, bold=True)
            self.skip(0.6)
            across = max(1, int((self.w + gap) // group))
            spots = []
            for i in range(tally.count):
                row, col = divmod(i, 5 * across)
                spots.append((col * pitch + (col // 5) * gap, row * pitch))
        else:
            self.words(tally.label, bold=True)
            self.skip(0.6)
            across = max(1, int((self.w + 0.8 * u) // pitch))
            spots = []
            for i in range(tally.count):
                g, k = divmod(i, 5)
                band, col = divmod(g, across)
                spots.append((col * pitch, band * group + k * pitch))
        for dx, dy in spots:
            self.bubble(self.x + dx + d / 2, self.y + dy + d / 2)
        self.y += max(dy for _, dy in spots) + d

    def key(self, entries: tuple[KeyEntry, ...]) -> None:
        for entry in entries:
            self.entry(entry)
            self.skip(1.4)

    def entry(self, entry: KeyEntry) -> None:
        """A key entry: its name and stars in bold, then its rule on the same line, beside
        its diagram."""
        u = self.u
        top = self.y
        indent = 0.0
        bottom = top
        if entry.diagram is not None:
            cell = self.m.diagram * u
            self.diagram(entry.diagram, self.x, top + 0.2 * u, cell)
            indent = entry.diagram.columns * cell + 1.8 * u
            bottom = top + 0.2 * u + entry.diagram.rows * cell
        self.run(entry.heading(self.tr), entry.rule, indent=indent)
        self.y = max(self.y, bottom)

    def run(self, heading: str, text: str, *, indent: float = 0.0) -> None:
        """``heading`` in bold and ``text`` after it on the same line, wrapped."""
        em = self.em
        room = self.w - indent
        x = self.x + indent
        heads = wrap(heading, room, em, True)
        for line in heads[:-1]:
            self.shapes.append(Text(x, self.y, line, em, True))
            self.y += LINE_PITCH * em
        self.shapes.append(Text(x, self.y, heads[-1], em, True))
        # A space and a half: the painter rounds the font to whole dots.
        lead = text_width(heads[-1], em, True) + 1.5 * text_width(" ", em)
        lines = wrap(text, room, em, first=room - lead)
        if lines and text_width(lines[0], em) <= room - lead:
            self.shapes.append(Text(x + lead, self.y, lines.pop(0), em))
        else:
            lines = wrap(text, room, em)
        self.y += LINE_PITCH * em
        for line in lines:
            self.shapes.append(Text(x, self.y, line, em))
            self.y += LINE_PITCH * em

    def diagram(self, diagram: Diagram, x: float, y: float, cell: float) -> None:
        """Spaces drawn as on the map, each with its number centred."""
        em = self.em
        for r, c, text in diagram.spaces:
            sx, sy = x + c * cell, y + r * cell
            self.shapes.append(Rect(sx, sy, cell, cell, self.thin))
            if (r, c) in diagram.doors:
                inset = 0.12 * cell
                self.shapes.append(
                    Rect(sx + inset, sy + inset, cell - 2 * inset, cell - 2 * inset, self.thin)
                )
            if (r, c) in diagram.circled:
                self.shapes.append(Circle(sx + cell / 2, sy + cell / 2, 0.34 * cell, self.thin))
            if text:
                tx = sx + (cell - text_width(text, em)) / 2
                self.label_at(text, tx, sy + cell / 2)

    def scores(self, labels: tuple[str, ...],
               values: tuple[int | None, ...] | None = None) -> None:
        """Score boxes, the total last with a thick outline: each caption before its box,
        as many to a row as fit; or, when that takes more rows than one and captions
        above their boxes fit in one, so. ``values`` are written in the boxes, one a box
        (None: left empty)."""
        u, side, em = self.u, self.m.box * self.u, self.em
        gap = 3.0 * u
        widths = [text_width(label, em, True) + 1.2 * u + side for label in labels]
        rows = _rows(widths, gap, self.w)
        above = [max(text_width(label, em, True), side) for label in labels]
        if len(rows) > 1 and len(_rows(above, 1.5 * u, self.w)) == 1:
            # One row, each caption above its box, spread over the column.
            spare = (self.w - sum(above)) / max(1, len(above) - 1)
            x = self.x
            box_y = self.y + LINE_PITCH * em
            for i, (label, wide) in enumerate(zip(labels, above, strict=True)):
                self.shapes.append(Text(x + (wide - text_width(label, em, True)) / 2, self.y,
                                        label, em, True))
                self.box(x + (wide - side) / 2, box_y, thick=i == len(labels) - 1)
                if values is not None:
                    self.value_in(x + (wide - side) / 2, box_y, values[i])
                x += wide + spare
            self.y = box_y + side
            return
        i = 0
        for row in rows:
            # A row of several spreads over the column, so that the rows end together.
            spare = (self.w - sum(row)) / (len(row) - 1) if len(row) > 1 else gap
            x = self.x
            for wide in row:
                label = labels[i]
                box_x = x + wide - side
                self.box(box_x, self.y, thick=i == len(labels) - 1)
                if values is not None:
                    self.value_in(box_x, self.y, values[i])
                self.label_at(label, x, self.y + side / 2, bold=True)
                x += wide + spare
                i += 1
            self.y += side + 1.5 * u
        self.y -= 1.5 * u

    def value_in(self, x: float, y: float, value: int | None) -> None:
        """``value`` written in the score box whose top left is ``x``, ``y``: as large as
        the box holds, never smaller than the sheet's words."""
        if value is None:
            return
        side = self.m.box * self.u
        text = signed(value)
        room = side - 2 * self.thick - 0.8 * self.u
        em = max(self.em, min(1.2 * self.em, room / text_width(text, 1.0, True)))
        width = text_width(text, em, True)
        top = y + side / 2 - (ascent(em) - CAP_HEIGHT * em / 2)
        self.shapes.append(Text(x + (side - width) / 2, top, text, em, True))

    def solo(self, sheet: Sheet, target: int | None) -> None:
        """The adventurer levels of a solo game, and the stars to beat when there is a
        target."""
        title = sheet.title
        _ = self.tr.gettext
        levels = ", ".join(
            _("{level} {stars}+").format(level=_(name), stars=stars)
            for name, stars in zip(LEVEL_WORDS[1:], title.level_thresholds, strict=True))
        if title.discount_per_hazard:
            levels = _("{levels}; each {count} fewer for every {hazard} placed, crossed out"
                       " or not").format(levels=levels, count=title.discount_per_hazard,
                                         hazard=_(title.hazard_name))
        self.run(_("Solo levels:"), f"{levels}.")
        if target is not None:
            self.skip(0.6)
            self.words(_("Stars to beat: {target}").format(target=target), bold=True)


def _rows(widths: list[float], gap: float, room: float) -> list[list[float]]:
    """``widths`` in order into rows no wider than ``room``, ``gap`` apart."""
    rows: list[list[float]] = [[]]
    used = 0.0
    for wide in widths:
        if rows[-1] and used + gap + wide > room:
            rows.append([])
            used = 0.0
        used += (gap if rows[-1] else 0.0) + wide
        rows[-1].append(wide)
    return rows


SEPARATOR = " \u00b7 "


def signed(value: int) -> str:
    """A number of stars as a player writes it, with a real minus sign: ``7``, ``\u22124``."""
    return str(value) if value >= 0 else f"\u2212{-value}"


def which_map(sheet: Sheet, tr: Translator = ENGLISH) -> str:
    """Which map ``sheet`` is, as it prints it: ``Side A · seed 7 · map v2``."""
    _ = tr.gettext
    return SEPARATOR.join((
        _("Side {side}").format(side=sheet.side.value.upper()),
        _("seed {seed}").format(seed=sheet.seed),
        _("map v{version}").format(version=sheet.version),
    ))


def said(sheet: Sheet, tr: Translator) -> Sheet:
    """``sheet`` with the words it prints around its map (the tallies, the score boxes, the
    special faces' reminders) in the language of ``tr``; the title's name and its key are
    said where they are drawn."""
    _ = tr.gettext
    return replace(
        sheet,
        tallies=tuple(replace(t, label=_(t.label), names=tuple(_(n) for n in t.names))
                      for t in sheet.tallies),
        score_boxes=tuple(_(box) for box in sheet.score_boxes),
        # The purple face's reminder states Penny Papers' range: the rules' bounds, said.
        reminders=tuple(_(line).format(range=penny_range(tr)) for line in sheet.reminders),
    )


def key_of(sheet: Sheet, tr: Translator) -> tuple[KeyEntry, ...]:
    """The title's key, in the language of ``tr``."""
    return tuple(entry.said(tr) for entry in sheet.title.sheet_key())


def bottom(flow: Flow, chests: list[Tally], labels: tuple[str, ...],
           values: tuple[int | None, ...] | None = None) -> None:
    """The treasure chests and the score boxes, the sheet's last section; a lone total
    ends the chests' row when it fits there. ``values`` are written in the score boxes."""
    u, side = flow.u, flow.m.box * flow.u
    total_w = text_width(labels[-1], flow.em, True) + 1.2 * u + side
    if len(chests) == 1 and len(labels) == 1:
        chest = chests[0]
        row_w = (text_width(chest.label, flow.em, True) + 2.0 * u
                 + chest.count * side + (chest.count - 1) * 2.0 * u)
        if row_w + 4.0 * u + total_w <= flow.w:
            top = flow.y
            flow.tally(chest)
            end = Flow(flow.shapes, x=flow.x + flow.w - total_w, w=total_w, y=top, u=u, m=flow.m,
                       tr=flow.tr)
            end.scores(labels, values)
            flow.y = max(flow.y, end.y)
            return
    for tally in chests:
        flow.tally(tally)
        flow.skip(3.0)
    flow.scores(labels, values)


def split_tallies(sheet: Sheet) -> tuple[list[Tally], list[Tally], list[Tally]]:
    """The tallies by where the rulebooks put them: the solo rounds at the left (before
    the grid), the structures and dangers at the right (after it), the treasure chests at
    the bottom (with the score boxes)."""
    rounds = [t for t in sheet.tallies if t.mark is Mark.BUBBLE and not t.names]
    chests = [t for t in sheet.tallies if t.mark is Mark.BOX]
    right = [t for t in sheet.tallies if t not in rounds and t not in chests]
    return rounds, right, chests


# --- the strip ----------------------------------------------------------------------


def cell_size(width: int) -> int:
    """The side of one space, in pixels, on a strip ``width`` pixels wide: as large as the
    width allows, with room for the grid's thick outer edges."""
    u = max(float(DOTS_PER_MM), width / WIDEST_MM)
    thick = 2 * max(0.25 * u, 1.0)
    return math.floor((width - 2 * thick) / MAX_COLUMNS)


def strip_layout(
    sheet: Sheet,
    width: int = PAPER_DOTS[58],
    *,
    metrics: Metrics = METRICS,
    solo: bool = False,
    target: int | None = None,
    lang: str = SOURCE_LANGUAGE,
    filled: Filled | None = None,
) -> Drawing:
    """``sheet`` laid out in dots down a strip ``width`` dots wide, read top to bottom, its
    words in ``lang``.

    Up to 80 mm paper's 576 dots, a dot is 1/8 mm; a wider picture is that strip scaled
    up. ``solo`` adds the adventurer levels, ``target`` the stars to beat; ``filled``
    writes a player's sheet on it (:func:`written`), their score and their initials.
    """
    if width < MIN_WIDTH:
        raise ValueError(
            f"a sheet needs a width of {MIN_WIDTH} pixels or more (58 mm paper), not {width}"
        )
    u = max(float(DOTS_PER_MM), width / WIDEST_MM)
    s = cell_size(width)
    x0 = (width - MAX_COLUMNS * s) / 2
    shapes: list[Shape] = []
    tr = translator(lang)
    scored = sheet.score_boxes
    sheet = said(sheet, tr)
    flow = Flow(shapes, x=x0, w=MAX_COLUMNS * s, y=1.0 * u, u=u, m=metrics, tr=tr)
    rounds, right, chests = split_tallies(sheet)

    # The initials box at the top left, as in the rulebook; which map it is beside it.
    top = flow.y
    box_w, box_h = flow.initials(x0, top)
    if filled is not None and filled.initials:
        em = 0.6 * box_h
        wide = text_width(filled.initials, em, True)
        shapes.append(Text(x0 + (box_w - wide) / 2,
                           top + box_h / 2 - (ascent(em) - CAP_HEIGHT * em / 2),
                           filled.initials, em, True))
    beside = Flow(shapes, x=x0 + box_w + 1.5 * u, w=flow.w - box_w - 1.5 * u, y=top, u=u,
                  m=metrics, tr=tr)
    beside.words(tr.gettext("\u2190 Initials"), bold=True)
    beside.parts(which_map(sheet, tr).split(SEPARATOR))
    flow.y = max(top + box_h, beside.y) + 2.0 * u
    flow.words(sheet.title.display_name(tr), bold=True, size=metrics.title * u)
    flow.skip(2.5)

    for tally in rounds:
        flow.tally(tally)
        flow.skip(3.0)

    # Clouds sit above the spaces beside them; a band above the grid holds those of row 0.
    if any(r == 0 for r, _ in sheet.clouds):
        flow.y += 0.45 * s
    grid_y = flow.y
    _grid(shapes, sheet, x0=x0, y0=grid_y, s=s, thin=flow.thin, thick=flow.thick)
    if filled is not None:
        written(shapes, sheet, filled.tokens, x0=x0, y0=grid_y, s=s, thin=flow.thin,
                thick=flow.thick)
    flow.y += sheet.grid_height * s
    flow.skip(3.5)

    for tally in right:
        flow.tally(tally)
        flow.skip(3.5)
    flow.key(key_of(sheet, tr))
    flow.skip(1.5)
    for words in sheet.reminders:
        flow.words(words)
    if solo or target is not None:
        flow.skip(3.0)
        flow.solo(sheet, target)
    flow.skip(3.5)
    values = None
    if filled is not None:
        values, rest = score_values(scored, filled)
        if rest:
            flow.parts([f"{tr.gettext(name)} {signed(stars)}" for name, stars in rest])
            flow.skip(2.0)
    bottom(flow, chests, sheet.score_boxes, values)
    flow.skip(2.0)
    return Drawing(width, flow.y, shapes, x0, grid_y, s, u)


def score_values(boxes: tuple[str, ...], filled: Filled
                 ) -> tuple[tuple[int | None, ...], list[tuple[str, int]]]:
    """What each score box of ``boxes`` (as the title names them, the total last) holds:
    the component of its name, the total in the last; and the components that have no
    box of their own (counted in rows beside the map, written above the score boxes)."""
    components = dict(filled.components)
    values = (*(components.get(name) for name in boxes[:-1]), filled.total)
    rest = [(name, stars) for name, stars in filled.components if name not in boxes[:-1]]
    return values, rest


#: A number written on the map, as a fraction of a space's side: its capitals are 0.41 of
#: it, 2.1 mm on 58 mm paper's spaces of 5.25 mm.
WRITTEN_EM = 0.56
#: How far a discovery's outline runs inside its spaces, as a fraction of a space's side.
OUTLINE_INSET = 0.09


def written(shapes: list[Shape], sheet: Sheet, tokens: tuple[tuple[str, ...], ...], *,
            x0: float, y0: float, s: float, thin: float, thick: float) -> None:
    """A player's writing on the map whose top left is ``x0``, ``y0``, spaces ``s`` wide:
    ``tokens`` as ``pitable score`` reads them. A number is written in its space; a hazard
    drawn as the title's hazard picture, crossed out with a cross over it; a letter of the
    title's own (a structure, a boat) written as it is typed; a value found at a position
    alone (a treasure, ``/T7``) circled; the spaces of each group marked after a ``/``
    (a discovery, ``7/j1``) outlined together. Only the tokens and the registry say what
    is what: every title is drawn so."""
    # Imported here: drawing a blank sheet reads no finished one.
    from pitable.rules.scoring import Token, parse_token

    title = sheet.title
    hazards = (Token.HAZARD, Token.CROSSED)
    groups: dict[tuple[str, int | None], set[tuple[int, int]]] = {}
    for r, row in enumerate(tokens):
        for c, text in enumerate(row):
            space = parse_token(text, (r, c), highest=99)
            token = space.token
            x, y = x0 + c * s, y0 + r * s
            lone = space.mark is not None and space.mark in title.lone_marks
            if space.mark is not None and not lone:
                groups.setdefault((space.mark, space.mark_n), set()).add((r, c))
            words: tuple[str, bool] | None = None
            if token in hazards:
                inset = 0.1 * s
                shapes.append(Rect(x + inset, y + inset, s - 2 * inset, s - 2 * inset,
                                   fill=True, white=True))
                shapes.append(Symbol(x + 0.14 * s, y + 0.14 * s, 0.72 * s, title.hazard_symbol))
                if token is Token.CROSSED:
                    m = 0.08 * s
                    shapes.append(Line(x + m, y + m, x + s - m, y + s - m, thick))
                    shapes.append(Line(x + s - m, y + m, x + m, y + s - m, thick))
            elif space.number is not None:
                words = str(space.number), False
            elif token not in (Token.NONE, Token.EMPTY) and (
                    token.kind is None or token.value != token.kind.value):
                # A token of the title's own, not a map letter: a structure, a boat.
                words = token.value, True
            if lone:
                if words is None and token not in hazards and space.mark_n is not None:
                    # Found where no number is (a mountain): the value alone, on a clear
                    # space, so that the circle reads as what it is.
                    inset = 0.06 * s
                    shapes.append(Rect(x + inset, y + inset, s - 2 * inset, s - 2 * inset,
                                       fill=True, white=True))
                    words = str(space.mark_n), False
                shapes.append(Circle(x + s / 2, y + s / 2, 0.46 * s, thin))
            if words is not None:
                _write(shapes, *words, x=x, y=y, s=s)
    for cells in groups.values():
        _outline(shapes, cells, x0=x0, y0=y0, s=s, line=thick)


def _write(shapes: list[Shape], text: str, bold: bool, *, x: float, y: float,
           s: float) -> None:
    """``text`` centred in the space whose top left is ``x``, ``y``, on paper cleared of
    the space's drawing (a wave, a spring) just round it."""
    em = WRITTEN_EM * s
    wide = text_width(text, em, bold)
    cap = CAP_HEIGHT * em
    cx, cy = x + s / 2, y + s / 2
    pad = 0.04 * s
    shapes.append(Rect(cx - wide / 2 - pad, cy - cap / 2 - pad, wide + 2 * pad, cap + 2 * pad,
                       fill=True, white=True))
    shapes.append(Text(cx - wide / 2, cy - (ascent(em) - cap / 2), text, em, bold))


def _outline(shapes: list[Shape], cells: set[tuple[int, int]], *, x0: float, y0: float,
             s: float, line: float) -> None:
    """One outline round ``cells``, inside their spaces, so that two groups side by side
    stay two."""
    d = OUTLINE_INSET * s
    for r, c in cells:
        x, y = x0 + c * s, y0 + r * s
        up, down = (r - 1, c) in cells, (r + 1, c) in cells
        left, right = (r, c - 1) in cells, (r, c + 1) in cells
        x1, x2 = x + (0 if left else d), x + s - (0 if right else d)
        y1, y2 = y + (0 if up else d), y + s - (0 if down else d)
        if not up:
            shapes.append(Line(x1, y + d, x2, y + d, line))
        if not down:
            shapes.append(Line(x1, y + s - d, x2, y + s - d, line))
        if not left:
            shapes.append(Line(x + d, y1, x + d, y2, line))
        if not right:
            shapes.append(Line(x + s - d, y1, x + s - d, y2, line))
        # An inner corner: the outlines of the two neighbours meet here.
        for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
            if (r + dr, c) in cells and (r, c + dc) in cells and (r + dr, c + dc) not in cells:
                px = x + d if dc < 0 else x + s - d
                py = y + d if dr < 0 else y + s - d
                ex = x if dc < 0 else x + s
                ey = y if dr < 0 else y + s
                shapes.append(Line(px, ey, px, py, line))
                shapes.append(Line(ex, py, px, py, line))


def _grid(
    shapes: list[Shape], sheet: Sheet, *, x0: float, y0: float, s: float, thin: float, thick: float
) -> None:
    def at(cell: tuple[int, int]) -> tuple[float, float]:
        return x0 + cell[1] * s, y0 + cell[0] * s

    kinds = {kind for row in sheet.grid for kind in row}
    for name, draw in _CELL_PICTURES.items():
        drawn = [kind for kind in kinds if kind.picture == name]
        for cell in sheet.cells(*drawn) if drawn else ():
            x, y = at(cell)
            draw(shapes, x, y, s, thin)
    for cell in sorted(sheet.clouds):
        x, y = at(cell)
        shapes.append(Poly(_cloud(x + 0.05 * s, y - 0.04 * s, 0.9 * s, 0.38 * s), thin))
    # Edges: thin between two spaces of the map, thick where the map meets what is not
    # part of it, so that the map stands out as one shape.
    for r in range(sheet.grid_height + 1):
        for c in range(sheet.grid_width):
            a, b = sheet.kind((r - 1, c)).inside, sheet.kind((r, c)).inside
            if a or b:
                x, y = at((r, c))
                shapes.append(Line(x, y, x + s, y, thin if a and b else thick))
    for c in range(sheet.grid_width + 1):
        for r in range(sheet.grid_height):
            a, b = sheet.kind((r, c - 1)).inside, sheet.kind((r, c)).inside
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


def _peak(shapes: list[Shape], x: float, y: float, s: float, thin: float) -> None:
    """A filled peak: a space no number goes in."""
    m = 0.18 * s
    peak = ((x + s / 2, y + m), (x + s - m, y + s - m), (x + m, y + s - m))
    shapes.append(Poly(peak, fill=True))


def _door_frame(shapes: list[Shape], x: float, y: float, s: float, thin: float) -> None:
    """A door frame: a second, inner outline."""
    inset = 0.1 * s
    shapes.append(Rect(x + inset, y + inset, s - 2 * inset, s - 2 * inset, thin))


#: A drawing of one map position: the shapes it adds for the square of side ``s`` whose top
#: left corner is (``x``, ``y``), ``thin`` the width of a thin line.
CellPicture = Callable[[list[Shape], float, float, float, float], None]
#: The drawings of the map positions of a title's own kinds, by the name a kind gives
#: (``Kind.picture``), drawn in this order; a kind with none is a plain square.
_CELL_PICTURES: dict[str, CellPicture] = {
    "sea": _sea,
    "mountain": _peak,
    "door frame": _door_frame,
}
_BUILT_IN = frozenset(_CELL_PICTURES)


def register_cell_picture(name: str, draw: CellPicture) -> None:
    """Draw the map positions of a kind whose picture is ``name`` with ``draw``: how a
    title registered from outside pitable brings the drawing of its own kind of space.
    Raises :class:`ValueError` when ``name`` already has a drawing."""
    if name in _CELL_PICTURES:
        raise ValueError(f"picture {name!r}: the name is taken")
    _CELL_PICTURES[name] = draw


def unregister_cell_picture(name: str) -> None:
    """Forget the drawing ``name`` registered with :func:`register_cell_picture`."""
    if name in _BUILT_IN:
        raise ValueError(f"picture {name!r}: pitable's own pictures stay")
    _CELL_PICTURES.pop(name, None)


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


def render_sheet(
    sheet: Sheet,
    width: int = PAPER_DOTS[58],
    *,
    solo: bool = False,
    target: int | None = None,
    lang: str = SOURCE_LANGUAGE,
    filled: Filled | None = None,
) -> Image.Image:
    """``sheet`` as a 1-bit picture ``width`` pixels wide (black is 0), as tall as it needs,
    its words in ``lang``.

    384 is 58 mm paper's printable width, 576 is 80 mm paper's; between them a dot is still
    1/8 mm, and a wider picture is the 80 mm strip scaled up. ``solo`` prints the adventurer
    levels; ``target`` the stars to beat ("Stars to beat: N"). ``filled`` draws a player's
    sheet as they filled it in, their score and initials written.
    """
    return paint(strip_layout(sheet, width, solo=solo, target=target, lang=lang,
                              filled=filled))


def scaled(drawing: Drawing, k: float) -> Drawing:
    """``drawing`` with every length times ``k``: a page in millimetres as dots, say."""

    def one(shape: Shape) -> Shape:
        if isinstance(shape, Rect):
            return replace(shape, x=shape.x * k, y=shape.y * k, w=shape.w * k, h=shape.h * k,
                           line=shape.line * k)
        if isinstance(shape, Line):
            return replace(shape, x1=shape.x1 * k, y1=shape.y1 * k, x2=shape.x2 * k,
                           y2=shape.y2 * k, line=shape.line * k, dots=shape.dots * k)
        if isinstance(shape, Circle):
            return replace(shape, x=shape.x * k, y=shape.y * k, r=shape.r * k,
                           line=shape.line * k)
        if isinstance(shape, Poly):
            return replace(shape, points=tuple((x * k, y * k) for x, y in shape.points),
                           line=shape.line * k)
        if isinstance(shape, Symbol):
            return replace(shape, x=shape.x * k, y=shape.y * k, size=shape.size * k)
        return replace(shape, x=shape.x * k, y=shape.y * k, size=shape.size * k)

    return Drawing(
        drawing.width * k,
        drawing.height * k,
        [one(s) for s in drawing.shapes],
        drawing.grid_x * k,
        drawing.grid_y * k,
        drawing.cell * k,
        drawing.mm * k,
    )


def paint(drawing: Drawing) -> Image.Image:
    image = Image.new("1", (round(drawing.width), math.ceil(drawing.height)), 1)
    draw = ImageDraw.Draw(image)
    for shape in drawing.shapes:
        if isinstance(shape, Symbol):
            # Imported here: a blank sheet draws none of the dice's pictures.
            from pitable.render.faces import picture

            size = max(1, _px(shape.size))
            image.paste(0, (_px(shape.x), _px(shape.y)), picture(shape.name, size))
        else:
            _paint(draw, shape)
    return image


def _px(v: float) -> int:
    return math.floor(v + 0.5)


def _paint(draw: ImageDraw.ImageDraw, shape: Shape) -> None:
    if isinstance(shape, Rect):
        x0, y0 = _px(shape.x), _px(shape.y)
        x1, y1 = _px(shape.x + shape.w), _px(shape.y + shape.h)
        if shape.fill:
            draw.rectangle((x0, y0, x1, y1), fill=1 if shape.white else 0)
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
    elif isinstance(shape, Text):
        face = text_font(shape)
        draw.text(text_origin(shape, face), shape.text, font=face, fill=0, anchor="la")


def text_origin(shape: Text, face: ImageFont.FreeTypeFont) -> tuple[int, int]:
    """The pixel where the raster painter puts ``shape``'s pen: its place, moved right
    just enough that a first letter reaching back (a ``j`` at the sheet's left edge)
    stays on the picture."""
    return max(_px(shape.x), -int(face.getbbox(shape.text, anchor="la")[0])), _px(shape.y)


def text_font(shape: Text) -> ImageFont.FreeTypeFont:
    """The font the raster painter draws ``shape`` with: its size in whole pixels."""
    return font(max(6, _px(shape.size)), HEAVY if shape.bold else REGULAR)


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


def sheet_png(
    sheet: Sheet, width: int = PAPER_DOTS[58], *, solo: bool = False, target: int | None = None,
    lang: str = SOURCE_LANGUAGE, filled: Filled | None = None,
) -> bytes:
    """The PNG file of ``sheet`` (``filled`` in, when given): the same bytes for the same
    sheet, width and language, every time."""
    import io

    buffer = io.BytesIO()
    render_sheet(sheet, width, solo=solo, target=target, lang=lang, filled=filled).save(
        buffer, format="PNG", optimize=False)
    return buffer.getvalue()
