"""Where the players point their phones: the page's address on the LAN, and its PIN.

The box keeps the page's URL as the web server bound it (``box.web_url``, often on a
wildcard address such as ``0.0.0.0`` that a phone cannot open). The code to join is worked
out from it each time it is shown or printed, with the machine's address on the network at
that moment (:func:`pitable.hw.network.lan_address`): a box that started before its Wi-Fi
came up shows the right address once it has one.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from pitable.hw.network import is_wildcard, lan_address, shown_url
from pitable.render.join import JoinCode

#: The phone's sheet on the page (:mod:`pitable.web.players`).
PLAY_PATH = "play"


def serves_page(box: object) -> bool:
    """Whether ``box`` serves the table's page (the web server sets its ``web_url``)."""
    return bool(getattr(box, "web_url", None))


def join_code(box: object, lan: str | None = None) -> JoinCode | None:
    """The code to join ``box``'s page now: its ``web_url`` on the LAN and its
    ``web_pin``; None while the box serves no page (its ``web_url`` is None or absent).
    ``lan`` is the LAN address to use (default: :func:`lan_address`, read at this call)."""
    # The web server sets these on the box when it starts; a box without one has neither.
    url = getattr(box, "web_url", None)
    if not serves_page(box):
        return None
    pin = getattr(box, "web_pin", None)
    if lan is None and is_wildcard(urlsplit(str(url)).hostname or ""):
        lan = lan_address()
    shown = shown_url(str(url), lan)
    # Where the box keeps its games, the page seats players: the code leads to a sheet.
    if getattr(box, "web_play", False):
        shown = shown.rstrip("/") + "/" + PLAY_PATH
    return JoinCode(shown, None if pin is None else str(pin))
