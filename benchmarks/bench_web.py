"""The table's page under a full room: 200 and 500 event-stream clients, and 500 while 600
slow connections are held, 50 rolls each, on 127.0.0.1.

    python -m benchmarks.bench_web [--clients 200,500] [--rolls 50] [--interval-ms 500]
                                   [--slow 600]

One simulated box serves its page on 127.0.0.1 with the budgets it ships with (the
service's descriptor limit of 4096 is set on this process first); a second process opens
the clients' connections to ``/api/events`` (plain asyncio sockets, so that the clients'
own work does not count as the server's memory), each from a loopback address of its own
as the phones at a table are, and notes when each event arrives. The last run also holds
``--slow`` connections from six other addresses that send their headers a line a second,
each reopened when the server closes it. The box then rolls
``--rolls`` times, one roll every ``--interval-ms`` of real time (faster than a box rolls:
its tumble and the 1.5 s a result stays on the screens come first), and for every roll and
every client the latency is the time from the box publishing the final faces to that
client reading them (both on the machine's monotonic clock). It prints the median, the
99th percentile and the worst, against a baseline of one client measured in the same run,
and the server's memory per client (its resident set with every client connected, less
before). It exits 1 when a p99 is 250 ms or more or when a client missed a roll.

Everything is bounded: the clients give up after ``--deadline-s`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: The final faces in an event: its number, not rolling, and a roll (the server writes the
#: snapshot's keys in this order, without spaces).
FINAL = re.compile(rb'^data: \{"seq":(\d+),.*"rolling":false,"roll":\[')
#: The target on this machine: p99 of the final faces' arrival below this.
P99_LIMIT_MS = 250.0
CLIENT_LIMIT = 1000
#: The descriptor limit the service runs with (systemd/pitable.service's LimitNOFILE).
SERVICE_NOFILE = 4096
#: The slow connections' addresses: a few, as one attacker's machines would have.
SLOW_HOSTS = [f"127.0.0.{i}" for i in range(2, 8)]


def client_address(i: int) -> str:
    """The loopback address of client ``i``: one each, as phones have (127.1.x.y)."""
    return f"127.1.{i // 250}.{1 + i % 250}"


# --- the clients (run in their own process) -----------------------------------------------


async def _client(port: int, rolls: int, arrivals: dict[int, float], address: str) -> bool:
    """One listener: the arrival time of every final roll; True when it saw them all.
    Like the page, it asks again until it has its stream (the room may be full a moment
    while 500 clients come at once)."""
    while True:
        writer = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                           local_addr=(address, 0))
            writer.write(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Accept: text/event-stream\r\n\r\n")
            await writer.drain()
            status = await reader.readline()
        except OSError:
            status = b""
        if b" 200 " in status and writer is not None:
            break
        if writer is not None:
            writer.close()
        await asyncio.sleep(0.5)
    first = True
    while len(arrivals) < rolls:
        line = await reader.readline()
        if not line:
            break
        if not line.startswith(b"data: "):
            continue
        at = time.monotonic()
        if first:
            first = False  # the snapshot of before the rolls
            continue
        # Read with a pattern rather than json.loads: 200 clients share the machine with
        # the server they measure, and this keeps their own work small.
        shown = FINAL.search(line)
        if shown:
            arrivals[int(shown[1])] = at
    writer.close()
    return len(arrivals) >= rolls


@dataclasses.dataclass
class Siege:
    """What the slow connections did: opened in all, and held at once at most."""

    opened: int = 0
    held: int = 0
    held_most: int = 0


async def _slow(port: int, host: str, stop: asyncio.Event, siege: Siege) -> None:
    """One slow connection: a header line a second, never the end; reopened when closed."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                           local_addr=(host, 0))
        except OSError:
            await asyncio.sleep(0.2)
            continue
        siege.opened += 1
        siege.held += 1
        siege.held_most = max(siege.held_most, siege.held)
        try:
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            line = 0
            while not stop.is_set():
                try:
                    if not await asyncio.wait_for(reader.read(1024), 1.0):
                        break  # closed by the server
                except TimeoutError:
                    line += 1
                    writer.write(b"X-Slow-%d: still coming\r\n" % line)
                    await writer.drain()
        except OSError:
            pass
        finally:
            siege.held -= 1
            writer.close()
        await asyncio.sleep(0.1)


