"""A finished sheet, read from text, and what it is worth. Pure Python: no I/O.

A finished sheet is typed as text: the map's rows, top first, one whitespace-separated token
per position, in the positions ``pitable sheet GAME --out map.txt`` prints (a position left
blank there is ``#`` here). Blank lines and lines starting with ``;`` are ignored.

Tokens every title knows: ``#`` not a space, ``_`` an empty space, ``1`` to ``15`` a number,
``X`` a hazard standing and ``x`` one crossed out. The letters of the printed map are
accepted for what they are: ``.`` (and ``c``, a space drawn with a cloud above it) an
empty space, and the letter of each kind of position a title adds. The rest comes from the
registered titles (:func:`alphabet`): the tokens each adds (a structure, a boat; a kind's
letter with a number after it, as a Door holding 7 is ``D7``), and the marks typed after a
``/`` (``7/j1``, or ``/T7`` alone where a lone mark may stand). Each title's package, and
docs/sheets.md, list its own.

:func:`parse_sheet` reads the tokens every title may use; each title's
:meth:`~pitable.rules.base.Title.score` refuses those it does not know and any mark its rules
do not allow, with :class:`~pitable.errors.BadSheet` naming the cell (row and column from 1).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from pitable.errors import BadSheet, quoted
from pitable.rules.dice import ONE_TO_FIVE, DiceSet
from pitable.rules.sheets import (
    MAP_FORMAT,
    MAP_FORMATS,
    MAX_SEED,
    Cell,
    Kind,
    Shape,
    Side,
    generate,
    neighbours,
    reachable,
)

if TYPE_CHECKING:
    from pitable.rules.base import Title

#: The least and largest number a space holds with the 1-5 dice (Penny Papers' number of
#: choice); with another dice set the largest is :func:`highest_number`'s.
LOWEST, HIGHEST = 1, 15


def highest_number(dice: DiceSet = ONE_TO_FIVE) -> int:
    """The largest number a space holds with ``dice``: Penny Papers' 15, or the sum of the
    three dice's highest faces when that is more (18 with the 2-6 dice)."""
    return max(HIGHEST, 3 * max(dice.numbers))


#: What a line starts with to be a comment.
COMMENT = ";"


@dataclass(frozen=True)
class Token:
    """What one position of a finished sheet holds, before any mark.

    Every title knows :attr:`NONE`, :attr:`EMPTY`, :attr:`NUMBER`, :attr:`HAZARD` and
    :attr:`CROSSED`; a title adds the token of each kind of position it defines
    (:meth:`of`) and its own (``Title.tokens``). Each is one value, compared with ``is``.
    """

    #: Its letter as typed: ``"X"`` (``"n"`` for a number, which is typed as its digits).
    value: str
    #: What it is called in code: ``"HAZARD"``.
    name: str
    #: The kind of map position it shows (a boat drawn shows the sea under it); None for
    #: a token written on a space.
    kind: Kind | None = None
    #: A number may follow its letter: a space of a kind that holds numbers (``D7``).
    numbered: bool = False

    NONE: ClassVar[Token]
    EMPTY: ClassVar[Token]
    NUMBER: ClassVar[Token]
    HAZARD: ClassVar[Token]
    CROSSED: ClassVar[Token]

    def __post_init__(self) -> None:
        if _TOKENS.setdefault(self.value, self) != self:
            raise ValueError(f"token {self.value!r}: the letter is taken")

    def __reduce__(self) -> tuple[Callable[[str], Token], tuple[str]]:
        return (_token, (self.value,))

    def __repr__(self) -> str:
        if self.name in ("NONE", "EMPTY", "NUMBER", "HAZARD", "CROSSED"):
            return f"Token.{self.name}"
        return f"Token({self.value!r}, {self.name!r})"

    @classmethod
    def of(cls, kind: Kind) -> Token:
        """The token of a position of ``kind`` typed with its map letter: ``D`` for a
        space of a kind that holds numbers (``D7`` holding 7), ``^`` for one that holds
        none."""
        known = _TOKENS.get(kind.value)
        if known is not None and known.kind is kind:
            return known
        return cls(kind.value, kind.name, kind=kind, numbered=kind.fillable)


