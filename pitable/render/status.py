"""The status screen: what the roll allows, readable at arm's length, on a 128x64 or 256x64 OLED.

:func:`draw_status` is a pure function of a :class:`StatusView`, which holds everything the
screen shows; the controller builds a new view on every change (a roll, a blink, a menu
step) and the display layer sends the image. The layout, top to bottom:

- a small header: the title and the map's tag ("A·1234"), and in solo play the round and
  the hazards so far;
- the body: the legal numbers as big as they fit, then the Valley's plays or the title's
  headline, then small chips for Dakota Smith's face and Penny Papers; or the hazard word
  across the whole screen, inverted on every other blink; or the menu;
- a small footer when there is something to say: a transient message, or the parts that
  are not working ("!" and the part).

On the 256-wide SSD1322 the same body takes the left half and the title's own words (the
Reading's headline and lines) fill the right half.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw

from pitable.render.fonts import BOLD, CONDENSED_BOLD, REGULAR
from pitable.render.text import (
    Fitted,
    draw_fitted,
    fit_text,
    fit_tokens,
    line_height,
    measure,
    wrap_text,
)
from pitable.rules.base import GreenEffect, Options, Reading, Title, format_numbers, format_play

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
    #: The title's words for ``options``; computed from it when None.
    reading: Reading | None = None
    menu: MenuView | None = None
    #: Parts that are not working, e.g. "red die display not answering".
    notices: tuple[str, ...] = ()
    #: The hazard alarm's phase: the controller toggles it; True draws the screen inverted.
    blink_on: bool = True
    #: Hazards rolled so far (solo play).
    hazards: int | None = None
    #: A transient line, e.g. "Printing sheet seed 1234"; wrapped onto two when it must.
    message: str | None = None
    #: The end of a game: the level reached, shown big (the message says the rest).
    result: str | None = None
    #: The map the table plays on, in short (side and seed, "A·1234"), after the title.
    map_tag: str | None = None


def round_text(view: StatusView) -> str:
    """"R 7/25" in solo play; "R 7" without a limit; "" in table play without a round."""
    if view.round is None:
        return ""
    if view.round_limit is not None:
        return f"R {view.round}/{view.round_limit}"
    return f"R {view.round}"


def hazards_text(view: StatusView) -> str:
    """The hazards so far: "2 snakes", or against the sheet's limit, "danger 3/5"."""
    if view.hazards is None:
        return ""
    name = view.title.hazard_name
    limit = view.title.hazard_limit
    if limit is not None:
        return f"{name} {view.hazards}/{limit}"
    return f"{view.hazards} {name if view.hazards == 1 else plural(name)}"


def plural(word: str) -> str:
    return word[:-1] + "ies" if word.endswith("y") else word + "s"


def alarm(view: StatusView) -> bool:
    if view.reading is not None:
        return view.reading.alarm
    return view.options is not None and view.options.hazard


def reading_of(view: StatusView) -> Reading | None:
    if view.reading is not None:
        return view.reading
    if view.options is None:
        return None
    return view.title.reading(view.options, solo=view.solo)


def draw_status(view: StatusView, size: tuple[int, int] = (128, 64)) -> Image.Image:
    """The status screen for ``view``, ``size`` = (width, height), in mode "1".

    Cached on the view: the alarm's blink redraws the same two images for as long as it
    lasts. The caller gets a copy it may draw on.
    """
    return _draw_status(view, size).copy()


Box = tuple[int, int, int, int]  # left, top, right, bottom; right and bottom exclusive


@lru_cache(maxsize=64)
def _draw_status(view: StatusView, size: tuple[int, int]) -> Image.Image:
    width, height = size
    image = Image.new("1", size, OFF)
    draw = ImageDraw.Draw(image)
    # The menu brings its own heading and needs every row it can get.
    top = 0 if view.menu is not None else _header(draw, view, width)
    bottom = height
    footer = view.message or _notice_text(view.notices)
    if footer:
        warning = not view.message
        lines = _footer_lines(footer, width - (FLAG_W if warning else 0))
        bottom = height - len(lines) * FOOTER_H
        _footer(draw, lines, warning, (0, bottom, width, height))
    if view.menu is not None:
        _menu(draw, view.menu, (0, top, width, bottom))
        return image
    reading = reading_of(view)
    body = _body(view.title, view.options, reading, view.result, (top, bottom), size)
    image = ImageChops.logical_or(image, body)
    if alarm(view) and view.blink_on:
        image = ImageChops.invert(image.convert("L")).convert("1")
    return image


