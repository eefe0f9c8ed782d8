"""The box's configuration: one TOML file read into frozen dataclasses.

Standard library only, because fast commands import it. The built-in :data:`DEFAULTS`
describe the reference wiring of ../shared/design.md; a file only has to name what differs.

Every key is declared once, as a dataclass field made by :func:`setting`: its default, its
doc, and what it may hold (a range with its unit, a list of choices, a GPIO, a check of
its own). One parser (:func:`config_from_dict`), one validator (:func:`validate`) and one
commented writer (:meth:`Config.to_toml`) read those declarations; only the checks that
join several parts (pins and buses shared) are written by hand.

Every error is a :class:`~pitable.errors.ConfigError` whose message starts with the dotted
key and says what was expected::

    displays.red.address: expected an I2C address 0x03 to 0x77, got 0x90
"""

from __future__ import annotations

import os
import re
import resource
import stat
import tomllib
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import Field, InitVar, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pitable.errors import ConfigError
from pitable.hw.chips import CHIPS, PAPER_DOTS
from pitable.i18n import LANGUAGES, language_of
from pitable.pins import (
    HEADER_GPIOS,
    ID_PINS,
    SPI_PINS,
)
from pitable.settings import (
    GPIO_RULE,
    USABLE_RANGE,
    Spec,
    hex_value,
    or_words,
    setting,
    show_value,
    spec_of,
    table_fields,
)
from pitable.settings import (
    table_doc as _doc,
)
from pitable.wiring import (
    added_sections,
    bus_pins,
    parts,
    pin_claims,
    registered_part,
    reserve_tables,
)
from pitable.xdg import DEFAULT_CONFIG_FILE

#: Where the box looks for its configuration when no path is given.
DEFAULT_CONFIG_PATH = Path(DEFAULT_CONFIG_FILE)

__all__ = ["DEFAULT_CONFIG_PATH"]  # where the box looks for its configuration: xdg's

#: The largest configuration file read: a real one is a few kilobytes.
MAX_CONFIG_BYTES = 1_000_000

BusKind = Literal["i2c-mux", "i2c", "spi"]

#: Driver -> (width, height), and which drivers may be a die or the status screen: the
#: chips' own facts (:data:`~pitable.hw.chips.CHIPS`).
DRIVER_SIZES: dict[str, tuple[int, int]] = {
    name: (chip.width, chip.height) for name, chip in CHIPS.items()
}
DICE_DRIVERS = tuple(name for name, chip in CHIPS.items() if chip.die)
STATUS_DRIVERS = tuple(CHIPS)
DICE_NAMES = ("green", "purple", "red")
DISPLAY_NAMES = (*DICE_NAMES, "status")

PIN_FACTORIES = ("", "lgpio", "rpigpio", "pigpio", "native", "mock")
BAUDRATES = (9600, 19200, 38400, 57600, 115200)
#: The fastest rate a printer at a URL may be paced to: a gigabit network, 10 bits a byte.
URL_BAUDRATE_MAX = 1_000_000_000
MODES = ("table", "solo")
IMAGE_COMMANDS = ("gsv0", "dc2")
UART_OVERLAYS = ("disable-bt", "miniuart-bt")
_DEFAULT_MUX_CHANNELS = {"green": 0, "purple": 1, "red": 2, "status": 3}
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


# --- the declaration of a key ------------------------------------------------------------


#: The pyserial URLs the printer's port is checked against: the form each takes, an example,
#: and the options of its query (``?timeout=3``) with the values each takes (None: a number
#: of seconds; (): no value). pyserial's ``logging`` option is left out: it configures the
#: root logger of the whole process, which is pitable's.
_PORT_URLS: dict[str, tuple[str, str, dict[str, tuple[str, ...] | None]]] = {
    "socket": ("socket://HOST:PORT", "socket://printer.local:9100", {}),
    "rfc2217": ("rfc2217://HOST:PORT", "rfc2217://192.168.1.20:2217",
                {"ign_set_control": (), "poll_modem": (), "timeout": None}),
    "loop": ("loop://", "loop://", {}),
}
#: pyserial's other URL handlers a printer may sit behind (a USB adapter found by its id,
#: another Serial class, a CP2110 bridge): passed to pyserial as written, which checks them.
#: ``spy://`` is not one: it writes a trace of every byte to stderr or to a file it names.
_OTHER_PORT_URLS = ("hwgrep", "alt", "cp2110")
_NETLOC = re.compile(r"(?:\[(?P<v6>[^\]]*)\]|(?P<host>[^:\[\]]*))(?::(?P<port>.*))?", re.DOTALL)


def _check_url_or_path(key: str, value: str) -> None:
    """A device path, or a pyserial URL that pyserial will open: for socket:// and
    rfc2217:// a host and a port of 1 to 65535, and only the options each takes.

    Written by hand: pyserial's own parsing of a wrong URL answers with its internals
    (``'<=' not supported between instances of 'int' and 'NoneType'`` for a missing port,
    ``'debug|info|warning|error'``, a KeyError from formatting its own message).
    """
    shown = show_value(value if len(value) <= 40 else value[:37] + "...")
    if value.startswith("/"):
        return
    match = _URL.match(value)
    if not match:
        raise _fail(
            key,
            "expected a device path such as /dev/serial0 or a pyserial URL such as"
            f" socket://host:9100, got {shown}",
        )
    scheme = match.group(0)[:-3].lower()
    if scheme in _OTHER_PORT_URLS:
        if len(value) == len(match.group(0)):
            raise _fail(key, f"nothing after {scheme}://: expected what pyserial's {scheme}://"
                        f" handler opens, got {shown}")
        return
    if scheme not in _PORT_URLS:
        known = ", ".join(f"{s}://" for s in (*_PORT_URLS, *_OTHER_PORT_URLS))
        raise _fail(key, f"unknown URL scheme {scheme + '://'!r}: expected a device path or"
                    f" one of {known}, got {shown}")
    form, example, options = _PORT_URLS[scheme]

    def wrong(reason: str) -> ConfigError:
        return _fail(key, f"{reason}: expected {form} such as {example}, got {shown}")

    rest = value[len(match.group(0)):]
    where, _, query = rest.partition("?")
    if "#" in query or "#" in where:
        raise wrong("a URL with a # fragment")
    if form == "loop://":
        if where:
            raise wrong(f"{where!r} after loop://")
    else:
        _check_host_port(where, wrong)
    for option in query.split("&") if query else ():
        name, equals, given = option.partition("=")
        if not options:
            raise wrong(f"{scheme}:// takes no options")
        if name not in options:
            raise wrong(f"unknown option {name[:20]!r}" if name else "an empty option")
        allowed = options[name]
        if allowed == ():
            if equals:
                raise wrong(f"option {name!r} takes no value")
        elif allowed is None:
            if not re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,6})?", given):
                raise wrong(f"option {name!r} takes a number of seconds")
        elif given not in allowed:
            raise wrong(f"option {name!r} takes {' or '.join(allowed)}")