#: Every token by its letter.
_TOKENS: dict[str, Token] = {}


def _token(letter: str) -> Token:
    """The token of ``letter``: what a copied or unpickled one is."""
    return _TOKENS[letter]


Token.NONE = Token("#", "NONE", kind=Kind.OUTSIDE)  # not a space
Token.EMPTY = Token("_", "EMPTY")
Token.NUMBER = Token("n", "NUMBER")
Token.HAZARD = Token("X", "HAZARD")  # a hazard standing
Token.CROSSED = Token("x", "CROSSED")  # one crossed out

#: The letters of a printed map that stand for an empty space here (``c``: a space drawn
#: with a cloud above it).
_MAP_LETTERS = {".": Token.EMPTY, "c": Token.EMPTY}
#: The longest token a sheet may hold (the longest there is, ``15/T15``, has 6 characters):
#: a longer one is refused before it is matched, so no file makes the matching slow.
MAX_TOKEN = 12


@dataclass(frozen=True)
class Alphabet:
    """The tokens and marks a finished sheet may hold: those every title knows and those
    of the titles registered, with the pattern of one token."""

    #: The tokens typed as a letter alone, by letter.
    plain: dict[str, Token]
    #: The tokens a number may follow, by letter.
    numbered: dict[str, Token]
    #: The marks that may stand alone in a position.
    lone_marks: str
    #: One token: a letter or sign, a number, a mark and its number, each part optional.
    #: Every repeat is possessive and the parts cannot share a character (a letter is no
    #: digit, a digit no ``/``), so a match never backtracks: its time grows with the
    #: token's length, whatever the token holds. (A lazy ``[^/]*?`` before ``[0-9]+``
    #: took quadratic time on a long run of digits ending in a letter.)
    pattern: re.Pattern[str]


def alphabet() -> Alphabet:
    """The tokens and marks of the titles registered now."""
    from pitable.rules.titles import all_titles

    return _alphabet(tuple(all_titles()))


@functools.lru_cache(maxsize=8)
def _alphabet(titles: tuple[Title, ...]) -> Alphabet:
    tokens = [Token.NONE, Token.EMPTY, Token.HAZARD, Token.CROSSED]
    for title in titles:
        tokens += [Token.of(kind) for kind in title.kinds]
        tokens += title.tokens
    plain = {t.value: t for t in tokens} | _MAP_LETTERS
    numbered = {t.value: t for t in tokens if t.numbered}
    marks = "".join(dict.fromkeys(m for t in titles for m in t.marks))
    lone = "".join(dict.fromkeys(m for t in titles for m in t.lone_marks))
    mark = f"(?:/(?P<mark>[{re.escape(marks)}])(?P<mark_n>[0-9]++))?+" if marks else ""
    pattern = re.compile(rf"(?P<base>[^/0-9]*+)(?P<number>[0-9]++)?+{mark}")
    return Alphabet(plain, numbered, lone, pattern)


#: The comment ``pitable sheet --out map.txt`` writes first, naming the map:
#: ``; toy A 7 (map v3)``.
_MAP_NAME = re.compile(
    r";\s*+(?P<key>[a-z][a-z0-9-]{0,39}+)\s++(?P<side>[ABab])\s++(?P<seed>[0-9]{1,6}+)"
    r"(?:\s++\(map v(?P<format>[0-9]{1,4}+)\))?+\s*+"
)
#: A comment that names a map by a seed no map has (more digits than MAX_SEED): refused,
#: not taken for a plain comment, so that the sheet is not scored on no map at all.
_SEED_OUT_OF_RANGE = re.compile(r";\s*+[a-z][a-z0-9-]{0,39}+\s++[ABab]\s++[0-9]{7,}+(?![^\s(])")
#: A byte order mark, which some editors write at the start of a UTF-8 file.
BOM = "\ufeff"


