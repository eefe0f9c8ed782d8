"""A bot that plays full solo games of every title on any map, with seeded dice.

Pure Python, standard library only. Each title's player (in the title's own package, found
through ``Title.bot``) makes its moves by the rulebook's placement rules and ranks them by a
greedy heuristic of its own: each turn it scores every legal way to use the roll by what the
numbers do for the discoveries, treasures, sequences and groups around them and against the
hazards. At the ``greedy`` strength it makes the best of them; at the planning strengths
(:mod:`pitable.rules.bot.planner`) the best few are weighed by playing the game on. What a
roll allows comes from the rules engine (``Title.options``).

>>> from pitable.rules.sheets import generate
>>> from pitable.rules.titles import all_titles
>>> title = all_titles()[-1]
>>> games = play_games(generate(title, 7), 3, dice_seed=1)
>>> [g.title for g in games] == [title] * 3
True
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass

from pitable.errors import BadStrength, UnknownTitle
from pitable.rules.base import Options, Title
from pitable.rules.bot.model import Act, Action, Game, Player, TitleBot, TurnRecord
from pitable.rules.bot.planner import Planner
from pitable.rules.dice import Roll, all_rolls
from pitable.rules.session import LEVELS, level
from pitable.rules.sheets import Sheet, Side, generate
from pitable.rules.titles import all_titles, as_title

#: The 216 rolls, drawn by index.
ROLLS: tuple[Roll, ...] = tuple(all_rolls())
#: No game of the series lasts this long (the longest sheet, 56 spaces, with every roll a
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


def strength_of(text: str) -> str:
    """``text`` as a strength's name; :class:`BadStrength` naming the known ones."""
    name = text.strip().lower()
    if name not in STRENGTHS:
        raise BadStrength(f"strength: expected one of {', '.join(STRENGTHS)}, got {text!r}")
    return name


def player_for(title: Title, sheet: Sheet, strength: str = "greedy") -> Player:
    """A fresh player of ``title`` on ``sheet`` choosing as it does at ``strength``;
    :class:`UnknownTitle` for a title the bot does not play."""
    return bot_of(title).player_at(title, sheet, strength)


def bot_of(title: Title) -> TitleBot:
    """How the bot plays ``title`` (its ``Title.bot``); :class:`UnknownTitle`, naming the
    titles it plays, for a title that has no bot player of its own."""
    bot = title.bot()
    if bot is None:
        known = ", ".join(t.key for t in all_titles() if t.bot() is not None)
        raise UnknownTitle(f"{title.name} has no bot player: the bot plays {known}")
    return bot


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


def options_cache(title: Title) -> _OptionsCache:
    """What each roll of :data:`ROLLS` allows in ``title`` for a count of hazards marked,
    worked out once and kept (a planner asks it at every turn of every game it plays on)."""
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
    bot = bot_of(title)
    player = bot.player_at(title, sheet, strength)
    options_of = options_cache(title)
    limit = title.solo_rounds or MAX_TURNS
    mover: Player | Planner = player
    if strength != "greedy":
        mover = Planner(player, bot.plans[strength], options_of, len(ROLLS), limit)
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


def solo_target(sheet: Sheet) -> int | None:
    """The stars to beat on a solo sheet of ``sheet``'s map: :func:`target`; None for a
    title the bot does not play, whose solo sheet keeps its levels and has no target."""
    if sheet.title.bot() is None:
        return None
    return target(sheet.title, sheet.side, sheet.seed)


__all__ = [
    "DEFAULT_STRENGTH",
    "STRENGTHS",
    "Act",
    "Action",
    "Game",
    "Summary",
    "TitleBot",
    "TurnRecord",
    "bot_of",
    "game_rng",
    "play",
    "play_games",
    "player_for",
    "solo_target",
    "strength_of",
    "summarise",
    "target",
]
