"""The page's PIN cannot be guessed, from one address or from any number of them.

The guard is driven with a fake clock, first on its own (one test per limit), then through
a real server on 127.0.0.1, with guesses from 256 loopback source addresses (Linux lets a
client bind any 127.x.y.z) over a simulated hour.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from pitable.box.events import RollCommand
from pitable.hw.clock import FakeClock
from pitable.web.guard import (
    BUCKET_SIZE,
    LOCKOUT_MAX_S,
    LOCKOUT_S,
    PREFIX_LOCKOUT_MAX_S,
    PREFIX_TRIES,
    PRIORITY_S,
    QUIET_S,
    REFILL_S,
    TRIES,
    Decision,
    PinGuard,
    Verdict,
    client_key,
    prefix_key,
)
from tests.support.web import PIN, TIMEOUT_S, Page, serve

WRONG = "0000"
#: A bucket no test of another limit comes near, so that each limit is seen alone.
PLENTY = 10**6
YEAR_S = 365 * 86400.0


def guard(**limits: Any) -> tuple[PinGuard, FakeClock]:
    """A guard of the test's PIN with ``limits`` (the box's, unless given) and its clock."""
    clock = FakeClock()
    return PinGuard(PIN, clock, **limits), clock


# --- whom the limits count -----------------------------------------------------------------


@pytest.mark.parametrize(("host", "client", "prefix"), [
    ("192.168.1.23", "192.168.1.23", "192.168.1.0/24"),
    ("::ffff:192.168.1.23", "192.168.1.23", "192.168.1.0/24"),
    ("2001:db8:aa:bb:1:2:3:4", "2001:db8:aa:bb::/64", "2001:db8:aa::/48"),
    ("fe80::1%eth0", "fe80::1", "fe80::/48"),
    ("not an address", "not an address", "not an address"),
])
def test_clients_are_keyed_by_address_and_by_network(host: str, client: str,
                                                     prefix: str) -> None:
    assert client_key(host) == client
    assert prefix_key(host) == prefix


def test_the_addresses_of_one_ipv6_64_are_one_client() -> None:
    pins, _ = guard(bucket_size=PLENTY)
    for i in range(TRIES):
        assert pins.check(f"2001:db8:0:1::{i + 1:x}", WRONG).verdict is Verdict.FORBIDDEN
    assert pins.check("2001:db8:0:1:ffff:ffff:ffff:ffff", PIN).verdict is Verdict.LOCKED
    assert pins.check("2001:db8:0:2::1", PIN).verdict is Verdict.ALLOWED


def test_an_ipv4_mapped_address_is_its_ipv4_address() -> None:
    pins, _ = guard()
    for _ in range(TRIES - 1):
        pins.check("::ffff:10.0.0.5", WRONG)
    assert pins.check("10.0.0.5", WRONG) == Decision(Verdict.FORBIDDEN, 0, LOCKOUT_S)
    assert pins.check("::ffff:10.0.0.5", PIN).verdict is Verdict.LOCKED


# --- one address ---------------------------------------------------------------------------


def test_the_tries_left_count_down_to_a_wait() -> None:
    pins, _ = guard()
    assert pins.check("10.0.0.5", None) == Decision(Verdict.FORBIDDEN, TRIES)
    left = [pins.check("10.0.0.5", WRONG).tries_left for _ in range(TRIES)]
    assert left == [*range(TRIES - 1, 0, -1), 0]
    assert pins.check("10.0.0.5", PIN) == Decision(Verdict.LOCKED, retry_after=LOCKOUT_S)


def test_the_time_left_counts_down() -> None:
    pins, clock = guard()
    for _ in range(TRIES):
        pins.check("10.0.0.5", WRONG)
    clock.advance(17.5)
    decision = pins.check("10.0.0.5", PIN)
    assert decision.retry_after == LOCKOUT_S - 17.5 and decision.retry_after_s == 43
    clock.advance(LOCKOUT_S - 17.5)
    assert pins.check("10.0.0.5", PIN).verdict is Verdict.ALLOWED


def test_an_address_waits_twice_as_long_after_each_further_wrong_pin_up_to_an_hour() -> None:
    pins, clock = guard(bucket_size=PLENTY)
    waits = []
    for _ in range(TRIES + 10):
        decision = pins.check("10.0.0.5", WRONG)
        assert decision.verdict is Verdict.FORBIDDEN, "each guess comes once the wait is over"
        if decision.retry_after is not None:
            waits.append(decision.retry_after)
            assert pins.check("10.0.0.5", PIN).verdict is Verdict.LOCKED
            clock.advance(decision.retry_after)
    assert waits[:4] == [LOCKOUT_S, 2 * LOCKOUT_S, 4 * LOCKOUT_S, 8 * LOCKOUT_S]
    assert max(waits) == waits[-1] == LOCKOUT_MAX_S


def test_a_right_pin_forgets_the_address_s_wrong_ones_but_not_the_prefix_s() -> None:
    pins, _ = guard(bucket_size=PLENTY, prefix_tries=TRIES + 1)
    for _ in range(TRIES - 1):
        pins.check("10.0.0.5", WRONG)
    assert pins.check("10.0.0.5", PIN).verdict is Verdict.ALLOWED
    assert pins.check("10.0.0.5", WRONG).tries_left == 1, "the prefix's, not the address's"
    assert pins.check("10.0.0.5", WRONG).retry_after is not None
    assert pins.check("10.0.0.9", PIN).verdict is Verdict.LOCKED


def test_a_right_pin_does_not_refill_the_bucket() -> None:
    pins, _ = guard()
    for i in range(BUCKET_SIZE - 1):
        pins.check(f"10.0.{i}.5", WRONG)
    assert pins.check("10.0.99.5", PIN).verdict is Verdict.ALLOWED
    assert pins.check("10.0.99.6", WRONG).verdict is Verdict.FORBIDDEN, "the last token"
    assert pins.check("10.0.98.5", PIN) == Decision(Verdict.LOCKED, retry_after=REFILL_S)


def test_a_quiet_day_forgets_an_address_s_wrong_pins() -> None:
    pins, clock = guard(bucket_size=PLENTY)
    for _ in range(TRIES):
        pins.check("10.0.0.5", WRONG)
    clock.advance(QUIET_S)
    assert pins.check("10.0.0.5", WRONG).tries_left == TRIES - 1


# --- one network ---------------------------------------------------------------------------


def test_a_network_waits_after_many_wrong_pins_but_never_over_a_minute() -> None:
    pins, clock = guard(bucket_size=PLENTY)
    for i in range(PREFIX_TRIES - 1):
        assert pins.check(f"10.1.2.{i}", WRONG).retry_after is None
    waits = []
    for i in range(PREFIX_TRIES - 1, PREFIX_TRIES + 20):
        decision = pins.check(f"10.1.2.{i}", WRONG)
        assert decision.verdict is Verdict.FORBIDDEN and decision.retry_after is not None
        waits.append(decision.retry_after)
        honest = pins.check("10.1.2.250", PIN)
        assert honest == Decision(Verdict.LOCKED, retry_after=decision.retry_after)
        clock.advance(decision.retry_after)
    assert waits == sorted(waits) and waits[0] < waits[-1] == PREFIX_LOCKOUT_MAX_S == 60
    assert pins.check("10.1.3.1", PIN).verdict is Verdict.ALLOWED, "another network"


# --- everyone together ---------------------------------------------------------------------


def test_guesses_from_any_number_of_addresses_are_bounded_by_the_bucket() -> None:
    pins, clock = guard()
    span_s, evaluated = 6 * 3600.0, 0
    for i in range(int(span_s)):  # a fresh address on a fresh network every second
        decision = pins.check(f"{10 + i // 65536}.{i // 256 % 256}.{i % 256}.1", WRONG)
        evaluated += decision.verdict is Verdict.FORBIDDEN
        clock.advance(1.0)
    assert BUCKET_SIZE + span_s / REFILL_S - 1 <= evaluated <= BUCKET_SIZE + span_s / REFILL_S


def test_a_waiting_guesser_s_pin_is_not_compared() -> None:
    pins, _ = guard()
    for i in range(BUCKET_SIZE):
        pins.check(f"10.0.{i}.5", WRONG)
    # The right PIN is refused like a wrong one: the answer says nothing about it.
    assert pins.check("10.0.0.5", PIN) == pins.check("10.0.0.5", WRONG)
    assert pins.check("10.0.200.5", PIN).verdict is Verdict.LOCKED, "even from a new address"


def test_a_token_that_comes_back_goes_first_to_an_address_with_no_wrong_pin() -> None:
    pins, clock = guard()
    for i in range(BUCKET_SIZE):
        pins.check(f"10.0.{i}.5", WRONG)
    clock.advance(REFILL_S)
    assert pins.check("10.0.3.5", WRONG) == Decision(Verdict.LOCKED, retry_after=PRIORITY_S)
    assert pins.check("10.0.3.6", PIN).verdict is Verdict.ALLOWED
    clock.advance(PRIORITY_S)
    assert pins.check("10.0.3.5", WRONG).verdict is Verdict.FORBIDDEN, "then anyone's"


@pytest.mark.parametrize("arrives_s", [0.0, 1.0, 14.5, 15.0, 29.0, 44.9])
def test_an_honest_player_gets_in_within_a_minute_while_guessers_drain_the_bucket(
        arrives_s: float) -> None:
    pins, clock = guard()
    guessers = [f"10.0.{i}.5" for i in range(BUCKET_SIZE)]
    for host in guessers:
        pins.check(host, WRONG)
    clock.advance(arrives_s)
    waited = 0.0
    while True:
        for host in guessers:  # the guessers go first, every time the clock moves
            pins.check(host, WRONG)
        decision = pins.check("10.0.77.7", PIN)
        if decision.verdict is Verdict.ALLOWED:
            break
        assert decision.retry_after_s is not None
        clock.advance(decision.retry_after_s)
        waited += decision.retry_after_s
        assert waited <= 60
    assert waited > 0, "the bucket was empty when the player came"


def test_a_flood_of_addresses_does_not_free_a_waiting_one() -> None:
    pins, _ = guard(bucket_size=PLENTY, max_addresses=100)
    for _ in range(TRIES):
        pins.check("10.0.0.5", WRONG)
    for i in range(10_000):
        pins.check(f"10.{i // 256 % 256}.{i % 256}.{1 + i // 65536}", WRONG)
    assert pins.remembered[0] <= 100 and pins.remembered[1] <= 100
    assert pins.check("10.0.0.5", PIN).verdict is Verdict.LOCKED


# --- through the server --------------------------------------------------------------------


@pytest.fixture
def page() -> Iterator[Page]:
    served = serve()
    yield served
    served.server.close()


def act(page: Page, source: str, pin: str,
        headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    """POST /api/roll from the loopback address ``source``: the status and the headers."""
    conn = http.client.HTTPConnection("127.0.0.1", page.port, timeout=TIMEOUT_S,
                                      source_address=(source, 0))
    try:
        conn.request("POST", "/api/roll", headers={"X-Pitable-Pin": pin, **(headers or {})})
        response = conn.getresponse()
        body = json.loads(response.read())
        assert response.status in (202, 403, 429), body
        return response.status, dict(response.getheaders())
    finally:
        conn.close()


def test_256_addresses_guessing_for_an_hour_would_need_over_a_year_for_every_pin(
        page: Page) -> None:
    attackers = [f"127.0.{net}.{host}" for net in range(1, 9) for host in range(1, 33)]
    span_s, step_s, per_step = 3600.0, 10.0, 4
    counts = {403: 0, 429: 0}
    guessed: list[str] = []  # the addresses that have a wrong PIN on record

    def guess(source: str) -> int:
        status, _ = act(page, source, f"{sum(counts.values()):06d}")
        counts[status] += 1
        if status == 403 and source not in guessed:
            guessed.append(source)
        return status

    for source in attackers:
        guess(source)
    for step in range(int(span_s / step_s)):
        page.clock.advance(step_s)
        for k in range(per_step):
            guess(attackers[(step * per_step + k) % len(attackers)])
    evaluated = counts[403]
    rate = evaluated / span_s
    years = 10**6 / rate / YEAR_S
    print(f"\n{sum(counts.values())} guesses from {len(attackers)} addresses in a simulated"
          f" hour: {evaluated} compared, {counts[429]} refused; {rate * 3600:.0f} an hour,"
          f" so every 6-digit PIN would take {years:.2f} years")
    assert BUCKET_SIZE + span_s / REFILL_S - 2 <= evaluated <= BUCKET_SIZE + span_s / REFILL_S + 1
    assert years >= 1
    assert page.posted == []

    # Whatever token is left, guessers with no wrong PIN yet take it before the player comes.
    fresh = [a for a in attackers if a not in guessed]
    while guess(fresh.pop()) == 403:
        pass
    honest, waited = "127.0.3.200", 0
    while (answer := act(page, honest, PIN))[0] == 429:
        seconds = int(answer[1]["retry-after"])
        page.clock.advance(seconds)
        waited += seconds
        assert waited <= 60, "an honest player waited over a minute"
        for source in guessed[:8]:  # the guessers go first, every time the clock moves
            guess(source)
    assert answer[0] == 202 and waited > 0
    assert page.posted == [RollCommand()]


def test_a_forwarded_address_does_not_dodge_a_wait(page: Page) -> None:
    for _ in range(TRIES):
        assert act(page, "127.0.0.1", WRONG)[0] == 403
    elsewhere = {"X-Forwarded-For": "10.9.8.7", "X-Real-IP": "10.9.8.7",
                 "Forwarded": "for=10.9.8.7"}
    # uvicorn trusts these headers from 127.0.0.1 unless told not to.
    assert act(page, "127.0.0.1", PIN, elsewhere)[0] == 429
    assert act(page, "127.0.0.2", PIN, {"X-Forwarded-For": "127.0.0.1"})[0] == 202
