"""Every command writes what the terminal can show: on an output that is not UTF-8 (the C
locale without Python's UTF-8 mode, PYTHONIOENCODING=ascii) an accent or a middle dot comes
out bare or as ``?``, never as a traceback."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path

import pytest

#: Outputs that are not UTF-8, as users end up with them.
NOT_UTF8 = {
    "PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
    "LC_ALL=C PYTHONUTF8=0": {"LC_ALL": "C", "PYTHONUTF8": "0"},
    "PYTHONIOENCODING=latin-1": {"PYTHONIOENCODING": "latin-1"},
}
UTF8 = {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}


def pitable(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONIOENCODING", "PYTHONUTF8") and not k.startswith("LC_")}
    return subprocess.run([sys.executable, "-m", "pitable", *args], capture_output=True,
                          env={**clean, **env}, cwd=cwd, timeout=120, check=False)


def shown(text: str, encoding: str) -> str:
    """``text`` as an output in ``encoding`` should show it: each character it lacks without
    its accent when that is enough, else ``?``."""
    def one(char: str) -> str:
        for candidate in (char, "".join(c for c in unicodedata.normalize("NFKD", char)
                                        if not unicodedata.combining(c))):
            try:
                if candidate:
                    candidate.encode(encoding)
                    return candidate
            except UnicodeEncodeError:
                pass
        return "?"

    return "".join(one(char) for char in text)


@functools.cache
def on_utf8(args: tuple[str, ...]) -> subprocess.CompletedProcess[bytes]:
    """What ``pitable ARGS`` writes on a UTF-8 output: what the others should show."""
    with tempfile.TemporaryDirectory() as cwd:
        reference = pitable(list(args), UTF8, Path(cwd))
    assert b"Traceback" not in reference.stderr
    return reference


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    state = tmp_path_factory.mktemp("state")
    made = pitable(["sim", "--script", "press,press", "--seed", "3", "--state-dir", str(state)],
                   UTF8, state)
    assert made.returncode == 0, made.stderr
    return state


#: Commands whose output holds letters and signs beyond ASCII: French and Spanish words, the
#: middle dot of a map's name, a user's own accented input quoted in an error.
COMMANDS = {
    "screen in French": ["screen", "--lang", "fr", "valley", "1,2,3"],
    "screen in Spanish": ["screen", "--lang", "es", "temple", "*,4,4"],
    "history": ["history", "--state-dir", "{state}"],
    "sim in French": ["sim", "--script", "press", "--seed", "7", "--lang", "fr"],
    "an error quoting the user": ["screen", "--lang", "fr", "valley", "é,2,3"],
    "a wrong language": ["screen", "--lang", "français", "valley", "1,2,3"],
}


@pytest.mark.parametrize("output", list(NOT_UTF8))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_writes_what_the_output_can_show(
    command: str, output: str, saved_game: Path, tmp_path: Path
) -> None:
    args = [a.format(state=saved_game) for a in COMMANDS[command]]
    reference = on_utf8(tuple(args))
    run = pitable(args, NOT_UTF8[output], tmp_path)
    assert b"Traceback" not in run.stderr, run.stderr.decode("utf-8", "replace")
    assert run.returncode == reference.returncode
    encoding = "latin-1" if "latin" in output else "ascii"
    assert run.stdout.decode(encoding) == shown(reference.stdout.decode(), encoding)
    if "LC_ALL" in NOT_UTF8[output] and not "".join(args).isascii():
        # The C locale reads the arguments themselves otherwise (é as two undecodable bytes),
        # so the message quotes another string: one line all the same.
        assert run.stderr.decode(encoding).count("\n") == 1
    else:
        assert run.stderr.decode(encoding) == shown(reference.stderr.decode(), encoding)
    if command == "history":
        assert "·" in reference.stdout.decode()  # what the test is about is there to show


def test_a_file_name_given_in_the_c_locale_is_written_back_as_given(tmp_path: Path) -> None:
    """Bytes that the C locale cannot decode go back out as they came in: the name of the
    file written is the user's, not question marks."""
    name = "carte-é.txt".encode()
    run = subprocess.run(
        [sys.executable, "-m", "pitable", "sheet", "valley", "--out", os.fsdecode(name)],
        capture_output=True, cwd=tmp_path, timeout=60, check=False,
        env={**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0"},
    )
    assert run.returncode == 0, run.stderr
    assert os.listdir(tmp_path) == ["carte-é.txt"]
    assert name in run.stdout
