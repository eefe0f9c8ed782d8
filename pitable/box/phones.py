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

A :class:`PhoneTable` is called from the page's worker thread (every phone's call), from
the box's own players' thread, and for the menu's few actions (a paper player's stars, the
box seated as a player) from the box's loop; its lock takes them one at a time. What the
loop reads on every screen (:meth:`PhoneTable.pace`, :meth:`PhoneTable.ranking`,
:meth:`PhoneTable.showcase`) are snapshots that never wait for it.
"""

from __future__ import annotations

import contextlib
import logging
import random
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pitable.box.players import (
    Deal,
    Placing,
    PlayerBook,
    PlayerRecord,
    StoredMove,
    initials_key,
    token_hash,
)
from pitable.box.store import Game, RollRecord, SessionStore
from pitable.errors import (
    BadInitials,
    BadMove,
    BadSheet,
    HazardDrawn,
    IllegalMove,
    NoGame,
    NotAPlayer,
    UnknownGame,
)
from pitable.rules.base import N_, Options, Translator
from pitable.rules.bot.model import Act, Action, tokens_text
from pitable.rules.phone import NO_ROLL, TURN_DONE, PlayerSheet, refusal
from pitable.rules.scoring import parse_sheet
from pitable.rules.session import Mode, level
from pitable.rules.sheets import Cell, Sheet
from pitable.rules.table import Entry, Pace, rank
from pitable.rules.titles import find_title

log = logging.getLogger("pitable.phones")

#: Random bytes in a player's token: 128 bits.
TOKEN_BYTES = 16
#: The ended games whose sheets are kept, played again, for the phones reading them.
FINISHED_KEPT = 2
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
#: A hazard drawn by one who was dealt none this roll, or drawn twice.
NOT_DEALT = N_("no hazard of this roll is yours to draw")
ALREADY_DRAWN = N_("you have drawn this roll's hazard already")
#: A paper player's stars given before the game's end.
NOT_ENDED = N_("the stars are counted once the game has ended")
#: A body that is no move, and what a move looks like.
NOT_AN_OBJECT = N_("expected a JSON object such as {example}")
MOVE_EXAMPLE = '{"act": "write", "cells": [[2, 3]], "value": 7}'
HAZARD_EXAMPLE = '{"cells": [[2, 3]], "round": 4}'
SCORE_EXAMPLE = '{"initials": "XY", "total": 31}'
#: The most stars a paper player's figures may be, either way.
MAX_STARS = 999


@dataclass
class Seat:
    """One player at the table: their record and their sheet."""

    player: PlayerRecord
    sheet: PlayerSheet
    game: Game


@dataclass(frozen=True)
class BotTurn:
    """What the box's own player has to play now (:meth:`PhoneTable.turn_of`)."""

    game_id: int
    round: int
    options: Options | None
    done: bool
    over: bool
    #: The hazards others drew on its sheet, by round.
    hazards_on_it: dict[int, Cell]
    #: It was dealt a hazard this roll and has not drawn it.
    to_draw: bool
    #: Where that hazard may go, with the owner's total were it drawn there.
    costs: dict[Cell, int]
    sheet: Sheet
    #: The initials of the sheet's owner it was dealt this roll (None: none dealt).
    dealt: str | None = None