def _check_host_port(where: str, wrong: Callable[[str], ConfigError]) -> None:
    """The ``HOST:PORT`` of a network URL: a host name or an IP address (IPv6 in brackets),
    and a port of 1 to 65535."""
    import ipaddress

    if "/" in where:
        raise wrong("a path after the port")
    found = _NETLOC.fullmatch(where)
    if found is None or not (found["v6"] or found["host"]):
        raise wrong("no host")
    if found["v6"] is not None:
        try:
            ipaddress.IPv6Address(found["v6"])
        except ValueError:
            raise wrong(f"[{found['v6']}] is not an IPv6 address") from None
    else:
        host = found["host"]
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            if not _HOST_NAME.fullmatch(host) or len(host) > 253:
                raise wrong(f"{host!r} is not a host name nor an IP address") from None
    port = found["port"]
    if port is None or port == "":
        raise wrong("no port")
    if not (port.isascii() and port.isdigit()):
        raise wrong(f"the port {port[:12]!r} is not a number")
    if not 1 <= int(port[:6]) <= 65535:
        raise wrong(f"the port {port[:12]} is not 1 to 65535")


def _check_device(key: str, value: str) -> None:
    if not value:
        raise _fail(key, 'expected a device path such as /dev/hwrng, got ""')


def _check_led_count(key: str, value: tuple[int, ...]) -> None:
    if len(value) > 25:
        raise _fail(key, f"expected 0 to 25 LEDs, got {len(value)}")


def _check_language(key: str, value: str) -> None:
    if value and language_of(value) is None:
        raise _fail(key, f"expected one of {', '.join(LANGUAGES)} (or \"\"), got {value!r}")


# --- the tables --------------------------------------------------------------------------


@dataclass(frozen=True)
class BoxConfig:
    """[box]: the game and the timing of the box's reactions."""

    title: str | None = setting(
        None,
        "The game, named as for `pitable options GAME` (a title's key or one of its other"
        " names). Left out: the first title of the rules.",
    )
    mode: str = setting(
        "table", "table: one roll for everyone; solo: the LEDs count the rounds.",
        choices=MODES,
    )
    hold_s: float = setting(
        1.0, "How long the ROLL button must be held to open the menu.",
        low=0.3, high=5, unit=" s",
    )
    tumble_ms: int = setting(
        300, "Length of the dice's tumble animation (0: none).", low=0, high=2000, unit=" ms"
    )
    blink_ms: int = setting(
        500, "Blink period of a hazard warning.", low=100, high=2000, unit=" ms"
    )
    state_dir: str = setting(
        "", 'Where the game in progress is saved ("": the default directory).'
    )
    language: str = setting(
        "", "The language of the box's words (fr, or with a region, fr_FR); the box's menu"
        ' changes it. "": the environment\'s (LC_ALL, LC_MESSAGES, LANG, LANGUAGE), else en.',
        check=_check_language,
    )


@dataclass(frozen=True)
class GpioConfig:
    """[gpio]: which gpiozero pin factory drives the pins ("" = gpiozero's own choice)."""

    pin_factory: str = setting(
        "",
        '"" lets gpiozero choose (lgpio on a Pi 5, RPi.GPIO on older Pis), or name one.',
        choices=PIN_FACTORIES,
    )


@dataclass(frozen=True)
class EntropyConfig:
    """[entropy]: the hardware random generator and how much it must be trusted."""

    device: str = setting(
        "/dev/hwrng", "The hardware random number generator.", check=_check_device
    )
    require_hwrng: bool = setting(
        False, "true: refuse to roll without it; false: fall back to the OS generator."
    )
    min_entropy: float = setting(
        6.0, "Assessed bits of entropy per byte for the health tests.",
        low=0, high=8, low_open=True, what="bits per byte",
    )
    deadline_s: float = setting(
        2.0, "How long the generator may give nothing before it counts as failed.",
        low=0, high=60, low_open=True, unit=" s",
    )


@dataclass(frozen=True)
class ButtonConfig:
    """[button]: the ROLL button."""

    pin: int = setting(17, "The GPIO of the ROLL button.", gpio=True, signal="switch")
    pull_up: bool = setting(True, "true: wired to ground, with the Pi's pull-up.")
    bounce_ms: int = setting(20, "Debounce time.", low=0, high=200, unit=" ms")


@dataclass(frozen=True)
class EncoderConfig:
    """[encoder]: the rotary encoder with push, for the menus."""

    enabled: bool = setting(True, "false: no encoder fitted.")
    a: int = setting(5, "The GPIO of the encoder's A output.", gpio=True, signal="A")
    b: int = setting(6, "The GPIO of the encoder's B output.", gpio=True, signal="B")
    push: int = setting(13, "The GPIO of the encoder's push switch.", gpio=True,
                       signal="push")
    pull_up: bool = setting(True, "true: wired to ground, with the Pi's pull-ups.")


@dataclass(frozen=True)
class LedsConfig:
    """[leds]: the round LEDs, in order; an empty tuple means none are fitted."""

    pins: tuple[int, ...] = setting(
        (12, 16, 20, 21, 26), "GPIOs in order, 0 to 25 of them ([]: no LEDs).",
        gpio=True, signal="LED {n}", check=_check_led_count,
    )
    active_high: bool = setting(True, "true: a high pin lights the LED.")


