"""Bad paths, ports, state directories and config files say what is wrong in one line, the
same way in every command that takes them; a roll that starts with a dash is read as a roll."""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

import pytest

from pitable.box.store import DB_NAME, SessionStore
from pitable.cli import COMMANDS, build_parser
from pitable.config import DEFAULTS, loads_config
from pitable.errors import ConfigError, StoreBusy
from tests.conftest import run_cli as run

#: The least each command needs to run, and the file it writes when given an output option.
BASE_ARGV = {
    "sheet": ["sheet", "valley", "--seed", "7"],
    "screen": ["screen", "valley", "1,2,3"],
    "sim": ["sim", "--script", "press"],
    "fairness": ["fairness", "--rolls", "100", "--rng-device", "/dev/urandom"],
    "wiring": ["wiring"],
}


def output_options() -> list[tuple[str, str, str]]:
    """Every (command, option, suffix) whose argument is a file the command writes."""
    parser = build_parser(None)
    found = []
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        for action in command._actions:
            parse = action.type
            if getattr(parse, "writes_file", False):
                suffix = {"--svg": ".svg", "--record": ".gif", "--out": ".png"}.get(
                    action.option_strings[-1], ".png")
                found.append((name, action.option_strings[-1], suffix))
    return found


def test_every_output_option_is_covered_here() -> None:
    options = output_options()
    assert {command for command, _, _ in options} <= set(BASE_ARGV)
    assert ("sheet", "--out", ".png") in options and ("wiring", "--svg", ".svg") in options


def one_line_exit_2(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, _, err = run(capsys, *argv)
    assert code == 2, (argv, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("case", output_options(), ids="-".join)
@pytest.mark.parametrize("shape", ["slash", "slash-dot", "dot-dot", "directory", "through-a-file"])
def test_an_output_path_that_names_no_file_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    case: tuple[str, str, str], shape: str,
) -> None:
    command, option, suffix = case
    monkeypatch.chdir(tmp_path)
    (tmp_path / f"dir{suffix}").mkdir()
    (tmp_path / "file").write_text("keep")
    path, words = {
        "slash": (f"x{suffix}/", "names a directory"),
        "slash-dot": (f"x{suffix}/.", "names a directory"),
        "dot-dot": (f"dir{suffix}/..", "names a directory"),
        "directory": (f"dir{suffix}", "is a directory"),
        "through-a-file": (f"file/x{suffix}", "Not a directory"),
    }[shape]
    err = one_line_exit_2(capsys, *BASE_ARGV[command], option, path)
    assert words in err and path in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"dir{suffix}", "file"])
    assert not any((tmp_path / f"dir{suffix}").iterdir())


# --- printer ports ------------------------------------------------------------------------


BAD_PORTS = [
    ("socket://127.0.0.1:99999", "the port 99999 is not 1 to 65535"),
    ("socket://127.0.0.1:0", "the port 0 is not 1 to 65535"),
    ("socket://host:abc", "the port 'abc' is not a number"),
    ("socket://127.0.0.1", "no port"),
    ("socket://127.0.0.1:", "no port"),
    ("socket://:9100", "no host"),
    ("socket://[::g]:9100", "not an IPv6 address"),
    ("socket://bad_host:9100", "not a host name"),
    ("socket://printer:9100/queue", "a path after the port"),
    ("socket://printer:9100?logging=debug", "takes no options"),
    ("socket://printer:9100?logging=loud", "takes no options"),
    ("rfc2217://printer:2217?bogus", "unknown option 'bogus'"),
    ("rfc2217://printer:2217?timeout=soon", "a number of seconds"),
    ("rfc2217://printer", "no port"),
    ("loop://printer", "after loop://"),
    ("spy:///dev/ttyS0", "unknown URL scheme 'spy://'"),
    ("nonsense://x", "unknown URL scheme 'nonsense://'"),
    ("hwgrep://", "nothing after hwgrep://"),
    ("printer", "expected a device path"),
    ("socket://printer:" + "9" * 5000, "not 1 to 65535"),
]
#: What pyserial says of a URL it cannot parse: never shown to a user.
PYSERIAL_INTERNALS = ("debug|info|warning|error", "not supported between", "NoneType")


@pytest.mark.parametrize(("port", "words"), BAD_PORTS)
def test_a_bad_printer_url_in_the_config_is_one_line(port: str, words: str) -> None:
    with pytest.raises(ConfigError) as refused:
        loads_config(f'[printer]\nport = "{port}"\n')
    message = str(refused.value)
    assert message.startswith("printer.port: ") and words in message
    assert len(message) < 300 and "\n" not in message


@pytest.mark.parametrize(("port", "words"), BAD_PORTS)
@pytest.mark.parametrize("command", ["print", "doctor"])
def test_a_bad_printer_url_on_the_command_line_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], command: str, port: str, words: str
) -> None:
    argv = ["print", "valley", "--port", port] if command == "print" else \
        ["doctor", "--printer-port", port]
    err = one_line_exit_2(capsys, *argv)
    assert words in err
    assert not any(inside in err for inside in PYSERIAL_INTERNALS)


