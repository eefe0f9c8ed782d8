"""Building the box on injected backends: every part closed, in reverse, on failure or close."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pitable.box.assembly import build_box
from pitable.box.backends import Backends, default_backends
from pitable.box.events import Event
from pitable.box.store import SessionStore
from pitable.config import DEFAULTS, Config, EntropyConfig, PrinterConfig
from pitable.errors import ConfigError, PrinterOffline
from pitable.hw.clock import FakeClock
from pitable.hw.gpio import pin_factory
from pitable.hw.oled import I2CPanelSpec


class Serial:
    """luma's side of a panel's bus, recording when it is opened and closed."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log
        self.closed = False
        log.append(f"open {name}")

    def command(self, *cmd: int) -> None:
        pass

    def data(self, data: list[int]) -> None:
        pass

    def cleanup(self) -> None:
        # luma also cleans up at exit: record only the first close.
        if not self.closed:
            self.closed = True
            self.log.append(f"close {self.name}")


class Entropy:
    name = "recorded"

    def __init__(self, log: list[str]) -> None:
        self.log = log
        log.append("open entropy")

    def read(self, n: int) -> bytes:
        return os.urandom(n)

    def close(self) -> None:
        self.log.append("close entropy")


class Printer:
    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.post: Callable[[Event], None] | None = None
        log.append("open printer")

    def print_sheet(self, title: str) -> str:
        return "Printing"

    def retry(self, tr: object = None) -> str:
        return "Nothing to print again"

    def can_retry(self) -> bool:
        return False

    def message(self, tr: object = None) -> str | None:
        return None

    def notice(self, tr: object = None) -> str | None:
        return None

    def close(self) -> None:
        self.log.append("close printer")


class Store(SessionStore):
    log: list[str]

    def close(self) -> None:
        if self._db is not None:
            self.log.append("close store")
        super().close()


def recording(log: list[str], factory: Any, printer_fails: bool = False) -> Backends:
    """Backends whose every part records its opening and closing in ``log``."""

    def printer(config: PrinterConfig) -> Printer:
        if printer_fails:
            raise PrinterOffline("/dev/serial0 cannot be opened")
        return Printer(log)

    def entropy(config: EntropyConfig) -> Entropy:
        return Entropy(log)

    def i2c(spec: I2CPanelSpec) -> Serial:
        return Serial(f"panel {spec.bus}", log)

    def spi(d: Any) -> Any:
        raise AssertionError("the reference wiring has no SPI panel")

    return Backends(
        name="recording",
        pins=lambda: factory,
        i2c=i2c,
        mux_bus=lambda parent, address, channel: 10 + channel,
        spi=spi,
        printer=printer,
        entropy=entropy,
        clock=FakeClock(),
    )


def store_opener(log: list[str], tmp_path: Path) -> Callable[[], Store]:
    def open_store() -> Store:
        log.append("open store")
        store = Store.open(tmp_path)
        store.log = log
        return store

    return open_store


def pins_are_free(factory: Any, config: Config) -> bool:
    """Every pin of the box can be claimed again: the inputs and LEDs let go of them."""
    from gpiozero import LED

    pins = [config.button.pin, config.encoder.a, config.encoder.b, config.encoder.push,
            *config.leds.pins]
    claimed = []
    try:
        for pin in pins:
            claimed.append(LED(pin, pin_factory=factory))
    except Exception:
        return False
    finally:
        for device in claimed:
            device.close()
    return True


PANELS = ["panel 10", "panel 11", "panel 12", "panel 13"]


def test_a_part_that_fails_to_build_closes_the_parts_built_before_it(tmp_path: Path) -> None:
    log: list[str] = []
    factory = pin_factory("mock")
    backends = recording(log, factory, printer_fails=True)
    with pytest.raises(PrinterOffline):
        build_box(DEFAULTS, backends=backends, store=store_opener(log, tmp_path))
    opened = ["open entropy", *(f"open {p}" for p in PANELS)]
    closed = [f"close {p}" for p in reversed(PANELS)] + ["close entropy"]
    assert log == opened + closed
    assert pins_are_free(factory, DEFAULTS)
    # The store comes last: a box that could not start kept nothing on disk.
    assert list(tmp_path.iterdir()) == []


def test_closing_the_box_closes_every_part_in_reverse_order(tmp_path: Path) -> None:
    log: list[str] = []
    factory = pin_factory("mock")
    built = build_box(DEFAULTS, backends=recording(log, factory),
                      store=store_opener(log, tmp_path))
    opened = ["open entropy", *(f"open {p}" for p in PANELS), "open printer", "open store"]
    assert log == opened
    assert not pins_are_free(factory, DEFAULTS)
    built.close()
    closed = ["close store", "close printer", *(f"close {p}" for p in reversed(PANELS)),
              "close entropy"]
    assert log == opened + closed
    assert pins_are_free(factory, DEFAULTS)


def test_a_box_without_a_store_keeps_nothing(tmp_path: Path) -> None:
    log: list[str] = []
    with build_box(DEFAULTS, backends=recording(log, pin_factory("mock"))) as built:
        assert built.box.store is None
    assert "open store" not in log and "close entropy" in log


def test_the_default_backends_come_from_the_environment() -> None:
    assert default_backends(DEFAULTS, {}).name == "real"
    assert default_backends(DEFAULTS, {"PITABLE_BACKENDS": "sim"}).fakes is not None
    with pytest.raises(ConfigError, match="PITABLE_BACKENDS='fake': expected one of real, sim"):
        default_backends(DEFAULTS, {"PITABLE_BACKENDS": "fake"})


def test_the_simulated_backends_build_a_box_that_rolls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PITABLE_BACKENDS", "sim")
    with build_box(DEFAULTS) as built:
        assert built.fakes is not None
        before = built.fakes.image("green").tobytes()
        clock = built.box.clock
        assert isinstance(clock, FakeClock)
        pin = built.fakes.pin(DEFAULTS.button.pin)
        pin.drive_low()
        clock.advance(0.1)
        pin.drive_high()
        built.box.step()
        assert built.box.game.state.rounds == 1
        assert built.fakes.image("green").tobytes() != before


def test_closing_the_box_closes_the_random_generator_device(tmp_path: Path) -> None:
    device = tmp_path / "hwrng"
    device.write_bytes(os.urandom(4096))
    config = dataclasses.replace(DEFAULTS, entropy=EntropyConfig(device=str(device)))
    built = build_box(config, backends=Backends.simulated(config))
    built.box.entropy.read(1)  # opens the device
    pooled = built.box.entropy.primary  # type: ignore[attr-defined]
    raw = pooled.inner.raw
    assert raw._fd is not None
    fd = raw._fd
    built.close()
    assert raw._fd is None and not pooled._thread.is_alive()
    with pytest.raises(OSError):
        os.fstat(fd)