@dataclass(frozen=True)
class I2cConfig:
    """[i2c]: the bus of the displays, and the TCA9548A mux on it."""

    bus: int = setting(
        1, "The mux's parent bus (I2C1 is GPIO 2 SDA, GPIO 3 SCL).",
        low=0, what="an I2C bus number",
    )
    mux: bool = setting(
        True,
        "true: each display on its own mux channel (kernel overlay i2c-mux,pca9548);"
        " false: each display names its own bus.",
    )
    mux_address: int = setting(
        0x70, "The mux's address.", low=0x70, high=0x77, hex=True, what="a TCA9548A address"
    )
    mux_channels: int = setting(
        8, "How many channels the mux has.", choices={8: "TCA9548A", 4: "PCA9546"}
    )
    speed_hz: int = setting(
        400_000, "The bus clock set in config.txt.", low=10_000, high=1_000_000, unit=" Hz"
    )


@dataclass(frozen=True)
class SpiConfig:
    """[spi]: the SPI port, used only by displays with ``interface = "spi"``."""

    port: int = setting(0, "SPI0 is GPIO 7 to 11; SPI1 is GPIO 17 to 21.", choices=tuple(SPI_PINS))


def _drivers_doc() -> str:
    """What the driver key takes, said from the chips' facts."""
    die_size = DRIVER_SIZES[DICE_DRIVERS[0]]

    def shown(name: str) -> str:
        chip = CHIPS[name]
        notes = [f"{chip.width}x{chip.height}"] if DRIVER_SIZES[name] != die_size else []
        if len(chip.interfaces) == 1:
            notes.append(f"on {chip.interfaces[0].upper()} only")
        return f'"{name}"' + (f" ({', '.join(notes)})" if notes else "")

    dice = " or ".join(shown(n) for n in DICE_DRIVERS)
    others = [shown(n) for n in STATUS_DRIVERS if n not in DICE_DRIVERS]
    also = ", ".join(others[:-1]) + " and " + others[-1] if len(others) > 1 else others[0]
    return f"The chip: {dice} for a die; the status screen also takes {also}."


@dataclass(frozen=True)
class DisplayConfig:
    """[displays.NAME]: one OLED.

    The loader fills in what the file may leave out, so that this value alone says where
    the display is: ``mux_channel`` is set exactly when it sits behind the mux, ``bus``
    exactly when it is on a plain I2C bus, ``spi_device`` and ``dc`` exactly when it is on
    SPI (``spi_port`` copies ``[spi] port``). ``width`` and ``height`` follow the driver.
    """

    name: str = setting("", in_file=False)
    driver: str = setting(
        "ssd1306",
        _drivers_doc(),
        choices=STATUS_DRIVERS, fold_case=True,
    )
    interface: str = setting(
        "i2c", "How it is wired.", choices=("i2c", "spi"), fold_case=True
    )
    width: int = setting(128, "Follows from the driver; given, it must match.")
    height: int = setting(64, "Follows from the driver; given, it must match.")
    address: int = setting(
        0x3C, "On I2C: its address.", low=0x03, high=0x77, hex=True, what="an I2C address"
    )
    mux_channel: int | None = setting(
        None, "On I2C with i2c.mux = true: its channel, 0 to i2c.mux_channels - 1."
    )
    bus: int | None = setting(
        None,
        "On I2C with i2c.mux = false: its bus (for example the Pi 4's extra buses 3 to 6).",
        low=0, what="an I2C bus number",
    )
    spi_port: int = setting(0, in_file=False)
    spi_device: int | None = setting(
        None, 'On SPI (interface = "spi"): its chip select.', choices=(0, 1)
    )
    dc: int | None = setting(None, "On SPI: the GPIO wired to its D/C pin.", gpio=True)
    reset: int | None = setting(None, "On SPI, optional: the GPIO wired to its reset pin.",
                                gpio=True)
    rotate: int = setting(
        0,
        "Quarter turns clockwise of what it shows, for a panel mounted turned: 1 or 3 show"
        " a 128x64 panel's pictures 64 wide and 128 high.",
        choices=(0, 1, 2, 3),
    )
    contrast: int = setting(255, "Brightness.", low=0, high=255)
    enabled: bool = setting(True, "false leaves the display out.")

    @property
    def picture_size(self) -> tuple[int, int]:
        """The size of the pictures drawn for it, as its viewer sees them: its width and
        height, swapped when it is turned a quarter (``rotate`` 1 or 3)."""
        return (self.height, self.width) if self.rotate % 2 else (self.width, self.height)

    @property
    def part_name(self) -> str:
        """How people call the part: "green die", "status screen"."""
        return "status screen" if self.name == "status" else f"{self.name} die"

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
    """[printer]: the serial thermal printer, every setting its driver uses.

    The box hands them to the driver as :class:`~pitable.hw.printer.PrinterSettings`
    (:func:`~pitable.box.backends.printer_settings`); :func:`printer_config` puts a command
    line's options on top of the file's.
    """

    enabled: bool = setting(True, "false: no printer fitted.")
    port: str = setting(
        "/dev/serial0",
        "A serial device (/dev/serial0 is the UART on GPIO 14 and 15) or a pyserial URL"
        " such as socket://host:9100.",
        check=_check_url_or_path,
    )
    baudrate: int = setting(
        19200,
        "As printed on the printer's self-test page. A network printer (socket://...) takes"
        f" any rate from {BAUDRATES[0]} to {URL_BAUDRATE_MAX} (a gigabit network), which only"
        " paces the writes.",
        choices=BAUDRATES, choices_if=lambda p: not _URL.match(p.port),
        low=BAUDRATES[0], high=URL_BAUDRATE_MAX,
    )
    paper_width_mm: int = setting(
        58, "The paper roll's width (58 mm prints 384 dots, 80 mm 576).",
        choices=tuple(PAPER_DOTS),
    )
    image_command: str = setting(
        "gsv0",
        '"gsv0" (ESC/POS GS v 0 raster) or "dc2" (DC2 * bitmaps, for the Adafruit/CSN-A2'
        " family).",
        choices=IMAGE_COMMANDS,
    )
    line_time_ms: float = setting(
        30.0, "Time the printer needs per printed dot row.", low=0, high=1000, unit=" ms"
    )
    feed_time_ms: float = setting(
        2.0, "Time the printer needs per dot row fed.", low=0, high=1000, unit=" ms"
    )
    dtr_busy_pin: int | None = setting(
        None,
        "The GPIO wired to the printer's DTR busy line (4 on the reference wiring); left"
        " out, writes are paced by the two times above.",
        gpio=True, signal="DTR busy",
        # `config show` once wrote -1 for a busy line that is not wired.
        legacy_unset=-1,
    )
    timeout_s: float = setting(
        5.0, "A write, or the busy line, that hangs this long fails the print.",
        low=0, high=60, low_open=True, unit=" s",
    )
    heat_dots: int = setting(
        11, "dc2 printers: heating dots (ESC 7); more is faster.", low=0, high=255
    )
    heat_time: int = setting(
        120, "dc2 printers: heating time (ESC 7); more is darker.", low=0, high=255
    )
    heat_interval: int = setting(
        40, "dc2 printers: heating interval (ESC 7).", low=0, high=255
    )
    tear_feed_mm: float = setting(
        12.0, "Paper fed after a sheet, so that it clears the tear bar.",
        low=0, high=100, unit=" mm",
    )
    uart_overlay: str = setting(
        "disable-bt",
        'How the boot config frees the PL011 UART on GPIO 14/15 for the printer:'
        ' "disable-bt" (Bluetooth off) or "miniuart-bt" (Bluetooth on the mini UART).',
        choices=UART_OVERLAYS,
    )

    @property
    def dots(self) -> int:
        """The printable width in dots."""
        return PAPER_DOTS[self.paper_width_mm]


