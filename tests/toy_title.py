"""A fourth title, made up for the tests: what a new title is, written outside pitable/.

The Toy Cupboard: one space a turn, spiders for hazards, a green face of its own (the
wind-up key: the number goes in any shelf space, a jack-in-the-box included), six solo
rounds, levels at 5, 10 and 20 stars less 1 per spider, and a small rectangular sheet whose
first number goes on the top row, with two jack-in-the-box spaces of its own (``J`` on a
text map; ``J7`` holding 7 on a finished sheet). Nothing in pitable/ names it: registering
:class:`ToyCupboard` (``register`` as a decorator, or ``registered`` for a while, as the
tests do so that the three real titles are alone again after them) is all it takes. Its
pictures (the wind-up key, the spider and the jack-in-the-box) are drawn by
tests/toy_pictures.py, registered apart from the title, as the rules import no drawing.

:class:`PlayedToyCupboard` is the same cupboard with a bot player and replay rules of its
own (:func:`toy_bot`, :func:`toy_rules`), reached only through ``Title.bot`` and
``Title.replay_rules``, the way a title's package brings them, and a score: a star a
number, two more for a jack-in-the-box holding one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pitable.rules.base import ENGLISH, N_, PENNY, GreenEffect, Options, Title, Translator
from pitable.rules.sheets import (
    MAP_FORMAT,
    Cell,
    Kind,
    Mark,
    Pcg32,
    Sheet,
    Side,
    Tally,
    grid_of,
)

if TYPE_CHECKING:
    from pitable.rules.bot.model import Action, Player, TitleBot
    from pitable.rules.scoring import FinishedSheet, Score
    from pitable.rules.validate import Replay, ReplayRules

#: The sheet's grid: 4 to 7 columns by 3 to 5 rows, every position a space, two of them
#: jack-in-the-box spaces.
COLUMNS = range(4, 8)
ROWS = range(3, 6)
BOXES = 2
#: Stars a jack-in-the-box holding a number is worth, beside its star as a space.
BOX_STARS = 2
#: A jack-in-the-box space: a number goes there only with the wind-up key, never a spider.
JACK = Kind("JACK", "J", fillable=True, words="a jack-in-the-box (J)",
            picture="jack-in-the-box",
            no_hazard="a jack-in-the-box holds a number, never a spider",
            hazard_goes="a plain shelf space")
#: The cupboard's green face: wind the key, and the number goes in any shelf space, a
#: jack-in-the-box included. Its picture is a wind-up key, which tests/toy_pictures.py
#: draws.
WIND_UP = GreenEffect("wind-up", picture="wind-up key", allows="wind-up key", chip="WIND")


class ToyCupboard(Title):
    """The Toy Cupboard: one space a turn, spiders, Doors opened by the green face."""

    key = "toy"
    name = "The Toy Cupboard"
    short_name = "Toys"
    aliases = ("toy-cupboard", "cupboard")
    hazard_name = "spider"
    hazard_symbol = "spider"
    green_effect = WIND_UP
    kinds = (JACK,)

    solo_rounds = 6
    level_thresholds = (5, 10, 20)
    discount_per_hazard = 1
    solo_placement = "Put the spider on the top shelf, next to last turn's toy."

    def hazard_lines(self, options: Options, solo: bool, *,
                     tr: Translator = ENGLISH) -> tuple[str, ...]:
        where = "on the top shelf" if solo else "on your neighbour's sheet"
        return ("Ignore the other dice.", f"Draw a spider {where}.")

    def play_headline(self, options: Options, *, tr: Translator = ENGLISH) -> str:
        return "Wind up: any space" if options.green is WIND_UP else "Fill 1 shelf space"

    def play_lines(self, options: Options, *, tr: Translator = ENGLISH) -> tuple[str, ...]:
        lines = [self.numbers_line(options)]
        if options.penny:
            lines.append(f"Penny Papers: any number {PENNY}.")
        return tuple(lines)

    def generate_sheet(self, side: Side, seed: int, version: int = MAP_FORMAT) -> Sheet:
        rng = Pcg32.for_sheet(self.key, side.value, seed, "shape", version)
        width = rng.between(COLUMNS.start, COLUMNS.stop - 1)
        height = rng.between(ROWS.start, ROWS.stop - 1)
        spaces = [(r, c) for r in range(height) for c in range(width)]
        kinds = dict.fromkeys(spaces, Kind.SPACE)
        below_top = [cell for cell in spaces if cell[0] > 0]
        boxes: set[tuple[int, int]] = set()
        while len(boxes) < BOXES:
            boxes.add(rng.pick(below_top))
        kinds.update(dict.fromkeys(boxes, JACK))
        return Sheet(
            title=self,
            side=side,
            seed=seed,
            version=version,
            grid=grid_of(width, height, kinds),
            starts=frozenset((0, c) for c in range(width)),
            clouds=frozenset(),
            tallies=(Tally("Spiders", 6, Mark.BUBBLE),),
            score_boxes=("Shelves", "Boxes", "Total"),
            reminders=(
                "Green (wind-up key): any space, a jack-in-the-box too",
                "Purple (Penny Papers): any number 1-15",
                "Red (spider): ignore the dice; draw a spider",
            ),
        )

    def check_sheet(self, sheet: Sheet) -> str | None:
        if sheet.grid_width not in COLUMNS or sheet.grid_height not in ROWS:
            return f"a cupboard {sheet.grid_width} by {sheet.grid_height}, expected 4-7 by 3-5"
        if any(k not in (Kind.SPACE, JACK) for row in sheet.grid for k in row):
            return "a cupboard with a hole in it"
        if len(sheet.cells(JACK)) != BOXES:
            return f"{len(sheet.cells(JACK))} jack-in-the-boxes, expected {BOXES}"
        if sheet.starts != {(0, c) for c in range(sheet.grid_width)}:
            return "the first number must go on the top shelf"
        return None


def toy_bot() -> TitleBot:
    """How the bot plays the cupboard: :func:`toy_player` at every strength."""
    from pitable.rules.bot.model import TitleBot
    from pitable.rules.bot.planner import Strength

    return TitleBot(toy_player, {"plan": Strength(2, 2), "deep": Strength(2, 4)})


def toy_player(title: Title, sheet: Sheet) -> Player:
    """A player of the cupboard: the largest number in the first empty space (a
    jack-in-the-box on the green face while one is empty), a spider in the first empty space."""
    from pitable.errors import IllegalMove
    from pitable.rules.bot.model import Act, Action, Player

    class ToyPlayer(Player):
        def __init__(self, title: Title, sheet: Sheet) -> None:
            super().__init__(title, sheet)
            self.numbers: dict[Cell, int] = {}
            self.spiders: set[Cell] = set()

        def free(self, kind: Kind) -> list[Cell]:
            return [c for c in sorted(self.sheet.cells(kind))
                    if c not in self.numbers and c not in self.spiders]

        def turn(self, options: Options, round_: int) -> list[Action]:
            self.choices = 1
            boxes = self.free(JACK) if options.green is WIND_UP else []
            where = boxes or self.free(Kind.SPACE)
            if not where:
                return []
            if options.hazard:
                self.spiders.add(where[0])
                self.hazards += 1
                return [Action(Act.HAZARD, (where[0],))]
            self.numbers[where[0]] = max(options.numbers)
            return [Action(Act.WRITE, (where[0],), max(options.numbers))]

        def take_hazard(self, cell: Cell) -> None:
            if cell not in self.free(Kind.SPACE):
                raise IllegalMove("a spider goes on an empty shelf space")
            self.spiders.add(cell)
            self.hazards += 1

        def over(self) -> bool:
            return not self.free(Kind.SPACE)

        def components(self) -> tuple[tuple[str, int], ...]:
            boxes = sum(1 for cell in self.numbers if self.sheet.kind(cell) is JACK)
            return (("Shelves", len(self.numbers)), ("Boxes", BOX_STARS * boxes))

        def tokens(self) -> tuple[tuple[str, ...], ...]:
            # A jack-in-the-box is typed by its letter, holding its number or not (J7, J).
            def token(cell: Cell) -> str:
                box = JACK.value if self.sheet.kind(cell) is JACK else ""
                if cell in self.numbers:
                    return f"{box}{self.numbers[cell]}"
                return "X" if cell in self.spiders else box or "_"

            return tuple(tuple(token((r, c)) for c in range(self.sheet.grid_width))
                         for r in range(self.sheet.grid_height))

    return ToyPlayer(title, sheet)


def toy_rules() -> ReplayRules:
    """The cupboard's placement rules for the replay: a number the roll gives, in an empty
    space; a spider on an empty space; a space filled each turn while one is empty."""
    from pitable.rules.bot.model import Act
    from pitable.rules.validate import ReplayRules

    def turn(replay: Replay, options: Options, actions: Sequence[Action]) -> None:
        for a in actions:
            if not replay.empty(a.cell):
                replay.breach(a, N_("not an empty space"))
            elif a.act is Act.HAZARD and options.hazard:
                replay.mark[a.cell] = "X"
                replay.hazards += 1
            elif a.act is Act.WRITE and not options.hazard:
                if a.value not in options.numbers:
                    replay.breach(a, N_("the roll does not give this number"))
                replay.number[a.cell] = int(a.value) if isinstance(a.value, int) else 0
            else:
                replay.breach(a, N_("not a move of this roll"))
        if not actions and replay.empties(Kind.SPACE):
            replay.breach(None, N_("a turn fills a space"), short=True)

    return ReplayRules(turn, writes_apart=True)


class PlayedToyCupboard(ToyCupboard):
    """The Toy Cupboard with a bot player, replay rules and a score of its own."""

    key = "played-toy"
    name = "The Played Toy Cupboard"
    aliases = ("played-cupboard", "toy-bot")

    def bot(self) -> TitleBot:
        return toy_bot()

    def replay_rules(self) -> ReplayRules:
        return toy_rules()

    def score(self, sheet: FinishedSheet) -> Score:
        """A star a number, and :data:`BOX_STARS` more for each jack-in-the-box holding one."""
        from pitable.rules.scoring import Score, Token, require

        require(sheet, self.name, (Token.NONE, Token.EMPTY, Token.NUMBER, Token.of(JACK),
                                   Token.HAZARD, Token.CROSSED), "")
        numbers = [space for _, space in sheet.cells() if space.number is not None]
        boxes = sum(1 for space in numbers if space.token is Token.of(JACK))
        spiders = sum(1 for _, s in sheet.cells() if s.token in (Token.HAZARD, Token.CROSSED))
        return Score(self.key, (("Shelves", len(numbers)), ("Boxes", BOX_STARS * boxes)),
                     spiders)
