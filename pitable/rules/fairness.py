"""Is each die fair? Face counts and Pearson's chi-square test, with no dependencies.

The chi-square survival function for an integer number of degrees of freedom has a closed
form (a finite series in erfc and exp); it is written out here rather than pulling SciPy,
some 40 MB on a Pi Zero, into the box for one function.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pitable.rules.dice import DICE, ONE_TO_FIVE, DiceSet, Die, Face, Roll


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square distributed with ``df`` (a positive integer) degrees."""
    if df < 1:
        raise ValueError("degrees of freedom must be a positive integer")
    if x <= 0:
        return 1.0
    if df % 2 == 0:
        # Q = exp(-x/2) * sum_{j < df/2} (x/2)^j / j!
        term = total = 1.0
        for j in range(1, df // 2):
            term *= (x / 2) / j
            total += term
        return min(1.0, math.exp(-x / 2) * total)
    # Odd df: Q = erfc(sqrt(x/2))
    #           + sqrt(2x/pi) exp(-x/2) * sum_{j=1}^{(df-1)/2} x^(j-1) / (1*3*..*(2j-1))
    z = math.sqrt(x)
    total = 0.0
    term = 1.0
    for j in range(1, (df - 1) // 2 + 1):
        if j > 1:
            term *= x / (2 * j - 1)
        total += term
    q = math.erfc(z / math.sqrt(2)) + math.sqrt(2 / math.pi) * z * math.exp(-x / 2) * total
    return min(1.0, q)


#: Pearson's test is trusted only when each face is expected at least this many times: the
#: usual rule for the chi-square approximation (Cochran, 1954).
MIN_EXPECTED = 5


def min_rolls(dice: DiceSet = ONE_TO_FIVE) -> int:
    """The fewest rolls for which the chi-square test of one die means something."""
    return MIN_EXPECTED * len(dice.faces)


@dataclass(frozen=True)
class DieFairness:
    die: Die
    faces: tuple[Face, ...]
    counts: tuple[int, ...]
    chi2: float
    p_value: float

    @property
    def rolls(self) -> int:
        return sum(self.counts)

    def to_json(self) -> dict[str, object]:
        return {
            "die": str(self.die),
            "counts": {str(f): c for f, c in zip(self.faces, self.counts, strict=True)},
            "chi2": round(self.chi2, 4),
            "p_value": round(self.p_value, 6),
        }


def chi_square(counts: Iterable[int]) -> tuple[float, float]:
    """Pearson's statistic against equal chances for every face, and its p-value."""
    counts = list(counts)
    n = sum(counts)
    if n == 0:
        return 0.0, 1.0
    expected = n / len(counts)
    stat = sum((c - expected) ** 2 for c in counts) / expected
    return stat, chi2_sf(stat, len(counts) - 1)


def fairness(rolls: Iterable[Roll], dice: DiceSet = ONE_TO_FIVE) -> list[DieFairness]:
    """Face counts and a chi-square test for each of the three dice."""
    index = {f: i for i, f in enumerate(dice.faces)}
    counts = [[0] * 6 for _ in DICE]
    for roll in rolls:
        for d, face in enumerate(roll.faces):
            counts[d][index[face]] += 1
    result = []
    for die, c in zip(DICE, counts, strict=True):
        stat, p = chi_square(c)
        result.append(DieFairness(die, dice.faces, tuple(c), stat, p))
    return result
