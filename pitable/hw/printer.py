"""The thermal printer: python-escpos over pyserial, paced to what the mechanism prints.

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

A print runs in the background on a :class:`PrintSpooler`: the caller (the box's rolling
loop) is never blocked, each job's state is reported, and a failed job can be retried.

Hardware libraries (pyserial, python-escpos, gpiozero) are imported where they are used,
so that this module imports anywhere.
"""

from __future__ import annotations

import contextlib
import enum
import itertools
import logging
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Protocol

from pitable.config import PrinterConfig
from pitable.errors import (
    ConfigError,
    MissingDependency,
    PaperOut,
    PitableError,
    PrinterError,
    PrinterOffline,
    PrinterTimeout,
)

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

ESC = b"\x1b"
GS = b"\x1d"
DC2 = b"\x12"
DLE_EOT = b"\x10\x04"
INIT = ESC + b"@"
#: Dots a millimetre on every printer of the kind (203 dpi).
DOTS_PER_MM = 8
PAPER_DOTS = {58: 384, 80: 576}
IMAGE_COMMANDS = ("gsv0", "dc2")
#: A band of picture holds at most this many bytes.
BAND_BYTES = 512
#: The most bytes the pacing lets sit in the printer: four bands and their feeds. The
#: printers of the kind buffer several kilobytes; the fake printer's default is 4 KB.
WINDOW_BYTES = 4 * BAND_BYTES + 64
#: Serial framing: a start bit, 8 data bits, a stop bit.
BITS_PER_BYTE = 10
#: How long to wait for a status reply; printers that never reply cost this much per query.
STATUS_WAIT_S = 0.3


@dataclass(frozen=True)
class PrinterSettings:
    """How the thermal printer is connected and how fast it prints (the ``[printer]`` table).

    - ``port``: a device path (``/dev/serial0``, ``/dev/ttyUSB0``) or any pyserial URL
      (``socket://printer.local:9100``, ``socket://127.0.0.1:9100`` for a capture,
      ``loop://``).
    - ``baudrate``: 19200 for most units; 9600 for some (printed on their self-test page).
    - ``paper_width_mm``: 58 (384 dots printable) or 80 (576 dots).
    - ``image_command``: ``gsv0`` (ESC/POS ``GS v 0`` raster) or ``dc2`` (``DC2 *``
      bitmaps, for the Adafruit/CSN-A2 family).
    - ``line_time_ms``: how long the mechanism takes for one printed dot row (about 30).
    - ``feed_time_ms``: how long it takes to feed one blank dot row (about 2).
    - ``dtr_busy_pin``: the BCM GPIO wired to the printer's DTR busy output (4 on the
      reference wiring), or none: then writes are paced by the two times above.
    - ``timeout_s``: a write, or the busy line, that hangs this long fails the print.
    - ``heat_dots``, ``heat_time``, ``heat_interval``: the ``ESC 7`` heating parameters
      sent to ``dc2`` printers (Adafruit's defaults: 11, 120, 40); darker with a longer
      heat time, faster with more heating dots.
    - ``tear_feed_mm``: paper fed after a sheet, so that it clears the tear bar.
    """

    # The defaults the config file also has come from its [printer] table, so the two
    # cannot drift apart.
    port: str = PrinterConfig.port
    baudrate: int = PrinterConfig.baudrate
    paper_width_mm: int = PrinterConfig.paper_width_mm
    image_command: str = PrinterConfig.image_command
    line_time_ms: float = PrinterConfig.line_time_ms
    feed_time_ms: float = PrinterConfig.feed_time_ms
    dtr_busy_pin: int | None = None
    timeout_s: float = PrinterConfig.timeout_s
    heat_dots: int = 11
    heat_time: int = 120
    heat_interval: int = 40
    tear_feed_mm: float = 12.0

    def __post_init__(self) -> None:
        def bad(name: str, why: str) -> ConfigError:
            value = getattr(self, name)
            return ConfigError(f"printer.{name} = {value!r}: {why}")

        if not self.port.strip():
            raise bad("port", "expected a device path or a pyserial URL")
        if self.baudrate <= 0:
            raise bad("baudrate", "expected a positive number, such as 19200 or 9600")
        if self.paper_width_mm not in PAPER_DOTS:
            raise bad("paper_width_mm", "expected 58 or 80")
        if self.image_command not in IMAGE_COMMANDS:
            raise bad("image_command", f"expected one of {', '.join(IMAGE_COMMANDS)}")
        for name in ("line_time_ms", "feed_time_ms", "tear_feed_mm"):
            if getattr(self, name) < 0:
                raise bad(name, "expected 0 or more")
        if self.timeout_s <= 0:
            raise bad("timeout_s", "expected a positive number of seconds")
        for name in ("heat_dots", "heat_time", "heat_interval"):
            if not 0 <= getattr(self, name) <= 255:
                raise bad(name, "expected 0 to 255")
        if self.dtr_busy_pin is not None and not 0 <= self.dtr_busy_pin <= 27:
            raise bad("dtr_busy_pin", "expected a BCM GPIO number from 0 to 27")

    @property
    def dots(self) -> int:
        """The printable width in dots."""
        return PAPER_DOTS[self.paper_width_mm]

    @classmethod
    def field_names(cls) -> list[str]:
        return [f.name for f in fields(cls)]


