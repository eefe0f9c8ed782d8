"""The status screen: what the roll allows, readable at arm's length, on a 128x64 or 256x64 OLED.

:func:`draw_status` is a pure function of a :class:`StatusView`, which holds everything the
screen shows; the controller builds a new view on every change (a roll, a blink, a menu
step, a page turn) and the display layer sends the image. The layout, top to bottom:

- a small header: the title and the map's tag ("A·1234"), the hazards marked (a title's
  danger bubbles, or in solo play) and the round;
- the body: the legal numbers as big as they fit, then the plays (of a title that fills
  several spaces a turn) or the title's headline, then small chips for Dakota Smith's face
  and Penny Papers; or the hazard word across the whole screen, inverted on every other
  blink; or the menu;
- a small footer when there is something to say: a transient message, or the parts that
  are not working ("!" and the part).

That is the first page. The title's words (the Reading: what each special face does, where
a hazard goes, what it costs and how a 9 beats it) are never cut: on the 128-wide screen
they follow on further pages, and on the 256-wide SSD1322 the same body takes the left half
and the words page through the right half. The controller turns the pages on a timer or
on the encoder; :func:`page_count` says how many there are.

:func:`status_lines` gives each page's text, laid out by the same code that draws it: the
box, the simulator, ``pitable screen`` and the web page all say the same words. Every text
is placed with :class:`Placed` records, so a test can check that each one fits its box.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw

from pitable.i18n import translator
from pitable.render.fonts import BOLD, CONDENSED_BOLD, REGULAR
from pitable.render.text import (
    ABOVE,
    ELLIPSIS,
    INSIDE,
    LINE_REFERENCE,
    Fitted,
    accent_rise,
    accented_capital,
    draw_fitted,
    fit_text,
    fit_tokens,
    ink_box,
    line_height,
    measure,
    packed,
    unpacked,
    wrap_text,
)
from pitable.render.text import words as split_words
from pitable.rules import Roll
from pitable.rules.base import (
    N_,
    Options,
    Reading,
    Title,
    Translator,
    format_numbers,
    format_play,
)

ON, OFF = 1, 0
#: The small text. Compared side by side in mode "1" (no anti-aliasing) at 7 to 10 px,
#: DejaVu Sans regular at 9 px, or 8 px at a pinch, kept its letters apart best: the bold
#: faces fill in their counters ("e", "a") at these sizes and 7 px is mush in every face.
SMALL = REGULAR
SMALL_SIZE = 9
SMALL_MIN = 8
HEADER_H = 9
FOOTER_H = 10
#: The width the footer's "!" block takes before a notice.
FLAG_W = 9


@dataclass(frozen=True)
class MenuView:
    """An open menu: its heading, its entries and the one the cursor is on."""

    heading: str
    items: tuple[str, ...]
    selected: int = 0


@dataclass(frozen=True)
class StatusView:
    """Everything the status screen shows; build a new one for every change."""

    title: Title
    solo: bool = False
    round: int | None = None
    round_limit: int | None = None
    #: What the last roll allows; None before the first roll.
    options: Options | None = None
    #: The title's words for ``options``; computed from it (in ``lang``) when None.
    reading: Reading | None = None
    menu: MenuView | None = None
    #: Parts that are not working, e.g. "red die display not answering".
    notices: tuple[str, ...] = ()
    #: The hazard alarm's phase: the controller toggles it; True draws the screen inverted.
    blink_on: bool = True
    #: Hazards marked so far (solo play, and a title's danger bubbles at a table).
    hazards: int | None = None
    #: A transient line, e.g. "Printing sheet seed 1234"; wrapped onto two when it must.
    message: str | None = None
    #: The end of a game: the level reached, shown big (the message says the rest).
    result: str | None = None
    #: The map the table plays on, in short (side and seed, "A·1234"), after the title.
    map_tag: str | None = None
    #: The language of the words: a key of :data:`pitable.i18n.LANGUAGES` ("en", "fr"...).
    lang: str = "en"
    #: The page shown, counted from 0 and taken modulo :func:`page_count`.
    page: int = 0
    #: An ended table game's ranking: place, initials, stars, shared, one a line.
    ranking: tuple[tuple[int, str, int, bool], ...] = ()
    #: A player's sheet for the TV's corner: initials, stars, the map's rows, the tokens.
    corner: tuple[str, int, tuple[str, ...], tuple[tuple[str, ...], ...]] | None = None


#: The adventurer levels, for a finished game's screen (their names are kept in English in
#: the store; the screen shows them in its language).
LEVEL_WORDS = (N_("Tourist"), N_("Pathfinder"), N_("Voyager"), N_("Explorer"))


def tr_of(view: StatusView) -> Translator:
    return translator(view.lang)


def round_text(view: StatusView) -> str:
    """"R 7/25" in solo play; "R 7" without a limit; "" before the first roll of a game
    without a round limit, and in table play without a round."""
    _ = tr_of(view).gettext
    if view.round is None:
        return ""
    if view.round_limit is not None:
        return _("R {round}/{limit}").format(round=view.round, limit=view.round_limit)
    if view.round == 0:
        return ""
    return _("R {round}").format(round=view.round)


def hazards_text(view: StatusView) -> str:
    """The hazards so far: "2 snakes", or against the sheet's limit, "danger 3/5"."""
    if view.hazards is None:
        return ""
    return view.title.hazards_text(view.hazards, tr_of(view))


