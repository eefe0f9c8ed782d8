"""The box under a siege of its page: the dice never depend on the network.

``pitable sim`` runs its script under ``ulimit -n 1024`` (the soft limit systemd gives a
service) with the page on 127.0.0.1, while this test holds 1,500 idle connections and 600
that send their headers a line a second, from nine loopback addresses, reopening each one
the server closes. Meanwhile a phone at another loopback address must get the page and the
next roll's event; afterwards every scripted press must be a stored roll, the box must
exit 0, and its log must stay short. Everything is bounded: the siege stops by itself
after ``SIEGE_S`` seconds or ``MAX_OPENS`` connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import itertools
import json
import shlex
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from tests.support.web import TIMEOUT_S, Events, Served

pytestmark = pytest.mark.slow

IDLE = 1500
SLOW = 600
IDLE_HOSTS = [f"127.0.0.{i}" for i in range(2, 8)]
SLOW_HOSTS = [f"127.0.0.{i}" for i in range(8, 11)]
PHONE = "127.0.0.200"
SIEGE_S = 14.0
MAX_OPENS = 30_000
PRESSES = 8
#: The box's script: the siege starts while it waits, then a press every 1.5 s.
SCRIPT = ",".join(["wait3000", *["press", "wait1500"] * PRESSES, "wait2000"])


class Siege:
    """Idle and slow connections held on a thread of their own, each reopened when the
    server closes it, until :meth:`stop` or ``SIEGE_S``."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.opens = 0
        self.refused = 0
        self.held_most = 0
        self._held = 0
        self._stop: asyncio.Event | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_until_complete,
                                        args=(self._run(),), daemon=True)
        self.started = threading.Event()
        self._thread.start()
        assert self.started.wait(TIMEOUT_S)

    async def _one(self, host: str, slow: bool, deadline: float) -> None:
        assert self._stop is not None
        while not self._stop.is_set() and time.monotonic() < deadline \
                and self.opens < MAX_OPENS:
            self.opens += 1
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", self.port, local_addr=(host, 0))
            except OSError:
                self.refused += 1
                await asyncio.sleep(0.2)
                continue
            self._held += 1
            self.held_most = max(self.held_most, self._held)
            try:
                if slow:
                    writer.write(b"GET / HTTP/1.1\r\n")
                line = 0
                while not self._stop.is_set() and time.monotonic() < deadline:
                    with contextlib.suppress(TimeoutError):
                        # A read that ends means the server closed the connection.
                        if not await asyncio.wait_for(reader.read(1024), 1.0):
                            break
                        continue
                    if slow:
                        line += 1
                        writer.write(b"X-Slow-%d: still coming\r\n" % line)
                        await writer.drain()
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                self._held -= 1
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()
            self.refused += 1
            await asyncio.sleep(0.1)

    async def _run(self) -> None:
        self._stop = asyncio.Event()
        deadline = time.monotonic() + SIEGE_S
        tasks = [asyncio.create_task(self._one(IDLE_HOSTS[i % len(IDLE_HOSTS)], False,
                                               deadline)) for i in range(IDLE)]
        tasks += [asyncio.create_task(self._one(SLOW_HOSTS[i % len(SLOW_HOSTS)], True,
                                                deadline)) for i in range(SLOW)]
        self.started.set()
        await asyncio.wait(tasks, timeout=SIEGE_S + 5)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(SIEGE_S + 10)


def phone_follows_a_roll(port: int) -> tuple[int, dict[str, object]]:
    """A phone at another address: the page, then the stream until a roll newer than the
    first event it was handed."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S,
                                      source_address=(PHONE, 0))
    conn.request("GET", "/")
    page = conn.getresponse()
    body = page.read()
    conn.close()
    assert page.status == 200 and b"<html" in body
    events = Events(port, source=PHONE)
    try:
        first = events.until(lambda e: True)["seq"]
        return first, events.until(lambda e: not e["rolling"] and e["roll"] is not None)
    finally:
        events.close()


def test_a_siege_of_the_page_neither_stops_nor_slows_the_dice(tmp_path: Path) -> None:
    command = shlex.join([sys.executable, "-m", "pitable", "sim", "--script", SCRIPT,
                          "--web", "127.0.0.1:0", "--seed", "5",
                          "--state-dir", str(tmp_path)])
    served = ServedShell(f"ulimit -n 1024 && exec {command}")
    siege: Siege | None = None
    try:
        served.wait_for_page()
        siege = Siege(served.port)
        time.sleep(2.0)  # the siege is at full strength before the phone comes
        first, rolled = phone_follows_a_roll(served.port)
        assert isinstance(rolled["seq"], int) and rolled["seq"] > first
        siege.stop()
        code, out, err = served.finish(timeout=60)
    finally:
        if siege is not None:
            siege.stop()
        served.kill()
    assert code == 0, err[-2000:]
    assert siege.held_most >= 500, f"the siege held only {siege.held_most} connections"
    assert f"{PRESSES} rolls" in out, out
    assert "Traceback" not in err and len(err) < 20_000, err[-2000:]
    history = subprocess.run(
        [sys.executable, "-m", "pitable", "history", "--state-dir", str(tmp_path), "--json"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.splitlines()
    rolls = [json.loads(line) for line in history[1:]]
    assert [r["n"] for r in rolls] == list(range(1, PRESSES + 1))
    # On schedule: a press every 1.5 s of the script; a box that the siege held up would
    # leave a gap far longer (the bound is loose, for a busy machine).
    times = [datetime.fromisoformat(r["at"]) for r in rolls]
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(times)]
    assert max(gaps) < 1.5 + 2.0, gaps


class ServedShell(Served):
    """:class:`Served` for a shell command line (to set its descriptor limit first)."""

    def __init__(self, line: str) -> None:
        self.process = subprocess.Popen(["bash", "-c", line], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        self.stderr = []
        self.found = threading.Event()
        self.port = 0
        self.pin = ""
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