@dataclass(frozen=True)
class MapName:
    """The map a sheet names in its comment: its title's key, side, seed and map format."""

    key: str
    side: Side
    seed: int
    #: The :data:`~pitable.rules.sheets.MAP_FORMAT` it was made by; None when not said.
    map_format: int | None = None

    def __str__(self) -> str:
        made = f" (map v{self.map_format})" if self.map_format is not None else ""
        return f"{self.key} {self.side.value.upper()} {self.seed}{made}"

    @classmethod
    def from_comment(cls, line: str) -> MapName | None:
        """The map ``line`` (a comment, ``;`` included) names, or None if it names none."""
        match = _MAP_NAME.fullmatch(line.strip())
        if match is None:
            if _SEED_OUT_OF_RANGE.match(line.strip()):
                raise BadSheet(
                    f"the comment {quoted(line.strip())} names a seed no map has:"
                    f" a map's seed is 0 to {MAX_SEED}"
                )
            return None
        made = match["format"]
        return cls(match["key"], Side.from_str(match["side"]), int(match["seed"]),
                   None if made is None else int(made))


@dataclass(frozen=True)
class Space:
    """One position of a finished sheet, as typed."""

    token: Token
    #: The number written (in a space or a Door); None where none is.
    number: int | None = None
    #: The letter of a mark typed after ``/`` (one of a title's :attr:`~Title.marks`).
    mark: str | None = None
    #: The number after that letter: which one of its kind, or what it is worth.
    mark_n: int | None = None
    #: The token as typed, for the error that names it.
    text: str = ""


@dataclass(frozen=True)
class FinishedSheet:
    """The grid of a finished sheet: rows of spaces, every row the same length."""

    rows: tuple[tuple[Space, ...], ...]
    #: The map the sheet's comments name (``; toy A 7 (map v3)``); None when none.
    map_name: MapName | None = None

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    def at(self, cell: Cell) -> Space | None:
        """The space at ``cell``, or None off the grid."""
        r, c = cell
        if 0 <= r < self.height and 0 <= c < self.width:
            return self.rows[r][c]
        return None

    def cells(self) -> Iterator[tuple[Cell, Space]]:
        """Every position with what it holds, row by row."""
        for r, row in enumerate(self.rows):
            for c, space in enumerate(row):
                yield (r, c), space

    def around(self, cell: Cell) -> Iterator[tuple[Cell, Space]]:
        """The up to 8 positions adjacent to ``cell`` (adjacent in every title)."""
        for n in neighbours(cell):
            space = self.at(n)
            if space is not None:
                yield n, space

    def numbers_around(self, cell: Cell) -> list[int]:
        return [s.number for _, s in self.around(cell) if s.number is not None]

    def shape(self) -> Shape:
        """The map the sheet was filled in on, as far as it shows: the kind of each
        position, and where there is no space (``#``)."""
        return Shape(tuple(tuple(s.token.kind or Kind.SPACE for s in row)
                           for row in self.rows))

    def mirrored(self) -> FinishedSheet:
        """The same sheet read right to left."""
        return FinishedSheet(tuple(tuple(reversed(row)) for row in self.rows))

    def transposed(self) -> FinishedSheet:
        """The same sheet with rows and columns swapped."""
        return FinishedSheet(tuple(zip(*self.rows, strict=True)))


@dataclass(frozen=True)
class Score:
    """What a finished sheet is worth: each component by name, in the sheet's order."""

    title_key: str
    components: tuple[tuple[str, int], ...]
    #: Hazards placed on the sheet (standing or crossed out), for the solo level.
    hazards: int

    @property
    def total(self) -> int:
        return sum(stars for _, stars in self.components)

    def __getitem__(self, name: str) -> int:
        for key, stars in self.components:
            if key == name:
                return stars
        raise KeyError(name)

    def to_json(self) -> dict[str, object]:
        return {
            "title": self.title_key,
            "components": dict(self.components),
            "total": self.total,
            "hazards": self.hazards,
        }


