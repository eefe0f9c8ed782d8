"""The Temple of Apikhabou: one space a turn, Door spaces, mummies.

Everything about the title: its names, what a roll allows, its words, its solo rules and
levels, and its sheet (a stepped pyramid with Door spaces).

What makes one temple worth more than another, for a bot that measures it: the number of
spaces (the game lasts until the doorless ones are full, so more spaces give longer
sequences and more groups), how many neighbours each space has (a wide, low temple has more
than a tall, narrow one, and sequences and groups are built from neighbours), and the Doors:
how many there are, since a Lockpick rolled once they are full is lost, and whether they
sit where a sequence or a 9 beside a mummy would want them.

Map formats: map v2's outlines fill 40 to 56 spaces; map v3 sizes the temples by the solo
levels (21 to 24 spaces, 16 or 17 of them doorless).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pitable.rules.base import ENGLISH, N_, GreenEffect, Options, Title, Translator, penny_range
from pitable.rules.scoring import Token
from pitable.rules.sheets import (
    MAP_FORMAT,
    MAP_FORMATS,
    MAX_COLUMNS,
    Cell,
    Kind,
    Pcg32,
    Shape,
    Sheet,
    Side,
    first_accepted,
    grid_of,
    neighbours,
)

if TYPE_CHECKING:
    from pitable.rules.bot.model import TitleBot
    from pitable.rules.scoring import FinishedSheet, Score
    from pitable.rules.sheet_key import KeyEntry
    from pitable.rules.validate import ReplayRules

MAX_ROWS = 8


#: A Door space: a number goes there only with the Lockpick, and never a mummy; it is drawn
#: with a door frame, a second outline inside its square.
DOOR = Kind("DOOR", "D", fillable=True, words="a Door (D)", picture="door frame",
            no_hazard="a Door holds a number, never a hazard (a mummy goes in a doorless"
                      " space)",
            hazard_goes="a doorless space")
#: A Door on a finished sheet: ``D`` empty, ``D7`` holding 7.
DOOR_TOKEN = Token.of(DOOR)

#: Dakota Smith's face in the Temple, the Lockpick: the number goes in a Door space; the die
#: shows a key.
LOCKPICK = GreenEffect("door", picture="lockpick", allows=N_("door"), chip=N_("DOOR"))


@dataclass(frozen=True)
class Sizes:
    """A temple's sizes under one map format: its spaces, its Doors, the doorless spaces
    (which the game lasts until are full), and how many rows each step of the pyramid is
    high: the base (9 spaces wide), the steps of 7 and 5 spaces, and the top step of 3
    spaces, which a temple may go without (its top is then the step of 5)."""

    spaces: range
    doors: range
    doorless: range
    step_rows: dict[int, range]


#: Each map format's sizes. The doorless count is what most sets a temple's worth: the
#: planning bot's mean is about 3.5 stars and 1.07 a doorless space
#: (benchmarks/bench_bot.py), so it is held to a narrow band and the Doors make up the rest.
#: Map v2's temples (40 to 43 doorless spaces) made the bot an Explorer in every game (mean
#: 48; the rulebook's Explorer is 30); map v3's 16 or 17 make it a Pathfinder, as it is in
#: the Valley and on the Island.
SIZES = {
    2: Sizes(range(46, 53), range(6, 10), range(40, 44),
             {9: range(1, 5), 7: range(1, 4), 5: range(1, 4), 3: range(0, 4)}),
    3: Sizes(range(21, 25), range(4, 9), range(16, 18),
             {9: range(1, 2), 7: range(1, 2), 5: range(1, 2), 3: range(0, 2)}),
}
#: This version's sizes.
SPACES, DOORS, DOORLESS, STEP_ROWS = (
    SIZES[MAP_FORMAT].spaces, SIZES[MAP_FORMAT].doors, SIZES[MAP_FORMAT].doorless,
    SIZES[MAP_FORMAT].step_rows,
)
#: Stars for each value with a group of at least GROUP adjacent identical numbers.
GROUP, GROUP_STARS = 3, 3
#: Stars a mummy vanquished earns, and one standing loses.
MUMMY_STARS = 2


class Temple(Title):
    """The Temple of Apikhabou: one space a turn, Door spaces, mummies."""

    key = "temple"
    name = N_("The Temple of Apikhabou")
    short_name = N_("Temple")
    aliases = ("apikhabou", "temple-of-apikhabou")
    hazard_name = N_("mummy")
    hazard_symbol = "mummy"
    green_effect = LOCKPICK
    kinds = (DOOR,)

    # The rulebook's solo levels are 15/25/30, whatever the mummies. The game ends when the
    # sheet is full or five treasures are found, so there is no round limit.
    level_thresholds = (15, 25, 30)
    # The rulebook's solo rule and its fallback, word for word (002:47).
    solo_placement = N_(
        "Draw the mummy on a doorless space next to the space you filled last turn;"
        " if this is not possible, in an empty, doorless space of your choice."
    )
    brief_table = N_("Mummy on another's sheet")
    brief_solo = N_("Mummy by last turn's space")
    table_placement = N_(
        "Swap sheets: draw a mummy in an empty doorless space of your choice on another"
        " player's sheet, then give it back."
    )

    # --- words ------------------------------------------------------------------

    def hazard_lines(self, options: Options, solo: bool, *,
                     tr: Translator = ENGLISH) -> tuple[str, ...]:
        _ = tr.gettext
        return (
            _("Ignore the other dice."),
            self.placement(solo, tr),
            _("A mummy left standing costs 2 stars."),
            _("A 9 written next to it vanquishes it: cross it out for +2 stars."),
        )

    def hazard_count(self, count: int, tr: Translator = ENGLISH) -> str:
        return tr.ngettext("{count} mummy", "{count} mummies", count).format(count=count)

    def play_headline(self, options: Options, *, tr: Translator = ENGLISH) -> str:
        _ = tr.gettext
        if options.green is LOCKPICK:
            return _("Lockpick: fill 1 Door space")
        return _("Fill 1 doorless space")

    def play_lines(self, options: Options, *, tr: Translator = ENGLISH) -> tuple[str, ...]:
        _ = tr.gettext
        lines = [self.numbers_line(options, tr)]
        if options.penny and options.green is LOCKPICK:
            lines.append(_("Penny Papers: any number {range}.").format(range=penny_range(tr)))
        elif options.penny:
            lines.append(_("Penny Papers: any number {range}, in a doorless space.").format(
                range=penny_range(tr)))
        if options.green is LOCKPICK:
            lines.append(_("The number goes in a Door space; if every Door is filled,"
                           " ignore the Lockpick."))
        if 9 in options.numbers:
            lines.append(_("A 9 written next to a mummy vanquishes it."))
        return tuple(line for line in lines if line)

    # --- the sheet ----------------------------------------------------------------

    def generate_sheet(self, side: Side, seed: int, version: int = MAP_FORMAT) -> Sheet:
        return first_accepted(f"{self.key} {side.value} {seed}",
                              self._candidates(side, seed, version))

    def _candidates(self, side: Side, seed: int, version: int) -> Iterator[Sheet | None]:
        rng = Pcg32.for_sheet(self.key, side.value, seed, "shape", version)
        sizes = SIZES[version]
        while True:
            # Every outline is as likely as every other, so that all of them turn up.
            widths = rng.pick(OUTLINES_OF[version])
            spaces = {
                (r, c)
                for r, w in enumerate(widths)
                for c in range((MAX_COLUMNS - w) // 2, (MAX_COLUMNS + w) // 2)
            }
            counts = [d for d in sizes.doors if len(spaces) - d in sizes.doorless]
            doors = _doors(rng, spaces, rng.pick(counts))
            if doors is None:
                yield None
            else:
                yield self._sheet(side, seed, widths, spaces, doors, version=version)

    def _sheet(self, side: Side, seed: int, widths: tuple[int, ...], spaces: set[Cell],
               doors: set[Cell], *, version: int) -> Sheet:
        kinds = dict.fromkeys(spaces, Kind.SPACE)
        kinds.update(dict.fromkeys(doors, DOOR))
        return Sheet(
            title=self,
            side=side,
            seed=seed,
            version=version,
            grid=grid_of(MAX_COLUMNS, len(widths), kinds),
            # The Temple has no adjacency rule for writing: any doorless space will do.
            starts=frozenset(spaces - doors),
            clouds=frozenset(),
            tallies=(),
            score_boxes=(N_("Sequence"), N_("Groups"), N_("Mummies"), N_("Total")),
            reminders=(
                N_("Green (Lockpick): the number goes in a Door"),
                N_("Purple (Penny Papers): any number {range}"),
                N_("Red (mummy): ignore the dice; draw a mummy"),
            ),
        )

    def score(self, sheet: FinishedSheet) -> Score:
        # Imported here: `pitable options` loads every title and needs no scoring.
        from pitable.rules.scoring import Score, Token, components, crossed_needs_nine, require

        require(
            sheet,
            self.name,
            (Token.NONE, Token.EMPTY, Token.NUMBER, DOOR_TOKEN, Token.HAZARD, Token.CROSSED),
            "",
        )
        crossed_needs_nine(sheet, "mummy")
        # A number in a Door counts like any other (the rulings in docs/rules.md).
        numbers = {cell: s.number for cell, s in sheet.cells() if s.number is not None}
        # The longest path of adjacent spaces each one more than the last: the values rise,
        # so every path is simple and the longest one ending at each space is found from
        # the largest value down.
        longest: dict[Cell, int] = {}
        for cell in sorted(numbers, key=lambda c: -numbers[c]):
            longest[cell] = 1 + max(
                (longest[n] for n in neighbours(cell) if numbers.get(n) == numbers[cell] + 1),
                default=0,
            )
        grouped = {
            value
            for value in set(numbers.values())
            if any(
                len(group) >= GROUP
                for group in components({c for c, v in numbers.items() if v == value})
            )
        }
        mummies = sum(
            MUMMY_STARS if s.token is Token.CROSSED else -MUMMY_STARS
            for _, s in sheet.cells()
            if s.token in (Token.HAZARD, Token.CROSSED)
        )
        hazards = sum(1 for _, s in sheet.cells() if s.token in (Token.HAZARD, Token.CROSSED))
        return Score(
            self.key,
            (
                (N_("Sequence"), max(longest.values(), default=0)),
                (N_("Groups"), GROUP_STARS * len(grouped)),
                (N_("Mummies"), mummies),
            ),
            hazards,
        )

    # The rulebook (002): "In the event of a tie, the tied player with the longest sequence
    # of consecutive numbers wins. If there is still a tie, the tied players share the
    # victory."
    tie_break_name = N_("Longest sequence")

    def tie_break(self, sheet: FinishedSheet) -> int:
        """The spaces of the sheet's longest sequence: its score's "Sequence"."""
        return self.score(sheet)["Sequence"]

    def check_sheet(self, sheet: Sheet) -> str | None:
        return self.shape_problem(sheet.shape, sheet.side, sheet.version)

    def shape_problem(self, shape: Shape, side: Side | None = None,
                      version: int | None = None) -> str | None:
        # Everything about a temple is its shape, alike on both sides. A shape of no format
        # named is judged by this version's sizes, then by each older format's in turn.
        if version is not None:
            return self._shape_problem(shape, SIZES[version])
        first = self._shape_problem(shape, SIZES[MAP_FORMAT])
        if first is not None and any(self._shape_problem(shape, SIZES[v]) is None
                                     for v in MAP_FORMATS):
            return None
        return first

    def _shape_problem(self, shape: Shape, sizes: Sizes) -> str | None:
        if shape.grid_width != MAX_COLUMNS:
            return f"the temple's grid is {MAX_COLUMNS} wide, not {shape.grid_width}"
        previous = 0
        for r, row in enumerate(shape.grid):
            cols = [c for c, k in enumerate(row) if k.fillable]
            if not cols or cols != list(range(cols[0], cols[-1] + 1)):
                return f"row {r + 1} is not one run of spaces"
            if cols[0] + cols[-1] != shape.grid_width - 1:
                return f"row {r + 1} is not centred"
            if previous and len(cols) - previous not in (0, 2):
                return f"row {r + 1} is not one step wider than the row above, or as wide"
            previous = len(cols)
        if previous != shape.grid_width:
            return "the base does not span the grid"
        if any(k not in (Kind.OUTSIDE, Kind.SPACE, DOOR) for row in shape.grid for k in row):
            return "kinds that belong to another title"
        problem = outline_problem(tuple(sum(k.fillable for k in row) for row in shape.grid),
                                  sizes)
        if problem is not None:
            return problem
        doors = shape.cells(DOOR)
        if len(doors) not in sizes.doors:
            return f"{len(doors)} Door spaces, expected {_span(sizes.doors)}"
        doorless = shape.fillable_count - len(doors)
        if doorless not in sizes.doorless:
            return f"{doorless} doorless spaces, expected {_span(sizes.doorless)}"
        if any(n in doors for door in doors for n in neighbours(door)):
            return "two Door spaces next to each other"
        return None

    # --- the sheet's key --------------------------------------------------------

    # --- the bot and the replay -------------------------------------------------

    def bot(self) -> TitleBot:
        from pitable.rules.titles.temple.bot import BOT

        return BOT

    def replay_rules(self) -> ReplayRules:
        from pitable.rules.titles.temple.replay import RULES

        return RULES

    def sheet_key(self) -> tuple[KeyEntry, ...]:
        from pitable.rules.sheet_key import Diagram, KeyEntry, stars

        return (
            KeyEntry(N_("Sequence"), N_("{worth} a space"),
                     N_("the longest run of adjacent numbers, each one more than the last."),
                     Diagram(((0, 0, "3"), (0, 1, "4"), (0, 2, "5"), (0, 3, "6"))),
                     (("worth", stars(1)),)),
            KeyEntry(N_("Groups"), stars(GROUP_STARS),
                     N_("{count} or more adjacent equal numbers; one group a number."),
                     Diagram(((0, 0, "4"), (0, 1, "4"), (0, 2, "4"))), (("count", GROUP),)),
            KeyEntry(N_("Mummy"), stars(-MUMMY_STARS),
                     N_("a 9 written beside it crosses it out: {worth} instead."),
                     fields=(("worth", stars(MUMMY_STARS)),)),
            KeyEntry(N_("Doors"), "",
                     N_("only the Lockpick (green) writes in a Door; once all are full,"
                        " ignore it."),
                     Diagram(((0, 0, "8"),), doors=((0, 0),))),
        )


def outline_problem(widths: tuple[int, ...], sizes: Sizes = SIZES[MAP_FORMAT]) -> str | None:
    """Why row ``widths`` (top first) are not a temple's outline: steps of 9, 7, 5 and
    perhaps 3 spaces, each as many rows high as ``sizes`` (this version's by default) says,
    at most :data:`MAX_ROWS` rows and as many spaces in all as ``sizes`` allows; None when
    they are one."""
    if len(widths) > MAX_ROWS:
        return f"{len(widths)} rows, more than {MAX_ROWS}"
    if list(widths) != sorted(widths):
        return "a row narrower than the row above it"
    steps = {w: len(list(rows)) for w, rows in itertools.groupby(widths)}
    for width, allowed in sizes.step_rows.items():
        high = steps.pop(width, 0)
        if high not in allowed:
            return f"a step {width} spaces wide is {high} rows high, expected {_span(allowed)}"
    if steps:
        return f"a step {min(steps)} spaces wide: steps are 9, 7, 5 or 3 wide"
    if sum(widths) not in sizes.spaces:
        return f"{sum(widths)} temple spaces, expected {_span(sizes.spaces)}"
    return None


def _span(numbers: range) -> str:
    return f"{numbers.start} to {numbers.stop - 1}"


def _outlines(sizes: Sizes) -> tuple[tuple[int, ...], ...]:
    return tuple(
        widths
        for widths in (
            tuple(w for w, high in zip((3, 5, 7, 9), highs, strict=True) for _ in range(high))
            for highs in itertools.product(*(sizes.step_rows[w] for w in (3, 5, 7, 9)))
        )
        if outline_problem(widths, sizes) is None
    )


#: Every outline a temple may have under each map format, as row widths, top first: the
#: generator picks one.
OUTLINES_OF = {version: _outlines(sizes) for version, sizes in SIZES.items()}
#: This version's outlines.
OUTLINES = OUTLINES_OF[MAP_FORMAT]


def _doors(rng: Pcg32, spaces: set[Cell], count: int) -> set[Cell] | None:
    """``count`` Door spaces, no two of them adjacent, so that Lockpicks spread out."""
    doors: set[Cell] = set()
    free = sorted(spaces)
    while len(doors) < count:
        if not free:
            return None
        door = rng.pick(free)
        doors.add(door)
        taken = {door, *neighbours(door)}
        free = [c for c in free if c not in taken]
    return doors
