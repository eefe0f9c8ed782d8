"""The validator: hand-made games that break one placement rule each are caught, by that
rule; the same games kept legal are not; a finished sheet that differs from its moves is."""

from __future__ import annotations

from collections import deque

import pytest

from pitable.rules.bot import Act, Action, TurnRecord, game_rng, play
from pitable.rules.dice import Roll
from pitable.rules.scoring import parse_sheet
from pitable.rules.sheets import Cell, Kind, Sheet, generate, neighbours
from pitable.rules.titles import Title, island, temple
from pitable.rules.titles.island import moves as island_moves
from pitable.rules.titles.valley import moves as valley_moves
from pitable.rules.validate import breaches
from tests.support.titles import title_params

STOPPED = "the game stopped before its end"


def rules(sheet: Sheet, *turns: TurnRecord) -> list[str]:
    """The rules the turns break, in words (a short game also stops before its end)."""
    return [b.rule for b in breaches(sheet, turns)]


def broken(sheet: Sheet, *turns: TurnRecord) -> list[str]:
    """The rules the turns break, leaving out that a hand-made game stops early."""
    return [r for r in rules(sheet, *turns) if r != STOPPED]


def turn(roll: str, *actions: Action) -> TurnRecord:
    return TurnRecord(Roll.from_str(roll), actions)


def write(cell: Cell, value: int) -> Action:
    return Action(Act.WRITE, (cell,), value)


def at(act: Act, cell: Cell, value: int | str | None = None) -> Action:
    return Action(act, (cell,), value)


def reached(sheet: Sheet, *kinds: Kind) -> list[Cell]:
    """The spaces of ``kinds`` in breadth-first order from the map's starts: each one after
    the first is adjacent to one before it, so numbers written in this order are legal."""
    allowed = set(sheet.cells(*kinds))
    first = min(sheet.starts)
    order = [first]
    seen = {first}
    todo = deque(order)
    while todo:
        for n in neighbours(todo.popleft()):
            if n in allowed and n not in seen:
                seen.add(n)
                order.append(n)
                todo.append(n)
    return order


def far_from(sheet: Sheet, cells: list[Cell], *kinds: Kind) -> Cell:
    """A space of ``kinds`` adjacent to none of ``cells`` and not one of them."""
    near = {n for c in cells for n in neighbours(c)} | set(cells)
    return next(c for c in sheet.cells(*kinds) if c not in near)


# --- the Valley --------------------------------------------------------------------------

VALLEY = generate("valley", 7)
PATH = reached(VALLEY, Kind.SPACE)
OPENING = turn("1,2,3", write(PATH[0], 1), write(PATH[1], 2), write(PATH[2], 3))


def test_a_legal_valley_opening_breaks_nothing_but_stops_early() -> None:
    assert rules(VALLEY, OPENING) == [STOPPED]


def test_valley_the_first_space_goes_beside_a_cloud() -> None:
    inland = far_from(VALLEY, sorted(VALLEY.starts), Kind.SPACE)
    assert broken(VALLEY, turn("1,2,3", write(inland, 1))) == [
        "the first space must be one where the map starts"
    ]


def test_valley_a_number_goes_beside_a_number_or_structure() -> None:
    away = far_from(VALLEY, PATH[:3], Kind.SPACE)
    assert broken(VALLEY, OPENING, turn("4,4,4", write(away, 4))) == [
        "not adjacent to a number while such a space is empty"
    ]


def test_valley_a_space_is_filled_once() -> None:
    assert broken(VALLEY, OPENING, turn("4,4,4", write(PATH[0], 4))) == [
        "not an empty space of the valley"
    ]


@pytest.mark.parametrize(
    ("roll", "values"),
    [("1,1,1", [5]), ("1,1,1", [1, 1, 1, 1]), ("2,3,5", [7, 8]), ("1,*,4", [5, 5, 1])],
)
def test_valley_the_numbers_are_one_grouping_of_the_dice(roll: str, values: list[int]) -> None:
    writes = [write(PATH[3 + k], v) for k, v in enumerate(values)]
    assert any("not a grouping of the dice" in r for r in broken(VALLEY, OPENING,
                                                                     turn(roll, *writes)))


