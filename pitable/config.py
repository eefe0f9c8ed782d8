"""The box's configuration: one TOML file read into frozen dataclasses.

Standard library only, because fast commands import it. The built-in :data:`DEFAULTS`
describe the reference wiring of ../shared/design.md; a file only has to name what differs.
Every error is a :class:`~pitable.errors.ConfigError` whose message starts with the dotted
key and says what was expected::

    displays.red.address: expected an I2C address 0x03 to 0x77, got 0x90
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pitable.errors import ConfigError, UnknownTitle

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
    #: How the boot config frees the PL011 UART for the printer: Bluetooth off
    #: ("disable-bt") or moved to the mini UART ("miniuart-bt").
    uart_overlay: str = "disable-bt"


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

    def to_toml(self) -> str:
        """This configuration as a commented TOML file that loads back to an equal one."""
        return _to_toml(self)


#: The reference wiring: what the box uses when no file is found.
DEFAULTS = Config()


# --- facts about the Raspberry Pi header -------------------------------------------------

#: The GPIOs on the 40-pin header, by BCM number.
HEADER_GPIOS = range(28)
#: GPIO 0 and 1 belong to the HAT ID EEPROM, which the firmware reads at boot.
_ID_PINS = {0: "ID_SD", 1: "ID_SC"}
#: I2C bus number -> {GPIO: signal}. Bus 1 is every Pi's; 3 to 6 are the Pi 4's extra buses,
#: each on the pins of its device-tree overlay's default.
I2C_PINS: dict[int, dict[int, str]] = {
    1: {2: "SDA", 3: "SCL"},
    3: {4: "SDA", 5: "SCL"},
    4: {6: "SDA", 7: "SCL"},
    5: {12: "SDA", 13: "SCL"},
    6: {22: "SDA", 23: "SCL"},
}
#: SPI port -> {GPIO: signal}. SPI0 with ``dtparam=spi=on`` takes both chip selects.
SPI_PINS: dict[int, dict[int, str]] = {
    0: {7: "CE1", 8: "CE0", 9: "MISO", 10: "MOSI", 11: "SCLK"},
    1: {17: "CE1", 18: "CE0", 19: "MISO", 20: "MOSI", 21: "SCLK"},
}
UART_PINS = {14: "TXD", 15: "RXD"}
#: Serial devices that are the PL011/mini UART on GPIO 14/15 (a USB adapter or a network
#: printer leaves those pins free).
LOCAL_UARTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")

PIN_FACTORIES = ("", "lgpio", "rpigpio", "pigpio", "native", "mock")
BAUDRATES = (9600, 19200, 38400, 57600, 115200)
MODES = ("table", "solo")
IMAGE_COMMANDS = ("gsv0", "dc2")
UART_OVERLAYS = ("disable-bt", "miniuart-bt")
_DEFAULT_MUX_CHANNELS = {"green": 0, "purple": 1, "red": 2, "status": 3}
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


# --- loading ----------------------------------------------------------------------------


class LoadedConfig(NamedTuple):
    """A configuration and the file it came from (None: the built-in defaults)."""

    config: Config
    source: Path | None


def load_config(path: str | Path | None) -> Config:
    """Read and validate the file at ``path``; None gives the built-in :data:`DEFAULTS`.

    A path given explicitly must exist. Errors read ``<file>: <key>: <what>``.
    """
    if path is None:
        return DEFAULTS
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a TOML file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
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


def _show(value: object) -> str:
    """A value as it would be written in TOML, for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


def _unknown(key: str, name: str, known: Iterable[str], what: str = "key") -> ConfigError:
    # Imported here, like textwrap below: only a wrong file or `config show` needs them, and
    # every command imports this module.
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    hint = f", did you mean {close[0]!r}?" if close else ""
    return ConfigError(f"{key}: unknown {what}{hint}")


