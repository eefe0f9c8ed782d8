"""Where the dice get their randomness: the Pi's hardware generator, checked, with a fallback.

:class:`HwrngSource` reads ``/dev/hwrng`` (or any path, or any binary stream standing in for
it) one SP 800-90B window at a time and hands out bytes only from windows that passed both
health tests. :class:`DrbgSource` stretches those bytes with an SP 800-90A HMAC_DRBG that is
reseeded from the device every kilobyte, because a hardware generator is slow (the one
here gives 10 kB/s) and ``pitable roll --count 100000`` must not wait for it.
:class:`FallbackSource` rolls from them while they work and, the first time the device
cannot be opened, read or trusted, switches for good to the operating system's generator
and says so once in the log; with ``require=True`` it raises instead.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import logging
import os
import time
from collections.abc import Callable
from typing import BinaryIO, Protocol

from pitable.errors import EntropyError, HealthTestFailure
from pitable.hw.health import APT_WINDOW, DEFAULT_MIN_ENTROPY, HealthMonitor

log = logging.getLogger("pitable.entropy")

DEFAULT_DEVICE = "/dev/hwrng"


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

    ``device`` is a path (opened on first use) or an open binary stream, which is how tests
    and the simulator stand a file or a byte string in for the device.
    """

    def __init__(
        self,
        device: str | os.PathLike[str] | BinaryIO = DEFAULT_DEVICE,
        *,
        min_entropy: float = DEFAULT_MIN_ENTROPY,
        block: int = APT_WINDOW,
    ) -> None:
        self._stream: BinaryIO | None = None
        if isinstance(device, str | os.PathLike):
            self.path = os.fspath(device)
        else:
            self.path = getattr(device, "name", None) or "<stream>"
            self._stream = device
        self.monitor = HealthMonitor(min_entropy=min_entropy)
        self.block = block
        self._buffer = bytearray()
        self.bytes_read = 0

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
        """One whole window: every byte of it is tested before any byte of it is used."""
        stream = self._open()
        chunks = bytearray()
        try:
            while len(chunks) < self.block:
                chunk = stream.read(self.block - len(chunks))
                if not chunk:
                    raise EntropyError(f"{self.path} returned no more data")
                chunks += chunk
                self.bytes_read += len(chunk)
        except OSError as exc:
            raise EntropyError(f"{self.path} cannot be read: {exc.strerror or exc}") from None
        return bytes(chunks)

    def _open(self) -> BinaryIO:
        if self._stream is None:
            try:
                self._stream = open(self.path, "rb", buffering=0)  # noqa: SIM115
            except OSError as exc:
                raise EntropyError(
                    f"{self.path} cannot be opened: {exc.strerror or exc}"
                ) from None
        return self._stream

    def close(self) -> None:
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

    def __init__(self, entropy: bytes, nonce: bytes = b"", personalization: bytes = b"") -> None:
        self._key = b"\x00" * 32
        self._value = b"\x01" * 32
        self._update(entropy + nonce + personalization)
        self.reseed_counter = 1

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
        if not 0 < n <= self.MAX_REQUEST:
            raise ValueError(f"request of {n} bytes: expected 1 to {self.MAX_REQUEST}")
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

    def close(self) -> None:
        """Close the raw source (the device), when it is one that can be closed."""
        _close(self.raw)

    def read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            seed = self.raw.read(self.seed_bytes)
            self.raw_bytes_used += len(seed)
            if self._drbg is None:
                nonce = time.time_ns().to_bytes(8, "big")
                self._drbg = HmacDrbg(seed, nonce, b"pitable dice")
            else:
                self._drbg.reseed(seed)
            self._buffer += self._drbg.generate(self.reseed_every)
        out = bytes(self._buffer[:n])
        del self._buffer[:n]
        return out


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

    @property
    def name(self) -> str:
        return self.fallback.name if self.failure else self.primary.name

    @property
    def degraded(self) -> bool:
        return self.failure is not None

    def close(self) -> None:
        """Close the device behind the primary source; the OS generator needs no closing."""
        _close(self.primary)
        _close(self.fallback)

    def read(self, n: int) -> bytes:
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


def _close(source: EntropySource) -> None:
    # EntropySource is read-only by design (the transport only moves bytes); a device
    # behind one may still hold a file open.
    close = getattr(source, "close", None)
    if callable(close):
        close()


def open_source(
    device: str | None = DEFAULT_DEVICE,
    *,
    require: bool = False,
    min_entropy: float = DEFAULT_MIN_ENTROPY,
) -> FallbackSource:
    """The box's entropy: ``device`` health-checked and stretched, else the OS unless required."""
    raw = HwrngSource(device or DEFAULT_DEVICE, min_entropy=min_entropy)
    return FallbackSource(DrbgSource(raw), require=require)
