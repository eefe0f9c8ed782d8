"""What a sheet's key says: how each thing on the map scores, as data a title supplies.

A title's :meth:`~pitable.rules.base.Title.sheet_key` returns its entries in the order the
rulebook counts the stars; the renderer (:mod:`pitable.render.sheet`) draws them, with the
small diagrams drawn as spaces holding numbers. Pure Python: no drawing here.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The star drawn after a number of stars ("5★").
STAR = "\u2605"

Cell = tuple[int, int]  # (row, column)


@dataclass(frozen=True)
class Diagram:
    """A few spaces drawn small, as on the map: a discovery's shape, a pattern of numbers."""

    #: (row, column, what is written there, "" for nothing) of every space drawn.
    spaces: tuple[tuple[int, int, str], ...]
    #: Spaces drawn with a circle (where a treasure is found).
    circled: tuple[Cell, ...] = ()
    #: Spaces drawn as a Door (an inner frame).
    doors: tuple[Cell, ...] = ()

    @property
    def rows(self) -> int:
        return 1 + max(r for r, _, _ in self.spaces)

    @property
    def columns(self) -> int:
        return 1 + max(c for _, c, _ in self.spaces)


@dataclass(frozen=True)
class KeyEntry:
    """One line of the key: a thing to make, what it is worth, the rule, maybe a diagram."""

    name: str
    #: What it is worth, in a few characters ("5★", "−2★"); "" for a rule without stars.
    stars: str
    #: The rule, as one or two short sentences (the renderer wraps them).
    rule: str
    diagram: Diagram | None = None

    @property
    def heading(self) -> str:
        """What the key prints in bold before the rule: ``Jungle 5★:``."""
        return f"{self.name} {self.stars}:" if self.stars else f"{self.name}:"


def stars(n: int) -> str:
    """``5★``, ``−2★``: a number of stars as a key prints it (a real minus sign)."""
    return f"{n}{STAR}" if n >= 0 else f"\u2212{-n}{STAR}"
