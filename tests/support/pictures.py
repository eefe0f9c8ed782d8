"""Comparing pictures: what a panel shows, a sheet as printed or saved."""

from __future__ import annotations

from PIL import Image, ImageChops


def same(a: Image.Image, b: Image.Image) -> bool:
    """The same size and the same pixels, each read as lit or dark (as a panel shows it)."""
    if a.size != b.size:
        return False
    return ImageChops.logical_xor(a.convert("1"), b.convert("1")).getbbox() is None


def same_picture(a: Image.Image, b: Image.Image) -> bool:
    """The same size and the same grey level at every pixel."""
    diff = ImageChops.difference(a.convert("L"), b.convert("L"))
    return a.size == b.size and diff.getbbox() is None


def lit(image: Image.Image) -> int:
    """How many pixels are fully lit."""
    return image.convert("L").histogram()[255]
