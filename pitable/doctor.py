"""``pitable doctor``: check every configured part on the Pi, one line each.

Each check takes what it looks at as an argument (the sysfs root, a bus factory, the
printer's transport, the hwrng path, the boot directory, a gpiozero pin factory), so that
the tests run every check against the fakes and break each part in turn. On the Pi the
defaults are the real ones: ``/sys``, ``smbus2.SMBus``, the configured serial port,
``/dev/hwrng``, ``/boot/firmware`` and gpiozero's own pin factory.

A check never raises for a broken part: it returns a :class:`Result` that says what was
found and, when it failed, what to do about it.
"""

from __future__ import annotations

import enum
import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pitable.config import (
    Config,
    DisplayConfig,
    PageLimits,
    PrinterConfig,
    printer_config,
)
from pitable.errors import PitableError
from pitable.firmware import (
    FRAGMENT_NAME,
    HWRNG_KERNEL_NAME,
    HWRNG_SUBSYSTEM,
    INCLUDE_LINES,
    boot_config,
    include_present,
    uses_local_uart,
)
from pitable.pins import I2C_PINS, LOCAL_UARTS, UART_PINS, signal_pins
from pitable.wiring import load_hook, parts, pin_claims

#: SSD1306, SSD1309 and SH1106 all take 0xE3 as "no operation": a write that a panel
#: acknowledges and that changes nothing on it.
OLED_NOP = 0xE3
#: Bytes of /dev/hwrng read for the health tests: 20 of their blocks (hw.health.BLOCK),
#: the start-up test's and 19 periodic ones. Written out so that importing the doctor does
#: not import the hardware layer; tests/test_doctor.py holds it to 20 blocks.
HWRNG_SAMPLE = 20 * 1024
#: Seconds the whole sample may take: the Pi's generator gives it in about 2 s.
HWRNG_LIMIT_S = 20.0
INSTALL = "sudo ./install.sh"


