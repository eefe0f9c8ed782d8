"""Shared helpers for the tests: golden files, compared exactly, rewritten only on purpose;
and the folders the tests may touch, which are their own.

Every test runs with ``XDG_CACHE_HOME``, ``XDG_STATE_HOME`` and ``TMPDIR`` pointing into
pytest's temporary directory of the run (so do the programs the tests start, which inherit
them), and a guard fails any test that writes where pitable keeps the files of the user
running the tests (``~/.cache/pitable``, ``~/.local/state/pitable``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pitable import xdg

GOLDEN = Path(__file__).parent / "golden"

#: Where pitable keeps its files for the user running the tests, found before the tests
#: point it elsewhere: no test may write there.
USERS_OWN = tuple(
    os.path.abspath(base / "pitable") for base in (xdg.cache_home(), xdg.state_home())
)
#: Writes into the user's own folders, as (event, path), since the last test's check.
_writes_to_users_own: list[tuple[str, str]] = []
#: The temporary directory of this run (of this worker, under pytest-xdist), as "tmp".
_RUN: dict[str, Path] = {}
_WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
#: Audit events that change a file, and which of their arguments are paths it changes.
_CHANGES = {
    "os.mkdir": (0,), "os.rename": (0, 1), "os.remove": (0,), "os.rmdir": (0,),
    "os.symlink": (1,), "os.link": (1,), "os.truncate": (0,), "os.chmod": (0,),
    "os.utime": (0,), "shutil.rmtree": (0,), "shutil.copyfile": (1,),
}


def in_users_own(path: object) -> bool:
    """Whether ``path`` (as an audit event gives it) lies in the user's own pitable folders."""
    if isinstance(path, int) or path is None:
        return False
    try:
        name = os.path.abspath(os.fsdecode(path))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return any(name == own or name.startswith(own + os.sep) for own in USERS_OWN)


def _watch_writes(event: str, args: tuple[object, ...]) -> None:
    if event == "open":
        if len(args) >= 3 and isinstance(args[2], int) and args[2] & _WRITING \
                and in_users_own(args[0]):
            _writes_to_users_own.append((event, os.fsdecode(args[0])))  # type: ignore[arg-type]
    elif event in _CHANGES:
        for i in _CHANGES[event]:
            if i < len(args) and in_users_own(args[i]):
                _writes_to_users_own.append((event, os.fsdecode(args[i])))  # type: ignore[arg-type]


# An audit hook sees every file this process opens or changes, whichever code does it; the
# programs the tests start are kept out by the environment the fixture below gives them.
sys.addaudithook(_watch_writes)


@pytest.fixture(scope="session", autouse=True)
def own_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point the user's cache, state and temporary folders into this run's temporary
    directory for the whole session, and back after."""
    root = tmp_path_factory.mktemp("home")
    folders = {"XDG_CACHE_HOME": root / "cache", "XDG_STATE_HOME": root / "state",
               "TMPDIR": root / "tmp"}
    saved = {name: os.environ.get(name) for name in folders}
    for name, folder in folders.items():
        folder.mkdir()
        os.environ[name] = str(folder)
    tempfile.tempdir = None  # read TMPDIR again
    _RUN["tmp"] = tmp_path_factory.getbasetemp()
    try:
        yield root
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        tempfile.tempdir = None


@pytest.fixture(autouse=True)
def _no_writes_to_users_own() -> Iterator[None]:
    """Fail the test that wrote into the user's own pitable folders."""
    _writes_to_users_own.clear()
    yield
    if _writes_to_users_own:
        wrote, _writes_to_users_own[:] = list(_writes_to_users_own), []
        pytest.fail(f"the test wrote into the user's own folders: {wrote[:5]}")

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
    """Keep this run's picture for a failed golden ``path`` in pytest's temporary directory
    of the run, which pytest keeps for the last few runs."""
    failed = _RUN["tmp"] / "golden-failures" / path.name
    failed.parent.mkdir(parents=True, exist_ok=True)
    actual.save(failed)
    return failed


def assert_golden_image(image: Image.Image, path: Path) -> None:
    """``image`` must equal the PNG at ``path`` pixel for pixel, in mode and size too.

    On a difference, this run's image is kept in pytest's temporary directory to look at.
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