def where(cell: Cell, space: Space | None = None) -> str:
    """``row 3, column 5`` (from 1), with the token as typed when there is one."""
    text = f"row {cell[0] + 1}, column {cell[1] + 1}"
    return f"{text} ({space.text})" if space is not None and space.text else text


def bad(cell: Cell, space: Space | None, why: str) -> BadSheet:
    return BadSheet(f"{where(cell, space)}: {why}")


def parse_token(text: str, cell: Cell, highest: int = HIGHEST,
                known: Alphabet | None = None) -> Space:
    """One token of a finished sheet; :class:`BadSheet` naming ``cell`` if it is none, or
    if its number is outside :data:`LOWEST` to ``highest``.

    Linear in the token's length: a token longer than :data:`MAX_TOKEN` is refused unread,
    and a number's digits are counted before they are converted. The tokens and marks
    are those of ``known``, by default of the titles registered (:func:`alphabet`).
    """
    if len(text) > MAX_TOKEN:
        raise bad(cell, None, f"{quoted(text)} is not a token")
    known = known or alphabet()
    match = known.pattern.fullmatch(text)
    if match is None:
        raise bad(cell, None, f"{quoted(text)} is not a token")
    base, digits = match.group("base", "number")
    mark, mark_n = match.groupdict().get("mark"), match.groupdict().get("mark_n")
    if digits is not None and len(digits.lstrip("0")) > len(str(highest)):
        raise bad(cell, None, f"{quoted(text)}: numbers go from {LOWEST} to {highest}")
    number = int(digits) if digits is not None else None
    n = int(mark_n) if mark_n is not None else None
    if number is not None and not LOWEST <= number <= highest:
        raise bad(cell, None, f"{quoted(text)}: numbers go from {LOWEST} to {highest}")
    holder = known.numbered.get(base[:1])
    if base == "" and number is not None:
        token = Token.NUMBER
    elif base in known.numbered:
        token = known.numbered[base]
    elif (holder is not None and holder.kind is not None and holder.kind.no_hazard
          and base[1:] in (Token.HAZARD.value, Token.CROSSED.value) and number is None):
        # What a hazard drawn in a space that holds none would be typed as: the rule it
        # breaks, not "no token".
        raise bad(cell, None, f"{quoted(text)}: {holder.kind.no_hazard}")
    elif base in known.plain and number is None:
        token = known.plain[base]
    elif base == "" and mark is not None and mark in known.lone_marks:
        token = Token.EMPTY
    else:
        raise bad(cell, None, f"{quoted(text)} is not a token")
    return Space(token, number, mark, n, text)


