"""The simulator: the whole box on fakes, driven by a script or by the keyboard (the
terminal front end is :mod:`pitable.box.terminal`, the picture :mod:`pitable.render.faceplate`).

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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from pitable.box.assembly import BuiltBox, build_box
from pitable.box.backends import Backends, Fakes
from pitable.box.controller import Printer
from pitable.box.games import Asked, Store
from pitable.box.printing import BoxPrinter
from pitable.config import Config
from pitable.errors import UsageError
from pitable.hw.clock import Clock, FakeClock
from pitable.hw.entropy import EntropySource
from pitable.render.faceplate import draw_faceplate

log = logging.getLogger("pitable.sim")


#: How often the box looks at its queue during a wait in real time: a roll asked from the web
#: page starts within this.
REAL_WAIT_STEP_S = 0.02

#: Where the simulator's fake clock starts.
SIM_START = 1000.0

#: How many of its latest states each of gpiozero's mock pins keeps: MockPin records every
#: change in a list that nothing else trims, which would grow for as long as the box runs.
KEEP_PIN_STATES = 64

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
