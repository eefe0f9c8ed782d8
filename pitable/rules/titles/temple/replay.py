"""The Temple of Apikhabou's placement rules, as the replay validator checks them
(:mod:`pitable.rules.validate`): one number a turn, in a Door on a Lockpick, a mummy crossed
out beside a 9 already on the sheet.
"""

from __future__ import annotations

from collections.abc import Sequence

from pitable.rules.base import N_, Options
from pitable.rules.bot.model import Act, Action
from pitable.rules.sheets import Cell, Kind
from pitable.rules.titles.temple import DOOR, LOCKPICK
from pitable.rules.validate import Replay, ReplayRules


def _temple_turn(replay: Replay, options: Options, actions: Sequence[Action]) -> None:
    spaces = (Kind.SPACE,)
    filled: list[Cell] = []
    writes = [a for a in actions if a.act is Act.WRITE]
    if options.hazard:
        replay.hazard_turn(actions, writes, spaces)
    else:
        lockpick = options.green is LOCKPICK and replay.has_empty(DOOR)
        where = (DOOR,) if lockpick else spaces
        if len(writes) != 1 and replay.has_empty(*where):
            replay.breach(None, N_("a turn writes one number, not {count}"),
                          short=not writes, count=len(writes))
        for a in actions:
            if a.act not in (Act.WRITE, Act.CROSS):
                replay.breach(a, N_("not a move of this roll"))
        for a in writes:
            if a.value not in options.numbers:
                replay.breach(a, N_("the roll does not give this number"))
            if replay.kind.get(a.cell) not in where or not replay.empty(a.cell):
                rule = (N_("the Lockpick puts the number in an empty Door") if lockpick
                        else N_("a number goes in an empty doorless space"))
                replay.breach(a, rule)
                continue
            replay.number[a.cell] = int(a.value) if isinstance(a.value, int) else 0
            filled.append(a.cell)
    for a in actions:
        if a.act is Act.CROSS:
            replay.cross_with_nine_on_sheet(a)
    replay.filled_before = filled


#: The Temple's rules for the replay (``Title.replay_rules``).
RULES = ReplayRules(_temple_turn, writes_apart=True)
