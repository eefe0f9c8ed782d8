"""The page server's budgets: connections per client and in all, deadlines, the Host, and
requests that must be refused with a 4xx rather than break the server.

The servers listen on 127.0.0.1; clients come from other loopback addresses
(``source_address``), which Linux routes to it like any other.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Iterator

import pytest

from pitable.config import BACKLOG, BOX_RESERVE, PageLimits
from pitable.web.budget import GRACE_S, ConnectionBudget, State
from pitable.web.hub import Hub
from pitable.web.server import WebServer
from tests.support.web import PIN, TIMEOUT_S, Events

# --- the connection budget, alone -------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def budget(**limits: int) -> tuple[ConnectionBudget, list[str]]:
    aborted: list[str] = []
    return ConnectionBudget(PageLimits(**limits), Clock()), aborted  # type: ignore[arg-type]


def test_a_client_holds_at_most_its_share_and_its_own_oldest_idle_one_makes_room() -> None:
    b, aborted = budget(connections=100, connections_per_client=3)
    slots = [b.admit("10.0.0.5", lambda i=i: aborted.append(f"a{i}")) for i in range(3)]
    assert all(slots)
    # A fourth from the same address takes the place of its oldest waiting one.
    assert b.admit("10.0.0.5", lambda: aborted.append("a3")) is not None
    assert aborted == ["a0"] and b.count("10.0.0.5") == 3
    # When none of its own is idle, it is refused.
    for slot in b.held["10.0.0.5"]:
        b.busy(slot, stream=False)
    assert b.admit("10.0.0.5", lambda: aborted.append("a4")) is None
    assert b.refused == 1


def test_a_full_room_makes_room_for_a_new_address_at_the_heaviest_client_s_cost() -> None:
    b, aborted = budget(connections=10, connections_per_client=10)
    for i in range(7):
        assert b.admit("10.0.0.66", lambda i=i: aborted.append(f"attacker {i}"))
    for i in range(3):
        assert b.admit(f"10.0.1.{i}", lambda i=i: aborted.append(f"phone {i}"))
    assert b.total == 10
    assert b.admit("10.0.2.1", lambda: aborted.append("newcomer")) is not None
    assert aborted == ["attacker 0"]
    assert b.total == 10 and b.count("10.0.0.66") == 6


def test_a_full_room_of_clients_being_answered_refuses_the_next() -> None:
    b, aborted = budget(connections=4, connections_per_client=4)
    for i in range(4):
        slot = b.admit(f"10.0.0.{i}", lambda i=i: aborted.append(f"x{i}"))
        assert slot is not None
        b.busy(slot, stream=False)
    assert b.admit("10.0.0.9", lambda: aborted.append("y")) is None
    assert aborted == []
    # One that has yet to send its headers gives way to a newcomer: a phone sends them at
    # once, a slow client does not.
    b.waiting(b.held["10.0.0.2"][0])
    assert b.admit("10.0.0.9", lambda: aborted.append("y")) is not None
    assert aborted == ["x2"]


def test_a_connection_just_accepted_is_not_taken_for_a_slow_one() -> None:
    now = [0.0]
    b = ConnectionBudget(PageLimits(connections=2, connections_per_client=2), lambda: now[0])
    aborted: list[str] = []
    assert b.admit("10.0.0.66", lambda: aborted.append("first"))
    assert b.admit("10.0.0.66", lambda: aborted.append("second"))
    now[0] += GRACE_S / 2  # a burst of phones: not read yet, not slow
    assert b.admit("10.0.0.9", lambda: None) is None and aborted == []
    now[0] += GRACE_S  # still no headers: slow
    assert b.admit("10.0.0.9", lambda: None) is not None and aborted == ["first"]


def test_an_ipv6_client_is_counted_by_its_64() -> None:
    b, _ = budget(connections=100, connections_per_client=2)
    assert b.admit("2001:db8:1:2::1", lambda: None)
    assert b.admit("2001:db8:1:2:ffff::9", lambda: None)
    slot = b.admit("2001:db8:1:2::77", lambda: None)
    assert slot is not None and b.count(slot.key) == 2
    # A dual-stack socket's IPv4 client is its IPv4 address.
    mapped = b.admit("::ffff:10.0.0.5", lambda: None)
    assert mapped is not None and b.count(mapped.key) == 1
    assert b.admit("10.0.0.5", lambda: None) and b.count(mapped.key) == 2


def test_an_event_stream_is_counted_apart_and_back_when_it_ends() -> None:
    b, _ = budget(connections=2, connections_per_client=2)
    slot = b.admit("10.0.0.5", lambda: None)
    assert slot is not None
    b.busy(slot, stream=True)
    assert slot.state is State.STREAM and b.total == 0
    assert b.admit("10.0.0.5", lambda: None) and b.admit("10.0.0.5", lambda: None)
    b.waiting(slot)
    assert b.total == 3 and b.count(slot.key) == 3
    b.release(slot)
    assert b.total == 2


def test_the_limits_fit_the_descriptors_left_beside_the_box_s_reserve() -> None:
    ample = PageLimits().fitted(65536)
    assert ample == PageLimits()
    tight = PageLimits().fitted(1024)
    assert tight.listeners + tight.connections <= 1024 - BOX_RESERVE - 2 * BACKLOG
    assert tight.listeners >= 300 and tight.connections >= 300


def test_a_full_room_of_streams_makes_room_only_at_a_heavier_client_s_cost() -> None:
    hub = Hub(max_clients=4, max_per_client=3)
    attacker = [hub.join("10.0.0.66") for _ in range(3)]
    hub.join("10.0.1.1")
    phone = hub.join("10.0.1.2")  # 3 > 0 + 1: the attacker's oldest stream goes
    assert attacker[0].closed and not phone.closed
    hub.join("10.0.1.3")  # 2 > 0 + 1: and again
    assert attacker[1].closed
    from pitable.errors import TooManyListeners

    with pytest.raises(TooManyListeners):
        hub.join("10.0.1.4")  # everyone holds one


# --- a real server -------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[WebServer]:
    served = WebServer("127.0.0.1", 0, PIN, lambda event: None,
                       limits=PageLimits(connections=12, connections_per_client=4, header_s=1.0,
                                     body_s=1.0, idle_s=0.5))
    served.start()
    yield served
    served.close()


def get(port: int, path: str = "/api/state", *, source: str = "127.0.0.1",
        headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S,
                                      source_address=(source, 0))
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closes ``sock`` (a read that ends or resets) within the timeout."""
    sock.settimeout(TIMEOUT_S)
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_a_connection_that_sends_no_headers_in_time_is_closed(server: WebServer) -> None:
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT_S) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
        assert closed_by_server(s)
    assert time.monotonic() - started < TIMEOUT_S


