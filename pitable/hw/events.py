"""What the parts tell the controller: small frozen events, put on its queue.

The inputs' callbacks (gpiozero's threads), the print queue's thread, the web page's server
thread and a signal handler may only post one of these; the controller's loop alone decides
what they mean.
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


@dataclass(frozen=True)
class PrinterChanged:
    """A print job changed state: the status screen may have something to say."""


@dataclass(frozen=True)
class RollCommand:
    """ROLL pressed away from the box (the table's web page, with its PIN): rolls as a press
    of the button does, except in the box's menu, where a press would move the cursor."""


@dataclass(frozen=True)
class NewGameCommand:
    """Start a game of ``title`` (a title's key) in ``mode`` ("table" or "solo"), asked
    away from the box (the table's web page, with its PIN)."""

    title: str
    mode: str


@dataclass(frozen=True)
class Stop:
    """The box is stopping: wakes the loop so that it sees it."""


Event = Edge | Turned | PrinterChanged | RollCommand | NewGameCommand | Stop
