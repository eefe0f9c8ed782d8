"""Bot players at the table's page: each joins by initials and plays its own sheet through
the players' API, as a phone does, with the moves its title's bot chooses.

For ``pitable sim --players N`` (a table full of players to watch on the page), for the
tests and for benchmarks/bench_phones.py. A bot is an HTTP client of the page, never a
shortcut into the box: what it meets is what a phone meets. Each binds its own loopback
address where the page is on one (127.0.1.x), so a table of bots is many clients, as a
table of phones is, and no one address's limits hold them all back.
"""

from __future__ import annotations

import http.client
import itertools
import json
import logging
import string
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pitable.errors import BadSheet, RulesError
from pitable.rules import find_title
from pitable.rules.bot.model import Action, Player
from pitable.rules.dice import Roll
from pitable.rules.scoring import Token, parse_token
from pitable.rules.sheets import Side, generate

log = logging.getLogger("pitable.bots")

#: Seconds a bot's call may take before it gives up on it.
CALL_S = 10.0


def bot_initials() -> Iterator[str]:
    """Initials for bots, none a player would type by chance first: ``ZA``, ``ZB``... then
    ``ZAA``..."""
    letters = string.ascii_uppercase
    yield from ("Z" + a for a in letters)
    yield from ("Z" + a + b for a, b in itertools.product(letters, repeat=2))


@dataclass
class Call:
    """One call a bot made: what, how long it took to be answered, and the answer."""

    what: str
    seconds: float
    status: int
    #: The round the bot was playing (0 before its first).
    round: int = 0


