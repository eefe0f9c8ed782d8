"""The game bookkeeping: which game the box plays, and what the session store keeps of it.

A game is resumed after a restart (its round, its last roll and its map), started anew from
the menu on a fresh map or on the last printed sheet's, ended with or without a score (a
total, or its components one by one), and each roll is recorded before it is shown. A store
that fails never stops the game. A write it cannot take now (another program holds the
database, the disk is full) is kept, in order behind any others waiting, and tried again
from the loop without waiting on the database, until it is on disk; the status screen
counts the rolls that wait. A write the store refuses for good (a read-only database, one
that disagrees with the box) is named on the status screen, and the box goes on rolling.
The menu's choices that outlive a game (how many players, the last sheet printed) are kept
in the store's settings.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pitable.box.config_title import configured_title
from pitable.box.table_map import TableMap, stored_map
from pitable.config import BoxConfig
from pitable.errors import BadSheet, PitableError, StoreWriteFailed
from pitable.rules import Options, Roll, Title, find_title
from pitable.rules.base import ENGLISH, Translator
from pitable.rules.session import GameState, Mode, Turn, level
from pitable.rules.sheets import Side

log = logging.getLogger("pitable.box")


#: A score's components as entered: (name, stars), in the order of the title's sheet.
ScoreParts = tuple[tuple[str, int], ...]

#: How many players a table may print sheets for, and how many it prints at first.
PLAYERS_RANGE = (1, 100)
DEFAULT_PLAYERS = 4

#: How long a write the store could not take waits before it is tried again: at first, and
#: at most (doubling in between). Each try gives up at once if another writer holds the
#: database, so the loop never waits for one.
RETRY_FIRST_S = 0.05
RETRY_MOST_S = 1.0
#: The most writes kept waiting for the store (a game night is a few hundred rolls); one
#: more is not kept, and the screen says that rolls are not being saved.
MOST_WAITING = 5000
#: The most waiting writes made in one turn of the loop, each synced to disk: the rest come
#: in the next turns, so that the loop handles presses in between.
WRITES_PER_TURN = 5


def score_components(title: Title) -> tuple[str, ...]:
    """The components ``title`` scores a finished sheet by, in its own order (the names
    :meth:`Title.score` gives, "Full grid", "Jungles"...); () for a title that does
    not say how its sheets score, whose score is entered as a bare total."""
    from pitable.rules.scoring import parse_sheet

    try:
        # One empty space is a sheet every title that scores can read: the score of it
        # names each component, worth nothing.
        score = title.score(parse_sheet("_"))
    except BadSheet:
        return ()
    return tuple(name for name, _ in score.components)


class StoredGame(Protocol):
    """A game as the store keeps it."""

    @property
    def id(self) -> int: ...

    @property
    def title(self) -> str: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def map(self) -> TableMap | None: ...


class StoredRoll(Protocol):
    """A roll as the store keeps it."""

    @property
    def hazard(self) -> bool: ...


class Store(Protocol):
    """What the box needs of :class:`~pitable.box.store.SessionStore`; raises StoreError,
    and StoreWriteFailed for a write that may succeed when tried again."""

    #: How long a write waits for another writer of the database, in seconds.
    write_wait: float

    @property
    def recovered(self) -> str | None:
        """One line when a damaged database was moved aside and a fresh one started."""
        ...

    @property
    def read_only(self) -> str | None:
        """One line when a sound database cannot be written: rolls are not kept."""
        ...

    def current_game(self) -> StoredGame | None: ...

    def games(self) -> Sequence[StoredGame]: ...

    def state(self, game_id: int) -> GameState: ...

    def last_roll(self, game_id: int) -> StoredRoll | None: ...

    def new_game(
        self, title: Title | str, mode: Mode, table_map: TableMap | None = None
    ) -> StoredGame: ...

    def set_map(self, game_id: int, table_map: TableMap) -> object: ...

    def end_game(
        self, game_id: int, score: int | None = None, parts: ScoreParts | None = None
    ) -> object: ...

    def setting(self, name: str) -> str | None: ...

    def set_setting(self, name: str, value: str) -> None: ...

    def now(self) -> datetime: ...

    def record_roll(
        self, game_id: int, roll: Roll, source: str, hazard: bool, hazards_after: int,
        *, at: datetime | None = None,
        deal: Callable[[list[int]], Mapping[int, int]] | None = None,
    ) -> object: ...

    def close(self) -> None: ...


@dataclass
class Game:
    state: GameState
    #: The map everyone at the table plays on, and every sheet printed for the game shows.
    map: TableMap
    #: The game's id in the session store, when there is one.
    store_id: int | None = None
    last_options: Options | None = None
    ended: bool = False

    @property
    def title(self) -> Title:
        return self.state.title


@dataclass(frozen=True)
class Asked:
    """What the command line asked of the box's first game and words (None: nothing)."""

    title: Title | None = None
    mode: Mode | None = None
    language: str | None = None


