"""Adventure sheets: each title's map, generated from a seed, with what the rulebook puts
around it. Pure Python: no drawing, no I/O.

A sheet is a grid of spaces of a few kinds (:class:`Kind`), the spaces where the first
number may go, and the bubbles and boxes printed around the grid. :func:`generate` makes
one from a title, a side and a seed, and checks it with :func:`check_sheet` before
returning it, so a sheet that breaks its title's invariants is never handed out. This
module holds what every title's sheet shares (the model, the random generator, the
geometry, the checks every map passes); each title's own generator and invariants are its
:meth:`~pitable.rules.base.Title.generate_sheet` and
:meth:`~pitable.rules.base.Title.check_sheet`, in its module under
:mod:`pitable.rules.titles`.

Acceptance. A generator draws candidate maps and hands them to :func:`first_accepted`,
which keeps the first one :func:`map_problem` finds nothing wrong with: every invariant,
the title's own included, is a predicate on a whole map, and that is the one place where a
map is accepted or refused. To refuse more maps (say, those a bot scores far above or
below the rest), add the predicate to the title's ``check_sheet``; the maps it still
accepts change, so :data:`MAP_FORMAT` goes up with it.

Determinism. The same title, side and seed give the same map on every machine and every
Python version, as long as :data:`MAP_FORMAT` is unchanged (it is printed on the sheet).
The generator draws from its own PCG32 (M. O'Neill, "PCG: A Family of Simple Fast
Space-Efficient Statistically Good Algorithms for Random Number Generation", 2014; the
reference ``pcg32_random_r`` with ``pcg32_srandom_r`` seeding), seeded from a SHA-256 of the
title, side, seed and map format. :class:`random.Random` is not used: its ``randrange``,
``choice`` and ``shuffle`` are free to change between CPython versions, and only a fixed,
tested algorithm makes the promise above true.

>>> from pitable.rules.titles import all_titles
>>> sheet = generate(all_titles()[0], 7)
>>> sheet.grid_width <= MAX_COLUMNS, sheet.to_text() == generate(sheet.title, 7).to_text()
(True, True)
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypeVar

from pitable.errors import BadMapFormat, BadSeed, BadSide, SheetError, quoted

if TYPE_CHECKING:
    from pitable.rules.base import Title

#: Bumped whenever a change to the generators or to what they accept changes the map a seed
#: gives; each title's package says what each format changed in its maps.
MAP_FORMAT = 3
#: Every format this version still draws, oldest first: a sheet printed under an older one
#: is drawn again, the same map, from its version and seed.
MAP_FORMATS = (2, 3)
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
    def for_sheet(cls, title: str, side: str, seed: int, purpose: str,
                  version: int = MAP_FORMAT) -> Pcg32:
        """The generator for one purpose (``shape``, ``doors``...) of one sheet of map
        format ``version``; ``title`` is the title's key."""
        # Imported here: the rules load this module, and `pitable options` needs no hashlib.
        import hashlib

        key = f"pitable-sheet/{version}/{title}/{side}/{seed}/{purpose}".encode()
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


@dataclass(frozen=True)
class Kind:
    """What one position of a sheet's grid holds; its value is its letter in a text map.

    Every map has :attr:`OUTSIDE` and :attr:`SPACE`; a title's package defines the other
    kinds its maps hold and names them in its ``kinds``. Each is one value, compared with
    ``is``; a copy or an unpickled one is that value again.
    """

    #: What it is called in code: ``"SPACE"``.
    name: str
    #: Its letter in a text map, and in a finished sheet typed as text: ``"."``.
    value: str
    #: A number may be written there.
    fillable: bool = False
    #: Part of the map: the drawing's thick outline goes round the positions that are.
    inside: bool = True
    #: How a refusal names it, with its letters: ``"a space"``.
    words: str = ""
    #: The name of its drawing on a printed sheet (:mod:`pitable.render.sheet` keys its
    #: drawings by it); empty for a plain square.
    picture: str = ""
    #: Why no hazard may be typed there, for a refusal; empty where one may.
    no_hazard: str = ""
    #: Where a hazard goes instead, for a refusal: ``"a space of another kind"``.
    hazard_goes: str = ""

    #: Not part of the map: nothing is printed there.
    OUTSIDE: ClassVar[Kind]
    #: A space a number goes in.
    SPACE: ClassVar[Kind]

    def __post_init__(self) -> None:
        if _KINDS.setdefault(self.value, self) != self:
            raise ValueError(f"kind {self.value!r}: the letter is taken")

    def __reduce__(self) -> tuple[Callable[[str], Kind], tuple[str]]:
        return (_kind, (self.value,))

    def __repr__(self) -> str:
        if self.name in ("OUTSIDE", "SPACE"):
            return f"Kind.{self.name}"
        return f"Kind.from_str({self.value!r})"

    @classmethod
    def from_str(cls, letter: str) -> Kind:
        """The kind ``letter`` stands for in a text map: the two every map has, or one a
        title defines (:attr:`~pitable.rules.base.Title.kinds`) and that is registered."""
        from pitable.rules.titles import all_titles

        for kind in (cls.OUTSIDE, cls.SPACE, *(k for t in all_titles() for k in t.kinds)):
            if kind.value == letter:
                return kind
        raise ValueError(f"{letter!r} is not the letter of a kind of map position")


