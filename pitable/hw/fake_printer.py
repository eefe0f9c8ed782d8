"""A thermal printer made of arithmetic, for tests, benchmarks and the simulator.

:class:`FakePrinter` is a :class:`~pitable.hw.printer.Transport`: it keeps the bytes it
is sent, decodes the ``GS v 0`` and ``DC2 *`` pictures and the ``ESC J`` feeds back into the paper
that would come out (:meth:`FakePrinter.printout`), answers status queries, and models the
printer itself on a :class:`FakeClock`: bytes arrive at the baud rate, wait in an input
buffer of ``buffer_bytes``, and leave it as the mechanism prints their row (``line_time_ms``)
or feeds (``feed_time_ms``). :attr:`FakePrinter.peak_buffer` is the most the buffer held,
counting every command whole from its first byte's arrival, so a test that finds it within
``buffer_bytes`` has shown that the pacing never overran the buffer.

So that a printer kept for days (the simulator's) stays small, once the stream passes
``keep_bytes`` and every byte of it has been handled, the fake forgets the handled bytes, all
but the last ``keep_rows`` rows of paper, and the buffer's history before the present
(keeping its peak): :attr:`FakePrinter.data` then holds the bytes since.

It can also misbehave: no paper, offline, a write that hangs until released and then
times out (as pyserial's ``write_timeout`` does), a port that does not answer status, or a
printer that reads nothing (``reads=False``: what is written stays in the port, as on a
network printer that accepts the connection and never reads, and :meth:`drain` times out).
"""

from __future__ import annotations

import bisect
import itertools
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pitable.errors import JobNotTaken, PrinterOffline, PrinterTimeout
from pitable.hw.chips import PAPER_DOTS
from pitable.hw.clock import FakeClock
from pitable.hw.printer import BITS_PER_BYTE, INVERT

if TYPE_CHECKING:
    from PIL import Image

#: How many bytes of handled stream the fake keeps before forgetting them.
KEEP_BYTES = 1 << 20
#: How many rows of paper (printed or fed) are kept when the fake forgets: about 2.5 m.
KEEP_ROWS = 20_000


@dataclass
class _Arrival:
    offset: int  # index in the stream of the write's first byte
    start: float  # when its first bit left the host


