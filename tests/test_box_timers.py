"""The box's timers: each one object in one list, fired by the loop at its own time."""

from __future__ import annotations

from dataclasses import dataclass, field

from pitable.box import timers
from pitable.box.sim import Simulator
from pitable.config import DEFAULTS
from pitable.hw.entropy import SeededSource


@dataclass
class Chime:
    """A timer of the test's own: due once, at ``at``."""

    at: float | None
    fired: list[float] = field(default_factory=list)

    def deadline(self) -> float | None:
        return self.at

    def fire(self, now: float) -> None:
        self.fired.append(now)
        self.at = None


def test_a_new_timer_is_one_object_added_to_the_list() -> None:
    sim = Simulator(DEFAULTS, entropy=SeededSource(7), map_seeds=lambda: 1234)
    try:
        box = sim.box
        due = box.clock.now() + 10
        chime = Chime(due)
        box.timers.append(chime)
        # The loop waits for it as for its own timers, and fires it at its moment.
        assert box.step() == due
        sim.advance(9.9)
        assert chime.fired == []
        sim.advance(0.2)
        assert chime.fired == [due]
        assert box.step() is None
    finally:
        sim.close()


def test_timers_due_at_one_step_fire_in_the_lists_order() -> None:
    sim = Simulator(DEFAULTS, entropy=SeededSource(7), map_seeds=lambda: 1234)
    try:
        box = sim.box
        now = box.clock.now()
        order: list[str] = []

        @dataclass
        class Named:
            name: str
            at: float | None = now

            def deadline(self) -> float | None:
                return self.at

            def fire(self, now: float) -> None:
                order.append(self.name)
                self.at = None

        box.timers.extend([Named("first"), Named("second")])
        box.step()
        assert order == ["first", "second"]
    finally:
        sim.close()


def test_the_box_s_own_timers_are_the_timers_module_s_in_their_firing_order() -> None:
    sim = Simulator(DEFAULTS, entropy=SeededSource(7), map_seeds=lambda: 1234)
    try:
        kinds = [type(timer) for timer in sim.box.timers]
        assert kinds == [timers.Debounce, timers.Debounce, timers.Hold, timers.Tumble,
                         timers.WaitingPress, timers.ConfirmWindow, timers.Blink,
                         timers.NextPage,
                         timers.MenuCloses, timers.PanelRetry, timers.StoreRetry]
    finally:
        sim.close()


def test_a_blink_timer_alone_turns_the_hazard_s_screen_off_and_on() -> None:
    sim = Simulator(DEFAULTS, entropy=SeededSource(7), map_seeds=lambda: 1234)
    try:
        box = sim.box
        blink = timers.Blink(box)
        assert blink.deadline() is None
        box.next_blink = now = box.clock.now()
        blink.fire(now)
        assert box.blink_on is False
        assert blink.deadline() == now + box.settings.blink_ms / 2000
    finally:
        sim.close()
