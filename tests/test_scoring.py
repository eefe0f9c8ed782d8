"""Scoring a finished sheet, rule by rule, in each title (the rulebooks' "counting your
stars" and the rulings in docs/rules.md)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitable.errors import BadSheet
from pitable.rules import scoring
from pitable.rules.scoring import FinishedSheet, Score, parse_sheet, parse_token
from pitable.rules.sheets import Side, generate
from pitable.rules.titles import Title, all_titles, find_title, registered
from tests.support.titles import says_its_shapes
from tests.toy_title import ToyCupboard

EXAMPLES = Path(__file__).parent / "golden" / "scoring"


def score(game: str, text: str) -> Score:
    return find_title(game).score(parse_sheet(text))


def refused(game: str, text: str, *words: str) -> str:
    """The message of the BadSheet ``text`` raises; every one of ``words`` is in it."""
    with pytest.raises(BadSheet) as caught:
        score(game, text)
    message = str(caught.value)
    for word in words:
        assert word in message
    return message


# --- reading a sheet ------------------------------------------------------------


def test_comments_and_blank_lines_are_skipped_and_rows_are_counted_without_them() -> None:
    sheet = parse_sheet("; a comment\n\n1 2\n  ; another\n3 #\n")
    assert sheet.height == 2
    assert [s.number for s in sheet.rows[1]] == [3, None]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("1 2\n3 2 1\n", "row 2"),
        ("1 2\n3 Q\n", "row 2, column 2"),
        ("1 16\n", "row 1, column 2"),
        ("0\n", "row 1, column 1"),
        ("/j1\n", "row 1, column 1"),
        ("X7\n", "row 1, column 1"),
    ],
)
def test_a_token_that_is_none_or_rows_of_different_lengths_are_named(text: str, where: str) -> None:
    with pytest.raises(BadSheet, match=where):
        parse_sheet(text)


def test_a_sheet_with_no_row_is_refused() -> None:
    with pytest.raises(BadSheet, match="empty"):
        parse_sheet("; only a comment\n\n")


@pytest.mark.parametrize(
    ("game", "token"), [("valley", "~"), ("valley", "D"), ("island", "H"), ("temple", "B"),
                        ("temple", "4/T4"), ("island", "4/j1"), ("valley", "^")]
)
def test_a_token_the_title_does_not_know_is_refused_naming_its_cell(game: str, token: str) -> None:
    refused(game, f"1 2\n3 {token}\n", "row 2, column 2", "not a mark of")


def test_a_title_that_does_not_say_how_it_scores_refuses_to_score() -> None:
    with registered(ToyCupboard) as toy, pytest.raises(BadSheet, match="does not know how"):
        toy.score(parse_sheet("1 2\n"))


# --- the Valley -------------------------------------------------------------------

JUNGLE = "1/j1 2/j1 3/j1\n4/j1 5/j1 #\n"


def test_a_jungle_of_five_different_values_is_worth_5() -> None:
    assert score("valley", JUNGLE)["Jungles"] == 5


@pytest.mark.parametrize(
    ("text", "why", "where"),
    [
        ("1/j1 2/j1 3/j1\n4/j1 #    #\n", "4 spaces", "row 1, column 1"),
        # Too many: the first space past five is named.
        ("1/j1 2/j1 3/j1\n4/j1 5/j1 6/j1\n", "6 spaces", "row 2, column 3"),
        # The space that repeats a value, not the first space.
        ("1/j1 2/j1 3/j1\n4/j1 3/j1 #\n", "repeats", "row 2, column 2"),
        # The first space cut off from the first one's group.
        ("1/j1 2/j1 3/j1\n# # #\n4/j1 5/j1 #\n", "not one adjacent group", "row 3, column 1"),
    ],
)
def test_a_jungle_one_short_one_long_repeated_or_apart_is_refused_naming_the_space_that_breaks_it(
    text: str, why: str, where: str
) -> None:
    message = refused("valley", text, "jungle 1", why)
    assert message.startswith(where + " ")


def test_a_town_of_four_identical_values_is_worth_6_and_two_of_different_values_12() -> None:
    assert score("valley", "3/t1 3/t1\n3/t1 3/t1\n")["Towns"] == 6
    assert score("valley", "3/t1 3/t1 # 4/t2 4/t2\n3/t1 3/t1 # 4/t2 4/t2\n")["Towns"] == 12


@pytest.mark.parametrize(
    ("text", "why", "where"),
    [
        ("3/t1 3/t1\n3/t1 #\n", "3 spaces", "row 1, column 1"),
        ("3/t1 3/t1 3/t1\n3/t1 3/t1 #\n", "5 spaces", "row 2, column 2"),
        ("3/t1 3/t1\n3/t1 4/t1\n", "identical", "row 2, column 2"),
        # The odd one out is named even when it comes first.
        ("4/t1 3/t1\n3/t1 3/t1\n", "identical", "row 1, column 1"),
        ("3/t1 4/t1\n3/t1 3/t1\n", "identical", "row 1, column 2"),
    ],
)
def test_a_town_one_short_one_long_or_of_mixed_values_is_refused_naming_the_space_that_breaks_it(
    text: str, why: str, where: str
) -> None:
    message = refused("valley", text, "town 1", why)
    assert message.startswith(where + " ")


def test_a_second_town_of_one_value_is_refused_where_it_is() -> None:
    refused(
        "valley", "3/t1 3/t1 # 3/t2 3/t2\n3/t1 3/t1 # 3/t2 3/t2\n",
        "row 1, column 4", "town 2", "a second town of 3s",
    )


def test_a_mountain_range_of_three_values_of_6_or_more_is_worth_7() -> None:
    assert score("valley", "6/r1 15/r1\n# 6/r1\n")["Ranges"] == 7


@pytest.mark.parametrize(
    ("text", "why", "where"),
    [
        ("6/r1 7/r1\n", "2 spaces", "row 1, column 1"),
        ("6/r1 7/r1\n8/r1 9/r1\n", "4 spaces", "row 2, column 2"),
        # The value below 6, not the range's first space.
        ("6/r1 5/r1 7/r1\n", "6 or more", "row 1, column 2"),
    ],
)
def test_a_range_one_short_one_long_or_below_6_is_refused_naming_the_space_that_breaks_it(
    text: str, why: str, where: str
) -> None:
    message = refused("valley", text, "mountain range 1", why)
    assert message.startswith(where + " ")


@pytest.mark.parametrize(
    "text",
    [
        "#     10/p1 #\n11/p1 12/p1 13/p1\n",  # apex up
        "11/p1 12/p1 13/p1\n#     10/p1 #\n",  # apex down
        "10/p1 #\n11/p1 12/p1\n13/p1 #\n",  # apex right
        "#  10/p1\n11/p1 12/p1\n# 13/p1\n",  # apex left
    ],
)
def test_a_pyramid_counts_in_each_rotation(text: str) -> None:
    assert score("valley", text)["Pyramids"] == 15


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("10/p1 11/p1 #\n12/p1 13/p1 #\n", "base of three"),  # a square
        ("10/p1 # #\n11/p1 12/p1 13/p1\n", "base of three"),  # an L
        ("10/p1 11/p1 12/p1 13/p1\n", "base of three"),  # a line
        ("10/p1 # 12/p1\n# 11/p1 #\n# # 13/p1\n", "base of three"),  # a diagonal base
        ("# 10/p1 #\n11/p1 12/p1 #\n", "3 spaces"),
        ("# 10/p1 #\n11/p1 12/p1 13/p1\n# 14/p1 #\n", "5 spaces"),
        ("# 10/p1 #\n11/p1 9/p1 13/p1\n", "10 or more"),
    ],
)
def test_a_pyramid_of_another_shape_size_or_below_10_is_refused(text: str, why: str) -> None:
    refused("valley", text, "pyramid 1", why)


def test_a_pyramid_below_10_is_refused_naming_the_low_space() -> None:
    message = refused("valley", "# 10/p1 #\n11/p1 9/p1 13/p1\n", "pyramid 1", "10 or more")
    assert message.startswith("row 2, column 2 (9/p1)")


def test_a_discovery_marked_on_a_space_without_a_number_is_refused() -> None:
    refused("valley", "1/j1 2/j1 3/j1\n4/j1 X/j1 #\n", "row 2, column 2", "numbers")


@pytest.mark.parametrize(
    ("structure", "mark", "component"),
    [("H", "j", "Jungles"), ("S", "t", "Towns"), ("M", "r", "Ranges")],
)
def test_each_structure_earns_2_per_adjacent_space_of_its_discovery_only(
    structure: str, mark: str, component: str
) -> None:
    text = (
        f"1/j1 2/j1 3/j1 4/j1 5/j1\n"
        f"7/t1 {structure} 6/r1 # #\n"
        f"7/t1 7/t1 7/t1 6/r1 6/r1\n"
    )
    adjacent = {"j": 3, "t": 4, "r": 1}[mark]
    result = score("valley", text)
    assert result["Structures"] == 2 * adjacent
    assert result[component] > 0


def test_a_structure_beside_no_discovery_earns_nothing_and_each_is_drawn_once() -> None:
    assert score("valley", "H 1 S\n2 3 M\n")["Structures"] == 0
    refused("valley", "H 1 H\n", "row 1, column 3", "a second hut")


def test_a_snake_standing_loses_its_largest_adjacent_number_and_one_crossed_out_nothing() -> None:
    assert score("valley", "3 12 #\n7 X 1\n# # 15\n")["Snakes"] == -15
    assert score("valley", "3 12 #\n7 x 1\n# # 15\n")["Snakes"] == 0
    # Structures and snakes are not numbers; a snake beside no number loses nothing.
    assert score("valley", "H X\nX x\n")["Snakes"] == 0


def test_the_full_grid_earns_7_only_with_no_empty_space() -> None:
    assert score("valley", "1 X #\nH x 2\n")["Full grid"] == 7
    assert score("valley", "1 X #\nH _ 2\n")["Full grid"] == 0


# --- Skull Island ---------------------------------------------------------------

#: A treasure of 7 on a mountain, between two 7s of its column and two of its row.
TREASURE = """
~ ~ 7 ~ ~
~ 1 2 3 ~
~ 7 ^/T7 7 ~
~ 1 7 3 ~
~ ~ ~ ~ ~
"""


def test_a_treasure_is_worth_the_number_that_found_it() -> None:
    assert score("island", TREASURE)["Treasures"] == 7


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("~ ~ 7 ~ ~", "~ ~ B ~ ~"),  # a boat above, for the column's outer number
        ("~ 7 ^/T7 7 ~", "B 2 ^/T7 7 ~"),  # a boat at the row's end, for its outer number
        ("~ 7 ^/T7 7 ~", "~ 7 ^/T7 2 B"),  # the same on the other side
    ],
)
def test_a_boat_in_the_sea_stands_in_for_the_outer_number_of_a_pair(old: str, new: str) -> None:
    # 001: "A boat can stand in for a missing number when finding a treasure."
    assert score("island", TREASURE.replace(old, new))["Treasures"] == 7


def test_two_boats_stand_in_one_for_each_pair() -> None:
    # 001: "One to replace a number in a vertical pair, and one to replace a number in a
    # horizontal pair."
    text = TREASURE.replace("~ ~ 7 ~ ~", "~ ~ B ~ ~").replace("~ 7 ^/T7 7 ~", "B 2 ^/T7 7 ~")
    assert score("island", text)["Treasures"] == 7


def test_two_boats_never_stand_in_for_both_numbers_of_one_pair() -> None:
    text = TREASURE.replace("~ ~ 7 ~ ~", "~ ~ B ~ ~").replace("~ 1 7 3 ~", "~ 1 2 3 ~")
    text = text.replace("~ ~ ~ ~ ~\n", "~ ~ B ~ ~\n", 1)  # the bottom row: a boat below
    refused("island", text.rstrip() + "\n", "row 3, column 3", "column")


@pytest.mark.parametrize(
    ("changes", "where"),
    [
        # Both 7s of the row to the treasure's left: "the line between the horizontal pair"
        # does not reach it.
        ({"~ 7 ^/T7 7 ~": "7 7 ^/T7 2 ~"}, "to its right in its row"),
        ({"~ 7 ^/T7 7 ~": "~ 2 ^/T7 7 7"}, "to its left in its row"),
        # Both 7s of the column below it.
        ({"~ ~ 7 ~ ~\n~ 1": "~ ~ 2 ~ ~\n~ 1", "~ ~ ~ ~ ~": "~ ~ 7 ~ ~"}, "above it in its column"),
        # A boat on the same side as the only 7: still one side.
        ({"~ 7 ^/T7 7 ~": "B 7 ^/T7 2 ~"}, "to its right in its row"),
    ],
)
def test_a_treasure_with_both_numbers_of_a_pair_on_one_side_is_refused_naming_its_space(
    changes: dict[str, str], where: str
) -> None:
    # 001: "The intersection of the line between the horizontal pair and the line between
    # the vertical pair reveals the location of the treasure."
    text = TREASURE
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new, 1)
    message = refused("island", text, "row 3, column 3", "the treasure of 7")
    assert f"no 7 (nor a boat) {where}" in message
    assert "between the two numbers of a pair" in message


@pytest.mark.parametrize(
    ("old", "new"),
    [("~ 1 7 3 ~", "~ 1 2 3 ~"), ("~ 7 ^/T7 7 ~", "~ 2 ^/T7 7 ~")],
)
def test_a_treasure_without_its_four_numbers_is_refused(old: str, new: str) -> None:
    refused("island", TREASURE.replace(old, new), "row 3, column 3", "treasure of 7")


def test_the_treasure_space_is_not_one_of_its_four_numbers() -> None:
    text = TREASURE.replace("~ 7 ^/T7 7 ~", "~ 2 7/T7 7 ~")
    refused("island", text, "row 3, column 3", "no 7 (nor a boat) to its left in its row")


@pytest.mark.parametrize("water", ["~", "B"])
def test_a_treasure_on_water_is_refused(water: str) -> None:
    text = "~ 7 7\n7 1 2\n7 2 3\n".replace("~ 7 7", f"{water}/T7 7 7")
    refused("island", text, "row 1, column 1", "water")


def test_each_treasure_uses_a_different_number() -> None:
    text = TREASURE.replace("~ 1 2 3 ~", "~ 1 2/T7 3 ~").replace("~ 1 7 3 ~", "~ 7 7 7 ~")
    refused("island", text, "a second treasure of 7")


def test_a_treasure_on_a_danger_not_overcome_is_worthless_and_on_one_overcome_counts() -> None:
    standing = TREASURE.replace("^/T7", "X/T7")
    assert score("island", standing)["Treasures"] == 0
    overcome = standing.replace("X/T7", "x/T7").replace("~ 1 2 3 ~", "~ 1 9 3 ~")
    assert score("island", overcome)["Treasures"] == 7


def test_a_danger_not_overcome_loses_its_smallest_adjacent_number_and_one_overcome_earns_it() -> (
    None
):
    assert score("island", "~ 5 4\n~ X 9\n~ 6 8\n")["Dangers"] == -4
    assert score("island", "~ 5 4\n~ x 9\n~ 6 8\n")["Dangers"] == 4
    assert score("island", "~ ~\n~ X\n")["Dangers"] == 0


def test_a_danger_crossed_out_with_no_9_beside_it_is_refused() -> None:
    refused("island", "~ 5 4\n~ x 8\n", "row 2, column 2", "no 9 beside it")


def test_a_sixth_danger_is_refused() -> None:
    refused("island", "X X X X X X\n", "row 1, column 6", "first 5")


# --- the Temple -------------------------------------------------------------------


def test_the_longest_sequence_counts_1_per_space_and_rises_in_order() -> None:
    assert score("temple", "3 4 #\n# 5 6\n")["Sequence"] == 4
    # 3 and 4 are not adjacent: 4-5 is the longest.
    assert score("temple", "3 5 4\n")["Sequence"] == 2
    assert score("temple", "2 9 2\n1 # 3\n")["Sequence"] == 2


def test_a_lone_number_is_a_sequence_of_one_and_no_number_none() -> None:
    assert score("temple", "7 _\nX 12\n")["Sequence"] == 1
    assert score("temple", "_ D\n")["Sequence"] == 0


def test_a_group_of_three_identical_adjacent_numbers_earns_3_once_per_value() -> None:
    assert score("temple", "4 4 #\n# # 4\n")["Groups"] == 3
    assert score("temple", "4 4 #\n# # 5\n")["Groups"] == 0
    # Two groups of 4s count once; a group of 5s counts too.
    assert score("temple", "4 4 4 # 4 4 4\n5 5 5 # # # #\n")["Groups"] == 6


def test_a_mummy_vanquished_earns_2_and_one_standing_loses_2() -> None:
    assert score("temple", "9 x X\n")["Mummies"] == 0
    assert score("temple", "9 x x\n# # 9\n")["Mummies"] == 4
    assert score("temple", "X 3\n")["Mummies"] == -2


def test_a_mummy_crossed_out_with_no_9_beside_it_is_refused() -> None:
    refused("temple", "8 x\n", "row 1, column 2", "mummy", "no 9 beside it")


def test_numbers_in_doors_count_in_sequences_and_groups_and_vanquish_mummies() -> None:
    result = score("temple", "D4 5 D6\nD4 4 D\n# D9 x\n")
    assert result["Sequence"] == 3
    assert result["Groups"] == 3
    assert result["Mummies"] == 2


# --- the rulebooks' worked examples and the symmetries -----------------------------

WORKED = {
    "valley": ({"Full grid": 0, "Structures": 24, "Snakes": -28}, 62, 58),
    "island": ({"Treasures": 31, "Dangers": -4}, 0, 27),
    "temple": ({"Sequence": 9, "Groups": 15, "Mummies": 6}, 0, 30),
}


@pytest.mark.parametrize("game", sorted(WORKED))
def test_the_worked_example_scores_the_rulebooks_figures(game: str) -> None:
    parts, discoveries, total = WORKED[game]
    result = score(game, (EXAMPLES / f"{game}_henri.txt").read_text())
    for name, stars in parts.items():
        assert result[name] == stars
    if discoveries:
        found = ("Jungles", "Towns", "Ranges", "Pyramids")
        assert [result[n] for n in found] == [15, 18, 14, 15]
        assert sum(result[n] for n in found) == discoveries
    assert result.total == total


@pytest.mark.parametrize("game", sorted(WORKED))
def test_the_worked_examples_score_the_same_mirrored_and_turned(game: str) -> None:
    sheet = parse_sheet((EXAMPLES / f"{game}_henri.txt").read_text())
    title = find_title(game)
    expected = title.score(sheet)
    for seen in (sheet.mirrored(), sheet.transposed(), sheet.mirrored().transposed()):
        assert title.score(seen) == expected


def grids(tokens: st.SearchStrategy[str]) -> st.SearchStrategy[FinishedSheet]:
    """Rectangular sheets of up to 7 by 7 positions drawn from ``tokens``."""
    return st.integers(1, 7).flatmap(
        lambda width: st.lists(
            st.lists(tokens, min_size=width, max_size=width), min_size=1, max_size=7
        )
    ).map(lambda rows: parse_sheet("\n".join(" ".join(row) for row in rows)))


NUMBERS = st.integers(1, 15).map(str)
UNMARKED = {
    "valley": st.one_of(NUMBERS, st.sampled_from(["#", "_", "X", "x"])),
    "island": st.one_of(NUMBERS, st.sampled_from(["#", "_", "~", "B", "^"])),
    "temple": st.one_of(NUMBERS, NUMBERS.map("D".__add__), st.sampled_from(["#", "_", "D", "X"])),
}


@pytest.mark.parametrize("game", sorted(UNMARKED))
def test_scoring_does_not_depend_on_which_way_the_sheet_is_read(game: str) -> None:
    title = find_title(game)

    @given(grids(UNMARKED[game]))
    def check(sheet: FinishedSheet) -> None:
        expected = title.score(sheet)
        assert title.score(sheet.mirrored()) == expected
        assert title.score(sheet.transposed()) == expected

    check()


@given(grids(st.one_of(NUMBERS, st.sampled_from(["#", "_", "X", "x"]))))
def test_crossing_out_a_snake_never_costs_stars(sheet: FinishedSheet) -> None:
    valley = find_title("valley")
    text = "\n".join(" ".join(s.text for s in row) for row in sheet.rows)
    crossed = parse_sheet(text.replace("X", "x"))
    assert valley.score(crossed).total >= valley.score(sheet).total


# --- reading a sheet takes time in proportion to its length ----------------------------------


def backtracking_repeats(pattern: re.Pattern[str]) -> list[str]:
    """The repeats of ``pattern`` that may give characters back (greedy or lazy ones): only
    possessive repeats are kept, so no match can backtrack."""
    from re import _constants, _parser  # type: ignore[attr-defined]

    found = []

    def walk(items: object) -> None:
        for op, arg in items:  # type: ignore[attr-defined]
            if op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT):
                found.append(f"{op} {arg[:2]}")
            for sub in arg if isinstance(arg, (tuple, list)) else ():
                if isinstance(sub, _parser.SubPattern):
                    walk(sub)
                elif isinstance(sub, list):
                    for alternative in sub:
                        if isinstance(alternative, _parser.SubPattern):
                            walk(alternative)

    walk(_parser.parse(pattern.pattern))
    return found


def test_the_token_patterns_cannot_backtrack() -> None:
    assert backtracking_repeats(re.compile(r"a*?b+c{1,3}")) != []  # the check sees them
    assert backtracking_repeats(scoring.alphabet().pattern) == []
    assert backtracking_repeats(scoring._MAP_NAME) == []


class CountingPattern:
    """A compiled pattern that counts the characters handed to it."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.characters = 0

    def fullmatch(self, text: str) -> re.Match[str] | None:
        self.characters += len(text)
        return self.pattern.fullmatch(text)


