"""Entropy sources for the tests: chosen rolls, chosen bytes, a device that stalls."""

from __future__ import annotations

import io
import random
import threading

from pitable.rules import SPECIAL, Roll


class ScriptedBytes:
    """An entropy source handing out chosen bytes: ``before``, then one byte a roll of
    ``rolls`` (byte 36*g + 6*p + r is one roll)."""

    name = "script"

    def __init__(self, *rolls: str, before: bytes = b"") -> None:
        self.data = bytearray(before) + bytes(byte_of(Roll.from_str(r)) for r in rolls)

    def read(self, n: int) -> bytes:
        if len(self.data) < n:
            raise AssertionError("the test ran out of scripted bytes")
        out = bytes(self.data[:n])
        del self.data[:n]
        return out


class Seeded:
    """Bytes from a seeded generator, as the box's entropy source hands them out: what a
    table's deal draws from in the tests, apart from the dice's scripted bytes."""

    name = "seeded"

    def __init__(self, seed: int | str) -> None:
        self.random = random.Random(seed)
        self.used = 0

    def read(self, n: int) -> bytes:
        self.used += n
        return self.random.randbytes(n)


def byte_of(roll: Roll) -> int:
    """The byte that :func:`pitable.rules.draw_roll` reads as ``roll``."""
    index = [(f - 1) if f is not SPECIAL else 5 for f in roll.faces]  # type: ignore[operator]
    return 36 * index[0] + 6 * index[1] + index[2]


def good_bytes(n: int, seed: int = 7) -> bytes:
    """``n`` bytes that pass every health test, the same for the same ``seed``."""
    return random.Random(seed).randbytes(n)


class StallingStream(io.RawIOBase):
    """A device that gives ``data`` and then blocks until the test lets it go."""

    name = "stalling"

    def __init__(self, data: bytes) -> None:
        self.data = bytearray(data)
        self.release = threading.Event()

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if not self.data:
            self.release.wait()
            return b""
        out = bytes(self.data[:n])
        del self.data[:n]
        return out