def test_slow_connections_from_a_few_addresses_leave_room_for_a_phone(
    server: WebServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every slow connection here counts as past its grace at once (no waiting in a test).
    monkeypatch.setattr("pitable.web.budget.GRACE_S", 0.0)
    held = []
    try:
        for host in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"):
            for _ in range(8):  # twice their share: half are refused or replaced
                s = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT_S,
                                             source_address=(host, 0))
                s.sendall(b"GET / HTTP/1.1\r\n")
                held.append(s)
        # The room (12) is full of slow ones, yet a phone from a fifth address gets in,
        # in the place of one of theirs.
        assert get(server.port, "/", source="127.0.0.9")[0] == 200
        assert server.budget.evicted + server.budget.refused >= 16
    finally:
        for s in held:
            s.close()


def test_an_event_stream_does_not_count_against_the_client_s_connections(
    server: WebServer,
) -> None:
    streams = [Events(server.port) for _ in range(6)]  # more than its 4 connections
    try:
        assert get(server.port)[0] == 503  # and the page still answers it
    finally:
        for stream in streams:
            stream.close()


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:80", "127.0.0.1.nip.io",
                                  "[::1", "127.0.0.1:x", "box.local.attacker.example"])
def test_a_host_that_is_not_the_box_is_421(server: WebServer, host: str) -> None:
    status, body = get(server.port, "/", headers={"Host": host})
    assert status == 421 and "Host" in json.loads(body)["error"]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8080", "[::1]:8080", "localhost",
                                  f"{socket.gethostname()}.local", socket.gethostname()])
def test_a_host_that_names_the_box_is_served(server: WebServer, host: str) -> None:
    assert get(server.port, "/", headers={"Host": host})[0] == 200


def test_a_configured_name_is_served() -> None:
    served = WebServer("127.0.0.1", 0, PIN, lambda event: None, names=("Dice.Example.org",))
    served.start()
    try:
        assert get(served.port, "/", headers={"Host": "dice.example.org:8080"})[0] == 200
        assert get(served.port, "/", headers={"Host": "other.example.org"})[0] == 421
    finally:
        served.close()


@pytest.mark.parametrize("body", [b"[" * 2000 + b"]" * 2000,
                                  b'{"title":' + b"[" * 1500 + b"]" * 1500 + b"}",
                                  b"[" * 4000])
def test_deeply_nested_json_is_400_not_500(server: WebServer, body: bytes) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT_S)
    try:
        conn.request("POST", "/api/new-game", body=body,
                     headers={"X-Pitable-Pin": PIN, "Content-Type": "application/json"})
        response = conn.getresponse()
        assert response.status == 400, response.read()
        assert "expected a JSON object" in json.loads(response.read())["error"]
    finally:
        conn.close()


def test_a_body_that_does_not_arrive_in_time_is_408(server: WebServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT_S) as s:
        s.sendall(b"POST /api/roll HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pitable-Pin: " +
                  PIN.encode() + b"\r\nContent-Length: 10\r\n\r\n{")
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = s.recv(4096)
            assert chunk, answer
            answer += chunk
        assert answer.startswith(b"HTTP/1.1 408 ")
