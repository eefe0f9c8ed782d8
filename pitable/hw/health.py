"""Health tests on the raw bytes of a hardware generator, and one verdict on them.

Continuous tests (NIST SP 800-90B section 4.4), on every byte: the Repetition Count Test
catches a source stuck on one value; the Adaptive Proportion Test catches one value that
comes far too often within a window of 512. Both cut-offs are derived from the claimed
min-entropy per byte ``H`` and a false alarm rate of 2^-20.

Those two pass any source that cycles through many values: a counter 0, 1, ..., 255, any
pattern with a period above about 21 bytes, a 32-byte buffer handed out again and again.
So every block of :data:`BLOCK` bytes also goes through five block tests before any byte
of it is used; the first block is the start-up test (SP 800-90B section 4.3: at least
1024 samples before the first output), every later one the periodic test, so a device that
goes bad after a good start is caught too:

- compression: the block, deflated by zlib with the 32 kB before it as its dictionary,
  must not come out shorter than a source of ``H`` bits a byte allows. A lossless code
  maps distinct blocks to distinct outputs, and fewer than 256^(m+1)/255 outputs are m
  bytes long or shorter, so a source whose blocks carry H*1024 bits of min-entropy comes out
  that short with probability below 256^(m+1)/255 * 2^(-H*1024): the cut-off makes that
  2^-20. A repeated pattern of any period up to 32 kB, a counter, too little entropy, fail.
- lags: for each lag k up to 1024, the block's bytes equal to the byte k places before
  them must be about 1 in 256: a structure that only part of the bytes follow (a counter
  in every other byte, a pattern under noise), which leaves no long string to compress.
- bits: each of the 8 bit positions must be 1 in about half of the block's bytes: a
  stuck or biased bit (7 good bits a byte are more than a claim of 6, so the compression
  test lets a stuck bit by).
- linear complexity: each bit position's 1024 bits must not follow a linear recurrence
  shorter than about 500 (Berlekamp-Massey): an LFSR, xorshift or any generator linear
  over GF(2) with a state of up to ~500 bits, whatever its period.
- replay: the 12 bytes after each 0x00 byte must not have followed an earlier 0x00 byte:
  a recording played again, or a period longer than the compression test's 32 kB, is
  caught within a few kB of its repeat (each kB holds about 4 such anchors), as far back
  as the first 2 MB the device gave.

:class:`HealthMonitor` runs them all; everything that judges a device (the dice's source,
``pitable roll`` and ``fairness``, the box, ``pitable doctor``) asks it and nothing else.
:func:`false_alarms` gives the chance that a block of a working generator (independent,
uniform bytes) fails a test, computed from the cut-offs: at the default claim of 6 bits a
byte, 3.6e-7 a block (2^-21.4), nearly all of it the repetition count test's 2.4e-7, the
bit test's 5.4e-8, the lag test's 5.2e-8 and the linear complexity test's 2.0e-8.

These lines are written here rather than taken from a library: no maintained Python
package implements the 90B health tests (the reference implementation is a C++ tool for
offline assessment), and the Berlekamp-Massey packages that exist pull NumPy, some 30 MB
on a Pi Zero, for a loop of ten lines over Python's integers.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pitable.errors import HealthTestFailure

#: False alarm probability of each continuous test and of the compression test: 2^-20,
#: the value SP 800-90B recommends.
ALPHA_LOG2 = 20
#: False alarm probability, per block, of each of the lag, bit and linear complexity tests:
#: 2^-24, below the repetition count test's own (2^-22 a block for uniform bytes).
BLOCK_ALPHA_LOG2 = 24
#: The claimed min-entropy of one raw byte of /dev/hwrng. The Pi's generators
#: (bcm2835-rng, iproc-rng200) hand out whitened bytes close to 8 bits; claiming 6 keeps a
#: wide margin against false alarms while letting the APT see short repeating patterns.
DEFAULT_MIN_ENTROPY = 6.0
#: SP 800-90B's window for non-binary samples.
APT_WINDOW = 512
#: Bytes judged together by the block tests: the start-up test's sample, then the period
#: of the periodic tests. SP 800-90B section 4.3 asks for at least 1024 samples.
BLOCK = 1024
#: zlib's largest window: the compression test sees a period up to this many bytes.
DEFLATE_WINDOW = 1 << 15
#: The lag test compares each byte with the bytes this many places before it and fewer.
MAX_LAG = 1024
#: The replay test's anchors: the bytes after each 0x00 byte, this many of them...
ANCHOR_BYTES = 12
#: ...remembered for this many anchors, one in about 256 bytes: the first 2 MB a device
#: gives, in under 1 MB of memory (the dice take 48 device bytes for 1024 rolls, so 2 MB
#: last some 40 million rolls).
MAX_ANCHORS = 1 << 13


def rct_cutoff(min_entropy: float, alpha_log2: int = ALPHA_LOG2) -> int:
    """C = 1 + ceil(-log2(alpha) / H): this many identical bytes in a row is a failure."""
    return 1 + math.ceil(alpha_log2 / min_entropy)


@lru_cache(maxsize=16)
def apt_cutoff(
    min_entropy: float, window: int = APT_WINDOW, alpha_log2: int = ALPHA_LOG2
) -> int:
    """C = 1 + CRITBINOM(W, 2^-H, 1 - alpha).

    CRITBINOM(n, p, q) is the smallest k whose binomial CDF reaches q, so C is the
    smallest count of the window's first value that an honest source reaches with
    probability at most alpha.
    """
    p = 2.0**-min_entropy
    alpha = 2.0**-alpha_log2
    # Walk the upper tail from the top: P(X >= k) for k = W, W-1, ...; stop once it exceeds
    # alpha. Terms are computed in log space so that p**k cannot underflow to a wrong zero.
    log_p, log_q = math.log(p), math.log1p(-p)
    tail = 0.0
    for k in range(window, -1, -1):
        log_term = (
            math.lgamma(window + 1) - math.lgamma(k + 1) - math.lgamma(window - k + 1)
            + k * log_p + (window - k) * log_q
        )
        tail += math.exp(log_term)
        # tail is now P(X >= k). CDF(k - 1) = 1 - tail < 1 - alpha once tail > alpha,
        # so CRITBINOM = k and the cut-off is k + 1.
        if tail > alpha:
            return k + 1
    return 1


def deflate_cutoff(min_entropy: float, block: int = BLOCK, alpha_log2: int = ALPHA_LOG2) -> int:
    """The largest deflated size m at which a block fails the compression test.

    At most 256^(m+1)/255 outputs are m bytes or shorter and each comes from one block
    only, of probability at most 2^(-H*n): P(size <= m) <= 2^(8(m+1) - H*n - log2 255).
    m is the largest size for which that bound is at most alpha; -1 when none is (the
    claim is too small for the test to say anything of a block this short).
    """
    return max(-1, math.floor((min_entropy * block - alpha_log2 + math.log2(255)) / 8) - 1)


@lru_cache(maxsize=16)
def bit_cutoff(block: int = BLOCK, alpha_log2: int = BLOCK_ALPHA_LOG2) -> int:
    """The largest count k of ones in one bit position at which a block fails (as it does
    at ``block - k`` or more): each of the 16 tails has probability at most alpha/16 for
    uniform bytes, exactly (binomial sums in integers). -1 when no count is that rare."""
    # P(X <= k) * 2^(alpha_log2 + 4) <= 1, with P(X <= k) = sum C(n, i) / 2^n.
    limit = 1 << (block - alpha_log2 - 4) if block >= alpha_log2 + 4 else 0
    total, k, term = 0, -1, 1  # term = C(n, k + 1), walked up by C(n, j+1) = C(n, j)(n-j)/(j+1)
    while k + 1 <= block and total + term <= limit:
        k += 1
        total += term
        term = term * (block - k) // (k + 1)
    return k


@lru_cache(maxsize=16)
def lag_cutoff(block: int = BLOCK, lags: int = MAX_LAG,
               alpha_log2: int = BLOCK_ALPHA_LOG2) -> int:
    """The fewest equal pairs at one lag that fail: for uniform bytes, at most ``block``
    pairs each equal with chance 1/256 reach it with probability at most alpha/lags."""
    # P(Bin(n, 1/256) >= c) = sum_{i >= c} C(n, i) 255^(n-i) / 256^n, in integers, from the top.
    limit = 256**block
    tail, c = 0, block + 1
    while c > 0:
        term = math.comb(block, c - 1) * 255 ** (block - c + 1)
        if (tail + term) * lags * 2**alpha_log2 > limit:
            break
        tail += term
        c -= 1
    return c


def complexity_tail(n: int, t: int) -> float:
    """P(L <= t) for the linear complexity L of n uniform random bits, t <= n/2.

    Exactly one sequence has L = 0 and 2^(2L-1) have L, for 1 <= L <= n/2 (Rueppel,
    "Analysis and Design of Stream Ciphers", 1986, ch. 4), so the sum is a closed form.
    """
    if t < 0:
        return 0.0
    return (1 + 2 * (4**t - 1) // 3) / 2**n


@lru_cache(maxsize=16)
def complexity_cutoff(block: int = BLOCK, alpha_log2: int = BLOCK_ALPHA_LOG2) -> int:
    """The largest linear complexity t at which one of the 8 bit sequences fails: for
    uniform bytes each has P(L <= t) <= alpha/8. -1 when even L = 0 is not that rare."""
    t = -1
    while t + 1 <= block // 2 and complexity_tail(block, t + 1) * 8 <= 2.0**-alpha_log2:
        t += 1
    return t


def linear_complexity(bits: int, n: int) -> int:
    """The length of the shortest linear feedback shift register that gives ``n`` bits.

    ``bits`` holds the sequence with its first bit as the most significant of ``n`` bits.
    Berlekamp-Massey over GF(2), with the connection polynomials as integers (bit j holds
    the coefficient of x^j): the discrepancy at step i is the parity of the polynomial
    against the sequence read backwards from bit i, which ``bits >> (n - 1 - i)`` is.
    """
    c, b, length, m = 1, 1, 0, -1
    for i in range(n):
        if (c & (bits >> (n - 1 - i))).bit_count() & 1:
            t = c
            c ^= b << (i - m)
            if 2 * length <= i:
                length, m, b = i + 1 - length, i, t
    return length


#: For each bit position j, a table turning a byte into b"1" or b"0" by its bit j.
_BIT_TABLES = tuple(
    bytes(0x31 if value >> j & 1 else 0x30 for value in range(256)) for j in range(8)
)


def false_alarms(min_entropy: float = DEFAULT_MIN_ENTROPY, block: int = BLOCK,
                 window: int = APT_WINDOW) -> dict[str, float]:
    """Each test's chance to fail one block of independent uniform bytes (a working
    generator, or the OS's), from its cut-off; ``"any"`` is their union bound.

    Repetition count: a run of C equal bytes starts at one of ``block`` places, each with
    probability 256^-(C-1). Adaptive proportion: a window that overlaps the block holds
    its first value C times or more; at most ceil(block/W) + 1 windows do. Compression:
    the bound of :func:`deflate_cutoff` at 8 bits a byte. Bits and linear complexity:
    the exact tails of :func:`bit_cutoff` and :func:`complexity_cutoff`.
    """
    rct = rct_cutoff(min_entropy)
    apt = apt_cutoff(min_entropy, window)
    rates = {"repetition count": block * 256.0 ** -(rct - 1)}
    # P(Bin(W - 1, 1/256) >= C - 1), in integers: sum C(W-1, k) 255^(W-1-k) / 256^(W-1).
    tail = sum(math.comb(window - 1, k) * 255 ** (window - 1 - k)
               for k in range(apt - 1, window))
    windows = -(-block // window) + 1
    rates["adaptive proportion"] = windows * tail / 256 ** (window - 1)
    deflate = deflate_cutoff(min_entropy, block)
    rates["compression"] = 2.0 ** (8 * (deflate + 1) - 8 * block) / 255 if deflate >= 0 else 0.0
    low = bit_cutoff(block)
    rates["bits"] = 16 * sum(math.comb(block, k) for k in range(low + 1)) / 2**block
    rates["linear complexity"] = 8 * complexity_tail(block, complexity_cutoff(block))
    cut = lag_cutoff(block)
    rates["lags"] = MAX_LAG * sum(math.comb(block, i) * 255 ** (block - i)
                                  for i in range(cut, block + 1)) / 256**block
    # About block/256 new anchors (a 0x00 is one byte in 256), each equal to one of at most
    # MAX_ANCHORS others with chance 256^-12; doubled for anchors that overlap.
    rates["replay"] = 2 * block / 256 * MAX_ANCHORS * 256.0**-ANCHOR_BYTES
    rates["any"] = sum(rates.values())
    return rates


def _new_deflater() -> Any:
    return zlib.compressobj(9, zlib.DEFLATED, -15, 9)


@dataclass
class HealthMonitor:
    """Runs every test over every byte fed to it, across calls: the one verdict on a device.

    The continuous tests judge each byte as it comes; the block tests judge each whole
    :data:`BLOCK` bytes, the first of them being the start-up test. A caller hands out
    bytes only from whole blocks that passed (:class:`pitable.hw.entropy.HwrngSource`
    reads one block at a time). :meth:`check` raises :class:`HealthTestFailure` as soon as
    a test fails; after that the monitor stays failed, since a source that failed once is
    not to be trusted again.
    """

    min_entropy: float = DEFAULT_MIN_ENTROPY
    window: int = APT_WINDOW
    block: int = BLOCK
    rct_limit: int = field(init=False)
    apt_limit: int = field(init=False)
    deflate_limit: int = field(init=False)
    bit_limit: int = field(init=False)
    complexity_limit: int = field(init=False)
    lag_limit: int = field(init=False)
    failure: str | None = field(default=None, init=False)
    #: Whole blocks that passed the block tests; the start-up test is passed at 1.
    blocks_passed: int = field(default=0, init=False)
    _last: int = field(default=-1, init=False)
    _run: int = field(default=0, init=False)
    _apt_value: int = field(default=-1, init=False)
    _apt_count: int = field(default=0, init=False)
    _apt_seen: int = field(default=0, init=False)
    _pending: bytearray = field(default_factory=bytearray, init=False)
    _deflater: Any = field(default_factory=_new_deflater, init=False, repr=False)
    #: Each anchor seen (the bytes after a 0x00) -> where it was, counted from the start.
    _anchors: dict[bytes, int] = field(default_factory=dict, init=False, repr=False)
    #: The last MAX_LAG bytes before the block being judged.
    _history: bytes = field(default=b"", init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 < self.min_entropy <= 8:
            raise ValueError(f"min-entropy {self.min_entropy}: expected 0 < H <= 8 bits a byte")
        if self.block < 1:
            raise ValueError(f"block of {self.block} bytes: expected at least 1")
        self.rct_limit = rct_cutoff(self.min_entropy)
        self.apt_limit = apt_cutoff(self.min_entropy, self.window)
        self.deflate_limit = deflate_cutoff(self.min_entropy, self.block)
        self.bit_limit = bit_cutoff(self.block)
        self.complexity_limit = complexity_cutoff(self.block)
        self.lag_limit = lag_cutoff(self.block)

    @property
    def started(self) -> bool:
        """True once the start-up test (the first whole block) has passed."""
        return self.blocks_passed > 0

    def check(self, data: bytes) -> None:
        """Feed raw bytes through every test; raise on the first failure.

        The block tests run on each block as soon as it is whole; bytes of a block not yet
        whole have passed the continuous tests only.
        """
        if self.failure is not None:
            raise HealthTestFailure(self.failure)
        self._continuous(data)
        self._pending += data
        while len(self._pending) >= self.block:
            block = bytes(self._pending[: self.block])
            del self._pending[: self.block]
            self._block_tests(block)
            self.blocks_passed += 1

    def _continuous(self, data: bytes) -> None:
        last, run = self._last, self._run
        value, count, seen = self._apt_value, self._apt_count, self._apt_seen
        rct_limit, apt_limit, window = self.rct_limit, self.apt_limit, self.window
        for byte in data:
            if byte == last:
                run += 1
                if run >= rct_limit:
                    self._fail(
                        f"repetition count test: byte 0x{byte:02x} repeated {run} times"
                        f" in a row (cut-off {rct_limit} for H={self.min_entropy:g})"
                    )
            else:
                last, run = byte, 1
            if seen == 0:
                value, count, seen = byte, 1, 1
                continue
            seen += 1
            if byte == value:
                count += 1
                if count >= apt_limit:
                    self._fail(
                        f"adaptive proportion test: byte 0x{value:02x} seen {count} times in a"
                        f" window of {window} (cut-off {apt_limit} for H={self.min_entropy:g})"
                    )
            if seen == window:
                seen = 0
        self._last, self._run = last, run
        self._apt_value, self._apt_count, self._apt_seen = value, count, seen

    def _block_tests(self, block: bytes) -> None:
        n = len(block)
        which = "start-up" if self.blocks_passed == 0 else "periodic"
        # A sync flush ends the block's output on a byte boundary and keeps the window, so
        # each block is coded against the bytes before it: a period longer than one block
        # is seen on its first repeat.
        size = len(self._deflater.compress(block)) + len(self._deflater.flush(zlib.Z_SYNC_FLUSH))
        if size <= self.deflate_limit:
            self._fail(
                f"{which} compression test: {n} bytes deflate to {size}, and {self.min_entropy:g}"
                f" bits a byte need more than {self.deflate_limit} (a repeating pattern, or"
                " too little entropy)"
            )
        self._lags(block, which)
        low = self.bit_limit
        sequences = []
        for j, table in enumerate(_BIT_TABLES):
            bits = block.translate(table)
            ones = bits.count(b"1")
            if ones <= low or ones >= n - low:
                self._fail(
                    f"{which} bit test: bit {j} is 1 in {ones} of {n} bytes"
                    f" (expected {low + 1} to {n - low - 1}: a stuck or biased bit)"
                )
            sequences.append(bits)
        if self.complexity_limit >= 0:
            for j, bits in enumerate(sequences):
                length = linear_complexity(int(bits, 2), n)
                if length <= self.complexity_limit:
                    self._fail(
                        f"{which} linear complexity test: bit {j} of {n} bytes follows a"
                        f" recurrence of length {length} (expected more than"
                        f" {self.complexity_limit}: a linear generator such as an LFSR)"
                    )

        self._replay(block, which)

    def _lags(self, block: bytes, which: str) -> None:
        # Equal bytes are zero bytes of the XOR of the two strings read as integers: one
        # pass in C a lag instead of a Python loop over every pair.
        window = self._history + block
        before, n = len(self._history), len(block)
        for k in range(1, min(MAX_LAG, len(window) - 1) + 1):
            first = max(before, k)
            a, b = window[first:before + n], window[first - k:before + n - k]
            if not a:
                break
            equal = (int.from_bytes(a) ^ int.from_bytes(b)).to_bytes(len(a)).count(0)
            if equal >= self.lag_limit:
                self._fail(
                    f"{which} lag test: {equal} of {len(a)} bytes equal the byte {k} places"
                    f" before them (fails at {self.lag_limit}; about {len(a) / 256:.0f}"
                    " expected): a pattern that part of the bytes follow"
                )
        self._history = window[-MAX_LAG:]

    def _replay(self, block: bytes, which: str) -> None:
        start = self.blocks_passed * self.block
        anchors = self._anchors
        i = block.find(0)
        while 0 <= i < len(block) - ANCHOR_BYTES:
            key = block[i + 1:i + 1 + ANCHOR_BYTES]
            seen = anchors.get(key)
            if seen is not None:
                self._fail(
                    f"{which} replay test: the {ANCHOR_BYTES} bytes after byte {start + i}"
                    f" came before, after byte {seen} (a recording played again)"
                )
            if len(anchors) < MAX_ANCHORS:
                anchors[key] = start + i
            i = block.find(0, i + 1)

    def _fail(self, message: str) -> None:
        self.failure = message
        raise HealthTestFailure(message)
