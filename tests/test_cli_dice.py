"""``pitable options``, ``roll`` and ``fairness`` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from pitable.hw.health import BLOCK
from tests.conftest import run_cli as run
from tests.support.entropy_faults import counter, lfsr, repeating


def test_options_human_reading(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "options", "valley", "2,3,5", "*,3,5")
    assert code == 0
    assert out.splitlines() == [
        "2 3 5 -> 2 3 5 7 8 10; plays: 2+3+5 | 5+5 | 7+3 | 8+2 | 10",
        "* 3 5 -> 3 5 8; structure; plays: 3+5 | 8",
    ]


def test_options_json_one_object_a_line_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "options", "wiraqocha", "2,*,5", "1,1,*", "--json")
    assert code == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["hazard"] is False
    assert first["numbers"] == list(range(1, 16))
    assert first["plays"] == [[2, 5, "1-15"], [7, "1-15"]]
    assert second["hazard"] is True and second["numbers"] == [] and second["plays"] == []


def test_no_dangers_marked_is_fine_for_every_title(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "options", "temple", "1,2,3", "--dangers", "0")
    assert code == 0 and out.startswith("1 2 3 -> 1 2 3 4 5 6")


def test_options_island_dangers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "options", "skull-island", "3,4,*", "--dangers", "5", "--json")
    data = json.loads(out)
    assert code == 0 and data["hazard"] is False and data["numbers"] == [3, 4, 7]
    assert "plays" not in data
    code, out, _ = run(capsys, "options", "island", "3,4,*", "--dangers", "4", "--json")
    assert json.loads(out)["hazard"] is True


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["options", "monopoly", "1,2,3"], "unknown game 'monopoly'"),
        (["options", "valley", "0,2,3"], "face '0' on the green die"),
        (["options", "valley", "1,6,3"], "face '6' on the purple die"),
        (["options", "valley", "1,2,x"], "face 'x' on the red die"),
        (["options", "valley", "1,2"], "expected three faces"),
        (["options", "island", "1,2,3", "--dangers", "9"], "--dangers 9"),
        (["options", "island", "1,2,3", "--dangers", "x"], "--dangers"),
        (["options", "valley", "1,2,3", "--dangers", "1"], "Skull Island only"),
        (["roll", "--count", "-1"], "--count"),
        (["roll", "--count", "many"], "--count"),
        (["roll", "--dice", "d20"], "unknown dice set"),
        (["fairness", "--rolls", "0"], "--rolls"),
        (["fairness", "--rolls", "10", "--png", "h.txt"], "ending in .png"),
        (["bogus"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert words in err
    assert "Traceback" not in err


def test_roll_count_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(capsys, "roll", "--count", "500", "--json")
    assert code == 0
    rolls = [json.loads(line) for line in out.splitlines()]
    assert len(rolls) == 500
    for line in rolls:
        roll = line["roll"]
        assert len(roll) == 3 and all(f == "*" or 1 <= f <= 5 for f in roll)
        assert line["source"] in ("hwrng:/dev/hwrng", "os")
    code, out, _ = run(capsys, "roll", "--count", "3")
    assert len(out.splitlines()) == 3


def test_roll_from_a_device_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    device = tmp_path / "hwrng"
    device.write_bytes(os.urandom(4096))
    code, out, err = run(capsys, "roll", "--rng-device", str(device), "--require-hwrng",
                         "--count", "10")
    assert code == 0 and len(out.splitlines()) == 10 and err == ""


def test_dead_device_falls_back_and_says_so_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "roll", "--rng-device", str(tmp_path / "none"), "--count", "5")
    assert code == 0
    assert len(out.splitlines()) == 5
    assert err.count("operating system's generator") == 1
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("content", [None, bytes(4096), b"\x01\x02\x03\x04" * 1024])
def test_require_hwrng_refuses_with_exit_1_and_no_roll(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes | None
) -> None:
    device = tmp_path / "hwrng"
    if content is not None:
        device.write_bytes(content)
    code, out, err = run(capsys, "roll", "--rng-device", str(device), "--require-hwrng")
    # The generator is a part of the box failing, not a wrong argument.
    assert code == 1
    assert out == ""
    assert len(err.splitlines()) == 1 and str(device) in err


def test_fairness_report_and_histogram(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "h.png"
    code, out, _ = run(capsys, "fairness", "--rolls", "3000", "--png", str(png))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("3000 rolls from ")
    for die in ("green", "purple", "red"):
        row = next(line for line in lines if line.startswith(die)).split()
        assert sum(int(c) for c in row[1:7]) == 3000
        assert 0.0 <= float(row[8]) <= 1.0
    with Image.open(png) as image:
        assert image.size[0] > 600
    code, out, _ = run(capsys, "fairness", "--rolls", "600", "--json")
    report = json.loads(out)
    assert [d["die"] for d in report["dice"]] == ["green", "purple", "red"]
    assert sum(report["dice"][0]["counts"].values()) == 600


def test_unwritable_png_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "fairness", "--rolls", "10", "--png", str(tmp_path / "no" / "h.png"))
    # A path that cannot be written is a wrong argument: exit 2, before any roll.
    assert code == 2 and len(err.splitlines()) == 1 and "does not exist" in err


def test_options_starts_without_hardware_or_drawing_libraries() -> None:
    probe = (
        "import sys; from pitable.cli import main; main(['options', 'valley', '2,3,5']);"
        "heavy = [m for m in ('gpiozero', 'luma', 'serial', 'escpos', 'PIL', 'sqlite3')"
        " if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout
    assert out.splitlines()[-1] == "[]"


def test_no_traceback_from_a_subprocess() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pitable", "options", "valley", "9,9,9"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


# --- a device that gives nothing, and the config's [entropy] --------------------------


def pitable(*argv: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pitable", *argv], capture_output=True,
                          text=True, timeout=timeout, check=False)


def test_roll_from_a_fifo_nobody_writes_to_falls_back_after_the_deadline(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "hwrng"
    os.mkfifo(fifo)
    result = pitable("roll", "--rng-device", str(fifo), "--rng-deadline", "0.3", "--json",
                     "--count", "3")
    assert result.returncode == 0
    assert [json.loads(line)["source"] for line in result.stdout.splitlines()] == ["os"] * 3
    assert result.stderr.count("\n") == 1
    assert f"{fifo} gave no random bytes within 0.3 s" in result.stderr
    assert "operating system's generator" in result.stderr


def test_roll_from_a_fifo_nobody_writes_to_is_refused_when_required(tmp_path: Path) -> None:
    fifo = tmp_path / "hwrng"
    os.mkfifo(fifo)
    result = pitable("roll", "--rng-device", str(fifo), "--rng-deadline", "0.3",
                     "--require-hwrng")
    assert result.returncode == 1  # a part failing at run time
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and str(fifo) in result.stderr
    assert "Traceback" not in result.stderr


def test_doctor_does_not_hang_on_a_fifo_nobody_writes_to(tmp_path: Path) -> None:
    from pitable.doctor import HWRNG_SAMPLE

    fifo = tmp_path / "hwrng"
    os.mkfifo(fifo)
    # No installed unit (an empty unit folder): where the box is installed, as on a Pi,
    # the doctor would first find that the service may not open this path, and stop there.
    result = pitable("doctor", "--rng-device", str(fifo), "--unit-dir", str(tmp_path))
    assert result.returncode == 1
    line = next(x for x in result.stdout.splitlines() if "random generator" in x)
    assert f"{fifo} gave 0 of {HWRNG_SAMPLE} bytes" in line


@pytest.fixture
def device(tmp_path: Path) -> Path:
    path = tmp_path / "good-hwrng"
    path.write_bytes(os.urandom(8192))
    return path


def write_config(tmp_path: Path, device: Path, require: bool) -> Path:
    config = tmp_path / "pitable.toml"
    config.write_text(
        f'[entropy]\ndevice = "{device}"\nrequire_hwrng = {str(require).lower()}\n'
    )
    return config


def test_roll_and_fairness_follow_the_config_entropy_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, device: Path
) -> None:
    config = write_config(tmp_path, device, require=True)
    code, out, err = run(capsys, "--config", str(config), "roll", "--json", "--count", "4")
    assert code == 0 and err == ""
    assert {json.loads(line)["source"] for line in out.splitlines()} == {f"hwrng:{device}"}
    code, out, err = run(capsys, "--config", str(config), "fairness", "--rolls", "100",
                         "--json")
    assert code == 0 and err == ""
    assert json.loads(out)["source"] == f"hwrng:{device}"
    missing = write_config(tmp_path, tmp_path / "missing", require=True)
    for command in (["roll"], ["fairness", "--rolls", "30"]):
        code, out, err = run(capsys, "--config", str(missing), *command)
        assert code == 1 and out == "" and len(err.splitlines()) == 1  # a missing part
        assert str(tmp_path / "missing") in err


def test_options_override_the_config_entropy_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, device: Path
) -> None:
    missing = write_config(tmp_path, tmp_path / "missing", require=True)
    code, out, _ = run(capsys, "--config", str(missing), "roll", "--json",
                       "--rng-device", str(device))
    assert code == 0 and json.loads(out)["source"] == f"hwrng:{device}"
    code, out, err = run(capsys, "--config", str(missing), "fairness", "--rolls", "50",
                         "--json", "--no-require-hwrng")
    assert code == 0 and json.loads(out)["source"] == "os"
    assert err.count("operating system's generator") == 1
    lenient = write_config(tmp_path, tmp_path / "missing", require=False)
    code, out, err = run(capsys, "--config", str(lenient), "roll", "--require-hwrng")
    assert code == 1 and out == ""


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "61", "soon"])
def test_a_bad_deadline_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code, out, err = run(capsys, "roll", "--rng-deadline", value)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "--rng-deadline" in err


#: Devices that pass SP 800-90B's continuous tests and must still never be rolled from:
#: the block tests judge them, the same for roll, fairness, the box and the doctor.
PATTERNED = {
    "counter": counter(24 * BLOCK),
    "period-64": repeating(64, 24 * BLOCK),
    "32-byte-block": repeating(32, 24 * BLOCK, seed=11),
    "lfsr": lfsr(24 * BLOCK),
    "stuck-bit": bytes(b & 0xBF for b in os.urandom(24 * BLOCK)),
}


@pytest.mark.parametrize("name", PATTERNED)
def test_a_patterned_device_is_refused_by_roll_and_fairness_and_failed_by_the_doctor(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    device = tmp_path / name
    device.write_bytes(PATTERNED[name])
    for command in (["roll", "--count", "3"], ["fairness", "--rolls", "300"]):
        code, out, err = run(capsys, *command, "--rng-device", str(device), "--require-hwrng",
                             "--rng-deadline", "1")
        assert code == 1 and out == "", (command, out)
        assert len(err.splitlines()) == 1 and str(device) in err and "test" in err, err
        # Without --require-hwrng the rolls come from the OS, and say so.
        code, out, err = run(capsys, *command, "--json", "--rng-device", str(device))
        assert code == 0 and err.count("operating system's generator") == 1
        sources = ({json.loads(line)["source"] for line in out.splitlines()}
                   if command[0] == "roll" else {json.loads(out)["source"]})
        assert sources == {"os"}
    from pitable.config import DEFAULTS
    from pitable.doctor import Status, check_hwrng

    result = check_hwrng(DEFAULTS, device)
    assert result.status is Status.FAIL, result.line()
    assert "failed a health test" in result.detail


def test_the_doctor_passes_what_roll_rolls_from(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from pitable.config import DEFAULTS
    from pitable.doctor import HWRNG_SAMPLE, Status, check_hwrng

    device = tmp_path / "good"
    device.write_bytes(os.urandom(HWRNG_SAMPLE))
    result = check_hwrng(DEFAULTS, device)
    assert result.status is Status.PASS, result.line()
    code, out, err = run(capsys, "roll", "--rng-device", str(device), "--require-hwrng")
    assert code == 0 and err == "" and len(out.splitlines()) == 1


@pytest.mark.parametrize("rolls", ["0", "1", "29"])
def test_fairness_refuses_too_few_rolls_for_its_test(
    capsys: pytest.CaptureFixture[str], rolls: str
) -> None:
    code, out, err = run(capsys, "fairness", "--rolls", rolls)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert f"--rolls {rolls}" in err and "at least 30" in err
    code, out, _ = run(capsys, "fairness", "--rolls", "30")
    assert code == 0 and out.startswith("30 rolls")
