"""The one clock of the package: monotonic seconds, and a way to wait.

The controller, the display slots, the inputs' debouncing, the printer's pacing and the
systemd watchdog all read time through :class:`Clock`. On the box it is
:class:`MonotonicClock`; in the simulator and the tests it is :class:`FakeClock`, which
moves only when told to, so a script of a hundred presses takes no time and no test
waits on the wall clock.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Monotonic seconds (:meth:`now`) and a wait (:meth:`sleep`)."""

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    """The system's monotonic clock: :func:`time.monotonic` and :func:`time.sleep`."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FakeClock:
    """A clock that moves only when told to: :meth:`advance`, or a :meth:`sleep` that
    returns at once, having moved the time on by what was slept."""

    def __init__(self, start: float = 0.0) -> None:
        self.time = start
        #: The seconds slept in all, for tests of pacing.
        self.slept = 0.0

    def now(self) -> float:
        return self.time

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.time += seconds
            self.slept += seconds

    def advance(self, seconds: float) -> None:
        self.time += seconds
