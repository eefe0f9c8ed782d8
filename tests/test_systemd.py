"""systemd/pitable.service: what it promises, checked by systemd's own tools where present."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).parent.parent / "systemd" / "pitable.service"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(
    ANALYZE is None, reason="systemd-analyze is not installed (apt-get install systemd)"
)


def settings() -> dict[str, list[str]]:
    """Every Key=value of the unit, by key, in order (a key may repeat)."""
    out: dict[str, list[str]] = {}
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "[")):
            continue
        key, _, value = line.partition("=")
        out.setdefault(key, []).append(value)
    return out


def test_the_unit_notifies_has_a_watchdog_and_restarts() -> None:
    s = settings()
    assert s["Type"] == ["notify"]
    assert s["NotifyAccess"] == ["main"]
    assert s["Restart"] == ["on-failure"]
    watchdog = s["WatchdogSec"][0]
    assert re.fullmatch(r"\d+s", watchdog) and 0 < int(watchdog[:-1]) <= 60
    assert s["User"] == ["pitable"]
    assert set(s["SupplementaryGroups"][0].split()) == {"gpio", "i2c", "spi", "dialout"}
    assert s["StateDirectory"] == ["pitable"]
    # A writable working directory (the state directory): lgpio needs one.
    assert s["WorkingDirectory"] == ["%S/pitable"]
    assert s["ExecStart"][0].split()[-1] == "run"


def test_the_unit_keeps_the_parts_devices_and_nothing_else() -> None:
    s = settings()
    assert s["DevicePolicy"] == ["closed"]
    assert "PrivateDevices" not in s
    allowed = {entry.split()[0] for entry in s["DeviceAllow"]}
    for device in ("char-i2c", "char-spi", "char-gpiochip", "char-ttyAMA", "/dev/hwrng"):
        assert device in allowed
    # hwrng is read-only; a device path may not be a glob (systemd globs only char-*).
    assert "/dev/hwrng r" in s["DeviceAllow"]
    assert not [d for d in allowed if d.startswith("/") and any(c in d for c in "*?[")]
    assert s["PrivateNetwork"] == ["yes"]
    assert s["RestrictAddressFamilies"] == ["AF_UNIX"]
    assert s["CapabilityBoundingSet"] == [""]


@needs_analyze
def test_security_exposure_is_in_the_safe_band() -> None:
    assert ANALYZE is not None
    result = subprocess.run(
        [ANALYZE, "security", "--offline=true", "--no-pager", str(UNIT)],
        capture_output=True, text=True, check=False, timeout=60,
    )
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match[1]) < 1.0, result.stdout
    assert match[2] == "SAFE"


@needs_analyze
def test_verify_is_clean(tmp_path: Path) -> None:
    """systemd-analyze verify checks that ExecStart exists, so the copy points at one that does."""
    assert ANALYZE is not None
    executable = tmp_path / "pitable"
    executable.write_text("#!/bin/sh\nexit 0\n")
    executable.chmod(0o755)
    text = UNIT.read_text()
    assert "ExecStart=/opt/pitable/venv/bin/pitable " in text
    copy = tmp_path / "pitable.service"
    copy.write_text(text.replace("/opt/pitable/venv/bin/pitable", str(executable)))
    result = subprocess.run(
        [ANALYZE, "verify", "--no-pager", str(copy)],
        capture_output=True, text=True, check=False, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    # Warnings (an unknown key, a deprecated setting) come on stderr with exit status 0.
    assert [line for line in result.stderr.splitlines() if "pitable" in line] == []
