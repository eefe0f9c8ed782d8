"""The OLED panels: luma.oled drivers that send only what changed.

luma.oled's SSD1306, SSD1309 and SH1106 drivers write the whole 1 KiB frame on every
``display()`` (luma's ``diff_to_previous`` framebuffer serves only its colour drivers).
On a 400 kHz I2C bus a frame costs about 23 ms, and a roll redraws three panels a few
times, so these subclasses keep what the panel's RAM holds and send only the changed
columns of the changed pages, in page addressing mode: a window costs only the commands
that move the RAM pointer (page, column low and high nibble), and changes a few columns
apart go in one window when the gap costs less than another. A picture that is (mostly)
the inverse of the one shown, like the hazard's blink, is sent as the panel's invert
command instead, and a picture that is the one in the RAM rolled vertically (the dice's
tumble) as the panel's display start line command (0x40|line), one byte: the final face
after it is written as the RAM holds it, with the start line set back to 0 in the same
command transfer. The pixels are packed with one Pillow transpose a frame (the frame turned
on its side gives a byte per column and page, top row in bit 0, as the controllers want)
rather than luma's per-pixel Python loop.

What is used of luma is its documented interface: a driver's constructor and its public
methods (``command``, ``preprocess``, ``display``, ``contrast``), and the serial interface
a driver talks through (``command``, ``data``, ``cleanup``). The I2C transport is this
module's own (:class:`I2CLink`), the controllers' facts the driver relies on (command bytes,
where a picture's column 0 sits in the RAM) are written here from the datasheets, and
tests/test_luma_contract.py fails if a luma release stops doing what this module assumes of
it (what its initialisation leaves the panel in, the columns it writes).

luma itself is imported only when a panel is built, so that the rules and the fast commands
never import it.
"""

from __future__ import annotations

import errno
import os
import re
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from PIL import Image, ImageChops

from pitable.errors import DisplayError, HardwareError
from pitable.hw.chips import CHIPS


class Panel(Protocol):
    """What the box needs of a display: its size and a way to show an image."""

    size: tuple[int, int]
    mode: str

    def display(self, image: Image.Image) -> None: ...


#: Each byte's bitwise inverse: a picture's RAM bytes for a panel showing it inverted.
_INVERSE = bytes(255 - b for b in range(256))

#: Wire bytes of one I2C transaction besides its payload: the address and the control byte
#: (start and stop are a clock cycle each, counted apart by the fake bus).
I2C_OVERHEAD = 2
#: The least framing of an update: the data's transaction alone (in page addressing the
#: RAM pointer may already stand on the first byte to change).
LEAST_FRAMING = I2C_OVERHEAD
#: Turning the panel's inversion on or off: one command byte in its own transfer.
INVERT_COST = I2C_OVERHEAD + 1
#: Moving the display start line (the tumble's frames): one command byte in its own transfer.
SCROLL_COST = I2C_OVERHEAD + 1
#: The panel height whose every row is a row of the controller's RAM: only there does a
#: start line roll the picture the way :func:`find_roll` models it.
SCROLL_ROWS = 64
#: Setting the display start line, ORed with the line (SSD1306, SSD1309 and SH1106 alike).
START_LINE = 0x40
#: How many messages Linux takes in one I2C_RDWR ioctl (I2C_RDWR_IOCTL_MAX_MSGS).
RDWR_MAX_MESSAGES = 42
#: The most data bytes a message carries, as luma.core's I2C interface sends them (Linux's
#: i2c-dev takes up to 8192).
MESSAGE_MAX_DATA = 4096
#: The control byte that starts a transaction: the bytes after it are commands, or display
#: data (SSD1306 datasheet 8.1.5.2; the SSD1309 and the SH1106 read it alike).
CONTROL_COMMAND, CONTROL_DATA = 0x00, 0x40
#: The SSD1306's (and SSD1309's) commands this module sends itself (datasheet 10.1.3 to
#: 10.1.5): the addressing mode (0x00 horizontal, 0x02 page), and the column and page ranges
#: that horizontal addressing writes.
MEMORY_MODE, COLUMN_ADDRESS, PAGE_ADDRESS = 0x20, 0x21, 0x22
HORIZONTAL_ADDRESSING, PAGE_ADDRESSING = 0x00, 0x02
#: Normal and inverse display (0xA6, 0xA7), the same on the four controllers.
NORMAL_DISPLAY, INVERSE_DISPLAY = 0xA6, 0xA7
#: The RAM column of a picture's column 0 on an SSD1306 narrower than its 128 columns, by
#: (width, height) (the 64-column glass sits in the middle); 0 for the others.
SSD1306_COLUMN_START = {(64, 48): 32, (64, 32): 32}
#: The SH1106's RAM is 132 columns wide: a 128-column panel shows columns 2 to 129.
SH1106_COLUMN_START = CHIPS["sh1106"].column_offset
SH1106_RAM_COLUMNS = CHIPS["sh1106"].ram_columns