class _Table:
    """One TOML table being read: each getter checks a type; ``done()`` rejects the rest."""

    def __init__(self, data: object, prefix: str, known: Iterable[str], what: str = "key") -> None:
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ConfigError(f"{prefix}: expected a table ([{prefix}]), got {_show(data)}")
        self.data: Mapping[str, Any] = data
        self.prefix = prefix
        self.known = tuple(known)
        # Unknown keys first: a misspelt key explains a "wrong" default better than anything.
        for name in self.data:
            if name not in self.known:
                raise _unknown(self.key(name), name, self.known, what)

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}"

    def has(self, name: str) -> bool:
        return name in self.data

    def _get(self, name: str, default: Any, check: Callable[[Any], bool], expected: str) -> Any:
        if name not in self.data:
            return default
        value = self.data[name]
        if not check(value):
            raise ConfigError(f"{self.key(name)}: expected {expected}, got {_show(value)}")
        return value

    def get_int(self, name: str, default: Any) -> Any:
        # bool is an int in Python; `pin = true` is a mistake, not GPIO 1.
        return self._get(name, default, _is_int, "an integer")

    def get_float(self, name: str, default: float) -> float:
        value = self._get(name, default, lambda v: _is_int(v) or isinstance(v, float), "a number")
        return float(value)

    def get_bool(self, name: str, default: bool) -> bool:
        return bool(self._get(name, default, lambda v: isinstance(v, bool), "true or false"))

    def get_str(self, name: str, default: str) -> str:
        return str(self._get(name, default, lambda v: isinstance(v, str), "a string"))

    def get_int_list(self, name: str, default: tuple[int, ...]) -> tuple[int, ...]:
        value = self._get(
            name, default, lambda v: isinstance(v, list | tuple), "a list of integers"
        )
        for i, item in enumerate(value):
            if not _is_int(item):
                raise ConfigError(f"{self.key(name)}[{i}]: expected an integer, got {_show(item)}")
        return tuple(value)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _names(cls: type, *leave_out: str) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name not in leave_out)


_SECTIONS: dict[str, type] = {
    "box": BoxConfig,
    "gpio": GpioConfig,
    "entropy": EntropyConfig,
    "button": ButtonConfig,
    "encoder": EncoderConfig,
    "leds": LedsConfig,
    "i2c": I2cConfig,
    "spi": SpiConfig,
    "displays": Displays,
    "printer": PrinterConfig,
}
#: The keys a [displays.NAME] table may hold (name and spi_port are filled in by the loader).
_DISPLAY_KEYS = _names(DisplayConfig, "name", "spi_port")


