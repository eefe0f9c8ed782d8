"""A bot that plays full solo games of every title on any map, with seeded dice.

Pure Python, standard library only. Each title's player (one module here per title) makes
its moves by the rulebook's placement rules and ranks them by a greedy heuristic of its
own: each turn it scores every legal way to use the roll by what the numbers do for the
discoveries, treasures, sequences and groups around them and against the hazards. At the
``greedy`` strength it makes the best of them; at the planning strengths
(:mod:`pitable.rules.bot.planner`) the best few are weighed by playing the game on. What a
roll allows comes from the rules engine (``Title.options``).

>>> from pitable.rules.sheets import generate
>>> from pitable.rules.titles import Temple
>>> games = play_games(generate(Temple.key, 7), 3, dice_seed=1)
>>> [g.title.key for g in games] == [Temple.key] * 3
True
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from pitable.errors import BadStrength, UnknownTitle
from pitable.rules.base import Options, Title
from pitable.rules.bot.island import IslandPlayer
from pitable.rules.bot.model import Act, Action, Game, Player, TurnRecord
from pitable.rules.bot.planner import Planner, Strength
from pitable.rules.bot.temple import TemplePlayer
from pitable.rules.bot.valley import PlanningValleyPlayer, ValleyPlayer
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
#: The player a planning strength weighs and plays on with, where a title has one of its
#: own (an evaluation set from self-play); the others plan with their greedy player.
PLANNING_PLAYERS: dict[type[Title], Callable[[Title, Sheet], Player]] = {
    Valley: PlanningValleyPlayer,
}
#: The 216 rolls, drawn by index.
ROLLS: tuple[Roll, ...] = tuple(all_rolls())
#: No game of the series lasts this long (the Temple's 56 spaces with every roll a
#: hazard); a player that stopped filling would be stopped here instead of looping.
MAX_TURNS = 500
#: The strength a solo sheet's target is played at: the greedy player's, because the target
#: is worked out while the sheet prints, 21 games in a few hundred milliseconds, where the
#: planner would take tens of seconds here and minutes on a Pi Zero 2 W.
TARGET_STRENGTH = "greedy"
#: Games the target to beat is the median of: enough that it moves by a star or two at most
#: between dice seeds, few enough to work out while a sheet is printed.
TARGET_GAMES = 21


#: The strengths, weakest and fastest first: the greedy player alone, then the planner.
STRENGTHS: tuple[str, ...] = ("greedy", "plan", "deep")
#: The strength ``pitable bot`` plays at: on this project's desktop machine, at most 100 ms
#: a turn (benchmarks/bench_bot.py), so that a Pi Zero 2 W answers within about a second.
DEFAULT_STRENGTH = "plan"
#: What each planning strength means in each title (choices weighed, games played on for
#: each, turns looked ahead; 0: to the end), set by benchmarks/bench_bot.py's figures. The
#: Island and the Temple end when their sheet does, so a short look ahead rewards the
#: treasures and sequences made soon; on the Island a game played on for a few turns is
#: also worth the treasures it is nearing (``Player.outlook``). The Valley's stars come at
#: the end of its 25 rounds, and a few games played on from each choice only blur its
#: player's own ranking: its ``plan`` weighs nothing and plays its planning evaluation
#: (:data:`PLANNING_PLAYERS`).
PLANS: dict[type[Title], dict[str, Strength]] = {
    Valley: {"plan": Strength(1, 0), "deep": Strength(5, 8)},
    Island: {"plan": Strength(4, 3, 3), "deep": Strength(6, 8, 8)},
    Temple: {"plan": Strength(4, 4, 8), "deep": Strength(8, 8, 10)},
}


def strength_of(text: str) -> str:
    """``text`` as a strength's name; :class:`BadStrength` naming the known ones."""
    name = text.strip().lower()
    if name not in STRENGTHS:
        raise BadStrength(f"strength: expected one of {', '.join(STRENGTHS)}, got {text!r}")
    return name


def player_for(title: Title, sheet: Sheet, strength: str = "greedy") -> Player:
    """A fresh player of ``title`` on ``sheet`` choosing as it does at ``strength``;
    :class:`UnknownTitle` for a title the bot does not play."""
    maker = PLAYERS.get(type(title))
    if strength != "greedy":
        maker = PLANNING_PLAYERS.get(type(title), maker)
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


def play(sheet: Sheet, rng: random.Random, strength: str = DEFAULT_STRENGTH, *,
         turn_times: list[float] | None = None) -> Game:
    """One full solo game on ``sheet`` with dice drawn from ``rng``, the bot playing at
    ``strength`` (one of :data:`STRENGTHS`); the CPU seconds of each turn's thinking are
    added to ``turn_times`` when one is given."""
    title = sheet.title
    strength = strength_of(strength)
    player = player_for(title, sheet, strength)
    options_of = _options_of(title)
    limit = title.solo_rounds or MAX_TURNS
    mover: Player | Planner = player
    if strength != "greedy":
        mover = Planner(player, PLANS[type(title)][strength], options_of, len(ROLLS), limit)
    turns: list[TurnRecord] = []
    while len(turns) < limit and not mover.over():
        # random() is the one method whose sequence Python promises to keep for a seed,
        # so the same dice seed plays the same game on every version.
        index = int(rng.random() * len(ROLLS))
        options = options_of(index, player.hazards)
        if turn_times is None:
            actions = mover.turn(options, len(turns) + 1)
        else:
            start = time.process_time()
            actions = mover.turn(options, len(turns) + 1)
            turn_times.append(time.process_time() - start)
        turns.append(TurnRecord(ROLLS[index], tuple(actions)))
    return Game(title, sheet, tuple(turns), player.tokens(), player.components(),
                player.hazards)


def game_rng(dice_seed: int, game: int) -> random.Random:
    """The dice of game number ``game`` (from 0) of a run with ``dice_seed``: the same on
    every map, so that maps are compared on the same rolls."""
    return random.Random(dice_seed * 1_000_003 + game)


def play_games(sheet: Sheet, games: int, dice_seed: int = 0,
               strength: str = DEFAULT_STRENGTH) -> list[Game]:
    """``games`` solo games on ``sheet``, the dice of each from :func:`game_rng`."""
    return [play(sheet, game_rng(dice_seed, n), strength) for n in range(games)]


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
           dice_seed: int = 0, *, strength: str = TARGET_STRENGTH) -> int:
    """The bot's median score on the map of ``title``, ``side`` and ``seed``: a target to
    beat, printed on a solo sheet. The same map always gives the same target."""
    sheet = generate(as_title(title), seed, side)
    totals = (g.total for g in play_games(sheet, games, dice_seed, strength))
    return int(statistics.median_low(totals))


__all__ = [
    "DEFAULT_STRENGTH",
    "PLANS",
    "PLAYERS",
    "STRENGTHS",
    "Act",
    "Action",
    "Game",
    "Summary",
    "TurnRecord",
    "game_rng",
    "play",
    "play_games",
    "player_for",
    "strength_of",
    "summarise",
    "target",
]
