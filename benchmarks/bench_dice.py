"""Rolls per second and entropy bytes per roll, against baselines measured in the same run.

The box draws one roll per press and ``pitable roll --count`` draws in batches, so each
path is compared with a baseline on the same path: one read per byte against one read
per byte, blocks against blocks.

Run: .venv/bin/python -m benchmarks.bench_dice [--rolls N]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import secrets
import subprocess
import sys
import time
from collections.abc import Callable

from pitable.hw.entropy import DrbgSource, HwrngSource, OsSource
from pitable.rules import draw_roll, draw_rolls
from pitable.rules.dice import OUTCOMES

MIN_BYTES_PER_ROLL = math.log2(OUTCOMES) / 8  # 0.969: no exact scheme can do better on average


class Counting:
    """Counts the bytes a sampler takes from a source."""

    def __init__(self, source: OsSource | DrbgSource) -> None:
        self.source = source
        self.bytes = 0

    def read(self, n: int) -> bytes:
        self.bytes += n
        return self.source.read(n)


def per_die_rejection(source: Counting, count: int) -> None:
    """Baseline, one roll at a time: one byte a die, rejecting 252..255 (the textbook
    exact method), one read a byte, as a box would read it per press."""
    for _ in range(count):
        for _die in range(3):
            while source.read(1)[0] >= 252:
                pass


def per_die_rejection_batch(source: Counting, count: int) -> list[int]:
    """Baseline, in batches: the same rule on blocks of bytes, as many as dice still wanted."""
    faces: list[int] = []
    while len(faces) < 3 * count:
        block = source.read(3 * count - len(faces))
        faces.extend(v % 6 for v in block if v < 252)
    return faces


def secrets_randbelow(count: int) -> None:
    """Baseline, one roll at a time: the standard library's exact sampler, three calls."""
    for _ in range(count):
        secrets.randbelow(6), secrets.randbelow(6), secrets.randbelow(6)


def one_at_a_time(source: Counting, count: int) -> None:
    """pitable's path for a press of ROLL: one roll, a byte a try."""
    for _ in range(count):
        draw_roll(source)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rolls", type=int, default=200_000)
    n = parser.parse_args().rolls

    raw = HwrngSource.from_bytes(random.Random(1).randbytes(1 << 22))
    drbg = DrbgSource(raw)

    # Like with like: the one-roll path (a press of ROLL) against other one-roll methods,
    # and the batch path (`pitable roll --count`) against a batch of the per-die method.
    one = Counting(OsSource())
    t_one = timed(lambda: one_at_a_time(one, n))
    one_drbg = Counting(drbg)
    t_one_drbg = timed(lambda: one_at_a_time(one_drbg, n))
    base_one = Counting(OsSource())
    t_base_one = timed(lambda: per_die_rejection(base_one, n))
    t_secrets = timed(lambda: secrets_randbelow(n))

    batch = Counting(OsSource())
    t_batch = timed(lambda: draw_rolls(batch, n))
    batch_drbg = Counting(drbg)
    t_batch_drbg = timed(lambda: draw_rolls(batch_drbg, n))
    base_batch = Counting(OsSource())
    t_base_batch = timed(lambda: per_die_rejection_batch(base_batch, n))

    print(f"{n} rolls; minimum possible {MIN_BYTES_PER_ROLL:.3f} bytes a roll (log2(216)/8)")
    sections: list[tuple[str, list[tuple[str, float, float | None]]]] = [
        ("one roll at a time (the box, a press of ROLL)", [
            ("pitable: one byte a try, 216 of 256 kept", t_one, one.bytes / n),
            ("pitable via HMAC_DRBG (sampler bytes)", t_one_drbg, one_drbg.bytes / n),
            ("baseline: one byte a die, 252 of 256 kept", t_base_one, base_one.bytes / n),
            ("baseline: secrets.randbelow(6) x 3", t_secrets, None),
        ]),
        ("in batches (pitable roll --count)", [
            ("pitable: blocks, 216 of 256 kept", t_batch, batch.bytes / n),
            ("pitable via HMAC_DRBG (sampler bytes)", t_batch_drbg, batch_drbg.bytes / n),
            ("baseline: blocks, one byte a die, 252 kept", t_base_batch, base_batch.bytes / n),
        ]),
    ]
    for heading, rows in sections:
        print(heading)
        print(f"  {'sampler':<44}{'rolls/s':>12}{'bytes/roll':>12}{'vs min':>8}")
        for name, t, b in rows:
            used = f"{b:.3f}" if b is not None else "-"
            ratio = f"{b / MIN_BYTES_PER_ROLL:.2f}x" if b is not None else "-"
            print(f"  {name:<44}{n / t:>12,.0f}{used:>12}{ratio:>8}")
    print(f"hardware bytes per roll through the DRBG: {drbg.raw_bytes_used / (2 * n):.4f}"
          f" (48 raw bytes reseed every 1024 generated)")
    print(f"one roll at a time, against the per-die baseline: {t_base_one / t_one:.1f}x the"
          f" speed; in batches: {t_base_batch / t_batch:.1f}x;"
          f" entropy saved: {1 - one.bytes / base_one.bytes:.0%}")

    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pitable", "roll", "--count", "100000"],
        stdout=subprocess.DEVNULL, check=True, env={**os.environ},
    )
    print(f"`pitable roll --count 100000` (default /dev/hwrng or its fallback):"
          f" {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
