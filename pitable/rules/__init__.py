"""The rules of the three titles: pure Python, no I/O, nothing from the layers above.

>>> from pitable.rules import find_title, Roll
>>> valley = find_title("valley")
>>> valley.summary(valley.options(Roll.from_str("2,3,5")))
'2 3 5 -> 2 3 5 7 8 10; plays: 2+3+5 | 5+5 | 7+3 | 8+2 | 10'
"""

from pitable.rules.base import (
    PENNY,
    GreenEffect,
    Options,
    Reading,
    Title,
    all_titles,
    find_title,
    title_keys,
)
from pitable.rules.dice import (
    DICE,
    DICE_SETS_HELP,
    ONE_TO_FIVE,
    SPECIAL,
    TWO_TO_SIX,
    DiceSet,
    Die,
    Face,
    Roll,
    all_rolls,
    draw_roll,
    draw_rolls,
    find_dice_set,
)

__all__ = [
    "DICE",
    "DICE_SETS_HELP",
    "ONE_TO_FIVE",
    "PENNY",
    "SPECIAL",
    "TWO_TO_SIX",
    "DiceSet",
    "Die",
    "Face",
    "GreenEffect",
    "Options",
    "Reading",
    "Roll",
    "Title",
    "all_rolls",
    "all_titles",
    "draw_roll",
    "draw_rolls",
    "find_dice_set",
    "find_title",
    "title_keys",
]
