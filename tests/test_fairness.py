"""The chi-square test behind ``pitable fairness``."""

from __future__ import annotations

import math

import pytest

from pitable.rules import Roll
from pitable.rules.fairness import chi2_sf, chi_square, fairness


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        # Critical values from the standard chi-square tables.
        (11.0705, 5, 0.05), (15.0863, 5, 0.01), (1.1455, 5, 0.95), (9.2364, 5, 0.10),
        (3.8415, 1, 0.05), (5.9915, 2, 0.05), (9.4877, 4, 0.05), (18.3070, 10, 0.05),
    ],
)
def test_chi2_survival_matches_the_tables(x: float, df: int, p: float) -> None:
    assert math.isclose(chi2_sf(x, df), p, rel_tol=2e-4)


def test_chi2_edges() -> None:
    assert chi2_sf(0, 5) == 1.0
    assert chi2_sf(500, 5) < 1e-100
    with pytest.raises(ValueError):
        chi2_sf(1, 0)


def test_fair_counts_pass_and_loaded_counts_fail() -> None:
    assert chi_square([100] * 6) == (0.0, 1.0)
    stat, p = chi_square([130, 100, 100, 100, 100, 70])
    assert stat == pytest.approx(18.0) and p < 0.01


def test_fairness_counts_each_die_apart() -> None:
    rolls = [Roll(1, 2, 3)] * 60 + [Roll.from_str("*,*,*")] * 60
    report = fairness(rolls)
    assert [d.counts for d in report] == [
        (60, 0, 0, 0, 0, 60), (0, 60, 0, 0, 0, 60), (0, 0, 60, 0, 0, 60)
    ]
    assert all(d.p_value < 1e-10 for d in report)
