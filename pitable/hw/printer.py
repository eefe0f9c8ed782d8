"""The thermal printer: ESC/POS over pyserial, paced to what the mechanism prints.

The cheap serial thermal printers (the CSN-A2 family that Adafruit sells, and the many
ESC/POS units like it) have no flow control worth the name: bytes sent faster than the
head prints them overflow a small input buffer and the picture comes out torn. So the
picture is cut into bands of at most half a kilobyte (:func:`encode_image`), blank rows are sent
as paper feed (``ESC J``: about 2 ms a row instead of about 30 ms for a printed row), and
each band is written only once enough of what went before has printed, by the pacing model
(``line_time_ms`` per printed dot row, ``feed_time_ms`` per fed row, the bytes' time on
the wire at ``baudrate``), so that at most about 2 KB (:data:`WINDOW_BYTES`) sit in the
printer at once. Where the
printer's DTR busy line is wired to a GPIO, it gates the writes instead of the model.

This module only encodes and sends; the queue that runs prints in the background lives
with the box (:mod:`pitable.box.printing`). It takes its settings as plain values, one
:class:`PrinterSettings`; the box makes them from the config's ``[printer]`` table.

Hardware libraries (pyserial, gpiozero) are imported where they are used, so that this
module imports anywhere.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from pitable.errors import (
    JobNotTaken,
    MissingDependency,
    PaperOut,
    PrinterError,
    PrinterOffline,
    PrinterTimeout,
)
from pitable.hw.chips import PAPER_DOTS
from pitable.hw.clock import Clock, MonotonicClock

if TYPE_CHECKING:
    from PIL import Image

T = TypeVar("T")

ESC = b"\x1b"
GS = b"\x1d"
DC2 = b"\x12"
DLE_EOT = b"\x10\x04"
#: ESC/POS real-time status requests, ``DLE EOT n``: n = 1 asks for the printer status
#: (bit 3 set: offline), n = 4 for the paper roll sensor (bits 5 and 6 set: paper end).
#: The printer answers each with one byte that has bits 1 and 4 set and bits 0 and 7
#: clear, even in the middle of a job. (python-escpos's ``query_status`` sends the same
#: bytes; only these two bytes were ever needed from it.)
STATUS_ONLINE = DLE_EOT + b"\x01"
STATUS_PAPER = DLE_EOT + b"\x04"
OFFLINE_BIT = 0x08
PAPER_END_BITS = 0x60
#: ``ESC v 0``: the dc2 family's status request; bit 2 of the reply set means no paper.
STATUS_DC2 = ESC + b"v\x00"
INIT = ESC + b"@"
#: Dots a millimetre on every printer of the kind (203 dpi).
DOTS_PER_MM = 8
#: A band of picture holds at most this many bytes.
BAND_BYTES = 512
#: The most bytes the pacing lets sit in the printer: four bands and their feeds. The
#: printers of the kind buffer several kilobytes; the fake printer's default is 4 KB.
WINDOW_BYTES = 4 * BAND_BYTES + 64
#: Serial framing: a start bit, 8 data bits, a stop bit.
BITS_PER_BYTE = 10
#: How long to wait for a status reply; printers that never reply cost this much per query.
STATUS_WAIT_S = 0.3
#: pyserial's ``loop://`` sends every byte written back into a queue of 4096 bytes, and a
#: write into a full queue fails (``queue.Full``) once the write timeout has passed: a
#: loopback port is written this many bytes at a time, its echo discarded after each. Small
#: enough too for the loopback's own check that a write fits its timeout at 9600 baud.
LOOP_SLICE = 256
#: How often a drain asks the port how much of the job is still waiting to be sent.
DRAIN_POLL_S = 0.05


@dataclass(frozen=True)
class PrinterSettings:
    """How to reach the printer and what its mechanism does; the defaults are those of the
    cheap 58 mm serial units."""

    #: A serial device or a pyserial URL (``socket://host:9100``, ``loop://``).
    port: str = "/dev/serial0"
    baudrate: int = 19200
    #: The paper roll's width: 58 or 80 (:data:`~pitable.hw.chips.PAPER_DOTS`).
    paper_width_mm: int = 58
    #: ``"gsv0"`` (ESC/POS ``GS v 0`` raster) or ``"dc2"`` (``DC2 *`` bitmaps).
    image_command: str = "gsv0"
    #: What the mechanism takes per printed dot row, and per dot row fed.
    line_time_ms: float = 30.0
    feed_time_ms: float = 2.0
    #: The GPIO of the printer's DTR busy line; None: writes are paced by the two times.
    dtr_busy_pin: int | None = None
    #: A write, or the busy line, that hangs this long fails the print.
    timeout_s: float = 5.0
    #: ``ESC 7`` for the dc2 family: heating dots, time and interval.
    heat_dots: int = 11
    heat_time: int = 120
    heat_interval: int = 40
    #: Paper fed after a picture, so that it clears the tear bar.
    tear_feed_mm: float = 12.0

    @property
    def dots(self) -> int:
        """The printable width in dots."""
        return PAPER_DOTS[self.paper_width_mm]


# --- time and bytes ------------------------------------------------------------------


class Transport(Protocol):
    """The printer's byte pipe. Raises :class:`PrinterError` subclasses, nothing else."""

    def write(self, data: bytes) -> None: ...

    def read(self, size: int, timeout: float) -> bytes: ...

    def discard_input(self) -> None: ...

    def drain(self, timeout: float) -> None:
        """Return once the printer has taken every byte written; raise
        :class:`~pitable.errors.JobNotTaken` when it has not within ``timeout`` seconds."""
        ...

    def close(self) -> None: ...


