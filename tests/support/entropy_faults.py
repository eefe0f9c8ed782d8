"""Sources a broken chip or an attacker gives, as bytes standing in for /dev/hwrng."""

from __future__ import annotations

import os
import random


def counter(n: int) -> bytes:
    """0, 1, ..., 255, 0, 1, ...: every value equally often, never twice in a row."""
    return bytes(i & 0xFF for i in range(n))


def repeating(period: int, n: int, seed: int = 5) -> bytes:
    """A random-looking pattern of ``period`` bytes, over and over; up to 256 bytes, a
    pattern of distinct values, which no byte of repeats within the period."""
    rng = random.Random(seed)
    pattern = bytes(rng.sample(range(256), period)) if period <= 256 else rng.randbytes(period)
    return (pattern * (n // period + 1))[:n]


def lfsr(n: int, state: int = 0xACE1ACE1, taps: int = 0x80200003) -> bytes:
    """A 32-bit Galois LFSR, eight output bits a byte: a period of 2^32 - 1 bits."""
    out = bytearray()
    for _ in range(n):
        value = 0
        for _ in range(8):
            bit = state & 1
            state >>= 1
            if bit:
                state ^= taps
            value = value << 1 | bit
        out.append(value)
    return bytes(out)


def xorshift(n: int, state: int = 2463534242) -> bytes:
    """Marsaglia's xorshift32, its low byte: linear over GF(2), period 2^32 - 1."""
    out = bytearray()
    for _ in range(n):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        out.append(state & 0xFF)
    return bytes(out)


def replayed(n: int, again: int) -> bytes:
    """``n`` good bytes, then their first ``again`` bytes once more: a replayed recording."""
    good = os.urandom(n)
    return good + good[:again]


def few_values(bits: int, n: int, seed: int = 6) -> bytes:
    """Uniform over 2^bits values spread over the byte: ``bits`` bits of entropy a byte."""
    rng = random.Random(seed)
    values = rng.sample(range(256), 1 << bits)
    return bytes(rng.choice(values) for _ in range(n))


def half_patterned(n: int, every: int = 2, seed: int = 8) -> bytes:
    """Every ``every``-th byte from a counter, the others random: 8 bits of structure in
    every ``every`` bytes, with no repeated string for a compressor to find."""
    rng = random.Random(seed)
    return bytes((i // every) & 0xFF if i % every == 0 else rng.randrange(256)
                 for i in range(n))


def noisy_pattern(period: int, n: int, noise: float = 0.5, seed: int = 10) -> bytes:
    """A repeated pattern with a share ``noise`` of its bytes replaced by random ones."""
    rng = random.Random(seed)
    pattern = rng.randbytes(period)
    return bytes(rng.randrange(256) if rng.random() < noise else pattern[i % period]
                 for i in range(n))
