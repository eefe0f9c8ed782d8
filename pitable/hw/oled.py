"""The OLED panels: luma.oled drivers that send only what changed.

luma.oled's SSD1306, SSD1309 and SH1106 drivers write the whole 1 KiB frame on every
``display()`` (luma's ``diff_to_previous`` framebuffer serves only its colour drivers).
On a 400 kHz I2C bus a frame costs about 23 ms, and a roll redraws three panels, so these
subclasses compare each new frame with the last one sent and address only the columns and
pages that changed. The pixels are packed with Pillow (a page strip turned on its side
gives one byte per column, top row in bit 0, as the controllers want) rather than luma's
per-pixel Python loop.

luma itself is imported only when a panel is built, so that the rules and the fast commands
never import it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from PIL import Image, ImageChops

from pitable.errors import DisplayError, HardwareError


class Panel(Protocol):
    """What the box needs of a display: its size and a way to show an image."""

    size: tuple[int, int]
    mode: str

    def display(self, image: Image.Image) -> None: ...


def _page_bytes(frame: Image.Image, x0: int, x1: int, page: int) -> bytes:
    """One page (8 rows) of columns x0..x1-1, a byte a column, top row in bit 0."""
    strip = frame.crop((x0, page * 8, x1, page * 8 + 8))
    return strip.transpose(Image.Transpose.ROTATE_270).tobytes()


def changed_box(
    previous: Image.Image | None, frame: Image.Image
) -> tuple[int, int, int, int] | None:
    """The bounding box of the pixels that differ, widened to whole pages of 8 rows."""
    if previous is None:
        return (0, 0, frame.width, frame.height)
    box = ImageChops.logical_xor(previous, frame).getbbox()
    if box is None:
        return None
    x0, y0, x1, y1 = box
    return (x0, y0 // 8 * 8, x1, (y1 + 7) // 8 * 8)


def _partial_classes() -> dict[str, type]:
    """Build the driver classes on first use, so luma is imported only by the real panels."""
    from luma.oled.device import sh1106, ssd1306, ssd1309

    class _Partial:
        """Remembers the last frame sent and sends only the changed region next time."""

        _last: Image.Image | None = None

        def display(self, image: Image.Image) -> None:
            assert image.mode == self.mode and image.size == self.size  # type: ignore[attr-defined]
            frame = self.preprocess(image)  # type: ignore[attr-defined]
            box = changed_box(self._last, frame)
            if box is None:
                return
            self._send(frame, box)
            self._last = frame.copy()


        def _send(self, frame: Image.Image, box: tuple[int, int, int, int]) -> None:
            raise NotImplementedError

    class PartialSSD1306(_Partial, ssd1306):
        """SSD1306 in horizontal addressing mode: one window, then the bytes."""

        def _send(self, frame: Image.Image, box: tuple[int, int, int, int]) -> None:
            x0, y0, x1, y1 = box
            p0, p1 = y0 // 8, y1 // 8 - 1
            self.command(
                self._const.COLUMNADDR, self._colstart + x0, self._colstart + x1 - 1,
                self._const.PAGEADDR, p0, p1,
            )
            self.data(list(b"".join(_page_bytes(frame, x0, x1, p) for p in range(p0, p1 + 1))))

    class PartialSSD1309(PartialSSD1306, ssd1309):
        """The SSD1309 (2.42" panels) takes the SSD1306's commands."""

    class PartialSH1106(_Partial, sh1106):
        """SH1106: page addressing only, so each page gets its own start column."""

        def _send(self, frame: Image.Image, box: tuple[int, int, int, int]) -> None:
            x0, y0, x1, y1 = box
            column = x0 + self._page_address_offset
            for page in range(y0 // 8, y1 // 8):
                self.command(0xB0 | page, column & 0x0F, 0x10 | (column >> 4))
                self.data(list(_page_bytes(frame, x0, x1, page)))

    return {"ssd1306": PartialSSD1306, "ssd1309": PartialSSD1309, "sh1106": PartialSH1106}


_CLASSES: dict[str, type] = {}


def driver_class(driver: str) -> type:
    if driver == "ssd1322":
        from luma.oled.device import ssd1322

        return ssd1322
    if not _CLASSES:
        _CLASSES.update(_partial_classes())
    try:
        return _CLASSES[driver]
    except KeyError:
        raise HardwareError(f"unknown OLED driver {driver!r}") from None


def open_panel(
    driver: str,
    serial_interface: Any,
    *,
    width: int = 128,
    height: int = 64,
    rotate: int = 0,
    contrast: int | None = None,
    where: str = "",
) -> Any:
    """A luma device for ``driver`` on ``serial_interface``, kept lit when the program exits.

    ``persist`` stops luma from blanking the panel at exit, so the faces stay on the table
    while the service restarts; the box redraws the last roll as soon as it is back.
    """
    cls = driver_class(driver)
    kwargs: dict[str, Any] = {"width": width, "height": height, "rotate": rotate}
    if driver == "ssd1322":
        from luma.core.framebuffer import diff_to_previous

        kwargs["framebuffer"] = diff_to_previous(num_segments=8)
    try:
        device = cls(serial_interface, **kwargs)
    except Exception as exc:
        raise DisplayError(f"{driver} {where} did not answer: {exc}") from exc
    device.persist = True
    if contrast is not None:
        device.contrast(contrast)
    return device


# --- finding buses -----------------------------------------------------------------


def mux_channel_bus(
    parent_bus: int, mux_address: int, channel: int, sysfs: str | os.PathLike[str] = "/sys"
) -> int:
    """The /dev/i2c-N number the kernel's i2c-mux driver gave to ``channel`` of the mux.

    The overlay creates ``/sys/bus/i2c/devices/<parent>-00<addr>/channel-<n>``, a link to
    the channel's adapter ``i2c-N``; N depends on what else the kernel probed, so it is read
    here rather than assumed.
    """
    mux = Path(sysfs) / "bus/i2c/devices" / f"{parent_bus}-{mux_address:04x}"
    node = mux / f"channel-{channel}"
    try:
        target = os.readlink(node)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise DisplayError(
                f"I2C mux 0x{mux_address:02x} on /dev/i2c-{parent_bus} has no channel {channel}"
                f" ({node} missing: is the i2c-mux overlay loaded?)"
            ) from None
        raise DisplayError(f"{node}: {exc.strerror}") from None
    name = Path(target).name
    if not name.startswith("i2c-") or not name[4:].isdigit():
        raise DisplayError(f"{node} points at {target}, not an i2c-N adapter")
    return int(name[4:])


@dataclass
class I2CPanelSpec:
    """Where a panel sits on I2C, for the real bus or a fake one."""

    bus: int
    address: int


def open_i2c_interface(spec: I2CPanelSpec, bus_factory: Callable[[int], Any] | None = None) -> Any:
    """luma's I2C interface on ``/dev/i2c-<bus>`` (or on a fake bus from ``bus_factory``)."""
    from luma.core.interface.serial import i2c

    where = f"/dev/i2c-{spec.bus} 0x{spec.address:02x}"
    try:
        if bus_factory is not None:
            return i2c(bus=bus_factory(spec.bus), address=spec.address)
        return i2c(port=spec.bus, address=spec.address)
    except Exception as exc:
        raise DisplayError(f"I2C device not found: {where} ({exc})") from exc