# --- time and bytes ------------------------------------------------------------------


class Clock(Protocol):
    """Where the pacing reads the time and waits; a fake one makes tests instant."""

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class Transport(Protocol):
    """The printer's byte pipe. Raises :class:`PrinterError` subclasses, nothing else."""

    def write(self, data: bytes) -> None: ...

    def read(self, size: int, timeout: float) -> bytes: ...

    def discard_input(self) -> None: ...

    def close(self) -> None: ...


class SerialTransport:
    """A pyserial port or URL; pyserial's errors become the printer's own."""

    def __init__(self, settings: PrinterSettings) -> None:
        try:
            import serial
        except ImportError:
            raise MissingDependency(
                "printing needs pyserial and python-escpos: pip install 'pitable[pi]'"
            ) from None
        self.port = settings.port
        self._serial_module = serial
        try:
            self._serial = serial.serial_for_url(
                settings.port,
                baudrate=settings.baudrate,
                timeout=STATUS_WAIT_S,
                write_timeout=settings.timeout_s,
            )
        except (serial.SerialException, ValueError, OSError) as exc:
            # pyserial's message already holds the port and the OS error with its errno:
            # the OS error's own words, once, are the reason.
            reason = (os.strerror(exc.errno) if isinstance(exc, OSError) and exc.errno
                      else str(exc))
            raise PrinterOffline(f"cannot open printer port {settings.port}: {reason}") from None

    def write(self, data: bytes) -> None:
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

    def close(self) -> None:
        self._serial.close()


def open_transport(settings: PrinterSettings) -> SerialTransport:
    return SerialTransport(settings)


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


class _Link:
    """A python-escpos printer whose raw writes go through the pacing and the transport."""

    def __init__(self, write: Callable[[bytes], None], transport: Transport) -> None:
        try:
            from escpos.escpos import Escpos
        except ImportError:
            raise MissingDependency(
                "printing needs python-escpos: pip install 'pitable[pi]'"
            ) from None

        class Link(Escpos):
            def _raw(self, msg: bytes) -> None:
                write(msg)

            def _read(self) -> bytes:
                return transport.read(1, STATUS_WAIT_S)

        self.escpos = Link()


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
        self._link: _Link | None = None
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
            self._link = None

    # --- status -----------------------------------------------------------------

    def status(self) -> PrinterStatus:
        """Ask the printer whether it is online and has paper, where it answers.

        ESC/POS units answer ``DLE EOT 1`` and ``DLE EOT 4`` (python-escpos's
        ``query_status``); the ``dc2`` family answers ``ESC v 0``. A reply that is not a
        status byte (the echo of a ``loop://`` port, noise) counts as no answer.
        """
        transport = self.transport
        transport.discard_input()
        if self.settings.image_command == "dc2":
            self._write(ESC + b"v\x00")
            reply = transport.read(1, STATUS_WAIT_S)
            # Bit 2 set: no paper. The reply has no fixed bits to check it against.
            paper = None if len(reply) != 1 else not reply[0] & 0x04
            return PrinterStatus(online=None, paper=paper)
        from escpos.constants import RT_STATUS_ONLINE, RT_STATUS_PAPER

        if self._link is None:
            self._link = _Link(self._write, transport)
        online_reply = self._link.escpos.query_status(RT_STATUS_ONLINE)
        paper_reply = self._link.escpos.query_status(RT_STATUS_PAPER)
        online = not online_reply[0] & 0x08 if _is_status(online_reply) else None
        # Bits 5 and 6: the paper-end sensor (python-escpos's RT_MASK_NOPAPER).
        paper = (paper_reply[0] & 0x60) != 0x60 if _is_status(paper_reply) else None
        return PrinterStatus(online=online, paper=paper)

    def check(self) -> PrinterStatus:
        """Raise :class:`PaperOut` or :class:`PrinterOffline` when the printer says so."""
        status = self.status()
        if status.online is False:
            raise PrinterOffline(f"printer on {self.settings.port} is offline")
        if status.paper is False:
            raise PaperOut(f"printer on {self.settings.port} is out of paper")
        return status

    # --- printing -----------------------------------------------------------------

    def print_image(self, image: Image.Image) -> PrintReport:
        """Print ``image`` (at most the paper's width in dots); returns when all is sent."""
        chunks = encode_image(image, self.settings)
        self.check()
        return self.send(chunks)

    def send(self, chunks: list[Chunk]) -> PrintReport:
        """Write ``chunks`` paced by the busy line, or else by the model."""
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


# --- the background queue ------------------------------------------------------------


class JobState(enum.Enum):
    QUEUED = "queued"
    PRINTING = "printing"
    DONE = "done"
    FAILED = "failed"


class ImagePrinter(Protocol):
    def print_image(self, image: Image.Image) -> PrintReport: ...