class Status(enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    SKIP = "SKIP"


@dataclass(frozen=True)
class Result:
    """One part's verdict: what was found, and on failure what to do."""

    part: str
    status: Status
    detail: str
    fix: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not Status.FAIL

    def line(self) -> str:
        text = f"{self.status.value}  {self.part}: {self.detail}"
        if self.status is Status.FAIL and self.fix:
            text += f" -> {self.fix}"
        return text


def _passed(part: str, detail: str) -> Result:
    return Result(part, Status.PASS, detail)


def _failed(part: str, detail: str, fix: str) -> Result:
    return Result(part, Status.FAIL, detail, fix)


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


# --- the boot configuration --------------------------------------------------------------


def check_boot_config(config: Config, boot_dir: Path) -> Result:
    """The fragment on the boot partition says what the config wants, and is included."""
    part = "boot config"
    config_txt = boot_dir / "config.txt"
    fragment = boot_dir / FRAGMENT_NAME
    try:
        text = config_txt.read_text(errors="replace")
    except OSError as exc:
        return _failed(part, f"cannot read {config_txt}: {_why(exc)}",
                       "is this a Raspberry Pi? Give the boot directory with --boot-dir")
    try:
        actual = fragment.read_text(errors="replace")
    except FileNotFoundError:
        return _failed(part, f"{fragment} is missing", f"run {INSTALL}, then reboot")
    except OSError as exc:
        return _failed(part, f"cannot read {fragment}: {_why(exc)}", f"run {INSTALL}")
    if actual != boot_config(config):
        return _failed(
            part, f"{fragment} does not match the config",
            f"run {INSTALL} to rewrite it from the config, then reboot",
        )
    if not include_present(text):
        return _failed(
            part, f"{config_txt} does not include {FRAGMENT_NAME}",
            f"add the lines {' / '.join(repr(line) for line in INCLUDE_LINES)} at its end"
            f" (or run {INSTALL}), then reboot",
        )
    return _passed(part, f"{fragment} matches the config and {config_txt.name} includes it")


def check_serial_console(config: Config, boot_dir: Path) -> Result | None:
    """A login console on the printer's UART would print the boot messages on its paper."""
    if not uses_local_uart(config):
        return None
    part = "serial console"
    cmdline = boot_dir / "cmdline.txt"
    try:
        words = cmdline.read_text().split()
    except OSError as exc:
        return _failed(part, f"cannot read {cmdline}: {_why(exc)}",
                       "give the boot directory with --boot-dir")
    consoles = [w for w in words if w.startswith(("console=serial0", "console=ttyAMA0",
                                                  "console=ttyS0"))]
    if consoles:
        return _failed(
            part, f"{cmdline} puts a login console on the printer's UART ({consoles[0]})",
            f"run {INSTALL} (or raspi-config: Interface Options > Serial Port: no login"
            " shell, port enabled), then reboot",
        )
    return _passed(part, f"the UART is free for the printer ({cmdline.name} has no console on it)")


# --- I2C: the mux and the OLEDs ------------------------------------------------------------


def _mux_dir(config: Config, sysfs: Path) -> Path:
    return sysfs / "bus/i2c/devices" / f"{config.i2c.bus}-{config.i2c.mux_address:04x}"


def check_mux(config: Config, sysfs: Path) -> Result | None:
    """The kernel found the mux and made a bus of each channel the displays use.

    The i2c-mux overlay's driver owns the mux's address, so it is checked in sysfs, where
    the driver links each channel to its adapter once the chip has answered at boot.
    """
    i2c = config.i2c
    users = [d for d in config.displays.enabled() if d.interface == "i2c"]
    if not (i2c.mux and users):
        return None
    part = "I2C mux"
    where = f"0x{i2c.mux_address:02x} on /dev/i2c-{i2c.bus}"
    if not (sysfs / "bus/i2c/devices" / f"i2c-{i2c.bus}").exists():
        return _failed(part, f"I2C bus {i2c.bus} is off",
                       f"run {INSTALL} (it turns I2C on in the boot config), then reboot")
    mux = _mux_dir(config, sysfs)
    if not mux.exists():
        return _failed(
            part, f"no mux declared at {where} ({mux} missing)",
            "the i2c-mux overlay is not loaded: check the boot config, then reboot",
        )
    channels = sorted({d.mux_channel for d in users if d.mux_channel is not None})
    missing = [c for c in channels if not (mux / f"channel-{c}").is_symlink()]
    if i2c.bus == 1:
        sda, scl = signal_pins(I2C_PINS[1], "SDA", "SCL")
        wires = f"SDA to GPIO {sda} and SCL to GPIO {scl}"
    else:
        wires = "its SDA and SCL wires"
    if missing:
        return _failed(
            part, f"the mux at {where} did not answer at boot (no channel"
            f" {', '.join(str(c) for c in missing)} in {mux})",
            f"check its power, {wires}, and its address pins (A2 A1 A0 ="
            f" {i2c.mux_address - 0x70:03b} for 0x{i2c.mux_address:02x}), then reboot",
        )
    return _passed(part, f"{where}, channels {', '.join(str(c) for c in channels)} present")



def check_display(
    d: DisplayConfig,
    config: Config,
    sysfs: Path,
    bus_factory: Callable[[int], Any],
) -> Result:
    """The panel acknowledges a no-op command at its bus and address."""
    from pitable.hw.oled import DisplayError, mux_channel_bus

    part = d.part_name
    if not d.enabled:
        return Result(part, Status.SKIP, "disabled in the config")
    if d.interface == "spi":
        # SPI panels have no way to answer; the bus device is all there is to find.
        node = sysfs / "bus/spi/devices" / f"spi{d.spi_port}.{d.spi_device}"
        if not node.exists():
            return _failed(part, f"no SPI device spi{d.spi_port}.{d.spi_device}",
                           f"run {INSTALL} (it turns SPI on), then reboot")
        return _passed(part, f"{d.location}: the SPI device is there (an SPI panel cannot"
                             " answer: look at the screen)")
    try:
        if d.mux_channel is not None and config.i2c.mux:
            bus = mux_channel_bus(config.i2c.bus, config.i2c.mux_address, d.mux_channel,
                                  sysfs)
        else:
            bus = d.bus if d.bus is not None else config.i2c.bus
    except DisplayError as exc:
        return _failed(part, f"{d.location}: {exc}", "fix the I2C mux first (see its line)")
    where = f"{d.location} (/dev/i2c-{bus})" if d.mux_channel is not None else d.location
    try:
        handle = bus_factory(bus)
    except OSError as exc:
        return _failed(part, f"cannot open /dev/i2c-{bus}: {_why(exc)}",
                       f"run {INSTALL} (I2C on, user in group i2c), then reboot")
    try:
        handle.write_i2c_block_data(d.address, 0x00, [OLED_NOP])
    except OSError as exc:
        code = exc.errno
        if code in (errno.EREMOTEIO, errno.ENXIO, errno.EIO):
            return _failed(
                part, f"{where} did not answer ({_why(exc)})",
                f"check its power, SDA and SCL wires, and that its address is"
                f" 0x{d.address:02x} (some boards are set to 0x3d)",
            )
        return _failed(part, f"{where}: {_why(exc)}", "check the wiring, then run again")
    finally:
        close = getattr(handle, "close", None)
        if close is not None:
            close()
    return _passed(part, f"{where} answers ({d.driver.upper()})")


def _smbus(bus: int) -> Any:
    try:
        from smbus2 import SMBus
    except ImportError:
        from pitable.errors import MissingDependency

        raise MissingDependency("pitable doctor needs smbus2: pip install 'pitable[pi]'") from None
    return SMBus(bus)


# --- the printer ------------------------------------------------------------------------


def printer_settings(config: Config, port: str | None = None) -> PrinterConfig:
    """The config's [printer] table, with ``port`` in place of its own when given."""
    return printer_config(config.printer, port=port)


def check_printer(
    config: Config,
    *,
    port: str | None = None,
    transport: Any = None,
) -> Result:
    """The printer answers a status request (DLE EOT, or ESC v for the dc2 family).

    ``transport`` stands in for the serial port (a fake printer); ``port`` overrides the
    config's (any pyserial URL, such as ``loop://``).
    """
    from pitable.hw.printer import PrinterSettings, ThermalPrinter

    part = "printer"
    if not config.printer.enabled:
        return Result(part, Status.SKIP, "disabled in the config")
    settings = printer_settings(config, port)
    # A status request needs only where the printer is and which commands it speaks (the
    # doctor sits below the box, whose printer_settings gives a driver all of them).
    printer = ThermalPrinter(
        PrinterSettings(port=settings.port, baudrate=settings.baudrate,
                        image_command=settings.image_command, timeout_s=settings.timeout_s),
        transport=transport,
    )
    try:
        status = printer.status()
    except PitableError as exc:
        said = str(exc)
        return _failed(part, said if settings.port in said else f"{settings.port}: {said}",
                       "check the port in the config, and that the user is in group dialout")
    finally:
        printer.close()
    if status.online is None and status.paper is None:
        (rx_gpio,) = signal_pins(UART_PINS, "RXD")
        rx = (f"GPIO {rx_gpio} (through the divider)" if settings.port in LOCAL_UARTS
              else "the adapter's RX")
        return _failed(
            part, f"no answer to a status request on {settings.port} at"
            f" {settings.baudrate} baud",
            f"check its power (5-9 V, 2 A), its TX to {rx}, and the baud rate on its"
            " self-test page",
        )
    if status.online is False:
        return _failed(part, f"on {settings.port}: offline",
                       "close the paper cover and check the printer's power")
    if status.paper is False:
        return _failed(part, f"on {settings.port}: out of paper", "load a paper roll")
    said = "online" if status.online else "answers"
    paper = ", paper loaded" if status.paper else ""
    return _passed(part, f"{settings.port} at {settings.baudrate} baud: {said}{paper}")


# --- the random generator -------------------------------------------------------------


@dataclass(frozen=True)
class Account:
    """Who a process runs as, for the permission bits: its user and all its groups."""

    uid: int
    gids: frozenset[int]


def system_account(user: str, group: str | None, supplementary: Sequence[str]) -> Account:
    """The account systemd gives a unit with ``User=user``, ``Group=group`` and
    ``SupplementaryGroups=``: the user's primary group (or Group=), the groups the group
    database lists the user in (systemd calls initgroups for User=), and the supplementary
    ones. Raises KeyError naming a user or group that does not exist."""
    import grp
    import pwd

    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise KeyError(f"user {user}") from None
    gids = set(os.getgrouplist(user, entry.pw_gid))
    for name in ([group] if group else []) + list(supplementary):
        try:
            gids.add(grp.getgrnam(name).gr_gid)
        except KeyError:
            raise KeyError(f"group {name}") from None
    return Account(entry.pw_uid, frozenset(gids))


def may_read(st: os.stat_result, account: Account) -> bool:
    """Whether ``account`` may open a file with this owner, group and mode for reading.

    The permission bits as the kernel applies them: the owner's class alone for the
    owner, then the group's for a member, else the others'; root reads everything.
    (POSIX ACLs are left out: udev sets none on /dev/hwrng.)
    """
    if account.uid == 0:
        return True
    if st.st_uid == account.uid:
        return bool(st.st_mode & stat.S_IRUSR)
    if st.st_gid in account.gids:
        return bool(st.st_mode & stat.S_IRGRP)
    return bool(st.st_mode & stat.S_IROTH)


def _owner(st: os.stat_result) -> str:
    import grp
    import pwd

    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return f"{user}:{group} {stat.S_IMODE(st.st_mode):04o}"


#: Re-applies the udev rule to a generator that is already there.
UDEV_TRIGGER = (f"sudo udevadm trigger --action=change --subsystem-match={HWRNG_SUBSYSTEM}"
                f" --sysname-match={HWRNG_KERNEL_NAME}")


def _device_allowed(device: str, allowed: Sequence[str]) -> bool:
    """Whether one of the unit's DeviceAllow= entries lets it read ``device``: its path
    (or the node it links to) with r, or the misc class the generator belongs to."""
    targets = {device, os.path.realpath(device)}
    for entry in allowed:
        spec, _, access = entry.partition(" ")
        if "r" not in (access.strip() or "rwm"):
            continue
        if spec in ("char-misc", "char-*") or spec in targets \
                or os.path.realpath(spec) in targets:
            return True
    return False


def check_service_access(
    device: str,
    st: os.stat_result,
    unit_dir: Path,
    account: Callable[[str, str | None, Sequence[str]], Account] = system_account,
) -> Result | None:
    """A failure when the installed service could not open ``device``, else None.

    The doctor runs as root, who reads every device; the service runs as the unit's
    User=, and a device it cannot open makes the box roll from the OS generator instead
    (with entropy.require_hwrng off, the default) without a word. So the device's owner,
    group and mode are held against the unit's User=, Group= and SupplementaryGroups=,
    and its path against the unit's DeviceAllow= when DevicePolicy= closes the others.
    """
    if not (unit_dir / "pitable.service").exists():
        return None  # no installed service: nobody else to read it for
    part = "random generator"
    users = _unit_settings(unit_dir, "User")
    user = users[-1] if users else ""
    if user and user != "root":
        groups = _unit_settings(unit_dir, "Group")
        supplementary: list[str] = []
        for value in _unit_settings(unit_dir, "SupplementaryGroups"):
            supplementary = supplementary + value.split() if value else []
        try:
            who = account(user, groups[-1] if groups else None, supplementary)
        except KeyError as exc:
            return _failed(part, f"the service runs as User={user}, but {exc.args[0]} does"
                           " not exist", f"run {INSTALL}")
        if not may_read(st, who):
            return _failed(
                part, f"{device} is {_owner(st)}: the service's user {user} cannot read it"
                " and the box would roll from the OS generator",
                f"run {INSTALL} (its udev rule gives group pitable read access), or apply"
                f" the rule now: {UDEV_TRIGGER}",
            )
    policies = _unit_settings(unit_dir, "DevicePolicy")
    if policies and policies[-1] in ("closed", "strict"):
        allowed = [v for v in _unit_settings(unit_dir, "DeviceAllow") if v]
        if not _device_allowed(device, allowed):
            return _failed(
                part, f"the service may not open {device}: its unit's DeviceAllow= does not"
                " name it", f"use /dev/hwrng (entropy.device) or add DeviceAllow={device} r"
                " in a drop-in",
            )
    return None


def check_hwrng(config: Config, path: str | os.PathLike[str] | None = None,
                sample: int = HWRNG_SAMPLE, deadline_s: float | None = None, *,
                unit_dir: Path | None = None,
                account: Callable[[str, str | None, Sequence[str]], Account] = system_account,
                ) -> Result:
    """The service may read the device, and a sample passes the dice's health tests.

    With ``unit_dir``, the installed unit's user must be able to open the device (see
    :func:`check_service_access`). The device is read as the dice read it: a device that
    gives nothing for ``deadline_s`` (or takes longer than :data:`HWRNG_LIMIT_S` for the
    whole sample) has failed. The verdict is :class:`pitable.hw.health.HealthMonitor`'s,
    the same that ``pitable roll`` and the box act on: what passes here is what they roll
    from.
    """
    from pitable.errors import HealthTestFailure
    from pitable.hw.entropy import read_device
    from pitable.hw.health import HealthMonitor

    part = "random generator"
    device = os.fspath(path) if path is not None else config.entropy.device
    if unit_dir is not None:
        try:
            st = os.stat(device)
        except OSError:
            pass  # said below, as the read finds it
        else:
            refused = check_service_access(device, st, unit_dir, account)
            if refused is not None:
                return refused
    try:
        wait = config.entropy.deadline_s if deadline_s is None else deadline_s
        data = read_device(device, sample, limit_s=HWRNG_LIMIT_S, deadline_s=wait)
    except FileNotFoundError:
        return _failed(part, f"{device} is missing",
                       "the kernel's RNG driver (bcm2835-rng or iproc-rng200) is not loaded:"
                       " update Raspberry Pi OS")
    except PermissionError:
        return _failed(part, f"{device} is not readable by this user",
                       f"run {INSTALL} (udev rule for group pitable), or run the doctor as"
                       " the service's user: sudo -u pitable pitable doctor")
    except OSError as exc:
        return _failed(part, f"{device} cannot be read: {_why(exc)}",
                       "the device is broken or busy: reboot")
    if len(data) < sample:
        return _failed(part, f"{device} gave {len(data)} of {sample} bytes",
                       "the device stops giving data: reboot")
    monitor = HealthMonitor(min_entropy=config.entropy.min_entropy)
    try:
        monitor.check(bytes(data))
    except HealthTestFailure as exc:
        return _failed(part, f"{device} failed a health test: {exc}",
                       "do not roll from it: set entropy.require_hwrng = false to fall back"
                       " to the OS generator")
    return _passed(part, f"{device}: {sample} bytes pass the start-up, continuous and"
                         f" periodic health tests ({monitor.blocks_passed} blocks)")


# --- GPIO -------------------------------------------------------------------------


def check_pins(config: Config, factory: Any = None) -> Result:
    """Every pin of the config can be claimed (nothing else holds it)."""
    part = "GPIO pins"
    claims = pin_claims(config)
    if factory is None:
        from pitable.hw.gpio import GpioError, pin_factory

        try:
            factory = pin_factory(config.gpio.pin_factory)
        except GpioError as exc:
            return _failed(part, exc.reason,
                           exc.hint or "check gpio.pin_factory in the config (leave it empty"
                           " for gpiozero's own choice)")
    from gpiozero import GPIODevice

    busy: list[str] = []
    for key, pin in claims:
        try:
            device = GPIODevice(pin, pin_factory=factory)
        except Exception as exc:
            busy.append(f"GPIO {pin} ({key}): {exc}")
        else:
            device.close()
    if busy:
        return _failed(part, "in use: " + "; ".join(busy),
                       "stop what holds them (sudo systemctl stop pitable, or another"
                       " program or overlay), or choose other pins in the config")
    pins = ", ".join(str(pin) for _, pin in claims)
    return _passed(part, f"GPIO {pins} are free")


# --- all of it ---------------------------------------------------------------------


# --- the table's page ---------------------------------------------------------------------


def _unit_settings(unit_dir: Path, key: str) -> list[str]:
    """Every value of ``key`` in the installed unit and its drop-ins, in systemd's order."""
    files = [unit_dir / "pitable.service",
             *sorted((unit_dir / "pitable.service.d").glob("*.conf"))]
    values = []
    for path in files:
        try:
            text = path.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            name, equals, value = line.strip().partition("=")
            if equals and name.strip() == key:
                values.append(value.strip())
    return values


def check_web(config: Config, unit_dir: Path) -> Result | None:
    """With [web] on: the installed service may use the network (install.sh's drop-in),
    and its descriptor limit holds the page's budgets beside the box's reserve."""
    if not config.web.enabled:
        return None
    part = "web page"
    if not (unit_dir / "pitable.service").exists():
        return Result(part, Status.SKIP, f"no pitable.service in {unit_dir}")
    if not (unit_dir / "pitable.service.d" / "web.conf").exists():
        return _failed(part, "[web] is enabled but the service has no network (its web.conf"
                       " drop-in is missing)", INSTALL)
    limits = _unit_settings(unit_dir, "LimitNOFILE")
    soft = limits[-1].split(":")[0] if limits else ""
    if not soft.isdigit():
        return _failed(part, "the service sets no LimitNOFILE: the page would fit its"
                       " connections into systemd's default of 1024", INSTALL)
    wanted, fitted = PageLimits(), PageLimits().fitted(int(soft))
    if fitted != wanted:
        return _failed(part, f"LimitNOFILE={soft} leaves the page {fitted.listeners} listeners"
                       f" and {fitted.connections} connections (of {wanted.listeners} and"
                       f" {wanted.connections})", INSTALL)
    return _passed(part, f"served with LimitNOFILE={soft}: {wanted.listeners} listeners and"
                   f" {wanted.connections} connections beside the box's reserve")


def default_boot_dir() -> Path:
    """/boot/firmware on Bookworm; /boot on the releases before it."""
    bookworm = Path("/boot/firmware")
    return bookworm if (bookworm / "config.txt").exists() else Path("/boot")


@dataclass
class Probes:
    """What the doctor looks at; the defaults are the Pi's own."""

    sysfs: Path = Path("/sys")
    boot_dir: Path = field(default_factory=default_boot_dir)
    #: Opens /dev/i2c-N by number; None: smbus2.SMBus.
    bus_factory: Callable[[int], Any] | None = None
    printer_port: str | None = None
    printer_transport: Any = None
    hwrng: str | os.PathLike[str] | None = None
    hwrng_sample: int = HWRNG_SAMPLE
    pin_factory: Any = None
    #: Where install.sh puts the unit and its drop-ins.
    unit_dir: Path = Path("/etc/systemd/system")
    #: Resolves the unit's User= and groups (see :func:`system_account`).
    account: Callable[[str, str | None, Sequence[str]], Account] = system_account


def check_mux_part(config: Config, probes: Probes) -> Result | None:
    """The I2C part's check (see :func:`check_mux`)."""
    return check_mux(config, probes.sysfs)


def check_displays_part(config: Config, probes: Probes) -> list[Result]:
    """The displays' checks, one each (see :func:`check_display`)."""
    return [check_display(d, config, probes.sysfs, probes.bus_factory or _smbus)
            for d in config.displays.all()]


def check_printer_part(config: Config, probes: Probes) -> Result:
    """The printer's check (see :func:`check_printer`)."""
    return check_printer(config, port=probes.printer_port, transport=probes.printer_transport)


def run_checks(config: Config, probes: Probes | None = None) -> Iterator[Result]:
    """Every check, in the order of the box: boot, then each registered part's own (buses,
    displays, printer, ...), RNG, pins, and the table's page when it is on."""
    probes = probes or Probes()
    yield check_boot_config(config, probes.boot_dir)
    console = check_serial_console(config, probes.boot_dir)
    if console is not None:
        yield console
    # Each part's own check, in the order of the box: the buses, then the rest.
    ordered = [p for p in parts() if p.bus] + [p for p in parts() if not p.bus]
    for part in ordered:
        if part.check:
            found = load_hook(part.check)(config, probes)
            if isinstance(found, Result):
                yield found
            elif found is not None:
                yield from found
    yield check_hwrng(config, probes.hwrng, probes.hwrng_sample, unit_dir=probes.unit_dir,
                      account=probes.account)
    yield check_pins(config, probes.pin_factory)
    web = check_web(config, probes.unit_dir)
    if web is not None:
        yield web

