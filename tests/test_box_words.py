"""The box's status screen tells the whole turn: its pages turn on the clock and on the
encoder, the LEDs count what the paper counts, the menu changes the language and the box
remembers it; and the box, the simulator and ``pitable screen`` say the same words."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pitable.box.controller import PAGE_S, Phase
from pitable.box.store import SessionStore
from pitable.cli import main
from pitable.config import DEFAULTS
from pitable.render.status import draw_status, page_count, status_lines
from pitable.rules import Roll, find_title
from tests.support.box import choose_language, make
from tests.support.pictures import same


def words(sim: object) -> tuple[tuple[str, ...], ...]:
    box = sim.box  # type: ignore[attr-defined]
    return status_lines(box.view(), box.status.size)


def test_a_hazards_words_follow_on_later_pages_as_time_passes() -> None:
    sim = make("2,3,*", title="island")
    sim.press()
    view = sim.box.view()
    pages = page_count(view)
    assert pages > 1
    seen = [sim.panel("status")]
    for _ in range(pages):
        sim.advance(PAGE_S)
        seen.append(sim.panel("status"))
    # Every page was shown in turn, then the first came back.
    for index in range(pages):
        expected = dataclasses.replace(view, page=index)
        assert any(same(image, draw_status(dataclasses.replace(expected, blink_on=on)))
                   for image in seen for on in (True, False)), f"page {index} never shown"
    assert sim.box.page == 0
    sim.close()


def test_the_encoder_turns_the_pages_at_once() -> None:
    sim = make("*,*,4", title="temple")
    sim.press()
    assert sim.box.page == 0
    sim.turn(+1)
    assert sim.box.page == 1
    assert same(sim.panel("status"), draw_status(sim.box.view()))
    assert "Lockpick" in " ".join(words(sim)[1]) or "Penny" in " ".join(words(sim)[1])
    sim.turn(-1)
    assert sim.box.page == 0
    sim.close()


def test_a_new_roll_starts_again_at_the_first_page() -> None:
    sim = make("2,3,*", "1,2,3")
    sim.press()
    sim.turn(+1)
    assert sim.box.page == 1
    sim.press()
    assert sim.box.page == 0
    assert sim.box.view().options == find_title("valley").options(Roll.from_str("1,2,3"), 1)
    sim.close()


def test_nothing_the_screen_says_is_cut_on_any_page() -> None:
    sim = make("2,3,*", title="valley", mode="solo")
    sim.press()
    view = sim.box.view()
    every = " ".join(" ".join(page) for page in status_lines(view))
    reading = view.title.reading(view.options, solo=True)  # type: ignore[arg-type]
    # The first line, "Ignore the other dice.", is said under the hazard's word in brief.
    assert reading.lines[0].rstrip(".") in every
    for line in reading.lines[1:]:
        assert line in every or " ".join(line.split()) in every
    assert "…" not in every
    sim.close()


def test_a_new_game_says_press_roll_once_and_shows_no_round_zero() -> None:
    sim = make(title="island", mode="solo")
    text = " ".join(" ".join(page) for page in words(sim))
    assert text.lower().count("press roll") == 1
    assert "R 0" not in text
    sim.close()


def test_the_island_counts_its_danger_bubbles_at_a_table_on_screen_and_leds() -> None:
    sim = make("1,1,*", "2,2,*", "3,3,3", title="island")
    assert sim.led_states() == (False,) * 5
    sim.press()
    sim.press()
    assert sim.box.view().hazards == 2
    assert "danger 2/5" in " ".join(words(sim)[0])
    assert sim.led_states() == (True, True, False, False, False)
    sim.close()


def test_the_island_says_ignored_after_five_dangers() -> None:
    sim = make(*(["1,1,*"] * 6), title="island")
    for _ in range(6):
        sim.press()
    assert sim.led_states() == (True,) * 5
    text = " ".join(" ".join(page) for page in words(sim))
    assert "Danger ignored" in text
    assert not sim.box.view().options.hazard  # type: ignore[union-attr]
    sim.close()


def test_the_valley_solo_leds_count_rounds_and_the_temples_stay_off() -> None:
    valley = make("1,2,3", "1,2,3", title="valley", mode="solo")
    valley.press()
    valley.press()
    lit = sum(valley.led_states())
    assert 0 < lit <= 5
    valley.close()
    temple = make("1,2,*", "1,2,*", title="temple", mode="solo")
    temple.press()
    temple.press()
    assert not any(temple.led_states())
    temple.close()


def test_the_menu_changes_the_language_and_the_box_remembers_it(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path)
    sim = make("2,3,*", "1,1,1", store=store)
    sim.press()
    choose_language(sim, 1)  # Français
    assert sim.box.language == "fr"
    assert sim.box.phase is Phase.SHOWING
    assert "SERPENT\u202f!" in words(sim)[0]
    sim.close()
    again = make("1,1,1", store=SessionStore.open(tmp_path))
    assert again.box.language == "fr"
    assert again.box.view().lang == "fr"
    again.close()


def test_the_config_sets_the_language_the_box_starts_in() -> None:
    config = dataclasses.replace(DEFAULTS, box=dataclasses.replace(DEFAULTS.box,
                                                                   language="es"))
    sim = make("1,2,*", config=config)
    sim.press()
    assert "¡SERPIENTE!" in words(sim)[0]
    sim.close()


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_the_box_the_simulator_and_pitable_screen_say_the_same_words(
    capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    config = dataclasses.replace(DEFAULTS, box=dataclasses.replace(DEFAULTS.box,
                                                                   language=lang))
    sim = make("2,4,*", title="island", config=config)
    sim.press()
    assert main(["screen", "island", "2,4,*", "--round", "1", "--lang", lang, "--text"]) == 0
    printed = capsys.readouterr().out.strip("\n").split("\n\n")
    # The box's header also names the table's map, which a roll alone does not have.
    view = dataclasses.replace(sim.box.view(), map_tag=None)
    assert printed == ["\n".join(page) for page in status_lines(view, sim.box.status.size)]
    # What the simulator's status panel shows is the drawing of those same pages.
    assert same(sim.panel("status"), draw_status(sim.box.view()))
    sim.close()

