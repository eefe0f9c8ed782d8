"""The box as shipped, press to faces: bytes on the I2C bus, bus time and CPU per roll.

The whole box runs on its fakes with the default config (a 300 ms tumble, the status
screen on): mock pins, the controller, the drawing, the real luma.oled drivers, and fake
buses that decode every byte into each panel's RAM and model the invert and start-line
commands. A table plays games of 25 rounds one after the other, each on a new map (the
screens a new game draws before its first press belong to no roll; its first roll tumbles
from blank dice and writes its faces whole, and is counted). The
same rolls run five times in one process: as shipped (the faces rolled by the panels'
start line); with the panels in horizontal addressing, each update sent as the cheapest
rectangles (bands of pages, their changed columns grouped), the other addressing mode the
SSD1306 and SSD1309 offer; with the tumble as it was before, a tilted die redrawn every
75 ms (through pitable's drivers, then through them as they were before: one bounding box
per update, the blink redrawn); and with that tumble through luma's stock drivers (a whole
1 KiB frame on every update), the baseline.

The bytes are counted as the Pi sends them: luma opens /dev/i2c-N itself there, so its
data goes in one i2c_rdwr transaction of up to 4 KiB, and its commands in one SMBus block
write; pitable's drivers send each update's command and data transactions as the messages
of a few i2c_rdwr calls, each message its own transaction on the wire. A transaction is
a start, the address byte, the control byte (0x00 commands, 0x40 data), the payload, each
byte with its acknowledge bit, and a stop; the dice and the status screen sit on channels
of one TCA9548A mux, so a panel's update also costs the kernel's write of the channel to
the mux (address and one byte; in the bus time, not the bytes).
The lower bound is the changed page bytes (or those of the inverse picture and the invert
command, if fewer) plus the least framing of an update: its data's transaction alone (in
page addressing the RAM pointer may already stand where the change begins). The changed
pages' spans (each changed page from its first changed byte to its last) are printed
beside it. The start line counts as fairly: a picture that is the shown one rolled is
bounded by the least of its changed bytes and the start-line command in its own transfer
(3 bytes); a picture shown after a rolled one by the least of its changed bytes and those
it changes in the RAM (the shown picture rolled back) plus the command byte that sets the
start line back. Each bound is what any driver must send from what the panel holds, so the
ratio to it cannot fall below 1 by the accounting; the spans are no such bound (a driver
may skip the unchanged bytes inside a span), and their ratio is printed as a second view.

CPU is the loop thread's time (time.thread_time) from the release of ROLL to the first
message of the first tumble frame to a die's panel, and to the last byte of the roll (the
commit to the session store, in a temporary folder, the final faces and the status
screen). The fake buses keep the bytes during a step and count and decode them into the
panels' RAM after it, so that the fakes' own work is not in the box's CPU; it is timed
apart. A store whose commit sleeps 50 ms shows the press to first pixel and to final faces
in real time.

The check at the end exits 1 when the whole bus per roll is above 1.05 times the best plan
measured in the chip's two addressing modes (page addressing as shipped, the cheapest
rectangles in horizontal addressing), above a tenth of luma's whole frames, when a blink
costs more than 10 bytes, or a tumble frame of three panels does not fit its frame time at
400 kHz. The lower bound is printed, not checked: no plan in either mode reaches it, as
every change of a few columns needs its own window and the framing is a quarter of the
bytes (see docs/performance.md).

Run: .venv/bin/python -m benchmarks.bench_box [--rolls N] [--slow-rolls N]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from pitable.box import controller
from pitable.box.controller import FRAME_MS, Phase
from pitable.box.events import NewGameCommand
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.config import DEFAULTS
from pitable.hw import oled
from pitable.hw.clock import MonotonicClock
from pitable.hw.entropy import SeededSource
from pitable.hw.fake_i2c import FakeBus, Message
from pitable.hw.oled import (
    I2C_OVERHEAD,
    INVERT_COST,
    LEAST_FRAMING,
    SCROLL_COST,
    changed_columns,
    column_runs,
    find_roll,
    pack_pages,
)
from pitable.render.faces import rolled, tilted_tumble_panel
from pitable.rules import Die, Face, Title
from pitable.rules.session import Mode

PANELS = ("green", "purple", "red", "status")
#: The kernel's i2c-mux selects a channel with one write: start, address, the channel mask,
#: each with its acknowledge, and a stop.
MUX_SELECT_BITS = 1 + 9 * 2 + 1
#: The bus per roll as shipped against the best plan measured in either addressing mode.
MAX_OVER_BEST_PLAN = 1.05
#: The bus per roll as shipped against luma's whole frames.
MAX_OF_WHOLE_FRAMES = 0.10
#: The control byte of a data transaction (0x00 leads commands).
DATA = 0x40
#: The rounds of each game the table plays before it asks for a new one: about a game of the
#: Valley at a table (it ends when someone has filled their grid, one to three spaces a
#: round) and its solo game's 25.
GAME_ROUNDS = 25
MAX_BLINK_BYTES = 10
BLINKS = 4


def wire_bits(bus: FakeBus, since: int) -> int:
    return bus.wire_bits(since)


def displayed(image: Image.Image) -> list[bytes]:
    return pack_pages(image.convert("1"))


def page_bytes(before: list[bytes], after: list[bytes]) -> tuple[int, int]:
    """The bytes that must change, and the columns spanned by each changed page's changes
    (first changed byte to last: what the page carries if sent in one piece)."""
    changed = spanned = 0
    for old, new in zip(before, after, strict=True):
        span = changed_columns(old, new)
        if span is not None:
            spanned += span[1] - span[0]
            changed += sum(a != b for a, b in zip(old[span[0]:span[1]], new[span[0]:span[1]],
                                                  strict=True))
    return changed, spanned


def lower_bounds(before: list[bytes], after: list[bytes]) -> tuple[int, int]:
    """What no driver can beat, with the least framing of an update (its data's
    transaction): the changed bytes, and the changed pages' spans; each as the picture or
    as its inverse with the invert command, whichever is less."""
    inverse = bytes(255 - b for b in range(256))
    keep = page_bytes(before, after)
    flip = page_bytes(before, [page.translate(inverse) for page in after])

    def cost(changed: int) -> int:
        return changed + LEAST_FRAMING if changed else 0

    return (min(cost(keep[0]), INVERT_COST + cost(flip[0])),
            min(cost(keep[1]), INVERT_COST + cost(flip[1])))


def update_bounds(before: Image.Image, line: int, after: Image.Image) -> tuple[int, int]:
    """The lower bounds of showing ``after`` on a panel that shows ``before`` with its start
    line at ``line``: as :func:`lower_bounds`, or the start-line command alone when ``after``
    is ``before`` rolled, or the command byte setting the start line back plus the bytes
    that change in the RAM, if less."""
    strict, spans = lower_bounds(displayed(before), displayed(after))
    if strict and find_roll(before.tobytes(), after.tobytes(), (after.width + 7) // 8) is not None:
        return min(strict, SCROLL_COST), min(spans, SCROLL_COST)
    if line:
        back_strict, back_spans = lower_bounds(displayed(rolled(before, -line)), displayed(after))
        strict, spans = min(strict, back_strict + 1), min(spans, back_spans + 1)
    return strict, spans


@dataclass
class Roll:
    """What one roll cost, press to the status screen."""

    bytes_per_panel: dict[str, int] = field(default_factory=dict)
    #: Of those, the bytes written into the panels' RAM (the data transactions' payloads).
    data_bytes: int = 0
    bound_per_panel: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PANELS, 0))
    bits: int = 0
    bound: int = 0
    span_bound: int = 0
    cpu_first_ms: float = 0.0
    cpu_last_ms: float = 0.0
    #: Of the CPU to the last byte, the roll's commit to the session store; and the commit's
    #: wall time, its wait for the disk included.
    commit_ms: float = 0.0
    commit_wall_ms: float = 0.0
    fake_ms: float = 0.0
    frame_bits: list[int] = field(default_factory=list)
    blink_bytes: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.bytes_per_panel.values())


@contextlib.contextmanager
def stock_luma() -> Iterator[None]:
    """Open the panels with luma's own drivers, which send every frame whole."""
    from luma.oled.device import sh1106, ssd1306, ssd1309

    saved = dict(oled._CLASSES)
    oled.driver_class("ssd1306")  # fill the table first, so that the patch is not overwritten
    oled._CLASSES.update(ssd1306=ssd1306, ssd1309=ssd1309, sh1106=sh1106)
    try:
        yield
    finally:
        oled._CLASSES.clear()
        oled._CLASSES.update(saved)


