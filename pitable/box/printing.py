"""The box's printer: sheets of the game's map, printed in the background.

The menu asks :class:`BoxPrinter` for copies of the map the table plays on; it draws the
sheet once and hands it to the :class:`PrintSpooler` with the number of copies, whose
thread does the slow part (the printer encodes the picture once and sends the copies back
to back, paced) while the box goes on rolling. Each change of a job comes back to the
controller as an event on its queue, so the status screen says when the sheets are done, or
why they failed; a failed job keeps its picture and the menu offers to print it again.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pitable.box.events import Event, PrinterChanged
from pitable.config import PrinterConfig
from pitable.errors import (
    JobNotTaken,
    PaperOut,
    PitableError,
    PrinterError,
    PrinterOffline,
    PrinterTimeout,
)
from pitable.i18n import SOURCE_LANGUAGE
from pitable.rules.base import ENGLISH, N_, Translator

if TYPE_CHECKING:
    from PIL import Image

    from pitable.box.store import SessionStore
    from pitable.box.table_map import TableMap
    from pitable.hw.printer import PrintReport
    from pitable.render.join import JoinCode

log = logging.getLogger(__name__)


# --- the background queue ------------------------------------------------------------


class JobState(enum.Enum):
    QUEUED = "queued"
    PRINTING = "printing"
    DONE = "done"
    FAILED = "failed"


class ImagePrinter(Protocol):
    def print_image(self, image: Image.Image, *, copies: int = 1) -> PrintReport:
        """Print ``copies`` of ``image`` back to back, encoding it once."""
        ...


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
    #: How many copies of the picture the job prints, back to back.
    copies: int = 1

    @property
    def finished(self) -> bool:
        return self.state in (JobState.DONE, JobState.FAILED)

    def __str__(self) -> str:
        why = f": {self.reason}" if self.reason else ""
        times = f" x{self.copies}" if self.copies != 1 else ""
        return f"print {self.id} ({self.name}{times}) {self.state.value}{why}"


#: Every reason :func:`failure_reason` gives, as the status screen shows them.
FAILURE_REASONS = (
    N_("paper out"), N_("not reading"), N_("timed out"), N_("offline"), N_("printer error"),
    N_("failed"),
)


def failure_reason(exc: BaseException) -> str:
    """Why a print failed, in a few words (one of :data:`FAILURE_REASONS`)."""
    if isinstance(exc, PaperOut):
        return N_("paper out")
    if isinstance(exc, JobNotTaken):
        # Written but never taken: the printer accepts bytes and does not read them.
        return N_("not reading")
    if isinstance(exc, PrinterTimeout):
        return N_("timed out")
    if isinstance(exc, PrinterOffline):
        return N_("offline")
    if isinstance(exc, PitableError):
        return N_("printer error")
    return N_("failed")


@dataclass
class _Job:
    status: JobStatus
    #: The picture, or what draws it: drawn on the spooler's thread when first printed.
    image: Any = field(repr=False)

    def picture(self) -> Image.Image:
        if callable(self.image):
            # Kept once drawn: a retry prints the same picture.
            self.image = self.image()
        return self.image


class PrintSpooler:
    """Prints jobs one after the other on a thread of its own.

    :meth:`submit` and :meth:`retry` never wait for the printer: they queue the job and
    return its status at once. ``on_change`` is called with each new status (queued,
    printing, done, failed) under the spooler's lock, before anyone waiting is woken: whoever
    waits for a job (:meth:`wait`) finds its news already told. It must not block (the box passes
    one that puts an event on its queue). A failed job keeps its picture, so :meth:`retry`
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

    def submit(self, image: Image.Image | Callable[[], Image.Image], name: str = "sheet", *,
               copies: int = 1) -> JobStatus:
        """Queue ``copies`` of ``image`` as one job: printed back to back, retried whole.

        ``image`` may be what draws the picture: it is then drawn on the spooler's thread,
        so that a long strip (and a solo sheet's target, which the bot plays for) never
        holds up the box's loop."""
        if copies < 1:
            raise PrinterError(f"{copies} copies: a print job prints at least one")
        with self._changed:
            if self._closed:
                raise PrinterError("the print queue is closed")
            status = JobStatus(next(self._ids), name, JobState.QUEUED, copies=copies)
            self._jobs[status.id] = _Job(status, image)
            # Told before the thread can take the job, so that "queued" never follows
            # "printing".
            self._notify(status)
        self._queue.put(status.id)
        return status

    def retry(self, job_id: int) -> JobStatus:
        """Queue a failed job again."""
        with self._changed:
            job = self._job(job_id)
            if job.status.state is not JobState.FAILED:
                raise PrinterError(f"print {job_id} is {job.status.state.value}, not failed")
            status = JobStatus(
                job_id, job.status.name, JobState.QUEUED, attempts=job.status.attempts,
                copies=job.status.copies,
            )
            job.status = status
            self._notify(status)
        self._queue.put(job_id)
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
                old.copies,
            )
            self._notify(job.status)
            self._changed.notify_all()

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
                report = self.printer.print_image(job.picture(), copies=job.status.copies)
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


