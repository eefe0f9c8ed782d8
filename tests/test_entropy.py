"""Entropy sources: the hardware generator, its DRBG, and the fallback to the OS."""

from __future__ import annotations

import io
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import pitable.hw.entropy as entropy_module
from pitable.errors import EntropyError, HealthTestFailure
from pitable.hw.clock import FakeClock
from pitable.hw.entropy import (
    DrbgSource,
    FallbackSource,
    HmacDrbg,
    HwrngSource,
    OsSource,
    PooledSource,
    open_source,
    read_device,
)
from pitable.hw.health import BLOCK
from pitable.rules import draw_roll, draw_rolls
from tests.support.entropy import StallingStream, good_bytes


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


@pytest.mark.parametrize(
    ("entropy", "nonce", "reseed", "additional", "returned"),
    [
        (  # COUNT = 0 of [PersonalizationStringLen = 0] [AdditionalInputLen = 0]
            "06032cd5eed33f39265f49ecb142c511da9aff2af71203bffaf34a9ca5bd9c0d",
            "0e66f71edc43e42a45ad3c6fc6cdc4df",
            "01920a4e669ed3a85ae8a33b35a74ad7fb2a6bb4cf395ce00334a9c9a5a5d552",
            ("", "", ""),
            "76fc79fe9b50beccc991a11b5635783a83536add03c157fb30645e611c2898bb"
            "2b1bc215000209208cd506cb28da2a51bdb03826aaf2bd2335d576d519160842"
            "e7158ad0949d1a9ec3e66ea1b1a064b005de914eac2e9d4f2d72a8616a802254"
            "22918250ff66a41bd2f864a6a38cc5b6499dc43f7f2bd09e1e0f8f5885935124",
        ),
        (  # COUNT = 0 of [PersonalizationStringLen = 0] [AdditionalInputLen = 256]
            "05ac9fc4c62a02e3f90840da5616218c6de5743d66b8e0fbf833759c5928b53d",
            "2b89a17904922ed8f017a63044848545",
            "2791126b8b52ee1fd9392a0a13e0083bed4186dc649b739607ac70ec8dcecf9b",
            (
                "43bac13bae715092cf7eb280a2e10a962faf7233c41412f69bc74a35a584e54c",
                "3f2fed4b68d506ecefa21f3f5bb907beb0f17dbc30f6ffbba5e5861408c53a1e",
                "529030df50f410985fde068df82b935ec23d839cb4b269414c0ede6cffea5b68",
            ),
            "02ddff5173da2fcffa10215b030d660d61179e61ecc22609b1151a75f1cbcbb4"
            "363c3a89299b4b63aca5e581e73c860491010aa35de3337cc6c09ebec8c91a62"
            "87586f3a74d9694b462d2720ea2e11bbd02af33adefb4a16e6b370fa0effd57d"
            "607547bdcfbb7831f54de7073ad2a7da987a0016a82fa958779a168674b56524",
        ),
    ],
)
def test_hmac_drbg_reseed_matches_nist_cavp_pr_false(
    entropy: str, nonce: str, reseed: str, additional: tuple[str, str, str], returned: str
) -> None:
    """CAVP drbgvectors_pr_false/HMAC_DRBG.rsp, [SHA-256], no prediction resistance:
    instantiate, reseed with EntropyInputReseed and AdditionalInputReseed, generate twice."""
    drbg = HmacDrbg(bytes.fromhex(entropy), bytes.fromhex(nonce))
    drbg.reseed(bytes.fromhex(reseed), bytes.fromhex(additional[0]))
    drbg.generate(128, bytes.fromhex(additional[1]))
    assert drbg.generate(128, bytes.fromhex(additional[2])).hex() == returned


def test_hmac_drbg_refuses_to_generate_past_its_reseed_interval() -> None:
    drbg = HmacDrbg(good_bytes(48), reseed_interval=2)
    drbg.generate(16)
    drbg.generate(16)
    assert drbg.reseed_required
    with pytest.raises(EntropyError, match="must be reseeded"):
        drbg.generate(16)
    drbg.reseed(good_bytes(48, 8))
    assert not drbg.reseed_required
    assert len(drbg.generate(16)) == 16