def _check_framebuffer(key: str, value: str) -> None:
    if not re.fullmatch(r"/dev/fb\d{1,2}", value):
        raise _fail(key, f"expected a framebuffer device such as /dev/fb0, got {show_value(value)}")


@dataclass(frozen=True)
class TvConfig:
    """[tv]: a TV or monitor on the Pi's HDMI port, showing the roll to the whole table."""

    enabled: bool = setting(False, "true: draw the table's faceplate on the HDMI framebuffer.")
    device: str = setting(
        "/dev/fb0", "The HDMI framebuffer (luma.core's linux_framebuffer draws on it).",
        check=_check_framebuffer,
    )
    bgr: bool = setting(
        True,
        "true: the framebuffer keeps its pixels blue first, as a Pi's HDMI framebuffer does at"
        " 24 and 32 bits a pixel; false if red and blue come out swapped. 16-bit ones ignore it.",
    )
    width: int = setting(
        1920, "The picture's width where no framebuffer gives one (the simulator, --tv-png).",
        low=320, high=3840, unit=" px",
    )
    height: int = setting(
        1080, "The picture's height where no framebuffer gives one.",
        low=240, high=2160, unit=" px",
    )


def _check_bind(key: str, value: str) -> None:
    import ipaddress

    try:
        ipaddress.ip_address(value)
    except ValueError:
        raise _fail(
            key,
            "expected an IP address to listen on, such as 0.0.0.0 (every IPv4 address of"
            f" the Pi), :: (every address) or 127.0.0.1 (this machine only),"
            f" got {show_value(value)}",
        ) from None


def _check_pin(key: str, value: str) -> None:
    if value and not (value.isascii() and value.isdigit() and 4 <= len(value) <= 6):
        raise _fail(key, 'expected "" (a new PIN each boot) or 4 to 6 digits,'
                    f" got {show_value(value)}")


#: A host name: dot-separated labels of letters, digits and inner hyphens.
_HOST_NAME = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*\.?",
                        re.IGNORECASE)


def _check_names(key: str, value: tuple[str, ...]) -> None:
    for i, name in enumerate(value):
        if not _HOST_NAME.fullmatch(name) or len(name) > 253:
            raise _fail(f"{key}[{i}]", f"expected a host name such as dice.example.org,"
                        f" got {show_value(name)}")


@dataclass(frozen=True)
class WebConfig:
    """[web]: the table's page on the local network; off unless enabled."""

    enabled: bool = setting(
        False,
        "true: serve the table's page (the dice, what they allow, the last rolls) to every"
        " phone on the network; rolling and new games from it need the PIN.",
    )
    bind: str = setting(
        "0.0.0.0",
        "The address to listen on: 0.0.0.0 every IPv4 address of the Pi, :: every address,"
        " 127.0.0.1 this machine only.",
        check=_check_bind,
    )
    # The service runs without capabilities, so it cannot take a port below 1024.
    port: int = setting(8080, "The TCP port of the page.", low=1024, high=65535)
    pin: str = setting(
        "",
        'The PIN that rolls and starts games from the page: "" a new random one at each'
        " start (the log and the box's menu show it), or 4 to 6 digits.",
        check=_check_pin,
    )
    names: tuple[str, ...] = setting(
        (),
        "Host names the page answers to besides the Pi's IP addresses, its own name and"
        " NAME.local (for a name of your DNS); any other Host is refused.",
        check=_check_names,
    )


#: Descriptors left to the box whatever the page takes: the fonts, the store and its
#: journal, the buses and pins, the log, the threads' pipes (the sim uses about 40).
BOX_RESERVE = 160
#: How many connections the accept loop takes in one go, each a descriptor until the
#: budget has looked at it (uvicorn's default of 2048 would overrun any budget).
BACKLOG = 64


