"""Fewer bytes on the I2C bus, nothing lost: what the panels decode is what was drawn.

The box runs as shipped (the default config: a 300 ms tumble, the status screen on) on the
fake buses, whose controllers decode every byte into their RAM and model the invert
command. Every picture the box hands a panel must be what that panel then shows.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from pitable.box.controller import FRAME_MS
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.config import DEFAULTS, Config
from pitable.hw.chips import CHIPS
from pitable.hw.fake_i2c import FakeI2C, FakeOled
from pitable.hw.oled import (
    I2CPanelSpec,
    Pointer,
    changed_columns,
    column_runs,
    find_roll,
    open_i2c_interface,
    open_panel,
    pack_pages,
    plan_pages,
)
from pitable.render.faces import die_panel, rolled, tumble_lines, tumble_panel
from pitable.render.status import draw_status
from pitable.rules import SPECIAL, Die, Face, Roll, find_title
from tests.support.entropy import ScriptedBytes
from tests.support.pictures import same


def shipped(*rolls: str, title: str = "valley", displays: Any = None, **kw: Any) -> Simulator:
    """The box with the default config (tumble and status screen on), in table play, with
    ``displays`` for the default ones if given."""
    box = dataclasses.replace(DEFAULTS.box, title=title, mode="table")
    config: Config = dataclasses.replace(DEFAULTS, box=box,
                                         displays=displays or DEFAULTS.displays)
    assert config.box.tumble_ms > 0
    # A fixed map seed: every scripted byte is a roll.
    return Simulator(config, entropy=ScriptedBytes(*rolls), map_seeds=lambda: 1234, **kw)


def watch(sim: Simulator) -> dict[str, list[tuple[Image.Image, bool]]]:
    """After every picture the box shows, check that the panel decodes to it.

    Returns, per panel, each picture shown and whether the panel was inverted after it.
    """
    seen: dict[str, list[tuple[Image.Image, bool]]] = {}
    slots = {**{str(die): slot for die, slot in sim.box.dice.items()}, "status": sim.box.status}
    for name, slot in slots.items():
        original: Callable[[Image.Image], None] = slot.show

        def show(image: Image.Image, name: str = name,
                 original: Callable[[Image.Image], None] = original) -> None:
            original(image)
            shown = sim.panel(name)
            assert same(shown, image), f"the {name} panel does not show what was drawn"
            inverted = sim.fakes.panels[name].inverted
            seen.setdefault(name, []).append((image.copy(), inverted))

        slot.show = show  # type: ignore[method-assign]
    return seen


def test_every_tumble_frame_and_blink_decodes_to_the_picture_drawn() -> None:
    sim = shipped("1,2,3", "*,*,5", "4,5,*", "4,5,*")
    valley = find_title("valley")
    seen = watch(sim)
    before = None
    for roll in ("1,2,3", "*,*,5", "4,5,*", "4,5,*"):
        for pictures in seen.values():
            pictures.clear()
        sim.press()
        for _ in range(4):  # blink phases, when the roll is a hazard
            sim.advance(DEFAULTS.box.blink_ms / 2000)
        faces = Roll.from_str(roll)
        for die in Die:
            pictures = [image for image, _ in seen[str(die)]]
            frames = -(-DEFAULTS.box.tumble_ms // FRAME_MS)
            # The tumble's frames, in order, rolling the faces shown before the press (a die
            # of a few pips on the first roll), then the final face: each as the renderer
            # drew it, though only the first roll's first frame was written into the RAM.
            start = before[die] if before is not None else None
            expected = [tumble_panel(start, die, valley, step) for step in range(frames)]
            expected.append(die_panel(faces[die], die, valley))
            assert len(pictures) == len(expected)
            assert all(same(a, b) for a, b in zip(pictures, expected, strict=True))
        before = faces
    # The last roll was a snake: the status screen blinked, by the panel's invert command.
    view = sim.box.view()
    on = draw_status(dataclasses.replace(view, blink_on=True))
    off = draw_status(dataclasses.replace(view, blink_on=False))
    status = seen["status"]
    assert any(same(image, on) for image, _ in status)
    assert any(same(image, off) for image, _ in status)
    assert {inverted for _, inverted in status} == {True, False}


@pytest.mark.parametrize("rotate", [0, 1, 2, 3])
def test_after_the_first_roll_a_tumble_frame_costs_each_die_three_bytes(rotate: int) -> None:
    # On a panel mounted turned too: a quarter turn rolls the face across, along the
    # panel's own rows, which its start line still moves.
    turned = {str(die): dataclasses.replace(getattr(DEFAULTS.displays, str(die)), rotate=rotate)
              for die in Die}
    displays = dataclasses.replace(DEFAULTS.displays, **turned)
    sim = shipped("1,2,3", "4,5,*", displays=displays)
    sim.press()
    sim.advance(2.0)
    costs: dict[Die, list[int]] = {die: [] for die in Die}
    for die, slot in sim.box.dice.items():
        bus = sim.fakes.i2c.bus(sim.fakes.where[str(die)][0])
        original: Callable[[Image.Image], None] = slot.show

        def show(image: Image.Image, die: Die = die, bus: Any = bus,
                 original: Callable[[Image.Image], None] = original) -> None:
            mark = len(bus.transfers)
            original(image)
            costs[die].append(bus.wire_bytes(mark))

        slot.show = show  # type: ignore[method-assign]
    sim.press()
    frames = -(-DEFAULTS.box.tumble_ms // FRAME_MS)
    for die in Die:
        # Each frame moves the start line; only the final face writes pips.
        assert costs[die][:-1] == [3] * frames
        assert costs[die][-1] > 3
        face = Roll.from_str("4,5,*")[die]
        width, height = getattr(displays, str(die)).picture_size
        faces = die_panel(face, die, find_title("valley"), width=width, height=height)
        assert same(sim.panel(str(die)), faces)


def test_a_blink_costs_a_few_bytes_and_shows_the_inverse() -> None:
    sim = shipped("2,3,*")
    sim.press()
    bus = sim.fakes.i2c.bus(sim.fakes.where["status"][0])
    pictures = []
    for _ in range(6):
        mark = len(bus.transfers)
        sim.advance(DEFAULTS.box.blink_ms / 2000)
        assert 0 < bus.wire_bytes(mark) <= 10
        pictures.append(sim.panel("status"))
    for a, b in itertools.pairwise(pictures):
        assert same(a, ImageChops.invert(b.convert("L")).convert("1"))


class SlowStore:
    """A session store on a disk that fsyncs slowly: each commit takes 50 ms of box time,
    and notes what the dice panels showed while it ran."""

    def __init__(self, store: SessionStore, sim: list[Simulator]) -> None:
        self.store = store
        self.sim = sim
        self.during_commit: list[dict[str, Image.Image]] = []

    def record_roll(self, *args: Any, **kwargs: Any) -> object:
        sim = self.sim[0]
        self.during_commit.append({str(d): sim.panel(str(d)) for d in Die})
        sim.fake_clock.advance(0.05)  # type: ignore[union-attr]
        return self.store.record_roll(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_the_first_tumble_frame_goes_out_before_the_commit_and_the_faces_after(
    tmp_path: Path,
) -> None:
    holder: list[Simulator] = []
    slow = SlowStore(SessionStore.open(tmp_path), holder)
    sim = shipped("5,5,5", store=slow)
    holder.append(sim)
    valley = find_title("valley")
    sim.press()
    assert len(slow.during_commit) == 1
    during = slow.during_commit[0]
    for die in Die:
        # While the roll was being written, each die showed its first tumble frame ...
        assert same(during[str(die)], tumble_panel(None, die, valley, 0))
        assert not same(during[str(die)], die_panel(5, die, valley))
        # ... and the final face came once it was on disk.
        assert same(sim.panel(str(die)), die_panel(5, die, valley))
    game = sim.box.game
    assert game.store_id is not None
    stored = slow.store.last_roll(game.store_id)
    assert stored is not None and stored.hazard is False
    sim.close()


def test_without_a_tumble_the_faces_wait_for_the_commit(tmp_path: Path) -> None:
    holder: list[Simulator] = []
    slow = SlowStore(SessionStore.open(tmp_path), holder)
    box = dataclasses.replace(DEFAULTS.box, title="valley", mode="table", tumble_ms=0)
    sim = Simulator(dataclasses.replace(DEFAULTS, box=box), entropy=ScriptedBytes("5,5,5"),
                    store=slow, map_seeds=lambda: 1234)
    holder.append(sim)
    blank = {str(d): sim.panel(str(d)) for d in Die}
    sim.press()
    assert all(same(slow.during_commit[0][name], blank[name]) for name in blank)
    assert same(sim.panel("green"), die_panel(5, Die.GREEN, find_title("valley")))
    sim.close()


# --- the driver's choices, on one panel ------------------------------------------------


def one_panel(driver: str = "ssd1306") -> tuple[Any, FakeOled, FakeI2C]:
    i2c = FakeI2C()
    kind = CHIPS[driver].speaks  # the controller the fake decodes
    fake = i2c.bus(4).attach(0x3C, FakeOled(kind))
    device = open_panel(driver, open_i2c_interface(I2CPanelSpec(4, 0x3C), i2c.bus))
    return device, fake, i2c


def test_pages_are_packed_as_the_controller_stores_them() -> None:
    image = Image.new("1", (128, 64))
    image.putpixel((0, 0), 1)  # page 0, column 0, bit 0
    image.putpixel((5, 15), 1)  # page 1, column 5, bit 7
    image.putpixel((127, 58), 1)  # page 7, column 127, bit 2
    pages = pack_pages(image)
    assert len(pages) == 8 and all(len(p) == 128 for p in pages)
    assert pages[0][0] == 0x01 and pages[1][5] == 0x80 and pages[7][127] == 0x04
    assert sum(map(sum, pages)) == 0x01 + 0x80 + 0x04


def test_changed_columns_finds_both_ends() -> None:
    old = bytes(128)
    new = bytearray(old)
    new[3] = 1
    new[90] = 0xFF
    assert changed_columns(old, bytes(new)) == (3, 91)
    assert changed_columns(old, old) is None


def test_two_distant_changes_get_a_window_each() -> None:
    old = [bytes(128)] * 8
    new = list(old)
    new[0] = bytes([1] * 10) + bytes(118)
    new[7] = bytes(100) + bytes([1] * 28)
    cost, windows, _ = plan_pages(old, new, Pointer())
    # Each: the page, the column's low and high nibble, then the bytes.
    assert windows == [((0xB0, 0x00, 0x10), new[0][:10]), ((0xB7, 0x04, 0x16), new[7][100:])]
    assert cost == (2 + 3 + 2 + 10) + (2 + 3 + 2 + 28)


def test_the_pointer_is_moved_only_as_far_as_needed() -> None:
    old = [bytes(128)] * 8
    new = list(old)
    row = bytearray(128)
    row[2] = row[12] = 1  # nine unchanged bytes apart: a second window is cheaper
    new[3] = bytes(row)
    cost, windows, pointer = plan_pages(old, new, Pointer())
    assert cost == (2 + 3 + 2 + 1) + (2 + 1 + 2 + 1)
    # The second window is in the same page and the same sixteen columns as where the
    # pointer stopped: its low nibble is enough.
    assert windows == [((0xB3, 0x02, 0x10), b"\1"), ((0x0C,), b"\1")]
    assert pointer == Pointer(page=3, column=13, high=0)
    # A change right where the pointer stands needs no command at all.
    newer = list(new)
    newer[3] = new[3][:13] + b"\7" + new[3][14:]
    assert plan_pages(new, newer, pointer)[1] == [((), b"\7")]
    assert plan_pages(new, newer, Pointer())[1] == [((0xB3, 0x0D, 0x10), b"\7")]


def cheapest_page_addressing(old: list[bytes], new: list[bytes], offset: int, end: int) -> int:
    """The least wire bytes of any page-addressing plan that writes each page's changed
    runs, found by trying every way of joining a page's runs across the gaps between them.

    A window is a command transaction and a data transaction. Its commands move the RAM
    pointer: on a new page the page and both nibbles of the column; on the same page the
    low nibble, and the high one too unless both the pointer and the high nibble last sent
    already hold it (controllers differ in which of the two a lone low nibble joins).
    """
    total = 0
    for a, b in zip(old, new, strict=True):
        runs = column_runs(a, b, 0)
        best = None
        for joins in itertools.product((False, True), repeat=max(0, len(runs) - 1)):
            windows = [list(runs[0])] if runs else []
            for run, join in zip(runs[1:], joins, strict=True):
                if join:
                    windows[-1][1] = run[1]
                else:
                    windows.append(list(run))
            cost = 0
            column: int | None = None
            high: int | None = None
            for x0, x1 in windows:
                at = x0 + offset
                if column is None and high is None:
                    commands = 3
                elif column is not None and high == at >> 4 == column >> 4:
                    commands = 1
                else:
                    commands = 2
                if commands > 1:
                    high = at >> 4
                after = at + x1 - x0
                column = after if after < end else None
                cost += 2 + commands + 2 + (x1 - x0)
            best = cost if best is None else min(best, cost)
        total += best or 0
    return total


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from([(0, 128), (2, 132)]))
def test_the_plan_is_the_cheapest_way_of_joining_the_runs_in_page_addressing(
        data: st.DataObject, where: tuple[int, int]) -> None:
    """Joining a gap or opening a window after it: the plan chooses, page by page, as the
    cheapest of every way would (runs a few columns apart, as text and pips leave them)."""
    offset, end = where
    old = [bytes(data.draw(st.binary(min_size=128, max_size=128))) for _ in range(8)]
    new = []
    for page in old:
        changed = bytearray(page)
        at = data.draw(st.integers(0, 127))
        for _ in range(data.draw(st.integers(0, 8))):
            flips = data.draw(st.binary(min_size=1, max_size=12))
            for x, flip in zip(range(at, 128), flips, strict=False):
                changed[x] ^= flip | 1
            at += len(flips) + data.draw(st.integers(1, 24))
            if at >= 128:
                break
        new.append(bytes(changed))
    cost, windows, _ = plan_pages(old, new, Pointer(), offset=offset, end=end)
    assert cost == cheapest_page_addressing(old, new, offset, end)
    assert cost == sum(2 + len(commands) + 2 + len(data) for commands, data in windows)


def test_every_plan_writes_the_picture_whichever_way_the_low_nibble_combines() -> None:
    """Controllers differ in what a lone low-nibble command combines with: the pointer's
    high nibble, or the one last sent. Decoded either way, the RAM is the picture."""
    for combine in ("pointer", "last sent"):
        ram = [bytearray(128) for _ in range(8)]
        pointer = Pointer()
        page = column = high = 0
        for seed in range(30):
            rng = random.Random(seed)
            picture = Image.new("1", (128, 64))
            for _ in range(6):
                x, y = rng.randrange(128), rng.randrange(64)
                ImageDraw.Draw(picture).rectangle(
                    (x, y, x + rng.randrange(30), y + rng.randrange(20)), fill=rng.choice((0, 1)))
            new = pack_pages(picture)
            _, windows, pointer = plan_pages([bytes(r) for r in ram], new, pointer)
            for commands, data in windows:
                for byte in commands:
                    if byte >= 0xB0:
                        page = byte & 0x07
                    elif byte >= 0x10:
                        high = byte & 0x0F
                        column = (column & 0x0F) | high << 4
                    else:
                        base = column if combine == "pointer" else high << 4
                        column = (base & 0xF0) | byte
                ram[page][column : column + len(data)] = data
                column += len(data)
            assert [bytes(r) for r in ram] == new, (combine, seed)


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_changes_far_apart_send_fewer_bytes_than_their_bounding_box(driver: str) -> None:
    device, fake, i2c = one_panel(driver)
    base = Image.new("1", (128, 64))
    device.display(base)
    changed = base.copy()
    draw = ImageDraw.Draw(changed)
    draw.rectangle((0, 0, 9, 7), fill=1)  # page 0, columns 0-9
    draw.rectangle((118, 56, 127, 63), fill=1)  # page 7, columns 118-127
    mark = len(i2c.bus(4).transfers)
    device.display(changed)
    data = sum(t.length for t in i2c.bus(4).transfers[mark:] if t.control == 0x40)
    assert data == 20  # not 128 x 8 of the bounding box
    assert same(fake.image(), changed)


@pytest.mark.parametrize("driver", ["ssd1306", "ssd1309", "sh1106"])
def test_an_inverted_picture_is_the_invert_command_and_back(driver: str) -> None:
    device, fake, i2c = one_panel(driver)
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).text((10, 20), "SNAKE", fill=1)
    inverse = ImageChops.invert(image.convert("L")).convert("1")
    device.display(image)
    for picture, inverted in ((inverse, True), (image, False), (inverse, True)):
        mark = len(i2c.bus(4).transfers)
        device.display(picture)
        assert i2c.bus(4).wire_bytes(mark) == 3  # address, control byte, 0xA7 or 0xA6
        assert fake.inverted is inverted
        assert same(fake.image(), picture)
    # A new picture while inverted: whatever is sent, the panel shows it.
    other = Image.new("1", (128, 64))
    ImageDraw.Draw(other).rectangle((40, 8, 90, 40), fill=1)
    device.display(other)
    assert same(fake.image(), other)


@pytest.mark.parametrize("driver", ["ssd1306", "ssd1309", "sh1106"])
def test_a_tumble_frame_is_the_start_line_command_and_the_face_after_it_is_upright(
    driver: str,
) -> None:
    device, fake, i2c = one_panel(driver)
    valley = find_title("valley")
    device.display(die_panel(2, Die.RED, valley))
    for step in range(8):
        frame = tumble_panel(2, Die.RED, valley, step)
        mark = len(i2c.bus(4).transfers)
        device.display(frame)
        # Address, control byte, 0x40 | line: the panel rolls what its RAM holds.
        assert i2c.bus(4).wire_bytes(mark) == 3
        assert fake.start_line == tumble_lines(Die.RED, step)
        assert same(fake.image(), frame)
    face = die_panel(5, Die.RED, valley)
    mark = len(i2c.bus(4).transfers)
    device.display(face)
    assert fake.start_line == 0
    assert same(fake.image(), face)
    # Only the pips that differ went out, with the start line set back in their commands.
    assert i2c.bus(4).wire_bytes(mark) < 400
    device.display(tumble_panel(5, Die.RED, valley, 0))
    device.display(face)  # the same face again: the start line back, nothing written
    assert fake.start_line == 0 and same(fake.image(), face)


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
@pytest.mark.parametrize(("before", "after"), [(2, 5), (6, 1), (4, SPECIAL)])
def test_the_old_face_never_stands_upright_while_the_new_one_is_written(
    driver: str, before: Face, after: Face,
) -> None:
    device, fake, _ = one_panel(driver)
    valley = find_title("valley")
    old = die_panel(before, Die.GREEN, valley)
    device.display(old)
    device.display(tumble_panel(before, Die.GREEN, valley, 3))
    shown: list[Image.Image] = []
    for name in ("commands", "write"):
        original = getattr(fake, name)

        def watched(data: Any, original: Any = original) -> None:
            original(data)
            shown.append(fake.image())

        setattr(fake, name, watched)
    new = die_panel(after, Die.GREEN, valley)
    device.display(new)
    assert len(shown) > 2 and same(shown[-1], new)
    # Every picture on the way is the tumble rolled a little further, never the old result.
    assert not any(same(picture, old) for picture in shown)


def test_a_picture_that_is_no_roll_of_the_ram_is_written_whole() -> None:
    device, fake, _ = one_panel()
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle((20, 10, 60, 30), fill=1)
    device.display(image)
    device.display(rolled(image, 20))
    assert fake.start_line == 20
    # Shifted sideways too: no start line shows it, so it is written into the RAM.
    other = ImageChops.offset(rolled(image, 20), 3, 0)
    device.display(other)
    assert fake.start_line == 0 and same(fake.image(), other)
    assert same(fake.ram_image(), other)


def test_find_roll_finds_the_start_line_of_whole_rows_only() -> None:
    ram = bytes(range(8)) * 2  # four rows of four bytes
    rows = ram[4:] + ram[:4]
    assert find_roll(ram, rows, 4) == 1
    assert find_roll(ram, ram, 4) == 0
    assert find_roll(ram, ram[2:] + ram[:2], 4) is None  # half a row: no start line shows it
    assert find_roll(ram, ram[:8], 4) is None


def test_the_fake_panel_shows_its_ram_rolled_by_the_start_line() -> None:
    oled = FakeOled()
    oled.commands([0xAF, 0xB1, 0x00, 0x10])  # on; page 1 (rows 8-15), column 0
    oled.write([0x01])  # row 8, column 0
    assert oled.image().getpixel((0, 8))
    oled.commands([0x40 | 8])
    assert oled.image().getpixel((0, 0)) and not oled.image().getpixel((0, 8))
    oled.commands([0x40 | 9])  # row 8 of the RAM wraps to the bottom row
    assert oled.image().getpixel((0, 63))
    assert oled.ram_image().getpixel((0, 8))


def test_the_fake_ssd1306_moves_its_pointer_as_the_addressing_mode_allows() -> None:
    # Page addressing (the mode after reset): the page and column nibbles move the pointer,
    # the column and page windows do not.
    oled = FakeOled()
    oled.commands([0xAF, 0xB2, 0x05, 0x10, 0x21, 40, 50, 0x22, 6, 7])
    oled.write([0xFF])
    assert oled.ram[2][5] == 0xFF and oled.ram[6][40] == 0
    # Horizontal addressing: the windows move it, the page and nibble commands do not.
    oled.commands([0x20, 0x00, 0x21, 40, 50, 0x22, 6, 7, 0xB3, 0x01, 0x11])
    oled.write([0xAA])
    assert oled.ram[6][40] == 0xAA and oled.ram[3][17] == 0
    # The SH1106 knows page addressing only.
    sh = FakeOled("sh1106")
    sh.commands([0x20, 0x00, 0xB4, 0x02, 0x10])
    sh.write([0x0F])
    assert sh.ram[4][2] == 0x0F


@pytest.mark.parametrize("driver", ["ssd1306", "ssd1309", "sh1106"])
def test_partial_updates_run_in_page_addressing_after_the_panel_is_set_up(driver: str) -> None:
    device, fake, _ = one_panel(driver)
    assert fake.page_addressing
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle((60, 20, 70, 30), fill=1)
    device.display(image)
    assert fake.image().tobytes() == image.tobytes()


class Recording:
    """A luma serial interface that keeps the commands and data sent through it."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[int, ...]]] = []

    def command(self, *cmd: int) -> None:
        self.sent.append(("command", cmd))

    def data(self, data: list[int]) -> None:
        self.sent.append(("data", tuple(data)))

    def cleanup(self) -> None:
        pass


