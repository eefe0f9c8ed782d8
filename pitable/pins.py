"""Facts about the Raspberry Pi's 40-pin header: its GPIOs and the buses that own some of them.

Standard library only, and no import from the rest of pitable: the config, the boot
firmware fragment, ``pitable doctor`` and ``pitable wiring`` all read the header from here.
GPIO numbers are BCM numbers.
"""

from __future__ import annotations

#: The GPIOs on the 40-pin header, by BCM number.
HEADER_GPIOS = range(28)

#: GPIO 0 and 1 belong to the HAT ID EEPROM, which the firmware reads at boot.
ID_PINS: dict[int, str] = {0: "ID_SD", 1: "ID_SC"}

#: The GPIOs a part may use: every header GPIO but the ID EEPROM's.
USABLE_GPIOS = range(2, 28)

#: BCM GPIO -> physical pin number on the header.
PHYSICAL_PIN: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27, 5: 29, 6: 31,
    13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26,
    1: 28, 12: 32, 16: 36, 20: 38, 21: 40,
}

#: I2C bus number -> {GPIO: signal}. Bus 1 is every Pi's; 3 to 6 are the Pi 4's extra buses,
#: each on the pins of its device-tree overlay's default.
I2C_PINS: dict[int, dict[int, str]] = {
    1: {2: "SDA", 3: "SCL"},
    3: {4: "SDA", 5: "SCL"},
    4: {6: "SDA", 7: "SCL"},
    5: {12: "SDA", 13: "SCL"},
    6: {22: "SDA", 23: "SCL"},
}

#: SPI port -> {GPIO: signal}. SPI0 with ``dtparam=spi=on`` takes both chip selects.
SPI_PINS: dict[int, dict[int, str]] = {
    0: {7: "CE1", 8: "CE0", 9: "MISO", 10: "MOSI", 11: "SCLK"},
    1: {17: "CE1", 18: "CE0", 19: "MISO", 20: "MOSI", 21: "SCLK"},
}

#: The PL011 (or mini) UART's pins.
UART_PINS: dict[int, str] = {14: "TXD", 15: "RXD"}

#: Serial devices that are the PL011/mini UART on GPIO 14/15 (a USB adapter or a network
#: printer leaves those pins free).
LOCAL_UARTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")


def signal_pins(pins: dict[int, str], *signals: str) -> tuple[int, ...]:
    """The GPIOs of ``signals`` in one bus's table, in the order asked:
    ``signal_pins(I2C_PINS[1], "SDA", "SCL") == (2, 3)``."""
    by_signal = {signal: gpio for gpio, signal in pins.items()}
    return tuple(by_signal[s] for s in signals)

