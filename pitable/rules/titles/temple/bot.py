"""The bot of the Temple of Apikhabou: one number a turn, in a Door on a Lockpick.

Each turn it writes the number and space that do most for the longest sequence (a path of
adjacent numbers rising by one) and for groups of three identical numbers, and a 9 beside a
mummy; a mummy goes where a 9 stands or can still go, away from its numbers. Every mummy
beside a 9 is crossed out as soon as it can be.
"""

from __future__ import annotations

from pitable.errors import IllegalMove
from pitable.rules.base import N_, Options, Title
from pitable.rules.bot.model import Act, Action, Player, TitleBot
from pitable.rules.bot.planner import Strength
from pitable.rules.sheets import Cell, Kind, Sheet
from pitable.rules.titles.temple import DOOR, LOCKPICK

#: Stars of a group of three identical numbers, and what half of one (two) is worth.
GROUP_DONE, GROUP_HALF = 3.0, 1.2
#: Each space the longest sequence grows by, and each space of a shorter one.
SEQUENCE_GROWTH, SEQUENCE_PART = 1.0, 0.3
#: A mummy turned from -2 to +2 by a 9 beside it.
MUMMY_SWING = 4.0
NINE = 9
#: A group counts from three identical numbers, for 3 stars.
GROUP, GROUP_STARS = 3, 3
STANDING, CROSSED = 1, 2
#: Where another player may draw a mummy on this sheet at a table.
MUMMY_GOES = N_("a mummy goes in an empty doorless space")