class SerialTransport:
    """A pyserial port or URL; pyserial's errors become the printer's own."""

    def __init__(self, port: str, *, baudrate: int = 19200, write_timeout: float = 5.0) -> None:
        try:
            import serial
        except ImportError:
            raise MissingDependency(
                "printing needs pyserial: pip install 'pitable[pi]'"
            ) from None
        self.port = port
        self._serial_module = serial
        self._echoes = port.lower().startswith("loop://")
        try:
            self._serial = serial.serial_for_url(
                port,
                baudrate=baudrate,
                timeout=STATUS_WAIT_S,
                write_timeout=write_timeout,
            )
        except (serial.SerialException, ValueError, OSError) as exc:
            raise PrinterOffline(
                f"cannot open printer port {port}: {_open_failure(exc, port)}"
            ) from None

    def write(self, data: bytes) -> None:
        if not self._echoes:
            self._write(data)
            return
        for start in range(0, len(data), LOOP_SLICE):
            self._write(data[start : start + LOOP_SLICE])
            self.discard_input()

    def _write(self, data: bytes) -> None:
        serial = self._serial_module
        try:
            self._serial.write(data)
        except serial.SerialTimeoutException:
            raise PrinterTimeout(f"timed out writing to printer port {self.port}") from None
        except (serial.SerialException, OSError) as exc:
            raise PrinterOffline(f"printer port {self.port}: {exc}") from None

    def read(self, size: int, timeout: float) -> bytes:
        try:
            self._serial.timeout = timeout
            return bytes(self._serial.read(size))
        except (self._serial_module.SerialException, OSError) as exc:
            raise PrinterOffline(f"printer port {self.port}: {exc}") from None

    def discard_input(self) -> None:
        with contextlib.suppress(self._serial_module.SerialException, OSError):
            self._serial.reset_input_buffer()

    def drain(self, timeout: float) -> None:
        """Wait, at most ``timeout`` seconds, until the port has sent every byte written.

        A write only hands the bytes to the kernel: a network printer that reads nothing
        leaves them in the socket's send queue, a UART sends them at its baud rate. So the
        queue is asked how much it still holds (``SIOCOUTQ`` on a socket: bytes the other
        end has not yet acknowledged; ``TIOCOUTQ`` on a serial port) until it is empty,
        and a serial port is then flushed (``tcdrain``) for its last byte. A port with no
        queue to ask (``loop://``) is flushed.
        """
        pending = self._pending_bytes()
        if pending is None:
            self._ask(self._serial.flush)
            return
        deadline = time.monotonic() + timeout
        left = self._ask(pending)
        while left > 0:
            now = time.monotonic()
            if now >= deadline:
                raise JobNotTaken(
                    f"the printer on {self.port} is not taking the job: {left:,} bytes"
                    f" still waiting to be sent {timeout:.1f} s after the last was written"
                )
            time.sleep(min(DRAIN_POLL_S, deadline - now))
            left = self._ask(pending)
        if getattr(self._serial, "fd", None) is not None:
            self._ask(self._serial.flush)

    def _ask(self, call: Callable[[], T]) -> T:
        """``call()``, with pyserial's and the OS's errors made the printer's own."""
        try:
            return call()
        except (self._serial_module.SerialException, OSError) as exc:
            raise PrinterOffline(f"printer port {self.port}: {exc}") from None

    def _pending_bytes(self) -> Callable[[], int] | None:
        """What asks the port how many written bytes it has not sent; None where nothing
        can (not Linux, or a URL handler without a queue of its own)."""
        import termios

        request = getattr(termios, "TIOCOUTQ", None)
        # pyserial's socket:// and rfc2217:// handlers keep their socket in ``_socket``:
        # the one way to reach the queue that tells whether the printer took the job.
        sock = getattr(self._serial, "_socket", None)
        if sock is not None and request is not None:
            import fcntl
            import struct

            # On Linux SIOCOUTQ is TIOCOUTQ's number; the socket module does not name it.
            def unsent() -> int:
                answer = fcntl.ioctl(sock.fileno(), request, struct.pack("i", 0))
                return int(struct.unpack("i", answer)[0])

            return unsent
        if getattr(self._serial, "fd", None) is not None:
            return lambda: int(self._serial.out_waiting)
        return None

    def close(self) -> None:
        self._serial.close()


