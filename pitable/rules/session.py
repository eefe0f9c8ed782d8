"""A game from its first roll to its end: solo rounds, hazards placed, and adventurer levels.

Pure and standard library only, like the rest of :mod:`pitable.rules`. The controller folds
each roll into a :class:`GameState` to know the round, the hazards marked and whether a
solo game is over; the session store rebuilds the same :class:`GameState` from what it
saved, so both answer from one piece of logic. The figures (round limit, level
thresholds, what a hazard costs, where a solo hazard goes) are each title's own, on its
class in :mod:`pitable.rules.titles`.

>>> from pitable.rules.titles import default_title
>>> first = default_title()
>>> level(first, 112, hazards=5).name
'Explorer'
>>> level(first, 80, hazards=5).stars_needed
10
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from pitable.errors import BadDangerCount, BadScore, GameOver, UnknownMode
from pitable.rules.base import Options, Title
from pitable.rules.dice import Roll
from pitable.rules.titles import as_title

#: The adventurer levels of every title's solo mode, lowest first.
LEVELS: tuple[str, str, str, str] = ("Tourist", "Pathfinder", "Voyager", "Explorer")


#: The most players a game takes on their phones (and bots), as a club night's table.
MAX_PLAYERS = 100

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


def _check_hazards(title: Title, hazards: int) -> None:
    if isinstance(hazards, bool) or not isinstance(hazards, int):
        raise BadDangerCount(f"hazards placed: expected a whole number, got {hazards!r}")
    title.check_hazards_marked(hazards)


def thresholds(title: Title | str, hazards: int = 0) -> tuple[int, int, int]:
    """The least score of Pathfinder, Voyager and Explorer after ``hazards`` were placed.

    ``title`` is a title or any name ``find_title`` knows. Only a title with a
    :attr:`~Title.discount_per_hazard` moves them, by that many stars per hazard.
    """
    found = as_title(title)
    _check_hazards(found, hazards)
    return found.thresholds(hazards)


@dataclass(frozen=True)
class LevelResult:
    """The level a final score earns, and how far the next one was."""

    title: Title
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
            "game": self.title.key,
            "score": self.score,
            "hazards": self.hazards,
            "level": self.name,
            "next_level": self.next_level,
            "stars_needed": self.stars_needed,
            "thresholds": dict(zip(LEVELS[1:], self.thresholds, strict=True)),
        }


def level(title: Title | str, score: int, hazards: int = 0) -> LevelResult:
    """The adventurer level of a solo ``score`` in ``title`` after ``hazards`` were placed.

    ``title`` is a title or any name ``find_title`` knows. ``hazards`` counts every hazard
    placed (escaped ones included, where a title lets them escape); titles whose thresholds do
    not depend on it accept their own count all the same.
    """
    if isinstance(score, bool) or not isinstance(score, int):
        raise BadScore(f"score: expected a whole number of stars, got {score!r}")
    found = as_title(title)
    bounds = thresholds(found, hazards)
    rank = sum(1 for t in bounds if score >= t)
    if rank == len(bounds):
        return LevelResult(found, score, hazards, LEVELS[rank], rank, None, None, bounds)
    return LevelResult(
        found, score, hazards, LEVELS[rank], rank, LEVELS[rank + 1], bounds[rank] - score, bounds
    )


@dataclass(frozen=True)
class Turn:
    """One roll folded into a game: what it allows, and the game after it."""

    #: The round this roll is, counted from 1.
    round: int
    roll: Roll
    options: Options
    #: A hazard to draw this turn, and counted (one the title ignores past its limit is not).
    hazard: bool
    #: In solo play, where to draw the hazard, in the rulebook's words (its fallback
    #: included); None otherwise. The status screen says the same line, translated:
    #: :meth:`Title.reading` puts :attr:`Title.solo_placement` in a solo hazard's words.
    reminder: str | None
    #: The game after this roll.
    state: GameState


@dataclass(frozen=True)
class GameState:
    """Where a game stands: the rounds played, the hazards marked, the last roll.

    A value: :meth:`play` returns a new state and leaves this one as it was.
    """

    title: Title
    mode: Mode = Mode.TABLE
    #: Rolls played so far; the round of the last roll (0 before the first).
    rounds: int = 0
    #: Hazards marked: all of them, or up to the title's :attr:`~Title.hazard_limit`.
    hazards: int = 0
    last_roll: Roll | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.title, Title):
            raise TypeError(f"title: expected a Title (find_title(name)), got {self.title!r}")
        object.__setattr__(self, "mode", Mode.from_str(str(self.mode)))
        if self.rounds < 0:
            raise ValueError(f"rounds: expected 0 or more, got {self.rounds}")
        _check_hazards(self.title, self.hazards)

    @property
    def round_limit(self) -> int | None:
        """The last round of the game, when the rules set one: a solo game's
        :attr:`~Title.solo_rounds`."""
        return self.title.solo_rounds if self.mode is Mode.SOLO else None

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
        return self.title.options(roll, self.hazards)

    def play(self, roll: Roll) -> Turn:
        """Fold ``roll`` in as the next round; :class:`GameOver` once the rules ended it."""
        if self.over:
            raise GameOver(
                f"the solo game of {self.title.name} is over after"
                f" {self.round_limit} rounds: enter the score or start a new game"
            )
        options = self.options(roll)
        hazard = options.hazard
        after = replace(
            self, rounds=self.rounds + 1, hazards=self.hazards + int(hazard), last_roll=roll
        )
        reminder = self.title.solo_placement if hazard and self.mode is Mode.SOLO else None
        return Turn(after.rounds, roll, options, hazard, reminder, after)

    def level(self, score: int) -> LevelResult:
        """The level ``score`` earns with the hazards of this game."""
        return level(self.title, score, self.hazards)
