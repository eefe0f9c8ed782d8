"""The simulated box, built for a test and driven as a player drives it.

:func:`make` builds the box on every fake with scripted rolls; the others press its
buttons, turn its encoder through the menus, and read what its panels show.
"""

from __future__ import annotations

import dataclasses

from pitable.box.backends import printer_settings
from pitable.box.printing import BoxPrinter
from pitable.box.sim import Simulator
from pitable.config import DEFAULTS, Config
from pitable.hw.clock import FakeClock
from pitable.hw.fake_printer import FakePrinter
from pitable.hw.printer import ThermalPrinter
from pitable.i18n import LANGUAGES, translator
from pitable.render.faces import die_panel
from pitable.rules import SPECIAL, Die, find_title
from tests.support.entropy import ScriptedBytes
from tests.support.pictures import same

#: The seed of every map these boxes choose, so that the scripted bytes are all rolls; the
#: status screen's header names the map by its tag.
MAP_SEED = 1234
TAG = "A·1234"


def make(*rolls: str, tumble_ms: int = 0, mode: str = "table", title: str = "valley",
         config: Config = DEFAULTS, **kw: object) -> Simulator:
    """The box on its fakes, rolling ``rolls`` in turn, on the map of :data:`MAP_SEED`."""
    box = dataclasses.replace(config.box, tumble_ms=tumble_ms, mode=mode, title=title)
    kw.setdefault("map_seeds", lambda: MAP_SEED)
    return Simulator(dataclasses.replace(config, box=box), entropy=ScriptedBytes(*rolls), **kw)


def configured(lang: str) -> Config:
    """The default config, with the box speaking ``lang``."""
    return dataclasses.replace(DEFAULTS, box=dataclasses.replace(DEFAULTS.box, language=lang))


def read_faces(sim: Simulator, title: str) -> tuple[object, ...]:
    """Which face each die panel shows, by comparing it with every face's drawing."""
    t = find_title(title)
    seen = []
    for die in Die:
        shown = sim.panel(str(die))
        matches = [f for f in (1, 2, 3, 4, 5, SPECIAL)
                   if same(shown, die_panel(f, die, t, lang=sim.box.language))]
        assert len(matches) == 1, f"the {die} panel shows no single face"
        seen.append(matches[0])
    return tuple(seen)


def fake_printer(**kw: object) -> tuple[BoxPrinter, FakePrinter]:
    """The box's print queue on a fake printer (on a fake clock), and that fake printer."""
    settings = DEFAULTS.printer
    clock = FakeClock()
    transport = FakePrinter(dots=settings.dots, clock=clock, **kw)  # type: ignore[arg-type]
    driver = ThermalPrinter(printer_settings(settings), transport=transport, clock=clock)
    printer = BoxPrinter(driver, settings)
    return printer, transport


def print_from_menu(sim: Simulator) -> None:
    """Print one more sheet from the menu, and wait until it has printed."""
    sim.hold()
    sim.turn(+2)  # New game, Sheets for 4 players, One more sheet, ...
    sim.push()
    sim.wait_for_prints()


def choose_language(sim: Simulator, index: int) -> None:
    """Hold for the menu, go to Language (by its name in the box's language), and choose
    the language at ``index``."""
    sim.hold()
    labels = [label for label, _ in sim.box.menu[-1].items]
    language = translator(sim.box.language).gettext("Language")
    sim.turn(labels.index(language))
    sim.push()
    # The cursor starts on the language the box speaks.
    sim.turn(index - list(LANGUAGES).index(sim.box.language))
    sim.push()


def end_with_score(sim: Simulator, score: int) -> None:
    """Hold for the menu, choose "End game: score", turn the total in, push."""
    sim.hold()
    sim.turn(+1)  # New game, End game: score, Back
    sim.push()
    sim.turn(+1)  # By parts, Total, Back
    sim.push()
    sim.turn(score)
    sim.push()
