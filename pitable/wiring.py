"""The parts of the box, each declared once: its table, its pins, its wires and lines of the
wiring table, its doctor check and its drivers.

A :class:`Part` is registered with :func:`register_part`; everything that lists the parts
reads the registry: the config's tables and its check of the pins the parts share
(:func:`bus_pins`, :func:`pin_claims`), ``pitable wiring`` (:func:`part_rows`), the wiring
picture (:func:`part_wires`), the doctor and the box's assembly. The built-in parts are
registered at the end of this module, in the order of the file.

Standard library only, like :mod:`pitable.config`, whose table declarations it reads: a
part's hardware is named by ``"module:function"`` strings, imported when used.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pitable.pins import I2C_PINS, LOCAL_UARTS, SPI_PINS, UART_PINS, signal_pins
from pitable.settings import show_value, spec_of, table_fields

if TYPE_CHECKING:
    from pitable.config import Config

#: The ink of a wire whose part names no colour of its own.
INK = "#263238"
#: The colour of each display in the wiring.
DISPLAY_COLOURS = {"green": "#2e9e44", "purple": "#7b3fa8", "red": "#c62828",
                   "status": "#455a64"}

#: One line of the wiring table: (part, connection, details).
Row = tuple[str, str, str]


@dataclass(frozen=True)
class Wire:
    """One wire: a header GPIO to a signal of a part."""

    gpio: int
    part: str
    signal: str
    colour: str = INK


@dataclass(frozen=True)
class Part:
    """A part of the box, declared once; its pins, wires and line of the wiring table, and
    the doctor's look at it, follow from this declaration.

    ``name`` is its table in the file, ``label`` what the wiring calls it. A part not built
    into :class:`Config` brings its ``table`` (a dataclass of :func:`setting` fields) and
    that table's ``doc``. By default its GPIOs are the settings declared with ``gpio=True``
    (each wire named by the setting's ``signal``), taken while its ``enabled`` setting, if
    it has one, is true; its line of the table lists them. ``claims``, ``bus_pins``,
    ``wires`` and ``rows`` replace those defaults for a part that needs more (the displays,
    the printer's UART). A ``bus`` part comes first in the wiring, before the parts on
    single GPIOs.

    ``check``, ``build`` and ``fake`` are ``"module:function"`` names, imported only when
    they are used, so that the config (and every command) stays free of the hardware
    libraries: ``check(config, probes)`` gives the doctor's
    :class:`~pitable.doctor.Result`, a list of them, or None when there is nothing to
    check; ``build(**settings, factory=...)`` opens the real part on a gpiozero pin factory
    from its settings as plain arguments (:func:`part_settings`), and
    ``fake(**settings, factory=...)`` its fake (default: ``build`` on the simulated
    backends' mock pins). The box opens them after its built-in parts.
    """

    name: str
    label: str
    table: type | None = None
    doc: str = ""
    claims: Callable[[Config], list[tuple[str, int]]] | None = None
    bus_pins: Callable[[Config], dict[int, str]] | None = None
    wires: Callable[[Config], list[Wire]] | None = None
    rows: Callable[[Config], list[Row]] | None = None
    bus: bool = False
    check: str = ""
    build: str = ""
    fake: str = ""

    def pin_claims(self, config: Config) -> list[tuple[str, int]]:
        """(dotted key, GPIO) for every GPIO the part takes in ``config``."""
        if self.claims is not None:
            return self.claims(config)
        return [(key, gpio) for key, gpio, _ in self.gpios(config)]

    def part_wires(self, config: Config) -> list[Wire]:
        """The part's wires in ``config``."""
        if self.wires is not None:
            return self.wires(config)
        return [Wire(gpio, self.label, signal) for _, gpio, signal in self.gpios(config)]

    def wiring_rows(self, config: Config) -> list[Row]:
        """The part's lines of the wiring table (``pitable wiring``)."""
        if self.rows is not None:
            return self.rows(config)
        gpios = self.gpios(config)
        if not _enabled(config.part_table(self.name)):
            return [(self.label, "-", "off")]
        if len(gpios) == 1:
            return [(self.label, f"GPIO {gpios[0][1]}", "")]
        return [(self.label, ", ".join(f"{signal} GPIO {gpio}" for _, gpio, signal in gpios),
                 "")]

    def gpios(self, config: Config) -> list[tuple[str, int, str]]:
        """(dotted key, GPIO, signal) for each GPIO setting of the part's table."""
        table = config.part_table(self.name)
        if not _enabled(table):
            return []
        out = []
        for f in table_fields(type(table)):
            spec = spec_of(f)
            value = getattr(table, f.name)
            if not spec.gpio or value is None:
                continue
            key = f"{self.name}.{f.name}"
            signal = spec.signal or f.name
            if isinstance(value, tuple):
                out += [(f"{key}[{i}]", pin, signal.format(n=i + 1))
                        for i, pin in enumerate(value)]
            else:
                out.append((key, value, signal))
        return out


def _enabled(table: object) -> bool:
    return bool(getattr(table, "enabled", True))


def part_enabled(config: Config, part: Part) -> bool:
    """Whether ``part`` is fitted: its table's ``enabled`` setting, true without one."""
    return _enabled(config.part_table(part.name))


def part_settings(config: Config, part: Part) -> dict[str, Any]:
    """The settings of ``part``'s table as plain keyword arguments for its driver (all but
    ``enabled``, which says whether to open it at all)."""
    table = config.part_table(part.name)
    return {f.name: getattr(table, f.name) for f in table_fields(type(table))
            if f.name != "enabled"}


def load_hook(name: str) -> Callable[..., Any]:
    """The function a part names as ``"module:function"``, imported now."""
    import importlib

    module, _, function = name.partition(":")
    hook = getattr(importlib.import_module(module), function)
    if not callable(hook):
        raise TypeError(f"{name} is not a function")
    return typing.cast(Callable[..., Any], hook)


_PARTS: dict[str, Part] = {}
#: The names of the tables built into the config (:func:`reserve_tables`), which a part
#: from outside may not take.
_RESERVED: set[str] = set()


def reserve_tables(names: Iterable[str]) -> None:
    """Keep the names of the config's own tables from the parts registered from outside."""
    _RESERVED.update(names)


def register_part(part: Part) -> Part:
    """Add ``part``, which brings its own table, to the box, after the parts registered
    before it; undone by :func:`unregister_part`."""
    if part.table is None or part.name in _RESERVED:
        raise ValueError(f"{part.name!r}: a part brings a table of its own, under a name of"
                         " its own")
    return _register(part)


def _register(part: Part) -> Part:
    if part.name in _PARTS:
        raise ValueError(f"a part named {part.name!r} is already registered")
    _PARTS[part.name] = part
    return part


def unregister_part(name: str) -> None:
    """Take the part registered as ``name`` out of the box."""
    del _PARTS[name]


def registered_part(name: str) -> Part:
    """The part registered as ``name``; KeyError when there is none."""
    return _PARTS[name]


def parts() -> tuple[Part, ...]:
    """The registered parts, in the order of the file."""
    return tuple(_PARTS.values())


def added_sections() -> dict[str, type]:
    """The tables of the registered parts that are not built into :class:`Config`."""
    return {p.name: p.table for p in _PARTS.values() if p.table is not None}


def with_part_table(config: Config, name: str, table: object) -> Config:
    """``config`` with the table of the registered part ``name`` replaced."""
    return replace(config, added_tables={**config.__dict__["added_tables"], name: table})

def bus_pins(config: Config) -> dict[int, str]:
    """The GPIOs that the enabled I2C, SPI and UART buses take, each with why, from the
    registered parts.

    ``{3: "SCL of I2C bus 1, which the displays use", ...}``
    """
    owned: dict[int, str] = {}
    for part in parts():
        if part.bus_pins is not None:
            owned.update(part.bus_pins(config))
    return owned


def pin_claims(config: Config) -> list[tuple[str, int]]:
    """Every GPIO an enabled part drives or reads, as (dotted key, GPIO), in file order."""
    return [claim for part in parts() for claim in part.pin_claims(config)]


def part_wires(config: Config) -> list[Wire]:
    """Every GPIO wire of the enabled parts, in the order of the box: the buses, then the
    parts on single GPIOs."""
    ordered = [p for p in parts() if p.bus] + [p for p in parts() if not p.bus]
    return [wire for part in ordered for wire in part.part_wires(config)]


def part_rows(config: Config) -> list[Row]:
    """The wiring table's lines of every part, enabled or not, in the order of the box."""
    ordered = [p for p in parts() if p.bus] + [p for p in parts() if not p.bus]
    return [row for part in ordered for row in part.wiring_rows(config)]


def uses_i2c_buses(config: Config) -> list[int]:
    """The I2C buses the enabled displays are on (the mux's parent bus when it is on)."""
    users = [d for d in config.displays.enabled() if d.interface == "i2c"]
    if not users:
        return []
    if config.i2c.mux:
        return [config.i2c.bus]
    return sorted({d.bus for d in users if d.bus is not None})


def _i2c_bus_pins(config: Config) -> dict[int, str]:
    owned: dict[int, str] = {}
    i2c_users = [d for d in config.displays.enabled() if d.interface == "i2c"]
    for bus in uses_i2c_buses(config):
        users = "the displays"
        if not config.i2c.mux:
            names = [f"displays.{d.name}" for d in i2c_users if d.bus == bus]
            users = names[0] if len(names) == 1 else "the displays"
        verb = "use" if users == "the displays" else "uses"
        for pin, signal in I2C_PINS.get(bus, {}).items():
            owned[pin] = f"{signal} of I2C bus {bus}, which {users} {verb}"
    return owned


def _i2c_wires(config: Config) -> list[Wire]:
    part = "I2C mux" if config.i2c.mux else None
    return [Wire(gpio, part or f"I2C bus {bus}", signal)
            for bus in uses_i2c_buses(config) for gpio, signal in I2C_PINS.get(bus, {}).items()]


def _i2c_bus_name(bus: int) -> str:
    if bus == 1:
        sda, scl = signal_pins(I2C_PINS[1], "SDA", "SCL")
        return f"I2C1 (GPIO {sda} SDA, GPIO {scl} SCL)"
    return f"/dev/i2c-{bus}"


def _mux_rows(config: Config) -> list[Row]:
    i2c = config.i2c
    if not i2c.mux:
        return []
    uses_i2c = any(d.interface == "i2c" for d in config.displays.enabled())
    chip = "TCA9548A" if i2c.mux_channels == 8 else "PCA9546"
    return [(
        f"I2C mux ({chip})",
        f"{_i2c_bus_name(i2c.bus)}, 0x{i2c.mux_address:02x}",
        f"{i2c.mux_channels} channels, {i2c.speed_hz // 1000} kHz"
        + ("" if uses_i2c else "; no display uses it"),
    )]


def _display_claims(config: Config) -> list[tuple[str, int]]:
    return [
        (f"displays.{d.name}.{n}", pin)
        for d in config.displays.enabled() if d.interface == "spi"
        for n in ("dc", "reset") if (pin := getattr(d, n)) is not None
    ]


def _spi_bus_pins(config: Config) -> dict[int, str]:
    spi_users = [d for d in config.displays.enabled() if d.interface == "spi"]
    if not spi_users:
        return {}
    port = config.spi.port
    users = f"displays.{spi_users[0].name} uses" if len(spi_users) == 1 else "the displays use"
    return {pin: f"{signal} of SPI{port}, which {users}"
            for pin, signal in SPI_PINS.get(port, {}).items()}


def _display_wires(config: Config) -> list[Wire]:
    out: list[Wire] = []
    for d in config.displays.enabled():
        if d.interface != "spi":
            continue
        colour = DISPLAY_COLOURS[d.name]
        part = d.part_name
        cs = 8 if d.spi_device == 0 else 7
        if config.spi.port == 1:
            cs = 18 if d.spi_device == 0 else 17
        for gpio, signal in SPI_PINS[config.spi.port].items():
            # A display only listens: no MISO; and only its own chip select.
            if signal == "MISO" or (signal.startswith("CE") and gpio != cs):
                continue
            out.append(Wire(gpio, part, "CS" if signal.startswith("CE") else signal, colour))
        if d.dc is not None:
            out.append(Wire(d.dc, part, "DC", colour))
        if d.reset is not None:
            out.append(Wire(d.reset, part, "RES", colour))
    return out


def _display_rows(config: Config) -> list[Row]:
    rows: list[Row] = []
    for d in config.displays.all():
        if not d.enabled:
            rows.append((d.part_name, "-", "off"))
            continue
        details = f"{d.driver.upper()} {d.width}x{d.height}"
        if d.rotate:
            details += f", rotated {d.rotate * 90}°"
        if d.contrast != 255:
            details += f", contrast {d.contrast}"
        rows.append((d.part_name, d.location, details))
    return rows


def _pull(pull_up: bool) -> str:
    return "pull-up" if pull_up else "pull-down"


def _button_rows(config: Config) -> list[Row]:
    b = config.button
    return [("ROLL button", f"GPIO {b.pin}", f"{_pull(b.pull_up)}, {b.bounce_ms} ms debounce")]


def _encoder_rows(config: Config) -> list[Row]:
    e = config.encoder
    if not e.enabled:
        return [("encoder", "-", "off")]
    return [("encoder", f"A GPIO {e.a}, B GPIO {e.b}, push GPIO {e.push}", _pull(e.pull_up))]


def _leds_rows(config: Config) -> list[Row]:
    leds = config.leds
    if not leds.pins:
        return [("round LEDs", "-", "none fitted")]
    level = "active high" if leds.active_high else "active low"
    pins = "GPIO " + ", ".join(str(p) for p in leds.pins)
    return [("round LEDs", pins, f"{len(leds.pins)} LEDs, {level}")]


def _uart_bus_pins(config: Config) -> dict[int, str]:
    p = config.printer
    if not (p.enabled and p.port in LOCAL_UARTS):
        return {}
    port = show_value(p.port)
    return {pin: f"{signal} of the UART, which the printer uses (printer.port = {port})"
            for pin, signal in UART_PINS.items()}


def _printer_wires(config: Config) -> list[Wire]:
    p = config.printer
    out = []
    if p.enabled and p.port in LOCAL_UARTS:
        out += [Wire(14, "printer", "RX (from GPIO 14 TX)"),
                Wire(15, "printer", "TX (divider to GPIO 15)")]
    return out + [Wire(gpio, "printer", signal) for _, gpio, signal in PRINTER.gpios(config)]


def _printer_rows(config: Config) -> list[Row]:
    p = config.printer
    if not p.enabled:
        return [("thermal printer", "-", "off")]
    where = p.port
    if p.port in LOCAL_UARTS:
        tx, rx = signal_pins(UART_PINS, "TXD", "RXD")
        where += f" (GPIO {tx} TX, GPIO {rx} RX)"
    busy = "not wired" if p.dtr_busy_pin is None else f"GPIO {p.dtr_busy_pin}"
    return [(
        "thermal printer",
        where,
        f"{p.baudrate} baud, {p.paper_width_mm} mm paper, {p.image_command}; DTR busy: {busy}",
    )]


# The built-in parts, in the order of the file.
_register(Part("button", "ROLL button", rows=_button_rows))
_register(Part("encoder", "encoder", rows=_encoder_rows))
_register(Part("leds", "round LEDs", rows=_leds_rows))
_register(Part("i2c", "I2C mux", bus=True, bus_pins=_i2c_bus_pins, wires=_i2c_wires,
               rows=_mux_rows, check="pitable.doctor:check_mux_part"))
_register(Part("displays", "displays", bus=True, claims=_display_claims,
               bus_pins=_spi_bus_pins, wires=_display_wires, rows=_display_rows,
               check="pitable.doctor:check_displays_part"))
PRINTER = _register(Part("printer", "printer", bus_pins=_uart_bus_pins, wires=_printer_wires,
                         rows=_printer_rows, check="pitable.doctor:check_printer_part"))
