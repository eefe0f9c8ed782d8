"""The thermal printer on the fake: what comes out, the pacing, status, and the print queue."""

from __future__ import annotations

import dataclasses
import math
import socket
import threading
import time

import pytest
from PIL import Image

from pitable.box.backends import printer_settings
from pitable.box.printing import JobState, JobStatus, PrintSpooler
from pitable.config import DEFAULTS, PrinterConfig, loads_config, printer_config
from pitable.errors import ConfigError, PaperOut, PrinterError, PrinterOffline, PrinterTimeout
from pitable.hw.clock import FakeClock
from pitable.hw.fake_printer import FakePrinter
from pitable.hw.printer import (
    STATUS_ONLINE,
    STATUS_PAPER,
    WINDOW_BYTES,
    PrinterSettings,
    SerialTransport,
    ThermalPrinter,
    encode_image,
)
from pitable.render.sheet import blank_rows, render_sheet
from pitable.rules import Roll, Title, find_title
from pitable.rules.sheets import generate
from tests.support.pictures import same_picture

WAIT = 30  # seconds: only a bound on a hang; no test waits that long when it passes


def printer_on(fake: FakePrinter, **settings: object) -> ThermalPrinter:
    config = printer_config(DEFAULTS.printer, **settings)
    return ThermalPrinter(printer_settings(config), transport=fake, clock=fake.clock)


@pytest.mark.parametrize("command", ["gsv0", "dc2"])
def test_what_comes_out_is_the_rendered_sheet(title: Title, command: str) -> None:
    image = render_sheet(generate(title, 7))
    fake = FakePrinter()
    report = printer_on(fake, image_command=command).print_image(image)
    paper = fake.printout()
    assert same_picture(paper.crop((0, 0, image.width, image.height)), image)
    # After the sheet: blank paper to clear the tear bar, 12 mm of it.
    tail = paper.crop((0, image.height, paper.width, paper.height))
    assert tail.height == 12 * 8 and all(blank_rows(tail))
    assert fake.unknown == []
    # Everything sent was the job, but for the status queries before it.
    status_bytes = 3 if command == "dc2" else 6
    assert report.bytes_sent == len(fake.data) - status_bytes


def test_blank_rows_are_fed_not_printed(title: Title) -> None:
    image = render_sheet(generate(title, 7))
    blanks = sum(blank_rows(image))
    fake = FakePrinter()
    printer_on(fake).print_image(image)
    assert fake.printed_rows == image.height - blanks
    assert fake.fed_rows == blanks + 12 * 8
    # Far fewer bytes than the picture's 48 bytes a row.
    assert len(fake.data) < 0.7 * 48 * image.height


