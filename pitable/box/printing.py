"""The box's printer: a fresh sheet for the current title, printed in the background.

The menu asks :class:`BoxPrinter` for a sheet; it draws one from a new seed and hands it to
the :class:`~pitable.hw.printer.PrintSpooler`, whose thread does the slow part while the box
goes on rolling. Each change of a job comes back to the controller as an event on its
queue, so the status screen says when the sheet is done, or why it failed; a failed sheet
keeps its picture and the menu offers to print it again.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable
from typing import Any

from pitable.config import PrinterConfig
from pitable.hw.events import Event, PrinterChanged
from pitable.hw.printer import JobState, JobStatus, PrinterSettings, PrintSpooler
from pitable.rules import Title
from pitable.rules.sheets import MAX_SEED, generate


def printer_settings(config: PrinterConfig, **overrides: Any) -> PrinterSettings:
    """The config's ``[printer]`` table as the printer's settings, with ``overrides`` on top."""
    names = set(PrinterSettings.field_names())
    values = {k: v for k, v in dataclasses.asdict(config).items() if k in names}
    # The config says -1 where no busy line is wired.
    if values.get("dtr_busy_pin") is not None and values["dtr_busy_pin"] < 0:
        values["dtr_busy_pin"] = None
    values.update({k: v for k, v in overrides.items() if v is not None})
    return PrinterSettings(**values)


class BoxPrinter:
    """What the controller's menu needs of the printer, and the words for the screen."""

    def __init__(
        self,
        printer: Any,
        settings: PrinterSettings,
        *,
        seeds: Callable[[], int] = lambda: secrets.randbelow(MAX_SEED + 1),
    ) -> None:
        self.settings = settings
        self.seeds = seeds
        self.post: Callable[[Event], None] | None = None
        self.spooler = PrintSpooler(printer, on_change=self._changed)
        #: The job the screen reports on; its state is always read from the spooler, which
        #: alone knows it (its thread changes it while the controller runs).
        self.latest_id: int | None = None

    @property
    def latest(self) -> JobStatus | None:
        return None if self.latest_id is None else self.spooler.status(self.latest_id)

    def _changed(self, status: JobStatus) -> None:
        # The spooler's thread: only queue an event, the controller redraws.
        if self.post is not None:
            self.post(PrinterChanged())

    def print_sheet(self, title: Title) -> str:
        seed = self.seeds()
        name = f"{title.short_name} seed {seed}"
        # Imported here: drawing a sheet needs Pillow, which the box has, but the rules
        # and the fast commands import nothing of it.
        from pitable.render.sheet import render_sheet

        image = render_sheet(generate(title, seed), self.settings.dots)
        self.latest_id = self.spooler.submit(image, name).id
        return f"Printing: {name}"

    def message(self) -> str | None:
        """The status screen's line for the latest job."""
        job = self.latest
        if job is None:
            return None
        if job.state is JobState.DONE:
            return f"Printed: {job.name}"
        if job.state is JobState.FAILED:
            return f"Print failed ({job.reason}): hold ROLL to retry"
        return f"Printing: {job.name}"

    def notice(self) -> str | None:
        failed = self.spooler.failed()
        return f"printer: {failed[-1].reason}" if failed else None

    def can_retry(self) -> bool:
        return bool(self.spooler.failed())

    def retry(self) -> str:
        failed = self.spooler.failed()
        if not failed:
            return "Nothing to print again"
        self.latest_id = self.spooler.retry(failed[-1].id).id
        return f"Printing again: {failed[-1].name}"

    def close(self) -> None:
        self.spooler.close(timeout=1.0)


def box_printer(
    config: PrinterConfig,
    *,
    simulated: bool = False,
    seeds: Callable[[], int] | None = None,
) -> BoxPrinter | None:
    """The printer named in the config (None when disabled); a fake one in the simulator.

    The simulator's printer is :class:`~pitable.hw.fake_printer.FakePrinter` on a clock whose
    sleeps return at once, so a sheet "prints" as soon as the spooler gets to it.
    """
    if not config.enabled:
        return None
    from pitable.hw.printer import ThermalPrinter

    settings = printer_settings(config)
    if simulated:
        from pitable.hw.clock import FakeClock
        from pitable.hw.fake_printer import FakePrinter

        clock = FakeClock()
        transport = FakePrinter(dots=settings.dots, baudrate=settings.baudrate,
                                line_time_ms=settings.line_time_ms,
                                feed_time_ms=settings.feed_time_ms, clock=clock)
        settings = dataclasses.replace(settings, dtr_busy_pin=None)
        printer = ThermalPrinter(settings, transport=transport, clock=clock)
    else:
        printer = ThermalPrinter(settings)
    if seeds is None:
        return BoxPrinter(printer, settings)
    return BoxPrinter(printer, settings, seeds=seeds)
