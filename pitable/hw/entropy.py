"""Where the dice get their randomness: the Pi's hardware generator, checked, with a fallback.

:class:`HwrngSource` reads ``/dev/hwrng`` (or any path, or any binary stream standing in for
it) one block at a time and hands out bytes only from blocks that passed every health test
of :class:`pitable.hw.health.HealthMonitor` (the start-up test before the first byte, the
continuous and periodic tests after). :class:`DrbgSource` stretches those bytes with an
SP 800-90A HMAC_DRBG that is reseeded from the device every kilobyte, because a hardware
generator is slow (the one here gives 10 kB/s) and ``pitable roll --count 100000`` must not
wait for it.
:class:`FallbackSource` rolls from them while they work and, the first time the device
cannot be opened, read or trusted, switches for good to the operating system's generator
and says so once in the log; with ``require=True`` it raises instead.

Nothing that rolls ever waits on the device itself: :class:`PooledSource` reads it on a
daemon thread, with a deadline, into a small pool of checked bytes, and a device that gives
nothing within the deadline (a stalled /dev/hwrng, a FIFO nobody writes to) is a failed
device. A path is opened ``O_NONBLOCK`` and waited on with :func:`select.poll`, so even
the filler thread never sits in a read it cannot leave.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import logging
import os
import select
import threading
import time
from collections.abc import Callable
from typing import BinaryIO, Protocol

from pitable.errors import EntropyError, HealthTestFailure
from pitable.hw.clock import Clock, MonotonicClock
from pitable.hw.health import BLOCK, DEFAULT_MIN_ENTROPY, HealthMonitor

log = logging.getLogger("pitable.entropy")

DEFAULT_DEVICE = "/dev/hwrng"
#: Seconds a device may give nothing before it counts as failed.
DEFAULT_DEADLINE_S = 2.0
#: Checked bytes kept ready for the dice.
POOL_BYTES = 4096
#: The longest a pool's read waits before it looks at its clock again: a clock moved on by
#: another thread (a test's fake one) is seen within this, whatever the deadline.
WAIT_STEP_S = 0.05
#: How long one poll waits before looking again whether the reader was stopped.
_POLL_SLICE_S = 0.1
#: How long to wait after a device that polls readable answers EAGAIN (/dev/hwrng has no
#: poll method of its own, so the kernel always calls it readable).
_RETRY_S = 0.01


class DeviceStopped(EntropyError):
    """The source was closed while a read was waiting on the device."""


def _open_nonblocking(path: str) -> int:
    """Open without blocking: a FIFO opened for reading otherwise waits in open() itself."""
    return os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)


def _read_some(fd: int, n: int, deadline_s: float, stop: threading.Event) -> bytes:
    """Up to ``n`` bytes as soon as some are there; ``b""`` at the end of the data.

    Raises :class:`TimeoutError` when nothing came within ``deadline_s`` and
    :class:`DeviceStopped` when ``stop`` is set meanwhile.
    """
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    end = time.monotonic() + deadline_s
    while not stop.is_set():
        left = end - time.monotonic()
        if left <= 0:
            raise TimeoutError
        if not poller.poll(min(left, _POLL_SLICE_S) * 1000):
            continue
        try:
            return os.read(fd, n)
        except BlockingIOError:
            stop.wait(min(left, _RETRY_S))
    raise DeviceStopped("the entropy source was closed")


def read_device(
    path: str | os.PathLike[str],
    n: int,
    *,
    deadline_s: float = DEFAULT_DEADLINE_S,
    limit_s: float | None = None,
) -> bytes:
    """Up to ``n`` bytes of ``path``, for a one-off check such as the doctor's.

    Stops early at the end of the data, when nothing came for ``deadline_s``, or after
    ``limit_s`` in all, and returns what it got; open and read errors propagate as the
    :class:`OSError` they are, so that the caller can tell a missing device from a
    forbidden one.
    """
    fd = _open_nonblocking(os.fspath(path))
    data = bytearray()
    never = threading.Event()
    end = None if limit_s is None else time.monotonic() + limit_s
    try:
        while len(data) < n:
            wait = deadline_s
            if end is not None:
                wait = min(wait, end - time.monotonic())
                if wait <= 0:
                    break
            try:
                chunk = _read_some(fd, n - len(data), wait, never)
            except TimeoutError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    return bytes(data)


class EntropySource(Protocol):
    """A transport that only moves random bytes."""

    @property
    def name(self) -> str:
        """Where the bytes come from, as recorded with each roll (``hwrng:/dev/hwrng``)."""
        ...

    def read(self, n: int) -> bytes: ...


class OsSource:
    """The operating system's generator (``getrandom()``, via :func:`os.urandom`)."""

    name = "os"

    def read(self, n: int) -> bytes:
        return os.urandom(n)