@pytest.mark.parametrize(
    "port",
    ["/dev/serial0", "socket://printer.local:9100", "socket://192.168.1.20:9100",
     "socket://[fe80::1]:9100", "SOCKET://printer:1", "rfc2217://printer:2217",
     "rfc2217://printer:2217?timeout=3&poll_modem", "loop://", "hwgrep://0416:5011"],
)
def test_a_good_printer_url_is_taken(port: str) -> None:
    assert loads_config(f'[printer]\nport = "{port}"\n').printer.port == port
    assert DEFAULTS.printer.port == "/dev/serial0"


# --- the state directory ------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "sim", "history"])
@pytest.mark.parametrize("below", ["", "sub", "sub/pitable.db"])
def test_a_state_dir_through_a_file_is_not_a_directory_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    command: str, below: str,
) -> None:
    monkeypatch.setenv("PITABLE_BACKENDS", "sim")
    file = tmp_path / "state"
    file.write_text("keep")
    state = str(file / below) if below else str(file)
    argv = {"run": ["run"], "sim": ["sim", "--script", "press"], "history": ["history"]}[command]
    err = one_line_exit_2(capsys, *argv, "--state-dir", state)
    assert f"{file} is not a directory" in err
    assert file.read_text() == "keep"
    assert sorted(tmp_path.iterdir()) == [file]


def test_a_store_locked_by_another_process_is_a_failure_at_run_time(tmp_path: Path) -> None:
    SessionStore.open(tmp_path).close()
    holder = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreBusy, match="in use by another process") as refused:
            SessionStore.open(tmp_path, timeout=0.05)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert refused.value.exit_status == 1


@pytest.mark.slow
def test_sim_on_a_locked_store_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    SessionStore.open(tmp_path).close()
    holder = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, _, err = run(capsys, "sim", "--script", "press", "--state-dir", str(tmp_path))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 1
    assert "in use by another process" in err and len(err.strip().splitlines()) == 1


# --- rolls that start with a dash ---------------------------------------------------------


@pytest.mark.parametrize("roll", ["-1,2,3", "-,2,3", "-x,2,3", "-1,2", "-*,2,3"])
@pytest.mark.parametrize("command", ["options", "screen"])
def test_a_roll_that_starts_with_a_dash_is_a_bad_roll(
    capsys: pytest.CaptureFixture[str], command: str, roll: str
) -> None:
    err = one_line_exit_2(capsys, command, "valley", roll)
    assert f"roll {roll!r}" in err


def test_a_dashed_roll_among_good_ones_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line_exit_2(capsys, "options", "valley", "1,2,3", "-1,2,3", "--dice", "1-5")
    assert "roll '-1,2,3'" in err
    # Options keep working where a roll could be.
    code, out, _ = run(capsys, "options", "island", "--dangers", "1", "1,2,3")
    assert code == 0 and out


# --- a broken --config ----------------------------------------------------------------------


#: The least each command needs to get as far as it goes with a config.
COMMAND_ARGV = {
    "options": ["options", "valley", "1,2,3"],
    "screen": ["screen", "valley", "1,2,3"],
    "roll": ["roll", "--rng-device", "/dev/urandom"],
    "fairness": ["fairness", "--rolls", "100", "--rng-device", "/dev/urandom"],
    "run": ["run"],
    "sim": ["sim", "--script", "press"],
    "config": ["config", "show"],
    "history": ["history"],
    "level": ["level", "valley", "30"],
    "score": ["score", "valley", "--sheet", "missing.txt"],
    "bot": ["bot", "valley", "--games", "1"],
    "sheet": ["sheet", "valley", "--out", "map.txt"],
    "print": ["print", "valley", "--port", "loop://"],
    "doctor": ["doctor"],
    "wiring": ["wiring"],
}


def test_every_command_is_tried_with_a_broken_config() -> None:
    assert set(COMMAND_ARGV) == {name for name, _, _ in COMMANDS}


@pytest.mark.parametrize("command", sorted(COMMAND_ARGV))
@pytest.mark.parametrize(
    "broken",
    [("x = [\n", "not valid TOML"), ("[button]\npin = 99\n", "button.pin"),
     ("[box]\ntitle = \"chess\"\n", "box.title")],
    ids=["toml", "key", "title"],
)
def test_a_broken_config_is_reported_by_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    command: str, broken: tuple[str, str],
) -> None:
    text, words = broken
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "broken.toml"
    config.write_text(text)
    err = one_line_exit_2(capsys, "--config", str(config), *COMMAND_ARGV[command])
    assert str(config) in err and words in err
    assert sorted(tmp_path.iterdir()) == [config]


def test_a_missing_config_is_reported_by_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (COMMAND_ARGV["options"], COMMAND_ARGV["level"]):
        err = one_line_exit_2(capsys, "--config", str(tmp_path / "none.toml"), *argv)
        assert "none.toml" in err
