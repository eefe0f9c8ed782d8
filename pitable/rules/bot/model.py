"""What a bot's game is made of: the moves of each turn, the finished game, and the grid
every title's player keeps. Pure Python, standard library only.

A move is an :class:`Action`: a number written, a hazard drawn or crossed out, or a move a
title's package defines for itself (a picture drawn in a space, something revealed or found
on the sheet). A turn is its roll and its actions in the order they were made; a game is
its map and its turns. The validator
(:mod:`pitable.rules.validate`) replays exactly this, with rules of its own.
"""

from __future__ import annotations

import abc
import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypeVar

from pitable.rules.base import Options, Title
from pitable.rules.dice import Roll
from pitable.rules.sheets import Cell, Kind, Sheet

if TYPE_CHECKING:
    from pitable.rules.bot.planner import Strength

T = TypeVar("T")


@dataclass(frozen=True)
class Act:
    """What one action does: those of every title (:attr:`WRITE`, :attr:`HAZARD`,
    :attr:`CROSS`), or one a title's package defines for its own moves. Each is one value,
    compared with ``is``; a copy or an unpickled one is that value again."""

    #: Its word in a move log: ``"write"``.
    value: str
    #: It fills an empty space (a number, a hazard, a picture drawn): what a title's reveal
    #: of a turn comes after.
    fills: bool = False

    #: A number in a space.
    WRITE: ClassVar[Act]
    #: A hazard drawn in a space.
    HAZARD: ClassVar[Act]
    #: A hazard crossed out (with a 9, as the title's rules say).
    CROSS: ClassVar[Act]

    def __post_init__(self) -> None:
        if _ACTS.setdefault(self.value, self) != self:
            raise ValueError(f"act {self.value!r}: the word is taken")

    def __reduce__(self) -> tuple[Callable[[str], Act], tuple[str]]:
        return (_act, (self.value,))

    @classmethod
    def named(cls, word: str) -> Act:
        """The act whose word is ``word`` (a move log's, a stored move's); KeyError if
        none is registered."""
        return _ACTS[word]

    def __repr__(self) -> str:
        return f"Act({self.value!r}, fills={self.fills})"


#: Every act by its word.
_ACTS: dict[str, Act] = {}


def _act(word: str) -> Act:
    """The act of ``word``: what a copied or unpickled one is."""
    return _ACTS[word]


Act.WRITE = Act("write", fills=True)
Act.HAZARD = Act("hazard", fills=True)
Act.CROSS = Act("cross")


@dataclass(frozen=True)
class Action:
    """One move: what it does, where, and its value (a number, or a title's letter or value
    for its own moves); a move that takes several cells names them all."""

    act: Act
    cells: tuple[Cell, ...]
    value: int | str | None = None

    @property
    def cell(self) -> Cell:
        return self.cells[0]

    def __str__(self) -> str:
        where = " ".join(f"{r + 1},{c + 1}" for r, c in self.cells)
        value = "" if self.value is None else f" {self.value}"
        return f"{self.act.value}{value} at {where}"


@dataclass(frozen=True)
class TurnRecord:
    """One roll and the actions a player made with it, in order."""

    roll: Roll
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class Game:
    """A finished solo game: its map, its turns, its sheet as text and its score."""

    title: Title
    sheet: Sheet
    turns: tuple[TurnRecord, ...]
    #: The finished sheet, one token a position, in ``pitable score``'s format.
    tokens: tuple[tuple[str, ...], ...]
    #: Each score component by name, as the bot counted it.
    components: tuple[tuple[str, int], ...]
    #: Hazards placed during the game (a title's levels may depend on them).
    hazards: int

    @property
    def total(self) -> int:
        return sum(stars for _, stars in self.components)

    def sheet_text(self) -> str:
        """The finished sheet in the format ``pitable score`` reads."""
        return tokens_text(self.tokens)


def tokens_text(tokens: tuple[tuple[str, ...], ...]) -> str:
    """A sheet's tokens, one per position, as ``pitable score`` reads them: a row a line,
    the columns lined up."""
    width = max(len(t) for row in tokens for t in row)
    return "".join(" ".join(t.ljust(width) for t in row).rstrip() + "\n" for row in tokens)


class Grid:
    """A map as flat lists, for speed: cell ``i`` is row ``i // width``, column
    ``i % width``; ``around[i]`` lists the cells adjacent to it (the 8 neighbours)."""

    def __init__(self, sheet: Sheet) -> None:
        self.width = sheet.grid_width
        self.height = sheet.grid_height
        self.size = self.width * self.height
        self.kinds: list[Kind] = [k for row in sheet.grid for k in row]
        self.around: list[tuple[int, ...]] = [
            tuple(
                (r + dr) * self.width + c + dc
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < self.height and 0 <= c + dc < self.width
            )
            for r in range(self.height)
            for c in range(self.width)
        ]
        self.starts = frozenset(self.index(c) for c in sheet.starts)

    def index(self, cell: Cell) -> int:
        return cell[0] * self.width + cell[1]

    def holds(self, cell: Cell) -> bool:
        """``cell`` is a position of the map's grid."""
        r, c = cell
        return 0 <= r < self.height and 0 <= c < self.width

    def label(self, start: int, ids: list[int], gid: int, joins: Callable[[int], bool]) -> int:
        """Mark ``start``'s group with ``gid`` in ``ids`` (-1: in no group yet): every cell
        reached through adjacent cells for which ``joins`` holds; returns the group's size."""
        ids[start] = gid
        todo = [start]
        size = 0
        while todo:
            i = todo.pop()
            size += 1
            for n in self.around[i]:
                if ids[n] < 0 and joins(n):
                    ids[n] = gid
                    todo.append(n)
        return size

    def cell(self, i: int) -> Cell:
        return divmod(i, self.width)


