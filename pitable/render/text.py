"""Fitting text into a box on a small monochrome screen: shrink first, then elide.

Everything here measures with the font files kept in the package, so a text that fits on
this machine fits on the Pi. The results are cached: the status screen asks for the same
few strings (numbers, plays, headers) again and again, and a redraw must stay under a few
milliseconds on a Pi Zero.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from pitable.render.fonts import font

ELLIPSIS = "…"


@dataclass(frozen=True)
class Fitted:
    """A text made to fit: what to draw, with which font, and the ink's size and offset."""

    text: str
    font: ImageFont.FreeTypeFont
    #: Width and height of the inked pixels.
    width: int
    height: int
    #: Where the ink starts relative to the drawing origin; subtract it to place the ink.
    left: int
    top: int
    #: False when even the smallest size was too wide and the text was elided.
    whole: bool = True

    def origin(self, x: int, y: int) -> tuple[int, int]:
        """The drawing origin that puts the ink's top-left corner at ``(x, y)``."""
        return x - self.left, y - self.top


def ink_box(text: str, size: int, name: str) -> tuple[int, int, int, int]:
    """The bounding box of the inked pixels of ``text`` (left, top, right, bottom).

    Measured in mode "1" (no anti-aliasing), which is how every screen of the box draws.
    """
    return _ink_box(text, font(size, name))


def _face(typeface: ImageFont.FreeTypeFont) -> tuple[int, str]:
    """The size and file name of one of :func:`~pitable.render.fonts.font`'s fonts: what the
    caches below are keyed by. Keyed by the font object, they kept alive every font that
    ``font``'s own cache had let go (each maps its whole file, and a fit tries many sizes),
    and missed on the same font made again."""
    return int(typeface.size), os.path.basename(str(typeface.path))


def _ink_box(text: str, typeface: ImageFont.FreeTypeFont) -> tuple[int, int, int, int]:
    """:func:`ink_box` by the font itself: what the fitting measured, the drawing reuses."""
    return _ink_box_of(text, *_face(typeface))


@lru_cache(maxsize=4096)
def _ink_box_of(text: str, size: int, name: str) -> tuple[int, int, int, int]:
    if not text:
        return (0, 0, 0, 0)
    left, top, right, bottom = font(size, name).getbbox(text, mode="1")
    return int(left), int(top), int(right), int(bottom)


def measure(text: str, size: int, name: str) -> tuple[int, int]:
    left, top, right, bottom = ink_box(text, size, name)
    return right - left, bottom - top


#: Capitals, digits, a descender: the ink a line of text may use, for even line spacing.
LINE_REFERENCE = "Ayg0|"


def _vertical(text: str, size: int, name: str, line: bool) -> tuple[int, int]:
    """The top and bottom of the ink, or with ``line`` of a whole line of text.

    A line's box is the reference's, so that texts with and without descenders at one
    size share a baseline and a height; a glyph that reaches beyond it ("k", "(") widens
    it, so the ink still never leaves the box.
    """
    _, top, _, bottom = ink_box(text, size, name)
    if not line:
        return top, bottom
    _, ref_top, _, ref_bottom = ink_box(LINE_REFERENCE, size, name)
    if not text:
        return ref_top, ref_bottom
    return min(top, ref_top), max(bottom, ref_bottom)


def accent_rise(text: str, size: int, name: str) -> int:
    """How many rows ``text``'s ink rises above a line of text at ``size`` (an accented
    capital: "É", "Î", "Ú"); 0 for most texts. A row of such a text is made that much
    taller, so that the accent takes pixels above the line instead of the text a smaller
    size."""
    return max(0, ink_box(LINE_REFERENCE, size, name)[1] - ink_box(text, size, name)[1])


def _height(text: str, size: int, name: str, line: bool) -> int:
    top, bottom = _vertical(text, size, name, line)
    return bottom - top


def _fitted(text: str, size: int, name: str, whole: bool, line: bool) -> Fitted:
    left, _, right, _ = ink_box(text, size, name)
    top, bottom = _vertical(text, size, name, line)
    return Fitted(text, font(size, name), right - left, bottom - top, left, top, whole)


