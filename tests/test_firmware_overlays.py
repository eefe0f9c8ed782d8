"""Every dtoverlay= and dtparam= line of the boot fragment, held against the kernel's docs.

firmware/overlays.toml keeps the overlays and parameters that the Raspberry Pi kernel's
overlay README documents (source and commit named in it). Each kind of config the box
accepts is turned into its fragment, and every line of it must name a documented overlay
or base parameter, with documented parameters and values of their kind; what the README
has "BCM2711 only" must sit in a [pi4] section; an I2C overlay must put its bus on the pins
the box's wiring has for it. A misspelt overlay or parameter fails here, not at boot.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pitable.config import DEFAULTS, Config, validate, with_display
from pitable.firmware import boot_config
from pitable.pins import I2C_PINS, SPI_PINS, signal_pins

TABLE = tomllib.loads((Path(__file__).parent.parent / "firmware/overlays.toml").read_text())
SWITCH = ("on", "off")


def problems(fragment: str) -> list[str]:
    """What in ``fragment`` the table does not document, one line each."""
    found: list[str] = []
    section = "[all]"
    for raw in fragment.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line
        elif line.startswith("dtoverlay="):
            found += _overlay_problems(line, section)
        elif line.startswith("dtparam="):
            for param in line.removeprefix("dtparam=").split(","):
                name, has_value, value = param.partition("=")
                found += _value_problems(line, name, TABLE["dtparam"].get(name),
                                         value if has_value else None)
    return found


def _overlay_problems(line: str, section: str) -> list[str]:
    name, *params = line.removeprefix("dtoverlay=").split(",")
    entry = TABLE["dtoverlay"].get(name)
    if entry is None:
        return [f"{line}: no overlay {name} in the kernel's README"]
    found = []
    bcm2711_only = entry.get("bcm2711") is True or any(
        p.partition("=")[0] in entry.get("bcm2711", []) for p in params if entry.get("bcm2711")
        is not True)
    if bcm2711_only and section != "[pi4]":
        found.append(f"{line}: BCM2711 only, but in {section}, not [pi4]")
    for param in params:
        pname, has_value, value = param.partition("=")
        found += _value_problems(line, pname, entry["params"].get(pname),
                                 value if has_value else None)
    return found


def _value_problems(line: str, name: str, kind: str | None, value: str | None) -> list[str]:
    if kind is None:
        return [f"{line}: no parameter {name} documented"]
    if kind in ("flag", "pins"):
        return [] if value is None else [f"{line}: {name} takes no value"]
    if kind == "switch":
        return [] if value in SWITCH else [f"{line}: {name} is on or off, not {value}"]
    try:
        int(value or "", 0)
    except ValueError:
        return [f"{line}: {name} is a number, not {value}"]
    return []


def overlay_pins(line: str) -> tuple[int, ...]:
    """The GPIOs an I2C bus overlay line puts its bus on: its pins_ parameter, or the
    overlay's default."""
    name, *params = line.removeprefix("dtoverlay=").split(",")
    chosen = [p for p in params if TABLE["dtoverlay"][name]["params"].get(p) == "pins"]
    if chosen:
        return tuple(int(gpio) for gpio in chosen[-1].split("_")[1:])
    return tuple(TABLE["dtoverlay"][name]["default_pins"])


# --- every kind of config --------------------------------------------------------------


def _replace(config: Config, **tables: dict[str, Any]) -> Config:
    return dataclasses.replace(config, **{
        key: dataclasses.replace(getattr(config, key), **values) for key, values in tables.items()
    })


def _own_buses(config: Config, buses: tuple[int, int, int, int]) -> Config:
    """No mux: each display on a bus of its own choosing, two per bus at 0x3c and 0x3d."""
    names = ("green", "purple", "red", "status")
    displays, used = {}, {}
    for name, bus in zip(names, buses, strict=True):
        address = 0x3C + used.get(bus, 0)
        used[bus] = used.get(bus, 0) + 1
        displays[name] = dataclasses.replace(getattr(config.displays, name), mux_channel=None,
                                             bus=bus, address=address)
    return dataclasses.replace(config, i2c=dataclasses.replace(config.i2c, mux=False),
                               displays=dataclasses.replace(config.displays, **displays))


def _spi_status(config: Config, port: int) -> Config:
    status = dataclasses.replace(
        config.displays.status, driver="ssd1322", interface="spi", width=256,
        mux_channel=None, spi_device=0, dc=24, reset=25, spi_port=port,
    )
    return with_display(dataclasses.replace(
        config, spi=dataclasses.replace(config.spi, port=port)), status)


