"""The simulator: the whole box on fakes, driven by a script or by the keyboard.

Inputs go through gpiozero's mock pins exactly as a finger on the button would drive them;
outputs are read back from the fake panels' display RAM and the LED pins. Time is a
:class:`~pitable.hw.clock.FakeClock` in scripted runs (a script of a hundred presses takes
no time) and the real clock in the live terminal.

The faceplate GIF is written with Pillow rather than luma.emulator's ``gifanim``: the
emulator needs pygame for every device and gives each frame the same length, while these
frames carry the simulated time between them.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from pitable.box.assembly import BuiltBox, build_box
from pitable.box.backends import Backends, Fakes
from pitable.box.controller import Printer
from pitable.box.games import Asked, Store
from pitable.box.printing import BoxPrinter
from pitable.config import Config
from pitable.errors import UsageError
from pitable.hw.clock import Clock, FakeClock
from pitable.hw.entropy import EntropySource
from pitable.i18n import SOURCE_LANGUAGE, translator
from pitable.render.faces import die_label
from pitable.render.fonts import BOLD, font
from pitable.rules.base import ENGLISH, N_
from pitable.rules.dice import Die

log = logging.getLogger("pitable.sim")


#: How often the box looks at its queue during a wait in real time: a roll asked from the web
#: page starts within this.
REAL_WAIT_STEP_S = 0.02

#: Where the simulator's fake clock starts.
SIM_START = 1000.0

#: How many of its latest states each of gpiozero's mock pins keeps: MockPin records every
#: change in a list that nothing else trims, which would grow for as long as the box runs.
KEEP_PIN_STATES = 64

DIE_COLOURS = {"green": (40, 170, 80), "purple": (150, 80, 200), "red": (220, 50, 50)}
PIXEL_ON = (235, 245, 255)
PIXEL_OFF = (8, 10, 14)
BACKGROUND = (38, 36, 34)

#: One step of a script: press, hold, push, turn+N, turn-N, waitMS, unplug:NAME, replug:NAME,
#: and print (wait until the printer has finished what it was given).
STEP = re.compile(r"^(press|hold|push|print|turn([+-]\d+)|wait(\d+)|(unplug|replug):(\w+))$")


@dataclass
class Frame:
    image: Image.Image
    at: float


@dataclass
class Simulator:
    """A box on fakes with a script runner, a recorder and a faceplate.

    ``entropy`` replaces the simulated set's own; ``printer`` is the box's printer (None:
    the box has none) and ``store`` its session store (None: nothing is kept), both closed
    with the simulator; ``clock`` is a :class:`FakeClock` unless given (the live terminal
    gives the real one).
    """

    config: Config
    entropy: EntropySource | None = None
    store: Store | None = None
    printer: Printer | None = None
    clock: Clock | None = None
    #: Where new games' map seeds come from; None: drawn from the box's entropy.
    map_seeds: Callable[[], int] | None = None
    scale: int = 2
    frames: list[Frame] = field(default_factory=list)
    #: A script's waits pass in real time (the box's clock keeping pace), so that the
    #: table's web page can be opened and used while the script runs.
    real_waits: bool = False
    #: What the command line asked of the first game and of the language.
    asked: Asked | None = None

    def __post_init__(self) -> None:
        clock = self.clock if self.clock is not None else FakeClock(SIM_START)
        self.clock = clock
        self.fake_clock = clock if isinstance(clock, FakeClock) else None
        printer = self.printer
        backends = Backends.simulated(self.config, clock=clock).replace(
            printer=lambda _: printer
        )
        if self.entropy is not None:
            entropy = self.entropy
            backends = backends.replace(entropy=lambda _: entropy)
        store = self.store
        self.built: BuiltBox = build_box(
            self.config, backends=backends, store=None if store is None else lambda: store,
            map_seeds=self.map_seeds, asked=self.asked,
        )
        assert backends.fakes is not None
        self.fakes: Fakes = backends.fakes
        self.box = self.built.box
        self.recording = False
        self._last_key: bytes | None = None

    # --- inputs, as a finger drives the pins ----------------------------------------

    def _pin(self, number: int) -> Any:
        return self.fakes.pin(number)

    def button_down(self) -> None:
        self._pin(self.config.button.pin).drive_low()

    def button_up(self) -> None:
        self._pin(self.config.button.pin).drive_high()

    def press(self, length: float = 0.12) -> None:
        self.button_down()
        self.advance(length)
        self.button_up()
        self.settle()

    def hold(self) -> None:
        self.button_down()
        self.advance(self.config.box.hold_s + 0.1)
        self.button_up()
        self.settle()

    def push(self) -> None:
        self._need_encoder()
        pin = self._pin(self.config.encoder.push)
        pin.drive_low()
        self.advance(0.08)
        pin.drive_high()
        self.settle()

    def turn(self, steps: int) -> None:
        """Turn the encoder ``steps`` detents, clockwise when positive, through its pins."""
        self._need_encoder()
        a, b = self._pin(self.config.encoder.a), self._pin(self.config.encoder.b)
        first, second = (a, b) if steps > 0 else (b, a)
        for _ in range(abs(steps)):
            for action in (first.drive_low, second.drive_low, first.drive_high,
                           second.drive_high):
                action()
                self.advance(0.005)
        self.settle()

    def _need_encoder(self) -> None:
        if not self.config.encoder.enabled:
            raise UsageError("this config has no rotary encoder (encoder.enabled = false)")

    def unplug(self, name: str) -> None:
        self._need_panel(name)
        self.fakes.unplug(name)
        self.settle()

    def replug(self, name: str) -> None:
        self._need_panel(name)
        self.fakes.replug(name)
        self.settle()

    def _need_panel(self, name: str) -> None:
        if name not in self.fakes.where:
            known = ", ".join(self.fakes.where)
            raise UsageError(f"no I2C display called {name!r}: expected one of {known}")

    # --- time -----------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of box time pass, handling each deadline at its moment."""
        clock = self.fake_clock
        assert clock is not None, "advance() needs the simulator's fake clock"
        end = clock.time + seconds
        while True:
            deadline = self.box.step()
            self._capture()
            if deadline is None or deadline > end:
                break
            clock.time = max(clock.time, deadline)
        clock.time = end
        self.box.step()
        self._capture()
        self._trim_pin_states()

    def wait(self, seconds: float) -> None:
        """A script's wait: ``seconds`` of box time, passed in real time with
        :attr:`real_waits` (the box handles what the web page asks meanwhile)."""
        clock = self.fake_clock
        if not self.real_waits or clock is None:
            self.advance(seconds)
            return
        started, base = time.monotonic(), clock.time
        while (left := started + seconds - time.monotonic()) > 0:
            time.sleep(min(left, REAL_WAIT_STEP_S))
            # The box's clock follows the real one: it is where the real one is now.
            now = base + min(seconds, time.monotonic() - started)
            self.advance(max(0.0, now - clock.time))
        self.advance(max(0.0, base + seconds - clock.time))

    def _trim_pin_states(self) -> None:
        for pin in list(self.fakes.factory.pins.values()):
            states = getattr(pin, "states", None)
            if states is not None and len(states) > KEEP_PIN_STATES:
                del states[: len(states) - KEEP_PIN_STATES]

    def settle(self) -> None:
        """Let the box finish what it is doing: the tumble, a blink phase."""
        self.advance(max(0.3, self.config.box.tumble_ms / 1000 + 0.15))

    def wait_for_prints(self, timeout: float = 30.0) -> None:
        """Wait (in real time) until the print queue is idle, then let the box see it.

        The spooler prints on a thread of its own, as on the box; the fake printer's clock
        makes a sheet quick, and waiting here lets a script end on the printed message.
        """
        printer = self.box.printer
        if not isinstance(printer, BoxPrinter):
            return
        for job in printer.spooler.jobs():
            if not job.finished:
                printer.spooler.wait(job.id, timeout=timeout)
        self.advance(0.05)

    def run_script(self, script: str) -> None:
        for step in parse_script(script):
            self.do(step)

    def do(self, step: str) -> None:
        match = STEP.match(step)
        assert match is not None
        if step == "print":
            self.wait_for_prints()
        elif step == "press":
            self.press()
        elif step == "hold":
            self.hold()
        elif step == "push":
            self.push()
        elif match.group(2):
            self.turn(int(match.group(2)))
        elif match.group(3):
            self.wait(int(match.group(3)) / 1000)
        elif match.group(4) == "unplug":
            self.unplug(match.group(5))
        else:
            self.replug(match.group(5))

    # --- outputs ----------------------------------------------------------------------

    def panel(self, name: str) -> Image.Image:
        """What the named panel shows now, decoded from the bytes sent to it, as its viewer
        sees it: a panel mounted turned (``rotate``) is turned back upright."""
        ram = self.fakes.image(name)
        turns = next((d.rotate for d in self.config.displays.all() if d.name == name), 0)
        # The driver turned the picture -90 degrees a quarter turn into the panel's RAM.
        return ram.rotate(90 * turns, expand=True) if turns else ram

    def tv_picture(self, timeout: float = 30.0) -> Image.Image | None:
        """The TV's picture once it has drawn the latest change (None without a TV)."""
        tv = self.built.tv
        if tv is None:
            return None
        tv.wait_idle(timeout)
        return tv.picture()

    def led_states(self) -> tuple[bool, ...]:
        return self.built.leds.states() if self.built.leds is not None else ()

    def faceplate(self) -> Image.Image:
        return draw_faceplate(self._panels(), self.led_states(), self.scale)

    def _panels(self) -> dict[str, Image.Image]:
        return {name: self.panel(name) for name in self.fakes.panels}

    def _capture(self) -> None:
        if not self.recording:
            return
        panels = self._panels()
        leds = self.led_states()
        key = b"".join(p.tobytes() for p in panels.values()) + bytes(leds)
        if key == self._last_key:
            return
        self._last_key = key
        self.frames.append(Frame(draw_faceplate(panels, leds, self.scale), self.box.clock.now()))

    def start_recording(self) -> None:
        self.recording = True
        self._capture()

    def save_gif(self, path: str | Path) -> None:
        if not self.frames:
            self.frames.append(Frame(self.faceplate(), self.box.clock.now()))
        images = [f.image.convert("P", palette=Image.Palette.ADAPTIVE, colors=64)
                  for f in self.frames]
        ends = [f.at for f in self.frames[1:]] + [self.frames[-1].at + 1.5]
        durations = [max(20, round((end - f.at) * 1000)) for f, end in
                     zip(self.frames, ends, strict=True)]
        images[0].save(path, save_all=True, append_images=images[1:], duration=durations,
                       loop=0, optimize=False)

    def close(self) -> None:
        self.built.close()


