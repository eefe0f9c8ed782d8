"""NIST SP 800-90B continuous health tests on raw entropy bytes.

The Repetition Count Test (section 4.4.1) catches a source stuck on one value; the
Adaptive Proportion Test (section 4.4.2) catches a source that repeats one value far
too often within a window (a stuck bit, a short repeating pattern). Both cut-offs are
derived from the claimed min-entropy per byte ``H`` and a false alarm rate of 2^-20.

These few lines are written here rather than taken from a library: no maintained Python
package implements the 90B continuous tests (the reference implementation is a C++ tool
for offline assessment), and the box must run them on every byte it rolls from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from pitable.errors import HealthTestFailure

#: False alarm probability of each test: 2^-20, the value SP 800-90B recommends.
ALPHA_LOG2 = 20
#: The claimed min-entropy of one raw byte of /dev/hwrng. The Pi's generators
#: (bcm2835-rng, iproc-rng200) hand out whitened bytes close to 8 bits; claiming 6 keeps a
#: wide margin against false alarms while letting the APT see short repeating patterns.
DEFAULT_MIN_ENTROPY = 6.0
#: SP 800-90B's window for non-binary samples.
APT_WINDOW = 512


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


@dataclass
class HealthMonitor:
    """Runs both tests continuously over every byte fed to it, across calls.

    :meth:`check` raises :class:`HealthTestFailure` as soon as a test fails; after that the
    monitor stays failed, since a source that failed once is not to be trusted again.
    """

    min_entropy: float = DEFAULT_MIN_ENTROPY
    window: int = APT_WINDOW
    rct_limit: int = field(init=False)
    apt_limit: int = field(init=False)
    failure: str | None = field(default=None, init=False)
    _last: int = field(default=-1, init=False)
    _run: int = field(default=0, init=False)
    _apt_value: int = field(default=-1, init=False)
    _apt_count: int = field(default=0, init=False)
    _apt_seen: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if not 0 < self.min_entropy <= 8:
            raise ValueError(f"min-entropy {self.min_entropy}: expected 0 < H <= 8 bits a byte")
        self.rct_limit = rct_cutoff(self.min_entropy)
        self.apt_limit = apt_cutoff(self.min_entropy, self.window)

    def check(self, data: bytes) -> None:
        """Feed raw bytes through both tests; raise on the first failure."""
        if self.failure is not None:
            raise HealthTestFailure(self.failure)
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

    def _fail(self, message: str) -> None:
        self.failure = message
        raise HealthTestFailure(message)
