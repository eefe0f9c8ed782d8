"""The game bookkeeping: which game the box plays, and what the session store keeps of it.

A game is resumed after a restart (its round, its last roll and its map), started anew from
the menu on a fresh map or on the last printed sheet's, ended with or without a score (a
total, or its components one by one), and each roll is recorded before it is shown. A store
that fails (a full disk, a damaged card) never stops the game: the failure is kept here and
named on the status screen, and the box goes on rolling. The menu's choices that outlive a
game (how many players, the last sheet printed) are kept in the store's settings.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pitable.box.config_title import configured_title
from pitable.box.table_map import TableMap, stored_map
from pitable.config import BoxConfig
from pitable.errors import BadSheet, StoreError
from pitable.rules import Options, Roll, Title, find_title
from pitable.rules.base import ENGLISH, Translator
from pitable.rules.session import GameState, Mode, Turn, level
from pitable.rules.sheets import Side

log = logging.getLogger("pitable.box")


#: A score's components as entered: (name, stars), in the order of the title's sheet.
ScoreParts = tuple[tuple[str, int], ...]

#: How many players a table may print sheets for, and how many it prints at first.
PLAYERS_RANGE = (1, 100)
DEFAULT_PLAYERS = 4


def score_components(title: Title) -> tuple[str, ...]:
    """The components ``title`` scores a finished sheet by, in its own order (the names
    :meth:`Title.score` gives: Valley "Full grid", "Jungles"...); () for a title that does
    not say how its sheets score, whose score is entered as a bare total."""
    from pitable.rules.scoring import parse_sheet

    try:
        # One empty space is a sheet every title that scores can read: the score of it
        # names each component, worth nothing.
        score = title.score(parse_sheet("_"))
    except BadSheet:
        return ()
    return tuple(name for name, _ in score.components)


class StoredGame(Protocol):
    """A game as the store keeps it."""

    @property
    def id(self) -> int: ...

    @property
    def title(self) -> str: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def map(self) -> TableMap | None: ...


class StoredRoll(Protocol):
    """A roll as the store keeps it."""

    @property
    def hazard(self) -> bool: ...


class Store(Protocol):
    """What the box needs of :class:`~pitable.box.store.SessionStore`; raises StoreError."""

    @property
    def recovered(self) -> str | None:
        """One line when a damaged database was moved aside and a fresh one started."""
        ...

    @property
    def read_only(self) -> str | None:
        """One line when a sound database cannot be written: rolls are not kept."""
        ...

    def current_game(self) -> StoredGame | None: ...

    def games(self) -> Sequence[StoredGame]: ...

    def state(self, game_id: int) -> GameState: ...

    def last_roll(self, game_id: int) -> StoredRoll | None: ...

    def new_game(
        self, title: Title | str, mode: Mode | str, table_map: TableMap | None = None
    ) -> StoredGame: ...

    def set_map(self, game_id: int, table_map: TableMap) -> object: ...

    def end_game(
        self, game_id: int, score: int | None = None, parts: ScoreParts | None = None
    ) -> object: ...

    def setting(self, name: str) -> str | None: ...

    def set_setting(self, name: str, value: str) -> None: ...

    def record_roll(
        self, game_id: int, roll: Roll, source: str, hazard: bool, hazards_after: int
    ) -> object: ...

    def close(self) -> None: ...


@dataclass
class Game:
    state: GameState
    #: The map everyone at the table plays on, and every sheet printed for the game shows.
    map: TableMap
    #: The game's id in the session store, when there is one.
    store_id: int | None = None
    last_options: Options | None = None
    ended: bool = False

    @property
    def title(self) -> Title:
        return self.state.title


@dataclass(frozen=True)
class Ending:
    """What the screens say when a game ends: its level (solo, with a score) and a line."""

    result: str | None
    message: str


class Games:
    """The current game and its store (None: nothing is kept).

    ``seeds`` gives a fresh map's seed (the box draws it from its entropy source).
    """

    def __init__(self, store: Store | None, settings: BoxConfig,
                 seeds: Callable[[], int]) -> None:
        self.store = store
        self.settings = settings
        self.seeds = seeds
        #: Why the last write to the store failed; None once a write succeeds again.
        self.failure: str | None = None
        self._current: Game | None = None
        #: The settings as the box knows them: the store's, and those it could not keep.
        self._settings: dict[str, str] = {}

    @property
    def current(self) -> Game:
        if self._current is None:
            raise RuntimeError("no game yet: the box has not been started")
        return self._current

    def resume_or_start(self) -> Game:
        """After a restart or a power cut: the stored game, its round, last roll and map.

        The store's errors propagate: a box that cannot read its games does not start.
        """
        if self.store is not None:
            current = self.store.current_game()
            if current is not None:
                state = self.store.state(current.id)
                table_map = current.map
                if table_map is None:
                    # A game saved before games had maps, or on a map of another generator
                    # format (its seed now draws another map): it gets one now, kept from
                    # here on, so every sheet printed from here on matches the header.
                    table_map = self.fresh_map(state.title)
                    self._save(lambda: self._stored().set_map(current.id, table_map),
                               "map not saved")
                game = Game(state, table_map, current.id)
                last = self.store.last_roll(current.id)
                if state.last_roll is not None and last is not None:
                    # What the last roll allowed when it was rolled: its own hazard, if it
                    # counted one, was not yet marked then.
                    before = state.hazards - int(last.hazard)
                    game.last_options = game.title.options(state.last_roll, before)
                log.info("resumed game %d: %s, %s, round %d, map %s", current.id,
                         state.title.key, state.mode, state.rounds, table_map.tag)
                self._current = game
                return game
            games = self.store.games()
            if games:
                # The last game ended: the next one is of the title and mode chosen last.
                return self.new_game(find_title(games[-1].title), games[-1].mode)
        return self.new_game(configured_title(self.settings), self.settings.mode)

    def fresh_map(self, title: Title) -> TableMap:
        """A new map of ``title``: side A, a seed no one chose."""
        return TableMap(title, Side.A, self.seeds())

    def new_game(self, title: Title, mode: str, table_map: TableMap | None = None) -> Game:
        """Start a game of ``title`` in ``mode`` on ``table_map`` (None: a fresh map),
        saved when the store takes it."""
        state = GameState(title, Mode.from_str(mode))
        if table_map is None or table_map.title is not state.title:
            table_map = self.fresh_map(state.title)
        store_id = None
        if self.store is not None:
            try:
                store_id = self.store.new_game(state.title, state.mode, table_map).id
            except StoreError as exc:
                log.error("new game not saved: %s", exc)
                self.failure = str(exc)
        log.info("new game: %s, %s, map %s", state.title.name, state.mode, table_map.tag)
        self._current = Game(state, table_map, store_id)
        return self._current

    def next_game(self) -> Game:
        """The game to roll in: the current one, or a new one like it once it has ended."""
        game = self.current
        if game.ended:
            game = self.new_game(game.state.title, game.state.mode)
        return game

    def end(self, score: int | None = None, parts: ScoreParts | None = None,
            tr: Translator = ENGLISH) -> Ending:
        """End the current game, with its final score when one was entered, and the
        components it was entered by, if it was; the line for the screen in ``tr``'s
        language (the level stays English: the screen translates it)."""
        game = self.current
        game.ended = True
        if self.store is not None and game.store_id is not None:
            try:
                self.store.end_game(game.store_id, score, parts)
            except StoreError as exc:
                log.error("could not end game %s in the store: %s", game.store_id, exc)
                self.failure = str(exc)
        if parts is not None:
            log.info("score by parts: %s", ", ".join(f"{n} {s}" for n, s in parts))
        if score is not None and game.state.mode is Mode.SOLO:
            result = level(game.state.title, score, game.state.hazards)
            log.info("game ended: %s stars: %s; %s", score, result.name,
                     f"{result.stars_needed} more for {result.next_level}"
                     if result.next_level else "the highest level")
            _ = tr.gettext
            if result.next_level:
                line = _("{score} stars; {needed} more for {level}").format(
                    score=score, needed=result.stars_needed, level=_(result.next_level))
            else:
                line = _("{score} stars; the highest level").format(score=score)
            return Ending(result.name, line)
        log.info("game ended")
        return Ending(None, tr.gettext("Game ended. Press ROLL for a new one."))

    def record(self, turn: Turn, source: str) -> None:
        """Save ``turn`` of the current game, then make it the game's state."""
        game = self.current
        if self.store is not None and game.store_id is not None:
            try:
                self.store.record_roll(game.store_id, turn.roll, source, turn.hazard,
                                       turn.state.hazards)
                self.failure = None
            except StoreError as exc:
                # A full or failing disk must not stop the game: roll, show, and say so.
                log.error("roll %d not saved: %s", turn.round, exc)
                self.failure = str(exc)
        game.state = turn.state
        game.last_options = turn.options

    # --- the menu's choices that outlive a game -----------------------------------------

    def setting(self, name: str) -> str | None:
        """A remembered choice: the one made since the box started, else the store's."""
        if name not in self._settings and self.store is not None:
            try:
                value = self.store.setting(name)
            except StoreError as exc:
                log.error("setting %s not read: %s", name, exc)
                value = None
            if value is not None:
                self._settings[name] = value
        return self._settings.get(name)

    def remember(self, name: str, value: str) -> None:
        """Remember a choice, in the store when it takes it (else until the box stops)."""
        self._settings[name] = value
        if self.store is not None:
            self._save(lambda: self._stored().set_setting(name, value), f"{name} not saved")

    @property
    def players(self) -> int:
        """How many sheets "Sheets for N players" prints: the number set last."""
        low, high = PLAYERS_RANGE
        try:
            return max(low, min(high, int(self.setting("players") or DEFAULT_PLAYERS)))
        except ValueError:
            return DEFAULT_PLAYERS

    @players.setter
    def players(self, count: int) -> None:
        self.remember("players", str(count))

    @property
    def last_sheet(self) -> TableMap | None:
        """The map of the last sheet the box printed, if any."""
        return stored_map(self.setting("last_sheet"))

    def printed(self, table_map: TableMap) -> None:
        """A sheet of ``table_map`` went to the printer: a new game may take its map."""
        self.remember("last_sheet", table_map.to_text())

    def _stored(self) -> Store:
        assert self.store is not None
        return self.store

    def _save(self, write: Callable[[], object], what: str) -> None:
        try:
            write()
        except StoreError as exc:
            log.error("%s: %s", what, exc)
            self.failure = str(exc)

    def notices(self, tr: Translator = ENGLISH) -> list[str]:
        """What the status screen says of the store, in ``tr``'s language."""
        found = []
        if self.store is not None and self.store.recovered:
            found.append(tr.gettext("state was damaged: fresh start"))
        if self.failure is not None or (self.store is not None and self.store.read_only):
            # A database the box may not write says so from the start, not from the first
            # roll it fails to keep.
            found.append(tr.gettext("rolls are not being saved"))
        return found