def test_drbg_nonce_does_not_come_from_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two boots of a Pi without a clock see the same time; their dice must still differ."""
    monkeypatch.setattr(entropy_module.time, "time_ns", lambda: 1_000_000)
    same_seed = good_bytes(1024)
    first = DrbgSource(HwrngSource.from_bytes(same_seed)).read(64)
    second = DrbgSource(HwrngSource.from_bytes(same_seed)).read(64)
    assert first != second


def test_hwrng_bytes_are_released_only_after_a_whole_block_passes(tmp_path: Path) -> None:
    device = tmp_path / "hwrng"
    data = good_bytes(2 * BLOCK)
    device.write_bytes(data)
    source = HwrngSource(device)
    assert source.read(10) == data[:10]
    assert source.bytes_read == BLOCK  # the whole start-up block was read and tested
    assert source.monitor.started
    assert source.read(BLOCK) == data[10:BLOCK + 10]
    with pytest.raises(EntropyError, match="no more data"):
        source.read(BLOCK)


def test_a_block_that_fails_is_never_handed_out() -> None:
    source = HwrngSource.from_bytes(good_bytes(BLOCK) + good_bytes(100, 2) + bytes(BLOCK - 100))
    assert source.read(BLOCK) == good_bytes(BLOCK)
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
    raw = HwrngSource.from_bytes(good_bytes(BLOCK) + bytes(BLOCK))
    source = DrbgSource(raw, seed_bytes=48, reseed_every=1024)
    # 1024 good bytes carry 21 seeds of 48 bytes; the 22nd seed needs the bad block.
    source.read(21 * 1024)
    with pytest.raises(HealthTestFailure):
        source.read(1)


def test_stream_stand_in_is_named() -> None:
    assert HwrngSource(io.BytesIO(b"")).name == "hwrng:<stream>"
    assert HwrngSource.from_bytes(b"").name == "hwrng:<bytes>"


# --- reading off the caller's thread ---------------------------------------------------


def finishes(action: Callable[[], Any], timeout: float = 30.0) -> Any:
    """Run ``action`` on a thread; fail (instead of hanging the run) if it does not return."""
    result: list[Any] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(action())
        except BaseException as exc:  # handed to the test's thread
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the call blocked on the device"
    if errors:
        raise errors[0]
    return result[0]


def test_a_fifo_nobody_writes_to_falls_back_after_the_deadline(
    fifo: Path, caplog: pytest.LogCaptureFixture
) -> None:
    source = open_source(str(fifo), deadline_s=0.2)
    with caplog.at_level(logging.WARNING, logger="pitable.entropy"):
        finishes(lambda: draw_roll(source))
    assert source.degraded and source.name == "os"
    assert f"{fifo} gave no random bytes within 0.2 s" in caplog.text
    source.close()


def test_a_fifo_nobody_writes_to_is_refused_when_the_hwrng_is_required(fifo: Path) -> None:
    source = open_source(str(fifo), require=True, deadline_s=0.2)
    for _ in range(2):  # and the second read does not wait again for the dead device
        with pytest.raises(EntropyError, match="gave no random bytes"):
            finishes(lambda: source.read(1))
    assert not source.degraded
    source.close()


@pytest.fixture
def stalling() -> Iterator[StallingStream]:
    stream = StallingStream(good_bytes(BLOCK))
    yield stream
    stream.release.set()


def test_a_device_that_stalls_mid_run_falls_back_and_each_roll_says_where_it_came_from(
    stalling: StallingStream,
) -> None:
    # One block of 1024 bytes seeds the DRBG 21 times: about 21 kB of device rolls, then
    # the device blocks for good and the rolls must come from the OS.
    pooled = PooledSource(DrbgSource(HwrngSource(stalling)), deadline_s=0.2)
    source = FallbackSource(pooled)

    def roll_until_fallback() -> list[str]:
        names = []
        while not names or names[-1] != "os" or len(names) < names.index("os") + 20:
            draw_roll(source)
            names.append(source.name)  # read after the roll's bytes were taken
            assert len(names) < 100_000
        return names

    names = finishes(roll_until_fallback)
    first_os = names.index("os")
    assert first_os > 1000
    assert set(names[:first_os]) == {"hwrng:stalling"}
    assert set(names[first_os:]) == {"os"}
    source.close()
    source.close()  # closing twice is harmless


def test_close_stops_the_reader_thread_and_closes_the_device(fifo: Path) -> None:
    writer = os.open(fifo, os.O_RDWR)  # a writer that never writes keeps the FIFO open
    try:
        source = open_source(str(fifo))
        pooled = source.primary
        assert isinstance(pooled, PooledSource)
        source.close()
        assert not pooled._thread.is_alive()
        assert isinstance(pooled.inner, DrbgSource) and isinstance(pooled.inner.raw, HwrngSource)
        assert pooled.inner.raw._fd is None
        source.close()
        with pytest.raises(EntropyError, match="closed"):
            source.read(1)
    finally:
        os.close(writer)


def test_a_health_failure_in_the_reader_reaches_the_caller_after_the_checked_bytes() -> None:
    raw = HwrngSource.from_bytes(good_bytes(BLOCK) + bytes(BLOCK))
    pooled = PooledSource(raw, deadline_s=5, chunk=64)
    assert finishes(lambda: pooled.read(BLOCK)) == good_bytes(BLOCK)
    with pytest.raises(HealthTestFailure):
        finishes(lambda: pooled.read(1))
    pooled.close()


def test_read_device_gives_what_came_within_the_deadline(fifo: Path, tmp_path: Path) -> None:
    assert finishes(lambda: read_device(fifo, 100, deadline_s=0.1)) == b""
    writer = os.open(fifo, os.O_RDWR)
    try:
        os.write(writer, b"abc")
        assert finishes(lambda: read_device(fifo, 100, deadline_s=0.1)) == b"abc"
    finally:
        os.close(writer)
    with pytest.raises(FileNotFoundError):
        read_device(tmp_path / "missing", 1)


def test_the_pools_deadline_runs_on_its_clock_not_the_wall_clock() -> None:
    # An hour's deadline on a fake clock: the read gives up once the clock is moved on by
    # an hour, at once, with no hour of waiting.
    clock = FakeClock()
    stream = StallingStream(b"")
    pooled = PooledSource(HwrngSource(stream), deadline_s=3600, clock=clock)
    errors: list[BaseException] = []

    def read() -> None:
        try:
            pooled.read(1)
        except EntropyError as exc:
            errors.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    try:
        reader.start()
        clock.advance(3600)
        reader.join(30)
        assert not reader.is_alive(), "the read waits on the wall clock"
        assert [str(e) for e in errors] == ["stalling gave no random bytes within 3600 s"]
    finally:
        stream.release.set()
        pooled.close()
