"""How long a sheet takes to print, by the printer model, against python-escpos's image().

For each title, the pinned sheet is printed on the fake printer at 19200 baud in two ways:

- pitable: :class:`~pitable.hw.printer.ThermalPrinter`, paced bands with blank rows fed;
- plain: python-escpos's ``Dummy().image(picture)`` (``GS v 0`` raster, every row sent
  and printed), followed by the same tear-off feed, written in one go.

Both streams go through the same :class:`~pitable.hw.fake_printer.FakePrinter`: bytes on the
wire at the baud rate, 30 ms for each printed dot row and 2 ms for each fed one, rows printed
as soon as their bytes are in. The plain stream is given an unlimited buffer (a real printer
would tear the picture; its time is a lower bound). Times are the model's, not the wall
clock's: the run takes well under a second.

Run: .venv/bin/python benchmarks/bench_printer.py [--baud N] [--seeds N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys

from pitable.config import DEFAULTS, PrinterConfig, printer_config
from pitable.hw.fake_printer import FakePrinter
from pitable.hw.printer import WINDOW_BYTES, ThermalPrinter, feed
from pitable.render.sheet import render_sheet
from pitable.rules.sheets import generate

TARGET_S = 15.0
TARGET_SAVING = 0.30
PINNED = {"valley": ("b", 7), "island": ("a", 7), "temple": ("a", 7)}


def pitable_print(image: object, settings: PrinterConfig) -> tuple[int, float, int]:
    fake = FakePrinter(baudrate=settings.baudrate, dots=settings.dots)
    printer = ThermalPrinter(settings, transport=fake, clock=fake.clock)
    report = printer.print_image(image)  # type: ignore[arg-type]
    assert not fake.overran
    return report.bytes_sent, fake.finished_at, fake.peak_buffer


def plain_print(image: object, settings: PrinterConfig) -> tuple[int, float]:
    # python-escpos is the baseline only: the box itself does not depend on it (the
    # `bench` extra installs it).
    from escpos.printer import Dummy

    if settings.dots == 384:
        # A 58 mm profile (384 dots), so that python-escpos knows the paper's width.
        dummy = Dummy(profile="POS-5890")
        dummy.image(image)
    else:
        # No bundled profile is 576 dots wide; the default one prints a notice about it.
        dummy = Dummy()
        with contextlib.redirect_stdout(io.StringIO()):
            dummy.image(image)
    data = dummy.output + b"".join(c.data for c in feed(round(settings.tear_feed_mm * 8)))
    fake = FakePrinter(baudrate=settings.baudrate, dots=settings.dots, buffer_bytes=1 << 30)
    fake.write(data)
    return len(data), fake.finished_at


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baud", type=int, default=19200)
    parser.add_argument("--seeds", type=int, default=50, help="seeds a side for the worst case")
    args = parser.parse_args(argv)
    settings = printer_config(DEFAULTS.printer, baudrate=args.baud)
    print(
        f"{args.baud} baud, {settings.line_time_ms:g} ms a printed row,"
        f" {settings.feed_time_ms:g} ms a fed row, {settings.dots} dots wide;"
        f" pacing window {WINDOW_BYTES} bytes"
    )
    header = (
        f"{'sheet':<16}{'rows':>6}{'bytes':>9}{'time':>8}{'peak':>7}"
        f"{'plain bytes':>13}{'plain time':>12}{'saving':>8}"
    )
    print(header)
    ok = True
    for title, (side, seed) in PINNED.items():
        image = render_sheet(generate(title, seed, side), settings.dots)
        sent, seconds, peak = pitable_print(image, settings)
        plain_sent, plain_seconds = plain_print(image, settings)
        saving = 1 - seconds / plain_seconds
        ok &= seconds < TARGET_S and saving >= TARGET_SAVING
        print(
            f"{title + ' ' + side.upper() + ' ' + str(seed):<16}{image.height:>6}{sent:>9}"
            f"{seconds:>7.2f}s{peak:>7}{plain_sent:>13}{plain_seconds:>11.2f}s{saving:>8.1%}"
        )
    print(f"worst over seeds 0-{args.seeds - 1}, both sides:")
    for title in PINNED:
        worst_time, worst_saving = 0.0, 1.0
        for side in "ab":
            for seed in range(args.seeds):
                image = render_sheet(generate(title, seed, side), settings.dots)
                seconds = pitable_print(image, settings)[1]
                plain_seconds = plain_print(image, settings)[1]
                worst_time = max(worst_time, seconds)
                worst_saving = min(worst_saving, 1 - seconds / plain_seconds)
        ok &= worst_time < TARGET_S and worst_saving >= TARGET_SAVING
        print(f"  {title:<8} slowest {worst_time:.2f} s, smallest saving {worst_saving:.1%}")
    verdict = "meets" if ok else "MISSES"
    print(f"{verdict} the target: under {TARGET_S:g} s and {TARGET_SAVING:.0%} less than image()")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
