"""The PIN of the page's actions, and the limits that keep anyone from guessing it.

Three limits, each with a wait that grows:

* an address (an IPv4 address, or the /64 of an IPv6 one) has :data:`TRIES` wrong PINs
  free, then waits :data:`LOCKOUT_S`, doubling with each further wrong one up to
  :data:`LOCKOUT_MAX_S`;
* a prefix (IPv4 /24, IPv6 /48) has :data:`PREFIX_TRIES` free, then waits
  :data:`PREFIX_LOCKOUT_S`, doubling up to :data:`PREFIX_LOCKOUT_MAX_S` (a minute: an honest
  player who shares a network with a guesser never waits longer because of the prefix);
* all together, a PIN is compared only with a token from one bucket of
  :data:`BUCKET_SIZE` that gains one every :data:`REFILL_S`. With no token the PIN is not
  compared at all, so a guesser with any number of addresses learns nothing while it waits
  and evaluates at most ``BUCKET_SIZE + t / REFILL_S`` guesses in ``t`` seconds.

The address and prefix limits keep one guesser from spending the bucket alone; the bucket is
the bound that holds however many addresses a guesser has (a flood of them is forgotten
within :data:`MAX_ADDRESSES`, and a forgotten address is fresh again).
"""

from __future__ import annotations

import enum
import hmac
import ipaddress
import math
import secrets
from dataclasses import dataclass

from pitable.hw.clock import Clock

#: Wrong PINs from one address before it waits; its first wait, doubling with each further
#: wrong one, and the longest.
TRIES = 5
LOCKOUT_S = 60.0
LOCKOUT_MAX_S = 3600.0
#: Wrong PINs from one prefix (IPv4 /24, IPv6 /48) before it waits; its first wait, doubling,
#: and the longest: a minute, since honest players share the prefix.
PREFIX_TRIES = 30
PREFIX_LOCKOUT_S = 5.0
PREFIX_LOCKOUT_MAX_S = 60.0
#: Guesses compared at once at most, and the seconds for each further one. From any number of
#: addresses, every 6-digit PIN takes (10**6 - 10) * 45 s = 4.5e7 s, about 1.43 years
#: (half of them, the expected search, about 0.71 years).
BUCKET_SIZE = 10
REFILL_S = 45.0
#: For this long after a token comes back, only an address with no wrong PIN on record may
#: spend it: a player who retries when told is not beaten to it by a repeat guesser.
PRIORITY_S = 15.0
#: An address or prefix with no wrong PIN for this long is forgotten (its waits are over).
QUIET_S = 86400.0
#: Addresses remembered at most, and as many prefixes: past this, those whose wait is over
#: are forgotten first, oldest first, so that a flood of addresses cannot fill the memory.
MAX_ADDRESSES = 4096
#: Digits of a PIN chosen at start.
PIN_DIGITS = 6
#: The bits of a prefix's key: IPv4 /24, IPv6 /48; an IPv6 address's own key is its /64,
#: since one machine is usually handed a whole /64.
IPV4_PREFIX = 24
IPV6_ADDRESS = 64
IPV6_PREFIX = 48


class Verdict(enum.Enum):
    ALLOWED = 200
    FORBIDDEN = 403
    LOCKED = 429


@dataclass(frozen=True)
class Decision:
    """What :meth:`PinGuard.check` decided. ``tries_left``: wrong PINs this address may
    still send before a wait (with FORBIDDEN; others on the network may spend the shared
    ones sooner). ``retry_after``: seconds until this client's next PIN may be compared (with
    LOCKED, and with a FORBIDDEN whose wrong PIN started a wait)."""

    verdict: Verdict
    tries_left: int | None = None
    retry_after: float | None = None

    @property
    def retry_after_s(self) -> int | None:
        """``retry_after`` in whole seconds, rounded up (as a ``Retry-After`` header has it),
        so that a client that waits as told is not early."""
        return None if self.retry_after is None else math.ceil(self.retry_after)


