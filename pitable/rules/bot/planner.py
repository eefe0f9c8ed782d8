"""A player that plans: it weighs each turn's best few choices by playing the game on.

The title's own player ranks the ways to use a roll (``Player.pick`` and ``Player.choices``);
the planner takes the best :attr:`Strength.width` of them, and for each plays the rest of
the game :attr:`Strength.rollouts` times on a copy of the sheet with the title's own player
choosing (Monte Carlo rollouts, the greedy player as the rollout policy), and keeps the
choice whose games end with most stars (a game stopped a few turns ahead counts, beyond
its stars, those its player's ``outlook`` says it is on its way to). Every choice is tried
on the same dice (common random numbers), drawn from a generator seeded by the round, so a
game is the same for a dice seed. Pure Python, standard library only.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from pitable.rules.base import Options
from pitable.rules.bot.model import Action, Player
from pitable.rules.sheets import Cell

#: Rollout dice seeds: round r's n-th game plays on the dice of seed r * ROUND_DICE + n.
ROUND_DICE = 7919


@dataclass(frozen=True)
class Strength:
    """How hard the planner thinks: choices weighed a turn, games played on for each, and
    how many turns each looks ahead at most (0: to the end of the game)."""

    width: int
    rollouts: int
    horizon: int = 0


class Planner:
    """Plays a title's player's game (``inner``, whose state it is), choosing each turn's
    move by rollouts: ``options_of(index, hazards)`` tells what roll number ``index`` of
    ``rolls`` allows, and a game lasts ``limit`` turns at most."""

    def __init__(self, inner: Player, strength: Strength,
                 options_of: Callable[[int, int], Options], rolls: int, limit: int) -> None:
        self.inner = inner
        self.strength = strength
        self.options_of = options_of
        self.rolls = rolls
        self.limit = limit

    @property
    def hazards(self) -> int:
        return self.inner.hazards

    def over(self) -> bool:
        return self.inner.over()

    def take_hazard(self, cell: Cell) -> None:
        """A hazard another player drew on the sheet (:meth:`Player.take_hazard`)."""
        self.inner.take_hazard(cell)

    def components(self) -> tuple[tuple[str, int], ...]:
        return self.inner.components()

    def tokens(self) -> tuple[tuple[str, ...], ...]:
        return self.inner.tokens()

    def turn(self, options: Options, round_: int) -> list[Action]:
        """Play one roll as round ``round_``: the inner player's choice whose games played
        on end best (the first of equals, so the greedy choice wins a tie)."""
        inner = self.inner
        if self.strength.width < 2:
            return inner.turn(options, round_)
        probe = inner.clone()
        probe.pick = 0
        probe.turn(options, round_)
        width = min(self.strength.width, probe.choices)
        if width < 2:
            return inner.turn(options, round_)
        best = (-1e9, 0)
        for pick in range(width):
            twin = inner.clone()
            twin.pick = pick
            twin.turn(options, round_)
            twin.pick = 0
            worth = 0.0
            for n in range(self.strength.rollouts):
                worth += self._rollout(twin.clone(), round_, n)
            if worth > best[0]:
                best = (worth, pick)
        inner.pick = best[1]
        try:
            return inner.turn(options, round_)
        finally:
            inner.pick = 0

    def _rollout(self, player: Player, round_: int, n: int) -> float:
        """The stars of a game played on from ``player`` after round ``round_`` by its own
        choices, on the ``n``-th dice of that round (the same for every choice weighed)."""
        rng = random.Random(round_ * ROUND_DICE + n)
        turns = round_
        stop = self.limit
        if self.strength.horizon:
            stop = min(stop, round_ + self.strength.horizon)
        while turns < stop and not player.over():
            index = int(rng.random() * self.rolls)
            turns += 1
            player.turn(self.options_of(index, player.hazards), turns)
        stars = float(sum(stars for _, stars in player.components()))
        if turns < self.limit and not player.over():
            stars += player.outlook()
        return stars
