"""``pitable doctor``: one line per part, PASS or FAIL with what to do; exit 0 only if all pass."""

from __future__ import annotations

import argparse
from pathlib import Path

from pitable.commands.args import directory_path, non_empty


def setup_doctor(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Check each part the config names: the boot config, the I2C mux, each"
        " OLED, the printer, /dev/hwrng (that the service's user may read it, and the"
        " health tests the dice apply) and the GPIO"
        " pins. One line per part; exit status 0 only when every check passes. Stop the"
        " service first (sudo systemctl stop pitable): it holds the pins."
    )
    p.add_argument("--boot-dir", metavar="DIR", type=lambda text: Path(directory_path(text)),
                   help="the boot partition (default /boot/firmware, else /boot)")
    p.add_argument("--sysfs", metavar="DIR", type=Path, default=Path("/sys"),
                   help=argparse.SUPPRESS)
    p.add_argument("--unit-dir", metavar="DIR", type=Path, default=Path("/etc/systemd/system"),
                   help=argparse.SUPPRESS)
    p.add_argument("--printer-port", metavar="PORT", type=non_empty("a device path or URL"),
                   help="ask the printer on PORT (a device or pyserial URL) instead")
    p.add_argument("--rng-device", metavar="PATH", type=non_empty("a device path"),
                   help="check PATH instead of the config's entropy.device")
    p.set_defaults(run=run_doctor)


def run_doctor(args: argparse.Namespace) -> int:
    from pitable.config import load_default_or
    from pitable.doctor import Probes, run_checks

    config = load_default_or(args.config).config
    probes = Probes(sysfs=args.sysfs, printer_port=args.printer_port, hwrng=args.rng_device,
                    unit_dir=args.unit_dir)
    if args.boot_dir is not None:
        probes.boot_dir = args.boot_dir
    failed = 0
    for result in run_checks(config, probes):
        print(result.line(), flush=True)
        failed += not result.ok
    if failed:
        print(f"{failed} check{'s' if failed != 1 else ''} failed")
        return 1
    return 0
