"""What stands behind each part of the box, as one injected value.

The way gpiozero's pin factories are chosen: :func:`build_box
<pitable.box.assembly.build_box>` takes its :class:`Backends` keyword-only, and without one
uses the global default, chosen by the ``PITABLE_BACKENDS`` environment variable (``real``,
the default, or ``sim``), as ``GPIOZERO_PIN_FACTORY`` chooses gpiozero's. The real set
(:meth:`Backends.real`) and the simulated set (:meth:`Backends.simulated`) are two values of
the same type, and a test can pass its own, or replace one field of either with
:func:`dataclasses.replace`.

Each field opens one kind of part: the pin factory (gpiozero's, or its ``MockFactory``), the
I2C transport of a panel (luma's ``i2c`` on ``/dev/i2c-N``, or on a
:class:`~pitable.hw.fake_i2c.FakeBus` that decodes the bytes), a panel on SPI, the
printer, the entropy source, the clock, and the TV (luma's ``linux_framebuffer``, or its
``dummy`` in the simulator). Hardware libraries are imported only when an
opener runs.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from PIL import Image

from pitable.box.parts import Display
from pitable.config import Config, DisplayConfig, EntropyConfig, PrinterConfig, TvConfig
from pitable.errors import ConfigError
from pitable.hw.chips import CHIPS
from pitable.hw.clock import Clock, FakeClock, MonotonicClock
from pitable.hw.fake_i2c import FakeI2C, FakeOled
from pitable.hw.framebuffer import open_framebuffer, simulated_tv
from pitable.hw.oled import (
    I2CLink,
    I2CPanelSpec,
    Panel,
    mux_channel_bus,
    open_i2c_interface,
    open_panel,
)
from pitable.hw.printer import PrinterSettings

if TYPE_CHECKING:
    from pitable.box.controller import Printer
    from pitable.hw.entropy import EntropySource

#: The environment variable that chooses the default backends.
ENVIRONMENT = "PITABLE_BACKENDS"

#: Fake bus numbers of the mux channels in the simulator (the real ones come from sysfs).
SIM_MUX_BUS_BASE = 10
#: Fake bus numbers of SPI panels in the simulator: one per chip select.
SIM_SPI_BUS_BASE = 20


class PinFactory(Protocol):
    """gpiozero's pin factory, handed to the inputs and the LEDs: its pins by BCM number."""

    def pin(self, spec: int, /) -> object: ...


class FakePin(Protocol):
    """A pin of gpiozero's MockFactory, driven as a finger on a switch would."""

    def drive_low(self) -> None: ...

    def drive_high(self) -> None: ...


class FakePins(Protocol):
    """gpiozero's MockFactory: the pins it made, each kept with its log of states."""

    @property
    def pins(self) -> Mapping[object, object]: ...

    def pin(self, spec: int, /) -> FakePin: ...


class KeptPicture(Protocol):
    """luma.core's ``dummy`` device: the last picture it was shown."""

    @property
    def image(self) -> Image.Image: ...


@dataclass
class Fakes:
    """What stands in for the hardware in the simulator, to drive it and read it back."""

    factory: FakePins
    i2c: FakeI2C
    #: Each display's fake controller (or luma's dummy device for a chip that no fake
    #: decodes, the SSD1322), by name.
    panels: dict[str, FakeOled | KeptPicture] = field(default_factory=dict)
    #: Each display's bus and address, by name, to unplug it.
    where: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: The TV: luma's dummy device, which keeps the last picture (None until opened).
    tv: KeptPicture | None = None

    def image(self, name: str) -> Image.Image:
        panel = self.panels[name]
        return panel.image() if isinstance(panel, FakeOled) else panel.image

    def unplug(self, name: str) -> None:
        bus, address = self.where[name]
        self.i2c.bus(bus).unplug(address)

    def replug(self, name: str) -> None:
        bus, address = self.where[name]
        self.i2c.bus(bus).replug(address)
        self.panels[name] = self.i2c.bus(bus).devices[address]

    def pin(self, number: int) -> FakePin:
        return self.factory.pin(number)


