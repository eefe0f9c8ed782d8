"""The bot of the Valley of Wiraqocha: up to three spaces a turn, structures, snakes and
discoveries, 25 rounds.

Each turn it tries every play the roll allows: it places the play's numbers one at a time,
each where it does most (beside equal numbers for a town, among numbers of 6 or more for a
mountain range, of 10 or more for a pyramid, beside the mine, the statue or the hut that
counts them, never raising what a snake costs), leaves out a number that would only do
harm, and uses a 9 to cross out a snake when that saves more. It keeps the play that
scores best. A structure is drawn where most of its kind stands or can grow, once its
spot is good or the game is running out of rounds. After the fills it reveals the
discovery worth most with the structures beside it. A snake goes where it bites least.
"""

from __future__ import annotations

from collections.abc import Callable

from pitable.errors import IllegalMove
from pitable.rules.base import N_, PENNY, Options, Title
from pitable.rules.bot.model import Act, Action, Player, TitleBot
from pitable.rules.bot.planner import Strength
from pitable.rules.sheets import Cell, Kind, Sheet
from pitable.rules.titles.valley import BUILD
from pitable.rules.titles.valley import moves as valley_moves

EMPTY, NUMBER, STRUCTURE, SNAKE, CROSSED, NONE = range(6)
NINE = 9
#: Each discovery by its letter: its spaces and its stars.
DISCOVERIES = {"j": (5, 5), "t": (4, 6), "r": (3, 7), "p": (4, 15)}
#: Each structure's letter and the discovery whose spaces it counts, 2 stars each.
STRUCTURES = {"H": "j", "S": "t", "M": "r"}
STRUCTURE_STARS = 2
FULL_GRID = 7
#: Discoveries' least values.
RANGE_LOW, PYRAMID_LOW = 6, 10
#: What a number is worth to a jungle to be, for each other value free beside it.
JUNGLE_PULL = 0.3
#: What a space is worth kept empty for a better number: the valley has about as many
#: spaces as a game has numbers to write, and some discoveries take more stars a space.
SPACE_COST = 0.8
#: Numbers a round the space's cost assumes: it falls as the rounds left times this fall
#: short of the empty spaces (the game will end on its rounds, not on a full valley).
FILL_RATE = 2.0
#: What a group of free numbers of 6 or more is worth beyond its full ranges of three, with
#: one or two spaces over: a start on the next range.
RANGE_PARTS = (0.0, 1.5, 4.0)
#: A structure drawn once its spot is worth this much (2 stars a space of its kind).
STRUCTURE_READY = 4.0
#: The most steps one search for a jungle or a town takes.
SEARCH_BUDGET = 400
#: What a snake with an empty space beside it is taken to bite at least, when weighing
#: whether to cross it out: the numbers that may yet be written there.
OPEN_BITE = 6.0
#: Numbers Penny Papers is tried as beside any space: besides its neighbours' values.
PENNY_TRIES = (6, 10, 12)
#: Where another player may draw a snake on this sheet at a table.
SNAKE_GOES = N_("a snake goes in an empty space")


#: What a group of 0 to 3 equal free numbers is worth as a town to be.
TOWN_PARTS = (0.0, 0.4, 1.5, 3.0)


