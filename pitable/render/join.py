"""The code to join the table's page: a QR code of its address and the PIN in large digits.

Drawn three ways from one :class:`JoinCode`: for the status screen (mode "1", lit pixels
light, so the code reads as dark modules on a light square as scanners expect), as a strip
for the top of a printed sheet (black on paper), and as an RGB tile for the TV's corner.
The QR code comes from segno, a well-kept pure-Python encoder; only the drawing is here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from pitable.render.fonts import BOLD, CONDENSED_BOLD, REGULAR
from pitable.render.text import draw_fitted, fit_text, fit_tokens, line_height, words
from pitable.rules.base import ENGLISH, N_, Translator

#: The QR code's error correction: M (15 %) stands a smudge or a glare on a screen.
ERROR_LEVEL = "m"
#: The quiet zone around the code, in modules. The standard asks for 4; 2 is what scanners
#: read in practice, and it lets a version-2 code take 2 pixels a module on a 64-pixel screen.
SCREEN_BORDER = 2
PAPER_BORDER = 4

#: What the screen says when there is no page to join.
WEB_OFF = N_("The table's web page is off: set [web] enabled = true in the config")

_ALPHANUMERIC = re.compile(r"^[0-9A-Z $%*+\-./:]*$")
_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<host>[^/]*)(?P<rest>.*)$")


@dataclass(frozen=True)
class JoinCode:
    """Where the table's page is, and the PIN its actions need (None: no PIN asked)."""

    url: str
    pin: str | None = None


def qr_text(url: str) -> str:
    """The text the QR code holds for ``url``: the same address, with the scheme and host in
    capitals when that makes the whole of it QR's alphanumeric kind.

    Scheme and host are case-insensitive (RFC 3986), and alphanumeric text packs 5.5 bits a
    character against bytes' 8, so ``http://192.168.1.20:8080/`` fits a version-2 code
    (25 modules) instead of a version-3 one: 2 pixels a module on a 64-pixel screen.
    """
    match = _URL.match(url)
    if match is None:
        return url
    upper = match["scheme"].upper() + match["host"].upper() + match["rest"]
    return upper if _ALPHANUMERIC.match(upper) else url


@lru_cache(maxsize=32)
def qr_modules(url: str) -> tuple[tuple[bool, ...], ...]:
    """The QR code of ``url`` as rows of modules, True for a dark one, without quiet zone."""
    import segno

    code = segno.make_qr(qr_text(url), error=ERROR_LEVEL)
    return tuple(tuple(bool(m) for m in row) for row in code.matrix)


def qr_image(url: str, module: int, border: int, *, dark: int = 0, light: int = 1,
             mode: str = "1") -> Image.Image:
    """The QR code of ``url``, ``module`` pixels a module, ``border`` modules of quiet zone."""
    modules = qr_modules(url)
    n = len(modules) + 2 * border
    image = Image.new(mode, (n * module, n * module), light)
    draw = ImageDraw.Draw(image)
    for y, row in enumerate(modules):
        for x, on in enumerate(row):
            if on:
                left, top = (x + border) * module, (y + border) * module
                draw.rectangle((left, top, left + module - 1, top + module - 1), fill=dark)
    return image


def qr_side(url: str, border: int) -> int:
    """The side of the code with its quiet zone, in modules."""
    return len(qr_modules(url)) + 2 * border


def pin_text(pin: str) -> str:
    """The PIN as the screens print it: its digits, spaced in threes when it is long."""
    if len(pin) > 4:
        return " ".join(pin[i:i + 3] for i in range(0, len(pin), 3))
    return pin


# --- the status screen ----------------------------------------------------------------


