"""What the inputs tell the controller: small frozen events, put on its queue.

The inputs' callbacks (gpiozero's threads) may only post one of these; the controller's
loop alone decides what they mean. The box's other events (a print job's change, the web
page's commands, a stop) are the box's own, in :mod:`pitable.box.events`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Line(enum.Enum):
    """An input line that is pressed and released: the ROLL button, the encoder's push."""

    ROLL = "roll"
    PUSH = "push"


@dataclass(frozen=True)
class Edge:
    """``line`` went down (``pressed``) or up at ``at`` (seconds on the box's clock), as the
    pin library saw it: contact bounce included. The controller debounces by level."""

    line: Line
    pressed: bool
    at: float


@dataclass(frozen=True)
class Turned:
    """The encoder turned ``steps`` detents, clockwise when positive."""

    steps: int


#: What the inputs post.
InputEvent = Edge | Turned
