"""The box's menu: its levels, the new-game menu, the score entry and the printer's items.

The menu opens on a hold of ROLL (or a push of the encoder). ROLL's press or the encoder
moves through it, a hold or a push chooses. Each item is a label and what choosing it does
to the box; the box draws whatever :meth:`Menus.view` returns.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pitable.i18n import LANGUAGES, translator
from pitable.render.status import MenuView
from pitable.rules import Title, all_titles
from pitable.rules.session import Mode

if TYPE_CHECKING:
    from pitable.box.controller import Box

log = logging.getLogger("pitable.box")

#: The least and the most stars the score entry allows.
SCORE_RANGE = (-200, 400)


@dataclass
class MenuLevel:
    heading: str
    items: list[tuple[str, Callable[[], None]]]
    selected: int = 0


@dataclass
class ScoreEntry:
    """The encoder sets the final score of a solo game; a push (or a hold) confirms it."""

    score: int = 0


@dataclass
class Menus:
    """The open menu's levels (the top one shown) and the score being entered, if any."""

    box: Box
    levels: list[MenuLevel] = field(default_factory=list)
    score: ScoreEntry | None = None

    def open(self) -> None:
        self.levels = [self._top()]
        self.score = None

    def clear(self) -> None:
        self.levels = []
        self.score = None

    def view(self) -> MenuView:
        if self.score is not None:
            return MenuView("Score: turn, push", (f"{self.score.score} stars",), 0)
        top = self.levels[-1]
        return MenuView(top.heading, tuple(label for label, _ in top.items), top.selected)

    # --- moving and choosing --------------------------------------------------------

    def move(self, steps: int) -> None:
        """ROLL's press or the encoder: the next item, or the score up or down."""
        if self.score is not None:
            low, high = SCORE_RANGE
            self.score.score = max(low, min(high, self.score.score + steps))
        else:
            top = self.levels[-1]
            top.selected = (top.selected + steps) % len(top.items)
        self.box.draw_status()

    def choose(self) -> None:
        if self.score is not None:
            score = self.score.score
            self.score = None
            self.box.end_game(score)
            self.box.close_menu()
            return
        top = self.levels[-1]
        _, action = top.items[top.selected]
        action()

    def _back(self) -> None:
        self.levels.pop()
        if not self.levels:
            self.box.close_menu()
        else:
            self.box.draw_status()

    # --- the items ----------------------------------------------------------------------

    def _top(self) -> MenuLevel:
        box = self.box
        items: list[tuple[str, Callable[[], None]]] = [("New game", self._new_game_menu)]
        if box.printer is not None:
            items.append(("Print a sheet", self._print_sheet))
            if box.printer.can_retry():
                items.append(("Retry the print", self._retry_print))
        if box.game.state.mode is Mode.SOLO and not box.game.ended:
            items.append(("End game: score", self._enter_score))
        elif not box.game.ended:
            items.append(("End game", self._end_table_game))
        items.append((translator(box.language).gettext("Language"), self._language_menu))
        items.append(("Back", box.close_menu))
        return MenuLevel("Menu", items)

    # --- the language ---------------------------------------------------------------------

    def _language_menu(self) -> None:
        """Every language by its own name; choosing one changes the words at once."""
        items: list[tuple[str, Callable[[], None]]] = [
            (name, self._language_setter(code)) for code, name in LANGUAGES.items()
        ]
        items.append(("Back", self._back))
        selected = list(LANGUAGES).index(self.box.language)
        heading = translator(self.box.language).gettext("Language")
        self.levels.append(MenuLevel(heading, items, selected))
        self.box.draw_status()

    def _language_setter(self, code: str) -> Callable[[], None]:
        def choose() -> None:
            self.box.close_menu()
            self.box.set_language(code)

        return choose

    def _new_game_menu(self) -> None:
        items: list[tuple[str, Callable[[], None]]] = []
        for title in all_titles():
            for mode in ("table", "solo"):
                items.append((f"{title.short_name}: {mode}", self._starter(title, mode)))
        items.append(("Back", self._back))
        game = self.box.game
        current = f"{game.title.short_name}: {game.state.mode}"
        selected = next((i for i, (label, _) in enumerate(items) if label == current), 0)
        self.levels.append(MenuLevel("New game", items, selected))
        self.box.draw_status()

    def _starter(self, title: Title, mode: str) -> Callable[[], None]:
        def start() -> None:
            self.levels = []
            self.box.start_game(title, mode)

        return start

    def _enter_score(self) -> None:
        self.score = ScoreEntry()
        self.box.draw_status()

    def _end_table_game(self) -> None:
        self.box.end_game()
        self.box.close_menu()

    def _print_sheet(self) -> None:
        box = self.box
        assert box.printer is not None
        box.message = box.printer.print_sheet(box.game.state.title)
        log.info("%s", box.message)
        box.close_menu()

    def _retry_print(self) -> None:
        box = self.box
        assert box.printer is not None
        box.message = box.printer.retry()
        box.close_menu()