class PhoneTable:
    """Every player's sheet of the game in progress, kept in step with the store.

    At a table's hazard roll each player was dealt another's sheet (the deal is kept with
    the roll, :meth:`SessionStore.record_roll`): they draw the hazard there
    (:meth:`place`), and the box draws it on a random space where it may go for one who
    has not when the turn closes (the next roll, or the game's end), so that every sheet
    has its hazard of the roll, and one only. :meth:`pace` says who is still writing;
    when a sheet ends the game (the title's end), the round in progress is the last; when
    the game has ended its ranking is kept (:meth:`standings`).
    """

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.book = PlayerBook(store)
        self._lock = threading.RLock()
        self._game: Game | None = None
        self._sheet: Sheet | None = None
        self._rolls: list[RollRecord] = []
        self._seats: dict[int, Seat] = {}
        self._by_hash: dict[bytes, int] = {}
        #: The hazards dealt in the game in progress: by round, by placer.
        self._deals: dict[int, dict[int, Deal]] = {}
        #: The game that ended last, while no other is in progress: its ranking is shown.
        self._ended: Game | None = None
        #: Where the box draws a hazard a player left undrawn: any space where it may go.
        self._random = random.SystemRandom()
        #: What :meth:`pace` answers: figures of the last call, and every player's initials.
        self._pace: tuple[Pace, tuple[str, ...]] | None = None
        self._listeners: list[Callable[[], None]] = []
        #: The last ranking kept: its game's id and its lines (:meth:`ranking`).
        self._ranked: tuple[int, list[Placing]] | None = None
        #: The sheet the TV shows in its corner (:meth:`showcase`).
        self._showcase: Corner | None = None
        #: The last games were looked at for one that ended unranked (:meth:`_catch_up`).
        self._caught_up = False
        #: The sheets of the games that ended last, by game (:meth:`_finished_seats`).
        self._finished: OrderedDict[int, dict[int, Seat]] = OrderedDict()

    def listen(self, told: Callable[[], None]) -> None:
        """Call ``told`` after each change of the table (a roll taken in, a move, a hazard
        drawn, a turn done): the box's own players play then. ``told`` must not wait."""
        self._listeners.append(told)

    # --- the calls of the page ---------------------------------------------------------

    def join(self, initials: str, token: str | None = None, *,
             bot: bool = False) -> tuple[str, Seat, bool]:
        """Seat a player at the game in progress: the token that names their sheet, the
        seat, and whether it is new (a token already seated at this game keeps its seat).
        ``bot``: the box itself plays this sheet, and a new seat takes ``token`` as its own
        (the box's player derives it, to find its sheet again after a restart); a phone's
        new seat always gets a fresh random token."""
        with self._lock:
            game = self._sync()
            if token is not None:
                seat = self._seat_of(token)
                if seat is not None and seat.game.id == game.id:
                    return token, seat, False
            if not (bot and token is not None):
                token = secrets.token_urlsafe(TOKEN_BYTES)
            record = self.book.join(game.id, initials, token, bot=bot)
            seat = self._seat(record, game)
            self._by_hash[token_hash(token)] = record.id
            self._changed()
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

    def sync(self) -> None:
        """Take in what the box did since the last call (a roll, the game's end) now,
        rather than at the next phone's call: called by the page after each roll."""
        with self._lock, contextlib.suppress(NoGame):
            self._sync()

    def move(self, token: str | None, body: object) -> Seat:
        """Make the move ``body`` describes on ``token``'s sheet, stored before it returns;
        :class:`IllegalMove` when the rules refuse it, :class:`BadMove` for a body that is
        no move."""
        with self._lock:
            seat = self._current(token)
            action = parse_move(body, seat.sheet)
            meant = parse_round(body)
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
            self._changed()
            return seat

    def place(self, token: str | None, body: object) -> Seat:
        """Draw the hazard ``token``'s player was dealt this roll where ``body`` says
        (``{"cells": [[r, c]], "round": 4}``) on the sheet they were dealt, stored before it
        returns: :class:`IllegalMove` where the rules refuse it (or none was dealt them),
        :class:`BadMove` for a body that is no such thing."""
        with self._lock:
            seat = self._current(token)
            cell = parse_cell(body, seat.sheet)
            meant = parse_round(body)
            rnd = seat.sheet.round
            if meant is not None and meant != rnd:
                raise refusal(LATE, rnd)
            deal = self._deals.get(rnd, {}).get(seat.player.id)
            if deal is None:
                raise refusal(NOT_DEALT, rnd)
            if deal.cell is not None:
                raise refusal(ALREADY_DRAWN, rnd)
            owner = self._seats[deal.owner_id]
            breaches = owner.sheet.hazard_breaches(cell)
            if breaches:
                raise IllegalMove(breaches[0].rule, breaches[0])
            game = self._game
            assert game is not None
            try:
                drawn = self.book.place(game.id, rnd, seat.player.id, cell)
            except HazardDrawn:
                raise refusal(ALREADY_DRAWN, rnd) from None
            owner.sheet.place_hazard(cell)
            self._deals[rnd][seat.player.id] = drawn
            self._changed()
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
                self._changed()
            return seat

    def done(self, token: str | None, body: object = None) -> Seat:
        """The player says their turn is done: stored, then permanent. The round the body
        names (``{"round": 4}``), if any, is the turn it was said for: refused
        (:data:`LATE`) once the next roll has closed it, rather than said of a turn the
        player has not seen."""
        with self._lock:
            seat = self._current(token)
            round = parse_round(body)
            if round is not None and round != seat.sheet.round:
                raise refusal(LATE, seat.sheet.round)
            if not seat.sheet.done:
                if seat.sheet.options is None:
                    raise refusal(NO_ROLL)
                self.book.finish_turn(seat.player.id, seat.sheet.round)
                seat.sheet.finish_turn()
                self._changed()
            return seat

    def play_turn(self, token: str | None, round: int, actions: Sequence[Action]) -> Seat:
        """Play a whole turn of ``round`` on ``token``'s sheet and say it done: the box's
        own players' way, so that their turn is on disk whole, or not at all, when the
        next roll comes (a turn stored in part would leave the bot's own view of its sheet
        behind the sheet). :class:`IllegalMove` naming the first move the rules refuse
        (:data:`LATE` once the next roll closed ``round``), with nothing stored."""
        with self._lock:
            seat = self._current(token)
            sheet = seat.sheet
            if round != sheet.round:
                raise refusal(LATE, sheet.round)
            if sheet.options is None:
                raise refusal(NO_ROLL)
            if sheet.done:
                raise refusal(TURN_DONE, round)
            played = 0
            try:
                for action in actions:
                    sheet.play(action)
                    played += 1
                self.book.add_turn(seat.player.id, round,
                                   [(a.act.value, a.cells, a.value) for a in actions])
            except BaseException:
                for _ in range(played):
                    sheet.take_back()
                raise
            sheet.finish_turn()
            self._changed()
            return seat

    def add_score(self, token: str | None, body: object) -> dict[str, Any]:
        """A player who played on paper gives their stars (``{"initials": "XY", "total":
        31, "tie": 4}``, the tie-break's figure optional), from the phone of a player of
        the game, once it has ended; the ranking is kept again with them."""
        with self._lock:
            seat = self.seat(token)
            initials, total, tie = parse_score(body)
            self.add_paper(seat.game.id, initials, total, tie)
            return {"initials": initials}

    def add_paper(self, game_id: int, initials: str, total: int,
                  tie: int | None = None) -> None:
        """A paper player's stars at game ``game_id``, once it has ended (from a phone, or
        from the box's menu), and the ranking kept again with them:
        :class:`IllegalMove` before the end, :class:`InitialsTaken` for a phone player's
        initials."""
        with self._lock:
            game = self.store.game(game_id)
            if not game.ended:
                raise refusal(NOT_ENDED)
            self.book.add_paper_score(game.id, initials_key(initials), total, tie)
            self._rank(game)
            self._changed()

    def view(self, seat: Seat, tr: Translator, *, own: bool = True) -> dict[str, Any]:
        """What a phone is sent of ``seat`` (:func:`sheet_json`), with the hazard it was
        dealt this roll (``deal``: whose sheet, where it may go, that sheet as it stands),
        the one dealt on it (``hazard_on_me``), what the box drew for its player or on
        their sheet when the turn before closed (``box_drew``), and the table
        (:meth:`table`)."""
        with self._lock:
            data = sheet_json(seat, tr, own=own)
            current = self._game is not None and seat.game.id == self._game.id
            rnd = seat.sheet.round
            data["hazard_on_me"] = None
            data["box_drew"] = None
            if own:
                data["deal"] = None
            if current:
                for on_me in self._deals.get(rnd, {}).values():
                    if on_me.owner_id == seat.player.id:
                        placer = self._seats.get(on_me.placer_id)
                        data["hazard_on_me"] = {
                            "round": rnd, "placed": _cell(on_me.cell),
                            "by_box": on_me.by_box,
                            "by": placer.player.initials if placer else None}
                deal = self._deals.get(rnd, {}).get(seat.player.id)
                owner = self._seats.get(deal.owner_id) if deal is not None else None
                if own and deal is not None and owner is not None:
                    data["deal"] = {
                        "round": rnd, "owner": owner.player.initials,
                        "own": deal.owner_id == seat.player.id,
                        "placed": _cell(deal.cell), "by_box": deal.by_box,
                        "spaces": [list(c) for c in owner.sheet.hazard_spaces()]
                        if deal.cell is None else [],
                        "map": data["map"] if owner is seat else map_json(owner.sheet.sheet),
                        "cells": [list(row) for row in owner.sheet.tokens()]}
                data["box_drew"] = self._box_drew(seat, rnd - 1)
            data["table"] = self._table_json(seat.game, tr)
            return data

    def _box_drew(self, seat: Seat, rnd: int) -> dict[str, Any] | None:
        """What the box drew for or on ``seat``'s player when round ``rnd`` closed, a
        hazard left undrawn: the sheet it drew theirs on (``for_you``), and where it drew
        one on theirs (``on_you``); None when it drew neither."""
        for_you = on_you = None
        for deal in self._deals.get(rnd, {}).values():
            if not deal.by_box:
                continue
            if deal.placer_id == seat.player.id:
                owner = self._seats.get(deal.owner_id)
                for_you = owner.player.initials if owner else None
            if deal.owner_id == seat.player.id:
                on_you = _cell(deal.cell)
        if for_you is None and on_you is None:
            return None
        return {"round": rnd, "for_you": for_you, "on_you": on_you}

    def table(self, tr: Translator) -> dict[str, Any]:
        """The table as the TV and anyone watching see it: who is done with the round,
        who is still writing, whether it is the last, and the ranking once the game ended;
        an empty table when no game was played."""
        with self._lock:
            with contextlib.suppress(NoGame):
                self._sync()
            game = self._game or self._ended
            if game is None:
                return {"round": 0, "players": 0, "done": 0, "writing": [],
                        "last_round": False, "ended": False, "ranking": None,
                        "tie_name": None}
            return self._table_json(game, tr)

    def pace(self, round: int) -> Pace | None:
        """Who is done with ``round``, the round the box shows, as the last call left it
        (never waits: a snapshot); None when no one plays on a phone. A round the table
        has not taken in yet has everyone still writing."""
        known = self._pace
        if known is None:
            return None
        pace, everyone = known
        if pace.round == round or pace.ended:
            return pace
        return Pace(round, len(everyone), 0, everyone, False)

    def turn_of(self, token: str) -> BotTurn | None:
        """What the box's own player ``token`` has to play now, read in one go (None when
        its game is no longer the one in progress): the round, what it allows, whether it
        is done, the hazards drawn on its sheet by round, and, when it was dealt a hazard
        it has not drawn, the spaces where it may go with the owner's total for each."""
        with self._lock:
            try:
                seat = self._current(token)
            except (NotAPlayer, IllegalMove):
                return None
            sheet = seat.sheet
            placed = {r: a.cell for r, a in sheet.placed.items()}
            deal = self._deals.get(sheet.round, {}).get(seat.player.id)
            costs: dict[Cell, int] = {}
            dealt = None
            if deal is not None:
                owner = self._seats[deal.owner_id]
                dealt = owner.player.initials
                if deal.cell is None:
                    costs = {c: owner.sheet.score_with_hazard(c)
                             for c in owner.sheet.hazard_spaces()}
            return BotTurn(seat.game.id, sheet.round, sheet.options, sheet.done,
                           sheet.over_before_turn() or seat.game.ended, placed,
                           deal is not None and deal.cell is None, costs,
                           seat.sheet.sheet, dealt)

    def showcase(self) -> Corner | None:
        """The sheet the TV shows in its corner, as the last change left it (never waits:
        a snapshot): during a game each player's in turn, one a roll, in the order they
        joined; once it ended, the winner's. None without players."""
        return self._showcase

    def replay_of(self, token: str) -> tuple[list[tuple[int, Options]], dict[int, Cell],
                                               set[int]] | None:
        """What the box's player ``token`` needs to play its sheet again after a restart:
        each roll's round and what it allows, the hazards others drew on its sheet by
        round, and the rounds it said were done (those it played); None when its game is
        not the one in progress."""
        with self._lock:
            try:
                seat = self._current(token)
            except (NotAPlayer, IllegalMove):
                return None
            title = seat.sheet.title
            rolls = [(r.n, title.options(r.roll, r.hazards_after - r.hazard))
                     for r in self._rolls]
            placed = {rnd: action.cell for rnd, action in seat.sheet.placed.items()}
            return rolls, placed, self.book.done_rounds(seat.player.id)

    def current_game_id(self) -> int | None:
        """The store's id of the game in progress (None between games)."""
        with self._lock:
            try:
                return self._sync().id
            except NoGame:
                return None

    def solo(self) -> bool:
        """The game in progress is a solo game (its hazards go on the roller's own sheet)."""
        game = self._game
        return game is not None and game.mode is Mode.SOLO

    def standings(self, game_id: int) -> list[Placing]:
        """The ranking of game ``game_id`` as the store keeps it."""
        with self._lock:
            return self.book.ranking(game_id)

    def whose(self, seat: Seat) -> tuple[int, int]:
        """The ids of ``seat``'s game and player in the store."""
        return seat.game.id, seat.player.id

    def text(self, seat: Seat) -> tuple[str, str]:
        """``seat``'s sheet as ``pitable score --sheet`` reads it, and a file name for it."""
        with self._lock:
            name = f"pitable-{seat.game.id}-{seat.sheet.title.key}-{seat.player.initials}.txt"
            return seat.sheet.text(), name

    def seats(self) -> list[Seat]:
        """Every player of the game in progress, in the order they joined (of the game
        that ended last while none is in progress)."""
        with self._lock:
            try:
                self._sync()
            except NoGame:
                if self._ended is not None:
                    return list(self._finished_seats(self._ended).values())
                return []
            return list(self._seats.values())

    # --- keeping in step ---------------------------------------------------------------

    def current_seat(self, token: str | None) -> Seat:
        """``token``'s seat at the game in progress; :class:`NotAPlayer` for no known
        token, :class:`IllegalMove` (:data:`NEW_GAME`) for a seat of an ended game."""
        with self._lock:
            return self._current(token)

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
        if not game.ended:
            return None
        return self._finished_seats(game).get(record.id)

    def _finished_seats(self, game: Game) -> dict[int, Seat]:
        """The sheets of the ended ``game`` by player, played again from the store once
        and kept (an ended game changes no more): every phone of the table reads its own
        and every other's at the end."""
        kept = self._finished.get(game.id)
        if kept is None:
            kept = {s.player.id: s for s in stored_seats(self.store, game)}
            self._finished[game.id] = kept
            while len(self._finished) > FINISHED_KEPT:
                self._finished.popitem(last=False)
        return kept

    def _sync(self) -> Game:
        """Bring every sheet to the store's game and rolls; the game in progress."""
        if not self._caught_up:
            self._catch_up()
        game = self.store.current_game()
        if self._game is not None and (game is None or game.id != self._game.id):
            self._close(self._game.id)
        if game is None or game.map is None:
            self._game = None
            self._seats.clear()
            self._by_hash.clear()
            self._deals.clear()
            self._refresh()
            raise NoGame("no game is in progress: start one on the box")
        if self._game is None or game.id != self._game.id:
            self._load(game)
            self._ended = None
            self._changed()
        elif game.rounds > len(self._rolls):
            new = self.store.rolls(game.id)[len(self._rolls):]
            for roll in new:
                # Read and drawn first: should the store fail, nothing has moved on, and
                # the next call takes the roll in again.
                dealt = ({d.placer_id: d for d in self.book.deals(game.id, round=roll.n)}
                         if roll.hazard else None)
                self._settle_round()
                for seat in self._seats.values():
                    seat.sheet.start_turn(roll.roll, roll.hazards_after - roll.hazard)
                self._rolls.append(roll)
                if dealt is not None:
                    self._deals[roll.n] = dealt
            self._changed()
        for seat in self._seats.values():
            seat.game = game
        self._game = game
        return game

    def _settle_round(self) -> None:
        """The turn in progress closes: the box draws every hazard of it left undrawn."""
        rnd = len(self._rolls)
        for deal in list(self._deals.get(rnd, {}).values()):
            owner = self._seats.get(deal.owner_id)
            if deal.cell is None and owner is not None:
                drawn = self._settle(deal, owner.sheet)
                if drawn is not None:
                    _draw(owner, drawn)
                    self._deals[rnd][deal.placer_id] = drawn

    def _settle(self, deal: Deal, sheet: PlayerSheet) -> Deal | None:
        """Draw ``deal``'s hazard on a random space of ``sheet`` where it may go, stored
        as the box's; None when there is no such space (the sheet is full)."""
        spaces = sheet.hazard_spaces()
        if not spaces:
            return None
        assert self._game is not None or self._ended is not None
        try:
            return self.book.place(self._game_id(), deal.round, deal.placer_id,
                                   self._random.choice(spaces), by_box=True)
        except HazardDrawn:
            # Drawn by the placer in the store since the table last read it.
            found = [d for d in self.book.deals(self._game_id(), round=deal.round)
                     if d.placer_id == deal.placer_id]
            return found[0] if found else None

    def _game_id(self) -> int:
        game = self._game or self._ended
        assert game is not None
        return game.id

    def _catch_up(self) -> None:
        """At the first call: a table game that ended while no table was kept (the box
        stopped between its end and its ranking) is closed now, its last turn's undrawn
        hazards drawn and its ranking kept."""
        for game in reversed(self.store.games()[-2:]):
            if (game.ended and game.map is not None and self.book.players(game.id)
                    and not self.book.ranking(game.id)):
                self._load(game)
                self._close(game.id)
                break
        self._caught_up = True

    def _close(self, game_id: int) -> None:
        """The game in progress ended (or another began): the hazards of its last turn
        left undrawn are drawn, and its ranking is kept."""
        self._settle_round()
        try:
            ended = self.store.game(game_id)
        except UnknownGame:
            return
        self._game = None
        self._ended = ended if ended.ended else None
        if ended.ended:
            self._rank(ended)
            for told in self._listeners:
                told()

    def _rank(self, game: Game) -> list[Placing]:
        """Score every sheet of the ended ``game`` as ``pitable score`` does, add the
        paper players' stars, rank them by the title's tie-break, and keep the ranking."""
        seats = list(self._finished_seats(game).values())
        title = find_title(game.title)
        entries = []
        for seat in seats:
            try:
                sheet = parse_sheet(tokens_text(seat.sheet.tokens()))
                entries.append(Entry(seat.player.initials, title.score(sheet).total,
                                     title.tie_break(sheet), bot=seat.player.bot))
            except (BadSheet, IllegalMove) as exc:
                # Not a sheet the rules score (a rules fix since it was played): it stays
                # on disk, and out of the ranking, which says who is in it.
                log.warning("game %d: the sheet of %s is not scored: %s", game.id,
                            seat.player.initials, exc)
        entries += [Entry(p.initials, p.total, p.tie, paper=True)
                    for p in self.book.paper_scores(game.id)]
        placings = [Placing(s.place, s.entry.initials, s.entry.total, s.entry.tie,
                            s.entry.bot, s.entry.paper, s.shared) for s in rank(entries)]
        self.book.keep_ranking(game.id, placings)
        self._ranked = (game.id, placings)
        winner = next((s for s in seats for p in placings[:1]
                       if s.player.initials == p.initials), None)
        self._showcase = corner_of(winner) if winner is not None else None
        return placings

    def ranking(self, game_id: int) -> list[Placing]:
        """The ranking of ``game_id`` as the last game closed here left it (never waits:
        a snapshot, for the box's loop); none for another game."""
        known = self._ranked
        return list(known[1]) if known is not None and known[0] == game_id else []

    def _load(self, game: Game) -> None:
        """Take in ``game`` from the store: its rolls, its players' sheets, its deals
        (the box drawing what closed turns left undrawn). Should the store fail, no game
        is taken in, and the next call loads it again."""
        try:
            self._loaded(game)
        except BaseException:
            self._game = None
            self._seats = {}
            self._deals = {}
            self._rolls = []
            raise

    def _loaded(self, game: Game) -> None:
        table = game.map
        assert table is not None
        self._game = game
        self._sheet = table.sheet()
        self._rolls = self.store.rolls(game.id)
        self._by_hash = {}
        deals = self.book.deals(game.id)
        self._deals = {}
        seats = replay_table(self.book.players(game.id), game, self._sheet, self._rolls,
                             moves=self.book.all_moves(game.id),
                             done=self.book.all_done_rounds(game.id), deals=deals,
                             settle=self._settle)
        # The deals as they stand now, the box's draws of closed turns included.
        for deal in self.book.deals(game.id) if deals else ():
            self._deals.setdefault(deal.round, {})[deal.placer_id] = deal
        self._seats = {seat.player.id: seat for seat in seats}

    def _seat(self, record: PlayerRecord, game: Game) -> Seat:
        assert self._sheet is not None
        (seat,) = replay_table([record], game, self._sheet, self._rolls, moves={},
                               done={}, deals=())
        self._seats[record.id] = seat
        return seat

    def _done(self, seat: Seat) -> bool:
        """``seat``'s player is done with the round: said so, and drew the hazard they
        were dealt (if any)."""
        deal = self._deals.get(len(self._rolls), {}).get(seat.player.id)
        if not seat.sheet.done:
            return False
        if deal is None or deal.cell is not None:
            return True
        # A sheet with no space left for the hazard takes none: nothing to wait for.
        owner = self._seats.get(deal.owner_id)
        return owner is None or not owner.sheet.hazard_spaces()

    def _changed(self) -> None:
        self._refresh()
        for told in self._listeners:
            told()

    def _refresh(self) -> None:
        """Work out the table's pace again, for :meth:`pace`."""
        game = self._game
        if game is None:
            ended = self._ended
            if ended is None:
                self._pace = None
            else:
                self._pace = (Pace(ended.rounds, 0, 0, (), False, ended=True), ())
            return
        seats = list(self._seats.values())
        if not seats:
            self._pace = None
            self._showcase = None
            return
        self._showcase = corner_of(seats[len(self._rolls) % len(seats)])
        everyone = tuple(s.player.initials for s in seats)
        writing = tuple(s.player.initials for s in seats if not self._done(s))
        last = game.mode is Mode.TABLE and any(s.sheet.over() for s in seats)
        self._pace = (Pace(len(self._rolls), len(seats), len(seats) - len(writing), writing,
                           last), everyone)

    def _table_json(self, game: Game, tr: Translator) -> dict[str, Any]:
        tie = find_title(game.title).tie_break_name
        data: dict[str, Any] = {"round": 0, "players": 0, "done": 0, "writing": [],
                                "last_round": False, "ended": game.ended}
        known = self._pace
        if known is not None and not game.ended and self._game is not None:
            data.update(known[0].to_json())
        data["ended"] = game.ended
        data["ranking"] = ([placing_json(p) for p in self.book.ranking(game.id)]
                           if game.ended else None)
        data["tie_name"] = tr.gettext(tie) if tie else None
        return data