#: The most detents one step may turn, and the longest wait: a script describes a game.
MAX_TURN = 1000
MAX_WAIT_MS = 600_000


def parse_script(script: str) -> list[str]:
    """The steps of ``--script``; one clear error naming the first bad step."""
    steps = [s.strip().lower() for s in script.split(",") if s.strip()]
    if not steps:
        raise UsageError("--script is empty: give steps such as press,press,hold,turn+1,push")
    for step in steps:
        match = STEP.match(step)
        if not match:
            raise UsageError(
                f"--script step {step!r}: expected press, hold, push, turn+N, turn-N, waitMS,"
                " print, unplug:NAME or replug:NAME"
            )
        if match.group(2) and abs(int(match.group(2))) > MAX_TURN:
            raise UsageError(f"--script step {step!r}: turn at most {MAX_TURN} detents a step")
        if match.group(3) and int(match.group(3)) > MAX_WAIT_MS:
            raise UsageError(f"--script step {step!r}: wait at most {MAX_WAIT_MS} ms a step")
    return steps


# --- the faceplate ---------------------------------------------------------------------


def _lit(panel: Image.Image, scale: int, frame: tuple[int, int, int] | None) -> Image.Image:
    mono = panel.convert("1")
    rgb = Image.new("RGB", mono.size, PIXEL_OFF)
    rgb.paste(Image.new("RGB", mono.size, PIXEL_ON), mask=mono)
    rgb = rgb.resize((mono.width * scale, mono.height * scale), Image.Resampling.NEAREST)
    border = 3 * scale
    framed = Image.new("RGB", (rgb.width + 2 * border, rgb.height + 2 * border),
                       frame or (90, 90, 90))
    framed.paste(rgb, (border, border))
    return framed