@pytest.mark.parametrize(("paper_mm", "dots"), [(58, 384), (80, 576)])
def test_a_tables_copies_come_out_back_to_back_as_one_picture_each(
    paper_mm: int, dots: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pitable.hw.printer as printer_module

    encodings = []
    real_encode = printer_module.encode_image

    def counting(*args: object, **kwargs: object) -> object:
        encodings.append(1)
        return real_encode(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(printer_module, "encode_image", counting)
    image = render_sheet(generate("valley", 7), dots)
    fake = FakePrinter(dots=dots, buffer_bytes=WINDOW_BYTES)
    report = printer_on(fake, paper_width_mm=paper_mm).print_image(image, copies=6)
    sheets = fake.printouts()
    assert len(sheets) == 6
    for sheet in sheets:
        # Each copy is the sheet, then the tear-off feed before the next one.
        assert same_picture(sheet.crop((0, 0, dots, image.height)), image)
        assert sheet.height == image.height + 12 * 8
    assert len(encodings) == 1
    single = FakePrinter(dots=dots)
    printer_on(single, paper_width_mm=paper_mm).print_image(image)
    assert report.bytes_sent == 6 * (len(single.data) - 6)
    assert not fake.overran


def test_copies_must_be_one_or_more() -> None:
    with pytest.raises(ValueError, match="copies"):
        printer_on(FakePrinter()).print_image(render_sheet(generate("temple", 1)), copies=0)


def test_a_picture_on_80_mm_paper() -> None:
    image = render_sheet(generate("island", 2), 576)
    fake = FakePrinter(dots=576)
    printer_on(fake, paper_width_mm=80).print_image(image)
    assert same_picture(fake.printout().crop((0, 0, 576, image.height)), image)


def test_a_picture_wider_than_the_paper_is_refused() -> None:
    with pytest.raises(PrinterError, match="576 dots wide"):
        encode_image(Image.new("1", (576, 10), 1), PrinterSettings())


@pytest.mark.parametrize("baudrate", [9600, 19200, 115200])
def test_the_pacing_never_overruns_the_buffer(title: Title, baudrate: int) -> None:
    image = render_sheet(generate(title, 11))
    fake = FakePrinter(baudrate=baudrate, buffer_bytes=WINDOW_BYTES)
    report = printer_on(fake, baudrate=baudrate).print_image(image)
    assert 0 < fake.peak_buffer <= WINDOW_BYTES
    assert not fake.overran
    # The host's model never claims to be faster than the printer really is.
    assert report.model_s >= fake.finished_at - 1e-9


def test_without_pacing_the_buffer_overruns() -> None:
    # The check can fail: the same job written in one go floods the fake's buffer.
    image = render_sheet(generate("valley", 11))
    fake = FakePrinter(buffer_bytes=WINDOW_BYTES)
    fake.write(b"".join(c.data for c in encode_image(image, PrinterSettings())))
    assert fake.overran


def test_a_mechanism_slower_than_configured_is_caught() -> None:
    # A printer slower than its settings say fills up: the settings must match the unit.
    image = render_sheet(generate("valley", 11))
    fake = FakePrinter(line_time_ms=60.0, buffer_bytes=WINDOW_BYTES)
    printer_on(fake, line_time_ms=30.0).print_image(image)
    assert fake.overran


def test_the_pacing_keeps_the_mechanism_busy() -> None:
    image = render_sheet(generate("valley", 7))
    blanks = sum(blank_rows(image))
    fake = FakePrinter()
    printer_on(fake).print_image(image)
    busy = (image.height - blanks) * 0.030 + (blanks + 96) * 0.002
    # Within a few rows' time of a mechanism that never waits for data.
    assert fake.finished_at < busy + 0.2


def test_the_dtr_busy_line_gates_the_writes() -> None:
    fake = FakePrinter()
    polls = []

    def busy() -> bool:
        # Busy for the first 5 ms after each write: the host must wait it out.
        polls.append(fake.clock.now())
        return fake.writes > 0 and len(polls) % 6 != 0

    printer = ThermalPrinter(PrinterSettings(), transport=fake, clock=fake.clock, busy=busy)
    image = render_sheet(generate("temple", 1))
    printer.print_image(image)
    assert same_picture(fake.printout().crop((0, 0, 384, image.height)), image)
    assert fake.clock.slept > 0


def test_a_busy_line_stuck_high_times_out() -> None:
    fake = FakePrinter()
    printer = ThermalPrinter(
        PrinterSettings(timeout_s=2.0), transport=fake, clock=fake.clock, busy=lambda: True
    )
    with pytest.raises(PrinterTimeout, match="busy line"):
        printer.print_image(render_sheet(generate("temple", 1)))
    assert fake.clock.now() >= 2.0


# --- status ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["gsv0", "dc2"])
def test_no_paper_is_reported_before_anything_is_printed(command: str) -> None:
    fake = FakePrinter(paper=False)
    with pytest.raises(PaperOut, match="out of paper"):
        printer_on(fake, image_command=command).print_image(render_sheet(generate("island", 1)))
    assert fake.printed_rows == 0


def test_an_offline_printer_is_reported() -> None:
    fake = FakePrinter()
    printer = printer_on(fake)
    assert printer.status().online is True
    fake.online = False
    with pytest.raises(PrinterOffline):
        printer.print_image(render_sheet(generate("island", 1)))


def test_a_printer_that_does_not_answer_still_prints() -> None:
    fake = FakePrinter(answers_status=False)
    printer = printer_on(fake)
    assert printer.status().paper is None
    printer.print_image(render_sheet(generate("island", 1)))
    assert fake.printed_rows > 0


def test_an_echoing_port_is_not_taken_for_a_status() -> None:
    # pyserial's loop:// sends every byte back; the echo of a query is not a reply.
    transport = SerialTransport("loop://")
    try:
        status = ThermalPrinter(PrinterSettings(port="loop://"), transport=transport).status()
    finally:
        transport.close()
    assert status == type(status)(online=None, paper=None)


def test_a_port_that_cannot_be_opened_is_offline() -> None:
    with pytest.raises(PrinterOffline, match="/dev/no-such-printer"):
        SerialTransport("/dev/no-such-printer")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("paper_width_mm", 57),
        ("image_command", "escpos"),
        ("baudrate", 0),
        ("baudrate", 9601),
        ("line_time_ms", -1.0),
        ("timeout_s", 0.0),
        ("heat_time", 300),
        ("dtr_busy_pin", 40),
        ("port", " "),
        ("heat_dots", -1),
        ("tear_feed_mm", -2.0),
        ("line_time_ms", math.nan),
        ("line_time_ms", math.inf),
        ("line_time_ms", 1e308),
        ("feed_time_ms", 1e30),
        ("feed_time_ms", -math.inf),
        ("timeout_s", math.nan),
        ("tear_feed_mm", math.nan),
    ],
)
def test_bad_settings_name_their_key(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f"^printer.{field}: expected "):
        printer_config(DEFAULTS.printer, **{field: value})