def _parse(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None
    # A socket bound to "::" reports an IPv4 client as ::ffff:a.b.c.d.
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _network(ip: ipaddress.IPv4Address | ipaddress.IPv6Address, bits: int) -> str:
    # Built from the integer, so that an IPv6 scope (fe80::1%eth0) does not get in the way.
    width = ip.max_prefixlen
    masked = int(ip) >> (width - bits) << (width - bits)
    return str(ipaddress.ip_network((masked, bits)))


def client_key(host: str) -> str:
    """The key that one client's limits are counted under: an IPv4 address itself, the /64
    of an IPv6 one (a link-local one itself), an IPv4-mapped IPv6 address as its IPv4;
    anything else as given."""
    ip = _parse(host)
    if ip is None:
        return host
    if ip.version == 4:
        return str(ip)
    if ip.is_link_local:
        # fe80::/64 is every machine on the link: there each address is its own client.
        return str(ipaddress.IPv6Address(int(ip)))  # without its scope (%eth0)
    return _network(ip, IPV6_ADDRESS)


def prefix_key(host: str) -> str:
    """The key of the network ``host`` is on: its IPv4 /24 or IPv6 /48 (IPv4-mapped
    addresses as IPv4); anything unparsable as given."""
    ip = _parse(host)
    if ip is None:
        return host
    return _network(ip, IPV4_PREFIX if ip.version == 4 else IPV6_PREFIX)


def random_pin(digits: int = PIN_DIGITS) -> str:
    """A PIN of ``digits`` decimal digits from the operating system's generator."""
    return f"{secrets.randbelow(10**digits):0{digits}d}"


@dataclass
class _Record:
    wrong: int
    last: float
    locked_until: float = -math.inf


class _Limit:
    """Wrong PINs per key: ``tries`` free, then a wait of ``first_s`` that doubles with each
    further one up to ``max_s``; at most ``size`` keys remembered."""

    def __init__(self, tries: int, first_s: float, max_s: float, size: int) -> None:
        self.tries = tries
        self.first_s = first_s
        self.max_s = max_s
        self.size = size
        self.records: dict[str, _Record] = {}

    def get(self, key: str, now: float) -> _Record | None:
        record = self.records.get(key)
        if record is not None and now - record.last >= QUIET_S and now >= record.locked_until:
            del self.records[key]
            return None
        return record

    def wait(self, record: _Record | None, now: float) -> float:
        return 0.0 if record is None else max(0.0, record.locked_until - now)

    def left(self, record: _Record | None) -> int:
        return self.tries - (0 if record is None else record.wrong)

    def wrong(self, key: str, now: float) -> None:
        record = self.get(key, now)
        if record is None:
            self._make_room(now)
            record = self.records[key] = _Record(0, now)
        record.wrong += 1
        record.last = now
        beyond = record.wrong - self.tries
        if beyond >= 0:
            # min() before the power would overflow for a key that keeps at it for years.
            record.locked_until = now + min(self.first_s * 2.0 ** min(beyond, 64), self.max_s)

    def _make_room(self, now: float) -> None:
        if len(self.records) < self.size:
            return
        # Down to three quarters at once, so that sorting is paid for once per many keys.
        keep = self.size * 3 // 4
        over = sorted((r.last, k) for k, r in self.records.items() if r.locked_until <= now)
        for _, key in over[: max(0, len(self.records) - keep)]:
            del self.records[key]
        if len(self.records) >= self.size:  # every one is waiting: the oldest go anyway
            oldest = sorted((r.last, k) for k, r in self.records.items())
            for _, key in oldest[: len(self.records) - keep]:
                del self.records[key]


class PinGuard:
    """Checks the PIN of each action against the limits of the module's docstring.

    A wrong PIN spends a token of the bucket; a right one spends none, but is compared
    only when a token is there for it, like any other (so a waiting guesser cannot tell a
    right PIN from a wrong one). A right PIN forgets the wrong ones of its address, not
    those of its prefix or the bucket's. A missing PIN is refused without being counted.

    For :data:`PRIORITY_S` after a token comes back, only an address with no wrong PIN on
    record may spend it, so an honest player on a fresh address who retries when told gets
    in within a minute while repeat guessers drain the bucket. What is left: a guesser who
    still holds fresh addresses can race for that token too, and a player whose own prefix
    is waiting may come back after the token's head start is over.
    """

    def __init__(
        self,
        pin: str,
        clock: Clock,
        *,
        tries: int = TRIES,
        lockout_s: float = LOCKOUT_S,
        lockout_max_s: float = LOCKOUT_MAX_S,
        prefix_tries: int = PREFIX_TRIES,
        prefix_lockout_s: float = PREFIX_LOCKOUT_S,
        prefix_lockout_max_s: float = PREFIX_LOCKOUT_MAX_S,
        bucket_size: int = BUCKET_SIZE,
        refill_s: float = REFILL_S,
        priority_s: float = PRIORITY_S,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        self.pin = pin
        self.clock = clock
        self.bucket_size = bucket_size
        self.refill_s = refill_s
        self.priority_s = priority_s
        self._addresses = _Limit(tries, lockout_s, lockout_max_s, max_addresses)
        self._prefixes = _Limit(prefix_tries, prefix_lockout_s, prefix_lockout_max_s,
                                max_addresses)
        self._tokens = float(bucket_size)
        self._tokens_at = clock.now()
        #: When the bucket's next whole token came or comes back, after it last ran dry.
        self._returns_at = -math.inf

    @property
    def remembered(self) -> tuple[int, int]:
        """The addresses and the prefixes on record."""
        return len(self._addresses.records), len(self._prefixes.records)

    def check(self, host: str, given: str | None) -> Decision:
        """Whether ``given`` (None: no PIN sent) from the client at ``host`` is let through."""
        now = self.clock.now()
        akey, pkey = client_key(host), prefix_key(host)
        address = self._addresses.get(akey, now)
        prefix = self._prefixes.get(pkey, now)
        self._refill(now)
        wait = self._wait(address, prefix, now)
        if wait > 0:
            return Decision(Verdict.LOCKED, retry_after=wait)
        if given is None:
            return Decision(Verdict.FORBIDDEN, tries_left=self._left(address, prefix))
        # Compared in constant time, so the answer's timing does not give away digits.
        if hmac.compare_digest(given.encode("utf-8", "replace"), self.pin.encode()):
            self._addresses.records.pop(akey, None)
            return Decision(Verdict.ALLOWED)
        self._spend(now)
        self._addresses.wrong(akey, now)
        self._prefixes.wrong(pkey, now)
        address, prefix = self._addresses.records[akey], self._prefixes.records[pkey]
        wait = self._wait(address, prefix, now)
        if wait > 0:
            return Decision(Verdict.FORBIDDEN, tries_left=0, retry_after=wait)
        return Decision(Verdict.FORBIDDEN, tries_left=self._left(address, prefix))

    def _wait(self, address: _Record | None, prefix: _Record | None, now: float) -> float:
        fresh = address is None or address.wrong == 0
        return max(self._addresses.wait(address, now), self._prefixes.wait(prefix, now),
                   self._bucket_wait(fresh, now))

    def _left(self, address: _Record | None, prefix: _Record | None) -> int:
        return max(0, min(self._addresses.left(address), self._prefixes.left(prefix),
                          math.floor(self._tokens)))

    def _refill(self, now: float) -> None:
        self._tokens = min(float(self.bucket_size),
                           self._tokens + (now - self._tokens_at) / self.refill_s)
        self._tokens_at = now
        if self._tokens < 1 and now >= self._returns_at:
            # The token promised for _returns_at is there from that moment, whatever the
            # rounding of the sums above.
            self._tokens = 1.0

    def _bucket_wait(self, fresh: bool, now: float) -> float:
        """Seconds until a token is there for this client (the bucket refilled to now)."""
        if self._tokens < 1:
            return self._returns_at - now + (0.0 if fresh else self.priority_s)
        return 0.0 if fresh else max(0.0, self._returns_at + self.priority_s - now)

    def _spend(self, now: float) -> None:
        self._tokens -= 1
        if self._tokens < 1:
            self._returns_at = now + (1 - self._tokens) * self.refill_s
