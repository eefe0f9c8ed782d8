"""The table's page under a full room: 200 event-stream clients, 50 rolls, on 127.0.0.1.

    python -m benchmarks.bench_web [--clients 200] [--rolls 50] [--interval-ms 500]

One simulated box serves its page on 127.0.0.1; a second process opens ``--clients``
connections to ``/api/events`` (plain asyncio sockets, so that the clients' own work does
not count as the server's memory) and notes when each event arrives. The box then rolls
``--rolls`` times, one roll every ``--interval-ms`` of real time (faster than a box rolls:
its tumble and the 1.5 s a result stays on the screens come first), and for every roll and
every client the latency is the time from the box publishing the final faces to that
client reading them (both on the machine's monotonic clock). It prints the median, the
99th percentile and the worst, against a baseline of one client measured in the same run,
and the server's memory per client (its resident set with every client connected, less
before). It exits 1 when the p99 is 250 ms or more or when a client missed a roll.

Everything is bounded: the clients give up after ``--deadline-s`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import re
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


# --- the clients (run in their own process) -----------------------------------------------


async def _client(port: int, rolls: int, arrivals: dict[int, float]) -> bool:
    """One listener: the arrival time of every final roll; True when it saw them all."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Accept: text/event-stream\r\n\r\n")
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        writer.close()
        return False
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


async def _clients(port: int, count: int, rolls: int, deadline_s: float) -> dict[str, Any]:
    arrivals: list[dict[int, float]] = [{} for _ in range(count)]
    tasks = [asyncio.create_task(_client(port, rolls, a)) for a in arrivals]
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


def measure(clients: int, rolls: int, interval_s: float, deadline_s: float) -> Figures:
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
    before = rss_kb()
    child = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_web", "--as-clients", str(server.port),
         "--clients", str(clients), "--rolls", str(rolls), "--deadline-s", str(deadline_s)],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent,
    )
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
    finally:
        if child.poll() is None:
            child.kill()
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
                   max(0, connected - before) / max(1, clients))


def report(name: str, f: Figures) -> None:
    # One client's share of the memory is lost in the noise of the first connection.
    memory = (f"; server memory {f.memory_per_client_kb:.0f} KB per client"
              if f.clients >= 50 else "")
    print(f"{name}: {f.clients} client(s), {f.rolls} rolls: final faces to each client's"
          f" event median {statistics.median(f.latencies_ms):.1f} ms,"
          f" p99 {f.percentile(0.99):.1f} ms, worst {max(f.latencies_ms):.1f} ms{memory};"
          f" clients that missed a roll: {f.missed}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--rolls", type=int, default=50)
    parser.add_argument("--interval-ms", type=int, default=500)
    parser.add_argument("--deadline-s", type=float, default=120.0)
    parser.add_argument("--as-clients", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.clients <= CLIENT_LIMIT or not 1 <= args.rolls <= 1000:
        parser.error(f"--clients 1 to {CLIENT_LIMIT}, --rolls 1 to 1000")
    if args.as_clients is not None:
        run_clients(args.as_clients, args.clients, args.rolls, args.deadline_s)
        return 0
    interval = args.interval_ms / 1000
    baseline = measure(1, min(args.rolls, 10), interval, args.deadline_s)
    report("baseline", baseline)
    loaded = measure(args.clients, args.rolls, interval, args.deadline_s)
    report("loaded", loaded)
    p99 = loaded.percentile(0.99)
    print(f"p99 {p99:.1f} ms against a target below {P99_LIMIT_MS:.0f} ms"
          f" ({p99 / max(0.001, baseline.percentile(0.99)):.1f}x the one-client p99)")
    if loaded.missed or len(loaded.latencies_ms) < loaded.clients * loaded.rolls:
        print("FAIL: a client missed a roll", file=sys.stderr)
        return 1
    if p99 >= P99_LIMIT_MS:
        print(f"FAIL: p99 {p99:.1f} ms >= {P99_LIMIT_MS:.0f} ms", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
