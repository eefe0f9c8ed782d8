"""The Valley of Wiraqocha: up to three spaces a turn, structures, snakes, 25 solo rounds.

Everything about the title: its names, what a roll allows, its words, its solo rules and
levels, and its sheet (a valley between clouds, with a lake on side B).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitable.errors import SheetError
from pitable.rules.base import (
    ENGLISH,
    N_,
    PENNY,
    GreenEffect,
    Options,
    Title,
    Translator,
)
from pitable.rules.sheets import (
    ATTEMPTS,
    Cell,
    Kind,
    Mark,
    Pcg32,
    Sheet,
    Side,
    Tally,
    edge_neighbours,
    grid_of,
    reachable,
)

if TYPE_CHECKING:
    from pitable.rules.scoring import FinishedSheet, Score, Space

WIDTH, HEIGHT = 9, 8
#: Spaces of the valley, the lake's included.
SPACES = range(56, 65)
LAKE = range(8, 13)
SOLO_ROUNDS = 25

#: Stars for filling every space of the grid.
FULL_GRID = 7
#: Each discovery by its mark's letter: its name, how many spaces, its stars.
DISCOVERIES = {
    "j": ("jungle", 5, 5),
    "t": ("town", 4, 6),
    "r": ("mountain range", 3, 7),
    "p": ("pyramid", 4, 15),
}
#: Each structure: its name and the letter of the discovery whose spaces it counts.
STRUCTURES = {"H": ("hut", "j"), "S": ("statue", "t"), "M": ("mine", "r")}
#: Stars a structure earns per adjacent space of its discovery.
STRUCTURE_STARS = 2


class Valley(Title):
    """The Valley of Wiraqocha: up to three spaces a turn, structures, snakes."""

    key = "valley"
    name = N_("The Valley of Wiraqocha")
    short_name = N_("Valley")
    aliases = ("wiraqocha", "valley-of-wiraqocha")
    hazard_name = N_("snake")
    hazard_symbol = "snake"
    green_effect = GreenEffect.STRUCTURE
    several_spaces = True

    # The rulebook's "Solo Adventure": 25 rounds, levels 90/110/130, and 4 fewer stars per
    # snake placed, escaped ones included, with no floor (after 23 snakes even a score
    # below zero can reach Pathfinder).
    solo_rounds = SOLO_ROUNDS
    level_thresholds = (90, 110, 130)
    discount_per_hazard = 4
    # One roll a round and one snake a roll at most: no solo game places more snakes than
    # it has rounds (fewer than the 56 to 64 spaces of any valley, too).
    max_hazards = SOLO_ROUNDS
    # The rulebook's solo rule and its fallback, word for word (000:74).
    solo_placement = N_(
        "Draw the snake in an empty space next to one of the spaces you filled last turn;"
        " if this is not possible, in an empty space of your choice."
    )
    brief_table = N_("Snake on another's sheet")
    brief_solo = N_("Snake by last turn's space")
    table_placement = N_(
        "Swap sheets: draw a snake in an empty space of your choice on another player's"
        " sheet, then give it back."
    )

    # --- words ------------------------------------------------------------------

    def hazard_lines(self, options: Options, solo: bool, *,
                     tr: Translator = ENGLISH) -> tuple[str, ...]:
        _ = tr.gettext
        return (
            _("Ignore the other dice."),
            self.placement(solo, tr),
            _("A snake left standing loses you the largest number next to it."),
            _("To escape a snake, make a 9 on a later turn (dice or Penny Papers) and cross"
              " the snake out instead of writing the 9."),
        )

    def hazards_text(self, count: int, tr: Translator = ENGLISH) -> str:
        return tr.ngettext("{count} snake", "{count} snakes", count).format(count=count)

    def play_headline(self, options: Options, *, tr: Translator = ENGLISH) -> str:
        return tr.gettext("Fill 1 to 3 spaces")

    def play_lines(self, options: Options, *, tr: Translator = ENGLISH) -> tuple[str, ...]:
        _ = tr.gettext
        lines = [self.numbers_line(options, tr), self.plays_line(options, tr)]
        if options.penny:
            lines.append(_("Penny Papers: one number of your choice, {penny}.").format(
                penny=PENNY))
        if options.green is GreenEffect.STRUCTURE:
            lines.append(_("Dakota Smith: you may draw a hut, a statue or a mine (each once)."))
        if 9 in options.numbers:
            lines.append(_("A 9 may cross out a snake instead of being written."))
        return tuple(line for line in lines if line)

    # --- the sheet ----------------------------------------------------------------

    def generate_sheet(self, side: Side, seed: int) -> Sheet:
        # The shape comes from a stream that ignores the side, so that both sides of a seed
        # show the same valley and the lake side has exactly the lake's spaces fewer.
        shape_rng = Pcg32.for_sheet(self.key, "-", seed, "shape")
        spaces, top = _shape(shape_rng)
        run = shape_rng.between(3, 5)
        first = shape_rng.below(WIDTH - run + 1)
        clouds = frozenset((top[c], c) for c in range(first, first + run))
        kinds = dict.fromkeys(spaces, Kind.SPACE)
        if side is Side.B:
            for cell in _lake(Pcg32.for_sheet(self.key, "b", seed, "lake"), spaces, clouds):
                kinds[cell] = Kind.LAKE
        return Sheet(
            title=self,
            side=side,
            seed=seed,
            grid=grid_of(WIDTH, HEIGHT, kinds),
            starts=clouds,
            clouds=clouds,
            tallies=(
                Tally("Solo rounds", SOLO_ROUNDS, Mark.BUBBLE),
                Tally("Structures", 3, Mark.BUBBLE, ("hut", "statue", "mine")),
            ),
            score_boxes=(
                "Full grid",
                "Jungles",
                "Towns",
                "Ranges",
                "Pyramids",
                "Structures",
                "Snakes",
                "Total",
            ),
            reminders=(
                "Green (Dakota Smith): draw a hut, statue or mine",
                "Purple (Penny Papers): any number 1-15",
                "Red (snake): ignore the dice; draw a snake",
            ),
        )

    def score(self, sheet: FinishedSheet) -> Score:
        # Imported here: `pitable options` loads every title and needs no scoring.
        from pitable.rules.scoring import Score, Token, bad, require

        require(
            sheet,
            self.name,
            (Token.NONE, Token.EMPTY, Token.NUMBER, Token.HAZARD, Token.CROSSED, Token.HUT,
             Token.STATUE, Token.MINE),
            "jtrp",
        )
        kinds = _discoveries(sheet)
        stars = {letter: 0 for letter in DISCOVERIES}
        for (letter, _), _cells in kinds.items():
            stars[letter] += DISCOVERIES[letter][2]
        structures = 0
        drawn: set[str] = set()
        for cell, space in sheet.cells():
            if space.token.value not in STRUCTURES:
                continue
            name, letter = STRUCTURES[space.token.value]
            if name in drawn:
                raise bad(cell, space, f"a second {name}: each structure is drawn once")
            drawn.add(name)
            structures += STRUCTURE_STARS * sum(
                1 for _, s in sheet.around(cell) if s.mark == letter
            )
        snakes = -sum(
            max(sheet.numbers_around(cell), default=0)
            for cell, space in sheet.cells()
            if space.token is Token.HAZARD
        )
        full = all(space.token is not Token.EMPTY for _, space in sheet.cells())
        hazards = sum(1 for _, s in sheet.cells() if s.token in (Token.HAZARD, Token.CROSSED))
        return Score(
            self.key,
            (
                ("Full grid", FULL_GRID if full else 0),
                ("Jungles", stars["j"]),
                ("Towns", stars["t"]),
                ("Ranges", stars["r"]),
                ("Pyramids", stars["p"]),
                ("Structures", structures),
                ("Snakes", snakes),
            ),
            hazards,
        )

    def check_sheet(self, sheet: Sheet) -> str | None:
        count = sheet.fillable_count
        lake = len(sheet.cells(Kind.LAKE))
        if sheet.side is Side.A and lake:
            return "a lake on side A"
        if sheet.side is Side.B and lake not in LAKE:
            return f"a lake of {lake} spaces, expected 8 to 12"
        if count + lake not in SPACES:
            return f"{count + lake} valley spaces, expected 56 to 64"
        if sheet.starts != sheet.clouds:
            return "the first number must go beside a cloud"
        if any(sheet.kind((r - 1, c)) is not Kind.OUTSIDE for r, c in sheet.clouds):
            return "a cloud inside the valley"
        return None


def _shape(rng: Pcg32) -> tuple[set[Cell], list[int]]:
    """A valley 9 wide and 8 high whose top and bottom edges wander by up to 2 spaces."""
    for _ in range(ATTEMPTS):
        top = _wander(rng, WIDTH)
        bottom = _wander(rng, WIDTH)
        count = sum(HEIGHT - t - b for t, b in zip(top, bottom, strict=True))
        if count in SPACES and min(top) == 0 and min(bottom) == 0:
            spaces = {
                (r, c)
                for c in range(WIDTH)
                for r in range(top[c], HEIGHT - bottom[c])
            }
            return spaces, top
    raise SheetError("no valley shape found")  # pragma: no cover - never reached


def _wander(rng: Pcg32, length: int) -> list[int]:
    """An edge profile: how many spaces each column loses, 0 to 2, changing by 1 at most."""
    depth = rng.between(0, 2)
    out = []
    for _ in range(length):
        out.append(depth)
        depth = min(2, max(0, depth + rng.between(-1, 1)))
    return out


def _lake(rng: Pcg32, spaces: set[Cell], clouds: frozenset[Cell]) -> set[Cell]:
    """A lake of 8 to 12 spaces, in one piece, that leaves the rest of the valley reachable."""
    size = rng.between(LAKE.start, LAKE.stop - 1)
    inner = sorted(s for s in spaces if s not in clouds)
    for _ in range(ATTEMPTS):
        lake = {rng.pick(inner)}
        while len(lake) < size:
            shore = sorted(
                {n for cell in lake for n in edge_neighbours(cell) if n in spaces} - lake - clouds
            )
            if not shore:
                break
            lake.add(rng.pick(shore))
        rest = spaces - lake
        if len(lake) == size and reachable(clouds, rest) == rest:
            return lake
    raise SheetError("no lake found")  # pragma: no cover - never reached


def _discoveries(sheet: FinishedSheet) -> dict[tuple[str, int], list[tuple[Cell, Space]]]:
    """Every discovery marked on ``sheet`` by (letter, number), each checked against its rule.

    A space carries one mark at most, so no space is in two discoveries.
    """
    from pitable.rules.scoring import Token, bad, group_of

    found: dict[tuple[str, int], list[tuple[Cell, Space]]] = {}
    for cell, space in sheet.cells():
        if space.mark is None or space.mark_n is None:
            continue
        if space.token is not Token.NUMBER:
            raise bad(cell, space, "a discovery covers spaces holding numbers")
        found.setdefault((space.mark, space.mark_n), []).append((cell, space))
    towns: dict[int, tuple[str, int]] = {}
    for (letter, n), spaces in found.items():
        name, size, _ = DISCOVERIES[letter]
        first, first_space = spaces[0]
        cells = {cell for cell, _ in spaces}
        values = [s.number for _, s in spaces]
        what = f"{name} {n}"
        if len(spaces) != size:
            raise bad(first, first_space, f"{what} has {len(spaces)} spaces, expected {size}")
        if not group_of(cells):
            raise bad(first, first_space, f"{what}: its spaces are not one adjacent group")
        if letter == "j" and len(set(values)) != size:
            raise bad(first, first_space, f"{what}: a value repeats, the five must differ")
        if letter == "t":
            if len(set(values)) != 1:
                raise bad(first, first_space, f"{what}: the four values must be identical")
            value = values[0]
            assert value is not None
            if value in towns:
                raise bad(first, first_space, f"{what}: a second town of {value}s")
            towns[value] = (letter, n)
        if letter == "r" and any(v is None or v < 6 for v in values):
            raise bad(first, first_space, f"{what}: every value must be 6 or more")
        if letter == "p":
            if any(v is None or v < 10 for v in values):
                raise bad(first, first_space, f"{what}: every value must be 10 or more")
            if not _pyramid(cells):
                raise bad(
                    first, first_space,
                    f"{what}: not a base of three with one space above its centre",
                )
    return found


def _pyramid(cells: set[Cell]) -> bool:
    """Three spaces in a row or column and a fourth beside the middle one, on either side."""
    for r, c in cells:
        for dr, dc in ((0, 1), (1, 0)):
            base = {(r - dr, c - dc), (r, c), (r + dr, c + dc)}
            apexes = ({(r + dc, c + dr)}, {(r - dc, c - dr)})
            if any(base | apex == cells for apex in apexes):
                return True
    return False
