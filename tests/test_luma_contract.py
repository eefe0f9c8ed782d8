"""What the panel driver (pitable.hw.oled) relies on in luma.oled and luma.core.

The driver uses luma's drivers through their constructors and public methods, and talks to
the panel through a transport of its own; it assumes a few things of what luma's drivers
do, written down here against luma's own classes: a luma release that changes one of them
fails here, not on a table.
"""

from __future__ import annotations

import errno
import itertools
from typing import Any

import pytest
import smbus2
from luma.core.interface.serial import i2c
from luma.oled.device import sh1106, ssd1306, ssd1309
from PIL import Image

from pitable.hw.fake_i2c import FakeBus, FakeI2C, FakeOled, Message
from pitable.hw.oled import (
    COLUMN_ADDRESS,
    HORIZONTAL_ADDRESSING,
    INVERSE_DISPLAY,
    MEMORY_MODE,
    NORMAL_DISPLAY,
    PAGE_ADDRESS,
    SH1106_COLUMN_START,
    START_LINE,
    DisplayError,
    I2CLink,
    I2CPanelSpec,
    open_i2c_interface,
    open_panel,
    ssd1306_column_start,
)

#: Every size luma's SSD1306 driver takes.
SSD1306_SIZES = [(128, 64), (128, 32), (96, 16), (64, 48), (64, 32)]


class Recorder:
    """A serial interface that keeps what a driver sends through it."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[int, ...]]] = []

    def command(self, *commands: int) -> None:
        self.sent.append(("command", commands))

    def data(self, data: Any) -> None:
        self.sent.append(("data", tuple(data)))

    def cleanup(self) -> None:
        pass

    def commands(self) -> list[int]:
        return [byte for kind, sent in self.sent if kind == "command" for byte in sent]


def _follows(sequence: list[int], first: int, then: int) -> bool:
    return (first, then) in itertools.pairwise(sequence)


@pytest.mark.parametrize("driver", [ssd1306, ssd1309])
def test_luma_s_ssd1306_leaves_the_panel_as_the_driver_assumes(driver: type) -> None:
    """After its initialisation: normal display, start line 0, horizontal addressing
    (the driver switches to page addressing itself), and the panel cleared through
    ``display()`` (the driver's first picture, which tells it what the RAM holds)."""
    link = Recorder()
    shown: list[Image.Image] = []

    class Watched(driver):  # type: ignore[misc, valid-type]
        def display(self, image: Image.Image) -> None:
            shown.append(image)
            super().display(image)

    Watched(link)
    commands = link.commands()
    assert NORMAL_DISPLAY in commands and INVERSE_DISPLAY not in commands
    assert START_LINE in commands
    assert _follows(commands, MEMORY_MODE, HORIZONTAL_ADDRESSING)
    assert len(shown) == 1 and shown[0].getbbox() is None


@pytest.mark.parametrize("size", SSD1306_SIZES)
def test_luma_s_ssd1306_writes_a_frame_from_the_column_the_driver_says(
    size: tuple[int, int]
) -> None:
    width, height = size
    link = Recorder()
    device = ssd1306(link, width=width, height=height)
    link.sent.clear()
    device.display(Image.new("1", size))
    start = ssd1306_column_start(width, height)
    window = (COLUMN_ADDRESS, start, start + width - 1, PAGE_ADDRESS, 0, height // 8 - 1)
    assert ("command", window) in link.sent


def test_luma_s_sh1106_starts_at_the_column_the_driver_says() -> None:
    """Each page from RAM column :data:`SH1106_COLUMN_START` (its low and high nibble
    commands), normal display and start line 0 after its initialisation."""
    link = Recorder()
    device = sh1106(link, page_address_offset=SH1106_COLUMN_START)
    commands = link.commands()
    assert NORMAL_DISPLAY in commands and INVERSE_DISPLAY not in commands
    assert START_LINE in commands
    link.sent.clear()
    device.display(Image.new("1", (128, 64)))
    pages = [sent for kind, sent in link.sent if kind == "command"]
    assert pages == [(0xB0 + page, SH1106_COLUMN_START & 0x0F, 0x10 | SH1106_COLUMN_START >> 4)
                     for page in range(8)]


@pytest.fixture
def smbus_on_fakes(monkeypatch: pytest.MonkeyPatch) -> FakeI2C:
    """smbus2's SMBus and i2c_msg.write on the fake buses: what luma.core's own I2C
    interface and the box's open ``/dev/i2c-N`` with on the Pi."""
    fakes = FakeI2C()

    class Msg:
        write = staticmethod(FakeBus.message)

    monkeypatch.setattr(smbus2, "SMBus", fakes.bus)
    monkeypatch.setattr(smbus2, "i2c_msg", Msg)
    return fakes


class TappedBus(FakeBus):
    """A fake bus that keeps every message's bytes."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.attach(0x3C, FakeOled("ssd1306"))
        self.wire: list[bytes] = []

    def i2c_rdwr(self, *messages: Message) -> None:
        self.wire.extend(bytes(message.buf) for message in messages)
        super().i2c_rdwr(*messages)


def test_the_link_puts_on_the_wire_what_luma_s_own_i2c_interface_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """luma's SSD1306 driver, its initialisation and a frame, through luma.core's I2C
    interface on one bus and through the box's link on another: the same transactions,
    byte for byte."""
    buses: dict[int, TappedBus] = {}

    class Msg:
        write = staticmethod(FakeBus.message)

    monkeypatch.setattr(smbus2, "SMBus", lambda port: buses.setdefault(port, TappedBus(port)))
    monkeypatch.setattr(smbus2, "i2c_msg", Msg)
    frame = Image.new("1", (128, 64))
    frame.paste(1, (10, 8, 60, 40))
    luma_s = i2c(port=1, address=0x3C)
    ours = open_i2c_interface(I2CPanelSpec(2, 0x3C))
    assert isinstance(ours, I2CLink)
    for serial in (luma_s, ours):
        ssd1306(serial).display(frame)
    # The initialisation, contrast, clear, display on; the frame's window and its data.
    assert buses[1].wire == buses[2].wire and len(buses[1].wire) >= 6
    assert buses[2].devices[0x3C].image().tobytes() == frame.tobytes()


def test_a_partial_panel_through_the_link_shows_what_it_was_given(
    smbus_on_fakes: FakeI2C,
) -> None:
    fake = smbus_on_fakes.bus(3).attach(0x3C, FakeOled("ssd1306"))
    device = open_panel("ssd1306", open_i2c_interface(I2CPanelSpec(3, 0x3C)))
    frame = Image.new("1", (128, 64))
    frame.paste(1, (5, 3, 90, 50))
    device.display(frame)
    assert fake.image().tobytes() == frame.tobytes()


def test_a_missing_bus_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(port: int) -> Any:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", f"/dev/i2c-{port}")

    monkeypatch.setattr(smbus2, "SMBus", missing)
    with pytest.raises(DisplayError, match=r"^I2C device not found: /dev/i2c-7 0x3c \(No such"):
        open_i2c_interface(I2CPanelSpec(7, 0x3C))


def test_an_unplugged_panel_is_a_display_error_naming_its_address() -> None:
    i2c_buses = FakeI2C()
    bus = i2c_buses.bus(4)
    bus.attach(0x3D, FakeOled("ssd1306"))
    device = open_panel("ssd1306", open_i2c_interface(I2CPanelSpec(4, 0x3D), i2c_buses.bus))
    bus.unplug(0x3D)
    frame = Image.new("1", (128, 64))
    frame.paste(1, (0, 0, 20, 20))
    with pytest.raises(DisplayError, match="0x3D"):
        device.display(frame)
