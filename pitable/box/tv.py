"""The TV over HDMI: the table's snapshots drawn on the Pi's framebuffer, off the box's loop.

Drawing a 1920x1080 picture and writing it to the framebuffer takes a good part of a second
on a Pi Zero 2 W, far longer than the box's loop may wait. The loop's watcher therefore only
hands the snapshot over (:meth:`TvWorker.offer`) and returns; the worker's own thread draws
the newest snapshot it has, and a snapshot that a newer one replaced before it was drawn is
skipped, never queued: the TV shows the table as it is now, not as it was.
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

class TvWorker:
    """Draws the newest snapshot on ``device`` on a thread of its own.

    ``join`` gives the code to join the table's page for the corner (None: no corner).
    """

    def __init__(self, device: Any, join: Callable[[], JoinCode | None] = lambda: None,
                 *, draw: Callable[..., Image.Image] = draw_tv) -> None:
        self.device = device
        self.join = join
        self.draw = draw
        #: How many snapshots were drawn, and how many were skipped for a newer one.
        self.drawn = 0
        self.skipped = 0
        #: The sequence number of the snapshot on the screen now.
        self.shown: int | None = None
        self._pending: TableSnapshot | None = None
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

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every offered snapshot has been drawn or skipped (for the simulator's
        picture and the tests); False if ``timeout`` ran out first."""
        with self._changed:
            return self._changed.wait_for(
                lambda: (self._pending is None and not self._busy) or self._closed, timeout
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
                self._changed.wait_for(lambda: self._pending is not None or self._closed)
                if self._closed:
                    return
                snapshot, self._pending = self._pending, None
                self._busy = True
            assert snapshot is not None
            try:
                self._show(snapshot)
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()

    def _show(self, snapshot: TableSnapshot) -> None:
        try:
            image = self.draw(snapshot, tuple(self.device.size), self.join())
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
