"""Rolls per second and entropy bytes per roll, against baselines measured in the same run.

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
from pitable.rules import draw_rolls
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
    """Baseline: one byte a die, rejecting 252..255 (the textbook exact method)."""
    for _ in range(count):
        for _die in range(3):
            while source.read(1)[0] >= 252:
                pass


def secrets_randbelow(count: int) -> None:
    """Baseline: the standard library's exact sampler, three calls a roll."""
    for _ in range(count):
        secrets.randbelow(6), secrets.randbelow(6), secrets.randbelow(6)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rolls", type=int, default=200_000)
    n = parser.parse_args().rolls

    ours = Counting(OsSource())
    t_ours = timed(lambda: draw_rolls(ours, n))
    raw = HwrngSource.from_bytes(random.Random(1).randbytes(1 << 20))
    drbg = DrbgSource(raw)
    via_drbg = Counting(drbg)
    t_drbg = timed(lambda: draw_rolls(via_drbg, n))
    base = Counting(OsSource())
    t_base = timed(lambda: per_die_rejection(base, n))
    t_secrets = timed(lambda: secrets_randbelow(n))

    print(f"{n} rolls; minimum possible {MIN_BYTES_PER_ROLL:.3f} bytes a roll (log2(216)/8)")
    print(f"{'sampler':<44}{'rolls/s':>12}{'bytes/roll':>12}{'vs min':>8}")
    rows: list[tuple[str, float, float | None]] = [
        ("pitable: one byte per roll, 216 of 256 kept", t_ours, ours.bytes / n),
        ("pitable via HMAC_DRBG (sampler bytes)", t_drbg, via_drbg.bytes / n),
        ("baseline: one byte per die, 252 of 256 kept", t_base, base.bytes / n),
        ("baseline: secrets.randbelow(6) x 3", t_secrets, None),
    ]
    for name, t, b in rows:
        used = f"{b:.3f}" if b is not None else "-"
        ratio = f"{b / MIN_BYTES_PER_ROLL:.2f}x" if b is not None else "-"
        print(f"{name:<44}{n / t:>12,.0f}{used:>12}{ratio:>8}")
    print(f"hardware bytes per roll through the DRBG: {drbg.raw_bytes_used / n:.4f}"
          f" (48 raw bytes reseed every 1024 generated)")
    print(f"speed-up over the per-die baseline: {t_base / t_ours:.1f}x;"
          f" entropy saved: {1 - ours.bytes / base.bytes:.0%}")

    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pitable", "roll", "--count", "100000"],
        stdout=subprocess.DEVNULL, check=True, env={**os.environ},
    )
    print(f"`pitable roll --count 100000` (default /dev/hwrng or its fallback):"
          f" {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
