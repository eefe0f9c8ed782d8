"""A bot that plays full solo games of every title on any map, with seeded dice.

Pure Python, standard library only. Each title's player (one module here per title) makes
its moves by the rulebook's placement rules and chooses among them by a greedy heuristic
of its own: each turn it scores every legal way to use the roll by what the numbers do for
the discoveries, treasures, sequences and groups around them and against the hazards, and
makes the best. What a roll allows comes from the rules engine (``Title.options``).

>>> from pitable.rules.sheets import generate
>>> from pitable.rules.titles import Temple
>>> games = play_games(generate(Temple.key, 7), 3, dice_seed=1)
>>> [g.title.key for g in games] == [Temple.key] * 3
True
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from pitable.errors import UnknownTitle
from pitable.rules.base import Options, Title
from pitable.rules.bot.island import IslandPlayer
from pitable.rules.bot.model import Act, Action, Game, Player, TurnRecord
from pitable.rules.bot.temple import TemplePlayer
from pitable.rules.bot.valley import ValleyPlayer
from pitable.rules.dice import Roll, all_rolls
from pitable.rules.session import LEVELS, level
from pitable.rules.sheets import Sheet, Side, generate
from pitable.rules.titles import Island, Temple, Valley, as_title

#: Each title's player, by the title's class.
PLAYERS: dict[type[Title], Callable[[Title, Sheet], Player]] = {
    Valley: ValleyPlayer,
    Island: IslandPlayer,
    Temple: TemplePlayer,
}
#: The 216 rolls, drawn by index.
ROLLS: tuple[Roll, ...] = tuple(all_rolls())
#: No game of the series lasts this long (the Temple's 56 spaces with every roll a
#: hazard); a player that stopped filling would be stopped here instead of looping.
MAX_TURNS = 500
#: Games the target to beat is the median of: enough that it moves by a star or two at most
#: between dice seeds, few enough to work out while a sheet is printed.
TARGET_GAMES = 21


def player_for(title: Title, sheet: Sheet) -> Player:
    """A fresh player of ``title`` on ``sheet``; :class:`UnknownTitle` for a title the bot
    does not play."""
    maker = PLAYERS.get(type(title))
    if maker is None:
        known = ", ".join(t.key for t in (Valley, Island, Temple))
        raise UnknownTitle(f"the bot plays {known}, not {title.key}")
    return maker(title, sheet)


class _OptionsCache:
    """``title.options`` for every roll and hazard count a game meets, worked out once."""

    def __init__(self, title: Title) -> None:
        self.title = title
        self.known: dict[tuple[int, int], Options] = {}

    def __call__(self, index: int, hazards: int) -> Options:
        limit = self.title.hazard_limit
        # Beyond its limit a title ignores the hazard: the options do not change.
        key = (index, hazards if limit is None else min(hazards, limit))
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = self.title.options(ROLLS[index], key[1])
        return found


_CACHES: dict[str, _OptionsCache] = {}


def _options_of(title: Title) -> _OptionsCache:
    cache = _CACHES.get(title.key)
    if cache is None or cache.title is not title:
        cache = _CACHES[title.key] = _OptionsCache(title)
    return cache


def play(sheet: Sheet, rng: random.Random) -> Game:
    """One full solo game on ``sheet`` with dice drawn from ``rng``."""
    title = sheet.title
    player = player_for(title, sheet)
    options_of = _options_of(title)
    limit = title.solo_rounds or MAX_TURNS
    turns: list[TurnRecord] = []
    while len(turns) < limit and not player.over():
        # random() is the one method whose sequence Python promises to keep for a seed,
        # so the same dice seed plays the same game on every version.
        index = int(rng.random() * len(ROLLS))
        options = options_of(index, player.hazards)
        actions = player.turn(options, len(turns) + 1)
        turns.append(TurnRecord(ROLLS[index], tuple(actions)))
    return Game(title, sheet, tuple(turns), player.tokens(), player.components(),
                player.hazards)


def game_rng(dice_seed: int, game: int) -> random.Random:
    """The dice of game number ``game`` (from 0) of a run with ``dice_seed``: the same on
    every map, so that maps are compared on the same rolls."""
    return random.Random(dice_seed * 1_000_003 + game)


def play_games(sheet: Sheet, games: int, dice_seed: int = 0) -> list[Game]:
    """``games`` solo games on ``sheet``, the dice of each from :func:`game_rng`."""
    return [play(sheet, game_rng(dice_seed, n)) for n in range(games)]


@dataclass(frozen=True)
class Summary:
    """The scores of a run of games: their mean, spread and range, and the levels reached."""

    title: Title
    games: int
    mean: float
    stdev: float
    lowest: int
    highest: int
    median: float
    #: How many games reached each level, Tourist to Explorer.
    levels: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, object]:
        return {
            "games": self.games,
            "mean": round(self.mean, 2),
            "stdev": round(self.stdev, 2),
            "lowest": self.lowest,
            "highest": self.highest,
            "median": self.median,
            "levels": dict(self.levels),
        }


def summarise(games: list[Game]) -> Summary:
    """The :class:`Summary` of ``games`` (at least one, all of one title)."""
    totals = [g.total for g in games]
    reached = Counter(level(g.title, g.total, g.hazards).name for g in games)
    return Summary(
        title=games[0].title,
        games=len(games),
        mean=statistics.fmean(totals),
        stdev=statistics.pstdev(totals) if len(totals) > 1 else 0.0,
        lowest=min(totals),
        highest=max(totals),
        median=statistics.median(totals),
        levels=tuple((name, reached.get(name, 0)) for name in LEVELS),
    )


def target(title: Title | str, side: Side | str, seed: int, games: int = TARGET_GAMES,
           dice_seed: int = 0) -> int:
    """The bot's median score on the map of ``title``, ``side`` and ``seed``: a target to
    beat, printed on a solo sheet. The same map always gives the same target."""
    sheet = generate(as_title(title), seed, side)
    return int(statistics.median_low(g.total for g in play_games(sheet, games, dice_seed)))


__all__ = [
    "PLAYERS",
    "Act",
    "Action",
    "Game",
    "Summary",
    "TurnRecord",
    "game_rng",
    "play",
    "play_games",
    "player_for",
    "summarise",
    "target",
]
