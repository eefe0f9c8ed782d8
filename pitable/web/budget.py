"""The page server's budgets: how many connections, from whom, and for how long.

Nothing that arrives from the network may take what the box's loop needs: its descriptors
(fonts, the store, the buses), its memory or its time. uvicorn offers one global
``limit_concurrency``, which counts a connection that has not yet sent its headers like a
stream that serves a phone, and no deadline for a request's headers: 550 slow connections
locked every new visitor out. The budgets below are enforced in uvicorn's own HTTP
protocol, subclassed (:func:`budgeted_protocol`), because only the protocol sees a
connection from its accept to its close; uvicorn has no hook for it, and the other
well-kept pure-Python servers (hypercorn, daphne) have no per-client caps either.

- Every connection is counted against its client (an IPv4 address, or an IPv6 /64; see
  :func:`~pitable.web.guard.client_key`) and against the total. An event stream leaves
  that count for the hub's own (:class:`~pitable.web.hub.Hub`), so that neither crowds
  out the other.
- A connection must send its request's headers within ``header_s`` of its accept or of
  its last answer; a kept-alive one that says nothing is closed after ``idle_s``.
- When the total is reached, a new connection takes the place of the oldest connection
  that has waited over ``GRACE_S`` for its headers, from the client that holds the most,
  if that client holds more than the newcomer: an attacker from a few addresses can hold
  only what those addresses' share allows, and a phone from another address still gets
  in. (A connection younger than that is a browser that has not been read yet.)
- The caps are fitted to the process's descriptor limit (:meth:`PageLimits.fitted`), leaving
  a reserve for the box, so that the accept loop never meets EMFILE.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Callable
from typing import Any

from pitable.config import PageLimits
from pitable.web.guard import client_key

log = logging.getLogger("pitable.web")

#: Seconds a new connection has to send its headers before another may take its place: a
#: browser sends them as soon as it is connected, a slow attacker never does.
GRACE_S = 1.0


class State(enum.Enum):
    WAITING = "waiting for its headers"
    BUSY = "being answered"
    STREAM = "an event stream"


class Slot:
    """One connection as the budget sees it."""

    __slots__ = ("abort", "key", "since", "state")

    def __init__(self, key: str, abort: Callable[[], None], since: float) -> None:
        self.key = key
        self.abort = abort
        self.since = since
        self.state = State.WAITING


class ConnectionBudget:
    """Who holds which connection; runs on the server's event loop only."""

    def __init__(self, limits: PageLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        #: Counted connections (all but event streams) by client key.
        self.held: dict[str, list[Slot]] = {}
        self.total = 0
        #: Connections refused and evicted since the last summary in the log.
        self.refused = 0
        self.evicted = 0

    def count(self, key: str) -> int:
        return len(self.held.get(key, ()))

    def admit(self, host: str, abort: Callable[[], None]) -> Slot | None:
        """A slot for a new connection from ``host``, or None: refused. ``abort`` closes
        the connection at once (called on a connection evicted for this one)."""
        key = client_key(host)
        mine = self.count(key)
        victim: Slot | None = None
        if mine >= self.limits.connections_per_client:
            victim = self._oldest_waiting(key)
        elif self.total >= self.limits.connections:
            for other in sorted(self.held, key=self.count, reverse=True):
                if self.count(other) <= mine:
                    break
                victim = self._oldest_waiting(other)
                if victim is not None:
                    break
        if victim is None and (mine >= self.limits.connections_per_client
                               or self.total >= self.limits.connections):
            self.refused += 1
            return None
        if victim is not None:
            self.evicted += 1
            self._uncount(victim)
            victim.abort()
        slot = Slot(key, abort, self.clock())
        self.held.setdefault(key, []).append(slot)
        self.total += 1
        return slot

    def _oldest_waiting(self, key: str) -> Slot | None:
        now = self.clock()
        waiting = [s for s in self.held.get(key, ())
                   if s.state is State.WAITING and now - s.since >= GRACE_S]
        return min(waiting, key=lambda s: s.since) if waiting else None

    def _uncount(self, slot: Slot) -> None:
        held = self.held.get(slot.key)
        if held is None or slot not in held:
            return
        held.remove(slot)
        if not held:
            del self.held[slot.key]
        self.total -= 1

    def busy(self, slot: Slot, *, stream: bool) -> None:
        """``slot`` sent its headers: it is answered now, or it is an event stream (which
        the hub counts from here on)."""
        if stream:
            self._uncount(slot)
            slot.state = State.STREAM
        else:
            slot.state = State.BUSY

    def waiting(self, slot: Slot) -> None:
        """``slot``'s answer is complete: it waits for its next request, counted again."""
        if slot.state is State.STREAM:
            slot.state = State.WAITING
            slot.since = self.clock()
            self.held.setdefault(slot.key, []).append(slot)
            self.total += 1
        else:
            slot.state = State.WAITING
            slot.since = self.clock()

    def release(self, slot: Slot) -> None:
        """``slot``'s connection is closed."""
        self._uncount(slot)


def budgeted_protocol(budget: ConnectionBudget, streams: Callable[[str, str], bool]) -> type:
    """uvicorn's h11 protocol with ``budget`` enforced; ``streams(method, path)`` says
    which requests are event streams."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BudgetedProtocol(H11Protocol):
        """One connection, admitted by the budget, held to its deadlines."""

        _slot: Slot | None = None
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            self._slot = budget.admit(host, transport.abort)
            if self._slot is None:
                transport.abort()  # refused: a reset, and the descriptor is free at once
                return
            self._arm(budget.limits.header_s)

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.abort()

        def handle_events(self) -> None:
            if self._slot is None:
                return  # refused: whatever it sent is not read
            cycle = self.cycle
            super().handle_events()
            if self.cycle is not cycle and self.cycle is not None:
                # The headers of a new request are in.
                self._disarm()
                scope = self.cycle.scope
                budget.busy(self._slot, stream=streams(scope["method"], scope["path"]))

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._slot is not None and not self.transport.is_closing():
                budget.waiting(self._slot)
                # uvicorn's keep-alive timer closes an idle connection after idle_s; this
                # one bounds a next request whose headers start but never end.
                self._arm(budget.limits.idle_s + budget.limits.header_s)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._slot is not None:
                budget.release(self._slot)
                self._slot = None
            super().connection_lost(exc)

    return BudgetedProtocol


class Bounded(logging.Filter):
    """Lets at most ``per_minute`` records through a minute, then one line that says how
    many were held back: a flood of bad requests cannot fill the disk with the log."""

    def __init__(self, per_minute: int = 10, clock: Callable[[], float] = time.monotonic,
                 ) -> None:
        super().__init__()
        self.per_minute = per_minute
        self.clock = clock
        self.window = clock()
        self.passed = 0
        self.held = 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        if now - self.window >= 60:
            if self.held:
                log.warning("the page's server held back %d more log lines of that minute",
                            self.held)
            self.window, self.passed, self.held = now, 0, 0
        if self.passed >= self.per_minute:
            self.held += 1
            return False
        self.passed += 1
        return True
