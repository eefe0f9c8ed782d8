"""The set-up scripts on a fresh checkout: each step said once, then silence once set up.

The checkout holds only scripts/ and pyproject.toml. PATH holds a fake ``python3`` whose
``-m venv`` makes a .venv with a fake ``python`` that plays pip: it prints pip's kind of
lines and installs stub ``pitable``, ``ruff``, ``mypy`` and ``pytest`` commands that log how
they were called. No network, no real install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

#: The commands the scripts and the fakes use, linked into the fake PATH from this machine.
TOOLS = ("bash", "env", "dirname", "awk", "tee", "tail", "touch", "cat", "cp", "mkdir",
         "chmod", "rm")

FAKE_PYTHON = """#!/usr/bin/env bash
# A system Python 3.11: answers the scripts' version questions and makes a venv.
case "$1 $2" in
  "-c "*version_info*) exit "${FAKE_OLD_PYTHON:-0}" ;;
  "-c "*python_version*) echo 3.11.9 ;;
  "-m venv") mkdir -p "$3/bin" && cp "$(dirname "$0")/venv-python" "$3/bin/python" ;;
  *) echo "fake python3: unexpected $*" >&2; exit 2 ;;
esac
"""

FAKE_VENV_PYTHON = """#!/usr/bin/env bash
# The venv's python, only as `python -m pip install ...`: pip's lines, then the stubs.
bin=$(cd "$(dirname "$0")" && pwd)
[ "$1 $2 $3" = "-m pip install" ] || { echo "fake venv python: unexpected $*" >&2; exit 2; }
shift 3
echo "pip install $*" >>"$bin/../pip-calls"
if [ "$*" = "--upgrade pip" ]; then
  echo "Collecting pip"
  echo "  Downloading pip-25.0-py3-none-any.whl (1.8 MB)"
  echo "Installing collected packages: pip"
  echo "Successfully installed pip-25.0"
  exit 0
fi
echo "Obtaining file://$PWD"
echo "Collecting Pillow>=10 (from pitable==0.1.0)"
echo "  Downloading pillow-11.0.0-cp311-manylinux_2_28_x86_64.whl (4.4 MB)"
if [ -n "${FAKE_PIP_FAILS:-}" ]; then
  echo "ERROR: Could not find a version that satisfies the requirement Pillow>=10" >&2
  exit 1
fi
echo "Installing collected packages: Pillow, pitable"
echo "Successfully installed Pillow-11.0.0 pitable-0.1.0"
for tool in pitable ruff mypy pytest; do
  cat >"$bin/$tool" <<STUB
#!/usr/bin/env bash
echo "$tool \\$* (in \\$PWD)" >>"$bin/../calls"
if [ "$tool \\$1" = "pitable sim" ]; then
  while [ \\$# -gt 0 ]; do
    case \\$1 in --record|--png) touch "\\$2"; shift ;; esac
    shift
  done
  echo "Skull Island, solo: 2 rolls, 0 dangers"
fi
STUB
  chmod +x "$bin/$tool"
