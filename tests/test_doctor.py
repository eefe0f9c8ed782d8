"""`pitable doctor` off the Pi: every check on a fake Pi that passes, then each part broken."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from pitable.config import DEFAULTS, Config, validate, with_display
from pitable.doctor import (
    HWRNG_SAMPLE,
    Account,
    Probes,
    Result,
    Status,
    check_boot_config,
    check_display,
    check_hwrng,
    check_mux,
    check_pins,
    check_printer,
    check_serial_console,
    may_read,
    run_checks,
    system_account,
)
from pitable.firmware import boot_config
from pitable.hw.chips import CHIPS
from pitable.hw.entropy import SeededSource
from pitable.hw.fake_i2c import FakeI2C, FakeOled
from pitable.hw.fake_printer import FakePrinter
from pitable.hw.health import BLOCK

#: The adapter numbers the kernel gives the mux's channels on this fake Pi.
CHANNEL_BUS = 11


@dataclasses.dataclass
class FakePi:
    """A sysfs, a boot partition, I2C buses with panels, a printer, a hwrng and pins."""

    root: Path
    sysfs: Path
    boot: Path
    i2c: FakeI2C
    printer: FakePrinter
    hwrng: Path
    factory: Any

    def probes(self) -> Probes:
        return Probes(
            sysfs=self.sysfs, boot_dir=self.boot, bus_factory=self.i2c.bus,
            printer_transport=self.printer, hwrng=self.hwrng, pin_factory=self.factory,
            unit_dir=self.root / "etc/systemd/system",
        )

    def panel_bus(self, channel: int) -> int:
        return CHANNEL_BUS + channel


def make_pi(root: Path, config: Config = DEFAULTS) -> FakePi:
    from gpiozero.pins.mock import MockFactory

    sysfs = root / "sys"
    devices = sysfs / "bus/i2c/devices"
    (devices / "i2c-1").mkdir(parents=True)
    mux = devices / "1-0070"
    mux.mkdir()
    i2c = FakeI2C()
    for channel in range(8):
        (devices / f"i2c-{CHANNEL_BUS + channel}").mkdir()
        os.symlink(f"../i2c-{CHANNEL_BUS + channel}", mux / f"channel-{channel}")
    for d in config.displays.enabled():
        if d.mux_channel is not None:
            kind = CHIPS[d.driver].speaks  # the controller the fake decodes
            i2c.bus(CHANNEL_BUS + d.mux_channel).attach(d.address, FakeOled(kind))
    boot = root / "boot"
    boot.mkdir()
    (boot / "config.txt").write_text(
        "dtparam=audio=on\n[cm4]\notg_mode=1\n[all]\ninclude pitable-config.txt\n"
    )
    (boot / "pitable-config.txt").write_text(boot_config(config))
    (boot / "cmdline.txt").write_text("console=tty1 root=PARTUUID=abc-02 rootwait quiet\n")
    hwrng = root / "hwrng"
    hwrng.write_bytes(SeededSource(6).read(HWRNG_SAMPLE))
    return FakePi(root, sysfs, boot, i2c, FakePrinter(), hwrng, MockFactory())


@pytest.fixture
def pi(tmp_path: Path) -> FakePi:
    return make_pi(tmp_path)


def lines(results: list[Result]) -> str:
    return "\n".join(r.line() for r in results)


def test_a_well_wired_box_passes_every_check(pi: FakePi) -> None:
    results = list(run_checks(DEFAULTS, pi.probes()))
    assert [r.part for r in results] == [
        "boot config", "serial console", "I2C mux", "green die", "purple die", "red die",
        "status screen", "printer", "random generator", "GPIO pins",
    ]
    assert all(r.status is Status.PASS for r in results), lines(results)
    assert results[3].line() == (
        "PASS  green die: i2c-mux channel 0, 0x3c (/dev/i2c-11) answers (SSD1306)"
    )
    # Each panel received the no-op and nothing else: the doctor draws nothing.
    for channel in range(4):
        transfers = pi.i2c.bus(pi.panel_bus(channel)).transfers
        assert [(t.address, t.control, t.length) for t in transfers] == [(0x3C, 0x00, 1)]


# --- each part broken in turn ------------------------------------------------------------


def test_an_unplugged_oled_fails_with_its_place_and_what_to_check(pi: FakePi) -> None:
    pi.i2c.bus(pi.panel_bus(2)).unplug(0x3C)
    result = check_display(DEFAULTS.displays.red, DEFAULTS, pi.sysfs, pi.i2c.bus)
    assert result.status is Status.FAIL
    assert "i2c-mux channel 2, 0x3c (/dev/i2c-13) did not answer" in result.detail
    assert "SDA and SCL" in result.fix
    others = check_display(DEFAULTS.displays.green, DEFAULTS, pi.sysfs, pi.i2c.bus)
    assert others.status is Status.PASS


def test_an_oled_at_the_wrong_address_fails(pi: FakePi) -> None:
    bus = pi.i2c.bus(pi.panel_bus(3))
    bus.devices[0x3D] = bus.devices.pop(0x3C)
    result = check_display(DEFAULTS.displays.status, DEFAULTS, pi.sysfs, pi.i2c.bus)
    assert result.status is Status.FAIL and "0x3c" in result.fix


def test_a_bus_that_cannot_be_opened_fails(pi: FakePi) -> None:
    def no_bus(number: int) -> Any:
        raise PermissionError(13, "Permission denied", f"/dev/i2c-{number}")

    result = check_display(DEFAULTS.displays.green, DEFAULTS, pi.sysfs, no_bus)
    assert result.status is Status.FAIL
    assert "cannot open /dev/i2c-11: Permission denied" in result.detail


def test_a_mux_that_did_not_answer_at_boot_fails_and_so_do_its_displays(pi: FakePi) -> None:
    mux = pi.sysfs / "bus/i2c/devices/1-0070"
    for channel in mux.iterdir():
        channel.unlink()
    result = check_mux(DEFAULTS, pi.sysfs)
    assert result is not None and result.status is Status.FAIL
    assert "did not answer at boot (no channel 0, 1, 2, 3" in result.detail
    assert "A2 A1 A0 = 000 for 0x70" in result.fix
    green = check_display(DEFAULTS.displays.green, DEFAULTS, pi.sysfs, pi.i2c.bus)
    assert green.status is Status.FAIL and "I2C mux first" in green.fix


def test_no_mux_overlay_and_no_i2c_fail_differently(pi: FakePi) -> None:
    devices = pi.sysfs / "bus/i2c/devices"
    for channel in (devices / "1-0070").iterdir():
        channel.unlink()
    (devices / "1-0070").rmdir()
    no_overlay = check_mux(DEFAULTS, pi.sysfs)
    assert no_overlay is not None and "i2c-mux overlay is not loaded" in no_overlay.fix
    (devices / "i2c-1").rmdir()
    no_i2c = check_mux(DEFAULTS, pi.sysfs)
    assert no_i2c is not None and no_i2c.detail == "I2C bus 1 is off"


def test_without_a_mux_there_is_no_mux_line_and_displays_use_their_bus(pi: FakePi) -> None:
    displays = {
        name: dataclasses.replace(getattr(DEFAULTS.displays, name), mux_channel=None, bus=1,
                                  address=0x3C + i, enabled=i < 2)
        for i, name in enumerate(("green", "purple", "red", "status"))
    }
    config = dataclasses.replace(
        DEFAULTS, i2c=dataclasses.replace(DEFAULTS.i2c, mux=False),
        displays=dataclasses.replace(DEFAULTS.displays, **displays),
    )
    validate(config)
    assert check_mux(config, pi.sysfs) is None
    pi.i2c.bus(1).attach(0x3C, FakeOled())
    green = check_display(config.displays.green, config, pi.sysfs, pi.i2c.bus)
    purple = check_display(config.displays.purple, config, pi.sysfs, pi.i2c.bus)
    red = check_display(config.displays.red, config, pi.sysfs, pi.i2c.bus)
    assert green.line() == "PASS  green die: /dev/i2c-1 0x3c answers (SSD1306)"
    assert purple.status is Status.FAIL and "/dev/i2c-1 0x3d did not answer" in purple.detail
    assert red.status is Status.SKIP and red.ok


def test_an_spi_display_is_found_by_its_spi_device(pi: FakePi) -> None:
    status = dataclasses.replace(
        DEFAULTS.displays.status, driver="ssd1322", interface="spi", width=256,
        mux_channel=None, spi_device=0, dc=24, reset=25,
    )
    config = with_display(DEFAULTS, status)
    missing = check_display(config.displays.status, config, pi.sysfs, pi.i2c.bus)
    assert missing.status is Status.FAIL and "no SPI device spi0.0" in missing.detail
    (pi.sysfs / "bus/spi/devices/spi0.0").mkdir(parents=True)
    found = check_display(config.displays.status, config, pi.sysfs, pi.i2c.bus)
    assert found.status is Status.PASS


@pytest.mark.parametrize(
    ("printer", "expected", "fix"),
    [
        (FakePrinter(answers_status=False), "no answer to a status request", "GPIO 15"),
        (FakePrinter(paper=False), "out of paper", "load a paper roll"),
        (FakePrinter(online=False), "printer does not answer", "dialout"),
    ],
)
def test_a_printer_that_is_silent_out_of_paper_or_off_fails(
    printer: FakePrinter, expected: str, fix: str
) -> None:
    result = check_printer(DEFAULTS, transport=printer)
    assert result.status is Status.FAIL, result.line()
    assert expected in result.detail
    assert fix in result.fix


def test_a_loopback_port_echoes_but_does_not_answer() -> None:
    """pyserial's loop:// sends DLE EOT back unchanged: an echo, not a status byte."""
    pytest.importorskip("serial")
    result = check_printer(DEFAULTS, port="loop://")
    assert result.status is Status.FAIL
    assert "no answer to a status request on loop://" in result.detail


