"""The live simulator fits the terminal it is given: at 80x24 the dice and the status
screen's words are readable, and a terminal too small is told so in one line."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitable.box.snapshot import words_of
from pitable.box.terminal import (
    face_square,
    half_blocks,
    reduced,
    status_words,
    terminal_screen,
)
from pitable.render.faces import die_panel
from pitable.rules import SPECIAL, Die, Title, find_title
from tests.support.box import make

FACES = (1, 2, 3, 4, 5, SPECIAL)
ROLLS = ("1,1,1", "2,2,2", "3,3,3", "4,4,4", "5,5,5", "*,*,*")


def small_face(face: object, die: Die, title: str, factor: int = 4) -> list[str]:
    """A face's drawing at the terminal's scale: its square, reduced, in half blocks."""
    panel = die_panel(face, die, find_title(title))  # type: ignore[arg-type]
    return half_blocks(reduced(face_square(panel), factor))


def dice_on_screen(screen: str) -> list[list[str]]:
    """The three dice blocks under the GREEN/PURPLE/RED line of a terminal screen."""
    lines = screen.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("GREEN"))
    rows = []
    for line in lines[start + 1:]:
        if " |" not in line:
            break
        # A die blank to the right edge loses its spaces in a terminal's copy of its screen.
        rows.append((line + " " if line.endswith(" |") else line).split(" | "))
    return [list(column) for column in zip(*rows, strict=True)]


def read_dice(screen: str, title: str, factor: int = 4) -> list[object]:
    """Which face each die shows on the screen, by its drawing at the same scale."""
    found = []
    # Compared without trailing spaces, which a terminal's copy of its screen drops.
    for die, block in zip(Die, dice_on_screen(screen), strict=True):
        shown = [line.rstrip() for line in block]
        matches = [f for f in FACES
                   if [line.rstrip() for line in small_face(f, die, title, factor)] == shown]
        assert len(matches) == 1, f"the {die} die shows {matches} in\n{screen}"
        found.append(matches[0])
    return found


def fits(screen: str, cols: int, rows: int) -> bool:
    lines = screen.split("\n")
    return len(lines) <= rows and all(len(line) <= cols for line in lines)


def test_at_80x24_every_face_of_every_die_reads_apart(title: Title) -> None:
    for die in Die:
        drawings = [tuple(small_face(f, die, title.key)) for f in FACES]
        assert len(set(drawings)) == len(FACES), f"two {die} faces look alike in {title.key}"


def test_at_80x24_the_dice_and_the_status_words_are_shown(title: Title) -> None:
    sim = make(*ROLLS, title=title.key)
    for roll in ROLLS:
        sim.press()
        screen = terminal_screen(sim._panels(), sim.led_states(), (80, 24), status_words(sim))
        assert fits(screen, 80, 24)
        expected = [SPECIAL if f == "*" else int(f) for f in roll.split(",")]
        assert read_dice(screen, title.key) == expected
        text = " ".join(screen.split())
        for line in words_of(sim.box.view()):
            assert " ".join(line.split()) in text
    sim.close()


def test_the_menu_is_text_with_the_chosen_item_marked() -> None:
    sim = make("1,2,3")
    sim.press()
    sim.hold()
    sim.press()
    screen = terminal_screen(sim._panels(), sim.led_states(), (80, 24), status_words(sim))
    assert fits(screen, 80, 24)
    assert "  New game" in screen.split("\n")
    assert "> End game" in screen.split("\n")
    sim.close()


def test_a_large_terminal_shows_the_status_screen_itself() -> None:
    sim = make("2,3,5")
    sim.press()
    screen = terminal_screen(sim._panels(), sim.led_states(), (200, 60), status_words(sim))
    lines = screen.split("\n")
    status = half_blocks(sim.panel("status"))
    at = lines.index(status[0])
    assert lines[at:at + len(status)] == status
    assert fits(screen, 200, 60)
    sim.close()


@pytest.mark.parametrize("size", [(120, 40), (100, 30)])
def test_a_middling_terminal_gets_the_largest_dice_that_fit(size: tuple[int, int]) -> None:
    sim = make("2,3,5")
    sim.press()
    screen = terminal_screen(sim._panels(), sim.led_states(), size, status_words(sim))
    assert fits(screen, *size)
    factor = 2 if size[0] >= 102 else 4
    assert read_dice(screen, "valley", factor) == [2, 3, 5]
    sim.close()


def test_a_terminal_too_small_is_told_the_size_needed_in_one_line() -> None:
    sim = make()
    screen = terminal_screen(sim._panels(), sim.led_states(), (40, 12), status_words(sim))
    assert screen == "Needs a terminal of 80x24 or more (this one is 40x12)"
    sim.close()


def test_words_that_do_not_fit_are_cut_with_an_ellipsis_not_spilled() -> None:
    sim = make("2,3,5")
    sim.press()
    many = [f"line {i}" for i in range(40)]
    screen = terminal_screen(sim._panels(), sim.led_states(), (80, 24), many)
    assert fits(screen, 80, 24)
    assert "…" in screen.split("\n")
    assert read_dice(screen, "valley") == [2, 3, 5]
    sim.close()


# --- the live simulator in a real terminal ------------------------------------------------


LIVE = [sys.executable, "-m", "pitable", "sim", "--seed", "1"]
SCREEN_START = "\x1b[H"


def last_screen(output: bytes) -> str:
    """The last full screen the live simulator drew, without its escape sequences."""
    text = output.decode("utf-8", "replace").split(SCREEN_START)[-1]
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text).replace("\r", "")


@contextlib.contextmanager
def pty_sim(cols: int, rows: int, *args: str) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``pitable sim`` live (with ``args``) on a pseudo-terminal of ``cols`` x ``rows``."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.Popen([*LIVE, *args], stdin=slave, stdout=slave, stderr=slave, env=env,
                            start_new_session=True)
    os.close(slave)
    try:
        yield master, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)
        os.close(master)


#: What the screen shows once the first roll's faces are final (not while they tumble).
ROLLED = re.compile(r"round 1\n(?!Rolling)")


def read_until(master: int, done: str | re.Pattern[str], output: bytearray,
               limit: float = 60.0) -> str:
    """Read the terminal until its last screen contains ``done``; that screen."""
    pattern = done if isinstance(done, re.Pattern) else re.compile(re.escape(done))
    while not pattern.search(last_screen(bytes(output))):
        ready, _, _ = select.select([master], [], [], limit)
        assert ready, f"no {done!r} on the screen:\n{last_screen(bytes(output))}"
        try:
            output += os.read(master, 65536)
        except OSError:  # the other end closed
            break
    return last_screen(bytes(output))


def test_pitable_sim_live_in_an_80x24_pty_rolls_and_fits() -> None:
    with pty_sim(80, 24) as (master, proc):
        output = bytearray()
        read_until(master, "Press ROLL", output)
        os.write(master, b" ")
        screen = read_until(master, ROLLED, output)
        assert fits(screen, 80, 24), screen
        assert None not in read_dice(screen, "valley")
        assert "Numbers" in screen or "SNAKE" in screen
        os.write(master, b"q")
        assert proc.wait(30) == 0


def test_pitable_sim_live_in_a_tiny_pty_says_the_size_it_needs() -> None:
    with pty_sim(60, 15) as (master, proc):
        output = bytearray()
        screen = read_until(master, "Needs a terminal", output)
        assert screen.strip() == "Needs a terminal of 80x24 or more (this one is 60x15)"
        os.write(master, b"q")
        assert proc.wait(30) == 0


def marked(screen: str) -> tuple[int, str]:
    """The line of the menu's chosen item on ``screen``, and its text."""
    lines = screen.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("> "))
    return at, lines[at][2:].strip()


