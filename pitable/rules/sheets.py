"""Adventure sheets: each title's map, generated from a seed, with what the rulebook puts
around it. Pure Python: no drawing, no I/O.

A sheet is a grid of spaces of a few kinds (:class:`Kind`), the spaces where the first
number may go, and the bubbles and boxes printed around the grid. :func:`generate` makes
one from a title, a side and a seed, and checks it with :func:`check_sheet` before
returning it, so a sheet that breaks its title's invariants is never handed out.

Determinism. The same title, side and seed give the same map on every machine and every
Python version, as long as :data:`MAP_FORMAT` is unchanged (it is printed on the sheet).
The generator draws from its own PCG32 (M. O'Neill, "PCG: A Family of Simple Fast
Space-Efficient Statistically Good Algorithms for Random Number Generation", 2014; the
reference ``pcg32_random_r`` with ``pcg32_srandom_r`` seeding), seeded from a SHA-256 of the
title, side, seed and map format. :class:`random.Random` is not used: its ``randrange``,
``choice`` and ``shuffle`` are free to change between CPython versions, and only a fixed,
tested algorithm makes the promise above true.

>>> sheet = generate("island", 7)
>>> sheet.grid_width, sheet.grid_height, 28 <= sheet.fillable_count <= 32
(9, 9, True)
"""

from __future__ import annotations

import enum
import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pitable.errors import BadSeed, BadSide, SheetError
from pitable.rules.base import find_title

#: Bumped whenever a change to the generators changes the map a seed gives.
MAP_FORMAT = 1
#: Seeds are six digits at most, so that a host can read one aloud to the whole table.
MAX_SEED = 999_999
#: No title is wider than this many spaces: 9 spaces of 5 mm fill 58 mm paper's 48 mm.
MAX_COLUMNS = 9

Cell = tuple[int, int]  # (row, column)
T = TypeVar("T")


# --- the random generator ------------------------------------------------------

_MASK64 = (1 << 64) - 1
_PCG_MULTIPLIER = 6364136223846793005


class Pcg32:
    """PCG32 (XSH RR, 64-bit state): the reference ``pcg32_random_r``, bit for bit."""

    def __init__(self, initstate: int, initseq: int) -> None:
        self._inc = ((initseq << 1) | 1) & _MASK64
        self._state = 0
        self.next32()
        self._state = (self._state + initstate) & _MASK64
        self.next32()

    @classmethod
    def for_sheet(cls, title: str, side: str, seed: int, purpose: str) -> Pcg32:
        """The generator for one purpose (``shape``, ``lake``...) of one sheet."""
        key = f"pitable-sheet/{MAP_FORMAT}/{title}/{side}/{seed}/{purpose}".encode()
        digest = hashlib.sha256(key).digest()
        return cls(int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:16], "little"))

    def next32(self) -> int:
        old = self._state
        self._state = (old * _PCG_MULTIPLIER + self._inc) & _MASK64
        xorshifted = (((old >> 18) ^ old) >> 27) & 0xFFFFFFFF
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << (-rot & 31))) & 0xFFFFFFFF

    def below(self, bound: int) -> int:
        """A uniform whole number from 0 to ``bound - 1`` (``pcg32_boundedrand_r``)."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        threshold = (1 << 32) % bound
        while True:
            r = self.next32()
            if r >= threshold:
                return r % bound

    def between(self, low: int, high: int) -> int:
        """A uniform whole number from ``low`` to ``high``, both included."""
        return low + self.below(high - low + 1)

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def chance(self, numerator: int, denominator: int) -> bool:
        return self.below(denominator) < numerator


# --- the model -------------------------------------------------------------------


class Kind(enum.Enum):
    """What one position of a sheet's grid holds; the value is its letter in a text map."""

    OUTSIDE = " "  # not part of the map: nothing is printed there
    SPACE = "."  # a space a number goes in
    DOOR = "D"  # Temple: a Door space, filled only with a Lockpick
    MOUNTAIN = "^"  # Island: no number goes there (a treasure may)
    SEA = "~"  # Island: only boats go there
    LAKE = "="  # Valley, lake side: a space that cannot be filled

    @property
    def fillable(self) -> bool:
        return self in (Kind.SPACE, Kind.DOOR)


