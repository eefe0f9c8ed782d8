"""install.sh against a temporary root: what it writes, and that a rerun changes nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from pitable.config import DEFAULTS, loads_config
from pitable.doctor import Status, check_boot_config, check_serial_console
from pitable.firmware import boot_config, udev_rules
from tests.support.install import CMDLINE, INSTALL, OS_PACKAGES, REPO, USER_CONFIG_TXT, install
from tests.support.udev import Device, misc_device, trigger_matches

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="install.sh needs bash")


def snapshot(root: Path) -> dict[str, tuple[int, bytes | str]]:
    """Every file and link under root: its mode and content (or link target)."""
    out: dict[str, tuple[int, bytes | str]] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            out[key] = (0, os.readlink(path))
        elif path.is_file():
            out[key] = (path.stat().st_mode, path.read_bytes())
    return out


@pytest.mark.slow
def test_first_run_installs_everything_and_asks_for_a_reboot(root: Path) -> None:
    result = install(root)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    boot = root / "boot/firmware"

    assert (root / "etc/pitable/pitable.toml").read_text() == DEFAULTS.to_toml()
    assert (boot / "pitable-config.txt").read_text() == boot_config(DEFAULTS)
    # The user's file keeps every line; the include is added at its end, under [all].
    config_txt = (boot / "config.txt").read_text()
    assert config_txt.startswith(USER_CONFIG_TXT)
    assert config_txt[len(USER_CONFIG_TXT):].splitlines()[-2:] == [
        "[all]", "include pitable-config.txt"
    ]
    assert (boot / "config.txt.pitable-backup").read_text() == USER_CONFIG_TXT
    assert (boot / "cmdline.txt").read_text() == (
        "console=tty1 root=PARTUUID=0123-02 rootwait quiet\n"
    )
    assert (root / "etc/udev/rules.d/99-pitable.rules").read_text() == udev_rules(DEFAULTS)
    unit = root / "etc/systemd/system/pitable.service"
    assert unit.read_bytes() == (REPO / "systemd/pitable.service").read_bytes()
    wants = root / "etc/systemd/system/multi-user.target.wants/pitable.service"
    assert os.readlink(wants) == "/etc/systemd/system/pitable.service"

    # What would have touched the machine was shown, not done.
    for command in (
        "would run: useradd --system --gid pitable",
        "would run: usermod --append --groups gpio,i2c,spi,dialout pitable",
        "would run: python3 -m venv --system-site-packages /opt/pitable/venv",
        f"would run: /opt/pitable/venv/bin/pip install --quiet --upgrade {REPO}[pi]",
        "would run: systemctl daemon-reload",
        "would run: udevadm control --reload",
    ):
        assert command in out
    assert not (root / "opt").exists()
    assert "reboot needed (the boot config changed)" in out
    # /dev/i2c-N needs i2c-dev loaded at boot; the command goes on every user's PATH.
    assert (root / "etc/modules-load.d/pitable.conf").read_text() == "i2c-dev\n"
    assert "would run: modprobe i2c-dev" in out
    assert os.readlink(root / "usr/local/bin/pitable") == "/opt/pitable/venv/bin/pitable"

    # What the doctor checks on the boot partition now holds.
    assert check_boot_config(DEFAULTS, boot).status is Status.PASS
    console = check_serial_console(DEFAULTS, boot)
    assert console is not None and console.status is Status.PASS


def reboot(root: Path) -> None:
    """What a reboot does to the files install.sh reads: /run is a tmpfs, emptied."""
    shutil.rmtree(root / "run", ignore_errors=True)


@pytest.mark.slow
def test_a_second_run_changes_nothing(root: Path) -> None:
    assert install(root).returncode == 0
    before = snapshot(root)
    second = install(root)
    assert second.returncode == 0, second.stderr
    assert snapshot(root) == before
    assert "wrote" not in second.stdout
    assert "added" not in second.stdout
    assert "keeping /etc/pitable/pitable.toml" in second.stdout
    # Nothing has rebooted since the first run changed the boot config.
    assert "reboot needed (the boot config changed)" in second.stdout
    assert "restart" not in second.stdout
    assert (root / "boot/firmware/config.txt").read_text().count("include pitable") == 1
    reboot(root)
    third = install(root)
    assert "no reboot needed" in third.stdout
    assert "would run: systemctl restart pitable.service" in third.stdout
    assert "wrote" not in third.stdout


@pytest.mark.slow
def test_a_run_that_failed_after_the_boot_config_keeps_the_reboot_notice(root: Path) -> None:
    # The first run writes the boot config, then cannot write the unit (here a file stands
    # where its directory goes) and stops.
    blocker = root / "etc/systemd/system"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("")
    first = install(root)
    assert first.returncode != 0 and "reboot needed" not in first.stdout
    assert (root / "boot/firmware/pitable-config.txt").read_text() == boot_config(DEFAULTS)
    blocker.unlink()
    # The next runs change no boot file, and still the last reboot came before the change.
    for _ in range(2):
        again = install(root)
        assert again.returncode == 0, again.stderr
        assert "wrote /boot" not in again.stdout
        assert "reboot needed (the boot config changed)" in again.stdout
        assert "restart" not in again.stdout
    reboot(root)
    after = install(root)
    assert "no reboot needed" in after.stdout and "restart pitable.service" in after.stdout


@pytest.mark.slow
def test_a_file_that_cannot_be_written_stops_the_install_and_names_it(root: Path) -> None:
    (root / "etc/udev").mkdir(parents=True)
    (root / "etc/udev/rules.d").write_text("")  # a file where the rules' directory goes
    result = install(root)
    assert result.returncode == 1
    assert result.stderr == "install.sh: cannot write /etc/udev/rules.d/99-pitable.rules\n"
    assert "wrote /etc/udev" not in result.stdout and "installed" not in result.stdout


@pytest.mark.slow
def test_every_run_loads_i2c_dev_and_applies_the_udev_rule_to_the_generator(
    root: Path, tmp_path: Path,
) -> None:
    # Loading the module and udev's reload and trigger are done again on a run that
    # changes no file: the run that wrote the files may have stopped before them.
    hwrng = Device.from_sysfs(misc_device(tmp_path / "sys", "hw_random", "hwrng", 183))
    assert install(root).returncode == 0
    second = install(root).stdout
    assert "wrote" not in second
    assert "would run: modprobe i2c-dev" in second
    assert "would run: udevadm control --reload" in second
    triggers = [line.removeprefix("would run: ") for line in second.splitlines()
                if line.startswith("would run: udevadm trigger")]
    assert triggers and all(trigger_matches(t, hwrng) for t in triggers), triggers


@pytest.mark.slow
def test_the_venv_takes_the_compiled_libraries_from_the_os(root: Path) -> None:
    out = install(root).stdout
    (apt,) = [line for line in out.splitlines() if line.startswith("would run: apt-get install")]
    for package in OS_PACKAGES.values():
        assert f" {package}" in apt, (package, apt)
    assert "would run: python3 -m venv --system-site-packages /opt/pitable/venv" in out


@pytest.mark.slow
def test_without_the_raspberry_pi_archive_it_says_so_in_one_line(root: Path) -> None:
    apt_cache = shutil.which("apt-cache")
    if apt_cache is None:
        pytest.skip("no apt-cache here")
    known = subprocess.run([apt_cache, "show", "--no-all-versions", "python3-lgpio"],
                           capture_output=True, check=False)
    if known.returncode == 0:
        pytest.skip("apt here has the Raspberry Pi archive")
    out = install(root).stdout
    said = [line for line in out.splitlines() if "Raspberry Pi archive" in line]
    assert said == [
        "pitable: here, install.sh would stop: apt knows no python3-lgpio python3-rpi.gpio:"
        " the Raspberry Pi archive is missing from its sources (Raspberry Pi OS has it;"
        " on plain Debian add it, then apt-get update)"
    ]


@pytest.mark.slow
def test_an_existing_config_is_kept_and_the_boot_config_follows_it(root: Path) -> None:
    mine = "# mine\n[i2c]\nspeed_hz = 100000\n\n[printer]\nport = \"/dev/ttyUSB0\"\n"
    config_file = root / "etc/pitable/pitable.toml"
    config_file.parent.mkdir(parents=True)
    config_file.write_text(mine)
    assert install(root).returncode == 0
    assert config_file.read_text() == mine
    fragment = (root / "boot/firmware/pitable-config.txt").read_text()
    assert fragment == boot_config(loads_config(mine))
    assert "i2c_arm_baudrate=100000" in fragment and "enable_uart" not in fragment
    # The printer is not on the UART, so its console is left where the user put it.
    assert (root / "boot/firmware/cmdline.txt").read_text() == CMDLINE


@pytest.mark.slow
def test_a_changed_config_rewrites_the_fragment_and_asks_for_a_reboot_again(
    root: Path,
) -> None:
    assert install(root).returncode == 0
    config_file = root / "etc/pitable/pitable.toml"
    config_file.write_text(config_file.read_text().replace("400000", "100000"))
    again = install(root)
    assert "wrote /boot/firmware/pitable-config.txt" in again.stdout
    assert "reboot needed" in again.stdout
    assert "i2c_arm_baudrate=100000" in (root / "boot/firmware/pitable-config.txt").read_text()


@pytest.mark.slow
def test_the_pi5_gets_lgpio_and_older_pis_also_rpi_gpio(root: Path) -> None:
    model = root / "proc/device-tree/model"
    model.parent.mkdir(parents=True)
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    pi5 = install(root).stdout
    assert "board: Raspberry Pi 5 Model B Rev 1.0" in pi5
    assert "python3-lgpio\n" in pi5 and "rpi.gpio" not in pi5
    model.write_bytes(b"Raspberry Pi Zero 2 W Rev 1.0\0")
    zero = install(root).stdout
    assert "python3-lgpio python3-rpi.gpio" in zero


@pytest.mark.slow
def test_older_releases_keep_config_txt_in_boot(tmp_path: Path) -> None:
    boot = tmp_path / "boot"
    boot.mkdir()
    (boot / "config.txt").write_text(USER_CONFIG_TXT)
    assert install(tmp_path).returncode == 0
    assert (boot / "pitable-config.txt").exists()


def test_without_a_boot_partition_it_stops_and_says_why(tmp_path: Path) -> None:
    result = install(tmp_path)
    assert result.returncode == 1
    assert "no config.txt" in result.stderr
    assert "would run" not in result.stdout
    assert not (tmp_path / "etc").exists()


def test_run_without_root_or_sudo_refuses() -> None:
    script, cwd = INSTALL, REPO
    command = ["bash", str(script)]
    env = {k: v for k, v in os.environ.items() if k != "PITABLE_ROOT"}
    if os.geteuid() == 0:
        # As root it would install for real: drop to nobody to see the refusal.
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv to drop privileges")
        # nobody may not be able to enter the clone (root's checkout in a 0700 directory,
        # where bash exits 126 unable to read the script): run the same bytes from a
        # directory anyone can read.
        readable = Path(tempfile.mkdtemp(prefix="pitable-install-"))
        readable.chmod(0o755)
        script = readable / INSTALL.name
        shutil.copy(INSTALL, script)
        script.chmod(0o755)
        cwd = readable
        command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                   "bash", str(script)]
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False,
                                timeout=60, cwd=cwd, env=env)
    finally:
        if script != INSTALL:
            shutil.rmtree(script.parent)
    assert result.returncode == 2, result.stderr
    assert "run as root: sudo ./install.sh" in result.stderr


@pytest.mark.slow
def test_a_wrong_config_stops_the_install_before_any_file_is_made_from_it(root: Path) -> None:
    assert install(root).returncode == 0
    before = snapshot(root)
    config_file = root / "etc/pitable/pitable.toml"
    config_file.write_text('[i2c]\nspeed_hz = "fast"\n')
    result = install(root)
    assert result.returncode != 0
    assert "i2c.speed_hz" in result.stderr and "Traceback" not in result.stderr
    after = snapshot(root)
    after.pop("etc/pitable/pitable.toml")
    before.pop("etc/pitable/pitable.toml")
    assert after == before  # the fragment and the udev rule are as they were, not emptied
    assert "restart" not in result.stdout


@pytest.mark.slow
def test_a_pi5_gets_the_printer_on_ttyama0(root: Path) -> None:
    model = root / "proc/device-tree/model"
    model.parent.mkdir(parents=True)
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    assert install(root).returncode == 0
    config = loads_config((root / "etc/pitable/pitable.toml").read_text())
    assert config.printer.port == "/dev/ttyAMA0"


@pytest.mark.slow
def test_without_pin_libraries_it_installs_on_plain_debian_and_says_so(root: Path) -> None:
    result = install(root, "--without-pin-libraries")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    (apt,) = [line for line in lines if line.startswith("would run: apt-get install")]
    assert "lgpio" not in apt and "rpi.gpio" not in apt
    for package in OS_PACKAGES.values():
        assert f" {package}" in apt, (package, apt)
    assert not [line for line in lines if "Raspberry Pi archive" in line]
    assert ("pitable: without the pin libraries (python3-lgpio python3-rpi.gpio):"
            " gpiozero has none here") in lines
    assert (root / "etc/systemd/system/pitable.service").exists()


def test_fonttools_comes_from_its_pure_wheel_not_debians_package(root: Path) -> None:
    # Debian's python3-fonttools depends on SymPy, lxml, fs and "python3-scipy |
    # python3-munkres" (SciPy brings Pythran, GCC and Boost); fonttools' pure-Python wheel
    # needs none of them, and pip takes it on every board.
    out = install(root, "--without-pin-libraries").stdout
    (apt,) = [line for line in out.splitlines() if line.startswith("would run: apt-get install")]
    for package in ("python3-fonttools", "python3-scipy", "python3-sympy", "python3-munkres"):
        assert f" {package}" not in f"{apt} ", (package, apt)