def test_the_arrow_keys_move_the_menus_highlight_the_way_they_point() -> None:
    with pty_sim(80, 24) as (master, proc):
        output = bytearray()
        read_until(master, "Press ROLL", output)
        os.write(master, b"h")  # hold: the menu
        first_at, first = marked(read_until(master, re.compile(r"^> ", re.M), output))
        for down in (b"\x1b[B", b"\x1bOB", b"\x1b[C"):
            os.write(master, down)
            at, item = marked(read_until(master, re.compile(rf"^> (?!{re.escape(first)})",
                                                            re.M), output))
            assert at == first_at + 1, f"{down!r} moved the highlight from {first} to {item}"
            os.write(master, b"\x1b[A" if down != b"\x1b[C" else b"\x1b[D")  # back up
            assert marked(read_until(master, f"> {first}", output)) == (first_at, first)
        os.write(master, b"q")
        assert proc.wait(30) == 0


def test_the_simulator_draws_on_the_alternate_screen_and_gives_the_normal_one_back() -> None:
    for leave in ("q", "Ctrl-C"):
        with pty_sim(80, 24) as (master, proc):
            output = bytearray()
            read_until(master, "Press ROLL", output)
            if leave == "q":
                os.write(master, b"q")
            else:
                os.killpg(proc.pid, signal.SIGINT)
            assert proc.wait(30) == (0 if leave == "q" else 130)
            with contextlib.suppress(OSError):
                while select.select([master], [], [], 1)[0]:
                    chunk = os.read(master, 65536)
                    if not chunk:
                        break
                    output += chunk
            text = output.decode("utf-8", "replace")
            assert text.index("\x1b[?1049h") < text.index("Press ROLL"), leave
            assert text.rstrip("\r\n").endswith("\x1b[?1049l"), (leave, text[-80:])
            assert "Traceback" not in text
            # No frame clears the whole screen, which pushes the old one into the scrollback.
            assert "\x1b[2J" not in text