def draw_faceplate(
    panels: dict[str, Image.Image], leds: tuple[bool, ...], scale: int = 2
) -> Image.Image:
    """The box seen from above: the three dice, the status screen, the round LEDs."""
    gap = 8 * scale
    dice = [_lit(panels[n], scale, DIE_COLOURS[n]) for n in ("green", "purple", "red")
            if n in panels]
    status = _lit(panels["status"], scale, None) if "status" in panels else None
    row_w = sum(d.width for d in dice) + gap * max(0, len(dice) - 1)
    width = max(row_w, status.width if status else 0) + 2 * gap
    dice_h = max((d.height for d in dice), default=0)
    status_h = status.height if status else 0
    led_r = 5 * scale
    height = gap + dice_h + gap + status_h + gap + 2 * led_r + gap
    plate = Image.new("RGB", (width, height), BACKGROUND)
    x = (width - row_w) // 2
    for d in dice:
        plate.paste(d, (x, gap))
        x += d.width + gap
    y = gap + dice_h + gap
    if status is not None:
        plate.paste(status, ((width - status.width) // 2, y))
    y += status_h + gap
    draw = ImageDraw.Draw(plate)
    if leds:
        pitch = 4 * led_r
        x0 = (width - pitch * (len(leds) - 1)) // 2
        for i, on in enumerate(leds):
            cx, cy = x0 + i * pitch, y + led_r
            draw.ellipse((cx - led_r, cy - led_r, cx + led_r, cy + led_r),
                         fill=(255, 170, 30) if on else (70, 55, 30), outline=(20, 20, 20))
    draw.text((gap, y), "pitable", fill=(150, 140, 130), font=font(7 * scale, BOLD))
    return plate


# --- the live terminal ---------------------------------------------------------------------


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

