"""bench_box's accounting, on a few rolls of the box as shipped.

The benchmark's figures are only as honest as its lower bound: no driver can send less than
it, so on every roll and every panel the bytes sent are at least the bound. The hazard's
blink stays within its 10 bytes, and the first pixel comes before the last byte.
"""

from __future__ import annotations

import pytest

from benchmarks.bench_box import (
    PANELS,
    Bench,
    failures,
    in_rectangles,
    plan_ratios,
    run,
    stock_luma,
    tilted_tumble,
)
from tests.support.pictures import same


def test_every_roll_sends_at_least_its_lower_bound_on_every_panel() -> None:
    rolls = run(40)
    assert len(rolls) == 40
    for roll in rolls:
        for panel in PANELS:
            assert roll.bytes_per_panel[panel] >= roll.bound_per_panel[panel] > 0, panel
        assert roll.total >= roll.bound
        assert roll.data_bytes < roll.total
        assert 0 < roll.cpu_first_ms <= roll.cpu_last_ms
        # Every roll is saved, on the loop's time, before its final faces.
        assert 0 < roll.commit_ms < roll.cpu_last_ms
        assert roll.commit_wall_ms > 0
        assert all(0 < blink <= 10 for blink in roll.blink_bytes)
    # The box shows hazards often enough that a few rolls blink.
    assert any(roll.blink_bytes for roll in rolls)


def test_the_rectangles_compared_with_show_every_picture_the_box_drew() -> None:
    # The benchmark prices the box's pictures sent as rectangles in horizontal addressing;
    # the price is only worth printing if those bytes draw the pictures.
    with in_rectangles():
        bench = Bench()
        try:
            slots = {str(die): slot for die, slot in bench.sim.box.dice.items()}
            slots["status"] = bench.sim.box.status
            step = bench.step
            steps = 0

            def checked() -> tuple[float, float, int]:
                nonlocal steps
                result = step()
                for name, slot in slots.items():
                    assert slot.wanted is not None
                    assert same(bench.sim.panel(name), slot.wanted), f"{name} after step {steps}"
                steps += 1
                return result

            bench.step = checked  # type: ignore[method-assign]
            rolls = [bench.roll() for _ in range(30)]
            # Every panel was driven by the rectangles' plan, in horizontal addressing (where
            # only rectangles move the RAM pointer), and none failed on the way.
            for name, slot in slots.items():
                assert type(slot.panel).__name__.startswith("Rectangles"), name
                assert slot.failure is None, name
            assert not any(panel.page_addressing for panel in bench.sim.fakes.panels.values())
        finally:
            bench.close()
    assert steps > 30 * 7
    assert all(roll.total >= roll.bound for roll in rolls)


def test_the_tilted_tumble_compared_runs_on_the_box_as_it_is() -> None:
    # The tumble as it was is swapped in for the box's own: it must take what the box
    # passes to its tumble (the table's language included), or the benchmark dies mid-run.
    with tilted_tumble():
        rolls = run(5)
    assert len(rolls) == 5
    assert all(roll.total >= roll.bound > 0 for roll in rolls)


# luma's stock driver (the baseline) reads pictures through a Pillow call deprecated in 13.
@pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")
def test_the_verdict_weighs_the_box_against_the_best_plan_and_whole_frames() -> None:
    ours = run(6)
    with in_rectangles():
        boxed = run(6)
    with tilted_tumble(), stock_luma():
        stock = run(6)
    over_best, of_whole = plan_ratios(ours, boxed, stock)
    assert 1 <= over_best < 1.2
    assert 0 < of_whole < 0.5
    # Each limit fails on its own, naming what is over.
    assert failures(1.06, 0.05, 3, 20.0) == ["whole bus 1.060x the best plan (at most 1.05)"]
    assert failures(1.0, 0.11, 3, 20.0) == ["whole bus 11.0% of luma's whole frames"
                                            " (at most 10%)"]
    assert len(failures(1.0, 0.05, 11, 51.0)) == 2