def _parse(data: Mapping[str, Any]) -> Config:
    for name, value in data.items():
        if name in _SECTIONS:
            continue
        # A key written above the first [section] header: say which section it belongs in.
        homes = [s for s, cls in _SECTIONS.items() if name in _names(cls)]
        if homes and not isinstance(value, Mapping):
            raise ConfigError(f"{name}: unknown key, did you mean '{homes[0]}.{name}'?")
        raise _unknown(name, name, _SECTIONS, "section")

    d = DEFAULTS
    t = _Table(data.get("box"), "box", _names(BoxConfig))
    title = t.get_str("title", d.box.title)
    try:
        # Accept the titles' aliases (skull-island, ...), stored as the key.
        title = _find_title_key(title)
    except UnknownTitle:
        raise ConfigError(f"box.title: expected {_title_choices()}, got {_show(title)}") from None
    box = BoxConfig(
        title=title,
        mode=t.get_str("mode", d.box.mode),
        hold_s=t.get_float("hold_s", d.box.hold_s),
        tumble_ms=t.get_int("tumble_ms", d.box.tumble_ms),
        blink_ms=t.get_int("blink_ms", d.box.blink_ms),
        state_dir=t.get_str("state_dir", d.box.state_dir),
    )

    t = _Table(data.get("gpio"), "gpio", _names(GpioConfig))
    gpio = GpioConfig(pin_factory=t.get_str("pin_factory", d.gpio.pin_factory))

    t = _Table(data.get("entropy"), "entropy", _names(EntropyConfig))
    entropy = EntropyConfig(
        device=t.get_str("device", d.entropy.device),
        require_hwrng=t.get_bool("require_hwrng", d.entropy.require_hwrng),
        min_entropy=t.get_float("min_entropy", d.entropy.min_entropy),
    )

    t = _Table(data.get("button"), "button", _names(ButtonConfig))
    button = ButtonConfig(
        pin=t.get_int("pin", d.button.pin),
        pull_up=t.get_bool("pull_up", d.button.pull_up),
        bounce_ms=t.get_int("bounce_ms", d.button.bounce_ms),
    )

    t = _Table(data.get("encoder"), "encoder", _names(EncoderConfig))
    encoder = EncoderConfig(
        enabled=t.get_bool("enabled", d.encoder.enabled),
        a=t.get_int("a", d.encoder.a),
        b=t.get_int("b", d.encoder.b),
        push=t.get_int("push", d.encoder.push),
        pull_up=t.get_bool("pull_up", d.encoder.pull_up),
    )

    t = _Table(data.get("leds"), "leds", _names(LedsConfig))
    leds = LedsConfig(
        pins=t.get_int_list("pins", d.leds.pins),
        active_high=t.get_bool("active_high", d.leds.active_high),
    )

    t = _Table(data.get("i2c"), "i2c", _names(I2cConfig))
    i2c = I2cConfig(
        bus=t.get_int("bus", d.i2c.bus),
        mux=t.get_bool("mux", d.i2c.mux),
        mux_address=t.get_int("mux_address", d.i2c.mux_address),
        mux_channels=t.get_int("mux_channels", d.i2c.mux_channels),
        speed_hz=t.get_int("speed_hz", d.i2c.speed_hz),
    )

    t = _Table(data.get("spi"), "spi", _names(SpiConfig))
    spi = SpiConfig(port=t.get_int("port", d.spi.port))

    displays_data = data.get("displays")
    t = _Table(displays_data, "displays", DISPLAY_NAMES, "display (green, purple, red, status)")
    displays = Displays(
        **{name: _parse_display(t.data.get(name), name, i2c, spi) for name in DISPLAY_NAMES}
    )

    t = _Table(data.get("printer"), "printer", _names(PrinterConfig))
    printer = PrinterConfig(
        enabled=t.get_bool("enabled", d.printer.enabled),
        port=t.get_str("port", d.printer.port),
        baudrate=t.get_int("baudrate", d.printer.baudrate),
        paper_width_mm=t.get_int("paper_width_mm", d.printer.paper_width_mm),
        image_command=t.get_str("image_command", d.printer.image_command),
        line_time_ms=t.get_float("line_time_ms", d.printer.line_time_ms),
        feed_time_ms=t.get_float("feed_time_ms", d.printer.feed_time_ms),
        dtr_busy_pin=t.get_int("dtr_busy_pin", d.printer.dtr_busy_pin),
        timeout_s=t.get_float("timeout_s", d.printer.timeout_s),
        uart_overlay=t.get_str("uart_overlay", d.printer.uart_overlay),
    )
    return Config(box, gpio, entropy, button, encoder, leds, i2c, spi, displays, printer)


def _parse_display(data: object, name: str, i2c: I2cConfig, spi: SpiConfig) -> DisplayConfig:
    default: DisplayConfig = getattr(DEFAULTS.displays, name)
    t = _Table(data, f"displays.{name}", _DISPLAY_KEYS)
    # Chip and bus names are printed in capitals on the boards; accept them as written.
    driver = t.get_str("driver", default.driver).lower()
    interface = t.get_str("interface", default.interface).lower()
    width, height = DRIVER_SIZES.get(driver, (default.width, default.height))

    def only_for(keys: Iterable[str], why: str) -> None:
        for key in keys:
            if t.has(key):
                raise ConfigError(f"{t.key(key)}: only with {why}")

    common = {
        "name": name,
        "driver": driver,
        "interface": interface,
        # Given sizes are kept so that validate() can say they do not match the driver.
        "width": t.get_int("width", width),
        "height": t.get_int("height", height),
        "rotate": t.get_int("rotate", default.rotate),
        "contrast": t.get_int("contrast", default.contrast),
        "enabled": t.get_bool("enabled", default.enabled),
    }
    if interface == "spi":
        only_for(("address", "mux_channel", "bus"), 'interface = "i2c"')
        return DisplayConfig(
            **common,
            spi_port=spi.port,
            spi_device=t.get_int("spi_device", 0),
            dc=t.get_int("dc", None),
            reset=t.get_int("reset", None),
        )
    only_for(("spi_device", "dc", "reset"), 'interface = "spi"')
    if i2c.mux:
        if t.has("bus"):
            raise ConfigError(
                f"{t.key('bus')}: not with i2c.mux = true, where the display's bus is its"
                " mux channel (set mux_channel, or i2c.mux = false)"
            )
        where: dict[str, Any] = {
            "mux_channel": t.get_int("mux_channel", _DEFAULT_MUX_CHANNELS[name]),
        }
    else:
        only_for(("mux_channel",), "i2c.mux = true")
        where = {"bus": t.get_int("bus", i2c.bus)}
    return DisplayConfig(**common, address=t.get_int("address", default.address), **where)