# --- the box's printer ---------------------------------------------------------------


class BoxPrinter:
    """What the controller's menu needs of the printer, and the words for the screen."""

    def __init__(self, printer: Any, settings: PrinterConfig) -> None:
        self.settings = settings
        self.post: Callable[[Event], None] | None = None
        self.spooler = PrintSpooler(printer, on_change=self._changed)
        #: The job the screen reports on; its state is always read from the spooler, which
        #: alone knows it (its thread changes it while the controller runs).
        self.latest_id: int | None = None
        #: The map of each job queued here, which the screen names in its language.
        self._maps: dict[int, TableMap] = {}
        #: The initials of the player whose sheet each job prints, for the same.
        self._players: dict[int, str] = {}

    @property
    def latest(self) -> JobStatus | None:
        return None if self.latest_id is None else self.spooler.status(self.latest_id)

    def _changed(self, status: JobStatus) -> None:
        # The spooler's thread: only queue an event, the controller redraws.
        if self.post is not None:
            self.post(PrinterChanged())

    def print_sheet(self, table_map: TableMap, copies: int = 1, *,
                    join: JoinCode | None = None, solo: bool = False,
                    tr: Translator = ENGLISH, lang: str = SOURCE_LANGUAGE) -> str:
        """Queue ``copies`` sheets of ``table_map``, their words in ``lang``; returns the
        screen's line for it, in ``tr``'s language (``lang``'s). With
        ``join``, the code to join the table's page is printed at the top of each; ``solo``
        prints the adventurer levels and the stars to beat (the bot's median on the map).
        The sheet is drawn on the printer's thread."""
        dots = self.settings.dots

        def draw() -> Image.Image:
            # Imported here: drawing a sheet needs Pillow, which the box has, but the rules
            # and the fast commands import nothing of it.
            from pitable.render.sheet import render_sheet
            from pitable.rules.bot import solo_target

            sheet = table_map.sheet()
            target = solo_target(sheet) if solo else None
            image = render_sheet(sheet, dots, solo=solo, target=target, lang=lang)
            if join is not None:
                from pitable.render.join import join_strip, on_top_of

                image = on_top_of(join_strip(join, dots, tr), image)
            return image

        self.latest_id = self.spooler.submit(draw, table_map.label, copies=copies).id
        self._maps[self.latest_id] = table_map
        return tr.gettext("Printing: {sheets}").format(
            sheets=_sheets(_named(table_map, tr), copies, tr))

    def print_player(self, store: SessionStore, game_id: int, player_id: int, initials: str,
                     *, tr: Translator = ENGLISH, lang: str = SOURCE_LANGUAGE) -> str:
        """Queue the sheet of player ``player_id`` of game ``game_id`` as they filled it in
        on their phone (as ``store`` holds it when it prints: the turn in progress
        included), their score and initials written, its words in ``lang``; returns the
        screen's line for it. The sheet is read and drawn on the printer's thread."""
        dots = self.settings.dots

        def draw() -> Image.Image:
            from pitable.box.phones import stored_seat
            from pitable.render.sheet import Filled, render_sheet

            seat = stored_seat(store, game_id, player_id)
            player = seat.sheet
            score = player.score()
            filled = Filled(player.tokens(), score.components, score.total,
                            seat.player.initials)
            return render_sheet(player.sheet, dots, solo=player.solo, lang=lang,
                                filled=filled)

        self.latest_id = self.spooler.submit(draw, f"sheet of {initials}").id
        self._players[self.latest_id] = initials
        return tr.gettext("Printing: {sheets}").format(sheets=_of(initials, tr))

    def message(self, tr: Translator = ENGLISH) -> str | None:
        """The status screen's line for the latest job, in ``tr``'s language."""
        job = self.latest
        if job is None:
            return None
        _ = tr.gettext
        what = self._what(job, tr)
        if job.state is JobState.DONE:
            return _("Printed: {sheets}").format(sheets=what)
        if job.state is JobState.FAILED:
            return _("Print failed ({reason}): hold ROLL to retry").format(
                reason=_(job.reason or "failed"))
        return _("Printing: {sheets}").format(sheets=what)

    def notice(self, tr: Translator = ENGLISH) -> str | None:
        """The status screen's notice while a print has failed, in ``tr``'s language."""
        failed = self.spooler.failed()
        if not failed:
            return None
        return tr.gettext("printer: {reason}").format(
            reason=tr.gettext(failed[-1].reason or "failed"))

    def can_retry(self) -> bool:
        return bool(self.spooler.failed())

    def retry(self, tr: Translator = ENGLISH) -> str:
        """Queue the last failed job again; the screen's line for it."""
        failed = self.spooler.failed()
        if not failed:
            return tr.gettext("Nothing to print again")
        self.latest_id = self.spooler.retry(failed[-1].id).id
        return tr.gettext("Printing again: {sheets}").format(sheets=self._what(failed[-1], tr))

    def _what(self, job: JobStatus, tr: Translator) -> str:
        """The job's sheets as the screen names them: ``Vallée A·1234``, ``6 feuilles de...``."""
        if job.id in self._players:
            return _of(self._players[job.id], tr)
        table_map = self._maps.get(job.id)
        name = _named(table_map, tr) if table_map is not None else job.name
        return _sheets(name, job.copies, tr)

    def close(self) -> None:
        self.spooler.close(timeout=1.0)


def _named(table_map: TableMap, tr: Translator) -> str:
    """The map as :attr:`TableMap.label` names it, the title's name in ``tr``'s language."""
    return f"{tr.gettext(table_map.title.short_name)} {table_map.tag}"


def _of(initials: str, tr: Translator) -> str:
    """A player's sheet as the screen names it: ``sheet of AB``."""
    return tr.gettext("sheet of {initials}").format(initials=initials)


def _sheets(name: str, copies: int, tr: Translator = ENGLISH) -> str:
    """``Toys A·1234``, or ``6 sheets of Toys A·1234``: the title's short name and the map."""
    if copies == 1:
        return name
    return tr.ngettext("{copies} sheet of {name}", "{copies} sheets of {name}", copies).format(
        copies=copies, name=name)


def box_printer(config: PrinterConfig, *, simulated: bool = False) -> BoxPrinter | None:
    """The printer named in the config (None when disabled); a fake one in the simulator.

    The simulator's printer is :class:`~pitable.hw.fake_printer.FakePrinter` on a clock whose
    sleeps return at once, so a sheet "prints" as soon as the spooler gets to it.
    """
    if not config.enabled:
        return None
    from pitable.box.backends import printer_settings
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
    return BoxPrinter(printer, config)
