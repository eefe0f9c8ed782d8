"""A sheet is printed when the printer has taken it: bytes left in the port's buffers by a
printer that reads nothing fail the print, on the command line and on the box's screen."""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from pitable.box.backends import printer_settings
from pitable.box.printing import BoxPrinter
from pitable.config import DEFAULTS
from pitable.errors import JobNotTaken
from pitable.hw.clock import FakeClock
from pitable.hw.fake_printer import FakePrinter
from pitable.hw.printer import PrinterSettings, ThermalPrinter, open_transport
from pitable.i18n import translator
from tests.conftest import run_cli as run
from tests.support.box import make

#: The listener's receive buffer: far smaller than a job, so most of the job stays unsent.
SMALL_BUFFER = 4096


@contextlib.contextmanager
def listener(reads: bool) -> Iterator[tuple[int, bytearray]]:
    """A TCP port on 127.0.0.1 that accepts one connection and reads it all (``reads``) or
    never reads a byte; yields its port and what it read."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(10)
    received = bytearray()
    done = threading.Event()

    def serve() -> None:
        with contextlib.suppress(OSError):
            conn, _ = server.accept()
            with conn:
                while reads and (chunk := conn.recv(65536)):
                    received.extend(chunk)
                done.wait(10)  # holds the connection open, unread, until the test ends

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], received
    finally:
        done.set()
        server.close()
        thread.join(10)


def settings(port: int) -> PrinterSettings:
    # No pacing: the job goes out as fast as the socket takes it; a short write deadline.
    return PrinterSettings(port=f"socket://127.0.0.1:{port}", baudrate=1_000_000_000,
                           line_time_ms=0, feed_time_ms=0, timeout_s=0.5)


def dense_picture(rows: int = 800) -> Image.Image:
    """A picture of ``rows`` inked rows: 48 bytes a row on 58 mm paper, about 38 kB."""
    return Image.new("1", (PrinterSettings().dots, rows), 0)


def test_a_printer_that_reads_nothing_fails_the_print() -> None:
    with listener(reads=False) as (port, _):
        printer = ThermalPrinter(settings(port))
        try:
            with pytest.raises(JobNotTaken, match="not taking the job") as failed:
                printer.print_image(dense_picture())
        finally:
            printer.close()
    assert f"socket://127.0.0.1:{port}" in str(failed.value)


def test_a_printer_that_reads_everything_has_printed_it() -> None:
    with listener(reads=True) as (port, received):
        printer = ThermalPrinter(settings(port))
        try:
            report = printer.print_image(dense_picture())
        finally:
            printer.close()
    # Everything was taken before the print counted as done (the status queries too).
    assert report.bytes_sent <= len(received)


def test_a_drained_socket_waits_for_a_slow_reader() -> None:
    """drain() returns only once the queue is empty: the reader's bytes all arrive."""
    with listener(reads=True) as (port, received):
        transport = open_transport(settings(port))
        try:
            transport.write(b"x" * 200_000)
            transport.drain(10.0)
            pending = transport._pending_bytes()
            assert pending is not None and pending() == 0
        finally:
            transport.close()
    assert len(received) == 200_000


def test_print_says_so_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "pitable.toml"
    config.write_text("[printer]\ntimeout_s = 0.5\n")
    with listener(reads=False) as (port, _):
        code, out, err = run(
            capsys, "--config", str(config), "print", "valley", "--seed", "7",
            "--port", f"socket://127.0.0.1:{port}", "--baud", "1000000000",
            "--line-time-ms", "0", "--feed-time-ms", "0",
        )
    assert code == 1
    assert out == ""
    assert "not taking the job" in err and len(err.strip().splitlines()) == 1


def test_the_fake_printer_that_reads_nothing_fails_its_drain() -> None:
    clock = FakeClock()
    fake = FakePrinter(clock=clock, reads=False)
    printer = ThermalPrinter(PrinterSettings(timeout_s=2.0), transport=fake, clock=clock)
    with pytest.raises(JobNotTaken):
        printer.print_image(dense_picture(50))
    assert fake.unsent > 0 and not fake.rows  # nothing came out


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_the_box_shows_the_printer_that_reads_nothing(lang: str) -> None:
    settings_ = DEFAULTS.printer
    clock = FakeClock()
    fake = FakePrinter(dots=settings_.dots, clock=clock, reads=False)
    driver = ThermalPrinter(printer_settings(settings_), transport=fake, clock=clock)
    printer = BoxPrinter(driver, settings_)
    config = dataclasses.replace(DEFAULTS, box=dataclasses.replace(DEFAULTS.box, language=lang))
    sim = make("1,1,1", "2,2,2", printer=printer, config=config)
    try:
        sim.press()
        sim.hold()
        sim.turn(+2)
        sim.push()  # One more sheet
        sim.wait_for_prints()
        _ = translator(lang).gettext
        reason = _("not reading")
        assert lang == "en" or reason != "not reading"  # translated
        assert sim.box.view().message == _("Print failed ({reason}): hold ROLL to retry").format(
            reason=reason)
        assert _("printer: {reason}").format(reason=reason) in sim.box.notices()
        # The box rolls on, and the sheet prints once the printer reads.
        fake.reads = True
        sim.hold()
        labels = [label for label, _ in sim.box.menu[-1].items]
        sim.turn(labels.index(_("Retry the print")) - labels.index(labels[0]))
        sim.push()
        sim.wait_for_prints()
        message = sim.box.view().message
        assert message is not None and message.startswith(_("Printed: {sheets}").split("{")[0])
    finally:
        sim.close()
