"""Fitting text into a box on a small monochrome screen: shrink first, then elide.

Everything here measures with the font files kept in the package, so a text that fits on
this machine fits on the Pi. The results are cached: the status screen asks for the same
few strings (numbers, plays, headers) again and again, and a redraw must stay under a few
milliseconds on a Pi Zero.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw, ImageFont

from pitable.render.fonts import font

ELLIPSIS = "…"

#: Where an accented capital's accent goes when the font, hinted at a small size, would set
#: it on the letter's top row ("Î" at 8 px reads "1", "Ú" reads "0"): ``ABOVE`` the letter,
#: one blank row clear of it, rising above the line (the box gives it the rows); or
#: ``INSIDE`` the line's capital height, on a capital drawn smaller, one blank row under it
#: (the header, the footer and the menus have no row to spare above their text).
ABOVE, INSIDE = "above", "inside"


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
    #: Where accented capitals put their accents: :data:`ABOVE` or :data:`INSIDE`.
    accents: str = ABOVE

    def origin(self, x: int, y: int) -> tuple[int, int]:
        """The drawing origin that puts the ink's top-left corner at ``(x, y)``."""
        return x - self.left, y - self.top


def ink_box(text: str, size: int, name: str, accents: str = ABOVE) -> tuple[int, int, int, int]:
    """The bounding box of the inked pixels of ``text`` (left, top, right, bottom).

    Measured in mode "1" (no anti-aliasing), which is how every screen of the box draws,
    with accented capitals drawn as :func:`draw_text` draws them (``accents``).
    """
    return _ink_box_of(text, size, name, accents)


def _face(typeface: ImageFont.FreeTypeFont) -> tuple[int, str]:
    """The size and file name of one of :func:`~pitable.render.fonts.font`'s fonts: what the
    caches below are keyed by. Keyed by the font object, they kept alive every font that
    ``font``'s own cache had let go (each maps its whole file, and a fit tries many sizes),
    and missed on the same font made again."""
    return int(typeface.size), os.path.basename(str(typeface.path))


@lru_cache(maxsize=4096)
def _ink_box_of(text: str, size: int, name: str,
                accents: str = ABOVE) -> tuple[int, int, int, int]:
    if not text:
        return (0, 0, 0, 0)
    if not _composed_capitals(text, size, name, accents):
        left, top, right, bottom = font(size, name).getbbox(text, mode="1")
        return int(left), int(top), int(right), int(bottom)
    _, (width, height), left, top = _inked_of(text, size, name, accents)
    return left, top, left + width, top + height


def measure(text: str, size: int, name: str, accents: str = ABOVE) -> tuple[int, int]:
    left, top, right, bottom = ink_box(text, size, name, accents)
    return right - left, bottom - top


# --- accented capitals ---------------------------------------------------------------------


def accented_capital(char: str) -> str | None:
    """The letter under ``char`` when it is a capital with an accent above it ("Î" -> "I",
    "Ü" -> "U"), else None ("Ç" keeps its cedilla below the line)."""
    if not char.isupper():
        return None
    parts = unicodedata.normalize("NFD", char)
    if len(parts) < 2 or not all(unicodedata.combining(mark) == 230 for mark in parts[1:]):
        return None
    return parts[0]


