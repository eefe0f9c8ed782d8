"""Build a box from a config on a set of backends: the real parts, the fakes, or a test's own.

Every part is opened under one :class:`contextlib.ExitStack`, the way gpiozero's composite
devices build their children: a part that fails to build closes every part built before
it, in reverse order, and closing the box closes them all, in reverse order. The parts are
opened in this order: the entropy source, the panels, the LEDs, the inputs, the printer,
the registered parts that name a driver,
and last the session store, so that a box that cannot find its parts (``pitable run`` off
the Pi) leaves nothing on disk. The TV, when the config enables it, follows the box's
snapshots; a TV that cannot be opened is said, not fatal. The table's web page, when
the config enables it, is started once the box has drawn its first picture, and closed
first.
"""

from __future__ import annotations

import contextlib
import logging
import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PIL import Image

from pitable.box.backends import Backends, Fakes, default_backends, display_bus
from pitable.box.controller import Box
from pitable.box.events import Event
from pitable.box.games import Asked, Store
from pitable.box.parts import DisplaySlot
from pitable.box.tv import TvWorker, start_tv
from pitable.config import Config, DisplayConfig
from pitable.errors import StoreError, WebError
from pitable.hw.gpio import Controls, RoundLeds
from pitable.hw.oled import I2CPanelSpec, open_panel
from pitable.rules import Die
from pitable.rules.base import N_
from pitable.wiring import load_hook, part_enabled, part_settings, parts

if TYPE_CHECKING:
    from pitable.web.server import WebServer

log = logging.getLogger("pitable.box")


@dataclass
class BuiltBox:
    """A box and its parts; :meth:`close` (or ``with``) closes every part."""

    box: Box
    controls: Controls
    leds: RoundLeds | None
    backends: Backends
    stack: contextlib.ExitStack
    #: The TV over HDMI, when the config enables it and one was found.
    tv: TvWorker | None = None
    #: The table's web page, while the config's [web] table enables it.
    web: WebServer | None = None
    #: The registered parts that the box opens itself (those with a ``build``), by name.
    parts: dict[str, Any] = field(default_factory=dict)

    @property
    def fakes(self) -> Fakes | None:
        return self.backends.fakes

    def close(self) -> None:
        """Stop the loop, then close every part in the reverse order of their opening."""
        self.box.stop()
        self.stack.close()

    def __enter__(self) -> BuiltBox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _opener(d: DisplayConfig, config: Config, backends: Backends) -> Callable[[], Any]:
    """How to (re)open one display on its transport."""

    def open_display() -> Any:
        if d.interface == "spi":
            return backends.spi(d)
        spec = I2CPanelSpec(display_bus(d, config, backends.mux_bus), d.address)
        serial = backends.i2c(spec)
        return open_panel(d.driver, serial, width=d.width, height=d.height, rotate=d.rotate,
                          contrast=d.contrast, where=d.location)

    return open_display


def _close_with(stack: contextlib.ExitStack, part: object) -> None:
    """Have ``stack`` close ``part`` if it is a part that can be closed."""
    close = getattr(part, "close", None)
    if callable(close):
        stack.callback(close)


