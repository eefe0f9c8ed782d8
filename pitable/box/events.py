"""What the box's loop is told: every event that may be put on its queue.

The inputs' callbacks (gpiozero's threads), the print queue's thread, the web page's server
thread and a signal handler may only post one of these; the controller's loop alone decides
what they mean. The inputs' edges and turns are the hardware's (:mod:`pitable.hw.events`),
the page's commands the web's (:mod:`pitable.web.commands`); a print job's change and a
stop are the box's own, here.
"""

from __future__ import annotations

from dataclasses import dataclass

from pitable.hw.events import Edge, Line, Turned
from pitable.web.commands import NewGameCommand, PrintSheetCommand, RollCommand

__all__ = [
    "Edge",
    "Event",
    "Line",
    "NewGameCommand",
    "PrintSheetCommand",
    "PrinterChanged",
    "RollCommand",
    "Stop",
    "TableChanged",
    "Turned",
]


@dataclass(frozen=True)
class PrinterChanged:
    """A print job changed state: the status screen may have something to say."""


@dataclass(frozen=True)
class Stop:
    """The box is stopping: wakes the loop so that it sees it."""


@dataclass(frozen=True)
class TableChanged:
    """A player on a phone wrote, drew a hazard or said done: the pace on the status
    screen may have changed."""


Event = (Edge | Turned | PrinterChanged | RollCommand | NewGameCommand | PrintSheetCommand
         | TableChanged | Stop)
