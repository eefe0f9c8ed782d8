"""The players' own sheets of the game in progress: what each phone at the table plays on.

A player joins with their initials and gets a token, a secret of 128 random bits that names
their sheet from then on (the store keeps only its hash). Every move is checked by the rules
(:class:`~pitable.rules.phone.PlayerSheet`, the replay validator's rules) and stored, in its
own transaction, before it is acknowledged; the sheets are rebuilt from the store after a
restart, so a phone picks up where it was.

The sheets follow the box's rolls through the store: each call first reads the game in
progress and its last round (two indexed reads), and a roll recorded since closes every
sheet's turn (passed, where the player had not said it was done) and opens the next. The
box's loop never waits for a phone.

A :class:`PhoneTable` is called from one thread at a time (the page runs its calls on one
worker thread of its own); its lock also keeps a second caller safe.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pitable.box.players import PlayerBook, PlayerRecord, StoredMove, token_hash
from pitable.box.store import Game, RollRecord, SessionStore
from pitable.errors import BadMove, IllegalMove, NoGame, NotAPlayer, UnknownGame
from pitable.rules.base import N_, Translator
from pitable.rules.bot.model import Act, Action
from pitable.rules.phone import NO_ROLL, TURN_DONE, PlayerSheet, refusal
from pitable.rules.session import Mode, level
from pitable.rules.sheets import Sheet

log = logging.getLogger("pitable.phones")

#: Random bytes in a player's token: 128 bits.
TOKEN_BYTES = 16
#: The longest value a move may carry (a number, a structure's or a discovery's letter).
MAX_VALUE = 8
#: The most spaces one move names (a jungle's five, with room to spare).
MAX_CELLS = 8

#: The words of the moves every title has, for a player choosing one.
CROSS_OUT = N_("cross out")
#: A move sent for a turn that the next roll closed before it arrived.
LATE = N_("the next roll came first: this move was for the turn before")
#: A move on the sheet of a game that ended since the phone joined.
NEW_GAME = N_("this game is over: join the new one")
#: A body that is no move, and what a move looks like.
NOT_AN_OBJECT = N_("expected a JSON object such as {example}")
MOVE_EXAMPLE = '{"act": "write", "cells": [[2, 3]], "value": 7}'


@dataclass
class Seat:
    """One player at the table: their record and their sheet."""

    player: PlayerRecord
    sheet: PlayerSheet
    game: Game


class PhoneTable:
    """Every player's sheet of the game in progress, kept in step with the store."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.book = PlayerBook(store)
        self._lock = threading.RLock()
        self._game: Game | None = None
        self._sheet: Sheet | None = None
        self._rolls: list[RollRecord] = []
        self._seats: dict[int, Seat] = {}
        self._by_hash: dict[bytes, int] = {}

    # --- the calls of the page ---------------------------------------------------------

    def join(self, initials: str, token: str | None = None) -> tuple[str, Seat, bool]:
        """Seat a player at the game in progress: the token that names their sheet, the
        seat, and whether it is new (a token already seated at this game keeps its seat)."""
        with self._lock:
            game = self._sync()
            if token is not None:
                seat = self._seat_of(token)
                if seat is not None and seat.game.id == game.id:
                    return token, seat, False
            token = secrets.token_urlsafe(TOKEN_BYTES)
            record = self.book.join(game.id, initials, token)
            seat = self._seat(record, game, [])
            self._by_hash[token_hash(token)] = record.id
            return token, seat, True

    def seat(self, token: str | None) -> Seat:
        """The seat ``token`` names: at the game in progress, or at the game it played."""
        with self._lock:
            if token is None:
                raise NotAPlayer("no player token")
            with contextlib.suppress(NoGame):
                self._sync()
            seat = self._seat_of(token)
            if seat is None:
                raise NotAPlayer("no sheet has this token: join the game")
            return seat

    def move(self, token: str | None, body: object) -> Seat:
        """Make the move ``body`` describes on ``token``'s sheet, stored before it returns;
        :class:`IllegalMove` when the rules refuse it, :class:`BadMove` for a body that is
        no move."""
        with self._lock:
            seat = self._current(token)
            action = parse_move(body, seat.sheet)
            meant = body.get("round") if isinstance(body, Mapping) else None
            if meant is not None and meant != seat.sheet.round:
                # Sent for a turn the next roll has closed since: it belongs to no turn.
                raise refusal(LATE, seat.sheet.round)
            breaches = seat.sheet.breaches(action)
            if breaches:
                raise IllegalMove(breaches[0].rule, breaches[0])
            value = action.value
            self.book.add_move(seat.player.id, seat.sheet.round, action.act.value,
                               action.cells, value)
            seat.sheet.play(action)
            return seat

    def take_back(self, token: str | None) -> Seat:
        """Undo the last move of the turn on ``token``'s sheet, in the store first."""
        with self._lock:
            seat = self._current(token)
            if seat.sheet.done:
                raise refusal(TURN_DONE, seat.sheet.round)
            if seat.sheet.actions:
                self.book.take_back(seat.player.id, seat.sheet.round)
                seat.sheet.take_back()
            return seat

    def done(self, token: str | None) -> Seat:
        """The player says their turn is done: stored, then permanent."""
        with self._lock:
            seat = self._current(token)
            if not seat.sheet.done:
                if seat.sheet.options is None:
                    raise refusal(NO_ROLL)
                self.book.finish_turn(seat.player.id, seat.sheet.round)
                seat.sheet.finish_turn()
            return seat

    def view(self, seat: Seat, tr: Translator, *, own: bool = True) -> dict[str, Any]:
        """What a phone is sent of ``seat`` (:func:`sheet_json`)."""
        with self._lock:
            return sheet_json(seat, tr, own=own)

    def whose(self, seat: Seat) -> tuple[int, int]:
        """The ids of ``seat``'s game and player in the store."""
        return seat.game.id, seat.player.id

    def text(self, seat: Seat) -> tuple[str, str]:
        """``seat``'s sheet as ``pitable score --sheet`` reads it, and a file name for it."""
        with self._lock:
            name = f"pitable-{seat.game.id}-{seat.sheet.title.key}-{seat.player.initials}.txt"
            return seat.sheet.text(), name

    def seats(self) -> list[Seat]:
        """Every player of the game in progress, in the order they joined."""
        with self._lock:
            try:
                self._sync()
            except NoGame:
                return []
            return list(self._seats.values())

    # --- keeping in step ---------------------------------------------------------------

    def _current(self, token: str | None) -> Seat:
        seat = self.seat(token)
        if self._game is None or seat.game.id != self._game.id:
            raise refusal(NEW_GAME)
        return seat

    def _seat_of(self, token: str) -> Seat | None:
        pid = self._by_hash.get(token_hash(token))
        if pid is not None and pid in self._seats:
            return self._seats[pid]
        record = self.book.player_by_token(token)
        if record is None:
            return None
        if self._game is not None and record.game_id == self._game.id:
            self._by_hash[token_hash(token)] = record.id
            return self._seats.get(record.id)
        # A sheet of a game that ended: built again from the store, as it finished.
        try:
            game = self.store.game(record.game_id)
        except UnknownGame:
            return None
        table = game.map
        if table is None:
            return None
        rolls = self.store.rolls(game.id)
        seat = _build(record, game, table.sheet(), rolls, moves=self.book.moves(record.id),
                      done=self.book.done_rounds(record.id))
        seat.sheet.finish()
        return seat

    def _sync(self) -> Game:
        """Bring every sheet to the store's game and rolls; the game in progress."""
        game = self.store.current_game()
        if game is None or game.map is None:
            self._game = None
            self._seats.clear()
            self._by_hash.clear()
            raise NoGame("no game is in progress: start one on the box")
        if self._game is None or game.id != self._game.id:
            self._load(game)
        elif game.rounds > len(self._rolls):
            new = self.store.rolls(game.id)[len(self._rolls):]
            for roll in new:
                for seat in self._seats.values():
                    seat.sheet.start_turn(roll.roll, roll.hazards_after - roll.hazard)
            self._rolls.extend(new)
        for seat in self._seats.values():
            seat.game = game
        self._game = game
        return game

    def _load(self, game: Game) -> None:
        table = game.map
        assert table is not None
        self._sheet = table.sheet()
        self._rolls = self.store.rolls(game.id)
        self._by_hash = {}
        self._seats = {seat.player.id: seat for seat in stored_seats(
            self.store, game, sheet=self._sheet, rolls=self._rolls)}
        self._game = game

    def _seat(self, record: PlayerRecord, game: Game, moves: list[StoredMove]) -> Seat:
        assert self._sheet is not None
        seat = _build(record, game, self._sheet, self._rolls, moves=moves, done=set())
        self._seats[record.id] = seat
        return seat


