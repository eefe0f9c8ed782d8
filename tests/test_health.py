"""The health tests: SP 800-90B's continuous tests, the start-up and periodic block tests."""

from __future__ import annotations

import itertools
import math
import os
import random
from collections import Counter
from collections.abc import Callable

import pytest

from pitable.errors import HealthTestFailure
from pitable.hw.health import (
    BLOCK,
    DEFLATE_WINDOW,
    MAX_LAG,
    HealthMonitor,
    apt_cutoff,
    bit_cutoff,
    complexity_cutoff,
    complexity_tail,
    deflate_cutoff,
    false_alarms,
    lag_cutoff,
    linear_complexity,
    rct_cutoff,
)
from tests.support.entropy import good_bytes
from tests.support.entropy_faults import (
    counter,
    few_values,
    half_patterned,
    lfsr,
    noisy_pattern,
    repeating,
    replayed,
    xorshift,
)


@pytest.mark.parametrize(("h", "cutoff"), [(0.5, 410), (1, 311), (2, 177), (4, 62), (8, 13)])
def test_apt_cutoffs_match_sp800_90b_table_2(h: float, cutoff: int) -> None:
    """SP 800-90B, Table 2: APT cut-offs for W = 512 and alpha = 2^-20."""
    assert apt_cutoff(h) == cutoff


@pytest.mark.parametrize(("h", "cutoff"), [(1, 21), (2, 11), (4, 6), (6, 5), (8, 4)])
def test_rct_cutoff_is_one_plus_ceil_20_over_h(h: float, cutoff: int) -> None:
    assert rct_cutoff(h) == cutoff


def test_random_bytes_pass() -> None:
    monitor = HealthMonitor()
    for seed in range(8):
        monitor.check(good_bytes(16 * 1024, seed))
    assert monitor.failure is None


def test_a_stuck_source_of_zeros_fails_the_repetition_count_test() -> None:
    monitor = HealthMonitor()
    with pytest.raises(HealthTestFailure, match="repetition count"):
        monitor.check(bytes(512))


def test_a_run_split_across_reads_is_still_counted() -> None:
    monitor = HealthMonitor()
    monitor.check(good_bytes(100, 1) + b"\xaa\xaa\xaa")
    with pytest.raises(HealthTestFailure, match="0xaa repeated 5"):
        monitor.check(b"\xaa\xaa" + good_bytes(10, 1))


