"""Does a solo game keep the rulebook's placement rules? A replay, move by move.

Given a map and the turns a game made (each roll and its actions, as
:mod:`pitable.rules.bot` records them), :func:`breaches` replays the game on a fresh copy of
the map and names every move that breaks a placement rule: a number the roll does not
give, a space that is not empty or not adjacent where it must be, the first space away
from the clouds or the coast, a structure drawn twice, a Lockpick number outside a Door, a
hazard where the solo rules do not put it, a hazard crossed out without a 9, a discovery
or treasure that its rule does not allow, two discoveries in a turn, a turn after the
game's end or a game stopped before it. Given the finished sheet too, it says where the
sheet differs from what the moves leave.

The replay is written apart from the bot's players, from the rulebooks, so that it checks
them rather than repeats them; it asks the rules engine only what a roll allows
(``Title.options``). Pure Python, standard library only.

The rulings where a rulebook is silent (docs/rules.md says the same):

- The spaces of one turn are filled one after another: each must be adjacent to a number
  (or a Valley structure, an Island boat) already there, those of the same turn included.
- The first space filled goes beside a cloud (Valley) or the sea (Island) while one of
  those is empty.
- A solo hazard goes beside a space filled (written, or a structure or boat drawn) in the
  turn before; when that turn filled none (it was a hazard's) or none beside is empty, it
  goes on any empty space where a hazard may be.
- A discovery (Valley) or a treasure (Island) is revealed at most once a turn, in any turn
  while its spaces allow it, after the turn's fills. A Valley discovery follows a turn's
  spaces "(or crossed out a snake)" (000): never on a snake's turn.
- An Island treasure lies between the two numbers of its column's pair and between the two
  of its row's (001: "the line between the horizontal pair"); a boat, in the sea, stands in
  for one end of a pair.
- A hazard crossed out with a 9 already on the sheet (Island, Temple) may be crossed in any
  turn; in the Valley the 9 is made from the dice of that turn and not written.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pitable.rules.base import PENNY, GreenEffect, Options
from pitable.rules.bot.model import Act, Action, TurnRecord
from pitable.rules.scoring import FinishedSheet, Token
from pitable.rules.sheets import Cell, Kind, Sheet, neighbours
from pitable.rules.titles import Island, Temple, Valley

NINE = 9
#: Valley: each discovery's spaces, by letter.
SIZES = {"j": 5, "t": 4, "r": 3, "p": 4}
STRUCTURE_LETTERS = ("H", "S", "M")
TREASURES = 5


@dataclass(frozen=True)
class Breach:
    """One move that breaks a rule: its turn (from 1; 0 for the finished sheet), the move,
    and the rule in words."""

    turn: int
    action: Action | None
    rule: str
    #: The space that breaks it, where the move covers several (a discovery's).
    cell: Cell | None = None

    def __str__(self) -> str:
        what = f" {self.action}:" if self.action is not None else ""
        where = f"turn {self.turn}" if self.turn else "the finished sheet"
        at = f" (row {self.cell[0] + 1}, column {self.cell[1] + 1})" if self.cell else ""
        return f"{where}:{what} {self.rule}{at}"


class _Replay:
    """A map being filled, move by move, and the breaches found so far."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.title = sheet.title
        self.kind = {(r, c): k for r, row in enumerate(sheet.grid) for c, k in enumerate(row)}
        self.number: dict[Cell, int] = {}
        #: What else a position holds: H S M (structures), B (boat), X (hazard), x (crossed).
        self.mark: dict[Cell, str] = {}
        self.discoveries: list[tuple[str, frozenset[Cell]]] = []
        self.treasures: dict[Cell, int] = {}
        self.hazards = 0
        self.filled_before: list[Cell] = []
        self.ended = False
        self.found: list[Breach] = []
        self.turn = 0

    # --- the map ----------------------------------------------------------------------

    def empty(self, cell: Cell) -> bool:
        return cell not in self.number and cell not in self.mark

    def empties(self, *kinds: Kind) -> list[Cell]:
        return [c for c, k in self.kind.items() if k in kinds and self.empty(c)]

    def around(self, cell: Cell) -> list[Cell]:
        return [n for n in neighbours(cell) if n in self.kind]

    def breach(self, action: Action | None, rule: str, cell: Cell | None = None) -> None:
        self.found.append(Breach(self.turn, action, rule, cell))

    def placed_beside(self, action: Action, *, anchors: Iterable[str],
                      space_kinds: tuple[Kind, ...], first: bool) -> None:
        """The adjacency rule of a number (or structure): the first on a start while one is
        empty; then beside a number or one of ``anchors``, unless no such space is empty."""
        cell = action.cell
        empty = self.empties(*space_kinds)
        if first:
            open_starts = [c for c in self.sheet.starts if self.empty(c)]
            if open_starts and cell not in open_starts:
                self.breach(action, "the first space must be one where the map starts")
            return
        wanted = set(anchors)

        def anchored(c: Cell) -> bool:
            return any(n in self.number or self.mark.get(n) in wanted for n in self.around(c))

        if not anchored(cell) and any(anchored(c) for c in empty):
            self.breach(action, "not adjacent to a number while such a space is empty")

    def hazard_turn(self, actions: Sequence[Action], ignored: Sequence[Action],
                    space_kinds: tuple[Kind, ...]) -> None:
        """A hazard's turn: the other dice are ignored (``ignored`` used them), and one
        hazard is drawn where the solo rule puts it, while a space for it is empty."""
        name = self.title.hazard_name
        drawn = [a for a in actions if a.act is Act.HAZARD]
        for a in ignored:
            self.breach(a, f"a {name} was rolled: the other dice are ignored")
        if len(drawn) != 1 and self.empties(*space_kinds):
            self.breach(None, f"a {name} roll draws one {name}, not {len(drawn)}")
        for a in drawn:
            self.hazard_at(a, space_kinds)

    def hazard_at(self, action: Action, space_kinds: tuple[Kind, ...]) -> None:
        """A hazard drawn by the solo rule: beside last turn's spaces when one is empty."""
        cell = action.cell
        if self.kind.get(cell) not in space_kinds or not self.empty(cell):
            self.breach(action, "a hazard goes on an empty space where numbers go")
            return
        near = {n for f in self.filled_before for n in self.around(f)}
        free_near = [n for n in near if self.kind[n] in space_kinds and self.empty(n)]
        if free_near and cell not in near:
            self.breach(action, "the solo hazard goes beside a space filled last turn")
        self.mark[cell] = "X"
        self.hazards += 1

    def cross_with_nine_on_sheet(self, action: Action) -> None:
        cell = action.cell
        if self.mark.get(cell) != "X":
            self.breach(action, "no hazard stands there to cross out")
            return
        if NINE not in (self.number.get(n) for n in self.around(cell)):
            self.breach(action, "a hazard is crossed out only beside a 9")
            return
        self.mark[cell] = "x"


