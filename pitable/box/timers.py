"""The box's timers: each one thing the box does at a time of its own.

A timer says when it is due (None: not set) and what it does then. The box's loop waits
for the soonest of :attr:`~pitable.box.controller.Box.timers` and fires each that is due, in
the list's order; a new timer is one such class, added to :func:`timers_of`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pitable.box.phase import Phase
from pitable.hw.events import Line

if TYPE_CHECKING:
    from pitable.box.controller import Box


class Timer(Protocol):
    """One of the box's timers."""

    def deadline(self) -> float | None:
        """When the timer is due, or None while it is not set."""
        ...

    def fire(self, now: float) -> None:
        """Do what is due at ``now`` (on or after :meth:`deadline`)."""
        ...


@dataclass(frozen=True)
class Debounce:
    """A line (the button, the push) counts its new level once its quiet time has run out."""

    box: Box
    line: Line

    def deadline(self) -> float | None:
        return self.box.lines[self.line].deadline()

    def fire(self, now: float) -> None:
        if (change := self.box.lines[self.line].settle(now)) is not None:
            self.box.level_changed(self.line, change)


@dataclass(frozen=True)
class Hold:
    """ROLL held down for ``hold_s``: the hold counts while the button is still down."""

    box: Box

    def deadline(self) -> float | None:
        box = self.box
        if box.down_at is None or box.hold_fired:
            return None
        return box.down_at + box.settings.hold_s

    def fire(self, now: float) -> None:
        self.box.hold_fired = True
        self.box.on_hold()


@dataclass(frozen=True)
class Tumble:
    """The tumble's next frame, or at its end the final faces."""

    box: Box

    def deadline(self) -> float | None:
        box = self.box
        return min(box.next_frame, box.tumble_until) if box.phase is Phase.ROLLING else None

    def fire(self, now: float) -> None:
        if now >= self.box.tumble_until:
            self.box.show_final()
        else:
            self.box.tumble_frame()


@dataclass(frozen=True)
class WaitingPress:
    """The press made during a tumble rolls once the result has been shown long enough."""

    box: Box

    def deadline(self) -> float | None:
        box = self.box
        return box.pending_at if box.press_waiting and box.phase is Phase.SHOWING else None

    def fire(self, now: float) -> None:
        self.box.take_waiting_press()
        self.box.press_roll()


@dataclass(frozen=True)
class ConfirmWindow:
    """The few seconds in which a second press rolls while players still write: once
    they pass, the screen says the pace again, and a press asks again."""

    box: Box

    def deadline(self) -> float | None:
        return self.box.confirm_until

    def fire(self, now: float) -> None:
        self.box.confirm_closed()


@dataclass(frozen=True)
class Blink:
    """A hazard's status screen blinks, half of ``blink_ms`` on, half off."""

    box: Box

    def deadline(self) -> float | None:
        return self.box.next_blink

    def fire(self, now: float) -> None:
        box = self.box
        box.blink_on = not box.blink_on
        box.next_blink = now + box.settings.blink_ms / 2000
        box.draw_status()


@dataclass(frozen=True)
class NextPage:
    """The status screen turns to its next page."""

    box: Box

    def deadline(self) -> float | None:
        return self.box.next_page

    def fire(self, now: float) -> None:
        self.box.turn_page(+1)


@dataclass(frozen=True)
class MenuCloses:
    """The open menu's own time: the code to join closes, or is looked at again."""

    box: Box

    def deadline(self) -> float | None:
        box = self.box
        return box.menus.deadline() if box.phase is Phase.MENU else None

    def fire(self, now: float) -> None:
        self.box.menus.expire(now)


@dataclass(frozen=True)
class PanelRetry:
    """A panel that stopped answering is opened again, each at its own retry time."""

    box: Box

    def deadline(self) -> float | None:
        due = [at for slot in self.box.slots() if (at := slot.retry_at) is not None]
        return min(due) if due else None

    def fire(self, now: float) -> None:
        for slot in self.box.slots():
            if slot.retry():  # each slot knows whether its own retry is due
                self.box.message = None
                self.box.draw_status()


@dataclass(frozen=True)
class StoreRetry:
    """The writes that waited for the store are tried again."""

    box: Box

    def deadline(self) -> float | None:
        return self.box.games.retry_at

    def fire(self, now: float) -> None:
        if self.box.games.retry():
            self.box.draw_status()  # fewer rolls wait, or none


def timers_of(box: Box) -> list[Timer]:
    """The box's own timers, in the order they fire when due at the same step: each sees
    what those before it did (a tumble that ended sets the time a waiting press may roll,
    checked next)."""
    return [
        *(Debounce(box, line) for line in Line),
        Hold(box),
        Tumble(box),
        WaitingPress(box),
        ConfirmWindow(box),
        Blink(box),
        NextPage(box),
        MenuCloses(box),
        PanelRetry(box),
        StoreRetry(box),
    ]
