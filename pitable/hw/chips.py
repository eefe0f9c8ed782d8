"""What the parts' chips are, as facts the drivers, the config and the simulator all read.

Standard library only and nothing to import with it: the config, which every command
imports, checks its tables against these, so that a chip is described in one place.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chip:
    """An OLED controller as the box drives it."""

    name: str
    #: The panel's size in pixels: luma.oled takes other geometries for some of these
    #: chips, but the faces and the status screen are drawn for exactly this one.
    width: int
    height: int
    #: How it may be wired: ``"i2c"``, ``"spi"``.
    interfaces: tuple[str, ...]
    #: Why it takes only those interfaces, said when it is wired otherwise.
    interfaces_why: str = ""
    #: Whether it may show a die's face (the faces are drawn for 128x64 panels); every
    #: chip may be the status screen.
    die: bool = False
    #: Columns of its display RAM, and the RAM column of a picture's column 0.
    ram_columns: int = 128
    column_offset: int = 0
    #: The controller whose commands and RAM it has, as the fake I2C bus decodes them
    #: (``"ssd1306"``, ``"sh1106"``); None where no fake decodes it and luma's ``dummy``
    #: device stands in for it.
    speaks: str | None = None
    #: Sent through luma's own framebuffer diffing (its RAM holds 4 bits a pixel in
    #: column pairs) rather than page by page.
    luma_diff: bool = False


#: Every OLED controller the box drives, by the name the config gives it; the dice's first.
CHIPS: dict[str, Chip] = {
    chip.name: chip
    for chip in (
        Chip("ssd1306", 128, 64, ("i2c", "spi"), die=True, speaks="ssd1306"),
        # The SH1106's RAM is 132 columns wide: a 128-column panel shows columns 2 to 129.
        Chip("sh1106", 128, 64, ("i2c", "spi"), die=True, ram_columns=132, column_offset=2,
             speaks="sh1106"),
        # The SSD1309 (2.42" panels) takes the SSD1306's commands.
        Chip("ssd1309", 128, 64, ("i2c", "spi"), speaks="ssd1306"),
        Chip("ssd1322", 256, 64, ("spi",), "luma.oled drives it over SPI only",
             ram_columns=480, luma_diff=True),
    )
}

#: Paper width in mm -> printable dots of a thermal printer's 203 dpi head.
PAPER_DOTS: dict[int, int] = {58: 384, 80: 576}
