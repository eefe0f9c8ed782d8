"""The event stream's fan-out: the latest snapshot, and one bounded queue per client.

Runs on the server's event loop only. Each snapshot is turned into JSON once, however many
clients listen. A client that reads slower than the box changes loses its oldest events
first: every event is a whole snapshot, so the newest one alone is enough to draw the page.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from pitable.errors import TooManyListeners

#: Events kept for a client that has not read them yet.
QUEUE_SIZE = 16
#: The most clients of the event stream at once (a club night is well under this), and
#: from one client address (a phone needs one; a few tabs or a TV behind it, a few more).
MAX_CLIENTS = 500
MAX_PER_CLIENT = 8


class Snapshot(Protocol):
    """What the hub needs of :class:`~pitable.box.snapshot.TableSnapshot`."""

    @property
    def seq(self) -> int: ...

    def to_json(self) -> dict[str, Any]: ...


class Client:
    """One reader of the event stream: the events it has not read, oldest first; ``key``
    is who reads it (:func:`~pitable.web.guard.client_key` of its address)."""

    def __init__(self, size: int = QUEUE_SIZE, key: str = "") -> None:
        self.key = key
        self.queue: deque[bytes] = deque(maxlen=size)
        self.wake = asyncio.Event()
        self.closed = False
        #: Set by the hub's keep-alive tick: say something if there is nothing to say.
        self.keepalive = False
        #: Events dropped because this client read too slowly.
        self.dropped = 0

    def put(self, event: bytes) -> None:
        if len(self.queue) == self.queue.maxlen:
            self.dropped += 1
        self.queue.append(event)
        self.wake.set()

    def close(self) -> None:
        self.closed = True
        self.wake.set()

    def take(self) -> list[bytes]:
        """Every waiting event, oldest first."""
        events = list(self.queue)
        self.queue.clear()
        self.wake.clear()
        self.keepalive = False
        return events

    def tick(self) -> None:
        self.keepalive = True
        self.wake.set()


class Hub:
    """The latest snapshot as JSON text, and the clients to hand each new one to.

    Every event carries ``run``, drawn anew each time the box starts, beside the snapshot's
    ``seq``: a restarted box counts from 1 again, and a page that sees another run takes
    its state whatever the number.
    """

    def __init__(self, *, queue_size: int = QUEUE_SIZE, max_clients: int = MAX_CLIENTS,
                 max_per_client: int = MAX_PER_CLIENT, run: str | None = None) -> None:
        self.queue_size = queue_size
        self.max_clients = max_clients
        self.max_per_client = max_per_client
        self.run = run or secrets.token_hex(8)
        # Insertion-ordered, so that each client's oldest stream comes first.
        self.clients: dict[Client, None] = {}
        self.by_key: dict[str, dict[Client, None]] = {}
        self.latest: dict[str, Any] | None = None
        self.latest_event: bytes | None = None
        self.closed = False
        #: Streams ended to make room for another client's.
        self.evicted = 0
        #: Told each snapshot's JSON as it is published, on the event loop (the players'
        #: routes take a roll in then); each must return at once.
        self.watchers: list[Callable[[dict[str, Any]], None]] = []

    def publish(self, snapshot: Snapshot) -> None:
        data = {**snapshot.to_json(), "run": self.run}
        for watch in self.watchers:
            watch(data)
        self.latest = data
        self.latest_event = event_text(snapshot.seq, data)
        for client in self.clients:
            client.put(self.latest_event)

    def announce(self, kind: str, data: dict[str, Any]) -> None:
        """Hand every client an event of ``kind`` (``sheet``: a player's sheet changed),
        beside the snapshots; a reader of snapshots alone skips it by its type. It is not
        kept for newcomers: a watcher reads the sheets themselves when it starts."""
        text = (f"event: {kind}\ndata: "
                f"{json.dumps({**data, 'run': self.run}, separators=(',', ':'))}\n\n")
        event = text.encode()
        for client in self.clients:
            client.put(event)

    def count(self, key: str) -> int:
        return len(self.by_key.get(key, ()))

    def join(self, key: str = "") -> Client:
        """A new client for ``key``, handed the latest snapshot first.

        A client at its own cap gives up its oldest stream (a phone whose old connection
        died unseen comes back on a new one). When the room is full, the newcomer takes the
        oldest stream of the client that holds the most, if that one holds at least two
        more than the newcomer; otherwise :class:`~pitable.errors.TooManyListeners`.
        """
        mine = self.count(key)
        victim: Client | None = None
        if mine >= self.max_per_client:
            victim = next(iter(self.by_key[key]))
        elif len(self.clients) >= self.max_clients:
            heaviest = max(self.by_key, key=self.count, default=None)
            if heaviest is not None and self.count(heaviest) > mine + 1:
                victim = next(iter(self.by_key[heaviest]))
            else:
                raise TooManyListeners(
                    f"the page has {len(self.clients)} listeners, the most it takes")
        if victim is not None:
            self.evicted += 1
            victim.close()
            self.leave(victim)
        client = Client(self.queue_size, key)
        if self.closed:
            client.close()
        elif self.latest_event is not None:
            client.put(self.latest_event)
        self.clients[client] = None
        self.by_key.setdefault(key, {})[client] = None
        return client

    def leave(self, client: Client) -> None:
        self.clients.pop(client, None)
        mine = self.by_key.get(client.key)
        if mine is not None:
            mine.pop(client, None)
            if not mine:
                del self.by_key[client.key]

    def tick(self) -> None:
        """Wake every client to send a keep-alive comment (one timer for the whole room,
        rather than one per client and per wait)."""
        for client in self.clients:
            client.tick()

    def close(self) -> None:
        """End every stream: the server is stopping."""
        self.closed = True
        for client in self.clients:
            client.close()


def event_text(seq: int, data: dict[str, Any]) -> bytes:
    """One Server-Sent Event, encoded: its id (the snapshot's number) and one line of JSON."""
    # json.dumps escapes newlines inside strings, so the data is always one line.
    return f"id: {seq}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
