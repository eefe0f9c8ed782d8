"""The box's configuration: one TOML file read into frozen dataclasses.

Standard library only, because fast commands import it. The built-in :data:`DEFAULTS`
describe the reference wiring of ../shared/design.md; a file only has to name what differs.
Every error is a :class:`~pitable.errors.ConfigError` whose message starts with the dotted
key and says what was expected::

    displays.red.address: expected an I2C address 0x03 to 0x77, got 0x90
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

#: Where the box looks for its configuration when no path is given.
DEFAULT_CONFIG_PATH = Path("/etc/pitable/pitable.toml")

BusKind = Literal["i2c-mux", "i2c", "spi"]

#: Driver -> (width, height). luma.oled supports other geometries for some of these chips,
#: but the faces and the status screen are drawn for exactly these.
DRIVER_SIZES: dict[str, tuple[int, int]] = {
    "ssd1306": (128, 64),
    "sh1106": (128, 64),
    "ssd1309": (128, 64),
    "ssd1322": (256, 64),
}
DICE_DRIVERS = ("ssd1306", "sh1106")
STATUS_DRIVERS = ("ssd1306", "sh1106", "ssd1309", "ssd1322")
DICE_NAMES = ("green", "purple", "red")
DISPLAY_NAMES = (*DICE_NAMES, "status")


@dataclass(frozen=True)
class BoxConfig:
    """[box]: the game and the timing of the box's reactions."""

    title: str = "valley"
    mode: str = "table"
    hold_s: float = 1.0
    tumble_ms: int = 300
    blink_ms: int = 500
    state_dir: str = ""


@dataclass(frozen=True)
class GpioConfig:
    """[gpio]: which gpiozero pin factory drives the pins ("" = gpiozero's own choice)."""

    pin_factory: str = ""


@dataclass(frozen=True)
class EntropyConfig:
    """[entropy]: the hardware random generator and how much it must be trusted."""

    device: str = "/dev/hwrng"
    require_hwrng: bool = False
    min_entropy: float = 6.0


@dataclass(frozen=True)
class ButtonConfig:
    """[button]: the ROLL button."""

    pin: int = 17
    pull_up: bool = True
    bounce_ms: int = 20


@dataclass(frozen=True)
class EncoderConfig:
    """[encoder]: the rotary encoder with push, for the menus."""

    enabled: bool = True
    a: int = 5
    b: int = 6
    push: int = 13
    pull_up: bool = True


@dataclass(frozen=True)
class LedsConfig:
    """[leds]: the round LEDs, in order; an empty tuple means none are fitted."""

    pins: tuple[int, ...] = (12, 16, 20, 21, 26)
    active_high: bool = True


@dataclass(frozen=True)
class I2cConfig:
    """[i2c]: the bus of the displays, and the TCA9548A mux on it."""

    bus: int = 1
    mux: bool = True
    mux_address: int = 0x70
    mux_channels: int = 8
    speed_hz: int = 400_000


@dataclass(frozen=True)
class SpiConfig:
    """[spi]: the SPI port, used only by displays with ``interface = "spi"``."""

    port: int = 0


@dataclass(frozen=True)
class DisplayConfig:
    """[displays.NAME]: one OLED.

    The loader fills in what the file may leave out, so that this value alone says where
    the display is: ``mux_channel`` is set exactly when it sits behind the mux, ``bus``
    exactly when it is on a plain I2C bus, ``spi_device`` and ``dc`` exactly when it is on
    SPI (``spi_port`` copies ``[spi] port``). ``width`` and ``height`` follow the driver.
    """

    name: str
    driver: str = "ssd1306"
    interface: str = "i2c"
    width: int = 128
    height: int = 64
    address: int = 0x3C
    mux_channel: int | None = None
    bus: int | None = None
    spi_port: int = 0
    spi_device: int | None = None
    dc: int | None = None
    reset: int | None = None
    rotate: int = 0
    contrast: int = 255
    enabled: bool = True

    @property
    def bus_kind(self) -> BusKind:
        """``"i2c-mux"``, ``"i2c"`` (a plain bus such as /dev/i2c-4) or ``"spi"``."""
        if self.interface == "spi":
            return "spi"
        return "i2c-mux" if self.mux_channel is not None else "i2c"

    @property
    def location(self) -> str:
        """Where to find it, as a person would say: ``i2c-mux channel 3, 0x3c``."""
        kind = self.bus_kind
        if kind == "spi":
            where = f"spi{self.spi_port}.{self.spi_device} dc=GPIO {self.dc}"
            return where if self.reset is None else f"{where} reset=GPIO {self.reset}"
        if kind == "i2c-mux":
            return f"i2c-mux channel {self.mux_channel}, 0x{self.address:02x}"
        return f"/dev/i2c-{self.bus} 0x{self.address:02x}"


@dataclass(frozen=True)
class Displays:
    """[displays]: the three dice OLEDs and the status screen."""

    green: DisplayConfig = DisplayConfig("green", mux_channel=0)
    purple: DisplayConfig = DisplayConfig("purple", mux_channel=1)
    red: DisplayConfig = DisplayConfig("red", mux_channel=2)
    status: DisplayConfig = DisplayConfig("status", driver="ssd1309", mux_channel=3)

    def all(self) -> tuple[DisplayConfig, ...]:
        """The four displays, green, purple, red, status, enabled or not."""
        return (self.green, self.purple, self.red, self.status)

    def dice(self) -> tuple[DisplayConfig, ...]:
        """The three dice displays, green, purple, red."""
        return (self.green, self.purple, self.red)

    def enabled(self) -> tuple[DisplayConfig, ...]:
        return tuple(d for d in self.all() if d.enabled)


@dataclass(frozen=True)
class PrinterConfig:
    """[printer]: the serial thermal printer."""

    enabled: bool = True
    port: str = "/dev/serial0"
    baudrate: int = 19200
    paper_width_mm: int = 58
    image_command: str = "gsv0"
    line_time_ms: float = 30.0
    feed_time_ms: float = 2.0
    dtr_busy_pin: int = -1
    timeout_s: float = 5.0


@dataclass(frozen=True)
class Config:
    """The whole configuration; ``Config()`` is the reference wiring."""

    box: BoxConfig = field(default_factory=BoxConfig)
    gpio: GpioConfig = field(default_factory=GpioConfig)
    entropy: EntropyConfig = field(default_factory=EntropyConfig)
    button: ButtonConfig = field(default_factory=ButtonConfig)
    encoder: EncoderConfig = field(default_factory=EncoderConfig)
    leds: LedsConfig = field(default_factory=LedsConfig)
    i2c: I2cConfig = field(default_factory=I2cConfig)
    spi: SpiConfig = field(default_factory=SpiConfig)
    displays: Displays = field(default_factory=Displays)
    printer: PrinterConfig = field(default_factory=PrinterConfig)


#: The reference wiring: what the box uses when no file is found.
DEFAULTS = Config()
