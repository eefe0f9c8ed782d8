"""What the table's web page asks of the box: commands posted on the box's queue.

The page never touches the box's state; each action (with the PIN) becomes one of these
small frozen values, which the box's loop alone acts on, as it does an input's edge.
"""

from __future__ import annotations

from dataclasses import dataclass

from pitable.rules.session import Mode


@dataclass(frozen=True)
class RollCommand:
    """ROLL pressed away from the box (the table's web page, with its PIN): rolls as a press
    of the button does, except in the box's menu, where a press would move the cursor."""


@dataclass(frozen=True)
class NewGameCommand:
    """Start a game of ``title`` (a title's key) in ``mode``, asked away from the box (the
    table's web page, with its PIN)."""

    title: str
    mode: Mode


@dataclass(frozen=True)
class PrintSheetCommand:
    """Print the sheet of player ``player`` (their id in the store) of game ``game`` as
    they filled it in, asked from their phone: the box's loop queues it on its printer."""

    game: int
    player: int


#: What the page posts.
Command = RollCommand | NewGameCommand | PrintSheetCommand