@pytest.mark.parametrize(
    "text",
    ["0" * 64_000 + "a", "1" * 5_000, ("7/T" + "9" * 3_000 + " ") * 20, "D" * 64_000],
)
def test_a_token_is_matched_on_at_most_a_tokens_length(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    known = scoring.alphabet()
    counting = CountingPattern(known.pattern)
    monkeypatch.setattr(scoring, "alphabet",
                        lambda: dataclasses.replace(known, pattern=counting))
    with pytest.raises(BadSheet, match=r"is not a token|numbers go") as refused:
        parse_sheet(text)
    assert counting.characters <= scoring.MAX_TOKEN
    assert len(str(refused.value)) < 120


def test_every_token_a_sheet_holds_is_within_the_longest_read() -> None:
    for token in ("15/T15", "15/j12", "D15", "x/T10", "^/T4", "_/T15"):
        assert len(token) <= scoring.MAX_TOKEN
        parse_token(token, (0, 0))


def test_every_map_of_a_title_has_its_titles_shape_and_no_other_titles(title: Title) -> None:
    others = [t for t in all_titles() if t is not title and says_its_shapes(t)]
    for seed in range(40):
        for side in "ab":
            shape = generate(title, seed, side).shape
            assert title.shape_problem(shape, Side.from_str(side)) is None
            assert title.shape_problem(shape) is None
            assert all(t.shape_problem(shape) is not None for t in others), (seed, side)
