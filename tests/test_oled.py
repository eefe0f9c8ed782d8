"""The OLED drivers: partial updates on the wire, decoded back by the fake controllers."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from pitable.hw.chips import CHIPS
from pitable.hw.fake_i2c import FakeI2C, FakeOled
from pitable.hw.oled import (
    DisplayError,
    I2CPanelSpec,
    changed_box,
    mux_channel_bus,
    open_i2c_interface,
    open_panel,
)
from tests.support.pictures import same


def panel(driver: str, rotate: int = 0) -> tuple[object, FakeOled, FakeI2C]:
    i2c = FakeI2C()
    kind = CHIPS[driver].speaks  # the controller the fake decodes
    fake = i2c.bus(4).attach(0x3C, FakeOled(kind))
    device = open_panel(driver, open_i2c_interface(I2CPanelSpec(4, 0x3C), i2c.bus),
                        rotate=rotate)
    return device, fake, i2c


def scribble(seed: int, size: tuple[int, int] = (128, 64)) -> Image.Image:
    rng = random.Random(seed)
    image = Image.new("1", size)
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x0, y0 = rng.randrange(size[0]), rng.randrange(size[1])
        draw.rectangle((x0, y0, x0 + rng.randrange(30), y0 + rng.randrange(20)),
                       fill=rng.choice((0, 1)))
    return image


@pytest.mark.parametrize("driver", ["ssd1306", "ssd1309", "sh1106"])
def test_what_the_panel_shows_is_every_image_sent(driver: str) -> None:
    device, fake, _ = panel(driver)
    for seed in range(40):
        image = scribble(seed)
        device.display(image)  # type: ignore[attr-defined]
        assert same(fake.image(), image), seed


@pytest.mark.parametrize("rotate", [1, 2, 3])
def test_rotated_panels_show_the_image_turned(rotate: int) -> None:
    device, fake, _ = panel("ssd1306", rotate)
    size = (64, 128) if rotate % 2 else (128, 64)
    for seed in range(10):
        image = scribble(seed, size)
        device.display(image)  # type: ignore[attr-defined]
        assert same(fake.image(), image.rotate(-90 * rotate, expand=True))


def test_only_the_changed_pages_and_columns_are_sent() -> None:
    device, fake, i2c = panel("ssd1306")
    base = Image.new("1", (128, 64))
    device.display(base)  # type: ignore[attr-defined]
    mark = len(i2c.bus(4).transfers)
    changed = base.copy()
    ImageDraw.Draw(changed).rectangle((70, 24, 79, 31), fill=1)  # 10 columns, page 3 only
    device.display(changed)  # type: ignore[attr-defined]
    sent = i2c.bus(4).transfers[mark:]
    assert sum(t.length for t in sent if t.control == 0x40) == 10
    assert same(fake.image(), changed)
    mark = len(i2c.bus(4).transfers)
    device.display(changed.copy())  # type: ignore[attr-defined]
    assert len(i2c.bus(4).transfers) == mark  # nothing changed, nothing sent


def test_changed_box_is_widened_to_whole_pages() -> None:
    a = Image.new("1", (128, 64))
    b = a.copy()
    b.putpixel((5, 9), 1)
    assert changed_box(a, b) == (5, 8, 6, 16)
    assert changed_box(a, a.copy()) is None
    assert changed_box(None, a) == (0, 0, 128, 64)


def test_panels_stay_lit_when_the_program_exits() -> None:
    device, fake, _ = panel("ssd1306")
    device.display(scribble(1))  # type: ignore[attr-defined]
    assert device.persist  # type: ignore[attr-defined]
    device.cleanup()  # type: ignore[attr-defined]
    assert fake.on and same(fake.image(), scribble(1))


def test_an_unplugged_panel_raises_and_a_replugged_one_starts_dark() -> None:
    device, _, i2c = panel("ssd1306")
    i2c.bus(4).unplug(0x3C)
    with pytest.raises(Exception, match="0x3C"):
        device.display(scribble(2))  # type: ignore[attr-defined]
    i2c.bus(4).replug(0x3C)
    assert not i2c.bus(4).devices[0x3C].on


def test_the_mux_channel_bus_is_read_from_sysfs(tmp_path: Path) -> None:
    mux = tmp_path / "bus/i2c/devices/1-0070"
    mux.mkdir(parents=True)
    for channel, bus in ((0, 11), (1, 12), (3, 14)):
        os.symlink(f"../i2c-{bus}", mux / f"channel-{channel}")
    assert mux_channel_bus(1, 0x70, 0, tmp_path) == 11
    assert mux_channel_bus(1, 0x70, 3, tmp_path) == 14
    with pytest.raises(DisplayError, match=r"no channel 2.*i2c-mux overlay"):
        mux_channel_bus(1, 0x70, 2, tmp_path)
    with pytest.raises(DisplayError, match="mux 0x71"):
        mux_channel_bus(1, 0x71, 0, tmp_path)
    os.symlink("../spi-0", mux / "channel-5")
    with pytest.raises(DisplayError, match="not an i2c-N adapter"):
        mux_channel_bus(1, 0x70, 5, tmp_path)
