"""What a sheet's key says: how each thing on the map scores, as data a title supplies.

A title's :meth:`~pitable.rules.base.Title.sheet_key` returns its entries in the order the
rulebook counts the stars; the renderer (:mod:`pitable.render.sheet`) draws them, with the
small diagrams drawn as spaces holding numbers. Pure Python: no drawing here.
"""

from __future__ import annotations

from dataclasses import dataclass

from pitable.rules.base import ENGLISH, Translator

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
    """One line of the key: a thing to make, what it is worth, the rule, maybe a diagram.

    ``name``, ``stars`` and ``rule`` are messages in English, marked for translation where
    the title declares them, with ``{field}``s that :attr:`fields` fill in; :meth:`said`
    gives the entry in a language.
    """

    name: str
    #: What it is worth, in a few characters ("5★", "−2★", "{worth} a space"); "" for a rule
    #: without stars.
    stars: str
    #: The rule, as one or two short sentences (the renderer wraps them).
    rule: str
    diagram: Diagram | None = None
    #: The values of the ``{field}``s of ``stars`` and ``rule``, by name.
    fields: tuple[tuple[str, object], ...] = ()

    def said(self, tr: Translator = ENGLISH) -> KeyEntry:
        """The entry in the language of ``tr``, its fields filled in."""
        values = dict(self.fields)

        def say(message: str) -> str:
            return tr.gettext(message).format(**values) if message else ""

        return KeyEntry(say(self.name), say(self.stars), say(self.rule), self.diagram)

    def heading(self, tr: Translator = ENGLISH) -> str:
        """What the key prints in bold before the rule: ``Jungle 5★:``, in the language of
        ``tr`` (of an entry :meth:`said` in it)."""
        if self.stars:
            return tr.gettext("{name} {stars}:").format(name=self.name, stars=self.stars)
        return tr.gettext("{name}:").format(name=self.name)


def stars(n: int) -> str:
    """``5★``, ``−2★``: a number of stars as a key prints it (a real minus sign)."""
    return f"{n}{STAR}" if n >= 0 else f"\u2212{-n}{STAR}"