def _range_pot(size: int, parts: tuple[float, ...] = RANGE_PARTS) -> float:
    """What a group of ``size`` free numbers of 6 or more is worth as mountain ranges: 7
    stars each three, and a start on the next."""
    return 7.0 * (size // 3) + parts[size % 3]


def _town_pot(size: int, parts: tuple[float, ...] = TOWN_PARTS) -> float:
    """What a group of ``size`` equal free numbers is worth as a town (one a value)."""
    return 6.0 if size >= 4 else parts[size]


#: What a pyramid's four spaces are worth with 0 to 3 of them holding a free 10 or more
#: and the rest empty, as the fourth is written.
PYRAMID_PARTS = (1.0, 3.0, 6.0, 15.0)


def _pyramid_shapes(width: int, height: int, spaces: set[int]) -> list[list[tuple[int, ...]]]:
    """For each position, every pyramid of valley spaces it is part of: a base of three in
    a row or column and a fourth space beside the middle one, on either side."""
    shapes: list[list[tuple[int, ...]]] = [[] for _ in range(width * height)]
    for r in range(height):
        for c in range(width):
            for dr, dc in ((0, 1), (1, 0)):
                for sign in (1, -1):
                    cells = [(r - dr, c - dc), (r, c), (r + dr, c + dc),
                             (r + sign * dc, c + sign * dr)]
                    if not all(0 <= a < height and 0 <= b < width for a, b in cells):
                        continue
                    shape = tuple(a * width + b for a, b in cells)
                    if all(i in spaces for i in shape):
                        for i in shape:
                            shapes[i].append(shape)
    return shapes


class ValleyPlayer(Player):
    fixed = Player.fixed | {"shapes"}
    #: What an empty space is worth kept for a better number, and the numbers a round its
    #: cost assumes (:data:`SPACE_COST`, :data:`FILL_RATE`).
    space_worth = SPACE_COST
    fill_rate = FILL_RATE
    #: What a number is worth to a jungle to be (:data:`JUNGLE_PULL`).
    jungle_pull = JUNGLE_PULL
    #: What a pyramid's spaces are worth as its numbers are written (:data:`PYRAMID_PARTS`).
    pyramid_parts = PYRAMID_PARTS
    #: What a snake with empty spaces beside it is taken to bite at least (:data:`OPEN_BITE`).
    open_bite = OPEN_BITE
    #: What groups short of a range or a town are worth (:data:`RANGE_PARTS`,
    #: :data:`TOWN_PARTS`).
    range_parts = RANGE_PARTS
    town_parts = TOWN_PARTS
    #: What a number is worth beside the mine or statue that counts it, beside the hut.
    structure_pull = 1.5
    hut_pull = 0.5
    #: A structure's spot worth drawing it now (:data:`STRUCTURE_READY`).
    structure_ready = STRUCTURE_READY
    #: What a discovery gives up for each number in it of 10 or more (pyramid numbers,
    #: outside a pyramid) and of 6 or more (range numbers, in a jungle or a town).
    spent_high = (1.0, 0.5)

    def __init__(self, title: Title, sheet: Sheet) -> None:
        super().__init__(title, sheet)
        grid = self.grid
        size = grid.size
        self.rounds = title.solo_rounds or 25
        self.what = [EMPTY if k is Kind.SPACE else NONE for k in grid.kinds]
        self.num = [0] * size
        self.letter = [""] * size  # a structure's letter
        self.disc = [""] * size  # the letter of the discovery a space belongs to
        self.disc_n = [0] * size
        self.count = dict.fromkeys(DISCOVERIES, 0)
        self.towns: set[int] = set()
        self.structures: dict[str, int] = {}
        self.empty = {i for i in range(size) if self.what[i] == EMPTY}
        self.anchors = [0] * size
        self.filled = False
        self.round_ = 0
        self.space_cost = SPACE_COST
        self.shapes = _pyramid_shapes(grid.width, grid.height, self.empty)
        self._groups()

    # --- the state --------------------------------------------------------------------

    def _fill(self, i: int, what: int, value: int = 0, letter: str = "") -> None:
        self.what[i] = what
        self.num[i] = value
        self.letter[i] = letter
        self.empty.discard(i)
        for n in self.grid.around[i]:
            self.anchors[n] += 1

    def _unfill(self, i: int) -> None:
        self.what[i] = EMPTY
        self.num[i] = 0
        self.letter[i] = ""
        self.empty.add(i)
        for n in self.grid.around[i]:
            self.anchors[n] -= 1

    def _legal(self) -> list[int]:
        """Where the next space may be filled: the first beside a cloud, the others beside a
        number or structure, anywhere when no such space is empty."""
        empty = self.empty
        if not self.filled:
            starts = sorted(self.grid.starts & empty)
            if starts:
                return starts
        near = sorted(i for i in empty if self.anchors[i])
        return near or sorted(empty)

    def _snake_bite(self, s: int) -> int:
        return max((self.num[n] for n in self.grid.around[s]), default=0)

    # --- a turn ---------------------------------------------------------------------

    def turn(self, options: Options, round_: int) -> list[Action]:
        cell = self.grid.cell
        actions: list[Action] = []
        self.round_ = round_
        if options.hazard:
            if self.empty:
                i = self._snake_space()
                self.what[i] = SNAKE
                self.empty.discard(i)
                self.hazards += 1
                actions.append(Action(Act.HAZARD, (cell(i),)))
            self.last_filled = []
        else:
            filled: list[int] = []
            if options.green is BUILD and self.empty:
                chosen = self._structure(round_)
                if chosen is not None:
                    letter, i = chosen
                    self._fill(i, STRUCTURE, letter=letter)
                    self.structures[letter] = i
                    self.filled = True
                    filled.append(i)
                    actions.append(Action(valley_moves.STRUCTURE, (cell(i),), letter))
            for act, i, value in self._best_play(options.plays, need=not filled):
                if act is Act.CROSS:
                    self.what[i] = CROSSED
                    actions.append(Action(Act.CROSS, (cell(i),)))
                else:
                    self._fill(i, NUMBER, value)
                    self.filled = True
                    filled.append(i)
                    actions.append(Action(Act.WRITE, (cell(i),), value))
            self.last_filled = filled
        # A discovery follows the turn's spaces "(or crossed out a snake)" (000): a snake's
        # turn does neither, so the discovery waits for the next turn.
        found = None if options.hazard else self._discovery()
        if found is not None:
            letter, cells = found
            self.count[letter] += 1
            for i in cells:
                self.disc[i] = letter
                self.disc_n[i] = self.count[letter]
            if letter == "t":
                self.towns.add(self.num[cells[0]])
            actions.append(Action(valley_moves.DISCOVER, tuple(cell(i) for i in cells),
                                  letter))
        return actions

    def take_hazard(self, cell: Cell) -> None:
        # The rulebook (000): at a table the snake goes "in an empty space of your choice
        # (it does not need to be adjacent to anything else)".
        i = self.grid.index(cell) if self.grid.holds(cell) else -1
        if i not in self.empty:
            raise IllegalMove(SNAKE_GOES)
        self.what[i] = SNAKE
        self.empty.discard(i)
        self.hazards += 1
        self.last_filled = []

    def over(self) -> bool:
        return not self.empty

    # --- numbers ------------------------------------------------------------------------

    def _groups(self) -> None:
        """Group the free numbers (in no discovery yet) two ways: adjacent ones of 6 or
        more (mountain ranges to be), and adjacent equal ones (towns to be)."""
        num, what, disc = self.num, self.what, self.disc
        size = self.grid.size
        self.high_id = high_id = [-1] * size
        self.same_id = same_id = [-1] * size
        self.high_size: list[int] = []
        self.same_size: list[int] = []

        def free(n: int) -> bool:
            return what[n] == NUMBER and not disc[n]

        for start in range(size):
            if not free(start):
                continue
            v = num[start]
            if v >= RANGE_LOW and high_id[start] < 0:
                self.high_size.append(self.grid.label(
                    start, high_id, len(self.high_size),
                    lambda n: free(n) and num[n] >= RANGE_LOW))
            if same_id[start] < 0:

                def same(n: int, v: int = v) -> bool:
                    return free(n) and num[n] == v

                self.same_size.append(self.grid.label(start, same_id, len(self.same_size),
                                                      same))

    def _worth(self, v: int, i: int) -> float:
        """What writing ``v`` at ``i`` does for the discoveries around it (a range or a
        town nearer, whichever is more), and against the snakes beside it."""
        num, what, disc = self.num, self.what, self.disc
        high: set[int] = set()
        same: set[int] = set()
        distinct: set[int] = set()
        score = 0.0
        for n in self.grid.around[i]:
            w = what[n]
            if w == NUMBER:
                if disc[n]:
                    continue
                u = num[n]
                if u == v:
                    same.add(self.same_id[n])
                else:
                    distinct.add(u)
                if u >= RANGE_LOW and v >= RANGE_LOW:
                    high.add(self.high_id[n])
            elif w == SNAKE:
                bite = self._snake_bite(n)
                if v > bite:
                    score -= v - bite
            elif w == STRUCTURE:
                kind = STRUCTURES[self.letter[n]]
                if (kind == "r" and v >= RANGE_LOW) or (kind == "t" and same):
                    score += self.structure_pull
                elif kind == "j":
                    score += self.hut_pull
        ranged = 0.0
        if v >= RANGE_LOW:
            sizes = self.high_size
            ranges = self.range_parts
            ranged = _range_pot(1 + sum(sizes[g] for g in high), ranges) - sum(
                _range_pot(sizes[g], ranges) for g in high
            )
        town = 0.0
        if v not in self.towns:
            sizes = self.same_size
            towns = self.town_parts
            town = _town_pot(1 + sum(sizes[g] for g in same), towns) - sum(
                _town_pot(sizes[g], towns) for g in same
            )
        pyramid = 0.0
        if v >= PYRAMID_LOW:
            for shape in self.shapes[i]:
                held = 0
                for n in shape:
                    if n == i:
                        continue
                    if what[n] == NUMBER and not disc[n] and num[n] >= PYRAMID_LOW:
                        held += 1
                    elif what[n] != EMPTY:
                        break
                else:
                    pyramid = max(pyramid, self.pyramid_parts[held])
        jungle = self.jungle_pull * min(len(distinct), 4)
        return score + max(ranged, town, pyramid, jungle) - self.space_cost

    def _best_number(self, item: int | str, spaces: list[int]) -> tuple[float, int, int]:
        """The best space for ``item`` (a number, or Penny Papers' choice) and its worth."""
        best = (-1e9, -1, 0)
        for i in spaces:
            if item == PENNY:
                tries = {self.num[n] for n in self.grid.around[i] if self.what[n] == NUMBER}
                tries.update(PENNY_TRIES)
                for v in tries:
                    score = self._worth(v, i)
                    if score > best[0]:
                        best = (score, i, v)
            else:
                assert isinstance(item, int)
                score = self._worth(item, i)
                if score > best[0]:
                    best = (score, i, item)
        return best

    def _cross_worth(self) -> tuple[float, int]:
        """The standing snake most worth crossing out, and what that saves."""
        best = (-1e9, -1)
        for s in range(self.grid.size):
            if self.what[s] != SNAKE:
                continue
            bite = float(self._snake_bite(s))
            if any(self.what[n] == EMPTY for n in self.grid.around[s]):
                bite = max(bite, self.open_bite)
            if bite > best[0]:
                best = (bite, s)
        return best

    def _best_play(
        self, plays: tuple[tuple[int | str, ...], ...], need: bool
    ) -> list[tuple[Act, int, int]]:
        """The moves of the play worth most: each item placed where it does most, in the
        order that does most; an item is left out when it would only do harm, but one move
        at least is made when ``need``."""
        ranked: list[tuple[float, list[tuple[Act, int, int]]]] = []
        self._groups()
        # A space costs most while the valley would fill before the rounds run out.
        left = max(1, self.rounds - self.round_)
        self.space_cost = self.space_worth * min(
            1.0, left * self.fill_rate / max(1, len(self.empty))
        )
        for play in plays:
            items = list(play)
            moves: list[tuple[Act, int, int]] = []
            total = 0.0
            filled_before = self.filled
            while items:
                spaces = self._legal() if self.empty else []
                choice: tuple[float, int, Act, int, int] | None = None
                for k, item in enumerate(items):
                    if item in (NINE, PENNY):
                        saved, s = self._cross_worth()
                        if s >= 0 and (choice is None or saved > choice[0]):
                            choice = (saved, k, Act.CROSS, s, NINE)
                    if spaces:
                        score, i, v = self._best_number(item, spaces)
                        if i >= 0 and (choice is None or score > choice[0]):
                            choice = (score, k, Act.WRITE, i, v)
                if choice is None or (choice[0] < 0 and (moves or not need)):
                    break
                score, k, act, i, v = choice
                items.pop(k)
                moves.append((act, i, v))
                total += score
                self._do(act, i, v)
                self._groups()
            for act, i, _ in reversed(moves):
                self._undo(act, i)
            self.filled = filled_before
            if moves:
                self._groups()
            ranked.append((total, moves))
        return self._choose(ranked) if ranked else []

    def _snakes(self) -> list[int]:
        return [s for s in range(self.grid.size) if self.what[s] == SNAKE]

    def _do(self, act: Act, i: int, v: int) -> None:
        if act is Act.CROSS:
            self.what[i] = CROSSED
        else:
            self._fill(i, NUMBER, v)
            self.filled = True

    def _undo(self, act: Act, i: int) -> None:
        if act is Act.CROSS:
            self.what[i] = SNAKE
        else:
            self._unfill(i)

    # --- structures and snakes ------------------------------------------------------------

    def _structure(self, round_: int) -> tuple[str, int] | None:
        """The structure to draw and where, or None to keep them for a better spot."""
        left = [s for s in STRUCTURES if s not in self.structures]
        if not left:
            return None
        best = (-1e9, "", -1)
        for i in self._legal():
            for letter in left:
                score = self._structure_worth(letter, i)
                if score > best[0]:
                    best = (score, letter, i)
        # A green face comes up about once in six rolls: draw now when the rounds left will
        # not bring another chance for each structure still to draw.
        chances = (self.rounds - round_) / 6
        if best[0] >= self.structure_ready or chances <= len(left):
            return best[1], best[2]
        return None

    def _structure_worth(self, letter: str, i: int) -> float:
        kind = STRUCTURES[letter]
        score = 0.0
        for n in self.grid.around[i]:
            w = self.what[n]
            if w == NUMBER:
                if self.disc[n] == kind:
                    score += STRUCTURE_STARS
                elif not self.disc[n]:
                    u = self.num[n]
                    if kind == "r" and u >= RANGE_LOW:
                        score += 0.8
                    elif kind in ("j", "t"):
                        score += 0.4
            elif w == EMPTY:
                score += 0.5
        return score

    def _snake_space(self) -> int:
        """Where the snake goes: beside a space filled last turn if one is empty (the solo
        rule), else anywhere empty; among those, where it bites least."""
        around = self.grid.around
        near = sorted({n for i in self.last_filled for n in around[i]} & self.empty)
        candidates = near or sorted(self.empty)

        def bite(i: int) -> float:
            numbers = max((self.num[n] for n in around[i]), default=0)
            free = sum(1 for n in around[i] if self.what[n] == EMPTY)
            return numbers + 0.5 * free

        return min(candidates, key=bite)

    # --- discoveries --------------------------------------------------------------------

    def _discovery(self) -> tuple[str, list[int]] | None:
        """The discovery worth most now, with the structures that count its spaces; a
        space of 6 or more in a jungle or town costs a little (it could be a range)."""
        free = [i for i in range(self.grid.size)
                if self.what[i] == NUMBER and not self.disc[i]]
        if len(free) < 3:
            return None
        candidates: list[tuple[str, list[int]]] = []
        candidates += [("p", c) for c in self._pyramids(free)]
        candidates += [("r", c) for c in self._ranges(free)]
        town = self._town(free)
        if town:
            candidates.append(("t", town))
        jungle = self._jungle(free)
        if jungle:
            candidates.append(("j", jungle))
        if not candidates:
            return None

        late = self.rounds - self.round_ < 3

        def worth(found: tuple[str, list[int]]) -> float:
            letter, cells = found
            stars = float(DISCOVERIES[letter][1])
            if letter == "r" and not late and self._pyramid_to_be(cells):
                return -1.0
            for s, at in self.structures.items():
                if STRUCTURES[s] == letter:
                    stars += STRUCTURE_STARS * sum(1 for i in cells if at in self.grid.around[i])
            for i in cells:
                v = self.num[i]
                if letter != "p" and v >= PYRAMID_LOW:
                    stars -= self.spent_high[0]
                elif letter in "jt" and v >= RANGE_LOW:
                    stars -= self.spent_high[1]
            return stars

        best = max(candidates, key=worth)
        return best if worth(best) > 0 else None

    def _pyramid_to_be(self, cells: list[int]) -> bool:
        """Three spaces of 10 or more that a fourth, still empty, would make a pyramid."""
        if any(self.num[i] < PYRAMID_LOW for i in cells):
            return False
        group = set(cells)
        return any(
            group < set(shape) and all(self.what[i] == EMPTY for i in set(shape) - group)
            for shape in self.shapes[cells[0]]
        )

    def _pyramids(self, free: list[int]) -> list[list[int]]:
        """Every pyramid of free spaces of 10 or more: a base of three in a row or column
        and one space beside its middle."""
        width = self.grid.width
        high = {i for i in free if self.num[i] >= PYRAMID_LOW}
        found = []
        for m in high:
            r, c = divmod(m, width)
            for dr, dc in ((0, 1), (1, 0)):
                base = [(r - dr, c - dc), (r + dr, c + dc)]
                if not all(0 <= br < self.grid.height and 0 <= bc < width for br, bc in base):
                    continue
                ends = [br * width + bc for br, bc in base]
                if not all(e in high for e in ends):
                    continue
                for sign in (1, -1):
                    ar, ac = r + sign * dc, c + sign * dr
                    if 0 <= ar < self.grid.height and 0 <= ac < width:
                        apex = ar * width + ac
                        if apex in high:
                            found.append([ends[0], m, ends[1], apex])
        return found

    def _ranges(self, free: list[int]) -> list[list[int]]:
        """Every three adjacent free spaces of 6 or more."""
        around = self.grid.around
        high = {i for i in free if self.num[i] >= RANGE_LOW}
        seen: set[tuple[int, ...]] = set()
        for a in high:
            for b in around[a]:
                if b not in high or b < a:
                    continue
                for c in set(around[a]) | set(around[b]):
                    if c in high and c not in (a, b):
                        seen.add(tuple(sorted((a, b, c))))
        return [list(t) for t in sorted(seen)]

    def _grow(self, seeds: list[int], size: int,
              fits: Callable[[list[int], int], bool]) -> list[int] | None:
        """Some ``size`` adjacent spaces, one of them a seed, each added where ``fits`` says
        it may join those before it; a depth-first search bounded in steps over all seeds."""
        around = self.grid.around
        budget = [SEARCH_BUDGET]

        def extend(group: list[int]) -> list[int] | None:
            if len(group) == size:
                return group
            budget[0] -= 1
            if budget[0] < 0:
                return None
            tried: set[int] = set()
            for g in group:
                for n in around[g]:
                    if n in tried or n in group or not fits(group, n):
                        continue
                    tried.add(n)
                    found = extend([*group, n])
                    if found:
                        return found
            return None

        for s in seeds:
            found = extend([s])
            if found or budget[0] < 0:
                return found
        return None

    def _town(self, free: list[int]) -> list[int] | None:
        num = self.num
        by_value: dict[int, list[int]] = {}
        for i in free:
            by_value.setdefault(num[i], []).append(i)
        for v, cells in sorted(by_value.items(), key=lambda kv: -len(kv[1])):
            if v in self.towns or len(cells) < 4:
                continue
            allowed = set(cells)

            def fits(group: list[int], n: int, ok: set[int] = allowed) -> bool:
                return n in ok

            found = self._grow(cells, 4, fits)
            if found:
                return found
        return None

    def _jungle(self, free: list[int]) -> list[int] | None:
        num = self.num
        allowed = set(free)
        if len({num[i] for i in free}) < DISCOVERIES["j"][0]:
            return None
        # Last turn's spaces first (any jungle without them was there a turn ago), then
        # small numbers: the large ones are worth more in a range or a pyramid.
        fresh = set(self.last_filled)
        seeds = sorted(free, key=lambda i: (i not in fresh, num[i]))

        def fits(group: list[int], n: int) -> bool:
            return n in allowed and all(num[g] != num[n] for g in group)

        return self._grow(seeds, 5, fits)

    # --- the end ----------------------------------------------------------------------

    def components(self) -> tuple[tuple[str, int], ...]:
        structures = 0
        for letter, at in self.structures.items():
            kind = STRUCTURES[letter]
            structures += STRUCTURE_STARS * sum(
                1 for n in self.grid.around[at] if self.disc[n] == kind
            )
        snakes = -sum(self._snake_bite(s) for s in self._snakes())
        return (
            ("Full grid", 0 if self.empty else FULL_GRID),
            ("Jungles", DISCOVERIES["j"][1] * self.count["j"]),
            ("Towns", DISCOVERIES["t"][1] * self.count["t"]),
            ("Ranges", DISCOVERIES["r"][1] * self.count["r"]),
            ("Pyramids", DISCOVERIES["p"][1] * self.count["p"]),
            ("Structures", structures),
            ("Snakes", snakes),
        )

    def tokens(self) -> tuple[tuple[str, ...], ...]:
        out = []
        for i, w in enumerate(self.what):
            if w == NUMBER:
                token = str(self.num[i])
                if self.disc[i]:
                    token += f"/{self.disc[i]}{self.disc_n[i]}"
            elif w == STRUCTURE:
                token = self.letter[i]
            else:
                token = {EMPTY: "_", SNAKE: "X", CROSSED: "x", NONE: "#"}[w]
            out.append(token)
        w = self.grid.width
        return tuple(tuple(out[r * w:(r + 1) * w]) for r in range(self.grid.height))


class PlanningValleyPlayer(ValleyPlayer):
    """The Valley's player under the planner: it keeps fewer spaces empty for better
    numbers, pulls them less towards jungles (a jungle's 5 stars for five spaces is the
    least a space of the discoveries) and towards towns short of three, and crosses out a
    snake for what it bites now, not for what it might. Set from self-play on fresh maps,
    each change kept when it scored more on maps of seeds other than those it was found on
    (a search one setting at a time, 100 games a try, found nothing further): the greedy
    player leaves about 19 of the valley's 60 spaces empty at the end of the 25 rounds and
    scores 62.8 a game; this one leaves about 15 and scores 69.5 (benchmarks/bench_bot.py)."""

    space_worth = 0.4
    fill_rate = 1.0
    jungle_pull = 0.05
    open_bite = 0.0
    town_parts = (0.0, 0.2, 1.0, 2.5)


#: What each planning strength means in the Valley. Its stars come at the end of its 25
#: rounds, and a few games played on from each choice only blur its player's own ranking: its
#: ``plan`` weighs nothing and plays its planning evaluation (:class:`PlanningValleyPlayer`).
PLANS = {"plan": Strength(1, 0), "deep": Strength(5, 8)}

#: How the bot plays this title (``Title.bot``).
BOT = TitleBot(ValleyPlayer, PLANS, planning_player=PlanningValleyPlayer)
