"""Games played on a player's sheet (:class:`~pitable.rules.phone.PlayerSheet`) for the
tests: a title's bot plays a solo game, each move checked as the phone offers it."""

from __future__ import annotations

import itertools
import random

from pitable.rules import Title
from pitable.rules.bot.model import Action
from pitable.rules.dice import Roll
from pitable.rules.phone import PlayerSheet
from pitable.rules.sheets import Side


def random_roll(rng: random.Random) -> Roll:
    """A roll of three faces drawn from ``rng``, the special face among them."""
    return Roll.from_str(",".join(str(rng.choice([1, 2, 3, 4, 5, "*"])) for _ in range(3)))


def bot_game(title: Title, seed: int) -> tuple[PlayerSheet, object, list[list[Action]]]:
    """The title's bot plays a solo game on a player's sheet, each move checked as it is
    offered: the sheet, the bot's player, and the legal moves before each move."""
    bot = title.bot()
    assert bot is not None
    sheet = title.generate_sheet(Side.A, seed)
    player = bot.player(title, sheet)
    phone = PlayerSheet(sheet, solo=True)
    rng = random.Random(seed)
    hazards = 0
    offered: list[list[Action]] = []
    for rnd in itertools.count(1):
        roll = random_roll(rng)
        options = title.options(roll, hazards)
        phone.start_turn(roll, hazards)
        for action in player.turn(options, rnd):
            legal = phone.legal()
            offered.append(legal)
            # A move over several spaces is offered with its spaces in reading order.
            assert Action(action.act, tuple(sorted(action.cells)), action.value) in legal, (
                f"round {rnd}: {action} not offered")
            phone.play(action)
            # What the sheet offers next, the last space of the map filled included.
            phone.legal()
        phone.finish_turn()
        hazards = min(hazards + options.hazard, title.hazard_limit or 10**6)
        if player.over() or (title.solo_rounds and rnd >= title.solo_rounds):
            break
    assert phone.over()
    phone.finish()
    return phone, player, offered
