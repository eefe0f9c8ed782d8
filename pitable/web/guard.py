"""The PIN of the page's actions, and the lock-out of an address that keeps guessing it."""

from __future__ import annotations

import enum
import hmac
import secrets
from dataclasses import dataclass

from pitable.hw.clock import Clock

#: Wrong PINs from one address before it is locked out, and for how long.
TRIES = 5
LOCKOUT_S = 60.0
#: Addresses remembered at most: past this, those whose lock-out is over are forgotten
#: first, then the oldest, so that a flood of addresses cannot fill the memory.
MAX_ADDRESSES = 4096
#: Digits of a PIN chosen at start.
PIN_DIGITS = 6


class Verdict(enum.Enum):
    ALLOWED = 200
    FORBIDDEN = 403
    LOCKED = 429


@dataclass
class _Record:
    wrong: int
    last: float
    locked_until: float | None = None


def random_pin(digits: int = PIN_DIGITS) -> str:
    """A PIN of ``digits`` decimal digits from the operating system's generator."""
    return f"{secrets.randbelow(10**digits):0{digits}d}"


class PinGuard:
    """Checks the PIN of each action; ``TRIES`` wrong ones lock the address out for
    ``LOCKOUT_S`` seconds, during which even the right PIN is refused."""

    def __init__(self, pin: str, clock: Clock, *, tries: int = TRIES,
                 lockout_s: float = LOCKOUT_S, max_addresses: int = MAX_ADDRESSES) -> None:
        self.pin = pin
        self.clock = clock
        self.tries = tries
        self.lockout_s = lockout_s
        self.max_addresses = max_addresses
        self._records: dict[str, _Record] = {}

    def check(self, address: str, given: str | None) -> Verdict:
        now = self.clock.now()
        record = self._records.get(address)
        if record is not None and record.locked_until is not None:
            if now < record.locked_until:
                return Verdict.LOCKED
            del self._records[address]
            record = None
        if given is None:
            return Verdict.FORBIDDEN
        # Compared in constant time, so the answer's timing does not give away digits.
        if hmac.compare_digest(given.encode("utf-8", "replace"), self.pin.encode()):
            self._records.pop(address, None)
            return Verdict.ALLOWED
        if record is None:
            self._forget_some(now)
            record = self._records[address] = _Record(0, now)
        record.wrong += 1
        record.last = now
        if record.wrong >= self.tries:
            record.locked_until = now + self.lockout_s
        return Verdict.FORBIDDEN

    def _forget_some(self, now: float) -> None:
        if len(self._records) < self.max_addresses:
            return
        for address, record in list(self._records.items()):
            if record.locked_until is None or record.locked_until <= now:
                del self._records[address]
        while len(self._records) >= self.max_addresses:
            oldest = min(self._records, key=lambda a: self._records[a].last)
            del self._records[oldest]