#: Every kind by its letter.
_KINDS: dict[str, Kind] = {}


def _kind(letter: str) -> Kind:
    """The kind of ``letter``: what a copied or unpickled one is."""
    return _KINDS[letter]


Kind.OUTSIDE = Kind("OUTSIDE", " ", inside=False, words="no space (#)")
Kind.SPACE = Kind("SPACE", ".", fillable=True, words="a space")


class Side(enum.Enum):
    """The two sides of an adventure sheet; everyone at a table uses the same side."""

    A = "a"
    B = "b"

    @classmethod
    def from_str(cls, text: str) -> Side:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise BadSide(f"side {quoted(text)}: expected a or b") from None


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


Grid = tuple[tuple[Kind, ...], ...]


class GridQueries:
    """What a grid holds where, for :class:`Shape` and :class:`Sheet` alike (each has a
    ``grid``)."""

    grid: Grid

    @property
    def grid_width(self) -> int:
        return len(self.grid[0]) if self.grid else 0

    @property
    def grid_height(self) -> int:
        return len(self.grid)

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

    def fillable(self) -> list[Cell]:
        """Every position a number may go in, row by row."""
        return [(r, c) for r, row in enumerate(self.grid) for c, kind in enumerate(row)
                if kind.fillable]

    @property
    def fillable_count(self) -> int:
        return len(self.fillable())


@dataclass(frozen=True)
class Shape(GridQueries):
    """A map's grid alone, what each position holds (top row first): all of a map that a
    finished sheet typed as text still shows. A title's
    :meth:`~pitable.rules.base.Title.shape_problem` judges it; :class:`Sheet` answers the
    same questions about its own grid."""

    grid: Grid


@dataclass(frozen=True)
class Sheet(GridQueries):
    """One adventure sheet: the map and what is printed around it."""

    title: Title
    side: Side
    seed: int
    #: Rows of the grid, top first; every row has the same length.
    grid: tuple[tuple[Kind, ...], ...]
    #: The spaces where the first number may go.
    starts: frozenset[Cell]
    #: The spaces beside the clouds, each drawn with a cloud above it (for a title whose
    #: first number goes beside them); none for the others.
    clouds: frozenset[Cell]
    tallies: tuple[Tally, ...]
    #: The score lines, last of all the total; short words, as each shares its box with a
    #: number ("Ranges" for mountain ranges, say).
    score_boxes: tuple[str, ...]
    #: One line per die: what its special face does in this title.
    reminders: tuple[str, ...]
    #: The map format it was drawn by (:data:`MAP_FORMATS`).
    version: int = MAP_FORMAT

    @property
    def title_name(self) -> str:
        return self.title.name

    @property
    def label(self) -> str:
        """What the sheet prints to say which map it is: its title's key, side, seed and map
        format, ``toy A 7 (map v3)`` for the map of seed 7 of a title whose key is ``toy``."""
        return f"{self.title.key} {self.side.value.upper()} {self.seed} (map v{self.version})"

    @property
    def shape(self) -> Shape:
        return Shape(self.grid)

    def to_text(self, *, label: bool = False) -> str:
        """The map as text, one line a row: ``c`` marks a space beside a cloud. With
        ``label`` a first line, a comment to ``pitable score``, names the map
        (``; toy A 7 (map v3)``), so that a sheet filled in from it is checked against it.
        """
        lines = [f"; {self.label}"] if label else []
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


def edge_neighbours(cell: Cell) -> list[Cell]:
    """The 4 positions sharing an edge with ``cell``."""
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