def bounding_box(self: Any, ram: oled.Pages, new: oled.Pages) -> tuple[int, list[oled.Window]]:
    """One window over every changed page and column, in horizontal addressing (column and
    page range, then the rectangle's bytes): how the drivers sent before."""
    spans = [changed_columns(a, b) for a, b in zip(ram, new, strict=True)]
    changed = [(p, s) for p, s in enumerate(spans) if s is not None]
    if not changed:
        return 0, []
    lo = min(s[0] for _, s in changed)
    hi = max(s[1] for _, s in changed)
    p0, p1 = changed[0][0], changed[-1][0] + 1
    data = b"".join(new[p][lo:hi] for p in range(p0, p1))
    return RECTANGLE_FRAMING + len(data), [((0x21, lo, hi - 1, 0x22, p0, p1 - 1), data)]


#: A rectangle in horizontal addressing: its column window (0x21 first last) and page window
#: (0x22 first last) in a command transaction, then the data's transaction. The controller
#: writes the rectangle row after row and its pointer wraps back to the first corner.
RECTANGLE_FRAMING = 2 * I2C_OVERHEAD + 6
#: Another rectangle on the same pages: its column window alone.
BESIDE_FRAMING = 2 * I2C_OVERHEAD + 3
#: The page window's command bytes, sent with a band's first rectangle.
PAGE_WINDOW = RECTANGLE_FRAMING - BESIDE_FRAMING