def _open_failure(exc: Exception, port: str) -> str:
    """Why pyserial could not open ``port``, in its own words, once."""
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno)
    reason = str(exc)
    # The URL handlers say "Could not open port socket://...: [Errno 111] Connection
    # refused"; the port is already named.
    reason = reason.removeprefix(f"Could not open port {port}: ")
    if reason == "timed out":
        return "nobody answered (timed out)"
    return reason


def open_transport(settings: PrinterSettings) -> SerialTransport:
    return SerialTransport(settings.port, baudrate=settings.baudrate,
                           write_timeout=settings.timeout_s)


def gpio_busy_line(pin: int) -> Callable[[], bool]:
    """The printer's DTR busy output on a GPIO: high while the printer cannot take data."""
    try:
        from gpiozero import DigitalInputDevice
    except ImportError:
        raise MissingDependency(
            "printer.dtr_busy_pin needs gpiozero: pip install 'pitable[pi]'"
        ) from None
    device = DigitalInputDevice(pin, pull_up=None, active_state=True)
    return lambda: bool(device.value)


# --- encoding ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """Bytes written in one go, and what they make the mechanism do."""

    data: bytes
    printed_rows: int = 0
    fed_rows: int = 0

    def mechanism_s(self, settings: PrinterSettings) -> float:
        return (
            self.printed_rows * settings.line_time_ms + self.fed_rows * settings.feed_time_ms
        ) / 1000


#: Pillow's 1-bit rows hold 1 for white; ESC/POS wants 1 for ink.
INVERT = bytes(255 - b for b in range(256))


def raster_rows(image: Image.Image) -> list[bytes]:
    """The picture's rows as ESC/POS wants them: 8 dots a byte, 1 for ink, left first."""
    mono = image.convert("1")
    data = mono.tobytes().translate(INVERT)
    stride = (mono.width + 7) // 8
    pad = stride * 8 - mono.width
    rows = [data[r * stride : (r + 1) * stride] for r in range(mono.height)]
    if pad:
        # The bits past the picture's right edge are padding, not ink.
        mask = (0xFF << pad) & 0xFF
        rows = [row[:-1] + bytes([row[-1] & mask]) for row in rows]
    return rows


def feed(rows: int) -> list[Chunk]:
    """``ESC J n``: feed ``rows`` dot rows, 255 at most a command."""
    out = []
    while rows > 0:
        n = min(rows, 255)
        out.append(Chunk(ESC + b"J" + bytes([n]), fed_rows=n))
        rows -= n
    return out