@lru_cache(maxsize=2048)
def fit_text(
    text: str,
    width: int,
    height: int,
    name: str,
    *,
    max_size: int = 40,
    min_size: int = 8,
    line: bool = False,
) -> Fitted:
    """The largest size from ``max_size`` down to ``min_size`` at which ``text`` fits.

    Fitting means the inked pixels are at most ``width`` wide and ``height`` tall; with
    ``line`` the height is that of a whole line of text (capitals and descenders) whatever
    the text, so that words of a menu or a header come out at one size. When even
    ``min_size`` is too wide, the text is cut at the end and an ellipsis added until it fits;
    the result is never wider than ``width`` nor taller than ``height`` (an empty text if
    not even "…" fits, or if ``height`` is less than a line at ``min_size``), so a caller
    that places it inside its box never draws outside it.
    """
    if width <= 0 or height <= 0:
        return _fitted("", min_size, name, not text, line)
    best = _largest_fitting(text, (width, height), name, (min_size, max(min_size, max_size)),
                            line)
    if best is not None:
        return _fitted(text, best, name, True, line)
    if _height(text, min_size, name, line) > height:
        # Not even one line fits: nothing is drawn, rather than a text below the smallest
        # readable size or one that spills out of its box.
        return _fitted("", min_size, name, not text, line)
    # Too wide even at the smallest size: cut it and say so with an ellipsis.
    return _fitted(elide(text, width, min_size, name), min_size, name, False, line)


def _largest_fitting(text: str, box: tuple[int, int], name: str, sizes: tuple[int, int],
                     line: bool) -> int | None:
    """The largest size from ``lo`` to ``hi`` (``sizes``) at which ``text`` fits in ``box``
    (width, height), or None.

    Fit is not monotone in the size: hinting rounds each size's outlines to the pixel grid,
    so a size's ink can be narrower or shorter than the size below's (the bold "R" fits a 6
    by 5 box at 7 px but not at 6 or 8). A bisection, or a guess from the ink at ``hi``
    walked up or down, stops at a size that does not fit and misses a larger one that does.
    So the sizes are tried from ``hi`` down and the first that fits is the largest: most
    texts fit at ``hi`` at the first try, the measurements are cached, and :func:`fit_text`
    itself is cached, so a screen pays for the walk once per text and box.
    """
    width, height = box
    lo, hi = sizes
    for size in range(hi, lo - 1, -1):
        if measure(text, size, name)[0] <= width and _height(text, size, name, line) <= height:
            return size
    return None


def elide(text: str, width: int, size: int, name: str) -> str:
    """``text`` cut at the end with an ellipsis so that its ink is at most ``width`` wide."""
    if measure(text, size, name)[0] <= width:
        return text
    # Bisection on the number of characters kept: the width grows with the prefix.
    lo, hi, best = 0, len(text), ""
    while lo <= hi:
        mid = (lo + hi) // 2
        candidate = text[:mid].rstrip() + ELLIPSIS
        if measure(candidate, size, name)[0] <= width:
            best, lo = candidate, mid + 1
        else:
            hi = mid - 1
    return best


def words(text: str) -> tuple[str, ...]:
    """``text``'s words: split at ordinary spaces only. ``str.split()`` also splits at the
    no-break spaces that keep French punctuation on its word ("SERPENT\u202f!", "Île\u202f:"),
    so that a line could start with ";"."""
    return tuple(word for word in text.split(" ") if word)


def wrap_text(text: str, width: int, size: int, name: str, max_lines: int) -> tuple[str, ...]:
    """``text`` broken at spaces (:func:`words`) into at most ``max_lines`` lines each at most
    ``width`` wide.

    A word longer than the line is elided rather than split; when the text needs more lines
    than ``max_lines``, the last line ends with an ellipsis.
    """
    return wrap_tokens(words(text), " ", width, size, name, max_lines)


@lru_cache(maxsize=1024)
def wrap_tokens(  # noqa: PLR0917 - cached, so positional like its callers' keys
    tokens: tuple[str, ...], sep: str, width: int, size: int, name: str, max_lines: int
) -> tuple[str, ...]:
    """``tokens`` joined by ``sep`` and broken between tokens into lines at most ``width`` wide.

    Used for the Valley's plays, which must never break inside "2+3+5". At most
    ``max_lines`` lines; a cut is marked with an ellipsis at the end of the last line.
    """
    if max_lines <= 0 or width <= 0:
        return ()
    lines: list[str] = []
    current = ""
    for i, token in enumerate(tokens):
        candidate = f"{current}{sep}{token}" if current else token
        if measure(candidate, size, name)[0] <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = token
        if len(lines) == max_lines:
            # No room for this token: the last full line says that more was cut.
            rest = sep.join([lines.pop(), *tokens[i:]])
            lines.append(elide(rest, width, size, name))
            return tuple(lines)
    if current:
        lines.append(current)
    return tuple(elide(line, width, size, name) for line in lines)


def line_height(size: int, name: str) -> int:
    """The height of a line of capitals and digits with descenders, for stacking lines."""
    return measure(LINE_REFERENCE, size, name)[1]