def stored_seats(store: SessionStore, game: Game, *, sheet: Sheet | None = None,
                 rolls: list[RollRecord] | None = None) -> list[Seat]:
    """Every player of ``game`` with their sheet, played again from ``store`` (which may
    be open read-only), in the order they joined; none for a game without a map.
    ``sheet`` and ``rolls`` are the game's, where the caller has them already."""
    table = game.map
    if table is None:
        return []
    book = PlayerBook(store)
    sheet = sheet if sheet is not None else table.sheet()
    rolls = rolls if rolls is not None else store.rolls(game.id)
    moves = book.all_moves(game.id)
    finished = book.all_done_rounds(game.id)
    return [_build(record, game, sheet, rolls, moves=moves.get(record.id, []),
                   done=finished.get(record.id, set())) for record in book.players(game.id)]


def stored_seat(store: SessionStore, game_id: int, player_id: int) -> Seat:
    """The sheet of player ``player_id`` of game ``game_id``, played again from ``store``
    as it holds it now (the turn in progress included); :class:`NotAPlayer` when the game
    has no such player."""
    game = store.game(game_id)
    table = game.map
    book = PlayerBook(store)
    record = next((p for p in book.players(game_id) if p.id == player_id), None)
    if table is None or record is None:
        raise NotAPlayer(f"game {game_id} has no player {player_id}")
    return _build(record, game, table.sheet(), store.rolls(game_id),
                  moves=book.moves(player_id), done=book.done_rounds(player_id))


