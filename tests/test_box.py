"""The box, driven only through its inputs (mock pins) and read only through its outputs
(what the fake panels show, decoded from the bytes sent to them; the LED pins; the log)."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from pitable.config import DEFAULTS
from pitable.render.faces import die_panel
from pitable.render.status import MenuView, StatusView, draw_status
from pitable.rules import SPECIAL, Die, Roll, find_title
from tests.support.box import TAG, make, read_faces
from tests.support.pictures import same


@pytest.fixture
def caplog_box(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="pitable")
    return caplog


def test_a_press_shows_three_faces_and_the_legal_numbers(
    caplog_box: pytest.LogCaptureFixture,
) -> None:
    sim = make("2,3,5")
    sim.press()
    assert read_faces(sim, "valley") == (2, 3, 5)
    valley = find_title("valley")
    options = valley.options(Roll.from_str("2,3,5"))
    expected = draw_status(StatusView(title=valley, map_tag=TAG, round=1, options=options,
                                      reading=valley.reading(options)))
    assert same(sim.panel("status"), expected)
    assert "round 1: 2 3 5 -> 2 3 5 7 8 10; plays: 2+3+5 | 5+5 | 7+3 | 8+2 | 10" in caplog_box.text
    sim.close()


def test_each_press_rolls_once_even_with_contact_bounce() -> None:
    sim = make("1,1,1", "4,4,4")
    pin = sim.fakes.pin(DEFAULTS.button.pin)
    pin.drive_low()
    sim.advance(0.002)
    pin.drive_high()  # a bounce 2 ms into the press
    sim.advance(0.002)
    pin.drive_low()
    sim.advance(0.1)
    pin.drive_high()
    sim.settle()
    assert read_faces(sim, "valley") == (1, 1, 1)
    assert sim.box.game.state.rounds == 1
    sim.close()


def test_a_press_during_the_tumble_rolls_once_the_result_was_seen() -> None:
    from pitable.box.controller import MIN_SHOW_S

    sim = make("1,2,3", "5,4,2", tumble_ms=400)
    sim.button_down()
    sim.advance(0.1)
    sim.button_up()
    sim.advance(0.1)  # tumbling
    assert sim.box.game.state.rounds == 1
    sim.press()  # during the tumble: not lost, and not rolled over the result either
    shown_at = 0.1 + 0.4  # the first result is on the panels
    while sim.fake_clock.now() < 1000.0 + shown_at + MIN_SHOW_S - 0.1:  # type: ignore[union-attr]
        assert read_faces(sim, "valley") == (1, 2, 3)
        sim.advance(0.1)
    sim.advance(1.0)
    assert sim.box.game.state.rounds == 2
    assert read_faces(sim, "valley") == (5, 4, 2)
    sim.close()


def test_the_tumble_animates_then_settles_on_the_faces() -> None:
    sim = make("3,3,3", tumble_ms=300)
    sim.start_recording()
    sim.press()
    green = [f.image for f in sim.frames]
    assert len(green) >= 4  # the idle plate, tumble frames, the final faces
    assert read_faces(sim, "valley") == (3, 3, 3)
    sim.close()


@pytest.mark.parametrize(("title", "word"), [("valley", "SNAKE"), ("island", "DANGER"),
                                              ("temple", "MUMMY")])
def test_a_hazard_shows_its_warning_and_blinks(title: str, word: str) -> None:
    sim = make("2,3,*", title=title)
    sim.press()
    t = find_title(title)
    options = t.options(Roll.from_str("2,3,*"))
    # The Island's danger bubbles are counted in the header at a table too.
    hazards = 1 if t.hazard_limit is not None else None
    on = draw_status(StatusView(title=t, map_tag=TAG, round=1, options=options,
                                reading=t.reading(options), blink_on=True, hazards=hazards))
    off = draw_status(StatusView(title=t, map_tag=TAG, round=1, options=options,
                                 reading=t.reading(options), blink_on=False, hazards=hazards))
    phases = []
    for _ in range(4):
        phases.append(sim.panel("status"))
        sim.advance(DEFAULTS.box.blink_ms / 2000)
    assert any(same(p, on) for p in phases)
    assert any(same(p, off) for p in phases)
    lit = on.convert("L").point(lambda v: 255 if v else 0).histogram()[255]
    assert lit > on.width * on.height // 2, "the warning screen is mostly lit (inverted)"
    assert read_faces(sim, title)[2] is SPECIAL
    sim.close()


def test_a_hold_opens_the_menu_and_the_encoder_moves_in_it() -> None:
    sim = make("1,2,3")
    sim.press()
    sim.hold()
    valley = find_title("valley")
    items = ("New game", "End game", "Show join code", "Language", "Back")
    menu = StatusView(title=valley, map_tag=TAG, round=1, menu=MenuView("Menu", items, 0))
    assert same(sim.panel("status"), draw_status(menu))
    sim.turn(+4)
    moved = dataclasses.replace(menu, menu=MenuView("Menu", items, 4))
    assert same(sim.panel("status"), draw_status(moved))
    sim.push()  # Back: the roll is shown again
    options = valley.options(Roll.from_str("1,2,3"))
    shown = StatusView(title=valley, map_tag=TAG, round=1, options=options,
                       reading=valley.reading(options))
    assert same(sim.panel("status"), draw_status(shown))
    sim.close()


def test_the_menu_starts_a_solo_game_of_another_title() -> None:
    sim = make("1,2,3", "4,4,4")
    sim.press()
    sim.hold()
    sim.push()  # New game
    # Titles in order valley, island, temple; each table then solo: Island solo is item 3.
    sim.turn(3 - 0)
    sim.push()
    assert sim.box.game.state.title is find_title("island")
    assert sim.box.game.state.mode == "solo"
    sim.press()
    assert read_faces(sim, "island") == (4, 4, 4)
    sim.close()


def test_menu_without_an_encoder_is_worked_by_the_roll_button() -> None:
    config = dataclasses.replace(DEFAULTS, encoder=dataclasses.replace(DEFAULTS.encoder,
                                                                       enabled=False))
    sim = make("1,2,3", config=config)
    sim.hold()   # open
    sim.press()  # move to End game
    sim.press()  # move to Show join code
    sim.press()  # move to Language
    sim.press()  # move to Back
    sim.hold()   # choose Back
    assert sim.box.phase.value == "idle"
    sim.close()


def test_an_unplugged_display_is_reported_and_recovers(
    caplog_box: pytest.LogCaptureFixture,
) -> None:
    sim = make("1,1,1", "2,2,2", "3,3,3")
    sim.press()
    sim.unplug("red")
    sim.press()
    # The other panels keep working and the press was not lost.
    valley = find_title("valley")
    assert same(sim.panel("green"), die_panel(2, Die.GREEN, valley))
    assert same(sim.panel("purple"), die_panel(2, Die.PURPLE, valley))
    assert same(sim.panel("red"), die_panel(1, Die.RED, valley))  # what it had before
    assert "red die display failed" in caplog_box.text
    options = valley.options(Roll.from_str("2,2,2"))
    degraded = StatusView(title=valley, map_tag=TAG, round=2, options=options,
                          reading=valley.reading(options),
                          notices=("red die display not answering",))
    assert same(sim.panel("status"), draw_status(degraded))
    sim.replug("red")
    sim.advance(2.5)  # the retry after the first back-off
    assert "red die display is back" in caplog_box.text
    assert same(sim.panel("red"), die_panel(2, Die.RED, valley))
    sim.press()
    assert read_faces(sim, "valley") == (3, 3, 3)
    sim.close()


def test_round_leds_are_off_at_the_table_and_count_solo_rounds() -> None:
    sim = make(*["1,2,3"] * 6)
    sim.press()
    assert sim.led_states() == (False,) * 5
    sim.close()
    sim = make(*["1,2,3"] * 26, mode="solo")
    lit = []
    for _ in range(25):
        sim.press()
        lit.append(sum(sim.led_states()))
    assert lit[0] == 1 and lit[4] == 1 and lit[5] == 2 and lit[24] == 5
    assert lit == sorted(lit)
    sim.press()  # the 26th press: the game is over, nothing is rolled
    assert sim.box.game.state.rounds == 25
    sim.close()


def test_an_unchanged_die_is_not_redrawn() -> None:
    sim = make("2,3,5", "2,4,5")
    sim.press()
    buses = {name: sim.fakes.where[name][0] for name in ("green", "purple", "red")}
    before = {n: len(sim.fakes.i2c.bus(b).transfers) for n, b in buses.items()}
    sim.press()
    after = {n: len(sim.fakes.i2c.bus(b).transfers) for n, b in buses.items()}
    assert after["green"] == before["green"]
    assert after["red"] == before["red"]
    assert after["purple"] > before["purple"]
    sim.close()


def test_spi_panels_and_a_wide_status_screen() -> None:
    from pitable.config import loads_config

    config = loads_config(
        '[displays.status]\ndriver = "ssd1322"\ninterface = "spi"\nspi_device = 0\ndc = 24\n'
        '[displays.red]\ndriver = "sh1106"\ninterface = "spi"\nspi_device = 1\ndc = 23\n'
    )
    sim = make("4,5,2", config=config)
    sim.press()
    assert read_faces(sim, "valley") == (4, 5, 2)
    assert sim.panel("status").size == (256, 64)
    valley = find_title("valley")
    options = valley.options(Roll.from_str("4,5,2"))
    expected = draw_status(StatusView(title=valley, map_tag=TAG, round=1, options=options,
                                      reading=valley.reading(options)), (256, 64))
    assert same(sim.panel("status"), expected)
    sim.close()


def test_the_loop_feeds_the_watchdog_while_nothing_happens() -> None:
    """With no event at all, run() still turns (and calls its heartbeat) every half second
    at most, so systemd's watchdog is fed while the box sits idle on the table."""
    import queue

    sim = make()
    waits: list[float | None] = []

    class Quiet:
        def get_nowait(self) -> object:
            raise queue.Empty

        def get(self, timeout: float | None = None) -> object:
            waits.append(timeout)
            raise queue.Empty

        def put(self, item: object) -> None:
            pass

    sim.box.events = Quiet()  # type: ignore[assignment]
    beats = 0

    def heartbeat() -> None:
        nonlocal beats
        beats += 1
        if beats == 5:
            sim.box.stopped.set()

    sim.box.run(heartbeat=heartbeat)
    assert beats == 5
    assert len(waits) == 5 and all(w is not None and 0 <= w <= 0.5 for w in waits)
    sim.close()


