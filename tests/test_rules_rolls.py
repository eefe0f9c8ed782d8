"""What every roll allows, pinned for all 216 rolls of each title.

Three independent checks, in the way python-chess pins its move generator:

- an oracle written straight from the rulebooks' words (assign each die to a space, sum what
  shares a space), compared with the engine on every roll;
- perft-style totals worked out by hand below, which a change in the engine cannot meet by
  accident;
- golden files with the engine's exact answers, so any change of output is seen in review.

The oracle and the goldens run over every title (the toy title of tests/ too), each by its
own facts: a hazard limit, several spaces a turn; the totals and examples are the series'.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

from pitable.rules import (
    PENNY,
    SPECIAL,
    Die,
    Roll,
    Title,
    all_rolls,
    find_title,
)
from tests.conftest import GOLDEN, golden_text
from tests.support.titles import titles_to_run


def oracle(
    title: Title, roll: Roll, marked: int = 0
) -> tuple[bool, set[int], set[tuple[object, ...]]]:
    """(hazard, numbers, plays) from the rulebooks, by brute force over dice-to-space choices.

    What sets a title apart is its facts: the Island's limit of five dangers, after which
    the red die is ignored, and the Valley's several spaces a turn."""
    red_special = roll.red is SPECIAL
    limit = title.hazard_limit
    ignored = limit is not None and red_special and marked >= limit
    if red_special and not ignored:
        return True, set(), set()
    dice = [Die.GREEN, Die.PURPLE] if ignored else [Die.GREEN, Die.PURPLE, Die.RED]
    values = [roll[d] for d in dice if roll[d] is not SPECIAL]
    penny = roll.purple is SPECIAL
    # "The number can be one die, or the sum of any two, or of all three."
    numbers = {
        sum(c) for k in range(1, len(values) + 1) for c in itertools.combinations(values, k)
    }
    if penny:  # "a number of their choice from 1 to 15", never added to other dice
        numbers |= set(range(1, 16))
    plays: set[tuple[object, ...]] = set()
    if title.several_spaces:
        # The Valley: "Each die result once; impossible to fill more than three spaces": put every
        # numeric die in one of three spaces, and the spaces used take the sums.
        for labels in itertools.product(range(3), repeat=len(values)):
            sums = [sum(v for v, lab in zip(values, labels, strict=True) if lab == s)
                    for s in range(3) if s in labels]
            play: list[object] = sorted(sums)
            if penny:
                play.append(PENNY)
            if play:
                plays.add(tuple(play))
    return False, numbers, plays


def normalised(plays: tuple[tuple[object, ...], ...]) -> set[tuple[object, ...]]:
    """Plays as the oracle writes them: numbers sorted, Penny Papers last."""
    out: set[tuple[object, ...]] = set()
    for play in plays:
        numbers = sorted(n for n in play if isinstance(n, int))
        out.add((*numbers, *(n for n in play if n == PENNY)))
    return out


def marked_counts(title: Title) -> tuple[int, ...]:
    """The counts of hazards marked at which what a roll allows may differ: none, and for a
    title with a limit, one short of it and at it."""
    limit = title.hazard_limit
    return (0,) if limit is None else (0, limit - 1, limit)


CASES = [(t.key, marked) for t in titles_to_run() for marked in marked_counts(t)]


@pytest.mark.parametrize(("title", "marked"), CASES, indirect=["title"])
def test_every_roll_matches_the_rulebook_oracle(title: Title, marked: int) -> None:
    t = title
    for roll in all_rolls():
        options = t.options(roll, marked)
        hazard, numbers, plays = oracle(t, roll, marked)
        assert options.hazard == hazard, roll
        assert set(options.numbers) == numbers, roll
        assert list(options.numbers) == sorted(options.numbers)
        assert normalised(options.plays) == plays, roll
        assert len(options.plays) == len(set(options.plays)), f"duplicate play for {roll}"