def test_valley_penny_papers_is_one_number_from_1_to_15_beside_the_other_dice() -> None:
    writes = [write(PATH[3], 15), write(PATH[4], 4), write(PATH[5], 1)]
    assert broken(VALLEY, OPENING, turn("1,*,4", *writes)) == []


def test_valley_a_structure_needs_dakota_smiths_face_and_is_drawn_once() -> None:
    assert broken(VALLEY, OPENING, turn("1,2,3", at(valley_moves.STRUCTURE, PATH[3], "H"))) == [
        "a structure needs Dakota Smith's face"
    ]
    hut = turn("*,1,1", at(valley_moves.STRUCTURE, PATH[3], "H"))
    assert broken(VALLEY, OPENING, hut) == []
    again = turn("*,2,2", at(valley_moves.STRUCTURE, PATH[4], "H"))
    assert broken(VALLEY, OPENING, hut, again) == ["each structure is drawn once"]


def test_valley_a_snake_roll_ignores_the_other_dice() -> None:
    snake = at(Act.HAZARD, PATH[3])
    assert broken(VALLEY, OPENING, turn("1,2,*", snake, write(PATH[4], 3))) == [
        "a snake was rolled: the other dice are ignored"
    ]


def test_valley_the_solo_snake_goes_beside_last_turns_spaces() -> None:
    away = far_from(VALLEY, PATH[:3], Kind.SPACE)
    assert broken(VALLEY, OPENING, turn("1,2,*", at(Act.HAZARD, away))) == [
        "the solo hazard goes beside a space filled last turn"
    ]
    # After a turn that filled nothing (a snake's), the next snake goes anywhere.
    near = turn("1,2,*", at(Act.HAZARD, PATH[3]))
    assert broken(VALLEY, OPENING, near, turn("3,3,*", at(Act.HAZARD, away))) == []


def test_valley_a_snake_is_crossed_out_with_a_9_made_from_the_dice() -> None:
    snake = turn("1,2,*", at(Act.HAZARD, PATH[3]))
    with_nine = turn("4,5,1", at(Act.CROSS, PATH[3]), write(PATH[4], 1))
    assert broken(VALLEY, OPENING, snake, with_nine) == []
    without = turn("1,2,3", at(Act.CROSS, PATH[3]))
    assert any("not a grouping" in r for r in broken(VALLEY, OPENING, snake, without))
    assert broken(VALLEY, OPENING, turn("4,5,1", at(Act.CROSS, PATH[4]))) == [
        "no snake stands there to cross out"
    ]


def discover(letter: str, cells: list[Cell]) -> Action:
    return Action(valley_moves.DISCOVER, tuple(cells), letter)


def filled(values: list[int]) -> list[TurnRecord]:
    """Turns writing ``values`` along PATH, one a turn, each with Penny Papers' face."""
    return [turn("1,*,1", write(PATH[k], v)) for k, v in enumerate(values)]


@pytest.mark.parametrize(
    ("values", "letter", "size", "rule"),
    [
        ([1, 2, 3, 4, 5], "j", 5, None),
        ([1, 2, 3, 4, 1], "j", 5, "a jungle's five values differ"),
        ([1, 2, 3, 4], "j", 4, "5 spaces"),
        ([3, 3, 3, 3], "t", 4, None),
        ([3, 3, 3, 4], "t", 4, "a town's four values are identical"),
        ([3, 3, 3, 3, 3], "t", 5, "4 spaces"),
        ([6, 9, 12], "r", 3, None),
        ([6, 5, 12], "r", 3, "a mountain range's values are 6 or more"),
        ([6, 6], "r", 2, "3 spaces"),
    ],
)
def test_valley_a_discovery_keeps_its_rule(
    values: list[int], letter: str, size: int, rule: str | None
) -> None:
    # PATH's first spaces are the first space and spaces adjacent to it: one group.
    turns = filled(values)
    last = turns[-1]
    turns[-1] = TurnRecord(last.roll, (*last.actions, discover(letter, PATH[:size])))
    assert broken(VALLEY, *turns) == ([] if rule is None else [rule])