#: A sheet as the TV shows it in its corner: the player's initials, their stars, the map's
#: rows (a kind's letter a position) and the tokens written (as ``pitable score`` reads them).
Corner = tuple[str, int, tuple[str, ...], tuple[tuple[str, ...], ...]]


def corner_of(seat: Seat) -> Corner:
    """``seat``'s sheet as the TV shows it in its corner."""
    sheet = seat.sheet
    rows = tuple("".join(k.value for k in row) for row in sheet.sheet.grid)
    return seat.player.initials, sheet.score().total, rows, sheet.tokens()


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
    return replay_table(book.players(game.id), game, sheet, rolls,
                        moves=book.all_moves(game.id), done=book.all_done_rounds(game.id),
                        deals=book.deals(game.id))


def stored_seat(store: SessionStore, game_id: int, player_id: int) -> Seat:
    """The sheet of player ``player_id`` of game ``game_id``, played again from ``store``
    as it holds it now (the turn in progress included); :class:`NotAPlayer` when the game
    has no such player."""
    game = store.game(game_id)
    found = [s for s in stored_seats(store, game) if s.player.id == player_id]
    if not found:
        raise NotAPlayer(f"game {game_id} has no player {player_id}")
    return found[0]


#: What settles a hazard left undrawn when its turn closed: given the deal and the sheet it
#: goes on (in that turn still), the deal as drawn (None: it stays undrawn).
Settle = Callable[[Deal, PlayerSheet], "Deal | None"]


