"""Parts that may fail: marked degraded on an error, retried with back-off, named when down.

An OLED pulled off its header raises on the next write; the box must keep rolling on the
other panels, say which one is gone, and pick it up again once it answers. A
:class:`DisplaySlot` does that for one panel: it remembers the image the panel should show,
so a panel that comes back is reopened (its controller lost its settings with its power)
and shown the current picture at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from PIL import Image

from pitable.hw.clock import Clock
from pitable.rules.base import ENGLISH, N_, Translator

log = logging.getLogger("pitable.box")

#: Seconds between retries of a failed part: quick at first, then every half minute.
BACKOFF = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)

#: The notice of each panel the box names (:func:`~pitable.box.assembly.build_box` names
#: them), whole, so that each language words it its own way ("l'écran du dé rouge").
NOT_ANSWERING = {
    "green die": N_("green die display not answering"),
    "purple die": N_("purple die display not answering"),
    "red die": N_("red die display not answering"),
    "status": N_("status display not answering"),
}
#: The notice of a panel named otherwise.
OTHER_NOT_ANSWERING = N_("{part} display not answering")


class Display(Protocol):
    """A panel as a slot drives it: luma's devices, the box's own OLED driver, the fakes.
    A panel with a ``cleanup()`` has it called when the slot closes."""

    def display(self, image: Image.Image) -> None: ...


class DisplaySlot:
    """One panel of the box, opened by ``opener`` and reopened by it after a failure."""

    def __init__(
        self,
        name: str,
        opener: Callable[[], Display],
        size: tuple[int, int],
        clock: Clock,
        *,
        backoff: tuple[float, ...] = BACKOFF,
    ) -> None:
        self.name = name
        self.opener = opener
        self.size = size
        self.clock = clock
        self.backoff = backoff
        self.panel: Display | None = None
        self.wanted: Image.Image | None = None
        self.failure: str | None = None
        self.failures = 0
        self.retry_at: float | None = None
        self._open()

    @property
    def degraded(self) -> bool:
        return self.failure is not None

    def show(self, image: Image.Image) -> None:
        """Show ``image`` now, or as soon as the panel answers again."""
        self.wanted = image
        if self.panel is None:
            return
        try:
            self.panel.display(image)
        except Exception as exc:
            self._fail(exc)

    def retry(self) -> bool:
        """Reopen the panel if its retry is due; True when it is back."""
        if self.retry_at is None or self.clock.now() < self.retry_at:
            return False
        if not self._open():
            return False
        if self.wanted is not None:
            self.show(self.wanted)
        if self.degraded:
            return False
        log.warning("%s display is back", self.name)
        return True

    def _open(self) -> bool:
        try:
            self.panel = self.opener()
        except Exception as exc:
            self._fail(exc)
            return False
        self.failure = None
        self.failures = 0
        self.retry_at = None
        return True

    def _fail(self, exc: BaseException) -> None:
        self.panel = None
        delay = self.backoff[min(self.failures, len(self.backoff) - 1)]
        self.failures += 1
        self.retry_at = self.clock.now() + delay
        reason = str(exc) or type(exc).__name__
        if self.failure is None:
            log.warning("%s display failed: %s; retrying in %g s", self.name, reason, delay)
        self.failure = reason

    def close(self) -> None:
        """Let go of the panel's bus; the panel keeps its picture (luma's ``persist``)."""
        panel, self.panel = self.panel, None
        # Stop retrying: a closed slot must not reopen its bus.
        self.retry_at = None
        cleanup = getattr(panel, "cleanup", None)
        if cleanup is not None:
            cleanup()

    def notice(self, tr: Translator = ENGLISH) -> str | None:
        """The status screen's line while the panel is down, in ``tr``'s language."""
        if not self.degraded:
            return None
        if self.name in NOT_ANSWERING:
            return tr.gettext(NOT_ANSWERING[self.name])
        return tr.gettext(OTHER_NOT_ANSWERING).format(part=self.name)