class Player(abc.ABC):
    """One solo game in progress on one map: each title's bot is a subclass."""

    def __init__(self, title: Title, sheet: Sheet) -> None:
        self.title = title
        self.sheet = sheet
        self.grid = Grid(sheet)
        #: Hazards drawn so far.
        self.hazards = 0
        #: The cells written or drawn in the last turn: where a solo hazard goes next.
        self.last_filled: list[int] = []
        #: Which of the ranked choices the next turn takes: 0, the best by the player's own
        #: reckoning; a planner tries the others.
        self.pick = 0
        #: How many choices the last turn ranked.
        self.choices = 0

    def _choose(self, ranked: list[tuple[float, T]]) -> T:
        """The choice :attr:`pick` names among ``ranked`` (score, choice) pairs: the best
        score first, ties in the order given; the best when ``pick`` is out of range."""
        self.choices = len(ranked)
        if self.pick == 0 or len(ranked) < 2:
            best = ranked[0]
            for pair in ranked:
                if pair[0] > best[0]:
                    best = pair
            return best[1]
        order = sorted(ranked, key=lambda pair: -pair[0])
        return order[min(self.pick, len(order) - 1)][1]

    def clone(self) -> Player:
        """A copy of the game in progress that plays on without changing this one: the
        map and what never changes are shared, the rest is copied."""
        twin = copy.copy(self)
        fixed = self.fixed
        for name, value in self.__dict__.items():
            if name in fixed:
                continue
            if isinstance(value, list):
                if value and isinstance(value[0], list):
                    setattr(twin, name, [list(row) for row in value])
                else:
                    setattr(twin, name, list(value))
            elif isinstance(value, (dict, set)):
                setattr(twin, name, value.copy())
        return twin

    #: Attributes a clone shares: they never change during a game.
    fixed: frozenset[str] = frozenset({"title", "sheet", "grid"})

    @abc.abstractmethod
    def turn(self, options: Options, round_: int) -> list[Action]:
        """Play one roll (its options already worked out) as round ``round_`` (from 1)."""

    @abc.abstractmethod
    def take_hazard(self, cell: Cell) -> None:
        """Take in the hazard another player drew on this sheet at ``cell`` (row, column):
        at a table a hazard roll sends every sheet to another player, who draws the hazard
        on any space the title's rules allow for it (not only where the solo rule would put
        it), then hands the sheet back.

        The player's state changes as its own drawing of a hazard would change it (the
        hazards drawn, the space taken), so that :meth:`tokens` shows the hazard and
        :meth:`components` counts it. A hazard that a 9 already beside it could cross out
        stays standing: crossing it out is a move of the player's next turn.

        Raises :class:`~pitable.errors.IllegalMove` (its rule a message of the catalogues)
        for a cell where the rules put no hazard, and
        :class:`~pitable.errors.BadDangerCount` for a sheet that holds as many hazards as
        its title allows.
        """

    @abc.abstractmethod
    def over(self) -> bool:
        """The sheet has ended the game (full, or whatever else the title's rules say)."""

    @abc.abstractmethod
    def components(self) -> tuple[tuple[str, int], ...]:
        """Each score component, counted from the player's own state."""

    def outlook(self) -> float:
        """Stars the sheet is on its way to beyond those it has: what a planner's game
        played on for a few turns only is worth more than its stars. None by default."""
        return 0.0

    @abc.abstractmethod
    def tokens(self) -> tuple[tuple[str, ...], ...]:
        """The finished sheet, one token a position."""


@dataclass(frozen=True)
class TitleBot:
    """How the bot plays one title (``Title.bot`` gives it): the title's own greedy player,
    the player the planner weighs and plays on with (the greedy one where it has none of
    its own), and what each planning strength means in it (choices weighed, games played
    on for each, turns looked ahead), set by benchmarks/bench_bot.py's figures."""

    player: Callable[[Title, Sheet], Player]
    plans: Mapping[str, Strength]
    planning_player: Callable[[Title, Sheet], Player] | None = None

    def player_at(self, title: Title, sheet: Sheet, strength: str) -> Player:
        """A fresh player of ``title`` on ``sheet`` for ``strength``."""
        if strength != "greedy" and self.planning_player is not None:
            return self.planning_player(title, sheet)
        return self.player(title, sheet)