def test_a_printer_port_that_does_not_exist_fails() -> None:
    pytest.importorskip("serial")
    result = check_printer(DEFAULTS, port="/nonexistent/ttyAMA9")
    assert result.status is Status.FAIL and "cannot open printer port" in result.detail


def test_a_missing_or_unreadable_hwrng_fails(pi: FakePi) -> None:
    missing = check_hwrng(DEFAULTS, pi.root / "nothing")
    assert missing.status is Status.FAIL and "is missing" in missing.detail
    if os.geteuid() != 0:  # root reads every file
        pi.hwrng.chmod(0)
        denied = check_hwrng(DEFAULTS, pi.hwrng)
        assert denied.status is Status.FAIL and "udev rule" in denied.fix
    short = pi.root / "short"
    short.write_bytes(SeededSource(1).read(1000))
    result = check_hwrng(DEFAULTS, short)
    assert result.status is Status.FAIL and f"gave 1000 of {HWRNG_SAMPLE} bytes" in result.detail


def test_a_stuck_hwrng_fails_the_health_tests(pi: FakePi) -> None:
    data = bytearray(SeededSource(2).read(HWRNG_SAMPLE))
    data[5000:5010] = b"\x42" * 10
    pi.hwrng.write_bytes(bytes(data))
    result = check_hwrng(DEFAULTS, pi.hwrng)
    assert result.status is Status.FAIL
    assert "failed a health test" in result.detail and "repetition count" in result.detail