def _find_title_key(name: str) -> str:
    # Imported here: pitable.rules is standard-library only, but loading it is work that
    # only a [box] title needs.
    from pitable.rules import find_title

    return find_title(name).key


def _title_choices() -> str:
    from pitable.rules import all_titles

    titles = all_titles()
    keys = ", ".join(t.key for t in titles[:-1]) + f" or {titles[-1].key}"
    # One alias each is enough to show that the games' own names work too.
    aliases = ", ".join(t.aliases[0] for t in titles if t.aliases)
    return f"{keys} (or {aliases})" if aliases else keys


# --- validation: values, and how the parts share the header ------------------------------


def _fail(key: str, what: str) -> ConfigError:
    return ConfigError(f"{key}: {what}")


def _choice(key: str, value: object, choices: Iterable[object]) -> None:
    choices = tuple(choices)
    if value not in choices:
        shown = [_show(c) for c in choices]
        text = ", ".join(shown[:-1]) + f" or {shown[-1]}" if len(shown) > 1 else shown[0]
        raise _fail(key, f"expected {text}, got {_show(value)}")


def _range(key: str, value: float, low: float, high: float, unit: str = "") -> None:
    if not low <= value <= high:
        raise _fail(key, f"expected {low}{unit} to {high}{unit}, got {value}{unit}")


def _gpio(key: str, pin: int) -> None:
    if pin in _ID_PINS:
        raise _fail(
            key,
            f"GPIO {pin} is {_ID_PINS[pin]}, kept for the HAT ID EEPROM; use GPIO 2 to 27",
        )
    if pin not in HEADER_GPIOS:
        raise _fail(key, f"expected a header GPIO 2 to 27 (BCM numbering), got {pin}")


def _i2c_address(key: str, address: int) -> None:
    if not 0x03 <= address <= 0x77:
        raise _fail(key, f"expected an I2C address 0x03 to 0x77, got {_hex(address)}")


def _hex(value: int) -> str:
    return f"0x{value:02x}" if value >= 0 else str(value)


