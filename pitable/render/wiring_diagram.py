"""The wiring of a config drawn as an SVG picture: the Pi header, the parts, a line a wire.

The SVG is written by hand (a few rectangles, lines and text, every text XML-escaped) so
that drawing the wiring needs no library: it runs on the Pi before anything is installed.
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.sax.saxutils import escape, quoteattr

from pitable.config import Config
from pitable.pins import PHYSICAL_PIN
from pitable.wiring import DISPLAY_COLOURS, INK, Wire
from pitable.wiring import part_wires as _part_wires

#: BCM GPIO -> physical pin on the 40-pin header.
HEADER_PIN = PHYSICAL_PIN
_COLOURS = DISPLAY_COLOURS
_INK = INK

__all__ = ["HEADER_PIN", "Wire", "wires", "wiring_svg"]


def wires(config: Config) -> list[Wire]:
    """Every GPIO wire of the enabled parts, in the order of the box (each registered
    part declares its own: :func:`pitable.wiring.part_wires`)."""
    return _part_wires(config)


# --- the picture ---------------------------------------------------------------------

_ROW = 22
_HEADER_X, _HEADER_W = 20, 190
_PART_X, _PART_W = 340, 230
_MUXED_X, _MUXED_W = 680, 200
_WIDTH = 900


def _text(x: float, y: float, text: str, *, size: int = 13, weight: str = "normal",
          anchor: str = "start", fill: str = _INK) -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-size="{size}" font-weight="{weight}"'
            f' text-anchor="{anchor}" fill={quoteattr(fill)}>{escape(text)}</text>')


def _box(x: float, y: float, size: tuple[float, float], title: str, colour: str) -> list[str]:
    w, h = size
    return [
        f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="6" fill="#ffffff"'
        f' stroke={quoteattr(colour)} stroke-width="2"/>',
        _text(x + 10, y + 18, title, weight="bold", fill=colour),
    ]


def wiring_svg(config: Config, table: Iterable[tuple[str, str, str]]) -> str:
    """The wiring as an SVG picture: the header's pins, the parts, a line for each wire,
    the displays behind the mux on their channels, and ``table`` underneath: the rows
    (part, connection, details) that ``pitable wiring`` prints for the same config."""
    connections = wires(config)
    parts: dict[str, list[Wire]] = {}
    for wire in connections:
        parts.setdefault(wire.part, []).append(wire)
    pins = sorted({w.gpio for w in connections}, key=lambda g: HEADER_PIN.get(g, 99))
    top = 70
    body: list[str] = []

    # The header: one row per pin in use, in physical order.
    pin_y = {gpio: top + 34 + i * _ROW for i, gpio in enumerate(pins)}
    body += _box(_HEADER_X, top, (_HEADER_W, 34 + len(pins) * _ROW), "Raspberry Pi header",
                 _INK)
    for gpio, pin_row in pin_y.items():
        physical = HEADER_PIN.get(gpio)
        label = f"pin {physical} · GPIO {gpio}" if physical else f"GPIO {gpio}"
        body.append(_text(_HEADER_X + 10, pin_row + 4, label))
        body.append(f'<circle cx="{_HEADER_X + _HEADER_W}" cy="{pin_row}" r="4" fill="{_INK}"/>')

    # The parts, stacked, one row per signal.
    y: float = top
    anchors: dict[str, float] = {}
    for part, part_wires in parts.items():
        colour = part_wires[0].colour
        box_height = 34 + len(part_wires) * _ROW
        body += _box(_PART_X, y, (_PART_W, box_height), part, colour)
        anchors[part] = y
        for i, wire in enumerate(part_wires):
            row_y = y + 34 + i * _ROW
            body.append(_text(_PART_X + 14, row_y + 4, wire.signal, size=12))
            start_x, start_y = _HEADER_X + _HEADER_W, pin_y[wire.gpio]
            mid = (start_x + _PART_X) / 2
            body.append(
                f'<path d="M{start_x} {start_y} C{mid:g} {start_y} {mid:g} {row_y}'
                f' {_PART_X} {row_y}" fill="none" stroke={quoteattr(colour)}'
                ' stroke-width="2"/>'
            )
        y += box_height + 14
    bottom: float = max(y, top + 34 + len(pins) * _ROW + 14)

    # The displays behind the mux, each on its channel.
    if config.i2c.mux and "I2C mux" in anchors:
        mux_y = anchors["I2C mux"]
        muxed = [d for d in config.displays.enabled()
                 if d.interface == "i2c" and d.mux_channel is not None]
        for i, d in enumerate(muxed):
            box_y = mux_y + i * 64
            colour = _COLOURS[d.name]
            body += _box(_MUXED_X, box_y, (_MUXED_W, 54), d.part_name, colour)
            body.append(_text(_MUXED_X + 10, box_y + 40,
                              f"{d.driver.upper()} at 0x{d.address:02x}", size=12))
            body.append(
                f'<path d="M{_PART_X + _PART_W} {mux_y + 20} C{_MUXED_X - 40} {mux_y + 20}'
                f' {_MUXED_X - 60} {box_y + 27} {_MUXED_X} {box_y + 27}" fill="none"'
                f' stroke={quoteattr(colour)} stroke-width="2"/>'
            )
            body.append(_text(_MUXED_X - 8, box_y + 19, f"SD{d.mux_channel}/SC{d.mux_channel}",
                              size=11, anchor="end", fill=colour))
        bottom = max(bottom, mux_y + len(muxed) * 64 + 14)

    # The whole table, so that the picture says everything `pitable wiring` prints.
    y = bottom + 20
    body.append(_text(_HEADER_X, y, "part", weight="bold"))
    body.append(_text(_HEADER_X + 150, y, "connection", weight="bold"))
    body.append(_text(_HEADER_X + 470, y, "details", weight="bold"))
    for part, connection, details in table:
        y += 20
        body.append(_text(_HEADER_X, y, part, size=12))
        body.append(_text(_HEADER_X + 150, y, connection, size=12))
        body.append(_text(_HEADER_X + 470, y, details, size=11))
    height = y + 30

    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height:g}"'
        f' viewBox="0 0 {_WIDTH} {height:g}" font-family="DejaVu Sans, Arial, sans-serif">',
        "<title>pitable wiring</title>",
        f'<rect width="{_WIDTH}" height="{height:g}" fill="#fafafa"/>',
        _text(_HEADER_X, 36, "pitable wiring", size=20, weight="bold"),
        _text(_HEADER_X, 56, "BCM GPIO numbers; 3.3 V and ground to every board are not drawn."
              " The printer has its own 5-9 V supply; join its ground to the Pi's.", size=12),
    ]
    return "\n".join([*head, *body, "</svg>"]) + "\n"