@lru_cache(maxsize=256)
def _body(  # noqa: PLR0917 - cached, so positional like its callers' keys
    title: Title, options: Options | None, reading: Reading | None, result: str | None,
    rows: tuple[int, int], size: tuple[int, int],
) -> Image.Image:
    """The body of the screen, alone on a dark image: cached apart from the header and the
    footer, whose round and notices change on every roll while the body's text (the costly
    part to fit and draw) repeats."""
    width, _ = size
    top, bottom = rows
    image = Image.new("1", size, OFF)
    draw = ImageDraw.Draw(image)
    view = StatusView(title=title, options=options, reading=reading, result=result)
    body: Box = (0, top, width, bottom)
    # On a wide screen the body keeps the 128-pixel layout on the left and the title's words
    # take the rest: a line of numbers stretched across 256 pixels would only get wider, not
    # taller, since the height is what limits it.
    words_box: Box | None = None
    if width >= 224 and reading is not None:
        split = width // 2
        body = (0, top, split, bottom)
        words_box = (split + 4, top, width, bottom)
        draw.line((split + 1, top, split + 1, bottom - 2), fill=ON)
    if result is not None:
        _result(draw, result, body)
    elif options is None:
        _idle(draw, view, body)
    elif alarm(view):
        _hazard(draw, view, reading, body)
    else:
        _roll(draw, view, options, body)
    if words_box is not None and reading is not None:
        _words(draw, view, reading, words_box)
    return image


# --- parts of the screen ----------------------------------------------------------


def _small(text: str, width: int, height: int, *, size: int = SMALL_SIZE,
           name: str = SMALL) -> Fitted:
    """Small text at ``size``, smaller down to 8 px if it must, then elided."""
    return fit_text(text, width, height, name, max_size=size, min_size=min(SMALL_MIN, size),
                    line=True)


def _header(draw: ImageDraw.ImageDraw, view: StatusView, width: int) -> int:
    """The title on the left, hazards and round on the right; returns the body's top."""
    right = "  ".join(t for t in (hazards_text(view), round_text(view)) if t)
    name = view.title.name if width >= 224 else view.title.short_name
    draw.bitmap((0, 0), _header_strip(name, right, width, view.map_tag), fill=ON)
    return HEADER_H + 3


@lru_cache(maxsize=256)
def _header_strip(name: str, right: str, width: int, tag: str | None = None) -> Image.Image:
    """The header's pixels, cached: the same few round numbers come back game after game.

    The map's tag follows the title; where both do not fit beside the round, the tag
    stays and the title goes, since the tag is what a late player asks for; a tag that does
    not fit whole is left out, since a seed cut short names another map.
    """
    strip = Image.new("1", (width, HEADER_H + 2), OFF)
    draw = ImageDraw.Draw(strip)
    fr = _small(right, width, HEADER_H)
    draw_fitted(draw, (0, 0, width, HEADER_H), fr, align="right")
    left_w = width - fr.width - 6 if right else width
    fl = _small(name, left_w, HEADER_H)
    for text in (f"{name} {tag}", tag) if tag else ():
        tagged = _small(text, left_w, HEADER_H)
        if tagged.whole:
            fl = tagged
            break
    draw_fitted(draw, (0, 0, max(left_w, 0), HEADER_H), fl, align="left")
    draw.line((0, HEADER_H + 1, width - 1, HEADER_H + 1), fill=ON)
    return strip


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


def _footer(draw: ImageDraw.ImageDraw, lines: tuple[str, ...], warning: bool, box: Box) -> None:
    x0, y0, x1, y1 = box
    x = x0
    if warning:
        # A lit block with a dark "!": the eye finds it even where the text is too small.
        draw.rectangle((x0, y0 + 1, x0 + 6, y1 - 1), fill=ON)
        mark = fit_text("!", 5, FOOTER_H - 3, BOLD, max_size=SMALL_SIZE, min_size=6)
        draw_fitted(draw, (x0, y0 + 1, x0 + 7, y1), mark, fill=OFF)
        x = x0 + FLAG_W
    for i, line in enumerate(lines):
        top = y0 + i * FOOTER_H
        fitted = _small(line, x1 - x, FOOTER_H - 1)
        draw_fitted(draw, (x, top + 1, x1, top + FOOTER_H), fitted, align="left")


