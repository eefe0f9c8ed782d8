"""What the Pi's boot partition and udev must say for the parts in a config.

:func:`boot_config` writes a fragment of ``config.txt`` that turns on exactly the buses the
config uses: I2C (at the configured clock) with the mux's overlay, SPI when a display is on
it, the PL011 UART on GPIO 14/15 when the printer is. install.sh saves it as
``/boot/firmware/pitable-config.txt`` and adds one ``include`` line to the user's
``config.txt``, which is never rewritten. :func:`udev_rules` lets the service's group read
``/dev/hwrng``, which is root's alone by default.

The files in firmware/ are these functions' output for :data:`~pitable.config.DEFAULTS`; a
test keeps them equal. ``python -m pitable.firmware boot|udev [--config PATH]`` prints them
for another config, which is how install.sh writes them. Standard library only.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pitable.config import Config, load_default_or
from pitable.errors import PitableError
from pitable.pins import I2C_PINS, LOCAL_UARTS, SPI_PINS, UART_PINS, signal_pins
from pitable.wiring import uses_i2c_buses

#: The fragment's name on the boot partition, next to config.txt.
FRAGMENT_NAME = "pitable-config.txt"
#: The line install.sh adds to config.txt. ``[all]`` first: the user's file may end inside
#: a conditional section such as ``[cm4]``, which would otherwise apply to the include too.
INCLUDE_LINES = ("[all]", f"include {FRAGMENT_NAME}")
UDEV_RULES_NAME = "99-pitable.rules"
#: The group that may read /dev/hwrng: the service's own (User=pitable, Group=pitable).
HWRNG_GROUP = "pitable"
#: How udev and sysfs know the generator: the kernel registers a misc device named
#: ``hw_random`` (drivers/char/hw_random/core.c, RNG_MODULE_NAME) whose node is ``hwrng``
#: (its ``.nodename``), so /sys/class/misc/hw_random is what KERNEL== and
#: ``udevadm trigger --sysname-match`` see, never "hwrng".
HWRNG_SUBSYSTEM = "misc"
HWRNG_KERNEL_NAME = "hw_random"

#: Names of the Pi 4's extra I2C buses in the i2c-mux overlay (bus 1, i2c_arm, is its
#: default and needs no parameter).
_MUX_BUS_PARAMS = {0: "i2c0", 3: "i2c3", 4: "i2c4", 5: "i2c5", 6: "i2c6"}
#: The Pi 4's extra I2C buses, each turned on by an overlay of its own. The kernel's
#: overlay README has them "BCM2711 only", so their lines go in a [pi4] section.
_EXTRA_I2C = (3, 4, 5, 6)
#: The section that applies to the BCM2711 boards alone (Pi 4, Pi 400, CM4).
_PI4 = "[pi4]"


def uses_spi(config: Config) -> bool:
    return any(d.interface == "spi" for d in config.displays.enabled())


def uses_local_uart(config: Config) -> bool:
    """Whether the printer is on the Pi's own UART (GPIO 14/15), not USB or the network."""
    return config.printer.enabled and config.printer.port in LOCAL_UARTS