@lru_cache(maxsize=1024)
def fit_tokens(
    tokens: tuple[str, ...],
    sep: str,
    box: tuple[int, int],
    name: str,
    *,
    max_size: int = 16,
    min_size: int = 8,
    gap: int = 1,
) -> tuple[tuple[str, ...], int]:
    """The largest size at which ``tokens`` wrap into a box of ``box`` = (width, height).

    Returns the lines and the size. At ``min_size`` the lines that do not fit are cut (the
    last one elided), so the result always fits the box.
    """
    width, height = box
    for size in range(max(max_size, min_size), min_size - 1, -1):
        step = line_height(size, name) + gap
        max_lines = max(1, (height + gap) // step)
        lines = wrap_tokens(tokens, sep, width, size, name, max_lines)
        # wrap_tokens marks a cut with an ellipsis at the end of a line, and only then.
        if size == min_size or not any(line.endswith(ELLIPSIS) for line in lines):
            return lines, size
    return (), min_size


def draw_fitted(
    draw: ImageDraw.ImageDraw,
    box: tuple[int, int, int, int],
    fitted: Fitted,
    *,
    fill: int = 1,
    align: str = "center",
    valign: str = "center",
) -> tuple[int, int, int, int]:
    """Draw ``fitted`` inside ``box`` (left, top, right, bottom; right/bottom exclusive).

    Returns the box of the ink drawn. ``align`` is "left", "center" or "right"; ``valign``
    is "top", "center" or "bottom".
    """
    x0, y0, x1, y1 = box
    if align == "left":
        x = x0
    elif align == "right":
        x = x1 - fitted.width
    else:
        x = x0 + (x1 - x0 - fitted.width) // 2
    if valign == "top":
        y = y0
    elif valign == "bottom":
        y = y1 - fitted.height
    else:
        y = y0 + (y1 - y0 - fitted.height) // 2
    # Never start before the box: a text one pixel too big (rounding) loses its end, not its
    # start, and fit_text guarantees it is not wider than the box anyway.
    x, y = max(x, x0), max(y, y0)
    if fitted.text:
        draw_text(draw, fitted.origin(x, y), fitted.text, fitted.font, fill=fill)
    return (x, y, x + fitted.width, y + fitted.height)


def draw_text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str,
              font: ImageFont.FreeTypeFont, *, fill: int = 1) -> None:
    """``draw.text(xy, text, fill=fill, font=font)``, the same pixels, from a cache of inked
    texts when the drawing has no anti-aliasing (the box's panels, mode "1").

    Pillow hands FreeType every glyph of every text anew, hinting and rasterising each
    (about 30 µs a glyph here, several times that on a Pi Zero), and keeps no glyph cache;
    a status screen draws five or six texts per roll, most of them (the header, the tags,
    the words) drawn many times before. A text's ink at a whole-pixel origin does not
    depend on where it is drawn, so it is drawn once into a picture of its own and stamped
    from there with ``draw.bitmap``.
    """
    if draw.fontmode != "1" or not text:
        draw.text(xy, text, fill=fill, font=font)
        return
    ink, left, top = _inked(text, font)
    draw.bitmap((xy[0] + left, xy[1] + top), ink, fill=fill)


def _inked(text: str, typeface: ImageFont.FreeTypeFont) -> tuple[Image.Image, int, int]:
    """``text``'s ink in ``typeface`` without anti-aliasing, and where it lies from the
    origin."""
    rows, size, left, top = _inked_of(text, *_face(typeface))
    return Image.frombytes("1", size, rows), left, top


#: Texts whose ink is kept: over a soak of 20,000 presses mixing the three titles, 1,024
#: hit 89% of the time and 2,048 96%. Kept packed (a byte for 8 pixels, most of them a
#: few dozen bytes): Pillow's pictures take a byte a pixel and four blocks of the C heap
#: each, and one was let go for every text missed (a header's round and hazards).
INKED_KEPT = 2048


@lru_cache(maxsize=INKED_KEPT)
def _inked_of(text: str, size: int, name: str) -> tuple[bytearray, tuple[int, int], int, int]:
    left, top, right, bottom = _ink_box_of(text, size, name)
    ink = Image.new("1", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(ink).text((-left, -top), text, fill=1, font=font(size, name))
    return packed(ink), ink.size, left, top


def packed(image: Image.Image) -> bytearray:
    """A picture in mode "1" as ``image.tobytes()`` gives it, 8 pixels a byte, for keeping.

    In a buffer of its own, made before Pillow's: ``tobytes()`` builds its result in a
    buffer of 64 KiB and shrinks it in place, so each result kept would hold the start of a
    hole in the C heap that the next one no longer fits in (as pitable.hw.oled's
    ``kept_bytes`` says).
    """
    rows = bytearray((image.width + 7) // 8 * image.height)
    rows[:] = image.tobytes()
    return rows