@dataclass(frozen=True)
class PageLimits:
    """The page's budgets (``pitable.web.budget`` enforces them); the defaults are the box's,
    not keys of the file: ``pitable doctor`` checks the service's descriptor limit holds them."""

    #: Event streams in all (a club night is well under this), and from one client.
    listeners: int = 500
    listeners_per_client: int = 8
    #: Other connections (the page, its assets, the actions, and a stream until its
    #: headers are in) in all, and from one client: a browser opens at most six to a host.
    connections: int = 512
    connections_per_client: int = 16
    #: Seconds to send a request's headers, and its body.
    header_s: float = 5.0
    body_s: float = 5.0
    #: Seconds a kept-alive connection may wait for its next request.
    idle_s: float = 2.0

    def fitted(self, nofile: int | None = None) -> PageLimits:
        """These limits, made smaller where the descriptor limit ``nofile`` (default:
        this process's soft ``RLIMIT_NOFILE``) could not hold them with the box's reserve
        and a full accept backlog beside them."""
        if nofile is None:
            nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        room = nofile - BOX_RESERVE - 2 * BACKLOG
        wanted = self.listeners + self.connections
        if room >= wanted:
            return self
        room = max(room, 16)
        listeners = max(1, room * self.listeners // wanted)
        return replace(self, listeners=listeners, connections=max(8, room - listeners),
                       listeners_per_client=min(self.listeners_per_client, listeners))


@dataclass(frozen=True)
class Config:
    """The whole configuration; ``Config()`` is the reference wiring."""

    box: BoxConfig = field(
        default_factory=BoxConfig, metadata=_doc("The game and how the box reacts.")
    )
    gpio: GpioConfig = field(default_factory=GpioConfig, metadata=_doc("How the pins are driven."))
    entropy: EntropyConfig = field(
        default_factory=EntropyConfig, metadata=_doc("Where the dice's randomness comes from.")
    )
    button: ButtonConfig = field(default_factory=ButtonConfig, metadata=_doc("The ROLL button."))
    encoder: EncoderConfig = field(
        default_factory=EncoderConfig,
        metadata=_doc("The rotary encoder with push, for the menus."),
    )
    leds: LedsConfig = field(
        default_factory=LedsConfig,
        metadata=_doc("The round LEDs of a solo game, each through a resistor."),
    )
    i2c: I2cConfig = field(
        default_factory=I2cConfig,
        metadata=_doc("The displays' I2C bus and the TCA9548A mux on it."),
    )
    spi: SpiConfig = field(
        default_factory=SpiConfig,
        metadata=_doc('Used only by a display with interface = "spi".'),
    )
    displays: Displays = field(
        default_factory=Displays,
        metadata=_doc(
            "The dice OLEDs (green, purple, red) and the status screen, one table each."
        ),
    )
    printer: PrinterConfig = field(
        default_factory=PrinterConfig, metadata=_doc("The thermal printer.")
    )
    tv: TvConfig = field(
        default_factory=TvConfig, metadata=_doc("A TV over HDMI showing the roll to the table.")
    )
    web: WebConfig = field(
        default_factory=WebConfig,
        metadata=_doc("The table's web page on the local network (off by default)."),
    )
    #: The tables of the registered parts that are not built in, by name (a part left out
    #: has its defaults). Not a field: the built-in tables are the fields, and a part may
    #: be registered after :data:`DEFAULTS` is made; ``dataclasses.replace`` keeps them.
    added_tables: InitVar[Mapping[str, Any] | None] = None

    def __post_init__(self, added_tables: Mapping[str, Any] | None) -> None:
        object.__setattr__(self, "added_tables", dict(added_tables or {}))

    def to_toml(self) -> str:
        """This configuration as a commented TOML file that loads back to an equal one."""
        return _to_toml(self)

    def part_table(self, name: str) -> Any:
        """The table ``[name]``: a built-in one, or a registered part's (its defaults when
        the file left it out)."""
        if name in SECTIONS:
            return getattr(self, name)
        added: Mapping[str, Any] = self.__dict__["added_tables"]
        if name in added:
            return added[name]
        table = registered_part(name).table
        if table is None:
            raise KeyError(name)
        return table()

    def __eq__(self, other: object) -> bool:
        # The registered parts' tables are kept beside the fields (a part registered
        # after DEFAULTS was made still has its table) and compared with them.
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Config)
        return all(getattr(self, f.name) == getattr(other, f.name) for f in fields(self)) and all(
            self.part_table(name) == other.part_table(name) for name in added_sections()
        )

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in fields(self)))


#: The reference wiring: what the box uses when no file is found.
DEFAULTS = Config()

#: The tables of the file, by name, each with its dataclass.
SECTIONS: dict[str, type] = {f.name: typing.cast(type, f.default_factory) for f in fields(Config)}
reserve_tables(SECTIONS)


def printer_config(base: PrinterConfig, **overrides: Any) -> PrinterConfig:
    """``base`` with ``overrides`` on top (None leaves a setting as it is), checked.

    The one place where the printer's settings are made from the config, for the box and
    for ``pitable print``'s options.
    """
    changed = replace(base, **{k: v for k, v in overrides.items() if v is not None})
    _check_table(changed, "printer")
    return changed


# --- loading ----------------------------------------------------------------------------


class LoadedConfig(NamedTuple):
    """A configuration and the file it came from (None: the built-in defaults)."""

    config: Config
    source: Path | None