def _glyph(text: str, size: int, name: str) -> tuple[Image.Image, int, int]:
    """``text`` as FreeType hints it, without anti-aliasing: the ink, and where it lies from
    the origin."""
    left, top, right, bottom = (int(v) for v in font(size, name).getbbox(text, mode="1"))
    ink = Image.new("1", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(ink).text((-left, -top), text, fill=1, font=font(size, name))
    return ink, left, top


@lru_cache(maxsize=256)
def _accent(char: str, size: int, name: str) -> tuple[Image.Image, bool]:
    """The accent of capital ``char`` at ``size``: its ink (the rows of the glyph above the
    plain letter's top), and whether the font sets it one blank row clear of the letter.

    Where the hinting melts the accent into the letter ("Â" at 8 px is a taller "A"), the
    accent is the one of the next size that draws it apart."""
    base = accented_capital(char)
    assert base is not None
    for source in range(size, size + 4):
        ink, _, top = _glyph(char, source, name)
        base_top = _glyph(base, source, name)[2]
        rows = base_top - top
        if rows > 0:
            accent = ink.crop((0, 0, ink.width, rows))
            box = accent.getbbox()
            if box is not None:
                clear = source == size and box[3] < rows
                return accent.crop((box[0], box[1], box[2], box[3])), clear
    return Image.new("1", (1, 1), 0), False


def _composes(char: str, size: int, name: str, accents: str) -> bool:
    """Whether capital ``char`` is drawn by :func:`_capital` rather than by the font."""
    if accented_capital(char) is None:
        return False
    return accents == INSIDE or not _accent(char, size, name)[1]


def _composed_capitals(text: str, size: int, name: str, accents: str) -> bool:
    return any(_composes(char, size, name, accents) for char in set(text))


@lru_cache(maxsize=256)
def _capital(char: str, size: int, name: str, accents: str) -> tuple[Image.Image, int, int]:
    """Capital ``char`` drawn with its accent one blank row clear of the letter: the ink, and
    where it lies from the letter's own ink (its top-left corner).

    ``ABOVE``: the letter as the font draws it, the accent above it. ``INSIDE``: the accent
    and the letter within the letter's height, the letter drawn at the largest smaller
    size that leaves room (as small bitmap fonts draw their accented capitals)."""
    base = accented_capital(char)
    assert base is not None
    letter, _, _ = _glyph(base, size, name)
    accent, _ = _accent(char, size, name)
    if accents == INSIDE:
        squeezed = _squeezed(letter, letter.height - accent.height - 1)
        if squeezed is None and accent.height > 1:
            # An "E" keeps its three bars apart in five rows: the accent gives up a row.
            flat = Image.new("1", (accent.width, 1), 0)
            for y in range(accent.height):
                flat = ImageChops.logical_or(flat, accent.crop((0, y, accent.width, y + 1)))
            accent = flat
            squeezed = _squeezed(letter, letter.height - accent.height - 1)
        room = letter.height - accent.height - 1
        for smaller in range(size - 1, 3, -1):
            small = squeezed or _glyph(base, smaller, name)[0]
            if small.height <= room:
                width = max(letter.width, small.width, accent.width)
                ink = Image.new("1", (width, letter.height), 0)
                ink.paste(small, ((width - small.width) // 2, letter.height - small.height))
                ink.paste(accent, ((width - accent.width) // 2,
                                   letter.height - small.height - 1 - accent.height))
                return ink, (letter.width - width) // 2, 0
    width = max(letter.width, accent.width)
    rise = accent.height + 1
    ink = Image.new("1", (width, letter.height + rise), 0)
    ink.paste(letter, ((width - letter.width) // 2, rise))
    ink.paste(accent, ((width - accent.width) // 2, 0))
    return ink, (letter.width - width) // 2, -rise


def _squeezed(letter: Image.Image, rows: int) -> Image.Image | None:
    """``letter`` made ``rows`` high by leaving out rows that repeat the row above (the
    stems between an "E"'s bars), or None when that is not enough."""
    kept = [letter.crop((0, y, letter.width, y + 1)).tobytes() for y in range(letter.height)]
    order = list(range(letter.height))
    while len(order) > rows:
        repeats = [i for i in range(1, len(order)) if kept[order[i]] == kept[order[i - 1]]]
        if not repeats:
            return None
        # From the longest run of equal rows, its middle: the letter keeps its proportions.
        runs = [(sum(1 for j in order if kept[j] == kept[order[i]]), i) for i in repeats]
        order.pop(max(runs)[1])
    squeezed = Image.new("1", (letter.width, rows), 0)
    for y, source in enumerate(order):
        squeezed.paste(letter.crop((0, source, letter.width, source + 1)), (0, y))
    return squeezed


def _composed(text: str, size: int, name: str, accents: str) -> tuple[Image.Image, int, int]:
    """``text`` drawn by the font with each capital :func:`_composes` gives as its plain
    letter, and that letter then drawn over by :func:`_capital`."""
    typeface = font(size, name)
    plain = "".join(accented_capital(c) or c if _composes(c, size, name, accents) else c
                    for c in text)
    ink, left, top = _glyph(plain, size, name)
    margin = size
    canvas = Image.new("1", (ink.width + 2 * margin, ink.height + 2 * margin), 0)
    canvas.paste(ink, (margin, margin))
    for index, char in enumerate(text):
        if not _composes(char, size, name, accents):
            continue
        letter, letter_left, letter_top = _glyph(plain[index], size, name)
        x = round(typeface.getlength(plain[:index])) + letter_left - left + margin
        y = letter_top - top + margin
        # The letter where the font put it (raqm's positions round either way).
        x = next((x + dx for dx in (0, 1, -1, 2, -2) if _covers(canvas, letter, x + dx, y)), x)
        canvas.paste(0, (x, y, x + letter.width, y + letter.height), letter)
        capital, dx, dy = _capital(char, size, name, accents)
        canvas.paste(1, (x + dx, y + dy, x + dx + capital.width, y + dy + capital.height),
                     capital)
    box = canvas.getbbox()
    if box is None:
        return Image.new("1", (1, 1), 0), left, top
    return canvas.crop(box), left - margin + box[0], top - margin + box[1]


def _covers(canvas: Image.Image, letter: Image.Image, x: int, y: int) -> bool:
    """Whether every pixel of ``letter`` placed at ``(x, y)`` is lit on ``canvas``."""
    if x < 0 or y < 0 or x + letter.width > canvas.width or y + letter.height > canvas.height:
        return False
    region = canvas.crop((x, y, x + letter.width, y + letter.height))
    return ImageChops.logical_and(region, letter).tobytes() == letter.tobytes()


#: Capitals, digits, a descender: the ink a line of text may use, for even line spacing.
LINE_REFERENCE = "Ayg0|"


def _vertical(text: str, size: int, name: str, line: bool,
              accents: str = ABOVE) -> tuple[int, int]:
    """The top and bottom of the ink, or with ``line`` of a whole line of text.

    A line's box is the reference's, so that texts with and without descenders at one
    size share a baseline and a height; a glyph that reaches beyond it ("k", "(") widens
    it, so the ink still never leaves the box.
    """
    _, top, _, bottom = ink_box(text, size, name, accents)
    if not line:
        return top, bottom
    _, ref_top, _, ref_bottom = ink_box(LINE_REFERENCE, size, name)
    if not text:
        return ref_top, ref_bottom
    return min(top, ref_top), max(bottom, ref_bottom)


def accent_rise(text: str, size: int, name: str) -> int:
    """How many rows ``text``'s ink rises above a line of text at ``size`` (an accented
    capital: "É", "Î", "Ú", its accent :data:`ABOVE`); 0 for most texts. A row of such a
    text is made that much taller, so that the accent takes pixels above the line instead
    of the text a smaller size."""
    return max(0, ink_box(LINE_REFERENCE, size, name)[1] - ink_box(text, size, name)[1])


def _height(text: str, size: int, name: str, line: bool, accents: str = ABOVE) -> int:
    top, bottom = _vertical(text, size, name, line, accents)
    return bottom - top


def _fitted(text: str, size: int, name: str, whole: bool, line: bool,  # noqa: PLR0917
            accents: str = ABOVE) -> Fitted:
    left, _, right, _ = ink_box(text, size, name, accents)
    top, bottom = _vertical(text, size, name, line, accents)
    return Fitted(text, font(size, name), right - left, bottom - top, left, top, whole,
                  accents)


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
    accents: str = ABOVE,
) -> Fitted:
    """The largest size from ``max_size`` down to ``min_size`` at which ``text`` fits.

    Fitting means the inked pixels are at most ``width`` wide and ``height`` tall; with
    ``line`` the height is that of a whole line of text (capitals and descenders) whatever
    the text, so that words of a menu or a header come out at one size. When even
    ``min_size`` is too wide, the text is cut at the end and an ellipsis added until it fits;
    the result is never wider than ``width`` nor taller than ``height`` (an empty text if
    not even "…" fits, or if ``height`` is less than a line at ``min_size``), so a caller
    that places it inside its box never draws outside it. ``accents`` says where accented
    capitals put their accents (:data:`ABOVE`, :data:`INSIDE`).
    """
    if width <= 0 or height <= 0:
        return _fitted("", min_size, name, not text, line, accents)
    best = _largest_fitting(text, (width, height), name, (min_size, max(min_size, max_size)),
                            line, accents)
    if best is not None:
        return _fitted(text, best, name, True, line, accents)
    if _height(text, min_size, name, line, accents) > height:
        # Not even one line fits: nothing is drawn, rather than a text below the smallest
        # readable size or one that spills out of its box.
        return _fitted("", min_size, name, not text, line, accents)
    # Too wide even at the smallest size: cut it and say so with an ellipsis.
    return _fitted(elide(text, width, min_size, name, accents), min_size, name, False, line,
                   accents)


def _largest_fitting(text: str, box: tuple[int, int], name: str,  # noqa: PLR0917
                     sizes: tuple[int, int], line: bool, accents: str) -> int | None:
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
        if measure(text, size, name, accents)[0] <= width and \
                _height(text, size, name, line, accents) <= height:
            return size
    return None


def elide(text: str, width: int, size: int, name: str, accents: str = ABOVE) -> str:
    """``text`` cut at the end with an ellipsis so that its ink is at most ``width`` wide."""
    if measure(text, size, name, accents)[0] <= width:
        return text
    # Bisection on the number of characters kept: the width grows with the prefix.
    lo, hi, best = 0, len(text), ""
    while lo <= hi:
        mid = (lo + hi) // 2
        candidate = text[:mid].rstrip() + ELLIPSIS
        if measure(candidate, size, name, accents)[0] <= width:
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

    Used for a title's plays, which must never break inside "2+3+5". At most
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
        draw_text(draw, fitted.origin(x, y), fitted.text, fitted.font, fill=fill,
                  accents=fitted.accents)
    return (x, y, x + fitted.width, y + fitted.height)


def draw_text(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str,
              font: ImageFont.FreeTypeFont, *, fill: int = 1, accents: str = ABOVE) -> None:
    """``draw.text(xy, text, fill=fill, font=font)``, the same pixels, from a cache of inked
    texts when the drawing has no anti-aliasing (the box's panels, mode "1").

    Pillow hands FreeType every glyph of every text anew, hinting and rasterising each
    (about 30 µs a glyph here, several times that on a Pi Zero), and keeps no glyph cache;
    a status screen draws five or six texts per roll, most of them (the header, the tags,
    the words) drawn many times before. A text's ink at a whole-pixel origin does not
    depend on where it is drawn, so it is drawn once into a picture of its own and stamped
    from there with ``draw.bitmap``. Accented capitals put their accents where ``accents``
    says (:data:`ABOVE`, :data:`INSIDE`).
    """
    if draw.fontmode != "1" or not text:
        draw.text(xy, text, fill=fill, font=font)
        return
    ink, left, top = _inked(text, font, accents)
    draw.bitmap((xy[0] + left, xy[1] + top), ink, fill=fill)


def _inked(text: str, typeface: ImageFont.FreeTypeFont,
           accents: str = ABOVE) -> tuple[Image.Image, int, int]:
    """``text``'s ink in ``typeface`` without anti-aliasing, and where it lies from the
    origin."""
    rows, size, left, top = _inked_of(text, *_face(typeface), accents)
    return unpacked(rows, size), left, top


#: Texts whose ink is kept: over a soak of 20,000 presses mixing the three titles, 1,024
#: hit 89% of the time and 2,048 96%. Kept packed (a byte for 8 pixels, most of them a
#: few dozen bytes): Pillow's pictures take a byte a pixel and four blocks of the C heap
#: each, and one was let go for every text missed (a header's round and hazards).
INKED_KEPT = 2048


@lru_cache(maxsize=INKED_KEPT)
def _inked_of(text: str, size: int, name: str,
              accents: str = ABOVE) -> tuple[bytearray, tuple[int, int], int, int]:
    if _composed_capitals(text, size, name, accents):
        composed, left, top = _composed(text, size, name, accents)
        return packed(composed), composed.size, left, top
    left, top, right, bottom = _ink_box_of(text, size, name, accents)
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


def unpacked(rows: bytearray, size: tuple[int, int]) -> Image.Image:
    """The picture of ``size`` whose rows :func:`packed` kept.

    Given as ``bytes``: Pillow before 10 (Debian bookworm's python3-pil, the Pi's) decodes
    only read-only buffers and refuses a ``bytearray`` with a TypeError. The copy lives
    only as long as the call.
    """
    return Image.frombytes("1", size, bytes(rows))