@pytest.mark.parametrize(
    ("values", "letter", "culprit"),
    [
        ([1, 2, 3, 4, 2], "j", 4),  # the second 2
        ([3, 3, 3, 4], "t", 3),  # the 4 among 3s
        ([4, 3, 3, 3], "t", 0),  # the 4 among 3s, first
        ([6, 5, 12], "r", 1),  # the value below 6
    ],
)
def test_valley_a_refused_discovery_names_the_space_that_breaks_it(
    values: list[int], letter: str, culprit: int
) -> None:
    turns = filled(values)
    last = turns[-1]
    turns[-1] = TurnRecord(last.roll, (*last.actions, discover(letter, PATH[: len(values)])))
    (found,) = [b for b in breaches(VALLEY, turns) if b.rule != STOPPED]
    assert found.cell == PATH[culprit]
    r, c = PATH[culprit]
    assert str(found).endswith(f"(row {r + 1}, column {c + 1})")


def test_valley_a_discovery_on_a_snakes_turn_is_a_breach() -> None:
    # 000: "After everyone has filled their one to three spaces for this turn (or crossed
    # out a snake), each player can choose to reveal a single one of the following
    # discoveries."
    turns = filled([6, 9, 12])
    snake = turn("1,2,*", at(Act.HAZARD, PATH[3]), discover("r", PATH[:3]))
    assert broken(VALLEY, *turns, snake) == [
        "a discovery follows the turn's spaces or a snake crossed out, never a snake's turn"
    ]
    # The same discovery on the next turn, after its spaces, is the rule kept.
    later = turn("1,1,1", write(PATH[4], 1), discover("r", PATH[:3]))
    snake = turn("1,2,*", at(Act.HAZARD, PATH[3]))
    assert broken(VALLEY, *turns, snake, later) == []
    # So is one after a turn that only crossed out a snake with a 9 from the dice.
    crossed = turn("4,5,1", at(Act.CROSS, PATH[3]), discover("r", PATH[:3]))
    assert broken(VALLEY, *turns, snake, crossed) == []


def test_valley_a_pyramid_is_four_of_10_or_more_a_base_of_three_and_one_beside_its_middle(
) -> None:
    spaces = set(VALLEY.cells(Kind.SPACE))
    shape = next(
        [(r, c - 1), (r, c), (r, c + 1), (r + 1, c)]
        for r, c in sorted(spaces)
        if {(r, c - 1), (r, c + 1), (r + 1, c)} <= spaces
    )
    line = next(
        [(r, c), (r, c + 1), (r, c + 2), (r, c + 3)]
        for r, c in sorted(spaces)
        if {(r, c + 1), (r, c + 2), (r, c + 3)} <= spaces
    )
    rule = "a pyramid is four values of 10 or more, a base of three and one above"
    for cells, high, expected in ((shape, 14, []), (line, 14, [rule]), (shape, 9, [rule])):
        upto = max(PATH.index(c) for c in cells) + 1
        turns = [turn("1,*,1", write(c, high if c in cells else 1)) for c in PATH[:upto]]
        last = turns[-1]
        turns[-1] = TurnRecord(last.roll, (*last.actions, discover("p", cells)))
        assert broken(VALLEY, *turns) == expected


def test_valley_one_discovery_a_turn_and_one_discovery_a_space() -> None:
    turns = filled([1, 2, 3, 4, 5, 6, 7])
    jungle = discover("j", PATH[:5])
    both = TurnRecord(turns[-1].roll, (*turns[-1].actions, jungle, discover("j", PATH[:5])))
    assert broken(VALLEY, *turns[:-1], both)[0] == "one discovery a turn at most"
    first = TurnRecord(turns[5].roll, (*turns[5].actions, jungle))
    again = TurnRecord(turns[6].roll, (*turns[6].actions, jungle))
    assert broken(VALLEY, *turns[:5], first, again) == [
        "a space belongs to one discovery at most"
    ]


