"""What the box is doing: the one state its loop, its timers and its menu look at."""

from __future__ import annotations

import enum


class Phase(enum.Enum):
    """Waiting for a roll, tumbling the dice, showing a result, or in the menu."""

    IDLE = "idle"
    ROLLING = "rolling"
    SHOWING = "showing"
    MENU = "menu"
