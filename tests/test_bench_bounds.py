"""The lower bounds bench_box holds the panels' drivers to: what no driver can beat."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.bench_box import LEAST_MOVE, Bounds, lower_bounds, page_bytes
from pitable.hw.oled import I2C_OVERHEAD, Pointer, plan_pages


def page(changes: dict[int, int], width: int = 128) -> bytes:
    return bytes(changes.get(c, 0) for c in range(width))


def test_each_gap_between_runs_costs_its_width_or_a_pointer_move() -> None:
    blank = [page({})]
    # Runs at 10-11, 13, 20 and 40: gaps of 1, 6 and 19 columns.
    after = [page({10: 1, 11: 1, 13: 1, 20: 1, 40: 1})]
    bounds = page_bytes(blank, after)
    assert bounds.changed == 5
    assert bounds.spans == 31
    # The gap of 1 costs 1, the gaps of 6 and 19 a move each; one run is let in free.
    assert bounds.framed == 5 + 1 + LEAST_MOVE + LEAST_MOVE - LEAST_MOVE


def test_one_run_a_page_is_reached_for_nothing() -> None:
    blank = [page({}), page({})]
    after = [page({5: 1, 50: 1}), page({5: 1})]
    assert page_bytes(blank, after) == Bounds(3, 3, 47)


def test_an_inverted_picture_is_bounded_by_the_invert_command() -> None:
    shown = [page({c: 0x0F for c in range(0, 128, 3)})]
    inverse = [bytes(255 - b for b in shown[0])]
    bounds = lower_bounds(shown, inverse)
    assert bounds.changed == bounds.framed == bounds.spans == I2C_OVERHEAD + 1


@settings(max_examples=200, deadline=None)
@given(
    old=st.lists(st.binary(min_size=128, max_size=128), min_size=8, max_size=8),
    changes=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 127), st.integers(0, 255)),
                     max_size=60),
)
def test_the_drivers_plan_never_beats_the_bound(old: list[bytes],
                                                changes: list[tuple[int, int, int]]) -> None:
    new = [bytearray(p) for p in old]
    for p, c, value in changes:
        new[p][c] = value
    after = [bytes(p) for p in new]
    cost, _, _ = plan_pages(old, after, Pointer())
    bounds = lower_bounds(old, after)
    assert bounds.changed <= bounds.framed <= cost