def breaches(sheet: Sheet, turns: Sequence[TurnRecord],
             finished: FinishedSheet | None = None) -> list[Breach]:
    """Every move of the solo game ``turns`` on the map ``sheet`` that breaks a rule, and,
    with ``finished``, every position where that sheet differs from what the moves leave;
    an empty list for a game played by the rules."""
    title = sheet.title
    replay = _Replay(sheet)
    check = {Valley: _valley_turn, Island: _island_turn, Temple: _temple_turn}.get(type(title))
    if check is None:
        return [Breach(0, None, f"no placement rules are known for {title.name}")]
    limit = title.solo_rounds
    for number, turn in enumerate(turns, start=1):
        replay.turn = number
        if replay.ended or (limit is not None and number > limit):
            replay.breach(None, "a turn after the game's end")
            break
        options = title.options(turn.roll, replay.hazards)
        check(replay, options, turn.actions)
        replay.ended = _ended(replay)
    if not replay.ended and (limit is None or len(turns) < limit):
        replay.turn = len(turns)
        replay.breach(None, "the game stopped before its end")
    if finished is not None:
        _compare(replay, finished)
    return replay.found


def _ended(replay: _Replay) -> bool:
    title = replay.title
    if isinstance(title, Island):
        return (len(replay.treasures) == TREASURES
                or not replay.empties(Kind.SPACE))
    return not replay.empties(Kind.SPACE)


def _split(replay: _Replay, actions: Sequence[Action], reveal: Act) -> None:
    """A turn's reveals (discoveries, treasures): one at most, after its fills."""
    reveals = [a for a in actions if a.act is reveal]
    if len(reveals) > 1:
        replay.breach(reveals[1], "one discovery a turn at most")
    seen = False
    for a in actions:
        if a.act is reveal:
            seen = True
        elif seen and a.act in (Act.WRITE, Act.STRUCTURE, Act.BOAT, Act.HAZARD):
            replay.breach(a, "a space filled after the turn's discovery")


# --- the Valley ----------------------------------------------------------------------


