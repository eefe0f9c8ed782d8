"""Entropy sources: the hardware generator, its DRBG, and the fallback to the OS."""

from __future__ import annotations

import io
import logging
import random
from pathlib import Path

import pytest

from pitable.errors import EntropyError, HealthTestFailure
from pitable.hw.entropy import (
    DrbgSource,
    FallbackSource,
    HmacDrbg,
    HwrngSource,
    OsSource,
    open_source,
)
from pitable.rules import draw_rolls


def good_bytes(n: int, seed: int = 7) -> bytes:
    return random.Random(seed).randbytes(n)


def test_hmac_drbg_matches_nist_cavp_vector() -> None:
    """CAVP HMAC_DRBG.rsp, [SHA-256], no reseed, no personalization, COUNT = 0."""
    drbg = HmacDrbg(
        bytes.fromhex("ca851911349384bffe89de1cbdc46e6831e44d34a4fb935ee285dd14b71a7488"),
        bytes.fromhex("659ba96c601dc69fc902940805ec0ca8"),
    )
    drbg.generate(128)
    assert drbg.generate(128).hex() == (
        "e528e9abf2dece54d47c7e75e5fe302149f817ea9fb4bee6f4199697d04d5b89"
        "d54fbb978a15b5c443c9ec21036d2460b6f73ebad0dc2aba6e624abf07745bc1"
        "07694bb7547bb0995f70de25d6b29e2d3011bb19d27676c07162c8b5ccde0668"
        "961df86803482cb37ed6d5c0bb8d50cf1f50d476aa0458bdaba806f48be9dcb8"
    )


def test_hwrng_bytes_are_released_only_after_a_whole_window_passes(tmp_path: Path) -> None:
    device = tmp_path / "hwrng"
    data = good_bytes(1024)
    device.write_bytes(data)
    source = HwrngSource(device)
    assert source.read(10) == data[:10]
    assert source.bytes_read == 512  # a whole SP 800-90B window was read and tested
    assert source.read(600) == data[10:610]
    with pytest.raises(EntropyError, match="no more data"):
        source.read(1000)


def test_a_window_that_fails_is_never_handed_out() -> None:
    source = HwrngSource.from_bytes(good_bytes(512) + good_bytes(100, 2) + bytes(412))
    assert source.read(512) == good_bytes(512)
    with pytest.raises(HealthTestFailure):
        source.read(1)
    with pytest.raises(HealthTestFailure):  # and the device stays distrusted
        source.read(1)


def test_a_dead_device_path_cannot_be_opened(tmp_path: Path) -> None:
    with pytest.raises(EntropyError, match="cannot be opened"):
        HwrngSource(tmp_path / "missing").read(1)
    with pytest.raises(EntropyError, match="cannot be"):
        HwrngSource(tmp_path).read(1)  # a directory


class Failing:
    name = "hwrng:broken"

    def __init__(self) -> None:
        self.reads = 0

    def read(self, n: int) -> bytes:
        self.reads += 1
        raise EntropyError("/dev/hwrng cannot be read: Input/output error")


def test_fallback_switches_once_and_says_so_once(caplog: pytest.LogCaptureFixture) -> None:
    primary = Failing()
    source = FallbackSource(primary)
    with caplog.at_level(logging.WARNING, logger="pitable.entropy"):
        rolls = draw_rolls(source, 50)
        draw_rolls(source, 50)
    assert len(rolls) == 50
    assert primary.reads == 1  # never asked again once it failed
    assert source.name == "os" and source.degraded
    warnings = [r for r in caplog.records if r.name == "pitable.entropy"]
    assert len(warnings) == 1
    assert "operating system's generator" in warnings[0].getMessage()


def test_required_hwrng_refuses_instead_of_falling_back() -> None:
    source = FallbackSource(Failing(), require=True, fallback=OsSource())
    with pytest.raises(EntropyError):
        source.read(1)
    assert not source.degraded


def test_stuck_device_falls_back_without_rolling_from_it(tmp_path: Path) -> None:
    device = tmp_path / "zeros"
    device.write_bytes(bytes(4096))
    source = open_source(str(device))
    rolls = draw_rolls(source, 200)
    assert source.name == "os"
    # A stuck source of zeros would give 200 identical rolls of 1,1,1.
    assert len(set(rolls)) > 20


def test_drbg_reseeds_from_the_device_every_kilobyte() -> None:
    raw = HwrngSource.from_bytes(good_bytes(4096))
    source = DrbgSource(raw, seed_bytes=48, reseed_every=1024)
    source.read(1)
    assert source.raw_bytes_used == 48
    source.read(2048)
    assert source.raw_bytes_used == 48 * 3
    assert source.name == raw.name


def test_drbg_stops_when_its_device_fails() -> None:
    raw = HwrngSource.from_bytes(good_bytes(512) + bytes(512))
    source = DrbgSource(raw, seed_bytes=48, reseed_every=1024)
    # 512 good bytes carry 10 seeds of 48 bytes; the 11th seed needs the bad window.
    source.read(10 * 1024)
    with pytest.raises(HealthTestFailure):
        source.read(1)


def test_stream_stand_in_is_named() -> None:
    assert HwrngSource(io.BytesIO(b"")).name == "hwrng:<stream>"
    assert HwrngSource.from_bytes(b"").name == "hwrng:<bytes>"