def encode_image(image: Image.Image, settings: PrinterSettings) -> list[Chunk]:
    """The whole print job for ``image``: set-up, bands of picture and feeds, tear-off feed.

    Runs of blank rows become paper feed; each band of printed rows is cut at its last
    byte that holds ink on the right (both commands print left-aligned), and holds at most
    :data:`BAND_BYTES` bytes.
    """
    if image.width > settings.dots:
        raise PrinterError(
            f"the picture is {image.width} dots wide; {settings.paper_width_mm} mm paper"
            f" prints {settings.dots}"
        )
    rows = raster_rows(image)
    chunks = [Chunk(INIT)]
    if settings.image_command == "dc2":
        heat = bytes([settings.heat_dots, settings.heat_time, settings.heat_interval])
        chunks.append(Chunk(ESC + b"7" + heat))
    full = (settings.dots + 7) // 8
    band_rows = max(1, min(255, BAND_BYTES // full))
    r = 0
    while r < len(rows):
        if not any(rows[r]):
            start = r
            while r < len(rows) and not any(rows[r]):
                r += 1
            chunks.extend(feed(r - start))
            continue
        band: list[bytes] = []
        while r < len(rows) and any(rows[r]) and len(band) < band_rows:
            band.append(rows[r])
            r += 1
        chunks.append(_band(band, settings.image_command))
    chunks.extend(feed(round(settings.tear_feed_mm * DOTS_PER_MM)))
    return chunks


def _band(band: list[bytes], command: str) -> Chunk:
    width = max(len(row.rstrip(b"\x00")) for row in band)
    data = b"".join(row[:width] for row in band)
    height = len(band)
    if command == "dc2":
        header = DC2 + b"*" + bytes([height, width])
    else:
        header = GS + b"v0\x00" + width.to_bytes(2, "little") + height.to_bytes(2, "little")
    return Chunk(header + data, printed_rows=height)


# --- the printer ---------------------------------------------------------------------


@dataclass(frozen=True)
class PrinterStatus:
    """What the printer said about itself; None where it did not answer."""

    online: bool | None
    paper: bool | None


@dataclass(frozen=True)
class PrintReport:
    """One finished print: what was sent, and how long the pacing model says it took."""

    bytes_sent: int
    printed_rows: int
    fed_rows: int
    #: From the first byte written to the end of the last row, by the pacing model.
    model_s: float


class ThermalPrinter:
    """A serial thermal printer: status, and paced pictures.

    ``transport`` defaults to the port in ``settings``, opened at the first print;
    ``clock`` to the monotonic clock; ``busy`` to the DTR busy GPIO when
    ``settings.dtr_busy_pin`` is set, else to none (writes paced by the model).
    """

    def __init__(
        self,
        settings: PrinterSettings | None = None,
        *,
        transport: Transport | None = None,
        clock: Clock | None = None,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        self.settings = settings or PrinterSettings()
        self._transport = transport
        self.clock = clock or MonotonicClock()
        self._busy = busy
        #: When the UART will have sent everything written so far, by the model.
        self._wire_free = self.clock.now()

    @property
    def transport(self) -> Transport:
        if self._transport is None:
            self._transport = open_transport(self.settings)
        return self._transport

    @property
    def busy_line(self) -> Callable[[], bool] | None:
        if self._busy is None and self.settings.dtr_busy_pin is not None:
            self._busy = gpio_busy_line(self.settings.dtr_busy_pin)
        return self._busy

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    # --- status -----------------------------------------------------------------

    def status(self) -> PrinterStatus:
        """Ask the printer whether it is online and has paper, where it answers.

        ESC/POS units answer ``DLE EOT 1`` and ``DLE EOT 4``; the ``dc2`` family answers
        ``ESC v 0``. A reply that is not a status byte (the echo of a ``loop://`` port,
        noise) counts as no answer.
        """
        transport = self.transport
        transport.discard_input()
        if self.settings.image_command == "dc2":
            self._write(STATUS_DC2)
            reply = transport.read(1, STATUS_WAIT_S)
            # Bit 2 set: no paper. The reply has no fixed bits to check it against.
            paper = None if len(reply) != 1 else not reply[0] & 0x04
            return PrinterStatus(online=None, paper=paper)
        online_reply = self._query(STATUS_ONLINE)
        paper_reply = self._query(STATUS_PAPER)
        online = not online_reply[0] & OFFLINE_BIT if _is_status(online_reply) else None
        paper = (
            (paper_reply[0] & PAPER_END_BITS) != PAPER_END_BITS
            if _is_status(paper_reply)
            else None
        )
        return PrinterStatus(online=online, paper=paper)

    def _query(self, request: bytes) -> bytes:
        self._write(request)
        return self.transport.read(1, STATUS_WAIT_S)

    def check(self) -> PrinterStatus:
        """Raise :class:`PaperOut` or :class:`PrinterOffline` when the printer says so."""
        status = self.status()
        if status.online is False:
            raise PrinterOffline(f"printer on {self.settings.port} is offline")
        if status.paper is False:
            raise PaperOut(f"printer on {self.settings.port} is out of paper")
        return status

    # --- printing -----------------------------------------------------------------

    def print_image(self, image: Image.Image, *, copies: int = 1) -> PrintReport:
        """Print ``image`` (at most the paper's width in dots) ``copies`` times, back to
        back with the tear-off feed after each; returns when all is sent.

        The picture is encoded once and its bytes sent again for each copy, in one paced
        stream, so that a table's sheets come out without a pause between them.
        """
        if copies < 1:
            raise ValueError(f"copies must be 1 or more, not {copies}")
        chunks = encode_image(image, self.settings)
        self.check()
        return self.send(chunks * copies)

    def send(self, chunks: list[Chunk]) -> PrintReport:
        """Write ``chunks`` paced by the busy line, or else by the model; returns once the
        printer has taken them all (:class:`~pitable.errors.JobNotTaken` if it does not)."""
        settings = self.settings
        clock = self.clock
        busy = self.busy_line
        started = clock.now()
        finish = started  # when the mechanism finishes what was written so far, by the model
        in_flight: deque[tuple[float, int]] = deque()  # (finished by, bytes) per chunk
        for chunk in chunks:
            if busy is not None:
                self._wait_not_busy(busy)
            else:
                # Keep at most WINDOW_BYTES in the printer: wait for the oldest chunks to
                # be printed, by the model, until this one fits.
                held = sum(n for _, n in in_flight)
                while in_flight and held + len(chunk.data) > WINDOW_BYTES:
                    ready, size = in_flight.popleft()
                    clock.sleep(ready - clock.now())
                    held -= size
            now = clock.now()
            self._write(chunk.data)
            # The model lets a chunk print only once all of it is in: later than a printer
            # that prints rows as they come, so the estimate errs on the side of waiting.
            finish = max(self._wire_free, finish) + chunk.mechanism_s(settings)
            in_flight.append((finish, len(chunk.data)))
            while in_flight and in_flight[0][0] <= now:
                in_flight.popleft()
        # Printed once the printer has taken every byte: by the model's end of the job,
        # and the write timeout after it.
        self.transport.drain(max(0.0, finish - clock.now()) + settings.timeout_s)
        return PrintReport(
            bytes_sent=sum(len(c.data) for c in chunks),
            printed_rows=sum(c.printed_rows for c in chunks),
            fed_rows=sum(c.fed_rows for c in chunks),
            model_s=finish - started,
        )

    def _write(self, data: bytes) -> None:
        """Every byte goes through here, so that the model knows when the wire is free."""
        now = self.clock.now()
        self.transport.write(data)
        byte_s = BITS_PER_BYTE / self.settings.baudrate
        self._wire_free = max(self._wire_free, now) + len(data) * byte_s

    def _wait_not_busy(self, busy: Callable[[], bool]) -> None:
        deadline = self.clock.now() + self.settings.timeout_s
        while busy():
            if self.clock.now() >= deadline:
                raise PrinterTimeout(
                    f"the printer's busy line stayed high for {self.settings.timeout_s:g} s"
                )
            self.clock.sleep(0.001)


def _is_status(reply: bytes) -> bool:
    """A real-time status byte has bits 1 and 4 set and bits 0 and 7 clear."""
    return len(reply) == 1 and reply[0] & 0x93 == 0x12
