"""``pitable config check`` and ``config show``: the configuration file on the command line.

Standard library only, like :mod:`pitable.config`: a maker checks the file on the Pi before
any display library is installed.
"""

from __future__ import annotations

import argparse

from pitable import config as config_module
from pitable.box.config_title import configured_title, load_checked
from pitable.commands.args import non_empty
from pitable.config import DEFAULT_CONFIG_PATH, DEFAULTS, Config, DisplayConfig
from pitable.pins import I2C_PINS, LOCAL_UARTS, UART_PINS, signal_pins


def setup_config(p: argparse.ArgumentParser) -> None:
    p.description = "The box's configuration: one TOML file naming its parts and pins."
    config_sub = p.add_subparsers(dest="config_command", metavar="ACTION")
    config_sub.required = True

    c = config_sub.add_parser(
        "check",
        help="validate a configuration file and print the wiring it describes",
        description="Validate PATH and print the wiring it describes, part by part. PATH"
        f" defaults to --config, else {DEFAULT_CONFIG_PATH}; when that file does not"
        " exist, the built-in defaults (the reference wiring) are checked.",
    )
    c.add_argument(
        "path", metavar="PATH", nargs="?", default=None, type=non_empty("the path of a TOML file")
    )
    c.set_defaults(run=run_check)

    s = config_sub.add_parser(
        "show",
        help="print the built-in defaults as a commented TOML file",
        description="Print the built-in defaults (the reference wiring) as a commented TOML"
        f" file, ready to save as {DEFAULT_CONFIG_PATH} and edit.",
    )
    s.set_defaults(run=run_show)

    r = config_sub.add_parser(
        "reference",
        help="print every setting, its default and what it may hold, as Markdown",
        description="Print every table and key of the configuration file, with its"
        " default, what it may hold and what it does, as Markdown: the settings part of"
        " docs/configuration.md (scripts/config-page writes it there).",
    )
    r.set_defaults(run=run_reference)


def run_check(args: argparse.Namespace) -> int:
    config, source = load_checked(args.path if args.path is not None else args.config)
    if source is None:
        # Looked up at call time, so that tests can point the default somewhere else.
        default = config_module.DEFAULT_CONFIG_PATH
        print(f"{default} not found: checked the built-in defaults (the reference wiring)")
    else:
        print(f"{source}: valid")
    print()
    print(wiring_table(config))
    return 0


def run_show(args: argparse.Namespace) -> int:
    print(DEFAULTS.to_toml(), end="")
    return 0


def run_reference(args: argparse.Namespace) -> int:
    print(config_module.to_markdown(), end="")
    return 0


# --- the wiring table --------------------------------------------------------------------


def wiring_rows(config: Config) -> list[tuple[str, str, str]]:
    """(part, connection, details) for every part, enabled or not, in the order of the box."""
    rows: list[tuple[str, str, str]] = []
    i2c = config.i2c
    uses_i2c = any(d.interface == "i2c" for d in config.displays.enabled())
    if i2c.mux:
        chip = "TCA9548A" if i2c.mux_channels == 8 else "PCA9546"
        rows.append(
            (
                f"I2C mux ({chip})",
                f"{_i2c_bus_name(i2c.bus)}, 0x{i2c.mux_address:02x}",
                f"{i2c.mux_channels} channels, {i2c.speed_hz // 1000} kHz"
                + ("" if uses_i2c else "; no display uses it"),
            )
        )
    for d in config.displays.all():
        rows.append(_display_row(d))

    b = config.button
    pull = "pull-up" if b.pull_up else "pull-down"
    rows.append(("ROLL button", f"GPIO {b.pin}", f"{pull}, {b.bounce_ms} ms debounce"))

    e = config.encoder
    if e.enabled:
        pull = "pull-up" if e.pull_up else "pull-down"
        rows.append(("encoder", f"A GPIO {e.a}, B GPIO {e.b}, push GPIO {e.push}", pull))
    else:
        rows.append(("encoder", "-", "off"))

    leds = config.leds
    if leds.pins:
        level = "active high" if leds.active_high else "active low"
        pins = "GPIO " + ", ".join(str(p) for p in leds.pins)
        rows.append(("round LEDs", pins, f"{len(leds.pins)} LEDs, {level}"))
    else:
        rows.append(("round LEDs", "-", "none fitted"))

    p = config.printer
    if p.enabled:
        where = p.port
        if p.port in LOCAL_UARTS:
            tx, rx = signal_pins(UART_PINS, "TXD", "RXD")
            where += f" (GPIO {tx} TX, GPIO {rx} RX)"
        busy = "not wired" if p.dtr_busy_pin is None else f"GPIO {p.dtr_busy_pin}"
        rows.append(
            (
                "thermal printer",
                where,
                f"{p.baudrate} baud, {p.paper_width_mm} mm paper, {p.image_command};"
                f" DTR busy: {busy}",
            )
        )
    else:
        rows.append(("thermal printer", "-", "off"))

    ent = config.entropy
    fallback = "no fallback" if ent.require_hwrng else "falls back to the OS generator"
    rows.append(
        (
            "random generator",
            ent.device,
            f"{fallback}; health tests at {ent.min_entropy:g} bits/byte",
        )
    )
    factory = config.gpio.pin_factory or "gpiozero's own choice"
    rows.append(("pin factory", factory, ""))
    box = config.box
    tumble = f"tumble {box.tumble_ms} ms" if box.tumble_ms else "no tumble"
    rows.append(
        (
            "game",
            f"{configured_title(box).key}, {box.mode} play",
            f"hold {box.hold_s:g} s for the menu, {tumble}, hazard blink {box.blink_ms} ms",
        )
    )
    return rows


def _i2c_bus_name(bus: int) -> str:
    if bus == 1:
        sda, scl = signal_pins(I2C_PINS[1], "SDA", "SCL")
        return f"I2C1 (GPIO {sda} SDA, GPIO {scl} SCL)"
    return f"/dev/i2c-{bus}"


def _display_row(d: DisplayConfig) -> tuple[str, str, str]:
    part = "status screen" if d.name == "status" else f"{d.name} die"
    if not d.enabled:
        return (part, "-", "off")
    details = f"{d.driver.upper()} {d.width}x{d.height}"
    if d.rotate:
        details += f", rotated {d.rotate * 90}°"
    if d.contrast != 255:
        details += f", contrast {d.contrast}"
    return (part, d.location, details)


def wiring_table(config: Config) -> str:
    """The wiring as a plain text table: part | connection | details."""
    rows = [("part", "connection", "details"), *wiring_rows(config)]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    lines = []
    for n, (part, connection, details) in enumerate(rows):
        line = f"{part:<{widths[0]}} | {connection:<{widths[1]}} | {details}"
        lines.append(line.rstrip(" |") if not details else line)
        if n == 0:
            lines.append(f"{'-' * widths[0]}-+-{'-' * widths[1]}-+-{'-' * 7}")
    return "\n".join(lines)