def read_regular_file(path: str | Path, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file at ``path``, refusing FIFOs, devices, directories and
    files larger than ``limit`` bytes.

    Opened without blocking, so that a FIFO nobody writes to is refused rather than waited
    on, then checked on the open descriptor (no gap between the check and the read), and
    read with a bound: a file that grows while read is still refused past ``limit``.
    Raises OSError (the caller words it) or ValueError with one line saying what is wrong.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(f"is a directory, not a {what}")
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"is {file_kind(info.st_mode)}, not a regular {what}")
        if info.st_size > limit:
            raise ValueError(f"{info.st_size:,} bytes: a {what} holds at most {limit:,}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ValueError(f"more than {limit:,} bytes: a {what} holds at most {limit:,}")
        return b"".join(chunks)
    finally:
        os.close(fd)


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is: a FIFO, a device, a socket."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def load_config(path: str | Path | None) -> Config:
    """Read and validate the file at ``path``; None gives the built-in :data:`DEFAULTS`.

    A path given explicitly must exist. Errors read ``<file>: <key>: <what>``.
    """
    if path is None:
        return DEFAULTS
    if not str(path):
        raise ConfigError('"": expected the path of a TOML file')
    path = Path(path)
    try:
        raw = read_regular_file(path, MAX_CONFIG_BYTES, "TOML file")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a TOML file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:  # a FIFO, a device, too large
        raise ConfigError(f"{path}: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        return loads_config(text)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load_default_or(path: str | Path | None) -> LoadedConfig:
    """The box's configuration: ``path`` if given (it must exist), else
    :data:`DEFAULT_CONFIG_PATH` if that file exists, else the built-in defaults.

    ``source`` tells the caller which of the three it got.
    """
    if path is not None:
        return LoadedConfig(load_config(path), Path(path))
    if DEFAULT_CONFIG_PATH.exists():
        return LoadedConfig(load_config(DEFAULT_CONFIG_PATH), DEFAULT_CONFIG_PATH)
    return LoadedConfig(DEFAULTS, None)


def loads_config(text: str) -> Config:
    """Parse and validate TOML text. Errors start with the key (or the line), no file."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(_toml_syntax_message(str(exc), text)) from None
    except RecursionError:  # tomllib parses nested arrays and tables by recursion
        raise ConfigError("not valid TOML: arrays or tables nested too deeply") from None
    return config_from_dict(data)


def config_from_dict(data: Mapping[str, Any]) -> Config:
    """Build and validate a :class:`Config` from parsed TOML (nested dicts)."""
    config = _parse(data)
    validate(config)
    return config


def _toml_syntax_message(message: str, text: str) -> str:
    # tomllib says "Invalid value (at line 3, column 8)" or "... (at end of document)".
    what, where = message, ""
    m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", message, re.DOTALL)
    if m:
        what, where = m[1], f"line {m[2]}, column {m[3]}"
    else:
        m = re.fullmatch(r"(.*) \(at end of document\)", message, re.DOTALL)
        if m:
            what, where = m[1], f"line {max(1, len(text.splitlines()))} (end of file)"
    what = what[:1].lower() + what[1:]
    return f"{where}: not valid TOML: {what}" if where else f"not valid TOML: {what}"




# --- parsing: types and unknown keys -------------------------------------------------------


def _unknown(key: str, name: str, known: Iterable[str], what: str = "key") -> ConfigError:
    # Imported here, like textwrap below: only a wrong file or `config show` needs them, and
    # every command imports this module.
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    hint = f", did you mean {close[0]!r}?" if close else ""
    return ConfigError(f"{key}: unknown {what}{hint}")


def _is_int(value: object) -> bool:
    # bool is an int in Python; `pin = true` is a mistake, not GPIO 1.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return _is_int(value) or isinstance(value, float)


#: A field's type, as written in its annotation -> (test, what the message expects).
_TYPES: dict[object, tuple[Callable[[object], bool], str]] = {
    int: (_is_int, "an integer"),
    float: (_is_number, "a number"),
    bool: (lambda v: isinstance(v, bool), "true or false"),
    str: (lambda v: isinstance(v, str), "a string"),
}
_HINTS: dict[type, dict[str, Any]] = {}


def _value_type(cls: type, name: str) -> object:
    """A field's type with ``| None`` taken off (a file cannot say None: it leaves the key
    out)."""
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    hint = _HINTS[cls][name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) is not tuple and len(args) == 1:
        return args[0]
    return hint


def _table(data: object, prefix: str) -> Mapping[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{prefix}: expected a table ([{prefix}]), got {show_value(data)}")
    return data


def _read(cls: type, f: Field[Any], key: str, value: object) -> object:
    """One value of the file, checked against its field's type."""
    kind = _value_type(cls, f.name)
    if typing.get_origin(kind) is tuple:
        item_kind = typing.get_args(kind)[0]
        test, expected = _TYPES[item_kind]
        plural = {int: "integers", str: "strings"}[item_kind]
        if not isinstance(value, list | tuple):
            raise ConfigError(f"{key}: expected a list of {plural}, got {show_value(value)}")
        for i, item in enumerate(value):
            if not test(item):
                raise ConfigError(f"{key}[{i}]: expected {expected}, got {show_value(item)}")
        return tuple(value)
    test, expected = _TYPES[kind]
    if not test(value):
        raise ConfigError(f"{key}: expected {expected}, got {show_value(value)}")
    legacy = spec_of(f).legacy_unset
    if legacy is not None and value == legacy:
        return None
    if kind is float:
        return float(typing.cast(float, value))
    if isinstance(value, str) and spec_of(f).fold_case:
        # Chip and bus names are printed in capitals on the boards; accept them as written.
        return value.lower()
    return value


def parse_table(cls: type, data: object, prefix: str, **given: Any) -> dict[str, Any]:
    """The keys of one table of the file, read and type-checked, as field values.

    Unknown keys are rejected first (with the closest known one): a misspelt key explains
    a "wrong" default better than anything. ``given`` adds values the file does not hold.
    """
    table = _table(data, prefix)
    known = {f.name: f for f in table_fields(cls)}
    for name in table:
        if name not in known:
            raise _unknown(f"{prefix}.{name}", name, known)
    values = dict(given)
    for name, value in table.items():
        values[name] = _read(cls, known[name], f"{prefix}.{name}", value)
    return values


def _parse(data: Mapping[str, Any]) -> Config:
    added = added_sections()
    for name, value in data.items():
        if name in SECTIONS or name in added:
            continue
        # A key written above the first [section] header: say which section it belongs in.
        homes = [
            s for s, cls in {**SECTIONS, **added}.items()
            if name in {f.name for f in table_fields(cls)}
        ]
        if homes and not isinstance(value, Mapping):
            raise ConfigError(f"{name}: unknown key, did you mean '{homes[0]}.{name}'?")
        raise _unknown(name, name, [*SECTIONS, *added], "section")

    tables: dict[str, Any] = {}
    for name, cls in SECTIONS.items():
        if cls is Displays:
            continue
        tables[name] = cls(**parse_table(cls, data.get(name), name))

    displays = _table(data.get("displays"), "displays")
    for name in displays:
        if name not in DISPLAY_NAMES:
            raise _unknown(
                f"displays.{name}", name, DISPLAY_NAMES, "display (green, purple, red, status)"
            )
    tables["displays"] = Displays(
        **{
            name: _parse_display(displays.get(name), name, tables["i2c"], tables["spi"])
            for name in DISPLAY_NAMES
        }
    )
    tables["added_tables"] = {
        name: cls(**parse_table(cls, data.get(name), name)) for name, cls in added.items()
    }
    return Config(**tables)


def _parse_display(data: object, name: str, i2c: I2cConfig, spi: SpiConfig) -> DisplayConfig:
    """One [displays.NAME] table: what it may hold depends on its interface and the mux."""
    default: DisplayConfig = getattr(DEFAULTS.displays, name)
    prefix = f"displays.{name}"
    values = parse_table(DisplayConfig, data, prefix)
    driver = values.setdefault("driver", default.driver)
    interface = values.setdefault("interface", default.interface)
    # Given sizes are kept so that validate() can say they do not match the driver.
    width, height = DRIVER_SIZES.get(driver, (default.width, default.height))
    values.setdefault("width", width)
    values.setdefault("height", height)

    def only_for(keys: Iterable[str], why: str) -> None:
        for key in keys:
            if key in values:
                raise ConfigError(f"{prefix}.{key}: only with {why}")

    if interface == "spi":
        only_for(("address", "mux_channel", "bus"), 'interface = "i2c"')
        values.setdefault("spi_device", 0)
        return DisplayConfig(name=name, spi_port=spi.port, **values)
    only_for(("spi_device", "dc", "reset"), 'interface = "spi"')
    if i2c.mux:
        if "bus" in values:
            raise ConfigError(
                f"{prefix}.bus: not with i2c.mux = true, where the display's bus is its"
                " mux channel (set mux_channel, or i2c.mux = false)"
            )
        values.setdefault("mux_channel", _DEFAULT_MUX_CHANNELS[name])
    else:
        only_for(("mux_channel",), "i2c.mux = true")
        values.setdefault("bus", i2c.bus)
    values.setdefault("address", default.address)
    return DisplayConfig(name=name, **values)


# --- validation: each key by its declaration ------------------------------------------------


def _fail(key: str, what: str) -> ConfigError:
    return ConfigError(f"{key}: {what}")


def _choice(key: str, value: object, choices: Iterable[object] | Mapping[object, str]) -> None:
    if value not in choices:
        raise _fail(key, f"expected {or_words(choices)}, got {show_value(value)}")


def _gpio(key: str, pin: int) -> None:
    if pin in ID_PINS:
        raise _fail(
            key,
            f"GPIO {pin} is {ID_PINS[pin]}, kept for the HAT ID EEPROM; use {USABLE_RANGE}",
        )
    if pin not in HEADER_GPIOS:
        raise _fail(key, f"expected {GPIO_RULE}, got {pin}")


def check_value(key: str, value: Any, spec: Spec, table: object = None) -> None:
    """Check one value of ``table`` against its declaration; raise :class:`ConfigError`
    naming ``key``."""
    if value is None:
        return
    if spec.choices is not None and (
        spec.choices_if is None or table is None or spec.choices_if(table)
    ):
        _choice(key, value, spec.choices)
    if spec.low is not None and isinstance(value, int | float) and not isinstance(value, bool):
        low, high = spec.low, spec.high
        # Written as "inside the range" so that NaN, which compares false with everything,
        # is outside it.
        above_low = value > low if spec.low_open else value >= low
        if not (above_low and (high is None or value <= high)):
            shown = hex_value(int(value)) if spec.hex else f"{value}{spec.unit}"
            what = f"{spec.what} " if spec.what else ""
            rule = spec.range_rule()
            if high is None:
                rule = f"({rule})"
            raise _fail(key, f"expected {what}{rule}, got {shown}")
    if spec.check is not None:
        spec.check(key, value)
    if spec.gpio:
        if isinstance(value, tuple):
            for i, pin in enumerate(value):
                _gpio(f"{key}[{i}]", pin)
        else:
            _gpio(key, value)


def _check_table(table: object, prefix: str) -> None:
    for f in table_fields(type(table)):
        check_value(f"{prefix}.{f.name}", getattr(table, f.name), spec_of(f), table)


def validate(config: Config) -> None:
    """Check every value and how the parts share the pins and buses.

    Raises :class:`ConfigError` naming the first wrong key. :func:`load_config` calls this;
    call it yourself on a :class:`Config` built in code. The ``[box]`` title is kept as
    written: the rules, which know the titles, check it where the box starts.
    """
    for name in [*SECTIONS, *added_sections()]:
        if name != "displays":
            _check_table(config.part_table(name), name)
    for display in config.displays.all():
        _check_display(display, config)
    _check_buses(config)
    _check_pins(config)


# --- validation: how the parts share the header --------------------------------------------


def _check_display(d: DisplayConfig, config: Config) -> None:
    key = f"displays.{d.name}"
    if d.name not in DISPLAY_NAMES:
        raise _fail(key, f"unknown display; expected {', '.join(DISPLAY_NAMES)}")
    if d.name != "status":
        # The faces are drawn for the dice's 128x64 I2C panels only.
        _choice(f"{key}.driver", d.driver, DICE_DRIVERS)
    _check_table(d, key)
    chip = CHIPS[d.driver]
    if d.interface not in chip.interfaces:
        raise _fail(
            f"{key}.interface",
            f"the {d.driver} needs interface = {' or '.join(map(show_value, chip.interfaces))}"
            f" ({chip.interfaces_why}), got {show_value(d.interface)}",
        )
    width, height = DRIVER_SIZES[d.driver]
    if d.width != width:
        raise _fail(f"{key}.width", f"the {d.driver} is {width} wide, got {d.width}")
    if d.height != height:
        raise _fail(f"{key}.height", f"the {d.driver} is {height} high, got {d.height}")

    def absent(names: Iterable[str], why: str) -> None:
        for name in names:
            if getattr(d, name) is not None:
                raise _fail(f"{key}.{name}", f"only with {why}")

    if d.interface == "spi":
        absent(("mux_channel", "bus"), 'interface = "i2c"')
        if d.spi_port != config.spi.port:
            raise _fail(
                f"{key}.spi_port", f"expected spi.port ({config.spi.port}), got {d.spi_port}"
            )
        if d.spi_device is None:
            raise _fail(f"{key}.spi_device", 'required with interface = "spi"')
        if d.dc is None:
            raise _fail(
                f"{key}.dc", 'required with interface = "spi": the GPIO wired to the D/C pin'
            )
        return

    absent(("spi_device", "dc", "reset"), 'interface = "spi"')
    if config.i2c.mux:
        absent(("bus",), "i2c.mux = false (behind the mux, set mux_channel)")
        if d.mux_channel is None:
            raise _fail(f"{key}.mux_channel", "required with i2c.mux = true")
        if not 0 <= d.mux_channel < config.i2c.mux_channels:
            raise _fail(
                f"{key}.mux_channel",
                f"expected 0 to {config.i2c.mux_channels - 1} (i2c.mux_channels ="
                f" {config.i2c.mux_channels}), got {d.mux_channel}",
            )
        if d.address == config.i2c.mux_address:
            raise _fail(
                f"{key}.address",
                f"{hex_value(d.address)} is the mux's own address (i2c.mux_address)",
            )
    else:
        absent(("mux_channel",), "i2c.mux = true")
        if d.bus is None:
            raise _fail(f"{key}.bus", "required with i2c.mux = false")


def _check_buses(config: Config) -> None:
    """Two enabled displays may not answer at the same place."""
    seen: dict[tuple[object, ...], DisplayConfig] = {}
    for d in config.displays.enabled():
        if d.interface == "spi":
            place: tuple[object, ...] = ("spi", d.spi_port, d.spi_device)
            what = "SPI chip select"
        elif d.mux_channel is not None:
            place = ("mux", d.mux_channel, d.address)
            what = "bus and address"
        else:
            place = ("i2c", d.bus, d.address)
            what = "bus and address"
        if place in seen:
            other = seen[place]
            where = f"spi{d.spi_port}.{d.spi_device}" if d.interface == "spi" else other.location
            raise _fail(f"displays.{d.name}", f"same {what} as displays.{other.name} ({where})")
        seen[place] = d



def _check_pins(config: Config) -> None:
    owned = bus_pins(config)
    used: dict[int, str] = {}
    for key, pin in pin_claims(config):
        if pin in owned:
            raise _fail(key, f"GPIO {pin} is {owned[pin]}")
        if pin in used:
            raise _fail(key, f"GPIO {pin} is already used by {used[pin]}")
        used[pin] = key


# --- writing ------------------------------------------------------------------------------

_HEADER = """\
# pitable configuration (save as /etc/pitable/pitable.toml).
#
# Every key may be left out: it then takes the value shown here, and these values are the
# reference wiring. GPIO numbers are BCM numbers. Check a file with
#     pitable config check FILE
"""


def _toml_value(value: object, spec: Spec) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return hex_value(value) if spec.hex else str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v, spec) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def field_comment(spec: Spec) -> str:
    """A key's comment in the written file: its doc, then what it may hold."""
    rule = spec.rule()
    return f"{spec.doc} Allowed: {rule}." if rule and spec.doc else spec.doc or rule