def test_the_ssd1322_blinks_by_its_inverse_display_command() -> None:
    serial = Recording()
    device = open_panel("ssd1322", serial, width=256, height=64)
    image = Image.new(device.mode, (256, 64))
    ImageDraw.Draw(image).rectangle((10, 10, 100, 40), fill="white")
    device.display(image)
    inverse = Image.eval(image, lambda v: 255 - v)
    mark = len(serial.sent)
    device.display(inverse)
    device.display(image)
    assert serial.sent[mark:] == [("command", (0xA7,)), ("command", (0xA6,))]


def test_a_page_with_changes_far_apart_gets_a_window_per_run() -> None:
    old = bytes(128)
    new = bytearray(old)
    new[2] = new[5] = 1  # close together: one run
    new[60] = new[61] = 3
    new[120] = 7
    assert column_runs(old, bytes(new), 10) == [(2, 6), (60, 62), (120, 121)]
    pages = [old] * 8
    changed = list(pages)
    changed[3] = bytes(new)
    cost, windows, _ = plan_pages(pages, changed, Pointer())
    assert [data for _, data in windows] == [bytes(new[2:6]), bytes(new[60:62]), b"\7"]
    assert [commands for commands, _ in windows] == [
        (0xB3, 0x02, 0x10), (0x0C, 0x13), (0x08, 0x17)]
    assert cost == (2 + 3 + 2 + 4) + (2 + 2 + 2 + 2) + (2 + 2 + 2 + 1)


def test_a_deferred_bus_decodes_on_flush_and_refuses_a_missing_panel_at_once() -> None:
    device, fake, i2c = one_panel()
    bus = i2c.bus(4)
    bus.defer()
    picture = Image.new("1", (128, 64))
    ImageDraw.Draw(picture).rectangle((20, 10, 60, 30), fill=1)
    mark = len(bus.transfers)
    device.display(picture)
    assert len(bus.transfers) == mark and not same(fake.image(), picture)
    bus.flush()
    assert len(bus.transfers) > mark and same(fake.image(), picture)
    bus.unplug(0x3C)
    with pytest.raises(Exception, match="0x3C"):
        device.display(Image.new("1", (128, 64)))