def _build(record: PlayerRecord, game: Game, sheet: Sheet, rolls: Iterable[RollRecord], *,
           moves: Iterable[StoredMove], done: set[int]) -> Seat:
    """A player's sheet played again from the store: every roll of the game, the player's
    moves of each round, and the rounds they said were done. A stored move the rules now
    refuse (a rules fix since it was made) is logged and left out, and stays on disk."""
    player = PlayerSheet(sheet, solo=game.mode is Mode.SOLO)
    by_round: dict[int, list[StoredMove]] = {}
    for move in moves:
        by_round.setdefault(move.round, []).append(move)
    for roll in rolls:
        player.start_turn(roll.roll, roll.hazards_after - roll.hazard)
        for move in sorted(by_round.get(roll.n, []), key=lambda m: m.seq):
            action = _stored_action(move)
            try:
                player.play(action)
            except IllegalMove as exc:
                log.warning("player %s, round %d: stored move %s is refused now (%s)",
                            record.initials, roll.n, action, exc.rule)
        if roll.n in done:
            player.finish_turn()
    if game.ended:
        player.finish()
    return Seat(record, player, game)


def _stored_action(move: StoredMove) -> Action:
    return Action(Act.named(move.act), tuple(move.cells), move.value)


def parse_move(body: object, sheet: PlayerSheet) -> Action:
    """The move a request's JSON body describes: ``{"act": "write", "cells": [[r, c]],
    "value": 7, "round": 3}`` (the round, if given, is the turn it was made for);
    :class:`BadMove` naming what is wrong."""
    if not isinstance(body, Mapping):
        raise BadMove(NOT_AN_OBJECT, example=MOVE_EXAMPLE)
    word = body.get("act")
    try:
        act = Act.named(word) if isinstance(word, str) else None
    except KeyError:
        act = None
    if act is None:
        raise BadMove(N_("act: expected the word of a move, got {given}"), given=_short(word))
    cells = body.get("cells")
    height, width = sheet.sheet.grid_height, sheet.sheet.grid_width
    if (not isinstance(cells, list) or not 1 <= len(cells) <= MAX_CELLS
            or not all(_is_cell(c, height, width) for c in cells)):
        raise BadMove(N_("cells: expected 1 to {most} [row, column] pairs inside the"
                         " {height}x{width} map"), most=MAX_CELLS, height=height, width=width)
    meant = body.get("round")
    if meant is not None and (not isinstance(meant, int) or isinstance(meant, bool)
                              or meant < 1):
        raise BadMove(N_("round: expected the turn's round, a whole number from 1, got"
                         " {given}"), given=_short(meant))
    value = body.get("value")
    if value is not None and not (
        (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 99)
        or (isinstance(value, str) and 0 < len(value) <= MAX_VALUE)
    ):
        raise BadMove(N_("value: expected a number from 0 to 99 or a letter, got {given}"),
                      given=_short(value))
    return Action(act, tuple((int(r), int(c)) for r, c in cells), value)


