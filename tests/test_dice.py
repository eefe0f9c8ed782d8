"""The dice: faces, parsing, and an exactly uniform draw from raw bytes."""

from __future__ import annotations

import io
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitable.errors import BadFace, BadRoll
from pitable.rules import (
    ONE_TO_FIVE,
    SPECIAL,
    TWO_TO_SIX,
    Die,
    Roll,
    all_rolls,
    draw_roll,
    draw_rolls,
)
from pitable.rules.dice import OUTCOMES, roll_from_byte


def test_every_byte_value_gives_each_roll_exactly_once_or_is_rejected() -> None:
    """The uniformity proof: of the 256 byte values, each of the 216 rolls takes exactly one."""
    for dice in (ONE_TO_FIVE, TWO_TO_SIX):
        outcomes = [roll_from_byte(v, dice) for v in range(256)]
        accepted = [r for r in outcomes if r is not None]
        assert len(accepted) == 216
        assert Counter(accepted) == Counter(all_rolls(dice))
        assert outcomes.count(None) == 256 - 216
        # Each die on its own is uniform over its six faces, and the three are independent:
        # every (green, purple, red) triple is hit once, so every marginal count is 216/6.
        for die in Die:
            assert Counter(r[die] for r in accepted) == {f: 36 for f in dice.faces}


def test_rejected_bytes_are_skipped_not_folded() -> None:
    source = io.BytesIO(bytes([255, 216, 240, 0]))
    roll, used = draw_roll(source)
    assert used == 4
    assert roll == Roll(1, 1, 1)


def test_block_drawing_consumes_the_same_bytes_as_byte_by_byte() -> None:
    data = bytes(range(256)) * 4
    one_by_one = io.BytesIO(data)
    singles = [draw_roll(one_by_one)[0] for _ in range(500)]
    blocked = io.BytesIO(data)
    assert draw_rolls(blocked, 500) == singles
    assert blocked.tell() == one_by_one.tell()


def test_an_exhausted_source_is_an_error_not_a_roll() -> None:
    with pytest.raises(EOFError):
        draw_roll(io.BytesIO(bytes([250, 251])))
    with pytest.raises(EOFError):
        draw_rolls(io.BytesIO(bytes([1, 2])), 3)


@given(st.binary(min_size=1, max_size=64))
def test_any_bytes_give_valid_rolls(data: bytes) -> None:
    wanted = sum(1 for b in data if b < OUTCOMES)
    rolls = draw_rolls(io.BytesIO(data), wanted) if wanted else []
    assert len(rolls) == wanted
    for roll in rolls:
        for face in roll.faces:
            assert face is SPECIAL or 1 <= face <= 5


@pytest.mark.parametrize(
    ("text", "faces"),
    [("2,3,5", (2, 3, 5)), ("*,3,5", (SPECIAL, 3, 5)), (" 1 , * , * ", (1, SPECIAL, SPECIAL))],
)
def test_roll_from_str(text: str, faces: tuple[object, ...]) -> None:
    roll = Roll.from_str(text)
    assert roll.faces == faces
    assert eval(repr(roll)) == roll  # the repr reads back


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("0,3,5", "face '0' on the green die"),
        ("1,6,5", "face '6' on the purple die"),
        ("1,2,x", "face 'x' on the red die"),
        ("²,1,1", "face '²' on the green die"),
        ("٣,1,1", "face '٣' on the green die"),
        ("2,3", "expected three faces"),
        ("1,2,3,4", "expected three faces"),
        ("", "expected three faces"),
    ],
)
def test_bad_rolls_name_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(BadRoll, match=words):
        Roll.from_str(text)


def test_two_to_six_reading_is_selectable() -> None:
    assert Roll.from_str("6,2,*", TWO_TO_SIX).faces == (6, 2, SPECIAL)
    with pytest.raises(BadRoll):
        Roll.from_str("1,2,3", TWO_TO_SIX)
    with pytest.raises(BadFace):
        Roll.of(6, 2, 3)  # the default set has no 6