def test_valley_no_two_towns_of_one_value() -> None:
    spaces = set(VALLEY.cells(Kind.SPACE))
    # Two squares of four spaces near the first, apart: the game to fill them stays short.
    squares = sorted(
        ([(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)]
         for r, c in sorted(spaces)
         if {(r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1)} <= set(PATH[:20])),
        key=lambda q: max(PATH.index(c) for c in q),
    )
    one = squares[0]
    two = next(q for q in squares if not {n for c in one for n in neighbours(c)} & set(q))
    for second, expected in ((3, ["no two towns of one value"]), (4, [])):
        def value(c: Cell, second: int = second) -> int:
            return 3 if c in one else second if c in two else 1

        upto = max(PATH.index(c) for c in one + two) + 1
        turns = [turn("1,*,1", write(c, value(c))) for c in PATH[:upto]]
        turns += [turn("1,1,1", write(PATH[upto], 1), discover("t", one)),
                  turn("1,1,1", write(PATH[upto + 1], 1), discover("t", two))]
        assert broken(VALLEY, *turns) == expected


def test_valley_the_game_lasts_25_rounds() -> None:
    turns = filled([1] * 26)
    assert rules(VALLEY, *turns[:25]) == []
    assert rules(VALLEY, *turns) == ["a turn after the game's end"]
    assert rules(VALLEY, *turns[:24]) == [STOPPED]


# --- Skull Island ------------------------------------------------------------------------

#: Island 7 of map v2 (a map still drawn under its format), whose spots the tests name.
ISLAND = generate("island", 7, "a", 2)
SHORE = reached(ISLAND, Kind.SPACE)
SEA = ISLAND.cells(island.SEA)
LANDING = turn("1,2,3", write(SHORE[0], 6))


def test_a_legal_island_opening_breaks_nothing_but_stops_early() -> None:
    assert rules(ISLAND, LANDING, turn("1,1,1", write(SHORE[1], 3))) == [STOPPED]


def test_island_the_first_number_goes_beside_the_sea() -> None:
    inland = next(c for c in ISLAND.cells(Kind.SPACE) if c not in ISLAND.starts)
    assert broken(ISLAND, turn("1,2,3", write(inland, 6))) == [
        "the first space must be one where the map starts"
    ]


def test_island_a_number_goes_in_an_empty_island_space_beside_a_number_or_boat() -> None:
    mountain = ISLAND.cells(island.MOUNTAIN)[0]
    assert broken(ISLAND, LANDING, turn("1,1,1", write(mountain, 3))) == [
        "a number goes in an empty island space"
    ]
    assert broken(ISLAND, LANDING, turn("1,1,1", write(SEA[0], 3))) == [
        "a number goes in an empty island space"
    ]
    away = far_from(ISLAND, [SHORE[0]], Kind.SPACE)
    assert broken(ISLAND, LANDING, turn("1,1,1", write(away, 3))) == [
        "not adjacent to a number while such a space is empty"
    ]


def test_island_one_number_the_roll_gives() -> None:
    assert broken(ISLAND, LANDING, turn("1,1,1", write(SHORE[1], 5))) == [
        "the roll does not give this number"
    ]
    assert broken(ISLAND, LANDING, turn("1,1,1", write(SHORE[1], 1), write(SHORE[2], 2))) == [
        "a turn fills one space, not 2"
    ]


def test_island_a_boat_needs_navigation_and_the_sea() -> None:
    assert broken(ISLAND, LANDING, turn("1,2,3", at(island_moves.BOAT, SEA[0]))) == [
        "a boat needs the Navigation face"
    ]
    assert broken(ISLAND, LANDING, turn("*,2,3", at(island_moves.BOAT, SEA[0]))) == []
    assert broken(ISLAND, LANDING, turn("*,2,3", at(island_moves.BOAT, SHORE[1]))) == [
        "a boat goes in an empty sea space"
    ]


def test_island_the_solo_danger_goes_beside_last_turns_space() -> None:
    away = far_from(ISLAND, [SHORE[0]], Kind.SPACE)
    assert broken(ISLAND, LANDING, turn("1,2,*", at(Act.HAZARD, away))) == [
        "the solo hazard goes beside a space filled last turn"
    ]
    beside = next(n for n in neighbours(SHORE[0]) if n in ISLAND.cells(Kind.SPACE))
    assert broken(ISLAND, LANDING, turn("1,2,*", at(Act.HAZARD, beside))) == []


