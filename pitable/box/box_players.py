"""The box as a player: bots that play the table's rolls on sheets of their own, beside
the players on their phones, and are ranked with them.

"Add the box as a player" (the menu, or a phone) seats one more: a solo player gets a rival
on the same dice, a table an extra opponent. Each plays through the
:class:`~pitable.box.phones.PhoneTable` a phone plays through (its moves checked by the
rules and stored before they count; a whole turn and its Done stored in one transaction,
so that the next roll never finds it half written), with the moves its title's bot chooses
at the strength asked (the planner's, :mod:`pitable.rules.bot.planner`). At a table it
draws the hazard it was dealt where it costs that sheet's owner most, and takes in those
drawn on its own sheet.

The bots think on one thread of their own, woken by every change of the table, so a
planning bot never holds up a phone's call: the table is locked only while it reads what
it has to play and while each move is stored.

A box's player's token is derived (HMAC-SHA256) from a key the store keeps and from its
game and initials, and its strength is kept in the store's settings, so that after a
restart (:meth:`BoxPlayers.resume`) the box finds its sheets again and plays on: its bot's
own view of each sheet is played again from the game's rolls, the hazards others drew
there and its own moves, which its bot chooses again as it chose them (the greedy bot and
the planner, whose dice are seeded by the round, choose alike from alike).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from pitable.box.phones import LATE, BotTurn, PhoneTable
from pitable.box.table_bots import bot_initials
from pitable.errors import IllegalMove, InitialsTaken, NoGame, NotAPlayer, StoreError
from pitable.rules.base import N_
from pitable.rules.bot import MAX_TURNS, ROLLS, STRENGTHS, bot_of, options_cache
from pitable.rules.bot.model import Act, Action, Player
from pitable.rules.bot.planner import Planner

log = logging.getLogger("pitable.box_players")

#: The most of the box's own players at one game.
MAX_BOX_PLAYERS = 8
#: Asked for one more than :data:`MAX_BOX_PLAYERS`.
TOO_MANY = N_("the box plays 8 sheets at most")
#: Seconds the bots' thread waits for a change before it looks again all the same.
IDLE_S = 1.0
#: The store's setting that keeps the key the box's players' tokens are derived with.
KEY_SETTING = "box_players_key"
#: The store's setting that keeps a box's player's strength.
STRENGTH_SETTING = "box_player_strength:{game}:{initials}"


@dataclass
class BoxBot:
    """One of the box's players: its token at the table and its own bot's game."""

    token: str
    initials: str
    strength: str
    game_id: int
    mover: Player | Planner | None = None
    #: The last round it played.
    played: int = 0
    #: The rounds whose hazard (drawn on its sheet by another) its bot has taken in.
    told: set[int] = field(default_factory=set)


class BoxPlayers:
    """The box's own players at ``table``'s game in progress."""

    def __init__(self, table: PhoneTable) -> None:
        self.table = table
        self._bots: list[BoxBot] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None
        self._watchers: list[Callable[[str, str | None], None]] = []
        self._key: bytes | None = None
        table.listen(self._wake.set)

    def _token(self, game_id: int, initials: str) -> str:
        """The token of the box's player ``initials`` at game ``game_id``."""
        if self._key is None:
            store = self.table.store
            kept = store.setting(KEY_SETTING)
            if kept is None:
                kept = secrets.token_hex(32)
                store.set_setting(KEY_SETTING, kept)
            self._key = bytes.fromhex(kept)
        return hmac.new(self._key, f"{game_id}:{initials}".encode(),
                        hashlib.sha256).hexdigest()

    def resume(self) -> list[str]:
        """Play on the box's players of the game in progress after a restart: their
        initials. Each one's bot plays its sheet again up to where it stands."""
        game_id = self.table.current_game_id()
        if game_id is None:
            return []
        resumed = []
        with self._guard:
            self._forget_ended()
            playing = {b.initials for b in self._bots}
            for record in self.table.book.players(game_id):
                if not record.bot or record.initials in playing:
                    continue
                token = self._token(game_id, record.initials)
                try:
                    self.table.seat(token)
                except NotAPlayer:
                    log.warning("the box's player %s of game %d cannot be found again",
                                record.initials, game_id)
                    continue
                strength = self.table.store.setting(STRENGTH_SETTING.format(
                    game=game_id, initials=record.initials)) or "greedy"
                if strength not in STRENGTHS:
                    strength = "greedy"
                bot = BoxBot(token, record.initials, strength, game_id)
                self._replay(bot)
                self._bots.append(bot)
                resumed.append(record.initials)
            if resumed:
                self._start()
        self._wake.set()
        return resumed

    def _replay(self, bot: BoxBot) -> None:
        """Bring ``bot``'s own view of its sheet to where the sheet stands, from a fresh
        one: each roll's hazard drawn there by another, then the turn its bot played,
        round by round (the rounds it said were done: not those before it sat down, nor
        a turn the next roll closed while it thought)."""
        found = self.table.replay_of(bot.token)
        turn = self.table.turn_of(bot.token)
        if found is None or turn is None:
            return
        rolls, placed, played = found
        bot.mover = None
        bot.told = set()
        bot.played = 0
        mover = self._mover(bot, turn)
        solo = self.table.solo()
        for n, options in rolls:
            if n in placed:
                bot.told.add(n)
                mover.take_hazard(placed[n])
            if n == turn.round and n not in played:
                break
            if n in played and (not options.hazard or solo):
                mover.turn(options, n)
            bot.played = n

    def watch(self, told: Callable[[str, str | None], None]) -> None:
        """Call ``told`` with a box's player's initials after it played (a move, a hazard
        drawn, its turn done), and those of the sheet it drew a hazard on (None: it drew
        none), from the bots' thread: the page tells its watchers then. ``told`` must not
        wait."""
        self._watchers.append(told)

    def strengths(self) -> list[str]:
        """The strengths a box's player plays at, weakest first."""
        return list(STRENGTHS)

    def add(self, strength: str = "greedy") -> str:
        """Seat one more of the box's players at the game in progress, at ``strength``:
        its initials (``ZA``, ``ZB``... the first free). :class:`NoGame` without a game,
        :class:`~pitable.errors.TableFull` when the table is."""
        if strength not in STRENGTHS:
            raise ValueError(f"strength {strength!r}: expected one of {', '.join(STRENGTHS)}")
        with self._guard:
            self._forget_ended()
            if len(self._bots) >= MAX_BOX_PLAYERS:
                raise IllegalMove(TOO_MANY)
            game_id = self.table.current_game_id()
            if game_id is None:
                raise NoGame("no game is in progress: start one on the box")
            for initials in bot_initials():
                try:
                    token, seat, new = self.table.join(
                        initials, self._token(game_id, initials), bot=True)
                except InitialsTaken:
                    continue
                if new:
                    break
            self.table.store.set_setting(STRENGTH_SETTING.format(
                game=seat.game.id, initials=seat.player.initials), strength)
            bot = BoxBot(token, seat.player.initials, strength, seat.game.id)
            self._bots.append(bot)
            self._start()
        self._wake.set()
        return bot.initials

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="pitable-box-players")
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5.0)

    def _forget_ended(self) -> None:
        current = self.table.current_game_id()
        self._bots = [b for b in self._bots if b.game_id == current]

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(IDLE_S)
            self._wake.clear()
            with self._guard:
                bots = list(self._bots)
            for bot in bots:
                if self._stop.is_set():
                    return
                try:
                    played, drew_on = self._play(bot)
                except (NoGame, NotAPlayer, StoreError) as exc:
                    log.info("%s: %s", bot.initials, exc)
                    continue
                if played:
                    for told in self._watchers:
                        told(bot.initials, drew_on)

    def _play(self, bot: BoxBot) -> tuple[bool, str | None]:
        """Play what ``bot`` has to now: whether it changed anything at the table, and
        whose sheet it drew a hazard on."""
        turn = self.table.turn_of(bot.token)
        if turn is None or turn.game_id != bot.game_id:
            return False, None
        played = False
        drew_on = None
        mover = bot.mover or self._mover(bot, turn)
        for rnd, cell in sorted(turn.hazards_on_it.items()):
            if rnd not in bot.told:
                bot.told.add(rnd)
                mover.take_hazard(cell)
        if turn.to_draw and turn.costs:
            # Where it costs the owner most now; of equals, the first in the map's order.
            cell = min(turn.costs, key=lambda c: (turn.costs[c], c))
            try:
                self.table.place(bot.token, {"cells": [list(cell)], "round": turn.round})
                played = True
                drew_on = turn.dealt
            except IllegalMove as exc:
                log.info("%s: its hazard at %s refused (%s)", bot.initials, cell, exc.rule)
        if turn.options is None or turn.done or turn.over or turn.round <= bot.played:
            return played, drew_on
        bot.played = turn.round
        options = turn.options
        solo = self.table.solo()
        actions: list[Action] = []
        if not options.hazard or solo:
            actions = [a for a in mover.turn(options, turn.round)
                       if a.act is not Act.HAZARD or solo]
        try:
            # The whole turn and its Done in one call: a roll never finds it half stored.
            self.table.play_turn(bot.token, turn.round, actions)
        except IllegalMove as exc:
            if exc.rule == LATE:
                # The next roll closed the turn while it thought, with nothing of it
                # stored: the turn is passed, as a phone's is; its own view of its sheet
                # is played again from the store, and the new turn played from there.
                self._replay(bot)
            else:
                # Its own game no longer matches the sheet: the turn is passed.
                log.warning("%s: its turn of round %d refused (%s)", bot.initials,
                            turn.round, exc.rule)
                with contextlib.suppress(IllegalMove):
                    self.table.done(bot.token, {"round": turn.round})
        return True, drew_on

    def _mover(self, bot: BoxBot, turn: BotTurn) -> Player | Planner:
        sheet = turn.sheet
        title = sheet.title
        found = bot_of(title)
        player = found.player_at(title, sheet, bot.strength)
        mover: Player | Planner = player
        if bot.strength != "greedy":
            mover = Planner(player, found.plans[bot.strength], options_cache(title),
                            len(ROLLS), title.solo_rounds or MAX_TURNS)
        bot.mover = mover
        return mover
