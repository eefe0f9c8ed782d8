"""The three dice, their faces, and an exactly uniform roll drawn from raw bytes.

Every die of the series shows five numbered faces and one special face. By default the
numbers are 1 to 5 (the special face stands where the 6 would be); the ``TWO_TO_SIX`` dice
set keeps the other reading, 2 to 6 with the special face in place of the 1.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from pitable.errors import BadFace, BadRoll


class Die(enum.IntEnum):
    """The three dice, in the order a roll lists them."""

    GREEN = 0
    PURPLE = 1
    RED = 2

    def __str__(self) -> str:
        return self.name.lower()


DICE: tuple[Die, Die, Die] = (Die.GREEN, Die.PURPLE, Die.RED)


class Special(enum.Enum):
    """The special face of a die: its meaning depends on the die and the title."""

    FACE = "*"

    def __repr__(self) -> str:
        return "SPECIAL"

    def __str__(self) -> str:
        return "*"


SPECIAL = Special.FACE

#: A face is either its pips or the special face.
Face = int | Special


@dataclass(frozen=True)
class DiceSet:
    """What the six faces of each die show; every die of a set shows the same faces."""

    name: str
    faces: tuple[Face, Face, Face, Face, Face, Face]

    @property
    def numbers(self) -> tuple[int, ...]:
        return tuple(f for f in self.faces if isinstance(f, int))

    def parse_face(self, text: str, die: Die | None = None) -> Face:
        """Read one face as written on the command line: pips, or ``*`` for the special face."""
        where = f" on the {die} die" if die is not None else ""
        token = text.strip()
        if token in ("*", "s", "S"):
            return SPECIAL
        # isascii: str.isdigit() also accepts digits such as "²" that int() refuses.
        if not (token.isascii() and token.isdigit()) or int(token) not in self.numbers:
            low, high = min(self.numbers), max(self.numbers)
            raise BadFace(f"face {text.strip()!r}{where}: expected {low} to {high} or '*'")
        return int(token)

    def check(self, face: object, die: Die | None = None) -> Face:
        if face is SPECIAL or (isinstance(face, int) and not isinstance(face, bool)
                               and face in self.numbers):
            return face
        where = f" on the {die} die" if die is not None else ""
        low, high = min(self.numbers), max(self.numbers)
        raise BadFace(f"face {face!r}{where}: expected {low} to {high} or the special face")


#: Pips 1 to 5, special face in place of the 6: the reading the rulebooks support.
ONE_TO_FIVE = DiceSet("1-5", (1, 2, 3, 4, 5, SPECIAL))
#: Pips 2 to 6, special face in place of the 1 (one reading of the Spanish walkthrough).
TWO_TO_SIX = DiceSet("2-6", (SPECIAL, 2, 3, 4, 5, 6))

DICE_SETS = {s.name: s for s in (ONE_TO_FIVE, TWO_TO_SIX)}
DICE_SETS_HELP = "1-5 (pips 1 to 5 and the special face; the default) or 2-6"


def find_dice_set(name: str) -> DiceSet:
    try:
        return DICE_SETS[name]
    except KeyError:
        known = ", ".join(DICE_SETS)
        raise BadFace(f"unknown dice set {name!r}: expected one of {known}") from None


@dataclass(frozen=True)
class Roll:
    """The faces of the green, purple and red dice after one throw."""

    green: Face
    purple: Face
    red: Face

    @classmethod
    def from_str(cls, text: str, dice: DiceSet = ONE_TO_FIVE) -> Roll:
        """Parse ``"2,3,5"`` or ``"*,3,5"``: green, purple, red, separated by commas."""
        parts = text.split(",")
        if len(parts) != 3:
            raise BadRoll(
                f"roll {text!r}: expected three faces, green,purple,red (e.g. 2,3,5 or *,3,5),"
                f" got {len(parts)}"
            )
        try:
            faces = [dice.parse_face(p, die) for p, die in zip(parts, DICE, strict=True)]
        except BadFace as exc:
            raise BadRoll(f"roll {text!r}: {exc}") from None
        return cls(*faces)

    @classmethod
    def of(cls, green: Face, purple: Face, red: Face, dice: DiceSet = ONE_TO_FIVE) -> Roll:
        """A roll whose faces are checked against the dice set."""
        return cls(*(dice.check(f, d) for f, d in zip((green, purple, red), DICE, strict=True)))

    @property
    def faces(self) -> tuple[Face, Face, Face]:
        return (self.green, self.purple, self.red)

    def __getitem__(self, die: Die) -> Face:
        return self.faces[die]

    def is_special(self, die: Die) -> bool:
        return self.faces[die] is SPECIAL

    def __str__(self) -> str:
        return ",".join(str(f) for f in self.faces)

    def __repr__(self) -> str:
        return f"Roll.from_str({str(self)!r})"

    def to_json(self) -> list[int | str]:
        return [f if isinstance(f, int) else "*" for f in self.faces]


def all_rolls(dice: DiceSet = ONE_TO_FIVE) -> Iterator[Roll]:
    """Every one of the 216 rolls, green slowest, red fastest."""
    for g in dice.faces:
        for p in dice.faces:
            for r in dice.faces:
                yield Roll(g, p, r)


# --- drawing a roll from raw bytes ---------------------------------------------

#: The number of distinct rolls of three six-sided dice.
OUTCOMES = 6 * 6 * 6


class ByteSource(Protocol):
    """Anything that hands out random bytes: an entropy source, a file, a test double."""

    def read(self, n: int) -> bytes: ...


def roll_from_byte(value: int, dice: DiceSet = ONE_TO_FIVE) -> Roll | None:
    """The roll one raw byte gives, or ``None`` when the byte must be rejected.

    A byte takes 256 values; the first 216 map one-to-one onto the 216 rolls and the other
    40 are rejected. Every roll therefore has exactly the same chance, 1/216 given a byte
    is accepted, with no modulo bias, and each die is uniform and independent of the
    others because the index splits as 36*green + 6*purple + red.
    """
    if value >= OUTCOMES:
        return None
    faces = dice.faces
    return Roll(faces[value // 36], faces[(value // 6) % 6], faces[value % 6])


def draw_roll(source: ByteSource, dice: DiceSet = ONE_TO_FIVE) -> tuple[Roll, int]:
    """Draw one roll by rejection sampling; returns it and the number of bytes consumed.

    One byte per attempt is the cheapest exact scheme for 216 outcomes that needs no
    arithmetic on big integers: on average 256/216 = 1.185 bytes a roll, against the
    log2(216)/8 = 0.969 bytes that any scheme needs.
    """
    used = 0
    while True:
        chunk = source.read(1)
        if len(chunk) != 1:
            raise EOFError("the entropy source returned no bytes")
        used += 1
        roll = roll_from_byte(chunk[0], dice)
        if roll is not None:
            return roll, used


def draw_rolls(source: ByteSource, count: int, dice: DiceSet = ONE_TO_FIVE) -> list[Roll]:
    """Draw ``count`` rolls with the same rejection rule as :func:`draw_roll`, in blocks.

    Each read asks for no more bytes than rolls still wanted, so every byte read is used
    (as a roll or a rejection) and the consumption is the same as byte-by-byte drawing.
    """
    table = [roll_from_byte(v, dice) for v in range(OUTCOMES)]
    rolls: list[Roll] = []
    while len(rolls) < count:
        block = source.read(count - len(rolls))
        if not block:
            raise EOFError("the entropy source returned no bytes")
        rolls.extend(table[v] for v in block if v < OUTCOMES)  # type: ignore[misc]
    return rolls
