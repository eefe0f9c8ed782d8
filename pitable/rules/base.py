"""What a roll allows: the part of each title's rules that every roll goes through.

A title is a subclass of :class:`Title` with class-level facts (its hazard, what the green
special face does, how many spaces a turn may fill) and is found by name with
:func:`find_title`. :meth:`Title.options` answers what a roll allows; :meth:`Title.reading`
puts that in the title's own words for the status screen.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

from pitable.errors import BadDangerCount, UnknownTitle
from pitable.rules.dice import SPECIAL, Die, Roll

#: Penny Papers' number of choice, as it appears in a play.
PENNY = "1-15"
PENNY_RANGE = tuple(range(1, 16))

Number = int | str  # a number written, or PENNY
Play = tuple[Number, ...]


class GreenEffect(enum.Enum):
    """What Dakota Smith's face (the green special face) lets a player do."""

    STRUCTURE = "structure"  # Valley: draw a hut, a statue or a mine
    BOAT = "boat"  # Island: draw a boat in the sea instead of writing a number
    DOOR = "door"  # Temple: the number goes in a Door space


@dataclass(frozen=True)
class Options:
    """Everything one roll allows in one title."""

    title: str
    roll: Roll
    #: The red special face came up and cancels the other two dice.
    hazard: bool
    #: The red special face came up but the title ignores it (the Island after five dangers).
    hazard_ignored: bool
    #: Every number one space may receive this turn, sorted; empty on a hazard.
    numbers: tuple[int, ...]
    #: Titles that fill several spaces a turn: every way to use all the usable dice at once.
    plays: tuple[Play, ...]
    #: Penny Papers (the purple special face) gives one number of choice from 1 to 15.
    penny: bool
    #: Dakota Smith's face was rolled and may be used.
    green: GreenEffect | None

    @property
    def hazard_rolled(self) -> bool:
        return self.roll.red is SPECIAL

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "title": self.title,
            "roll": self.roll.to_json(),
            "hazard": self.hazard,
            "hazard_ignored": self.hazard_ignored,
            "numbers": list(self.numbers),
            "penny": self.penny,
            "green": self.green.value if self.green else None,
        }
        if find_title(self.title).several_spaces:
            data["plays"] = [list(p) for p in self.plays]
        return data


@dataclass(frozen=True)
class Reading:
    """The words the status screen shows for a roll."""

    headline: str
    lines: tuple[str, ...]
    #: A hazard: shown so that nobody misses it (inverted, blinking).
    alarm: bool
    #: The same instructions in a few words a line, for a small screen.
    brief: tuple[str, ...] = ()


def format_play(play: Play) -> str:
    return "+".join(f"({n})" if n == PENNY else str(n) for n in play)


def format_numbers(numbers: Sequence[int]) -> str:
    """``1 2 3`` as is; a run of all fifteen (Penny Papers) as ``1-15``."""
    if tuple(numbers) == PENNY_RANGE:
        return PENNY
    return " ".join(str(n) for n in numbers)