def _fits_a_play(used: list[int], options: Options) -> bool:
    """``used`` (numbers written, and a 9 for each snake crossed) is part of one way of
    grouping the dice: a sub-multiset of a play, Penny Papers standing for any 1 to 15."""
    want = Counter(used)
    for play in options.plays:
        have = Counter(v for v in play if isinstance(v, int))
        penny = sum(1 for v in play if v == PENNY)
        short = want - have
        if sum(short.values()) <= penny and all(1 <= v <= 15 for v in short):
            return True
    return False


def _valley_turn(replay: _Replay, options: Options, actions: Sequence[Action]) -> None:
    spaces = (Kind.SPACE,)
    _split(replay, actions, Act.DISCOVER)
    filled: list[Cell] = []
    if options.hazard:
        ignored = [a for a in actions if a.act in (Act.WRITE, Act.STRUCTURE, Act.CROSS, Act.BOAT)]
        replay.hazard_turn(actions, ignored, spaces)
    else:
        used: list[int] = []
        structures = 0
        for a in actions:
            if a.act is Act.HAZARD or a.act is Act.BOAT:
                replay.breach(a, "not a move of this roll")
            elif a.act is Act.CROSS:
                used.append(NINE)
                if replay.mark.get(a.cell) != "X":
                    replay.breach(a, "no snake stands there to cross out")
                else:
                    replay.mark[a.cell] = "x"
            elif a.act in (Act.WRITE, Act.STRUCTURE):
                first = not any(v in STRUCTURE_LETTERS for v in replay.mark.values()) and not (
                    replay.number
                )
                if replay.kind.get(a.cell) is not Kind.SPACE or not replay.empty(a.cell):
                    replay.breach(a, "not an empty space of the valley")
                    continue
                replay.placed_beside(a, anchors=STRUCTURE_LETTERS, space_kinds=spaces,
                                     first=first)
                if a.act is Act.WRITE:
                    if not isinstance(a.value, int):
                        replay.breach(a, "a number is written")
                        continue
                    used.append(a.value)
                    replay.number[a.cell] = a.value
                else:
                    structures += 1
                    if options.green is not GreenEffect.STRUCTURE:
                        replay.breach(a, "a structure needs Dakota Smith's face")
                    elif structures > 1:
                        replay.breach(a, "one structure a roll")
                    elif a.value not in STRUCTURE_LETTERS or a.value in replay.mark.values():
                        replay.breach(a, "each structure is drawn once")
                    replay.mark[a.cell] = str(a.value)
                filled.append(a.cell)
        if not _fits_a_play(used, options):
            replay.breach(None, f"the numbers {sorted(used)} are not a grouping of the dice")
        moved = any(a.act in (Act.WRITE, Act.STRUCTURE, Act.CROSS) for a in actions)
        if not moved and replay.empties(*spaces):
            replay.breach(None, "a turn fills a space or crosses out a snake")
    for a in actions:
        if a.act is Act.DISCOVER and options.hazard:
            # 000: "After everyone has filled their one to three spaces for this turn (or
            # crossed out a snake)": a snake's turn fills nothing and crosses nothing out.
            replay.breach(a, "a discovery follows the turn's spaces or a snake crossed out,"
                             " never a snake's turn")
        elif a.act is Act.DISCOVER:
            _discovery(replay, a)
    replay.filled_before = filled


def _discovery(replay: _Replay, action: Action) -> None:
    letter = action.value
    cells = list(action.cells)
    if letter not in SIZES:
        replay.breach(action, "no such discovery")
        return
    taken = {c for _, group in replay.discoveries for c in group}
    values = [replay.number.get(c) for c in cells]
    # The rule broken, and the space that breaks it (None where it is all of them).
    problem, culprit = "", None
    if len(set(cells)) != SIZES[letter] or len(cells) != len(set(cells)):
        problem = f"{SIZES[letter]} spaces"
        culprit = cells[SIZES[letter]] if len(cells) > SIZES[letter] else None
    elif None in values:
        problem, culprit = "every space holds a number", cells[values.index(None)]
    elif set(cells) & taken:
        problem = "a space belongs to one discovery at most"
        culprit = next(c for c in cells if c in taken)
    elif not _adjacent_group(set(cells)):
        problem = "its spaces are one adjacent group"
        joined = _joined(cells[0], set(cells))
        culprit = next(c for c in cells if c not in joined)
    elif letter == "j" and len(set(values)) != len(values):
        problem = "a jungle's five values differ"
        culprit = next(c for k, c in enumerate(cells) if values[k] in values[:k])
    elif letter == "t" and len(set(values)) != 1:
        problem = "a town's four values are identical"
        most = Counter(values).most_common(1)[0][0]
        culprit = next(c for k, c in enumerate(cells) if values[k] != most)
    elif letter == "t" and any(
        k == "t" and replay.number[next(iter(g))] == values[0] for k, g in replay.discoveries
    ):
        problem = "no two towns of one value"
    elif letter == "r" and any(v is None or v < 6 for v in values):
        problem = "a mountain range's values are 6 or more"
        culprit = next(c for k, c in enumerate(cells) if (values[k] or 0) < 6)
    elif letter == "p" and (any(v is None or v < 10 for v in values) or not _t_shape(set(cells))):
        problem = "a pyramid is four values of 10 or more, a base of three and one above"
        culprit = next((c for k, c in enumerate(cells) if (values[k] or 0) < 10), None)
    if problem:
        replay.breach(action, problem, culprit)
        return
    replay.discoveries.append((str(letter), frozenset(cells)))


