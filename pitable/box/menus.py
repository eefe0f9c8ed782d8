"""The box's menu: its levels, the new-game menu, the score entry and the printer's items.

The menu opens on a hold of ROLL (or a push of the encoder). ROLL's press or the encoder
moves through it, a hold or a push chooses. Each item is a label and what choosing it does
to the box; the box draws whatever :meth:`Menus.view` returns. A number (a score, a part of
one, how many players) is set in an :class:`Entry`: the encoder (or ROLL's press) changes
it, a push (or a hold) confirms it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PIL import Image

from pitable.box.games import PLAYERS_RANGE, score_components
from pitable.box.join import join_code, serves_page
from pitable.box.table_map import TableMap
from pitable.i18n import LANGUAGES, translator
from pitable.render.join import JoinCode, join_screen
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
class Entry:
    """A number set with the encoder (or ROLL's presses); a push (or a hold) confirms it
    and hands it to ``done``."""

    heading: str
    value: int
    #: The least and the most it may be.
    bounds: tuple[int, int]
    #: What the number counts, after it on the screen: "stars", "players".
    unit: str
    done: Callable[[int], None]
    #: Past either bound the number goes round to the other: with ROLL's presses alone,
    #: which only count up, every value can still be reached.
    wraps: bool = False
    #: A line under the number, e.g. the total of the parts entered so far.
    note: str | None = None

    def move(self, steps: int) -> None:
        low, high = self.bounds
        if self.wraps:
            self.value = low + (self.value - low + steps) % (high - low + 1)
        else:
            self.value = max(low, min(high, self.value + steps))

    def view(self) -> MenuView:
        unit = self.unit[:-1] if self.value == 1 and self.unit.endswith("s") else self.unit
        lines = (f"{self.value} {unit}",) + ((self.note,) if self.note else ())
        return MenuView(self.heading, lines, 0)


#: How long the code to join stays on the status screen when nobody presses anything.
JOIN_SHOW_S = 60.0


@dataclass
class JoinShown:
    """The code to join on the status screen, until a press, a turn or ``until``."""

    image: Image.Image
    until: float


@dataclass
class Menus:
    """The open menu's levels (the top one shown) and the number being entered, if any."""

    box: Box
    levels: list[MenuLevel] = field(default_factory=list)
    entry: Entry | None = None
    join: JoinShown | None = None

    def open(self) -> None:
        self.levels = [self._top()]
        self.entry = None
        self.join = None

    def clear(self) -> None:
        self.levels = []
        self.entry = None
        self.join = None

    def screen(self) -> Image.Image | None:
        """A picture that takes the status screen's place (the code to join), or None."""
        return self.join.image if self.join is not None else None

    def deadline(self) -> float | None:
        """When the menu closes by itself, if it does."""
        return self.join.until if self.join is not None else None

    def expire(self, now: float) -> None:
        if self.join is not None and now >= self.join.until:
            self.box.close_menu()

    def view(self) -> MenuView:
        if self.entry is not None:
            return self.entry.view()
        top = self.levels[-1]
        return MenuView(top.heading, tuple(label for label, _ in top.items), top.selected)

    # --- moving and choosing --------------------------------------------------------

    def move(self, steps: int) -> None:
        """ROLL's press or the encoder: the next item, or the number up or down."""
        if self.join is not None:
            self.box.close_menu()
            return
        if self.entry is not None:
            self.entry.move(steps)
        else:
            top = self.levels[-1]
            top.selected = (top.selected + steps) % len(top.items)
        self.box.draw_status()

    def choose(self) -> None:
        if self.join is not None:
            self.box.close_menu()
            return
        if self.entry is not None:
            entry, self.entry = self.entry, None
            entry.done(entry.value)
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
        items.extend(self._sheet_items())
        if box.game.state.mode is Mode.SOLO and not box.game.ended:
            items.append(("End game: score", self._enter_score))
        elif not box.game.ended:
            items.append(("End game", self._end_table_game))
        # The code to join the table's page, on the screen and on paper.
        items.append(("Show join code", self._show_join))
        if box.printer is not None and serves_page(box):
            items.append(("Print join code", self._print_join))
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
            last = self.box.games.last_sheet
            if last is None or last.title is not title:
                self._start(title, mode, None)
                return
            # Sheets of this title were printed: the table may be holding them.
            items: list[tuple[str, Callable[[], None]]] = [
                ("New map", lambda: self._start(title, mode, None)),
                (f"Last sheet: {last.tag}", lambda: self._start(title, mode, last)),
                ("Back", self._back),
            ]
            self.levels.append(MenuLevel("Map", items))
            self.box.draw_status()

        return start

    def _start(self, title: Title, mode: str, table_map: TableMap | None) -> None:
        self.levels = []
        self.box.start_game(title, mode, table_map)

    def _end_table_game(self) -> None:
        self.box.end_game()
        self.box.close_menu()

    # --- the score: a bare total, or each of the title's components in turn ----------------

    def _enter_score(self) -> None:
        names = score_components(self.box.game.title)
        if not names:
            self._score_total()
            return
        items: list[tuple[str, Callable[[], None]]] = [
            ("By parts", lambda: self._score_part(names, ())),
            ("Total", self._score_total),
            ("Back", self._back),
        ]
        self.levels.append(MenuLevel("Score", items))
        self.box.draw_status()

    def _score_total(self) -> None:
        self.entry = Entry("Score: turn, push", 0, SCORE_RANGE, "stars", self._end_with)
        self.box.draw_status()

    def _end_with(self, score: int) -> None:
        self.box.end_game(score)
        self.box.close_menu()

    def _score_part(self, names: tuple[str, ...], parts: tuple[tuple[str, int], ...]) -> None:
        """Ask for the next component; after the last, end the game with their total."""
        if len(parts) == len(names):
            self.box.end_game(sum(stars for _, stars in parts), parts)
            self.box.close_menu()
            return
        name = names[len(parts)]

        def done(stars: int) -> None:
            self._score_part(names, (*parts, (name, stars)))

        heading = f"{name} {len(parts) + 1}/{len(names)}: turn, push"
        total = sum(stars for _, stars in parts)
        self.entry = Entry(heading, 0, SCORE_RANGE, "stars", done, note=f"total so far {total}")
        self.box.draw_status()

    # --- the sheets of the game's map: for the table, one more, or the solo player's ----

    def _sheet_items(self) -> list[tuple[str, Callable[[], None]]]:
        box = self.box
        if box.printer is None:
            return []
        items: list[tuple[str, Callable[[], None]]]
        if box.game.state.mode is Mode.SOLO:
            items = [("Print a sheet", lambda: self._print_sheets(1))]
        else:
            players = box.games.players
            label = f"Sheets for {players} player{'' if players == 1 else 's'}"
            items = [(label, self._ask_players), ("One more sheet", lambda: self._print_sheets(1))]
        if box.printer.can_retry():
            items.append(("Retry the print", self._retry_print))
        return items

    def _ask_players(self) -> None:
        players = self.box.games.players
        self.entry = Entry("Sheets: turn, push", players, PLAYERS_RANGE, "players",
                           self._print_for, wraps=True)
        self.box.draw_status()

    def _print_for(self, players: int) -> None:
        self.box.games.players = players
        self._print_sheets(players)

    def _print_sheets(self, copies: int, join: JoinCode | None = None) -> None:
        """``copies`` sheets of the game's map (with ``join``, the code to join the table's
        page at the top of each). Once the game has ended they are for the next one, which
        starts now, on a fresh map, as a roll would start it."""
        box = self.box
        assert box.printer is not None
        game = box.game
        if game.ended:
            box.start_game(game.title, game.state.mode)
        table_map = box.game.map
        box.message = box.printer.print_sheet(
            table_map, copies, join=join, solo=box.game.state.mode is Mode.SOLO
        )
        box.games.printed(table_map)
        log.info("%s", box.message)
        box.close_menu()

    def _retry_print(self) -> None:
        box = self.box
        assert box.printer is not None
        box.message = box.printer.retry()
        box.close_menu()

    def _show_join(self) -> None:
        box = self.box
        image = join_screen(join_code(box), box.status.size)
        self.join = JoinShown(image, box.clock.now() + JOIN_SHOW_S)
        box.draw_status()

    def _print_join(self) -> None:
        self._print_sheets(1, join_code(self.box))