def _toml_string(text: str) -> str:
    # TOML basic strings escape like JSON, except that \\uXXXX must be a whole scalar value,
    # so only the characters TOML forbids are escaped and the rest are written as they are.
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'



def _comment(text: str) -> list[str]:
    import textwrap

    lines = []
    for paragraph in text.splitlines():
        lines += textwrap.wrap(paragraph, 86) or [""]
    return [f"# {line}".rstrip() for line in lines]



def _tables(config: Config) -> list[tuple[str, str, Any]]:
    """(name, doc, table) for every table of the file: the built-in ones, then those of
    the registered parts."""
    out = [(f.name, spec_of(f).doc, getattr(config, f.name)) for f in fields(config)]
    return out + [(p.name, p.doc, config.part_table(p.name)) for p in parts()
                  if p.table is not None]


def _to_toml(config: Config) -> str:
    lines = [_HEADER.rstrip("\n")]
    for name, doc, table in _tables(config):
        lines += ["", *_comment(doc)]
        if isinstance(table, Displays):
            # The four displays share their keys: explained once, then each display's table
            # with the keys its interface uses.
            for g in table_fields(DisplayConfig):
                lines += _comment(f"{g.name}: {field_comment(spec_of(g))}")
            for d in table.all():
                lines += ["", f"[displays.{d.name}]"]
                lines += [
                    f"{g.name} = {_toml_value(value, spec_of(g))}"
                    for g in table_fields(DisplayConfig)
                    if (value := getattr(d, g.name)) is not None and _written(d, g.name)
                ]
            continue
        lines.append(f"[{name}]")
        for g in table_fields(type(table)):
            spec = spec_of(g)
            lines += _comment(field_comment(spec))
            value = getattr(table, g.name)
            if value is None:
                lines.append(f"# {g.name} is not set")
            else:
                lines.append(f"{g.name} = {_toml_value(value, spec)}")
    return "\n".join(lines) + "\n"


