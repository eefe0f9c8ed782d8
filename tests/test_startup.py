"""``pitable options`` starts on the rules alone: what ``python -X importtime`` sees it import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: What ``pitable options`` must not import (their top-level package names): the config's
#: TOML reader, the SVG and network libraries, hashing, the hardware and drawing libraries,
#: the session store's database, and logging, which alone costs about a quarter of its start.
NOT_FOR_OPTIONS = (
    "tomllib", "xml", "urllib", "http", "ssl", "hashlib", "PIL", "gpiozero", "luma",
    "serial", "sqlite3", "logging",
)


def imported_after_startup(*args: str) -> list[str]:
    """The modules ``python -X importtime -m pitable ARGS`` imports once the interpreter has
    started: those after ``site``, which on some machines imports modules of its own (a
    ``.pth`` file, an editable install's finder) before pitable runs."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pitable", *args],
        capture_output=True, text=True, check=False, cwd=Path(__file__).parent,
    )
    lines = [line for line in result.stderr.splitlines() if line.startswith("import time:")]
    names = [line.rsplit("|", 1)[1].strip() for line in lines[1:]]  # the first is the header
    # importtime prints a module when its import ends: site's own imports come before it.
    top_level_site = [i for i, line in enumerate(lines[1:]) if line.endswith("| site")]
    after = names[top_level_site[-1] + 1:] if top_level_site else names
    assert after, f"no importtime lines: {result.stderr[-500:]}"
    return after


def test_options_imports_nothing_beyond_argparse_json_and_the_rules() -> None:
    modules = imported_after_startup("options", "valley", "1,2,3")
    assert "pitable.rules" in modules  # the parse found pitable's own imports
    heavy = sorted({m for m in modules if m.split(".")[0] in NOT_FOR_OPTIONS})
    assert heavy == []


def test_a_command_imports_only_its_own_module() -> None:
    modules = imported_after_startup("options", "valley", "1,2,3")
    commands = [m for m in modules if m.startswith("pitable.commands.")]
    # pitable.commands.args holds the argument types every command shares.
    assert [m for m in commands if m != "pitable.commands.args"] == ["pitable.commands.dice"]


@pytest.mark.parametrize("args", [("--help",), ("bogus",)])
def test_the_command_list_and_a_wrong_command_import_no_command(args: tuple[str, ...]) -> None:
    modules = imported_after_startup(*args)
    assert "pitable.cli" in modules
    assert [m for m in modules if m.startswith("pitable.commands.")] == []
    assert "pitable.rules" not in modules  # what every command module imports