def _adjacent_group(cells: set[Cell]) -> bool:
    return _joined(next(iter(cells)), cells) == cells


def _joined(start: Cell, cells: set[Cell]) -> set[Cell]:
    """The spaces of ``cells`` reached from ``start`` by steps to adjacent ones."""
    seen = {start}
    todo = [start]
    while todo:
        r, c = todo.pop()
        for n in cells:
            if n not in seen and abs(n[0] - r) <= 1 and abs(n[1] - c) <= 1:
                seen.add(n)
                todo.append(n)
    return seen


def _t_shape(cells: set[Cell]) -> bool:
    """Three in a line and a fourth edge to edge with the middle one."""
    for apex in cells:
        base = cells - {apex}
        rows = {r for r, _ in base}
        cols = {c for _, c in base}
        if len(rows) == 1:
            line = sorted(c for _, c in base)
            row = rows.pop()
            if line == list(range(line[0], line[0] + 3)) and apex[1] == line[1] and abs(
                apex[0] - row
            ) == 1:
                return True
        elif len(cols) == 1:
            line = sorted(r for r, _ in base)
            col = cols.pop()
            if line == list(range(line[0], line[0] + 3)) and apex[0] == line[1] and abs(
                apex[1] - col
            ) == 1:
                return True
    return False


# --- Skull Island ----------------------------------------------------------------------


def _island_turn(replay: _Replay, options: Options, actions: Sequence[Action]) -> None:
    spaces = (Kind.SPACE,)
    _split(replay, actions, Act.TREASURE)
    filled: list[Cell] = []
    fills = [a for a in actions if a.act in (Act.WRITE, Act.BOAT)]
    if options.hazard:
        replay.hazard_turn(actions, fills, spaces)
    else:
        for a in actions:
            if a.act in (Act.HAZARD, Act.STRUCTURE, Act.DISCOVER):
                replay.breach(a, "not a move of this roll")
        can_boat = options.green is GreenEffect.BOAT and bool(replay.empties(Kind.SEA))
        if len(fills) != 1 and (replay.empties(*spaces) or can_boat):
            replay.breach(None, f"a turn fills one space, not {len(fills)}")
    for a in actions:
        if a.act is Act.WRITE and not options.hazard:
            if replay.kind.get(a.cell) is not Kind.SPACE or not replay.empty(a.cell):
                replay.breach(a, "a number goes in an empty island space")
                continue
            if a.value not in options.numbers:
                replay.breach(a, "the roll does not give this number")
            replay.placed_beside(a, anchors=("B",), space_kinds=spaces,
                                 first=not replay.number)
            replay.number[a.cell] = int(a.value) if isinstance(a.value, int) else 0
            filled.append(a.cell)
        elif a.act is Act.BOAT and not options.hazard:
            if options.green is not GreenEffect.BOAT:
                replay.breach(a, "a boat needs the Navigation face")
            if replay.kind.get(a.cell) is not Kind.SEA or not replay.empty(a.cell):
                replay.breach(a, "a boat goes in an empty sea space")
                continue
            replay.mark[a.cell] = "B"
            filled.append(a.cell)
        elif a.act is Act.CROSS:
            replay.cross_with_nine_on_sheet(a)
        elif a.act is Act.TREASURE:
            _treasure(replay, a)
    replay.filled_before = filled


