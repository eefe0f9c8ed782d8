"""A player's own sheet, filled move by move against the box's rolls: what a phone at the
table plays on. Pure Python, standard library only.

A :class:`PlayerSheet` holds a map, the turns closed so far and the turn in progress. Every
move is checked by the replay validator's rules (:mod:`pitable.rules.validate`, each title's
``replay.py``), the same rules that check a bot's whole game: the turns closed are replayed
once, and a move is legal when the turn in progress, with it added, breaks none of them. A
turn short of a move (no space filled yet) is not refused for it while it is being played;
:meth:`PlayerSheet.warnings` names it before the player says the turn is done.

The moves a roll might allow (:meth:`PlayerSheet.legal`) are proposed from what the roll
gives and what the sheet holds (numbers in empty spaces, hazards, cross-outs, and a title's
own moves from its ``ReplayRules.offers``), and each proposal is kept only when the replay
accepts it: the rules are written once, in the replay.

The sheet is written as ``pitable score`` reads it (:meth:`PlayerSheet.tokens`), so its
running score is the title's own scoring of that text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from pitable.errors import IllegalMove, RulesError
from pitable.rules.base import N_, Options
from pitable.rules.bot.model import Act, Action, TurnRecord, tokens_text
from pitable.rules.dice import Roll
from pitable.rules.scoring import Score, Token, parse_sheet
from pitable.rules.sheets import Cell, Kind, Sheet
from pitable.rules.validate import Breach, Replay, ReplayRules

#: The sheet's own refusals, beside the replay's rules.
NO_ROLL = N_("no roll to play yet")
TURN_DONE = N_("the turn is done")
GAME_OVER = N_("the game is over")
NOT_OWN_HAZARD = N_("at a table the hazard goes on another's sheet")
NO_HAZARD_TO_DRAW = N_("this roll draws no hazard on a sheet at this table")
HAZARD_DRAWN = N_("this sheet has its hazard of this roll already")


def refusal(rule: str, turn: int = 0, action: Action | None = None) -> IllegalMove:
    """A refusal of a rule that is not the replay's (``rule`` a message marked with ``N_``):
    its :attr:`~pitable.errors.IllegalMove.breach` says it in any language."""
    breach = Breach(turn, action, rule)
    return IllegalMove(breach.rule, breach)


@dataclass(frozen=True)
class ClosedTurn:
    """A turn played: its roll, the moves kept, and whether the player said it was done
    (a turn the next roll closed first keeps its moves and passed the rest)."""

    roll: Roll
    actions: tuple[Action, ...]
    done: bool


class PlayerSheet:
    """One player's sheet of one game: its map, and the moves made on it turn by turn.

    ``solo`` is a solo game: the player draws the hazards rolled on their own sheet, by the
    solo rules; at a table a hazard goes on another's sheet, so none is offered among the
    player's moves: another player draws it here (:meth:`place_hazard`), in any empty space
    where a hazard may be, and it is part of the turn as the first of its moves.
    """

    def __init__(self, sheet: Sheet, *, solo: bool = False) -> None:
        rules = sheet.title.replay_rules()
        if rules is None:
            raise RulesError(f"no placement rules are known for {sheet.title.name}")
        self.sheet = sheet
        self.title = sheet.title
        self.solo = solo
        self.rules: ReplayRules = rules
        self.closed: list[ClosedTurn] = []
        #: The map as the closed turns left it.
        self._base = Replay(sheet)
        self._base.solo = solo
        #: The hazard another player drew on this sheet, by round (at a table).
        self.placed: dict[int, Action] = {}
        #: The turn in progress: its roll and what it allows (None before the first roll).
        self.roll: Roll | None = None
        self.options: Options | None = None
        self.actions: list[Action] = []
        #: The player said the turn in progress is done: its moves are permanent.
        self.done = False
        self._now: Replay | None = None
        self._legal: list[Action] | None = None
        #: Where this roll's hazard may go, until the sheet changes (:meth:`hazard_spaces`).
        self._spaces: list[Cell] | None = None
        #: The last score counted, and the sheet it counted (:meth:`score`).
        self._scored: tuple[str, Score] | None = None
        #: The closed turns ended the game (None: not asked since the last closed).
        self._ended: bool | None = None
        #: The sheet as it stands ended the game (:meth:`over`), until it changes: the
        #: table's pace asks it of every sheet after each phone's call.
        self._over: bool | None = None
        #: The sheet's tokens as it stands (:meth:`tokens`), until it changes: a view
        #: shows them and counts the score from them.
        self._tokens: tuple[tuple[str, ...], ...] | None = None

    # --- the turns ---------------------------------------------------------------------

    @property
    def round(self) -> int:
        """The round of the turn in progress (0 before the first roll)."""
        return len(self.closed) + (self.roll is not None)

    def start_turn(self, roll: Roll, hazards_marked: int = 0) -> None:
        """The next roll: the turn in progress closes (passed, if it was not done) and
        ``roll`` is the new one. ``hazards_marked`` are those the box counts before it (the
        table's count, which decides what a hazard roll allows)."""
        self._close()
        self.roll = roll
        self.options = self.title.options(roll, hazards_marked)
        self.actions = []
        self.done = False
        self._forget()

    def _moves(self) -> list[Action]:
        """The moves of the turn in progress: the hazard drawn here by another first (it
        came with the roll, before anything the player writes), then the player's."""
        placed = self.placed.get(self.round)
        return self.actions if placed is None else [placed, *self.actions]

    def _close(self) -> None:
        if self.roll is None:
            return
        moves = self._moves()
        self.closed.append(ClosedTurn(self.roll, tuple(moves), self.done))
        if self.options is not None:
            self._base.turn = len(self.closed)
            self.rules.turn(self._base, self.options, moves)
            self._base.found.clear()
        self._ended = None
        self.roll = None
        self.options = None

    def finish(self) -> None:
        """The game ended: the turn in progress closes as it stands."""
        self._close()
        self.actions = []
        self.done = True
        self._forget()

    def _forget(self) -> None:
        self._now = None
        self._legal = None
        self._spaces = None
        self._over = None
        self._tokens = None

    # --- the moves ---------------------------------------------------------------------

    def breaches(self, action: Action) -> list[Breach]:
        """What the rules say against ``action`` as the next move of the turn in progress:
        nothing for a legal move (a turn still short of a move is not held against it)."""
        if self.options is None:
            return [Breach(0, action, NO_ROLL)]
        if self.done:
            return [Breach(self.round, action, TURN_DONE)]
        if self.over_before_turn():
            return [Breach(self.round, action, GAME_OVER)]
        if action.act is Act.HAZARD and not self.solo:
            return [Breach(self.round, action, NOT_OWN_HAZARD)]
        replay = self._base.fork()
        replay.turn = self.round
        self.rules.turn(replay, self.options, [*self._moves(), action])
        return [b for b in replay.found if not b.short]

    def check(self, action: Action) -> str | None:
        """The rule ``action`` breaks as the next move, or None when it is legal."""
        found = self.breaches(action)
        return found[0].rule if found else None

    def play(self, action: Action) -> None:
        """Make ``action`` the next move of the turn; :class:`IllegalMove` (naming the rule)
        when the rules refuse it."""
        found = self.breaches(action)
        if found:
            raise IllegalMove(found[0].rule, found[0])
        self.actions.append(action)
        self._forget()

    def take_back(self) -> Action | None:
        """Undo the last move of the turn in progress (None if it has none);
        :class:`IllegalMove` once the turn is done."""
        if self.done:
            raise refusal(TURN_DONE, self.round)
        if not self.actions:
            return None
        self._forget()
        return self.actions.pop()

    def warnings(self) -> list[Breach]:
        """What the turn in progress still lacks by the rulebook (a space to fill, a hazard
        to draw): said before the player says it is done, who may pass all the same (each
        breach's :meth:`~pitable.rules.validate.Breach.words` in the player's language)."""
        if self.options is None or self.done:
            return []
        replay = self._base.fork()
        replay.turn = self.round
        self.rules.turn(replay, self.options, self._moves())
        if not self.solo and self.options.hazard:
            return []
        return [b for b in replay.found if b.short]

    # --- a hazard drawn here by another player (at a table) ---------------------------

    def hazard_breaches(self, cell: Cell) -> list[Breach]:
        """What the rules say against another player drawing this roll's hazard on this
        sheet at ``cell``: nothing where it may go (an empty space where a hazard may be,
        adjacent to anything or not, as the rulebooks say of a hazard at a table)."""
        action = Action(Act.HAZARD, (cell,))
        if self.options is None:
            return [Breach(0, action, NO_ROLL)]
        if self.solo or not self.options.hazard:
            return [Breach(self.round, action, NO_HAZARD_TO_DRAW)]
        if self.round in self.placed:
            return [Breach(self.round, action, HAZARD_DRAWN)]
        if self.over_before_turn():
            return [Breach(self.round, action, GAME_OVER)]
        replay = self._base.fork()
        replay.turn = self.round
        self.rules.turn(replay, self.options, [action, *self.actions])
        return [b for b in replay.found if not b.short]

    def hazard_spaces(self) -> list[Cell]:
        """Every space where this roll's hazard may be drawn on this sheet now, in the
        map's order (none once it is drawn, or when the roll draws none)."""
        if (self.options is None or self.solo or not self.options.hazard
                or self.round in self.placed):
            return []
        # Kept until the sheet changes: every phone at the table reads it after the roll,
        # the player dealt it and its owner again after each of their calls.
        if self._spaces is None:
            now = self.replay()
            empty = sorted(c for c, k in now.kind.items() if k.fillable and now.empty(c))
            if self.actions:
                self._spaces = [c for c in empty if not self.hazard_breaches(c)]
            else:
                # With no move of the owner's in the turn yet, whether a table's hazard
                # may go on an empty space depends on the space's kind alone (it has no
                # adjacency rule): the rules are asked once a kind, not once a space, so
                # that a hundred phones read their deals in time.
                allowed: dict[Kind, bool] = {}
                for c in empty:
                    kind = now.kind[c]
                    if kind not in allowed:
                        allowed[kind] = not self.hazard_breaches(c)
                self._spaces = [c for c in empty if allowed[now.kind[c]]]
        return list(self._spaces)

    def score_with_hazard(self, cell: Cell) -> int:
        """The sheet's total were this roll's hazard drawn at ``cell`` now (a space
        :meth:`hazard_spaces` gives): what a player choosing where to draw it weighs."""
        assert self.options is not None
        replay = self._base.fork()
        replay.turn = self.round
        self.rules.turn(replay, self.options, [Action(Act.HAZARD, (cell,)), *self.actions])
        tokens = sheet_tokens(replay, self.title.lone_marks[:1])
        return self.title.score(parse_sheet(tokens_text(tokens))).total

    def place_hazard(self, cell: Cell) -> None:
        """Another player draws this roll's hazard at ``cell``; :class:`IllegalMove`
        (naming the rule) where it may not go."""
        found = self.hazard_breaches(cell)
        if found:
            raise IllegalMove(found[0].rule, found[0])
        self.placed[self.round] = Action(Act.HAZARD, (cell,))
        self._forget()

    def finish_turn(self) -> None:
        """The player says the turn is done: its moves are permanent."""
        if self.options is None:
            raise refusal(NO_ROLL)
        self.done = True
        self._forget()

    def legal(self) -> list[Action]:
        """Every move the turn in progress allows next, as the replay's rules decide: a
        number in a space, a hazard, a cross-out, a title's own moves (a discovery's spaces
        are those of the groups the sheet holds now)."""
        if self._legal is None:
            self._legal = [a for a in self._proposals() if not self.breaches(a)]
        return self._legal

    def _proposals(self) -> Iterator[Action]:
        options = self.options
        if options is None or self.done or self.over_before_turn():
            return
        now = self.replay()
        empty = [c for c, k in now.kind.items() if k.fillable and now.empty(c)]
        if options.hazard:
            if self.solo:
                yield from (Action(Act.HAZARD, (c,)) for c in empty)
        elif self.rules.writes_apart:
            yield from self._writes(now, empty, options.numbers)
        else:
            for cell in empty:
                for n in options.numbers:
                    yield Action(Act.WRITE, (cell,), n)
        yield from (Action(Act.CROSS, (c,)) for c, m in now.mark.items() if m == "X")
        if self.rules.offers is not None:
            yield from self.rules.offers(now, options)

    def _writes(self, now: Replay, empty: list[Cell],
                numbers: Sequence[int]) -> Iterator[Action]:
        """The legal numbers in empty spaces, where a title's rules say a space and a
        number are allowed apart (``ReplayRules.writes_apart``): every number tried in one
        space at a time until one takes some, then every space tried with that number.
        A number that breaks a rule of the whole turn (a breach naming no move) breaks it
        in any space, and is not tried again; when none is left, the turn writes nothing
        more. Spaces beside a number are tried first (where most turns write)."""

        def legal(cell: Cell, n: int) -> bool:
            return not self.breaches(Action(Act.WRITE, (cell,), n))

        near = {n for c in now.number for n in now.around(c)}
        order = sorted(empty, key=lambda c: c not in near)
        left = list(numbers)
        values: list[int] = []
        cell = None
        for cell in order:
            values = []
            for n in list(left):
                found = self.breaches(Action(Act.WRITE, (cell,), n))
                if not found:
                    values.append(n)
                elif any(b.action is None for b in found):
                    left.remove(n)
            if values or not left:
                break
        if not values or cell is None:
            return
        for other in order:
            if other == cell or legal(other, values[0]):
                yield from (Action(Act.WRITE, (other,), n) for n in values)

    # --- what the sheet holds ----------------------------------------------------------

    def replay(self) -> Replay:
        """The map as the moves so far leave it, the turn in progress included."""
        if self._now is None:
            now = self._base.fork()
            if self.options is not None:
                now.turn = self.round
                self.rules.turn(now, self.options, self._moves())
            now.found.clear()
            self._now = now
        return self._now

    def over_before_turn(self) -> bool:
        """The closed turns ended the game: the sheet's end, or a solo game's last round."""
        if self._ended is None:
            limit = self.title.solo_rounds if self.solo else None
            self._ended = self.rules.ended(self._base) or (
                limit is not None and len(self.closed) >= limit)
        return self._ended

    def over(self) -> bool:
        """The sheet as it stands has ended the game (full, or whatever else the title's
        rules say), or a solo game played its last round."""
        if self._over is None:
            limit = self.title.solo_rounds if self.solo else None
            played = len(self.closed) + (self.roll is not None and self.done)
            self._over = self.rules.ended(self.replay()) or (
                limit is not None and played >= limit)
        return self._over

    @property
    def hazards(self) -> int:
        """Hazards drawn on this sheet (standing or crossed out)."""
        return self.replay().hazards

    def tokens(self) -> tuple[tuple[str, ...], ...]:
        """The sheet as it stands, one token a position, as ``pitable score`` reads it."""
        if self._tokens is None:
            self._tokens = sheet_tokens(self.replay(), self.title.lone_marks[:1])
        return self._tokens

    def text(self) -> str:
        """The sheet as it stands in the format ``pitable score`` reads, its map named."""
        name = f"; {self.title.key} {self.sheet.side.value} {self.sheet.seed}"
        name += f" (map v{self.sheet.version})\n"
        return name + tokens_text(self.tokens())

    def score(self) -> Score:
        """The sheet's score as it stands, as ``pitable score`` counts it (kept with the
        sheet it counted: each view of it shows it, and a roll changes nothing on it)."""
        text = tokens_text(self.tokens())
        if self._scored is None or self._scored[0] != text:
            self._scored = (text, self.title.score(parse_sheet(text)))
        return self._scored[1]

    def history(self) -> list[TurnRecord]:
        """Every turn's roll and moves, the one in progress last."""
        turns = [TurnRecord(t.roll, t.actions) for t in self.closed]
        if self.roll is not None:
            turns.append(TurnRecord(self.roll, tuple(self._moves())))
        return turns


def sheet_tokens(replay: Replay, lone_mark: str = "") -> tuple[tuple[str, ...], ...]:
    """The tokens of the map as ``replay`` leaves it (the inverse of what the validator
    compares a finished sheet with): ``lone_mark`` is the letter of a value found at a
    position alone (a treasure's ``/T7``)."""
    groups: dict[Cell, str] = {}
    counts: dict[str, int] = {}
    for letter, cells in replay.discoveries:
        counts[letter] = counts.get(letter, 0) + 1
        for cell in cells:
            groups[cell] = f"/{letter}{counts[letter]}"
    rows = []
    for r, row in enumerate(replay.sheet.grid):
        out = []
        for c, kind in enumerate(row):
            cell = (r, c)
            number = replay.number.get(cell)
            mark = replay.mark.get(cell)
            if kind is Kind.OUTSIDE:
                token = Token.NONE.value
            elif mark is not None:
                token = mark
            elif kind is Kind.SPACE:
                token = str(number) if number is not None else Token.EMPTY.value
            else:
                token = kind.value + (str(number) if number is not None else "")
            token += groups.get(cell, "")
            if cell in replay.treasures and lone_mark:
                token += f"/{lone_mark}{replay.treasures[cell]}"
            out.append(token)
        rows.append(tuple(out))
    return tuple(rows)


def replay_sheet(sheet: Sheet, turns: Sequence[tuple[Roll, int, Iterable[Action], bool]], *,
                 solo: bool = False) -> PlayerSheet:
    """A player's sheet rebuilt from its stored turns: each roll, the hazards the box had
    marked before it, the moves kept, and whether the player said it was done. A stored
    move the rules now refuse is :class:`IllegalMove`."""
    player = PlayerSheet(sheet, solo=solo)
    for roll, hazards_marked, actions, done in turns:
        player.start_turn(roll, hazards_marked)
        for action in actions:
            player.play(action)
        if done:
            player.finish_turn()
    return player