@dataclass
class FakePrinter:
    """See the module's docstring. All times are in seconds on ``clock``."""

    dots: int = PAPER_DOTS[58]
    baudrate: int = 19200
    line_time_ms: float = 30.0
    feed_time_ms: float = 2.0
    buffer_bytes: int = 4096
    clock: FakeClock = field(default_factory=FakeClock)
    paper: bool = True
    online: bool = True
    #: Whether status queries get a reply (many units have their TX line unwired).
    answers_status: bool = True
    #: When set, every write waits for this event and then times out.
    hang: threading.Event | None = None
    #: False: the printer takes nothing; every byte written waits in the port (:attr:`unsent`).
    #: Set back to True, later writes go through and what waited is dropped, as the port's
    #: buffers are when a printer is reset.
    reads: bool = True
    keep_bytes: int = KEEP_BYTES
    keep_rows: int = KEEP_ROWS

    def __post_init__(self) -> None:
        self.data = bytearray()
        self.rows: list[bytes] = []
        #: The index in :attr:`rows` where each print job began (its ``ESC @``).
        self.job_starts: list[int] = []
        self.printed_rows = 0
        self.fed_rows = 0
        self.unknown: list[int] = []  # offsets of bytes that began no known command
        self.closed = False
        #: Bytes written that the printer did not take (``reads=False``).
        self.unsent = 0
        self._arrivals: list[_Arrival] = []
        self._wire_free = 0.0
        self._parsed = 0
        self._mechanism_free = 0.0
        self._replies = bytearray()
        self._events: list[tuple[float, int]] = []  # (time, +bytes or -bytes)
        # The buffer's level and peak over the events already forgotten.
        self._folded_level = 0
        self._folded_peak = 0
        self.writes = 0

    # --- the Transport protocol ---------------------------------------------------

    def write(self, data: bytes) -> None:
        if self.hang is not None:
            self.hang.wait()
            raise PrinterTimeout("timed out writing to the printer")
        if not self.online:
            raise PrinterOffline("the printer does not answer")
        self.writes += 1
        if not self.reads:
            self.unsent += len(data)
            return
        now = self.clock.now()
        start = max(now, self._wire_free)
        self._arrivals.append(_Arrival(len(self.data), start))
        self.data.extend(data)
        self._wire_free = start + len(data) * self._byte_s
        self._parse()
        self._forget_handled()

    def read(self, size: int, timeout: float) -> bytes:
        out = bytes(self._replies[:size])
        del self._replies[:size]
        if len(out) < size:
            self.clock.sleep(timeout)
        return out

    def discard_input(self) -> None:
        self._replies.clear()

    def drain(self, timeout: float) -> None:
        """Wait until the last byte written has arrived at the baud rate, or fail after
        ``timeout`` seconds as the real port does when the printer takes nothing."""
        stuck = not self.reads and self.unsent
        left = stuck or round(max(0.0, self._wire_free - self.clock.now()) / self._byte_s)
        if stuck or self._wire_free - self.clock.now() > timeout:
            self.clock.sleep(timeout)
            raise JobNotTaken(
                f"the printer is not taking the job: {left:,} bytes still waiting to be sent"
                f" after {timeout:.1f} s"
            )
        self.clock.sleep(self._wire_free - self.clock.now())

    def close(self) -> None:
        self.closed = True

    # --- what came out ----------------------------------------------------------------

    def printout(self) -> Image.Image:
        """Everything printed and fed so far, as a 1-bit picture ``dots`` wide."""
        from PIL import Image

        stride = self.dots // 8
        blob = b"".join(row.ljust(stride, b"\x00")[:stride] for row in self.rows)
        return Image.frombytes("1", (self.dots, len(self.rows)), blob.translate(INVERT))

    def printouts(self) -> list[Image.Image]:
        """What each print job printed and fed (from one ``ESC @`` to the next), as 1-bit
        pictures ``dots`` wide: one a copy when copies are sent back to back."""
        if not self.rows:
            # Nothing yet (and Pillow before 10 makes no picture of no rows).
            return []
        whole = self.printout()
        edges = [*self.job_starts, len(self.rows)]
        return [whole.crop((0, a, self.dots, b)) for a, b in itertools.pairwise(edges)]

    @property
    def finished_at(self) -> float:
        """When the mechanism finishes the last row or feed received so far."""
        return self._mechanism_free

    @property
    def peak_buffer(self) -> int:
        level, peak = self._folded_level, self._folded_peak
        # At equal times bytes leave before new ones are counted: the model frees a row's
        # bytes the moment it is printed.
        for _, delta in sorted(self._events, key=lambda e: (e[0], e[1])):
            level += delta
            peak = max(peak, level)
        return peak

    @property
    def overran(self) -> bool:
        return self.peak_buffer > self.buffer_bytes

    def reset_output(self) -> None:
        """Forget what was printed (the stream and timing go on)."""
        self.rows.clear()
        self.job_starts.clear()

    # --- the model ------------------------------------------------------------------------

    def _forget_handled(self) -> None:
        """Past ``keep_bytes``, forget what is done; see the module's docstring."""
        if len(self.data) <= self.keep_bytes or self._parsed < len(self.data):
            return
        self.data.clear()
        self._parsed = 0
        self._arrivals.clear()
        self.unknown.clear()
        if len(self.rows) > self.keep_rows:
            gone = len(self.rows) - self.keep_rows
            del self.rows[:gone]
            self.job_starts = [max(0, start - gone) for start in self.job_starts]
        # Every later event comes at or after the next write can start: what came before
        # is folded into a level and a peak.
        horizon = max(self.clock.now(), self._wire_free)
        past = sorted(e for e in self._events if e[0] < horizon)
        self._events = [e for e in self._events if e[0] >= horizon]
        for _, delta in past:
            self._folded_level += delta
            self._folded_peak = max(self._folded_peak, self._folded_level)

    @property
    def _byte_s(self) -> float:
        return BITS_PER_BYTE / self.baudrate

    def _arrival(self, index: int) -> float:
        """When byte ``index`` of the stream has fully arrived."""
        k = bisect.bisect_right([a.offset for a in self._arrivals], index) - 1
        a = self._arrivals[k]
        return a.start + (index - a.offset + 1) * self._byte_s

    def _command(self, first: int, last: int, seconds: float = 0.0) -> None:
        """Bytes ``first..last`` are one command that keeps the mechanism ``seconds``."""
        size = last - first + 1
        self._events.append((self._arrival(first), size))
        self._mechanism_free = max(self._mechanism_free, self._arrival(last)) + seconds
        self._events.append((self._mechanism_free, -size))

    def _raster(self, first: int, header: int, width: int, height: int) -> None:
        """A picture command: each row prints once its own bytes are in."""
        line_s = self.line_time_ms / 1000
        self._events.append((self._arrival(first), header + width * height))
        for j in range(height):
            ready = self._arrival(first + header + (j + 1) * width - 1)
            self._mechanism_free = max(self._mechanism_free, ready) + line_s
            # The header leaves the buffer with the first row.
            self._events.append((self._mechanism_free, -(width + (header if j == 0 else 0))))
        if height == 0:
            self._events.append((self._arrival(first + header - 1), -header))

    def _length(self, i: int) -> int | None:
        """How many bytes the command at ``i`` takes; 0 if unknown; None if incomplete."""
        data = self.data
        rest = len(data) - i
        b = data[i]
        if b in (0x1B, 0x1D, 0x12, 0x10) and rest < 2:
            return None
        if b == 0x1B:  # ESC
            sizes = {"@": 2, "2": 2, "J": 3, "d": 3, "v": 3, "a": 3, "3": 3, "7": 5}
            size = sizes.get(chr(data[i + 1]), 0)
        elif b == 0x1D and data[i + 1] == ord("v"):  # GS v 0 m xL xH yL yH
            if rest < 8:
                return None
            width = int.from_bytes(data[i + 4 : i + 6], "little")
            height = int.from_bytes(data[i + 6 : i + 8], "little")
            size = 8 + width * height
        elif b == 0x12 and data[i + 1] == ord("*"):  # DC2 * r n
            if rest < 4:
                return None
            size = 4 + data[i + 2] * data[i + 3]
        elif b == 0x10 and data[i + 1] == 0x04:  # DLE EOT n
            size = 3
        else:
            size = 0
        return None if rest < size else size

    def _parse(self) -> None:
        data = self.data
        feed_s = self.feed_time_ms / 1000
        while self._parsed < len(data):
            i = self._parsed
            size = self._length(i)
            if size is None:
                return  # wait for the rest of the command
            if size == 0:
                self.unknown.append(i)
                self._parsed = i + 1
                continue
            last = i + size - 1
            b, op = data[i], data[i + 1]
            if b == 0x1B and op in (ord("J"), ord("d")):
                n = data[i + 2]
                # ESC J feeds n dots; ESC d feeds n lines of the default 30 dots.
                fed = n if op == ord("J") else 30 * n
                self.rows.extend([b""] * fed)
                self.fed_rows += fed
                self._command(i, last, fed * feed_s)
            elif b == 0x1D:
                width = int.from_bytes(data[i + 4 : i + 6], "little")
                height = int.from_bytes(data[i + 6 : i + 8], "little")
                self._picture(bytes(data[i + 8 : i + size]), width, height)
                self._raster(i, 8, width, height)
            elif b == 0x12:
                height, width = data[i + 2], data[i + 3]
                self._picture(bytes(data[i + 4 : i + size]), width, height)
                self._raster(i, 4, width, height)
            else:
                self._command(i, last)
                if b == 0x1B and op == ord("@"):
                    self.job_starts.append(len(self.rows))
                if b == 0x1B and op == ord("v"):
                    self._reply(0x00 if self.paper else 0x04)
                elif b == 0x10:
                    n = data[i + 2]
                    if n == 1:
                        self._reply(0x12 if self.online else 0x1A)
                    elif n == 4:
                        self._reply(0x12 if self.paper else 0x72)
                    else:
                        self._reply(0x12)
            self._parsed = i + size

    def _picture(self, body: bytes, width: int, height: int) -> None:
        for r in range(height):
            self.rows.append(body[r * width : (r + 1) * width])
        self.printed_rows += height

    def _reply(self, byte: int) -> None:
        if self.answers_status:
            self._replies.append(byte)
