"""How long a sheet takes to print, by the printer model, against python-escpos's image().

For each title, the pinned sheet is printed on the fake printer at 19200 and 9600 baud, on
58 mm and 80 mm paper, in two ways:

- pitable: :class:`~pitable.hw.printer.ThermalPrinter`, paced bands with blank rows fed;
- plain: python-escpos's ``Dummy().image(picture)`` (``GS v 0`` raster, every row sent
  and printed), followed by the same tear-off feed, written in one go.

Both streams go through the same :class:`~pitable.hw.fake_printer.FakePrinter`: bytes on the
wire at the baud rate, 30 ms for each printed dot row and 2 ms for each fed one, rows printed
as soon as their bytes are in. The plain stream is given an unlimited buffer (a real printer
would tear the picture; its time is a lower bound). Times are the model's, not the wall
clock's. A table's six copies go as one stream (``print_image(copies=6)``), against six
plain jobs.

The legible layout (capitals of 2.1 mm instead of 0.9, boxes of 7 mm, a key on every sheet)
prints longer than the old one, whose times on the same sheets are kept below as the
"before" column (measured on the layout of map v1 before the change, same model). The old
target of 15 s for a 58 mm sheet at 19200 baud is printed against the new times, not
dropped: the run says by how much it is missed.

The verdict is on what the printing code controls, against the least the model allows: the
run fails (exit 1) when a sheet takes more than 1.10 times the longer of its mechanism's
least time (every inked row printed, every blank one fed) and the wire time of the bytes
it sent, when it sends more bytes than image(), or when the pacing overruns the printer's
buffer. The old target of 30 % less time than image() is printed beside it, met or not,
with the most any stream could save on that sheet: only blank rows can be saved, and the
legible sheet has fewer of them (about a quarter of its rows on 58 mm paper, against a
third and more before), so at 19200 baud on 58 mm paper no stream could save 30 %.

Run: .venv/bin/python benchmarks/bench_printer.py [--seeds N]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys

from pitable.box.backends import printer_settings
from pitable.config import DEFAULTS, PrinterConfig, printer_config
from pitable.hw.fake_printer import FakePrinter
from pitable.hw.printer import WINDOW_BYTES, ThermalPrinter, feed
from pitable.render.sheet import blank_rows, render_sheet
from pitable.rules.sheets import generate

#: The old layout's target: a 58 mm sheet in under 15 s at 19200 baud.
OLD_TARGET_S = 15.0
TARGET_SAVING = 0.30
#: How far a sheet's time may be above the least the model allows for its rows and bytes:
#: that least is the longer of two times that overlap only in part (a row prints once its
#: bytes are in, the last rows after the last bytes), most where the two are alike (80 mm
#: paper at 19200 baud: about 1.07).
SLACK = 1.10
PINNED = {"valley": ("b", 7), "island": ("a", 7), "temple": ("a", 7)}
BAUDS = (19200, 9600)
PAPERS = (58, 80)
TABLE = 6
#: The old layout's times (seconds, this model) for the pinned sheets, by baud and paper.
BEFORE = {
    (19200, 58): {"valley": 14.73, "island": 13.73, "temple": 10.37},
    (19200, 80): {"valley": 24.68, "island": 22.94, "temple": 16.24},
    (9600, 58): {"valley": 22.22, "island": 20.88, "temple": 14.20},
    (9600, 80): {"valley": 48.56, "island": 44.53, "temple": 31.41},
}


def pitable_print(
    image: object, settings: PrinterConfig, copies: int = 1
) -> tuple[int, float, int, bool]:
    fake = FakePrinter(baudrate=settings.baudrate, dots=settings.dots, buffer_bytes=WINDOW_BYTES)
    printer = ThermalPrinter(printer_settings(settings), transport=fake, clock=fake.clock)
    report = printer.print_image(image, copies=copies)  # type: ignore[arg-type]
    return report.bytes_sent, fake.finished_at, fake.peak_buffer, fake.overran


def least_time(image: object, settings: PrinterConfig, sent: int) -> float:
    """The least time the model allows a stream of ``sent`` bytes printing ``image``:
    the longer of its mechanism's time (every inked row printed, every blank row fed) and
    the wire's for those bytes."""
    blank = sum(blank_rows(image))  # type: ignore[arg-type]
    height: int = image.height  # type: ignore[attr-defined]
    mechanism = ((height - blank) * settings.line_time_ms + blank * settings.feed_time_ms) / 1000
    return max(mechanism, sent * 10 / settings.baudrate)


