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


#: Runs the command line as ``python -m pitable`` does, with the box's default config path
#: set to ``sys.argv[1]``: the tests choose whether a config is there, whatever the machine
#: holds in /etc (an installed box has one).
RUN_WITH_CONFIG_AT = """\
import sys
import pitable.xdg
pitable.xdg.DEFAULT_CONFIG_FILE = sys.argv[1]
from pitable.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


def imported_after_startup(*args: str, config: Path | None = None) -> list[str]:
    """The modules ``python -X importtime -m pitable ARGS`` imports once the interpreter has
    started: those after ``site``, which on some machines imports modules of its own (a
    ``.pth`` file, an editable install's finder) before pitable runs. ``config`` is the
    default config file the command finds (none when not given)."""
    default_config = config if config is not None else Path("/nonexistent/pitable.toml")
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", RUN_WITH_CONFIG_AT, str(default_config),
         *args],
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


def test_options_on_an_installed_box_reads_only_the_configs_language(tmp_path: Path) -> None:
    # Where the box is installed, its config names the table's language: options reads it
    # with the TOML reader, and still imports nothing else of the heavy list.
    config = tmp_path / "pitable.toml"
    config.write_text('[box]\nlanguage = "en"\n')
    modules = imported_after_startup("options", "valley", "1,2,3", config=config)
    assert "pitable.config" in modules
    heavy = sorted({m.split(".")[0] for m in modules if m.split(".")[0] in NOT_FOR_OPTIONS})
    assert heavy == ["tomllib"]


def test_options_with_lang_reads_no_config(tmp_path: Path) -> None:
    config = tmp_path / "pitable.toml"
    config.write_text('[box]\nlanguage = "fr"\n')
    modules = imported_after_startup("options", "--lang", "en", "valley", "1,2,3",
                                     config=config)
    assert "pitable.rules" in modules
    assert "pitable.config" not in modules
    assert sorted({m for m in modules if m.split(".")[0] in NOT_FOR_OPTIONS}) == []


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
