"""The GPIO parts, on gpiozero: the ROLL button, the rotary encoder, the round LEDs.

gpiozero calls its callbacks on its own threads; here they only turn an edge into an event
(:mod:`pitable.hw.events`) and hand it to ``emit`` (the controller puts it on its queue).
The controller decides what a press or a hold means, with its own clock, so that the same
logic runs on the Pi, in the simulator and in the tests. gpiozero is imported only when the
parts are built.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pitable.errors import GpioError
from pitable.hw.clock import Clock, MonotonicClock
from pitable.hw.events import ButtonDown, ButtonUp, Event, Pushed, Turned

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


class Controls:
    """The inputs: the ROLL button and, when fitted, a rotary encoder with a push switch.

    Debouncing is done here as well as by the pin library: gpiozero's mock pins (and some
    factories) ignore ``bounce_time``, and a dice box must not roll twice on one press.
    """

    def __init__(
        self,
        emit: Callable[[Event], None],
        *,
        button: int = 17,
        pull_up: bool = True,
        bounce_s: float = 0.02,
        encoder: tuple[int, int, int] | None = (5, 6, 13),
        encoder_pull_up: bool = True,
        factory: Any = None,
        clock: Clock | None = None,
    ) -> None:
        from gpiozero import Button, RotaryEncoder

        self.emit = emit
        self.clock = clock or MonotonicClock()
        self.bounce_s = bounce_s
        self._last: dict[str, float] = {}
        self._devices: list[Any] = []
        try:
            self.button = Button(
                button, pull_up=pull_up, bounce_time=bounce_s or None, pin_factory=factory
            )
            self._devices.append(self.button)
            self.button.when_pressed = lambda: self._edge(ButtonDown, "roll")
            self.button.when_released = lambda: self._edge(ButtonUp, "roll")
            self.encoder = self.push = None
            if encoder is not None:
                a, b, push = encoder
                self.encoder = RotaryEncoder(a, b, max_steps=0, pin_factory=factory)
                self._devices.append(self.encoder)
                self.encoder.when_rotated_clockwise = lambda: self._turn(+1)
                self.encoder.when_rotated_counter_clockwise = lambda: self._turn(-1)
                self.push = Button(
                    push, pull_up=encoder_pull_up, bounce_time=bounce_s or None,
                    pin_factory=factory,
                )
                self._devices.append(self.push)
                self.push.when_pressed = lambda: self._edge(None, "push")
        except Exception as exc:
            self.close()
            raise GpioError(f"cannot claim the input pins: {exc}") from exc

    def _edge(self, button: type[ButtonDown | ButtonUp] | None, line: str) -> None:
        """An edge of ``line``: of the ROLL button (``button`` says which way) or the push."""
        now = self.clock.now()
        last = self._last.get(line)
        if last is not None and now - last < self.bounce_s:
            return
        self._last[line] = now
        self.emit(Pushed() if button is None else button(now))

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
        self.lit = lit
        if self.bar is not None:
            self.bar.value = lit / self.count

    def off(self) -> None:
        self.show(0, 1)

    def states(self) -> tuple[bool, ...]:
        if self.bar is None:
            return ()
        return tuple(bool(led.is_lit) for led in self.bar)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
