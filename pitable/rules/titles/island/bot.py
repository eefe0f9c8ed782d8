"""The bot of Skull Island: one number (or a boat) a turn, treasures, at most five dangers.

Each turn it writes the number and space that bring treasures closest (a treasure lies
between a pair of its number in its column, one above and one below, and between a pair in
its row, one on each side; a boat in the sea stands in for one end of each pair), weighing
each value by its stars and how often a roll gives it, and against the dangers around; a
boat is drawn instead when it does more. A danger goes beside a 9 where it can, else beside
a small number. Every danger beside a 9 is crossed out as soon as it can be, and a treasure
is claimed as soon as its four numbers stand.
"""

from __future__ import annotations

from pitable.errors import IllegalMove
from pitable.rules.base import N_, Options, Title
from pitable.rules.bot.model import Act, Action, Player, TitleBot
from pitable.rules.bot.planner import Strength
from pitable.rules.dice import all_rolls
from pitable.rules.sheets import Cell, Kind, Sheet
from pitable.rules.titles.island import MOUNTAIN, NAVIGATION, SEA
from pitable.rules.titles.island.moves import BOAT, TREASURE

NINE = 9
TREASURES = 5
HIGHEST = 15
STANDING, CROSSED = 1, 2
#: A treasure spot's worth when a danger stands on it (its treasure would be worthless).
ON_DANGER = 0.2
#: A danger beside no number yet: what it is expected to cost.
UNKNOWN_DANGER = 3.0
#: Where another player may draw a skull on this sheet at a table.
SKULL_GOES = N_("a skull goes on an empty island space")


def _reach(title: Title) -> list[float]:
    """How often a roll without a hazard lets a space take each value, 0 to 15."""
    counts = [0] * (HIGHEST + 1)
    rolls = 0
    for roll in all_rolls():
        options = title.options(roll)
        if options.hazard:
            continue
        rolls += 1
        for v in options.numbers:
            counts[v] += 1
    return [c / rolls for c in counts]


_WEIGHTS: dict[str, list[float]] = {}


def _weights(title: Title) -> list[float]:
    """Each value's pull: its stars, times how often a roll gives it (squared root, so that
    the rare big numbers still count)."""
    found = _WEIGHTS.get(title.key)
    if found is None:
        found = _WEIGHTS[title.key] = [v * r**0.5 for v, r in enumerate(_reach(title))]
    return found


def _pair(before: bool, after: bool, boat_before: bool, boat_after: bool) -> float:
    """How far one line is from a pair of a value around a spot, given whether the value
    (and a boat) stands before the spot and after it: 2 done, 1 or 0 not; a boat stands in
    for one end of it, and alone is a start."""
    if (before and (after or boat_after)) or (after and boat_before):
        return 2.0
    if before or after:
        return 1.0
    return 0.4 if boat_before or boat_after else 0.0


#: Around a treasure spot, for one value: how far its row and its column are from a pair,
#: and each line's sides (the value before the spot, after it, a boat before, after).
Lines = tuple[float, float, tuple[bool, bool, bool, bool], tuple[bool, bool, bool, bool]]