#: The defaults with the controls on GPIOs no bus takes (the Pi 4's extra I2C buses and
#: SPI1 share pins with the default encoder, LEDs and button).
SPARE = _replace(DEFAULTS, encoder={"enabled": False}, leds={"pins": ()}, button={"pin": 27})


def configs() -> Iterator[tuple[str, Config]]:
    yield "defaults", DEFAULTS
    yield "a 4-channel mux", _replace(DEFAULTS, i2c={"mux_channels": 4, "mux_address": 0x77})
    for bus in (0, 3, 4, 5, 6):
        yield f"the mux on bus {bus}", _replace(SPARE, i2c={"bus": bus})
    for buses in ((1, 1, 3, 3), (4, 4, 5, 5), (6, 6, 1, 1), (1, 3, 4, 5)):
        yield f"displays on buses {buses}", _own_buses(SPARE, buses)
    for port in (0, 1):
        yield f"the status screen on SPI{port}", _spi_status(SPARE, port)
    yield "Bluetooth on the mini UART", _replace(DEFAULTS, printer={"uart_overlay": "miniuart-bt"})
    yield "a USB printer", _replace(DEFAULTS, printer={"port": "/dev/ttyUSB0"})
    yield "no printer", _replace(DEFAULTS, printer={"enabled": False})
    for speed in (10_000, 100_000, 1_000_000):
        yield f"I2C at {speed} Hz", _replace(DEFAULTS, i2c={"speed_hz": speed})


CONFIGS = dict(configs())


@pytest.mark.parametrize("name", CONFIGS)
def test_every_line_is_documented(name: str) -> None:
    config = CONFIGS[name]
    validate(config)
    assert problems(boot_config(config)) == []


def test_the_configs_reach_every_overlay_in_the_table() -> None:
    used: set[str] = set()
    for config in CONFIGS.values():
        for line in boot_config(config).splitlines():
            if line.startswith("dtoverlay="):
                used.add(line.removeprefix("dtoverlay=").split(",")[0])
    assert used == set(TABLE["dtoverlay"])


@pytest.mark.parametrize("name", CONFIGS)
def test_each_i2c_overlay_puts_its_bus_on_the_wired_pins(name: str) -> None:
    for line in boot_config(CONFIGS[name]).splitlines():
        overlay = line.removeprefix("dtoverlay=").split(",")[0]
        if line.startswith("dtoverlay=i2c") and overlay != "i2c-mux":
            bus = int(overlay.removeprefix("i2c"))
            assert set(overlay_pins(line)) == set(I2C_PINS[bus]), line


def test_spi1s_chip_selects_are_where_the_wiring_has_them() -> None:
    assert list(signal_pins(SPI_PINS[1], "CE0", "CE1")) == TABLE["dtoverlay"]["spi1-2cs"][
        "default_cs"]


def test_the_table_names_its_source() -> None:
    source = TABLE["source"]
    assert source["repository"] == "raspberrypi/linux"
    assert source["path"] == "arch/arm/boot/dts/overlays/README"
    assert len(source["commit"]) == 40 and int(source["commit"], 16) >= 0


@pytest.mark.parametrize(
    ("fragment", "said"),
    [
        ("dtoverlay=i2c-mux,pca9584,addr=0x70", "no parameter pca9584"),
        ("dtoverlay=disable_bt", "no overlay disable_bt"),
        ("dtoverlay=pi3-disable-bt", "no overlay pi3-disable-bt"),
        ("dtparam=i2c_arm=1", "i2c_arm is on or off, not 1"),
        ("dtparam=i2c_arm_baud=400000", "no parameter i2c_arm_baud"),
        ("[pi4]\ndtoverlay=i2c6,baudrate=fast", "baudrate is a number, not fast"),
        ("dtoverlay=i2c6,pins_22_23", "BCM2711 only, but in [all]"),
        ("[pi5]\ndtoverlay=i2c-mux,pca9548,i2c6", "BCM2711 only, but in [pi5]"),
        ("dtoverlay=i2c-mux,pca9548=1", "pca9548 takes no value"),
    ],
)
def test_a_misspelt_line_is_named(fragment: str, said: str) -> None:
    found = problems(fragment)
    assert len(found) == 1 and said in found[0], found


def test_the_default_pins_are_read_from_the_table() -> None:
    # Without pins_, an overlay's bus goes where its README entry says: i2c4's on 8 and 9.
    assert overlay_pins("dtoverlay=i2c4,baudrate=100000") == (8, 9)
    assert overlay_pins("dtoverlay=i2c4,pins_6_7") == (6, 7)