def test_island_a_danger_is_crossed_out_beside_a_9() -> None:
    beside = [n for n in neighbours(SHORE[0]) if n in ISLAND.cells(Kind.SPACE)]
    danger_at, nine_at = next((a, b) for a in beside for b in beside if b in neighbours(a))
    danger = turn("1,2,*", at(Act.HAZARD, danger_at))
    three = turn("1,1,1", write(nine_at, 3), at(Act.CROSS, danger_at))
    assert broken(ISLAND, LANDING, danger, three) == ["a hazard is crossed out only beside a 9"]
    nine = turn("4,5,1", write(nine_at, 9), at(Act.CROSS, danger_at))
    assert broken(ISLAND, LANDING, danger, nine) == []


def test_island_a_treasure_needs_its_pairs_dry_land_and_a_value_of_its_own() -> None:
    mountain = ISLAND.cells(island.MOUNTAIN)[0]
    claim = turn("1,1,1", write(SHORE[1], 3), at(island_moves.TREASURE, mountain, 6))
    assert broken(ISLAND, LANDING, claim)[0].startswith("the treasure is not between a pair")
    wet = turn("1,1,1", write(SHORE[1], 3), at(island_moves.TREASURE, SEA[0], 6))
    assert broken(ISLAND, LANDING, wet) == ["a treasure is never in the water"]
    # A game of the bot's with a treasure: claiming the same value again is refused.
    game = next(g for g in (play(ISLAND, game_rng(d, 0), "greedy") for d in range(50))
                if sum(a.act is island_moves.TREASURE for t in g.turns for a in t.actions) >= 2)
    k, treasure = next((k, a) for k, t in enumerate(game.turns) for a in t.actions
                       if a.act is island_moves.TREASURE)
    turns = list(game.turns[: k + 2])
    again = Action(island_moves.TREASURE, treasure.cells, treasure.value)
    turns[-1] = TurnRecord(turns[-1].roll, (*turns[-1].actions, again))
    assert "each treasure is found with a different number" in broken(ISLAND, *turns)


#: A treasure spot of island 7 (a mountain) with island spaces on every side of it.
SPOT = (5, 2)


def claimed(values: dict[Cell, int], value: int, *extra: TurnRecord) -> list[TurnRecord]:
    """Island 7's spaces written one a turn (Penny Papers' number of choice) in an order
    that keeps each beside the last, ``values`` where it says and 1 elsewhere, until every
    space of ``values`` holds its number; then ``extra``; then a last 1 written and the
    treasure of ``value`` claimed at :data:`SPOT`."""
    last = max(SHORE.index(c) for c in values)
    turns = [turn("1,*,1", write(c, values.get(c, 1))) for c in SHORE[: last + 1]]
    final = turn("1,*,1", write(SHORE[last + 1], 1), at(island_moves.TREASURE, SPOT, value))
    return [*turns, *extra, final]


def test_island_a_treasure_lies_between_the_two_numbers_of_each_pair() -> None:
    # 001: "The intersection of the line between the horizontal pair and the line between
    # the vertical pair reveals the location of the treasure."
    assert ISLAND.kind(SPOT) is island.MOUNTAIN
    cross = {(4, 2): 6, (7, 2): 6, (5, 1): 6, (5, 5): 6}
    assert broken(ISLAND, *claimed(cross, 6)) == []
    # Both 6s of the row on its right: they pinpoint no treasure there.
    right = {(4, 2): 6, (7, 2): 6, (5, 3): 6, (5, 5): 6}
    assert broken(ISLAND, *claimed(right, 6)) == [
        "the treasure is not between a pair of 6s in its row"]
    # Both 6s of the column above it.
    above = {(4, 2): 6, (2, 2): 6, (5, 1): 6, (5, 5): 6}
    assert broken(ISLAND, *claimed(above, 6)) == [
        "the treasure is not between a pair of 6s in its column"]


def test_island_a_boat_at_a_rows_end_stands_in_for_its_outer_number() -> None:
    boat = turn("*,2,3", at(island_moves.BOAT, (5, 0)))
    assert ISLAND.kind((5, 0)) is island.SEA
    one_six = {(4, 2): 6, (7, 2): 6, (5, 5): 6}
    assert broken(ISLAND, *claimed(one_six, 6, boat)) == []
    # The boat on the same side as the row's only 6 stands in for nothing.
    left_six = {(4, 2): 6, (7, 2): 6, (5, 1): 6}
    assert broken(ISLAND, *claimed(left_six, 6, boat)) == [
        "the treasure is not between a pair of 6s in its row"]


