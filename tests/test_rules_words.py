"""The words the status screen shows, in each title's own terms."""

from __future__ import annotations

import pytest

from pitable.errors import BadDangerCount, UnknownTitle
from pitable.rules import (
    Roll,
    all_titles,
    as_title,
    default_title,
    find_title,
    title_keys,
    title_or_default,
)


@pytest.mark.parametrize(
    ("title", "hazard", "place"),
    [("valley", "SNAKE!", "empty space"), ("island", "DANGER!", "island space"),
     ("temple", "MUMMY!", "doorless space")],
)
def test_hazard_words_for_table_and_solo(title: str, hazard: str, place: str) -> None:
    t = find_title(title)
    o = t.options(Roll.from_str("1,2,*"))
    table = t.reading(o)
    solo = t.reading(o, solo=True)
    assert table.alarm and solo.alarm
    assert table.headline == solo.headline == hazard
    assert "another player's sheet" in " ".join(table.lines)
    assert "filled last turn" in " ".join(solo.lines)
    assert place in " ".join(solo.lines) and place in " ".join(table.lines)


def test_green_face_words() -> None:
    roll = Roll.from_str("*,2,3")
    assert "hut, a statue or a mine" in " ".join(find_title("valley").reading(
        find_title("valley").options(roll)).lines)
    island = find_title("island")
    assert "boat" in island.reading(island.options(roll)).headline
    temple = find_title("temple")
    assert "Door" in temple.reading(temple.options(roll)).headline


def test_island_penny_and_navigation_ask_to_choose() -> None:
    island = find_title("island")
    lines = " ".join(island.reading(island.options(Roll.from_str("*,*,3"))).lines)
    assert "Choose" in lines


def test_ignored_danger_says_so() -> None:
    island = find_title("island")
    reading = island.reading(island.options(Roll.from_str("1,2,*"), 5))
    assert not reading.alarm
    assert "Danger ignored" in reading.lines[0]


def test_valley_mentions_the_nine_that_crosses_out_a_snake() -> None:
    valley = find_title("valley")
    assert any("9" in line for line in valley.reading(valley.options(Roll.from_str("4,5,1"))).lines)
    assert not any("snake" in line for line in
                   valley.reading(valley.options(Roll.from_str("1,1,1"))).lines)


@pytest.mark.parametrize(
    ("name", "key"),
    [("valley", "valley"), ("Wiraqocha", "valley"), ("skull-island", "island"),
     ("island", "island"), ("apikhabou", "temple"), ("temple", "temple")],
)
def test_titles_are_found_by_name_and_alias(name: str, key: str) -> None:
    assert find_title(name).key == key


def test_unknown_title_lists_the_known_ones() -> None:
    with pytest.raises(UnknownTitle, match="valley, island, temple"):
        find_title("monopoly")
    assert title_keys() == ["valley", "island", "temple"]


def test_hazard_counts_are_checked() -> None:
    with pytest.raises(BadDangerCount):
        find_title("island").options(Roll.from_str("1,2,3"), 6)
    with pytest.raises(BadDangerCount):
        find_title("valley").options(Roll.from_str("1,2,3"), -1)
    # The Valley has no limit on snakes: many snakes is fine.
    assert not find_title("valley").options(Roll.from_str("1,2,3"), 12).hazard


def test_the_default_title_is_the_first_registered_the_valley() -> None:
    assert default_title() is find_title("valley") is all_titles()[0]
    # A setting that names no title means the default one.
    assert title_or_default(None) is default_title()
    assert title_or_default("skull") is find_title("island")
    assert as_title(find_title("temple")) is as_title("apikhabou")
