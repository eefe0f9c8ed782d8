"""The Temple of Apikhabou: one space a turn, Door spaces, mummies.

Everything about the title: its names, what a roll allows, its words, its solo rules and
levels, and its sheet (a stepped pyramid with Door spaces).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitable.errors import SheetError
from pitable.rules.base import ENGLISH, N_, PENNY, GreenEffect, Options, Title, Translator
from pitable.rules.sheets import (
    ATTEMPTS,
    MAX_COLUMNS,
    Cell,
    Kind,
    Pcg32,
    Sheet,
    Side,
    grid_of,
    neighbours,
)

if TYPE_CHECKING:
    from pitable.rules.scoring import FinishedSheet, Score

SPACES = range(40, 57)
DOORS = range(6, 10)
MAX_ROWS = 8
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
    green_effect = GreenEffect.DOOR

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

    def hazards_text(self, count: int, tr: Translator = ENGLISH) -> str:
        return tr.ngettext("{count} mummy", "{count} mummies", count).format(count=count)

    def play_headline(self, options: Options, *, tr: Translator = ENGLISH) -> str:
        _ = tr.gettext
        if options.green is GreenEffect.DOOR:
            return _("Lockpick: fill 1 Door space")
        return _("Fill 1 doorless space")

    def play_lines(self, options: Options, *, tr: Translator = ENGLISH) -> tuple[str, ...]:
        _ = tr.gettext
        lines = [self.numbers_line(options, tr)]
        if options.penny and options.green is GreenEffect.DOOR:
            lines.append(_("Penny Papers: any number {penny}.").format(penny=PENNY))
        elif options.penny:
            lines.append(_("Penny Papers: any number {penny}, in a doorless space.").format(
                penny=PENNY))
        if options.green is GreenEffect.DOOR:
            lines.append(_("The number goes in a Door space; if every Door is filled,"
                           " ignore the Lockpick."))
        if 9 in options.numbers:
            lines.append(_("A 9 written next to a mummy vanquishes it."))
        return tuple(line for line in lines if line)

    # --- the sheet ----------------------------------------------------------------

    def generate_sheet(self, side: Side, seed: int) -> Sheet:
        rng = Pcg32.for_sheet(self.key, side.value, seed, "shape")
        for _ in range(ATTEMPTS):
            widths = _steps(rng)
            if sum(widths) not in SPACES:
                continue
            spaces = {
                (r, c)
                for r, w in enumerate(widths)
                for c in range((MAX_COLUMNS - w) // 2, (MAX_COLUMNS + w) // 2)
            }
            doors = _doors(rng, spaces, rng.between(DOORS.start, DOORS.stop - 1))
            if doors is None:
                continue
            kinds = dict.fromkeys(spaces, Kind.SPACE)
            kinds.update(dict.fromkeys(doors, Kind.DOOR))
            return Sheet(
                title=self,
                side=side,
                seed=seed,
                grid=grid_of(MAX_COLUMNS, len(widths), kinds),
                # The Temple has no adjacency rule for writing: any doorless space will do.
                starts=frozenset(spaces - doors),
                clouds=frozenset(),
                tallies=(),
                score_boxes=("Sequence", "Groups", "Mummies", "Total"),
                reminders=(
                    "Green (Lockpick): the number goes in a Door",
                    "Purple (Penny Papers): any number 1-15",
                    "Red (mummy): ignore the dice; draw a mummy",
                ),
            )
        raise SheetError("no temple found")  # pragma: no cover - never reached

    def score(self, sheet: FinishedSheet) -> Score:
        # Imported here: `pitable options` loads every title and needs no scoring.
        from pitable.rules.scoring import Score, Token, components, crossed_needs_nine, require

        require(
            sheet,
            self.name,
            (Token.NONE, Token.EMPTY, Token.NUMBER, Token.DOOR, Token.HAZARD, Token.CROSSED),
            "",
        )
        crossed_needs_nine(sheet, "mummy")
        # A number in a Door counts like any other (the README's rulings).
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
                ("Sequence", max(longest.values(), default=0)),
                ("Groups", GROUP_STARS * len(grouped)),
                ("Mummies", mummies),
            ),
            hazards,
        )

    def check_sheet(self, sheet: Sheet) -> str | None:
        count = sheet.fillable_count
        if count not in SPACES:
            return f"{count} temple spaces, expected 40 to 56"
        doors = len(sheet.cells(Kind.DOOR))
        if doors not in DOORS:
            return f"{doors} Door spaces, expected 6 to 9"
        previous = 0
        for r, row in enumerate(sheet.grid):
            cols = [c for c, k in enumerate(row) if k.fillable]
            if not cols or cols != list(range(cols[0], cols[-1] + 1)):
                return f"row {r + 1} is not one run of spaces"
            if cols[0] + cols[-1] != sheet.grid_width - 1:
                return f"row {r + 1} is not centred"
            if previous and len(cols) - previous not in (0, 2):
                return f"row {r + 1} is not one step wider than the row above, or as wide"
            previous = len(cols)
        if previous != sheet.grid_width:
            return "the base does not span the grid"
        if any(k in (Kind.MOUNTAIN, Kind.SEA, Kind.LAKE) for row in sheet.grid for k in row):
            return "kinds that belong to another title"
        return None


def _steps(rng: Pcg32) -> list[int]:
    """Row widths, top row first, of a pyramid whose steps narrow by one space a side."""
    widths = [MAX_COLUMNS]
    while len(widths) < MAX_ROWS:
        last = widths[-1]
        # A step is one or two rows high; the top is at least 3 spaces wide.
        run = sum(1 for w in widths if w == last)
        if run >= 2 or (run == 1 and rng.chance(1, 2)):
            if last - 2 < 3:
                break
            widths.append(last - 2)
        else:
            widths.append(last)
    return widths[::-1]


def _doors(rng: Pcg32, spaces: set[Cell], count: int) -> set[Cell] | None:
    """``count`` Door spaces, no two of them adjacent, so that Lockpicks spread out."""
    doors: set[Cell] = set()
    free = sorted(spaces)
    while len(doors) < count:
        free = [c for c in free if c not in doors and not any(n in doors for n in neighbours(c))]
        if not free:
            return None
        doors.add(rng.pick(free))
    return doors
