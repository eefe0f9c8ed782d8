"""Shared helpers for the tests: golden files, compared exactly, rewritten only on purpose;
and the folders the tests may touch, which are their own.

From the moment this file is loaded (before any test module is imported, so collection
too), ``XDG_CACHE_HOME``, ``XDG_STATE_HOME`` and ``TMPDIR`` point into a folder of the
run's own (:data:`OWN`, removed at the end; the programs the tests start inherit them), and
a guard fails the run when anything in it writes where pitable keeps the files of the user
running the tests (``~/.cache/pitable``, ``~/.local/state/pitable``); and the locale is C.UTF-8,
so that the box's words are English unless a test chooses otherwise.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pitable import xdg
from pitable.rules import Title
from tests.support.install import CMDLINE, USER_CONFIG_TXT
from tests.support.titles import title_for_test, title_params

GOLDEN = Path(__file__).parent / "golden"

#: Passes the user's own folders from the first process of a run (found before they are
#: pointed elsewhere) to those it starts, pytest-xdist's workers among them.
_USERS_OWN_VARIABLE = "PITABLE_TESTS_USERS_OWN"
#: Where pitable keeps its files for the user running the tests: no test may write there.
USERS_OWN: tuple[str, ...]
if _USERS_OWN_VARIABLE in os.environ:
    USERS_OWN = tuple(os.environ[_USERS_OWN_VARIABLE].split(os.pathsep))
else:
    USERS_OWN = tuple(os.path.abspath(base / "pitable")
                      for base in (xdg.cache_home(), xdg.state_home()))
    os.environ[_USERS_OWN_VARIABLE] = os.pathsep.join(USERS_OWN)

# pytest's own temporary directories (tmp_path, and the pictures of a failed golden kept
# there) stay where pytest keeps them for the last few runs, outside the folder below that
# goes at the end of the run: pytest reads its root from this variable before TMPDIR.
os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())

#: This process's own folder for the run: pitable's cache and state and every temporary
#: file of the tests and of the programs they start. Others may pass through it (0711) to
#: a folder a test makes readable to them, as the installer's test does for nobody.
OWN = Path(tempfile.mkdtemp(prefix="pitable-tests-"))
OWN.chmod(0o711)
for _name, _folder in (("XDG_CACHE_HOME", "cache"), ("XDG_STATE_HOME", "state"),
                       ("TMPDIR", "tmp")):
    (OWN / _folder).mkdir(mode=0o711)
    os.environ[_name] = str(OWN / _folder)
tempfile.tempdir = None  # read TMPDIR again

# The box speaks the environment's language where nothing else chooses one: the tests run
# under the C locale (UTF-8), which speaks English, whatever the shell that started them
# speaks; a test of the environment's language sets its own.
for _name in ("LANGUAGE", "LC_MESSAGES", "LANG"):
    os.environ.pop(_name, None)
os.environ["LC_ALL"] = "C.UTF-8"


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(OWN, ignore_errors=True)


#: Writes into the user's own folders, as (event, path), not yet reported.
_writes_to_users_own: list[tuple[str, str]] = []
#: pytest's temporary directory of the run (of this worker, under pytest-xdist), as "tmp":
#: it keeps what a failed test leaves to look at for the last few runs.
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
# programs the tests start are kept out by the environment set above.
sys.addaudithook(_watch_writes)


@pytest.fixture(scope="session", autouse=True)
def _run_tmp(tmp_path_factory: pytest.TempPathFactory) -> None:
    _RUN["tmp"] = tmp_path_factory.getbasetemp()


def _report_writes_to_users_own(when: str) -> None:
    if _writes_to_users_own:
        wrote, _writes_to_users_own[:] = list(_writes_to_users_own), []
        pytest.fail(f"written into the user's own folders {when}: {wrote[:5]}")


@pytest.fixture(autouse=True)
def _no_writes_to_users_own() -> Iterator[None]:
    """Fail the test that wrote into the user's own pitable folders (and the first test, for
    a write made while the tests were collected)."""
    _report_writes_to_users_own("before this test, while the tests were collected")
    yield
    _report_writes_to_users_own("by this test")


_pillows_frombytes = Image.frombytes


def _frombytes_as_on_the_pi(mode: str, size: tuple[int, int], data: object,
                            *args: object, **kwargs: object) -> Image.Image:
    """``Image.frombytes`` as the Pi's Pillow 9.4 takes it: its decoder reads only
    read-only buffers, and a ``bytearray`` (which Pillow 10 and newer take) is a TypeError
    there, the box's included."""
    if not isinstance(data, bytes):
        raise TypeError("argument 1 must be read-only bytes-like object, not "
                        f"{type(data).__name__} (as Pillow before 10 says)")
    return _pillows_frombytes(mode, size, data, *args, **kwargs)


@pytest.fixture(scope="session", autouse=True)
def _pillow_as_on_the_pi() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Image, "frombytes", _frombytes_as_on_the_pi)
        yield


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


#: Pillow before 10 (Debian bookworm's 9.4, which the box uses on the Pi, and so the tests
#: in scripts/pi-check's roots) places some glyphs of the same font one pixel apart from
#: today's Pillow, which made the goldens: 1 to 18 pixels of a status screen, 31 to 47 of
#: a sheet's whole strip (0.06% of a picture at most). With such a Pillow, a picture may
#: differ from its golden in at most this share of its pixels; a layout that moved, a
#: missing word or a wrong face changes far more. With Pillow 10 and newer: exactly.
OLD_PILLOW_SHARE = 0.001


def old_pillow() -> bool:
    return int(Image.__version__.split(".")[0]) < 10


def assert_golden_image(image: Image.Image, path: Path) -> None:
    """``image`` must equal the PNG at ``path`` pixel for pixel, in mode and size too
    (with a Pillow before 10, up to :data:`OLD_PILLOW_SHARE` of its pixels may differ).

    On a difference, this run's image is kept in pytest's temporary directory to look at.
    """
    expected = golden_image(path, image)
    assert (expected.mode, expected.size) == (image.mode, image.size)
    difference = ImageChops.difference(expected.convert("L"), image.convert("L"))
    box = difference.getbbox()
    if box is None:
        return
    differing = image.width * image.height - difference.histogram()[0]
    allowed = int(image.width * image.height * OLD_PILLOW_SHARE) if old_pillow() else 0
    if differing > allowed:
        failed = kept_failure(path, image)
        pytest.fail(f"{path.name} differs from its golden in {differing} pixels inside {box}"
                    f" (at most {allowed} with Pillow {Image.__version__});"
                    f" this run's: {failed}")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``pitable ARGV`` in this process: its exit status, stdout and stderr."""
    from pitable.cli import main

    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own exits (bad arguments, --help)
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(params=title_params())
def title(request: pytest.FixtureRequest) -> Iterator[Title]:
    """Each registered title in turn, and the toy title of tests/ registered for the test
    (see :mod:`tests.support.titles`; ``indirect=True`` with ``title_params(having)`` runs
    a test over the titles that have what it needs)."""
    with title_for_test(request.param) as title:
        yield title


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A FIFO that nobody writes to: a device that never answers, or a file that is none."""
    path = tmp_path / "hwrng"
    os.mkfifo(path)
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A scratch root with the boot files of a Pi's fresh card, for install.sh."""
    boot = tmp_path / "root/boot/firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(USER_CONFIG_TXT)
    (boot / "cmdline.txt").write_text(CMDLINE)
    return tmp_path / "root"
