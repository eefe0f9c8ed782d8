"""The Toy Cupboard's pictures (tests/toy_title.py), drawn outside pitable/.

A title registered from outside pitable brings the pictures its green face, its hazard and
its own kinds of space name, the way this module does: a drawing on the dice's 64 grid for
each die's picture (:func:`pitable.render.faces.register_picture`), and one for the printed
sheet's square of each kind (:func:`pitable.render.sheet.register_cell_picture`). The title
itself imports no drawing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from contextlib import contextmanager

from pitable.render.faces import OFF, Pen, register_picture, unregister_picture
from pitable.render.sheet import Line, Rect, Shape, register_cell_picture, unregister_cell_picture
from tests.toy_title import JACK, WIND_UP, ToyCupboard


def wind_up_key(pen: Pen) -> None:
    """A clockwork toy's key: two round wings on a stem, the stem's end square."""
    for cx in (18, 46):  # the wings
        pen.disc(cx, 20, 14)
        pen.disc(cx, 20, 6, fill=OFF)
    pen.draw.rectangle(pen.box(27, 14, 37, 30), fill=1)  # the hub between the wings
    pen.draw.rectangle(pen.box(29, 30, 35, 52), fill=1)  # the stem
    pen.draw.rectangle(pen.box(24, 52, 40, 60), fill=1)  # its square end


def spider(pen: Pen) -> None:
    """A spider: a round body and head, eight bent legs, hanging from its thread."""
    pen.line([(32, 0), (32, 22)], 1.5)  # the thread
    pen.disc(32, 38, 11)  # the body
    pen.disc(32, 24, 6)  # the head
    for side in (-1, 1):
        for i in range(4):
            angle = math.radians(-40 + i * 27)
            kx = 32 + side * (14 + 9 * math.cos(angle))
            ky = 34 + 12 * math.sin(angle) - 6
            fx = 32 + side * (26 + 4 * math.cos(angle))
            fy = ky + 14
            pen.line([(32 + side * 8, 36 + i * 2 - 3), (kx, ky), (fx, fy)], 2)


def jack_in_the_box(shapes: list[Shape], x: float, y: float, s: float, thin: float) -> None:
    """A jack-in-the-box space: a box along the square's bottom, a spring rising from it."""
    shapes.append(Rect(x + 0.15 * s, y + 0.6 * s, 0.7 * s, 0.25 * s, thin))
    zigzag = [(x + s * (0.4 if k % 2 else 0.6), y + s * (0.6 - 0.1 * k)) for k in range(5)]
    for (x1, y1), (x2, y2) in itertools.pairwise(zigzag):
        shapes.append(Line(x1, y1, x2, y2, thin))


#: The cupboard's pictures by the names its green face and its hazard give.
PICTURES = {WIND_UP.picture: wind_up_key, ToyCupboard.hazard_symbol: spider}


@contextmanager
def toy_pictures() -> Iterator[None]:
    """The cupboard's pictures registered for the length of a ``with`` block."""
    for name, draw in PICTURES.items():
        register_picture(name, draw)
    register_cell_picture(JACK.picture, jack_in_the_box)
    try:
        yield
    finally:
        for name in PICTURES:
            unregister_picture(name)
        unregister_cell_picture(JACK.picture)
