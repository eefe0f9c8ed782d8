"""The TV over HDMI: the table's snapshots drawn on the Pi's framebuffer, off the box's loop.

Drawing a 1920x1080 picture and writing it to the framebuffer takes a good part of a second
on a Pi Zero 2 W, far longer than the box's loop may wait. The loop's watcher therefore only
hands the snapshot over (:meth:`TvWorker.offer`) and returns; the worker's own thread draws
the newest snapshot it has, and a snapshot that a newer one replaced before it was drawn is
skipped, never queued: the TV shows the table as it is now, not as it was. Between
snapshots the worker looks every few seconds at the code to join in the corner, and draws
the newest snapshot again when it changed (the network came up after the box, or moved).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PIL import Image

from pitable.box.join import join_code
from pitable.box.snapshot import TableSnapshot
from pitable.config import TvConfig
from pitable.errors import DisplayError
from pitable.render.join import JoinCode
from pitable.render.tv import draw_tv

if TYPE_CHECKING:
    from pitable.box.controller import Box

log = logging.getLogger("pitable.box")

#: How often the TV looks whether the code to join in its corner changed.
JOIN_POLL_S = 5.0


class TvWorker:
    """Draws the newest snapshot on ``device`` on a thread of its own.

    ``join`` gives the code to join the table's page for the corner (None: no corner); it
    is asked again every ``poll_s`` seconds (on the worker's thread, never the box's), and
    a new answer draws the newest snapshot again with it.
    """

    def __init__(self, device: Any, join: Callable[[], JoinCode | None] = lambda: None,
                 *, draw: Callable[..., Image.Image] = draw_tv,
                 poll_s: float = JOIN_POLL_S) -> None:
        self.device = device
        self.join = join
        self.draw = draw
        self.poll_s = poll_s
        #: How many snapshots were drawn, and how many were skipped for a newer one.
        self.drawn = 0
        self.skipped = 0
        #: The sequence number of the snapshot on the screen now.
        self.shown: int | None = None
        self._pending: TableSnapshot | None = None
        #: The newest snapshot taken, and the code to join in the picture on the screen.
        self._latest: TableSnapshot | None = None
        self._code: JoinCode | None = None
        #: Asked to look at the code to join now rather than at the next poll.
        self._recheck = False
        self._busy = False
        self._closed = False
        self._failed = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="pitable-tv", daemon=True)
        self._thread.start()

    def offer(self, snapshot: TableSnapshot) -> None:
        """The box's watcher: keep ``snapshot`` for the worker and return at once."""
        with self._changed:
            if self._pending is not None:
                self.skipped += 1
            self._pending = snapshot
            self._changed.notify_all()

    def recheck(self) -> None:
        """Have the worker look at the code to join now (it does every ``poll_s`` seconds
        by itself); returns at once."""
        with self._changed:
            self._recheck = True
            self._changed.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every offered snapshot has been drawn or skipped, and an asked
        :meth:`recheck` done (for the simulator's picture and the tests); False if
        ``timeout`` ran out first."""
        with self._changed:
            return self._changed.wait_for(
                lambda: (self._pending is None and not self._recheck and not self._busy)
                or self._closed,
                timeout,
            )

    def picture(self) -> Image.Image | None:
        """What the device shows, where it keeps it (luma's dummy does)."""
        image = getattr(self.device, "image", None)
        return image.copy() if isinstance(image, Image.Image) else None

    def close(self, timeout: float = 5.0) -> None:
        """Stop drawing (the picture being drawn is finished), then release the device."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        self._thread.join(timeout)
        cleanup = getattr(self.device, "cleanup", None)
        if callable(cleanup):
            try:
                cleanup()
            except OSError as exc:
                log.warning("TV: closing the framebuffer failed: %s", exc)

    def _run(self) -> None:
        while True:
            with self._changed:
                # A timeout is the poll: no snapshot came, look at the code to join.
                self._changed.wait_for(
                    lambda: self._pending is not None or self._recheck or self._closed,
                    self.poll_s,
                )
                if self._closed:
                    return
                snapshot, self._pending = self._pending, None
                self._recheck = False
                self._busy = True
            try:
                if snapshot is not None:
                    self._show(snapshot)
                else:
                    self._follow_join()
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()

    def _follow_join(self) -> None:
        """Draw the newest snapshot again if the code to join is not the one on the screen."""
        if self._latest is None:
            return
        try:
            changed = self.join() != self._code
        except Exception:  # the corner's fault must not stop the TV, nor the box
            log.exception("TV: working out the code to join failed")
            return
        if changed:
            self._show(self._latest)

    def _show(self, snapshot: TableSnapshot) -> None:
        self._latest = snapshot
        try:
            code = self.join()
            image = self.draw(snapshot, tuple(self.device.size), code)
            self.device.display(image.convert(self.device.mode))
        except Exception:  # the TV's fault must not stop the next picture, nor the box
            if not self._failed:
                log.exception("TV: drawing the table failed")
            self._failed = True
            return
        if self._failed:
            log.warning("TV: drawing again")
        self._failed = False
        self.drawn += 1
        self.shown = snapshot.seq
        self._code = code


def start_tv(config: TvConfig, opener: Callable[[TvConfig], Any], box: Box) -> TvWorker | None:
    """Open the TV with ``opener`` and have it follow ``box``'s snapshots; None when the
    config leaves it off, or when it cannot be opened (then logged, and said on the status
    screen until the first roll: the box rolls on without a TV)."""
    if not config.enabled:
        return None
    try:
        device = opener(config)
    except (DisplayError, OSError) as exc:
        log.warning("%s", exc)
        box.message = box.tr.gettext("No TV on {device}").format(device=config.device)
        return None
    worker = TvWorker(device, lambda: join_code(box))
    box.publisher.subscribe(worker.offer)
    return worker
