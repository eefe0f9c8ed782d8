"""Every menu item, score prompt, message and notice the box shows fits the status screen
at 128x64 and 256x64 in each language, whole (the footer wraps onto two lines where it
must, as the screen does; nothing is elided); and the menus the box opens are in its
language.

The texts are found as the translation test finds them (Babel's extraction), from every
module of the box that shows a text, and filled with the longest values their placeholders
take; they are laid out by the status screen's own code, measured with its font metrics.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract

from pitable import i18n
from pitable.box.controller import pace_names
from pitable.box.games import score_components
from pitable.box.menus import SCORE_RANGE
from pitable.box.printing import FAILURE_REASONS
from pitable.i18n import LANGUAGES, translator
from pitable.render.status import MenuView, StatusView, layout
from pitable.rules import Roll, all_titles, find_title
from pitable.rules.session import LEVELS
from pitable.rules.table import Pace, pace_line
from tests.support.box import fake_printer, make

PACKAGE = Path(i18n.__file__).parent
SIZES = [(128, 64), (256, 64)]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
#: The menu's texts: a row of the menu, or its heading.
MENU_MODULES = ["box/menus.py"]
HEADINGS = {"Menu", "Language", "New game", "Map", "Score", "Score: turn, push", "Box as player",
            "Sheets: turn, push", "{part} {number}/{parts}: turn, push"}
#: The texts shown in the footer, as a message, or as a notice (narrower: the "!" block
#: takes its left).
NOTICES = {"hwrng failed: OS generator", "state was damaged: fresh start",
           "rolls are not being saved", "{count} roll waiting to be saved",
           "changes waiting to be saved", "web page off (see the log)", "printer: {reason}",
           "green die display not answering", "purple die display not answering",
           "red die display not answering", "status display not answering",
           "{part} display not answering"}
FOOTER_MODULES = ["box/games.py", "box/controller.py", "box/printing.py", "box/parts.py",
                  "box/tv.py", "box/assembly.py", "rules/table.py", "box/box_players.py"]
PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def extracted(module: str) -> list[tuple[str, ...]]:
    """The messages marked in ``module``: (id,) or (singular, plural)."""
    with (PACKAGE / module).open("rb") as f:
        return [message if isinstance(message, tuple) else (message,)
                for _, message, _, _ in extract("python", f, keywords=KEYWORDS)]


@functools.cache
def longest(lang: str) -> dict[str, str]:
    """The longest value each placeholder takes on the box, in ``lang``."""
    _ = translator(lang).gettext
    widest = functools.partial(max, key=len)
    names = [_(t.short_name) for t in all_titles()]
    components = [_(n) for t in all_titles() for n in score_components(t)]
    reasons = [_(r) for r in FAILURE_REASONS]
    low = SCORE_RANGE[0]
    sheets = translator(lang).ngettext(
        "{copies} sheet of {name}", "{copies} sheets of {name}", 100
    ).format(copies=100, name="Valley B·65535")
    return {
        "count": "100", "copies": "100", "number": "7", "parts": "7", "total": str(low),
        "score": str(low),
        "needed": "999", "rounds": "25", "tag": "B·65535", "device": "/dev/fb1",
        "title": widest(names), "part": widest(components), "reason": widest(reasons),
        "level": widest(_(name) for name in LEVELS), "sheets": sheets,
        "name": "Valley B·65535",
        # A player's initials: three letters, the widest there is.
        "initials": "WWW",
        # The table's pace: a hundred players, the initials of the first still writing.
        "n": "100", "done": "100", "players": "100", "more": "96",
        "pace": translator(lang).gettext("{done} of {players} done").format(
            done=100, players=100),
    }


def shown(message: tuple[str, ...], lang: str) -> list[str]:
    """``message`` as the box shows it in ``lang``: every form, placeholders filled."""
    tr = translator(lang)
    forms = [tr.gettext(message[0])] if len(message) == 1 else \
        [tr.ngettext(message[0], message[1], n) for n in (1, 100)]
    values = longest(lang)
    return [PLACEHOLDER.sub(lambda m: values[m.group(1)], form) for form in forms]


def assert_fits(view: StatusView, size: tuple[int, int]) -> None:
    for page in layout(view, size):
        for placed in page:
            assert placed.fits, f"{view.lang} {size}: {placed.text!r} is cut"
            assert not placed.text.endswith("…"), f"{view.lang} {size}: {placed.text!r}"
        said = " ".join(p.text for p in page)
        expected = (view.message or "").split() + [w for n in view.notices for w in n.split()]
        assert all(word in said for word in expected), (view.lang, size, said)


def test_the_menus_and_messages_are_all_found() -> None:
    menu = {m[0] for module in MENU_MODULES for m in extracted(module)}
    footer = {m[0] for module in FOOTER_MODULES for m in extracted(module)}
    assert {"New game", "End game: score", "By parts", "Sheets for {count} player",
            "Retry the print", "Show join code", "Back"} <= menu
    assert {"Rolling...", "No trusted randomness: roll refused",
            "Print failed ({reason}): hold ROLL to retry", "{score} stars; the highest level",
            "red die display not answering", "web page off (see the log)",
            "No TV on {device}"} <= footer


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_menu_row_fits_the_screen(lang: str, size: tuple[int, int]) -> None:
    valley = find_title("valley")
    for module in MENU_MODULES:
        for message in extracted(module):
            for text in shown(message, lang):
                menu = MenuView(text, ("Back",)) if message[0] in HEADINGS else \
                    MenuView("Menu", (text,))
                assert_fits(StatusView(valley, menu=menu, lang=lang), size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_message_and_notice_fits_the_footer(lang: str, size: tuple[int, int]) -> None:
    valley = find_title("valley")
    options = valley.options(Roll.from_str("5,5,4"))
    for module in FOOTER_MODULES:
        for message in extracted(module):
            for text in shown(message, lang):
                if message[0] in NOTICES:
                    assert_fits(StatusView(valley, notices=(text,), lang=lang), size)
                else:
                    assert_fits(StatusView(valley, message=text, lang=lang), size)
                    assert_fits(StatusView(valley, options=options, message=text, round=7,
                                           lang=lang), size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_pace_of_a_hundred_players_fits_the_footer(lang: str,
                                                      size: tuple[int, int]) -> None:
    valley = find_title("valley")
    options = valley.options(Roll.from_str("5,5,4"))
    writing = ("WWW",) * 96
    for last in (False, True):
        text = pace_line(Pace(7, 100, 4, writing, last), translator(lang),
                         named=pace_names(size))
        assert_fits(StatusView(valley, options=options, message=text, round=7, lang=lang),
                    size)


def menu_texts(sim: object) -> list[str]:
    view = sim.box.view()  # type: ignore[attr-defined]
    assert view.menu is not None
    for size in SIZES:
        assert_fits(view, size)
    return [view.menu.heading, *view.menu.items]


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_box_opens_its_menus_in_its_language(lang: str) -> None:
    printer, _paper = fake_printer()
    sim = make("1,2,3", printer=printer)
    sim.box.set_language(lang)
    _ = translator(lang).gettext
    sim.hold()
    top = menu_texts(sim)
    assert top[0] == _("Menu")
    for label in ("New game", "One more sheet", "End game", "Show join code", "Language",
                  "Back"):
        assert _(label) in top and _(label) != label
    # New game: every title and mode by the title's name in the language.
    sim.push()
    games = menu_texts(sim)
    assert games[0] == _("New game")
    assert _("{title}: solo").format(title=_("Valley")) in games
    sim.close()
    # No English left in either menu (tests/test_i18n_surfaces.py's reading of English).
    from tests.support.i18n import english_in

    assert english_in([*top, *games], lang) == []


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_score_is_asked_part_by_part_in_the_language(lang: str) -> None:
    sim = make("1,2,3", mode="solo")
    sim.box.set_language(lang)
    _ = translator(lang).gettext
    sim.hold()
    labels = [label for label, _a in sim.box.menu[-1].items]
    sim.turn(labels.index(_("End game: score")))
    sim.push()
    assert menu_texts(sim)[1:] == [_("By parts"), _("Total"), _("Back")]
    sim.push()
    heading, number, note = menu_texts(sim)
    assert heading.startswith(_("Full grid") + " 1/")
    assert number == translator(lang).ngettext("{count} star", "{count} stars", 0).format(
        count=0)
    assert note == _("total so far {total}").format(total=0)
    sim.close()
    from tests.support.i18n import english_in

    assert english_in([heading, number, note], lang) == []
