"""The legibility measures of a sheet's picture: every word, box and bubble checked against
the limits of :data:`pitable.render.sheet.LIMITS` (tests/test_sheet_legibility.py, and the
sheets filled in of tests/test_render_filled.py)."""

from __future__ import annotations

import math

from PIL import Image, ImageChops, ImageDraw

from pitable.render.sheet import (
    BUBBLE,
    INITIALS,
    LIMITS,
    WRITE,
    Circle,
    Drawing,
    Limits,
    Rect,
    Text,
    text_font,
    text_origin,
)


def problems(drawing: Drawing, image: Image.Image, limits: Limits = LIMITS) -> list[str]:
    """What on ``image`` (``drawing`` painted, ``drawing.mm`` dots a millimetre) is below
    ``limits``, one line each; empty when the sheet is legible."""
    dpmm = drawing.mm
    out: list[str] = []
    for shape in drawing.shapes:
        if isinstance(shape, Text):
            out += _text_problems(shape, image, dpmm, limits)
        elif isinstance(shape, Rect) and shape.role in (WRITE, INITIALS):
            w, h = _clear_inside(image, shape.x + shape.w / 2, shape.y + shape.h / 2)
            least = (
                limits.initials_mm if shape.role == INITIALS else (limits.box_mm, limits.box_mm)
            )
            if w < least[0] * dpmm or h < least[1] * dpmm:
                out.append(
                    f"{shape.role} box at {shape.x:.0f},{shape.y:.0f}: {w / dpmm:.1f} x"
                    f" {h / dpmm:.1f} mm clear inside, less than {least[0]} x {least[1]}"
                )
        elif isinstance(shape, Circle) and shape.role == BUBBLE:
            across = _ring_across(image, shape.x, shape.y)
            if across < limits.bubble_mm * dpmm:
                out.append(
                    f"bubble at {shape.x:.0f},{shape.y:.0f}: {across / dpmm:.1f} mm across,"
                    f" less than {limits.bubble_mm}"
                )
    return out


def _text_problems(shape: Text, image: Image.Image, dpmm: float, limits: Limits) -> list[str]:
    font = text_font(shape)
    cap = -font.getbbox("H", anchor="ls")[1]
    out = []
    if cap < limits.cap_mm * dpmm:
        out.append(f"{shape.text!r}: capitals {cap / dpmm:.2f} mm, less than {limits.cap_mm}")
    left, top, right, bottom = font.getbbox(shape.text, anchor="la")
    x, y = text_origin(shape, font)
    box = (x + left, y + top, x + right, y + bottom)
    if box[0] < 0 or box[2] > image.width or box[1] < 0 or box[3] > image.height:
        return [*out, f"{shape.text!r} runs off the sheet"]
    alone = Image.new("1", (right - left, bottom - top), 1)
    ImageDraw.Draw(alone).text((-left, -top), shape.text, font=font, fill=0, anchor="la")
    if ImageChops.difference(image.crop(box), alone).getbbox() is not None:
        out.append(f"{shape.text!r}: something else inks its box, or it is not drawn there")
    return out


def _dot(v: float) -> int:
    """The dot the painter puts ``v`` on (halves round up)."""
    return math.floor(v + 0.5)


def _clear_inside(image: Image.Image, cx: float, cy: float) -> tuple[int, int]:
    """The white run through (``cx``, ``cy``) across and down, in dots."""
    x, y = round(cx), round(cy)

    def run(dx: int, dy: int) -> int:
        n = 0
        while 0 <= x + (n + 1) * dx < image.width and 0 <= y + (n + 1) * dy < image.height:
            if image.getpixel((x + (n + 1) * dx, y + (n + 1) * dy)) == 0:
                break
            n += 1
        return n

    if image.getpixel((x, y)) == 0:
        return 0, 0
    return run(-1, 0) + run(1, 0) + 1, run(0, -1) + run(0, 1) + 1


def _ring_across(image: Image.Image, cx: float, cy: float) -> int:
    """The outer width of the ring around (``cx``, ``cy``), across, in dots; 0 if there is
    no white middle ringed by ink."""
    x, y = round(cx), round(cy)
    if image.getpixel((x, y)) == 0:
        return 0
    edges = []
    for step in (-1, 1):
        k = x
        while 0 <= k + step < image.width and image.getpixel((k + step, y)) != 0:
            k += step
        if not 0 <= k + step < image.width:
            return 0
        while 0 <= k + step < image.width and image.getpixel((k + step, y)) == 0:
            k += step
        edges.append(k)
    return edges[1] - edges[0] + 1
