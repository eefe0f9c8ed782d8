"""A misc device as sysfs shows it, and udev's own matching of a rule or a trigger against it.

udev takes a device's KERNEL from the last part of its sysfs path (its "sysname"), its
SUBSYSTEM from the target of its ``subsystem`` link, and its node from DEVNAME in its
``uevent`` file. The fake sysfs here is laid out the same way, so that a rule is read
against the names the kernel gives, not against the node's name. Patterns are matched as
udev matches them: shell globs, with ``|`` between alternatives (udev(7), "Operators").
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

#: One match key of a rule: KEY=="value" or KEY!="value".
_MATCH = re.compile(r'\s*([A-Z]+)\s*(==|!=)\s*"([^"]*)"\s*')


@dataclass(frozen=True)
class Device:
    kernel: str
    subsystem: str
    devname: str

    @classmethod
    def from_sysfs(cls, path: Path) -> Device:
        """Read a device the way udev does: sysname, subsystem link, uevent."""
        real = Path(os.path.realpath(path))
        subsystem = Path(os.readlink(real / "subsystem")).name
        uevent = dict(
            line.split("=", 1) for line in (real / "uevent").read_text().splitlines() if line
        )
        return cls(kernel=real.name, subsystem=subsystem, devname="/dev/" + uevent["DEVNAME"])


def misc_device(sysfs: Path, kernel: str, node: str, minor: int) -> Path:
    """A misc device under ``sysfs``: devices/virtual/misc/KERNEL, linked from class/misc."""
    device = sysfs / "devices/virtual/misc" / kernel
    device.mkdir(parents=True)
    (device / "uevent").write_text(f"MAJOR=10\nMINOR={minor}\nDEVNAME={node}\n")
    (sysfs / "class/misc").mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(sysfs / "class/misc", device), device / "subsystem")
    link = sysfs / "class/misc" / kernel
    os.symlink(os.path.relpath(device, link.parent), link)
    return link


def _glob(pattern: str, value: str) -> bool:
    return any(fnmatch.fnmatchcase(value, p) for p in pattern.split("|"))


def rule_matches(rule: str, device: Device) -> bool:
    """Whether every match key of one rule line holds for ``device``."""
    values = {"KERNEL": device.kernel, "SUBSYSTEM": device.subsystem}
    matched = False
    for part in rule.split(","):
        m = _MATCH.fullmatch(part)
        if m is None:
            continue  # an assignment (GROUP=, MODE=), not a match
        key, op, pattern = m.groups()
        if key not in values:
            raise ValueError(f"this reader does not know the match key {key}")
        if _glob(pattern, values[key]) != (op == "=="):
            return False
        matched = True
    return matched


def trigger_matches(command: str, device: Device) -> bool:
    """Whether ``udevadm trigger ...`` (as written) sends an event to ``device``."""
    args = shlex.split(command)
    assert args[:2] == ["udevadm", "trigger"], command
    checks = {"--subsystem-match": device.subsystem, "--sysname-match": device.kernel}
    for arg in args[2:]:
        name, _, pattern = arg.partition("=")
        if name in checks and not _glob(pattern, checks[name]):
            return False
    return True