class TemplePlayer(Player):
    def __init__(self, title: Title, sheet: Sheet) -> None:
        super().__init__(title, sheet)
        kinds = self.grid.kinds
        self.num = [0] * self.grid.size
        self.mummy = [0] * self.grid.size
        self.empty_spaces = {i for i, k in enumerate(kinds) if k is Kind.SPACE}
        self.empty_doors = {i for i, k in enumerate(kinds) if k is DOOR}
        self.numbered: list[int] = []

    # --- a turn ---------------------------------------------------------------------

    def turn(self, options: Options, round_: int) -> list[Action]:
        cell = self.grid.cell
        actions: list[Action] = []
        if options.hazard:
            i = self._mummy_space()
            self.mummy[i] = STANDING
            self.empty_spaces.discard(i)
            self.hazards += 1
            self.last_filled = []
            actions.append(Action(Act.HAZARD, (cell(i),)))
        else:
            lockpick = options.green is LOCKPICK and bool(self.empty_doors)
            targets = self.empty_doors if lockpick else self.empty_spaces
            value, i = self._best_write(targets, options.numbers)
            self.num[i] = value
            targets.discard(i)
            self.numbered.append(i)
            self.last_filled = [i]
            actions.append(Action(Act.WRITE, (cell(i),), value))
        for i in range(self.grid.size):
            if self.mummy[i] == STANDING and any(self.num[n] == NINE for n in self.grid.around[i]):
                self.mummy[i] = CROSSED
                actions.append(Action(Act.CROSS, (cell(i),)))
        return actions

    def take_hazard(self, cell: Cell) -> None:
        # The rulebook (002): at a table the mummy goes "in a doorless space of your
        # choice", an empty one (it makes the space unusable), beside anything or not.
        i = self.grid.index(cell) if self.grid.holds(cell) else -1
        if i not in self.empty_spaces:
            raise IllegalMove(MUMMY_GOES)
        self.mummy[i] = STANDING
        self.empty_spaces.discard(i)
        self.hazards += 1
        self.last_filled = []

    def over(self) -> bool:
        return not self.empty_spaces

    # --- choosing ---------------------------------------------------------------------

    def _paths(self) -> tuple[list[int], list[int]]:
        """For each space, the longest rising path of adjacent numbers ending there, and the
        longest starting there (0 where no number is)."""
        num, around = self.num, self.grid.around
        up = [0] * self.grid.size
        down = [0] * self.grid.size
        ordered = sorted(self.numbered, key=num.__getitem__)
        for i in ordered:
            v = num[i]
            up[i] = 1 + max((up[n] for n in around[i] if num[n] == v - 1), default=0)
        for i in reversed(ordered):
            v = num[i]
            down[i] = 1 + max((down[n] for n in around[i] if num[n] == v + 1), default=0)
        return up, down

    def _groups(self) -> tuple[list[int], list[int], set[int]]:
        """Each numbered space's group of identical adjacent numbers (an id and its size
        by id), and the values that already have a group of three."""
        num = self.num
        ids = [-1] * self.grid.size
        sizes: list[int] = []
        done: set[int] = set()
        for start in self.numbered:
            if ids[start] >= 0:
                continue

            def same(n: int, value: int = num[start]) -> bool:
                return num[n] == value

            size = self.grid.label(start, ids, len(sizes), same)
            sizes.append(size)
            if size >= GROUP:
                done.add(num[start])
        return ids, sizes, done

    def _best_write(self, targets: set[int], numbers: tuple[int, ...]) -> tuple[int, int]:
        num, around, mummy = self.num, self.grid.around, self.mummy
        up, down = self._paths()
        ids, sizes, grouped = self._groups()
        longest = max(up, default=0)
        allowed = set(numbers)
        ranked: list[tuple[float, tuple[int, int]]] = []
        for i in sorted(targets):
            ups: dict[int, int] = {}
            downs: dict[int, int] = {}
            same: dict[int, set[int]] = {}
            empties = 0
            mummies = 0
            for n in around[i]:
                u = num[n]
                if u:
                    if up[n] > ups.get(u + 1, 0):
                        ups[u + 1] = up[n]
                    if down[n] > downs.get(u - 1, 0):
                        downs[u - 1] = down[n]
                    same.setdefault(u, set()).add(ids[n])
                elif mummy[n] == STANDING:
                    mummies += 1
                elif n in self.empty_spaces or n in self.empty_doors:
                    empties += 1
            room = 0.05 * empties
            for v in allowed:
                length = 1 + ups.get(v, 0) + downs.get(v, 0)
                score = room + SEQUENCE_PART * (length - 1)
                if length > longest:
                    score += SEQUENCE_GROWTH * (length - longest)
                if v not in grouped and v in same:
                    size = 1 + sum(sizes[g] for g in same[v])
                    score += GROUP_DONE if size >= GROUP else GROUP_HALF
                if v == NINE:
                    score += MUMMY_SWING * mummies
                # Between equals, a middle value keeps most sequences open.
                score -= 0.01 * abs(v - 8)
                ranked.append((score, (v, i)))
        return self._choose(ranked)

    def _mummy_space(self) -> int:
        """Where the mummy goes: beside last turn's space if one is free (the solo rule),
        else anywhere doorless; among those, beside a 9, else where a 9 can still go and
        fewest numbers are blocked."""
        around = self.grid.around
        near = sorted({n for i in self.last_filled for n in around[i]} & self.empty_spaces)
        candidates = near or sorted(self.empty_spaces)

        def harm(i: int) -> float:
            if any(self.num[n] == NINE for n in around[i]):
                return -10.0
            free = sum(1 for n in around[i] if n in self.empty_spaces or n in self.empty_doors)
            numbers = sum(1 for n in around[i] if self.num[n])
            return numbers * 0.5 - (2.0 if free else 0.0)

        return min(candidates, key=harm)

    # --- the end ----------------------------------------------------------------------

    def components(self) -> tuple[tuple[str, int], ...]:
        up, _ = self._paths()
        _, _, grouped = self._groups()
        mummies = sum(2 if m == CROSSED else -2 for m in self.mummy if m)
        return (
            ("Sequence", max(up, default=0)),
            ("Groups", GROUP_STARS * len(grouped)),
            ("Mummies", mummies),
        )

    def tokens(self) -> tuple[tuple[str, ...], ...]:
        out = []
        for i, kind in enumerate(self.grid.kinds):
            if kind is DOOR:
                out.append(f"D{self.num[i]}" if self.num[i] else "D")
            elif kind is Kind.SPACE:
                if self.num[i]:
                    out.append(str(self.num[i]))
                else:
                    out.append({0: "_", STANDING: "X", CROSSED: "x"}[self.mummy[i]])
            else:
                out.append("#")
        w = self.grid.width
        return tuple(tuple(out[r * w:(r + 1) * w]) for r in range(self.grid.height))


#: What each planning strength means in the Temple. It ends when its sheet does, so a short
#: look ahead rewards the sequences made soon.
PLANS = {"plan": Strength(4, 4, 8), "deep": Strength(8, 8, 10)}

#: How the bot plays this title (``Title.bot``).
BOT = TitleBot(TemplePlayer, PLANS)
