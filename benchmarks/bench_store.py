"""What the per-roll commit costs: time per roll with and without the session store.

    python benchmarks/bench_store.py [--rolls 500] [--dir DIR] [--press-to-faces-ms MS]

Each measured roll is what the controller does on a press, short of drawing: draw a roll
from the OS generator and fold it into the game by the rules; the store run also records
it (one transaction, WAL, synchronous=FULL: an fsync per roll). The two runs alternate
roll by roll, so that both see the same machine state, and the difference of their means
is the commit's cost. Its share of the press-to-faces time (by default the box's tumble
animation, ``box.tumble_ms``) says whether the commit can hide behind the animation.

Run it where the box keeps its state (``--dir``): a tmpfs such as /tmp on many systems
never reaches a disk, and an SD card on a Pi is much slower than an SSD.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from pitable.box.store import SessionStore
from pitable.config import BoxConfig
from pitable.hw.entropy import OsSource
from pitable.rules import draw_roll, find_title
from pitable.rules.session import GameState, Mode


def filesystem(path: Path) -> str:
    """The filesystem type that holds ``path``, from /proc/mounts (Linux), else '?'."""
    try:
        mounts = [line.split() for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return "?"
    best = ("", "?")
    resolved = str(path.resolve())
    for fields in mounts:
        point, kind = fields[1], fields[2]
        inside = resolved == point or resolved.startswith(point.rstrip("/") + "/")
        if inside and len(point) > len(best[0]):
            best = (point, kind)
    return best[1]


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18]


def run(rolls: int, directory: Path) -> tuple[list[float], list[float]]:
    source = OsSource()
    base_state = GameState(find_title("valley"), Mode.TABLE)
    with SessionStore.open(directory) as store:
        game = store.new_game("valley", Mode.TABLE)
        state = store.state(game.id)
        baseline: list[float] = []
        stored: list[float] = []
        for i in range(rolls + 20):
            t0 = time.perf_counter()
            roll, _ = draw_roll(source)
            base_state = base_state.play(roll).state
            t1 = time.perf_counter()
            roll, _ = draw_roll(source)
            turn = state.play(roll)
            store.record_roll(game.id, roll, source.name, turn.hazard, turn.state.hazards)
            state = turn.state
            t2 = time.perf_counter()
            if i >= 20:  # the first rolls warm the caches and create the WAL
                baseline.append((t1 - t0) * 1000)
                stored.append((t2 - t1) * 1000)
    return baseline, stored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=500)
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        help="where to put the database (default: a temporary directory here)",
    )
    parser.add_argument(
        "--press-to-faces-ms",
        type=float,
        default=float(BoxConfig().tumble_ms),
        help="the nominal time from a press to the faces (default: box.tumble_ms)",
    )
    args = parser.parse_args()

    made = args.dir is None
    directory = Path(tempfile.mkdtemp(prefix="bench_store-", dir=".")) if made else args.dir
    try:
        baseline, stored = run(args.rolls, directory)
    finally:
        if made:
            shutil.rmtree(directory)

    kind = filesystem(directory if not made else Path("."))
    print(f"{args.rolls} rolls, database on {kind} ({os.fspath(directory)})")
    if kind in ("tmpfs", "ramfs"):
        print("warning: a RAM filesystem: the fsync of each commit costs nothing here")
    print(f"{'':24}{'mean ms':>10}{'p95 ms':>10}")
    rows = [("roll, no store", baseline), ("roll + record_roll", stored)]
    for name, values in rows:
        print(f"{name:24}{statistics.fmean(values):>10.3f}{p95(values):>10.3f}")
    commit = [s - b for s, b in zip(stored, baseline, strict=True)]
    mean_cost = statistics.fmean(stored) - statistics.fmean(baseline)
    p95_cost = p95(stored) - p95(baseline)
    print(f"{'commit cost':24}{mean_cost:>10.3f}{p95_cost:>10.3f}")
    print(f"worst commit: {max(commit):.3f} ms")
    nominal = args.press_to_faces_ms
    print(
        f"share of a {nominal:.0f} ms press-to-faces: {100 * mean_cost / nominal:.2f}% mean,"
        f" {100 * p95_cost / nominal:.2f}% at p95"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