def replay_table(records: Iterable[PlayerRecord], game: Game, sheet: Sheet,
                 rolls: Iterable[RollRecord], *, moves: Mapping[int, list[StoredMove]],
                 done: Mapping[int, set[int]], deals: Iterable[Deal],
                 settle: Settle | None = None) -> list[Seat]:
    """The players' sheets played again from the store, round by round: every roll of the
    game, the hazards drawn on each sheet that round (first: they came with the roll), each
    player's own moves, and the rounds they said were done. A hazard still undrawn when its
    turn closed is ``settle``'s to draw (the box draws it; left out without one). A stored
    move the rules now refuse (a rules fix since it was made) is logged and left out, and
    stays on disk."""
    solo = game.mode is Mode.SOLO
    seats = [Seat(r, PlayerSheet(sheet, solo=solo), game) for r in records]
    by_id = {seat.player.id: seat for seat in seats}
    by_round: dict[tuple[int, int], list[StoredMove]] = {}
    for pid, made in moves.items():
        for move in made:
            by_round.setdefault((pid, move.round), []).append(move)
    dealt: dict[int, list[Deal]] = {}
    for deal in deals:
        dealt.setdefault(deal.round, []).append(deal)
    rolls = list(rolls)
    for k, roll in enumerate(rolls):
        for seat in seats:
            seat.sheet.start_turn(roll.roll, roll.hazards_after - roll.hazard)
        for deal in dealt.get(roll.n, ()):
            owner = by_id.get(deal.owner_id)
            if deal.cell is not None and owner is not None:
                _draw(owner, deal)
        for seat in seats:
            pid = seat.player.id
            for move in sorted(by_round.get((pid, roll.n), ()), key=lambda m: m.seq):
                action = _stored_action(move)
                try:
                    seat.sheet.play(action)
                except IllegalMove as exc:
                    log.warning("player %s, round %d: stored move %s is refused now (%s)",
                                seat.player.initials, roll.n, action, exc.rule)
            if roll.n in done.get(pid, ()):
                seat.sheet.finish_turn()
        if settle is not None and (k < len(rolls) - 1 or game.ended):
            for deal in dealt.get(roll.n, ()):
                owner = by_id.get(deal.owner_id)
                if deal.cell is None and owner is not None:
                    drawn = settle(deal, owner.sheet)
                    if drawn is not None:
                        _draw(owner, drawn)
    if game.ended:
        for seat in seats:
            seat.sheet.finish()
    return seats


