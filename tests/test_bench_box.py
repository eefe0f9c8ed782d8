"""bench_box's accounting, on a few rolls of the box as shipped.

The benchmark's figures are only as honest as its lower bound: no driver can send less than
it, so on every roll and every panel the bytes sent are at least the bound. The hazard's
blink stays within its 10 bytes, and the first pixel comes before the last byte.
"""

from __future__ import annotations

from benchmarks.bench_box import PANELS, run


def test_every_roll_sends_at_least_its_lower_bound_on_every_panel() -> None:
    rolls = run(40)
    assert len(rolls) == 40
    for roll in rolls:
        for panel in PANELS:
            assert roll.bytes_per_panel[panel] >= roll.bound_per_panel[panel] > 0, panel
        assert roll.total >= roll.bound
        assert roll.data_bytes < roll.total
        assert 0 < roll.cpu_first_ms <= roll.cpu_last_ms
        assert all(0 < blink <= 10 for blink in roll.blink_bytes)
    # The box shows hazards often enough that a few rolls blink.
    assert any(roll.blink_bytes for roll in rolls)