def boot_config(config: Config) -> str:
    """The config.txt fragment for ``config``'s parts."""
    lines = [
        "# pitable: the boot configuration the dice box's parts need.",
        "# Written by install.sh from /etc/pitable/pitable.toml (python -m pitable.firmware boot)",
        f"# and read through the line `include {FRAGMENT_NAME}` in config.txt.",
        "# `pitable doctor` checks that it still matches the config. A reboot applies it.",
        "[all]",
    ]
    i2c = config.i2c
    for bus in uses_i2c_buses(config):
        if bus == 1:
            sda, scl = signal_pins(I2C_PINS[1], "SDA", "SCL")
            lines += [
                f"# I2C1 on GPIO {sda} (SDA) and {scl} (SCL), at {i2c.speed_hz // 1000} kHz.",
                f"dtparam=i2c_arm=on,i2c_arm_baudrate={i2c.speed_hz}",
            ]
        elif bus in _EXTRA_I2C:
            sda, scl = signal_pins(I2C_PINS[bus], "SDA", "SCL")
            # The pins are named, not left to the overlay's default: i2c4's is GPIO 8/9.
            low, high = sorted((sda, scl))
            lines += [
                f"# I2C{bus} (Pi 4 only) on GPIO {sda} (SDA) and {scl} (SCL).",
                _PI4,
                f"dtoverlay=i2c{bus},pins_{low}_{high},baudrate={i2c.speed_hz}",
                "[all]",
            ]
        else:
            # Bus 0 belongs to the HAT EEPROM and the cameras; higher numbers are adapters
            # (a USB bridge, another mux) that need nothing on the boot partition.
            lines.append(f"# /dev/i2c-{bus}: nothing to turn on at boot.")
    if i2c.mux and uses_i2c_buses(config):
        # The kernel's pca954x driver gives each channel its own /dev/i2c-N. The 4-channel
        # chips are driven as the PCA9545, which the overlay has always offered; the PCA9546
        # switches channels with the same control register.
        chip = "pca9548" if i2c.mux_channels == 8 else "pca9545"
        params = [chip, f"addr=0x{i2c.mux_address:02x}"]
        if i2c.bus in _MUX_BUS_PARAMS:
            params.append(_MUX_BUS_PARAMS[i2c.bus])
        mux_line = "dtoverlay=i2c-mux," + ",".join(params)
        lines.append(f"# The {'TCA9548A' if i2c.mux_channels == 8 else 'PCA9546'} mux: one bus"
                     " per display.")
        lines += [_PI4, mux_line, "[all]"] if i2c.bus in _EXTRA_I2C else [mux_line]
    if uses_spi(config):
        port = config.spi.port
        low, high = min(SPI_PINS[port]), max(SPI_PINS[port])
        lines.append(f"# SPI{port} on GPIO {low} to {high}, for the SPI displays.")
        lines.append("dtparam=spi=on" if port == 0 else "dtoverlay=spi1-2cs")
    if uses_local_uart(config):
        overlay = config.printer.uart_overlay
        tx, rx = signal_pins(UART_PINS, "TXD", "RXD")
        why = (
            "Bluetooth off" if overlay == "disable-bt" else "Bluetooth moved to the mini UART"
        )
        lines += [
            f"# The printer: the PL011 UART on GPIO {tx} (TX) and {rx} (RX), {why}.",
            "enable_uart=1",
            f"dtoverlay={overlay}",
            "# On a Pi 5 the GPIO 14/15 UART is UART0, apart from Bluetooth and off by",
            "# default: there it is /dev/ttyAMA0 (serial0 is the debug connector's).",
            "[pi5]",
            "dtparam=uart0=on",
            "[all]",
        ]
    return "\n".join(lines) + "\n"


def firmware_pins(config: Config) -> dict[int, str]:
    """The GPIOs that what :func:`boot_config` turns on takes, each with its owner.

    Read from the fragment's own lines, so that a test can hold it against
    :func:`pitable.wiring.bus_pins` and :func:`pitable.wiring.pin_claims`.
    """
    owned: dict[int, str] = {}

    def take(pins: Sequence[int], owner: str) -> None:
        for pin in pins:
            if pin in owned:
                raise ValueError(f"GPIO {pin} is claimed by both {owned[pin]} and {owner}")
            owned[pin] = owner

    for line in boot_config(config).splitlines():
        if line.startswith("dtparam=i2c_arm=on"):
            take(tuple(I2C_PINS[1]), line)
        elif line.startswith("dtoverlay=i2c") and not line.startswith("dtoverlay=i2c-mux"):
            pins = [p for p in line.split(",") if p.startswith("pins_")]
            if len(pins) != 1:
                raise ValueError(f"{line!r} does not name its pins")
            take(tuple(int(gpio) for gpio in pins[0].split("_")[1:]), line)
        elif line == "dtparam=spi=on":
            take(tuple(SPI_PINS[0]), line)
        elif line == "dtoverlay=spi1-2cs":
            take(tuple(SPI_PINS[1]), line)
        elif line == "enable_uart=1":
            take(tuple(UART_PINS), line)
    return owned


def udev_rules(config: Config) -> str:
    """A udev rule letting the service's group read the hardware random generator."""
    del config  # every config rolls from /dev/hwrng by default; the rule costs nothing
    return (
        "# pitable: let the dice box's service (group pitable) read the hardware random\n"
        "# number generator, which is root's alone by default. Installed by install.sh to\n"
        f"# /etc/udev/rules.d/{UDEV_RULES_NAME}. KERNEL matches the kernel's name of the\n"
        f"# device, {HWRNG_KERNEL_NAME}; only its node is called /dev/hwrng.\n"
        f'SUBSYSTEM=="{HWRNG_SUBSYSTEM}", KERNEL=="{HWRNG_KERNEL_NAME}",'
        f' GROUP="{HWRNG_GROUP}", MODE="0640"\n'
    )


def include_present(config_txt: str) -> bool:
    """Whether config.txt includes the fragment, under ``[all]`` where it is included."""
    section = "[all]"
    for raw in config_txt.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("[") and line.endswith("]"):
            section = line
        elif line == INCLUDE_LINES[1]:
            return section == "[all]"
    return False


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pitable.firmware",
        description="Print the boot config fragment or the udev rule for a config.",
    )
    parser.add_argument("what", choices=("boot", "udev"))
    parser.add_argument("--config", metavar="PATH", default=None)
    args = parser.parse_args(argv)
    try:
        config = load_default_or(args.config).config
    except PitableError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    text = boot_config(config) if args.what == "boot" else udev_rules(config)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

