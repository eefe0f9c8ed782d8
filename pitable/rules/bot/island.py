"""The bot of Skull Island: one number (or a boat) a turn, treasures, at most five dangers.

Each turn it writes the number and space that bring treasures closest (a treasure needs a
pair of its number in a column and a pair in a row; a boat in the sea stands in for one of
each pair), weighing each value by its stars and how often a roll gives it, and against the
dangers around; a boat is drawn instead when it does more. A danger goes beside a 9 where it
can, else beside a small number. Every danger beside a 9 is crossed out as soon as it can
be, and a treasure is claimed as soon as its four numbers stand.
"""

from __future__ import annotations

from pitable.rules.base import GreenEffect, Options, Title
from pitable.rules.bot.model import Act, Action, Player
from pitable.rules.dice import all_rolls
from pitable.rules.sheets import Kind, Sheet

NINE = 9
TREASURES = 5
HIGHEST = 15
STANDING, CROSSED = 1, 2
#: A treasure spot's worth when a danger stands on it (its treasure would be worthless).
ON_DANGER = 0.2
#: A danger beside no number yet: what it is expected to cost.
UNKNOWN_DANGER = 3.0


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


def _pair(numbers: int, boat: bool) -> float:
    """How far one line is from a pair of a value: 2 done, 1 or 0 not; a boat stands in
    for one number of it, and alone is a start."""
    if numbers >= 2 or (numbers == 1 and boat):
        return 2.0
    if numbers == 1:
        return 1.0
    return 0.4 if boat else 0.0


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
        self.row_numbers = [[0] * grid.height for _ in range(HIGHEST + 1)]
        self.col_numbers = [[0] * width for _ in range(HIGHEST + 1)]
        self.row_boats = [0] * grid.height
        self.col_boats = [0] * width
        kinds = grid.kinds
        self.spots = [i for i, k in enumerate(kinds) if k in (Kind.SPACE, Kind.MOUNTAIN)]
        self.row_spots: list[list[int]] = [[] for _ in range(grid.height)]
        self.col_spots: list[list[int]] = [[] for _ in range(width)]
        for i in self.spots:
            self.row_spots[self.rows[i]].append(i)
            self.col_spots[self.cols[i]].append(i)
        self.empty_spaces = {i for i, k in enumerate(kinds) if k is Kind.SPACE}
        self.empty_sea = {i for i, k in enumerate(kinds) if k is Kind.SEA}
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
        elif self.empty_spaces or (options.green is GreenEffect.BOAT and self.empty_sea):
            score, value, i = self._best_write(options.numbers)
            if options.green is GreenEffect.BOAT and self.empty_sea:
                boat_score, sea = self._best_boat()
                if boat_score > score:
                    self._draw_boat(sea)
                    actions.append(Action(Act.BOAT, (cell(sea),)))
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
            actions.append(Action(Act.TREASURE, (cell(i),), value))
        return actions

    def over(self) -> bool:
        return len(self.found) == TREASURES or not self.empty_spaces

    def _write(self, i: int, value: int) -> None:
        self.num[i] = value
        self.empty_spaces.discard(i)
        self.row_numbers[value][self.rows[i]] += 1
        self.col_numbers[value][self.cols[i]] += 1
        for n in self.grid.around[i]:
            self.anchors[n] += 1
        self.written = True
        self.last_filled = [i]

    def _draw_boat(self, i: int) -> None:
        self.boat[i] = True
        self.empty_sea.discard(i)
        self.row_boats[self.rows[i]] += 1
        self.col_boats[self.cols[i]] += 1
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

    def _progress(self, t: int, v: int, *, row_boat: int = 0, col_boat: int = 0) -> float:
        own = 1 if self.num[t] == v else 0
        r, c = self.rows[t], self.cols[t]
        across = _pair(self.row_numbers[v][r] - own, bool(self.row_boats[r] + row_boat))
        down = _pair(self.col_numbers[v][c] - own, bool(self.col_boats[c] + col_boat))
        return across + down

    def _spot_worth(self, t: int) -> float:
        if self.treasure[t]:
            return 0.0
        return ON_DANGER if self.danger[t] == STANDING else 1.0

    def _line_gains(self, v: int, spots: list[int], across: bool) -> list[tuple[float, int]]:
        """What one more ``v`` in a line (a row if ``across``) does for each treasure spot of
        it: (gain, spot), largest first."""
        weight = self.weights[v] / 16
        num, rows, cols = self.num, self.rows, self.cols
        row_numbers, col_numbers = self.row_numbers[v], self.col_numbers[v]
        row_boats, col_boats = self.row_boats, self.col_boats
        gains = []
        for t in spots:
            worth = self._spot_worth(t)
            if not worth:
                continue
            own = 1 if num[t] == v else 0
            r, c = rows[t], cols[t]
            line_n, line_b = (
                (row_numbers[r] - own, row_boats[r]) if across
                else (col_numbers[c] - own, col_boats[c])
            )
            other_n, other_b = (
                (col_numbers[c] - own, col_boats[c]) if across
                else (row_numbers[r] - own, row_boats[r])
            )
            other = _pair(other_n, bool(other_b))
            before = _pair(line_n, bool(line_b)) + other
            after = _pair(line_n + 1, bool(line_b)) + other
            if after == before:
                continue
            gain = (after * after - before * before) * weight * worth
            if after >= 4:
                gain += v * worth
            gains.append((gain, t))
        gains.sort(reverse=True)
        return gains

    def _best_write(self, numbers: tuple[int, ...]) -> tuple[float, int, int]:
        spaces = self._legal_spaces()
        if not spaces:
            return -1e9, 0, -1
        lines: dict[tuple[int, int, bool], tuple[list[tuple[float, int]], float]] = {}

        def line(v: int, index: int, across: bool) -> tuple[list[tuple[float, int]], float]:
            found = lines.get((v, index, across))
            if found is None:
                spots = self.row_spots[index] if across else self.col_spots[index]
                gains = self._line_gains(v, spots, across)
                found = lines[(v, index, across)] = (gains, sum(g for g, _ in gains))
            return found

        ranked: list[tuple[float, tuple[int, int]]] = []
        for i in spaces:
            r, c = self.rows[i], self.cols[i]
            dangers = [n for n in self.grid.around[i] if self.danger[n]]
            for v in numbers:
                score = 0.0
                if v not in self.found:
                    top = 0.0
                    for gains, total in (line(v, r, True), line(v, c, False)):
                        for gain, t in gains:
                            if t != i:
                                top = max(top, gain)
                                break
                        # The space written is no spot for its own number's treasure.
                        own = next((g for g, t in gains if t == i), 0.0)
                        score += 0.2 * (total - own)
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
        for s in sorted(self.empty_sea):
            r, c = self.rows[s], self.cols[s]
            new_row, new_col = not self.row_boats[r], not self.col_boats[c]
            if not (new_row or new_col):
                continue
            score = 0.0
            for v in range(1, HIGHEST + 1):
                # A boat alone is no pair: only values already written gain from one.
                if v in self.found or v not in written:
                    continue
                weight = self.weights[v]
                top = 0.0
                for spots, across, fresh in ((self.row_spots[r], True, new_row),
                                             (self.col_spots[c], False, new_col)):
                    if not fresh:
                        continue
                    for t in spots:
                        worth = self._spot_worth(t)
                        if not worth:
                            continue
                        before = self._progress(t, v)
                        after = (self._progress(t, v, row_boat=1) if across
                                 else self._progress(t, v, col_boat=1))
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
            if v in self.found or sum(self.row_numbers[v]) < 2:
                continue
            for t in self.spots:
                if (not self.treasure[t] and self.danger[t] != STANDING
                        and self._progress(t, v) >= 4):
                    return v, t
        return None

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
            if kind is Kind.SEA:
                token = "B" if self.boat[i] else "~"
            elif kind is Kind.MOUNTAIN:
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
