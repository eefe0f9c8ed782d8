"""The language chosen in the box's menu is kept in the store's settings: it outlives a
restart, it wins over ``[box] language``, and a box whose store is read-only or absent
still changes its language (for as long as it runs). The join screen, the TV and the
printer's lines follow it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pitable.box.controller import LANGUAGE_SETTING
from pitable.box.store import SessionStore
from pitable.i18n import translator
from pitable.render.faces import die_label, die_panel
from pitable.render.join import join_screen
from pitable.render.sheet import render_sheet
from pitable.render.tv import _status_line, draw_tv
from pitable.rules import DICE, Die, find_title
from pitable.rules.sheets import generate
from tests.support.box import choose_language, configured, fake_printer, make, print_from_menu
from tests.support.pictures import same

FRENCH, SPANISH = 1, 2  # their places in the Language menu


def test_the_menus_choice_survives_a_restart_in_the_store(tmp_path: Path) -> None:
    sim = make("1,2,3", store=SessionStore.open(tmp_path))
    choose_language(sim, FRENCH)
    sim.close()
    with SessionStore.open(tmp_path) as store:
        assert store.setting(LANGUAGE_SETTING) == "fr"
    # Kept in the database alone: nothing written beside it.
    assert not (tmp_path / "language").exists()
    again = make("1,2,3", store=SessionStore.open(tmp_path))
    assert again.box.language == "fr"
    again.hold()
    menu = again.box.view().menu
    assert menu is not None and translator("fr").gettext("New game") in menu.items
    again.close()


def test_the_menus_choice_wins_over_the_config_and_the_config_is_the_default(
    tmp_path: Path,
) -> None:
    fresh = make("1,2,3", store=SessionStore.open(tmp_path), config=configured("es"))
    assert fresh.box.language == "es"  # nothing chosen yet: the config's
    choose_language(fresh, FRENCH)
    fresh.close()
    again = make("1,2,3", store=SessionStore.open(tmp_path), config=configured("es"))
    assert again.box.language == "fr"
    again.close()


def test_a_stored_language_the_box_does_not_know_falls_back_to_the_config(
    tmp_path: Path,
) -> None:
    with SessionStore.open(tmp_path) as store:
        store.set_setting(LANGUAGE_SETTING, "xx")
    sim = make("1,2,3", store=SessionStore.open(tmp_path), config=configured("es"))
    assert sim.box.language == "es"
    sim.close()


def test_a_box_without_a_store_changes_its_language_all_the_same() -> None:
    sim = make("2,3,*")
    choose_language(sim, SPANISH)
    assert sim.box.language == "es"
    sim.press()
    assert sim.box.view().lang == "es"
    sim.close()


def test_a_read_only_store_changes_the_language_until_the_box_stops(tmp_path: Path) -> None:
    SessionStore.open(tmp_path).close()
    store = SessionStore.open_read_only(tmp_path)
    sim = make("2,3,*", store=store)
    choose_language(sim, SPANISH)
    assert sim.box.language == "es"
    sim.press()  # the box rolls on, in Spanish, and says that it keeps nothing
    view = sim.box.view()
    assert view.lang == "es" and view.options is not None
    assert translator("es").gettext("rolls are not being saved") in view.notices
    sim.close()
    with SessionStore.open(tmp_path) as again:
        assert again.setting(LANGUAGE_SETTING) is None


def test_the_join_screen_and_the_tv_follow_the_language() -> None:
    sim = make("2,3,*", config=configured("fr"))
    _ = translator("fr").gettext
    sim.hold()
    labels = [label for label, _action in sim.box.menu[-1].items]
    sim.turn(labels.index(_("Show join code")))
    sim.push()
    french = join_screen(None, (128, 64), translator("fr"))
    assert same(sim.panel("status"), french)
    assert not same(french, join_screen(None, (128, 64)))
    sim.turn(1)  # closes the code
    sim.press()
    snapshot = sim.box.publisher.latest
    assert snapshot is not None and snapshot.lang == "fr"
    assert _status_line(snapshot, translator("fr")).startswith(_("map {map}").format(
        map=snapshot.map) + "  ·  à plusieurs  ·  tour 1")
    assert draw_tv(snapshot, (640, 360)) != draw_tv(dataclasses.replace(snapshot, lang="en"),
                                                    (640, 360))
    sim.close()


@pytest.mark.parametrize(("lang", "printed", "failed"), [
    ("fr", "Impression terminée\u202f: Île A·1234", "imprimante\u202f: plus de papier"),
    ("es", "Impresión terminada: Isla A·1234", "impresora: sin papel"),
])
def test_the_printers_lines_are_in_the_language(lang: str, printed: str, failed: str) -> None:
    printer, _paper = fake_printer()
    sim = make("1,2,3", title="island", printer=printer, config=configured(lang))
    sim.press()
    print_from_menu(sim)
    assert sim.box.view().message == printed
    sim.close()
    printer, _paper = fake_printer(paper=False)
    sim = make("1,2,3", title="island", printer=printer, config=configured(lang))
    print_from_menu(sim)
    assert failed in sim.box.notices()
    sim.close()


def test_where_nothing_chooses_the_language_the_environment_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[box] language = ""``: the locale's (fr_FR.UTF-8 speaks French); a language set in
    the config wins over it, and the menu's choice over both."""
    monkeypatch.setenv("LC_ALL", "fr_FR.UTF-8")
    sim = make("1,2,3", store=SessionStore.open(tmp_path), config=configured(""))
    assert sim.box.language == "fr"
    sim.close()
    told = make("1,2,3", config=configured("es_ES"))
    assert told.box.language == "es"
    told.close()
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    plain = make("1,2,3", config=configured(""))
    assert plain.box.language == "en"
    plain.close()


