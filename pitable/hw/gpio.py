"""The GPIO parts, on gpiozero: the ROLL button, the rotary encoder, the round LEDs.

gpiozero calls its callbacks on its own threads; here they only turn an edge into an event
(:mod:`pitable.hw.events`) stamped with the box's clock and hand it to ``emit`` (the
controller puts it on its queue). The controller debounces the edges by level with
:class:`LevelDebounce` and decides what a press or a hold means, on its own clock, so that
the same logic runs on the Pi, in the simulator and in the tests. gpiozero is imported only
when the parts are built.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pitable.errors import GpioError
from pitable.hw.clock import Clock, MonotonicClock
from pitable.hw.events import Edge, InputEvent, Line, Turned

#: Where the firmware names the board ("Raspberry Pi 5 Model B Rev 1.0"), as install.sh reads it.
BOARD_MODEL = Path("/proc/device-tree/model")


def board_model(path: Path | None = None) -> str:
    """The Raspberry Pi model this runs on, or "" on any other machine."""
    try:
        model = (path or BOARD_MODEL).read_bytes().rstrip(b"\0\n").decode("ascii", "replace")
    except OSError:
        return ""
    return model if model.startswith("Raspberry Pi") else ""


def pin_library_hint(model: str, tried: str) -> str:
    """What to do when no pin library works, true for the machine in hand.

    ``tried`` is gpiozero's account of each library it tried. On a Pi the pin library comes
    from the OS, as install.sh installs it (lgpio, and RPi.GPIO too before the Pi 5, where
    it does not work), or from pip for a venv that does not see the system's packages.
    """
    if not model:
        return "the box needs a Raspberry Pi; `pitable sim` runs it here on fakes"
    if "No module named 'lgpio'" not in tried:
        return ("lgpio is installed but cannot start: check that this user is in group gpio,"
                " which may open /dev/gpiochip*")
    pi5 = "Raspberry Pi 5" in model or "Compute Module 5" in model
    packages = "python3-lgpio" if pi5 else "python3-lgpio python3-rpi.gpio"
    return (f"install the pin library: sudo apt install {packages} (sudo ./install.sh does),"
            " or in a venv without the system packages: pip install lgpio")


def pin_factory(name: str) -> Any:
    """gpiozero's pin factory by name ("" = gpiozero's own choice, "mock" = MockFactory)."""
    if not name:
        return _default_factory()
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    from importlib.metadata import entry_points

    for ep in entry_points(group="gpiozero_pin_factories"):
        if ep.name == name:
            try:
                return ep.load()()
            except Exception as exc:
                raise GpioError(f"gpiozero pin factory {name!r} cannot start: {exc}") from exc
    raise GpioError(f"gpiozero has no pin factory {name!r}")


def _default_factory() -> Any:
    """gpiozero's own choice (lgpio on a Pi 5, RPi.GPIO on older Pis), made here so that its
    fallback warnings become one clear error when no pin library works at all."""
    import warnings

    from gpiozero import Device

    if Device.pin_factory is not None:
        return Device.pin_factory
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            Device.pin_factory = Device._default_pin_factory()
        except Exception:
            tried = "; ".join(str(w.message) for w in caught)
            raise GpioError(
                f"no GPIO pin library works here ({tried})",
                pin_library_hint(board_model(), tried),
            ) from None
    return Device.pin_factory


@dataclass(frozen=True)
class Change:
    """A change of an input line's debounced level: pressed or released, at ``at``."""

    pressed: bool
    at: float