def test_the_web_pages_address_and_pin_stay_below_the_faceplate() -> None:
    with pty_sim(80, 24, "--web", "127.0.0.1:0", "--pin", "4321") as (master, proc):
        output = bytearray()
        # The log's line says it before the first frame; the frames keep it on the screen.
        page = re.compile(r"^The table's page: http://127\.0\.0\.1:\d+/? +PIN 4321$", re.M)
        screen = read_until(master, page, output)
        assert "Press ROLL" in screen and fits(screen, 80, 24)
        os.write(master, b" ")
        screen = read_until(master, ROLLED, output)
        assert "PIN 4321" in screen
        os.write(master, b"q")
        assert proc.wait(30) == 0


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_pitable_sim_live_in_tmux_at_80x24(tmp_path: Path) -> None:
    """As a person would: a shell in tmux at 80x24, pitable sim typed into it, space to
    roll, and what the pane shows."""
    server = f"pitable-test-{uuid.uuid4().hex[:8]}"
    fifo = tmp_path / "pane"
    os.mkfifo(fifo)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TMUX")}

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", server, "-f", "/dev/null", *args], check=True,
                              capture_output=True, text=True, env=env).stdout

    tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "sim", "sh")
    try:
        # Everything the pane receives from now on also goes to the pipe, read below.
        tmux("pipe-pane", "-t", "sim", "-O", f"cat > {fifo}")
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            output = bytearray()
            tmux("send-keys", "-t", "sim", " ".join(LIVE), "Enter")
            read_until(reader, "Press ROLL", output)
            tmux("send-keys", "-t", "sim", "Space")
            read_until(reader, ROLLED, output)
        finally:
            os.close(reader)
        pane = tmux("capture-pane", "-p", "-t", "sim").rstrip("\n")
        screen = "\n".join(line.rstrip() for line in pane.split("\n"))
        assert fits(screen, 80, 24)
        assert "round 1" in screen
        assert None not in read_dice(screen, "valley")
        tmux("send-keys", "-t", "sim", "q")
    finally:
        subprocess.run(["tmux", "-L", server, "kill-server"], check=False, capture_output=True,
                       env=env)


@pytest.mark.parametrize(
    ("title", "rolls", "words"),
    [("temple", 1, "1 mummy"), ("temple", 2, "2 mummies"), ("valley", 3, "3 snakes"),
     ("island", 2, "danger 2/5")],
)
def test_the_live_header_counts_the_hazards_in_proper_plurals(title: str, rolls: int,
                                                              words: str) -> None:
    sim = make(*["1,2,*"] * rolls, title=title, mode="solo")
    for _ in range(rolls):
        sim.press()
    header = status_words(sim)[0].split(" · ")
    assert words in header, header  # once "mummys 2"


@pytest.mark.parametrize("turned", [("green",), ("green", "purple", "red", "status")])
def test_panels_mounted_turned_fit_the_terminal_too(turned: tuple[str, ...]) -> None:
    from pitable.config import loads_config

    config = loads_config("".join(f"[displays.{n}]\nrotate = 1\n" for n in turned))
    sim = make("3,3,3", config=config)
    sim.press()
    for size in ((80, 24), (120, 40), (200, 60)):
        screen = terminal_screen(sim._panels(), sim.led_states(), size, status_words(sim))
        assert fits(screen, *size), (size, screen)
        assert "GREEN" in screen and "Needs a terminal" not in screen
    sim.close()
