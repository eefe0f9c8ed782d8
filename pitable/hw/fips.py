"""The FIPS 140-2 statistical random number generator tests on one 20 000-bit block.

FIPS 140-2 (section 4.9.1, as first published) asked a generator's output to pass four
tests on a block of 20 000 bits: the monobit, poker, runs and long run tests. They were
dropped from the standard in 2002 as a power-up self-test, but they remain a quick, cheap
sign of a broken source (rng-tools' ``rngtest`` still runs them), which is what
``pitable doctor`` wants of /dev/hwrng on top of the SP 800-90B health tests of
:mod:`pitable.hw.health`. Bits are taken most significant first within each byte.
"""

from __future__ import annotations

import itertools
from collections import Counter

BLOCK_BITS = 20_000
BLOCK_BYTES = BLOCK_BITS // 8
#: Passes when the count of ones lies strictly between these.
MONOBIT_BOUNDS = (9725, 10275)
#: Passes when the poker statistic lies strictly between these.
POKER_BOUNDS = (2.16, 46.17)
#: Run length (6 stands for 6 or more) -> the inclusive interval each of the counts of
#: runs of zeros and of ones must fall in.
RUN_BOUNDS = {
    1: (2315, 2685),
    2: (1114, 1386),
    3: (527, 723),
    4: (240, 384),
    5: (103, 209),
    6: (103, 209),
}
#: A run of this many equal bits or more fails the long run test.
LONG_RUN = 26


def _bits(block: bytes) -> str:
    if len(block) != BLOCK_BYTES:
        raise ValueError(f"expected a block of {BLOCK_BYTES} bytes, got {len(block)}")
    return "".join(f"{byte:08b}" for byte in block)


def monobit(block: bytes) -> str | None:
    """None when the block passes; else why it failed."""
    ones = _bits(block).count("1")
    low, high = MONOBIT_BOUNDS
    if low < ones < high:
        return None
    return f"monobit test: {ones} ones in {BLOCK_BITS} bits (expected {low + 1} to {high - 1})"


def poker_statistic(block: bytes) -> float:
    """X = 16/5000 * sum of the squared counts of each 4-bit value - 5000."""
    _bits(block)  # the length check
    counts: Counter[int] = Counter()
    for byte in block:
        counts[byte >> 4] += 1
        counts[byte & 0x0F] += 1
    segments = BLOCK_BITS // 4
    return 16 / segments * sum(c * c for c in counts.values()) - segments


def poker(block: bytes) -> str | None:
    x = poker_statistic(block)
    low, high = POKER_BOUNDS
    if low < x < high:
        return None
    return f"poker test: X = {x:.2f} (expected between {low} and {high})"


def run_counts(block: bytes) -> dict[str, dict[int, int]]:
    """How many runs of each length (6 = 6 or more) of zeros and of ones the block has."""
    counts: dict[str, dict[int, int]] = {"0": dict.fromkeys(RUN_BOUNDS, 0),
                                         "1": dict.fromkeys(RUN_BOUNDS, 0)}
    for bit, group in itertools.groupby(_bits(block)):
        length = min(6, sum(1 for _ in group))
        counts[bit][length] += 1
    return counts


def runs(block: bytes) -> str | None:
    problems = []
    for bit, by_length in run_counts(block).items():
        for length, count in by_length.items():
            low, high = RUN_BOUNDS[length]
            if not low <= count <= high:
                name = f"{length}+" if length == 6 else str(length)
                problems.append(f"{count} runs of {name} {bit}s (expected {low} to {high})")
    if not problems:
        return None
    more = f"; and {len(problems) - 2} more" if len(problems) > 2 else ""
    return "runs test: " + "; ".join(problems[:2]) + more


def longest_run(block: bytes) -> int:
    return max(sum(1 for _ in group) for _, group in itertools.groupby(_bits(block)))


def long_run(block: bytes) -> str | None:
    longest = longest_run(block)
    if longest < LONG_RUN:
        return None
    return f"long run test: a run of {longest} equal bits (fails at {LONG_RUN})"


def failures(block: bytes) -> list[str]:
    """Every test the block fails, in the standard's order; empty when it passes all four."""
    return [f for test in (monobit, poker, runs, long_run) if (f := test(block)) is not None]