def printer_settings(c: PrinterConfig) -> PrinterSettings:
    """The driver's settings from the config's ``[printer]`` table: every driver of the
    printer (the box's, ``pitable sheet --print``'s) gets them from here."""
    return PrinterSettings(
        port=c.port, baudrate=c.baudrate, paper_width_mm=c.paper_width_mm,
        image_command=c.image_command, line_time_ms=c.line_time_ms,
        feed_time_ms=c.feed_time_ms, dtr_busy_pin=c.dtr_busy_pin, timeout_s=c.timeout_s,
        heat_dots=c.heat_dots, heat_time=c.heat_time, heat_interval=c.heat_interval,
        tear_feed_mm=c.tear_feed_mm,
    )


def open_tv(c: TvConfig) -> Panel:
    """The TV of the config's ``[tv]`` table: luma's framebuffer device on the Pi."""
    return open_framebuffer(c.device, bgr=c.bgr)


@dataclass(frozen=True)
class Backends:
    """The openers of every kind of part, and the clock; see the module's docstring."""

    #: "real", "sim", or a test's own name, for messages.
    name: str
    #: The gpiozero pin factory the inputs and the LEDs are built on.
    pins: Callable[[], PinFactory]
    #: luma's serial interface to the panel at a bus number and address.
    i2c: Callable[[I2CPanelSpec], I2CLink]
    #: The bus number of a mux channel: (parent bus, mux address, channel) -> bus.
    mux_bus: Callable[[int, int, int], int]
    #: A panel on SPI, opened from its display table.
    spi: Callable[[DisplayConfig], Display]
    #: The box's printer (None when the config disables it).
    printer: Callable[[PrinterConfig], Printer | None]
    #: Where the dice get their randomness.
    entropy: Callable[[EntropyConfig], EntropySource]
    clock: Clock = field(default_factory=MonotonicClock)
    #: The fakes behind the simulated set, to drive and read them; None for real parts.
    fakes: Fakes | None = None
    #: The TV over HDMI, opened only when the config's ``[tv]`` enables it.
    tv: Callable[[TvConfig], Panel] = open_tv

    @classmethod
    def real(cls, config: Config, *, clock: Clock | None = None) -> Backends:
        """The Pi's parts: the config's pin factory, /dev/i2c-N, SPI, the UART, /dev/hwrng."""
        from pitable.box.printing import box_printer
        from pitable.hw.gpio import pin_factory

        def spi_panel(d: DisplayConfig) -> Display:
            from luma.core.interface.serial import spi

            serial = spi(port=d.spi_port, device=d.spi_device or 0, gpio_DC=d.dc,
                         gpio_RST=d.reset)
            return open_panel(d.driver, serial, width=d.width, height=d.height,
                              rotate=d.rotate, contrast=d.contrast, where=d.location)

        box_clock = clock or MonotonicClock()
        return cls(
            name="real",
            pins=lambda: pin_factory(config.gpio.pin_factory),
            i2c=open_i2c_interface,
            mux_bus=mux_channel_bus,
            spi=spi_panel,
            printer=box_printer,
            entropy=lambda e: _open_entropy(e, box_clock),
            clock=box_clock,
        )

    @classmethod
    def simulated(
        cls,
        config: Config,
        *,
        clock: Clock | None = None,
    ) -> Backends:
        """Every part on a fake: gpiozero's MockFactory, a fake I2C bus with a fake
        controller where each display of ``config`` sits, the fake printer, and a
        :class:`~pitable.hw.clock.FakeClock` unless ``clock`` is given. The dice roll from
        the machine's own generator, as the box does; a test passes its own ``entropy``."""
        from pitable.box.printing import box_printer
        from pitable.hw.gpio import pin_factory

        fakes = Fakes(pin_factory("mock"), FakeI2C(config.i2c.speed_hz))

        def mux_bus(parent: int, address: int, channel: int) -> int:
            return SIM_MUX_BUS_BASE + channel

        for d in config.displays.all():
            speaks = CHIPS[d.driver].speaks
            if not d.enabled or speaks is None:
                continue
            bus_number = (SIM_SPI_BUS_BASE + (d.spi_device or 0) if d.interface == "spi"
                          else display_bus(d, config, mux_bus))
            bus = fakes.i2c.bus(bus_number)
            if d.address not in bus.devices:
                fakes.panels[d.name] = bus.attach(d.address, FakeOled(speaks, d.width, d.height))
                fakes.where[d.name] = (bus_number, d.address)

        def i2c(spec: I2CPanelSpec) -> I2CLink:
            return open_i2c_interface(spec, fakes.i2c.bus)

        def spi_panel(d: DisplayConfig) -> Display:
            if CHIPS[d.driver].speaks is None:
                # No fake decodes this chip: luma's own stand-in keeps the last image.
                from luma.core.device import dummy

                device = dummy(width=d.width, height=d.height, rotate=d.rotate, mode="1")
                fakes.panels[d.name] = device
                return device
            # Any other panel on SPI speaks the same bytes as on I2C: a fake bus of its own.
            serial = i2c(I2CPanelSpec(SIM_SPI_BUS_BASE + (d.spi_device or 0), d.address))
            return open_panel(d.driver, serial, width=d.width, height=d.height,
                              rotate=d.rotate, contrast=d.contrast, where=d.location)

        def printer(c: PrinterConfig) -> Printer | None:
            return box_printer(c, simulated=True)

        def tv(c: TvConfig) -> Panel:
            # luma's dummy device: shown pictures as a TV, and keeps the last one.
            device = simulated_tv(width=c.width, height=c.height)
            fakes.tv = device
            return device

        return cls(
            name="sim",
            pins=lambda: fakes.factory,
            i2c=i2c,
            mux_bus=mux_bus,
            spi=spi_panel,
            printer=printer,
            entropy=_open_entropy,
            clock=clock or FakeClock(),
            fakes=fakes,
            tv=tv,
        )

    def replace(self, **changes: Any) -> Backends:
        """This set with some openers changed, e.g. ``entropy=lambda _: SeededSource(7)``."""
        # Any, not object: mypy checks each value given to dataclasses.replace against the
        # type of its field.
        return dataclasses.replace(self, **changes)


