"""The session store: every game and every roll, on SQLite, durable before the faces show.

One file, ``pitable.db``, in the state directory (:func:`default_state_dir`). Each roll is
one transaction, committed with the WAL synced to disk (``journal_mode=WAL``,
``synchronous=FULL``) before :meth:`SessionStore.record_roll` returns, so a roll that the
box has shown survives a power cut. Opening the store after one gives back the same
current game, its round and its last roll.

Each game keeps its map (side and seed; the title is the game's) and, for a score entered
part by part, its parts; the menu's choices that outlive a game are the store's settings
(:meth:`SessionStore.setting`). The players who join a game on their phones, and their
moves, are kept by :class:`pitable.box.players.PlayerBook` in the same database.

The schema is versioned with ``PRAGMA user_version`` and migrated forward one step at a
time (:data:`MIGRATIONS`). A database opened read-only before its migration (``pitable
history`` never writes) reads as it is: its games have no map and no parts.

State that cannot be used (not SQLite, damaged, failing ``PRAGMA integrity_check``,
another program's database, or one written by a newer pitable) never stops the box: the
file is moved aside with a timestamp in its name, nothing is deleted, a fresh database is
started, and :attr:`SessionStore.recovered` says what happened in one line (also logged as
a warning on ``pitable.store``) for the status screen.

A sound database that cannot be written here (a read-only file, directory or filesystem) is
not damaged: it is opened read-only (SQLite's ``mode=ro``) and left exactly as it is, the
games read as they were, every write fails with :class:`StoreError`, and
:attr:`SessionStore.read_only` says so in one line. :meth:`SessionStore.open_read_only` is
for readers (``pitable history``): it never creates, changes or moves a file.

>>> store = SessionStore.open(tmp)                                     # doctest: +SKIP
>>> game = store.new_game(default_title(), "solo")                      # doctest: +SKIP
>>> store.record_roll(game.id, Roll.from_str("2,3,5"), "os", False, 0)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pitable.box.table_map import TableMap
from pitable.errors import (
    BadScore,
    GameEnded,
    InconsistentRoll,
    StoreBusy,
    StoreDamaged,
    StoreError,
    StoreInUse,
    StoreUnavailable,
    StoreWriteFailed,
    UnknownGame,
)
from pitable.rules.base import Title
from pitable.rules.dice import SPECIAL, Face, Roll
from pitable.rules.session import GameState, Mode, level
from pitable.rules.sheets import MAP_FORMATS, Side
from pitable.rules.titles import as_title, find_title
from pitable.xdg import state_home

log = logging.getLogger("pitable.store")

DB_NAME = "pitable.db"

#: The most memory SQLite's page cache may take, in KiB.
PAGE_CACHE_KIB = 256
#: ``PRAGMA application_id`` of a pitable database ("PiTb"): tells ours from another
#: program's SQLite file that happens to sit at the same path.
APPLICATION_ID = 0x50695462

#: The schema, one step per version: ``MIGRATIONS[k]`` takes a database from version k to
#: k + 1. Steps are only ever appended; a released step is never edited. A step is split
#: on ";" to run in one transaction, so it holds no trigger bodies or ";" in strings.
MIGRATIONS: tuple[str, ...] = (
    # 0 -> 1: games and their rolls. Faces are text, "1" to "6" or "*" for the special
    # face, so that the table reads like `pitable roll` in the sqlite3 shell and either
    # dice set (1-5 or 2-6) fits.
    f"""
    PRAGMA application_id = {APPLICATION_ID};
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        title TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('table', 'solo')),
        started_at TEXT NOT NULL,
        ended_at TEXT,
        score INTEGER,
        level TEXT,
        hazards INTEGER NOT NULL DEFAULT 0 CHECK (hazards >= 0)
    );
    CREATE TABLE rolls (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games (id),
        n INTEGER NOT NULL CHECK (n >= 1),
        at TEXT NOT NULL,
        green TEXT NOT NULL,
        purple TEXT NOT NULL,
        red TEXT NOT NULL,
        source TEXT NOT NULL,
        hazard INTEGER NOT NULL CHECK (hazard IN (0, 1)),
        hazards_after INTEGER NOT NULL CHECK (hazards_after >= 0)
    );
    """,
    # 1 -> 2: every press reads the last roll of the current game; without an index that
    # is a scan of the whole history, which grows with every game night. Unique, so that
    # one round cannot be recorded twice.
    """
    CREATE UNIQUE INDEX rolls_game_round ON rolls (game_id, n);
    CREATE INDEX games_open ON games (ended_at) WHERE ended_at IS NULL;
    """,
    # 2 -> 3: the map a game is played on (its title is the game's; the generator's format,
    # since another format draws another map from the same seed), the components of a
    # score entered part by part (a JSON list of [name, stars]), and the menu's choices
    # that outlive a game (the number of players, the last sheet printed). A game saved
    # before has no map and no parts: NULL.
    """
    ALTER TABLE games ADD COLUMN map_side TEXT CHECK (map_side IN ('a', 'b'));
    ALTER TABLE games ADD COLUMN map_seed INTEGER CHECK (map_seed BETWEEN 0 AND 999999);
    ALTER TABLE games ADD COLUMN map_format INTEGER;
    ALTER TABLE games ADD COLUMN score_parts TEXT;
    CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 3 -> 4: the players who joined a game on their phones (initials stored upper-case,
    # so that the unique pair compares them without case; a SHA-256 of the phone's secret
    # token, never the token), every move each of them made on their sheet (its cells a
    # JSON list of [row, column] from 0, its value JSON or NULL), and the rounds each of
    # them has finished, whose moves can no longer be taken back.
    """
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games (id),
        initials TEXT NOT NULL,
        token_hash BLOB NOT NULL UNIQUE,
        joined_at TEXT NOT NULL,
        bot INTEGER NOT NULL DEFAULT 0 CHECK (bot IN (0, 1)),
        UNIQUE (game_id, initials)
    );
    CREATE TABLE moves (
        id INTEGER PRIMARY KEY,
        player_id INTEGER NOT NULL REFERENCES players (id),
        round INTEGER NOT NULL CHECK (round >= 1),
        seq INTEGER NOT NULL CHECK (seq >= 1),
        act TEXT NOT NULL,
        cells TEXT NOT NULL,
        value TEXT,
        at TEXT NOT NULL,
        UNIQUE (player_id, round, seq)
    );
    CREATE TABLE turns_done (
        player_id INTEGER NOT NULL REFERENCES players (id),
        round INTEGER NOT NULL CHECK (round >= 1),
        at TEXT NOT NULL,
        PRIMARY KEY (player_id, round)
    );
    """,
    # 4 -> 5: the whole table on phones. The hazards dealt at a table's hazard roll, in the
    # roll's own transaction: each player of the game (the placer) draws on another's sheet
    # (the owner's), one hazard a sheet a roll (unique), the space once drawn (JSON
    # [row, column], NULL until) and whether the box drew it for a placer who did not;
    # the stars of the players who played on paper, entered once the game ended (the
    # tie-break's figure where they gave it); and the game's ranking as it last stood.
    """
    CREATE TABLE deals (
        game_id INTEGER NOT NULL REFERENCES games (id),
        round INTEGER NOT NULL CHECK (round >= 1),
        placer_id INTEGER NOT NULL REFERENCES players (id),
        owner_id INTEGER NOT NULL REFERENCES players (id),
        cell TEXT,
        by_box INTEGER NOT NULL DEFAULT 0 CHECK (by_box IN (0, 1)),
        placed_at TEXT,
        PRIMARY KEY (game_id, round, placer_id),
        UNIQUE (game_id, round, owner_id)
    );
    CREATE TABLE paper_scores (
        game_id INTEGER NOT NULL REFERENCES games (id),
        initials TEXT NOT NULL,
        total INTEGER NOT NULL,
        tie INTEGER,
        at TEXT NOT NULL,
        PRIMARY KEY (game_id, initials)
    );
    CREATE TABLE standings (
        game_id INTEGER NOT NULL REFERENCES games (id),
        place INTEGER NOT NULL CHECK (place >= 1),
        initials TEXT NOT NULL,
        total INTEGER NOT NULL,
        tie INTEGER,
        bot INTEGER NOT NULL CHECK (bot IN (0, 1)),
        paper INTEGER NOT NULL CHECK (paper IN (0, 1)),
        shared INTEGER NOT NULL CHECK (shared IN (0, 1)),
        PRIMARY KEY (game_id, initials)
    );
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)
#: The first version whose games have a map and score parts, and that has settings.
MAPS_SINCE = 3
#: The first version that keeps the players of a game and their moves
#: (:class:`pitable.box.players.PlayerBook`).
PLAYERS_SINCE = 4
#: The first version that keeps a table's hazards dealt, the paper players' scores and the
#: ranking (:class:`pitable.box.players.PlayerBook`).
DEALS_SINCE = 5

# SQLite's result codes for a database that another connection holds: waiting is the
# answer, never moving the file aside.
_BUSY_CODES = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
# SQLite's primary result codes (the low byte of an extended code such as
# SQLITE_READONLY_DIRECTORY) for a file that may not be opened or written here: permissions
# or a read-only filesystem, never damage.
_REFUSED_CODES = {sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM}

#: The files SQLite keeps beside a database, which belong to it.
_COMPANIONS = ("-wal", "-shm", "-journal")


def default_state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where the box keeps its state when the configuration names no directory.

    systemd's ``StateDirectory=pitable`` sets ``$STATE_DIRECTORY`` (``/var/lib/pitable``;
    the first of a colon-separated list); elsewhere the XDG state directory,
    ``$XDG_STATE_HOME/pitable`` or ``~/.local/state/pitable``.
    """
    env = os.environ if environ is None else environ
    if systemd := env.get("STATE_DIRECTORY", "").split(":")[0]:
        return Path(systemd)
    return state_home(env) / "pitable"


def database_path(
    location: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The database file for ``location``: a state directory, or a file ending in ``.db``.

    None (or an empty string, as in a config without ``box.state_dir``) means
    :func:`default_state_dir`.
    """
    if location is None or os.fspath(location) == "":
        return default_state_dir(environ) / DB_NAME
    path = Path(location).expanduser()
    if path.is_dir() or path.suffix.lower() not in (".db", ".sqlite", ".sqlite3"):
        return path / DB_NAME
    return path


#: A score's components as entered, in the order of the title's sheet: (name, stars).
ScoreParts = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Game:
    """One game as stored: its title, mode, map, when it ran, and how it ended."""

    id: int
    #: The title's key, as stored (``find_title`` gives the title).
    title: str
    mode: Mode
    started_at: datetime
    ended_at: datetime | None
    score: int | None
    #: The adventurer level of a solo game's score; None in table play or without a score.
    level: str | None
    #: Hazards marked so far (snakes, dangers up to five, mummies).
    hazards: int
    #: Rolls recorded so far: the round of the last roll.
    rounds: int
    #: The side and seed of the game's map; None for a game saved before games had maps.
    side: Side | None = None
    seed: int | None = None
    #: The map generator's format the map was drawn with (:data:`MAP_FORMAT` then).
    map_format: int | None = None
    #: The score's components when it was entered part by part; None for a bare total.
    parts: ScoreParts | None = None

    @property
    def ended(self) -> bool:
        return self.ended_at is not None

    @property
    def map(self) -> TableMap | None:
        """The map the game is played on, when it has one that this version draws (an older
        format's is drawn again as it was): a map of a format this version does not draw
        would be another map under the same seed, so it is none."""
        if self.side is None or self.seed is None or self.map_format not in MAP_FORMATS:
            return None
        return TableMap(find_title(self.title), self.side, self.seed, self.map_format)

    def to_json(self) -> dict[str, object]:
        table_map = self.map
        return {
            "id": self.id,
            "title": self.title,
            "mode": self.mode.value,
            "map": table_map.to_json() if table_map is not None else None,
            "started_at": self.started_at.isoformat(timespec="milliseconds"),
            "ended_at": self.ended_at.isoformat(timespec="milliseconds") if self.ended_at else None,
            "score": self.score,
            "parts": dict(self.parts) if self.parts is not None else None,
            "level": self.level,
            "hazards": self.hazards,
            "rounds": self.rounds,
        }


@dataclass(frozen=True)
class RollRecord:
    """One roll as stored."""

    id: int
    game_id: int
    #: The round: 1 for the first roll of the game.
    n: int
    at: datetime
    roll: Roll
    #: The entropy source's name (``hwrng:/dev/hwrng``, ``os``).
    source: str
    #: A hazard to draw, counted; one the title ignores past its limit shows as a red ``*``
    #: without it.
    hazard: bool
    hazards_after: int

    def to_json(self) -> dict[str, object]:
        return {
            "n": self.n,
            "at": self.at.isoformat(timespec="milliseconds"),
            "faces": self.roll.to_json(),
            "source": self.source,
            "hazard": self.hazard,
            "hazards_after": self.hazards_after,
        }


class _Unusable(Exception):
    """The database at hand cannot be used; ``kind`` is corrupt or foreign."""

    def __init__(self, kind: str, reason: str) -> None:
        # One line, and short: it ends up on a 128x64 status screen and in the journal.
        reason = " ".join(reason.split())
        reason = reason if len(reason) <= 120 else reason[:119] + "…"
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


class _ReadOnly(Exception):
    """The database is sound but cannot be written here; the message says why, briefly."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _face_text(face: Face) -> str:
    return str(face)


def _face(text: str) -> Face:
    return SPECIAL if text == "*" else int(text)


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _game_columns(version: int) -> str:
    """The columns :func:`_game` reads, from a database at schema ``version``: one from
    before :data:`MAPS_SINCE` (opened read-only, so not migrated) reads as no map and no
    parts."""
    since = ("map_side, map_seed, map_format, score_parts" if version >= MAPS_SINCE
             else "NULL, NULL, NULL, NULL")
    return (
        f"id, title, mode, started_at, ended_at, score, level, hazards, {since},"
        " (SELECT COALESCE(MAX(n), 0) FROM rolls WHERE rolls.game_id = games.id)"
    )


_ROLL_COLUMNS = "id, game_id, n, at, green, purple, red, source, hazard, hazards_after"


def _format(table_map: TableMap | None) -> int | None:
    """The format column for ``table_map``: the one it is drawn by, for a game with a map."""
    return table_map.version if table_map is not None else None


def _parts(text: object) -> ScoreParts | None:
    """The parts column: a JSON list of [name, stars]; anything else (NULL, a hand-edited
    value) reads as no parts rather than stopping the box."""
    if text is None:
        return None
    try:
        parts = tuple((str(name), int(stars)) for name, stars in json.loads(str(text)))
    except (ValueError, TypeError):
        log.warning("a game's score parts %r cannot be read: ignored", text)
        return None
    return parts


def _game(row: tuple[Any, ...]) -> Game:
    gid, title, mode, started, ended, score, lvl, hazards, side, seed, fmt, parts, rounds = row
    return Game(
        id=int(gid),
        title=str(title),
        mode=Mode(mode),
        started_at=_time(str(started)),
        ended_at=_time(str(ended)) if ended is not None else None,
        score=int(score) if score is not None else None,
        level=str(lvl) if lvl is not None else None,
        hazards=int(hazards),
        rounds=int(rounds),
        side=Side(side) if side is not None else None,
        seed=int(seed) if seed is not None else None,
        map_format=int(fmt) if fmt is not None else None,
        parts=_parts(parts),
    )


def _roll_record(row: tuple[Any, ...]) -> RollRecord:
    rid, gid, n, at, green, purple, red, source, hazard, after = row
    return RollRecord(
        id=int(rid),
        game_id=int(gid),
        n=int(n),
        at=_time(str(at)),
        roll=Roll(_face(str(green)), _face(str(purple)), _face(str(red))),
        source=str(source),
        hazard=bool(hazard),
        hazards_after=int(after),
    )


class SessionStore:
    """The games and rolls of the box, in one SQLite database. Open with :meth:`open`.

    Safe to share between threads (one lock serialises every call), though the box's one
    controller thread is the only writer it expects.
    """

    def __init__(
        self,
        connection: sqlite3.Connection,
        path: Path,
        *,
        recovered: str | None = None,
        moved_aside: Path | None = None,
        read_only: str | None = None,
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        self._db: sqlite3.Connection | None = connection
        self.path = path
        #: One line saying that the old database was moved aside and a fresh one started;
        #: None when the database opened as it was.
        self.recovered = recovered
        #: Where the unusable database went, when it was moved aside.
        self.moved_aside = moved_aside
        #: One line saying that the database cannot be written here, so that rolls are not
        #: being saved; None when it can be written.
        self.read_only = read_only
        self._clock = clock
        self._lock = threading.RLock()
        #: What the store holds besides its connection (the box's lock, a reader's shared
        #: lock or private copy), released when it closes.
        self._holds = contextlib.ExitStack()
        #: How long a write waits for another writer of the database before it fails
        #: with :class:`StoreWriteFailed` (SQLite's busy timeout), in seconds.
        self.write_wait = 5.0
        self._applied_wait: float | None = None
        #: The state directory's lock, held while the store is open for a box; None for
        #: a reader (or where no lock file can be made: a read-only directory).
        self.lock: BoxLock | None = None
        #: The schema version of the open database: the current one, unless it was opened
        #: read-only before a migration could run.
        self.version = _schema_version(connection)
        self._columns = _game_columns(self.version)

    # --- opening ------------------------------------------------------------

    @classmethod
    def open(
        cls,
        location: str | os.PathLike[str] | None = None,
        *,
        recover: bool = True,
        clock: Callable[[], datetime] = _utc_now,
        timeout: float = 5.0,
    ) -> SessionStore:
        """Open (or create) the store at ``location``: a state directory or a ``.db`` file.

        An unusable database is moved aside and replaced by a fresh one; with
        ``recover=False`` :class:`StoreDamaged` is raised instead. A sound database that
        cannot be written here is opened read-only and left untouched
        (:attr:`read_only`). A database that another process holds locked for longer than
        ``timeout`` seconds raises :class:`StoreError` and is left alone, and so does a
        path that is not a regular file (a directory, a FIFO).

        The store is the box's: it holds the state directory's :class:`BoxLock` until it
        is closed, and a second box opening it meanwhile gets :class:`StoreInUse`, naming
        the first one's pid, before anything is read, checked or moved.
        """
        path = database_path(location)
        # Before the directory is made: a path through a file is named as such.
        _refuse_non_file(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(
                f"cannot create the state directory {path.parent}: {exc.strerror or exc}"
            ) from None
        _refuse_non_file(path)
        lock = BoxLock.take(path, wait=timeout)
        try:
            store = cls._open_locked(path, recover=recover, clock=clock, timeout=timeout)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        store.write_wait = timeout
        store.lock = lock
        if lock is not None:
            store._holds.callback(lock.release)
        return store

    @classmethod
    def _open_locked(
        cls, path: Path, *, recover: bool, clock: Callable[[], datetime], timeout: float
    ) -> SessionStore:
        try:
            try:
                db = _open_checked(path, timeout)
            except _ReadOnly as refused:
                if not path.exists():
                    raise StoreUnavailable(f"{path} cannot be created: {refused}") from None
                db = _open_read_only(path, timeout)
                message = f"{path.name} cannot be written ({refused}): rolls are not being saved"
                log.warning("%s (in %s)", message, path.parent)
                return cls(db, path, read_only=message, clock=clock)
        except _Unusable as bad:
            if not recover:
                raise StoreDamaged(f"{path}: {bad.reason}") from None
            moved = _move_aside(path, bad.kind, clock())
            message = (
                f"{path.name} was {'damaged' if bad.kind == 'corrupt' else 'not usable'}"
                f" ({bad.reason}): moved aside to {moved.name}, started a fresh one"
            )
            log.warning("%s (in %s)", message, path.parent)
            try:
                db = _open_checked(path, timeout)
            except (_Unusable, _ReadOnly) as again:
                raise StoreUnavailable(
                    f"{path}: a fresh database cannot be started either: {again}"
                ) from None
            return cls(db, path, recovered=message, moved_aside=moved, clock=clock)
        return cls(db, path, clock=clock)

    @classmethod
    def open_read_only(
        cls, location: str | os.PathLike[str] | None = None, *, timeout: float = 5.0
    ) -> SessionStore:
        """Open the store at ``location`` to read it, creating, changing and moving nothing.

        For readers such as ``pitable history``. A missing or empty database raises
        :class:`UnknownGame` ("no saved games"); a path that is not a regular file
        :class:`StoreError`; a damaged or foreign database :class:`StoreDamaged`. Every
        write to the store raises :class:`StoreError`.

        Not a byte beside the database is created or changed either: while a box writes
        the database (it holds the :class:`BoxLock`), the reader shares SQLite's WAL index
        with it, as any reader of a live WAL database must; while none does, it holds the
        lock shared (no box starts writing until it is closed) and reads the file as
        ``immutable``, or, when a WAL or journal left by a box that stopped without
        closing holds committed rolls that the file does not, a private copy of the two.
        """
        path = database_path(location)
        _refuse_non_file(path)
        if not path.exists():
            raise UnknownGame(f"no saved games: {path} does not exist")
        if path.stat().st_size == 0:
            raise UnknownGame(f"no saved games: {path} is empty")
        holds = contextlib.ExitStack()
        try:
            held, writing = _reader_lock(path)
            if held is not None:
                holds.callback(os.close, held)
            try:
                with _translated(path, reading=True):
                    db = _reader_connection(path, timeout, writing, holds)
                    try:
                        _check(db)
                        if not db.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]:
                            raise UnknownGame(f"no saved games: {path} holds none")
                        _check_schema(db)
                    except BaseException:
                        db.close()
                        raise
            except _Unusable as bad:
                raise StoreDamaged(f"{path}: {bad.reason}") from None
        except BaseException:
            holds.close()
            raise
        store = cls(db, path, read_only=f"{path.name} is open read-only")
        store._holds = holds
        return store

    def close(self) -> None:
        """Close the database; closing twice is harmless."""
        with self._lock:
            db, self._db = self._db, None
            # The database first: the box's lock is released once its last write is done.
            with self._holds:
                if db is not None:
                    try:
                        db.close()
                    except sqlite3.Error as exc:
                        raise StoreError(f"{self.path}: cannot be closed: {exc}") from exc

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- games --------------------------------------------------------------

    def new_game(
        self, title: Title | str, mode: Mode | str, table_map: TableMap | None = None
    ) -> Game:
        """Start a game of ``title`` (a title, or its key or an alias) in ``mode`` (table or
        solo), on ``table_map`` when given; the store keeps the title's key.

        A game still in progress is ended first, without a score: there is at most one
        current game. A map of another title is a :class:`StoreError`.
        """
        key = as_title(title).key
        game_mode = Mode.from_str(str(mode))
        side, seed = self._map_columns(key, table_map)
        now = self._now()
        with self._write() as db:
            db.execute("UPDATE games SET ended_at = ? WHERE ended_at IS NULL", (now,))
            cursor = db.execute(
                "INSERT INTO games (title, mode, started_at, map_side, map_seed, map_format)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (key, game_mode.value, now, side, seed, _format(table_map)),
            )
            gid = cursor.lastrowid
            assert gid is not None
            return self._game(db, gid)

    def set_map(self, game_id: int, table_map: TableMap) -> Game:
        """Give ``game_id`` its map: a game saved before games had maps gets one when the
        box resumes it."""
        with self._write() as db:
            game = self._game(db, game_id)
            side, seed = self._map_columns(game.title, table_map)
            db.execute(
                "UPDATE games SET map_side = ?, map_seed = ?, map_format = ? WHERE id = ?",
                (side, seed, _format(table_map), game_id),
            )
            return self._game(db, game_id)

    def _map_columns(self, key: str, table_map: TableMap | None) -> tuple[str | None, int | None]:
        if table_map is None:
            return None, None
        if table_map.title.key != key:
            raise StoreError(f"a map of {table_map.title.key} for a game of {key}")
        return table_map.side.value, table_map.seed

    def current_game(self) -> Game | None:
        """The game in progress (the last one started and not ended), if any."""
        with self._read() as db:
            row = db.execute(
                f"SELECT {self._columns} FROM games WHERE ended_at IS NULL ORDER BY id DESC LIMIT 1"
            ).fetchone()
            return _game(row) if row else None

    def game(self, game_id: int) -> Game:
        """The game ``game_id``; :class:`UnknownGame` if there is none."""
        with self._read() as db:
            return self._game(db, game_id)

    def games(self) -> list[Game]:
        """Every game, oldest first."""
        with self._read() as db:
            rows = db.execute(f"SELECT {self._columns} FROM games ORDER BY id").fetchall()
            return [_game(r) for r in rows]

    def end_game(
        self, game_id: int, score: int | None = None, parts: ScoreParts | None = None
    ) -> Game:
        """End ``game_id``, with its final score if known; a solo game also gets its level.

        ``parts`` are the score's components as entered (name, stars), kept with it; they
        must add up to ``score`` (:class:`BadScore` otherwise). Ending an ended game again
        only replaces the score and its parts (a score entered twice on the encoder): the
        end time stays the first one.
        """
        if parts is not None:
            total = sum(stars for _, stars in parts)
            if score is None or total != score:
                raise BadScore(f"score {score}: its parts add up to {total}")
        stored_parts = (
            json.dumps([[name, stars] for name, stars in parts]) if parts is not None else None
        )
        now = self._now()
        with self._write() as db:
            game = self._game(db, game_id)
            lvl = None
            if score is not None and game.mode is Mode.SOLO:
                lvl = level(game.title, score, game.hazards).name
            elif score is not None:
                level(game.title, score, game.hazards)  # the same check of the score
            db.execute(
                "UPDATE games SET ended_at = COALESCE(ended_at, ?), score = ?, level = ?,"
                " score_parts = ? WHERE id = ?",
                (now, score, lvl, stored_parts, game_id),
            )
            return self._game(db, game_id)

    def state(self, game_id: int) -> GameState:
        """The rules' view of ``game_id``: round, hazards marked, last roll."""
        with self._read() as db:
            return self._state(db, self._game(db, game_id))

    # --- settings -----------------------------------------------------------

    def setting(self, name: str) -> str | None:
        """A menu choice the box remembers (``players``, ``last_sheet``...), or None when it
        was never set (or the database predates settings)."""
        if self.version < MAPS_SINCE:
            return None
        with self._read() as db:
            row = db.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()
            return str(row[0]) if row else None

    def set_setting(self, name: str, value: str) -> None:
        """Remember a menu choice, durably, under ``name``."""
        with self._write() as db:
            db.execute(
                "INSERT INTO settings (name, value) VALUES (?, ?)"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                (name, value),
            )

    # --- rolls --------------------------------------------------------------

    def record_roll(
        self, game_id: int, roll: Roll, source: str, hazard: bool, hazards_after: int,
        *, at: datetime | None = None,
        deal: Callable[[list[int]], Mapping[int, int]] | None = None,
    ) -> RollRecord:
        """Record ``roll`` as the next round of ``game_id``, durably, before returning.

        ``hazard`` and ``hazards_after`` are what the controller shows; they are checked
        against the title's rules (:meth:`GameState.play`) so that the store and the screen
        cannot disagree: :class:`InconsistentRoll` if they differ, :class:`GameOver` after
        the last solo round, :class:`GameEnded` once the game was ended. ``at`` is when it
        was rolled (default: now), for a roll written after it waited for the database.

        ``deal`` deals a table's hazard: given the ids of the game's players (those on their
        phones, in the order they joined) it answers whose sheet each one draws on
        (:func:`pitable.rules.table.deal`); at a hazard roll of a table game with players,
        that deal is kept in the roll's own transaction, so that no hazard roll is on disk
        without it.
        """
        stamp = self._stamp(at or self.now())
        with self._write() as db:
            game = self._game(db, game_id)
            if game.ended:
                raise GameEnded(f"game {game_id} has ended: start a new game to roll")
            turn = self._state(db, game).play(roll)
            if bool(hazard) != turn.hazard or hazards_after != turn.state.hazards:
                raise InconsistentRoll(
                    f"roll {roll} in game {game_id}: hazard={bool(hazard)},"
                    f" hazards_after={hazards_after}, but the rules of {game.title} give"
                    f" hazard={turn.hazard}, hazards_after={turn.state.hazards}"
                )
            cursor = db.execute(
                "INSERT INTO rolls (game_id, n, at, green, purple, red, source, hazard,"
                " hazards_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    turn.round,
                    stamp,
                    *(_face_text(f) for f in roll.faces),
                    source,
                    int(turn.hazard),
                    turn.state.hazards,
                ),
            )
            if turn.hazard:
                db.execute(
                    "UPDATE games SET hazards = ? WHERE id = ?", (turn.state.hazards, game_id)
                )
                if (deal is not None and game.mode is Mode.TABLE
                        and self.version >= DEALS_SINCE):
                    self._deal(db, game_id, turn.round, deal)
            rid = cursor.lastrowid
            assert rid is not None
        return RollRecord(
            rid, game_id, turn.round, _time(stamp), roll, source, turn.hazard, turn.state.hazards
        )

    @staticmethod
    def _deal(db: sqlite3.Connection, game_id: int, round: int,
              deal: Callable[[list[int]], Mapping[int, int]]) -> None:
        ids = [pid for (pid,) in db.execute(
            "SELECT id FROM players WHERE game_id = ? ORDER BY id", (game_id,))]
        if not ids:
            return
        pairs = deal(ids)
        if sorted(pairs) != ids or sorted(pairs.values()) != ids:
            raise StoreError(f"round {round}: a deal must give each player one sheet, not"
                             f" {dict(pairs)}")
        db.executemany(
            "INSERT INTO deals (game_id, round, placer_id, owner_id) VALUES (?, ?, ?, ?)",
            [(game_id, round, placer, owner) for placer, owner in pairs.items()])

    def rolls(self, game_id: int) -> list[RollRecord]:
        """Every roll of ``game_id``, first round first; :class:`UnknownGame` if none."""
        with self._read() as db:
            self._game(db, game_id)
            rows = db.execute(
                f"SELECT {_ROLL_COLUMNS} FROM rolls WHERE game_id = ? ORDER BY n", (game_id,)
            ).fetchall()
            return [_roll_record(r) for r in rows]

    def last_roll(self, game_id: int) -> RollRecord | None:
        """The last roll of ``game_id``, or None before its first."""
        with self._read() as db:
            self._game(db, game_id)
            return self._last_roll(db, game_id)

    # --- internals ----------------------------------------------------------

    def now(self) -> datetime:
        """The time by the store's clock, as it stamps what it records."""
        return self._clock()

    def _now(self) -> str:
        return self._stamp(self._clock())

    @staticmethod
    def _stamp(at: datetime) -> str:
        # Stored in UTC; rolls are ordered by round, never by time, because a Pi without a
        # real-time clock may boot with its clock behind until NTP answers.
        return at.astimezone(UTC).isoformat(timespec="microseconds")

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise StoreError(f"the session store {self.path} is closed")
        return self._db

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._connection()
            except sqlite3.Error as exc:
                raise _store_error(self.path, exc) from exc

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction: committed (and synced, synchronous=FULL) when the block ends.

        SQLite's failures are :class:`StoreWriteFailed` (the same write may succeed later:
        another writer let go, the disk has room again), except a constraint that the
        database holds against it (its round is already stored), which no retry mends.
        """
        with self._lock:
            db = self._connection()
            try:
                if self._applied_wait != self.write_wait:
                    db.execute(f"PRAGMA busy_timeout = {max(0, int(self.write_wait * 1000))}")
                    self._applied_wait = self.write_wait
                # IMMEDIATE takes the write lock now, so the reads inside the block see the
                # state the write is based on.
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException:
                    # Also after a failed COMMIT (a full disk): SQLite may leave the
                    # transaction open, and the next roll's BEGIN would fail on it.
                    if db.in_transaction:
                        with contextlib.suppress(sqlite3.Error):
                            db.execute("ROLLBACK")
                    raise
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"{self.path}: {exc}") from exc
            except sqlite3.Error as exc:
                error = _store_error(self.path, exc)
                if not isinstance(error, StoreBusy):
                    error = StoreWriteFailed(str(error))
                raise error from exc

    def _game(self, db: sqlite3.Connection, game_id: int) -> Game:
        row = db.execute(f"SELECT {self._columns} FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise UnknownGame(f"no game {game_id} in {self.path}")
        return _game(row)

    def _last_roll(self, db: sqlite3.Connection, game_id: int) -> RollRecord | None:
        row = db.execute(
            f"SELECT {_ROLL_COLUMNS} FROM rolls WHERE game_id = ? ORDER BY n DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        return _roll_record(row) if row else None

    def _state(self, db: sqlite3.Connection, game: Game) -> GameState:
        last = self._last_roll(db, game.id)
        title = find_title(game.title)
        if last is None:
            return GameState(title, game.mode)
        return GameState(title, game.mode, last.n, last.hazards_after, last.roll)


# --- opening, checking, migrating, moving aside -------------------------------


def _open_checked(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection to ``path``, checked and migrated.

    Raises :class:`_Unusable` for a damaged or foreign database, :class:`_ReadOnly` for a
    sound one that cannot be written here.
    """
    if os.path.lexists(path):
        # Checked on a read-only connection first: when it closes, a read-write one would
        # checkpoint the WAL into a damaged file and delete the -wal and -shm files, and a
        # damaged or foreign database must be moved aside as it was found.
        with _translated(path, reading=True):
            checker = _read_only_connection(path, timeout)
            try:
                _check(checker)
            finally:
                checker.close()
    # Asked before SQLite opens the file for writing: on a read-only file SQLite falls back
    # to reading and would still create -wal and -shm files beside it.
    if refusal := _write_refusal(path):
        raise _ReadOnly(refusal)
    try:
        db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        if _refused(exc):
            raise _ReadOnly(str(exc)) from None
        raise StoreUnavailable(f"{path}: cannot be opened for writing: {exc}") from None
    try:
        with _translated(path, reading=False):
            # First, before any change: a sound database that SQLite will not let this
            # process write (SQLITE_READONLY) is read-only here, not damaged.
            _probe_write(db)
            _configure(db)
            _migrate(db)
            _check_schema(db)
    except BaseException:
        db.close()
        raise
    return db


def _read_only_connection(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection that can change no file: SQLite's ``mode=ro``.

    Without companion files there is no WAL to read nor a writer to wait for, and
    ``immutable`` keeps SQLite from creating -wal and -shm files beside the database (a
    read-only connection to a WAL database creates them otherwise).
    """
    alone = not any(os.path.lexists(f"{path}{s}") for s in _COMPANIONS)
    uri = f"{path.absolute().as_uri()}?mode=ro" + ("&immutable=1" if alone else "")
    return sqlite3.connect(
        uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False
    )


def _has_journal(path: Path) -> bool:
    """Whether a WAL or rollback journal with something in it lies beside ``path``: what
    it holds is part of the database (committed rolls in a WAL; a hot journal's undo)."""
    for suffix in ("-wal", "-journal"):
        try:
            if os.stat(f"{path}{suffix}").st_size > 0:
                return True
        except FileNotFoundError:
            continue
    return False


def _reader_connection(
    path: Path, timeout: float, writing: bool, holds: contextlib.ExitStack
) -> sqlite3.Connection:
    """A connection for a reader that writes nothing beside ``path`` (see
    :meth:`SessionStore.open_read_only`); ``holds`` keeps the private copy, if one is made,
    until the store closes."""
    if writing:
        uri = f"{path.absolute().as_uri()}?mode=ro"
    elif not _has_journal(path):
        uri = f"{path.absolute().as_uri()}?mode=ro&immutable=1"
    else:
        import shutil
        import tempfile

        # The file and its journal are copied while no box can start writing them, and
        # SQLite recovers the copy: its WAL index and checkpoint are the copy's own.
        copy = Path(holds.enter_context(tempfile.TemporaryDirectory(prefix="pitable-read-")))
        try:
            for suffix in ("", "-wal", "-journal"):
                if os.path.lexists(f"{path}{suffix}"):
                    shutil.copyfile(f"{path}{suffix}", copy / f"{DB_NAME}{suffix}")
        except OSError as exc:
            raise StoreUnavailable(
                f"{path} cannot be read without writing beside it, and a copy of it"
                f" cannot be made: {exc.strerror or exc}"
            ) from None
        db = sqlite3.connect(copy / DB_NAME, timeout=timeout, isolation_level=None,
                             check_same_thread=False)
        db.execute("PRAGMA query_only = ON")
        return db
    return sqlite3.connect(
        uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False
    )


def _open_read_only(path: Path, timeout: float) -> sqlite3.Connection:
    """A read-only connection to the sound database at ``path``, for reading its games.

    An empty database (no file, no bytes, or no tables yet) reads as an empty store of the
    current schema, held in memory and itself read-only.
    """
    if not path.exists() or path.stat().st_size == 0:
        return _empty_schema()
    with _translated(path, reading=True):
        db = _read_only_connection(path, timeout)
        try:
            if not db.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]:
                db.close()
                return _empty_schema()
            _check_schema(db)
        except BaseException:
            db.close()
            raise
    return db


def _empty_schema() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    _migrate(db, announce=False)
    # Writes then fail as on a read-only file (SQLITE_READONLY).
    db.execute("PRAGMA query_only = ON")
    return db


def _store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """SQLite's error on the open store: :class:`StoreBusy` when another process holds the
    lock (a failure at run time), else :class:`StoreError`."""
    busy = getattr(exc, "sqlite_errorcode", None) in _BUSY_CODES
    return (StoreBusy if busy else StoreError)(f"{path}: {exc}")


def _refuse_non_file(path: Path) -> None:
    """:class:`StoreError` unless ``path`` is a regular file or nothing (a new database).

    SQLite reads a directory as an empty database, and opening a FIFO blocks until
    something writes to it: neither may stand for the store.
    """
    # The nearest part of the directory's path that exists must be a directory.
    for folder in (path.parent, *path.parent.parents):
        if os.path.lexists(folder):
            if not folder.is_dir():
                raise StoreError(f"{folder} is not a directory")
            break
    if not os.path.lexists(path):
        return
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        raise StoreError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise StoreError(f"{path} is a directory, not a database")
    if not stat.S_ISREG(mode):
        raise StoreError(f"{path} is not a regular file (a FIFO or a device), not a database")


def _write_refusal(path: Path) -> str | None:
    """Why the permissions (or a read-only filesystem) refuse to let this process write the
    database at ``path``; None when they allow it. The WAL's files need the directory."""
    if os.path.lexists(path) and not os.access(path, os.W_OK):
        return "the file is read-only"
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return f"the directory {path.parent} is read-only"
    return None


def _refused(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in _REFUSED_CODES


def _probe_write(db: sqlite3.Connection) -> None:
    """Raise SQLite's own error if ``db`` may not be written; changes nothing either way.

    The version is written back as it is, inside a transaction that is rolled back, so not
    a byte of the file changes; only a connection that may write gets that far.
    """
    version = db.execute("PRAGMA user_version").fetchone()[0]
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(f"PRAGMA user_version = {int(version)}")
    finally:
        if db.in_transaction:
            db.execute("ROLLBACK")


@contextlib.contextmanager
def _translated(path: Path, *, reading: bool) -> Iterator[None]:
    """SQLite's errors while opening: busy is the caller's problem, a refusal to read is
    unavailable, a refusal to write is read-only, anything else damage."""
    try:
        yield
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorcode", None) in _BUSY_CODES:
            raise StoreBusy(f"{path} is in use by another process: {exc}") from None
        if _refused(exc):
            if reading:
                raise StoreUnavailable(f"{path} cannot be read: {exc}") from None
            raise _ReadOnly(str(exc)) from None
        raise _Unusable("corrupt", str(exc)) from None
    except MemoryError:
        # SQLite answers some damaged records (a length field of gigabytes) with NOMEM,
        # which Python raises as MemoryError; the database of a dice box is a few MB.
        raise _Unusable("corrupt", "a damaged record (out of memory reading it)") from None


def _check(db: sqlite3.Connection) -> None:
    """Is this a sound pitable database of a version this code knows?"""
    # The first read of the header: a file that is not SQLite fails here (SQLITE_NOTADB).
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    # integrity_check rather than quick_check: it also checks that every index agrees with
    # its table, and the database of a dice box is small enough to read whole at start-up.
    problems = [row[0] for row in db.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        lines = [
            line.strip()
            for p in problems
            for line in str(p).splitlines()
            if line.strip() and not line.startswith("***")
        ] or ["failed"]
        more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
        raise _Unusable("corrupt", f"integrity check: {lines[0]}{more}")
    if app_id == 0 and version == 0:
        tables = db.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        if tables:
            raise _Unusable("foreign", "an SQLite database of another program")
        return  # empty: a new database, created by the migrations
    if app_id != APPLICATION_ID:
        raise _Unusable("foreign", f"an SQLite database of another program (id {app_id:#x})")
    if version > SCHEMA_VERSION:
        raise _Unusable(
            "foreign",
            f"schema version {version} is newer than this pitable's {SCHEMA_VERSION}",
        )


def _configure(db: sqlite3.Connection) -> None:
    mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode != "wal":
        # Some filesystems (network mounts) cannot share the WAL index; the rollback
        # journal with synchronous=FULL is just as durable, only slower.
        log.warning("the session store runs in %s mode, not WAL", mode)
    db.execute("PRAGMA synchronous = FULL")
    db.execute("PRAGMA foreign_keys = ON")
    # The box reads the current game's last rows; SQLite's default page cache (2 MB) would
    # only grow with the file, on a Pi Zero that has 512 MB for everything.
    db.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")


def _migrate(db: sqlite3.Connection, *, announce: bool = True) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    for step in range(version, SCHEMA_VERSION):
        # One transaction per step, the version bump included: a cut power leaves the
        # database at the old version or the new one, never in between. executescript()
        # would commit on its own, hence the statements one by one.
        statements = [s.strip() for s in MIGRATIONS[step].split(";") if s.strip()]
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in statements:
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {step + 1}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        if announce:
            log.info("session store migrated to schema version %d", step + 1)


def _schema_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def _check_schema(db: sqlite3.Connection) -> None:
    """The tables hold the columns this code reads (a hand-edited file may not)."""
    try:
        db.execute(f"SELECT {_game_columns(_schema_version(db))} FROM games LIMIT 0")
        db.execute(f"SELECT {_ROLL_COLUMNS} FROM rolls LIMIT 0")
        if _schema_version(db) >= PLAYERS_SINCE:
            db.execute(
                "SELECT id, game_id, initials, token_hash, joined_at, bot FROM players LIMIT 0"
            )
            db.execute("SELECT player_id, round, seq, act, cells, value, at FROM moves LIMIT 0")
            db.execute("SELECT player_id, round, at FROM turns_done LIMIT 0")
    except sqlite3.OperationalError as exc:
        raise _Unusable("foreign", f"unknown schema: {exc}") from None


def _move_aside(path: Path, kind: str, when: datetime) -> Path:
    """Rename ``path`` and its companion files to ``<name>.<kind>-<UTC time>``; never delete.

    The companions keep SQLite's suffixes (``-wal``, ``-shm``, ``-journal``) after the new
    name, so that opening the moved file with sqlite3 still finds its committed WAL.
    """
    stamp = when.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    for k in range(1, 1000):
        target = path.with_name(f"{path.name}.{kind}-{stamp}" + (f"-{k}" if k > 1 else ""))
        # An earlier move in the same second keeps its name: take the next free one.
        if not any(os.path.lexists(f"{target}{s}") for s in ("", *_COMPANIONS)):
            break
    else:
        raise StoreUnavailable(f"{path}: no free name to move it aside")
    try:
        # The companions go first: a leftover -wal beside a fresh database would be
        # replayed into it, whereas a database without its WAL is only checked again.
        for suffix in (*_COMPANIONS, ""):
            source = Path(f"{path}{suffix}")
            if os.path.lexists(source):
                os.rename(source, f"{target}{suffix}")
        _sync_directory(path.parent)
    except OSError as exc:
        raise StoreUnavailable(
            f"{path}: cannot be moved aside to {target.name}: {exc.strerror or exc}"
        ) from None
    return target


def _sync_directory(directory: Path) -> None:
    """Make renames in ``directory`` survive a power cut (POSIX; a no-op elsewhere)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- one box per state directory ---------------------------------------------------------

#: How often a box that finds the lock held by a reader tries again.
_LOCK_POLL_S = 0.02


def lock_path(path: Path) -> Path:
    """The lock file of the database at ``path``: ``pitable.db.lock`` beside it."""
    return path.with_name(path.name + ".lock")


def _open_lock_file(lock: Path, *, create: bool) -> tuple[int, bool] | None:
    """The lock file opened for locking, and whether it could be opened for writing (to
    keep the holder's pid in it); None when it does not exist and may not be created (or
    its directory is not one: the store's own checks say so).

    ``O_NOFOLLOW`` and ``O_NONBLOCK``: a link planted in its place is refused, and a FIFO
    does not block the open; either is then refused as not a regular file.
    """
    flags = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    absent = (errno.ENOENT, errno.ENOTDIR)
    fd = None
    writable = False
    if create:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | flags, 0o644)
            writable = True
        except OSError as exc:
            if exc.errno in absent:
                return None
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise _lock_error(lock, exc) from None
    if fd is None:
        try:
            fd = os.open(lock, os.O_RDONLY | flags)
        except OSError as exc:
            if exc.errno in absent:
                return None
            # One that is there and cannot be opened guards nothing: never run unguarded.
            raise _lock_error(lock, exc) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StoreError(f"{lock} is not a regular file: it cannot be the store's lock")
    return fd, writable


def _lock_error(lock: Path, exc: OSError) -> StoreError:
    if exc.errno == errno.ELOOP:
        return StoreError(f"{lock} is a symbolic link: it cannot be the store's lock")
    if exc.errno == errno.EISDIR:
        return StoreError(f"{lock} is a directory: it cannot be the store's lock")
    return StoreUnavailable(f"{lock} cannot be opened: {exc.strerror or exc}")


class BoxLock:
    """The state directory's one box: an exclusive ``flock`` on the lock file beside the
    database, held for as long as the box keeps the store open, with the holder's pid in
    it for the message that a second box prints.

    Readers (``pitable history``) take the same lock shared, only to learn whether a box
    is writing (:func:`_writer_running`); a box that finds it held shared waits for them.
    Written here rather than taken from ``filelock``: that library neither tells a shared
    holder from an exclusive one nor keeps the holder's pid. The lock file is never
    deleted (deleting a lock file lets two processes each lock a file of that name);
    a box that stops empties it, and a box that dies leaves only a pid that no lock holds.
    """

    def __init__(self, fd: int, path: Path, writable: bool) -> None:
        self._fd: int | None = fd
        self.path = path
        self._writable = writable

    @classmethod
    def take(cls, database: Path, *, wait: float = 5.0) -> BoxLock | None:
        """Lock the state of the database at ``database`` for this process.

        :class:`StoreInUse` names the pid of another box that holds it. A reader holding
        it for the moment of a read is waited for, up to ``wait`` seconds. None when the
        lock file does not exist and cannot be created (a read-only directory: the store
        opens read-only there and writes nothing).
        """
        lock = lock_path(database)
        opened = _open_lock_file(lock, create=True)
        if opened is None:
            return None
        fd, writable = opened
        try:
            _lock_exclusively(fd, database, lock, wait)
        except BaseException:
            os.close(fd)
            raise
        held = cls(fd, lock, writable)
        if writable:
            # Only read by a second box, to name this one: no fsync, a power cut ends the
            # lock with it.
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return held

    def release(self) -> None:
        """Empty the lock file and unlock it; releasing twice is harmless."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if self._writable:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
        finally:
            os.close(fd)  # closing the last descriptor releases the flock


def _lock_exclusively(fd: int, database: Path, lock: Path, wait: float) -> None:
    import fcntl  # POSIX: imported here, as the rest of the store runs anywhere
    import time

    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        except OSError as exc:
            # A filesystem without flock (some network mounts): the box runs, unguarded.
            log.warning("%s cannot be locked (%s): nothing stops a second box on %s",
                        lock, exc.strerror or exc, database.parent)
            return
        # Held: by a box (exclusively), or by readers for the moment of a read (shared).
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _in_use(database, fd) from None
        fcntl.flock(fd, fcntl.LOCK_UN)
        if time.monotonic() >= deadline:
            raise StoreInUse(f"{database} is being read by another process: try again")
        time.sleep(_LOCK_POLL_S)


def _in_use(database: Path, fd: int) -> StoreInUse:
    """The error for a lock held by another box, naming its pid as it wrote it there."""
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    holder = f"pid {text}" if text.isdigit() else "its pid not yet written"
    return StoreInUse(
        f"{database.parent} is in use by another pitable box ({holder}):"
        " one state directory has one box"
    )


def check_no_box(database: Path) -> None:
    """:class:`StoreInUse` if a box holds the state of the database at ``database`` now;
    creates nothing. :meth:`BoxLock.take` decides; this only says it early."""
    import fcntl

    opened = _open_lock_file(lock_path(database), create=False)
    if opened is None:
        return
    fd, _ = opened
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _in_use(database, fd) from None
    except OSError:
        pass  # no flock here: BoxLock.take says so
    finally:
        os.close(fd)


def _reader_lock(database: Path) -> tuple[int | None, bool]:
    """For a reader: whether a box is writing the database at ``database``, and if none
    is, the lock file's descriptor holding it shared, so that no box starts writing until
    the reader closes it (None when there is no lock file: no box of this version has run
    here). Taking a shared lock writes nothing to disk.
    """
    import fcntl

    try:
        opened = _open_lock_file(lock_path(database), create=False)
    except StoreError:
        return None, True  # a lock that cannot be read: a box may be writing
    if opened is None:
        return None, False
    fd, _ = opened
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        # Held by a box, or a filesystem without flock, where a box may be writing: read
        # as a reader of a live database.
        os.close(fd)
        return None, True
    except BaseException:
        os.close(fd)
        raise
    return fd, False
