"""The event stream's fan-out: the latest snapshot, and one bounded queue per client.

Runs on the server's event loop only. Each snapshot is turned into JSON once, however many
clients listen. A client that reads slower than the box changes loses its oldest events
first: every event is a whole snapshot, so the newest one alone is enough to draw the page.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Any, Protocol

from pitable.errors import TooManyListeners

#: Events kept for a client that has not read them yet.
QUEUE_SIZE = 16
#: The most clients of the event stream at once: a club night is well under this.
MAX_CLIENTS = 500


class Snapshot(Protocol):
    """What the hub needs of :class:`~pitable.box.snapshot.TableSnapshot`."""

    @property
    def seq(self) -> int: ...

    def to_json(self) -> dict[str, Any]: ...


class Client:
    """One reader of the event stream: the events it has not read, oldest first."""

    def __init__(self, size: int = QUEUE_SIZE) -> None:
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
    """The latest snapshot as JSON text, and the clients to hand each new one to."""

    def __init__(self, *, queue_size: int = QUEUE_SIZE, max_clients: int = MAX_CLIENTS) -> None:
        self.queue_size = queue_size
        self.max_clients = max_clients
        self.clients: set[Client] = set()
        self.latest: dict[str, Any] | None = None
        self.latest_event: bytes | None = None
        self.closed = False

    def publish(self, snapshot: Snapshot) -> None:
        data = snapshot.to_json()
        self.latest = data
        self.latest_event = event_text(snapshot.seq, data)
        for client in self.clients:
            client.put(self.latest_event)

    def join(self) -> Client:
        """A new client, handed the latest snapshot first."""
        if len(self.clients) >= self.max_clients:
            raise TooManyListeners(f"the page has {len(self.clients)} listeners, the most it takes")
        client = Client(self.queue_size)
        if self.closed:
            client.close()
        elif self.latest_event is not None:
            client.put(self.latest_event)
        self.clients.add(client)
        return client

    def leave(self, client: Client) -> None:
        self.clients.discard(client)

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