class Side(enum.Enum):
    """The two sides of an adventure sheet; everyone at a table uses the same side."""

    A = "a"
    B = "b"

    @classmethod
    def from_str(cls, text: str) -> Side:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise BadSide(f"side {text!r}: expected a or b") from None


class Mark(enum.Enum):
    """How a player fills in one entry of a :class:`Tally`."""

    BUBBLE = "bubble"  # a circle to tick
    BOX = "box"  # a box to write a number in
    BUBBLE_AND_BOX = "bubble+box"  # a circle to tick, and a box for the stars it gains or loses


@dataclass(frozen=True)
class Tally:
    """A row of bubbles or boxes beside the grid: solo rounds, structures, dangers..."""

    label: str
    count: int
    mark: Mark
    #: A name under each entry (hut, statue, mine), or none.
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sheet:
    """One adventure sheet: the map and what is printed around it."""

    title: str
    side: Side
    seed: int
    #: Rows of the grid, top first; every row has the same length.
    grid: tuple[tuple[Kind, ...], ...]
    #: The spaces where the first number may go.
    starts: frozenset[Cell]
    #: Valley: the spaces beside the clouds, each drawn with a cloud above it.
    clouds: frozenset[Cell]
    tallies: tuple[Tally, ...]
    #: The score lines, last of all the total; short words, as each shares its box with a
    #: number (Ranges: mountain ranges; Sequence: the longest sequence).
    score_boxes: tuple[str, ...]
    #: One line per die: what its special face does in this title.
    reminders: tuple[str, ...]

    @property
    def title_name(self) -> str:
        return find_title(self.title).name

    @property
    def grid_width(self) -> int:
        return len(self.grid[0])

    @property
    def grid_height(self) -> int:
        return len(self.grid)

    @property
    def label(self) -> str:
        """What the sheet prints to say which map it is: ``valley A 7 (map v1)``."""
        return f"{self.title} {self.side.value.upper()} {self.seed} (map v{MAP_FORMAT})"

    def kind(self, cell: Cell) -> Kind:
        row, col = cell
        if 0 <= row < self.grid_height and 0 <= col < self.grid_width:
            return self.grid[row][col]
        return Kind.OUTSIDE

    def cells(self, *kinds: Kind) -> list[Cell]:
        """Every position holding one of ``kinds``, row by row."""
        return [
            (r, c) for r, row in enumerate(self.grid) for c, kind in enumerate(row) if kind in kinds
        ]

    @property
    def fillable_count(self) -> int:
        return len(self.cells(Kind.SPACE, Kind.DOOR))

    def to_text(self) -> str:
        """The map as text, one line a row: ``c`` marks a space beside a cloud."""
        lines = []
        for r, row in enumerate(self.grid):
            chars = ["c" if (r, c) in self.clouds else k.value for c, k in enumerate(row)]
            lines.append("".join(chars).rstrip())
        return "\n".join(lines) + "\n"


# --- geometry --------------------------------------------------------------------

_EIGHT = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
_FOUR = ((-1, 0), (0, -1), (0, 1), (1, 0))


def neighbours(cell: Cell) -> list[Cell]:
    """The 8 surrounding positions: "adjacent" in every title of the series."""
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in _EIGHT]


def _sides(cell: Cell) -> list[Cell]:
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in _FOUR]


def reachable(
    starts: Iterable[Cell], allowed: set[Cell], step: Callable[[Cell], list[Cell]] = neighbours
) -> set[Cell]:
    """Every cell of ``allowed`` reached from ``starts`` moving by ``step``."""
    seen = {s for s in starts if s in allowed}
    todo = deque(sorted(seen))
    while todo:
        for n in step(todo.popleft()):
            if n in allowed and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def connected(cells: set[Cell], step: Callable[[Cell], list[Cell]] = neighbours) -> bool:
    if not cells:
        return False
    return len(reachable([min(cells)], cells, step)) == len(cells)


def _grid(width: int, height: int, kinds: dict[Cell, Kind]) -> tuple[tuple[Kind, ...], ...]:
    return tuple(
        tuple(kinds.get((r, c), Kind.OUTSIDE) for c in range(width)) for r in range(height)
    )


