"""Skull Island: one island space a turn, boats, at most five dangers.

Everything about the title: its names, what a roll allows, its words, its solo rules and
levels, and its sheet (an island in a ring of sea, with mountain ranges).

What makes one island worth more than another, for a bot that measures it: a treasure lies
between a pair of equal numbers in its column and another in its row, so the rows and
columns holding many island spaces on both sides of a spot (and coasts where a boat stands
in for one end of a pair) are worth most, and mountains that cut rows and columns short
cost most; a danger costs (or, overcome, earns) the smallest number next to it, so how many
island neighbours the spaces have changes what dangers are worth; and the number of island
spaces sets how long a game lasts.

Map formats: since map v2 the island's spaces are one group; map v3 sizes the islands by
the solo levels (32 to 36 spaces).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pitable.rules.base import ENGLISH, N_, GreenEffect, Options, Title, Translator, penny_range
from pitable.rules.scoring import Token
from pitable.rules.sheets import (
    MAP_FORMAT,
    MAP_FORMATS,
    Cell,
    Kind,
    Mark,
    Pcg32,
    Shape,
    Sheet,
    Side,
    Tally,
    connected,
    edge_neighbours,
    first_accepted,
    grid_of,
    neighbours,
)

if TYPE_CHECKING:
    from pitable.rules.bot.model import TitleBot
    from pitable.rules.scoring import FinishedSheet, Score, Space
    from pitable.rules.sheet_key import KeyEntry
    from pitable.rules.validate import ReplayRules

SIZE = 9
#: Each map format's island spaces and mountains. The island's size is what most sets its
#: worth: the game lasts until its spaces are full (or five treasures are found), and each
#: space more is about one star more to the bot (benchmarks/bench_bot.py). Map v2's 28 to
#: 32 spaces left the planning bot a Tourist in most games (mean 58, the rulebook's
#: Pathfinder is 60); map v3's 32 to 36 make it a Pathfinder, as it is in the Temple.
SIZES = {2: (range(28, 33), range(8, 11)), 3: (range(32, 37), range(8, 11))}
#: This version's sizes.
SPACES, MOUNTAINS = SIZES[MAP_FORMAT]
#: The least number of island spaces beside the sea, where the first number may go: about
#: half of the island, so that where to land is a choice (a ring of mountains along the
#: coast could leave a dozen or fewer).
COAST = 16
DANGERS = 5
#: The treasure chests at the bottom of the sheet.
TREASURES = 5


#: The sea round the island: only boats go there; it is drawn with dotted edges and a wave.
SEA = Kind("SEA", "~", inside=False, words="sea (~ or B)", picture="sea")
#: A mountain: no number goes there (a treasure may); it is drawn as a filled peak.
MOUNTAIN = Kind("MOUNTAIN", "^", words="a mountain (^)", picture="mountain")
#: What a finished sheet shows at a sea space and at a mountain: their map letters.
SEA_TOKEN, MOUNTAIN_TOKEN = Token.of(SEA), Token.of(MOUNTAIN)
#: A boat drawn in a sea space, typed ``B``.
BOAT = Token("B", "BOAT", kind=SEA)

#: Dakota Smith's face on the Island, Navigation: draw a boat in the sea instead of writing a
#: number; the die shows a sailing boat on a wave.
NAVIGATION = GreenEffect("boat", picture="boat", allows=N_("boat"), chip=N_("BOAT"))


class Island(Title):
    """Skull Island: one island space a turn, boats, at most five dangers."""

    key = "island"
    name = N_("Skull Island")
    short_name = N_("Island")
    aliases = ("skull-island", "skull", "skullisland")
    hazard_name = N_("danger")
    hazard_symbol = "skull"
    green_effect = NAVIGATION
    hazard_limit = DANGERS
    kinds = (SEA, MOUNTAIN)
    tokens = (BOAT,)
    #: ``/T7``: the treasure worth 7 found at a position, alone or after its token.
    marks = lone_marks = "T"
    max_hazards = DANGERS

    # The rulebook's solo levels are 60/75/90, whatever the dangers. The game ends when the
    # sheet is full or five treasures are found, so there is no round limit.
    level_thresholds = (60, 75, 90)
    # The rulebook's solo rule and its fallback, word for word (001:59), and its bubble.
    solo_placement = N_(
        "Draw the skull on an empty island space next to the space you filled last turn;"
        " if this is not possible, on an empty island space of your choice. Mark a danger"
        " bubble."
    )
    brief_table = N_("Skull on another's sheet")
    brief_solo = N_("Skull by last turn's space")
    table_placement = N_(
        "Swap sheets: draw a skull on an empty island space of your choice on another"
        " player's sheet, mark a danger bubble on it, then give it back."
    )

    # --- words ------------------------------------------------------------------

    def hazard_lines(self, options: Options, solo: bool, *,
                     tr: Translator = ENGLISH) -> tuple[str, ...]:
        _ = tr.gettext
        bubble = options.hazards_marked + 1
        lines = [
            _("Ignore the other dice."),
            self.placement(solo, tr),
            _("The danger bubble to mark: {bubble} of {limit}.").format(
                bubble=bubble, limit=DANGERS),
        ]
        if bubble == DANGERS:
            lines.append(_("All 5 bubbles marked: later dangers are ignored."))
        lines += [
            _("A danger left standing loses you the smallest number next to it."),
            _("A 9 written next to it overcomes it: cross it out and earn that smallest"
              " number instead."),
        ]
        return tuple(lines)

    def hazard_count(self, count: int, tr: Translator = ENGLISH) -> str:
        return tr.ngettext("{count} danger", "{count} dangers", count).format(count=count)

    def play_headline(self, options: Options, *, tr: Translator = ENGLISH) -> str:
        _ = tr.gettext
        if options.hazard_ignored:
            return _("Danger ignored: {limit} marked").format(limit=DANGERS)
        if options.green is NAVIGATION:
            return _("1 island space, or a boat")
        return _("Fill 1 island space")

    def play_lines(self, options: Options, *, tr: Translator = ENGLISH) -> tuple[str, ...]:
        _ = tr.gettext
        lines = []
        if options.hazard_ignored:
            lines.append(_("Danger ignored: all 5 danger bubbles are marked."))
        lines.append(self.numbers_line(options, tr))
        if options.penny and options.green is NAVIGATION:
            lines.append(_("Choose: Penny Papers (any number {range}) or Navigation"
                           " (a boat).").format(range=penny_range(tr)))
        elif options.penny:
            lines.append(_("Penny Papers: any number {range}.").format(range=penny_range(tr)))
        if options.green is NAVIGATION:
            lines.append(_("Navigation: you may draw a boat in an empty sea space instead."))
        if 9 in options.numbers:
            lines.append(_("A 9 written next to a danger overcomes it."))
        return tuple(line for line in lines if line)

    # --- the sheet ----------------------------------------------------------------

    def generate_sheet(self, side: Side, seed: int, version: int = MAP_FORMAT) -> Sheet:
        return first_accepted(f"{self.key} {side.value} {seed}",
                              self._candidates(side, seed, version))

    def _candidates(self, side: Side, seed: int, version: int) -> Iterator[Sheet | None]:
        rng = Pcg32.for_sheet(self.key, side.value, seed, "shape", version)
        spaces, heights = SIZES[version]
        while True:
            fillable = rng.between(spaces.start, spaces.stop - 1)
            mountains = rng.between(heights.start, heights.stop - 1)
            land = _grow(rng, fillable + mountains)
            peaks = None if land is None else _mountains(rng, land, mountains)
            if land is None or peaks is None:
                yield None
            else:
                yield self._sheet(side, seed, version, land, peaks)

    def _sheet(self, side: Side, seed: int, version: int, land: set[Cell],
               peaks: set[Cell]) -> Sheet:
        kinds = {(r, c): SEA for r in range(SIZE) for c in range(SIZE)}
        kinds.update(dict.fromkeys(land, Kind.SPACE))
        kinds.update(dict.fromkeys(peaks, MOUNTAIN))
        starts = frozenset(
            s for s in land - peaks if any(kinds.get(n) is SEA for n in neighbours(s))
        )
        return Sheet(
            title=self,
            side=side,
            seed=seed,
            version=version,
            grid=grid_of(SIZE, SIZE, kinds),
            starts=starts,
            clouds=frozenset(),
            tallies=(
                Tally(N_("Dangers"), DANGERS, Mark.BUBBLE_AND_BOX),
                Tally(N_("Treasures"), 5, Mark.BOX),
            ),
            score_boxes=(N_("Total"),),
            reminders=(
                N_("Green (Navigation): a boat in the sea instead"),
                N_("Purple (Penny Papers): any number {range}"),
                N_("Red (danger): ignore the dice; draw a skull"),
            ),
        )

    def score(self, sheet: FinishedSheet) -> Score:
        from pitable.rules.scoring import Score

        treasures, dangers, hazards = self._counted(sheet)
        return Score(self.key, ((N_("Treasures"), sum(treasures)), (N_("Dangers"), dangers)),
                     hazards)

    # The rulebook (001): "In a tie, the tied player who found the single most valuable
    # treasure wins. If there is still a tie, the tied players share the victory."
    tie_break_name = N_("Most valuable treasure")

    def tie_break(self, sheet: FinishedSheet) -> int:
        """The value of the sheet's most valuable treasure among those that count (one on a
        danger not overcome is worthless); 0 when none does."""
        treasures, _, _ = self._counted(sheet)
        return max(treasures, default=0)

    def _counted(self, sheet: FinishedSheet) -> tuple[list[int], int, int]:
        """What the finished ``sheet`` counts, checked as :meth:`score` says: the value of
        each treasure that counts, in reading order, the stars of the dangers (gained and
        lost), and the dangers drawn."""
        # Imported here: `pitable options` loads every title and needs no scoring.
        from pitable.rules.scoring import Token, bad, crossed_needs_nine, require

        require(
            sheet,
            self.name,
            (Token.NONE, Token.EMPTY, Token.NUMBER, SEA_TOKEN, BOAT, MOUNTAIN_TOKEN,
             Token.HAZARD, Token.CROSSED),
            "T",
        )
        crossed_needs_nine(sheet, "danger")
        hazards = 0
        for cell, space in sheet.cells():
            if space.token in (Token.HAZARD, Token.CROSSED):
                hazards += 1
                if hazards > DANGERS:
                    raise bad(cell, space, f"a danger after the first {DANGERS}")
        found: list[tuple[Cell, Space, int]] = []
        for cell, space in sheet.cells():
            if space.mark != "T" or space.mark_n is None:
                continue
            value = space.mark_n
            if space.token in (SEA_TOKEN, BOAT, Token.NONE):
                raise bad(cell, space, "a treasure is never found in the water or off the map")
            if any(value == v for _, _, v in found):
                raise bad(cell, space, f"a second treasure of {value}: each needs another number")
            if len(found) == TREASURES:
                raise bad(cell, space, f"a treasure after the first {TREASURES}")
            found.append((cell, space, value))
        treasures: list[int] = []
        for cell, space, value in found:
            why = _unfound(sheet, cell, value)
            if why:
                raise bad(cell, space, f"the treasure of {value}: {why}")
            # A treasure on a danger not overcome is worthless.
            if space.token is not Token.HAZARD:
                treasures.append(value)
        dangers = 0
        for cell, space in sheet.cells():
            smallest = min(sheet.numbers_around(cell), default=0)
            if space.token is Token.CROSSED:
                dangers += smallest
            elif space.token is Token.HAZARD:
                dangers -= smallest
        return treasures, dangers, hazards

    def check_sheet(self, sheet: Sheet) -> str | None:
        shape = self.shape_problem(sheet.shape, sheet.side, sheet.version)
        if shape is not None:
            return shape
        if sheet.starts != coast_of(sheet):
            return "the first number must go on an island space beside the sea"
        return None

    def shape_problem(self, shape: Shape, side: Side | None = None,
                      version: int | None = None) -> str | None:
        # Both sides' islands are drawn alike: the side changes nothing here. A shape of no
        # format named is judged by this version's sizes, then by each older format's.
        if version is not None:
            return self._shape_problem(shape, *SIZES[version])
        first = self._shape_problem(shape, SPACES, MOUNTAINS)
        if first is not None and any(self._shape_problem(shape, *SIZES[v]) is None
                                     for v in MAP_FORMATS):
            return None
        return first

    def _shape_problem(self, shape: Shape, spaces: range, heights: range) -> str | None:
        if (shape.grid_width, shape.grid_height) != (SIZE, SIZE):
            return (f"the island's grid is {SIZE} by {SIZE}, not"
                    f" {shape.grid_width} by {shape.grid_height}")
        if any(k not in (Kind.SPACE, SEA, MOUNTAIN) for row in shape.grid for k in row):
            return "kinds that belong to another title"
        last = SIZE - 1
        ring = [
            (r, c) for r in range(SIZE) for c in range(SIZE) if r in (0, last) or c in (0, last)
        ]
        if any(shape.kind(cell) is not SEA for cell in ring):
            return "the outer ring is not all sea"
        count = shape.fillable_count
        if count not in spaces:
            return f"{count} island spaces, expected {spaces.start} to {spaces.stop - 1}"
        mountains = len(shape.cells(MOUNTAIN))
        if mountains not in heights:
            return f"{mountains} mountains, expected {heights.start} to {heights.stop - 1}"
        if not connected(set(shape.cells(Kind.SPACE, MOUNTAIN))):
            return "the island is not one piece"
        if not connected(set(shape.cells(SEA)), edge_neighbours):
            return "a lagoon: sea enclosed by the island"
        return island_spaces_problem(shape)

    # --- the sheet's key --------------------------------------------------------

    # --- the bot and the replay -------------------------------------------------

    def bot(self) -> TitleBot:
        from pitable.rules.titles.island.bot import BOT

        return BOT

    def replay_rules(self) -> ReplayRules:
        from pitable.rules.titles.island.replay import RULES

        return RULES

    def sheet_key(self) -> tuple[KeyEntry, ...]:
        from pitable.rules.sheet_key import Diagram, KeyEntry

        return (
            # The cross of the rulebook's example: the treasure between the two numbers of
            # its column's pair and between the two of its row's.
            KeyEntry(N_("Treasure"), "",
                     N_("worth its number: between a pair in its column and a pair in its row;"
                        " a boat may be one end of each. Not in the sea; each number once."),
                     Diagram(((0, 1, "7"), (1, 0, "7"), (1, 1, ""), (1, 2, "7"), (2, 1, "7")),
                             circled=((1, 1),))),
            KeyEntry(N_("Danger"), "",
                     N_("loses the smallest adjacent number; a 9 written beside it crosses it"
                        " out and gains it instead. Mark a bubble; after {limit}, ignore"
                        " dangers."),
                     fields=(("limit", DANGERS),)),
            KeyEntry(N_("Mountains, sea"), "",
                     N_("no number on a mountain; only boats in the sea.")),
        )


def coast_of(sheet: Shape | Sheet) -> set[Cell]:
    """The island spaces beside the sea, where the first number goes."""
    spaces = set(sheet.cells(Kind.SPACE))
    return {s for s in spaces if any(sheet.kind(n) is SEA for n in neighbours(s))}


def island_spaces_problem(sheet: Shape | Sheet) -> str | None:
    """Why the island's spaces (not its mountains) are not one good group for a game; None
    when they are.

    Every space has another island space next to it, all the spaces are one 8-connected
    group (so mountains never cut the island in two), and at least :data:`COAST` of them lie
    beside the sea, where the first number goes: the first number is a real choice.
    """
    spaces = set(sheet.cells(Kind.SPACE))
    lonely = sorted(s for s in spaces if not any(n in spaces for n in neighbours(s)))
    if lonely:
        r, c = lonely[0]
        return f"the island space at row {r + 1}, column {c + 1} has no island space next to it"
    if not connected(spaces):
        return "mountains cut the island's spaces into separate groups"
    coast = coast_of(sheet)
    if len(coast) < COAST:
        return f"{len(coast)} island spaces beside the sea, expected at least {COAST}"
    return None


def _grow(rng: Pcg32, size: int) -> set[Cell] | None:
    """Land grown side by side from the middle, inside the ring of sea, with no lagoon."""
    inner = {(r, c) for r in range(1, SIZE - 1) for c in range(1, SIZE - 1)}
    middle = SIZE // 2
    land = {(middle, middle)}
    # The sea beside the land, kept as the land grows rather than found again each step.
    shore = {n for n in edge_neighbours((middle, middle)) if n in inner}
    while len(land) < size:
        cell = rng.pick(sorted(shore))
        land.add(cell)
        shore.discard(cell)
        shore.update(n for n in edge_neighbours(cell) if n in inner and n not in land)
    sea = {(r, c) for r in range(SIZE) for c in range(SIZE)} - land
    # A lagoon (sea enclosed by land) would hold boats that no coast reaches: refuse it.
    return land if connected(sea, edge_neighbours) else None


def _mountains(rng: Pcg32, land: set[Cell], count: int) -> set[Cell] | None:
    """``count`` mountains in ranges of neighbouring peaks, away from the coast if possible."""
    inland = sorted(c for c in land if all(n in land for n in neighbours(c)))
    candidates = inland if len(inland) >= count else sorted(land)
    peaks: set[Cell] = set()
    while len(peaks) < count:
        ridge = sorted({n for p in peaks for n in neighbours(p) if n in candidates} - peaks)
        # Mostly extend a range; now and then start a new one.
        if ridge and not rng.chance(1, 4):
            peaks.add(rng.pick(ridge))
        else:
            free = [c for c in candidates if c not in peaks]
            if not free:
                return None
            peaks.add(rng.pick(free))
    return peaks


def _unfound(sheet: FinishedSheet, cell: Cell, value: int) -> str | None:
    """Why four ``value`` s do not pinpoint a treasure at ``cell``; None when they do.

    The rulebook (001): "The intersection of the line between the horizontal pair and the
    line between the vertical pair reveals the location of the treasure." A line between
    two spaces joins them, so the treasure lies between the two numbers of its column's pair
    (one above it, one below) and between the two of its row's (one on each side). A boat,
    in the sea, stands in for one end of a pair, at most one boat a pair.
    """
    row, col = cell
    column = [(r, s) for (r, c), s in sheet.cells() if c == col and r != row]
    line = [(c, s) for (r, c), s in sheet.cells() if r == row and c != col]
    for name, at, spaces, sides in (("column", row, column, ("above it", "below it")),
                                    ("row", col, line, ("to its left", "to its right"))):
        why = _unpaired(value, [s for p, s in spaces if p < at], [s for p, s in spaces if p > at])
        if why is not None:
            return why.format(value=value, line=name, before=sides[0], after=sides[1])
    return None


def _unpaired(value: int, before: list[Space], after: list[Space]) -> str | None:
    """Why the spaces ``before`` and ``after`` a treasure in one line hold no pair of
    ``value`` around it (a template naming ``{value}``, ``{line}``, ``{before}`` and
    ``{after}``); None when they do."""
    from pitable.rules.scoring import Token

    def holds(spaces: list[Space]) -> tuple[bool, bool]:
        number = any(s.token is Token.NUMBER and s.number == value for s in spaces)
        return number, any(s.token is BOAT for s in spaces)

    (number_before, boat_before), (number_after, boat_after) = holds(before), holds(after)
    if (number_before and (number_after or boat_after)) or (number_after and boat_before):
        return None
    if not (number_before or number_after):
        return "no {value} in its {line} (a boat stands in for one number of a pair, not two)"
    if number_before:
        return ("no {value} (nor a boat) {after} in its {line}: the treasure lies between"
                " the two numbers of a pair")
    return ("no {value} (nor a boat) {before} in its {line}: the treasure lies between"
            " the two numbers of a pair")