def test_island_the_game_ends_at_the_fifth_treasure_or_a_full_island() -> None:
    game = play(ISLAND, game_rng(1, 0))
    assert rules(ISLAND, *game.turns) == []
    assert rules(ISLAND, *game.turns[:-1]) == [STOPPED]
    extra = TurnRecord(Roll.from_str("1,2,3"), ())
    assert rules(ISLAND, *game.turns, extra) == ["a turn after the game's end"]


# --- the Temple -------------------------------------------------------------------------

TEMPLE = generate("temple", 7)
ROOM = TEMPLE.cells(Kind.SPACE)
DOOR = TEMPLE.cells(temple.DOOR)


def test_temple_a_number_goes_in_any_empty_doorless_space() -> None:
    assert rules(TEMPLE, turn("1,2,3", write(ROOM[0], 6)),
                 turn("1,1,1", write(ROOM[-1], 2))) == [STOPPED]
    assert broken(TEMPLE, turn("1,2,3", write(DOOR[0], 6))) == [
        "a number goes in an empty doorless space"
    ]
    assert broken(TEMPLE, turn("1,2,3", write(ROOM[0], 6)), turn("1,2,3", write(ROOM[0], 5))) == [
        "a number goes in an empty doorless space"
    ]


def test_temple_the_lockpick_puts_the_number_in_a_door() -> None:
    assert broken(TEMPLE, turn("*,2,3", write(DOOR[0], 5))) == []
    assert broken(TEMPLE, turn("*,2,3", write(ROOM[0], 5))) == [
        "the Lockpick puts the number in an empty Door"
    ]


def test_temple_one_number_the_roll_gives() -> None:
    assert broken(TEMPLE, turn("1,1,1", write(ROOM[0], 4))) == [
        "the roll does not give this number"
    ]
    assert broken(TEMPLE, turn("1,1,1", write(ROOM[0], 1), write(ROOM[1], 2))) == [
        "a turn writes one number, not 2"
    ]


def test_temple_the_solo_mummy_goes_beside_last_turns_space_and_is_crossed_beside_a_9() -> None:
    start = ROOM[len(ROOM) // 2]
    beside = [n for n in neighbours(start) if n in ROOM]
    away = far_from(TEMPLE, [start], Kind.SPACE)
    opening = turn("4,5,1", write(start, 9))
    assert broken(TEMPLE, opening, turn("1,1,*", at(Act.HAZARD, away))) == [
        "the solo hazard goes beside a space filled last turn"
    ]
    assert broken(TEMPLE, opening, turn("1,1,*", at(Act.HAZARD, beside[0]),
                                        at(Act.CROSS, beside[0]))) == []
    assert broken(TEMPLE, turn("1,1,1", write(start, 3)),
                  turn("1,1,*", at(Act.HAZARD, beside[0]), at(Act.CROSS, beside[0]))) == [
        "a hazard is crossed out only beside a 9"
    ]


# --- the finished sheet -------------------------------------------------------------------


@pytest.mark.parametrize(
    "title", title_params(lambda t: t.bot() is not None and t.replay_rules() is not None),
    indirect=True)
def test_a_finished_sheet_that_differs_from_its_moves_is_named(title: Title) -> None:
    sheet = generate(title, 3)
    played = play(sheet, game_rng(0, 0))
    assert breaches(sheet, played.turns, parse_sheet(played.sheet_text())) == []
    rows = [list(row) for row in played.tokens]
    r, c = next((r, c) for r, row in enumerate(rows) for c, t in enumerate(row) if t.isdigit())
    rows[r][c] = "15" if rows[r][c] != "15" else "14"
    text = "\n".join(" ".join(row) for row in rows)
    found = [str(b) for b in breaches(sheet, played.turns, parse_sheet(text))]
    assert found == [f"the finished sheet: row {r + 1}, column {c + 1} shows '{rows[r][c]}',"
                     " not what the moves leave"]
