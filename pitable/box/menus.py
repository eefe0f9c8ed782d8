"""The box's menu: its levels, the new-game menu, the score entry and the printer's items.

The menu opens on a hold of ROLL (or a push of the encoder). ROLL's press or the encoder
moves through it, a hold or a push chooses. Each item is a label and what choosing it does
to the box; the box draws whatever :meth:`Menus.view` returns. A number (a score, a part of
one, how many players) is set in an :class:`Entry`: the encoder (or ROLL's press) changes
it, a push (or a hold) confirms it. Every heading and label is in the box's language,
chosen when the level opens (choosing a language closes the menu).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from PIL import Image

from pitable.box.games import PLAYERS_RANGE, Game, score_components
from pitable.box.join import join_code, serves_page
from pitable.box.table_map import TableMap
from pitable.hw.clock import Clock
from pitable.i18n import LANGUAGES
from pitable.render.join import JoinCode, join_screen
from pitable.render.status import MenuView
from pitable.rules import Title, all_titles
from pitable.rules.base import N_, Translator
from pitable.rules.session import Mode

log = logging.getLogger("pitable.box")

#: The least and the most stars the score entry allows.
SCORE_RANGE = (-200, 400)
#: The letters of a paper player's initials, entered one at a time, and how many at most.
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MOST_INITIALS = 3
#: The strengths the box plays its own sheet at, as the menu names them, weakest first.
BOX_PLAYER_STRENGTHS = (("greedy", N_("Quick rival")), ("plan", N_("Planning rival")),
                        ("deep", N_("Deep rival")))


class MenuGames(Protocol):
    """What the menu needs of the box's games (:class:`~pitable.box.games.Games`): the
    choices that outlive a game."""

    @property
    def players(self) -> int:
        """How many sheets "Sheets for N players" prints."""
        ...

    @players.setter
    def players(self, count: int) -> None: ...

    @property
    def last_sheet(self) -> TableMap | None:
        """The map of the last sheet printed, if any."""
        ...

    def printed(self, table_map: TableMap) -> None:
        """A sheet of ``table_map`` went to the printer."""
        ...


class MenuPrinter(Protocol):
    """What the menu needs of the box's printer (:class:`~pitable.box.printing.BoxPrinter`)."""

    def print_sheet(self, table_map: TableMap, copies: int = 1, *,
                    join: JoinCode | None = None, solo: bool = False,
                    tr: Translator = ..., lang: str = ...) -> str: ...

    def retry(self, tr: Translator = ...) -> str: ...

    def can_retry(self) -> bool: ...


class Screen(Protocol):
    """A screen the menu draws a picture for: its size in pixels."""

    @property
    def size(self) -> tuple[int, int]: ...


class MenuBox(Protocol):
    """What the menu needs of the box (:class:`~pitable.box.controller.Box`): the game,
    the words, the printer, and the few steps a menu item takes."""

    #: The status screen's line, set by a print or a retry.
    message: str | None

    @property
    def game(self) -> Game: ...

    @property
    def games(self) -> MenuGames: ...

    @property
    def printer(self) -> MenuPrinter | None: ...

    @property
    def language(self) -> str: ...

    @property
    def tr(self) -> Translator: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def status(self) -> Screen: ...

    @property
    def web_url(self) -> str | None:
        """The table's page as the web server bound it; None while none is served."""
        ...

    @property
    def web_pin(self) -> str | None: ...

    def draw_status(self) -> None: ...

    def seated(self, game_id: int | None = None) -> list[tuple[int, str]]:
        """The players of the game shown who play their sheets on their phones: each one's
        id and initials."""
        ...

    def print_player_sheet(self, game_id: int, player_id: int) -> None: ...

    def close_menu(self) -> None: ...

    def set_language(self, lang: str) -> None: ...

    def start_game(self, title: Title, mode: Mode, table_map: TableMap | None = None) -> None:
        ...

    def end_game(self, score: int | None = None,
                 parts: tuple[tuple[str, int], ...] | None = None) -> None: ...

    def plays_sheets(self) -> bool:
        """The box can play a sheet of its own at this game (its players' sheets are
        kept)."""
        ...

    def add_box_player(self, strength: str) -> None:
        """Seat the box as one more player at ``strength``, and say so."""
        ...

    def takes_paper_scores(self) -> bool:
        """A paper player's stars may be given: an ended table game with phones."""
        ...

    def add_paper_score(self, initials: str, total: int) -> None:
        """A paper player's stars into the ended game's ranking, and say so."""
        ...


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
    #: The number as the screen says it, with what it counts: "4 players", "1 star".
    unit: Callable[[int], str]
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
        lines = (self.unit(self.value),) + ((self.note,) if self.note else ())
        return MenuView(self.heading, lines, 0)


#: How long the code to join stays on the status screen when nobody presses anything.
JOIN_SHOW_S = 60.0
#: How often the code on the status screen is worked out again, so that it follows the
#: network (Wi-Fi up after the box started, a new address) without a press.
JOIN_CHECK_S = 5.0