@pytest.mark.parametrize(
    "pattern", [b"\x01\x02\x03\x04", b"\xde\xad\xbe\xef" * 2, bytes(range(16))]
)
def test_a_repeating_byte_pattern_fails_the_adaptive_proportion_test(pattern: bytes) -> None:
    monitor = HealthMonitor()
    with pytest.raises(HealthTestFailure, match="adaptive proportion"):
        monitor.check(pattern * (2048 // len(pattern)))


def test_one_value_overrepresented_fails_the_apt_without_long_runs() -> None:
    """A biased source: every other byte is 0x55, never two in a row."""
    rng = random.Random(3)
    data = bytes(b for i in range(1024) for b in ((0x55,) if i % 2 == 0 else
                 (rng.choice([v for v in range(256) if v != 0x55]),)))
    monitor = HealthMonitor()
    with pytest.raises(HealthTestFailure, match="adaptive proportion"):
        monitor.check(data)


def test_a_failure_is_final() -> None:
    monitor = HealthMonitor()
    with pytest.raises(HealthTestFailure):
        monitor.check(bytes(10))
    with pytest.raises(HealthTestFailure):
        monitor.check(good_bytes(512, 1))


def test_min_entropy_must_be_a_byte_claim() -> None:
    with pytest.raises(ValueError, match="min-entropy"):
        HealthMonitor(min_entropy=9)


# --- sources a broken chip or an attacker gives ------------------------------------------


#: name -> (the bytes, the block by which the tests must have failed: 0 is the start-up
#: test). Each is a class of faults: the tests must catch every member, not one example.
HOSTILE: dict[str, tuple[Callable[[], bytes], int]] = {
    "counter 0..255": (lambda: counter(8 * BLOCK), 0),
    "period 64": (lambda: repeating(64, 8 * BLOCK), 0),
    "a 32-byte block repeated": (lambda: repeating(32, 8 * BLOCK, seed=9), 0),
    **{f"period {p}": ((lambda p=p: repeating(p, p + 4 * BLOCK)), p // BLOCK + 1)
       for p in (22, 23, 100, 255, 257, 700, 1000, 1500, 4096, 10_007, DEFLATE_WINDOW - BLOCK)},
    "counter with a random start and step 7": (
        lambda: bytes((91 + 7 * i) & 0xFF for i in range(4 * BLOCK)), 0),
    "two interleaved counters": (
        lambda: bytes((i // 2 if i % 2 else 200 - i // 2) & 0xFF for i in range(4 * BLOCK)), 0),
    **{f"bit {j} stuck at {v}": (
        (lambda j=j, v=v: bytes((b | 1 << j) if v else (b & ~(1 << j) & 0xFF)
                                for b in random.Random(j).randbytes(4 * BLOCK))), 0)
       for j in range(8) for v in (0, 1)},
    "5 bits a byte (32 values)": (lambda: few_values(5, 4 * BLOCK), 0),
    "4 bits a byte (16 values)": (lambda: few_values(4, 4 * BLOCK), 0),
    "32-bit LFSR": (lambda: lfsr(4 * BLOCK), 0),
    "xorshift32": (lambda: xorshift(4 * BLOCK), 0),
    **{f"period {p}, beyond zlib's window": ((lambda p=p: repeating(p, p + 8 * BLOCK)),
                                             p // BLOCK + 8)
       for p in (DEFLATE_WINDOW + 1, 100_000, 200_003)},
    "good, then a 40 kB recording of itself played again": (
        lambda: replayed(40 * BLOCK, 40 * BLOCK), 48),
    "a counter in every other byte": (lambda: half_patterned(4 * BLOCK), 0),
    "a counter in every fourth byte": (lambda: half_patterned(4 * BLOCK, every=4), 1),
    "period 300 with half its bytes noise": (lambda: noisy_pattern(300, 4 * BLOCK), 0),
    "period 1000 with half its bytes noise": (lambda: noisy_pattern(1000, 4 * BLOCK), 1),
    "good, then zeros": (lambda: os.urandom(3 * BLOCK) + bytes(BLOCK), 3),
    "good, then a counter": (lambda: os.urandom(3 * BLOCK + 100) + counter(3 * BLOCK), 4),
    "good, then its own first 2 kB again": (lambda: replayed(5 * BLOCK, 2 * BLOCK), 5),
    "good, then a stuck bit": (
        lambda: os.urandom(2 * BLOCK) + bytes(b & 0xFE for b in os.urandom(2 * BLOCK)), 2),
}


def blocks_before_failure(data: bytes) -> int:
    """Feeds ``data`` one block at a time, as the dice's source reads it."""
    monitor = HealthMonitor()
    for start in range(0, len(data), BLOCK):
        try:
            monitor.check(data[start:start + BLOCK])
        except HealthTestFailure:
            return start // BLOCK
    pytest.fail(f"passed all {monitor.blocks_passed} blocks")


@pytest.mark.parametrize("name", HOSTILE)
def test_each_class_of_bad_source_fails_by_its_block(name: str) -> None:
    make, by = HOSTILE[name]
    assert blocks_before_failure(make()) <= by


def test_the_first_block_is_the_start_up_test_and_later_ones_the_periodic_test() -> None:
    monitor = HealthMonitor()
    with pytest.raises(HealthTestFailure, match=r"^start-up compression test"):
        monitor.check(counter(BLOCK))
    assert not monitor.started
    monitor = HealthMonitor()
    monitor.check(os.urandom(BLOCK))
    assert monitor.started and monitor.blocks_passed == 1
    with pytest.raises(HealthTestFailure, match=r"^periodic compression test"):
        monitor.check(counter(BLOCK))


def test_bytes_of_an_unfinished_block_wait_for_the_block_tests() -> None:
    monitor = HealthMonitor()
    monitor.check(counter(BLOCK - 1))  # no run, no heavy value: the continuous tests pass
    with pytest.raises(HealthTestFailure, match="compression"):
        monitor.check(counter(1))


def test_urandom_passes() -> None:
    monitor = HealthMonitor()
    monitor.check(os.urandom(64 * BLOCK))
    assert monitor.blocks_passed == 64


# --- the cut-offs and their false alarm rates, computed ---------------------------------


@pytest.mark.parametrize("h", [0.5, 1, 3, 6, 7.5, 8])
def test_the_deflate_cut_off_is_the_largest_size_within_alpha(h: float) -> None:
    def log2_bound(m: int) -> float:  # log2 of 256^(m+1)/255 * 2^(-h*n)
        return 8 * (m + 1) - math.log2(255) - h * BLOCK

    m = deflate_cutoff(h)
    assert log2_bound(m) <= -20 < log2_bound(m + 1)


def test_the_bit_cut_off_is_the_largest_count_within_alpha() -> None:
    k = bit_cutoff()

    def tail(j: int) -> float:  # P(X <= j), X ~ Bin(BLOCK, 1/2)
        return sum(math.comb(BLOCK, i) for i in range(j + 1)) / 2**BLOCK

    assert 16 * tail(k) <= 2**-24 < 16 * tail(k + 1)


def test_the_lag_cut_off_is_the_fewest_equal_pairs_within_alpha() -> None:
    c = lag_cutoff()

    def tail(j: int) -> float:  # P(X >= j), X ~ Bin(BLOCK, 1/256), as a float
        return sum(math.comb(BLOCK, i) * 255 ** (BLOCK - i)
                   for i in range(j, BLOCK + 1)) / 256**BLOCK

    assert MAX_LAG * tail(c) <= 2**-24 < MAX_LAG * tail(c - 1)


def test_the_complexity_cut_off_is_the_largest_length_within_alpha() -> None:
    t = complexity_cutoff()
    assert 8 * complexity_tail(BLOCK, t) <= 2**-24 < 8 * complexity_tail(BLOCK, t + 1)


def brute_linear_complexity(seq: tuple[int, ...]) -> int:
    """The shortest L with a recurrence s_i = sum c_j s_(i-j), j = 1..L, for every i >= L."""
    n = len(seq)
    for length in range(n + 1):
        for taps in itertools.product((0, 1), repeat=length):
            if all(sum(taps[j] * seq[i - 1 - j] for j in range(length)) % 2 == seq[i]
                   for i in range(length, n)):
                return length
    return n


def test_linear_complexity_matches_a_brute_force_search_and_rueppel_counts() -> None:
    n = 9
    counts: Counter[int] = Counter()
    for seq in itertools.product((0, 1), repeat=n):
        bits = int("".join(map(str, seq)), 2)
        found = linear_complexity(bits, n)
        assert found == brute_linear_complexity(seq), seq
        counts[found] += 1
    for length in range(n // 2 + 1):
        assert counts[length] == (1 if length == 0 else 2 ** (2 * length - 1))
    assert sum(counts.values()) == 2**n


def test_linear_complexity_of_an_lfsr_is_its_degree() -> None:
    # x^32 + ... : each output bit position of lfsr() repeats with the LFSR's recurrence.
    data = lfsr(BLOCK)
    bits = int("".join(str(b >> 3 & 1) for b in data), 2)
    assert linear_complexity(bits, BLOCK) == 32


def test_the_false_alarm_rate_a_block_is_below_two_to_the_minus_21() -> None:
    rates = false_alarms()
    assert rates["any"] == pytest.approx(sum(v for k, v in rates.items() if k != "any"))
    assert all(rates[test] <= 2**-24 for test in ("bits", "linear complexity", "lags"))
    assert rates["repetition count"] == BLOCK * 2.0**-32
    assert rates["any"] < 2**-21


@pytest.mark.slow
def test_urandom_gives_no_false_alarm_in_4000_blocks() -> None:
    """4 MB of /dev/urandom, 4000 blocks, each judged by a fresh monitor as at a start:
    at the rate false_alarms() computes, one alarm or more is expected in 1 run of 690."""
    alarms = []
    for i in range(4000):
        try:
            HealthMonitor().check(os.urandom(BLOCK))
        except HealthTestFailure as exc:
            alarms.append(f"block {i}: {exc}")
    assert alarms == []


@pytest.mark.slow
def test_the_computed_tails_match_what_urandom_gives_at_a_looser_alpha() -> None:
    """The tail formulas of the bit and complexity tests, checked against urandom at
    alpha = 2^-6 a block, where failures are common enough to count (1500 blocks)."""
    blocks = 1500
    k = bit_cutoff(BLOCK, 6)
    t = complexity_cutoff(BLOCK, 6)
    bit_fails = complexity_fails = 0
    tables = [bytes(0x31 if v >> j & 1 else 0x30 for v in range(256)) for j in range(8)]
    for _ in range(blocks):
        data = os.urandom(BLOCK)
        sequences = [data.translate(table) for table in tables]
        bit_fails += any(c <= k or c >= BLOCK - k for c in (s.count(b"1") for s in sequences))
        complexity_fails += any(linear_complexity(int(s, 2), BLOCK) <= t for s in sequences)
    for fails, p in ((bit_fails, 16 * sum(math.comb(BLOCK, i) for i in range(k + 1)) / 2**BLOCK),
                     (complexity_fails, 8 * complexity_tail(BLOCK, t))):
        # The union bound is close to exact at these rates; 5 standard deviations either way.
        mean = blocks * p
        assert abs(fails - mean) <= 5 * math.sqrt(mean) + 1, (fails, mean)
