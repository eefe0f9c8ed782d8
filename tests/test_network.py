"""The machine's address on the network, read from a route table (a test's own file here)
and read again as routes come and go, and the page's URL built from it."""

from __future__ import annotations

import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from pitable.box.join import join_code
from pitable.hw import network
from pitable.hw.network import (
    bound_url,
    default_route,
    lan_address,
    page_url,
    shown_url,
)
from pitable.render.join import JoinCode
from tests.support.network import LOCAL_NAME, WILDCARD, RouteTable


def test_with_no_route_at_all_the_page_is_at_the_machines_mdns_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    RouteTable.install(monkeypatch, tmp_path)
    assert lan_address() == LOCAL_NAME
    box = SimpleNamespace(web_url=WILDCARD, web_pin="4821")
    code = join_code(box)
    assert code is not None and code.url == f"http://{LOCAL_NAME}:8080/"


def test_a_default_route_that_comes_up_changes_the_join_url(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    routes = RouteTable.install(monkeypatch, tmp_path)
    box = SimpleNamespace(web_url=WILDCARD, web_pin="4821")
    routes.add_default("lo")  # the Wi-Fi comes up after the box started
    code = join_code(box)
    assert code is not None and code.url == "http://127.0.0.1:8080/"
    assert code.pin == "4821"
    assert box.web_url == WILDCARD  # the box keeps the URL as bound
    routes.clear()  # and goes away again
    code = join_code(box)
    assert code is not None and code.url == f"http://{LOCAL_NAME}:8080/"


def test_a_lan_without_a_gateway_is_found_without_a_default_route(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The Pi's own hotspot: a LAN route, no way off it."""
    routes = RouteTable.install(monkeypatch, tmp_path)
    routes.add_lan("lo")
    assert default_route() is None
    assert lan_address() == "127.0.0.1"


def test_an_interface_without_an_address_is_passed_over(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    routes = RouteTable.install(monkeypatch, tmp_path)
    routes.add_default("nosuch0", metric=100)
    assert lan_address() == LOCAL_NAME
    routes.add_lan("lo")
    assert lan_address() == "127.0.0.1"


def test_the_default_route_is_the_one_the_kernel_sends_by(tmp_path: Path) -> None:
    """The lowest metric among the routes that are up (Wi-Fi and Ethernet both plugged)."""
    routes = RouteTable(tmp_path / "route")
    routes.add_default("eth0", metric=100, up=False)
    routes.add_default("eth1", metric=600)
    routes.add_default("wlan0", metric=300)
    found = default_route(routes.path)
    assert found is not None and found.interface == "wlan0"


def test_an_unreadable_route_table_counts_as_no_route(tmp_path: Path) -> None:
    assert default_route(tmp_path / "missing") is None
    assert lan_address(tmp_path / "missing") == LOCAL_NAME


def test_this_machines_own_route_table_gives_an_address_or_its_name() -> None:
    found = lan_address()
    if not found.endswith(".local"):
        socket.inet_aton(found)  # an IPv4 address


@pytest.mark.parametrize(
    ("host", "bound"),
    [("0.0.0.0", "http://0.0.0.0:8080/"), ("::", "http://[::]:8080/"),
     ("", "http://0.0.0.0:8080/"), ("127.0.0.1", "http://127.0.0.1:8080/"),
     ("::1", "http://[::1]:8080/"), ("pitable.local", "http://pitable.local:8080/")],
)
def test_the_bound_url_keeps_the_host_as_bound(host: str, bound: str) -> None:
    assert bound_url(host, 8080) == bound


@pytest.mark.parametrize(
    ("host", "lan", "expected"),
    [("0.0.0.0", "192.168.1.23", "http://192.168.1.23:8080/"),
     ("::", "192.168.1.23", "http://192.168.1.23:8080/"),
     ("::", "fd00::23", "http://[fd00::23]:8080/"),
     ("0.0.0.0", "pitable.local", "http://pitable.local:8080/"),
     ("127.0.0.1", "192.168.1.23", "http://127.0.0.1:8080/"),
     ("::1", "192.168.1.23", "http://[::1]:8080/")],
)
def test_the_page_url_on_every_address_is_the_machines_own(
    host: str, lan: str, expected: str
) -> None:
    assert page_url(host, 8080, lan) == expected
    assert shown_url(bound_url(host, 8080), lan) == expected


def test_the_page_url_reads_the_address_at_the_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    routes = RouteTable.install(monkeypatch, tmp_path)
    assert page_url("0.0.0.0", 8080) == f"http://{LOCAL_NAME}:8080/"
    routes.add_default("lo")
    assert page_url("0.0.0.0", 8080) == "http://127.0.0.1:8080/"


def test_a_named_bind_never_reads_the_route_table(monkeypatch: pytest.MonkeyPatch) -> None:
    def no(*_: object) -> list[network.Route]:
        raise AssertionError("read the route table")

    monkeypatch.setattr(network, "routes", no)
    box = SimpleNamespace(web_url="http://192.168.1.23:8080/", web_pin=None)
    assert join_code(box) == JoinCode("http://192.168.1.23:8080/", None)
    assert page_url("192.168.1.23", 8080) == "http://192.168.1.23:8080/"


def test_where_the_page_seats_players_the_code_leads_to_a_sheet(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    routes = RouteTable.install(monkeypatch, tmp_path)
    routes.add_default("lo")
    box = SimpleNamespace(web_url=WILDCARD, web_pin="4821", web_play=True)
    code = join_code(box)
    assert code is not None and code.url == "http://127.0.0.1:8080/play"
    box.web_play = False
    code = join_code(box)
    assert code is not None and code.url == "http://127.0.0.1:8080/"
