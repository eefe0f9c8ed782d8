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
(``Title.options``). What is common to every title is here; each title's own placement
rules are in its package (``replay.py``), reached through ``Title.replay_rules``. Pure
Python, standard library only.

The rulings where a rulebook is silent (docs/rules.md says the same; each title's replay
module gives its own):

- The spaces of one turn are filled one after another: each must be adjacent to a number
  (or a structure or boat the title anchors on) already there, those of the same turn
  included.
- The first space filled goes where the map starts (beside a cloud, the sea) while one of
  those is empty.
- A solo hazard goes beside a space filled (written, or a structure or boat drawn) in the
  turn before; when that turn filled none (it was a hazard's) or none beside is empty, it
  goes on any empty space where a hazard may be.
- A discovery or a treasure is revealed at most once a turn, in any turn while its spaces
  allow it, after the turn's fills.
- A hazard crossed out with a 9 already on the sheet may be crossed in any turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from pitable.rules.base import ENGLISH, N_, Options, Translator
from pitable.rules.bot.model import Act, Action, TurnRecord
from pitable.rules.scoring import FinishedSheet, Token, alphabet
from pitable.rules.sheets import Cell, Kind, Sheet, neighbours

NINE = 9


class Term(str):
    """A word of the catalogues given as a field of a rule (a hazard's name, a title's):
    said in the rule's language, where any other field is written as it is."""

    __slots__ = ()


@dataclass(frozen=True)
class Breach:
    """One move that breaks a rule: its turn (from 1; 0 for the finished sheet), the move,
    and the rule in words (:attr:`rule` in English, :meth:`words` in any language)."""

    turn: int
    action: Action | None
    #: The rule: a gettext message (marked with ``N_``) whose ``{name}`` fields are
    #: :attr:`fields`.
    message: str
    #: The space that breaks it, where the move covers several (a discovery's).
    cell: Cell | None = None
    #: The turn is short of a move (none made where one must be): a move still to come
    #: mends it, so a turn being played move by move is not refused for it.
    short: bool = False
    #: The message's fields by name: a :class:`Term` is said in the rule's language, a
    #: number or a list is written as it is.
    fields: tuple[tuple[str, object], ...] = ()

    @property
    def rule(self) -> str:
        """The rule in English words, as the validator prints it."""
        return self.words(ENGLISH)

    def words(self, tr: Translator) -> str:
        """The rule in ``tr``'s language."""
        values = {name: tr.gettext(value) if isinstance(value, Term) else value
                  for name, value in self.fields}
        return tr.gettext(self.message).format(**values)

    def __str__(self) -> str:
        what = f" {self.action}:" if self.action is not None else ""
        where = f"turn {self.turn}" if self.turn else "the finished sheet"
        at = f" (row {self.cell[0] + 1}, column {self.cell[1] + 1})" if self.cell else ""
        return f"{where}:{what} {self.rule}{at}"


class Replay:
    """A map being filled, move by move, and the breaches found so far."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.title = sheet.title
        self.kind = {(r, c): k for r, row in enumerate(sheet.grid) for c, k in enumerate(row)}
        #: Each position's neighbours on the map, worked out once (a fork shares them).
        self._around = {cell: tuple(n for n in neighbours(cell) if n in self.kind)
                        for cell in self.kind}
        self.number: dict[Cell, int] = {}
        #: What else a position holds: H S M (structures), B (boat), X (hazard), x (crossed).
        self.mark: dict[Cell, str] = {}
        self.discoveries: list[tuple[str, frozenset[Cell]]] = []
        self.treasures: dict[Cell, int] = {}
        self.hazards = 0
        self.filled_before: list[Cell] = []
        #: Hazards are drawn by the solo rule (beside last turn's spaces); at a table another
        #: player draws one in any empty space where a hazard may be.
        self.solo = True
        self.ended = False
        self.found: list[Breach] = []
        self.turn = 0

    # --- the map ----------------------------------------------------------------------

    def empty(self, cell: Cell) -> bool:
        return cell not in self.number and cell not in self.mark

    def empties(self, *kinds: Kind) -> list[Cell]:
        return list(self._empties(kinds))

    def has_empty(self, *kinds: Kind) -> bool:
        """Some space of ``kinds`` is empty: asked of every move a phone might make next,
        so it stops at the first one rather than listing them all."""
        return next(self._empties(kinds), None) is not None

    def _empties(self, kinds: tuple[Kind, ...]) -> Iterator[Cell]:
        number, mark = self.number, self.mark
        return (c for c, k in self.kind.items()
                if k in kinds and c not in number and c not in mark)

    def around(self, cell: Cell) -> tuple[Cell, ...]:
        return self._around[cell]

    def breach(self, action: Action | None, rule: str, cell: Cell | None = None, *,
               short: bool = False, **fields: object) -> None:
        """Name a breach of ``rule`` (a message marked with ``N_``, its ``{name}`` fields
        given as keywords: a :class:`Term` for a word to translate too)."""
        self.found.append(Breach(self.turn, action, rule, cell, short, tuple(fields.items())))

    def fork(self) -> Replay:
        """A copy that plays on without changing this one: the map is shared, what the
        moves made is copied, and it has found nothing yet."""
        # A shallow copy by hand: copy.copy goes through __reduce_ex__, a tenth of the
        # time of a check a phone's moves allowed next make once for every empty space.
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.number = dict(self.number)
        twin.mark = dict(self.mark)
        twin.discoveries = list(self.discoveries)
        twin.treasures = dict(self.treasures)
        twin.filled_before = list(self.filled_before)
        twin.found = []
        return twin

    def placed_beside(self, action: Action, *, anchors: Iterable[str],
                      space_kinds: tuple[Kind, ...], first: bool) -> None:
        """The adjacency rule of a number (or structure): the first on a start while one is
        empty; then beside a number or one of ``anchors``, unless no such space is empty."""
        cell = action.cell
        if first:
            open_starts = [c for c in self.sheet.starts if self.empty(c)]
            if open_starts and cell not in open_starts:
                self.breach(action, N_("the first space must be one where the map starts"))
            return
        wanted = set(anchors)

        def anchored(c: Cell) -> bool:
            return any(n in self.number or self.mark.get(n) in wanted for n in self.around(c))

        if not anchored(cell) and any(anchored(c) for c in self._empties(space_kinds)):
            self.breach(action, N_("not adjacent to a number while such a space is empty"))

    def hazard_turn(self, actions: Sequence[Action], ignored: Sequence[Action],
                    space_kinds: tuple[Kind, ...]) -> None:
        """A hazard's turn: the other dice are ignored (``ignored`` used them), and one
        hazard is drawn where the solo rule puts it, while a space for it is empty."""
        name = Term(self.title.hazard_name)
        drawn = [a for a in actions if a.act is Act.HAZARD]
        for a in ignored:
            self.breach(a, N_("a {name} was rolled: the other dice are ignored"), name=name)
        if len(drawn) != 1 and self.has_empty(*space_kinds):
            self.breach(None, N_("a {name} roll draws one {name}, not {count}"),
                        short=not drawn, name=name, count=len(drawn))
        for a in drawn:
            self.hazard_at(a, space_kinds)

    def hazard_at(self, action: Action, space_kinds: tuple[Kind, ...]) -> None:
        """A hazard drawn in an empty space of ``space_kinds``: by the solo rule, beside
        last turn's spaces when one is empty; at a table (:attr:`solo` false), anywhere."""
        cell = action.cell
        if self.kind.get(cell) not in space_kinds or not self.empty(cell):
            self.breach(action, N_("a hazard goes on an empty space where numbers go"))
            return
        near = {n for f in self.filled_before for n in self.around(f)}
        free_near = [n for n in near if self.kind[n] in space_kinds and self.empty(n)]
        if self.solo and free_near and cell not in near:
            self.breach(action, N_("the solo hazard goes beside a space filled last turn"))
        self.mark[cell] = "X"
        self.hazards += 1

    def cross_with_nine_on_sheet(self, action: Action) -> None:
        cell = action.cell
        if self.mark.get(cell) != "X":
            self.breach(action, N_("no hazard stands there to cross out"))
            return
        if NINE not in (self.number.get(n) for n in self.around(cell)):
            self.breach(action, N_("a hazard is crossed out only beside a 9"))
            return
        self.mark[cell] = "x"


def breaches(sheet: Sheet, turns: Sequence[TurnRecord],
             finished: FinishedSheet | None = None) -> list[Breach]:
    """Every move of the solo game ``turns`` on the map ``sheet`` that breaks a rule, and,
    with ``finished``, every position where that sheet differs from what the moves leave;
    an empty list for a game played by the rules."""
    title = sheet.title
    replay = Replay(sheet)
    rules = title.replay_rules()
    if rules is None:
        return [Breach(0, None, N_("no placement rules are known for {title}"),
                       fields=(("title", Term(title.name)),))]
    limit = title.solo_rounds
    for number, turn in enumerate(turns, start=1):
        replay.turn = number
        if replay.ended or (limit is not None and number > limit):
            replay.breach(None, N_("a turn after the game's end"))
            break
        options = title.options(turn.roll, replay.hazards)
        rules.turn(replay, options, turn.actions)
        replay.ended = rules.ended(replay)
    if not replay.ended and (limit is None or len(turns) < limit):
        replay.turn = len(turns)
        replay.breach(None, N_("the game stopped before its end"))
    if finished is not None:
        _compare(replay, finished)
    return replay.found


def filled_up(replay: Replay) -> bool:
    """The end of most solo games: no empty space left for a number."""
    return not replay.has_empty(Kind.SPACE)


@dataclass(frozen=True)
class ReplayRules:
    """One title's placement rules for the replay (``Title.replay_rules`` gives them): how
    a turn's moves are checked against what its roll allows, naming each breach on the
    replay, when the game is over (by default, when the spaces are full), and the title's
    own moves a roll might allow."""

    turn: Callable[[Replay, Options, Sequence[Action]], None]
    ended: Callable[[Replay], bool] = filled_up
    #: The title's own moves a roll might allow on the map as it stands, beside numbers,
    #: hazards and cross-outs (a structure, a boat, a discovery's spaces): proposals that
    #: :mod:`pitable.rules.phone` keeps only where :attr:`turn` finds nothing against them.
    offers: Callable[[Replay, Options], Iterable[Action]] | None = None
    #: The words of the title's own moves, for a player choosing one: by a move's value
    #: (a structure's letter, a discovery's) or, failing that, by its act's word; gettext
    #: messages of the title's catalogue.
    words: Mapping[str, str] = field(default_factory=dict)
    #: Where a number may be written does not depend on which number it is, nor which
    #: numbers on where, and a rule of the whole turn (a breach naming no move) that a
    #: number breaks, it breaks in any space: the moves offered (:mod:`pitable.rules.phone`)
    #: are then found by checking the spaces with one number and the numbers in one space,
    #: not every pair (tests/test_phone_rules.py checks that it finds every legal pair).
    writes_apart: bool = False


def groups(cells: set[Cell], size: int, fits: Callable[[list[Cell]], bool],
           most: int = 64) -> Iterator[frozenset[Cell]]:
    """Adjacent groups of ``size`` spaces among ``cells``, each once, whose every part
    (grown one adjacent space at a time) ``fits`` allows; at most ``most`` of them.

    The enumeration of connected subgraphs by Wernicke's ESU (2006): each group is grown
    from its first space in reading order, over spaces after it only, and a space joins
    the frontier only when it is new to the whole group's neighbourhood, so no group is
    found twice. Written here because no library of the standard set walks grid groups.
    """
    order = sorted(cells)
    rank = {c: i for i, c in enumerate(order)}
    near = {c: [n for n in neighbours(c) if n in cells] for c in order}
    found = 0

    def extend(group: list[Cell], frontier: list[Cell], root: int) -> Iterator[frozenset[Cell]]:
        nonlocal found
        if len(group) == size:
            found += 1
            yield frozenset(group)
            return
        seen = set(group).union(*(near[g] for g in group))
        frontier = list(frontier)
        while frontier and found < most:
            w = frontier.pop()
            grown = [*group, w]
            if not fits(grown):
                continue
            new = [u for u in near[w] if rank[u] > root and u not in seen]
            yield from extend(grown, frontier + new, root)

    for start in order:
        if found >= most:
            return
        if fits([start]):
            root = rank[start]
            yield from extend([start], [n for n in near[start] if rank[n] > root], root)


def split_reveals(replay: Replay, actions: Sequence[Action], reveal: Act) -> None:
    """A turn's reveals (discoveries, treasures): one at most, after its fills."""
    reveals = [a for a in actions if a.act is reveal]
    if len(reveals) > 1:
        replay.breach(reveals[1], N_("one discovery a turn at most"))
    seen = False
    for a in actions:
        if a.act is reveal:
            seen = True
        elif seen and a.act.fills:
            replay.breach(a, N_("a space filled after the turn's discovery"))


# --- the finished sheet ------------------------------------------------------------------


def _compare(replay: Replay, finished: FinishedSheet) -> None:
    """Name each position where ``finished`` differs from what the moves leave."""
    replay.turn = 0
    if (finished.height, finished.width) != (replay.sheet.grid_height, replay.sheet.grid_width):
        replay.breach(None, N_("the finished sheet is not the map's size"))
        return
    known = alphabet()
    letters = known.plain
    groups: dict[tuple[str, int], set[Cell]] = {}
    for cell, space in finished.cells():
        kind = replay.kind[cell]
        number = replay.number.get(cell)
        mark = replay.mark.get(cell)
        if kind is Kind.OUTSIDE:
            expected = Token.NONE
        elif kind is not Kind.SPACE:
            # A position of a title's own kind shows its letter, or what was drawn there.
            expected = letters[mark] if mark is not None else Token.of(kind)
        elif number is not None:
            expected = Token.NUMBER
        elif mark is not None:
            expected = letters[mark]
        else:
            expected = Token.EMPTY
        treasure = replay.treasures.get(cell)
        # A lone mark shows the value found at its one position; the others name a group.
        lone = space.mark is not None and space.mark in known.lone_marks
        shown_treasure = space.mark_n if lone else None
        if space.token is not expected or space.number != number or treasure != shown_treasure:
            r, c = cell
            replay.breach(None, N_("row {row}, column {column} shows {shown}, not what the"
                                   " moves leave"), row=r + 1, column=c + 1,
                          shown=repr(space.text))
        if space.mark is not None and not lone and space.mark_n is not None:
            groups.setdefault((space.mark, space.mark_n), set()).add(cell)
    shown = Counter((letter, frozenset(cells)) for (letter, _), cells in groups.items())
    if shown != Counter(replay.discoveries):
        replay.breach(None, N_("the discoveries marked are not those the moves revealed"))