def grid_of(width: int, height: int, kinds: dict[Cell, Kind]) -> tuple[tuple[Kind, ...], ...]:
    """A ``width`` by ``height`` grid of ``kinds``, OUTSIDE where it names no kind."""
    return tuple(
        tuple(kinds.get((r, c), Kind.OUTSIDE) for c in range(width)) for r in range(height)
    )


#: Attempts a generator makes before giving up; each draws afresh from the same stream, so
#: the attempt that succeeds is itself determined by the seed.
ATTEMPTS = 1000


# --- the public entry points -------------------------------------------------------


def parse_seed(text: str | int) -> int:
    """A seed from the command line or the config: a whole number from 0 to MAX_SEED."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        try:
            value = int(str(text).strip(), 10)
        except ValueError:
            raise BadSeed(
                f"seed {quoted(str(text))}: expected a whole number from 0 to {MAX_SEED}"
            ) from None
    if not 0 <= value <= MAX_SEED:
        raise BadSeed(f"seed {value}: expected a whole number from 0 to {MAX_SEED}")
    return value


def check_version(version: int) -> int:
    """``version`` when this pitable draws maps of that format; :class:`BadMapFormat`
    naming those it draws otherwise."""
    if version not in MAP_FORMATS:
        drawn = ", ".join(f"v{v}" for v in MAP_FORMATS)
        raise BadMapFormat(f"map v{version}: this version draws maps {drawn}")
    return version


def generate(title: Title | str, seed: int | str, side: Side | str = Side.A,
             version: int = MAP_FORMAT) -> Sheet:
    """The sheet of ``title`` (a title, or any name ``find_title`` knows) for ``seed`` and
    ``side``, drawn by map format ``version`` (one of :data:`MAP_FORMATS`).

    Raises :class:`UnknownTitle`, :class:`BadSeed`, :class:`BadSide` or
    :class:`BadMapFormat` on bad input.
    """
    # Imported here: the titles' modules import this one for the model they build.
    from pitable.rules.titles import as_title

    maker = as_title(title)
    number = parse_seed(seed)
    face = side if isinstance(side, Side) else Side.from_str(side)
    sheet = maker.generate_sheet(face, number, check_version(version))
    check_sheet(sheet)
    return sheet


def check_sheet(sheet: Sheet) -> None:
    """Raise :class:`SheetError` naming the first invariant ``sheet`` breaks."""
    why = map_problem(sheet)
    if why:
        raise SheetError(f"{sheet.label}: {why}")


def map_problem(sheet: Sheet) -> str | None:
    """The first invariant ``sheet`` breaks, in a few words: those of every map, then its
    title's own (:meth:`~pitable.rules.base.Title.check_sheet`); None when it keeps them all."""
    widths = {len(row) for row in sheet.grid}
    if len(widths) != 1:
        return "rows of different lengths"
    declared = {Kind.OUTSIDE, Kind.SPACE, *sheet.title.kinds}
    undeclared = {k for row in sheet.grid for k in row} - declared
    if undeclared:
        # Its text map could not be read back, nor a finished sheet of it scored.
        letters = ", ".join(sorted(repr(k.value) for k in undeclared))
        return f"kinds of position the title does not declare: {letters}"
    if sheet.grid_width > MAX_COLUMNS:
        return f"{sheet.grid_width} spaces wide, more than {MAX_COLUMNS}"
    fillable = set(sheet.fillable())
    if not sheet.starts or not sheet.starts <= fillable:
        return "no space for the first number, or one that cannot be filled"
    # The first number goes on a start; every later one next to a filled space (a title
    # whose numbers go anywhere makes every space a start). Every space a number may go in
    # is reached, whatever its kind.
    if reachable(sheet.starts, fillable) != fillable:
        return "some spaces cannot be reached from the first one"
    return sheet.title.check_sheet(sheet)


def first_accepted(what: str, candidates: Iterable[Sheet | None]) -> Sheet:
    """The first of ``candidates`` that keeps every invariant (:func:`map_problem`).

    A generator yields its candidate maps (None for a draw that made no map at all) from
    its own seeded streams, so the map accepted is itself determined by the seed. Raises
    :class:`SheetError` naming ``what`` when :data:`ATTEMPTS` candidates are all refused.
    """
    for attempt, candidate in enumerate(candidates):
        if attempt == ATTEMPTS:
            break
        if candidate is not None and map_problem(candidate) is None:
            return candidate
    raise SheetError(f"{what}: no map kept the invariants in {ATTEMPTS} attempts")
