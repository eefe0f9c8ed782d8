"""Build a box from a config: the real parts on a Pi, or the same parts on fakes anywhere.

The real and the simulated box differ only here, in what stands behind each part: gpiozero
with the Pi's pin factory or with its MockFactory; luma.oled on ``/dev/i2c-N`` or on a
:class:`~pitable.hw.fake_i2c.FakeBus` that decodes what the drivers send. Everything above
(the controller, the drawing, the rules) is the same code.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pitable.box.controller import Box
from pitable.box.parts import DisplaySlot
from pitable.config import Config, DisplayConfig
from pitable.hw.entropy import open_source
from pitable.hw.fake_i2c import FakeI2C, FakeOled
from pitable.hw.gpio import Controls, RoundLeds, pin_factory
from pitable.hw.oled import I2CPanelSpec, mux_channel_bus, open_i2c_interface, open_panel
from pitable.rules import Die

log = logging.getLogger("pitable.box")

#: Fake bus numbers of the mux channels in the simulator (the real ones come from sysfs).
SIM_MUX_BUS_BASE = 10


@dataclass
class Fakes:
    """What stands in for the hardware in the simulator and the tests."""

    factory: Any
    i2c: FakeI2C
    #: Each display's fake controller (or luma's dummy device for an SSD1322), by name.
    panels: dict[str, Any] = field(default_factory=dict)
    #: Each display's bus and address, by name, to unplug it.
    where: dict[str, tuple[int, int]] = field(default_factory=dict)

    def image(self, name: str) -> Any:
        panel = self.panels[name]
        return panel.image() if isinstance(panel, FakeOled) else panel.image

    def unplug(self, name: str) -> None:
        bus, address = self.where[name]
        self.i2c.bus(bus).unplug(address)

    def replug(self, name: str) -> None:
        bus, address = self.where[name]
        self.i2c.bus(bus).replug(address)
        self.panels[name] = self.i2c.bus(bus).devices[address]

    def pin(self, number: int) -> Any:
        return self.factory.pin(number)


@dataclass
class BuiltBox:
    box: Box
    controls: Controls
    leds: RoundLeds | None
    fakes: Fakes | None = None

    def close(self) -> None:
        self.box.stop()
        if self.box.printer is not None:
            self.box.printer.close()
        self.controls.close()
        if self.leds is not None:
            self.leds.close()
        if self.box.store is not None:
            self.box.store.close()


#: Fake bus numbers of SPI panels in the simulator: one per chip select.
SIM_SPI_BUS_BASE = 20


def _bus_number(d: DisplayConfig, config: Config, simulated: bool) -> int:
    if d.interface == "spi":
        # Only the simulator asks: it stands each SPI panel on a fake bus of its own.
        return SIM_SPI_BUS_BASE + (d.spi_device or 0)
    if d.mux_channel is not None and config.i2c.mux:
        if simulated:
            return SIM_MUX_BUS_BASE + d.mux_channel
        return mux_channel_bus(config.i2c.bus, config.i2c.mux_address, d.mux_channel)
    return d.bus if d.bus is not None else config.i2c.bus


def _opener(d: DisplayConfig, config: Config, fakes: Fakes | None) -> Callable[[], Any]:
    """How to (re)open one display: luma on its bus, or on the fake bus in the simulator."""

    def open_real() -> Any:
        if d.interface == "spi":
            from luma.core.interface.serial import spi

            serial = spi(port=d.spi_port, device=d.spi_device or 0, gpio_DC=d.dc,
                         gpio_RST=d.reset)
        else:
            spec = I2CPanelSpec(_bus_number(d, config, False), d.address)
            serial = open_i2c_interface(spec)
        return open_panel(d.driver, serial, width=d.width, height=d.height, rotate=d.rotate,
                          contrast=d.contrast, where=d.location)

    def open_fake() -> Any:
        assert fakes is not None
        if d.driver == "ssd1322":
            # luma's own stand-in keeps the last image it was given.
            from luma.core.device import dummy

            device = dummy(width=d.width, height=d.height, mode="1")
            fakes.panels[d.name] = device
            return device
        spec = I2CPanelSpec(_bus_number(d, config, True), d.address)
        bus = fakes.i2c.bus(spec.bus)
        if spec.address not in bus.devices:
            kind = "sh1106" if d.driver == "sh1106" else "ssd1306"
            fakes.panels[d.name] = bus.attach(spec.address, FakeOled(kind, d.width, d.height))
            fakes.where[d.name] = (spec.bus, spec.address)
        serial = open_i2c_interface(spec, fakes.i2c.bus)
        return open_panel(d.driver, serial, width=d.width, height=d.height, rotate=d.rotate,
                          contrast=d.contrast, where=d.location)

    return open_fake if fakes is not None else open_real


def build_box(
    config: Config,
    *,
    simulated: bool = False,
    clock: Callable[[], float] = time.monotonic,
    entropy: Any = None,
    store: Any = None,
    printer: Any = None,
) -> BuiltBox:
    """Wire every part named in ``config`` to one :class:`Box`."""
    fakes = None
    if simulated:
        fakes = Fakes(pin_factory("mock"), FakeI2C(config.i2c.speed_hz))
        factory = fakes.factory
    else:
        factory = pin_factory(config.gpio.pin_factory)
    if entropy is None:
        e = config.entropy
        entropy = open_source(e.device, require=e.require_hwrng, min_entropy=e.min_entropy)
    slots: dict[str, DisplaySlot] = {}
    for d in (config.displays.green, config.displays.purple, config.displays.red,
              config.displays.status):
        if d.enabled:
            slots[d.name] = DisplaySlot(f"{d.name} die" if d.name != "status" else "status",
                                        _opener(d, config, fakes), (d.width, d.height), clock)
    dice = {die: slots[str(die)] for die in Die if str(die) in slots}
    status = slots.get("status") or DisplaySlot(
        "status", lambda: _Nowhere((128, 64)), (128, 64), clock
    )
    leds = RoundLeds(config.leds.pins, active_high=config.leds.active_high, factory=factory)
    box = Box(dice, status, entropy, clock, config.box, leds=leds, store=store,
              printer=printer)
    if printer is not None:
        printer.post = box.post
    enc = config.encoder
    try:
        controls = Controls(
            box.post,
            button=config.button.pin,
            pull_up=config.button.pull_up,
            bounce_s=config.button.bounce_ms / 1000,
            encoder=(enc.a, enc.b, enc.push) if enc.enabled else None,
            encoder_pull_up=enc.pull_up,
            factory=factory,
            clock=clock,
        )
    except Exception:
        leds.close()
        raise
    return BuiltBox(box, controls, leds, fakes)


class _Nowhere:
    """A status screen that is not fitted: the box runs without one."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.mode = "1"

    def display(self, image: Any) -> None:
        pass
