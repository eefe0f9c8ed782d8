"""Every input bounded and checked before work starts: one line and exit 2 for a wrong one,
never a traceback, a hang, a file left behind or a default silently taken instead."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import pytest

from pitable.commands import args as arg_types
from pitable.commands import dice
from pitable.commands.box import MAX_RECORDED_STEPS, MAX_STEPS
from pitable.commands.sheet import MAX_COPIES, MAX_WIDTH, MIN_WIDTH
from pitable.config import read_regular_file
from pitable.errors import EntropyError
from pitable.rules import find_dice_set, find_title
from tests.support.cli import run_bounded

HUGE = str(10**30)


def one_line_exit_2(argv: list[str], words: str) -> str:
    code, out, err = run_bounded(argv)
    assert code == 2, err
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert words in err
    return err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["roll", "--count", HUGE], "expected 1 to 10,000,000"),
        (["roll", "--count", "10000001"], "expected 1 to 10,000,000"),
        (["fairness", "--rolls", HUGE], "expected 0 to 10,000,000"),
        (["sheet", "valley", "--width", "200000", "--out", "x.png"], "expected 384 to 4,096"),
        (["sheet", "valley", "--width", HUGE, "--out", "x.png"], "expected 384 to 4,096"),
        (["sheet", "valley", "--copies", HUGE, "--out", "x.pdf"], f"expected 1 to {MAX_COPIES}"),
        (["sheet", "valley", "--copies", "100000", "--out", "x.pdf"], "--copies"),
        (["history", "--game", HUGE], "--game"),
        (["level", "valley", "90", "--snakes", "1000"], "expected 0 to 25"),
        (["level", "valley", HUGE], "expected -10,000 to 10,000"),
        (["options", "island", "1,2,3", "--dangers", HUGE], "--dangers"),
        (["sim", "--script", "press", "--seed", HUGE * 2], "--seed"),
        (["sim", "--script", ",".join(["press"] * (MAX_STEPS + 1))], f"at most {MAX_STEPS}"),
    ],
)
def test_numbers_out_of_bounds_are_refused_before_work(
    argv: list[str], words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    one_line_exit_2(argv, words)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "argv",
    [
        ["roll", "--count", "٣"],
        ["fairness", "--rolls", "٣٠"],
        ["roll", "--rng-deadline", "٣"],
        ["sheet", "valley", "--width", "٤٠٠", "--out", "x.png"],
        ["sheet", "valley", "--seed", "٣", "--out", "x.txt"],
        ["sheet", "valley", "--copies", "٣", "--out", "x.pdf"],
        ["level", "valley", "٩٠"],
        ["level", "valley", "90", "--snakes", "٣"],
        ["history", "--game", "٣"],
        ["sim", "--script", "press", "--seed", "٣"],
        ["sim", "--script", "turn+٣"],
        ["sim", "--script", "press", "--scale", "٣"],
        ["options", "island", "1,2,3", "--dangers", "٣"],
    ],
)
def test_digits_of_other_scripts_are_refused_everywhere(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    one_line_exit_2(argv, "'")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("text", ["1_000", " 7", "+3", "0x10", "1e3", ""])
def test_whole_numbers_are_plain_ascii_digits(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        arg_types.whole_number(0, 10_000)(text)
    assert arg_types.whole_number(-5, 5)("-5") == -5


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e308", "0", "-1", "1_0", "٣", ""])
def test_seconds_are_finite_positive_ascii_and_bounded(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        dice.seconds(text)
    assert dice.seconds("0.5") == 0.5 and dice.seconds(".5") == 0.5


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["roll", "--rng-device", ""], "--rng-device"),
        (["fairness", "--rng-device", ""], "--rng-device"),
        (["doctor", "--rng-device", ""], "--rng-device"),
        (["history", "--state-dir", ""], "--state-dir"),
        (["sim", "--script", "press", "--state-dir", ""], "--state-dir"),
        (["run", "--state-dir", ""], "--state-dir"),
        (["config", "check", ""], "PATH"),
        (["--config", "", "wiring"], '""'),
        (["fairness", "--png", ""], "--png"),
        (["sheet", "valley", "--out", ""], "--out"),
        (["wiring", "--svg", ""], "--svg"),
    ],
)
def test_an_empty_string_is_an_error_not_the_default(argv: list[str], words: str) -> None:
    one_line_exit_2(argv, words)


def test_the_sheet_width_bounds_are_the_renderers(tmp_path: Path) -> None:
    from PIL import Image

    from pitable.render import sheet as renderer

    assert MIN_WIDTH == renderer.MIN_WIDTH
    for width in (MIN_WIDTH, MAX_WIDTH):
        out = tmp_path / f"{width}.png"
        code, _, err = run_bounded(["sheet", "valley", "--width", str(width), "--out", str(out)])
        assert code == 0, err
        with Image.open(out) as picture:
            assert picture.width == width
    one_line_exit_2(["sheet", "valley", "--width", str(MIN_WIDTH - 1), "--out", "x.png"],
                    "--width")
    one_line_exit_2(["sheet", "valley", "--width", str(MAX_WIDTH + 1), "--out", "x.png"],
                    "--width")


def test_snakes_are_bounded_by_the_title() -> None:
    valley = find_title("valley")
    assert valley.max_hazards == valley.solo_rounds == 25
    assert find_title("island").max_hazards == find_title("island").hazard_limit
    code, out, _ = run_bounded(["level", "valley", "0", "--snakes", "25"])
    assert code == 0 and "with 25 snakes" in out
    one_line_exit_2(["level", "valley", "0", "--snakes", "26"], "expected 0 to 25")


# --- files that must be regular files ------------------------------------------------------


def test_config_check_refuses_a_fifo_at_once(fifo: Path) -> None:
    one_line_exit_2(["config", "check", str(fifo)], "is a FIFO, not a regular TOML file")
    one_line_exit_2(["--config", str(fifo), "wiring"], "is a FIFO")


def test_config_check_refuses_a_device_without_reading_it() -> None:
    one_line_exit_2(["config", "check", "/dev/zero"], "is a device, not a regular TOML file")


def test_a_config_file_over_1_mb_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * 1_000_001)
    one_line_exit_2(["config", "check", str(big)], "holds at most 1,000,000")
    big.write_bytes(b"#" * 999_999 + b"\n")
    code, out, _ = run_bounded(["config", "check", str(big)])
    assert code == 0 and "valid" in out


@pytest.mark.parametrize("opening", ["a = " + "[" * 100_000, "a = " + "{b = " * 100_000])
def test_deeply_nested_toml_is_one_line(tmp_path: Path, opening: str) -> None:
    nested = tmp_path / "nested.toml"
    nested.write_text(opening + "\n")
    one_line_exit_2(["config", "check", str(nested)], "nested too deeply")


def test_the_bounded_read_stops_at_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 10)
    assert read_regular_file(path, 10) == b"x" * 10
    with pytest.raises(ValueError, match="at most 9"):
        read_regular_file(path, 9)


# --- output paths, checked before anything is drawn -----------------------------------------


@pytest.mark.parametrize(
    ("argv", "name"),
    [
        (["sheet", "valley", "--out"], "x.png"),
        (["fairness", "--rolls", "10", "--png"], "x.png"),
        (["wiring", "--svg"], "x.svg"),
        (["sim", "--script", "press", "--png"], "x.png"),
        (["sim", "--script", "press", "--record"], "x.gif"),
    ],
)
def test_a_wrong_output_path_exits_2_before_any_work(
    tmp_path: Path, argv: list[str], name: str
) -> None:
    suffix = Path(name).suffix
    (tmp_path / f"dir{suffix}").mkdir()
    os.mkfifo(tmp_path / f"fifo{suffix}")
    for target, words in (
        (tmp_path / "missing" / name, "does not exist"),
        (tmp_path / f"dir{suffix}", "is a directory"),
        (tmp_path / f"fifo{suffix}", "is a FIFO"),
    ):
        one_line_exit_2([*argv, str(target)], words)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"dir{suffix}", f"fifo{suffix}"]


def test_a_recorded_script_is_bounded(tmp_path: Path) -> None:
    script = ",".join(["press"] * (MAX_RECORDED_STEPS + 1))
    one_line_exit_2(["sim", "--script", script, "--record", str(tmp_path / "x.gif")],
                    f"at most {MAX_RECORDED_STEPS} steps")


# --- roll prints as it rolls ---------------------------------------------------------------


class FailingSource:
    """Random bytes for ``reads`` reads, then a device that fails."""

    name = "hwrng:/dev/test"

    def __init__(self, reads: int) -> None:
        self.reads = reads

    def read(self, n: int) -> bytes:
        if self.reads == 0:
            raise EntropyError("the test device failed")
        self.reads -= 1
        return os.urandom(n)

    def close(self) -> None:
        pass


def test_roll_prints_each_block_as_it_is_rolled(monkeypatch: pytest.MonkeyPatch) -> None:
    # Enough good reads for at least the first block, then a failure: the rolls made before
    # it are already out (the old roll held every roll until the last was made). A block
    # takes a read for what is missing after each rejection: 4096 bytes, about 640, 100,
    # 16, 3, then single bytes each kept with odds 216/256: four to seven reads, more
    # than eight about once in 700 blocks, which is how often eight good reads left the
    # first block unfinished. With 24 that takes odds below 1e-12, and ten blocks still need at
    # least 40 reads.
    monkeypatch.setattr(dice, "open_args_source", lambda args: FailingSource(reads=24))
    code, out, err = run_bounded(["roll", "--count", str(10 * dice.BLOCK)])
    assert code == 1 and "the test device failed" in err
    lines = out.splitlines()
    assert dice.BLOCK <= len(lines) < 10 * dice.BLOCK
    assert len(lines) % dice.BLOCK == 0


def test_a_source_refused_at_once_prints_no_roll(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dice, "open_args_source", lambda args: FailingSource(reads=0))
    code, out, err = run_bounded(["roll", "--count", "5"])
    assert code == 1 and out == "" and "the test device failed" in err


def test_a_long_roll_holds_one_block_at_a_time() -> None:
    source: Any = FailingSource(reads=10**6)
    blocks = dice.draw_sourced(source, 3 * dice.BLOCK + 5, find_dice_set("1-5"))
    sizes = [len(block) for block in blocks]
    assert sizes == [dice.BLOCK, dice.BLOCK, dice.BLOCK, 5]


@pytest.mark.parametrize("option", ["--count", "--rng-deadline"])
def test_a_number_thousands_of_digits_long_is_quoted_short(option: str) -> None:
    err = one_line_exit_2(["roll", option, "9" * 5000], option)
    assert len(err) < 200


@pytest.mark.parametrize(
    ("option", "value", "words"),
    [
        ("--copies", "100000", "expected 1 to 100"),
        ("--copies", HUGE, "expected 1 to 100"),
        ("--paper-width", "٥٨", "ASCII digits"),
        ("--paper-width", "60", "invalid choice"),
        ("--baud", "1", "printer.baudrate: expected 9600"),
        ("--line-time-ms", "nan", "printer.line_time_ms: expected 0 ms to 1000 ms"),
        ("--line-time-ms", "inf", "printer.line_time_ms: expected 0 ms to 1000 ms"),
        ("--line-time-ms", "1e308", "printer.line_time_ms: expected 0 ms to 1000 ms"),
        ("--feed-time-ms", "1e30", "printer.feed_time_ms: expected 0 ms to 1000 ms"),
        ("--feed-time-ms", "٣", "is not a number (ASCII digits 0-9)"),
        ("--feed-time-ms", "1_0", "is not a number (ASCII digits 0-9)"),
        ("--port", "", '"": expected a device path'),
    ],
)
def test_the_printer_options_are_bounded_before_anything_is_drawn(
    option: str, value: str, words: str
) -> None:
    one_line_exit_2(["print", "temple", "--seed", "7", "--port", "loop://", option, value],
                    words)
