"""The OLED chips' facts live in one table (pitable/hw/chips.py): the config, the drivers
and the simulator read each chip's size, roles, interfaces and RAM from it."""

from __future__ import annotations

import pytest

from pitable.box.backends import Backends
from pitable.config import ConfigError, loads_config
from pitable.hw.chips import CHIPS, Chip
from pitable.hw.fake_i2c import FakeOled
from pitable.hw.oled import SH1106_COLUMN_START, SH1106_RAM_COLUMNS

WIRED = {
    "i2c": "",
    "spi": 'interface = "spi"\nspi_device = 0\ndc = 24\n',
}


def display(name: str, chip: str, interface: str) -> str:
    return f'[displays.{name}]\ndriver = "{chip}"\n{WIRED[interface]}'


@pytest.mark.parametrize("interface", sorted(WIRED))
@pytest.mark.parametrize("chip", CHIPS.values(), ids=list(CHIPS))
def test_the_status_screen_takes_each_chip_on_the_interfaces_it_has(
    chip: Chip, interface: str
) -> None:
    text = display("status", chip.name, interface)
    if interface not in chip.interfaces:
        with pytest.raises(ConfigError, match=(
                rf"^displays\.status\.interface: the {chip.name} needs interface = ")):
            loads_config(text)
        return
    status = loads_config(text).displays.status
    assert (status.width, status.height) == (chip.width, chip.height)


@pytest.mark.parametrize("chip", CHIPS.values(), ids=list(CHIPS))
def test_a_die_takes_only_the_chips_that_show_a_face(chip: Chip) -> None:
    text = display("red", chip.name, chip.interfaces[0])
    if chip.die:
        assert loads_config(text).displays.red.driver == chip.name
    else:
        with pytest.raises(ConfigError, match=r"^displays\.red\.driver: expected "):
            loads_config(text)


@pytest.mark.parametrize("chip", CHIPS.values(), ids=list(CHIPS))
def test_the_simulator_stands_in_for_every_chip(chip: Chip) -> None:
    config = loads_config(display("status", chip.name, chip.interfaces[0]))
    backends = Backends.simulated(config)
    assert backends.fakes is not None
    panel = (backends.spi(config.displays.status) if chip.speaks is None
             else backends.fakes.panels["status"])
    if chip.speaks is None:
        # luma's own dummy device, which keeps the last picture, at the chip's size.
        assert (panel.width, panel.height) == (chip.width, chip.height)
    else:
        assert isinstance(panel, FakeOled) and panel.kind == chip.speaks
        assert (panel.ram_columns, panel.column_offset) == (chip.ram_columns,
                                                            chip.column_offset)


def test_the_sh1106s_column_offset_is_one_fact() -> None:
    """The real driver and the fake address the SH1106's 132-column RAM alike."""
    fake = FakeOled("sh1106")
    assert (fake.ram_columns, fake.column_offset) == (SH1106_RAM_COLUMNS, SH1106_COLUMN_START)
    assert (fake.ram_columns, fake.column_offset) == (132, 2)
