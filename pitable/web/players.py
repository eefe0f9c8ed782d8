"""The players' routes: join the game, read one's sheet, move, take back, say done, watch.

``POST /api/players`` seats a player by initials and answers their token;
``GET /api/sheet`` their sheet, score and the moves allowed next, the hazard they were
dealt at a table's hazard roll and the table's pace (``GET /api/sheet.txt`` the sheet as
``pitable score --sheet`` reads it); ``POST /api/moves``, ``DELETE /api/moves/last`` and
``POST /api/done`` change it; ``POST /api/hazard`` draws the hazard dealt on the sheet it
was dealt; ``POST /api/print`` prints it on the box's printer (the box's loop queues it,
once a minute at most); ``POST /api/scores`` gives a paper player's stars once the game
ended; ``POST /api/box-players`` seats the box itself as a player. ``GET /api/sheets``
every sheet and ``GET /api/table`` the table's pace and ranking, for anyone watching.
``GET /play`` is the phone's page.

The token is a secret: it travels in the ``X-Pitable-Player`` header (the phone keeps it in
its local storage) or in the ``pitable_player`` cookie (HttpOnly, SameSite=Strict), never
in a URL, so no log holds it. A change needs the header all the same, its value the token
or ``cookie`` for the cookie's: a form on another site cannot send a header without asking
first, and the page answers no such question (CORS). Each client address, and each token,
gets a few calls a second (:class:`Buckets`); a body over 4 kB is 413 before any route.

Every call runs on one worker thread of its own (the sheets read and writes the
store, which waits for the disk): the event loop that serves the page and the dice never
waits for a sheet.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from pitable.errors import (
    BadInitials,
    BadMove,
    GameEnded,
    IllegalMove,
    InitialsTaken,
    NoGame,
    NotAPlayer,
    StoreError,
    TableFull,
)
from pitable.i18n import LANGUAGES, translator
from pitable.rules.base import N_, Translator
from pitable.rules.validate import Breach
from pitable.web.commands import Command, PrintSheetCommand
from pitable.web.guard import client_key
from pitable.web.hub import Hub

T = TypeVar("T")

#: The header and the cookie that carry a player's token.
PLAYER_HEADER = "x-pitable-player"
PLAYER_COOKIE = "pitable_player"
#: The header value that says "the token is the cookie's".
FROM_COOKIE = "cookie"
#: The header that names the player's language on a change.
LANG_HEADER = "x-pitable-lang"
#: A cookie lasts a long game night and the next morning's look at the sheets.
COOKIE_S = 7 * 24 * 3600
#: Calls a second each client address may make, and in a burst; moves a second a token.
ADDRESS_RATE, ADDRESS_BURST = 20.0, 60.0
TOKEN_RATE, TOKEN_BURST = 5.0, 20.0
#: Calls waiting for the worker thread beyond which a call is turned away (503).
MAX_WAITING = 256
#: A sheet is printed once in this many seconds at most, however often it is asked.
PRINT_EVERY_S = 60.0


class Phones(Protocol):
    """What the routes need of the players' sheets (:class:`~pitable.box.phones.PhoneTable`,
    on the box's store). A seat is whatever it returns for one player."""

    def join(self, initials: str, token: str | None = None) -> tuple[str, Any, bool]: ...

    def seat(self, token: str | None) -> Any: ...

    def move(self, token: str | None, body: object) -> Any: ...

    def take_back(self, token: str | None) -> Any: ...

    def done(self, token: str | None, body: object = None) -> Any: ...

    def place(self, token: str | None, body: object) -> Any: ...

    def add_score(self, token: str | None, body: object) -> Any: ...

    def sync(self) -> None: ...

    def table(self, tr: Translator) -> dict[str, Any]: ...

    def seats(self) -> list[Any]: ...

    def current_seat(self, token: str | None) -> Any:
        """``token``'s seat at the game in progress: refused for another game's."""
        ...

    def text(self, seat: Any) -> tuple[str, str]: ...

    def view(self, seat: Any, tr: Translator, *, own: bool = True) -> dict[str, Any]: ...

    def whose(self, seat: Any) -> tuple[int, int]:
        """The game and the player a seat's sheet is, by their ids in the store."""
        ...