def test_a_stuck_bit_that_the_continuous_tests_miss_fails_the_start_up_bit_test(
    pi: FakePi,
) -> None:
    # Every byte's top bit cleared: no byte value repeats often enough for the 90B tests
    # (128 values, each about 4 times in 512), and 7 bits a byte is more than the claim.
    data = bytes(b & 0x7F for b in SeededSource(3).read(HWRNG_SAMPLE))
    pi.hwrng.write_bytes(data)
    result = check_hwrng(DEFAULTS, pi.hwrng)
    assert result.status is Status.FAIL, result.line()
    assert "start-up bit test: bit 7 is 1 in 0 of 1024 bytes" in result.detail


def test_a_pin_held_by_something_else_fails(pi: FakePi) -> None:
    from gpiozero import Button

    holder = Button(17, pin_factory=pi.factory)
    try:
        result = check_pins(DEFAULTS, pi.factory)
    finally:
        holder.close()
    assert result.status is Status.FAIL
    assert "GPIO 17 (button.pin)" in result.detail
    assert check_pins(DEFAULTS, pi.factory).status is Status.PASS


def test_the_boot_config_must_match_and_be_included(pi: FakePi) -> None:
    assert check_boot_config(DEFAULTS, pi.boot).status is Status.PASS
    changed = dataclasses.replace(DEFAULTS, i2c=dataclasses.replace(DEFAULTS.i2c,
                                                                     speed_hz=100_000))
    stale = check_boot_config(changed, pi.boot)
    assert stale.status is Status.FAIL and "does not match the config" in stale.detail
    (pi.boot / "config.txt").write_text("dtparam=audio=on\n[cm4]\ninclude pitable-config.txt\n")
    inside_cm4 = check_boot_config(DEFAULTS, pi.boot)
    assert inside_cm4.status is Status.FAIL and "does not include" in inside_cm4.detail
    (pi.boot / "pitable-config.txt").unlink()
    gone = check_boot_config(DEFAULTS, pi.boot)
    assert gone.status is Status.FAIL and "is missing" in gone.detail


