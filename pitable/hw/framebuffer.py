"""The TV over HDMI as a luma device: the Pi's framebuffer, or luma's own stand-in.

luma.core's ``linux_framebuffer`` writes a Pillow picture into ``/dev/fbN``, so the box
needs no desktop, no X server and no browser to show the table on a TV. Off the Pi, luma's
``dummy`` device keeps the last picture instead. Both are imported when a TV is opened.
The openers take plain arguments, as luma's devices do; the box turns its ``[tv]`` table
into them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pitable.errors import DisplayError

#: The framebuffer depths luma.core's linux_framebuffer writes.
DEPTHS = (16, 24, 32)


def open_framebuffer(device: str, *, bgr: bool = True) -> Any:
    """luma.core's ``linux_framebuffer`` on ``device`` (``bgr``: its pixels are blue first,
    as a Pi's HDMI framebuffer's are at 24 and 32 bits); a DisplayError that names the
    device when there is none, it cannot be opened, or its depth is not one luma writes."""
    from luma.core.device import linux_framebuffer

    number = device.removeprefix("/dev/fb")
    depth_file = Path(f"/sys/class/graphics/fb{number}/bits_per_pixel")
    try:
        depth = int(depth_file.read_text().strip())
    except FileNotFoundError:
        raise DisplayError(
            f"TV: no framebuffer at {device}: is a screen plugged into the HDMI port?"
        ) from None
    except (OSError, ValueError) as exc:
        raise DisplayError(f"TV: cannot read {depth_file}: {exc}") from None
    if depth not in DEPTHS:
        raise DisplayError(
            f"TV: {device} has {depth} bits a pixel; luma draws on 16, 24 or 32"
        )
    try:
        # luma's BGR flag exists only at 24 and 32 bits; its 16-bit writer is RGB565.
        return linux_framebuffer(device, bgr=bgr and depth != 16)
    except PermissionError:
        raise DisplayError(
            f"TV: {device}: permission denied (the box's user needs the video group)"
        ) from None
    except OSError as exc:
        raise DisplayError(f"TV: {device}: {exc.strerror or exc}") from None


def simulated_tv(*, width: int, height: int) -> Any:
    """luma.core's ``dummy`` device of ``width`` x ``height``: it keeps the last picture."""
    from luma.core.device import dummy

    return dummy(width=width, height=height, mode="RGB")
