"""The rules of the titles: pure Python, no I/O, nothing from the layers above.

Each title is one module under :mod:`pitable.rules.titles`, found by name:

>>> from pitable.rules import default_title, Roll
>>> title = default_title()
>>> title.summary(title.options(Roll.from_str("2,3,5")))
'2 3 5 -> 2 3 5 7 8 10; plays: 2+3+5 | 5+5 | 7+3 | 8+2 | 10'
"""

from pitable.rules.base import PENNY, GreenEffect, Options, Reading, Title
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
from pitable.rules.titles import (
    all_titles,
    as_title,
    default_title,
    find_title,
    register,
    registered,
    title_keys,
    title_or_default,
    unregister,
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
    "as_title",
    "default_title",
    "draw_roll",
    "draw_rolls",
    "find_dice_set",
    "find_title",
    "register",
    "registered",
    "title_keys",
    "title_or_default",
    "unregister",
]
