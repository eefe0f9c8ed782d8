"""The fonts kept in the package, so that every machine draws the same pixels."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"
REGULAR = "DejaVuSans.ttf"
BOLD = "DejaVuSans-Bold.ttf"
CONDENSED_BOLD = "DejaVuSansCondensed-Bold.ttf"


@lru_cache(maxsize=64)
def font(size: int, name: str = REGULAR) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), size)