def alarm(view: StatusView) -> bool:
    if view.reading is not None:
        return view.reading.alarm
    return view.options is not None and view.options.hazard


def reading_of(view: StatusView) -> Reading | None:
    if view.reading is not None:
        return view.reading
    if view.options is None:
        return None
    return view.title.reading(view.options, solo=view.solo, tr=tr_of(view))


Box = tuple[int, int, int, int]  # left, top, right, bottom; right and bottom exclusive


#: The parts of a page, in reading order (:attr:`Placed.part`).
HEADER, BODY, WORDS, FOOTER = range(4)


@dataclass(frozen=True)
class Placed:
    """A text placed on the screen: what is drawn, the box it must stay inside, and how it
    was fitted (its ink's size, and ``whole`` False when it had to be elided)."""

    text: str
    box: Box
    fitted: Fitted
    #: Where on the screen, in reading order: the header, the body, the words, the footer.
    part: int = HEADER

    @property
    def fits(self) -> bool:
        x0, y0, x1, y1 = self.box
        return self.fitted.whole and self.fitted.width <= x1 - x0 and \
            self.fitted.height <= y1 - y0


@dataclass
class Canvas:
    """Where a page is laid out: every text is recorded, and drawn when there is an image.

    Laying out without an image (``draw`` None) is what :func:`status_lines` and the fit
    test do: the same code places the same texts, and nothing is drawn.
    """

    draw: ImageDraw.ImageDraw | None
    placed: list[Placed] = field(default_factory=list)
    #: The part being laid out (see :attr:`Placed.part`).
    part: int = HEADER

    def text(self, box: Box, fitted: Fitted, *, fill: int = ON, align: str = "center",
             valign: str = "center") -> None:
        if fitted.text.endswith(ELLIPSIS):
            # Cut before it was fitted (a footer wrapped onto its two lines): not whole.
            fitted = dataclasses.replace(fitted, whole=False)
        if fitted.text:
            self.placed.append(Placed(fitted.text, box, fitted, self.part))
        if self.draw is not None:
            draw_fitted(self.draw, box, fitted, fill=fill, align=align, valign=valign)


# --- pages -------------------------------------------------------------------------------


def wide(size: tuple[int, int]) -> bool:
    """A screen wide enough for the body on its left half and the words on its right."""
    return size[0] >= 224


#: Screens below the header kept, each packed (1 KiB at 128x64; a Pillow picture in mode
#: "1" takes a byte a pixel, 8 KiB). What comes back is what a roll allows, for every
#: round, map and roll that allows it: over a soak of 20,000 presses mixing the three
#: titles, solo and table play (770 keys), 256 kept hit 83% of the time, 512 94% and
#: 1,024 99%; a table playing one title sees a few hundred.
BELOW_HEADER_KEPT = 512


def page_count(view: StatusView, size: tuple[int, int] = (128, 64)) -> int:
    """How many pages the screen shows for ``view``: 1 when everything fits on one."""
    if view.menu is not None:
        return 1
    return len(_pages_below_header(_below_header_view(view), size))


@lru_cache(maxsize=BELOW_HEADER_KEPT)
def _pages_below_header(view: StatusView, size: tuple[int, int]) -> tuple[tuple[str, ...], ...]:
    return _pages(view, size)