@dataclass
class TableBot:
    """One bot player of the page at ``host``:``port``."""

    host: str
    port: int
    initials: str
    #: The loopback address it calls from (None: the system's choice).
    source: str | None = None
    strength: str = "greedy"
    #: Every call it made, in order (read them once it has stopped).
    calls: list[Call] = field(default_factory=list)
    #: The moves the page acknowledged, as (round, act, cells, value).
    acknowledged: list[tuple[int, str, tuple[tuple[int, int], ...], object]] = field(
        default_factory=list)
    token: str | None = None
    _player: Player | None = None
    _round: int = 0
    #: The game's mode, as its sheet says.
    _mode: str = "table"
    #: Moves worked out ahead of their round (:meth:`plan`), by round.
    #: Each with the bot's own view of its sheet once they are made (a copy: the view
    #: as it stands takes in the hazards others drew first, should there be any).
    _planned: dict[int, tuple[list[Action], Player]] = field(default_factory=dict)
    #: The hazards it drew at a table: the owner's initials, when it asked
    #: (``time.perf_counter``), and the page's answer.
    placed: list[tuple[str, float, int]] = field(default_factory=list)
    #: The moves acknowledged in each game it played, the one in progress last (its
    #: :attr:`acknowledged`).
    games: list[list[tuple[int, str, tuple[tuple[int, int], ...], object]]] = field(
        default_factory=list)

    def __post_init__(self) -> None:
        self.games.append(self.acknowledged)

    def call(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        """One call to the page, timed: its status and its JSON."""
        conn = http.client.HTTPConnection(
            self.host, self.port, timeout=CALL_S,
            source_address=(self.source, 0) if self.source else None)
        headers = {"Content-Type": "application/json"}
        if self.token is not None:
            headers["X-Pitable-Player"] = self.token
        data = json.dumps(body).encode() if body is not None else None
        start = time.perf_counter()
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            raw = response.read()
            status = response.status
        finally:
            conn.close()
        self.calls.append(Call(f"{method} {path}", time.perf_counter() - start, status,
                               self._round))
        try:
            return status, json.loads(raw) if raw else None
        except ValueError:
            return status, None  # not the page's JSON: the status says what happened

    def join(self) -> dict[str, Any]:
        """Join the game in progress; its sheet."""
        status, answer = self.call("POST", "/api/players", {"initials": self.initials})
        if status not in (200, 201):
            raise RuntimeError(f"{self.initials} could not join: {status} {answer}")
        self.token = answer["token"]
        # Its own view of the sheet made now, not with the first roll's moves to make.
        self._player_of(answer["sheet"]["game"])
        self._mode = answer["sheet"]["game"]["mode"]
        return answer["sheet"]

    def rejoin(self) -> dict[str, Any]:
        """Join the new game in progress on a new sheet (the last one ended); its sheet.
        The moves it had acknowledged stay, by game, in :attr:`games`."""
        self.token = None
        self._player = None
        self._round = 0
        self._planned.clear()
        self.acknowledged = []
        self.games.append(self.acknowledged)
        return self.join()

    def sheet(self) -> dict[str, Any]:
        status, answer = self.call("GET", "/api/sheet")
        if status != 200:
            raise RuntimeError(f"{self.initials}: the sheet answered {status} {answer}")
        return answer

    def plan(self, round_: int, faces: str, hazards_marked: int) -> None:
        """Work out the moves of round ``round_`` (its faces ``3,*,2`` and the hazards the
        box had marked before it) ahead of the calls that make them."""
        player = self._player
        if player is None or round_ <= self._round:
            return
        title = player.title
        options = title.options(Roll.from_str(faces), hazards_marked)
        twin = player.clone()
        if options.hazard and self._mode != "solo":
            self._planned[round_] = ([], twin)
        else:
            self._planned[round_] = (list(twin.turn(options, round_)), twin)

    def play_turn(self, sheet: dict[str, Any] | None = None) -> bool:
        """Play the turn in progress, if it has not played it yet: the bot's moves, each
        posted and acknowledged, then done. False when there was nothing to play."""
        sheet = sheet if sheet is not None else self.sheet()
        turn = sheet.get("turn")
        if turn is None or turn["done"] or sheet["over"] or turn["round"] <= self._round:
            return False
        self._round = turn["round"]
        ahead = self._planned.pop(self._round, None)
        planned = None
        if self._take_in_hazards(sheet):
            ahead = None  # worked out before another's hazard was on its sheet
        if ahead is not None:
            planned, self._player = ahead
        self._draw_dealt(sheet)
        for action in planned if planned is not None else self._choose(sheet):
            move = {"act": action.act.value, "cells": [list(c) for c in action.cells],
                    "value": action.value, "round": self._round}
            status, answer = self.call("POST", "/api/moves", move)
            if status != 200:
                # The bot's own view of its sheet no longer matches the page's: it says
                # done with what it has, as a player who is unsure would.
                log.info("%s: %s refused (%s): %s", self.initials, action, status,
                         (answer or {}).get("error"))
                break
            self.acknowledged.append((self._round, action.act.value, action.cells,
                                      action.value))
        self.call("POST", "/api/done")
        return True

    def _take_in_hazards(self, sheet: dict[str, Any]) -> bool:
        """Take into its own view of its sheet the hazards others drew there (at a table):
        each space the page shows a hazard in that its own view has empty. Whether there
        was one."""
        player = self._player
        if player is None or self._mode == "solo":
            return False
        mine = player.tokens()
        found = False
        for r, row in enumerate(sheet["cells"]):
            for c, token in enumerate(row):
                if token == mine[r][c]:
                    continue
                try:
                    held = parse_token(token, (r, c)).token
                except BadSheet:
                    continue
                if held is Token.HAZARD:
                    try:
                        player.take_hazard((r, c))
                    except RulesError as exc:
                        log.info("%s: the hazard at %s: %s", self.initials, (r, c), exc)
                        continue
                    found = True
        return found

    def _draw_dealt(self, sheet: dict[str, Any]) -> None:
        """Draw the hazard it was dealt at a table's hazard roll, on the first space the
        sheet it was dealt offers."""
        deal = sheet.get("deal")
        if not deal or deal.get("placed") is not None or not deal.get("spaces"):
            return
        start = time.perf_counter()
        status, answer = self.call("POST", "/api/hazard",
                                   {"cells": [deal["spaces"][0]], "round": deal["round"]})
        self.placed.append((deal["owner"], start, status))
        if status != 200:
            log.info("%s: its hazard refused (%s): %s", self.initials, status,
                     (answer or {}).get("error"))

    def _player_of(self, game: dict[str, Any]) -> Player | None:
        """The bot's own player on the game's map (None for a title without a bot)."""
        if self._player is None:
            title = find_title(game["title"])
            bot = title.bot()
            if bot is None:
                return None
            paper = generate(title, game["seed"], Side.from_str(game["side"]), game["format"])
            self._player = bot.player_at(title, paper, self.strength)
        return self._player

    def _choose(self, sheet: dict[str, Any]) -> list[Action]:
        game, turn = sheet["game"], sheet["turn"]
        title = find_title(game["title"])
        player = self._player_of(game)
        if player is None:
            return []
        roll = Roll.from_str(",".join(turn["faces"]))
        options = title.options(roll, turn["hazards_marked"])
        if options.hazard and game["mode"] != "solo":
            # At a table the hazard goes on another's sheet: nothing to play here.
            return []
        return list(player.turn(options, turn["round"]))


def seat_bots(host: str, port: int, count: int, *, strength: str = "greedy",
              loopback: bool = True) -> list[TableBot]:
    """``count`` bots joined to the game in progress at the page on ``host``:``port``;
    each from its own loopback address when the page is on one."""
    names = bot_initials()
    bots = []
    for k in range(count):
        source = f"127.0.1.{k + 1}" if loopback and host.startswith("127.") else None
        bot = TableBot(host, port, next(names), source=source, strength=strength)
        bot.join()
        bots.append(bot)
    return bots


class BotTable:
    """Bots that play each new roll by themselves, each on its own thread, after a pause
    ``think`` gives (a player reading the dice), until :meth:`stop`.

    A new roll is told by :meth:`rolled`; with ``watch`` one more client watches the
    page's state (``GET /api/state``, every ``poll_s``) and tells it, as a phone's page
    learns of a roll."""

    def __init__(self, bots: list[TableBot], think: Callable[[], float] = lambda: 0.0, *,
                 watch: bool = True, poll_s: float = 0.5) -> None:
        self.bots = bots
        self.think = think
        self.poll_s = poll_s
        self._stop = threading.Event()
        self._changed = threading.Condition()
        self._round = 0
        self._threads = [threading.Thread(target=self._run, args=(b,), daemon=True,
                                          name=f"bot-{b.initials}") for b in bots]
        if watch and bots:
            self._threads.append(threading.Thread(target=self._watch, daemon=True,
                                                  name="bot-watch"))
        for thread in self._threads:
            thread.start()

    def new_game(self) -> None:
        """A new game began (every bot joined it): its rolls count from 1 again."""
        with self._changed:
            self._round = 0

    def rolled(self, round_: int) -> None:
        """Round ``round_`` was rolled: every bot plays it."""
        with self._changed:
            if round_ > self._round:
                self._round = round_
                self._changed.notify_all()

    def _watch(self) -> None:
        watcher = TableBot(self.bots[0].host, self.bots[0].port, "", self.bots[0].source)
        while not self._stop.wait(self.poll_s):
            try:
                status, state = watcher.call("GET", "/api/state")
            except (OSError, http.client.HTTPException) as exc:
                log.info("the bots' watch: %s", exc)
                continue
            watcher.calls.clear()
            if status == 200 and not state.get("rolling"):
                self.rolled(int(state.get("round") or 0))

    def _run(self, bot: TableBot) -> None:
        while not self._stop.is_set():
            with self._changed:
                while self._round <= bot._round and not self._stop.is_set():
                    self._changed.wait()
            if self._stop.wait(self.think()):
                return
            try:
                if not bot.play_turn():
                    # Nothing new on its sheet yet (the roll not in the store): again soon.
                    self._stop.wait(0.05)
            except (OSError, RuntimeError, ValueError, http.client.HTTPException) as exc:
                log.info("%s: %s", bot.initials, exc)
                self._stop.wait(self.poll_s)

    def stop(self) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        for thread in self._threads:
            thread.join(CALL_S)