def _draw(owner: Seat, deal: Deal) -> None:
    assert deal.cell is not None
    try:
        owner.sheet.place_hazard(deal.cell)
    except IllegalMove as exc:
        log.warning("player %s, round %d: the hazard stored at %s is refused now (%s)",
                    owner.player.initials, deal.round, deal.cell, exc.rule)


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
    parse_round(body)
    value = body.get("value")
    if value is not None and not (
        (isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 99)
        or (isinstance(value, str) and 0 < len(value) <= MAX_VALUE)
    ):
        raise BadMove(N_("value: expected a number from 0 to 99 or a letter, got {given}"),
                      given=_short(value))
    return Action(act, tuple((int(r), int(c)) for r, c in cells), value)


def parse_round(body: object) -> int | None:
    """The turn a call's JSON body says it was made for (``"round": 4``), None where it
    names none; :class:`BadMove` for a round that is no whole number from 1."""
    meant = body.get("round") if isinstance(body, Mapping) else None
    if meant is not None and (not isinstance(meant, int) or isinstance(meant, bool)
                              or meant < 1):
        raise BadMove(N_("round: expected the turn's round, a whole number from 1, got"
                         " {given}"), given=_short(meant))
    return meant


def parse_cell(body: object, sheet: PlayerSheet) -> Cell:
    """The one space a hazard's JSON body names: ``{"cells": [[r, c]], "round": 4}``;
    :class:`BadMove` naming what is wrong."""
    if not isinstance(body, Mapping):
        raise BadMove(NOT_AN_OBJECT, example=HAZARD_EXAMPLE)
    cells = body.get("cells")
    height, width = sheet.sheet.grid_height, sheet.sheet.grid_width
    if (not isinstance(cells, list) or len(cells) != 1
            or not _is_cell(cells[0], height, width)):
        raise BadMove(N_("cells: expected one [row, column] pair inside the {height}x{width}"
                         " map"), height=height, width=width)
    parse_round(body)
    r, c = cells[0]
    return int(r), int(c)


