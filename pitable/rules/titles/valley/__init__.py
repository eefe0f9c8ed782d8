"""The Valley of Wiraqocha: up to three spaces a turn, structures, snakes, 25 solo rounds.

Everything about the title: its names, what a roll allows, its words, its solo rules and
levels, and its sheet: on side A a valley open from side to side, its top and bottom
edges ragged; on side B a valley that narrows to a pass in the middle. The first number
goes beside the clouds over the valley's top edge.

What makes one valley worth more than another, for a bot that measures it: the number of
spaces (each one more turn before the full grid's 7 stars, and more room for discoveries),
how many spaces each space touches (a narrow pass or a ragged edge leaves spaces with few
neighbours, which structures and 8-connected discoveries need), and how many cloud spaces
there are to start from.

Map formats: since map v2, side B is a valley of its own (a pass) with no lake; map v3
left the Valley's maps as they were in map v2.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pitable.rules.base import (
    ENGLISH,
    N_,
    GreenEffect,
    Options,
    Title,
    Translator,
    penny_range,
)
from pitable.rules.scoring import Token
from pitable.rules.sheets import (
    MAP_FORMAT,
    Cell,
    Kind,
    Mark,
    Pcg32,
    Shape,
    Sheet,
    Side,
    Tally,
    first_accepted,
    grid_of,
    reachable,
)

if TYPE_CHECKING:
    from pitable.rules.bot.model import TitleBot
    from pitable.rules.scoring import FinishedSheet, Score, Space
    from pitable.rules.sheet_key import KeyEntry
    from pitable.rules.validate import ReplayRules

WIDTH, HEIGHT = 9, 8
SPACES = range(56, 65)
#: How far the top and bottom edges of side A's valley wander into the grid.
EDGE = 2
#: Side B's pass: how far each side's slope reaches in, at the pass; the pass is one of
#: the middle rows, at least PASS_NARROWING spaces narrower than the top and bottom rows.
SLOPE = range(2, 4)
PASS_ROWS = range(2, HEIGHT - 2)
PASS_NARROWING = 3
#: How many columns side by side the clouds span, each over its column's top space.
CLOUDS = range(3, 6)
SOLO_ROUNDS = 25
#: The map format whose draws every format's valleys are (see :data:`MAP_FORMAT`).
DRAWN_AS = 2

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


#: The structures drawn on a finished sheet: ``H`` a hut, ``S`` a statue, ``M`` a mine.
HUT, STATUE, MINE = Token("H", "HUT"), Token("S", "STATUE"), Token("M", "MINE")

#: Dakota Smith's face in the Valley: draw a structure (a hut, a statue or a mine) instead
#: of writing a number; the die shows a hut with a pitched roof.
BUILD = GreenEffect("structure", picture="hut", allows=N_("structure"), chip=N_("BUILD"))


class Valley(Title):
    """The Valley of Wiraqocha: up to three spaces a turn, structures, snakes."""

    key = "valley"
    name = N_("The Valley of Wiraqocha")
    short_name = N_("Valley")
    aliases = ("wiraqocha", "valley-of-wiraqocha")
    hazard_name = N_("snake")
    hazard_symbol = "snake"
    green_effect = BUILD
    several_spaces = True
    tokens = (HUT, STATUE, MINE)
    #: A discovery after a number: ``7/j1`` a space of jungle 1, ``/t2`` town 2, ``/r1``
    #: mountain range 1, ``/p1`` pyramid 1.
    marks = "jtrp"

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

    def hazard_count(self, count: int, tr: Translator = ENGLISH) -> str:
        return tr.ngettext("{count} snake", "{count} snakes", count).format(count=count)

    def play_headline(self, options: Options, *, tr: Translator = ENGLISH) -> str:
        return tr.gettext("Fill 1 to 3 spaces")

    def play_lines(self, options: Options, *, tr: Translator = ENGLISH) -> tuple[str, ...]:
        _ = tr.gettext
        lines = [self.numbers_line(options, tr), self.plays_line(options, tr)]
        if options.penny:
            lines.append(_("Penny Papers: one number of your choice, {range}.").format(
                range=penny_range(tr)))
        if options.green is BUILD:
            lines.append(_("Dakota Smith: you may draw a hut, a statue or a mine (each once)."))
        if 9 in options.numbers:
            lines.append(_("A 9 may cross out a snake instead of being written."))
        return tuple(line for line in lines if line)

    # --- the sheet ----------------------------------------------------------------

    def generate_sheet(self, side: Side, seed: int, version: int = MAP_FORMAT) -> Sheet:
        return first_accepted(f"{self.key} {side.value} {seed}",
                              self._candidates(side, seed, version))

    def _candidates(self, side: Side, seed: int, version: int) -> Iterator[Sheet | None]:
        # Every format draws map v2's maps: the generator has not changed since.
        rng = Pcg32.for_sheet(self.key, side.value, seed, "shape", DRAWN_AS)
        for spaces in _open_valleys(rng) if side is Side.A else _passes(rng):
            if spaces is None:
                yield None
            else:
                yield self._sheet(side, seed, version, spaces, _clouds(rng, spaces, side))

    def _sheet(self, side: Side, seed: int, version: int, spaces: set[Cell],
               clouds: frozenset[Cell]) -> Sheet:
        kinds = dict.fromkeys(spaces, Kind.SPACE)
        return Sheet(
            title=self,
            side=side,
            seed=seed,
            version=version,
            grid=grid_of(WIDTH, HEIGHT, kinds),
            starts=clouds,
            clouds=clouds,
            tallies=(
                Tally(N_("Solo rounds"), SOLO_ROUNDS, Mark.BUBBLE),
                Tally(N_("Structures"), 3, Mark.BUBBLE, (N_("hut"), N_("statue"), N_("mine"))),
            ),
            score_boxes=(
                N_("Full grid"),
                N_("Jungles"),
                N_("Towns"),
                N_("Ranges"),
                N_("Pyramids"),
                N_("Structures"),
                N_("Snakes"),
                N_("Total"),
            ),
            reminders=(
                N_("Green (Dakota Smith): draw a hut, statue or mine"),
                N_("Purple (Penny Papers): any number {range}"),
                N_("Red (snake): ignore the dice; draw a snake"),
            ),
        )

    def score(self, sheet: FinishedSheet) -> Score:
        # Imported here: `pitable options` loads every title and needs no scoring.
        from pitable.rules.scoring import Score, Token, bad, require

        require(
            sheet,
            self.name,
            (Token.NONE, Token.EMPTY, Token.NUMBER, Token.HAZARD, Token.CROSSED, HUT,
             STATUE, MINE),
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
                (N_("Full grid"), FULL_GRID if full else 0),
                (N_("Jungles"), stars["j"]),
                (N_("Towns"), stars["t"]),
                (N_("Ranges"), stars["r"]),
                (N_("Pyramids"), stars["p"]),
                (N_("Structures"), structures),
                (N_("Snakes"), snakes),
            ),
            hazards,
        )

    # The rulebook (000): "In a tie, the tied player who scored the most stars from
    # structures wins. If there is still a tie, the tied players share the victory."
    tie_break_name = N_("Structures")

    def tie_break(self, sheet: FinishedSheet) -> int:
        """The stars the sheet's structures scored: its score's "Structures"."""
        return self.score(sheet)["Structures"]

    def check_sheet(self, sheet: Sheet) -> str | None:
        shape = self.shape_problem(sheet.shape, sheet.side)
        if shape is not None:
            return shape
        if sheet.starts != sheet.clouds:
            return "the first number must go beside a cloud"
        if any(sheet.kind((r - 1, c)) is not Kind.OUTSIDE for r, c in sheet.clouds):
            return "a cloud inside the valley"
        columns = sorted(c for _, c in sheet.clouds)
        if len(columns) not in CLOUDS or columns != list(range(columns[0], columns[-1] + 1)):
            return "the clouds are not over 3 to 5 columns side by side"
        if sheet.side is Side.B and any(r for r, _ in sheet.clouds):
            return "side B: a cloud away from the top row"
        return None

    def shape_problem(self, shape: Shape, side: Side | None = None,
                      version: int | None = None) -> str | None:
        if (shape.grid_width, shape.grid_height) != (WIDTH, HEIGHT):
            return (f"the valley's grid is {WIDTH} by {HEIGHT}, not"
                    f" {shape.grid_width} by {shape.grid_height}")
        if any(k not in (Kind.OUTSIDE, Kind.SPACE) for row in shape.grid for k in row):
            return "kinds that belong to another title"
        count = shape.fillable_count
        if count not in SPACES:
            return f"{count} valley spaces, expected {SPACES.start} to {SPACES.stop - 1}"
        if side is Side.A:
            return open_valley_problem(shape)
        if side is Side.B:
            return pass_problem(shape)
        a, b = open_valley_problem(shape), pass_problem(shape)
        if a is not None and b is not None:
            return f"the valley is not one of either side's: {a}; {b}"
        return None

    # --- the sheet's key --------------------------------------------------------

    # --- the bot and the replay -------------------------------------------------

    def bot(self) -> TitleBot:
        from pitable.rules.titles.valley.bot import BOT

        return BOT

    def replay_rules(self) -> ReplayRules:
        from pitable.rules.titles.valley.replay import RULES

        return RULES

    def sheet_key(self) -> tuple[KeyEntry, ...]:
        from pitable.rules.sheet_key import Diagram, KeyEntry, stars

        def worth(letter: str) -> str:
            return stars(DISCOVERIES[letter][2])

        def size(letter: str) -> tuple[tuple[str, object], ...]:
            return (("count", DISCOVERIES[letter][1]),)

        return (
            KeyEntry(N_("Jungle"), worth("j"), N_("{count} adjacent spaces, all different."),
                     Diagram(((0, 0, "1"), (0, 1, "4"), (0, 2, "2"), (0, 3, "5"), (0, 4, "3"))),
                     size("j")),
            KeyEntry(N_("Town"), worth("t"),
                     N_("{count} adjacent spaces, one value; one town a value."),
                     Diagram(((0, 0, "4"), (0, 1, "4"), (0, 2, "4"), (0, 3, "4"))), size("t")),
            KeyEntry(N_("Mountain range"), worth("r"),
                     N_("{count} adjacent spaces, each 6 or more."),
                     Diagram(((0, 0, "6"), (0, 1, "9"), (0, 2, "7"))), size("r")),
            KeyEntry(N_("Pyramid"), worth("p"),
                     N_("4 adjacent spaces, each 10 or more: a base of 3, 1 beside its middle."),
                     Diagram(((0, 1, "12"), (1, 0, "10"), (1, 1, "11"), (1, 2, "14")))),
            KeyEntry(N_("Discoveries"), "",
                     N_("one a turn, after writing; a space in one only.")),
            KeyEntry(N_("Structures"), N_("{worth} a space"),
                     N_("each adjacent space of its discovery (hut: jungle, statue: town,"
                        " mine: range). Each once."),
                     fields=(("worth", stars(STRUCTURE_STARS)),)),
            KeyEntry(N_("Full grid"), stars(FULL_GRID), N_("every space filled.")),
            KeyEntry(N_("Snake"), "",
                     N_("loses the largest adjacent number. A 9, not written, crosses it out.")),
        )


def _runs(lines: list[list[Kind]]) -> list[tuple[int, int]] | None:
    """Where each line's spaces start and how many there are; None if a line's spaces are
    not one run."""
    out = []
    for line in lines:
        at = [i for i, kind in enumerate(line) if kind is Kind.SPACE]
        if not at or at != list(range(at[0], at[-1] + 1)):
            return None
        out.append((at[0], len(at)))
    return out


def _wanders(edge: list[int], most: int) -> bool:
    """Each entry from 0 to ``most``, changing by one at most from one to the next."""
    return all(0 <= e <= most for e in edge) and all(
        abs(a - b) <= 1 for a, b in itertools.pairwise(edge)
    )


def open_valley_problem(sheet: Shape | Sheet) -> str | None:
    """Why ``sheet`` is not a side A valley, open from side to side (every column one run
    of spaces whose top and bottom edges wander by up to :data:`EDGE` spaces, each edge
    reaching the grid's border somewhere); None when it is one."""
    columns = _runs([[row[c] for row in sheet.grid] for c in range(sheet.grid_width)])
    if columns is None:
        return "side A: a column of the valley is not one run of spaces"
    top = [start for start, _ in columns]
    bottom = [sheet.grid_height - start - length for start, length in columns]
    if not (_wanders(top, EDGE) and _wanders(bottom, EDGE)) or min(top) or min(bottom):
        return f"side A: the top and bottom edges do not wander by up to {EDGE} spaces"
    return None


def pass_problem(sheet: Shape | Sheet) -> str | None:
    """Why ``sheet`` is not a side B valley that narrows to a pass (every row one run of
    spaces whose left and right edges wander by one space a row at most, the rows narrowing
    down to a middle row and widening after it, that row at least :data:`PASS_NARROWING`
    spaces narrower than the top and the bottom rows); None when it is one."""
    rows = _runs([list(row) for row in sheet.grid])
    if rows is None:
        return "side B: a row of the valley is not one run of spaces"
    left = [start for start, _ in rows]
    right = [sheet.grid_width - start - length for start, length in rows]
    widths = [length for _, length in rows]
    if not (_wanders(left, SLOPE.stop - 1) and _wanders(right, SLOPE.stop - 1)):
        return "side B: the slopes do not wander by one space a row"
    narrowest = min(widths[PASS_ROWS.start : PASS_ROWS.stop])
    waist = widths.index(narrowest, PASS_ROWS.start)
    narrowing = widths[: waist + 1] == sorted(widths[: waist + 1], reverse=True)
    widening = widths[waist:] == sorted(widths[waist:])
    if not (narrowing and widening) or narrowest > min(widths[0], widths[-1]) - PASS_NARROWING:
        return "side B: the valley does not narrow to a pass in its middle rows"
    return None


def _open_valleys(rng: Pcg32) -> Iterator[set[Cell] | None]:
    """Side A candidates: a valley 9 wide and 8 high whose top and bottom edges wander by
    up to 2 spaces."""
    while True:
        top = _wander(rng, WIDTH)
        bottom = _wander(rng, WIDTH)
        count = sum(HEIGHT - t - b for t, b in zip(top, bottom, strict=True))
        if count not in SPACES or min(top) or min(bottom):
            yield None
            continue
        yield {(r, c) for c in range(WIDTH) for r in range(top[c], HEIGHT - bottom[c])}


def _wander(rng: Pcg32, length: int) -> list[int]:
    """An edge profile: how many spaces each column loses, 0 to 2, changing by 1 at most."""
    depth = rng.between(0, EDGE)
    out = []
    for _ in range(length):
        out.append(depth)
        depth = min(EDGE, max(0, depth + rng.between(-1, 1)))
    return out


def _passes(rng: Pcg32) -> Iterator[set[Cell] | None]:
    """Side B candidates: a valley 9 wide and 8 high between two slopes that reach in
    furthest at one of the middle rows, the pass."""
    while True:
        waist = rng.between(PASS_ROWS.start, PASS_ROWS.stop - 1)
        left = _slope(rng, waist)
        right = _slope(rng, waist)
        count = sum(WIDTH - a - b for a, b in zip(left, right, strict=True))
        if count not in SPACES:
            yield None
            continue
        yield {(r, c) for r in range(HEIGHT) for c in range(left[r], WIDTH - right[r])}


def _slope(rng: Pcg32, waist: int) -> list[int]:
    """How far one side's slope reaches in on each row: furthest (2 or 3 spaces) at the
    ``waist`` row, and one space less or the same on each row away from it."""
    depth = [0] * HEIGHT
    depth[waist] = rng.between(SLOPE.start, SLOPE.stop - 1)
    for r in range(waist - 1, -1, -1):
        depth[r] = max(0, depth[r + 1] - _step(rng))
    for r in range(waist + 1, HEIGHT):
        depth[r] = max(0, depth[r - 1] - _step(rng))
    return depth


def _step(rng: Pcg32) -> int:
    """How much a slope recedes from one row to the next: mostly one space, now and then
    none, so that the pass is a pass and not a straight-sided gorge."""
    return 0 if rng.chance(1, 3) else 1


def _clouds(rng: Pcg32, spaces: set[Cell], side: Side) -> frozenset[Cell]:
    """The spaces beside the clouds: the top spaces of 3 to 5 columns side by side (on side
    B, columns of the top row)."""
    tops: dict[int, int] = {}
    for r, c in sorted(spaces, reverse=True):
        tops[c] = r
    columns = sorted(c for c, r in tops.items() if side is Side.A or r == 0)
    run = min(len(columns), rng.between(CLOUDS.start, CLOUDS.stop - 1))
    first = columns[0] + rng.below(len(columns) - run + 1)
    return frozenset((tops[c], c) for c in range(first, first + run))


def _discoveries(sheet: FinishedSheet) -> dict[tuple[str, int], list[tuple[Cell, Space]]]:
    """Every discovery marked on ``sheet`` by (letter, number), each checked against its rule.

    A space carries one mark at most, so no space is in two discoveries.
    """
    from pitable.rules.scoring import Token, bad

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
        what = f"{name} {n}"
        at = _breaking(letter, size, spaces)
        if at is None:
            continue
        index, why = at
        cell, space = spaces[index]
        if why == "size":
            raise bad(cell, space, f"{what} has {len(spaces)} spaces, expected {size}")
        if why == "apart":
            raise bad(cell, space, f"{what}: its spaces are not one adjacent group")
        if why == "repeats":
            raise bad(cell, space, f"{what}: a value repeats, the five must differ")
        if why == "mixed":
            raise bad(cell, space, f"{what}: the four values must be identical")
        if why == "low":
            least = 6 if letter == "r" else 10
            raise bad(cell, space, f"{what}: every value must be {least} or more")
        raise bad(cell, space, f"{what}: not a base of three with one space above its centre")
    for (letter, n), spaces in found.items():
        if letter != "t":
            continue
        value = spaces[0][1].number
        assert value is not None
        if value in towns:
            first, first_space = spaces[0]
            raise bad(first, first_space,
                      f"{DISCOVERIES[letter][0]} {n}: a second town of {value}s")
        towns[value] = (letter, n)
    return found


def _breaking(letter: str, size: int, spaces: list[tuple[Cell, Space]]) -> tuple[int, str] | None:
    """Which of a discovery's ``spaces`` (in reading order) breaks its rule and how (one of
    ``size``, ``apart``, ``repeats``, ``mixed``, ``low``, ``shape``); None when none does.

    The space named is the one a player would look at: the first past the discovery's size,
    the first cut off from the first space's group, the second of a repeated value, the
    first that differs from the most of a town's values, the first value too low; the first
    space where the rule concerns them all (too few, a pyramid's shape).
    """
    cells = [cell for cell, _ in spaces]
    values = [s.number for _, s in spaces]
    if len(spaces) != size:
        return (size if len(spaces) > size else 0), "size"
    group = reachable([cells[0]], set(cells))
    if len(group) != len(cells):
        return next(k for k, c in enumerate(cells) if c not in group), "apart"
    if letter == "j":
        seen: set[int | None] = set()
        for k, v in enumerate(values):
            if v in seen:
                return k, "repeats"
            seen.add(v)
    if letter == "t":
        most, _count = Counter(values).most_common(1)[0]
        odd = next((k for k, v in enumerate(values) if v != most), None)
        if odd is not None:
            return odd, "mixed"
    least = {"r": 6, "p": 10}.get(letter)
    if least is not None:
        low = next((k for k, v in enumerate(values) if v is None or v < least), None)
        if low is not None:
            return low, "low"
    if letter == "p" and not _pyramid(set(cells)):
        return 0, "shape"
    return None


def _pyramid(cells: set[Cell]) -> bool:
    """Three spaces in a row or column and a fourth beside the middle one, on either side."""
    for r, c in cells:
        for dr, dc in ((0, 1), (1, 0)):
            base = {(r - dr, c - dc), (r, c), (r + dr, c + dc)}
            apexes = ({(r + dc, c + dr)}, {(r - dc, c - dr)})
            if any(base | apex == cells for apex in apexes):
                return True
    return False
