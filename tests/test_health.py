"""SP 800-90B continuous health tests."""

from __future__ import annotations

import random

import pytest

from pitable.errors import HealthTestFailure
from pitable.hw.health import HealthMonitor, apt_cutoff, rct_cutoff


@pytest.mark.parametrize(("h", "cutoff"), [(0.5, 410), (1, 311), (2, 177), (4, 62), (8, 13)])
def test_apt_cutoffs_match_sp800_90b_table_2(h: float, cutoff: int) -> None:
    """SP 800-90B, Table 2: APT cut-offs for W = 512 and alpha = 2^-20."""
    assert apt_cutoff(h) == cutoff


@pytest.mark.parametrize(("h", "cutoff"), [(1, 21), (2, 11), (4, 6), (6, 5), (8, 4)])
def test_rct_cutoff_is_one_plus_ceil_20_over_h(h: float, cutoff: int) -> None:
    assert rct_cutoff(h) == cutoff


def good_bytes(n: int, seed: int = 1) -> bytes:
    return random.Random(seed).randbytes(n)


def test_random_bytes_pass() -> None:
    monitor = HealthMonitor()
    for seed in range(8):
        monitor.check(good_bytes(64 * 1024, seed))
    assert monitor.failure is None


def test_a_stuck_source_of_zeros_fails_the_repetition_count_test() -> None:
    monitor = HealthMonitor()
    with pytest.raises(HealthTestFailure, match="repetition count"):
        monitor.check(bytes(512))


def test_a_run_split_across_reads_is_still_counted() -> None:
    monitor = HealthMonitor()
    monitor.check(good_bytes(100) + b"\xaa\xaa\xaa")
    with pytest.raises(HealthTestFailure, match="0xaa repeated 5"):
        monitor.check(b"\xaa\xaa" + good_bytes(10))


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
        monitor.check(good_bytes(512))


def test_min_entropy_must_be_a_byte_claim() -> None:
    with pytest.raises(ValueError, match="min-entropy"):
        HealthMonitor(min_entropy=9)