def test_the_dice_panels_are_labelled_in_the_boxs_language() -> None:
    """VERT / VIOLET / ROUGE on a French box, and the labels follow a change of language."""
    valley = find_title("valley")
    sim = make("2,3,1", config=configured("fr"))
    sim.press()
    for die, face in zip(DICE, (2, 3, 1), strict=True):
        assert same(sim.panel(str(die)), die_panel(face, die, valley, lang="fr"))
        assert not same(sim.panel(str(die)), die_panel(face, die, valley))
    assert die_label(Die.PURPLE, "fr") == translator("fr").gettext("PURPLE") != "PURPLE"
    choose_language(sim, SPANISH)
    assert same(sim.panel("red"), die_panel(1, Die.RED, valley, lang="es"))
    sim.close()


def test_the_end_of_a_game_is_said_in_the_boxs_language_on_the_tv_and_the_page() -> None:
    """The level reached, in the snapshot's result and words (the TV shows both, the page
    the result), and the title's name: "Voyageur", never "Voyager" under it."""
    fr = translator("fr")
    sim = make("1,2,3", title="island", mode="solo", config=configured("fr"))
    sim.press()
    sim.box.end_game(75)  # type: ignore[attr-defined]
    snapshot = sim.box.publisher.publish(sim.box.view(), rolling=False)  # type: ignore[attr-defined]
    assert snapshot.result == fr.gettext("Voyager") != "Voyager"
    assert snapshot.words == (snapshot.result,)
    assert snapshot.title_name == find_title("island").display_name(fr)
    sim.close()


def test_the_menu_prints_the_sheet_in_the_boxs_language() -> None:
    printer, paper = fake_printer()
    sim = make("1,2,3", title="island", printer=printer, config=configured("es"))
    sim.press()
    print_from_menu(sim)
    sheet = generate("island", 1234)
    expected = render_sheet(sheet, printer.settings.dots, lang="es")
    assert not same(expected, render_sheet(sheet, printer.settings.dots))
    out = paper.printout()
    assert same(out.crop((0, 0, expected.width, expected.height)), expected)
    sim.close()