def display_bus(
    d: DisplayConfig, config: Config, mux_bus: Callable[[int, int, int], int]
) -> int:
    """The I2C bus number of display ``d``: its mux channel's, its own, or the config's."""
    if d.mux_channel is not None and config.i2c.mux:
        return mux_bus(config.i2c.bus, config.i2c.mux_address, d.mux_channel)
    return d.bus if d.bus is not None else config.i2c.bus


def _open_entropy(e: EntropyConfig, clock: Clock | None = None) -> EntropySource:
    """The config's entropy, its device's deadline on ``clock`` (by default the system's:
    the simulator's fake clock stands still while the box's thread waits on a device)."""
    from pitable.hw.entropy import open_source

    return open_source(e.device, require=e.require_hwrng, min_entropy=e.min_entropy,
                       deadline_s=e.deadline_s, clock=clock)


#: What the environment variable may say, and the set each name gives.
_NAMED: dict[str, Callable[[Config], Backends]] = {
    "real": Backends.real,
    "sim": Backends.simulated,
}


def default_backends(config: Config, environ: Mapping[str, str] | None = None) -> Backends:
    """The global default: ``$PITABLE_BACKENDS`` (``real`` when unset or empty)."""
    env = os.environ if environ is None else environ
    name = env.get(ENVIRONMENT, "").strip().lower() or "real"
    try:
        chosen = _NAMED[name]
    except KeyError:
        raise ConfigError(
            f"{ENVIRONMENT}={env[ENVIRONMENT]!r}: expected one of {', '.join(_NAMED)}"
        ) from None
    return chosen(config)