def status_lines(view: StatusView, size: tuple[int, int] = (128, 64),
                 lang: str | None = None) -> tuple[tuple[str, ...], ...]:
    """Each page's text, top to bottom: the header, the body, the words, the footer.

    The same layout :func:`draw_status` draws: what this returns is what the screen says.
    ``lang`` overrides the view's language.
    """
    if lang is not None and lang != view.lang:
        view = _replace(view, lang=lang)
    return tuple(tuple(p.text for p in page) for page in layout(view, size))


def layout(view: StatusView, size: tuple[int, int] = (128, 64)) -> tuple[tuple[Placed, ...], ...]:
    """Every page's texts and the boxes they must fit, without drawing anything."""
    pages = []
    for index in range(page_count(view, size)):
        canvas = Canvas(None)
        _draw_page(canvas, _replace(view, page=index), size)
        pages.append(tuple(sorted(canvas.placed, key=lambda p: (p.part, p.box[1], p.box[0]))))
    return tuple(pages)


def _replace(view: StatusView, **changes: object) -> StatusView:
    return dataclasses.replace(view, **changes)  # type: ignore[arg-type]


def draw_status(view: StatusView, size: tuple[int, int] = (128, 64)) -> Image.Image:
    """The status screen for ``view``, ``size`` = (width, height), in mode "1": a picture of
    its own, which the caller may draw on.

    Not cached here: a view holds the round, the hazards and the map, so it hardly ever
    comes back (0.1% of 11,000 draws over 10,000 presses, whatever the size of the cache).
    The pieces that do come back are: the screen below the header, and the header's texts.
    The controller keeps the blink's two pictures itself.
    """
    if view.menu is not None:
        image = Image.new("1", size, OFF)
        _draw_page(Canvas(ImageDraw.Draw(image)), view, size)
        return image
    # The screen below the header, drawn once for all the rounds and maps it comes back
    # in, and the header on top.
    image = unpacked(_below_header(_below_header_view(view), view.page, size), size)
    _header(Canvas(ImageDraw.Draw(image)), view, size[0])
    if alarm(view) and view.blink_on:
        image = ImageChops.invert(image.convert("L")).convert("1")
    return image


#: The roll in the key of a screen below the header, for every roll: see below.
ANY_ROLL = Roll.from_str("1,1,1")


@lru_cache(maxsize=16)
def _below_header_view(view: StatusView) -> StatusView:
    """``view`` with what only the header shows left out, and its page: the key of what is
    below the header (with the page) and of the pages' words (without).

    The hazards marked so far reach the screen below the header only through the title's
    reading (a danger bubble to mark), which is kept whole, so the options' count of
    them is left out too: otherwise no roll would ever look like one seen before. So is
    the roll itself: the screen shows what it allows (the numbers, the plays, the special
    faces' words), never its faces, and rolls that allow the same draw the same screen (in
    a soak of 20,000 presses, 1,685 views below the header drew 425 pictures).
    """
    options = view.options
    if options is not None:
        options = dataclasses.replace(options, roll=ANY_ROLL, hazards_marked=0)
    return _replace(view, options=options, reading=reading_of(view), round=None,
                    round_limit=None, hazards=None, map_tag=None, blink_on=True, page=0)


@lru_cache(maxsize=BELOW_HEADER_KEPT)
def _below_header(view: StatusView, page: int, size: tuple[int, int]) -> bytearray:
    """The page below the header, its rows packed (as :func:`unpacked` takes them)."""
    image = Image.new("1", size, OFF)
    _draw_page(Canvas(ImageDraw.Draw(image)), _replace(view, page=page), size, header=False)
    return packed(image)


