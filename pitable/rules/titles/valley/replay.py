"""The Valley of Wiraqocha's placement rules, as the replay validator checks them
(:mod:`pitable.rules.validate`): up to three spaces a turn from one grouping of the dice,
one structure on Dakota Smith's face, a snake crossed out with a 9 made from the dice, and
the discoveries' shapes and values. Written apart from the Valley's bot player, from the
rulebook, so that it checks the player rather than repeats it.

A discovery follows a turn's spaces "(or crossed out a snake)" (000): never on a snake's
turn. A snake crossed out takes a 9 made from the dice of that turn, not written.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator, Sequence

from pitable.rules.base import N_, PENNY, Options, Play
from pitable.rules.bot.model import Act, Action
from pitable.rules.sheets import Cell, Kind
from pitable.rules.titles.valley import BUILD
from pitable.rules.titles.valley.moves import DISCOVER, STRUCTURE
from pitable.rules.validate import NINE, Replay, ReplayRules, groups, split_reveals

#: Each discovery's spaces, by letter.
SIZES = {"j": 5, "t": 4, "r": 3, "p": 4}
STRUCTURE_LETTERS = ("H", "S", "M")
#: The moves of the Valley; any other title's is not a move of any roll here.
ACTS = (Act.WRITE, Act.HAZARD, Act.CROSS, STRUCTURE, DISCOVER)


def _fits_a_play(used: list[int], options: Options) -> bool:
    """``used`` (numbers written, and a 9 for each snake crossed) is part of one way of
    grouping the dice: a sub-multiset of a play, Penny Papers standing for any 1 to 15."""
    return _fits(tuple(sorted(used)), options.plays)


@functools.lru_cache(maxsize=1024)
def _fits(used: tuple[int, ...], plays: tuple[Play, ...]) -> bool:
    """:func:`_fits_a_play`, kept: a phone's moves allowed next ask it of the same few
    numbers once for every empty space."""
    want = Counter(used)
    for have, penny in _plays(plays):
        short = want - have
        if sum(short.values()) <= penny and all(1 <= v <= 15 for v in short):
            return True
    return False


@functools.lru_cache(maxsize=64)
def _plays(plays: tuple[Play, ...]) -> tuple[tuple[Counter[int], int], ...]:
    """Each play's numbers counted, and its Penny Papers: worked out once a roll, as every
    move of a turn being played is checked against them."""
    return tuple((Counter(v for v in play if isinstance(v, int)),
                  sum(1 for v in play if v == PENNY)) for play in plays)


def _valley_turn(replay: Replay, options: Options, actions: Sequence[Action]) -> None:
    spaces = (Kind.SPACE,)
    split_reveals(replay, actions, DISCOVER)
    filled: list[Cell] = []
    if options.hazard:
        ignored = [a for a in actions if a.act in (Act.WRITE, STRUCTURE, Act.CROSS)
                   or a.act not in ACTS]
        replay.hazard_turn(actions, ignored, spaces)
    else:
        used: list[int] = []
        structures = 0
        for a in actions:
            if a.act is Act.HAZARD or a.act not in ACTS:
                replay.breach(a, N_("not a move of this roll"))
            elif a.act is Act.CROSS:
                used.append(NINE)
                if replay.mark.get(a.cell) != "X":
                    replay.breach(a, N_("no snake stands there to cross out"))
                else:
                    replay.mark[a.cell] = "x"
            elif a.act in (Act.WRITE, STRUCTURE):
                first = not any(v in STRUCTURE_LETTERS for v in replay.mark.values()) and not (
                    replay.number
                )
                if replay.kind.get(a.cell) is not Kind.SPACE or not replay.empty(a.cell):
                    replay.breach(a, N_("not an empty space of the valley"))
                    continue
                replay.placed_beside(a, anchors=STRUCTURE_LETTERS, space_kinds=spaces,
                                     first=first)
                if a.act is Act.WRITE:
                    if not isinstance(a.value, int):
                        replay.breach(a, N_("a number is written"))
                        continue
                    used.append(a.value)
                    replay.number[a.cell] = a.value
                else:
                    structures += 1
                    if options.green is not BUILD:
                        replay.breach(a, N_("a structure needs Dakota Smith's face"))
                    elif structures > 1:
                        replay.breach(a, N_("one structure a roll"))
                    elif a.value not in STRUCTURE_LETTERS or a.value in replay.mark.values():
                        replay.breach(a, N_("each structure is drawn once"))
                    replay.mark[a.cell] = str(a.value)
                filled.append(a.cell)
        if not _fits_a_play(used, options):
            replay.breach(None, N_("the numbers {numbers} are not a grouping of the dice"),
                          numbers=sorted(used))
        moved = any(a.act in (Act.WRITE, STRUCTURE, Act.CROSS) for a in actions)
        if not moved and replay.has_empty(*spaces):
            replay.breach(None, N_("a turn fills a space or crosses out a snake"), short=True)
    for a in actions:
        if a.act is DISCOVER and options.hazard:
            # 000: "After everyone has filled their one to three spaces for this turn (or
            # crossed out a snake)": a snake's turn fills nothing and crosses nothing out.
            replay.breach(a, N_("a discovery follows the turn's spaces or a snake crossed"
                                " out, never a snake's turn"))
        elif a.act is DISCOVER:
            _discovery(replay, a)
    replay.filled_before = filled


def _discovery(replay: Replay, action: Action) -> None:
    letter = action.value
    cells = list(action.cells)
    if letter not in SIZES:
        replay.breach(action, N_("no such discovery"))
        return
    taken = {c for _, group in replay.discoveries for c in group}
    values = [replay.number.get(c) for c in cells]
    size = SIZES[letter]
    if len(set(cells)) != size or len(cells) != len(set(cells)):
        replay.breach(action, N_("{count} spaces"), cells[size] if len(cells) > size else None,
                      count=size)
        return
    # The rule broken, and the space that breaks it (None where it is all of them).
    problem, culprit = "", None
    if None in values:
        problem, culprit = N_("every space holds a number"), cells[values.index(None)]
    elif set(cells) & taken:
        problem = N_("a space belongs to one discovery at most")
        culprit = next(c for c in cells if c in taken)
    elif not _adjacent_group(set(cells)):
        problem = N_("its spaces are one adjacent group")
        joined = _joined(cells[0], set(cells))
        culprit = next(c for c in cells if c not in joined)
    elif letter == "j" and len(set(values)) != len(values):
        problem = N_("a jungle's five values differ")
        culprit = next(c for k, c in enumerate(cells) if values[k] in values[:k])
    elif letter == "t" and len(set(values)) != 1:
        problem = N_("a town's four values are identical")
        most = Counter(values).most_common(1)[0][0]
        culprit = next(c for k, c in enumerate(cells) if values[k] != most)
    elif letter == "t" and any(
        k == "t" and replay.number[next(iter(g))] == values[0] for k, g in replay.discoveries
    ):
        problem = N_("no two towns of one value")
    elif letter == "r" and any(v is None or v < 6 for v in values):
        problem = N_("a mountain range's values are 6 or more")
        culprit = next(c for k, c in enumerate(cells) if (values[k] or 0) < 6)
    elif letter == "p" and (any(v is None or v < 10 for v in values) or not _t_shape(set(cells))):
        problem = N_("a pyramid is four values of 10 or more, a base of three and one"
                     " above")
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


def _offers(replay: Replay, options: Options) -> Iterator[Action]:
    """The Valley's own moves a roll might allow: a structure not drawn yet in an empty
    space on Dakota Smith's face, and the discoveries the sheet's numbers hold."""
    if options.hazard:
        return
    if options.green is BUILD:
        drawn = set(replay.mark.values())
        letters = [s for s in STRUCTURE_LETTERS if s not in drawn]
        for cell in replay.empties(Kind.SPACE):
            yield from (Action(STRUCTURE, (cell,), letter) for letter in letters)
    taken = {c for _, group in replay.discoveries for c in group}
    free = {c for c in replay.number if c not in taken}
    value = replay.number.__getitem__
    fits = {
        "j": lambda g: len({value(c) for c in g}) == len(g),
        "t": lambda g: len({value(c) for c in g}) == 1,
        "r": lambda g: value(g[-1]) >= 6,
        "p": lambda g: value(g[-1]) >= 10,
    }
    for letter, size in SIZES.items():
        for group in groups(free, size, fits[letter]):
            yield Action(DISCOVER, tuple(sorted(group)), letter)


#: The Valley's rules for the replay (``Title.replay_rules``).
RULES = ReplayRules(_valley_turn, offers=_offers, writes_apart=True, words={
    "H": N_("hut"), "S": N_("statue"), "M": N_("mine"), "j": N_("Jungle"), "t": N_("Town"),
    "r": N_("Mountain range"), "p": N_("Pyramid"),
})
