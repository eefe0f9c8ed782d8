"""A game from its first roll to its end: solo rounds, hazards placed, and adventurer levels.

Pure and standard library only, like the rest of :mod:`pitable.rules`. The controller folds
each roll into a :class:`GameState` to know the round, the hazards marked and whether a
solo game is over; the session store rebuilds the same :class:`GameState` from what it
saved, so both answer from one piece of logic.

>>> level("valley", 112, hazards=5).name
'Explorer'
>>> level("island", 70).stars_needed
5
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from pitable.errors import BadDangerCount, BadScore, GameOver, UnknownMode
from pitable.rules.base import Options, find_title
from pitable.rules.dice import Roll

#: The adventurer levels of every title's solo mode, lowest first.
LEVELS: tuple[str, str, str, str] = ("Tourist", "Pathfinder", "Voyager", "Explorer")


class Mode(enum.StrEnum):
    """How a game is played: everyone at a table, or one player alone."""

    TABLE = "table"
    SOLO = "solo"

    @classmethod
    def from_str(cls, text: str) -> Mode:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise UnknownMode(f"unknown mode {text!r}: expected table or solo") from None


@dataclass(frozen=True)
class SessionRules:
    """What a title's rulebook says about a whole game, as opposed to one roll."""

    title: str
    #: Solo rounds before the game ends; None where the rulebook sets no limit (the game
    #: ends on an event of the sheet, which the box cannot see: the player ends it).
    solo_rounds: int | None
    #: The least score of Pathfinder, Voyager and Explorer, before any hazard adjustment.
    thresholds: tuple[int, int, int]
    #: Stars every threshold drops per hazard placed (the Valley: 4 per snake).
    discount_per_hazard: int
    #: Where the solo player draws a hazard, in the rulebook's words.
    placement: str


# The figures are the rulebooks' (../shared/rules): the Valley's "Solo Adventure" (25
# rounds, levels 90/110/130, 4 fewer stars per snake placed, escaped ones included),
# Skull Island's (60/75/90) and the Temple's (15/25/30). The Island and the Temple end when
# a sheet is full or five treasures are found, so they have no round limit.
_RULES: dict[str, SessionRules] = {
    "valley": SessionRules(
        "valley",
        25,
        (90, 110, 130),
        4,
        "Draw the snake in an empty space next to one of the spaces you filled last turn;"
        " if there is none, in any empty space.",
    ),
    "island": SessionRules(
        "island",
        None,
        (60, 75, 90),
        0,
        "Draw the skull on an empty island space next to the space you filled last turn;"
        " if there is none, on any empty island space. Mark a danger bubble.",
    ),
    "temple": SessionRules(
        "temple",
        None,
        (15, 25, 30),
        0,
        "Draw the mummy in an empty doorless space next to the space you filled last turn;"
        " if there is none, in any empty doorless space.",
    ),
}


def session_rules(title: str) -> SessionRules:
    """The session rules of ``title`` (a key or an alias: ``valley``, ``skull-island``...)."""
    return _RULES[find_title(title).key]


def placement_reminder(title: str) -> str:
    """What a solo player must do with a hazard just rolled in ``title``."""
    return session_rules(title).placement


def _check_hazards(title: str, hazards: int) -> None:
    if isinstance(hazards, bool) or not isinstance(hazards, int):
        raise BadDangerCount(f"hazards placed: expected a whole number, got {hazards!r}")
    find_title(title).check_hazards_marked(hazards)


def thresholds(title: str, hazards: int = 0) -> tuple[int, int, int]:
    """The least score of Pathfinder, Voyager and Explorer after ``hazards`` were placed.

    Only the Valley moves them: "4 fewer stars per snake placed", as the rulebook counts,
    with no floor, so after 23 snakes even a score below zero can reach Pathfinder.
    """
    _check_hazards(title, hazards)
    rules = session_rules(title)
    off = rules.discount_per_hazard * hazards
    low, mid, high = (t - off for t in rules.thresholds)
    return (low, mid, high)


