"""The service with the web page on: the drop-in that opens the network, and install.sh.

The unit alone keeps its network closed (tests/test_systemd.py); with the drop-in, systemd's
own assessment stays below 2.0 and the addresses are those of a local network only.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.install import install

REPO = Path(__file__).parent.parent
UNIT = REPO / "systemd" / "pitable.service"
# Kept apart from the unit in the source: systemd-analyze reads a unit's .d folder beside it,
# and the unit alone is the web-off service.
DROP_IN = REPO / "systemd" / "pitable-web.conf"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(
    ANALYZE is None, reason="systemd-analyze is not installed (apt-get install systemd)"
)
INSTALLED_DROP_IN = "etc/systemd/system/pitable.service.d/web.conf"


def settings(path: Path) -> list[tuple[str, str]]:
    return [
        (key, value)
        for raw in path.read_text().splitlines()
        if (line := raw.strip()) and not line.startswith(("#", "["))
        for key, _, value in [line.partition("=")]
    ]


def test_the_drop_in_opens_ip_to_the_local_network_only() -> None:
    s = settings(DROP_IN)
    assert ("PrivateNetwork", "no") in s
    families = [v for k, v in s if k == "RestrictAddressFamilies"]
    assert families == ["", "AF_UNIX AF_INET AF_INET6"], "replaced, not added to"
    assert ("IPAddressDeny", "any") in s
    allowed = " ".join(v for k, v in s if k == "IPAddressAllow").split()
    assert set(allowed) == {"localhost", "link-local", "10.0.0.0/8", "172.16.0.0/12",
                            "192.168.0.0/16", "fc00::/7"}
    # Nothing else of the unit is loosened.
    assert {k for k, _ in s} == {"PrivateNetwork", "RestrictAddressFamilies", "IPAddressDeny",
                                 "IPAddressAllow"}


def exposure(root_dir: Path) -> tuple[float, str]:
    assert ANALYZE is not None
    result = subprocess.run(
        [ANALYZE, "security", "--offline=true", "--no-pager", f"--root={root_dir}",
         "pitable.service"],
        capture_output=True, text=True, check=False, timeout=60,
    )
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", result.stdout)
    assert match, result.stdout + result.stderr
    return float(match[1]), result.stdout


@needs_analyze
def test_the_security_exposure_with_the_web_on_stays_below_2(tmp_path: Path) -> None:
    units = tmp_path / "etc/systemd/system"
    (units / "pitable.service.d").mkdir(parents=True)
    shutil.copy(UNIT, units / "pitable.service")
    off, _ = exposure(tmp_path)
    shutil.copy(DROP_IN, units / "pitable.service.d/web.conf")
    on, report = exposure(tmp_path)
    assert off < 1.0
    assert off < on < 2.0, report
    # The drop-in was read: the assessment sees the network it opens.
    assert "Service may allocate Internet sockets" in report


@pytest.mark.slow
def test_install_with_the_web_off_says_nothing_of_it(root: Path) -> None:
    result = install(root)
    assert result.returncode == 0, result.stderr
    assert not (root / INSTALLED_DROP_IN).exists()
    assert "web page" not in result.stdout


TV_DROP_IN = REPO / "systemd" / "pitable-tv.conf"


@needs_analyze
def test_the_tv_drop_in_opens_the_framebuffer_and_nothing_of_the_network(
    tmp_path: Path,
) -> None:
    units = tmp_path / "etc/systemd/system"
    (units / "pitable.service.d").mkdir(parents=True)
    shutil.copy(UNIT, units / "pitable.service")
    off, _ = exposure(tmp_path)
    shutil.copy(TV_DROP_IN, units / "pitable.service.d/tv.conf")
    on, report = exposure(tmp_path)
    assert off <= on < 1.0, report
    assert "Service may allocate Internet sockets" not in report
    assert "DeviceAllow=char-fb rw" in TV_DROP_IN.read_text()


@pytest.mark.slow
@pytest.mark.parametrize(("table", "dropin_name", "source", "words", "other"), [
    ("web", "web.conf", DROP_IN, "web page is", "tv.conf"),
    ("tv", "tv.conf", TV_DROP_IN, "the TV is", "web.conf"),
])
def test_install_puts_a_drop_in_only_while_its_table_is_enabled(  # noqa: PLR0917
    root: Path,
    table: str, dropin_name: str, source: Path, words: str, other: str,
) -> None:
    config = root / "etc/pitable/pitable.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f"[{table}]\nenabled = true\n")
    result = install(root)
    assert result.returncode == 0, result.stderr
    units = root / "etc/systemd/system/pitable.service.d"
    dropin = units / dropin_name
    assert dropin.read_bytes() == source.read_bytes()
    assert f"{words} on" in result.stdout
    assert not (units / other).exists(), "the other table stays off"

    config.write_text(f"[{table}]\nenabled = false\n")
    result = install(root)
    assert result.returncode == 0, result.stderr
    assert not dropin.exists()
    assert f"{words} off" in result.stdout
