"""What the table sees, as one immutable value: the box's loop publishes, others read.

The box's loop is the only owner of the game. Whatever shows the roll away from the box's
own screens (the table's web page, a TV) gets a :class:`TableSnapshot` after every change
the players can see, built on the loop's thread from the same view the status screen
draws, and never a reference into the loop's state: a snapshot is frozen, its collections
are tuples, and a watcher may keep it or hand it to another thread as it likes.

During the tumble the snapshot says ``rolling`` and carries no roll, so that nothing away
from the box shows the faces before the box's own dice do.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from pitable.i18n import translator
from pitable.render.status import StatusView, reading_of
from pitable.rules.session import Mode

log = logging.getLogger("pitable.box")

#: How many of the last shown rolls a snapshot carries.
RECENT = 8


@dataclass(frozen=True)
class TableSnapshot:
    """The game as the table sees it at one moment."""

    #: Counts the snapshots published by one box, from 1: a watcher can tell new from old.
    seq: int
    #: The title's key (as `pitable options` takes it) and its name as the box shows it,
    #: in the box's language.
    title: str
    title_name: str
    #: How the game is played; the JSON says it as the plain word, "table" or "solo".
    mode: Mode
    #: The map everyone plays ("A·1234": side and seed), as the status screen's header names it.
    map: str | None
    #: True while the dice tumble: the roll is not shown yet.
    rolling: bool
    #: What the last shown roll allows, as ``pitable options --json`` prints it; None
    #: before the first roll, during a tumble and once a game's result is shown.
    options: dict[str, Any] | None
    #: The status screen's words as whole sentences: the headline first, then each line.
    words: tuple[str, ...]
    round: int | None
    round_limit: int | None
    #: Hazards marked so far (solo play), and the sheet's limit if it has one.
    hazards: int | None
    hazard_limit: int | None
    #: A finished game's level, in the box's language; a transient message ("Rolling...",
    #: "Printing sheet...").
    result: str | None
    message: str | None
    #: The last few shown rolls, newest first, each as ``options``.
    recent: tuple[dict[str, Any], ...] = ()
    #: The language of the words ("en", "fr"...), which a watcher's own labels follow.
    lang: str = "en"
    #: An ended table game's ranking, best first: place, initials, stars, shared.
    ranking: tuple[tuple[int, str, int, bool], ...] = ()
    #: A player's sheet the TV shows in its corner: initials, stars, the map's rows (a
    #: kind's letter a position) and the tokens written; None without players on phones.
    corner: tuple[str, int, tuple[str, ...], tuple[tuple[str, ...], ...]] | None = None

    @property
    def roll(self) -> list[object] | None:
        return None if self.options is None else list(self.options["roll"])

    def to_json(self) -> dict[str, Any]:
        """One JSON object: the fields above, and ``roll``, ``numbers`` and ``hazard``
        lifted out of ``options`` for readers that want only those."""
        options = self.options
        return {
            "seq": self.seq,
            "title": self.title,
            "title_name": self.title_name,
            "mode": str(self.mode),
            "map": self.map,
            "rolling": self.rolling,
            "roll": self.roll,
            "numbers": list(options["numbers"]) if options else [],
            "hazard": bool(options["hazard"]) if options else False,
            "options": options,
            "words": list(self.words),
            "round": self.round,
            "round_limit": self.round_limit,
            "hazards": self.hazards,
            "hazard_limit": self.hazard_limit,
            "result": self.result,
            "message": self.message,
            "recent": list(self.recent),
            "lang": self.lang,
            "ranking": [{"place": p, "initials": i, "total": t, "shared": s}
                        for p, i, t, s in self.ranking],
            "corner": None if self.corner is None else {
                "initials": self.corner[0], "total": self.corner[1],
                "rows": list(self.corner[2]), "cells": [list(r) for r in self.corner[3]]},
        }

    def same_as(self, other: TableSnapshot | None) -> bool:
        """The same picture for the table (the sequence number aside)."""
        return other is not None and all(getattr(self, name) == getattr(other, name)
                                         for name in _COMPARED)


#: What a snapshot is compared by: everything but its sequence number.
_COMPARED = tuple(f.name for f in fields(TableSnapshot) if f.name != "seq")


def words_of(view: StatusView) -> tuple[str, ...]:
    """The status screen's words for ``view``, in its language, as whole sentences: the
    title's reading of the roll (its headline, then each line, which the screen wraps and
    pages to its size), else the level reached or the message."""
    reading = reading_of(view)
    if reading is not None:
        return (reading.headline, *reading.lines)
    if view.result is not None:
        return (translator(view.lang).gettext(view.result),)
    return (view.message,) if view.message else ()


Watcher = Callable[[TableSnapshot], None]


@dataclass
class Publisher:
    """Builds a snapshot from each status view and hands it to the watchers when it differs.

    Runs on the box's loop. A watcher must return at once (hand the snapshot over to its
    own thread or event loop); one that raises is logged and kept.
    """

    watchers: list[Watcher] = field(default_factory=list)
    latest: TableSnapshot | None = None
    _recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT))
    _last_options: dict[str, Any] | None = None

    def subscribe(self, watcher: Watcher) -> None:
        """Add ``watcher``; it is handed the latest snapshot at once, if there is one."""
        self.watchers.append(watcher)
        if self.latest is not None:
            _tell(watcher, self.latest)

    def publish(self, view: StatusView, *, rolling: bool) -> TableSnapshot:
        """Publish ``view`` if the table sees a change."""
        title = view.title
        latest = self.latest
        if _new_game(latest, title.key, view.round):
            # A new game: its rolls start afresh.
            self._recent.clear()
            self._last_options = None
        options = None if rolling or view.options is None else view.options.to_json()
        if options is not None and options != self._last_options:
            self._recent.appendleft(options)
        if options is not None:
            self._last_options = options
        snapshot = TableSnapshot(
            seq=(self.latest.seq + 1) if self.latest is not None else 1,
            title=title.key,
            title_name=title.display_name(translator(view.lang)),
            mode=Mode.SOLO if view.solo else Mode.TABLE,
            map=view.map_tag,
            rolling=rolling,
            options=options,
            words=() if rolling else words_of(view),
            round=view.round,
            round_limit=view.round_limit,
            hazards=view.hazards,
            hazard_limit=title.hazard_limit,
            result=(None if view.result is None
                    else translator(view.lang).gettext(view.result)),
            message=view.message,
            recent=tuple(self._recent),
            lang=view.lang,
            ranking=view.ranking,
            corner=view.corner,
        )
        if snapshot.same_as(self.latest):
            assert self.latest is not None
            return self.latest
        self.latest = snapshot
        for watcher in list(self.watchers):
            _tell(watcher, snapshot)
        return snapshot


def _new_game(latest: TableSnapshot | None, title: str, round_now: int | None) -> bool:
    """Whether the view is of another game than ``latest``: another title, or the rounds
    counted afresh (a game starts at round 0, which a table game shows as no round)."""
    if latest is None:
        return False
    if latest.title != title:
        return True
    return latest.round is not None and (round_now is None or round_now < latest.round)


def _tell(watcher: Watcher, snapshot: TableSnapshot) -> None:
    try:
        watcher(snapshot)
    except Exception:  # a watcher's fault must not stop the box
        log.exception("a watcher of the table's snapshots failed")
