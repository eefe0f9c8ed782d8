"""The players who joined a game on their phones, and every move they made on their sheets.

Kept in the session store's database (schema version :data:`PLAYERS_SINCE` on), with the
same promise as a roll: a move is committed, with its write-ahead log synced to disk, before
:meth:`PlayerBook.add_move` returns, so a move a phone was told was accepted survives a
power cut, and a box that starts again gives every sheet back as it was
(:meth:`PlayerBook.all_moves`).

A player is known by a secret token that their phone keeps; the store keeps only its
SHA-256, so reading the database does not let anyone play as someone else. Initials are one
to three letters of any script, kept upper-case: two players of a game cannot share them,
whatever their case.

Moves are numbered within their round (``seq`` 1, 2, ...); the last one of a round can be
taken back until the player says they are done with it (:meth:`PlayerBook.finish_turn`),
after which its moves are kept as they are.

>>> book = PlayerBook(SessionStore.open(tmp))                           # doctest: +SKIP
>>> ann = book.join(game.id, "ann", token)                              # doctest: +SKIP
>>> book.add_move(ann.id, 1, "write", [(2, 3)], 5)                      # doctest: +SKIP
StoredMove(round=1, seq=1, act='write', cells=((2, 3),), value=5)
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pitable.box.store import DEALS_SINCE, PLAYERS_SINCE, SessionStore
from pitable.errors import (
    BadInitials,
    GameEnded,
    HazardDrawn,
    InitialsTaken,
    StoreError,
    TableFull,
    TokenInUse,
    TurnClosed,
    UnknownPlayer,
    quoted,
)
from pitable.rules.session import MAX_PLAYERS

#: The most letters a player's initials have.
MAX_INITIALS = 3

#: A move's value: a number or a word written in its cells, or nothing.
MoveValue = int | str | None
#: A cell of a sheet: (row, column), counted from 0.
Cell = tuple[int, int]

_PLAYER_COLUMNS = "id, game_id, initials, joined_at, bot"
_MOVE_COLUMNS = "round, seq, act, cells, value"


@dataclass(frozen=True)
class PlayerRecord:
    """A player of a game, as stored: never their token."""

    id: int
    game_id: int
    #: One to three letters, upper-case.
    initials: str
    joined_at: datetime
    #: A bot playing a sheet of its own, not a phone.
    bot: bool

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "initials": self.initials,
            "joined_at": self.joined_at.isoformat(timespec="milliseconds"),
            "bot": self.bot,
        }


@dataclass(frozen=True)
class StoredMove:
    """One move on a player's sheet, as stored: the ``seq``-th of its round."""

    round: int
    seq: int
    #: What the move does, in the rules' words (``write``, ``cross``...).
    act: str
    #: The cells it touches, (row, column) from 0.
    cells: tuple[Cell, ...]
    value: MoveValue


@dataclass(frozen=True)
class Deal:
    """A hazard dealt at a table's hazard roll: player ``placer_id`` draws it on the sheet
    of player ``owner_id`` (their own only when they are the one player on a phone)."""

    round: int
    placer_id: int
    owner_id: int
    #: Where it was drawn, once it is.
    cell: Cell | None
    #: The box drew it, for a placer who had not when the turn ended.
    by_box: bool


@dataclass(frozen=True)
class PaperScore:
    """The stars of a player who played on paper, as entered once the game ended."""

    initials: str
    total: int
    #: The figure of the title's tie-break, where it was given.
    tie: int | None


@dataclass(frozen=True)
class Placing:
    """A line of a game's ranking as the store keeps it."""

    place: int
    initials: str
    total: int
    tie: int | None
    bot: bool
    paper: bool
    shared: bool


def token_hash(token: str) -> bytes:
    """What the store keeps of a player's token: its SHA-256."""
    return hashlib.sha256(token.encode()).digest()


def initials_key(initials: str) -> str:
    """``initials`` as stored: one to three letters (any script), upper-case;
    :class:`BadInitials` otherwise."""
    text = unicodedata.normalize("NFC", initials)
    # Checked upper-case too: a letter such as "ß" becomes two ("SS").
    upper = unicodedata.normalize("NFC", text.upper())
    if not (text.isalpha() and 1 <= len(text) <= MAX_INITIALS and len(upper) <= MAX_INITIALS):
        raise BadInitials(
            f"initials {quoted(initials)}: one to {MAX_INITIALS} letters, nothing else"
        )
    return upper