class HwrngSource:
    """Raw bytes from a hardware generator, released only after they pass the health tests.

    Bytes are read and judged ``block`` at a time: the first block is the start-up test,
    and no byte of a block is handed out before the whole block passed. A smaller block
    than :data:`pitable.hw.health.BLOCK` weakens the block tests; tests use it to keep
    their devices short.

    ``device`` is a path (opened on first use, without blocking) or an open binary stream,
    which is how tests and the simulator stand a file or a byte string in for the device.
    A path that gives nothing for ``deadline_s`` is an :class:`EntropyError`; a stream is
    read as it is, so a stream that blocks must be read off the caller's thread
    (:class:`PooledSource` does).
    """

    def __init__(
        self,
        device: str | os.PathLike[str] | BinaryIO = DEFAULT_DEVICE,
        *,
        min_entropy: float = DEFAULT_MIN_ENTROPY,
        block: int = BLOCK,
        deadline_s: float = DEFAULT_DEADLINE_S,
    ) -> None:
        self._stream: BinaryIO | None = None
        self._fd: int | None = None
        self.path: str
        if isinstance(device, str | os.PathLike):
            self.path = os.fspath(device)
        else:
            self.path = getattr(device, "name", None) or "<stream>"
            self._stream = device
        self.monitor = HealthMonitor(min_entropy=min_entropy, block=block)
        self.block = block
        self.deadline_s = deadline_s
        self._buffer = bytearray()
        self.bytes_read = 0
        self._stop = threading.Event()
        self._io = threading.Lock()

    @classmethod
    def from_bytes(cls, data: bytes, *, min_entropy: float = DEFAULT_MIN_ENTROPY) -> HwrngSource:
        """A stand-in device that yields ``data`` and then nothing."""
        stream = io.BytesIO(data)
        stream.name = "<bytes>"
        return cls(stream, min_entropy=min_entropy)

    @property
    def name(self) -> str:
        return f"hwrng:{self.path}"

    def read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._refill()
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out

    def _refill(self) -> None:
        if self.monitor.failure is not None:
            raise HealthTestFailure(f"{self.path} failed a health test: {self.monitor.failure}")
        block = self._read_block()
        try:
            self.monitor.check(block)
        except HealthTestFailure as exc:
            self._buffer.clear()
            raise HealthTestFailure(f"{self.path} failed a health test: {exc}") from None
        self._buffer += block

    def _read_block(self) -> bytes:
        """One whole block: every byte of it is tested before any byte of it is used."""
        with self._io:
            try:
                return self._read_window()
            finally:
                if self._stop.is_set():
                    self._release()

    def _read_window(self) -> bytes:
        chunks = bytearray()
        try:
            while len(chunks) < self.block:
                if self._stop.is_set():
                    raise DeviceStopped(f"{self.path} was closed")
                chunk = self._read_chunk(self.block - len(chunks))
                if not chunk:
                    raise EntropyError(f"{self.path} returned no more data")
                chunks += chunk
                self.bytes_read += len(chunk)
        except TimeoutError:
            raise EntropyError(
                f"{self.path} gave no random bytes within {self.deadline_s:g} s"
            ) from None
        except OSError as exc:
            raise EntropyError(f"{self.path} cannot be read: {exc.strerror or exc}") from None
        return bytes(chunks)

    def _read_chunk(self, n: int) -> bytes:
        if self._stream is not None:
            return self._stream.read(n) or b""
        if self._fd is None:
            try:
                self._fd = _open_nonblocking(self.path)
            except OSError as exc:
                raise EntropyError(
                    f"{self.path} cannot be opened: {exc.strerror or exc}"
                ) from None
        return _read_some(self._fd, n, self.deadline_s, self._stop)

    def stop(self) -> None:
        """Make a read waiting on the device give up; it closes the device on its way out."""
        self._stop.set()

    def close(self) -> None:
        """Stop reading and close the device; closing twice is harmless."""
        self._stop.set()
        # A read in progress holds the lock and closes the device itself when it returns.
        if self._io.acquire(blocking=False):
            try:
                self._release()
            finally:
                self._io.release()

    def _release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._stream is not None:
            self._stream.close()
            self._stream = None