@dataclass
class JoinShown:
    """The code to join on the status screen, until a press, a turn or ``until``."""

    image: Image.Image
    until: float
    #: The code in the picture (None: the page is off), and when to see whether it still is
    #: the code now.
    code: JoinCode | None = None
    check_at: float = float("inf")


@dataclass
class Menus:
    """The open menu's levels (the top one shown) and the number being entered, if any."""

    box: MenuBox
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
        """When the menu closes by itself, or the code to join is looked at again."""
        return min(self.join.until, self.join.check_at) if self.join is not None else None

    def expire(self, now: float) -> None:
        join = self.join
        if join is None:
            return
        if now >= join.until:
            self.box.close_menu()
        elif now >= join.check_at:
            # On the box's loop, but cheap and never waiting: the LAN address is read from
            # the kernel's route table and the interface, nothing is sent on the network.
            join.check_at = now + JOIN_CHECK_S
            code = join_code(self.box)
            if code != join.code:
                self._draw_join(code, join.until)

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

    @property
    def tr(self) -> Translator:
        return self.box.tr

    def _top(self) -> MenuLevel:
        box = self.box
        _ = self.tr.gettext
        items: list[tuple[str, Callable[[], None]]] = [(_("New game"), self._new_game_menu)]
        items.extend(self._sheet_items())
        if box.game.state.mode is Mode.SOLO and not box.game.ended:
            items.append((_("End game: score"), self._enter_score))
        elif not box.game.ended:
            items.append((_("End game"), self._end_table_game))
        if not box.game.ended and box.plays_sheets():
            items.append((_("Box as player"), self._box_player_menu))
        if box.takes_paper_scores():
            items.append((_("Paper player's stars"), self._paper_initials))
        # The code to join the table's page, on the screen and on paper.
        items.append((_("Show join code"), self._show_join))
        if box.printer is not None and serves_page(box):
            items.append((_("Print join code"), self._print_join))
        items.append((_("Language"), self._language_menu))
        items.append((_("Back"), box.close_menu))
        return MenuLevel(_("Menu"), items)

    # --- the language ---------------------------------------------------------------------

    def _language_menu(self) -> None:
        """Every language by its own name; choosing one changes the words at once."""
        items: list[tuple[str, Callable[[], None]]] = [
            (name, self._language_setter(code)) for code, name in LANGUAGES.items()
        ]
        items.append((self.tr.gettext("Back"), self._back))
        selected = list(LANGUAGES).index(self.box.language)
        heading = self.tr.gettext("Language")
        self.levels.append(MenuLevel(heading, items, selected))
        self.box.draw_status()

    def _language_setter(self, code: str) -> Callable[[], None]:
        def choose() -> None:
            self.box.close_menu()
            self.box.set_language(code)

        return choose

    def _new_game_menu(self) -> None:
        _ = self.tr.gettext
        items: list[tuple[str, Callable[[], None]]] = []
        game = self.box.game
        selected = 0
        for title in all_titles():
            for mode, label in ((Mode.TABLE, _("{title}: table")),
                                (Mode.SOLO, _("{title}: solo"))):
                if title is game.title and mode is game.state.mode:
                    selected = len(items)
                items.append((label.format(title=_(title.short_name)),
                              self._starter(title, mode)))
        items.append((_("Back"), self._back))
        self.levels.append(MenuLevel(_("New game"), items, selected))
        self.box.draw_status()

    def _starter(self, title: Title, mode: Mode) -> Callable[[], None]:
        def start() -> None:
            last = self.box.games.last_sheet
            if last is None or last.title is not title:
                self._start(title, mode, None)
                return
            # Sheets of this title were printed: the table may be holding them.
            _ = self.tr.gettext
            items: list[tuple[str, Callable[[], None]]] = [
                (_("New map"), lambda: self._start(title, mode, None)),
                (_("Last sheet: {tag}").format(tag=last.tag),
                 lambda: self._start(title, mode, last)),
                (_("Back"), self._back),
            ]
            self.levels.append(MenuLevel(_("Map"), items))
            self.box.draw_status()

        return start

    def _start(self, title: Title, mode: Mode, table_map: TableMap | None) -> None:
        self.levels = []
        self.box.start_game(title, mode, table_map)

    def _box_player_menu(self) -> None:
        """The strengths the box may play at: a rival on the same dice."""
        _ = self.tr.gettext
        items: list[tuple[str, Callable[[], None]]] = [
            (_(label), self._box_player(strength)) for strength, label in BOX_PLAYER_STRENGTHS]
        items.append((_("Back"), self._back))
        self.levels.append(MenuLevel(_("Box as player"), items))
        self.box.draw_status()

    def _box_player(self, strength: str) -> Callable[[], None]:
        def add() -> None:
            self.box.close_menu()
            self.box.add_box_player(strength)

        return add

    def _paper_initials(self, so_far: str = "") -> None:
        """A paper player's initials, a letter at a time (one to three: after the first,
        the value past Z ends them), then their stars."""
        _ = self.tr.gettext
        most = len(LETTERS) if so_far else len(LETTERS) - 1

        def unit(value: int) -> str:
            if value < len(LETTERS):
                return so_far + LETTERS[value]
            return _("{initials}: that is all").format(initials=so_far)

        def done(value: int) -> None:
            if value >= len(LETTERS):
                self._paper_stars(so_far)
            elif len(so_far) + 1 == MOST_INITIALS:
                self._paper_stars(so_far + LETTERS[value])
            else:
                self._paper_initials(so_far + LETTERS[value])

        self.entry = Entry(_("Initials {number}/{parts}: turn, push").format(
            number=len(so_far) + 1, parts=MOST_INITIALS), 0, (0, most), unit, done,
            wraps=True)
        self.box.draw_status()

    def _paper_stars(self, initials: str) -> None:
        def done(total: int) -> None:
            self.box.close_menu()
            self.box.add_paper_score(initials, total)

        self.entry = Entry(self.tr.gettext("Score: turn, push"), 0, SCORE_RANGE, self._stars,
                           done, note=initials)
        self.box.draw_status()

    def _end_table_game(self) -> None:
        self.box.end_game()
        self.box.close_menu()

    # --- the score: a bare total, or each of the title's components in turn ----------------

    def _enter_score(self) -> None:
        names = score_components(self.box.game.title)
        if not names:
            self._score_total()
            return
        _ = self.tr.gettext
        items: list[tuple[str, Callable[[], None]]] = [
            (_("By parts"), lambda: self._score_part(names, ())),
            (_("Total"), self._score_total),
            (_("Back"), self._back),
        ]
        self.levels.append(MenuLevel(_("Score"), items))
        self.box.draw_status()

    def _stars(self, count: int) -> str:
        return self.tr.ngettext("{count} star", "{count} stars", count).format(count=count)

    def _players(self, count: int) -> str:
        return self.tr.ngettext("{count} player", "{count} players", count).format(count=count)

    def _score_total(self) -> None:
        self.entry = Entry(self.tr.gettext("Score: turn, push"), 0, SCORE_RANGE, self._stars,
                           self._end_with)
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

        _ = self.tr.gettext
        # The components' names are marked where each title scores its sheet.
        heading = _("{part} {number}/{parts}: turn, push").format(
            part=_(name), number=len(parts) + 1, parts=len(names))
        total = sum(stars for _name, stars in parts)
        self.entry = Entry(heading, 0, SCORE_RANGE, self._stars, done,
                           note=_("total so far {total}").format(total=total))
        self.box.draw_status()

    # --- the sheets of the game's map: for the table, one more, or the solo player's ----

    def _sheet_items(self) -> list[tuple[str, Callable[[], None]]]:
        box = self.box
        if box.printer is None:
            return []
        _ = self.tr.gettext
        items: list[tuple[str, Callable[[], None]]]
        if box.game.state.mode is Mode.SOLO:
            items = [(_("Print a sheet"), lambda: self._print_sheets(1))]
        else:
            players = box.games.players
            label = self.tr.ngettext("Sheets for {count} player", "Sheets for {count} players",
                                     players).format(count=players)
            items = [(label, self._ask_players),
                     (_("One more sheet"), lambda: self._print_sheets(1))]
        if box.game.store_id is not None and box.seated():
            items.append((_("Print a player's sheet"), self._players_menu))
        if box.printer.can_retry():
            items.append((_("Retry the print"), self._retry_print))
        return items

    def _players_menu(self) -> None:
        """The players of the game by their initials: choosing one prints their sheet as
        they filled it in on their phone."""
        box = self.box
        game_id = box.game.store_id
        assert game_id is not None
        items: list[tuple[str, Callable[[], None]]] = [
            (initials, self._player_printer(game_id, player_id))
            for player_id, initials in box.seated()
        ]
        items.append((self.tr.gettext("Back"), self._back))
        self.levels.append(MenuLevel(self.tr.gettext("Whose sheet?"), items))
        box.draw_status()

    def _player_printer(self, game_id: int, player_id: int) -> Callable[[], None]:
        def choose() -> None:
            self.box.print_player_sheet(game_id, player_id)
            self.box.close_menu()

        return choose

    def _ask_players(self) -> None:
        players = self.box.games.players
        self.entry = Entry(self.tr.gettext("Sheets: turn, push"), players, PLAYERS_RANGE,
                           self._players, self._print_for, wraps=True)
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
            table_map, copies, join=join, solo=box.game.state.mode is Mode.SOLO, tr=box.tr,
            lang=box.language,
        )
        box.games.printed(table_map)
        log.info("printing %d sheet%s of %s", copies, "" if copies == 1 else "s",
                 table_map.label)
        box.close_menu()

    def _retry_print(self) -> None:
        box = self.box
        assert box.printer is not None
        box.message = box.printer.retry(box.tr)
        box.close_menu()

    def _show_join(self) -> None:
        self._draw_join(join_code(self.box), self.box.clock.now() + JOIN_SHOW_S)

    def _draw_join(self, code: JoinCode | None, until: float) -> None:
        box = self.box
        image = join_screen(code, box.status.size, box.tr)
        self.join = JoinShown(image, until, code, box.clock.now() + JOIN_CHECK_S)
        box.draw_status()

    def _print_join(self) -> None:
        self._print_sheets(1, join_code(self.box))
