"""The live simulator in a terminal: the faceplate in half-block characters, the keys as the
button and the encoder, the terminal in cbreak mode on its alternate screen.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from PIL import Image

from pitable.box.sim import Simulator
from pitable.errors import UsageError
from pitable.i18n import SOURCE_LANGUAGE, translator
from pitable.render.faces import die_label
from pitable.rules.base import ENGLISH, N_
from pitable.rules.dice import Die


def half_blocks(image: Image.Image) -> list[str]:
    """A 1-bit image as lines of half-block characters, two pixel rows a line."""
    mono = image.convert("1")
    w, h = mono.size
    px = mono.load()
    lines = []
    for y in range(0, h, 2):
        chars = []
        for x in range(w):
            top = px[x, y] != 0  # type: ignore[index]
            bottom = y + 1 < h and px[x, y + 1] != 0  # type: ignore[index]
            chars.append("█" if top and bottom else "▀" if top else "▄" if bottom else " ")
        lines.append("".join(chars))
    return lines


#: The smallest terminal the live simulator draws in, in characters.
MIN_TERMINAL = (80, 24)
HELP = N_("space: roll   h: hold (menu)   ↑/↓ ←/→: turn   enter: push   q: quit")
#: The arrow keys, as a terminal sends them in normal and in application cursor mode, and
#: the encoder's turn each stands for: down and right clockwise, which moves a menu's
#: highlight down the list; up and left back.
ARROWS = {
    b"\x1b[A": -1, b"\x1bOA": -1, b"\x1b[D": -1, b"\x1bOD": -1,
    b"\x1b[B": +1, b"\x1bOB": +1, b"\x1b[C": +1, b"\x1bOC": +1,
}
#: The terminal's alternate screen: the faceplate is drawn there, so that its frames never
#: reach the scrollback, and the normal screen comes back as it was on leaving.
ENTER_ALTERNATE = "\x1b[?1049h\x1b[?25l"
LEAVE_ALTERNATE = "\x1b[?25h\x1b[?1049l"
#: Each frame: from the top-left corner, each line cleared to its end, and the rest of the
#: screen below the last line cleared (no clearing of the whole screen, which flickers).
FRAME_START = "\x1b[H"
DICE = ("green", "purple", "red")


@dataclass(frozen=True)
class TerminalLayout:
    """How the faceplate is drawn in characters: the dice panels whole or only their face
    square, reduced ``dice_reduce`` times; the status screen's pixels at full size, or its
    words as text."""

    dice_reduce: int
    face_only: bool
    status_pixels: bool


#: From the largest to the smallest: the first that fits the terminal is drawn.
LAYOUTS = (
    TerminalLayout(2, face_only=False, status_pixels=True),   # 198x54
    TerminalLayout(2, face_only=True, status_pixels=True),    # 128x54
    TerminalLayout(2, face_only=True, status_pixels=False),   # 102 wide
    TerminalLayout(4, face_only=True, status_pixels=False),   # 54 wide: 80x24
)


def reduced(image: Image.Image, factor: int) -> Image.Image:
    """A 1-bit picture ``factor`` times smaller, a pixel lit where more than about a third
    of the ones it stands for are: thin lines and pips survive the reduction."""
    if factor == 1:
        return image.convert("1")
    return image.convert("L").reduce(factor).point(lambda v: 255 if v > 96 else 0)


def face_square(panel: Image.Image) -> Image.Image:
    """The die's face on a panel: the centred square as large as the panel holds (as tall
    as a panel lying down, as wide as one turned a quarter)."""
    w, h = panel.size
    side = min(w, h)
    left, top = (w - side) // 2, (h - side) // 2
    return panel.crop((left, top, left + side, top + side))


def dice_block(panels: dict[str, Image.Image], layout: TerminalLayout,
               lang: str = SOURCE_LANGUAGE) -> list[str]:
    """The dice in a row under their names (in ``lang``), in half-block characters."""
    dice = []
    for name in DICE:
        if name in panels:
            panel = face_square(panels[name]) if layout.face_only else panels[name]
            dice.append((name, half_blocks(reduced(panel, layout.dice_reduce))))
    if not dice:
        return []
    # Panels turned differently are of different heights: the shorter ones end in blanks.
    rows = max(len(d) for _, d in dice)
    dice = [(n, d + [" " * len(d[0])] * (rows - len(d))) for n, d in dice]
    labels = {str(die): die_label(die, lang) for die in Die}
    out = ["   ".join(f"{labels[n]:<{len(d[0])}}" for n, d in dice)]
    out.extend(" | ".join(row) for row in zip(*(d for _, d in dice), strict=True))
    return out


def _wrapped(words: list[str], width: int) -> list[str]:
    import textwrap

    lines: list[str] = []
    for line in words:
        lines.extend(textwrap.wrap(line, width) or [""])
    return lines


def terminal_screen(
    panels: dict[str, Image.Image],
    leds: tuple[bool, ...],
    size: tuple[int, int] | None = None,
    words: list[str] | None = None,
    page: str | None = None,
    *,
    lang: str = SOURCE_LANGUAGE,
) -> str:
    """The faceplate for a terminal of ``size`` (columns, rows; None: as large as needed),
    its words in ``lang``.

    The dice and the status screen are drawn as large as the terminal allows; where the
    status screen's pixels do not fit, its ``words`` are printed as text below the dice. A
    terminal smaller than :data:`MIN_TERMINAL` gets one line saying what size is needed.
    ``page``, the table's page and PIN, is shown above the keys.
    """
    words = words or []
    for layout in LAYOUTS:
        lines = _layout_lines(panels, leds, layout, words, size, page=page, lang=lang)
        if size is None or _fits(lines, size):
            return "\n".join(lines)
    assert size is not None
    cols, rows = size
    if cols < MIN_TERMINAL[0] or rows < MIN_TERMINAL[1]:
        return translator(lang).gettext(
            "Needs a terminal of {need} or more (this one is {size})").format(
                need=f"{MIN_TERMINAL[0]}x{MIN_TERMINAL[1]}", size=f"{cols}x{rows}")
    # The smallest layout, with the words cut to the rows there are.
    head = dice_block(panels, LAYOUTS[-1], lang)
    tail = _tail(leds, page, lang)
    room = rows - len(head) - 1 - len(tail)
    text = _wrapped(words, cols)
    if len(text) > room:
        text = [*text[: max(0, room - 1)], "…"]
    return "\n".join([*head, "", *text, *tail])


def _fits(lines: list[str], size: tuple[int, int]) -> bool:
    cols, rows = size
    return len(lines) <= rows and all(len(line) <= cols for line in lines)


def _tail(leds: tuple[bool, ...], page: str | None = None,
          lang: str = SOURCE_LANGUAGE) -> list[str]:
    """The LEDs, the table's page (its address and PIN) and the keys, below everything
    else."""
    out = ["", "  ".join("●" if on else "○" for on in leds)] if leds else []
    return [*out, *(["", page] if page else []), "", translator(lang).gettext(HELP)]


def page_line(box: object) -> str | None:
    """Where the table's page is and its PIN, for the live terminal's last lines; None while
    the box serves no page."""
    from pitable.box.join import join_code

    code = join_code(box)
    if code is None:
        return None
    tr = getattr(box, "tr", ENGLISH)
    return tr.gettext("The table's page: {url}").format(url=code.url) + (
        f"   PIN {code.pin}" if code.pin else "")


def _layout_lines(
    panels: dict[str, Image.Image],
    leds: tuple[bool, ...],
    layout: TerminalLayout,
    words: list[str],
    size: tuple[int, int] | None,
    *,
    page: str | None = None,
    lang: str = SOURCE_LANGUAGE,
) -> list[str]:
    out = dice_block(panels, layout, lang)
    if layout.status_pixels:
        if "status" in panels:
            out.append("")
            out.extend(half_blocks(panels["status"]))
    else:
        out.append("")
        out.extend(_wrapped(words, size[0] if size else MIN_TERMINAL[0]))
    return [*out, *_tail(leds, page, lang)]


def status_words(sim: Simulator) -> list[str]:
    """What the status screen says, as lines of text: a header, then the words of the roll,
    the open menu (the chosen item marked), or the code to join."""
    from pitable.box.snapshot import words_of

    box = sim.box
    view = box.view()
    tr = box.tr
    _ = tr.gettext
    header = [view.title.display_name(tr), _("solo") if view.solo else _("table")]
    if view.round is not None:
        header.append(_("round {round} of {limit}").format(round=view.round,
                                                          limit=view.round_limit)
                      if view.round_limit else _("round {round}").format(round=view.round))
    if view.hazards is not None:
        header.append(view.title.hazards_text(view.hazards, tr))
    lines = [" · ".join(header)]
    if box.menus.join is not None:
        # The code the screen shows (worked out again every few seconds while it is up).
        code = box.menus.join.code
        if code is None:
            lines.append(_("Join code: the table's web page is off ([web] enabled = true)"))
        else:
            pin = f"   PIN {code.pin}" if code.pin else ""
            lines.append(_("Join the table: {url}").format(url=code.url) + pin)
        lines.append(_("(a press goes back)"))
    elif view.menu is not None:
        lines.append(view.menu.heading)
        lines.extend(("> " if i == view.menu.selected else "  ") + item
                     for i, item in enumerate(view.menu.items))
    else:
        lines.extend(words_of(view))
    lines.extend(f"! {notice}" for notice in view.notices)
    return lines


def live(sim: Simulator, *, stdin: Any = None, stdout: Any = None,
         size: tuple[int, int] | None = None) -> None:
    """Run the box in the terminal with the real clock until the player presses q.

    The faceplate fits the terminal's size at each redraw (``size``, columns and rows, fixes
    it), so a window made smaller or larger is followed. It is drawn on the terminal's
    alternate screen, and the normal screen comes back as it was when the simulator ends,
    by q, Ctrl-C or an error; the table's page and its PIN, when the box serves one, stay on
    the screen below the faceplate.
    """
    import os
    import select
    import shutil
    import termios
    import time
    import tty

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if not stdin.isatty():
        raise UsageError("the live simulator needs a terminal; use --script for a headless run")
    fd = stdin.fileno()
    saved = termios.tcgetattr(fd)
    box = sim.box
    release_at: float | None = None
    last = ""

    def draw() -> None:
        nonlocal last
        cols, rows = size or shutil.get_terminal_size()
        screen = terminal_screen(sim._panels(), sim.led_states(), (cols, rows),
                                 status_words(sim), page_line(box), lang=box.language)
        if screen != last:
            # No newline after the last line: on a screen exactly filled it would scroll the
            # first line away.
            stdout.write(FRAME_START + screen.replace("\n", "\x1b[K\n") + "\x1b[K\x1b[J")
            stdout.flush()
            last = screen

    try:
        tty.setcbreak(fd)
        stdout.write(ENTER_ALTERNATE)
        while True:
            deadline = box.step()
            sim._trim_pin_states()
            draw()
            now = time.monotonic()
            waits = [0.5]
            if deadline is not None:
                waits.append(deadline - now)
            if release_at is not None:
                waits.append(release_at - now)
            ready, _, _ = select.select([fd], [], [], max(0.0, min(waits)))
            if release_at is not None and time.monotonic() >= release_at:
                sim.button_up()
                release_at = None
            if not ready:
                continue
            key = os.read(fd, 8)
            if key in (b"q", b"Q", b"\x03"):
                break
            if key == b" " and release_at is None:
                sim.button_down()
                release_at = time.monotonic() + 0.1
            elif key in (b"h", b"H") and release_at is None:
                sim.button_down()
                release_at = time.monotonic() + sim.config.box.hold_s + 0.1
            elif key in ARROWS and sim.config.encoder.enabled:
                _turn_now(sim, ARROWS[key])
            elif key in (b"\r", b"\n") and sim.config.encoder.enabled:
                pin = sim.fakes.pin(sim.config.encoder.push)
                pin.drive_low()
                pin.drive_high()
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        stdout.write(LEAVE_ALTERNATE)
        stdout.flush()


def _turn_now(sim: Simulator, steps: int) -> None:
    a, b = sim.fakes.pin(sim.config.encoder.a), sim.fakes.pin(sim.config.encoder.b)
    first, second = (a, b) if steps > 0 else (b, a)
    first.drive_low()
    second.drive_low()
    first.drive_high()
    second.drive_high()