def plain_print(image: object, settings: PrinterConfig, copies: int = 1) -> tuple[int, float]:
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
    job = dummy.output + b"".join(c.data for c in feed(round(settings.tear_feed_mm * 8)))
    fake = FakePrinter(baudrate=settings.baudrate, dots=settings.dots, buffer_bytes=1 << 30)
    fake.write(job * copies)
    return len(job) * copies, fake.finished_at


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds a side for the worst case")
    args = parser.parse_args(argv)
    ok = True
    old_target = True
    #: The largest ratio of a sheet's time to the least the model allows it.
    worst_slack = 0.0
    #: The smallest of the most any stream could save against image(), over the sheets.
    ceiling = 1.0
    slowest_58 = 0.0
    blank_share: list[float] = []
    for baud in BAUDS:
        for paper in PAPERS:
            settings = printer_config(DEFAULTS.printer, baudrate=baud, paper_width_mm=paper)
            print(
                f"\n{baud} baud, {paper} mm paper ({settings.dots} dots),"
                f" {settings.line_time_ms:g} ms a printed row, {settings.feed_time_ms:g} ms a"
                f" fed row; pacing window {WINDOW_BYTES} bytes"
            )
            print(
                f"{'sheet':<14}{'mm':>5}{'inked':>7}{'bytes':>8}{'time':>8}{'before':>8}"
                f"{'plain':>8}{'saving':>8}{'6 copies':>10}{'plain 6':>9}"
            )
            for title, (side, seed) in PINNED.items():
                image = render_sheet(generate(title, seed, side), settings.dots)
                inked = image.height - sum(blank_rows(image))
                if (baud, paper) == (19200, 58):
                    blank_share.append(1 - inked / image.height)
                sent, seconds, _, overran = pitable_print(image, settings)
                plain_sent, plain_seconds = plain_print(image, settings)
                table_seconds = pitable_print(image, settings, TABLE)[1]
                plain_table = plain_print(image, settings, TABLE)[1]
                saving = 1 - seconds / plain_seconds
                least = least_time(image, settings, sent)
                worst_slack = max(worst_slack, seconds / least)
                ok &= seconds <= SLACK * least and sent <= plain_sent and not overran
                ceiling = min(ceiling, 1 - least_time(image, settings, 0) / plain_seconds)
                old_target &= saving >= TARGET_SAVING
                before = BEFORE[(baud, paper)][title]
                print(
                    f"{title + ' ' + side.upper() + ' ' + str(seed):<14}{image.height / 8:>5.0f}"
                    f"{inked:>7}{sent:>8}{seconds:>7.1f}s{before:>7.1f}s{plain_seconds:>7.1f}s"
                    f"{saving:>8.1%}{table_seconds / 60:>8.1f}mn{plain_table / 60:>7.1f}mn"
                )
                if (baud, paper) == (19200, 58):
                    slowest_58 = max(slowest_58, seconds)
            worst_time, worst_saving = 0.0, 1.0
            for title in PINNED:
                for side in "ab":
                    for seed in range(args.seeds):
                        image = render_sheet(generate(title, seed, side), settings.dots)
                        sent, seconds, _, overran = pitable_print(image, settings)
                        plain_sent, plain_seconds = plain_print(image, settings)
                        least = least_time(image, settings, sent)
                        worst_slack = max(worst_slack, seconds / least)
                        ok &= seconds <= SLACK * least and sent <= plain_sent and not overran
                        ceiling = min(ceiling, 1 - least_time(image, settings, 0) / plain_seconds)
                        old_target &= 1 - seconds / plain_seconds >= TARGET_SAVING
                        worst_time = max(worst_time, seconds)
                        worst_saving = min(worst_saving, 1 - seconds / plain_seconds)
                        if (baud, paper) == (19200, 58):
                            slowest_58 = max(slowest_58, seconds)
            print(
                f"worst over seeds 0-{args.seeds - 1}, both sides, every title:"
                f" slowest {worst_time:.1f} s, smallest saving {worst_saving:.1%}"
            )
    print(
        f"\nThe old layout's target, a 58 mm sheet under {OLD_TARGET_S:g} s at 19200 baud:"
        f" MISSED by {slowest_58 - OLD_TARGET_S:.1f} s (slowest {slowest_58:.1f} s). The legible"
        " layout inks three to four times the dot rows: words 2.3 times as tall, boxes and"
        " bubbles two to three times as large, and a key that the old sheet did not have;"
        " each inked row costs the mechanism 30 ms whatever is sent."
    )
    print(
        f"The old target, {TARGET_SAVING:.0%} less time than image() on every sheet:"
        f" {'met' if old_target else 'MISSED'} (printed, not gated). Only blank rows can be fed"
        f" instead of printed, and the pinned 58 mm sheets are {min(blank_share):.0%} to"
        f" {max(blank_share):.0%} blank rows: the most any stream could save on the sheet"
        f" that allows least is {ceiling:.1%}."
    )
    verdict = "meets" if ok else "MISSES"
    print(
        f"{verdict} the target: every sheet within {SLACK:g}x the least time the model allows"
        f" its rows and bytes (worst {worst_slack:.3f}x), no more bytes than image(), and no"
        " overrun of the printer's buffer."
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
