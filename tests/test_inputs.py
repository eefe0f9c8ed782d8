"""The ROLL button and the encoder's push, driven through the mock pins as a finger (and a
bouncing contact) drives them, on the simulator's fake clock: a quick tap rolls, bounce never
rolls twice or opens the menu, and a table hammering the button does not queue rolls."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest

from pitable.box.controller import MIN_SHOW_S, Phase
from pitable.box.sim import Simulator
from pitable.config import DEFAULTS
from pitable.hw.events import Edge, Line
from pitable.render.status import draw_status
from tests.support.box import make, read_faces
from tests.support.pictures import same

#: The default debounce time, which every bounce train below stays within.
BOUNCE_S = DEFAULTS.button.bounce_ms / 1000
HOLD_S = DEFAULTS.box.hold_s


def drive(sim: Simulator, pin_number: int, levels: Sequence[tuple[float, bool]]) -> None:
    """Drive a pin through ``levels``: (seconds after the previous one, pressed)."""
    pin = sim.fakes.pin(pin_number)
    for wait, pressed in levels:
        sim.advance(wait)
        if pressed:
            pin.drive_low()
        else:
            pin.drive_high()


def tap(sim: Simulator, down_s: float, then_s: float) -> None:
    """A press of ROLL ``down_s`` long, then ``then_s`` with the button up."""
    sim.button_down()
    sim.advance(down_s)
    sim.button_up()
    sim.advance(then_s)


def dropped_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "dropped while rolling" in r.getMessage()]


def test_a_10ms_tap_rolls_once_and_does_not_open_the_menu() -> None:
    sim = make("2,3,5", "1,1,1")
    tap(sim, 0.010, 0.0)
    sim.settle()
    assert read_faces(sim, "valley") == (2, 3, 5)
    assert sim.box.game.state.rounds == 1
    sim.advance(HOLD_S + 0.5)  # long after a hold would have fired
    assert sim.box.phase is Phase.SHOWING
    assert sim.box.game.state.rounds == 1
    tap(sim, 0.010, 0.0)  # and the next tap rolls again
    sim.settle()
    assert read_faces(sim, "valley") == (1, 1, 1)
    sim.close()


# Each train: (seconds after the previous edge, pressed), all within BOUNCE_S of its first edge.
PRESS_BOUNCES = {
    "clean": [(0.0, True)],
    "two blips": [(0.0, True), (0.002, False), (0.002, True)],
    "a train to the end of the bounce time": [
        (0.0, True), (0.003, False), (0.004, True), (0.004, False), (0.003, True),
        (0.003, False), (0.001, True),
    ],
}
RELEASE_BOUNCES = {
    "clean": [(0.0, False)],
    "two blips": [(0.0, False), (0.001, True), (0.003, False)],
    "a train to the end of the bounce time": [
        (0.0, False), (0.002, True), (0.005, False), (0.004, True), (0.004, False),
        (0.002, True), (0.002, False),
    ],
}


@pytest.mark.parametrize("press", PRESS_BOUNCES, ids=str)
@pytest.mark.parametrize("release", RELEASE_BOUNCES, ids=str)
@pytest.mark.parametrize("held_s", [0.005, 0.012, 0.12], ids=["5ms", "12ms", "120ms"])
def test_contact_bounce_on_press_and_release_rolls_once(
    press: str, release: str, held_s: float
) -> None:
    trains = [*PRESS_BOUNCES[press], *RELEASE_BOUNCES[release]]
    assert sum(w for w, _ in PRESS_BOUNCES[press]) < BOUNCE_S
    assert sum(w for w, _ in RELEASE_BOUNCES[release]) < BOUNCE_S
    sim = make("1,1,1", "4,4,4")
    first_release = len(PRESS_BOUNCES[press])
    trains[first_release] = (held_s, False)
    drive(sim, DEFAULTS.button.pin, trains)
    sim.settle()
    sim.advance(HOLD_S + 0.5)
    assert sim.box.game.state.rounds == 1
    assert read_faces(sim, "valley") == (1, 1, 1)
    assert sim.box.phase is Phase.SHOWING
    sim.close()


def test_a_bouncing_hold_opens_the_menu_once() -> None:
    sim = make("1,2,3")
    sim.press()
    pin = DEFAULTS.button.pin
    drive(sim, pin, PRESS_BOUNCES["a train to the end of the bounce time"])
    sim.advance(HOLD_S + 0.1)
    assert sim.box.phase is Phase.MENU
    menu = sim.panel("status")
    drive(sim, pin, RELEASE_BOUNCES["a train to the end of the bounce time"])
    sim.settle()
    # The release's bounce neither moved down the menu (a press) nor chose in it (a hold).
    assert sim.box.phase is Phase.MENU
    assert same(sim.panel("status"), menu)
    assert sim.box.game.state.rounds == 1
    sim.close()


@pytest.mark.parametrize("down_s", [0.008, 0.08], ids=["8ms", "80ms"])
def test_a_bouncing_push_of_the_encoder_counts_once(down_s: float) -> None:
    sim = make("1,2,3")
    sim.press()
    push = [*PRESS_BOUNCES["a train to the end of the bounce time"],
            *RELEASE_BOUNCES["a train to the end of the bounce time"]]
    push[len(PRESS_BOUNCES["a train to the end of the bounce time"])] = (down_s, False)
    drive(sim, DEFAULTS.encoder.push, push)
    sim.settle()
    # One push opens the menu; a second would have chosen its first item (New game).
    assert sim.box.phase is Phase.MENU
    assert len(sim.box.menu) == 1
    assert same(sim.panel("status"), draw_status(sim.box.view()))
    drive(sim, DEFAULTS.encoder.push, push)  # and the next push chooses New game
    sim.settle()
    assert [level.heading for level in sim.box.menu] == ["Menu", "New game"]
    sim.close()


def test_the_simulators_press_hold_and_push_still_work() -> None:
    sim = make("1,2,3", "5,5,4")
    sim.press()
    assert read_faces(sim, "valley") == (1, 2, 3)
    sim.hold()
    assert sim.box.phase is Phase.MENU
    sim.turn(-1)  # Back, the last item
    sim.push()
    assert sim.box.phase is Phase.SHOWING
    sim.press()
    assert read_faces(sim, "valley") == (5, 5, 4)
    assert sim.box.game.state.rounds == 2
    sim.close()


def test_fifty_taps_during_a_roll_give_two_rolls_and_the_rest_are_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pitable")
    sim = make("1,2,3", "5,4,2", "5,5,5", tumble_ms=2000)
    start = sim.box.clock.now()
    for _ in range(50):  # a tap every 60 ms: 3 s, all within the tumble and the show time
        tap(sim, 0.010, 0.050)
    assert sim.box.clock.now() - start < 2.0 + MIN_SHOW_S
    assert sim.box.game.state.rounds == 1
    sim.advance(2.0 + MIN_SHOW_S + 5.0)
    assert sim.box.game.state.rounds == 2
    assert read_faces(sim, "valley") == (5, 4, 2)
    assert dropped_lines(caplog) == ["48 presses dropped while rolling"]
    sim.close()


def test_presses_during_the_show_time_of_a_waiting_press_are_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pitable")
    sim = make("1,2,3", "5,4,2", "5,5,5", tumble_ms=400)
    tap(sim, 0.05, 0.05)  # rolls
    tap(sim, 0.05, 0.05)  # during the tumble: waits
    sim.advance(0.4)  # the first result is shown; the waiting press rolls after MIN_SHOW_S
    tap(sim, 0.05, 0.05)  # dropped: one press already waits
    sim.advance(MIN_SHOW_S + 0.4 + MIN_SHOW_S)
    assert sim.box.game.state.rounds == 2
    assert read_faces(sim, "valley") == (5, 4, 2)
    assert dropped_lines(caplog) == ["1 press dropped while rolling"]
    tap(sim, 0.05, 0.05)  # once all is shown and nothing waits, a press rolls at once
    sim.settle()
    assert read_faces(sim, "valley") == (5, 5, 5)
    sim.close()


def test_a_press_waiting_when_the_menu_opens_is_given_up(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pitable")
    sim = make("1,2,3", "5,4,2", tumble_ms=400)
    tap(sim, 0.05, 0.05)  # rolls
    tap(sim, 0.05, 0.0)  # during the tumble: waits
    sim.advance(0.4)  # the result is shown
    sim.push()  # the menu opens before the waiting press rolls
    assert sim.box.phase is Phase.MENU
    sim.push()  # New game
    sim.turn(+1)  # Valley: solo
    sim.push()
    assert sim.box.game.state.mode == "solo"
    sim.advance(MIN_SHOW_S + 1.0)
    assert sim.box.game.state.rounds == 0  # the new game did not start with a stale roll
    assert dropped_lines(caplog) == ["1 press dropped while rolling"]
    tap(sim, 0.05, 0.0)  # and the next press rolls in the new game
    sim.settle()
    assert sim.box.game.state.rounds == 1
    assert read_faces(sim, "valley") == (5, 4, 2)
    sim.close()


def test_taps_seen_late_by_a_busy_loop_still_roll_each() -> None:
    """The loop may get to the edges after the quiet times ran out (on the box it was
    drawing): the changes still count in the order and at the times they happened."""
    sim = make("1,2,3", "5,4,2")
    t = sim.box.clock.now()
    for at, pressed in [(0.0, True), (0.010, False), (0.100, True), (0.108, False)]:
        sim.box.post(Edge(Line.ROLL, pressed, t + at))
    assert sim.fake_clock is not None
    sim.fake_clock.advance(0.5)
    sim.advance(0.0)
    assert sim.box.game.state.rounds == 2
    assert read_faces(sim, "valley") == (5, 4, 2)
    sim.close()
