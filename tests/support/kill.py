"""What the kill tests share: reading the database a killed driver left, and the lines it
reported before the kill."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest


def read_only(path: Path) -> sqlite3.Connection:
    # Read-only, so that checking neither checkpoints nor removes the WAL the killed
    # process left: the next driver must recover it by itself, as the box would.
    return sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)


def wait_for_lines(driver: subprocess.Popen[str], count: int) -> list[str]:
    """Read the driver's first ``count`` lines."""
    assert driver.stdout is not None
    lines: list[str] = []
    while len(lines) < count:
        line = driver.stdout.readline()
        if not line:
            driver.kill()
            _, errors = driver.communicate(timeout=30)
            pytest.fail(
                f"the driver stopped before {count} lines ({driver.returncode}): "
                f"{''.join(lines)}{errors}"
            )
        lines.append(line)
    return lines