def test_a_serial_console_on_the_printers_uart_fails(pi: FakePi) -> None:
    (pi.boot / "cmdline.txt").write_text("console=serial0,115200 console=tty1 rootwait\n")
    result = check_serial_console(DEFAULTS, pi.boot)
    assert result is not None and result.status is Status.FAIL
    assert "console=serial0,115200" in result.detail
    usb = dataclasses.replace(DEFAULTS, printer=dataclasses.replace(DEFAULTS.printer,
                                                                    port="/dev/ttyUSB0"))
    assert check_serial_console(usb, pi.boot) is None


def test_the_doctor_reads_whole_blocks_of_the_health_tests() -> None:
    assert HWRNG_SAMPLE % BLOCK == 0 and HWRNG_SAMPLE // BLOCK == 20


# --- the command -------------------------------------------------------------------------


def doctor_argv(pi: FakePi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                unit_dir: Path) -> list[str]:
    """``pitable doctor``'s arguments on the fake Pi, its buses and printer patched in."""
    from pitable import doctor
    from pitable.hw import printer as printer_module

    config = tmp_path / "pitable.toml"
    config.write_text('[gpio]\npin_factory = "mock"\n')
    monkeypatch.setattr(doctor, "_smbus", pi.i2c.bus)
    monkeypatch.setattr(printer_module, "open_transport", lambda settings: pi.printer)
    return ["--config", str(config), "doctor", "--boot-dir", str(pi.boot),
            "--sysfs", str(pi.sysfs), "--rng-device", str(pi.hwrng),
            "--unit-dir", str(unit_dir)]


def test_pitable_doctor_prints_a_line_per_part_and_exits_by_the_worst(
    pi: FakePi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pitable.cli import main

    argv = doctor_argv(pi, tmp_path, monkeypatch, pi.root / "etc/systemd/system")
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 10 and all(line.startswith("PASS  ") for line in out), out

    pi.i2c.bus(pi.panel_bus(1)).unplug(0x3C)
    assert main(argv) == 1
    out = capsys.readouterr().out.splitlines()
    failed = [line for line in out if line.startswith("FAIL")]
    assert len(failed) == 1 and failed[0].startswith("FAIL  purple die:")
    assert " -> check its power" in failed[0]
    assert out[-1] == "1 check failed"


# --- the hints are true on the machine that prints them ------------------------------------


def _no_pin_library(monkeypatch: pytest.MonkeyPatch, board: str) -> None:
    """gpiozero finds none of its pin libraries, as on a machine without lgpio or RPi.GPIO."""
    import warnings

    from gpiozero import Device
    from gpiozero.exc import BadPinFactory, PinFactoryFallback

    from pitable.hw import gpio

    def fails() -> Any:
        for name, module in (("lgpio", "lgpio"), ("rpigpio", "RPi"), ("pigpio", "pigpio")):
            warnings.warn(PinFactoryFallback(
                f"Falling back from {name}: No module named '{module}'"), stacklevel=1)
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(fails))
    monkeypatch.setattr(gpio, "board_model", lambda path=None: board)