class LevelDebounce:
    """One input line (a switch that bounces) debounced by its level, on the box's clock.

    The first edge of a quiet line counts at once, and the line is then not listened to for
    ``bounce_s`` (an edge at its very end included): whatever it does meanwhile is contact
    bounce. When that time runs out (:meth:`deadline`) its level, that of its last edge, is
    read (:meth:`settle`): if it is not the level that counted, the change counts then, and
    the line is again not listened to for ``bounce_s``. So bounce of up to ``bounce_s`` on
    press or on release counts once, and a tap shorter than ``bounce_s`` still counts as a
    press and a release. Waiting for the level to be stable for ``bounce_s`` before counting
    a change (as the kernel's and lgpio's debounce do) would lose such a tap; dropping every
    edge within ``bounce_s`` of the last (as RPi.GPIO's ``bouncetime`` does) would lose its
    release and leave the button held.

    The controller's loop owns it: :meth:`edge` with each raw edge, :meth:`settle` once the
    deadline is reached. It reads no clock and starts no timer of its own, so the simulator
    and the tests drive it with the fake clock, deterministically.
    """

    def __init__(self, bounce_s: float) -> None:
        self.bounce_s = bounce_s
        #: The level that counts now.
        self.pressed = False
        self._raw = False
        self._raw_at = 0.0
        self._quiet_until = -math.inf

    def edge(self, pressed: bool, at: float) -> list[Change]:
        """A raw edge to ``pressed`` at ``at``: the changes that count with it, in order
        (a change held back by a quiet time that ran out before this edge, then its own)."""
        changes = []
        if at > self._quiet_until and (held_back := self.settle(at)) is not None:
            changes.append(held_back)
        self._raw, self._raw_at = pressed, at
        if at > self._quiet_until and pressed != self.pressed:
            changes.append(self._count(pressed, at, at + self.bounce_s))
        return changes

    def deadline(self) -> float | None:
        """When :meth:`settle` has a change to count, or None."""
        return self._quiet_until if self._raw != self.pressed else None

    def settle(self, now: float) -> Change | None:
        """The change that counts by ``now`` once the quiet time has run out: the line is
        at another level than the one that counted (since its last edge), or None."""
        if self._raw == self.pressed or now < self._quiet_until:
            return None
        # Quiet again from the deadline, not from ``now``: a loop that is late does not
        # lengthen it, and the fake clock gives the same answer however it is stepped.
        return self._count(self._raw, self._raw_at, self._quiet_until + self.bounce_s)

    def _count(self, pressed: bool, at: float, quiet_until: float) -> Change:
        self.pressed = pressed
        self._quiet_until = quiet_until
        return Change(pressed, at)


class Controls:
    """The inputs: the ROLL button and, when fitted, a rotary encoder with a push switch.

    Each press and release of the button and the push is posted as a raw :class:`Edge`,
    bounce and all; the controller debounces it (see :class:`LevelDebounce`) in its loop,
    with the deadline among its others, rather than a timer thread here that would run on
    the wall clock whatever the box's clock. The pin library's own debounce is left off: it
    would lose a quick tap's press or its release.
    """

    def __init__(
        self,
        emit: Callable[[InputEvent], None],
        *,
        button: int = 17,
        pull_up: bool = True,
        encoder: tuple[int, int, int] | None = (5, 6, 13),
        encoder_pull_up: bool = True,
        factory: Any = None,
        clock: Clock | None = None,
    ) -> None:
        from gpiozero import Button, RotaryEncoder

        self.emit = emit
        self.clock = clock or MonotonicClock()
        self._devices: list[Any] = []
        try:
            self.button = Button(button, pull_up=pull_up, pin_factory=factory)
            self._devices.append(self.button)
            self.button.when_pressed = lambda: self._edge(Line.ROLL, True)
            self.button.when_released = lambda: self._edge(Line.ROLL, False)
            self.encoder = self.push = None
            if encoder is not None:
                a, b, push = encoder
                self.encoder = RotaryEncoder(a, b, max_steps=0, pin_factory=factory)
                self._devices.append(self.encoder)
                self.encoder.when_rotated_clockwise = lambda: self._turn(+1)
                self.encoder.when_rotated_counter_clockwise = lambda: self._turn(-1)
                self.push = Button(push, pull_up=encoder_pull_up, pin_factory=factory)
                self._devices.append(self.push)
                self.push.when_pressed = lambda: self._edge(Line.PUSH, True)
                self.push.when_released = lambda: self._edge(Line.PUSH, False)
        except Exception as exc:
            self.close()
            raise GpioError(f"cannot claim the input pins: {exc}") from exc

    def _edge(self, line: Line, pressed: bool) -> None:
        self.emit(Edge(line, pressed, self.clock.now()))

    def _turn(self, steps: int) -> None:
        self.emit(Turned(steps))

    def close(self) -> None:
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()


class RoundLeds:
    """A bar of LEDs: ``show(done, total)`` lights a share of them, at least one once begun."""

    def __init__(self, pins: tuple[int, ...], *, active_high: bool = True, factory: Any = None):
        from gpiozero import LEDBarGraph

        self.count = len(pins)
        self.bar: Any = None
        if pins:
            try:
                self.bar = LEDBarGraph(*pins, active_high=active_high, pin_factory=factory)
            except Exception as exc:
                raise GpioError(f"cannot claim the LED pins {list(pins)}: {exc}") from exc
        self.lit = 0

    def show(self, done: int, total: int) -> None:
        lit = 0
        if total > 0 and done > 0:
            lit = min(self.count, math.ceil(done * self.count / total))
        if lit == self.lit:
            # The box shows the LEDs on every roll, and most rolls leave them as they are:
            # gpiozero would write every pin of the bar again.
            return
        if self.bar is not None:
            self.bar.value = lit / self.count
        self.lit = lit

    def off(self) -> None:
        self.show(0, 1)

    def states(self) -> tuple[bool, ...]:
        if self.bar is None:
            return ()
        return tuple(bool(led.is_lit) for led in self.bar)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