def parse_score(body: object) -> tuple[str, int, int | None]:
    """A paper player's initials, stars and tie-break figure from a JSON body
    (``{"initials": "XY", "total": 31, "tie": 4}``); :class:`BadMove` naming what is
    wrong."""
    if not isinstance(body, Mapping):
        raise BadMove(NOT_AN_OBJECT, example=SCORE_EXAMPLE)
    initials = body.get("initials")
    try:
        key = initials_key(initials) if isinstance(initials, str) else None
    except BadInitials:
        key = None
    if key is None:
        raise BadMove(N_("initials: 1 to 3 letters, as on a paper sheet"))
    found: list[int | None] = []
    for name in ("total", "tie"):
        value = body.get(name)
        if value is None and name == "tie":
            found.append(None)
            continue
        if (not isinstance(value, int) or isinstance(value, bool)
                or not -MAX_STARS <= value <= MAX_STARS):
            raise BadMove(N_("{name}: expected a whole number from {low} to {high}, got"
                             " {given}"), name=name, low=-MAX_STARS, high=MAX_STARS,
                          given=_short(value))
        found.append(value)
    total, tie = found
    assert total is not None
    return key, total, tie


def _is_cell(cell: object, height: int, width: int) -> bool:
    return (isinstance(cell, list) and len(cell) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
            and 0 <= cell[0] < height and 0 <= cell[1] < width)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 24 else text[:21] + "..."


# --- what a phone is sent ---------------------------------------------------------------


def _cell(cell: Cell | None) -> list[int] | None:
    return None if cell is None else list(cell)


def placing_json(placing: Placing) -> dict[str, Any]:
    """One line of a game's ranking as JSON: the page's, and ``pitable history --json``'s."""
    return {"place": placing.place, "initials": placing.initials, "total": placing.total,
            "tie": placing.tie, "bot": placing.bot, "paper": placing.paper,
            "shared": placing.shared}


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