def _extra_holds(extra: str) -> set[str]:
    """Every distribution that installing pitable[extra] brings here, by normalised name."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    def wanted(dist: str, extra: str = "") -> list[tuple[str, str]]:
        """(distribution, extra) pairs: an extra may name the package's own other extras
        (``pi = ["pitable[sim]"]``), each followed in turn."""
        requirements = [Requirement(r) for r in metadata.requires(dist) or []]
        return [(canonicalize_name(r.name), e) for r in requirements
                if r.marker is None or r.marker.evaluate({"extra": extra})
                for e in (sorted(r.extras) or [""])]

    todo = wanted("pitable", extra)
    seen: set[tuple[str, str]] = set()
    while todo:
        item = todo.pop()
        if item not in seen:
            seen.add(item)
            todo += wanted(*item)
    return {dist for dist, _ in seen}


def test_off_the_pi_the_pin_hint_says_the_box_needs_a_pi_and_names_the_simulator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_pin_library(monkeypatch, board="")
    result = check_pins(DEFAULTS)
    assert result.status is Status.FAIL
    assert result.detail.startswith("no GPIO pin library works here")
    assert result.fix == "the box needs a Raspberry Pi; `pitable sim` runs it here on fakes"
    assert "pitable[" not in result.line() and "pip install" not in result.line()


@pytest.mark.parametrize(
    ("board", "packages"),
    [
        ("Raspberry Pi 5 Model B Rev 1.0", "sudo apt install python3-lgpio ("),
        ("Raspberry Pi 4 Model B Rev 1.4", "sudo apt install python3-lgpio python3-rpi.gpio ("),
        ("Raspberry Pi Zero 2 W Rev 1.0", "sudo apt install python3-lgpio python3-rpi.gpio ("),
    ],
)
def test_on_a_pi_the_pin_hint_names_the_os_package_and_the_pip_package(
    monkeypatch: pytest.MonkeyPatch, board: str, packages: str,
) -> None:
    _no_pin_library(monkeypatch, board=board)
    result = check_pins(DEFAULTS)
    assert result.status is Status.FAIL
    assert packages in result.fix
    assert result.fix.endswith("in a venv without the system packages: pip install lgpio")
    assert "pitable[" not in result.line()


def test_run_off_the_pi_says_the_box_needs_a_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    from pitable.hw.gpio import GpioError, pin_factory

    _no_pin_library(monkeypatch, board="")
    with pytest.raises(GpioError) as caught:
        pin_factory("")
    assert str(caught.value).endswith(
        "; the box needs a Raspberry Pi; `pitable sim` runs it here on fakes")


def test_the_board_is_read_from_the_device_tree(tmp_path: Path) -> None:
    from pitable.hw.gpio import board_model

    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    assert board_model(model) == "Raspberry Pi 5 Model B Rev 1.0"
    model.write_bytes(b"Pine64 RockPro64 v2.1\0")
    assert board_model(model) == ""
    assert board_model(tmp_path / "none") == ""


def test_every_extra_a_hint_names_holds_what_the_hint_says() -> None:
    import re

    from packaging.utils import canonicalize_name

    from pitable.cli import OPTIONAL_PACKAGES

    source = Path(__file__).parent.parent / "pitable"
    hints = [
        (match.group(1, 2), match.group(3))
        for path in source.rglob("*.py")
        for match in re.finditer(
            r"needs ([\w.-]+)(?: and ([\w.-]+))?: pip install 'pitable\[(\w+)\]'",
            path.read_text(),
        )
    ]
    hints += [((package, None), extra) for package, extra in OPTIONAL_PACKAGES.values()]
    assert len(hints) >= 10
    for packages, extra in hints:
        held = _extra_holds(extra)
        for package in filter(None, packages):
            assert canonicalize_name(package) in held, (package, extra)


def test_a_missing_printer_port_is_named_once_with_the_os_error_once() -> None:
    pytest.importorskip("serial")
    result = check_printer(DEFAULTS, port="/nonexistent/ttyAMA9")
    assert result.status is Status.FAIL
    assert result.detail == (
        "cannot open printer port /nonexistent/ttyAMA9: No such file or directory")


# --- the table's page ----------------------------------------------------------------------

WEB_ON = dataclasses.replace(DEFAULTS, web=dataclasses.replace(DEFAULTS.web, enabled=True))
SYSTEMD = Path(__file__).parent.parent / "systemd"


def install_units(unit_dir: Path, *, web: bool = True, unit_text: str | None = None) -> None:
    """What install.sh leaves in /etc/systemd/system, from the source's own files."""
    unit_dir.mkdir(parents=True, exist_ok=True)
    text = unit_text if unit_text is not None else (SYSTEMD / "pitable.service").read_text()
    (unit_dir / "pitable.service").write_text(text)
    if web:
        (unit_dir / "pitable.service.d").mkdir(exist_ok=True)
        (unit_dir / "pitable.service.d" / "web.conf").write_text(
            (SYSTEMD / "pitable-web.conf").read_text())