class BoxSeats(Protocol):
    """The box's own players (:class:`~pitable.box.box_players.BoxPlayers`)."""

    def strengths(self) -> list[str]: ...

    def add(self, strength: str) -> str:
        """Seat one more of the box's players at ``strength``: its initials."""
        ...

    def watch(self, told: Callable[[str, str | None], None]) -> None:
        """Call ``told`` with a box's player's initials after it played, and those of the
        sheet it drew a hazard on (None: none), from its thread."""
        ...


class Buckets:
    """Token buckets by key: ``rate`` calls a second, ``burst`` at once. The least recently
    used keys are forgotten beyond ``keys``, so no stream of new addresses grows it."""

    def __init__(self, rate: float, burst: float, *, keys: int = 4096,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.keys, self.clock = rate, burst, keys, clock
        self._left: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> float | None:
        """One call for ``key``: None when allowed, else the seconds until one is."""
        now = self.clock()
        left, then = self._left.pop(key, (self.burst, now))
        left = min(self.burst, left + (now - then) * self.rate)
        if left < 1.0:
            self._left[key] = (left, now)
            return (1.0 - left) / self.rate
        self._left[key] = (left - 1.0, now)
        while len(self._left) > self.keys:
            self._left.popitem(last=False)
        return None


def player_routes(phones: Phones, static: Path, box_lang: Callable[[], str],
                  hub: Hub | None = None, post: Callable[[Command], None] | None = None, *,
                  clock: Callable[[], float] = time.monotonic,
                  box_players: BoxSeats | None = None) -> list[Route]:
    """The players' routes on ``phones``; ``box_lang`` is the box's language, spoken when a
    call names none; each change of a sheet is announced on ``hub``'s event stream, and
    each change of the table's pace or ranking as a ``table`` event; ``post`` hands a print
    to the box (None: the box has no printer); ``box_players`` seats the box as a player
    (None: it plays no sheet of its own)."""
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pitable-phones")
    addresses = Buckets(ADDRESS_RATE, ADDRESS_BURST)
    tokens = Buckets(TOKEN_RATE, TOKEN_BURST)
    prints = Buckets(1.0 / PRINT_EVERY_S, 1.0, clock=clock)
    waiting = 0

    def lang_of(request: Request) -> str:
        lang = request.query_params.get("lang") or request.headers.get(LANG_HEADER)
        return lang if lang in LANGUAGES else box_lang()

    def token_of(request: Request, *, change: bool) -> str | None:
        given = request.headers.get(PLAYER_HEADER)
        if given == FROM_COOKIE or (given is None and not change):
            return request.cookies.get(PLAYER_COOKIE)
        return given

    async def on_worker(call: Callable[[], T]) -> T:
        nonlocal waiting
        if waiting >= MAX_WAITING:
            raise _Busy
        waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(worker, call)
        finally:
            waiting -= 1

    def handler(action: Callable[[Request, Translator], Awaitable[Response]], *,
                change: bool) -> Callable[[Request], Awaitable[Response]]:
        async def answered(request: Request) -> Response:
            address = request.client.host if request.client is not None else ""
            tr = translator(lang_of(request))
            wait = addresses.take(client_key(address))
            if wait is not None:
                return _slow_down(tr, wait)
            if change and request.headers.get(PLAYER_HEADER) is None and (
                    request.url.path != "/api/players"):
                return _error(401, tr.gettext("a player's call needs the {header} header")
                              .format(header="X-Pitable-Player"))
            try:
                return await action(request, tr)
            except NotAPlayer:
                return _error(401, tr.gettext("this phone has no sheet in this game: join"))
            except NoGame:
                return _error(409, tr.gettext("no game is in progress: start one on the box"))
            except GameEnded:
                return _error(409, tr.gettext("this game is over: join the new one"))
            except BadMove as exc:
                return _error(400, tr.gettext(exc.message).format(**exc.fields))
            except _Busy:
                return _error(503, tr.gettext("the box is busy: try again"), retry=1)
            except StoreError:
                return _error(503, tr.gettext("the box could not store it: try again"), retry=1)

        return answered

    table_seen: dict[str, Any] = {}

    def announce_table(table: dict[str, Any]) -> None:
        """Tell the watchers the table's pace or ranking changed (not every sheet's move
        changes it: only what they show). Without the tie-break's name: it is in the
        words of whoever's call made the change, and each page has its own."""
        table = {k: v for k, v in table.items() if k != "tie_name"}
        if hub is None or table == table_seen:
            return
        table_seen.clear()
        table_seen.update(table)
        hub.announce("table", table)

    snapshot_seen: list[object] = [None]
    #: The server's event loop, known from the first snapshot: the box's players' thread
    #: hands it their news.
    loops: list[asyncio.AbstractEventLoop] = []

    def on_snapshot(data: dict[str, Any]) -> None:
        """A roll shown, or the game ended or changed, on the box: the sheets take it in
        now (a hazard dealt, the box's players' turn, the ranking), not at the next
        phone's call; then the watchers hear of the table."""
        if not loops:
            loops.append(asyncio.get_running_loop())
        if data.get("rolling"):
            return
        key = (json.dumps(data.get("map"), sort_keys=True), data.get("round"),
               data.get("result"), data.get("message"))
        if key == snapshot_seen[0]:
            return
        snapshot_seen[0] = key
        tr = translator(box_lang())

        tell_table(lambda: taken_in(tr))

    def tell_table(read: Callable[[], dict[str, Any]]) -> None:
        """Read the table on the worker and tell the watchers, without waiting for it."""

        async def take_in() -> None:
            try:
                table = await on_worker(read)
            except (_Busy, StoreError):
                return  # the next call takes it in
            announce_table(table)

        tasks.add(task := asyncio.ensure_future(take_in()))
        task.add_done_callback(tasks.discard)

    def bot_played(initials: str, drew_on: str | None) -> None:
        """On the loop: a box's player played; its sheet's watchers, the owner of the
        sheet it drew a hazard on, and the table's hear."""
        if hub is None:
            return
        hub.announce("sheet", {"initials": initials, "bot": True})
        if drew_on is not None:
            hub.announce("sheet", {"initials": drew_on, "hazard": True})
        tr = translator(box_lang())
        tell_table(lambda: phones.table(tr))

    def from_bots(initials: str, drew_on: str | None) -> None:
        """From the box's players' thread: hand the news to the loop."""
        if loops and not loops[0].is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loops[0].call_soon_threadsafe(bot_played, initials, drew_on)

    def taken_in(tr: Translator) -> dict[str, Any]:
        phones.sync()
        return phones.table(tr)

    tasks: set[asyncio.Future[None]] = set()
    if hub is not None:
        hub.watchers.append(on_snapshot)
        if box_players is not None:
            box_players.watch(from_bots)

    async def body_of(request: Request) -> object:
        try:
            return json.loads(await request.body() or b"null")
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise BadMove(N_("expected a JSON body")) from None

    async def play_page(request: Request) -> Response:
        return FileResponse(static / "play.html", headers={"cache-control": "no-cache"})

    async def join(request: Request, tr: Translator) -> Response:
        body = await body_of(request)
        initials = body.get("initials") if isinstance(body, dict) else None
        if not isinstance(initials, str):
            raise BadMove(N_("expected a JSON object such as {example}"),
                          example='{"initials": "AB"}')
        known = token_of(request, change=False)

        def seated() -> tuple[str, dict[str, Any], bool]:
            token, seat, new = phones.join(initials, known)
            return token, phones.view(seat, tr), new

        try:
            token, sheet, new = await on_worker(seated)
        except BadInitials:
            return _error(400, tr.gettext("initials: 1 to 3 letters, as on a paper sheet"))
        except InitialsTaken:
            return _error(409, tr.gettext("these initials are taken at this table"))
        except TableFull:
            return _error(409, tr.gettext("the table is full"))
        if new:
            announce(sheet)
        response = JSONResponse({"token": token, "initials": sheet["player"]["initials"],
                                 "sheet": sheet}, status_code=201 if new else 200,
                                headers={"cache-control": "no-store"})
        response.set_cookie(PLAYER_COOKIE, token, max_age=COOKIE_S, path="/api",
                            httponly=True, samesite="strict")
        return response

    def announce(sheet: dict[str, Any]) -> None:
        """Tell the event stream's watchers that a sheet changed: what they need to know
        that they should read it again (``GET /api/sheets``)."""
        if hub is None:
            return
        turn = sheet["turn"] or {}
        hub.announce("sheet", {"initials": sheet["player"]["initials"],
                               "round": turn.get("round", 0),
                               "moves": len(turn.get("moves", ())),
                               "done": bool(turn.get("done")),
                               "total": sheet["score"]["total"]})
        deal = sheet.get("deal")
        if deal and deal.get("placed"):
            # The sheet the hazard went on changed too: its owner reads it again.
            hub.announce("sheet", {"initials": deal["owner"], "round": deal["round"],
                                   "hazard": True})
        table = sheet.get("table")
        if table is not None:
            announce_table(table)

    def drawn(sheet: dict[str, Any], status: int = 200, **extra: object) -> Response:
        return JSONResponse({**extra, "sheet": sheet} if extra else sheet, status_code=status,
                            headers={"cache-control": "no-store"})

    async def changed(change: Callable[[], Any], tr: Translator) -> Response:
        """Make ``change`` to a sheet and draw it, in one turn of the worker thread (a
        second turn would wait for the thread again behind every other phone's call)."""
        try:
            sheet = await on_worker(lambda: phones.view(change(), tr))
        except IllegalMove as exc:
            return _error(409, _refusal(exc, tr))
        announce(sheet)
        return drawn(sheet)

    async def sheet(request: Request, tr: Translator) -> Response:
        token = token_of(request, change=False)
        return drawn(await on_worker(lambda: phones.view(phones.seat(token), tr)))

    def limited(request: Request, tr: Translator) -> Response | None:
        token = token_of(request, change=True) or ""
        wait = tokens.take(token)
        return None if wait is None else _slow_down(tr, wait)

    async def ruled(request: Request, tr: Translator,
                    change: Callable[[str | None, object], Any]) -> Response:
        """Make ``change`` (a move, a hazard drawn) on the sheet of the request's token with
        its body: the sheet as it now stands, or as it stood with the rule that refused
        the change (422)."""
        token = token_of(request, change=True)
        if (slow := limited(request, tr)) is not None:
            return slow
        body = await body_of(request)

        def made() -> tuple[dict[str, Any], str | None]:
            try:
                return phones.view(change(token, body), tr), None
            except IllegalMove as exc:
                return phones.view(phones.seat(token), tr), _refusal(exc, tr)

        sheet, refused = await on_worker(made)
        if refused is not None:
            return drawn(sheet, 422, error=refused)
        announce(sheet)
        return drawn(sheet)

    async def move(request: Request, tr: Translator) -> Response:
        return await ruled(request, tr, phones.move)

    async def take_back(request: Request, tr: Translator) -> Response:
        token = token_of(request, change=True)
        if (slow := limited(request, tr)) is not None:
            return slow
        return await changed(lambda: phones.take_back(token), tr)

    async def done(request: Request, tr: Translator) -> Response:
        token = token_of(request, change=True)
        if (slow := limited(request, tr)) is not None:
            return slow
        body = await body_of(request)
        return await changed(lambda: phones.done(token, body), tr)

    async def hazard(request: Request, tr: Translator) -> Response:
        return await ruled(request, tr, phones.place)

    async def table(request: Request, tr: Translator) -> Response:
        return JSONResponse(await on_worker(lambda: phones.table(tr)),
                            headers={"cache-control": "no-store"})

    async def scores(request: Request, tr: Translator) -> Response:
        token = token_of(request, change=True)
        if (slow := limited(request, tr)) is not None:
            return slow
        body = await body_of(request)

        def given() -> dict[str, Any]:
            added = phones.add_score(token, body)
            return {**added, "table": phones.table(tr)}

        try:
            answer = await on_worker(given)
        except IllegalMove as exc:
            return _error(409, _refusal(exc, tr))
        except InitialsTaken:
            return _error(409, tr.gettext("these initials are a player's on a phone"))
        except TableFull:
            return _error(409, tr.gettext("the table is full"))
        announce_table(answer["table"])
        return JSONResponse(answer, headers={"cache-control": "no-store"})

    async def add_box_player(request: Request, tr: Translator) -> Response:
        token = token_of(request, change=True)
        if (slow := limited(request, tr)) is not None:
            return slow
        body = await body_of(request)
        strength = body.get("strength", "greedy") if isinstance(body, dict) else None
        if box_players is None:
            return _error(409, tr.gettext("this box plays no sheet of its own"))
        if strength not in box_players.strengths():
            raise BadMove(N_("strength: expected one of {names}"),
                          names=", ".join(box_players.strengths()))
        def seated() -> dict[str, Any]:
            phones.current_seat(token)  # a player of the game in progress asks it
            initials = box_players.add(strength)
            return {"initials": initials, "table": phones.table(tr)}

        try:
            answer = await on_worker(seated)
        except TableFull:
            return _error(409, tr.gettext("the table is full"))
        except IllegalMove as exc:
            return _error(409, _refusal(exc, tr))
        announce_table(answer["table"])
        return JSONResponse(answer, status_code=201, headers={"cache-control": "no-store"})

    async def print_sheet(request: Request, tr: Translator) -> Response:
        token = token_of(request, change=True)
        if (slow := limited(request, tr)) is not None:
            return slow
        seat = await on_worker(lambda: phones.seat(token))
        if post is None:
            return _error(409, tr.gettext("this box has no printer"))
        game, player = await on_worker(lambda: phones.whose(seat))
        wait = prints.take(f"{game}/{player}")
        if wait is not None:
            return _error(429, tr.gettext(
                "your sheet was printed less than a minute ago: try again in {seconds} s"
            ).format(seconds=math.ceil(wait)), retry=wait)
        # The box's loop alone touches the printer: it reads the sheet from the store then.
        post(PrintSheetCommand(game, player))
        return JSONResponse({"queued": "print"}, status_code=202,
                            headers={"cache-control": "no-store"})

    async def sheet_text(request: Request, tr: Translator) -> Response:
        token = token_of(request, change=False)
        seat = await on_worker(lambda: phones.seat(token))
        text, name = await on_worker(lambda: phones.text(seat))
        # A file name of the box's own making: its title's key, the game and the initials,
        # which are letters only.
        return PlainTextResponse(text, headers={
            "cache-control": "no-store",
            "content-disposition": f"attachment; filename*=UTF-8''{quote(name)}"})

    async def sheets(request: Request, tr: Translator) -> Response:
        seats = await on_worker(phones.seats)
        watched = await on_worker(lambda: [phones.view(s, tr, own=False) for s in seats])
        return JSONResponse({"sheets": watched}, headers={"cache-control": "no-store"})

    return [
        Route("/play", play_page, methods=["GET", "HEAD"]),
        Route("/api/players", handler(join, change=True), methods=["POST"]),
        Route("/api/sheet", handler(sheet, change=False), methods=["GET"]),
        Route("/api/sheet.txt", handler(sheet_text, change=False), methods=["GET"]),
        Route("/api/sheets", handler(sheets, change=False), methods=["GET"]),
        Route("/api/moves", handler(move, change=True), methods=["POST"]),
        Route("/api/moves/last", handler(take_back, change=True), methods=["DELETE"]),
        Route("/api/done", handler(done, change=True), methods=["POST"]),
        Route("/api/print", handler(print_sheet, change=True), methods=["POST"]),
        Route("/api/hazard", handler(hazard, change=True), methods=["POST"]),
        Route("/api/table", handler(table, change=False), methods=["GET"]),
        Route("/api/scores", handler(scores, change=True), methods=["POST"]),
        Route("/api/box-players", handler(add_box_player, change=True), methods=["POST"]),
    ]


class _Busy(Exception):
    """More calls wait for the worker thread than it should hold."""


def _refusal(exc: IllegalMove, tr: Translator) -> str:
    """The rule a move broke, in the player's language."""
    if isinstance(exc.breach, Breach):
        return exc.breach.words(tr)
    return tr.gettext(exc.rule)


def _error(status: int, text: str, *, retry: float | None = None) -> JSONResponse:
    headers = {"cache-control": "no-store"}
    if retry is not None:
        headers["retry-after"] = str(max(1, round(retry)))
    return JSONResponse({"error": text}, status_code=status, headers=headers)


def _slow_down(tr: Translator, wait: float) -> JSONResponse:
    return _error(429, tr.gettext("too many calls: wait a moment"), retry=wait)