def validate(config: Config) -> None:
    """Check every value and how the parts share the pins and buses.

    Raises :class:`ConfigError` naming the first wrong key. :func:`load_config` calls this;
    call it yourself on a :class:`Config` built in code.
    """
    box = config.box
    try:
        key = _find_title_key(box.title)
    except UnknownTitle:
        key = ""
    if key != box.title:
        raise _fail("box.title", f"expected {_title_choices()}, got {_show(box.title)}")
    _choice("box.mode", box.mode, MODES)
    _range("box.hold_s", box.hold_s, 0.3, 5, " s")
    _range("box.tumble_ms", box.tumble_ms, 0, 2000, " ms")
    _range("box.blink_ms", box.blink_ms, 100, 2000, " ms")

    _choice("gpio.pin_factory", config.gpio.pin_factory, PIN_FACTORIES)

    if not config.entropy.device:
        raise _fail("entropy.device", 'expected a device path such as /dev/hwrng, got ""')
    if not 0 < config.entropy.min_entropy <= 8:
        raise _fail(
            "entropy.min_entropy",
            f"expected bits per byte above 0 and at most 8, got {config.entropy.min_entropy}",
        )

    _gpio("button.pin", config.button.pin)
    _range("button.bounce_ms", config.button.bounce_ms, 0, 200, " ms")

    for name in ("a", "b", "push"):
        _gpio(f"encoder.{name}", getattr(config.encoder, name))

    if len(config.leds.pins) > 25:
        raise _fail("leds.pins", f"expected 0 to 25 LEDs, got {len(config.leds.pins)}")
    for i, pin in enumerate(config.leds.pins):
        _gpio(f"leds.pins[{i}]", pin)

    i2c = config.i2c
    if i2c.bus < 0:
        raise _fail("i2c.bus", f"expected an I2C bus number (0 or more), got {i2c.bus}")
    if not 0x70 <= i2c.mux_address <= 0x77:
        raise _fail(
            "i2c.mux_address",
            f"expected a TCA9548A address 0x70 to 0x77, got {_hex(i2c.mux_address)}",
        )
    if i2c.mux_channels not in (4, 8):
        raise _fail(
            "i2c.mux_channels",
            f"expected 8 (TCA9548A) or 4 (PCA9546), got {i2c.mux_channels}",
        )
    _range("i2c.speed_hz", i2c.speed_hz, 10_000, 1_000_000, " Hz")

    _choice("spi.port", config.spi.port, tuple(SPI_PINS))

    for display in config.displays.all():
        _check_display(display, config)

    p = config.printer
    if not (p.port.startswith("/") or _URL.match(p.port)):
        raise _fail(
            "printer.port",
            "expected a device path such as /dev/serial0 or a pyserial URL such as"
            f" socket://host:9100, got {_show(p.port)}",
        )
    _choice("printer.baudrate", p.baudrate, BAUDRATES)
    _choice("printer.paper_width_mm", p.paper_width_mm, (58, 80))
    _choice("printer.image_command", p.image_command, IMAGE_COMMANDS)
    _choice("printer.uart_overlay", p.uart_overlay, UART_OVERLAYS)
    _range("printer.line_time_ms", p.line_time_ms, 0, 1000, " ms")
    _range("printer.feed_time_ms", p.feed_time_ms, 0, 1000, " ms")
    if p.dtr_busy_pin != -1:
        _gpio("printer.dtr_busy_pin", p.dtr_busy_pin)
    if not 0 < p.timeout_s <= 60:
        raise _fail(
            "printer.timeout_s", f"expected above 0 s and at most 60 s, got {p.timeout_s} s"
        )

    _check_buses(config)
    _check_pins(config)


def _check_display(d: DisplayConfig, config: Config) -> None:
    key = f"displays.{d.name}"
    if d.name not in DISPLAY_NAMES:
        raise _fail(key, f"unknown display; expected {', '.join(DISPLAY_NAMES)}")
    if d.name != "status":
        _choice(f"{key}.driver", d.driver, DICE_DRIVERS)
    else:
        _choice(f"{key}.driver", d.driver, STATUS_DRIVERS)
    _choice(f"{key}.interface", d.interface, ("i2c", "spi"))
    if d.driver == "ssd1322" and d.interface != "spi":
        raise _fail(
            f"{key}.interface",
            f'the ssd1322 needs interface = "spi" (luma.oled drives it over SPI only),'
            f" got {_show(d.interface)}",
        )
    width, height = DRIVER_SIZES[d.driver]
    if d.width != width:
        raise _fail(f"{key}.width", f"the {d.driver} is {width} wide, got {d.width}")
    if d.height != height:
        raise _fail(f"{key}.height", f"the {d.driver} is {height} high, got {d.height}")
    _choice(f"{key}.rotate", d.rotate, (0, 1, 2, 3))
    _range(f"{key}.contrast", d.contrast, 0, 255)

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
        _choice(f"{key}.spi_device", d.spi_device, (0, 1))
        if d.dc is None:
            raise _fail(
                f"{key}.dc", 'required with interface = "spi": the GPIO wired to the D/C pin'
            )
        _gpio(f"{key}.dc", d.dc)
        if d.reset is not None:
            _gpio(f"{key}.reset", d.reset)
        return

    absent(("spi_device", "dc", "reset"), 'interface = "spi"')
    _i2c_address(f"{key}.address", d.address)
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
                f"{_hex(d.address)} is the mux's own address (i2c.mux_address)",
            )
    else:
        absent(("mux_channel",), "i2c.mux = true")
        if d.bus is None:
            raise _fail(f"{key}.bus", "required with i2c.mux = false")
        if d.bus < 0:
            raise _fail(f"{key}.bus", f"expected an I2C bus number (0 or more), got {d.bus}")


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