def build_box(
    config: Config,
    *,
    backends: Backends | None = None,
    store: Callable[[], Store] | None = None,
    map_seeds: Callable[[], int] | None = None,
    web_optional: bool = False,
    asked: Asked | None = None,
) -> BuiltBox:
    """Build every part named in ``config`` on ``backends`` (default: the global default,
    see :func:`~pitable.box.backends.default_backends`), open the store with ``store``
    (None: nothing is kept), and start the box: it resumes the stored game and draws it.
    ``map_seeds`` gives new games' map seeds (None: drawn from the box's entropy);
    ``asked`` is what the command line asked of the first game and of the language.
    With ``web_optional`` a web page that cannot be served (its port taken) is logged and
    named on the status screen, and the box runs without it; otherwise it is raised."""
    backends = backends or default_backends(config)
    clock = backends.clock
    with contextlib.ExitStack() as stack:
        factory = backends.pins()
        entropy = backends.entropy(config.entropy)
        _close_with(stack, entropy)
        slots: dict[str, DisplaySlot] = {}
        for d in config.displays.all():
            if d.enabled:
                name = f"{d.name} die" if d.name != "status" else "status"
                slot = DisplaySlot(name, _opener(d, config, backends), d.picture_size, clock)
                stack.callback(slot.close)
                slots[d.name] = slot
        dice = {die: slots[str(die)] for die in Die if str(die) in slots}
        status = slots.get("status") or DisplaySlot(
            "status", lambda: _Nowhere((128, 64)), (128, 64), clock
        )
        leds = RoundLeds(config.leds.pins, active_high=config.leds.active_high,
                         factory=factory)
        stack.callback(leds.close)
        # The box is made last, on this queue: the parts post to it from the start.
        events: queue.SimpleQueue[Event] = queue.SimpleQueue()
        enc = config.encoder
        controls = Controls(
            events.put,
            button=config.button.pin,
            pull_up=config.button.pull_up,
            encoder=(enc.a, enc.b, enc.push) if enc.enabled else None,
            encoder_pull_up=enc.pull_up,
            factory=factory,
            clock=clock,
        )
        stack.callback(controls.close)
        printer = backends.printer(config.printer)
        if printer is not None:
            stack.callback(printer.close)
            printer.post = events.put
        added = _open_parts(config, backends, factory, stack)
        opened = stack.enter_context(contextlib.closing(store())) if store is not None else None
        box = Box(dice, status, entropy, clock, config.box, leds=leds, store=opened,
                  printer=printer, events=events, bounce_s=config.button.bounce_ms / 1000,
                  map_seeds=map_seeds, asked=asked or Asked())
        # Closed before the store: the writes still waiting for it get a last try.
        stack.callback(box.games.close)
        tv = start_tv(config.tv, backends.tv, box)
        if tv is not None:
            stack.callback(tv.close)
        box.start()
        web = None
        if config.web.enabled:
            try:
                web = _serve_web(config, box, stack)
            except WebError as exc:
                if not web_optional:
                    raise
                # The box at the table rolls without its page rather than not at all.
                log.error("the table's web page is off: %s", exc)
                box.web_notice = N_("web page off (see the log)")  # said in the box's language
                box.draw_status()
        return BuiltBox(box, controls, leds, backends, stack.pop_all(), tv, web, added)


def _open_parts(config: Config, backends: Backends, factory: Any,
                stack: contextlib.ExitStack) -> dict[str, Any]:
    """Open each fitted registered part that names a driver: its fake on the simulated
    backends when it has one, else its driver on the box's pin factory."""
    opened: dict[str, Any] = {}
    for part in parts():
        hook = part.fake if backends.fakes is not None and part.fake else part.build
        if hook and part_enabled(config, part):
            device = load_hook(hook)(**part_settings(config, part), factory=factory)
            _close_with(stack, device)
            opened[part.name] = device
    return opened


def _serve_web(config: Config, box: Box, stack: contextlib.ExitStack) -> WebServer:
    """Serve the table's page for ``box``: it is handed every snapshot, and its actions
    come back on the box's queue. The PIN is the config's, else a new one each start."""
    from pitable.box.box_players import BoxPlayers
    from pitable.box.phones import PhoneTable
    from pitable.box.store import SessionStore
    from pitable.web.guard import random_pin
    from pitable.web.server import WebServer

    # The players' sheets are kept in the box's session store: none without one.
    phones = PhoneTable(box.store) if isinstance(box.store, SessionStore) else None
    bots = None
    if phones is not None:
        # The box's loop reads the pace (never waiting) and redraws it when told.
        box.pace = phones.pace
        box.ranking = phones.ranking
        box.paper_scores = phones.add_paper
        box.showcase = phones.showcase
        phones.listen(box.table_changed)
        bots = BoxPlayers(phones)
        stack.callback(bots.close)
        # The box's players of the game in progress play on after a restart.
        try:
            bots.resume()
        except StoreError as exc:
            log.warning("the box's players could not be found again: %s", exc)
        box.box_players = bots
    server = WebServer(config.web.bind, config.web.port, config.web.pin or random_pin(),
                       box.post, names=config.web.names, phones=phones,
                       prints=box.printer is not None, box_players=bots)
    server.start()
    stack.callback(server.close)
    box.publisher.subscribe(server.publish)
    box.web_url, box.web_pin = server.url, server.pin
    box.web_play = phones is not None
    return server


class _Nowhere:
    """A status screen that is not fitted: the box runs without one."""

    def __init__(self, size: tuple[int, int]) -> None:
        self.size = size
        self.mode = "1"

    def display(self, image: Image.Image) -> None:
        pass
