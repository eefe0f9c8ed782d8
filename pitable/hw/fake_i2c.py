"""A fake I2C bus with OLED controllers on it, for the simulator and the tests.

It stands where ``smbus2.SMBus`` stands: luma's own ``i2c`` interface writes to it, the real
luma.oled drivers drive it, and each attached panel decodes the command and data bytes the
way an SSD1306 or SH1106 does, into its display RAM, and keeps the invert command's state
(0xA7 inverted, 0xA6 normal) and the display start line (0x40|line: the panel shows RAM row
``(r + line) % 64`` on its row ``r``). What a panel shows is therefore what the real panel
would show after the same bytes, partial updates, the tumble's rolling and the hazard's
blink included. It takes
luma's data as the Pi sends it (one ``i2c_rdwr`` transaction of up to 4 KiB) as well as
SMBus blocks of 32 bytes. Every transfer is counted so that the benchmark can turn bytes
into bus time, and a panel can be unplugged (its writes fail with EIO, as smbus2 reports a
missing device) and plugged back. The record of transfers keeps the most recent ones only,
so that a bus driven for days stays small.
"""

from __future__ import annotations

import errno
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, overload

from PIL import Image, ImageChops

from pitable.hw.chips import CHIPS

#: Commands followed by parameter bytes, per controller.
_SSD1306_PARAMS = {
    0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0x81: 1, 0x8D: 1,
    0xA3: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
}
_SH1106_PARAMS = {0x81: 1, 0x8D: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}


