"""The simulator's fakes keep bounded records, so that a box simulated for days stays small.

benchmarks/bench_soak.py drives 100,000 presses and measures memory; this is its quick
check: two hundred presses of the same mix already fill every bounded record, which must
then stay at its bound, and what the records are used for (marks on a bus, the printer's
figures) must still hold.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from benchmarks.bench_soak import c_heap, recorder_sizes, soak
from pitable.box.sim import KEEP_PIN_STATES
from pitable.hw.clock import FakeClock
from pitable.hw.fake_i2c import KEEP_TRANSFERS, FakeBus, FakeOled, Transfer, TransferLog
from pitable.hw.fake_printer import FakePrinter
from pitable.hw.oled import kept_bytes


def test_hundreds_of_presses_keep_the_simulators_records_at_their_bounds(
    tmp_path: Path,
) -> None:
    sim = soak(200, str(tmp_path))
    try:
        sizes = recorder_sizes(sim)
        assert sizes["pin states"] == KEEP_PIN_STATES
        assert sizes["i2c transfers kept"] == KEEP_TRANSFERS
        assert max(len(bus.transfers) for bus in sim.fakes.i2c.buses.values()) > KEEP_TRANSFERS
        assert sizes["gif frames"] == 0  # frames are kept only while recording
        # The box is still the box: the last roll is on the panels and in the store.
        assert sim.box.game.store_id is not None
    finally:
        sim.close()


def test_a_bus_mark_gives_what_came_since_while_it_is_kept() -> None:
    log = TransferLog(keep=3)
    for n in range(5):
        log.append(Transfer(0x3C, 0x40, n))
    assert len(log) == 5  # every transfer counts, kept or not
    assert [t.length for t in log[3:]] == [3, 4]
    assert log[-1].length == 4 and log[2].length == 2
    assert [t.length for t in log] == [2, 3, 4]
    with pytest.raises(IndexError):
        log[1:]
    with pytest.raises(IndexError):
        log[0]


def test_a_bus_counts_bus_time_since_a_mark_after_it_forgot_older_transfers() -> None:
    bus = FakeBus(1)
    bus.attach(0x3C, FakeOled())
    for _ in range(KEEP_TRANSFERS + 10):
        bus.write_i2c_block_data(0x3C, 0x40, [0] * 16)
    mark = len(bus.transfers)
    bus.write_i2c_block_data(0x3C, 0x40, [0] * 30)
    assert bus.wire_bytes(mark) == 32
    assert sum(1 for _ in bus.transfers) == KEEP_TRANSFERS


def picture(rows: int, width: int = 48) -> bytes:
    """One GS v 0 raster command of ``rows`` rows, then a feed."""
    header = bytes((0x1D, 0x76, 0x30, 0)) + width.to_bytes(2, "little") + rows.to_bytes(2, "little")
    return header + bytes(range(256)) * (width * rows // 256) + bytes((0x1B, ord("J"), 24))


def test_a_printer_kept_for_long_forgets_old_bytes_but_not_its_figures() -> None:
    clock = FakeClock()
    small = FakePrinter(clock=clock, keep_bytes=10_000, keep_rows=500)
    whole = FakePrinter(clock=FakeClock())
    sheet = picture(64)
    # Between two forgettings come at most this many sheets' bytes and rows.
    sheets = 10_000 // len(sheet) + 1
    for _ in range(200):
        small.write(sheet)
        whole.write(sheet)
        assert len(small.data) <= sheets * len(sheet)
        assert len(small.rows) <= 500 + sheets * (64 + 24)
    assert len(whole.data) == 200 * len(sheet)
    assert (small.printed_rows, small.fed_rows) == (whole.printed_rows, whole.fed_rows)
    assert small.finished_at == whole.finished_at
    assert small.peak_buffer == whole.peak_buffer > 0
    assert small.unknown == whole.unknown == []
    # The paper kept is the end of the whole printout.
    tail = whole.printout()
    kept = small.printout()
    assert kept.tobytes() == tail.crop((0, tail.height - kept.height, tail.width,
                                        tail.height)).tobytes()


@pytest.mark.slow
def test_the_box_pressed_thousands_of_times_holds_no_more_free_c_heap(tmp_path: Path) -> None:
    """The C heap the box holds beyond what it uses stays where it was while the box is
    pressed on: a picture a panel keeps must not pin the start of Pillow's 64 KiB buffer,
    which left most of it free and unusable, about 250 kB a thousand presses, never given
    back. (Held minus used, so that the caches filling meanwhile do not count.)"""
    if c_heap() is None:
        pytest.skip("the C heap's figures need glibc's mallinfo2")
    first, last = 2_000, 6_000
    free: dict[int, int] = {}

    def at(done: int, sim: object) -> None:
        if done in (first, last):
            gc.collect()
            heap = c_heap()
            assert heap is not None
            held, used = heap
            free[done] = held - used

    soak(last, str(tmp_path), at=at).close()
    assert free[last] - free[first] < 768 * 1024, free


def shapes(n: int) -> Image.Image:
    """A picture that no other ``n`` draws: ``n`` in bits, and a bar."""
    image = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    for bit in range(16):
        if n >> bit & 1:
            x, y = 4 + bit % 8 * 12, 4 + bit // 8 * 12
            draw.rectangle((x, y, x + 8, y + 8), fill=1)
    draw.rectangle((n % 100, 40, n % 100 + 24, 56), fill=1)
    return image


@pytest.mark.parametrize("mode", ["1", "L", "RGB"])
def test_kept_bytes_are_the_pictures_bytes(mode: str) -> None:
    image = shapes(12345).convert(mode).crop((0, 0, 125, 61))
    kept = kept_bytes(image)
    assert kept == image.tobytes()
    assert Image.frombytes(mode, image.size, bytes(kept)).tobytes() == image.tobytes()


def test_kept_bytes_refuse_a_mode_they_cannot_size() -> None:
    with pytest.raises(ValueError, match="mode 'I;16'"):
        kept_bytes(Image.new("I;16", (4, 4)))


def test_a_panel_keeps_the_pictures_its_caller_keeps_and_no_others(tmp_path: Path) -> None:
    """The status screen is a new picture on nearly every press: the panel lets each go
    with the box, keeping the blink's few, while the dice's tumble frames and faces, which
    the box keeps and shows again, stay packed."""
    sim = soak(700, str(tmp_path))
    try:
        status = sim.box.status.panel
        assert len(status._pictures._kept) <= 10
        assert len(status._updates._kept) <= 20
        for die in sim.box.dice.values():
            assert len(die.panel._pictures._kept) >= 20
            assert len(die.panel._updates._kept) >= 100
    finally:
        sim.close()