done
"""


@dataclass
class Checkout:
    root: Path
    env: dict[str, str]

    def run(self, script: str, *args: str, cwd: Path | None = None,
            **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.root / "scripts" / script), *args], cwd=cwd or self.root,
            env={**self.env, **env}, capture_output=True, text=True, timeout=60, check=False,
        )

    def calls(self) -> list[str]:
        log = self.root / ".venv/calls"
        return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def checkout(tmp_path: Path) -> Checkout:
    root = tmp_path / "pitable"
    shutil.copytree(ROOT / "scripts", root / "scripts")
    shutil.copy2(ROOT / "pyproject.toml", root / "pyproject.toml")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} is not on this machine")
        os.symlink(found, bin_dir / tool)
    for name, text in (("python3", FAKE_PYTHON), ("venv-python", FAKE_VENV_PYTHON)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return Checkout(root, {"PATH": str(bin_dir), "HOME": str(tmp_path), "LC_ALL": "C"})


def setup_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("set-up: ")]


def test_sim_says_each_step_of_its_first_run_then_names_the_files_it_wrote(
    checkout: Checkout,
) -> None:
    first = checkout.run("sim")
    assert first.returncode == 0, first.stderr
    steps = setup_lines(first.stderr)
    assert steps[0].startswith("set-up: installing pitable[sim] into .venv/ (the first time"
                               " takes 1 to 4 minutes")
    assert steps[0].endswith("; pip's log: .venv/pip.log)")
    assert steps[1:5] == [
        f"set-up: Python: {checkout.env['PATH']}/python3 (3.11.9)",
        "set-up: making the virtual environment .venv/",
        "set-up: upgrading pip",
        "set-up: installing pitable[sim] and the libraries it needs",
    ]
    assert steps[5].startswith("set-up: done in ") and len(steps) == 6
    # pip's progress: its per-package lines, indented; the rest only in the log.
    assert "    Collecting Pillow>=10 (from pitable==0.1.0)" in first.stderr
    assert "    Installing collected packages: Pillow, pitable" in first.stderr
    assert "Downloading" not in first.stderr
    log = (checkout.root / ".venv/pip.log").read_text()
    assert "Downloading pip-25.0" in log and "Successfully installed Pillow-11.0.0" in log

    assert checkout.calls()[0].startswith("pitable sim --script press,")
    assert first.stdout.splitlines()[-2:] == [
        f"Wrote {checkout.root}/box.gif (the game, animated) and {checkout.root}/box.png"
        " (its last frame).",
        "Open them with any image viewer or a web browser, e.g. xdg-open box.gif"
        " (open box.gif on a Mac).",
    ]

    again = checkout.run("sim")
    assert again.returncode == 0, again.stderr
    assert again.stderr == ""
    assert again.stdout.splitlines()[-2].startswith("Wrote ")
    assert len((checkout.root / ".venv/pip-calls").read_text().splitlines()) == 2


def test_sim_with_arguments_passes_them_on_and_claims_no_files(checkout: Checkout) -> None:
    checkout.run("sim")
    result = checkout.run("sim", "--live", "--solo")
    assert result.returncode == 0 and result.stderr == ""
    assert "Wrote" not in result.stdout and "Simulating" not in result.stdout
    assert checkout.calls()[-1] == f"pitable sim --solo (in {checkout.root})"


def test_test_says_each_step_then_runs_the_checks_and_is_silent_once_set_up(
    checkout: Checkout,
) -> None:
    first = checkout.run("test", "-q")
    assert first.returncode == 0, first.stderr
    steps = setup_lines(first.stderr)
    assert steps[0].startswith("set-up: installing pitable[test] into .venv/")
    assert "set-up: installing pitable[test] and the libraries it needs" in steps
    assert steps[-1].startswith("set-up: done in ")
    assert first.stdout.splitlines() == ["== ruff", "== mypy", "== pytest"]
    assert [call.split(" (in")[0] for call in checkout.calls()] == [
        "ruff check pitable tests benchmarks", "mypy ",
        "pytest -m not slow -n auto --dist worksteal -q"]

    again = checkout.run("test", "-q")
    assert again.returncode == 0 and again.stderr == ""
    every = checkout.run("test", "--all", "-q")
    assert every.returncode == 0 and every.stderr == ""
    assert checkout.calls()[-1].split(" (in")[0] == "pytest -q"


def test_test_runs_the_whole_of_a_file_or_test_it_is_given(checkout: Checkout) -> None:
    """A file named is run whole, its slow tests too: naming a file of slow tests alone
    would otherwise run nothing ("no tests ran")."""
    (checkout.root / "tests").mkdir()
    (checkout.root / "tests" / "test_slow.py").write_text("")
    checkout.run("test")

    def pytest_call(*args: str) -> tuple[str, str]:
        result = checkout.run("test", *args)
        assert result.returncode == 0, result.stderr
        return checkout.calls()[-1].split(" (in")[0], result.stdout

    for named in ("tests/test_slow.py", "tests/test_slow.py::test_one", "tests",
                  "tests/test_slow.py::Group::test_two[a-b]"):
        call, out = pytest_call("-q", named)
        assert call == f"pytest -n auto --dist worksteal -q {named}"
        assert "slow ones included" in out
    # What names no test file of the checkout leaves the quick set as it is.
    for args in (("-k", "tests"), ("--deselect", "tests/test_slow.py::test_one"),
                 ("tests/test_missing.py",), ("-x",)):
        call, out = pytest_call(*args)
        assert call == f"pytest -m not slow -n auto --dist worksteal {' '.join(args)}"
        assert "slow ones included" not in out


def test_pitable_sets_up_once_and_runs_in_the_callers_directory(
    checkout: Checkout, tmp_path: Path,
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    first = checkout.run("pitable", "options", "valley", "2,3,5", cwd=elsewhere)
    assert first.returncode == 0, first.stderr
    assert "set-up: installing pitable[sim] and the libraries it needs" in first.stderr
    assert first.stdout == ""
    again = checkout.run("pitable", "sheet", "valley", "--out", "sheet.pdf", cwd=elsewhere)
    assert again.returncode == 0 and again.stderr == ""
    assert checkout.calls() == [
        f"pitable options valley 2,3,5 (in {elsewhere})",
        f"pitable sheet valley --out sheet.pdf (in {elsewhere})",
    ]


def test_a_venv_set_up_for_the_tests_serves_the_simulator(checkout: Checkout) -> None:
    checkout.run("test")
    result = checkout.run("pitable", "roll")
    assert result.returncode == 0 and result.stderr == ""


def test_a_changed_pyproject_sets_up_again(checkout: Checkout) -> None:
    checkout.run("pitable", "roll")
    stamp = checkout.root / ".venv/.installed-sim"
    later = stamp.stat().st_mtime + 10
    os.utime(checkout.root / "pyproject.toml", (later, later))
    result = checkout.run("pitable", "roll")
    assert result.returncode == 0
    assert "set-up: upgrading pip" in setup_lines(result.stderr)
    assert "set-up: making the virtual environment .venv/" not in result.stderr


def test_a_failed_install_shows_pips_error_and_is_tried_again_next_time(
    checkout: Checkout,
) -> None:
    failed = checkout.run("sim", FAKE_PIP_FAILS="1")
    assert failed.returncode == 1
    assert "ERROR: Could not find a version that satisfies the requirement" in failed.stderr
    assert failed.stderr.splitlines()[-1] == (
        "pip could not install pitable[sim]; the whole log is in .venv/pip.log")
    assert checkout.calls() == []
    retried = checkout.run("sim")
    assert retried.returncode == 0
    assert "set-up: installing pitable[sim] and the libraries it needs" in retried.stderr


def test_without_python_3_11_the_scripts_say_so(checkout: Checkout) -> None:
    result = checkout.run("pitable", "roll", FAKE_OLD_PYTHON="1")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "pitable needs Python 3.11 or newer; none was found on PATH"
        " (or set PYTHON=/path/to/python3)")
    assert not (checkout.root / ".venv").exists()


def first_pitable_example(readme: str) -> str:
    """The first ```sh or ```console block of the README that calls `pitable` itself."""
    import re

    for block in re.findall(r"^```(?:sh|console)\n(.*?)^```", readme, re.M | re.S):
        if re.search(r"^(\$ )?pitable ", block, re.M):
            return str(block)
    raise AssertionError("the README has no example that calls pitable")


def test_the_readmes_first_example_pastes_as_it_stands_after_the_set_up() -> None:
    """Run as a reader would paste it, in a shell where pitable is not on the PATH."""
    if not (ROOT / ".venv/bin/activate").exists():
        pytest.skip("no .venv beside the source: run scripts/sim or scripts/test first")
    example = first_pitable_example((ROOT / "README.md").read_text())
    venvs = {str(ROOT / ".venv/bin"), os.path.join(os.environ.get("VIRTUAL_ENV", "-"), "bin")}
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p.rstrip("/") not in venvs)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {"PATH": path}
    result = subprocess.run(["bash", "-e"], input=example, cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    said = [line.removeprefix("# ") for line in example.splitlines() if line.startswith("# ")]
    assert said and result.stdout.splitlines() == said


def test_a_python_given_by_name_must_be_3_11_or_newer(checkout: Checkout) -> None:
    result = checkout.run("pitable", "roll", PYTHON="python3", FAKE_OLD_PYTHON="1")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "PYTHON=python3 is not a Python 3.11 or newer that runs here")
    given = checkout.run("pitable", "roll", PYTHON="python3")
    assert given.returncode == 0
    assert f"set-up: Python: {checkout.env['PATH']}/python3 (3.11.9)" in given.stderr
