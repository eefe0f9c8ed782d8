"""A buzzer, made up for the tests: what a new output part is, written outside pitable/.

Its table ``[buzzer]``, its driver (plain arguments; gpiozero imported only when one is
opened), its fake, and its doctor's check are this module; :data:`BUZZER` is its one
registration. Nothing in pitable/ names it: while :func:`registered` holds it, the file
takes a ``[buzzer]`` table, ``config show`` writes it, ``config check`` finds its pin
taken twice, ``pitable wiring`` lists and draws it, the doctor checks it, and the box opens
it (its fake on the simulated backends).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pitable.config import Config, setting
from pitable.wiring import Part, register_part, unregister_part


@dataclass(frozen=True)
class BuzzerConfig:
    """[buzzer]: a piezo buzzer that beeps on a roll."""

    enabled: bool = setting(True, "false: no buzzer fitted.")
    pin: int = setting(18, "The GPIO driving the buzzer.", gpio=True, signal="+")
    beep_ms: int = setting(80, "How long a beep lasts.", low=10, high=1000, unit=" ms")


class Buzzer:
    """The real buzzer: an output GPIO, high while it beeps."""

    def __init__(self, *, pin: int, beep_ms: int, factory: Any = None) -> None:
        from gpiozero import DigitalOutputDevice

        self.device = DigitalOutputDevice(pin, pin_factory=factory)
        self.beep_ms = beep_ms

    def beep(self) -> None:
        self.device.blink(on_time=self.beep_ms / 1000, n=1)

    def close(self) -> None:
        self.device.close()


class FakeBuzzer:
    """The buzzer of the simulator and the tests: it counts its beeps."""

    def __init__(self, *, pin: int, beep_ms: int, factory: Any = None) -> None:
        self.pin = pin
        self.beep_ms = beep_ms
        self.beeps = 0
        self.closed = False

    def beep(self) -> None:
        self.beeps += 1

    def close(self) -> None:
        self.closed = True


def check_buzzer(config: Config, probes: Any) -> Any:
    """The doctor's look: the buzzer's GPIO can be driven."""
    from pitable.doctor import Result, Status

    table = config.part_table("buzzer")
    if not table.enabled:
        return None
    try:
        Buzzer(pin=table.pin, beep_ms=table.beep_ms, factory=probes.pin_factory).close()
    except Exception as exc:
        return Result("buzzer", Status.FAIL, f"GPIO {table.pin}: {exc}",
                      "stop what holds the pin, or choose another for buzzer.pin")
    return Result("buzzer", Status.PASS, f"GPIO {table.pin} drives it")


BUZZER = Part(
    "buzzer", "buzzer", table=BuzzerConfig, doc="A piezo buzzer that beeps on a roll.",
    check=f"{__name__}:check_buzzer", build=f"{__name__}:Buzzer", fake=f"{__name__}:FakeBuzzer",
)


@contextlib.contextmanager
def registered() -> Iterator[Part]:
    """The buzzer, a part of the box while the block runs."""
    register_part(BUZZER)
    try:
        yield BUZZER
    finally:
        unregister_part(BUZZER.name)
