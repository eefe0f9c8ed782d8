"""Start-up CPU time of ``pitable options`` against a bare ``import pitable.rules``.

Run: .venv/bin/python -m benchmarks.bench_startup [--runs N]

Each figure is the least CPU time (user + system) of a child process over N runs, read
from the kernel's accounting of that one child (``os.wait4``): CPU time rather than wall
time, and the best run rather than the median, because a loaded machine only ever adds to
a run (cache misses, a preempted child), so the least is the figure its load disturbs
least. The commands take turns, run after run, so that a change in the machine's load falls
on both sides alike.

Both sides run with the same interpreter flags, twice over:

- ``-S -E``: no ``site`` and no PYTHON* variables, from the repository's root. This is the
  start-up of Python and pitable alone; the target (options at most 1.3 times the rules)
  is checked on it.
- no flags: as a user's shell runs it. ``site`` then does the same work on both sides
  (a ``.pth`` file that imports certifi, an editable install's finder), which narrows the
  ratio without telling anything about pitable: it is printed, not checked.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.3

OPTIONS = ["-m", "pitable", "options", "valley", "1,2,3"]
RULES = ["-c", "import pitable.rules"]
NOTHING = ["-c", "pass"]


def cpu_seconds(args: list[str]) -> float:
    """The user + system CPU time of one run of ``python ARGS``; fails if it fails."""
    child = subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    stderr = child.stderr.read() if child.stderr else b""
    if child.stderr:
        child.stderr.close()
    if child.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed: {stderr.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime


def best_of(flags: list[str], runs: int) -> dict[str, float]:
    """The least CPU seconds of each command, run ``runs`` times each, taking turns."""
    commands = {"options": OPTIONS, "rules": RULES, "nothing": NOTHING}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for args in commands.values():  # a first run each, not counted: fills the caches
        cpu_seconds([*flags, *args])
    for _ in range(runs):
        for name, args in commands.items():
            times[name].append(cpu_seconds([*flags, *args]))
    return {name: min(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40, help="runs of each command (40)")
    runs = parser.parse_args().runs
    print(f"python {sys.version.split()[0]} ({sys.executable}); best of {runs} runs,"
          " user + system CPU of the child")
    met = True
    for flags, checked in ((["-S", "-E"], True), ([], False)):
        m = best_of(flags, runs)
        ratio = m["options"] / m["rules"]
        shown = " ".join(flags) or "no flags"
        print(f"\n{shown}:")
        print(f"  python -c pass                       {m['nothing'] * 1000:7.1f} ms")
        print(f"  python -c 'import pitable.rules'     {m['rules'] * 1000:7.1f} ms")
        print(f"  python -m pitable options valley ... {m['options'] * 1000:7.1f} ms")
        if checked:
            verdict = "met" if ratio <= TARGET else "NOT met"
            print(f"  options / rules: {ratio:.2f}x (target at most {TARGET}x: {verdict})")
            met = met and ratio <= TARGET
        else:
            print(f"  options / rules: {ratio:.2f}x (site's work on both sides: not checked)")
    raise SystemExit(0 if met else 1)


if __name__ == "__main__":
    main()
