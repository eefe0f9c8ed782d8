"""The page's server: uvicorn in a thread of its own, with an event loop of its own.

The box's loop calls :meth:`WebServer.publish` with each snapshot; it returns at once,
having handed the snapshot to the server's loop with ``call_soon_threadsafe``. The page's
actions come back as events that ``post`` puts on the box's queue. The two threads share
no state: a snapshot is frozen, and the queue is the box's own way in.

uvicorn runs plain (its h11 protocol and asyncio's loop), without the C extras of
``uvicorn[standard]``, so that a Pi Zero 2 W installs it from pure-Python wheels.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import os
import socket
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pitable.config import BACKLOG, PageLimits
from pitable.errors import WebError
from pitable.hw.clock import Clock, MonotonicClock
from pitable.hw.network import bound_url, page_url
from pitable.web.app import EVENTS_PATH, KEEPALIVE_S, build_app
from pitable.web.budget import Bounded, ConnectionBudget, budgeted_protocol
from pitable.web.commands import Command
from pitable.web.guard import PinGuard
from pitable.web.hub import Hub, Snapshot
from pitable.web.players import BoxSeats, Phones

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger("pitable.web")

#: How long closing waits for the server's thread.
CLOSE_S = 5.0
#: The page server's log lines of uvicorn and asyncio, a few a minute at most.
_BOUNDED = Bounded()


class WebServer:
    """The table's page on ``host``:``port`` (port 0: a free one); actions need ``pin``.

    :meth:`start` binds the port (a :class:`~pitable.errors.WebError` when it cannot) and
    starts serving; :meth:`close` ends every event stream and stops the thread. ``clock``
    times the lock-out of wrong PINs (a test passes a fake one). ``limits`` are the
    connection budgets (default: the box's), fitted to the process's descriptor limit;
    ``names`` are host names the page answers to beside its IP literals and this
    machine's own name (a ``Host`` that is none of them is refused: DNS rebinding).
    """

    def __init__(
        self,
        host: str,
        port: int,
        pin: str,
        post: Callable[[Command], None],
        *,
        clock: Clock | None = None,
        keepalive_s: float = KEEPALIVE_S,
        limits: PageLimits | None = None,
        names: tuple[str, ...] = (),
        phones: Phones | None = None,
        prints: bool = False,
        box_players: BoxSeats | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.pin = pin
        self.limits = (limits or PageLimits()).fitted()
        self.hub = Hub(max_clients=self.limits.listeners,
                       max_per_client=self.limits.listeners_per_client)
        self.budget = ConnectionBudget(self.limits)
        self.guard = PinGuard(pin, clock or MonotonicClock())
        self.app = build_app(self.hub, self.guard, post, keepalive_s=keepalive_s,
                             limits=self.limits, names=names, phones=phones, prints=prints,
                             box_players=box_players)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: uvicorn.Server | None = None
        self._open = False

    @property
    def url(self) -> str:
        """The page's URL as bound, a wildcard host kept: the join code puts the LAN
        address in its place each time it is shown (:mod:`pitable.hw.network`)."""
        return bound_url(self.host, self.port)

    def start(self) -> None:
        import uvicorn

        sock = bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            lifespan="off",
            loop="none",
            http=budgeted_protocol(self.budget, _is_stream),
            ws="none",
            log_config=None,
            access_log=False,
            server_header=False,
            # The address the limits see is the connection's own: a header that names
            # another (X-Forwarded-For) would let a client dodge them.
            proxy_headers=False,
            # The budgets (budget.py) replace uvicorn's one global count.
            limit_concurrency=None,
            # Typed int, used as loop.call_later's seconds: a float is as good.
            timeout_keep_alive=self.limits.idle_s,  # type: ignore[arg-type]
            backlog=BACKLOG,
            timeout_graceful_shutdown=2,
        )
        server = uvicorn.Server(config)
        loop = asyncio.new_event_loop()
        # A flood of bad requests, or a resource running out, says so in a few lines a
        # minute rather than a traceback each.
        logging.getLogger("uvicorn.error").addFilter(_BOUNDED)

        def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
            record = logging.LogRecord("asyncio", logging.ERROR, __file__, 0, "", (), None)
            if _BOUNDED.filter(record):
                loop.default_exception_handler(context)

        loop.set_exception_handler(handle)

        def serve() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(server.serve(sockets=[sock]))
            except Exception:  # the page's thread must not take the box down with it
                log.exception("the table's page stopped")
            finally:
                sock.close()
                loop.close()

        self._loop, self._server = loop, server
        self._open = True
        self._thread = threading.Thread(target=serve, name="pitable-web", daemon=True)
        self._thread.start()
        log.warning("the table's page: %s (PIN %s)", page_url(self.host, self.port), self.pin)

    def publish(self, snapshot: Snapshot) -> None:
        """Hand ``snapshot`` to the page's clients; any thread; returns at once."""
        loop = self._loop
        if loop is None:
            self.hub.publish(snapshot)  # not serving yet: nothing else reads the hub
            return
        if not self._open:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed under us: stopping
            loop.call_soon_threadsafe(self.hub.publish, snapshot)

    def close(self) -> None:
        if not self._open:
            return
        self._open = False
        loop, server, thread = self._loop, self._server, self._thread
        assert loop is not None and server is not None and thread is not None
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self.hub.close)
        server.should_exit = True
        thread.join(CLOSE_S)
        if thread.is_alive():
            server.force_exit = True
            thread.join(CLOSE_S)


def _is_stream(method: str, path: str) -> bool:
    return method == "GET" and path == EVENTS_PATH


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port``, or a :class:`WebError` naming why not."""
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        family = socket.AF_INET
    try:
        sock = socket.create_server((host, port), family=family, backlog=BACKLOG)
    except OSError as exc:
        # create_server words it "... (while attempting to bind on address ...)": the
        # address is in this message already.
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise WebError(f"cannot serve the page on {host}:{port}: {reason}") from None
    sock.setblocking(False)
    return sock