def _player(row: tuple[Any, ...]) -> PlayerRecord:
    pid, gid, initials, joined, bot = row
    return PlayerRecord(
        int(pid), int(gid), str(initials), datetime.fromisoformat(joined), bool(bot)
    )


def _move(row: Sequence[Any]) -> StoredMove:
    rnd, seq, act, cells, value = row
    return StoredMove(
        round=int(rnd),
        seq=int(seq),
        act=str(act),
        cells=tuple((int(r), int(c)) for r, c in json.loads(cells)),
        value=json.loads(value) if value is not None else None,
    )


def _deal(row: Sequence[Any]) -> Deal:
    rnd, placer, owner, cell, by_box = row
    at: Cell | None = None
    if cell is not None:
        r, c = json.loads(cell)
        at = (int(r), int(c))
    return Deal(int(rnd), int(placer), int(owner), at, bool(by_box))


def _check_move(
    rnd: int, act: str, cells: Iterable[Sequence[int]], value: MoveValue
) -> tuple[Cell, ...]:
    """The move's cells as a tuple, once the move is one the store can keep as it is."""
    if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 1:
        raise StoreError(f"a move's round is a whole number from 1, not {rnd!r}")
    if not isinstance(act, str) or not act:
        raise StoreError(f"a move's act is a word, not {act!r}")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | str)):
        raise StoreError(f"a move's value is a number, a word or nothing, not {value!r}")
    checked = []
    for cell in cells:
        if len(cell) != 2 or any(
            isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in cell
        ):
            raise StoreError(f"a move's cell is (row, column) from 0, not {cell!r}")
        checked.append((int(cell[0]), int(cell[1])))
    return tuple(checked)