async def _siege(port: int, slow: int, deadline_s: float) -> Siege:
    """``slow`` slow connections until a line on stdin or ``deadline_s``."""
    stop = asyncio.Event()
    siege = Siege()
    held = [asyncio.create_task(_slow(port, SLOW_HOSTS[i % len(SLOW_HOSTS)], stop, siege))
            for i in range(slow)]
    await asyncio.sleep(2.0)  # the slow ones are in before the listeners come
    print("ready", flush=True)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.to_thread(sys.stdin.readline), deadline_s)
    stop.set()
    await asyncio.wait(held, timeout=5)
    for task in held:
        task.cancel()
    return siege


def run_siege(port: int, slow: int, deadline_s: float) -> None:
    """The slow connections, in a process of their own: an attacker's machine is not the
    phones', and its work must not delay the listeners' reading of their events."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    siege = asyncio.run(_siege(port, slow, deadline_s))
    print(json.dumps(dataclasses.asdict(siege)), flush=True)


async def _clients(port: int, count: int, rolls: int, deadline_s: float) -> dict[str, Any]:
    arrivals: list[dict[int, float]] = [{} for _ in range(count)]
    tasks = [asyncio.create_task(_client(port, rolls, a, client_address(i)))
             for i, a in enumerate(arrivals)]
    # The box waits until the server counts every client before it rolls.
    print("ready", flush=True)
    done, pending = await asyncio.wait(tasks, timeout=deadline_s)
    for task in pending:
        task.cancel()
    complete = [t.result() if t in done and not t.cancelled() and t.exception() is None
                else False for t in tasks]
    return {"complete": complete, "arrivals": [{str(k): v for k, v in a.items()}
                                               for a in arrivals]}


def run_clients(port: int, count: int, rolls: int, deadline_s: float) -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    result = asyncio.run(_clients(port, count, rolls, deadline_s))
    print(json.dumps(result), flush=True)


# --- the box and its page ---------------------------------------------------------------------


@dataclasses.dataclass
class Figures:
    clients: int
    rolls: int
    latencies_ms: list[float]
    missed: int
    memory_per_client_kb: float
    slow: int = 0
    siege: Siege | None = None

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def measure(clients: int, rolls: int, interval_s: float, deadline_s: float,
            slow: int = 0) -> Figures:
    from pitable.box.sim import Simulator
    from pitable.config import DEFAULTS
    from pitable.hw.entropy import SeededSource
    from pitable.web.server import WebServer

    box = dataclasses.replace(DEFAULTS.box, tumble_ms=300)
    sim = Simulator(dataclasses.replace(DEFAULTS, box=box), entropy=SeededSource(7))
    server = WebServer("127.0.0.1", 0, "0000", sim.box.post)
    server.start()
    shown_at: dict[int, float] = {}

    def note(snapshot: Any) -> None:
        if not snapshot.rolling and snapshot.options is not None:
            shown_at[snapshot.seq] = time.monotonic()

    # Noted first: the moment the box publishes the final faces, before the page has them.
    sim.box.publisher.subscribe(note)
    sim.box.publisher.subscribe(server.publish)
    here = Path(__file__).parent.parent
    attacker = None
    if slow:
        attacker = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.bench_web", "--as-siege", str(server.port),
             "--slow", str(slow), "--deadline-s", str(deadline_s)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=here,
        )
        assert attacker.stdout is not None
        assert attacker.stdout.readline().strip() == "ready"
    before = rss_kb()
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_web", "--as-clients", str(server.port),
         "--clients", str(clients), "--rolls", str(rolls), "--deadline-s", str(deadline_s)],
        stdout=subprocess.PIPE, text=True, cwd=here,
    )
    siege = None
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        # Every client holds its stream open once the hub counts it.
        limit = time.monotonic() + deadline_s
        while len(server.hub.clients) < clients and time.monotonic() < limit:
            time.sleep(0.05)
        connected = rss_kb()
        for _ in range(rolls):
            sim.press()
            time.sleep(interval_s)
        out, _ = child.communicate(timeout=deadline_s + 30)
        if attacker is not None:
            said, _ = attacker.communicate("stop\n", timeout=30)
            siege = Siege(**json.loads(said.strip().splitlines()[-1]))
    finally:
        for process in (child, attacker):
            if process is not None and process.poll() is None:
                process.kill()
        server.close()
        sim.close()
    result = json.loads(out.strip().splitlines()[-1])
    latencies = []
    missed = 0
    for complete, arrivals in zip(result["complete"], result["arrivals"], strict=True):
        if not complete:
            missed += 1
        for seq, at in arrivals.items():
            if int(seq) in shown_at:
                latencies.append((at - shown_at[int(seq)]) * 1000)
    return Figures(clients, rolls, latencies, missed,
                   max(0, connected - before) / max(1, clients), slow, siege)


def report(name: str, f: Figures) -> None:
    # One client's share of the memory is lost in the noise of the first connection.
    memory = (f"; server memory {f.memory_per_client_kb:.0f} KB per client"
              if f.clients >= 50 else "")
    held = ""
    if f.siege is not None:
        held = (f" with {f.slow} slow connections (held at most {f.siege.held_most} at once,"
                f" {f.siege.opened} opened)")
    print(f"{name}: {f.clients} client(s){held}, {f.rolls} rolls: final faces to each client's"
          f" event median {statistics.median(f.latencies_ms):.1f} ms,"
          f" p99 {f.percentile(0.99):.1f} ms, worst {max(f.latencies_ms):.1f} ms{memory};"
          f" clients that missed a roll: {f.missed}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="200,500",
                        help="comma-separated listener counts, one run each")
    parser.add_argument("--rolls", type=int, default=50)
    parser.add_argument("--interval-ms", type=int, default=500)
    parser.add_argument("--slow", type=int, default=600,
                        help="slow connections held during a last run at the most listeners")
    parser.add_argument("--deadline-s", type=float, default=120.0)
    parser.add_argument("--as-clients", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--as-siege", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    try:
        counts = [int(c) for c in args.clients.split(",")]
    except ValueError:
        parser.error(f"--clients: expected counts such as 200,500, got {args.clients!r}")
    if not all(1 <= c <= CLIENT_LIMIT for c in counts) or not 1 <= args.rolls <= 1000 \
            or not 0 <= args.slow <= 2000:
        parser.error(f"--clients 1 to {CLIENT_LIMIT}, --rolls 1 to 1000, --slow 0 to 2000")
    if args.as_clients is not None:
        run_clients(args.as_clients, counts[0], args.rolls, args.deadline_s)
        return 0
    if args.as_siege is not None:
        run_siege(args.as_siege, args.slow, args.deadline_s)
        return 0
    # The page as the service runs it: its budgets are fitted to this limit.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(SERVICE_NOFILE, hard), hard))
    interval = args.interval_ms / 1000
    baseline = measure(1, min(args.rolls, 10), interval, args.deadline_s)
    report("baseline", baseline)
    runs = [measure(c, args.rolls, interval, args.deadline_s) for c in counts]
    if args.slow:
        runs.append(measure(max(counts), args.rolls, interval, args.deadline_s, args.slow))
    failed = False
    for f in runs:
        report("loaded", f)
    for f in runs:
        p99 = f.percentile(0.99)
        held = f" with {f.slow} slow" if f.slow else ""
        print(f"{f.clients} listeners{held}: p99 {p99:.1f} ms against a target below"
              f" {P99_LIMIT_MS:.0f} ms ({p99 / max(0.001, baseline.percentile(0.99)):.1f}x"
              " the one-client p99)")
        if f.missed or len(f.latencies_ms) < f.clients * f.rolls:
            print(f"FAIL: {f.missed} of {f.clients} clients missed a roll", file=sys.stderr)
            failed = True
        if p99 >= P99_LIMIT_MS:
            print(f"FAIL: p99 {p99:.1f} ms >= {P99_LIMIT_MS:.0f} ms", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