def _is_cell(cell: object, height: int, width: int) -> bool:
    return (isinstance(cell, list) and len(cell) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
            and 0 <= cell[0] < height and 0 <= cell[1] < width)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


# --- what a phone is sent ---------------------------------------------------------------


def move_label(sheet: PlayerSheet, action: Action, tr: Translator) -> str:
    """A move in a few words, as a player choosing it reads it: ``7``, ``hut``, ``snake``,
    ``Treasure 7``."""
    if action.act is Act.WRITE:
        return str(action.value)
    if action.act is Act.HAZARD:
        return tr.gettext(sheet.title.hazard_name)
    if action.act is Act.CROSS:
        return tr.gettext(CROSS_OUT)
    words = sheet.rules.words
    word = words.get(str(action.value)) or words.get(action.act.value)
    if word is None:
        return f"{action.act.value} {'' if action.value is None else action.value}".strip()
    if action.value is not None and str(action.value) not in words:
        return f"{tr.gettext(word)} {action.value}"
    return tr.gettext(word)


def _move_json(sheet: PlayerSheet, action: Action, tr: Translator) -> dict[str, Any]:
    return {"act": action.act.value, "cells": [list(c) for c in action.cells],
            "value": action.value, "label": move_label(sheet, action, tr)}


def map_json(sheet: Sheet) -> dict[str, Any]:
    """A map as the phone draws it: a kind's letter a position, and what each kind is."""
    kinds = {k for row in sheet.grid for k in row}
    return {
        "width": sheet.grid_width,
        "height": sheet.grid_height,
        "rows": ["".join(k.value for k in row) for row in sheet.grid],
        "kinds": {k.value: {"name": k.name.lower(), "picture": k.picture,
                            "fillable": k.fillable, "inside": k.inside} for k in kinds},
        "starts": sorted([list(c) for c in sheet.starts]),
        "clouds": sorted([list(c) for c in sheet.clouds]),
    }


def sheet_json(seat: Seat, tr: Translator, *, own: bool = True) -> dict[str, Any]:
    """What a phone is sent of ``seat``: the sheet, its score and its turn; with ``own``
    (the player's own phone) also the moves allowed next and what the turn still lacks."""
    player, game = seat.sheet, seat.game
    title = player.title
    score = player.score()
    # A turn that ends the game is the player's until they say it is done, as any other:
    # its last move may still be taken back.
    over = game.ended or (player.over() and (player.done or player.options is None))
    result = None
    if over and game.mode is Mode.SOLO:
        result = tr.gettext(level(title, score.total, player.hazards).name)
    turn: dict[str, Any] | None = None
    if player.options is not None:
        reading = title.reading(player.options, solo=player.solo, tr=tr)
        turn = {
            "round": player.round,
            "faces": [str(f) for f in player.options.roll.faces],
            "hazard": player.options.hazard,
            # The hazards the box had counted before this roll: what the roll allows
            # depends on them (the Island ignores a sixth danger).
            "hazards_marked": player.options.hazards_marked,
            "headline": reading.headline,
            "lines": list(reading.lines),
            "moves": [_move_json(player, a, tr) for a in player.actions],
            "done": player.done,
        }
        if own:
            turn["warnings"] = [w.words(tr) for w in player.warnings()]
    data: dict[str, Any] = {
        "player": {"initials": seat.player.initials},
        "game": {"id": game.id, "title": title.key, "name": title.display_name(tr),
                 "mode": game.mode.value, "side": player.sheet.side.value,
                 "seed": player.sheet.seed, "format": player.sheet.version,
                 "round": player.round,
                 "rounds": title.solo_rounds if player.solo else None, "ended": game.ended},
        "map": map_json(player.sheet),
        "cells": [list(row) for row in player.tokens()],
        "score": {"components": [[tr.gettext(n), s] for n, s in score.components],
                  "total": score.total, "level": result},
        "turn": turn,
        "over": over,
    }
    if own:
        choices: dict[str, list[dict[str, Any]]] = {}
        groups = []
        for action in player.legal() if not over else []:
            if len(action.cells) == 1:
                r, c = action.cell
                entry = _move_json(player, action, tr)
                del entry["cells"]
                choices.setdefault(f"{r},{c}", []).append(entry)
            else:
                groups.append(_move_json(player, action, tr))
        data["choices"] = choices
        data["groups"] = groups
    return data

