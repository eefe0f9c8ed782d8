"""firmware/: the boot config fragment and the udev rule, generated from the config."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pitable.config import (
    DEFAULTS,
    Config,
    loads_config,
    validate,
    with_display,
)
from pitable.errors import ConfigError
from pitable.firmware import (
    boot_config,
    firmware_pins,
    include_present,
    main,
    udev_rules,
)
from pitable.wiring import bus_pins, pin_claims
from tests.support.udev import Device, misc_device, rule_matches, trigger_matches

FIRMWARE = Path(__file__).parent.parent / "firmware"


def directives(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def test_committed_files_are_the_output_for_the_defaults() -> None:
    # Regenerate with: python -m pitable.firmware boot > firmware/pitable-config.txt
    # (and `udev` > firmware/99-pitable.rules)
    assert (FIRMWARE / "pitable-config.txt").read_text() == boot_config(DEFAULTS)
    assert (FIRMWARE / "99-pitable.rules").read_text() == udev_rules(DEFAULTS)


def test_defaults_turn_on_i2c_at_400khz_the_mux_and_the_uart_but_not_spi() -> None:
    lines = directives(boot_config(DEFAULTS))
    assert "dtparam=i2c_arm=on,i2c_arm_baudrate=400000" in lines
    assert "dtoverlay=i2c-mux,pca9548,addr=0x70" in lines
    assert "enable_uart=1" in lines
    assert "dtoverlay=disable-bt" in lines
    assert not [line for line in lines if "spi" in line]
    # Whatever sections come between, the fragment leaves the file in [all].
    assert lines[0] == "[all]" and lines[-1] == "[all]"


def test_what_firmware_takes_is_what_the_config_says_the_buses_take() -> None:
    assert set(firmware_pins(DEFAULTS)) == set(bus_pins(DEFAULTS)) == {2, 3, 14, 15}


def test_no_pin_is_claimed_twice_by_firmware_and_parts() -> None:
    taken = firmware_pins(DEFAULTS)
    claims = pin_claims(DEFAULTS)
    pins = [pin for _, pin in claims]
    assert len(pins) == len(set(pins))
    assert not set(pins) & set(taken), [(k, p) for k, p in claims if p in taken]


def spi_status() -> Config:
    status = dataclasses.replace(
        DEFAULTS.displays.status, driver="ssd1322", interface="spi", width=256,
        mux_channel=None, spi_device=0, dc=24, reset=25,
    )
    config = with_display(DEFAULTS, status)
    validate(config)
    return config


def test_spi_only_when_a_display_uses_it() -> None:
    config = spi_status()
    assert "dtparam=spi=on" in directives(boot_config(config))
    assert set(firmware_pins(config)) == set(bus_pins(config))
    assert {7, 8, 9, 10, 11} <= set(firmware_pins(config))


def test_no_mux_no_printer_on_the_uart() -> None:
    # Two panels on I2C1, two on the Pi 4's I2C6 (GPIO 22/23), each pair at 0x3c and 0x3d.
    displays = {
        name: dataclasses.replace(
            getattr(DEFAULTS.displays, name), mux_channel=None, bus=bus, address=address
        )
        for name, bus, address in (
            ("green", 1, 0x3C), ("purple", 6, 0x3C), ("red", 6, 0x3D), ("status", 1, 0x3D)
        )
    }
    config = dataclasses.replace(
        DEFAULTS,
        i2c=dataclasses.replace(DEFAULTS.i2c, mux=False, speed_hz=100_000),
        displays=dataclasses.replace(DEFAULTS.displays, **displays),
        printer=dataclasses.replace(DEFAULTS.printer, port="/dev/ttyUSB0"),
    )
    validate(config)
    lines = directives(boot_config(config))
    assert "dtparam=i2c_arm=on,i2c_arm_baudrate=100000" in lines
    assert "dtoverlay=i2c6,pins_22_23,baudrate=100000" in lines
    assert not [line for line in lines if "mux" in line or "uart" in line or "-bt" in line]
    assert set(firmware_pins(config)) == set(bus_pins(config)) == {2, 3, 22, 23}


def test_the_bluetooth_overlay_follows_the_config() -> None:
    config = loads_config('[printer]\nuart_overlay = "miniuart-bt"\n')
    lines = directives(boot_config(config))
    assert "dtoverlay=miniuart-bt" in lines
    assert "dtoverlay=disable-bt" not in lines
    assert "dtoverlay=disable-bt" in directives(boot_config(DEFAULTS))


def test_a_wrong_bluetooth_overlay_is_named() -> None:
    with pytest.raises(ConfigError, match=r"printer\.uart_overlay"):
        loads_config('[printer]\nuart_overlay = "bt-off"\n')


def test_udev_rule_gives_the_service_group_read_access_to_hwrng() -> None:
    (rule,) = directives(udev_rules(DEFAULTS))
    assert rule.endswith('GROUP="pitable", MODE="0640"')


def test_the_udev_rule_matches_the_generator_by_its_kernel_name_and_nothing_else(
    tmp_path: Path,
) -> None:
    # The kernel registers the generator as the misc device hw_random with the node
    # name hwrng: /sys/class/misc/hw_random, /dev/hwrng (drivers/char/hw_random/core.c).
    sysfs = tmp_path / "sys"
    hwrng = Device.from_sysfs(misc_device(sysfs, "hw_random", "hwrng", 183))
    assert (hwrng.kernel, hwrng.subsystem, hwrng.devname) == ("hw_random", "misc", "/dev/hwrng")
    (rule,) = directives(udev_rules(DEFAULTS))
    assert rule_matches(rule, hwrng), rule
    # The other misc devices of a Pi keep their own owners and modes.
    for kernel, node, minor in (("rfkill", "rfkill", 242), ("watchdog", "watchdog", 130),
                                ("fuse", "fuse", 229), ("vcio", "vcio", 126)):
        other = Device.from_sysfs(misc_device(sysfs, kernel, node, minor))
        assert not rule_matches(rule, other), kernel


def test_the_udev_reader_is_udevs_own_reading() -> None:
    # The reader above, held to udev(7): KERNEL is the sysname, globs and | alternatives.
    device = Device(kernel="hw_random", subsystem="misc", devname="/dev/hwrng")
    assert not rule_matches('KERNEL=="hwrng", SUBSYSTEM=="misc", GROUP="x"', device)
    assert rule_matches('KERNEL=="hw_*", SUBSYSTEM=="misc", GROUP="x"', device)
    assert rule_matches('KERNEL=="tpm0|hw_random", GROUP="x"', device)
    assert not rule_matches('SUBSYSTEM!="misc", KERNEL=="hw_random"', device)
    assert trigger_matches("udevadm trigger --subsystem-match=misc --sysname-match=hw_random",
                           device)
    assert not trigger_matches("udevadm trigger --sysname-match=hwrng", device)


@pytest.mark.parametrize(
    ("text", "present"),
    [
        ("dtparam=audio=on\n[all]\ninclude pitable-config.txt\n", True),
        ("include pitable-config.txt\n", True),
        ("[cm4]\notg_mode=1\ninclude pitable-config.txt\n", False),
        ("# include pitable-config.txt\n", False),
        ("dtparam=audio=on\n", False),
    ],
)
def test_include_is_found_only_where_it_applies_to_every_pi(text: str, present: bool) -> None:
    assert include_present(text) is present


def test_module_prints_the_fragment_for_a_config_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pitable.toml"
    path.write_text("[i2c]\nspeed_hz = 100000\n")
    assert main(["boot", "--config", str(path)]) == 0
    assert "dtparam=i2c_arm=on,i2c_arm_baudrate=100000" in capsys.readouterr().out


def test_the_generator_names_a_wrong_config_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    bad = tmp_path / "bad.toml"
    bad.write_text('[i2c]\nspeed_hz = "fast"\n')
    result = subprocess.run(
        [sys.executable, "-m", "pitable.firmware", "boot", "--config", str(bad)],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "i2c.speed_hz" in result.stderr