@pytest.mark.parametrize("baudrate", [1, 9599, 10**10])
@pytest.mark.parametrize("port", ["loop://", "socket://127.0.0.1:9100"])
def test_a_printer_at_a_url_takes_a_bounded_rate(port: str, baudrate: int) -> None:
    with pytest.raises(ConfigError, match=r"^printer\.baudrate: expected 9600 to 1000000000,"):
        printer_config(DEFAULTS.printer, port=port, baudrate=baudrate)
    assert printer_config(DEFAULTS.printer, port=port, baudrate=250_000).baudrate == 250_000


@pytest.mark.parametrize(
    ("key", "toml", "value"),
    [
        ("line_time_ms", "nan", math.nan),
        ("feed_time_ms", "inf", math.inf),
        ("timeout_s", "0.0", 0.0),
        ("baudrate", "1", 1),
    ],
)
def test_the_file_and_the_options_are_bounded_alike(key: str, toml: str, value: object) -> None:
    with pytest.raises(ConfigError) as from_file:
        loads_config(f"[printer]\n{key} = {toml}\n")
    with pytest.raises(ConfigError) as from_options:
        printer_config(DEFAULTS.printer, **{key: value})
    assert str(from_file.value) == str(from_options.value)
    assert str(from_file.value).startswith(f"printer.{key}: expected ")


def test_a_loopback_port_takes_a_whole_print() -> None:
    # pyserial's loop:// echoes every byte into a queue of 4 KB that nothing else reads;
    # a sheet is several times that.
    settings = PrinterSettings(port="loop://")
    transport = SerialTransport(settings.port)
    try:
        printer = ThermalPrinter(settings, transport=transport, clock=FakeClock())
        report = printer.print_image(render_sheet(generate("temple", 7)))
        transport.write(bytes(20_000))  # one write larger than the loopback's queue
    finally:
        transport.close()
    assert report.bytes_sent > 3 * 4096
    assert report.printed_rows > 0


def test_a_network_printer_nobody_listens_for_is_offline() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
    # The port is free again: nobody listens on it.
    with pytest.raises(PrinterOffline) as caught:
        SerialTransport(f"socket://127.0.0.1:{port}")
    message = str(caught.value)
    assert message.startswith(f"cannot open printer port socket://127.0.0.1:{port}: ")
    assert "Connection refused" in message
    assert message.count(f":{port}") == 1  # the port is named once


def test_settings_on_top_of_the_config_keep_the_rest() -> None:
    settings = printer_config(DEFAULTS.printer, port="loop://", baudrate=None)
    assert settings.port == "loop://"
    assert settings.baudrate == DEFAULTS.printer.baudrate
    assert settings.dtr_busy_pin is None


def test_settings_give_the_paper_width_in_dots() -> None:
    assert PrinterConfig().dots == PrinterSettings().dots == 384
    assert PrinterConfig(paper_width_mm=80).dots == PrinterSettings(paper_width_mm=80).dots == 576


def test_the_driver_is_given_every_printer_setting_of_the_config() -> None:
    """Every setting the driver takes comes from the [printer] table, none left at the
    driver's own default; and the defaults of both agree."""
    config = PrinterConfig(
        port="socket://127.0.0.1:9100", baudrate=57600, paper_width_mm=80,
        image_command="dc2", line_time_ms=12.5, feed_time_ms=1.5, dtr_busy_pin=4,
        timeout_s=3.0, heat_dots=7, heat_time=99, heat_interval=21, tear_feed_mm=20.0,
    )
    settings = printer_settings(config)
    for field in dataclasses.fields(PrinterSettings):
        given = getattr(settings, field.name)
        assert given == getattr(config, field.name) != field.default, field.name
    assert printer_settings(PrinterConfig()) == PrinterSettings()


def test_the_status_query_is_dle_eot_1_and_4() -> None:
    # ESC/POS real-time status: DLE EOT 1 (printer), DLE EOT 4 (paper roll sensor).
    assert (STATUS_ONLINE, STATUS_PAPER) == (b"\x10\x04\x01", b"\x10\x04\x04")
    fake = FakePrinter()
    printer_on(fake).status()
    assert fake.data == STATUS_ONLINE + STATUS_PAPER


# --- the print queue -------------------------------------------------------------------


