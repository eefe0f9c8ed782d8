"""Shared helpers for the tests: golden files, compared exactly, rewritten only on purpose."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from PIL import Image, ImageChops

GOLDEN = Path(__file__).parent / "golden"

#: Set to 1 to rewrite golden files from the current code. A deliberate step that cannot
#: pass silently: every golden it writes fails its test, to be looked at and run again.
REGEN = os.environ.get("PITABLE_REGEN_GOLDENS") == "1"
HOW = "look at it, then run again without PITABLE_REGEN_GOLDENS"


def _regenerated(path: Path) -> None:
    pytest.fail(f"regenerated {path}: {HOW}")


def _missing(path: Path) -> None:
    pytest.fail(f"missing golden file {path}: create it with PITABLE_REGEN_GOLDENS=1, then {HOW}")


def golden_text(path: Path, actual: str) -> str:
    """The golden text at ``path``, to compare ``actual`` with."""
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        _regenerated(path)
    if not path.exists():
        _missing(path)
    return path.read_text()


def golden_image(path: Path, actual: Image.Image) -> Image.Image:
    """The golden picture at ``path``, to compare ``actual`` with (written instead, and the
    test failed, with PITABLE_REGEN_GOLDENS=1)."""
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        actual.save(path)
        _regenerated(path)
    if not path.exists():
        _missing(path)
    with Image.open(path) as stored:
        return stored.copy()


def kept_failure(path: Path, actual: Image.Image) -> Path:
    """Keep this run's picture for a failed golden ``path`` under the temporary directory."""
    failed = Path(tempfile.gettempdir()) / "pitable-golden-failures" / path.name
    failed.parent.mkdir(parents=True, exist_ok=True)
    actual.save(failed)
    return failed


def assert_golden_image(image: Image.Image, path: Path) -> None:
    """``image`` must equal the PNG at ``path`` pixel for pixel, in mode and size too.

    On a difference, this run's image is kept under the temporary directory to look at.
    """
    expected = golden_image(path, image)
    assert (expected.mode, expected.size) == (image.mode, image.size)
    box = ImageChops.difference(expected.convert("L"), image.convert("L")).getbbox()
    if box is not None:
        failed = kept_failure(path, image)
        pytest.fail(f"{path.name} differs from its golden inside {box}; this run's: {failed}")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``pitable ARGV`` in this process: its exit status, stdout and stderr."""
    from pitable.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits (bad arguments, --help)
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