def join_screen(code: JoinCode | None, size: tuple[int, int] = (128, 64),
                tr: Translator = ENGLISH) -> Image.Image:
    """What the status screen shows for "Show join code": the QR code at the left, the PIN
    in large digits beside it; without a page to join, says that the web is off. The words
    are in ``tr``'s language."""
    _ = tr.gettext
    width, height = size
    image = Image.new("1", size, 0)
    draw = ImageDraw.Draw(image)
    if code is None:
        heading = fit_text(_("Join code"), width - 4, 14, BOLD, max_size=12, min_size=8)
        top = draw_fitted(draw, (0, 1, width, 15), heading)[3] + 3
        lines, text_size = fit_tokens(words(_(WEB_OFF)), " ", (width - 4, height - top),
                                      REGULAR, max_size=11, min_size=8)
        step = line_height(text_size, REGULAR) + 1
        for i, line in enumerate(lines):
            fitted = fit_text(line, width - 4, step, REGULAR, max_size=text_size,
                              min_size=text_size, line=True)
            draw_fitted(draw, (2, top + i * step, width - 2, top + (i + 1) * step), fitted,
                        align="left")
        return image
    module = max(1, height // qr_side(code.url, SCREEN_BORDER))
    qr = qr_image(code.url, module, SCREEN_BORDER)
    qr_top = (height - qr.height) // 2
    image.paste(qr, (0, qr_top))
    left = qr.width + 4
    box_w = width - left - 2
    if code.pin is None:
        label, digits = _("Scan to join"), ""
    else:
        label, digits = _("PIN"), pin_text(code.pin)
    small = fit_text(label, box_w, 12, BOLD, max_size=10, min_size=7, line=True)
    bottom = height - 2
    if box_w >= 140:
        # A wide screen has room for the address too, for a phone without a camera.
        address = fit_text(code.url, box_w, 11, REGULAR, max_size=9, min_size=7, line=True)
        bottom = draw_fitted(draw, (left, height - 1 - address.height, left + box_w,
                                    height - 1), address)[1] - 3
    if digits:
        label_box = draw_fitted(draw, (left, 2, left + box_w, 2 + small.height), small)
        top = label_box[3] + 4
        # A long PIN goes on one row, or on two rows of three where that draws it larger.
        layouts = [[digits]]
        if " " in digits:
            layouts.append(digits.split(" ", 1))
        best: tuple[int, list[str], int] | None = None
        for rows in layouts:
            row_h = (bottom - top - 3 * (len(rows) - 1)) // len(rows)
            points = int(fit_text(max(rows, key=len), box_w, row_h, CONDENSED_BOLD,
                                max_size=40, min_size=8).font.size)
            if best is None or points > best[0]:
                best = (points, rows, row_h)
        assert best is not None
        points, rows, row_h = best
        for i, row in enumerate(rows):
            fitted = fit_text(row, box_w, row_h, CONDENSED_BOLD, max_size=points,
                              min_size=min(8, points))
            y = top + i * (row_h + 3)
            draw_fitted(draw, (left, y, left + box_w, y + row_h), fitted)
    else:
        draw_fitted(draw, (left, 0, left + box_w, bottom), small)
    return image


# --- the printed strip and the TV's tile -------------------------------------------------


def join_strip(code: JoinCode, width: int, tr: Translator = ENGLISH) -> Image.Image:
    """A strip for the top of a printed sheet, ``width`` dots wide, black on white: the QR
    code at the left, then "Scan to join the table" (in ``tr``'s language), the address and
    the PIN."""
    module = max(2, min(6, (width // 2) // qr_side(code.url, PAPER_BORDER)))
    qr = qr_image(code.url, module, PAPER_BORDER)
    height = qr.height + 8
    strip = Image.new("1", (width, height), 1)
    strip.paste(qr, (0, 4))
    draw = ImageDraw.Draw(strip)
    left = qr.width + 6
    box_w = width - left - 4
    lines = [(tr.gettext("Scan to join the table"), BOLD, 18), (code.url, REGULAR, 14)]
    if code.pin is not None:
        lines.append((f"PIN {pin_text(code.pin)}", CONDENSED_BOLD, 44))
    y = 8
    for text, name, most in lines:
        fitted = fit_text(text, box_w, height - y - 4, name, max_size=most, min_size=8)
        y = draw_fitted(draw, (left, y, left + box_w, height - 4), fitted, fill=0,
                        align="left", valign="top")[3] + 8
    # A rule under the strip parts it from the sheet below.
    draw.line((0, height - 1, width, height - 1), fill=0, width=1)
    return strip


def on_top_of(strip: Image.Image, sheet: Image.Image) -> Image.Image:
    """``strip`` printed first, then ``sheet`` (both mode "1", white paper), as one image."""
    width = max(strip.width, sheet.width)
    image = Image.new("1", (width, strip.height + sheet.height), 1)
    image.paste(strip.convert("1"), (0, 0))
    image.paste(sheet.convert("1"), (0, strip.height))
    return image


def join_tile(code: JoinCode, side: int) -> Image.Image:
    """An RGB tile for a corner of the TV, ``side`` pixels wide: the QR code, then the PIN."""
    pin_h = side // 4 if code.pin is not None else 0
    module = max(1, (side - pin_h) // qr_side(code.url, PAPER_BORDER))
    qr = qr_image(code.url, module, PAPER_BORDER, dark=0, light=255, mode="L")
    tile = Image.new("L", (side, qr.height + pin_h), 255)
    tile.paste(qr, ((side - qr.width) // 2, 0))
    if code.pin is not None:
        fitted = fit_text(f"PIN {pin_text(code.pin)}", side - 8, pin_h - 8, CONDENSED_BOLD,
                          max_size=200, min_size=8)
        draw_fitted(ImageDraw.Draw(tile), (4, qr.height, side - 4, qr.height + pin_h - 4),
                    fitted, fill=20)
    return tile.convert("RGB")