def _draw_page(canvas: Canvas, view: StatusView, size: tuple[int, int], *,
               header: bool = True) -> None:
    """Lay out (and with a drawing, draw) one page; without ``header`` its rows stay blank."""
    width, height = size
    tr = tr_of(view)
    # The menu brings its own heading and needs every row it can get.
    top = 0
    if view.menu is None:
        top = _header(canvas, view, width) if header else HEADER_H + 3
    bottom = height
    footer = view.message or _notice_text(view.notices)
    if footer:
        warning = not view.message
        lines = _footer_lines(footer, width - (FLAG_W if warning else 0))
        bottom = height - len(lines) * FOOTER_H
        canvas.part = FOOTER
        _footer(canvas, lines, warning, (0, bottom, width, height))
    canvas.part = BODY
    if view.menu is not None:
        _menu(canvas, view.menu, (0, top, width, bottom))
        return
    reading = reading_of(view)
    pages = _pages_below_header(_below_header_view(view), size)
    page = view.page % len(pages)
    words = pages[page]
    body: Box = (0, top, width, bottom)
    if wide(size) and reading is not None:
        # On a wide screen the body keeps the 128-pixel layout on the left and the title's
        # words take the rest: a line of numbers stretched across 256 pixels would only get
        # wider, not taller, since the height is what limits it.
        split = width // 2
        body = (0, top, split, bottom)
        if canvas.draw is not None:
            canvas.draw.line((split + 1, top, split + 1, bottom - 2), fill=ON)
        canvas.part = WORDS
        _words(canvas, words, (split + 4, top, width, bottom))
        canvas.part = BODY
    elif page > 0:
        canvas.part = WORDS
        _words(canvas, words, body)
        return
    _body(canvas, view, reading, tr, body)