def parse_sheet(text: str, dice: DiceSet = ONE_TO_FIVE) -> FinishedSheet:
    """The grid of a finished sheet typed as text (see the module's docstring).

    A byte order mark at the start is skipped; the first comment that names a map
    (``; toy A 7 (map v3)``, as ``pitable sheet --out map.txt`` writes it) is kept as
    :attr:`FinishedSheet.map_name`. Raises :class:`BadSheet` for a token that is none, rows
    of different lengths or no row. A number goes up to 15, or with ``dice`` whose three
    faces add up to more, to their sum (:func:`highest_number`). The time taken grows with
    the text's length.
    """
    highest = highest_number(dice)
    known = alphabet()
    rows: list[tuple[Space, ...]] = []
    lines: list[int] = []
    named: MapName | None = None
    for number, line in enumerate(text.removeprefix(BOM).splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith(COMMENT):
            named = named or MapName.from_comment(stripped)
            continue
        if not stripped:
            continue
        r = len(rows)
        rows.append(tuple(parse_token(t, (r, c), highest, known)
                          for c, t in enumerate(stripped.split())))
        lines.append(number)
    if not rows:
        raise BadSheet("no row of the map: the sheet is empty")
    width = len(rows[0])
    for r, row in enumerate(rows):
        if len(row) != width:
            raise BadSheet(
                f"row {r + 1} (line {lines[r]}): {len(row)} tokens, but row 1 has {width}:"
                " every row has one token per position (# where there is no space)"
            )
    return FinishedSheet(tuple(rows), named)


def check_map(title: Title, sheet: FinishedSheet) -> None:
    """Refuse ``sheet`` with :class:`BadSheet` unless it was filled in on a map of
    ``title``: its size and shape one of the title's maps can have
    (:meth:`~pitable.rules.base.Title.shape_problem`), and where its comment names the map,
    that map's, position by position (the map is made again from its seed).

    A map named with a map format this pitable does not draw (:data:`MAP_FORMATS`) cannot
    be made again; its shape is still checked against its side. A map named with no format
    is taken for this version's.
    """
    named = sheet.map_name
    if named is not None and named.key != title.key:
        raise BadSheet(f"the sheet's comment names the map {named}, not a map of {title.name}")
    side = named.side if named is not None else None
    version: int | None = None
    if named is not None:
        version = MAP_FORMAT if named.map_format is None else named.map_format
        if version not in MAP_FORMATS:
            version = None
    shape = sheet.shape()
    why = title.shape_problem(shape, side, version)
    if why is not None:
        on = f"side {side.value.upper()} of " if side is not None else ""
        raise BadSheet(f"not the map of {on}{title.name}: {why}")
    if named is None or version is None:
        return
    expected = generate(title, named.seed, named.side, version).shape
    if expected.grid_height != shape.grid_height or expected.grid_width != shape.grid_width:
        raise BadSheet(
            f"the map {named} is {expected.grid_width} by {expected.grid_height} positions,"
            f" the sheet {shape.grid_width} by {shape.grid_height}"
        )
    for cell, space in sheet.cells():
        want, got = expected.kind(cell), shape.kind(cell)
        if want.no_hazard and space.token in (Token.HAZARD, Token.CROSSED):
            raise bad(cell, space, f"a {title.hazard_name} goes in {want.hazard_goes}, and"
                                   f" the map {named} has {want.words} here")
        if want is not got:
            raise bad(cell, space, f"the map {named} has {want.words} here,"
                                   f" not {got.words}")


def require(sheet: FinishedSheet, title: str, tokens: Iterable[Token], marks: str) -> None:
    """Refuse any token outside ``tokens`` and any mark outside ``marks`` (the letters after
    a ``/``), naming the cell and ``title``, the title's name."""
    allowed = set(tokens)
    for cell, space in sheet.cells():
        if space.token not in allowed:
            raise bad(cell, space, f"{space.token.value!r} is not a mark of {title}")
        if space.mark is not None and space.mark not in marks:
            raise bad(cell, space, f"'/{space.mark}' is not a mark of {title}")


def group_of(cells: set[Cell]) -> bool:
    """True when ``cells`` are one 8-connected group ("N adjacent spaces")."""
    return bool(cells) and len(reachable([min(cells)], cells)) == len(cells)


def components(cells: set[Cell]) -> list[set[Cell]]:
    """``cells`` split into 8-connected groups."""
    left = set(cells)
    groups = []
    while left:
        group = reachable([min(left)], left)
        groups.append(group)
        left -= group
    return groups


def crossed_needs_nine(sheet: FinishedSheet, what: str) -> None:
    """A hazard crossed out must have a 9 beside it: refuse one that has not."""
    for cell, space in sheet.cells():
        if space.token is Token.CROSSED and 9 not in sheet.numbers_around(cell):
            raise bad(cell, space, f"a {what} crossed out with no 9 beside it")