def test_the_doctor_passes_the_installed_page_with_its_descriptor_limit(tmp_path: Path) -> None:
    from pitable.doctor import check_web

    install_units(tmp_path)
    result = check_web(WEB_ON, tmp_path)
    assert result is not None and result.status is Status.PASS, result
    assert "LimitNOFILE=4096" in result.detail and "500 listeners" in result.detail
    assert check_web(DEFAULTS, tmp_path) is None  # the web off: nothing to say


def test_the_doctor_fails_a_page_without_its_drop_in(tmp_path: Path) -> None:
    from pitable.doctor import check_web

    install_units(tmp_path, web=False)
    result = check_web(WEB_ON, tmp_path)
    assert result is not None and result.status is Status.FAIL
    assert "web.conf" in result.detail and "install.sh" in result.fix


@pytest.mark.parametrize(("limit", "said"),
                         [(None, "no LimitNOFILE"), ("1024", "LimitNOFILE=1024")])
def test_the_doctor_fails_a_unit_whose_descriptors_cannot_hold_the_page(
    tmp_path: Path, limit: str | None, said: str,
) -> None:
    from pitable.doctor import check_web

    lines = [line for line in (SYSTEMD / "pitable.service").read_text().splitlines()
             if not line.startswith("LimitNOFILE=")]
    if limit is not None:
        lines.insert(lines.index("[Service]") + 1, f"LimitNOFILE={limit}")
    install_units(tmp_path, unit_text="\n".join(lines) + "\n")
    result = check_web(WEB_ON, tmp_path)
    assert result is not None and result.status is Status.FAIL, result
    assert said in result.detail


# --- the service's own access to the generator ---------------------------------------------

#: A user who is not the fake device's owner, in no group of it unless given one.
SERVICE_UID = 4242


def service_account(*gids: int) -> Any:
    def account(user: str, group: str | None, supplementary: Any) -> Account:
        assert user == "pitable" and group == "pitable"
        assert list(supplementary) == ["gpio", "i2c", "spi", "dialout"]
        return Account(SERVICE_UID, frozenset(gids))
    return account


def install_service(pi: FakePi) -> Path:
    """The installed unit, with a drop-in that lets it open the fake generator's path."""
    unit_dir = pi.root / "etc/systemd/system"
    install_units(unit_dir, web=False)
    (unit_dir / "pitable.service.d").mkdir()
    (unit_dir / "pitable.service.d/hwrng.conf").write_text(
        f"[Service]\nDeviceAllow={pi.hwrng} r\n")
    return unit_dir


def test_the_doctor_fails_a_generator_the_services_user_cannot_read(pi: FakePi) -> None:
    # As udev leaves /dev/hwrng when its rule does not match: root's alone.
    unit_dir = install_service(pi)
    pi.hwrng.chmod(0o600)
    probes = dataclasses.replace(pi.probes(), account=service_account())
    results = {r.part: r for r in run_checks(DEFAULTS, probes)}
    result = results["random generator"]
    assert result.status is Status.FAIL, result.line()
    assert "the service's user pitable cannot read it" in result.detail
    assert f"{stat.S_IMODE(pi.hwrng.stat().st_mode):04o}" in result.detail
    assert "--subsystem-match=misc --sysname-match=hw_random" in result.fix
    # Readable by the group the rule gives it, when the service is in that group.
    pi.hwrng.chmod(0o640)
    group = pi.hwrng.stat().st_gid
    ok = check_hwrng(DEFAULTS, pi.hwrng, unit_dir=unit_dir, account=service_account(group))
    assert ok.status is Status.PASS, ok.line()
    other = check_hwrng(DEFAULTS, pi.hwrng, unit_dir=unit_dir,
                        account=service_account(group + 1))
    assert other.status is Status.FAIL
    pi.hwrng.chmod(0o604)
    assert check_hwrng(DEFAULTS, pi.hwrng, unit_dir=unit_dir,
                       account=service_account()).status is Status.PASS