def bus_pins(config: Config) -> dict[int, str]:
    """The GPIOs that the enabled I2C, SPI and UART buses take, each with why.

    ``{3: "SCL of I2C bus 1, which the displays use", ...}``
    """
    owned: dict[int, str] = {}
    enabled = config.displays.enabled()
    i2c_users = [d for d in enabled if d.interface == "i2c"]
    if i2c_users:
        buses = {config.i2c.bus} if config.i2c.mux else {d.bus for d in i2c_users}
        for bus in sorted(b for b in buses if b is not None):
            users = "the displays"
            if not config.i2c.mux:
                names = [f"displays.{d.name}" for d in i2c_users if d.bus == bus]
                users = names[0] if len(names) == 1 else "the displays"
            verb = "use" if users == "the displays" else "uses"
            for pin, signal in I2C_PINS.get(bus, {}).items():
                owned[pin] = f"{signal} of I2C bus {bus}, which {users} {verb}"
    spi_users = [d for d in enabled if d.interface == "spi"]
    if spi_users:
        port = config.spi.port
        users = f"displays.{spi_users[0].name} uses" if len(spi_users) == 1 else "the displays use"
        for pin, signal in SPI_PINS.get(port, {}).items():
            owned[pin] = f"{signal} of SPI{port}, which {users}"
    p = config.printer
    if p.enabled and p.port in LOCAL_UARTS:
        for pin, signal in UART_PINS.items():
            owned[pin] = (
                f"{signal} of the UART, which the printer uses (printer.port = {_show(p.port)})"
            )
    return owned


def pin_claims(config: Config) -> list[tuple[str, int]]:
    """Every GPIO an enabled part drives or reads, as (dotted key, GPIO), in file order."""
    claims = [("button.pin", config.button.pin)]
    if config.encoder.enabled:
        claims += [(f"encoder.{n}", getattr(config.encoder, n)) for n in ("a", "b", "push")]
    claims += [(f"leds.pins[{i}]", pin) for i, pin in enumerate(config.leds.pins)]
    for d in config.displays.enabled():
        if d.interface == "spi":
            claims += [
                (f"displays.{d.name}.{n}", pin)
                for n in ("dc", "reset")
                if (pin := getattr(d, n)) is not None
            ]
    if config.printer.enabled and config.printer.dtr_busy_pin != -1:
        claims.append(("printer.dtr_busy_pin", config.printer.dtr_busy_pin))
    return claims


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

