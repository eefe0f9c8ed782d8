"""Where the players point their phones: the page's address on the LAN, and its PIN.

The web server binds an address (often ``0.0.0.0``, every interface), which a phone cannot
open; the code to join carries the Pi's own address on the local network instead. It is
found without sending anything: ``connect`` on a UDP socket only asks the kernel which
interface and source address would be used for that destination, and no packet leaves.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit, urlunsplit

from pitable.render.join import JoinCode

#: A destination in a private range, only to make the kernel choose the LAN interface.
PROBE = ("10.255.255.255", 9)
_ANY = {"", "0.0.0.0", "::", "[::]"}


def lan_address(probe: tuple[str, int] = PROBE) -> str | None:
    """The address this machine uses on the local network, or None without one.

    A loopback answer (no network up) counts as none: a phone cannot reach it.
    """
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(probe)
            address = str(s.getsockname()[0])
    except OSError:
        return None
    if ipaddress.ip_address(address).is_loopback and not ipaddress.ip_address(
        probe[0]
    ).is_loopback:
        return None
    return address


def join_url(url: str, lan: str | None) -> str:
    """``url`` with a wildcard host (``0.0.0.0``, ``::``) replaced by ``lan``, the machine's
    LAN address; a named host, or no LAN address, leaves it as it is (the bind address)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if host not in _ANY and f"[{host}]" not in _ANY:
        return url
    if lan is None:
        return url
    port = f":{parts.port}" if parts.port is not None else ""
    shown = f"[{lan}]" if ":" in lan else lan
    return urlunsplit((parts.scheme, shown + port, parts.path or "/", parts.query,
                       parts.fragment))


def serves_page(box: object) -> bool:
    """Whether ``box`` serves the table's page (the web server sets its ``web_url``)."""
    return bool(getattr(box, "web_url", None))


def join_code(box: object, lan: str | None = None) -> JoinCode | None:
    """The code to join ``box``'s page: its ``web_url`` on the LAN and its ``web_pin``;
    None while the box serves no page (its ``web_url`` is None or absent). ``lan`` is the
    LAN address to use (default: :func:`lan_address`)."""
    # The web server sets these on the box when it starts; a box without one has neither.
    url = getattr(box, "web_url", None)
    if not serves_page(box):
        return None
    pin = getattr(box, "web_pin", None)
    return JoinCode(join_url(str(url), lan if lan is not None else lan_address()),
                    None if pin is None else str(pin))