def fake_stat(uid: int, gid: int, mode: int) -> os.stat_result:
    return os.stat_result((stat.S_IFCHR | mode, 0, 0, 1, uid, gid, 0, 0, 0, 0))


@pytest.mark.parametrize(
    ("mode", "account", "readable"),
    [
        (0o600, Account(0, frozenset()), True),  # root
        (0o600, Account(10, frozenset()), True),  # the owner
        (0o064, Account(10, frozenset({20})), False),  # the owner's own bits, not the group's
        (0o640, Account(11, frozenset({20})), True),  # a member of the group
        (0o604, Account(11, frozenset({20})), False),  # the group's bits, not the others'
        (0o604, Account(11, frozenset({21})), True),  # anyone else
        (0o640, Account(11, frozenset({21})), False),
    ],
)
def test_the_permission_bits_are_read_as_the_kernel_reads_them(
    mode: int, account: Account, readable: bool,
) -> None:
    assert may_read(fake_stat(10, 20, mode), account) is readable


def test_the_doctor_fails_a_device_the_unit_does_not_let_the_service_open(pi: FakePi) -> None:
    unit_dir = pi.root / "etc/systemd/system"
    install_units(unit_dir, web=False)  # DeviceAllow=/dev/hwrng r, not the fake's path
    pi.hwrng.chmod(0o644)
    result = check_hwrng(DEFAULTS, pi.hwrng, unit_dir=unit_dir, account=service_account())
    assert result.status is Status.FAIL and "DeviceAllow" in result.detail, result.line()


def test_a_service_user_that_does_not_exist_fails(pi: FakePi) -> None:
    unit_dir = install_service(pi)

    def nobody_there(user: str, group: str | None, supplementary: Any) -> Account:
        raise KeyError(f"user {user}")

    result = check_hwrng(DEFAULTS, pi.hwrng, unit_dir=unit_dir, account=nobody_there)
    assert result.status is Status.FAIL
    assert result.detail == "the service runs as User=pitable, but user pitable does not exist"


def test_the_accounts_are_the_systems(pi: FakePi) -> None:
    import grp
    import pwd

    me = pwd.getpwuid(os.getuid())
    account = system_account(me.pw_name, None, [])
    assert account.uid == me.pw_uid and me.pw_gid in account.gids
    with pytest.raises(KeyError, match="user no-such-user-here"):
        system_account("no-such-user-here", None, [])
    with pytest.raises(KeyError, match="group no-such-group-here"):
        system_account(me.pw_name, None, ["no-such-group-here"])
    root_group = grp.getgrgid(0).gr_name
    assert 0 in system_account(me.pw_name, None, [root_group]).gids


def test_pitable_doctor_fails_what_root_reads_and_the_service_cannot(
    pi: FakePi, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The doctor runs as root (sudo), who reads every device: the service's user is held
    # to the device's mode with the system's own accounts. nobody is not its owner.
    import pwd

    from pitable.cli import main

    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody here")
    if os.getuid() == nobody.pw_uid:
        pytest.skip("running as nobody")
    unit_dir = install_service(pi)
    unit = unit_dir / "pitable.service"
    unit.write_text(unit.read_text().replace("User=pitable", "User=nobody")
                    .replace("Group=pitable", "Group=").replace(
                        "SupplementaryGroups=gpio i2c spi dialout", "SupplementaryGroups="))
    pi.hwrng.chmod(0o600)
    results = {r.part: r for r in run_checks(DEFAULTS, pi.probes())}
    assert results["random generator"].status is Status.FAIL, results["random generator"]
    argv = doctor_argv(pi, tmp_path, monkeypatch, unit_dir)
    assert main(argv) == 1
    failed = [line for line in capsys.readouterr().out.splitlines() if line.startswith("FAIL")]
    assert len(failed) == 1 and failed[0].startswith("FAIL  random generator: ")
    assert "the service's user nobody cannot read it" in failed[0]
    pi.hwrng.chmod(0o644)
    assert main(argv) == 0
