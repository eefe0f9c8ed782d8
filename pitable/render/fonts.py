"""The fonts kept in the package, so that every machine draws the same pixels."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
CONDENSED_BOLD = "DejaVuSansCondensed-Bold.ttf"


@cache
def font(size: int, name: str = REGULAR) -> ImageFont.FreeTypeFont:
    """The font ``name`` at ``size`` pixels, made once for the process's life. The box draws
    at a bounded set of sizes (the fits try each from their largest down), so every font it
    has made is kept: a font let go and made again costs FreeType's heap each time, which a
    long game fragments."""
    return ImageFont.truetype(str(FONT_DIR / name), size)