@dataclass(frozen=True)
class JobStatus:
    """A print job as the menu shows it."""

    id: int
    name: str
    state: JobState
    #: Why it failed, in a few words: "paper out", "offline", "timed out".
    reason: str | None = None
    #: The printer's own message for a failure.
    detail: str | None = None
    attempts: int = 0
    report: PrintReport | None = None

    @property
    def finished(self) -> bool:
        return self.state in (JobState.DONE, JobState.FAILED)

    def __str__(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        return f"print {self.id} ({self.name}) {self.state.value}{why}"


def failure_reason(exc: BaseException) -> str:
    if isinstance(exc, PaperOut):
        return "paper out"
    if isinstance(exc, PrinterTimeout):
        return "timed out"
    if isinstance(exc, PrinterOffline):
        return "offline"
    if isinstance(exc, PitableError):
        return "printer error"
    return "failed"


@dataclass
class _Job:
    status: JobStatus
    image: Any = field(repr=False)


class PrintSpooler:
    """Prints jobs one after the other on a thread of its own.

    :meth:`submit` and :meth:`retry` never wait for the printer: they queue the job and
    return its status at once. ``on_change`` is called from the spooler's thread with each
    new status (queued, printing, done, failed); it must not block, and the box passes one
    that puts an event on its queue. A failed job keeps its picture, so :meth:`retry`
    prints it again.
    """

    def __init__(
        self,
        printer: ImagePrinter,
        *,
        on_change: Callable[[JobStatus], None] | None = None,
    ) -> None:
        self.printer = printer
        self.on_change = on_change
        self._jobs: dict[int, _Job] = {}
        self._ids = itertools.count(1)
        self._queue: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="pitable-printer", daemon=True)
        self._closed = False
        self._thread.start()

    def submit(self, image: Image.Image, name: str = "sheet") -> JobStatus:
        with self._changed:
            if self._closed:
                raise PrinterError("the print queue is closed")
            status = JobStatus(next(self._ids), name, JobState.QUEUED)
            self._jobs[status.id] = _Job(status, image)
        self._queue.put(status.id)
        self._notify(status)
        return status

    def retry(self, job_id: int) -> JobStatus:
        """Queue a failed job again."""
        with self._changed:
            job = self._job(job_id)
            if job.status.state is not JobState.FAILED:
                raise PrinterError(f"print {job_id} is {job.status.state.value}, not failed")
            status = JobStatus(
                job_id, job.status.name, JobState.QUEUED, attempts=job.status.attempts
            )
            job.status = status
        self._queue.put(job_id)
        self._notify(status)
        return status

    def status(self, job_id: int) -> JobStatus:
        with self._changed:
            return self._job(job_id).status

    def jobs(self) -> list[JobStatus]:
        with self._changed:
            return [j.status for j in self._jobs.values()]

    def failed(self) -> list[JobStatus]:
        return [s for s in self.jobs() if s.state is JobState.FAILED]

    def wait(self, job_id: int, timeout: float | None = None) -> JobStatus:
        """Block until the job is done or failed (for the command line and tests)."""
        with self._changed:
            self._changed.wait_for(lambda: self._job(job_id).status.finished, timeout)
            return self._job(job_id).status

    def close(self, timeout: float | None = None) -> None:
        """Stop taking jobs; the thread ends after the job it is printing, if any."""
        with self._changed:
            self._closed = True
        self._queue.put(None)
        self._thread.join(timeout)

    def _job(self, job_id: int) -> _Job:
        try:
            return self._jobs[job_id]
        except KeyError:
            raise PrinterError(f"no print job {job_id}") from None

    def _set(self, job_id: int, **changes: Any) -> None:
        with self._changed:
            job = self._jobs[job_id]
            old = job.status
            job.status = JobStatus(
                old.id,
                old.name,
                changes.get("state", old.state),
                changes.get("reason"),
                changes.get("detail"),
                changes.get("attempts", old.attempts),
                changes.get("report"),
            )
            status = job.status
            self._changed.notify_all()
        self._notify(status)

    def _notify(self, status: JobStatus) -> None:
        if self.on_change is None:
            return
        try:
            self.on_change(status)
        except Exception:
            log.exception("print status callback failed")

    def _run(self) -> None:
        while True:
            job_id = self._queue.get()
            if job_id is None:
                return
            with self._changed:
                job = self._jobs[job_id]
                attempts = job.status.attempts + 1
            self._set(job_id, state=JobState.PRINTING, attempts=attempts)
            try:
                report = self.printer.print_image(job.image)
            except Exception as exc:
                # The thread must outlive any failure: the box keeps printing later jobs.
                reason = failure_reason(exc)
                if not isinstance(exc, PitableError):
                    log.exception("print %d failed", job_id)
                else:
                    # Reported through the job's status; the log keeps the detail.
                    log.info("print %d failed: %s", job_id, exc)
                self._set(
                    job_id, state=JobState.FAILED, reason=reason, detail=str(exc), attempts=attempts
                )
            else:
                self._set(job_id, state=JobState.DONE, attempts=attempts, report=report)