class HmacDrbg:
    """HMAC_DRBG with SHA-256 (NIST SP 800-90A section 10.1.2), without prediction resistance.

    Written out here because neither the standard library nor the ``cryptography`` package
    exposes a DRBG; it is twenty lines over :mod:`hmac`, checked against NIST's
    known-answer vectors in the tests.
    """

    MAX_REQUEST = 1 << 16  # bytes per generate call (the standard allows 2^19 bits)
    #: Generate calls allowed between reseeds: SP 800-90A table 2's maximum, 2^48.
    RESEED_INTERVAL = 1 << 48

    def __init__(
        self,
        entropy: bytes,
        nonce: bytes = b"",
        personalization: bytes = b"",
        *,
        reseed_interval: int = RESEED_INTERVAL,
    ) -> None:
        if not 0 < reseed_interval <= self.RESEED_INTERVAL:
            raise ValueError(
                f"reseed interval {reseed_interval}: expected 1 to 2^48 generate calls"
            )
        self.reseed_interval = reseed_interval
        self._key = b"\x00" * 32
        self._value = b"\x01" * 32
        self._update(entropy + nonce + personalization)
        self.reseed_counter = 1

    @property
    def reseed_required(self) -> bool:
        """True once ``reseed_interval`` generate calls were made since the last (re)seed."""
        return self.reseed_counter > self.reseed_interval

    def _hmac(self, data: bytes) -> bytes:
        return hmac.new(self._key, data, hashlib.sha256).digest()

    def _update(self, provided: bytes = b"") -> None:
        self._key = self._hmac(self._value + b"\x00" + provided)
        self._value = self._hmac(self._value)
        if provided:
            self._key = self._hmac(self._value + b"\x01" + provided)
            self._value = self._hmac(self._value)

    def reseed(self, entropy: bytes, additional: bytes = b"") -> None:
        self._update(entropy + additional)
        self.reseed_counter = 1

    def generate(self, n: int, additional: bytes = b"") -> bytes:
        """SP 800-90A 10.1.2.5; like the standard's step 1, refuses once a reseed is due."""
        if not 0 < n <= self.MAX_REQUEST:
            raise ValueError(f"request of {n} bytes: expected 1 to {self.MAX_REQUEST}")
        if self.reseed_required:
            raise EntropyError(
                f"the DRBG must be reseeded: {self.reseed_counter - 1} generate calls since"
                f" its last seed, the limit is {self.reseed_interval}"
            )
        if additional:
            self._update(additional)
        out = bytearray()
        key, value = self._key, self._value
        while len(out) < n:
            value = hmac.new(key, value, hashlib.sha256).digest()
            out += value
        self._value = value
        self._update(additional)
        self.reseed_counter += 1
        return bytes(out[:n])


