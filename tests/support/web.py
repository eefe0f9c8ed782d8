"""The table's page in the test's process (:func:`serve`) or in a ``pitable`` process
(:class:`Served`), on 127.0.0.1 only, and clients of it with deadlines."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from pitable.box.events import Event
from pitable.hw.clock import FakeClock
from pitable.web.server import WebServer

#: Each page: its HTML and its own script, whose English words are the defaults it shows
#: before the box's language is known; and the scripts the pages share, which ask for words.
PAGES = {"index.html": "app.js", "play.html": "play.js"}
SHARED_SCRIPTS = ("dice.js", "stream.js")

#: The PIN of every page :func:`serve` starts.
PIN = "4321"
#: How long a test waits on a socket before it fails rather than hangs.
TIMEOUT_S = 10.0


@dataclass
class Page:
    """A server on 127.0.0.1 and what it posted to the box."""

    server: WebServer
    clock: FakeClock
    posted: list[Event] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.server.port

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT_S)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            conn.close()

    def act(self, path: str, pin: str | None = PIN, body: Any = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if pin is not None:
            headers["X-Pitable-Pin"] = pin
        data = json.dumps(body).encode() if body is not None else None
        status, _, answer = self.request("POST", path, data, headers)
        return status, json.loads(answer) if answer else None


def serve(post: Callable[[Event], None] | None = None, *, keepalive_s: float = 15.0) -> Page:
    """A page on 127.0.0.1 with a fake clock for its lock-outs; its actions go to ``post``,
    else to the returned page's ``posted``."""
    clock = FakeClock()
    posted: list[Event] = []
    server = WebServer("127.0.0.1", 0, PIN, post or posted.append, clock=clock,
                       keepalive_s=keepalive_s)
    server.start()
    return Page(server, clock, posted)


class Events:
    """A client of ``/api/events``: reads one event at a time, with a deadline.

    As a browser's ``EventSource`` does, it tells events apart by their ``event:`` line:
    the box's snapshots have none (a ``message``), the table's news have their kind. It
    returns the kinds in ``kinds`` and skips the others.
    """

    def __init__(self, port: int, kinds: tuple[str, ...] = ("message",), *,
                 source: str | None = None) -> None:
        self.kinds = kinds
        self.conn = http.client.HTTPConnection(
            "127.0.0.1", port, timeout=TIMEOUT_S,
            source_address=(source, 0) if source is not None else None)
        self.conn.request("GET", "/api/events")
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("content-type", "").startswith("text/event-stream")
        self.comments: list[str] = []

    def next(self) -> dict[str, Any] | None:
        """The next event's JSON of a kind asked for; None when the stream ends."""
        data: list[str] = []
        kind = "message"
        while True:
            raw = self.response.fp.readline()
            if not raw:
                return None
            line = raw.decode().rstrip("\n")
            if line.startswith(":"):
                self.comments.append(line)
            elif line.startswith("event: "):
                kind = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
            elif line == "" and data:
                assert len(data) == 1, "one data line per event"
                if kind in self.kinds:
                    return json.loads(data[0])
                data, kind = [], "message"

    def until(self, test: Any) -> dict[str, Any]:
        while True:
            event = self.next()
            assert event is not None, "the stream ended"
            if test(event):
                return event

    def close(self) -> None:
        self.conn.close()


#: What ``pitable web`` says on stderr once its page is up.
URL_LINE = re.compile(r"the table's page: http://127\.0\.0\.1:(\d+)/ \(PIN (\d+)\)")


class Served:
    """A ``pitable`` subprocess that serves the page; its stderr is read on a thread."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pitable", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **(env or {})},
        )
        self.stderr: list[str] = []
        self.found = threading.Event()
        self.port = 0
        self.pin = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)
            match = URL_LINE.search(line)
            if match and not self.found.is_set():
                self.port, self.pin = int(match[1]), match[2]
                self.found.set()
        self.found.set()

    def wait_for_page(self) -> None:
        assert self.found.wait(60), "pitable did not say where the page is"
        assert self.port, "".join(self.stderr)

    def wait_for_box(self) -> None:
        """Until the box has published its first state: before it the page answers 503
        with Retry-After, as a loaded machine shows between the page's start and the box's."""
        self.wait_for_page()
        deadline = time.monotonic() + 60
        while self.get("/api/state")[0] == 503:
            assert time.monotonic() < deadline, "the box never published its state"
            assert self.process.poll() is None, "".join(self.stderr)
            time.sleep(0.1)

    def get(self, path: str) -> tuple[int, Any]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT_S)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()

    def finish(self, timeout: float = 60) -> tuple[int, str, str]:
        out, _ = self.process.communicate(timeout=timeout)
        self._reader.join(5)
        return self.process.returncode, out, "".join(self.stderr)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def english_defaults(script: str) -> dict[str, str]:
    """A page script's English words by key (its ``words: {...}`` before ``dice: {``)."""
    defaults = script[script.index("  words: {"):script.index("  dice: {")]
    return dict(re.findall(r'(\w+): "([^"]*)"', defaults))


#: Any JSON a hostile client might send as a body, small: what a page's routes must answer
#: with one line (or their rules), never a 500.
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