#: A comment above each key, by dotted key (displays share one set, under "displays").
_COMMENTS: dict[str, str] = {
    "box": "The game and how the box reacts.",
    "box.title": "valley, island or temple (Wiraqocha, Skull Island and Apikhabou also work).",
    "box.mode": "table: one roll for everyone; solo: the LEDs count the rounds.",
    "box.hold_s": "Seconds the ROLL button must be held to open the menu (0.3 to 5).",
    "box.tumble_ms": "Length of the dice's tumble animation, 0 to 2000 ms (0: none).",
    "box.blink_ms": "Blink period of a hazard warning, 100 to 2000 ms.",
    "box.state_dir": 'Where the game in progress is saved ("": the default directory).',
    "gpio": "How the pins are driven.",
    "gpio.pin_factory": (
        '"" lets gpiozero choose (lgpio on a Pi 5, RPi.GPIO on older Pis);'
        ' or "lgpio", "rpigpio", "pigpio", "native", "mock".'
    ),
    "entropy": "Where the dice's randomness comes from.",
    "entropy.device": "The hardware random number generator.",
    "entropy.require_hwrng": (
        "true: refuse to roll without it; false: fall back to the OS generator."
    ),
    "entropy.min_entropy": "Assessed bits of entropy per byte for the health tests (0 to 8).",
    "button": "The ROLL button, wired from the GPIO to ground.",
    "button.pin": "",
    "button.pull_up": "",
    "button.bounce_ms": "Debounce time, 0 to 200 ms.",
    "encoder": "The rotary encoder with push, for the menus.",
    "encoder.enabled": "",
    "encoder.a": "",
    "encoder.b": "",
    "encoder.push": "",
    "encoder.pull_up": "",
    "leds": "The round LEDs of a solo game, each through a resistor.",
    "leds.pins": "GPIOs in order, 0 to 25 of them ([]: no LEDs).",
    "leds.active_high": "true: a high pin lights the LED.",
    "i2c": "The displays' I2C bus and the TCA9548A mux on it.",
    "i2c.bus": "The mux's parent bus (I2C1 is GPIO 2 SDA, GPIO 3 SCL).",
    "i2c.mux": (
        "true: each display on its own mux channel (kernel overlay i2c-mux,pca9548);"
        " false: each display names its own bus."
    ),
    "i2c.mux_address": "0x70 to 0x77.",
    "i2c.mux_channels": "8 for a TCA9548A, 4 for a PCA9546.",
    "i2c.speed_hz": "The bus clock set in config.txt (informational).",
    "spi": 'Used only by a display with interface = "spi" (SPI0: GPIO 7 to 11).',
    "spi.port": "",
    "displays": """\
The dice OLEDs (green, purple, red: "ssd1306" or "sh1106", 128x64) and the status
screen ("ssd1306", "sh1106", "ssd1309" 128x64, or "ssd1322" 256x64 on SPI only).
Width and height follow from the driver.
On I2C: address, and mux_channel (0 to i2c.mux_channels - 1) when i2c.mux is true,
or bus (for example the Pi 4's extra buses 3 to 6) when it is false.
On SPI: interface = "spi", spi_device (chip select 0 or 1), dc (the D/C GPIO) and
optionally reset (the reset GPIO).
rotate: 0 to 3, quarter turns; contrast: 0 to 255; enabled = false leaves a display out.""",
    "printer": "The thermal printer.",
    "printer.enabled": "",
    "printer.port": (
        "A serial device (/dev/serial0 is the UART on GPIO 14 and 15)"
        " or a pyserial URL such as socket://host:9100."
    ),
    "printer.baudrate": "9600, 19200, 38400, 57600 or 115200.",
    "printer.paper_width_mm": "58 or 80.",
    "printer.image_command": '"gsv0" (GS v 0 raster) or "dc2" (DC2 * for older printers).',
    "printer.line_time_ms": "Time the printer needs per dot line.",
    "printer.feed_time_ms": "Time the printer needs per line fed.",
    "printer.dtr_busy_pin": "The GPIO wired to the printer's DTR busy line (-1: not wired).",
    "printer.timeout_s": "",
    "printer.uart_overlay": (
        '"disable-bt" (Bluetooth off) or "miniuart-bt" (Bluetooth on the mini UART) frees the'
        " PL011 UART on GPIO 14/15 for the printer."
    ),
}

_HEX_KEYS = {"address", "mux_address"}


def _toml_value(name: str, value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"0x{value:02x}" if name in _HEX_KEYS and value >= 0 else str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(name, v) for v in value) + "]"
    raise TypeError(f"{name}: cannot write {value!r} as TOML")


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


def _to_toml(config: Config) -> str:
    lines = [_HEADER.rstrip("\n")]
    for section in _SECTIONS:
        if section == "displays":
            lines += ["", *_comment(_COMMENTS["displays"])]
            for d in config.displays.all():
                lines += ["", f"[displays.{d.name}]", *_display_lines(d)]
            continue
        value = getattr(config, section)
        lines += ["", *_comment(_COMMENTS[section]), f"[{section}]"]
        for f in fields(value):
            lines += _comment(_COMMENTS[f"{section}.{f.name}"])
            lines.append(f"{f.name} = {_toml_value(f.name, getattr(value, f.name))}")
    return "\n".join(lines) + "\n"


def _display_lines(d: DisplayConfig) -> list[str]:
    names = ["driver", "interface"]
    if d.interface == "spi":
        names += ["spi_device", "dc", "reset"]
    else:
        names += ["address", "mux_channel", "bus"]
    names += ["rotate", "contrast", "enabled"]
    return [f"{n} = {_toml_value(n, getattr(d, n))}" for n in names if getattr(d, n) is not None]


def with_display(config: Config, display: DisplayConfig) -> Config:
    """``config`` with one display replaced (by its name); for tests and tools."""
    return replace(config, displays=replace(config.displays, **{display.name: display}))