def test_perft_totals_worked_out_by_hand() -> None:
    rolls = list(all_rolls())
    assert len(rolls) == 216
    valley = find_title("valley")
    opts = [valley.options(r) for r in rolls]
    # The red special face is 1 roll in 6: 36 hazards.
    assert sum(o.hazard for o in opts) == 36
    # Penny Papers without a snake: purple special (1) x green any (6) x red numeric (5).
    assert sum(o.penny for o in opts) == 30
    # Dakota Smith without a snake: green special x purple any (6) x red numeric (5).
    assert sum(o.green is valley.green_effect for o in opts) == 30
    # Plays: 125 all-numeric rolls -- 60 with three different values give 5 plays each,
    # 60 with exactly two equal give 4 (the two mixed pairs coincide), 5 triples give 3:
    # 555. 50 rolls with two numeric dice give 2 plays each (x+y written apart or summed),
    # and the 5 rolls with one numeric die and Penny Papers give 1: 660 in all.
    assert sum(len(o.plays) for o in opts) == 660
    # How many numbers each roll allows, counted by hand:
    #  0: the 36 hazards.
    #  2: Dakota Smith, purple = red = x: {x, 2x}: 5 rolls.
    #  3: Dakota Smith, purple x != red y: {x, y, x+y}: 20; three equal {a, 2a, 3a}: 5.
    #  4: a pair a and b = 2a: {a, 2a, 3a, 4a}: (1,1,2), (2,2,4), b in 3 places: 6.
    #  5: a pair a and b not in {a, 2a}: 20 ordered pairs less 2, b in 3 places: 54.
    #  6: three different with a+b = c: {1,2,3} {1,3,4} {1,4,5} {2,3,5}, 6 orders: 24.
    #  7: three different, no sum repeated: 10 sets less those 4, 6 orders: 36.
    # 15: Penny Papers, 1 to 15: 30.
    assert Counter(len(o.numbers) for o in opts) == {
        0: 36, 2: 5, 3: 25, 4: 6, 5: 54, 6: 24, 7: 36, 15: 30
    }
    assert sum(15 in o.numbers for o in opts) == 31  # Penny Papers, and 5+5+5
    island = find_title("island")
    # The Island after five dangers: the 36 red specials use the green and purple dice.
    #  1: Navigation and purple x: {x}: 5.   2: {x, 2x}: 5 more from g = p.
    #  3: 20 more from g != p.              15: 6 more with Penny and a red special.
    assert Counter(len(island.options(r, 5).numbers) for r in rolls) == {
        1: 5, 2: 10, 3: 45, 4: 6, 5: 54, 6: 24, 7: 36, 15: 36
    }
    assert sum(island.options(r).hazard for r in rolls) == 36
    assert sum(island.options(r, 5).hazard for r in rolls) == 0
    assert sum(island.options(r, 5).hazard_ignored for r in rolls) == 36
    temple = find_title("temple")
    assert sum(temple.options(r).green is temple.green_effect for r in rolls) == 30


def test_the_rulebook_examples() -> None:
    valley = find_title("valley")
    # "2, 3 and 5: 2, 3, and/or 5; 7 (2+5); 7 and 3; 8 (3+5); 8 and 2; or 10 (2+3+5)."
    o = valley.options(Roll.from_str("2,3,5"))
    assert o.numbers == (2, 3, 5, 7, 8, 10)
    assert valley.summary(o) == "2 3 5 -> 2 3 5 7 8 10; plays: 2+3+5 | 5+5 | 7+3 | 8+2 | 10"
    # "Dakota Smith, Penny Papers, and a 3: draw a structure, write any number 1-15, use the 3."
    o = valley.options(Roll.from_str("*,*,3"))
    assert o.green is valley.green_effect and o.penny
    assert o.plays == ((3, PENNY),)
    for title in ("island", "temple"):
        o = find_title(title).options(Roll.from_str("2,3,5"))
        assert o.numbers == (2, 3, 5, 7, 8, 10)
        assert o.plays == ()


def test_hazard_cancels_the_other_dice(title: Title) -> None:
    o = title.options(Roll.from_str("*,*,*"))
    assert o.hazard and o.numbers == () and o.plays == ()
    assert o.green is None and not o.penny


def test_the_island_ignores_dangers_after_the_fifth() -> None:
    island = find_title("island")
    o = island.options(Roll.from_str("2,4,*"), 5)
    assert not o.hazard and o.hazard_ignored
    assert o.numbers == (2, 4, 6)
    o = island.options(Roll.from_str("*,4,*"), 5)
    assert o.numbers == (4,) and o.green is island.green_effect
    assert island.options(Roll.from_str("2,4,*"), 4).hazard


#: The goldens: each title's with no hazard marked, and a title with a limit at it too.
GOLDEN_CASES = [(t.key, marked) for t in titles_to_run()
                for marked in marked_counts(t) if marked in (0, t.hazard_limit)]


@pytest.mark.parametrize(("title", "marked"), GOLDEN_CASES, indirect=["title"])
def test_golden_answers(title: Title, marked: int) -> None:
    lines = [json.dumps(title.options(r, marked).to_json()) for r in all_rolls()]
    name = (f"{title.key}.jsonl" if title.hazard_limit is None
            else f"{title.key}-{marked}-{title.hazard_name}s.jsonl")
    actual = "\n".join(lines) + "\n"
    assert actual == golden_text(GOLDEN / "options" / name, actual)


def test_options_are_kept_once_a_roll_whatever_the_count_of_hazards(title: Title) -> None:
    """A long game marks ever more hazards: what a roll allows is kept once per roll (and
    the Island's again at its limit, where a danger is ignored), not once per roll and
    count, so the rolls that come back are not pushed out by new counts."""
    from pitable.rules.base import _options

    rolls = list(all_rolls())
    _options.cache_clear()
    limit = title.hazard_limit
    for count in range(40 if limit is None else limit + 1):
        for roll in rolls:
            options = title.options(roll, count)
            assert options.hazards_marked == count
            assert options == title._options(roll, count)
    assert _options.cache_info().currsize == len(rolls) * (1 if limit is None else 2)
    with pytest.raises(ValueError):
        title.options(rolls[0], -1)
    assert type(title.options(rolls[0], True).hazards_marked) is bool