class PlayerBook:
    """The players of the store's games and their moves; every write is durable on return.

    Shares the store's connection and lock, so it is as safe between threads as the store.
    On a store opened read-only it reads (a database from before players reads as one
    without any) and every write raises :class:`StoreError`.
    """

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    @property
    def _has_players(self) -> bool:
        # A database opened read-only before its migration has no players' tables.
        return self.store.version >= PLAYERS_SINCE

    # --- players ------------------------------------------------------------

    def join(self, game_id: int, initials: str, token: str, *, bot: bool = False) -> PlayerRecord:
        """``initials`` join ``game_id`` as a new player, known from then on by ``token``
        (the phone's secret; the store keeps only its hash).

        Joining again with the same token gives back the player it made, as it was. An
        ended game (:class:`GameEnded`), initials taken at that game, whatever their case
        (:class:`InitialsTaken`), a game of :data:`MAX_PLAYERS` players
        (:class:`TableFull`) and a token of a player of another game
        (:class:`TokenInUse`) are refused; so are initials that are not one to three
        letters (:class:`BadInitials`).
        """
        key = initials_key(initials)
        if not token:
            raise StoreError("a player's token is empty")
        digest = token_hash(token)
        now = self.store._now()
        with self.store._write() as db:
            game = self.store._game(db, game_id)
            if game.ended:
                raise GameEnded(f"game {game_id} has ended: it takes no more players")
            row = db.execute(
                f"SELECT {_PLAYER_COLUMNS} FROM players WHERE token_hash = ?", (digest,)
            ).fetchone()
            if row is not None:
                player = _player(row)
                if player.game_id != game_id:
                    raise TokenInUse(
                        f"this token is a player's of game {player.game_id}:"
                        f" joining game {game_id} takes a new one"
                    )
                return player
            if db.execute(
                "SELECT 1 FROM players WHERE game_id = ? AND initials = ?", (game_id, key)
            ).fetchone():
                raise InitialsTaken(f"game {game_id} has a player {key} already")
            (count,) = db.execute(
                "SELECT count(*) FROM players WHERE game_id = ?", (game_id,)
            ).fetchone()
            if count >= MAX_PLAYERS:
                raise TableFull(f"game {game_id} has {count} players: it takes no more")
            cursor = db.execute(
                "INSERT INTO players (game_id, initials, token_hash, joined_at, bot)"
                " VALUES (?, ?, ?, ?, ?)",
                (game_id, key, digest, now, int(bot)),
            )
            assert cursor.lastrowid is not None
            return PlayerRecord(cursor.lastrowid, game_id, key, datetime.fromisoformat(now), bot)

    def player_by_token(self, token: str) -> PlayerRecord | None:
        """The player ``token`` belongs to (of the newest game), or None."""
        if not self._has_players:
            return None
        with self.store._read() as db:
            row = db.execute(
                f"SELECT {_PLAYER_COLUMNS} FROM players WHERE token_hash = ?"
                " ORDER BY game_id DESC LIMIT 1",
                (token_hash(token),),
            ).fetchone()
            return _player(row) if row else None

    def player(self, player_id: int) -> PlayerRecord:
        """The player ``player_id``; :class:`UnknownPlayer` if there is none."""
        with self.store._read() as db:
            return self._player(db, player_id)

    def players(self, game_id: int) -> list[PlayerRecord]:
        """The players of ``game_id`` in the order they joined; :class:`UnknownGame` if
        there is no such game."""
        with self.store._read() as db:
            self.store._game(db, game_id)
            if not self._has_players:
                return []
            rows = db.execute(
                f"SELECT {_PLAYER_COLUMNS} FROM players WHERE game_id = ? ORDER BY id",
                (game_id,),
            ).fetchall()
            return [_player(r) for r in rows]

    # --- moves --------------------------------------------------------------

    def add_move(
        self,
        player_id: int,
        round: int,
        act: str,
        cells: Iterable[Sequence[int]],
        value: MoveValue = None,
    ) -> StoredMove:
        """Keep the next move of ``player_id`` in ``round``, durably, before returning.

        :class:`TurnClosed` once the player has finished that round. The store keeps the
        move as given: whether the rules allow it is the caller's to check first.
        """
        checked = _check_move(round, act, cells, value)
        now = self.store._now()
        with self.store._write() as db:
            self._open_round(db, player_id, round)
            return self._insert_move(db, player_id, round, act=act, cells=checked, value=value,
                                     now=now)

    def add_turn(
        self,
        player_id: int,
        round: int,
        moves: Sequence[tuple[str, Iterable[Sequence[int]], MoveValue]],
    ) -> list[StoredMove]:
        """Keep a whole turn of ``player_id`` in ``round`` (each move's act, cells and
        value, in order) and finish the round, in one transaction: all of it is on disk
        when it returns, or none of it. :class:`TurnClosed` once the player has finished
        that round."""
        checked = [(act, _check_move(round, act, cells, value), value)
                   for act, cells, value in moves]
        now = self.store._now()
        with self.store._write() as db:
            self._open_round(db, player_id, round)
            stored = [self._insert_move(db, player_id, round, act=act, cells=cells, value=value,
                                         now=now)
                      for act, cells, value in checked]
            db.execute(
                "INSERT INTO turns_done (player_id, round, at) VALUES (?, ?, ?)",
                (player_id, round, now),
            )
        return stored

    @staticmethod
    def _insert_move(db: sqlite3.Connection, player_id: int, round: int, *, act: str,
                     cells: tuple[Cell, ...], value: MoveValue, now: str) -> StoredMove:
        """Write the next move of ``player_id`` in ``round``, in the transaction ``db``."""
        (seq,) = db.execute(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM moves WHERE player_id = ? AND round = ?",
            (player_id, round),
        ).fetchone()
        db.execute(
            "INSERT INTO moves (player_id, round, seq, act, cells, value, at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (player_id, round, seq, act, json.dumps([list(c) for c in cells],
                                                   separators=(",", ":")),
             json.dumps(value, ensure_ascii=False) if value is not None else None, now),
        )
        return StoredMove(round, int(seq), act, cells, value)

    def take_back(self, player_id: int, round: int) -> StoredMove | None:
        """Remove the last move of ``player_id`` in ``round`` and give it back; None when
        the round has none. :class:`TurnClosed` once the player has finished the round."""
        with self.store._write() as db:
            self._open_round(db, player_id, round)
            row = db.execute(
                f"SELECT id, {_MOVE_COLUMNS} FROM moves WHERE player_id = ? AND round = ?"
                " ORDER BY seq DESC LIMIT 1",
                (player_id, round),
            ).fetchone()
            if row is None:
                return None
            db.execute("DELETE FROM moves WHERE id = ?", (row[0],))
            return _move(row[1:])

    def finish_turn(self, player_id: int, round: int) -> None:
        """``player_id`` is done with ``round``: its moves are kept as they are. Finishing
        a round again changes nothing."""
        if isinstance(round, bool) or not isinstance(round, int) or round < 1:
            raise StoreError(f"a round is a whole number from 1, not {round!r}")
        now = self.store._now()
        with self.store._write() as db:
            self._player(db, player_id)
            db.execute(
                "INSERT INTO turns_done (player_id, round, at) VALUES (?, ?, ?)"
                " ON CONFLICT (player_id, round) DO NOTHING",
                (player_id, round, now),
            )

    def moves(self, player_id: int) -> list[StoredMove]:
        """Every move of ``player_id``, by round and then in the order they were made."""
        with self.store._read() as db:
            self._player(db, player_id)
            rows = db.execute(
                f"SELECT {_MOVE_COLUMNS} FROM moves WHERE player_id = ? ORDER BY round, seq",
                (player_id,),
            ).fetchall()
            return [_move(r) for r in rows]

    def done_rounds(self, player_id: int) -> set[int]:
        """The rounds ``player_id`` has finished."""
        with self.store._read() as db:
            self._player(db, player_id)
            rows = db.execute(
                "SELECT round FROM turns_done WHERE player_id = ?", (player_id,)
            ).fetchall()
            return {int(r) for (r,) in rows}

    def all_moves(self, game_id: int) -> dict[int, list[StoredMove]]:
        """Every move of every player of ``game_id``, by player id (a player without moves
        has an empty list), each player's by round and order: one query, for a box that
        gives every sheet back when it starts."""
        with self.store._read() as db:
            self.store._game(db, game_id)
            if not self._has_players:
                return {}
            found: dict[int, list[StoredMove]] = {}
            for pid, *move in db.execute(
                "SELECT players.id, moves.round, moves.seq, moves.act, moves.cells,"
                " moves.value FROM players LEFT JOIN moves ON moves.player_id = players.id"
                " WHERE players.game_id = ? ORDER BY players.id, moves.round, moves.seq",
                (game_id,),
            ):
                sheet = found.setdefault(int(pid), [])
                if move[0] is not None:
                    sheet.append(_move(move))
            return found

    def all_done_rounds(self, game_id: int) -> dict[int, set[int]]:
        """The rounds each player of ``game_id`` has finished, by player id, in one query."""
        with self.store._read() as db:
            self.store._game(db, game_id)
            if not self._has_players:
                return {}
            found: dict[int, set[int]] = {}
            for pid, rnd in db.execute(
                "SELECT players.id, turns_done.round FROM players LEFT JOIN turns_done"
                " ON turns_done.player_id = players.id WHERE players.game_id = ?",
                (game_id,),
            ):
                rounds = found.setdefault(int(pid), set())
                if rnd is not None:
                    rounds.add(int(rnd))
            return found

    # --- the table's hazards, the paper players, the ranking ---------------------

    @property
    def _has_deals(self) -> bool:
        return self.store.version >= DEALS_SINCE

    def deals(self, game_id: int, *, round: int | None = None) -> list[Deal]:
        """Every hazard dealt in ``game_id`` (in ``round`` only, if given), by round, then
        by placer."""
        with self.store._read() as db:
            self.store._game(db, game_id)
            if not self._has_deals:
                return []
            rows = db.execute(
                "SELECT round, placer_id, owner_id, cell, by_box FROM deals WHERE game_id = ?"
                " AND (? IS NULL OR round = ?) ORDER BY round, placer_id",
                (game_id, round, round)).fetchall()
            return [_deal(r) for r in rows]

    def place(self, game_id: int, round: int, placer_id: int, cell: Cell, *,
              by_box: bool = False) -> Deal:
        """Keep where ``placer_id`` drew the hazard they were dealt in ``round``, durably,
        before returning. :class:`HazardDrawn` when it is drawn already (it stays where it
        is), :class:`UnknownPlayer` when that player was dealt none then. Whether the rules
        allow the space is the caller's to check first."""
        (checked,) = _check_move(round, "hazard", [cell], None)
        now = self.store._now()
        with self.store._write() as db:
            row = db.execute(
                "SELECT round, placer_id, owner_id, cell, by_box FROM deals"
                " WHERE game_id = ? AND round = ? AND placer_id = ?",
                (game_id, round, placer_id)).fetchone()
            if row is None:
                raise UnknownPlayer(f"player {placer_id} was dealt no hazard in round {round}")
            if row[3] is not None:
                raise HazardDrawn(f"player {placer_id}'s hazard of round {round} is drawn")
            db.execute(
                "UPDATE deals SET cell = ?, by_box = ?, placed_at = ?"
                " WHERE game_id = ? AND round = ? AND placer_id = ?",
                (json.dumps(list(checked)), int(by_box), now, game_id, round, placer_id))
        return Deal(round, placer_id, int(row[2]), checked, by_box)

    def add_paper_score(self, game_id: int, initials: str, total: int,
                        tie: int | None = None) -> PaperScore:
        """Keep the stars of ``initials``, who played ``game_id`` on paper (entered again,
        the new figures stand). :class:`InitialsTaken` for the initials of a player on a
        phone at that game, :class:`TableFull` for a new one at a game of
        :data:`MAX_PLAYERS` players, on phones and on paper."""
        key = initials_key(initials)
        for name, value in (("total", total), ("tie", tie)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or not -999 <= value <= 999):
                raise StoreError(f"{name}: a whole number from -999 to 999, not {value!r}")
        now = self.store._now()
        with self.store._write() as db:
            self.store._game(db, game_id)
            if db.execute("SELECT 1 FROM players WHERE game_id = ? AND initials = ?",
                          (game_id, key)).fetchone():
                raise InitialsTaken(f"game {game_id} has a player {key} on a phone")
            known = db.execute("SELECT 1 FROM paper_scores WHERE game_id = ? AND initials = ?",
                               (game_id, key)).fetchone()
            (count,) = db.execute(
                "SELECT (SELECT COUNT(*) FROM players WHERE game_id = ?)"
                " + (SELECT COUNT(*) FROM paper_scores WHERE game_id = ?)",
                (game_id, game_id)).fetchone()
            if not known and count >= MAX_PLAYERS:
                # A table has a hundred players at most, on phones and on paper: no more
                # lines in its ranking for anyone to make up.
                raise TableFull(f"game {game_id} has {count} players: it takes no more")
            db.execute(
                "INSERT INTO paper_scores (game_id, initials, total, tie, at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, initials) DO UPDATE"
                " SET total = excluded.total, tie = excluded.tie, at = excluded.at",
                (game_id, key, total, tie, now))
        return PaperScore(key, total, tie)

    def paper_scores(self, game_id: int) -> list[PaperScore]:
        """The paper players' stars of ``game_id``, in the order they were first entered."""
        with self.store._read() as db:
            self.store._game(db, game_id)
            if not self._has_deals:
                return []
            rows = db.execute("SELECT initials, total, tie FROM paper_scores"
                              " WHERE game_id = ? ORDER BY rowid", (game_id,)).fetchall()
            return [PaperScore(str(i), int(t), None if x is None else int(x))
                    for i, t, x in rows]

    def keep_ranking(self, game_id: int, ranking: Iterable[Placing]) -> None:
        """Keep ``ranking`` as the ranking of ``game_id``, in place of the one before, in
        one transaction."""
        rows = [(game_id, p.place, p.initials, p.total, p.tie, int(p.bot), int(p.paper),
                 int(p.shared)) for p in ranking]
        with self.store._write() as db:
            self.store._game(db, game_id)
            db.execute("DELETE FROM standings WHERE game_id = ?", (game_id,))
            db.executemany("INSERT INTO standings (game_id, place, initials, total, tie, bot,"
                           " paper, shared) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def ranking(self, game_id: int) -> list[Placing]:
        """The ranking of ``game_id`` as last kept (none before the game ended)."""
        with self.store._read() as db:
            self.store._game(db, game_id)
            if not self._has_deals:
                return []
            rows = db.execute("SELECT place, initials, total, tie, bot, paper, shared FROM"
                              " standings WHERE game_id = ? ORDER BY place, rowid",
                              (game_id,)).fetchall()
            return [Placing(int(p), str(i), int(t), None if x is None else int(x), bool(b),
                            bool(q), bool(s)) for p, i, t, x, b, q, s in rows]

    # --- internals ----------------------------------------------------------

    def _player(self, db: sqlite3.Connection, player_id: int) -> PlayerRecord:
        row = None
        if self._has_players:
            row = db.execute(
                f"SELECT {_PLAYER_COLUMNS} FROM players WHERE id = ?", (player_id,)
            ).fetchone()
        if row is None:
            raise UnknownPlayer(f"no player {player_id} in {self.store.path}")
        return _player(row)

    def _open_round(self, db: sqlite3.Connection, player_id: int, rnd: int) -> None:
        """:class:`UnknownPlayer` or :class:`TurnClosed` unless ``rnd`` takes moves."""
        self._player(db, player_id)
        if db.execute(
            "SELECT 1 FROM turns_done WHERE player_id = ? AND round = ?", (player_id, rnd)
        ).fetchone():
            raise TurnClosed(f"player {player_id} has finished round {rnd}: its moves are kept")
