"""The box's network as the OS reports it: a route table standing in for /proc/net/route."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from pitable.hw import network

HEADER = ("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow"
          "\tIRTT\n")
#: The kernel's lines for a default route through 192.168.1.1, and for a LAN of its own.
DEFAULT = "{iface}\t00000000\t0101A8C0\t{flags}\t0\t0\t{metric}\t00000000\t0\t0\t0\n"
LAN = "{iface}\t0001A8C0\t00000000\t0001\t0\t0\t{metric}\t00FFFFFF\t0\t0\t0\n"


class RouteTable:
    """A route table file standing in for /proc/net/route. Its routes go through "lo",
    whose address (127.0.0.1) the kernel gives on any Linux machine."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[str] = []
        self.write()

    @classmethod
    def install(cls, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> RouteTable:
        """An empty table (no network yet), read wherever the box reads the real one."""
        table = cls(tmp_path / "route")
        monkeypatch.setattr(network, "ROUTES", table.path)
        return table

    def add_default(self, iface: str = "lo", metric: int = 600, *, up: bool = True) -> None:
        self.lines.append(DEFAULT.format(iface=iface, metric=metric,
                                         flags="0003" if up else "0002"))
        self.write()

    def add_lan(self, iface: str = "lo", metric: int = 600) -> None:
        self.lines.append(LAN.format(iface=iface, metric=metric))
        self.write()

    def clear(self) -> None:
        self.lines = []
        self.write()

    def write(self) -> None:
        self.path.write_text(HEADER + "".join(self.lines))


#: The name this machine answers to on its LAN, and the address of a page on every one.
LOCAL_NAME = f"{socket.gethostname()}.local"
WILDCARD = "http://0.0.0.0:8080/"
