"""The page's routes, as a Starlette application.

``GET /`` the page; ``GET /static/...`` its assets, from the package's static folder only;
``GET /fonts/...`` the box's two fonts; ``GET /api/state`` the latest snapshot as JSON;
``GET /api/words/<lang>`` the page's own words in a language of the box (words.py);
``GET /api/events`` a Server-Sent Events stream, one JSON ``data:`` line per change and a
comment every ``keepalive_s`` so that proxies and phones keep it open; ``POST /api/roll``
and ``POST /api/new-game`` the actions, each only with the header ``X-Pitable-Pin``.

Anyone who can reach the page may read it; the PIN guards what changes the game. The
actions need a header that a form on another site cannot send without asking first (CORS
is not answered), so a page elsewhere cannot act through a player's browser either; and a
``Host`` that is not an IP literal, this machine's name or a configured one is refused
(421), so that a site whose name is made to point at the box (DNS rebinding) cannot read
it or act as its own origin.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pitable.config import PageLimits
from pitable.errors import RulesError, TooManyListeners, UsageError
from pitable.i18n import LANGUAGES, SOURCE_LANGUAGE, check_language, translator
from pitable.rules import all_titles, find_title
from pitable.rules.session import Mode
from pitable.web.commands import Command, NewGameCommand, RollCommand
from pitable.web.guard import PinGuard, Verdict, client_key
from pitable.web.hub import Hub
from pitable.web.players import BoxSeats, Phones, player_routes
from pitable.web.words import page_words

STATIC = Path(__file__).parent / "static"
FONTS = Path(__file__).parent.parent / "fonts"
#: The fonts the page may ask for, by the name in its URL: nothing else of that folder.
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
#: The largest request body taken; larger ones get 413 before any route sees them.
MAX_BODY = 4096
#: A comment on the event stream this often, so that an idle stream is not cut.
KEEPALIVE_S = 15.0
#: The header that carries the PIN.
PIN_HEADER = "x-pitable-pin"
#: The event stream's path: its connections are counted apart from the others'.
EVENTS_PATH = "/api/events"
#: Seconds a page that met a full room is told to wait before it asks again.
RETRY_S = 5

#: Sent with every answer: the page uses only its own scripts, styles, fonts and data.
SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none';"
     b" form-action 'none'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


def host_names(configured: Iterable[str] = ()) -> frozenset[str]:
    """The names the page answers to beside IP literals: this machine's own name, with and
    without ``.local`` (mDNS), ``localhost``, and ``configured``; lower case."""
    own = socket.gethostname().lower()
    names = {own, f"{own}.local", "localhost", *(n.lower().rstrip(".") for n in configured)}
    return frozenset(n for n in names if n)


def host_allowed(header: bytes | None, names: frozenset[str]) -> bool:
    """Whether a request's ``Host`` header names the box: an IP literal (with or without a
    port, IPv6 in brackets) or one of ``names``; a request without one (HTTP/1.0) too."""
    if header is None:
        return True
    try:
        text = header.decode("ascii").strip().lower()
    except UnicodeDecodeError:
        return False
    if text.startswith("["):
        literal, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return False
        try:
            return ipaddress.ip_address(literal).version == 6
        except ValueError:
            return False
    name, colon, port = text.partition(":")
    if colon and not port.isdigit():
        return False
    name = name.rstrip(".")
    if name in names:
        return True
    try:
        ipaddress.IPv4Address(name)
    except ValueError:
        return False
    return True


class Guarded:
    """ASGI middleware: a ``Host`` that does not name the box is refused with 421; a body
    over ``limit`` bytes is refused with 413 (read no further), and one that takes over
    ``body_s`` to arrive with 408; every answer carries :data:`SECURITY_HEADERS`."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY, *, body_s: float = 5.0,
                 names: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.limit = limit
        self.body_s = body_s
        self.names = names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                  *SECURITY_HEADERS]}
            await send(message)

        headers = dict(scope.get("headers", []))
        if not host_allowed(headers.get(b"host"), self.names):
            await _answer(send_guarded, 421, "this box does not answer to that Host")
            return
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _too_large(send_guarded, self.limit)
            return
        if scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send_guarded)
            return
        # Read the (small) body here, counting and against a deadline, so that a chunked
        # or a slow one is bounded too; the application is handed it whole.
        body = bytearray()
        try:
            async with asyncio.timeout(self.body_s):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        return  # the client went away
                    body += message.get("body", b"")
                    if len(body) > self.limit:
                        await _too_large(send_guarded, self.limit)
                        return
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _answer(send_guarded, 408, f"the body took over {self.body_s:g} s")
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send_guarded)


