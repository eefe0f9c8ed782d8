"""The game bookkeeping: which game the box plays, and what the session store keeps of it.

A game is resumed after a restart (its round and its last roll), started anew from the
menu, ended with or without a score, and each roll is recorded before it is shown. A store
that fails (a full disk, a damaged card) never stops the game: the failure is kept here and
named on the status screen, and the box goes on rolling.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pitable.box.config_title import configured_title
from pitable.config import BoxConfig
from pitable.errors import StoreError
from pitable.rules import Options, Roll, Title, find_title
from pitable.rules.session import GameState, Mode, Turn, level

log = logging.getLogger("pitable.box")


class StoredGame(Protocol):
    """A game as the store keeps it."""

    @property
    def id(self) -> int: ...

    @property
    def title(self) -> str: ...

    @property
    def mode(self) -> Mode: ...


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

    def new_game(self, title: Title | str, mode: Mode | str) -> StoredGame: ...

    def end_game(self, game_id: int, score: int | None = None) -> object: ...

    def record_roll(
        self, game_id: int, roll: Roll, source: str, hazard: bool, hazards_after: int
    ) -> object: ...

    def close(self) -> None: ...


@dataclass
class Game:
    state: GameState
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
    """The current game and its store (None: nothing is kept)."""

    def __init__(self, store: Store | None, settings: BoxConfig) -> None:
        self.store = store
        self.settings = settings
        #: Why the last write to the store failed; None once a write succeeds again.
        self.failure: str | None = None
        self._current: Game | None = None

    @property
    def current(self) -> Game:
        if self._current is None:
            raise RuntimeError("no game yet: the box has not been started")
        return self._current

    def resume_or_start(self) -> Game:
        """After a restart or a power cut: the stored game, its round and its last roll.

        The store's errors propagate: a box that cannot read its games does not start.
        """
        if self.store is not None:
            current = self.store.current_game()
            if current is not None:
                state = self.store.state(current.id)
                game = Game(state, current.id)
                last = self.store.last_roll(current.id)
                if state.last_roll is not None and last is not None:
                    # What the last roll allowed when it was rolled: its own hazard, if it
                    # counted one, was not yet marked then.
                    before = state.hazards - int(last.hazard)
                    game.last_options = game.title.options(state.last_roll, before)
                log.info("resumed game %d: %s, %s, round %d", current.id, state.title.key,
                         state.mode, state.rounds)
                self._current = game
                return game
            games = self.store.games()
            if games:
                # The last game ended: the next one is of the title and mode chosen last.
                return self.new_game(find_title(games[-1].title), games[-1].mode)
        return self.new_game(configured_title(self.settings), self.settings.mode)

    def new_game(self, title: Title, mode: str) -> Game:
        """Start a game of ``title`` in ``mode``, saved when the store takes it."""
        state = GameState(title, Mode.from_str(mode))
        store_id = None
        if self.store is not None:
            try:
                store_id = self.store.new_game(state.title, state.mode).id
            except StoreError as exc:
                log.error("new game not saved: %s", exc)
                self.failure = str(exc)
        log.info("new game: %s, %s", state.title.name, state.mode)
        self._current = Game(state, store_id)
        return self._current

    def next_game(self) -> Game:
        """The game to roll in: the current one, or a new one like it once it has ended."""
        game = self.current
        if game.ended:
            game = self.new_game(game.state.title, game.state.mode)
        return game

    def end(self, score: int | None = None) -> Ending:
        """End the current game, with its final score when one was entered."""
        game = self.current
        game.ended = True
        if self.store is not None and game.store_id is not None:
            try:
                self.store.end_game(game.store_id, score)
            except StoreError as exc:
                log.error("could not end game %s in the store: %s", game.store_id, exc)
                self.failure = str(exc)
        if score is not None and game.state.mode is Mode.SOLO:
            result = level(game.state.title, score, game.state.hazards)
            more = (
                f"{result.stars_needed} more for {result.next_level}"
                if result.next_level else "the highest level"
            )
            log.info("game ended: %s stars: %s; %s", score, result.name, more)
            return Ending(result.name, f"{score} stars; {more}")
        log.info("game ended")
        return Ending(None, "Game ended. Press ROLL for a new one.")

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

    def notices(self) -> list[str]:
        found = []
        if self.store is not None and self.store.recovered:
            found.append("state was damaged: fresh start")
        if self.failure is not None or (self.store is not None and self.store.read_only):
            # A database the box may not write says so from the start, not from the first
            # roll it fails to keep.
            found.append("rolls are not being saved")
        return found