def to_markdown(config: Config = DEFAULTS) -> str:
    """Every table and key of the file as Markdown: its doc, its default in ``config`` and
    what it may hold, from the same declarations as :meth:`Config.to_toml`
    (``pitable config reference``, the settings part of docs/configuration.md)."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    def default(value: object, spec: Spec) -> str:
        return "not set" if value is None else f"`{_toml_value(value, spec)}`"

    lines: list[str] = []
    for name, doc, table in _tables(config):
        lines += [f"### [{name}]", "", cell(doc), ""]
        if isinstance(table, Displays):
            names = [d.name for d in table.all()]
            lines += [
                "| key | " + " | ".join(names) + " | allowed | what it does |",
                "|---|" + "---|" * len(names) + "---|---|",
            ]
            for g in table_fields(DisplayConfig):
                spec = spec_of(g)
                values = [
                    default(getattr(d, g.name), spec) if _written(d, g.name) else "-"
                    for d in table.all()
                ]
                lines.append(
                    f"| `{g.name}` | " + " | ".join(values)
                    + f" | {cell(spec.rule())} | {cell(spec.doc)} |"
                )
            lines.append("")
            continue
        lines += ["| key | default | allowed | what it does |", "|---|---|---|---|"]
        for g in table_fields(type(table)):
            spec = spec_of(g)
            lines.append(
                f"| `{g.name}` | {default(getattr(table, g.name), spec)}"
                f" | {cell(spec.rule())} | {cell(spec.doc)} |"
            )
        lines.append("")
    return "\n".join(lines)


def _written(d: DisplayConfig, name: str) -> bool:
    """Whether a display's key belongs in its table: width and height follow the driver,
    and each interface has keys of its own."""
    if name in ("width", "height"):
        return False
    if d.interface == "spi":
        return name not in ("address", "mux_channel", "bus")
    return name not in ("spi_device", "dc", "reset")


def with_display(config: Config, display: DisplayConfig) -> Config:
    """``config`` with one display replaced (by its name); for tests and tools."""
    return replace(config, displays=replace(config.displays, **{display.name: display}))
