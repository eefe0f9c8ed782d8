"""Soak: the simulated box through 100,000 presses, and its resident memory on the way.

The whole box as it ships (the simulator on its fake clock, the default config, a session
store in a temporary directory) is pressed 100,000 times, with holds, menu walks, encoder
turns, new games and ended games mixed in at random. Resident memory is printed at 1,000
presses and at every 10,000, with its anonymous part (what the process allocated itself:
the C heap, Python's arenas) and the C heap's own figures where glibc gives them. The
baseline is this run's figure at 20,000 presses, when every cache and every bounded
recorder has filled: the run fails (exit 1) if the anonymous memory grows by more than
1 MB from there to the end. Growth is judged on the anonymous part because the rest of
the resident set is the program's files (libraries, fonts) mapped from the page cache,
which the kernel drops and reads again as other programs need memory, by megabytes up or
down with no change in the box. The fakes' own records (the mock pins' states, the I2C
transfers) are printed too: they must stay bounded.

Run: .venv/bin/python -m benchmarks.bench_soak [--presses N] [--seed S]
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import random
import resource
import sys
import tempfile
import time
from collections.abc import Callable

from pitable.box.controller import Phase
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.config import DEFAULTS
from pitable.hw.entropy import SeededSource

#: Where memory is measured, in presses: once the box has warmed up, then every 10,000.
CHECKPOINTS = (1_000, *range(10_000, 100_001, 10_000))
#: The baseline: by then every cache and bounded record is full.
SETTLED = 20_000
MOST_GROWTH = 1 << 20


def rss_bytes() -> int:
    """Resident memory now: /proc/self/statm where there is one, else the peak so far."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def anonymous_bytes() -> int | None:
    """The anonymous part of the resident memory (RssAnon in /proc/self/status), or None
    where the system does not say."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2``."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def c_heap() -> tuple[int, int] | None:
    """glibc's heap: the bytes it holds from the system and those of them in use
    (``mallinfo2``, glibc 2.33 and later), or None elsewhere."""
    try:
        mallinfo2 = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):
        return None
    mallinfo2.restype = MallInfo2
    info = mallinfo2()
    return info.arena + info.hblkhd, info.uordblks + info.hblkhd


def recorder_sizes(sim: Simulator) -> dict[str, int]:
    """How much each of the simulator's fake recorders holds now."""
    pins = [getattr(pin, "states", []) for pin in sim.fakes.factory.pins.values()]
    buses = sim.fakes.i2c.buses.values()
    return {
        "pin states": max((len(states) for states in pins), default=0),
        "i2c transfers kept": max((sum(1 for _ in bus.transfers) for bus in buses), default=0),
        "gif frames": len(sim.frames),
    }


def choose(sim: Simulator, label: str) -> None:
    """In the open menu, turn to the first item starting with ``label`` and push."""
    view = sim.box.menus.view()
    index = next(i for i, item in enumerate(view.items) if item.startswith(label))
    sim.turn(index - view.selected)
    sim.push()


def close_menus(sim: Simulator) -> None:
    while sim.box.phase is Phase.MENU:
        view = sim.box.menus.view()
        if any(item == "Back" for item in view.items):
            choose(sim, "Back")
        else:  # the score entry: a push confirms it
            sim.push()


def menu_walk(sim: Simulator, rng: random.Random) -> None:
    sim.hold()
    for _ in range(rng.randint(1, 4)):
        sim.turn(rng.choice((-2, -1, 1, 2)))
    close_menus(sim)


def new_game(sim: Simulator, rng: random.Random) -> None:
    sim.hold()
    choose(sim, "New game")
    sim.turn(rng.randint(-6, 6))
    sim.push()
    close_menus(sim)


def end_game(sim: Simulator, rng: random.Random) -> None:
    sim.hold()
    if not any(item.startswith("End game") for item in sim.box.menus.view().items):
        close_menus(sim)  # this game has ended already: the next press starts one
        return
    choose(sim, "End game")
    if sim.box.phase is Phase.MENU:  # a solo game: enter its score
        sim.turn(rng.randint(0, 120))
        sim.push()
    close_menus(sim)


def soak(
    presses: int,
    state_dir: str,
    *,
    seed: int = 2026,
    at: Callable[[int, Simulator], None] | None = None,
) -> Simulator:
    """Press the simulated box ``presses`` times with the rest mixed in; ``at`` is called
    after each press with the count so far. Returns the simulator, still open."""
    rng = random.Random(seed)
    store = SessionStore.open(state_dir)
    sim = Simulator(DEFAULTS, entropy=SeededSource(seed), store=store)
    done = 0
    while done < presses:
        r = rng.random()
        if r < 0.01:
            menu_walk(sim, rng)
        elif r < 0.02:
            sim.turn(rng.choice((-1, 1)))
        elif r < 0.025:
            new_game(sim, rng)
        elif r < 0.03:
            end_game(sim, rng)
        else:
            sim.press()
            done += 1
            if at is not None:
                at(done, sim)
    return sim


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=CHECKPOINTS[-1])
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if args.presses < 1:
        parser.error(f"--presses must be at least 1, not {args.presses}")
    checkpoints = [n for n in CHECKPOINTS if n < args.presses] + [args.presses]
    memory: dict[int, int] = {}
    started = time.perf_counter()

    def at(done: int, sim: Simulator) -> None:
        if done not in checkpoints:
            return
        gc.collect()
        rss, anon, heap = rss_bytes(), anonymous_bytes(), c_heap()
        memory[done] = anon if anon is not None else rss
        figures = [f"RSS {rss / 2**20:7.2f} MB"]
        if anon is not None:
            figures.append(f"anonymous {anon / 2**20:6.2f} MB")
        if heap is not None:
            figures.append(f"C heap {heap[0] / 2**20:5.2f} MB ({heap[1] / 2**20:5.2f} in use)")
        sizes = ", ".join(f"{k} {v}" for k, v in recorder_sizes(sim).items())
        print(f"{done:>7} presses  {'  '.join(figures)}"
              f"  {time.perf_counter() - started:6.0f} s  ({sizes})", flush=True)

    print(f"soak: {args.presses} presses on the simulated box, default config, with a store")
    # The store commits every roll with a full sync: on tmpfs, where there is one, the run
    # measures the box rather than the disk.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=shm) as state_dir:
        soak(args.presses, state_dir, seed=args.seed, at=at).close()
    print(f"took {time.perf_counter() - started:.0f} s")
    if args.presses <= SETTLED:
        print(f"growth: not judged (the baseline is at {SETTLED} presses)")
        return 0
    what = "anonymous memory" if anonymous_bytes() is not None else "RSS"
    growth = max(memory[n] for n in checkpoints if n >= SETTLED) - memory[SETTLED]
    ok = growth <= MOST_GROWTH
    print(f"{what} growth from {SETTLED} to {args.presses} presses: {growth / 1024:.0f} kB"
          f" (at most {MOST_GROWTH // 1024} kB): {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