@dataclass(frozen=True)
class LevelResult:
    """The level a final score earns, and how far the next one was."""

    title: str
    score: int
    hazards: int
    #: ``Tourist``, ``Pathfinder``, ``Voyager`` or ``Explorer``.
    name: str
    #: 0 (Tourist) to 3 (Explorer).
    rank: int
    #: The level above, or None at Explorer.
    next_level: str | None
    #: Stars the score lacked for the next level; None at Explorer.
    stars_needed: int | None
    #: The least score of Pathfinder, Voyager and Explorer, hazards taken into account.
    thresholds: tuple[int, int, int]

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.title,
            "score": self.score,
            "hazards": self.hazards,
            "level": self.name,
            "next_level": self.next_level,
            "stars_needed": self.stars_needed,
            "thresholds": dict(zip(LEVELS[1:], self.thresholds, strict=True)),
        }


def level(title: str, score: int, hazards: int = 0) -> LevelResult:
    """The adventurer level of a solo ``score`` in ``title`` after ``hazards`` were placed.

    ``hazards`` counts every snake placed in the Valley, escaped ones included; the other
    titles accept their own count but their thresholds do not depend on it.
    """
    if isinstance(score, bool) or not isinstance(score, int):
        raise BadScore(f"score: expected a whole number of stars, got {score!r}")
    key = find_title(title).key
    bounds = thresholds(key, hazards)
    rank = sum(1 for t in bounds if score >= t)
    if rank == len(bounds):
        return LevelResult(key, score, hazards, LEVELS[rank], rank, None, None, bounds)
    return LevelResult(
        key, score, hazards, LEVELS[rank], rank, LEVELS[rank + 1], bounds[rank] - score, bounds
    )


@dataclass(frozen=True)
class Turn:
    """One roll folded into a game: what it allows, and the game after it."""

    #: The round this roll is, counted from 1.
    round: int
    roll: Roll
    options: Options
    #: A hazard to draw this turn, and counted (an ignored Island danger is not).
    hazard: bool
    #: In solo play, where to draw the hazard; None otherwise.
    reminder: str | None
    #: The game after this roll.
    state: GameState


@dataclass(frozen=True)
class GameState:
    """Where a game stands: the rounds played, the hazards marked, the last roll.

    A value: :meth:`play` returns a new state and leaves this one as it was.
    """

    title: str
    mode: Mode = Mode.TABLE
    #: Rolls played so far; the round of the last roll (0 before the first).
    rounds: int = 0
    #: Hazards marked: every snake or mummy, Island dangers up to the five bubbles.
    hazards: int = 0
    last_roll: Roll | None = None

    def __post_init__(self) -> None:
        key = find_title(self.title).key
        object.__setattr__(self, "title", key)
        object.__setattr__(self, "mode", Mode.from_str(str(self.mode)))
        if self.rounds < 0:
            raise ValueError(f"rounds: expected 0 or more, got {self.rounds}")
        _check_hazards(key, self.hazards)

    @property
    def round_limit(self) -> int | None:
        """The last round of the game, when the rules set one (a solo Valley game: 25)."""
        return session_rules(self.title).solo_rounds if self.mode is Mode.SOLO else None

    @property
    def rounds_left(self) -> int | None:
        limit = self.round_limit
        return None if limit is None else max(0, limit - self.rounds)

    @property
    def over(self) -> bool:
        """The rules have ended the game: no more rolls (the score is still to be entered)."""
        limit = self.round_limit
        return limit is not None and self.rounds >= limit

    def options(self, roll: Roll) -> Options:
        """What ``roll`` would allow as the next roll of this game."""
        return find_title(self.title).options(roll, self.hazards)

    def play(self, roll: Roll) -> Turn:
        """Fold ``roll`` in as the next round; :class:`GameOver` once the rules ended it."""
        if self.over:
            raise GameOver(
                f"the solo game of {find_title(self.title).name} is over after"
                f" {self.round_limit} rounds: enter the score or start a new game"
            )
        options = self.options(roll)
        hazard = options.hazard
        after = replace(
            self, rounds=self.rounds + 1, hazards=self.hazards + int(hazard), last_roll=roll
        )
        reminder = placement_reminder(self.title) if hazard and self.mode is Mode.SOLO else None
        return Turn(after.rounds, roll, options, hazard, reminder, after)

    def level(self, score: int) -> LevelResult:
        """The level ``score`` earns with the hazards of this game."""
        return level(self.title, score, self.hazards)