# --- the titles ------------------------------------------------------------------

VALLEY_WIDTH, VALLEY_HEIGHT = 9, 8
VALLEY_SPACES = range(56, 65)
VALLEY_LAKE = range(8, 13)
ISLAND_SIZE = 9
ISLAND_SPACES = range(28, 33)
ISLAND_MOUNTAINS = range(8, 11)
TEMPLE_SPACES = range(40, 57)
TEMPLE_DOORS = range(6, 10)
TEMPLE_MAX_ROWS = 8

REMINDERS = {
    "valley": (
        "Green (Dakota Smith): draw a hut, statue or mine",
        "Purple (Penny Papers): any number 1-15",
        "Red (snake): ignore the dice; draw a snake",
    ),
    "island": (
        "Green (Navigation): a boat in the sea instead",
        "Purple (Penny Papers): any number 1-15",
        "Red (danger): ignore the dice; draw a skull",
    ),
    "temple": (
        "Green (Lockpick): the number goes in a Door",
        "Purple (Penny Papers): any number 1-15",
        "Red (mummy): ignore the dice; draw a mummy",
    ),
}

#: Attempts a generator makes before giving up; each draws afresh from the same stream, so
#: the attempt that succeeds is itself determined by the seed.
_ATTEMPTS = 1000


def _valley_shape(rng: Pcg32) -> tuple[set[Cell], list[int]]:
    """A valley 9 wide and 8 high whose top and bottom edges wander by up to 2 spaces."""
    for _ in range(_ATTEMPTS):
        top = _wander(rng, VALLEY_WIDTH)
        bottom = _wander(rng, VALLEY_WIDTH)
        count = sum(VALLEY_HEIGHT - t - b for t, b in zip(top, bottom, strict=True))
        if count in VALLEY_SPACES and min(top) == 0 and min(bottom) == 0:
            spaces = {
                (r, c)
                for c in range(VALLEY_WIDTH)
                for r in range(top[c], VALLEY_HEIGHT - bottom[c])
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


def _valley(seed: int, side: Side) -> Sheet:
    # The shape comes from a stream that ignores the side, so that both sides of a seed
    # show the same valley and the lake side has exactly the lake's spaces fewer.
    shape_rng = Pcg32.for_sheet("valley", "-", seed, "shape")
    spaces, top = _valley_shape(shape_rng)
    run = shape_rng.between(3, 5)
    first = shape_rng.below(VALLEY_WIDTH - run + 1)
    clouds = frozenset((top[c], c) for c in range(first, first + run))
    kinds = dict.fromkeys(spaces, Kind.SPACE)
    if side is Side.B:
        for cell in _lake(Pcg32.for_sheet("valley", "b", seed, "lake"), spaces, clouds):
            kinds[cell] = Kind.LAKE
    return Sheet(
        title="valley",
        side=side,
        seed=seed,
        grid=_grid(VALLEY_WIDTH, VALLEY_HEIGHT, kinds),
        starts=clouds,
        clouds=clouds,
        tallies=(
            Tally("Solo rounds", 25, Mark.BUBBLE),
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
        reminders=REMINDERS["valley"],
    )


def _lake(rng: Pcg32, spaces: set[Cell], clouds: frozenset[Cell]) -> set[Cell]:
    """A lake of 8 to 12 spaces, in one piece, that leaves the rest of the valley reachable."""
    size = rng.between(VALLEY_LAKE.start, VALLEY_LAKE.stop - 1)
    inner = sorted(s for s in spaces if s not in clouds)
    for _ in range(_ATTEMPTS):
        lake = {rng.pick(inner)}
        while len(lake) < size:
            shore = sorted(
                {n for cell in lake for n in _sides(cell) if n in spaces} - lake - clouds
            )
            if not shore:
                break
            lake.add(rng.pick(shore))
        rest = spaces - lake
        if len(lake) == size and reachable(clouds, rest) == rest:
            return lake
    raise SheetError("no lake found")  # pragma: no cover - never reached


def _island(seed: int, side: Side) -> Sheet:
    rng = Pcg32.for_sheet("island", side.value, seed, "shape")
    for _ in range(_ATTEMPTS):
        fillable = rng.between(ISLAND_SPACES.start, ISLAND_SPACES.stop - 1)
        mountains = rng.between(ISLAND_MOUNTAINS.start, ISLAND_MOUNTAINS.stop - 1)
        land = _grow_island(rng, fillable + mountains)
        if land is None:
            continue
        peaks = _mountains(rng, land, mountains)
        if peaks is None:
            continue
        kinds = {(r, c): Kind.SEA for r in range(ISLAND_SIZE) for c in range(ISLAND_SIZE)}
        kinds.update(dict.fromkeys(land, Kind.SPACE))
        kinds.update(dict.fromkeys(peaks, Kind.MOUNTAIN))
        spaces = land - peaks
        starts = frozenset(
            s for s in spaces if any(kinds.get(n) is Kind.SEA for n in neighbours(s))
        )
        if not starts or reachable(starts, spaces) != spaces:
            continue
        return Sheet(
            title="island",
            side=side,
            seed=seed,
            grid=_grid(ISLAND_SIZE, ISLAND_SIZE, kinds),
            starts=starts,
            clouds=frozenset(),
            tallies=(
                Tally("Dangers", 5, Mark.BUBBLE_AND_BOX),
                Tally("Treasures", 5, Mark.BOX),
            ),
            score_boxes=("Total",),
            reminders=REMINDERS["island"],
        )
    raise SheetError("no island found")  # pragma: no cover - never reached


def _grow_island(rng: Pcg32, size: int) -> set[Cell] | None:
    """Land grown side by side from the middle, inside the ring of sea, with no lagoon."""
    inner = {(r, c) for r in range(1, ISLAND_SIZE - 1) for c in range(1, ISLAND_SIZE - 1)}
    middle = ISLAND_SIZE // 2
    land = {(middle, middle)}
    while len(land) < size:
        coast = sorted({n for cell in land for n in _sides(cell) if n in inner} - land)
        land.add(rng.pick(coast))
    sea = {(r, c) for r in range(ISLAND_SIZE) for c in range(ISLAND_SIZE)} - land
    # A lagoon (sea enclosed by land) would hold boats that no coast reaches: refuse it.
    return land if connected(sea, _sides) else None


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


def _temple(seed: int, side: Side) -> Sheet:
    rng = Pcg32.for_sheet("temple", side.value, seed, "shape")
    for _ in range(_ATTEMPTS):
        widths = _steps(rng)
        if sum(widths) not in TEMPLE_SPACES:
            continue
        spaces = {
            (r, c)
            for r, w in enumerate(widths)
            for c in range((MAX_COLUMNS - w) // 2, (MAX_COLUMNS + w) // 2)
        }
        doors = _doors(rng, spaces, rng.between(TEMPLE_DOORS.start, TEMPLE_DOORS.stop - 1))
        if doors is None:
            continue
        kinds = dict.fromkeys(spaces, Kind.SPACE)
        kinds.update(dict.fromkeys(doors, Kind.DOOR))
        return Sheet(
            title="temple",
            side=side,
            seed=seed,
            grid=_grid(MAX_COLUMNS, len(widths), kinds),
            # The Temple has no adjacency rule for writing: any doorless space will do.
            starts=frozenset(spaces - doors),
            clouds=frozenset(),
            tallies=(),
            score_boxes=("Sequence", "Groups", "Mummies", "Total"),
            reminders=REMINDERS["temple"],
        )
    raise SheetError("no temple found")  # pragma: no cover - never reached


def _steps(rng: Pcg32) -> list[int]:
    """Row widths, top row first, of a pyramid whose steps narrow by one space a side."""
    widths = [MAX_COLUMNS]
    while len(widths) < TEMPLE_MAX_ROWS:
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


_GENERATORS: dict[str, Callable[[int, Side], Sheet]] = {
    "valley": _valley,
    "island": _island,
    "temple": _temple,
}


# --- the public entry points -------------------------------------------------------


def parse_seed(text: str | int) -> int:
    """A seed from the command line or the config: a whole number from 0 to MAX_SEED."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        try:
            value = int(str(text).strip(), 10)
        except ValueError:
            raise BadSeed(f"seed {text!r}: expected a whole number from 0 to {MAX_SEED}") from None
    if not 0 <= value <= MAX_SEED:
        raise BadSeed(f"seed {value}: expected a whole number from 0 to {MAX_SEED}")
    return value


def generate(title: str, seed: int | str, side: Side | str = Side.A) -> Sheet:
    """The sheet of ``title`` (any name :func:`find_title` knows) for ``seed`` and ``side``.

    Raises :class:`UnknownTitle`, :class:`BadSeed` or :class:`BadSide` on bad input.
    """
    key = find_title(title).key
    number = parse_seed(seed)
    face = side if isinstance(side, Side) else Side.from_str(side)
    sheet = _GENERATORS[key](number, face)
    check_sheet(sheet)
    return sheet


def check_sheet(sheet: Sheet) -> None:
    """Raise :class:`SheetError` naming the first invariant ``sheet`` breaks."""

    def fail(why: str) -> None:
        raise SheetError(f"{sheet.label}: {why}")

    widths = {len(row) for row in sheet.grid}
    if len(widths) != 1:
        fail("rows of different lengths")
    if sheet.grid_width > MAX_COLUMNS:
        fail(f"{sheet.grid_width} spaces wide, more than {MAX_COLUMNS}")
    fillable = set(sheet.cells(Kind.SPACE, Kind.DOOR))
    if not sheet.starts or not sheet.starts <= fillable:
        fail("no space for the first number, or one that cannot be filled")
    # The first number goes on a start; every later one next to a filled space, except in
    # the Temple, whose starts are every doorless space. Doors are reached like the rest.
    if reachable(sheet.starts, fillable) != fillable:
        fail("some spaces cannot be reached from the first one")
    count = len(fillable)
    checks = {"valley": _check_valley, "island": _check_island, "temple": _check_temple}
    why = checks[sheet.title](sheet, count)
    if why:
        fail(why)


def _check_valley(sheet: Sheet, count: int) -> str | None:
    lake = len(sheet.cells(Kind.LAKE))
    if sheet.side is Side.A and lake:
        return "a lake on side A"
    if sheet.side is Side.B and lake not in VALLEY_LAKE:
        return f"a lake of {lake} spaces, expected 8 to 12"
    if count + lake not in VALLEY_SPACES:
        return f"{count + lake} valley spaces, expected 56 to 64"
    if sheet.starts != sheet.clouds:
        return "the first number must go beside a cloud"
    if any(sheet.kind((r - 1, c)) is not Kind.OUTSIDE for r, c in sheet.clouds):
        return "a cloud inside the valley"
    return None


def _check_island(sheet: Sheet, count: int) -> str | None:
    if (sheet.grid_width, sheet.grid_height) != (ISLAND_SIZE, ISLAND_SIZE):
        return "the island's grid is not 9 by 9"
    last = ISLAND_SIZE - 1
    ring = [
        (r, c)
        for r in range(ISLAND_SIZE)
        for c in range(ISLAND_SIZE)
        if r in (0, last) or c in (0, last)
    ]
    if any(sheet.kind(cell) is not Kind.SEA for cell in ring):
        return "the outer ring is not all sea"
    if count not in ISLAND_SPACES:
        return f"{count} island spaces, expected 28 to 32"
    mountains = len(sheet.cells(Kind.MOUNTAIN))
    if mountains not in ISLAND_MOUNTAINS:
        return f"{mountains} mountains, expected 8 to 10"
    if not connected(set(sheet.cells(Kind.SPACE, Kind.MOUNTAIN))):
        return "the island is not one piece"
    coast = {
        s for s in sheet.cells(Kind.SPACE) if any(sheet.kind(n) is Kind.SEA for n in neighbours(s))
    }
    if sheet.starts != coast:
        return "the first number must go on an island space beside the sea"
    return None


def _check_temple(sheet: Sheet, count: int) -> str | None:
    if count not in TEMPLE_SPACES:
        return f"{count} temple spaces, expected 40 to 56"
    doors = len(sheet.cells(Kind.DOOR))
    if doors not in TEMPLE_DOORS:
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