def _pages(view: StatusView, size: tuple[int, int]) -> tuple[tuple[str, ...], ...]:
    """The words of each page: on a narrow screen the first page is the body alone (no
    words), the others the words; on a wide one every page has the body and some words."""
    if view.menu is not None:
        return ((),)
    reading = reading_of(view)
    if reading is None or view.result is not None:
        return ((),)
    width, height = size
    top = HEADER_H + 3
    footer = view.message or _notice_text(view.notices)
    bottom = height
    if footer:
        bottom -= len(_footer_lines(footer, width - (0 if view.message else FLAG_W))) * FOOTER_H
    tr = tr_of(view)
    if wide(size):
        box_w = width - (width // 2 + 4)
        lines = _word_lines(view, reading, tr, on_left_only=True)
        return _paginate(lines, box_w, bottom - top) or ((),)
    lines = _word_lines(view, reading, tr, on_left_only=False)
    return ((), *_paginate(lines, width, bottom - top))


def _word_lines(view: StatusView, reading: Reading, tr: Translator, *,
                on_left_only: bool) -> tuple[str, ...]:
    """The title's words that the body does not show already.

    The body shows the numbers, the plays, the hazard's word and its brief; on a narrow
    screen also the headline of a roll without a hazard (except that of a title that
    fills several spaces a turn, where the plays take its place).
    """
    title, options = view.title, view.options
    shown = set(reading.brief)
    if options is not None:
        shown |= {title.numbers_line(options, tr), title.plays_line(options, tr)}
    lines = list(reading.lines)
    if reading.alarm:
        # The brief says its first line ("Ignore the other dice") in fewer words.
        lines = lines[1:]
    else:
        headline_on_body = not on_left_only and not (title.several_spaces and options
                                                     and options.plays)
        rest = [line for line in lines if line and line not in shown]
        if not headline_on_body and (rest or on_left_only):
            # The headline of a title with plays ("Fill 1 to 3 spaces") heads its words; alone, on a
            # page of its own, it would only say what the plays show.
            lines.insert(0, reading.headline)
    return tuple(line for line in lines if line and line not in shown)


@lru_cache(maxsize=1024)
def _paginate(lines: tuple[str, ...], width: int, height: int) -> tuple[tuple[str, ...], ...]:
    """``lines`` wrapped to ``width`` at the small size and cut into pages of ``height``.

    A line starts a new page rather than break across two when it fits on a page of its
    own; a longer one is broken between sentences, each page taking as many whole
    sentences as it holds, and a sentence longer than a page between its clauses (after
    ";", ":" or ","); only a clause longer than a page is broken between rows.
    """
    pages: list[list[str]] = []
    current: list[str] = []

    def wrapped(text: str) -> list[str]:
        return list(wrap_text(text, width, SMALL_MIN, SMALL, 99))

    def fits(rows: list[str]) -> bool:
        return sum(map(_word_row_h, rows)) <= height or len(rows) <= 1

    for line in lines:
        rest = line
        while rest:
            whole = wrapped(rest)
            if fits(current + whole):
                current += whole
                break
            if current and fits(whole):
                pages.append(current)
                current = []
                continue
            done = list(current)
            head = _fitting_prefix(rest, lambda rows: fits(done + rows), wrapped)  # noqa: B023
            if head:
                current += wrapped(head)
                rest = rest[len(head):].lstrip(" ")
            elif not current:
                # A clause longer than a page: as many of its rows as the page holds.
                current = [row for i, row in enumerate(whole) if fits(whole[: i + 1])]
                rest = " ".join(split_words(rest)[sum(len(split_words(r)) for r in current):])
            pages.append(current)
            current = []
    if current:
        pages.append(current)
    return tuple(tuple(page) for page in pages)


#: Where a long line may be broken across pages: after the end of a sentence, else after a
#: clause; each followed by an ordinary space.
_SENTENCE_ENDS = re.compile(r"[.!?](?= )")
_CLAUSE_ENDS = re.compile(r"[;:,](?= )")


def _fitting_prefix(text: str, room: Callable[[list[str]], bool],
                    wrapped: Callable[[str], list[str]]) -> str:
    """The longest part of ``text`` up to the end of a sentence (else of a clause) whose
    rows ``room`` holds; "" when none does."""
    for ends in (_SENTENCE_ENDS, _CLAUSE_ENDS):
        best = ""
        for match in ends.finditer(text):
            head = text[: match.end()]
            if not room(wrapped(head)):
                break
            best = head
        if best:
            return best
    return ""


# --- parts of the screen ----------------------------------------------------------


def _small(text: str, width: int, height: int, *, size: int = SMALL_SIZE,
           name: str = SMALL, accents: str = ABOVE) -> Fitted:
    """Small text at ``size``, smaller down to 8 px if it must, then elided."""
    return fit_text(text, width, height, name, max_size=size, min_size=min(SMALL_MIN, size),
                    line=True, accents=accents)


def _header(canvas: Canvas, view: StatusView, width: int) -> int:
    """The title on the left, hazards and round on the right; returns the body's top."""
    tr = tr_of(view)
    right = "  ".join(t for t in (hazards_text(view), round_text(view)) if t)
    name = view.title.display_name(tr) if wide((width, 0)) else view.title.display_short_name(tr)
    fl, fr, left_w = _header_texts(name, right, width, view.map_tag)
    if fl.text:
        canvas.placed.append(Placed(fl.text, (0, 0, max(left_w, 0), _header_h(fl.text)), fl))
    if fr.text:
        canvas.placed.append(Placed(fr.text, (0, 0, width, HEADER_H), fr))
    if canvas.draw is not None:
        # Not cached as a strip: its texts hold the round, the hazards and the map, which
        # come back together one time in ten; each text's ink is cached on its own.
        draw_fitted(canvas.draw, (0, 0, width, HEADER_H), fr, align="right")
        draw_fitted(canvas.draw, (0, 0, max(left_w, 0), _header_h(fl.text)), fl,
                    align="left", valign="top")
        canvas.draw.line((0, HEADER_H + 1, width - 1, HEADER_H + 1), fill=ON)
    return HEADER_H + 3


def _header_texts(name: str, right: str, width: int,
                  tag: str | None) -> tuple[Fitted, Fitted, int]:
    """The header's left text (the title, and the map's tag when it fits whole), its right
    text (hazards and round), and the width the left one may take.

    The map's tag follows the title; where both do not fit beside the round, the tag stays
    and the title goes, since the tag is what a late player asks for; a tag that does not
    fit whole is left out, since a seed cut short names another map.
    """
    fr = _small(right, width, HEADER_H)
    left_w = width - fr.width - 6 if right else width
    fl = _small(name, left_w, _header_h(name))
    for text in (f"{name} {tag}", tag) if tag else ():
        tagged = _small(text, left_w, _header_h(text))
        if tagged.whole:
            fl = tagged
            break
    return fl, fr, left_w


def _header_h(text: str) -> int:
    """The rows the header's text may take: with an accented capital ("Île"), also the blank
    row above the rule, so that the accent stands one row clear of its letter at the size
    the text gets without it."""
    return HEADER_H + 1 if any(accented_capital(c) for c in text) else HEADER_H


def _notice_text(notices: tuple[str, ...]) -> str:
    if not notices:
        return ""
    more = f" +{len(notices) - 1}" if len(notices) > 1 else ""
    return notices[0] + more


def _footer_lines(text: str, width: int) -> tuple[str, ...]:
    """The footer on one line when it fits at the small size, else on two (then elided)."""
    if measure(text, SMALL_SIZE, SMALL)[0] <= width:
        return (text,)
    return wrap_text(text, width, SMALL_SIZE, SMALL, 2) or (text,)


def _footer(canvas: Canvas, lines: tuple[str, ...], warning: bool, box: Box) -> None:
    x0, y0, x1, y1 = box
    x = x0
    if warning:
        # A lit block with a dark "!": the eye finds it even where the text is too small.
        if canvas.draw is not None:
            canvas.draw.rectangle((x0, y0 + 1, x0 + 6, y1 - 1), fill=ON)
            mark = fit_text("!", 5, FOOTER_H - 3, BOLD, max_size=SMALL_SIZE, min_size=6)
            draw_fitted(canvas.draw, (x0, y0 + 1, x0 + 7, y1), mark, fill=OFF)
        x = x0 + FLAG_W
    for i, line in enumerate(lines):
        top = y0 + i * FOOTER_H
        # The footer has no row to spare: an accent stays inside the capitals' height.
        fitted = _small(line, x1 - x, FOOTER_H - 1, accents=INSIDE)
        canvas.text((x, top + 1, x1, top + FOOTER_H), fitted, align="left")


def _body(canvas: Canvas, view: StatusView, reading: Reading | None, tr: Translator,
          box: Box) -> None:
    options = view.options
    if view.result is not None:
        _result(canvas, tr.gettext(view.result), box)
    elif options is None:
        _idle(canvas, view, tr, box)
    elif alarm(view):
        _hazard(canvas, view, reading, tr, box)
    else:
        _roll(canvas, view, options, tr, box)


def _result(canvas: Canvas, level: str, box: Box) -> None:
    """The level a finished game reached, as big as it fits."""
    x0, y0, x1, y1 = box
    canvas.text(box, fit_text(level, x1 - x0 - 2, y1 - y0, BOLD, max_size=40, min_size=8))


def _idle(canvas: Canvas, view: StatusView, tr: Translator, box: Box) -> None:
    """Before the first roll: the title's full name, and what to do (unless the footer
    says it already)."""
    x0, y0, x1, y1 = box
    hint_top = y1
    if view.message is None:
        hint = _small(tr.gettext("press ROLL"), x1 - x0, 12, size=11)
        hint_top = y1 - hint.height - 1
        canvas.text((x0, hint_top, x1, y1), hint, valign="top")
    words = split_words(view.title.display_name(tr))
    room = (x1 - x0 - 4, hint_top - y0 - 3)
    lines, size = fit_tokens(words, " ", room, BOLD, max_size=16, min_size=8)
    # fit_tokens stacks lines of capitals and descenders; an accented capital ("Î") needs
    # a taller line, so the size comes down until the stack as drawn fits.
    while size > 8 and len(lines) * (stack_step(lines, size, BOLD) + 1) - 1 > room[1]:
        lines, size = fit_tokens(words, " ", room, BOLD, max_size=size - 1, min_size=8)
    _stack(canvas, lines, size, BOLD, (x0, y0, x1, hint_top - 2))


def _stack(canvas: Canvas, lines: tuple[str, ...], size: int, name: str, box: Box,
           *, gap: int = 1) -> None:
    """Lines of one size, centred as a block inside ``box``; lines that do not fit dropped."""
    x0, y0, x1, y1 = box
    step = stack_step(lines, size, name) + gap
    y = y0 + max(0, (y1 - y0 - (len(lines) * step - gap)) // 2)
    for line in lines:
        if y + step - gap > y1:
            # Recorded as not fitting, so that the fit test sees what was dropped.
            canvas.placed.append(Placed(line, (x0, y, x1, y1), _small(line, 0, 0), canvas.part))
            continue
        fitted = fit_text(line, x1 - x0, step - gap, name, max_size=size, min_size=size,
                          line=True)
        canvas.text((x0, y, x1, y + step - gap), fitted)
        y += step


def stack_step(lines: tuple[str, ...], size: int, name: str) -> int:
    """The height of one line of a stack: a line of capitals and descenders, or taller
    when a glyph of the lines reaches beyond it (an accented capital, a bracket)."""
    return max([line_height(size, name),
                *(fit_text(line, 10**4, 10**4, name, max_size=size, min_size=size,
                           line=True).height for line in lines)])


def _hazard(canvas: Canvas, view: StatusView, reading: Reading | None, tr: Translator,
            box: Box) -> None:
    """The hazard word as big as the body allows, and under it what to do, in brief: ignore
    the other dice, and where the hazard goes (in solo play, next to last turn's space)."""
    x0, y0, x1, y1 = box
    headline = reading.headline if reading else view.title.hazard_headline(tr)
    brief = (reading.brief or reading.lines[:1]) if reading else ()
    for line in reversed(brief):
        fs = _small(line, x1 - x0 - 2, 11 + accent_rise(line, SMALL_SIZE, SMALL))
        y1 -= fs.height + 1
        canvas.text((x0, y1, x1, y1 + fs.height), fs)
    if brief:
        y1 -= 1
    word = fit_text(headline, x1 - x0 - 2, y1 - y0, BOLD, max_size=48, min_size=8)
    canvas.text((x0, y0, x1, y1), word)


#: Penny Papers' chip; the green face's is its effect's own (``GreenEffect.chip``).
PENNY_CHIP = N_("PENNY")


def chips(options: Options, tr: Translator | None = None) -> tuple[str, ...]:
    """Short words for what the special faces give, shown in lit boxes under the numbers."""
    _ = (tr or translator("en")).gettext
    words: list[str] = []
    if options.green is not None:
        words.append(_(options.green.chip))
    if options.penny:
        words.append(_(PENNY_CHIP))
    return tuple(words)


def _roll(canvas: Canvas, view: StatusView, options: Options, tr: Translator,
          box: Box) -> None:
    """The numbers as big as they fit; under them the plays or the headline, then chips."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    words = chips(options, tr)
    if words:
        # As tall as a line, and as the chips' own ink: an accented capital ("BÂTIR") rises
        # above the line, and the chip grows to hold it rather than shrink its words.
        chip_h = max(line_height(SMALL_SIZE, BOLD), *(_ink_height(w) for w in words)) + 2
        _chips(canvas, words, (x0, y1 - chip_h, x1, y1))
        y1 -= chip_h + 2
    if view.title.several_spaces and options.plays:
        # The plays, the fact players need most after the numbers: each play kept
        # whole ("2+3+5"), wrapped onto two lines when one is not enough.
        tokens = tuple(format_play(p) for p in options.plays)
        two = 2 * line_height(SMALL_SIZE, SMALL) + 1
        lines, size = fit_tokens(tokens, "  ", (w - 2, two), SMALL, max_size=SMALL_SIZE,
                                 min_size=SMALL_MIN)
    else:
        # An ignored danger says so where the headline goes: the red die shows a skull, and
        # the players must see at once that it does not count.
        headline = view.title.play_headline(options, tr=tr)
        fitted = _small(headline, w - 2, 11 + accent_rise(headline, SMALL_SIZE, SMALL))
        lines, size = (fitted.text,), int(fitted.font.size)
    sub_h = len(lines) * (stack_step(lines, size, SMALL) + 1) - 1
    _stack(canvas, lines, size, SMALL, (x0, y1 - sub_h, x1, y1))
    y1 -= sub_h + 2
    numbers = format_numbers(options.numbers) if options.numbers else tr.gettext("no number")
    canvas.text((x0, y0, x1, y1), _fit_numbers(numbers, w - 2, y1 - y0))


def _fit_numbers(text: str, width: int, height: int) -> Fitted:
    """The numbers in whichever bold face draws them taller: wide for few, condensed for many."""
    wide_face = fit_text(text, width, height, BOLD, max_size=44, min_size=8)
    narrow = fit_text(text, width, height, CONDENSED_BOLD, max_size=44, min_size=8)
    if narrow.height > wide_face.height + 1 or not wide_face.whole:
        return narrow
    return wide_face


def _ink_height(word: str, size: int = SMALL_SIZE) -> int:
    """The rows ``word``'s ink takes from the top of its accents to the bottom of the line
    (descenders included), at ``size`` in bold: what a chip must hold."""
    top = min(ink_box(word, size, BOLD)[1], ink_box(LINE_REFERENCE, size, BOLD)[1])
    return ink_box(LINE_REFERENCE, size, BOLD)[3] - top


def _chips(canvas: Canvas, words: tuple[str, ...], box: Box) -> None:
    """Words in lit rounded boxes, side by side: they stand out from the plain small text."""
    x0, y0, x1, y1 = box
    gap, pad = 6, 3
    # One size for all chips: the largest at which they fit side by side, each elided last.
    room = (x1 - x0) - gap * (len(words) - 1) - 2 * pad * len(words)
    joined = fit_text(" ".join(words), room, y1 - y0 - 2, BOLD, max_size=SMALL_SIZE,
                      min_size=SMALL_MIN, line=True)
    size = int(joined.font.size)
    fitted = [fit_text(word, max(1, room // len(words)) if not joined.whole else room,
                       y1 - y0 - 2, BOLD, max_size=size, min_size=size, line=True)
              for word in words]
    total = sum(f.width + 2 * pad for f in fitted) + gap * (len(words) - 1)
    left = x0 + max(0, (x1 - x0 - total) // 2)
    for f in fitted:
        cw = f.width + 2 * pad
        if canvas.draw is not None:
            canvas.draw.rounded_rectangle((left, y0, left + cw - 1, y1 - 1), radius=2, fill=ON)
        canvas.text((left, y0 + 1, left + cw, y1 - 1), f, fill=OFF)
        left += cw + gap


def _menu(canvas: Canvas, menu: MenuView, box: Box) -> None:
    """The heading, underlined, then as many items as fit around the selected one."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    draw = canvas.draw
    # The menu's rows are as tall as its text: an accent stays inside the capitals' height.
    head = fit_text(menu.heading, w - 2, HEADER_H + 1, BOLD, max_size=SMALL_SIZE + 1,
                    min_size=SMALL_MIN, line=True, accents=INSIDE)
    canvas.text((x0, y0, x1, y0 + HEADER_H + 1), head, align="left")
    top = y0 + HEADER_H + 2
    if draw is not None:
        draw.line((x0, top, x1 - 1, top), fill=ON)
    top += 2
    row = 12
    rows = max(1, (y1 - top) // row)
    items = menu.items
    selected = min(max(menu.selected, 0), len(items) - 1) if items else -1
    first = min(max(0, selected - (rows - 1) // 2), max(0, len(items) - rows))
    arrow_w = 6  # room on the right for the "more above" and "more below" arrows
    for i, item in enumerate(items[first : first + rows]):
        index = first + i
        ry = top + i * row
        fitted = _small(item, w - arrow_w - 6, row - 1, size=SMALL_SIZE + 1, accents=INSIDE)
        if index == selected and draw is not None:
            draw.rectangle((x0, ry, x1 - arrow_w - 1, ry + row - 1), fill=ON)
        canvas.text((x0 + 3, ry, x1 - arrow_w, ry + row), fitted, align="left",
                    fill=OFF if index == selected else ON)
    ax = x1 - arrow_w + 1
    if draw is None:
        return
    if first > 0:
        draw.polygon([(ax, top + 5), (ax + 4, top + 5), (ax + 2, top + 1)], fill=ON)
    if first + rows < len(items):
        yb = top + rows * row - 2
        draw.polygon([(ax, yb - 4), (ax + 4, yb - 4), (ax + 2, yb)], fill=ON)


def _word_row_h(row: str) -> int:
    """The rows one row of the title's words takes: a line of text and a blank row, and
    above a capital's accent ("Échangez") the rows it rises, one blank row under it."""
    plain = "".join(accented_capital(c) or c for c in row)
    return line_height(SMALL_MIN, SMALL) + 1 + accent_rise(row, SMALL_MIN, SMALL) - \
        accent_rise(plain, SMALL_MIN, SMALL)


def _words(canvas: Canvas, lines: tuple[str, ...], box: Box) -> None:
    """One page of the title's words, already wrapped to the box, from its top."""
    x0, y0, x1, _ = box
    w = x1 - x0
    y = y0
    for line in lines:
        step = _word_row_h(line)
        fitted = fit_text(line, w, step, SMALL, max_size=SMALL_MIN, min_size=SMALL_MIN,
                          line=True)
        canvas.text((x0, y, x1, y + step), fitted, align="left", valign="top")
        y += step