@dataclass
class FakeOled:
    """The display RAM and addressing state of one SSD1306-family or SH1106 controller."""

    kind: str = "ssd1306"  # "ssd1306" (also SSD1309) or "sh1106"
    width: int = 128
    height: int = 64
    ram_columns: int = field(init=False)
    column_offset: int = field(init=False)
    ram: list[bytearray] = field(init=False)
    on: bool = False
    inverted: bool = False
    #: The RAM row shown on the panel's top row.
    start_line: int = 0
    contrast: int = 0x7F
    _mode: int = 2  # page addressing after reset
    _col: int = 0
    _page: int = 0
    _col_window: tuple[int, int] = (0, 127)
    _page_window: tuple[int, int] = (0, 7)
    _pending: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        # luma addresses a 128-column panel from RAM column 2 on the SH1106.
        chip = CHIPS[self.kind]
        self.ram_columns = chip.ram_columns
        self.column_offset = chip.column_offset
        self.ram = [bytearray(self.ram_columns) for _ in range(self.height // 8)]
        self._col_window = (0, self.ram_columns - 1)
        self._page_window = (0, self.height // 8 - 1)

    # --- the two kinds of transfer ----------------------------------------------

    def commands(self, data: Sequence[int]) -> None:
        params = _SH1106_PARAMS if self.kind == "sh1106" else _SSD1306_PARAMS
        for byte in data:
            if self._pending:
                self._pending.append(byte)
            elif byte in params:
                self._pending = [byte]
            else:
                self._single(byte)
                continue
            opcode = self._pending[0]
            if len(self._pending) == params[opcode] + 1:
                self._with_params(opcode, self._pending[1:])
                self._pending = []

    def write(self, data: Sequence[int]) -> None:
        pages = len(self.ram)
        i, n = 0, len(data)
        horizontal = self.kind == "ssd1306" and self._mode == 0
        while i < n:
            # A run of bytes up to the end of the column window (horizontal addressing) or
            # of the RAM row (page addressing), written as one slice.
            end = self._col_window[1] + 1 if horizontal else self.ram_columns
            run = max(1, min(n - i, end - self._col))
            if 0 <= self._page < pages and 0 <= self._col < self.ram_columns:
                row = self.ram[self._page]
                stop = min(self._col + run, self.ram_columns)
                row[self._col : stop] = bytes(data[i : i + stop - self._col])
            i += run
            self._col += run
            if horizontal and self._col > self._col_window[1]:
                self._col = self._col_window[0]
                self._page = (
                    self._page_window[0] if self._page >= self._page_window[1]
                    else self._page + 1
                )

    # --- decoding ------------------------------------------------------------------

    def _single(self, byte: int) -> None:
        if byte == 0xAE:
            self.on = False
        elif byte == 0xAF:
            self.on = True
        elif byte == 0xA6:
            self.inverted = False
        elif byte == 0xA7:
            self.inverted = True
        elif 0x40 <= byte <= 0x7F:
            self.start_line = byte & 0x3F
        elif not self.page_addressing:
            # The SSD1306 obeys the page and column-nibble commands in page addressing only
            # (datasheet 10.1.1, 10.1.2 and 10.1.13): in the other modes they leave the pointer.
            return
        elif 0xB0 <= byte <= 0xB7:
            self._page = byte & 0x07
        elif byte <= 0x0F:
            self._col = (self._col & 0xF0) | byte
        elif 0x10 <= byte <= 0x1F:
            self._col = (self._col & 0x0F) | ((byte & 0x0F) << 4)

    @property
    def page_addressing(self) -> bool:
        """Whether the controller is in page addressing, as the SH1106 always is."""
        return self.kind == "sh1106" or self._mode == 2

    def _with_params(self, opcode: int, args: list[int]) -> None:
        if opcode == 0x20:
            self._mode = args[0] & 0x03
        elif opcode == 0x21:
            # The windows are for horizontal and vertical addressing (datasheet 10.1.4 and
            # 10.1.5): in page addressing they are kept but do not move the pointer.
            self._col_window = (args[0], args[1])
            if not self.page_addressing:
                self._col = args[0]
        elif opcode == 0x22:
            self._page_window = (args[0], args[1])
            if not self.page_addressing:
                self._page = args[0]
        elif opcode == 0x81:
            self.contrast = args[0]

    # --- what the panel shows ----------------------------------------------------

    def image(self) -> Image.Image:
        """The panel as a viewer sees it: black when off, otherwise the RAM rolled by the start
        line and inverted when the panel is."""
        image = Image.new("1", (self.width, self.height))
        if not self.on:
            return image
        image = self.ram_image()
        if self.start_line:
            # The fake's RAM has the panel's rows; the pitable drivers roll only panels of
            # 64 rows, as many as the controller's RAM, where both wrap alike.
            image = ImageChops.offset(image, 0, -self.start_line)
        if self.inverted:
            image = image.point(lambda v: 255 - v)
        return image

    def ram_image(self) -> Image.Image:
        """The display RAM's bits as a picture, row 0 on top, whether the panel is on or not."""
        image = Image.new("1", (self.width, self.height))
        raw = bytearray()
        for page in self.ram:
            raw += page[self.column_offset : self.column_offset + self.width]
        # Each RAM page is a row of column bytes (bit 0 on top): build the page strip on its
        # side and turn it upright, the inverse of the driver's packing.
        strips = []
        for p in range(len(self.ram)):
            column_bytes = bytes(raw[p * self.width : (p + 1) * self.width])
            side = Image.frombytes("1", (8, self.width), column_bytes)
            strips.append(side.transpose(Image.Transpose.ROTATE_90))
        for p, strip in enumerate(strips):
            image.paste(strip, (0, p * 8))
        return image


class Message(NamedTuple):
    """One raw I2C write message: the address and the bytes after it."""

    addr: int
    buf: bytes


class Transfer(NamedTuple):
    """One transaction on the bus: the address, the control byte and the payload's length."""

    address: int
    control: int
    length: int


#: How many of the latest transfers a bus keeps: dozens of rolls, many full frames.
KEEP_TRANSFERS = 4096


class TransferLog(Sequence[Transfer]):
    """Every transfer on a bus, numbered from 0, of which the latest ``keep`` are kept.

    ``len()`` counts every transfer ever made, so it serves as a mark: ``log[mark:]`` is what
    came since, as long as that is among the kept ones (an older mark raises IndexError).
    Iterating gives the kept ones.
    """

    def __init__(self, keep: int = KEEP_TRANSFERS) -> None:
        self._kept: deque[Transfer] = deque(maxlen=keep)
        self._count = 0

    @property
    def dropped(self) -> int:
        """How many of the oldest transfers are no longer kept."""
        return self._count - len(self._kept)

    def append(self, transfer: Transfer) -> None:
        self._kept.append(transfer)
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Transfer]:
        return iter(self._kept)

    @overload
    def __getitem__(self, index: int) -> Transfer: ...

    @overload
    def __getitem__(self, index: slice) -> list[Transfer]: ...

    def __getitem__(self, index: int | slice) -> Transfer | list[Transfer]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._count)
            if start < self.dropped and start < stop:
                raise IndexError(f"transfers before {self.dropped} are no longer kept")
            first = self.dropped
            return [self._kept[i - first] for i in range(start, stop, step)]
        if index < 0:
            index += self._count
        if not self.dropped <= index < self._count:
            raise IndexError(f"transfer {index} is not kept")
        return self._kept[index - self.dropped]


class FakeBus:
    """One I2C bus (``/dev/i2c-N``): what smbus2.SMBus offers luma, and nothing more."""

    def __init__(self, number: int, clock_hz: int = 400_000) -> None:
        self.number = number
        self.clock_hz = clock_hz
        self.devices: dict[int, FakeOled] = {}
        self.unplugged: set[int] = set()
        self.transfers = TransferLog()
        #: Transfers kept to decode later (see :meth:`defer`); None: decoded as they come.
        self._pending: list[Sequence[Message]] | None = None
        self._lock = threading.Lock()

    def attach(self, address: int, oled: FakeOled) -> FakeOled:
        self.devices[address] = oled
        return oled

    def unplug(self, address: int) -> None:
        self.unplugged.add(address)

    def replug(self, address: int) -> None:
        """Plug the panel back: it comes back powered down with its RAM lost, as after a cut."""
        self.unplugged.discard(address)
        old = self.devices[address]
        self.devices[address] = FakeOled(old.kind, old.width, old.height)

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        """An SMBus block write (at most 32 bytes): one transaction, register then data."""
        if len(data) > 32:
            raise OSError(errno.EINVAL, "Invalid argument")
        self.i2c_rdwr(Message(address, bytes([register, *data])))

    @staticmethod
    def message(address: int, data: Sequence[int]) -> Message:
        """What ``smbus2.i2c_msg.write`` builds: one write message, control byte first."""
        return Message(address, bytes(data))

    def i2c_rdwr(self, *messages: Message) -> None:
        """Raw I2C messages (luma's data on the Pi: up to 4 KiB in one transaction), each a
        transaction of its own on the wire."""
        with self._lock:
            for message in messages:
                if message.addr in self.unplugged or message.addr not in self.devices:
                    raise OSError(errno.EREMOTEIO, "Remote I/O error")
            if self._pending is not None:
                self._pending.append(messages)
            else:
                self._record(messages)

    def _record(self, messages: Sequence[Message]) -> None:
        """Count the transfers and decode them into the panels' RAM."""
        for address, buf in messages:
            self.transfers.append(Transfer(address, buf[0], len(buf) - 1))
            device = self.devices[address]
            if buf[0] == 0x00:
                device.commands(buf[1:])
            elif buf[0] == 0x40:
                device.write(buf[1:])

    def defer(self) -> None:
        """From now on only keep each transfer, and count and decode it in :meth:`flush`: a
        benchmark then times the box without the fake's own work, and that work apart."""
        self._pending = []

    def flush(self) -> None:
        """Count and decode every transfer kept since :meth:`defer` (or the last flush)."""
        with self._lock:
            pending = self._pending or []
            if self._pending is not None:
                self._pending = []
            for messages in pending:
                self._record(messages)

    def close(self) -> None:
        pass

    # --- accounting ----------------------------------------------------------------

    def wire_bits(self, since: int = 0) -> int:
        """Clock cycles on the wire: per transfer a start, the address, the control byte and
        the data, each byte with its acknowledge bit, then a stop."""
        return sum(1 + 9 * (2 + t.length) + 1 for t in self.transfers[since:])

    def wire_bytes(self, since: int = 0) -> int:
        return sum(2 + t.length for t in self.transfers[since:])

    def bus_seconds(self, since: int = 0) -> float:
        return self.wire_bits(since) / self.clock_hz


class FakeI2C:
    """All the buses of a fake Pi, created on first use: ``FakeI2C().bus`` is a bus factory."""

    def __init__(self, clock_hz: int = 400_000) -> None:
        self.clock_hz = clock_hz
        self.buses: dict[int, FakeBus] = {}

    def bus(self, number: int) -> FakeBus:
        if number not in self.buses:
            self.buses[number] = FakeBus(number, self.clock_hz)
        return self.buses[number]
