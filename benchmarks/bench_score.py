"""CPU time of ``pitable score`` on hostile sheets: one long token, at 8 kB and at 64 kB.

Run: .venv/bin/python -m benchmarks.bench_score [--runs N]

Each figure is the median CPU time (user + system) of a child process running ``pitable
score temple --sheet FILE``, read from the kernel's accounting of that one child
(``os.wait4``), less the median of the same command on a sheet of one bad character (the
start-up and the refusal, the same on both sides; a time below the spread of those runs
counts as that spread, their noise). Sheets of one token of digits and a
letter (a lazy pattern once backtracked on them quadratically: 17.6 s of CPU at 20,000
digits), of one long number and of short tokens are timed at 8 kB and 64 kB. Reading takes
time in proportion to the length, so eight times the bytes may cost at most eight times the
CPU, and some noise: the check fails above 12 times, or above a second of CPU for any sheet.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL, LARGE = 8 * 1024, 64 * 1024
MOST_RATIO = 12.0
MOST_SECONDS = 1.0

SHEETS = {
    "one token of digits and a letter": lambda size: "0" * (size - 2) + "a\n",
    "one number of digits": lambda size: "7" * (size - 1) + "\n",
    "short tokens, one row": lambda size: "1 " * (size // 2 - 1) + "\n",
}


def cpu_seconds(sheet: Path) -> float:
    """The user + system CPU time of one ``pitable score`` of ``sheet``."""
    child = subprocess.Popen(
        [sys.executable, "-m", "pitable", "score", "temple", "--sheet", str(sheet)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 2):
        raise SystemExit(f"pitable score {sheet} failed")
    return usage.ru_utime + usage.ru_stime


def median(sheet: Path, runs: int) -> float:
    return statistics.median(cpu_seconds(sheet) for _ in range(runs))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(prefix="pitable-bench-score-") as folder:
        nothing = Path(folder) / "nothing.txt"
        nothing.write_text("?\n")
        starts = [cpu_seconds(nothing) for _ in range(args.runs)]
        base = statistics.median(starts)
        # What the start-up's CPU time wanders by from run to run: a time below it, less
        # the start-up, is as much the start-up's noise as the sheet's reading.
        noise = max(1e-3, max(starts) - min(starts))
        print(f"start-up and a one-character sheet: {base * 1000:.1f} ms CPU"
              f" (spread {noise * 1000:.1f} ms)")
        for name, make in SHEETS.items():
            times = []
            for size in (SMALL, LARGE):
                path = Path(folder) / f"{size}.txt"
                path.write_text(make(size))
                times.append(max(0.0, median(path, args.runs) - base))
            small, large = times
            # Below the start-up's spread the ratio is noise: count it as that spread.
            ratio = max(large, noise) / max(small, noise)
            good = ratio <= MOST_RATIO and large <= MOST_SECONDS
            ok &= good
            print(f"{name}: {small * 1000:.1f} ms at 8 kB, {large * 1000:.1f} ms at 64 kB,"
                  f" x{ratio:.1f} for x8 the bytes {'ok' if good else 'TOO SLOW'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