def ssd1306_column_start(width: int, height: int) -> int:
    """The RAM column of column 0 of an SSD1306 (or SSD1309) panel of this size."""
    return SSD1306_COLUMN_START.get((width, height), 0)


def pack_pages(frame: Image.Image) -> list[bytes]:
    """Each page (8 rows) of ``frame`` as the controller stores it: a byte a column, top row
    in bit 0.

    One transpose for the whole frame: turned on its side, each column of the frame is a
    row of bytes, the bottom page first, so page ``p`` is every ``pages``-th byte.
    """
    pages = frame.height // 8
    side = frame.transpose(Image.Transpose.ROTATE_270).tobytes()
    return [side[pages - 1 - p :: pages] for p in range(pages)]


#: Bits a pixel in the modes whose bytes a panel keeps.
_MODE_BITS = {"1": 1, "L": 8, "P": 8, "RGB": 24, "RGBA": 32}


def kept_bytes(image: Image.Image) -> bytearray:
    """``image.tobytes()``, in a buffer of its own made before Pillow's, for bytes kept long.

    Pillow builds the result of ``tobytes()`` in a buffer of at least 64 KiB
    (``ImageFile.MAXBLOCK``) and shrinks it in place, and glibc's realloc leaves the rest
    of the 64 KiB free behind it. Kept, those few bytes stay at the start of a hole that
    the next ``tobytes()`` no longer fits in, so a panel keeping the rows of each new
    picture (a new status screen every roll) left the C heap ever more holes that only
    smaller blocks could use: it grew by about 250 kB a thousand presses, free and never
    given back. Copied into a buffer allocated first, Pillow's buffer is freed whole, and
    the next ``tobytes()`` takes the same space again.
    """
    bits = _MODE_BITS.get(image.mode)
    if bits is None:
        raise ValueError(f"kept_bytes: mode {image.mode!r} is not one of {', '.join(_MODE_BITS)}")
    out = bytearray((image.width * bits + 7) // 8 * image.height)
    out[:] = image.tobytes()
    return out


def find_roll(ram_rows: bytes | bytearray, rows: bytes | bytearray, row_bytes: int) -> int | None:
    """The start line at which a panel whose RAM holds the picture ``ram_rows`` shows the
    picture ``rows`` (both row by row, ``row_bytes`` a row, as ``Image.tobytes()`` gives a
    picture in mode "1"), or None when no start line does.

    With start line ``s`` the panel shows RAM row ``(r + s) % height`` on row ``r``: the
    picture is a rotation of the RAM's rows, so it is found in the RAM's rows written twice,
    at an offset of whole rows.
    """
    if len(rows) != len(ram_rows):
        return None
    doubled = ram_rows + ram_rows
    at = doubled.find(rows)
    while at != -1 and at % row_bytes:
        at = doubled.find(rows, at + 1)
    if at == -1:
        return None
    return at // row_bytes % (len(rows) // row_bytes)


def changed_columns(old: bytes, new: bytes) -> tuple[int, int] | None:
    """The first and one past the last column whose byte differs, or None if none does."""
    if old == new:
        return None
    # One XOR of the page as a big integer finds both ends without a Python loop.
    x = int.from_bytes(old, "big") ^ int.from_bytes(new, "big")
    n = len(old)
    first = n - 1 - (x.bit_length() - 1) // 8
    last = n - 1 - ((x & -x).bit_length() - 1) // 8
    return first, last + 1


def _mostly_inverse(old: Sequence[bytes], new: Sequence[bytes]) -> bool:
    """Whether more than half of the pixels differ: only then can inverting the panel pay."""
    differ = sum(
        (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).bit_count()
        for a, b in zip(old, new, strict=True)
    )
    return differ * 2 > sum(len(a) for a in old) * 8


def column_runs(old: bytes, new: bytes, gap: int) -> list[tuple[int, int]]:
    """The runs of changed columns, split where more than ``gap`` unchanged columns lie
    between two changes."""
    if old == new:
        return []
    x = (int.from_bytes(old, "big") ^ int.from_bytes(new, "big")).to_bytes(len(old), "big")
    first = len(x) - len(x.lstrip(b"\0"))
    end = len(x.rstrip(b"\0"))
    runs = []
    for quiet in _quiet(gap).finditer(x, first, end):
        runs.append((first, quiet.start()))
        first = quiet.end()
    runs.append((first, end))
    return runs


@lru_cache(maxsize=8)
def _quiet(gap: int) -> re.Pattern[bytes]:
    """More than ``gap`` unchanged bytes in a row (zero bytes of the XOR)."""
    return re.compile(b"\\x00{%d,}" % (gap + 1))


class Pointer(NamedTuple):
    """What the driver knows of the controller's RAM pointer in page addressing mode: the
    page, the column (None past the last column, where controllers do not all wrap alike)
    and the column's high nibble last sent (None: nothing is known)."""

    page: int | None = None
    column: int | None = None
    high: int | None = None


#: The widest gap of unchanged columns always sent rather than a window over it: the
#: cheapest window after it (its low nibble alone) costs its command transaction and the
#: data's transaction again, five bytes, and a window there can gain at most one byte
#: later (the high nibble it sends may spare the next window's); wider gaps are weighed.
ALWAYS_JOINED = 2 * I2C_OVERHEAD

#: One window of an update: the commands that move the RAM pointer (none when it is
#: already there), then the bytes written from there.
Window = tuple[tuple[int, ...], bytes]


def _page_windows(runs: list[tuple[int, int]], offset: int, end: int) -> list[tuple[int, int]]:
    """The cheapest windows over one page's changed ``runs`` (picture columns, in order),
    each window a run or several joined across the unchanged bytes between them.

    The first window on the page costs three command bytes (page, low and high nibble);
    a later one the low nibble, and the high one too unless both the pointer (where the
    last window stopped) and the high nibble last sent already hold it, which is so when
    the last window started and stopped in the new window's sixteen columns. So a window
    that sends its high nibble can spare the next one's, and whether to join a gap
    depends on the windows after it: a dynamic programme over the runs, in one pass,
    keeps two costs at each run (the window open over it, and the same with the window
    inside one sixteen-column block so far) rather than trying every way of joining.
    """
    inf = 1 << 30
    # Per run: the least cost so far with a window open over it, any window or one inside
    # a sixteen-column block, and for each the run that window started at and whether the
    # window before it had to lie inside a block (to find the windows again).
    n = len(runs)
    any_cost = [inf] * n
    in_cost = [inf] * n
    any_from: list[tuple[int, bool]] = [(0, False)] * n
    in_from: list[tuple[int, bool]] = [(0, False)] * n
    x0, x1 = runs[0]
    any_cost[0] = I2C_OVERHEAD + 3 + I2C_OVERHEAD + x1 - x0
    if (x0 + offset) >> 4 == (x1 + offset) >> 4:
        in_cost[0], in_from[0] = any_cost[0], (0, False)
    for i in range(1, n):
        s, e = runs[i]
        _, prev_end = runs[i - 1]
        gap_and_run = e - prev_end
        block_end = (e + offset) >> 4
        # Join: the open window grows over the gap and the run.
        joined_any = any_cost[i - 1] + gap_and_run
        joined_in = (in_cost[i - 1] + gap_and_run
                     if (prev_end + offset) >> 4 == block_end else inf)
        # Or a new window from this run: the low nibble alone when the last window lay in
        # this run's sixteen columns, else both nibbles.
        at = s + offset
        fresh = any_cost[i - 1] + 2 * I2C_OVERHEAD + 2 + e - s
        fresh_from = (i, False)
        pointer = prev_end + offset
        if pointer < end and pointer >> 4 == at >> 4:
            low_only = in_cost[i - 1] + 2 * I2C_OVERHEAD + 1 + e - s
            if low_only < fresh:
                fresh, fresh_from = low_only, (i, True)
        if fresh < joined_any:
            any_cost[i], any_from[i] = fresh, fresh_from
        else:
            any_cost[i], any_from[i] = joined_any, any_from[i - 1]
        if at >> 4 == block_end and fresh <= joined_in:
            in_cost[i], in_from[i] = fresh, fresh_from
        elif joined_in < inf:
            in_cost[i], in_from[i] = joined_in, in_from[i - 1]
    # Backtrack from the cheapest close: each window's start, and whether the window
    # before it had to be a "within" one.
    windows = []
    i, within = n - 1, False
    while i >= 0:
        start, before_within = (in_from if within else any_from)[i]
        windows.append((runs[start][0], runs[i][1]))
        i, within = start - 1, before_within
    windows.reverse()
    return windows


def plan_pages(old: Sequence[bytes], new: Sequence[bytes], pointer: Pointer, *,
               offset: int = 0, end: int = 128) -> tuple[int, list[Window], Pointer]:
    """The windows that turn RAM ``old`` into ``new`` in page addressing mode, their cost in
    wire bytes, and the pointer after them.

    A window is a command transaction (page 0xB0|p, column low nibble, high nibble: only
    those that move the pointer) and a data transaction. Each page's changed runs are
    joined across a gap of unchanged bytes where that costs less than the windows it
    spares (:func:`_page_windows`). The high nibble is left out only when both what was
    last sent and the pointer itself already hold it, so that the column is right whichever
    of the two a controller combines the low nibble with. ``offset`` is the RAM column of
    the picture's column 0; ``end`` is one past the RAM's last column.
    """
    windows: list[Window] = []
    cost = 0
    page, column, high = pointer.page, pointer.column, pointer.high
    for p, (a, b) in enumerate(zip(old, new, strict=True)):
        runs = column_runs(a, b, ALWAYS_JOINED)
        if not runs:
            continue
        for x0, x1 in _page_windows(runs, offset, end):
            at = x0 + offset
            commands: tuple[int, ...] = ()
            if page != p:
                commands = (0xB0 | p, at & 0x0F, 0x10 | at >> 4)
                high = at >> 4
            elif column != at:
                known = high == at >> 4 and column is not None and column >> 4 == at >> 4
                commands = (at & 0x0F,) if known else (at & 0x0F, 0x10 | at >> 4)
                high = at >> 4
            data = b[x0:x1]
            windows.append((commands, data))
            cost += (I2C_OVERHEAD + len(commands) if commands else 0) + I2C_OVERHEAD + len(data)
            page = p
            column = at + len(data) if at + len(data) < end else None
    return cost, windows, Pointer(page, column, high)


def changed_box(
    previous: Image.Image | None, frame: Image.Image
) -> tuple[int, int, int, int] | None:
    """The bounding box of the pixels that differ, widened to whole pages of 8 rows."""
    if previous is None:
        return (0, 0, frame.width, frame.height)
    box = ImageChops.logical_xor(previous, frame).getbbox()
    if box is None:
        return None
    x0, y0, x1, y1 = box
    return (x0, y0 // 8 * 8, x1, (y1 + 7) // 8 * 8)


Pages = tuple[bytes, ...]

#: Pictures whose packed pages a panel keeps, and updates between RAM contents: enough for
#: every tumble frame and face of a title, and the moves between them (a final face is
#: written over the face shown before the press, at the start line the tumble left: a few
#: hundred updates a die). Each is a few KiB at most.
PICTURES_KEPT = 512
UPDATES_KEPT = 1024


class _Picture:
    """One picture packed for the panel, its rows as Pillow keeps them, and (made when first
    needed) its inverse."""

    __slots__ = ("_inverse", "pages", "row_bytes", "rows")

    def __init__(self, frame: Image.Image) -> None:
        self.pages: Pages = tuple(pack_pages(frame))
        self.rows = kept_bytes(frame)
        self.row_bytes = (frame.width + 7) // 8
        self._inverse: Pages | None = None

    @property
    def inverse(self) -> Pages:
        if self._inverse is None:
            self._inverse = tuple(page.translate(_INVERSE) for page in self.pages)
        return self._inverse


@dataclass(frozen=True)
class _Update:
    """What turns one RAM content into a picture: the transfers as the interface sends them,
    whether the panel's inversion toggles, and the RAM, the picture whose rows it holds (None
    when inverted) and the start line they leave. (The RAM pointer is not kept: every
    update's first window moves it itself, so that the plan between two pictures serves
    wherever the last one left it.)"""

    wire: tuple[Any, ...]
    invert: bool
    ram: Pages
    picture: _Picture | None
    line: int


T = TypeVar("T")


class _Recent(Generic[T]):
    """The latest ``keep`` values by key, each kept only while the picture it was made for
    lives, and with the objects whose ids the rest of its key holds.

    Held strongly, a picture shown once (a status screen drawn for one roll, never shown
    again) stayed for the next few hundred updates: the status panel kept 512 such pictures
    and the moves to 1,024 of them, about 9 MB of the C heap at 3% hits, each let go in
    turn as a new one came, and the heap grew with the holes they left. Held weakly, a panel
    keeps what its caller keeps: the box keeps the pictures that come back (the tumble's
    frames, the faces, the blink's two screens) in caches of its own, sized for them.
    """

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._kept: OrderedDict[Hashable, tuple[weakref.ref[Any], object, T]] = OrderedDict()

    def get(self, key: Hashable) -> T | None:
        found = self._kept.get(key)
        if found is None:
            return None
        self._kept.move_to_end(key)
        return found[2]

    def put(self, key: Hashable, picture: object, holding: object, value: T) -> None:
        """Keep ``value`` by ``key`` while ``picture`` lives (its id is in ``key``), holding
        ``holding`` (the other objects whose ids are in it) until then."""
        kept = self._kept

        def forget(_: weakref.ref[Any]) -> None:
            # Called as the picture goes, before its id can be another object's.
            kept.pop(key, None)

        kept[key] = (weakref.ref(picture, forget), holding, value)
        if len(kept) > self.keep:
            kept.popitem(last=False)


class _Partial:
    """Remembers what the panel's RAM holds and sends only what must change.

    The panel works in page addressing mode: a window is a page's changed columns, and
    moving the RAM pointer there costs one to three command bytes. A new picture is
    sent either into the RAM as it is, or, when that costs fewer bytes, as its inverse
    with the panel's invert command (0xA7; 0xA6 undoes it): the hazard's blink, a whole
    screen inverted, is then one command byte. A picture that is the RAM's picture
    rolled vertically is shown by the display start line command alone (a tumble
    frame); the next picture written goes into the RAM as it is, with the start line
    set back to 0 before its first window.

    A box shows the same few pictures all evening (the tumble's frames, the faces, the
    blink's two status screens), so both the packed pages of a picture and the
    transfers from one RAM content to another are kept, keyed by the objects
    themselves: a picture handed to :meth:`display` must not be drawn on afterwards.
    They are kept as long as the caller keeps the picture (see :class:`_Recent`).
    """

    _ram: Pages | None = None
    #: The picture whose pages the RAM holds as they are (None: held inverted).
    _held: _Picture | None = None
    _inverted = False  # luma's initialisation sends 0xA6, normal display
    _line = 0  # and sets the display start line to 0
    #: The RAM column of the picture's column 0, and one past the RAM's last column.
    _offset = 0
    _ram_end = 128

    def __init__(self, serial_interface: Any, **kwargs: Any) -> None:
        # Before luma's own initialisation, which clears the panel through display().
        self._pictures: _Recent[_Picture] = _Recent(PICTURES_KEPT)
        self._updates: _Recent[_Update] = _Recent(UPDATES_KEPT)
        self._link = serial_interface
        super().__init__(serial_interface, **kwargs)  # type: ignore[call-arg]

    def display(self, image: Image.Image) -> None:
        # The RAM's identity says which picture it holds: its pages are that picture's
        # own tuple (or its inverse's). A move between two pictures seen before (every
        # tumble frame after the first few rolls) is one lookup.
        ram = self._ram
        key = (id(ram), id(image), self._inverted, self._line)
        update = self._updates.get(key) if ram is not None else None
        if update is None:
            assert image.mode == self.mode and image.size == self.size  # type: ignore[attr-defined]
            picture = self._pictures.get(id(image))
            if picture is None:
                picture = _Picture(self.preprocess(image))  # type: ignore[attr-defined]
                self._pictures.put(id(image), image, None, picture)
            if ram is None:
                self._first(picture)
                return
            update = self._update(ram, picture)
            self._updates.put(key, image, ram, update)
        self._send(update.wire)
        if update.invert:
            self._inverted = not self._inverted
            self.command(  # type: ignore[attr-defined]
                INVERSE_DISPLAY if self._inverted else NORMAL_DISPLAY)
        self._ram = update.ram
        self._held = update.picture
        self._line = update.line

    def _first(self, picture: _Picture) -> None:
        """The first picture, whole, with no RAM content known."""
        pages = picture.pages
        _, windows = self._plan(tuple(page.translate(_INVERSE) for page in pages), pages)
        self._send(self._wire(self._unroll(windows)))
        self._ram, self._held, self._line = pages, picture, 0

    def _update(self, ram: Pages, picture: _Picture) -> _Update:
        """The cheapest way from ``ram`` to showing ``picture``."""
        held = self._held
        if (held is not None and not self._inverted
                and len(picture.rows) == SCROLL_ROWS * picture.row_bytes):
            line = find_roll(held.rows, picture.rows, picture.row_bytes)
            if line is not None:
                wire = () if line == self._line else self._wire([((START_LINE | line,), b"")])
                return _Update(wire, False, ram, held, line)
        same = picture.inverse if self._inverted else picture.pages
        cost, windows = self._plan(ram, same)
        if cost > INVERT_COST and _mostly_inverse(ram, same):
            flipped = picture.pages if self._inverted else picture.inverse
            flip_cost, flip_windows = self._plan(ram, flipped)
            if flip_cost + INVERT_COST < cost:
                return _Update(self._wire(self._unroll(flip_windows)), True, flipped,
                               picture if self._inverted else None, 0)
        return _Update(self._wire(self._unroll(windows)), False, same,
                       None if self._inverted else picture, 0)

    def _unroll(self, windows: list[Window]) -> list[Window]:
        """``windows``, with the start line set back to 0 if it is not.

        The command rides with the last window that sends commands (free: a byte in a
        transaction already sent), so the panel shows its RAM upright only once nearly
        all of the new picture is in it: the earlier windows land while it is still
        rolled, as one more tumble frame, rather than over the old face standing upright.
        """
        if self._line == 0:
            return windows
        for i in range(len(windows) - 1, -1, -1):
            commands, data = windows[i]
            if commands:
                return [*windows[:i], ((*commands, START_LINE), data), *windows[i + 1:]]
        return [*windows, ((START_LINE,), b"")]

    def _plan(self, ram: Pages, new: Pages) -> tuple[int, list[Window]]:
        """The windows from ``ram`` to ``new`` and their cost, from an unknown pointer."""
        cost, windows, _ = plan_pages(ram, new, Pointer(), offset=self._offset,
                                      end=self._ram_end)
        return cost, windows

    def _wire(self, windows: list[Window]) -> tuple[Any, ...]:
        """The windows as :meth:`_send` sends them.

        Through an :class:`I2CLink` (as on the Pi): every command and data transaction
        of the update as one message each, built once and sent in as few ioctls as
        Linux takes, since the box sends the same updates all evening. Each message is
        still its own transaction on the wire. Through any other interface (SPI): the
        commands and bytes for its ``command()`` and ``data()``.
        """
        link = self._link
        if isinstance(link, I2CLink):
            return tuple(("rdwr", batch) for batch in link.batches(windows))
        return tuple((commands, list(data)) for commands, data in windows)

    def _send(self, wire: tuple[Any, ...]) -> None:
        link = self._link
        for first, second in wire:
            if first == "rdwr":
                link.send(*second)
            else:
                if first:
                    link.command(*first)
                if second:
                    link.data(second)


def _partial_classes() -> dict[str, type]:
    """Build the driver classes on first use, so luma is imported only by the real panels."""
    from luma.oled.device import sh1106, ssd1306, ssd1309, ssd1322

    class PartialSSD1306(_Partial, ssd1306):
        """SSD1306, switched to page addressing once luma has set it up."""

        def __init__(self, serial_interface: Any, *, width: int = 128, height: int = 64,
                     **kwargs: Any) -> None:
            self._offset = ssd1306_column_start(width, height)
            super().__init__(serial_interface, width=width, height=height, **kwargs)
            # luma leaves it in horizontal addressing, in which the page and column
            # commands that move the pointer cheaply do nothing.
            self.command(MEMORY_MODE, PAGE_ADDRESSING)

        def _first(self, picture: _Picture) -> None:
            # luma's initialisation clears the panel before page addressing is chosen: the
            # whole RAM in horizontal addressing, in one window.
            pages = picture.pages
            self.command(COLUMN_ADDRESS, self._offset, self._offset + len(pages[0]) - 1,
                         PAGE_ADDRESS, 0, len(pages) - 1)
            self._send(self._wire([((), b"".join(pages))]))
            self._ram, self._held = pages, picture

    class PartialSSD1309(PartialSSD1306, ssd1309):
        """The SSD1309 (2.42" panels) takes the SSD1306's commands."""

    class PartialSH1106(_Partial, sh1106):
        """SH1106: always in page addressing; luma shows a 128-column picture from RAM column
        2 of its 132."""

        _ram_end = SH1106_RAM_COLUMNS
        _offset = SH1106_COLUMN_START

        def __init__(self, serial_interface: Any, **kwargs: Any) -> None:
            # luma's own column offset (its default), said here so that both agree.
            super().__init__(serial_interface, page_address_offset=SH1106_COLUMN_START,
                             **kwargs)

    class InvertingSSD1322(ssd1322):
        """SSD1322 (256x64): luma's own diffing, and the blink by its inverse display command.

        Its RAM holds four bits a pixel in column pairs, so a picture is handed to luma's
        driver and its ``diff_to_previous`` framebuffer; only a picture that is the exact
        inverse of the one shown is sent as the command 0xA7 (0xA6 undoes it), the
        SSD1306's bytes.
        """

        _shown: bytearray | None = None
        _inverted = False

        def display(self, image: Image.Image) -> None:
            data = kept_bytes(image)
            if self._shown is not None:
                inverse = self._shown.translate(_INVERSE)
                shown, other = (inverse, self._shown) if self._inverted else (self._shown, inverse)
                if data == shown:
                    return
                if data == other:
                    self._inverted = not self._inverted
                    self.command(INVERSE_DISPLAY if self._inverted else NORMAL_DISPLAY)
                    return
            if self._inverted:
                self._inverted = False
                self.command(NORMAL_DISPLAY)
            super().display(image)
            self._shown = data

    return {
        "ssd1306": PartialSSD1306,
        "ssd1309": PartialSSD1309,
        "sh1106": PartialSH1106,
        "ssd1322": InvertingSSD1322,
    }


_CLASSES: dict[str, type] = {}


def driver_class(driver: str) -> type:
    if not _CLASSES:
        _CLASSES.update(_partial_classes())
    try:
        return _CLASSES[driver]
    except KeyError:
        raise HardwareError(f"unknown OLED driver {driver!r}") from None


def open_panel(
    driver: str,
    serial_interface: Any,
    *,
    width: int = 128,
    height: int = 64,
    rotate: int = 0,
    contrast: int | None = None,
    where: str = "",
) -> Any:
    """A luma device for ``driver`` on ``serial_interface``, kept lit when the program exits.

    ``persist`` stops luma from blanking the panel at exit, so the faces stay on the table
    while the service restarts; the box redraws the last roll as soon as it is back.
    """
    cls = driver_class(driver)
    kwargs: dict[str, Any] = {"width": width, "height": height, "rotate": rotate}
    if CHIPS[driver].luma_diff:
        from luma.core.framebuffer import diff_to_previous

        # luma splits the frame into an n x n grid of segments and sends the changed ones;
        # it takes only square numbers (8 fails its assertion and the panel never opens).
        kwargs["framebuffer"] = diff_to_previous(num_segments=16)
    try:
        device = cls(serial_interface, **kwargs)
    except Exception as exc:
        raise DisplayError(f"{driver} {where} did not answer: {exc}") from exc
    device.persist = True
    if contrast is not None:
        device.contrast(contrast)
    return device


# --- finding buses -----------------------------------------------------------------


def mux_channel_bus(
    parent_bus: int, mux_address: int, channel: int, sysfs: str | os.PathLike[str] = "/sys"
) -> int:
    """The /dev/i2c-N number the kernel's i2c-mux driver gave to ``channel`` of the mux.

    The overlay creates ``/sys/bus/i2c/devices/<parent>-00<addr>/channel-<n>``, a link to
    the channel's adapter ``i2c-N``; N depends on what else the kernel probed, so it is read
    here rather than assumed.
    """
    mux = Path(sysfs) / "bus/i2c/devices" / f"{parent_bus}-{mux_address:04x}"
    node = mux / f"channel-{channel}"
    try:
        target = os.readlink(node)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise DisplayError(
                f"I2C mux 0x{mux_address:02x} on /dev/i2c-{parent_bus} has no channel {channel}"
                f" ({node} missing: is the i2c-mux overlay loaded?)"
            ) from None
        raise DisplayError(f"{node}: {exc.strerror}") from None
    name = Path(target).name
    if not name.startswith("i2c-") or not name[4:].isdigit():
        raise DisplayError(f"{node} points at {target}, not an i2c-N adapter")
    return int(name[4:])


@dataclass
class I2CPanelSpec:
    """Where a panel sits on I2C, for the real bus or a fake one."""

    bus: int
    address: int


class I2CLink:
    """One panel's I2C transport, as a luma driver talks to its serial interface
    (``command``, ``data``, ``cleanup``), every transaction an ``i2c_rdwr`` message.

    Written here rather than taken from luma.core's ``i2c``: the panel driver sends an
    update (its windows' command and data transactions) as messages built once and kept,
    in as few ioctls as Linux takes, and luma's interface keeps the bus, the address and
    the message builder that needs to itself. On the wire the transactions are the ones
    luma's would be: the address, a control byte, then the commands or the data.

    ``bus`` has ``i2c_rdwr(*messages)`` and ``close()`` (smbus2's SMBus, or the fake bus),
    and ``message(address, data)`` builds a write message (smbus2's ``i2c_msg.write``).
    """

    def __init__(self, bus: Any, address: int, message: Callable[[int, bytes], Any]) -> None:
        self.bus = bus
        self.address = address
        self.message = message

    def command(self, *commands: int) -> None:
        self.send(self.message(self.address, bytes((CONTROL_COMMAND, *commands))))

    def data(self, data: Sequence[int] | bytes) -> None:
        data = bytes(data)
        for i in range(0, len(data), MESSAGE_MAX_DATA):
            self.send(self.message(self.address,
                                   bytes((CONTROL_DATA,)) + data[i : i + MESSAGE_MAX_DATA]))

    def batches(self, windows: Sequence[Window]) -> tuple[tuple[Any, ...], ...]:
        """The windows' transactions as messages, in batches of at most
        :data:`RDWR_MAX_MESSAGES` (one ioctl each)."""
        address, message = self.address, self.message
        command, data_mode = bytes((CONTROL_COMMAND,)), bytes((CONTROL_DATA,))
        messages = []
        for commands, data in windows:
            if commands:
                messages.append(message(address, command + bytes(commands)))
            for i in range(0, len(data), MESSAGE_MAX_DATA):
                messages.append(message(address, data_mode + data[i : i + MESSAGE_MAX_DATA]))
        return tuple(tuple(messages[i : i + RDWR_MAX_MESSAGES])
                     for i in range(0, len(messages), RDWR_MAX_MESSAGES))

    def send(self, *messages: Any) -> None:
        try:
            self.bus.i2c_rdwr(*messages)
        except OSError as exc:
            raise DisplayError(f"I2C device not found on address: 0x{self.address:02X}"
                               f" ({exc.strerror or exc})") from exc

    def cleanup(self) -> None:
        self.bus.close()


def open_i2c_interface(spec: I2CPanelSpec,
                       bus_factory: Callable[[int], Any] | None = None) -> I2CLink:
    """The link to the panel at ``spec`` on ``/dev/i2c-<bus>`` (or on a fake bus from
    ``bus_factory``, which builds its own messages)."""
    where = f"/dev/i2c-{spec.bus} 0x{spec.address:02x}"
    try:
        if bus_factory is None:
            import smbus2

            return I2CLink(smbus2.SMBus(spec.bus), spec.address, smbus2.i2c_msg.write)
        bus = bus_factory(spec.bus)
    except OSError as exc:
        raise DisplayError(f"I2C device not found: {where} ({exc.strerror or exc})") from exc
    return I2CLink(bus, spec.address, bus.message)