def roll_many(count: int) -> int:
    """What the box's rolling loop does between prints: work out what each roll allows."""
    valley = find_title("valley")
    done = 0
    for i in range(count):
        valley.options(Roll.from_str(f"{i % 5 + 1},{(i // 5) % 5 + 1},3"))
        done += 1
    return done


def test_a_printer_that_times_out_leaves_the_box_rolling() -> None:
    release = threading.Event()
    fake = FakePrinter(hang=release)
    seen: list[JobStatus] = []
    spooler = PrintSpooler(printer_on(fake), on_change=seen.append)
    try:
        job = spooler.submit(render_sheet(generate("valley", 3)), "valley 3")
        # The printer hangs on its first write; the caller goes on rolling and queueing.
        assert roll_many(500) == 500
        second = spooler.submit(render_sheet(generate("island", 3)), "island 3")
        assert spooler.status(job.id).state in (JobState.QUEUED, JobState.PRINTING)
        assert spooler.status(second.id).state is JobState.QUEUED
        release.set()  # the write's timeout expires
        failed = spooler.wait(job.id, WAIT)
        assert failed.state is JobState.FAILED
        assert failed.reason == "timed out"
        # The printer comes back; the failed job was kept and prints on retry.
        fake.hang = None
        spooler.wait(second.id, WAIT)
        assert spooler.retry(job.id).state is JobState.QUEUED
        done = spooler.wait(job.id, WAIT)
        assert done.state is JobState.DONE
        assert done.attempts == 2
        assert done.report is not None and done.report.bytes_sent > 0
    finally:
        release.set()
        spooler.close(WAIT)
    states = [s.state for s in seen if s.id == job.id]
    assert states == [
        JobState.QUEUED,
        JobState.PRINTING,
        JobState.FAILED,
        JobState.QUEUED,
        JobState.PRINTING,
        JobState.DONE,
    ]


def test_a_printer_without_paper_fails_the_job_and_a_retry_prints_it() -> None:
    fake = FakePrinter(paper=False)
    spooler = PrintSpooler(printer_on(fake))
    try:
        image = render_sheet(generate("temple", 5))
        job = spooler.submit(image, "temple 5")
        assert roll_many(100) == 100
        failed = spooler.wait(job.id, WAIT)
        assert (failed.state, failed.reason) == (JobState.FAILED, "paper out")
        assert [s.id for s in spooler.failed()] == [job.id]
        fake.paper = True
        spooler.retry(job.id)
        assert spooler.wait(job.id, WAIT).state is JobState.DONE
        assert same_picture(fake.printout().crop((0, 0, 384, image.height)), image)
    finally:
        spooler.close(WAIT)


def test_only_failed_jobs_can_be_retried() -> None:
    spooler = PrintSpooler(printer_on(FakePrinter()))
    try:
        job = spooler.submit(render_sheet(generate("temple", 5)))
        spooler.wait(job.id, WAIT)
        with pytest.raises(PrinterError, match="not failed"):
            spooler.retry(job.id)
        with pytest.raises(PrinterError, match="no print job 99"):
            spooler.status(99)
    finally:
        spooler.close(WAIT)
    with pytest.raises(PrinterError, match="closed"):
        spooler.submit(Image.new("1", (8, 8), 1))


def test_an_unexpected_failure_does_not_stop_the_queue() -> None:
    class Flaky:
        calls = 0

        def print_image(self, image: Image.Image, *, copies: int = 1) -> object:
            Flaky.calls += 1
            if Flaky.calls == 1:
                raise RuntimeError("driver bug")
            return printer_on(FakePrinter()).print_image(image)

    spooler = PrintSpooler(Flaky())  # type: ignore[arg-type]
    try:
        first = spooler.submit(Image.new("1", (384, 4), 0))
        second = spooler.submit(Image.new("1", (384, 4), 0))
        assert spooler.wait(first.id, WAIT).reason == "failed"
        assert spooler.wait(second.id, WAIT).state is JobState.DONE
    finally:
        spooler.close(WAIT)


def test_whoever_waits_for_a_job_finds_its_news_already_told() -> None:
    """``wait`` returns only once ``on_change`` has heard the job's end: the box's queue then
    holds the event, and a simulator that waits and then steps the box shows "Printed"."""
    told: list[JobState] = []

    def slow_listener(status: JobStatus) -> None:
        if status.finished:
            time.sleep(0.3)  # a listener on a busy (or emulated) machine
        told.append(status.state)

    spooler = PrintSpooler(printer_on(FakePrinter()), on_change=slow_listener)
    try:
        job = spooler.submit(render_sheet(generate("temple", 5)), "temple 5")
        assert spooler.wait(job.id, WAIT).state is JobState.DONE
        assert told[-1] is JobState.DONE, told
    finally:
        spooler.close(WAIT)
