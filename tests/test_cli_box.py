"""``pitable sim`` and ``pitable run`` as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import run_cli as run


@pytest.mark.slow
def test_scripted_sim_writes_the_faceplate(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    gif, png = tmp_path / "box.gif", tmp_path / "box.png"
    code, out, err = run(capsys, "sim", "--script", "press,press,hold,turn+1,push", "--seed",
                         "7", "--record", str(gif), "--png", str(png))
    assert code == 0, err
    assert "The Valley of Wiraqocha" in out
    with Image.open(gif) as animation:
        assert animation.n_frames > 5
    with Image.open(png) as last:
        assert last.width > 3 * 128


def test_the_same_seed_gives_the_same_game(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    pictures = []
    for n in range(2):
        png = tmp_path / f"{n}.png"
        run(capsys, "sim", "--script", "press,press", "--seed", "11", "--png", str(png))
        pictures.append(png.read_bytes())
    assert pictures[0] == pictures[1]


def test_sim_keeps_games_in_a_state_dir(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    code, _, _ = run(capsys, "sim", "--script", "press,press,press", "--solo", "--game",
                     "temple", "--state-dir", str(tmp_path))
    assert code == 0
    code, out, _ = run(capsys, "history", "--state-dir", str(tmp_path), "--json")
    assert code == 0 and len(out.splitlines()) == 1 + 3  # the game, its rolls


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["sim", "--script", "press,jump"], "--script step 'jump'"),
        (["sim", "--script", "turn+99999999999999999999"], "at most 1000 detents"),
        (["sim", "--script", "wait9999999999"], "at most 600000 ms"),
        (["sim", "--script", ""], "--script is empty"),
        (["sim", "--script", "press", "--record", "x.png"], "ending in .gif"),
        (["sim", "--script", "unplug:blue"], "no I2C display called 'blue'"),
        (["sim", "--script", "press", "--game", "chess"], "unknown game 'chess'"),
    ],
)
def test_bad_sim_arguments_are_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                        words: str) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


ON_A_PI = "Raspberry Pi" in (
    Path("/proc/device-tree/model").read_text(errors="replace")
    if Path("/proc/device-tree/model").exists() else ""
)


@pytest.mark.skipif(ON_A_PI, reason="on a Pi, pitable run starts the box")
def test_run_off_the_pi_says_what_is_missing_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    result = subprocess.run(
        [sys.executable, "-m", "pitable", "run", "--state-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=60, env=env, check=False,
    )
    # No pin library works here: the system lacks a part, exit status 1.
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0
    assert "pitable sim" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
@pytest.mark.skipif(ON_A_PI, reason="on a Pi, pitable run starts the box")
def test_run_off_the_pi_creates_nothing_before_it_fails(tmp_path: Path) -> None:
    """The parts are looked for before the store is opened: no state dir, no database."""
    home, state = tmp_path / "home", tmp_path / "state"
    home.mkdir()
    state.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPIOZERO_PIN_FACTORY", "PITABLE_BACKENDS")}
    env.update(HOME=str(home), XDG_STATE_HOME=str(state))
    result = subprocess.run(
        [sys.executable, "-m", "pitable", "run"],
        capture_output=True, text=True, timeout=60, env=env, check=False, cwd=tmp_path,
    )
    assert result.returncode != 0
    assert result.stderr.strip().count("\n") == 0 and "Traceback" not in result.stderr
    assert "no GPIO pin library" in result.stderr
    assert [p for p in tmp_path.rglob("*") if p not in (home, state)] == []
