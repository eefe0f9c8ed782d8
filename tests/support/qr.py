"""QR codes: what segno makes of a URL, and the code read back from a drawn picture."""

from __future__ import annotations

import segno
from PIL import Image

from pitable.render.join import qr_text

#: An address the box could show, on its LAN.
URL = "http://192.168.1.23:8080/"


def library_matrix(url: str) -> list[list[bool]]:
    """segno's own modules for what the code holds (the URL, scheme and host in capitals)."""
    return [[bool(m) for m in row] for row in segno.make_qr(qr_text(url), error="m").matrix]


def read_qr(image: Image.Image, n: int) -> list[list[bool]]:
    """The n x n modules of the QR code drawn in ``image``, found from the picture alone:
    the light square of its quiet zone, then the top-left finder pattern, whose dark top
    edge is 7 modules long."""
    grey = image.convert("L")
    px = grey.load()
    assert px is not None
    light = [(x, y) for y in range(grey.height) for x in range(grey.width) if px[x, y] > 127]
    x0, y0 = light[0]
    side = 0
    while x0 + side < grey.width and px[x0 + side, y0] > 127:
        side += 1
    square = grey.crop((x0, y0, x0 + side, min(grey.height, y0 + side)))
    spx = square.load()
    assert spx is not None
    fx, fy = next((x, y) for y in range(square.height) for x in range(square.width)
                  if spx[x, y] <= 127)
    run = 0
    while spx[fx + run, fy] <= 127:
        run += 1
    module = run // 7
    assert run == 7 * module, "the modules are whole pixels"
    return [[spx[fx + i * module + module // 2, fy + j * module + module // 2] <= 127
             for i in range(n)] for j in range(n)]