#: Every kind of panel the box may have: dice on I2C (SSD1306, SH1106) and on SPI, and each
#: status driver, with the status screen on SPI where its driver needs it.
PANEL_SETS: dict[str, dict[str, str]] = {
    "i2c": {},
    "sh1106 dice, ssd1309 status": {
        "green": 'driver = "sh1106"', "red": 'driver = "sh1106"', "status": 'driver = "ssd1309"',
    },
    "spi, wide status": {
        "status": 'driver = "ssd1322"\ninterface = "spi"\nspi_device = 0\ndc = 24',
        "red": 'driver = "sh1106"\ninterface = "spi"\nspi_device = 1\ndc = 23',
    },
}


@pytest.mark.parametrize("rotate", [0, 1, 2, 3])
@pytest.mark.parametrize("panels", sorted(PANEL_SETS))
def test_every_panel_draws_in_every_rotation(rotate: int, panels: str) -> None:
    """A panel mounted turned (rotate = 1 to 3) shows every picture upright to its viewer:
    a 128x64 panel turned a quarter gets pictures 64 wide and 128 high (once an
    AssertionError that left it black)."""
    from pitable.config import loads_config

    tables = PANEL_SETS[panels]
    config = loads_config("".join(
        f"[displays.{name}]\n{tables.get(name, '')}\nrotate = {rotate}\n"
        for name in ("green", "purple", "red", "status")
    ))
    sim = make("4,5,2", "*,*,*", "1,1,1", config=config, title="temple")
    for press in range(4):
        if press:
            sim.press()
        slots = {"status": sim.box.status} | {str(k): v for k, v in sim.box.dice.items()}
        for d in config.displays.all():
            slot = slots[d.name]
            shown = sim.panel(d.name)
            assert not slot.degraded, (d.name, slot.failure)
            assert shown.size == slot.size == d.picture_size
            assert (shown.width < shown.height) == (rotate % 2 == 1 and d.width > d.height)
            assert slot.wanted is not None and same(shown, slot.wanted), (d.name, press)
            assert shown.getbbox() is not None
    # The faces are the rolled ones, drawn for the panel's own shape.
    green = config.displays.all()[0]
    width, height = green.picture_size
    assert same(sim.panel("green"), die_panel(1, Die.GREEN, find_title("temple"), width=width,
                                              height=height))
    sim.close()