def band_columns(ram: oled.Pages, new: oled.Pages, first: int, last: int,
                 height: int) -> tuple[int, list[tuple[int, int]]]:
    """The cheapest rectangles over pages ``first`` to ``last`` (``height`` of them): the
    columns that change on any of them, grouped wherever the bytes of a gap cost less than
    another rectangle's column window; their cost without the band's page window."""
    union = 0
    for p in range(first, last + 1):
        union |= int.from_bytes(ram[p], "big") ^ int.from_bytes(new[p], "big")
    if not union:
        return 0, []
    width = len(new[first])
    # Each gap is joined or not on its own: a rectangle costs the same framing wherever it
    # starts, so joining a gap saves one column window and costs the gap's bytes.
    gap = -(-BESIDE_FRAMING // height) - 1
    groups = column_runs(bytes(width), union.to_bytes(width, "big"), gap)
    cost = sum(BESIDE_FRAMING + (b - a) * height for a, b in groups)
    return cost, groups


def rectangles(self: Any, ram: oled.Pages, new: oled.Pages) -> tuple[int, list[oled.Window]]:
    """Rectangles in horizontal addressing: the pages split into bands, each band's changed
    columns grouped into rectangles as tall as the band, both chosen as the cheapest (a
    dynamic programme over the bands, each band's groups by :func:`band_columns`).

    A rectangle sends its bytes that did not change too, but a pip that changes is one
    window rather than one in each of its two pages: what the box's pictures would send in
    the controllers' other addressing mode.
    """
    pages = len(new)
    best: list[tuple[int, list[tuple[int, int, list[tuple[int, int]]]]]] = [(0, [])]
    for end in range(1, pages + 1):
        options = []
        if ram[end - 1] == new[end - 1]:
            options.append(best[end - 1])
        for first in range(end):
            cost, groups = band_columns(ram, new, first, end - 1, end - first)
            if groups:
                before, bands = best[first]
                options.append((before + cost + PAGE_WINDOW, [*bands, (first, end - 1, groups)]))
        best.append(min(options, key=lambda option: option[0]))
    cost, bands = best[pages]
    offset = self._offset
    windows: list[oled.Window] = []
    for first, last, groups in bands:
        for i, (a, b) in enumerate(groups):
            commands: tuple[int, ...] = (0x21, a + offset, b - 1 + offset)
            if i == 0:
                commands += (0x22, first, last)
            windows.append((commands, b"".join(new[p][a:b] for p in range(first, last + 1))))
    return cost, windows


@contextlib.contextmanager
def horizontal_addressing(plan: Any, name: str, *, invert: bool = True) -> Iterator[None]:
    """pitable's SSD1306 and SSD1309 drivers in horizontal addressing, planning each update
    with ``plan``; without ``invert``, a blink is redrawn rather than inverted."""
    saved = dict(oled._CLASSES)
    oled.driver_class("ssd1306")

    def horizontal(self: Any, *args: Any, **kwargs: Any) -> None:
        super(type(self), self).__init__(*args, **kwargs)
        self.command(self._const.MEMORYMODE, 0x00)

    for driver in ("ssd1306", "ssd1309"):
        cls = oled._CLASSES[driver]
        oled._CLASSES[driver] = type(f"{name}{cls.__name__}", (cls,),
                                     {"_plan": plan, "__init__": horizontal})
    inverse = oled._mostly_inverse
    if not invert:
        oled._mostly_inverse = lambda old, new: False  # type: ignore[assignment]
    try:
        yield
    finally:
        oled._mostly_inverse = inverse
        oled._CLASSES.clear()
        oled._CLASSES.update(saved)


def one_bounding_box() -> contextlib.AbstractContextManager[None]:
    """pitable's drivers as they were: one bounding box per update in horizontal addressing,
    the blink redrawn."""
    return horizontal_addressing(bounding_box, "Bounding", invert=False)


def in_rectangles() -> contextlib.AbstractContextManager[None]:
    """pitable's drivers with the panels in horizontal addressing, each update sent as
    :func:`rectangles`."""
    return horizontal_addressing(rectangles, "Rectangles")


class Bench:
    """The box on its fakes, pressed roll after roll, read back after every step."""

    def __init__(self, store: Any = None) -> None:
        self.sim = Simulator(DEFAULTS, entropy=SeededSource(2026), store=store)
        self.buses = {name: self.sim.fakes.i2c.bus(self.sim.fakes.where[name][0])
                      for name in PANELS}
        self.shown = {name: self.sim.panel(name).convert("1") for name in PANELS}
        for bus in self.buses.values():
            bus.defer()
        self.lines = {name: self.sim.fakes.panels[name].start_line for name in PANELS}
        self.clock = self.sim.fake_clock
        assert self.clock is not None
        #: The loop thread's CPU time at each message to a die's panel during a step.
        self.sends: list[float] = []
        for name in PANELS[:3]:
            bus = self.buses[name]

            def stamped(*messages: Message, original: Any = bus.i2c_rdwr) -> None:
                self.sends.append(time.thread_time())
                original(*messages)

            bus.i2c_rdwr = stamped  # type: ignore[method-assign]
        #: The loop thread's CPU time and the wall time in the session store's commits.
        self.committing = self.committing_wall = 0.0
        if store is not None:
            record = store.record_roll

            def timed(*args: Any, **kwargs: Any) -> object:
                start, wall = time.thread_time(), time.perf_counter()
                try:
                    return record(*args, **kwargs)
                finally:
                    self.committing += time.thread_time() - start
                    self.committing_wall += time.perf_counter() - wall

            store.record_roll = timed

    def marks(self) -> dict[str, int]:
        return {name: len(bus.transfers) for name, bus in self.buses.items()}

    def step(self) -> tuple[float, float, int]:
        """One step of the box: CPU s, the fakes' decoding of its bytes in s (done after the
        step), and its bits on the wire."""
        marks = self.marks()
        self.sends.clear()
        start = self.started = time.thread_time()
        self.sim.box.step()
        cpu = time.thread_time() - start
        start = time.thread_time()
        for bus in self.buses.values():
            bus.flush()
        faked = time.thread_time() - start
        bits = 0
        for name, bus in self.buses.items():
            if len(bus.transfers) > marks[name]:
                bits += wire_bits(bus, marks[name]) + MUX_SELECT_BITS
        return cpu, faked, bits

    def settle_bound(self, result: Roll | None = None) -> tuple[int, int]:
        """The lower bounds of what the last step changed, added up over the panels (and
        panel by panel to ``result``)."""
        bound = spans = 0
        for name in PANELS:
            now = self.sim.panel(name).convert("1")
            strict, spanned = update_bounds(self.shown[name], self.lines[name], now)
            bound, spans = bound + strict, spans + spanned
            if result is not None:
                result.bound_per_panel[name] += strict
            self.shown[name] = now
            self.lines[name] = self.sim.fakes.panels[name].start_line
        return bound, spans

    def add_bound(self, result: Roll) -> None:
        strict, spans = self.settle_bound(result)
        result.bound += strict
        result.span_bound += spans

    def roll(self) -> Roll:
        result = Roll()
        pin = self.sim.fakes.pin(DEFAULTS.button.pin)
        box = self.sim.box
        if box.game.state.rounds >= GAME_ROUNDS:
            # The game is over: the table asks for a new one (on a fresh map), as its page
            # asks it.
            box.post(NewGameCommand(box.game.title.key, Mode.TABLE))
        self.clock.advance(2.0)  # the table reads the last roll, then presses again
        self.step()
        self.settle_bound()
        marks = self.marks()
        pin.drive_low()
        self.clock.advance(0.1)
        pin.drive_high()
        self.committing = self.committing_wall = 0.0
        cpu, fake, bits = self.step()  # the release rolls: the first tumble frame
        # The first pixel: the first message of the first tumble frame to a die's panel.
        result.cpu_first_ms = (self.sends[0] - self.started) * 1000
        cpu_total, fake_total, bits_total = cpu, fake, bits
        result.frame_bits.append(bits)
        self.add_bound(result)
        while box.phase is Phase.ROLLING:
            deadline = box.next_deadline()
            assert deadline is not None
            self.clock.time = max(self.clock.time, deadline)
            cpu, fake, bits = self.step()
            cpu_total += cpu
            fake_total += fake
            bits_total += bits
            if box.phase is Phase.ROLLING:
                result.frame_bits.append(bits)
            self.add_bound(result)
        result.cpu_last_ms = cpu_total * 1000
        result.commit_ms = self.committing * 1000
        result.commit_wall_ms = self.committing_wall * 1000
        result.fake_ms = fake_total * 1000
        result.bits = bits_total
        result.bytes_per_panel = {name: bus.wire_bytes(marks[name])
                                  for name, bus in self.buses.items()}
        result.data_bytes = sum(t.length for name, bus in self.buses.items()
                                for t in bus.transfers[marks[name]:] if t.control == DATA)
        if box.next_blink is not None:
            status = self.buses["status"]
            for _ in range(BLINKS):
                self.clock.time = box.next_blink
                mark = len(status.transfers)
                self.step()
                result.blink_bytes.append(status.wire_bytes(mark))
                self.settle_bound()
        return result

    def close(self) -> None:
        self.sim.close()


@contextlib.contextmanager
def tilted_tumble() -> Iterator[None]:
    """The tumble as it was: a tilted die with changing pips, drawn anew every 75 ms."""
    saved = controller._tumble_picture, controller.FRAME_MS

    @functools.lru_cache(maxsize=256)
    def tilted(face: Face | None, die: Die, title: Title, step: int,
               size: tuple[int, int], *, lang: str) -> Image.Image:
        return tilted_tumble_panel(die, title, step * 3 + int(die), width=size[0],
                                   height=size[1], lang=lang)

    controller._tumble_picture = tilted  # type: ignore[assignment]
    controller.FRAME_MS = 75
    try:
        yield
    finally:
        controller._tumble_picture, controller.FRAME_MS = saved


def clear_caches() -> None:
    """Forget every drawing cached by an earlier run, so that each run starts as cold as
    the box does after a restart (the same seed rolls the same dice in every run)."""
    from pitable.box import controller
    from pitable.render import faces, status, text
    from pitable.rules import base

    for module in (controller, faces, status, text, base):
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if clear is not None:
                clear()


def run(rolls: int) -> list[Roll]:
    """``rolls`` rolls of the box, each saved in a session store on disk as on the box."""
    clear_caches()
    with tempfile.TemporaryDirectory() as state:
        bench = Bench(SessionStore.open(state))
        try:
            return [bench.roll() for _ in range(rolls)]
        finally:
            bench.close()


class SlowStore:
    """The session store on a disk whose fsync takes 50 ms."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def record_roll(self, *args: Any, **kwargs: Any) -> object:
        time.sleep(0.05)
        return self.store.record_roll(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def slow_store(rolls: int, tumble_ms: int) -> tuple[list[float], list[float]]:
    """Real ms from the release of ROLL to the first pixel and to the final faces."""
    import dataclasses

    box = dataclasses.replace(DEFAULTS.box, tumble_ms=tumble_ms)
    config = dataclasses.replace(DEFAULTS, box=box)
    first, final = [], []
    with tempfile.TemporaryDirectory() as d:
        store = SlowStore(SessionStore.open(d))
        sim = Simulator(config, entropy=SeededSource(7), store=store, clock=MonotonicClock())
        pin = sim.fakes.pin(config.button.pin)
        stamps: list[float] = []
        for name in ("green", "purple", "red"):
            bus = sim.fakes.i2c.bus(sim.fakes.where[name][0])

            # Any transfer after the press changes the picture: the final faces' data, or a
            # tumble frame's start-line command.
            def stamped(*messages: Message, original: Any = bus.i2c_rdwr) -> None:
                original(*messages)
                stamps.append(time.perf_counter())

            bus.i2c_rdwr = stamped  # type: ignore[method-assign]
        try:
            for _ in range(rolls):
                pin.drive_low()
                time.sleep(0.12)
                sim.box.step()
                stamps.clear()
                pin.drive_high()
                pressed = time.perf_counter()
                sim.box.step()
                while sim.box.phase is Phase.ROLLING:
                    deadline = sim.box.step()
                    if deadline is not None:
                        time.sleep(max(0.0, deadline - sim.box.clock.now()))
                first.append((stamps[0] - pressed) * 1000)
                final.append((stamps[-1] - pressed) * 1000)
                time.sleep(0.05)
        finally:
            sim.close()
    return first, final


def mean(values: list[float] | list[int]) -> float:
    return statistics.mean(values) if values else 0.0


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def ms(bits: float, hz: int) -> float:
    return bits / hz * 1000


def panel_ratio(rolls: list[Roll], panel: str) -> float:
    bound = sum(r.bound_per_panel[panel] for r in rolls)
    return sum(r.bytes_per_panel[panel] for r in rolls) / bound if bound else 0.0


def table(name: str, rolls: list[Roll], frame_ms: int) -> None:
    per_panel = "  ".join(f"{p} {mean([r.bytes_per_panel[p] for r in rolls]):>5.0f}"
                          for p in PANELS)
    per_bound = "  ".join(f"{p} {mean([r.bound_per_panel[p] for r in rolls]):>5.0f}"
                          for p in PANELS)
    per_ratio = "  ".join(f"{p} {panel_ratio(rolls, p):.2f}" for p in PANELS)
    total = mean([r.total for r in rolls])
    bound = mean([r.bound for r in rolls])
    spans = mean([r.span_bound for r in rolls])
    bits = mean([r.bits for r in rolls])
    print(f"{name}")
    print(f"  bytes per roll: {per_panel}  total {total:,.0f}")
    print(f"  bus per roll: {ms(bits, 100_000):.1f} ms at 100 kHz, {ms(bits, 400_000):.1f} ms"
          f" at 400 kHz")
    print(f"  lower bound per roll: {per_bound}")
    print(f"  ratio per panel: {per_ratio}")
    print(f"  lower bound (changed bytes) {bound:,.0f} B: ratio {total / bound:.2f};"
          f" changed pages' spans {spans:,.0f} B: ratio {total / spans:.2f}")
    data = mean([r.data_bytes for r in rolls])
    print(f"  of the bytes sent: {data:,.0f} B written into the panels' RAM, {total - data:,.0f}"
          f" B of framing (addresses, control bytes, pointer and start-line commands)")
    last = [r.cpu_last_ms for r in rolls]
    print(f"  CPU ms (the fakes' decoding excluded), median: press to first pixel"
          f" {median([r.cpu_first_ms for r in rolls]):.2f}, to last byte {median(last):.2f}"
          f" (mean {mean(last):.2f}, p95 {statistics.quantiles(last, n=20)[-1]:.2f}), the"
          f" commit to the session store {median([r.commit_ms for r in rolls]):.2f} of it"
          f" ({median([r.commit_wall_ms for r in rolls]):.2f} of wall time, the disk's wait"
          f" included);"
          f" the fakes' decoding apart: {median([r.fake_ms for r in rolls]):.2f}")
    frames = [b for r in rolls for b in r.frame_bits]
    print(f"  tumble frame of three panels at 400 kHz: mean {ms(mean(frames), 400_000):.1f}"
          f" ms, worst {ms(max(frames), 400_000):.1f} ms (frame time {frame_ms} ms)")
    blinks = [b for r in rolls for b in r.blink_bytes]
    if blinks:
        print(f"  a blink of a shown hazard: {mean(blinks):.0f} B (worst {max(blinks)})")


def plan_ratios(ours: list[Roll], boxed: list[Roll], stock: list[Roll]) -> tuple[float, float]:
    """The bus per roll as shipped (``ours``) against the best plan of the two addressing
    modes (``ours`` or the rectangles, ``boxed``), and against luma's whole frames."""
    shipped = mean([r.total for r in ours])
    return shipped / min(shipped, mean([r.total for r in boxed])), shipped / mean(
        [r.total for r in stock])


def failures(over_best: float, of_whole: float, worst_blink: int,
             worst_frame: float) -> list[str]:
    """What the check finds wrong, in words; none when it passes."""
    failed = []
    if over_best > MAX_OVER_BEST_PLAN:
        failed.append(f"whole bus {over_best:.3f}x the best plan (at most"
                      f" {MAX_OVER_BEST_PLAN})")
    if of_whole > MAX_OF_WHOLE_FRAMES:
        failed.append(f"whole bus {of_whole:.1%} of luma's whole frames (at most"
                      f" {MAX_OF_WHOLE_FRAMES:.0%})")
    if worst_blink > MAX_BLINK_BYTES:
        failed.append(f"a blink costs {worst_blink} B (at most {MAX_BLINK_BYTES})")
    if worst_frame > FRAME_MS:
        failed.append(f"a tumble frame takes {worst_frame:.1f} ms of bus (frame {FRAME_MS} ms)")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rolls", type=int, default=500)
    parser.add_argument("--slow-rolls", type=int, default=10,
                        help="rolls in real time with a store that commits in 50 ms")
    args = parser.parse_args()
    print(f"{args.rolls} rolls as shipped: tumble {DEFAULTS.box.tumble_ms} ms, frames every"
          f" {FRAME_MS} ms, status screen on; per roll, from the press to the status screen")
    ours = run(args.rolls)
    table("pitable (page addressing, changed runs, invert command for the blink; the tumble"
          " rolls the faces by the start line)", ours, FRAME_MS)
    with in_rectangles():
        boxed = run(args.rolls)
    table("the same in horizontal addressing: each update as the cheapest rectangles (bands"
          " of pages, their changed columns grouped)", boxed, FRAME_MS)
    with tilted_tumble():
        tilted = run(args.rolls)
        with one_bounding_box():
            before = run(args.rolls)
        with stock_luma():
            stock = run(args.rolls)
    table("before: the same drivers, the tilted tumble redrawn every 75 ms", tilted, 75)
    table("before that: the tilted tumble, one bounding box per update, the blink redrawn"
          " whole", before, 75)
    table("baseline: the tilted tumble through luma's stock drivers, whole frames", stock, 75)
    for name, other in (("the tilted tumble", tilted), ("whole frames", stock)):
        saved = 1 - mean([r.total for r in ours]) / mean([r.total for r in other])
        print(f"bytes saved against {name}: {saved:.0%}")

    if args.slow_rolls:
        for tumble in (DEFAULTS.box.tumble_ms, 0):
            first, final = slow_store(args.slow_rolls, tumble)
            print(f"store committing in 50 ms, tumble {tumble} ms (real time): press to first"
                  f" pixel {mean(first):.1f} ms, to final faces {mean(final):.1f} ms")

    ratio = mean([r.total for r in ours]) / mean([r.bound for r in ours])
    boxed_ratio = mean([r.total for r in boxed]) / mean([r.bound for r in boxed])
    print(f"the same rolls in rectangles: {mean([r.total for r in boxed]):,.0f} B against"
          f" {mean([r.total for r in ours]):,.0f} B, ratio {boxed_ratio:.2f} against"
          f" {ratio:.2f}; the status screen {panel_ratio(boxed, 'status'):.2f} against"
          f" {panel_ratio(ours, 'status'):.2f}")
    blinks = [b for r in ours for b in r.blink_bytes]
    worst_blink = max(blinks) if blinks else 0
    worst_frame = ms(max(b for r in ours for b in r.frame_bits), 400_000)
    shipped = mean([r.total for r in ours])
    over_best, of_whole = plan_ratios(ours, boxed, stock)
    print(f"as shipped: {shipped:,.0f} B a roll, {over_best:.3f}x the best plan of the two"
          f" addressing modes (at most {MAX_OVER_BEST_PLAN}), {of_whole:.1%} of luma's whole"
          f" frames (at most {MAX_OF_WHOLE_FRAMES:.0%}); {ratio:.2f}x the lower bound")
    failed = failures(over_best, of_whole, worst_blink, worst_frame)
    if failed:
        print("check FAILED: " + "; ".join(failed))
        return 1
    print(f"check passed: bus {over_best:.3f}x the best plan and {of_whole:.1%} of whole"
          f" frames, blink {worst_blink} B, worst frame {worst_frame:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