def _treasure(replay: _Replay, action: Action) -> None:
    cell, value = action.cell, action.value
    row, col = cell
    if not isinstance(value, int) or value in replay.treasures.values():
        replay.breach(action, "each treasure is found with a different number")
    elif len(replay.treasures) >= TREASURES:
        replay.breach(action, f"{TREASURES} treasures at most")
    elif replay.kind.get(cell) not in (Kind.SPACE, Kind.MOUNTAIN):
        replay.breach(action, "a treasure is never in the water")
    elif cell in replay.treasures:
        replay.breach(action, "one treasure a space")
    else:
        # The treasure lies on "the line between" each pair (001): one end of its column's
        # pair above it and one below, one end of its row's on each side; a boat (in the
        # sea) stands in for one end of a pair, never for both.
        lines = (("column", [c for c in replay.kind if c[1] == col], 0),
                 ("row", [c for c in replay.kind if c[0] == row], 1))
        for name, line, axis in lines:
            ends = []
            for side in (-1, 1):
                part = [c for c in line if (c[axis] - cell[axis]) * side > 0]
                ends.append((any(replay.number.get(c) == value for c in part),
                             any(replay.mark.get(c) == "B" for c in part)))
            (number_a, boat_a), (number_b, boat_b) = ends
            if not ((number_a and (number_b or boat_b)) or (number_b and boat_a)):
                replay.breach(action, f"the treasure is not between a pair of {value}s"
                                      f" in its {name}")
                return
        replay.treasures[cell] = value


# --- the Temple ----------------------------------------------------------------------


def _temple_turn(replay: _Replay, options: Options, actions: Sequence[Action]) -> None:
    spaces = (Kind.SPACE,)
    filled: list[Cell] = []
    writes = [a for a in actions if a.act is Act.WRITE]
    if options.hazard:
        replay.hazard_turn(actions, writes, spaces)
    else:
        lockpick = options.green is GreenEffect.DOOR and bool(replay.empties(Kind.DOOR))
        where = (Kind.DOOR,) if lockpick else spaces
        if len(writes) != 1 and replay.empties(*where):
            replay.breach(None, f"a turn writes one number, not {len(writes)}")
        for a in actions:
            if a.act in (Act.HAZARD, Act.STRUCTURE, Act.BOAT, Act.DISCOVER, Act.TREASURE):
                replay.breach(a, "not a move of this roll")
        for a in writes:
            if a.value not in options.numbers:
                replay.breach(a, "the roll does not give this number")
            if replay.kind.get(a.cell) not in where or not replay.empty(a.cell):
                rule = ("the Lockpick puts the number in an empty Door" if lockpick
                        else "a number goes in an empty doorless space")
                replay.breach(a, rule)
                continue
            replay.number[a.cell] = int(a.value) if isinstance(a.value, int) else 0
            filled.append(a.cell)
    for a in actions:
        if a.act is Act.CROSS:
            replay.cross_with_nine_on_sheet(a)
    replay.filled_before = filled


# --- the finished sheet ------------------------------------------------------------------


def _compare(replay: _Replay, finished: FinishedSheet) -> None:
    """Name each position where ``finished`` differs from what the moves leave."""
    replay.turn = 0
    if (finished.height, finished.width) != (replay.sheet.grid_height, replay.sheet.grid_width):
        replay.breach(None, "the finished sheet is not the map's size")
        return
    letters = {"H": Token.HUT, "S": Token.STATUE, "M": Token.MINE, "B": Token.BOAT,
               "X": Token.HAZARD, "x": Token.CROSSED}
    groups: dict[tuple[str, int], set[Cell]] = {}
    for cell, space in finished.cells():
        kind = replay.kind[cell]
        number = replay.number.get(cell)
        mark = replay.mark.get(cell)
        if kind is Kind.OUTSIDE:
            expected = Token.NONE
        elif kind is Kind.SEA:
            expected = Token.BOAT if mark == "B" else Token.SEA
        elif kind is Kind.MOUNTAIN:
            expected = Token.MOUNTAIN
        elif kind is Kind.DOOR:
            expected = Token.DOOR
        elif number is not None:
            expected = Token.NUMBER
        elif mark is not None:
            expected = letters[mark]
        else:
            expected = Token.EMPTY
        treasure = replay.treasures.get(cell)
        shown_treasure = space.mark_n if space.mark == "T" else None
        if space.token is not expected or space.number != number or treasure != shown_treasure:
            r, c = cell
            replay.breach(None, f"row {r + 1}, column {c + 1} shows {space.text!r},"
                                " not what the moves leave")
        if space.mark is not None and space.mark != "T" and space.mark_n is not None:
            groups.setdefault((space.mark, space.mark_n), set()).add(cell)
    shown = Counter((letter, frozenset(cells)) for (letter, _), cells in groups.items())
    if shown != Counter(replay.discoveries):
        replay.breach(None, "the discoveries marked are not those the moves revealed")