def set_partitions(items: Sequence[int]) -> Iterator[list[list[int]]]:
    """Every way to split ``items`` (indices) into non-empty groups."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first], *partition]
        for i, group in enumerate(partition):
            yield [*partition[:i], [first, *group], *partition[i + 1 :]]


def group_plays(values: Sequence[int]) -> list[tuple[int, ...]]:
    """Every way to group the dice ``values`` into numbers, each die used exactly once.

    Listed from the most numbers to the fewest; within a play the sums of several dice come
    first, then the single dice in die order, so 2, 3, 5 reads 2+3+5, 5+5, 7+3, 8+2, 10.
    Plays that write the same numbers are listed once.
    """
    def normalised(partition: list[list[int]]) -> list[list[int]]:
        merged = sorted(sorted(g) for g in partition if len(g) > 1)
        singles = sorted(sorted(g) for g in partition if len(g) == 1)
        return merged + singles

    partitions = [normalised(p) for p in set_partitions(list(range(len(values))))]
    partitions.sort(key=lambda p: (-len(p), [g for g in p if len(g) > 1]))
    plays: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for partition in partitions:
        play = tuple(sum(values[i] for i in group) for group in partition)
        key = tuple(sorted(play))
        if key not in seen:
            seen.add(key)
            plays.append(play)
    return plays


def subset_sums(values: Sequence[int]) -> set[int]:
    """One die, or the sum of any two, or of all three."""
    sums: set[int] = set()
    for mask in range(1, 1 << len(values)):
        sums.add(sum(v for i, v in enumerate(values) if mask >> i & 1))
    return sums


class Title:
    """One title of the series; subclasses set the class-level facts and the words."""

    key: ClassVar[str]
    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    #: The red special face: "snake", "danger", "mummy".
    hazard_name: ClassVar[str]
    #: What is drawn for it on a sheet: a snake, a skull, a mummy.
    hazard_symbol: ClassVar[str]
    #: The green special face, when it is usable.
    green_effect: ClassVar[GreenEffect]
    #: True when the dice may be grouped into up to three numbers a turn (the Valley).
    several_spaces: ClassVar[bool] = False
    #: The most hazards a sheet holds; later ones are ignored (the Island: 5). None: no limit.
    hazard_limit: ClassVar[int | None] = None

    def options(self, roll: Roll, hazards_marked: int = 0) -> Options:
        """What ``roll`` allows, given how many hazards were marked before it."""
        self.check_hazards_marked(hazards_marked)
        hazard_rolled = roll.red is SPECIAL
        ignored = (
            hazard_rolled
            and self.hazard_limit is not None
            and hazards_marked >= self.hazard_limit
        )
        if hazard_rolled and not ignored:
            return Options(self.key, roll, True, False, (), (), False, None)
        usable = [Die.GREEN, Die.PURPLE] if ignored else list(Die)
        values = [v for d in usable if isinstance(v := roll[d], int)]
        penny = roll.purple is SPECIAL
        green = self.green_effect if roll.green is SPECIAL else None
        numbers = subset_sums(values)
        if penny:
            numbers.update(PENNY_RANGE)
        plays: tuple[Play, ...] = ()
        if self.several_spaces:
            tail: Play = (PENNY,) if penny else ()
            plays = tuple(p + tail for p in group_plays(values) if p + tail)
        return Options(self.key, roll, False, ignored, tuple(sorted(numbers)), plays, penny, green)

    def check_hazards_marked(self, hazards_marked: int) -> None:
        limit = self.hazard_limit
        if hazards_marked < 0 or (limit is not None and hazards_marked > limit):
            bound = f"0 to {limit}" if limit is not None else "0 or more"
            raise BadDangerCount(
                f"{hazards_marked} {self.hazard_name}s marked: expected {bound}"
            )

    # --- words --------------------------------------------------------------

    def reading(self, options: Options, *, solo: bool = False) -> Reading:
        """The status screen's words for ``options``, for table play or for solo play."""
        if options.hazard:
            return Reading(self.hazard_headline(), self.hazard_lines(solo), alarm=True,
                           brief=self.hazard_brief(solo))
        return Reading(self.play_headline(options), self.play_lines(options), alarm=False)

    def hazard_brief(self, solo: bool) -> tuple[str, ...]:
        """What to do about the hazard, in two short lines: solo play draws it on your own
        sheet next to last turn's space; table play swaps sheets."""
        where = "by last turn's space" if solo else "on another's sheet"
        return ("Ignore the other dice", f"{self.hazard_symbol.capitalize()} {where}")

    def hazard_headline(self) -> str:
        return f"{self.hazard_name.upper()}!"

    def hazard_lines(self, solo: bool) -> tuple[str, ...]:
        raise NotImplementedError

    def play_headline(self, options: Options) -> str:
        raise NotImplementedError

    def play_lines(self, options: Options) -> tuple[str, ...]:
        raise NotImplementedError

    def numbers_line(self, options: Options) -> str:
        return f"Numbers: {format_numbers(options.numbers)}" if options.numbers else ""

    def summary(self, options: Options) -> str:
        """One line for the terminal, e.g. ``2 3 5 -> 2 3 5 7 8 10; plays: 2+3+5 | ...``."""
        faces = " ".join(str(f) for f in options.roll.faces)
        if options.hazard:
            return f"{faces} -> {self.hazard_name}: the other dice are ignored"
        parts = [format_numbers(options.numbers) if options.numbers else "no number"]
        if options.hazard_ignored:
            parts.append(f"{self.hazard_name} ignored ({self.hazard_limit} already marked)")
        if options.green is not None:
            parts.append(options.green.value)
        if self.several_spaces and options.plays:
            parts.append("plays: " + " | ".join(format_play(p) for p in options.plays))
        return f"{faces} -> " + "; ".join(parts)

    def __repr__(self) -> str:
        return f"find_title({self.key!r})"


_REGISTRY: dict[str, Title] = {}


def register(cls: type[Title]) -> type[Title]:
    """Class decorator: make a title findable by its key and aliases."""
    title = cls()
    for name in (cls.key, *cls.aliases):
        _REGISTRY[name] = title
    return cls


def find_title(name: str) -> Title:
    """The title registered under ``name`` (``valley``, ``skull-island``, ...)."""
    # Importing the titles registers them; done here so that base stays importable alone.
    import pitable.rules.titles  # noqa: F401

    try:
        return _REGISTRY[name.strip().lower()]
    except KeyError:
        raise UnknownTitle(
            f"unknown game {name!r}: expected one of {', '.join(title_keys())}"
        ) from None


def title_keys() -> list[str]:
    import pitable.rules.titles  # noqa: F401

    return list(dict.fromkeys(t.key for t in _REGISTRY.values()))


def all_titles() -> list[Title]:
    return [find_title(k) for k in title_keys()]
