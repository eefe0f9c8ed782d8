"""What the parts tell the controller: small frozen events, put on its queue.

The inputs' callbacks (gpiozero's threads), the print queue's thread and a signal handler
may only post one of these; the controller's loop alone decides what they mean.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ButtonDown:
    """The ROLL button went down at ``at`` (seconds on the box's clock)."""

    at: float


@dataclass(frozen=True)
class ButtonUp:
    """The ROLL button came up at ``at``."""

    at: float


@dataclass(frozen=True)
class Turned:
    """The encoder turned ``steps`` detents, clockwise when positive."""

    steps: int


@dataclass(frozen=True)
class Pushed:
    """The encoder's push switch was pressed."""


@dataclass(frozen=True)
class PrinterChanged:
    """A print job changed state: the status screen may have something to say."""


@dataclass(frozen=True)
class Stop:
    """The box is stopping: wakes the loop so that it sees it."""


Event = ButtonDown | ButtonUp | Turned | Pushed | PrinterChanged | Stop