def _result(draw: ImageDraw.ImageDraw, level: str, box: Box) -> None:
    """The level a finished game reached, as big as it fits."""
    x0, y0, x1, y1 = box
    draw_fitted(draw, box, fit_text(level, x1 - x0 - 2, y1 - y0, BOLD, max_size=40,
                                    min_size=8))


def _idle(draw: ImageDraw.ImageDraw, view: StatusView, box: Box) -> None:
    """Before the first roll: the title's full name, and what to do."""
    x0, y0, x1, y1 = box
    hint = _small("press ROLL", x1 - x0, 12, size=11)
    hint_top = y1 - hint.height - 1
    draw_fitted(draw, (x0, hint_top, x1, y1), hint, valign="top")
    lines, size = fit_tokens(tuple(view.title.name.split()), " ",
                             (x1 - x0 - 4, hint_top - y0 - 3), BOLD, max_size=16, min_size=8)
    _stack(draw, lines, size, BOLD, (x0, y0, x1, hint_top - 2))


def _stack(draw: ImageDraw.ImageDraw, lines: tuple[str, ...], size: int, name: str, box: Box,
           *, gap: int = 1) -> None:
    """Lines of one size, centred as a block inside ``box``; lines that do not fit dropped."""
    x0, y0, x1, y1 = box
    step = line_height(size, name) + gap
    y = y0 + max(0, (y1 - y0 - (len(lines) * step - gap)) // 2)
    for line in lines:
        if y + step - gap > y1:
            break
        fitted = fit_text(line, x1 - x0, step, name, max_size=size, min_size=size, line=True)
        draw_fitted(draw, (x0, y, x1, y + step - gap), fitted)
        y += step


def _hazard(draw: ImageDraw.ImageDraw, view: StatusView, reading: Reading | None,
            box: Box) -> None:
    """The hazard word as big as the body allows, and under it what to do, in brief: ignore
    the other dice, and where the hazard goes (in solo play, next to last turn's space)."""
    x0, y0, x1, y1 = box
    headline = reading.headline if reading else view.title.hazard_headline()
    brief = (reading.brief or reading.lines[:1]) if reading else ()
    for line in reversed(brief):
        fs = _small(line, x1 - x0 - 2, 11)
        y1 -= fs.height + 1
        draw_fitted(draw, (x0, y1, x1, y1 + fs.height), fs)
    if brief:
        y1 -= 1
    word = fit_text(headline, x1 - x0 - 2, y1 - y0, BOLD, max_size=48, min_size=8)
    draw_fitted(draw, (x0, y0, x1, y1), word)


def chips(options: Options) -> tuple[str, ...]:
    """Short words for what the special faces give, shown in lit boxes under the numbers."""
    words: list[str] = []
    if options.green is not None:
        words.append({GreenEffect.STRUCTURE: "BUILD", GreenEffect.BOAT: "BOAT",
                      GreenEffect.DOOR: "DOOR"}[options.green])
    if options.penny:
        words.append("PENNY")
    return tuple(words)


def _roll(draw: ImageDraw.ImageDraw, view: StatusView, options: Options, box: Box) -> None:
    """The numbers as big as they fit; under them the plays or the headline, then chips."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    words = chips(options)
    if words:
        chip_h = line_height(SMALL_SIZE, BOLD) + 2
        _chips(draw, words, (x0, y1 - chip_h, x1, y1))
        y1 -= chip_h + 2
    if view.title.several_spaces and options.plays:
        # The Valley's plays, the fact players need most after the numbers: each play kept
        # whole ("2+3+5"), wrapped onto two lines when one is not enough.
        tokens = tuple(format_play(p) for p in options.plays)
        two = 2 * line_height(SMALL_SIZE, SMALL) + 1
        lines, size = fit_tokens(tokens, "  ", (w - 2, two), SMALL, max_size=SMALL_SIZE,
                                 min_size=SMALL_MIN)
    else:
        # An ignored danger says so where the headline goes: the red die shows a skull, and
        # the players must see at once that it does not count.
        title = view.title
        headline = (f"{title.hazard_name.capitalize()} ignored: {title.hazard_limit} marked"
                    if options.hazard_ignored else title.play_headline(options))
        fitted = _small(headline, w - 2, 11)
        lines, size = (fitted.text,), int(fitted.font.size)
    sub_h = len(lines) * (line_height(size, SMALL) + 1) - 1
    _stack(draw, lines, size, SMALL, (x0, y1 - sub_h, x1, y1))
    y1 -= sub_h + 2
    numbers = format_numbers(options.numbers) if options.numbers else "no number"
    draw_fitted(draw, (x0, y0, x1, y1), _fit_numbers(numbers, w - 2, y1 - y0))


def _fit_numbers(text: str, width: int, height: int) -> Fitted:
    """The numbers in whichever bold face draws them taller: wide for few, condensed for many."""
    wide = fit_text(text, width, height, BOLD, max_size=44, min_size=8)
    narrow = fit_text(text, width, height, CONDENSED_BOLD, max_size=44, min_size=8)
    if narrow.height > wide.height + 1 or not wide.whole:
        return narrow
    return wide


def _chips(draw: ImageDraw.ImageDraw, words: tuple[str, ...], box: Box) -> None:
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
        draw.rounded_rectangle((left, y0, left + cw - 1, y1 - 1), radius=2, fill=ON)
        draw_fitted(draw, (left, y0 + 1, left + cw, y1 - 1), f, fill=OFF)
        left += cw + gap


def _menu(draw: ImageDraw.ImageDraw, menu: MenuView, box: Box) -> None:
    """The heading, underlined, then as many items as fit around the selected one."""
    x0, y0, x1, y1 = box
    w = x1 - x0
    head = fit_text(menu.heading, w - 2, HEADER_H + 1, BOLD, max_size=SMALL_SIZE + 1,
                    min_size=SMALL_MIN, line=True)
    draw_fitted(draw, (x0, y0, x1, y0 + HEADER_H + 1), head, align="left")
    top = y0 + HEADER_H + 2
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
        fitted = _small(item, w - arrow_w - 6, row - 1, size=SMALL_SIZE + 1)
        if index == selected:
            draw.rectangle((x0, ry, x1 - arrow_w - 1, ry + row - 1), fill=ON)
        draw_fitted(draw, (x0 + 3, ry, x1 - arrow_w, ry + row), fitted, align="left",
                    fill=OFF if index == selected else ON)
    ax = x1 - arrow_w + 1
    if first > 0:
        draw.polygon([(ax, top + 5), (ax + 4, top + 5), (ax + 2, top + 1)], fill=ON)
    if first + rows < len(items):
        yb = top + rows * row - 2
        draw.polygon([(ax, yb - 4), (ax + 4, yb - 4), (ax + 2, yb)], fill=ON)


def _words(draw: ImageDraw.ImageDraw, view: StatusView, reading: Reading, box: Box) -> None:
    """The wide screen's right half: the title's words, wrapped, as many lines as fit.

    What the left half already shows big is not repeated: the numbers, the Valley's plays,
    and on a hazard the hazard word and its first line.
    """
    x0, y0, x1, y1 = box
    w = x1 - x0
    shown = {view.title.numbers_line(view.options) if view.options else ""}
    lines = list(reading.lines)
    y = y0
    if reading.alarm:
        lines = lines[1:]
    else:
        head = fit_text(reading.headline, w, HEADER_H + 1, BOLD, max_size=SMALL_SIZE + 1,
                        min_size=SMALL_MIN, line=True)
        draw_fitted(draw, (x0, y0, x1, y0 + head.height), head, align="left", valign="top")
        y += head.height + 2
    step = line_height(SMALL_MIN, SMALL) + 1
    for line in lines:
        # "Plays: ..." is the Valley's line; the left half lists the plays already.
        if not line or line in shown or line.startswith("Plays:"):
            continue
        room = (y1 - y) // step
        if room <= 0:
            break
        for part in wrap_text(line, w, SMALL_MIN, SMALL, room):
            fitted = fit_text(part, w, step, SMALL, max_size=SMALL_MIN, min_size=SMALL_MIN,
                              line=True)
            draw_fitted(draw, (x0, y, x1, y + step), fitted, align="left", valign="top")
            y += step
