"""Skull Island's placement rules, as the replay validator checks them
(:mod:`pitable.rules.validate`): one number (or a boat on the Navigation face) a turn,
treasures between pairs, at most five dangers; the game ends on its fifth treasure or when
its spaces are full.

A treasure lies between the two numbers of its column's pair and between the two of its
row's (001: "the line between the horizontal pair"); a boat, in the sea, stands in for one
end of a pair.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pitable.rules.base import N_, Options
from pitable.rules.bot.model import Act, Action
from pitable.rules.sheets import Cell, Kind
from pitable.rules.titles.island import MOUNTAIN, NAVIGATION, SEA
from pitable.rules.titles.island.moves import BOAT, TREASURE
from pitable.rules.validate import Replay, ReplayRules, split_reveals

TREASURES = 5


def _island_turn(replay: Replay, options: Options, actions: Sequence[Action]) -> None:
    spaces = (Kind.SPACE,)
    split_reveals(replay, actions, TREASURE)
    filled: list[Cell] = []
    fills = [a for a in actions if a.act in (Act.WRITE, BOAT)]
    if options.hazard:
        replay.hazard_turn(actions, fills, spaces)
    else:
        for a in actions:
            if a.act not in (Act.WRITE, Act.CROSS, BOAT, TREASURE):
                replay.breach(a, N_("not a move of this roll"))
        can_boat = options.green is NAVIGATION and replay.has_empty(SEA)
        if len(fills) != 1 and (replay.has_empty(*spaces) or can_boat):
            replay.breach(None, N_("a turn fills one space, not {count}"), short=not fills,
                          count=len(fills))
    for a in actions:
        if a.act is Act.WRITE and not options.hazard:
            if replay.kind.get(a.cell) is not Kind.SPACE or not replay.empty(a.cell):
                replay.breach(a, N_("a number goes in an empty island space"))
                continue
            if a.value not in options.numbers:
                replay.breach(a, N_("the roll does not give this number"))
            replay.placed_beside(a, anchors=("B",), space_kinds=spaces,
                                 first=not replay.number)
            replay.number[a.cell] = int(a.value) if isinstance(a.value, int) else 0
            filled.append(a.cell)
        elif a.act is BOAT and not options.hazard:
            if options.green is not NAVIGATION:
                replay.breach(a, N_("a boat needs the Navigation face"))
            if replay.kind.get(a.cell) is not SEA or not replay.empty(a.cell):
                replay.breach(a, N_("a boat goes in an empty sea space"))
                continue
            replay.mark[a.cell] = "B"
            filled.append(a.cell)
        elif a.act is Act.CROSS:
            replay.cross_with_nine_on_sheet(a)
        elif a.act is TREASURE:
            _treasure(replay, a)
    replay.filled_before = filled


def _treasure(replay: Replay, action: Action) -> None:
    cell, value = action.cell, action.value
    row, col = cell
    if not isinstance(value, int) or value in replay.treasures.values():
        replay.breach(action, N_("each treasure is found with a different number"))
    elif len(replay.treasures) >= TREASURES:
        replay.breach(action, N_("{count} treasures at most"), count=TREASURES)
    elif replay.kind.get(cell) not in (Kind.SPACE, MOUNTAIN):
        replay.breach(action, N_("a treasure is never in the water"))
    elif cell in replay.treasures:
        replay.breach(action, N_("one treasure a space"))
    else:
        # The treasure lies on "the line between" each pair (001): one end of its column's
        # pair above it and one below, one end of its row's on each side; a boat (in the
        # sea) stands in for one end of a pair, never for both.
        lines = ((N_("the treasure is not between a pair of {value}s in its column"),
                  [c for c in replay.kind if c[1] == col], 0),
                 (N_("the treasure is not between a pair of {value}s in its row"),
                  [c for c in replay.kind if c[0] == row], 1))
        for rule, line, axis in lines:
            ends = []
            for side in (-1, 1):
                part = [c for c in line if (c[axis] - cell[axis]) * side > 0]
                ends.append((any(replay.number.get(c) == value for c in part),
                             any(replay.mark.get(c) == "B" for c in part)))
            (number_a, boat_a), (number_b, boat_b) = ends
            if not ((number_a and (number_b or boat_b)) or (number_b and boat_a)):
                replay.breach(action, rule, value=value)
                return
        replay.treasures[cell] = value


def _ended(replay: Replay) -> bool:
    return len(replay.treasures) == TREASURES or not replay.has_empty(Kind.SPACE)


def _offers(replay: Replay, options: Options) -> Iterator[Action]:
    """The Island's own moves a roll might allow: a boat in an empty sea space on
    Navigation, and a treasure of a number not found yet wherever its row and its column
    each hold that number (or a boat)."""
    if options.green is NAVIGATION and not options.hazard:
        yield from (Action(BOAT, (cell,)) for cell in replay.empties(SEA))
    if len(replay.treasures) >= TREASURES:
        return
    boats = {c for c, m in replay.mark.items() if m == "B"}
    for value in sorted(set(replay.number.values()) - set(replay.treasures.values())):
        ends = {c for c, n in replay.number.items() if n == value} | boats
        rows, cols = {r for r, _ in ends}, {c for _, c in ends}
        for cell, kind in replay.kind.items():
            if (kind in (Kind.SPACE, MOUNTAIN) and cell not in replay.treasures
                    and cell[0] in rows and cell[1] in cols):
                yield Action(TREASURE, (cell,), value)


#: The Island's rules for the replay (``Title.replay_rules``).
RULES = ReplayRules(_island_turn, _ended, _offers, writes_apart=True,
                    words={"boat": N_("boat"), "treasure": N_("Treasure")})