class DrbgSource:
    """Bytes from an HMAC_DRBG seeded from ``raw`` and reseeded from it every ``reseed_every``.

    Each seed is ``seed_bytes`` raw bytes: 48 bytes carry 288 bits of min-entropy at the
    claimed 6 bits a byte, above the 256 bits that SHA-256's security strength asks for.
    Every raw byte has passed the health tests before it reaches the DRBG; an error of the
    raw source propagates, so nothing is generated from a seed that was not trusted.
    """

    def __init__(self, raw: EntropySource, *, seed_bytes: int = 48, reseed_every: int = 1024):
        self.raw = raw
        self.seed_bytes = seed_bytes
        self.reseed_every = reseed_every
        self._drbg: HmacDrbg | None = None
        self._buffer = bytearray()
        self.raw_bytes_used = 0

    @property
    def name(self) -> str:
        return self.raw.name

    def read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            seed = self.raw.read(self.seed_bytes)
            self.raw_bytes_used += len(seed)
            if self._drbg is None:
                # From the OS, not the clock: a Pi has no clock before NTP, so boot times
                # repeat; the nonce needs 128 bits that never repeat (SP 800-90A 8.6.7).
                self._drbg = HmacDrbg(seed, os.urandom(16), b"pitable dice")
            else:
                self._drbg.reseed(seed)
            self._buffer += self._drbg.generate(self.reseed_every)
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out

    def stop(self) -> None:
        _stop(self.raw)

    def close(self) -> None:
        _close(self.raw)


def _stop(source: object) -> None:
    stop = getattr(source, "stop", None)
    if callable(stop):
        stop()


def _close(source: object) -> None:
    close = getattr(source, "close", None)
    if callable(close):
        close()


class PooledSource:
    """Checked bytes from ``inner``, read ahead by a daemon thread into a pool.

    :meth:`read` only takes from the pool: it waits for new bytes at most ``deadline_s``
    and then fails for good (an :class:`EntropyError` naming the device), so a stalled
    device costs its caller one deadline, once. An error of ``inner`` (a failed health
    test, the end of the device) is raised once the bytes checked before it are used up.
    A read that fails after some bytes arrived returns those (fewer than asked); the next
    read raises. The deadline runs on ``clock`` (the system's monotonic one by default).
    """

    def __init__(
        self,
        inner: EntropySource,
        *,
        deadline_s: float = DEFAULT_DEADLINE_S,
        size: int = POOL_BYTES,
        chunk: int = 256,
        clock: Clock | None = None,
    ) -> None:
        if not deadline_s > 0:
            raise ValueError(f"deadline of {deadline_s} s: expected more than 0")
        self.inner = inner
        self.deadline_s = deadline_s
        self.size = size
        self.chunk = chunk
        self.clock = clock or MonotonicClock()
        self._pool = bytearray()
        self._ready = threading.Condition()
        self._error: EntropyError | None = None
        self._closed = False
        self._thread = threading.Thread(
            target=self._fill, name=f"entropy reader {inner.name}", daemon=True
        )
        self._thread.start()

    @property
    def name(self) -> str:
        return self.inner.name

    def _fill(self) -> None:
        try:
            while True:
                with self._ready:
                    while len(self._pool) >= self.size and not self._closed:
                        self._ready.wait()
                    if self._closed or self._error is not None:
                        return
                data = self.inner.read(self.chunk)
                with self._ready:
                    self._pool += data
                    self._ready.notify_all()
        except EntropyError as exc:
            error = exc
        except Exception as exc:  # a thread's error would otherwise vanish: hand it on
            error = EntropyError(f"{self._label} cannot be read: {exc}")
        with self._ready:
            if self._error is None:
                self._error = error
            self._ready.notify_all()

    @property
    def _label(self) -> str:
        return self.name.removeprefix("hwrng:")

    def read(self, n: int) -> bytes:
        out = bytearray()
        with self._ready:
            while len(out) < n:
                end = self.clock.now() + self.deadline_s
                while not self._pool:
                    if self._closed:
                        raise EntropyError(f"{self._label} was closed")
                    failure = self._error or self._late(end)
                    if failure is not None:
                        if out:
                            return bytes(out)
                        raise failure
                    self._ready.wait(min(WAIT_STEP_S, max(0.0, end - self.clock.now())))
                take = min(n - len(out), len(self._pool))
                out += self._pool[:take]
                del self._pool[:take]
                self._ready.notify_all()
        return bytes(out)

    def _late(self, end: float) -> EntropyError | None:
        if self.clock.now() < end:
            return None
        self._error = EntropyError(
            f"{self._label} gave no random bytes within {self.deadline_s:g} s"
        )
        _stop(self.inner)  # the reader gives up too, and closes the device
        self._ready.notify_all()
        return self._error

    def close(self, timeout: float = 1.0) -> None:
        """Stop the reader and close the device; closing twice is harmless."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        _stop(self.inner)
        self._thread.join(timeout)
        _close(self.inner)


class SeededSource:
    """Reproducible bytes from a seed, for the simulator's demonstrations and the tests.

    Never used by the box on its own: ``pitable sim --seed N`` asks for it by name.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._drbg = HmacDrbg(seed.to_bytes(16, "big", signed=True), b"", b"pitable seed")
        self._buffer = bytearray()

    @property
    def name(self) -> str:
        return f"seed:{self.seed}"

    def read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._buffer += self._drbg.generate(1024)
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out


