"""Properties of what a roll allows, under hypothesis, in every title (the toy title of
tests/ too) and the Valley's plays."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from pitable.rules import PENNY, SPECIAL, Die, Roll, find_title
from tests.support.titles import title_for_test, title_params

faces = st.sampled_from([1, 2, 3, 4, 5, SPECIAL])
rolls = st.builds(Roll, faces, faces, faces)
#: Every title's key; a test takes the title itself from ``title_for_test``.
titles = st.sampled_from(title_params())


def usable_values(roll: Roll, ignored: bool) -> list[int]:
    dice = [Die.GREEN, Die.PURPLE] if ignored else list(Die)
    return [v for d in dice if isinstance(v := roll[d], int)]


def realisable(play: tuple[object, ...], values: list[int]) -> bool:
    """Can the play's numbers be made by giving each die to exactly one number?"""
    numbers = [n for n in play if isinstance(n, int)]
    for labels in itertools.product(range(len(numbers)), repeat=len(values)):
        sums = [0] * len(numbers)
        for v, lab in zip(values, labels, strict=True):
            sums[lab] += v
        if sorted(sums) == sorted(numbers) and all(s > 0 for s in sums):
            return True
    return False


@given(rolls, st.integers(0, 5))
def test_each_die_is_used_once_per_valley_play(roll: Roll, marked: int) -> None:
    o = find_title("valley").options(roll, marked)
    values = usable_values(roll, o.hazard_ignored)
    for play in o.plays:
        assert 1 <= len(play) <= 3
        assert realisable(play, values), (roll, play)
        assert sum(n for n in play if isinstance(n, int)) == sum(values)


@given(titles, rolls, st.integers(0, 5))
def test_numbers_are_the_union_of_the_plays_and_pennys_range(
    title: str, roll: Roll, marked: int
) -> None:
    with title_for_test(title) as t:
        marked = min(marked, t.hazard_limit) if t.hazard_limit is not None else marked
        o = t.options(roll, marked)
    if o.hazard:
        assert o.numbers == () and o.plays == ()
        return
    values = usable_values(roll, o.hazard_ignored)
    subset_sums = {
        sum(c) for k in range(1, len(values) + 1) for c in itertools.combinations(values, k)
    }
    expected = subset_sums | (set(range(1, 16)) if o.penny else set())
    assert set(o.numbers) == expected
    if t.several_spaces:
        from_plays = {n for p in o.plays for n in p if isinstance(n, int)}
        assert from_plays | (set(range(1, 16)) if o.penny else set()) == expected


@given(rolls)
def test_penny_papers_is_one_number_never_added(roll: Roll) -> None:
    o = find_title("valley").options(roll)
    for play in o.plays:
        assert Counter(play)[PENNY] == (1 if o.penny else 0)
    assert all(1 <= n <= 15 for n in o.numbers)


@given(titles, rolls)
def test_the_red_special_face_cancels_everything(title: str, roll: Roll) -> None:
    with title_for_test(title) as t:
        o = t.options(roll)
        assert o.hazard == (roll.red is SPECIAL)
        reading = t.reading(o)
    assert reading.alarm == o.hazard


@given(titles, rolls, st.booleans())
def test_every_roll_has_words_for_the_status_screen(title: str, roll: Roll, solo: bool) -> None:
    with title_for_test(title) as t:
        reading = t.reading(t.options(roll), solo=solo)
    assert reading.headline
    assert all(line for line in reading.lines)