@dataclass
class _Write:
    """A write for the store: what it is (for the log), and the call that makes it."""

    what: str
    call: Callable[[], object]
    roll: bool = False


@dataclass(frozen=True)
class Ending:
    """What the screens say when a game ends: its level (solo, with a score) and a line."""

    result: str | None
    message: str


class Games:
    """The current game and its store (None: nothing is kept).

    ``seeds`` gives a fresh map's seed (the box draws it from its entropy source), ``now``
    the time that writes waiting for the store are tried again by (the box's clock).
    """

    def __init__(self, store: Store | None, settings: BoxConfig,
                 seeds: Callable[[], int], now: Callable[[], float] = lambda: 0.0) -> None:
        self.store = store
        self.settings = settings
        self.seeds = seeds
        self.now = now
        #: Why the last write to the store failed for good; None once a write succeeds.
        self.failure: str | None = None
        self._current: Game | None = None
        #: The game resumed from the store when the box started; None when it started one.
        self.resumed: Game | None = None
        #: Whether the resumed game kept its stored map (else it was given a fresh one).
        self.resumed_map_kept = False
        #: The settings as the box knows them: the store's, and those it could not keep.
        self._settings: dict[str, str] = {}
        #: The writes the store could not take yet, oldest first, and when the oldest is
        #: tried again.
        self._waiting: deque[_Write] = deque()
        self.retry_at: float | None = None
        self._retry_s = RETRY_FIRST_S
        self._last_error = ""
        #: The store's own wait, used when the box closes: the loop's writes never wait.
        self._closing_wait = 0.0
        if store is not None:
            self._closing_wait = store.write_wait
            store.write_wait = 0.0

    @property
    def current(self) -> Game:
        if self._current is None:
            raise RuntimeError("no game yet: the box has not been started")
        return self._current

    def resume_or_start(self, asked: Asked | None = None) -> Game:
        """After a restart or a power cut: the stored game, its round, last roll and map.

        When no game is in progress, a new one: of the title and mode ``asked`` on the
        command line where it asks one, else of those chosen last, else the config's. A
        game in progress is resumed whatever was asked (:attr:`resumed` says which).
        The store's errors propagate: a box that cannot read its games does not start.
        """
        asked = asked or Asked()
        if self.store is not None:
            current = self.store.current_game()
            if current is not None:
                state = self.store.state(current.id)
                table_map = current.map
                if table_map is None:
                    # A game saved before games had maps, or on a map of another generator
                    # format (its seed now draws another map): it gets one now, kept from
                    # here on, so every sheet printed from here on matches the header.
                    table_map = self.fresh_map(state.title)
                    self._save(f"map of game {current.id}",
                               lambda: self._stored().set_map(current.id, table_map))
                game = Game(state, table_map, current.id)
                last = self.store.last_roll(current.id)
                if state.last_roll is not None and last is not None:
                    # What the last roll allowed when it was rolled: its own hazard, if it
                    # counted one, was not yet marked then.
                    before = state.hazards - int(last.hazard)
                    game.last_options = game.title.options(state.last_roll, before)
                log.info("resumed game %d: %s, %s, round %d, map %s", current.id,
                         state.title.key, state.mode, state.rounds, table_map.tag)
                self._current = game
                self.resumed = game
                self.resumed_map_kept = current.map is not None
                return game
            games = self.store.games()
            if games:
                # The last game ended: the next one is of the title and mode chosen last,
                # unless the command line asks for others.
                chosen = games[-1]
                return self.new_game(asked.title or find_title(chosen.title),
                                     asked.mode or chosen.mode)
        return self.new_game(asked.title or configured_title(self.settings),
                             asked.mode or Mode.from_str(self.settings.mode))

    def fresh_map(self, title: Title) -> TableMap:
        """A new map of ``title``: side A, a seed no one chose."""
        return TableMap(title, Side.A, self.seeds())

    def new_game(self, title: Title, mode: Mode, table_map: TableMap | None = None) -> Game:
        """Start a game of ``title`` in ``mode`` on ``table_map`` (None: a fresh map),
        saved when the store takes it."""
        state = GameState(title, mode)
        if table_map is None or table_map.title is not state.title:
            table_map = self.fresh_map(state.title)
        game = Game(state, table_map)
        on_map = table_map

        def save() -> None:
            game.store_id = self._stored().new_game(state.title, state.mode, on_map).id

        self._save("new game", save)
        log.info("new game: %s, %s, map %s", state.title.name, state.mode, table_map.tag)
        self._current = game
        return game

    def next_game(self) -> Game:
        """The game to roll in: the current one, or a new one like it once it has ended."""
        game = self.current
        if game.ended:
            game = self.new_game(game.state.title, game.state.mode)
        return game

    def end(self, score: int | None = None, parts: ScoreParts | None = None,
            tr: Translator = ENGLISH) -> Ending:
        """End the current game, with its final score when one was entered, and the
        components it was entered by, if it was; the line for the screen in ``tr``'s
        language (the level stays English: the screen translates it)."""
        game = self.current
        game.ended = True

        def save() -> None:
            if game.store_id is not None:  # else its start was not kept either
                self._stored().end_game(game.store_id, score, parts)

        self._save("end of game", save)
        if parts is not None:
            log.info("score by parts: %s", ", ".join(f"{n} {s}" for n, s in parts))
        if score is not None and game.state.mode is Mode.SOLO:
            result = level(game.state.title, score, game.state.hazards)
            log.info("game ended: %s stars: %s; %s", score, result.name,
                     f"{result.stars_needed} more for {result.next_level}"
                     if result.next_level else "the highest level")
            _ = tr.gettext
            if result.next_level:
                line = _("{score} stars; {needed} more for {level}").format(
                    score=score, needed=result.stars_needed, level=_(result.next_level))
            else:
                line = _("{score} stars; the highest level").format(score=score)
            return Ending(result.name, line)
        log.info("game ended")
        return Ending(None, tr.gettext("Game ended. Press ROLL for a new one."))

    def record(self, turn: Turn, source: str,
               deal: Callable[[list[int]], Mapping[int, int]] | None = None) -> None:
        """Save ``turn`` of the current game, then make it the game's state; ``deal``
        deals a table's hazard among the players on phones, kept with the roll
        (:meth:`SessionStore.record_roll`)."""
        game = self.current
        # Stamped when it is shown, not when the store takes it: it may wait for the store.
        at = self.store.now() if self.store is not None else None

        def save() -> None:
            if game.store_id is not None:  # else its game's start was not kept either
                self._stored().record_roll(game.store_id, turn.roll, source, turn.hazard,
                                           turn.state.hazards, at=at, deal=deal)

        self._save(f"roll {turn.round}", save, roll=True)
        game.state = turn.state
        game.last_options = turn.options

    # --- the menu's choices that outlive a game -----------------------------------------

    def setting(self, name: str) -> str | None:
        """A remembered choice: the one made since the box started, else the store's."""
        if name not in self._settings and self.store is not None:
            try:
                value = self.store.setting(name)
            except PitableError as exc:
                log.error("setting %s not read: %s", name, exc)
                value = None
            if value is not None:
                self._settings[name] = value
        return self._settings.get(name)

    def remember(self, name: str, value: str) -> None:
        """Remember a choice, in the store when it takes it (else until the box stops)."""
        self._settings[name] = value
        self._save(f"setting {name}", lambda: self._stored().set_setting(name, value))

    @property
    def players(self) -> int:
        """How many sheets "Sheets for N players" prints: the number set last."""
        low, high = PLAYERS_RANGE
        try:
            return max(low, min(high, int(self.setting("players") or DEFAULT_PLAYERS)))
        except ValueError:
            return DEFAULT_PLAYERS

    @players.setter
    def players(self, count: int) -> None:
        self.remember("players", str(count))

    @property
    def last_sheet(self) -> TableMap | None:
        """The map of the last sheet the box printed, if any."""
        return stored_map(self.setting("last_sheet"))

    def printed(self, table_map: TableMap) -> None:
        """A sheet of ``table_map`` went to the printer: a new game may take its map."""
        self.remember("last_sheet", table_map.to_text())

    def _stored(self) -> Store:
        assert self.store is not None
        return self.store

    # --- writes to the store, in order ----------------------------------------------

    def _save(self, what: str, call: Callable[[], object], *, roll: bool = False) -> None:
        """Make the write ``call`` (``what`` names it in the log) after any still waiting;
        kept to try again if the store cannot take it now."""
        if self.store is None:
            return
        write = _Write(what, call, roll)
        if self._waiting:
            self._keep(write)
            return
        if self._attempt(write):
            return
        log.warning("%s not saved yet: %s; kept, and tried again until it is", what,
                    self._last_error)
        self._keep(write)
        self.retry_at = self.now() + self._retry_s

    def _keep(self, write: _Write) -> None:
        if len(self._waiting) >= MOST_WAITING:
            log.error("%s not saved: %d writes already wait for the store", write.what,
                      len(self._waiting))
            self.failure = f"{len(self._waiting)} writes waiting"
            return
        self._waiting.append(write)

    def _attempt(self, write: _Write) -> bool:
        """Make ``write``: True when it is done with (on disk, or refused for good and said
        so), False when the store may take it later."""
        try:
            write.call()
        except StoreWriteFailed as exc:
            if self.store is not None and self.store.read_only:
                # A database this box may not write: no retry will change that.
                log.error("%s not saved: %s", write.what, exc)
                self.failure = str(exc)
                return True
            self._last_error = str(exc)
            return False
        except PitableError as exc:
            # The store refuses it for good (the database disagrees with the box, the game
            # is not there): say so, and go on with the next.
            log.error("%s not saved: %s", write.what, exc)
            self.failure = str(exc)
            return True
        if write.roll:
            self.failure = None
        return True

    @property
    def waiting(self) -> int:
        """How many writes wait for the store."""
        return len(self._waiting)

    def retry(self, most: int = WRITES_PER_TURN) -> bool:
        """Try the waiting writes again, oldest first, until one fails again or ``most``
        are done; True when any was done with (what the status screen counts changed)."""
        done = 0
        while self._waiting:
            if done >= most:
                self.retry_at = self.now()  # the next turn of the loop goes on
                return True
            if not self._attempt(self._waiting[0]):
                self._retry_s = min(RETRY_MOST_S, self._retry_s * 2)
                self.retry_at = self.now() + self._retry_s
                return done > 0
            self._waiting.popleft()
            done += 1
        if done:
            log.warning("the writes that waited for the store are saved")
        self.retry_at = None
        self._retry_s = RETRY_FIRST_S
        return done > 0

    def close(self) -> None:
        """Before the store closes: the writes still waiting are tried once more, each
        waiting for the database as long as the store's own timeout; any left are lost,
        and the log names each."""
        if self.store is None or not self._waiting:
            return
        self.store.write_wait = self._closing_wait
        self.retry(most=len(self._waiting))
        for write in self._waiting:
            log.error("%s not saved: the box stopped before the store took it (%s)",
                      write.what, self._last_error)
        self._waiting.clear()

    def notices(self, tr: Translator = ENGLISH) -> list[str]:
        """What the status screen says of the store, in ``tr``'s language."""
        found = []
        if self.store is not None and self.store.recovered:
            found.append(tr.gettext("state was damaged: fresh start"))
        if rolls := sum(w.roll for w in self._waiting):
            found.append(tr.ngettext("{count} roll waiting to be saved",
                                     "{count} rolls waiting to be saved", rolls
                                     ).format(count=rolls))
        elif self._waiting:
            found.append(tr.gettext("changes waiting to be saved"))
        if self.failure is not None or (self.store is not None and self.store.read_only):
            # A database the box may not write says so from the start, not from the first
            # roll it fails to keep.
            found.append(tr.gettext("rolls are not being saved"))
        return found