class IslandPlayer(Player):
    fixed = Player.fixed | {"weights", "rows", "cols", "spots", "row_spots", "col_spots"}

    def __init__(self, title: Title, sheet: Sheet) -> None:
        super().__init__(title, sheet)
        grid = self.grid
        size, width = grid.size, grid.width
        self.weights = _weights(title)
        self.num = [0] * size
        self.boat = [False] * size
        self.danger = [0] * size
        self.treasure = [0] * size
        self.found: set[int] = set()
        self.rows = [i // width for i in range(size)]
        self.cols = [i % width for i in range(size)]
        # Where each value (and each boat) stands in each row and column, a bit a position
        # (a column's bit in a row, a row's bit in a column): which side of a spot it is on
        # is a mask and a shift.
        self.row_numbers = [[0] * grid.height for _ in range(HIGHEST + 1)]
        self.col_numbers = [[0] * width for _ in range(HIGHEST + 1)]
        self.row_boats = [0] * grid.height
        self.col_boats = [0] * width
        kinds = grid.kinds
        self.spots = [i for i, k in enumerate(kinds) if k in (Kind.SPACE, MOUNTAIN)]
        self.row_spots: list[list[int]] = [[] for _ in range(grid.height)]
        self.col_spots: list[list[int]] = [[] for _ in range(width)]
        for i in self.spots:
            self.row_spots[self.rows[i]].append(i)
            self.col_spots[self.cols[i]].append(i)
        self.empty_spaces = {i for i, k in enumerate(kinds) if k is Kind.SPACE}
        self.empty_sea = {i for i, k in enumerate(kinds) if k is SEA}
        #: Numbers and boats beside each position: a number goes beside one.
        self.anchors = [0] * size
        self.written = False

    # --- a turn ---------------------------------------------------------------------

    def turn(self, options: Options, round_: int) -> list[Action]:
        cell = self.grid.cell
        actions: list[Action] = []
        if options.hazard:
            i = self._danger_space()
            self.danger[i] = STANDING
            self.empty_spaces.discard(i)
            self.hazards += 1
            self.last_filled = []
            actions.append(Action(Act.HAZARD, (cell(i),)))
        elif self.empty_spaces or (options.green is NAVIGATION and self.empty_sea):
            score, value, i = self._best_write(options.numbers)
            if options.green is NAVIGATION and self.empty_sea:
                boat_score, sea = self._best_boat()
                if boat_score > score:
                    self._draw_boat(sea)
                    actions.append(Action(BOAT, (cell(sea),)))
                    i = -1
            if i >= 0:
                self._write(i, value)
                actions.append(Action(Act.WRITE, (cell(i),), value))
        for i in range(self.grid.size):
            if self.danger[i] == STANDING and any(self.num[n] == NINE for n in self.grid.around[i]):
                self.danger[i] = CROSSED
                actions.append(Action(Act.CROSS, (cell(i),)))
        claim = self._treasure()
        if claim is not None:
            value, i = claim
            self.treasure[i] = value
            self.found.add(value)
            actions.append(Action(TREASURE, (cell(i),), value))
        return actions

    def take_hazard(self, cell: Cell) -> None:
        # The rulebook (001): at a table the skull goes "in any empty island space of your
        # choice (it does not need to be adjacent to anything else)", and marks a bubble;
        # after all 5 are marked, further dangers are ignored.
        self.title.check_hazards_marked(self.hazards + 1)
        i = self.grid.index(cell) if self.grid.holds(cell) else -1
        if i not in self.empty_spaces:
            raise IllegalMove(SKULL_GOES)
        self.danger[i] = STANDING
        self.empty_spaces.discard(i)
        self.hazards += 1
        self.last_filled = []

    def over(self) -> bool:
        return len(self.found) == TREASURES or not self.empty_spaces

    def _write(self, i: int, value: int) -> None:
        self.num[i] = value
        self.empty_spaces.discard(i)
        self.row_numbers[value][self.rows[i]] |= 1 << self.cols[i]
        self.col_numbers[value][self.cols[i]] |= 1 << self.rows[i]
        for n in self.grid.around[i]:
            self.anchors[n] += 1
        self.written = True
        self.last_filled = [i]

    def _draw_boat(self, i: int) -> None:
        self.boat[i] = True
        self.empty_sea.discard(i)
        self.row_boats[self.rows[i]] |= 1 << self.cols[i]
        self.col_boats[self.cols[i]] |= 1 << self.rows[i]
        for n in self.grid.around[i]:
            self.anchors[n] += 1
        self.last_filled = [i]

    # --- choosing ---------------------------------------------------------------------

    def _legal_spaces(self) -> list[int]:
        """Where a number may go: the first on the coast, the others beside a number or a
        boat, anywhere when no such space is empty."""
        empty = self.empty_spaces
        if not self.written:
            coast = sorted(self.grid.starts & empty)
            if coast:
                return coast
        near = sorted(i for i in empty if self.anchors[i])
        return near or sorted(empty)

    def _lines(self, v: int, t: int) -> Lines:
        """Where ``v`` and the boats stand around the spot ``t``: how far its row and its
        column are from a pair of ``v`` around it, and each line's sides."""
        r, c = self.rows[t], self.cols[t]
        numbers, boats, left = self.row_numbers[v][r], self.row_boats[r], (1 << c) - 1
        across = (bool(numbers & left), bool(numbers >> (c + 1)),
                  bool(boats & left), bool(boats >> (c + 1)))
        numbers, boats, above = self.col_numbers[v][c], self.col_boats[c], (1 << r) - 1
        down = (bool(numbers & above), bool(numbers >> (r + 1)),
                bool(boats & above), bool(boats >> (r + 1)))
        return _pair(*across), _pair(*down), across, down

    def _progress(self, t: int, v: int) -> float:
        """How near the spot ``t`` is to the treasure of ``v``: 4 when it lies between a
        pair in its row and a pair in its column."""
        across, down, _, _ = self._lines(v, t)
        return across + down

    def _spot_worth(self, t: int) -> float:
        if self.treasure[t]:
            return 0.0
        return ON_DANGER if self.danger[t] == STANDING else 1.0

    def _line_gains(self, v: int, index: int, across: bool,
                    known: dict[tuple[int, int], Lines]) -> list[tuple[int, float, float]]:
        """What one more ``v`` in a line (row ``index`` if ``across``, else column
        ``index``) does for each treasure spot of it, by the side it is written on: (the
        spot's position in the line, the gain written before it, the gain written after
        it). ``known`` keeps :meth:`_lines` while the sheet does not change."""
        weight = self.weights[v] / 16
        if across:
            numbers, boats = self.row_numbers[v][index], self.row_boats[index]
            spots, place = self.row_spots[index], self.cols
        else:
            numbers, boats = self.col_numbers[v][index], self.col_boats[index]
            spots, place = self.col_spots[index], self.rows
        gains = []
        for t in spots:
            worth = self._spot_worth(t)
            if not worth:
                continue
            here = place[t]
            below = (1 << here) - 1
            number_before, number_after = bool(numbers & below), bool(numbers >> (here + 1))
            if number_before and number_after:
                continue
            boat_before, boat_after = bool(boats & below), bool(boats >> (here + 1))
            lines = known.get((v, t))
            if lines is None:
                lines = known[(v, t)] = self._lines(v, t)
            row_pair, col_pair, _, _ = lines
            line, other = (row_pair, col_pair) if across else (col_pair, row_pair)
            before = line + other
            # The value written before the spot (where it may already stand), then after.
            after = _pair(True, number_after, boat_before, boat_after) + other
            gain_before = (after * after - before * before) * weight * worth
            if after >= 4 and after != before:
                gain_before += v * worth
            after = _pair(number_before, True, boat_before, boat_after) + other
            gain_after = (after * after - before * before) * weight * worth
            if after >= 4 and after != before:
                gain_after += v * worth
            gains.append((here, gain_before, gain_after))
        return gains

    def _best_write(self, numbers: tuple[int, ...]) -> tuple[float, int, int]:
        spaces = self._legal_spaces()
        if not spaces:
            return -1e9, 0, -1
        spots: dict[tuple[int, int, bool], list[tuple[int, float, float]]] = {}
        known: dict[tuple[int, int], Lines] = {}

        def line(v: int, index: int, across: bool, at: int) -> tuple[float, float]:
            """What ``v`` written at position ``at`` of the line does for its other spots:
            the most for one, and the sum (the space written is no spot for its own
            number's treasure)."""
            gains = spots.get((v, index, across))
            if gains is None:
                gains = spots[(v, index, across)] = self._line_gains(v, index, across, known)
            top = total = 0.0
            for here, before, after in gains:
                if here != at:
                    gain = before if at < here else after
                    total += gain
                    top = max(top, gain)
            return top, total

        ranked: list[tuple[float, tuple[int, int]]] = []
        for i in spaces:
            r, c = self.rows[i], self.cols[i]
            dangers = [n for n in self.grid.around[i] if self.danger[n]]
            for v in numbers:
                score = 0.0
                if v not in self.found:
                    top = 0.0
                    for most, total in (line(v, r, True, c), line(v, c, False, r)):
                        top = max(top, most)
                        score += 0.2 * total
                    score += top
                for d in dangers:
                    score += self._danger_change(d, v)
                ranked.append((score, (v, i)))
        value, space = self._choose(ranked)
        return next(s for s, choice in ranked if choice == (value, space)), value, space

    def _danger_change(self, d: int, v: int) -> float:
        """What writing ``v`` beside the danger at ``d`` changes in its stars."""
        near = [self.num[n] for n in self.grid.around[d] if self.num[n]]
        smallest = min(near, default=0)
        after = min(v, smallest) if near else v
        if self.danger[d] == CROSSED:
            return float(after - smallest)
        if v == NINE:
            # Crossed out at once: the loss turns into a gain, and a treasure on it counts.
            return float(smallest + after + self.treasure[d])
        return float(smallest - after)

    def _best_boat(self) -> tuple[float, int]:
        best = (-1e9, -1)
        written = self._written_values()
        known: dict[tuple[int, int], Lines] = {}
        for s in sorted(self.empty_sea):
            r, c = self.rows[s], self.cols[s]
            score = 0.0
            for v in range(1, HIGHEST + 1):
                # A boat alone is no pair: only values already written gain from one.
                if v in self.found or v not in written:
                    continue
                weight = self.weights[v]
                top = 0.0
                for spots, across, at in ((self.row_spots[r], True, c),
                                          (self.col_spots[c], False, r)):
                    place = self.cols if across else self.rows
                    for t in spots:
                        worth = self._spot_worth(t)
                        if not worth:
                            continue
                        lines = known.get((v, t))
                        if lines is None:
                            lines = known[(v, t)] = self._lines(v, t)
                        row_pair, col_pair, row_sides, col_sides = lines
                        number_before, number_after, boat_before, boat_after = (
                            row_sides if across else col_sides)
                        # A boat on a side that has one already adds nothing there.
                        if at < place[t]:
                            if boat_before:
                                continue
                            line = _pair(number_before, number_after, True, boat_after)
                        else:
                            if boat_after:
                                continue
                            line = _pair(number_before, number_after, boat_before, True)
                        old = row_pair if across else col_pair
                        if line == old:
                            continue
                        before = row_pair + col_pair
                        after = before - old + line
                        gain = (after * after - before * before) / 16 * weight * worth
                        if after >= 4:
                            gain += v * worth
                        top = max(top, gain)
                score += top
            if score > best[0]:
                best = (score, s)
        return best

    def _written_values(self) -> set[int]:
        return {v for v in range(1, HIGHEST + 1) if any(self.row_numbers[v])}

    def _danger_space(self) -> int:
        """Where the danger goes: beside last turn's space if an island space there is
        empty (the solo rule), else on any empty island space; among those, beside a 9 (it
        is crossed out at once), else beside the smallest number."""
        around = self.grid.around
        near = sorted({n for i in self.last_filled for n in around[i]} & self.empty_spaces)
        candidates = near or sorted(self.empty_spaces)

        def stars(i: int) -> float:
            numbers = [self.num[n] for n in around[i] if self.num[n]]
            spot = max((self._progress(i, v) for v in range(1, HIGHEST + 1)
                        if v not in self.found), default=0.0)
            if NINE in numbers:
                return min(numbers) - spot
            if numbers:
                return -min(numbers) - spot
            free = any(n in self.empty_spaces for n in around[i])
            return (-UNKNOWN_DANGER if free else 0.0) - spot

        return max(candidates, key=stars)

    def _treasure(self) -> tuple[int, int] | None:
        """The most valuable treasure whose four numbers stand, on a spot where it counts."""
        for v in range(HIGHEST, 0, -1):
            # Four numbers, or two and a boat in each line: at least two of them written.
            if v in self.found or sum(m.bit_count() for m in self.row_numbers[v]) < 2:
                continue
            for t in self.spots:
                if (not self.treasure[t] and self.danger[t] != STANDING
                        and self._progress(t, v) >= 4):
                    return v, t
        return None

    #: What the nearest treasure of each value still to find is worth at a planner's
    #: look-ahead's end, as a share of its stars times its progress squared (4: found).
    outlook_share = 1.5

    def outlook(self) -> float:
        if not self.outlook_share:
            return 0.0
        worth = 0.0
        spots = [t for t in self.spots if not self.treasure[t] and self.danger[t] != STANDING]
        for v in range(1, HIGHEST + 1):
            if v in self.found or not any(self.row_numbers[v]):
                continue
            best = max((self._progress(t, v) for t in spots), default=0.0)
            worth += v * (best / 4) ** 2
        return self.outlook_share * worth

    # --- the end ----------------------------------------------------------------------

    def components(self) -> tuple[tuple[str, int], ...]:
        treasures = sum(
            v for i, v in enumerate(self.treasure) if v and self.danger[i] != STANDING
        )
        dangers = 0
        for i, d in enumerate(self.danger):
            if d:
                smallest = min((self.num[n] for n in self.grid.around[i] if self.num[n]),
                               default=0)
                dangers += smallest if d == CROSSED else -smallest
        return (("Treasures", treasures), ("Dangers", dangers))

    def tokens(self) -> tuple[tuple[str, ...], ...]:
        out = []
        for i, kind in enumerate(self.grid.kinds):
            if kind is SEA:
                token = "B" if self.boat[i] else "~"
            elif kind is MOUNTAIN:
                token = "^"
            elif kind is Kind.SPACE:
                if self.num[i]:
                    token = str(self.num[i])
                else:
                    token = {0: "_", STANDING: "X", CROSSED: "x"}[self.danger[i]]
            else:
                token = "#"
            if self.treasure[i]:
                token += f"/T{self.treasure[i]}"
            out.append(token)
        w = self.grid.width
        return tuple(tuple(out[r * w:(r + 1) * w]) for r in range(self.grid.height))


#: What each planning strength means on the Island. It ends when its sheet does, so a short
#: look ahead rewards the treasures made soon; a game played on for a few turns is also worth
#: the treasures it is nearing (``Player.outlook``).
PLANS = {"plan": Strength(4, 3, 3), "deep": Strength(6, 8, 8)}

#: How the bot plays this title (``Title.bot``).
BOT = TitleBot(IslandPlayer, PLANS)
