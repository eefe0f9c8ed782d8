"""The box's timers: each one object in one list, fired by the loop at its own time."""

from __future__ import annotations

from dataclasses import dataclass, field

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