class FallbackSource:
    """Rolls from ``primary`` while it works, then from the OS generator for good.

    The switch is announced once, through ``on_fallback`` (by default a warning in the
    ``pitable.entropy`` log, which the command line shows on stderr). With ``require`` the
    primary's error is raised instead and nothing is ever read from elsewhere.
    """

    def __init__(
        self,
        primary: EntropySource,
        *,
        require: bool = False,
        fallback: EntropySource | None = None,
        on_fallback: Callable[[str], None] | None = None,
    ) -> None:
        self.primary = primary
        self.fallback = fallback or OsSource()
        self.require = require
        self.on_fallback = on_fallback or log.warning
        self.failure: str | None = None
        self.closed = False

    @property
    def name(self) -> str:
        return self.fallback.name if self.failure else self.primary.name

    @property
    def degraded(self) -> bool:
        return self.failure is not None

    def read(self, n: int) -> bytes:
        if self.closed:
            raise EntropyError(f"{self.name} was closed")
        if self.failure is None:
            try:
                return self.primary.read(n)
            except EntropyError as exc:
                if self.require:
                    raise
                self.failure = str(exc)
                self.on_fallback(
                    f"{exc}; rolling from the operating system's generator instead"
                )
        return self.fallback.read(n)

    def close(self) -> None:
        """Close the primary (its reader thread, its device); closing twice is harmless."""
        self.closed = True
        _close(self.primary)


def open_source(
    device: str | None = DEFAULT_DEVICE,
    *,
    require: bool = False,
    min_entropy: float = DEFAULT_MIN_ENTROPY,
    deadline_s: float = DEFAULT_DEADLINE_S,
    clock: Clock | None = None,
) -> FallbackSource:
    """The box's entropy: ``device`` health-checked and stretched, else the OS unless required.

    The device is read ahead on a daemon thread (:class:`PooledSource`), so a read waits
    at most ``deadline_s`` for it (on ``clock``), and only until the device has failed once.
    """
    raw = HwrngSource(device or DEFAULT_DEVICE, min_entropy=min_entropy, deadline_s=deadline_s)
    pooled = PooledSource(DrbgSource(raw), deadline_s=deadline_s, clock=clock)
    return FallbackSource(pooled, require=require)