async def _too_large(send: Send, limit: int) -> None:
    await _answer(send, 413, f"the body is over {limit} bytes")


async def _answer(send: Send, status: int, text: str) -> None:
    # Connection: close, as the request's rest (if any) is not read.
    await JSONResponse({"error": text}, status_code=status, headers={"connection": "close"})(
        {"type": "http"}, _nothing, send
    )


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


class EventStream:
    """``GET /api/events``: the hub's events for one client, as Server-Sent Events.

    A plain ASGI application rather than Starlette's StreamingResponse: one event goes to
    every client of a full room at once, and this path does the least work per client (the
    event is encoded once by the hub; no task per chunk, no timeout task per wait).
    """

    def __init__(self, hub: Hub, keepalive_s: float) -> None:
        self.hub = hub
        self.keepalive_s = keepalive_s
        self._ticking: asyncio.TimerHandle | None = None

    def _start_ticking(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wake the room every ``keepalive_s``, from the first client on, while it serves."""
        if self._ticking is not None or self.hub.closed:
            return

        def tick() -> None:
            self.hub.tick()
            self._ticking = None if self.hub.closed else loop.call_later(self.keepalive_s, tick)

        self._ticking = loop.call_later(self.keepalive_s, tick)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        address = scope.get("client")
        try:
            client = self.hub.join(client_key(address[0] if address else ""))
        except TooManyListeners as exc:
            await JSONResponse({"error": str(exc), "retry_after": RETRY_S}, status_code=503,
                               headers={"retry-after": str(RETRY_S)})(scope, receive, send)
            return
        loop = asyncio.get_running_loop()

        async def until_gone() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            client.close()

        watcher = loop.create_task(until_gone())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream; charset=utf-8"),
                (b"cache-control", b"no-store"),
                (b"x-accel-buffering", b"no"),
            ]})
            # A browser that loses the stream tries again after this many ms.
            await send({"type": "http.response.body", "body": b"retry: 2000\n\n",
                        "more_body": True})
            self._start_ticking(loop)
            while True:
                keepalive = client.keepalive
                events = client.take()
                for event in events:
                    await send({"type": "http.response.body", "body": event,
                                "more_body": True})
                if client.closed:
                    break
                if keepalive and not events:
                    await send({"type": "http.response.body", "body": b": keep-alive\n\n",
                                "more_body": True})
                await client.wake.wait()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            self.hub.leave(client)


def error(status: int, text: str) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


def build_app(
    hub: Hub,
    guard: PinGuard,
    post: Callable[[Command], None],
    *,
    keepalive_s: float = KEEPALIVE_S,
    limits: PageLimits | None = None,
    names: Iterable[str] = (),
    phones: Phones | None = None,
    prints: bool = False,
    box_players: BoxSeats | None = None,
) -> ASGIApp:
    """The page's application: ``hub`` holds what it shows, ``guard`` checks the PIN of
    the actions, and ``post`` hands them to the box; ``names`` are the host names it
    answers to beside IP literals and this machine's own; ``phones``, the players' sheets
    (:mod:`pitable.web.players`), where the box keeps its games; ``prints``, whether the
    box has a printer for a player's sheet; ``box_players``, the box's own players, where
    it plays sheets of its own."""
    titles = [{"key": t.key, "name": t.name} for t in all_titles()]

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    async def font(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in FONT_FILES:
            return error(404, "no such font")
        return FileResponse(FONTS / name, media_type="font/ttf",
                            headers={"cache-control": "max-age=86400"})

    async def state(request: Request) -> Response:
        if hub.latest is None:
            return error(503, "the box has not started yet")
        named = page_words(box_lang())["titles"]
        return JSONResponse({**hub.latest, "titles": named, "modes": [m.value for m in Mode]},
                            headers={"cache-control": "no-store"})

    async def words(request: Request) -> Response:
        try:
            lang = check_language(request.path_params["lang"])
        except UsageError as exc:
            return error(404, str(exc))
        return JSONResponse(page_words(lang), headers={"cache-control": "max-age=3600"})

    def box_lang() -> str:
        """The language the box speaks now, as its latest snapshot says."""
        latest = hub.latest or {}
        lang = latest.get("lang")
        return lang if isinstance(lang, str) and lang in LANGUAGES else SOURCE_LANGUAGE


    def guarded(action: Callable[[Request], Awaitable[Response]]) -> Callable[
        [Request], Awaitable[Response]
    ]:
        async def checked(request: Request) -> Response:
            # The TCP peer, never a forwarded header: a client could write any address there.
            address = request.client.host if request.client is not None else ""
            given = request.headers.get(PIN_HEADER)
            decision = guard.check(address, given)
            if decision.verdict is Verdict.ALLOWED:
                return await action(request)
            seconds, left = decision.retry_after_s, decision.tries_left
            # The page shows a refusal as sent: in the box's language.
            tr = translator(box_lang())
            if decision.verdict is Verdict.LOCKED:
                status = 429
                text = tr.gettext("too many wrong PINs: try again in {seconds} s").format(
                    seconds=seconds)
            elif given is None:
                status = 403
                text = tr.gettext("a wrong or missing PIN (the {header} header)").format(
                    header="X-Pitable-Pin")
            elif seconds is not None:
                status = 403
                text = tr.gettext("a wrong PIN: try again in {seconds} s").format(
                    seconds=seconds)
            else:
                status = 403
                text = tr.ngettext("a wrong PIN: {left} try left before a wait",
                                   "a wrong PIN: {left} tries left before a wait",
                                   left or 0).format(left=left)
            body: dict[str, Any] = {"error": text}
            if left is not None:
                body["tries_left"] = left
            if seconds is None:
                return JSONResponse(body, status_code=status)
            body["retry_after"] = seconds
            return JSONResponse(body, status_code=status, headers={"retry-after": str(seconds)})

        return checked

    async def roll(request: Request) -> Response:
        post(RollCommand())
        return JSONResponse({"queued": "roll"}, status_code=202)

    async def new_game(request: Request) -> Response:
        example = json.dumps({"title": titles[0]["key"], "mode": Mode.TABLE.value})
        expected = f"expected a JSON object such as {example}"
        try:
            body: Any = json.loads(await request.body() or b"{}")
        except (ValueError, UnicodeDecodeError, RecursionError):
            # RecursionError: the decoder recurses once per nested [ or {.
            return error(400, expected)
        if not isinstance(body, dict):
            return error(400, expected)
        name, mode = body.get("title"), body.get("mode", Mode.TABLE.value)
        if not isinstance(name, str):
            return error(400, f"title: expected one of {', '.join(t['key'] for t in titles)}")
        try:
            title = find_title(name)
        except RulesError as exc:
            return error(400, f"title: {exc}")
        try:
            game_mode = Mode(mode)
        except ValueError:
            return error(400, f"mode: expected {' or '.join(Mode)}")
        post(NewGameCommand(title.key, game_mode))
        return JSONResponse({"queued": "new-game", "title": title.key, "mode": game_mode.value},
                            status_code=202)

    routes = [
        Route("/", page, methods=["GET", "HEAD"]),
        Route("/api/state", state, methods=["GET", "HEAD"]),
        Route("/api/words/{lang}", words, methods=["GET", "HEAD"]),
        Route(EVENTS_PATH, EventStream(hub, keepalive_s), methods=["GET"]),
        Route("/api/roll", guarded(roll), methods=["POST"]),
        Route("/api/new-game", guarded(new_game), methods=["POST"]),
        Route("/fonts/{name}", font, methods=["GET", "HEAD"]),
        *(player_routes(phones, STATIC, box_lang, hub, post if prints else None,
                        box_players=box_players)
          if phones is not None else ()),
        # Starlette's StaticFiles resolves each path and serves it only if it stays inside
        # this folder (no "..", no absolute path, no symlink out of it).
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    return Guarded(Starlette(routes=routes), body_s=(limits or PageLimits()).body_s,
                   names=host_names(names))

