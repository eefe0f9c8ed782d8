"""The faceplate: the box seen from above, its panels lit as pixels and its round LEDs.

What the simulator records into its GIF and shows as a picture; a pure drawing from the
panels' pictures and the LEDs' states.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from pitable.render.fonts import BOLD, font

DIE_COLOURS = {"green": (40, 170, 80), "purple": (150, 80, 200), "red": (220, 50, 50)}
PIXEL_ON = (235, 245, 255)
PIXEL_OFF = (8, 10, 14)
BACKGROUND = (38, 36, 34)


def _lit(panel: Image.Image, scale: int, frame: tuple[int, int, int] | None) -> Image.Image:
    mono = panel.convert("1")
    rgb = Image.new("RGB", mono.size, PIXEL_OFF)
    rgb.paste(Image.new("RGB", mono.size, PIXEL_ON), mask=mono)
    rgb = rgb.resize((mono.width * scale, mono.height * scale), Image.Resampling.NEAREST)
    border = 3 * scale
    framed = Image.new("RGB", (rgb.width + 2 * border, rgb.height + 2 * border),
                       frame or (90, 90, 90))
    framed.paste(rgb, (border, border))
    return framed


def draw_faceplate(
    panels: dict[str, Image.Image], leds: tuple[bool, ...], scale: int = 2
) -> Image.Image:
    """The box seen from above: the three dice, the status screen, the round LEDs."""
    gap = 8 * scale
    dice = [_lit(panels[n], scale, DIE_COLOURS[n]) for n in ("green", "purple", "red")
            if n in panels]
    status = _lit(panels["status"], scale, None) if "status" in panels else None
    row_w = sum(d.width for d in dice) + gap * max(0, len(dice) - 1)
    width = max(row_w, status.width if status else 0) + 2 * gap
    dice_h = max((d.height for d in dice), default=0)
    status_h = status.height if status else 0
    led_r = 5 * scale
    height = gap + dice_h + gap + status_h + gap + 2 * led_r + gap
    plate = Image.new("RGB", (width, height), BACKGROUND)
    x = (width - row_w) // 2
    for d in dice:
        plate.paste(d, (x, gap))
        x += d.width + gap
    y = gap + dice_h + gap
    if status is not None:
        plate.paste(status, ((width - status.width) // 2, y))
    y += status_h + gap
    draw = ImageDraw.Draw(plate)
    if leds:
        pitch = 4 * led_r
        x0 = (width - pitch * (len(leds) - 1)) // 2
        for i, on in enumerate(leds):
            cx, cy = x0 + i * pitch, y + led_r
            draw.ellipse((cx - led_r, cy - led_r, cx + led_r, cy + led_r),
                         fill=(255, 170, 30) if on else (70, 55, 30), outline=(20, 20, 20))
    draw.text((gap, y), "pitable", fill=(150, 140, 130), font=font(7 * scale, BOLD))
    return plate
