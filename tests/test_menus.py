"""The menu drives the box through :class:`~pitable.box.menus.MenuBox` alone: a small fake
box that has only what that Protocol names (and refuses anything else) is enough to start
games, end them with a score, print sheets and change the language."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from pitable.box.games import Game
from pitable.box.menus import MenuBox, Menus
from pitable.box.table_map import TableMap
from pitable.hw.clock import FakeClock
from pitable.i18n import translator
from pitable.render.join import JoinCode
from pitable.rules import Title, find_title
from pitable.rules.base import ENGLISH, Translator
from pitable.rules.session import GameState, Mode
from pitable.rules.sheets import Side

#: What the Protocol names: its attributes and its methods and properties.
MEMBERS = {name for name in vars(MenuBox) if not name.startswith("_")} | set(
    MenuBox.__annotations__)


@dataclass
class FakeGames:
    players: int = 4
    last_sheet: TableMap | None = None
    sheets: list[TableMap] = field(default_factory=list)

    def printed(self, table_map: TableMap) -> None:
        self.sheets.append(table_map)


@dataclass
class FakePrinter:
    printed: list[tuple[str, int, bool]] = field(default_factory=list)

    def print_sheet(self, table_map: TableMap, copies: int = 1, *,
                    join: JoinCode | None = None, solo: bool = False,
                    tr: Translator = ENGLISH, lang: str = "en") -> str:
        self.printed.append((table_map.tag, copies, solo))
        return "Printing"

    def retry(self, tr: Translator = ENGLISH) -> str:
        return "Retrying"

    def can_retry(self) -> bool:
        return False


@dataclass
class Panel:
    size: tuple[int, int] = (128, 64)


def game_of(title: Title, mode: Mode) -> Game:
    return Game(GameState(title, mode), TableMap(title, Side.A, 1234))


@dataclass
class FakeBox:
    """A box with the Protocol's members (mypy checks it against MenuBox where it is
    handed to :func:`strict`); what the menu did is in ``did``."""

    game: Game = field(default_factory=lambda: game_of(find_title("valley"), Mode.TABLE))
    games: FakeGames = field(default_factory=FakeGames)
    printer: FakePrinter | None = field(default_factory=FakePrinter)
    message: str | None = None
    language: str = "en"
    clock: FakeClock = field(default_factory=FakeClock)
    status: Panel = field(default_factory=Panel)
    web_url: str | None = None
    web_pin: str | None = None
    did: list[tuple[Any, ...]] = field(default_factory=list)
    #: The players of the game who play on their phones: id and initials.
    players: list[tuple[int, str]] = field(default_factory=list)
    #: The box keeps its players' sheets: it may play one of its own.
    sheets_kept: bool = False

    @property
    def tr(self) -> Translator:
        return translator(self.language)

    def seated(self, game_id: int | None = None) -> list[tuple[int, str]]:
        return self.players

    def print_player_sheet(self, game_id: int, player_id: int) -> None:
        self.did.append(("printed player", game_id, player_id))

    def draw_status(self) -> None:
        pass

    def close_menu(self) -> None:
        self.did.append(("closed",))

    def set_language(self, lang: str) -> None:
        self.language = lang
        self.did.append(("language", lang))

    def start_game(self, title: Title, mode: Mode, table_map: TableMap | None = None) -> None:
        self.game = game_of(title, mode)
        self.did.append(("started", title.key, mode, table_map))

    def end_game(self, score: int | None = None,
                 parts: tuple[tuple[str, int], ...] | None = None) -> None:
        self.game.ended = True
        self.did.append(("ended", score, parts))

    def plays_sheets(self) -> bool:
        return self.sheets_kept

    def add_box_player(self, strength: str) -> None:
        self.did.append(("box player", strength))

    def takes_paper_scores(self) -> bool:
        return self.sheets_kept and self.game.ended

    def add_paper_score(self, initials: str, total: int) -> None:
        self.did.append(("paper", initials, total))


class Strict:
    """Hands on to ``box`` only what MenuBox names, and refuses anything else."""

    def __init__(self, box: MenuBox) -> None:
        object.__setattr__(self, "_box", box)

    def __getattr__(self, name: str) -> Any:
        if name not in MEMBERS:
            raise AttributeError(f"the menu asked the box for {name!r}, which MenuBox lacks")
        return getattr(object.__getattribute__(self, "_box"), name)

    def __setattr__(self, name: str, value: object) -> None:
        if name not in MEMBERS:
            raise AttributeError(f"the menu set {name!r} on the box, which MenuBox lacks")
        setattr(object.__getattribute__(self, "_box"), name, value)


def strict(box: MenuBox) -> MenuBox:
    return cast(MenuBox, Strict(box))


def labels(menus: Menus) -> list[str]:
    return list(menus.view().items)


def choose(menus: Menus, label: str) -> None:
    """Move to the item ``label`` and choose it, as the encoder and its push do."""
    view = menus.view()
    menus.move(list(view.items).index(label) - view.selected)
    menus.choose()


@pytest.fixture
def box() -> FakeBox:
    return FakeBox()


def test_the_menu_sees_of_the_box_only_what_the_protocol_names(box: FakeBox) -> None:
    seen = strict(box)
    assert {name for name in MEMBERS if hasattr(seen, name)} == MEMBERS
    assert not hasattr(seen, "did")
    with pytest.raises(AttributeError, match="MenuBox lacks"):
        seen.phase = None  # type: ignore[attr-defined]


def test_a_new_game_chosen_in_the_menu_starts_on_the_box_in_its_mode(box: FakeBox) -> None:
    menus = Menus(strict(box))
    menus.open()
    assert labels(menus)[:4] == ["New game", "Sheets for 4 players", "One more sheet",
                                 "End game"]
    choose(menus, "New game")
    choose(menus, "Island: solo")
    assert box.did == [("started", "island", Mode.SOLO, None)]
    assert box.did[0][2] is Mode.SOLO


def test_the_box_is_seated_as_a_player_at_the_strength_chosen(box: FakeBox) -> None:
    menus = Menus(strict(box))
    menus.open()
    assert "Box as player" not in labels(menus)
    box.sheets_kept = True
    menus = Menus(strict(box))
    menus.open()
    choose(menus, "Box as player")
    assert labels(menus) == ["Quick rival", "Planning rival", "Deep rival", "Back"]
    choose(menus, "Planning rival")
    assert box.did == [("closed",), ("box player", "plan")]
    box.game.ended = True
    menus = Menus(strict(box))
    menus.open()
    assert "Box as player" not in labels(menus)


def test_a_paper_player_s_initials_and_stars_are_entered_letter_by_letter(
        box: FakeBox) -> None:
    box.sheets_kept = True
    menus = Menus(strict(box))
    menus.open()
    assert "Paper player's stars" not in labels(menus), "not before the game's end"
    box.game.ended = True
    menus = Menus(strict(box))
    menus.open()
    choose(menus, "Paper player's stars")
    for letter in "PQ":
        assert menus.entry is not None
        menus.move(ord(letter) - ord("A"))
        assert labels(menus)[0].endswith(letter)
        menus.choose()
    assert menus.entry is not None
    menus.move(-1)  # past Z, round to "that is all"
    assert "PQ" in labels(menus)[0]
    menus.choose()
    assert menus.entry is not None and menus.entry.note == "PQ"
    menus.move(31)
    menus.choose()
    assert box.did[-1] == ("paper", "PQ", 31)
    # Three letters end the initials by themselves.
    menus = Menus(strict(box))
    menus.open()
    choose(menus, "Paper player's stars")
    for _ in range(3):
        menus.choose()
    menus.move(-2)
    menus.choose()
    assert box.did[-1] == ("paper", "AAA", -2)


def test_a_solo_game_ends_with_the_score_entered(box: FakeBox) -> None:
    box.game = game_of(find_title("temple"), Mode.SOLO)
    menus = Menus(strict(box))
    menus.open()
    choose(menus, "End game: score")
    if menus.entry is None:  # a title that scores by parts asks how first
        choose(menus, "Total")
    assert menus.entry is not None
    menus.move(+12)
    menus.choose()
    assert box.did == [("ended", 12, None), ("closed",)]


def test_a_players_sheet_is_chosen_by_initials_and_printed(box: FakeBox) -> None:
    menus = Menus(strict(box))
    menus.open()
    assert "Print a player's sheet" not in labels(menus)
    box.game.store_id = 9
    box.players = [(3, "AB"), (5, "CD")]
    menus.open()
    choose(menus, "Print a player's sheet")
    assert labels(menus) == ["AB", "CD", "Back"]
    choose(menus, "CD")
    assert box.did == [("printed player", 9, 5), ("closed",)]


def test_sheets_for_the_table_print_and_are_remembered(box: FakeBox) -> None:
    menus = Menus(strict(box))
    menus.open()
    choose(menus, "One more sheet")
    assert box.printer is not None and box.printer.printed == [(box.game.map.tag, 1, False)]
    assert box.games.sheets == [box.game.map]
    assert box.message == "Printing"
    assert box.did == [("closed",)]


def test_a_language_chosen_changes_the_box_s_words(box: FakeBox) -> None:
    menus = Menus(strict(box))
    menus.open()
    choose(menus, "Language")
    choose(menus, "Français")
    assert box.did == [("closed",), ("language", "fr")]
    menus.open()
    assert labels(menus)[0] == box.tr.gettext("New game") != "New game"


def test_without_a_page_the_join_code_says_the_web_is_off(box: FakeBox) -> None:
    menus = Menus(strict(box))
    menus.open()
    assert "Print join code" not in labels(menus)
    choose(menus, "Show join code")
    assert menus.screen() is not None and menus.join is not None and menus.join.code is None
    menus.move(+1)
    assert box.did == [("closed",)]
