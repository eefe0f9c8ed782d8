"""The exit status of ``pitable``: 2 for what the user got wrong, 1 for what failed, else 0."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import pitable
from pitable import errors
from pitable.cli import EPILOG
from pitable.commands import dice
from tests.conftest import run_cli as run


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (errors.UsageError("--count: expected 1 or more"), 2),
        (errors.ConfigError("button.pin: expected a header GPIO"), 2),
        (errors.BadRoll("a roll is three faces"), 2),
        (errors.UnknownTitle("unknown game 'chess'"), 2),
        (errors.StoreDamaged("pitable.db: not a database"), 2),
        (errors.MissingDependency("this command needs Pillow"), 2),
        (errors.PrinterTimeout("the printer stopped taking data"), 1),
        (errors.PaperOut("the printer has no paper"), 1),
        (errors.DisplayError("I2C device not found: /dev/i2c-1 0x3c"), 1),
        (errors.GpioError("cannot claim the input pins"), 1),
        (errors.HealthTestFailure("/dev/hwrng failed the repetition count test"), 1),
        (errors.StoreUnavailable("cannot create the state directory"), 1),
        (errors.StoreBusy("pitable.db is in use by another process: database is locked"), 1),
        (errors.JobNotTaken("the printer is not taking the job"), 1),
        (PermissionError(13, "Permission denied", "/dev/serial0"), 1),
    ],
)
def test_an_error_ends_the_command_with_its_status_in_one_line(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    status: int,
) -> None:
    def fails(args: argparse.Namespace) -> int:
        raise error

    monkeypatch.setattr(dice, "run_options", fails)
    code, out, err = run(capsys, "options", "valley", "1,2,3")
    assert code == status
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("pitable options: error: ")


def test_statuses_of_real_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "options", "valley", "1,2,3")[0] == 0
    assert run(capsys, "options", "valley", "1,2")[0] == 2  # a wrong argument
    assert run(capsys, "bogus")[0] == 2
    config = tmp_path / "pitable.toml"
    config.write_text("[button]\npin = 99\n")
    assert run(capsys, "--config", str(config), "wiring")[0] == 2  # a wrong config
    missing = tmp_path / "missing" / "sheet.txt"
    assert run(capsys, "sheet", "valley", "--out", str(missing))[0] == 2  # a path to correct


def test_the_help_says_what_each_status_means(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert " ".join(out.split()).endswith(EPILOG)
    assert "2 for a wrong argument, config or input file" in EPILOG
    assert "1 when a part of the box or the system fails at run time" in EPILOG


def _pitable_modules() -> list[str]:
    """Every module of the package but ``__main__``, which runs the command when imported."""
    found = pkgutil.walk_packages(pitable.__path__, "pitable.")
    return [m.name for m in found if m.name != "pitable.__main__"]


def test_every_exception_pitable_defines_is_in_errors_under_pitable_error() -> None:
    outside = []
    for name in _pitable_modules():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
                and name != "pitable.errors"
                and not attr.startswith("_")  # private, caught where it is raised
            ):
                outside.append(f"{name}.{attr}")
    assert outside == []
    for value in vars(errors).values():
        if inspect.isclass(value) and issubclass(value, BaseException):
            assert issubclass(value, errors.PitableError), value
            assert value.__doc__ and len(value.__doc__.strip().splitlines()) == 1, value
            failing = issubclass(
                value,
                errors.HardwareError | errors.StoreUnavailable | errors.StoreWriteFailed
                | errors.StoreInUse,
            )
            assert value.exit_status == (1 if failing else 2), value
