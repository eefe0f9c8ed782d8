"""The machine's address on the local network, and how the table's page is reached at it.

The web server binds an address, often a wildcard (``0.0.0.0`` or ``::``, every interface)
that a phone cannot open; a phone opens the machine's own address on the LAN instead. That
address is read without sending anything: the default route from the kernel's route table
(``/proc/net/route``) and its interface's IPv4 address from the interface itself (the
``SIOCGIFADDR`` ioctl). Both are local reads of a few hundred bytes, cheap enough to do
again each time the address is shown, so that it follows the network as it comes and goes
(Wi-Fi is often up only after the box has started).

:data:`ROUTES` is the route table read when a caller names none; a test points it at a file
of its own.
"""

from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

#: The kernel's IPv4 route table, read when a caller names none.
ROUTES = Path("/proc/net/route")
#: Linux's ioctl that gives an interface's IPv4 address.
SIOCGIFADDR = 0x8915
#: A route's flag: the route is up.
RTF_UP = 0x1


@dataclass(frozen=True)
class Route:
    """One line of the route table: where it leads and through what."""

    interface: str
    #: The destination and mask as the kernel writes them (hex, in network byte order).
    destination: str
    mask: str
    gateway: str
    metric: int

    @property
    def default(self) -> bool:
        return self.destination == "00000000" and self.mask == "00000000"


def routes(table: Path | str | None = None) -> list[Route]:
    """The routes that are up in ``table`` (default :data:`ROUTES`), best metric first;
    none when it cannot be read."""
    try:
        text = Path(table if table is not None else ROUTES).read_text()
    except OSError:
        return []
    found = []
    for line in text.splitlines()[1:]:  # the first line names the columns
        fields = line.split()
        if len(fields) < 8:
            continue
        try:
            flags, metric = int(fields[3], 16), int(fields[6])
        except ValueError:
            continue
        if flags & RTF_UP:
            found.append(Route(fields[0], fields[1], fields[7], fields[2], metric))
    # The kernel sends by the lowest metric; sorted() keeps the table's order among equals.
    return sorted(found, key=lambda r: r.metric)


def default_route(table: Path | str | None = None) -> Route | None:
    """The route the kernel sends by to anywhere off the LAN, or None while there is none."""
    return next((r for r in routes(table) if r.default), None)


def interface_address(interface: str) -> str | None:
    """``interface``'s IPv4 address, or None when it has none (or there is no such
    interface)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            packed = struct.pack("256s", interface.encode()[:15])
            answer = fcntl.ioctl(s.fileno(), SIOCGIFADDR, packed)
    except OSError:
        return None
    return socket.inet_ntoa(answer[20:24])


def lan_address(table: Path | str | None = None) -> str:
    """This machine's address on the local network, as a phone on it would open it.

    The IPv4 address of the default route's interface; without a default route, that of an
    interface with a route of its own (a LAN without a gateway, such as the Pi's own
    hotspot); with no route at all, the mDNS name ``HOST.local`` (which Raspberry Pi OS
    answers, over IPv4 and IPv6). ``table`` is the route table to read (default
    :data:`ROUTES`).
    """
    found = routes(table)
    for route in [r for r in found if r.default] + [r for r in found if not r.default]:
        if (address := interface_address(route.interface)) is not None:
            return address
    return f"{socket.gethostname()}.local"


def is_wildcard(host: str) -> bool:
    """Whether ``host`` (as bound, or as a URL's hostname) means every interface."""
    if host in ("", "[::]"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def bound_url(host: str, port: int) -> str:
    """The page's URL as bound, a wildcard host kept as it is: the box keeps this one and
    works out what a phone opens (:func:`shown_url`) each time the code is shown."""
    if host == "":
        host = "0.0.0.0"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def shown_url(url: str, lan: str | None) -> str:
    """``url`` with a wildcard host (``0.0.0.0``, ``::``) replaced by ``lan``, the machine's
    address on the LAN; a named host, or no ``lan``, leaves it as it is."""
    parts = urlsplit(url)
    if lan is None or not is_wildcard(parts.hostname or ""):
        return url
    port = f":{parts.port}" if parts.port is not None else ""
    shown = f"[{lan}]" if ":" in lan else lan
    return urlunsplit((parts.scheme, shown + port, parts.path or "/", parts.query,
                       parts.fragment))


def page_url(host: str, port: int, lan: str | None = None) -> str:
    """Where a phone opens a page bound on ``host``:``port`` now: a wildcard host becomes
    ``lan`` (default: :func:`lan_address`, read at this call)."""
    url = bound_url(host, port)
    if not is_wildcard(host):
        return url
    return shown_url(url, lan if lan is not None else lan_address())
