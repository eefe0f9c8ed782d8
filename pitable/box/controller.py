"""The controller: one loop owns the box's state; the parts' callbacks only queue events.

A press of ROLL (released before ``hold_s``) rolls; holding it opens the menu, and in the
menu a press moves down and a hold chooses. The encoder moves through the menu and its
push chooses. A roll is drawn, folded into the game, saved, then shown: a short tumble on
the three dice panels, the final faces, and on the status screen what the roll allows in
the title's words, a hazard inverted and blinking. Time comes from an injected clock, so
the simulator and the tests drive the box without waiting.
"""

from __future__ import annotations

import enum
import logging
import queue
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pitable.box.config_title import configured_title
from pitable.box.parts import DisplaySlot
from pitable.config import BoxConfig
from pitable.errors import EntropyError
from pitable.hw.gpio import Edge, RoundLeds
from pitable.render.faces import die_panel, draw_tumble_frame, face_panel
from pitable.render.status import MenuView, StatusView, draw_status
from pitable.rules import Die, Options, draw_roll, find_title, title_keys
from pitable.rules.session import GameState, Mode, level

log = logging.getLogger("pitable.box")


#: Time between two frames of the tumble; the tumble's length is ``box.tumble_ms``.
FRAME_MS = 75
#: The least time a result stays on the screens before a press queued during its tumble
#: rolls again, so that no roll goes by unseen.
MIN_SHOW_S = 1.5


class Phase(enum.Enum):
    IDLE = "idle"
    ROLLING = "rolling"
    SHOWING = "showing"
    MENU = "menu"


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
class Game:
    state: GameState
    #: The game's id in the session store, when there is one.
    store_id: int | None = None
    last_options: Options | None = None
    ended: bool = False


@dataclass
class Box:
    """The dice box: three dice panels, a status screen, LEDs, inputs, entropy, a store."""

    dice: Mapping[Die, DisplaySlot]
    status: DisplaySlot
    entropy: Any
    clock: Callable[[], float]
    #: The ``[box]`` table of the config: title, mode, hold, tumble and blink times.
    settings: BoxConfig = field(default_factory=BoxConfig)
    leds: RoundLeds | None = None
    store: Any = None
    printer: Any = None

    def __post_init__(self) -> None:
        # A SimpleQueue: its put() may be called from a signal handler (SIGTERM) while the
        # loop waits in get(), which queue.Queue's lock does not allow.
        self.events: queue.SimpleQueue[Edge | str] = queue.SimpleQueue()
        self.store_failure: str | None = None
        self.phase = Phase.IDLE
        self.down_at: float | None = None
        self.hold_fired = False
        self.pending_rolls = 0
        #: When a press queued during the tumble may roll: once the result has been seen.
        self.pending_at = 0.0
        self.result: str | None = None
        self.tumble_until = 0.0
        self.next_frame = 0.0
        self.tumble_step = 0
        self.blink_on = True
        self.next_blink: float | None = None
        self.menu: list[MenuLevel] = []
        self.score: ScoreEntry | None = None
        self.message: str | None = None
        self.stopped = threading.Event()
        self.game = self._resume_or_start()
        self._show_current()

    # --- the loop -------------------------------------------------------------

    def post(self, event: Edge | str) -> None:
        """Queue an event; the only thing the parts' callbacks (any thread) may do."""
        self.events.put(event)

    def step(self) -> float | None:
        """Handle every queued event and every timer due now; return the next deadline."""
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                break
            self._handle(event)
        self._timers()
        return self._next_deadline()

    def run(self, heartbeat: Callable[[], None] | None = None) -> None:
        """The box's loop, until :meth:`stop`: wait for an event or the next deadline."""
        while not self.stopped.is_set():
            deadline = self.step()
            if heartbeat is not None:
                heartbeat()
            timeout = 0.5 if deadline is None else max(0.0, min(0.5, deadline - self.clock()))
            try:
                event = self.events.get(timeout=timeout)
            except queue.Empty:
                continue
            self._handle(event)

    def stop(self) -> None:
        self.stopped.set()
        self.events.put("stop")

    def _next_deadline(self) -> float | None:
        deadlines = []
        if self.down_at is not None and not self.hold_fired:
            deadlines.append(self.down_at + self.settings.hold_s)
        if self.phase is Phase.ROLLING:
            deadlines.append(min(self.next_frame, self.tumble_until))
        if self.next_blink is not None:
            deadlines.append(self.next_blink)
        if self.pending_rolls and self.phase is Phase.SHOWING:
            deadlines.append(self.pending_at)
        for slot in self._slots():
            if slot.retry_at is not None:
                deadlines.append(slot.retry_at)
        return min(deadlines) if deadlines else None

    def _timers(self) -> None:
        now = self.clock()
        held_since = self.down_at
        due = held_since is not None and now >= held_since + self.settings.hold_s
        if due and not self.hold_fired:
            self.hold_fired = True
            self._on_hold()
        if self.phase is Phase.ROLLING:
            if now >= self.tumble_until:
                self._show_final()
            elif now >= self.next_frame:
                self._tumble_frame()
        if self.pending_rolls and self.phase is Phase.SHOWING and now >= self.pending_at:
            self.pending_rolls -= 1
            self._roll()
        if self.next_blink is not None and now >= self.next_blink:
            self.blink_on = not self.blink_on
            self.next_blink = now + self.settings.blink_ms / 2000
            self._draw_status()
        for slot in self._slots():
            if slot.retry():
                self.message = None
                self._draw_status()

    # --- inputs -----------------------------------------------------------------

    def _handle(self, event: Edge | str) -> None:
        if isinstance(event, str):
            # "stop" only wakes the loop; "printer": a print job changed.
            if event == "printer" and self.printer is not None:
                message = self.printer.message()
                if message != self.message:
                    log.info("%s", message)
                    self.message = message
                    self._draw_status()
            return
        if event.kind == "down":
            self.down_at = event.at
            self.hold_fired = False
        elif event.kind == "up":
            if self.down_at is None:
                return
            held = self.hold_fired or event.at - self.down_at >= self.settings.hold_s
            fired = self.hold_fired
            self.down_at = None
            self.hold_fired = False
            if held and not fired:
                self._on_hold()
            elif not held:
                self._on_press()
        elif event.kind == "turn":
            self._on_turn(event.steps)
        elif event.kind == "push":
            self._on_push()

    def _on_press(self) -> None:
        if self.phase is Phase.MENU:
            if self.score is not None:
                self._adjust_score(+1)
            else:
                self._move(+1)
        elif self.phase is Phase.ROLLING or self.pending_rolls:
            # No press is lost: it rolls again once this roll has been shown long enough
            # for the table to read it.
            self.pending_rolls += 1
        else:
            self._roll()

    def _on_hold(self) -> None:
        if self.phase is Phase.MENU:
            self._choose()
        elif self.phase is not Phase.ROLLING:
            self._open_menu()

    def _on_push(self) -> None:
        if self.phase is Phase.MENU:
            self._choose()
        elif self.phase is not Phase.ROLLING:
            self._open_menu()

    def _on_turn(self, steps: int) -> None:
        if self.phase is not Phase.MENU:
            return
        if self.score is not None:
            self._adjust_score(steps)
        else:
            self._move(steps)

    # --- games ------------------------------------------------------------------

    def _resume_or_start(self) -> Game:
        """After a restart or a power cut: the stored game, its round and its last roll."""
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
                    game.last_options = find_title(state.title).options(state.last_roll, before)
                    self.phase = Phase.SHOWING
                log.info("resumed game %d: %s, %s, round %d", current.id, state.title,
                         state.mode, state.rounds)
                return game
            games = self.store.games()
            if games:
                # The last game ended: the next one is of the title and mode chosen last.
                return self._new_game(games[-1].title, games[-1].mode)
        return self._new_game(configured_title(self.settings).key, self.settings.mode)

    def _new_game(self, title: str, mode: str) -> Game:
        state = GameState(find_title(title).key, Mode.from_str(mode))
        store_id = None
        if self.store is not None:
            try:
                store_id = self.store.new_game(state.title, state.mode).id
            except Exception as exc:
                log.error("new game not saved: %s", exc)
                self.store_failure = str(exc)
        log.info("new game: %s, %s", find_title(state.title).name, state.mode)
        return Game(state, store_id)

    def start_game(self, title: str, mode: str) -> None:
        self.game = self._new_game(title, mode)
        self.phase = Phase.IDLE
        self.message = None
        self.result = None
        self._stop_blink()
        self._show_current()

    def _end_game(self, score: int | None = None) -> None:
        game = self.game
        game.ended = True
        if self.store is not None and game.store_id is not None:
            try:
                self.store.end_game(game.store_id, score)
            except Exception as exc:
                log.error("could not end game %s in the store: %s", game.store_id, exc)
                self.store_failure = str(exc)
        if score is not None and game.state.mode is Mode.SOLO:
            result = level(game.state.title, score, game.state.hazards)
            more = (
                f"{result.stars_needed} more for {result.next_level}"
                if result.next_level else "the highest level"
            )
            self.result = result.name
            self.message = f"{score} stars; {more}"
            log.info("game ended: %s stars: %s; %s", score, result.name, more)
        else:
            self.message = "Game ended. Press ROLL for a new one."
            log.info("game ended")

    # --- rolling ------------------------------------------------------------------

    def _roll(self) -> None:
        game = self.game
        if game.ended:
            self.game = game = self._new_game(game.state.title, game.state.mode)
        if game.state.over:
            self.message = (
                f"Game over after {game.state.round_limit} rounds: hold ROLL, End game,"
                " and enter your score"
            )
            self._draw_status()
            return
        try:
            roll, _ = draw_roll(self.entropy)
        except EntropyError as exc:
            log.error("roll refused: %s", exc)
            self.message = "No trusted randomness: roll refused"
            self._draw_status()
            return
        turn = game.state.play(roll)
        self.result = None
        if self.store is not None and game.store_id is not None:
            try:
                self.store.record_roll(game.store_id, roll, self.entropy.name, turn.hazard,
                                       turn.state.hazards)
                self.store_failure = None
            except Exception as exc:
                # A full or failing disk must not stop the game: roll, show, and say so.
                log.error("roll %d not saved: %s", turn.round, exc)
                self.store_failure = str(exc)
        game.state = turn.state
        game.last_options = turn.options
        self.message = None
        title = find_title(game.state.title)
        log.info("round %d: %s (from %s)", turn.round, title.summary(turn.options),
                 self.entropy.name)
        self._stop_blink()
        if self.settings.tumble_ms > 0:
            now = self.clock()
            self.phase = Phase.ROLLING
            self.tumble_step = 0
            self.tumble_until = now + self.settings.tumble_ms / 1000
            self._tumble_frame()
        else:
            self._show_final()

    def _tumble_frame(self) -> None:
        title = find_title(self.game.state.title)
        for die, slot in self.dice.items():
            width, height = slot.size
            frame = draw_tumble_frame(die, title, self.tumble_step * 3 + int(die), size=height)
            slot.show(face_panel(frame, width, height, label=str(die).upper()))
        self.tumble_step += 1
        self.next_frame = self.clock() + FRAME_MS / 1000

    def _show_final(self) -> None:
        self.phase = Phase.SHOWING
        state = self.game.state
        if state.over:
            self.message = "Last round played: hold ROLL, then End game: score"
        self._show_current()
        self.pending_at = self.clock() + MIN_SHOW_S

    def _show_current(self) -> None:
        """Draw the dice, the status screen and the LEDs for the game as it stands."""
        state = self.game.state
        title = find_title(state.title)
        roll = state.last_roll if self.game.last_options is not None else None
        for die, slot in self.dice.items():
            width, height = slot.size
            face = roll[die] if roll is not None else None
            slot.show(die_panel(face, die, title, width=width, height=height))
        options = self.game.last_options
        alarm = options is not None and options.hazard and self.result is None
        if alarm and self.phase is Phase.SHOWING:
            self.blink_on = True
            self.next_blink = self.clock() + self.settings.blink_ms / 2000
        self._draw_status()
        self._show_leds()

    def _show_leds(self) -> None:
        if self.leds is None:
            return
        state = self.game.state
        if state.mode is not Mode.SOLO:
            self.leds.off()
        elif state.round_limit is not None:
            self.leds.show(state.rounds, state.round_limit)
        else:
            # No round limit in this title's solo rules: the LEDs count its hazards instead
            # (the Island's five danger bubbles, one LED each).
            limit = find_title(state.title).hazard_limit or self.leds.count
            self.leds.show(state.hazards, limit)

    def _stop_blink(self) -> None:
        self.next_blink = None
        self.blink_on = True

    # --- the status screen ----------------------------------------------------------

    def view(self) -> StatusView:
        state = self.game.state
        title = find_title(state.title)
        # A finished game's level takes the place of the last roll (and of its alarm).
        showing_roll = self.phase is not Phase.ROLLING and self.result is None
        options = self.game.last_options if showing_roll else None
        solo = state.mode is Mode.SOLO
        reading = title.reading(options, solo=solo) if options is not None else None
        menu = None
        if self.phase is Phase.MENU:
            if self.score is not None:
                menu = MenuView("Score: turn, push", (f"{self.score.score} stars",), 0)
            else:
                top = self.menu[-1]
                menu = MenuView(top.heading, tuple(label for label, _ in top.items), top.selected)
        message = self.message
        if self.phase is Phase.ROLLING:
            message = "Rolling..."
        elif options is None and message is None and self.phase is not Phase.MENU:
            message = "Press ROLL to roll"
        return StatusView(
            title=title,
            solo=solo,
            round=state.rounds if (solo or state.rounds) else None,
            round_limit=state.round_limit,
            options=options,
            reading=reading,
            menu=menu,
            notices=self.notices(),
            blink_on=self.blink_on,
            hazards=state.hazards if solo else None,
            message=message,
            result=self.result if self.phase is not Phase.MENU else None,
        )

    def notices(self) -> tuple[str, ...]:
        found = [n for slot in self._slots() if (n := slot.notice())]
        if getattr(self.entropy, "degraded", False):
            found.append("hwrng failed: OS generator")
        if self.store is not None and getattr(self.store, "recovered", None):
            found.append("state was damaged: fresh start")
        if self.store_failure is not None:
            found.append("rolls are not being saved")
        if self.printer is not None and (n := self.printer.notice()):
            found.append(n)
        return tuple(found)

    def _draw_status(self) -> None:
        self.status.show(draw_status(self.view(), self.status.size))

    def _slots(self) -> list[DisplaySlot]:
        return [*self.dice.values(), self.status]

    # --- the menu ---------------------------------------------------------------------

    def _open_menu(self) -> None:
        self._stop_blink()
        self.phase = Phase.MENU
        self.menu = [self._top_menu()]
        self._draw_status()

    def _top_menu(self) -> MenuLevel:
        items: list[tuple[str, Callable[[], None]]] = [("New game", self._new_game_menu)]
        if self.printer is not None:
            items.append(("Print a sheet", self._print_sheet))
            if self.printer.can_retry():
                items.append(("Retry the print", self._retry_print))
        if self.game.state.mode is Mode.SOLO and not self.game.ended:
            items.append(("End game: score", self._enter_score))
        elif not self.game.ended:
            items.append(("End game", self._end_table_game))
        items.append(("Back", self._close_menu))
        return MenuLevel("Menu", items)

    def _new_game_menu(self) -> None:
        items: list[tuple[str, Callable[[], None]]] = []
        for key in title_keys():
            short = find_title(key).name.removeprefix("The ")
            for mode in ("table", "solo"):
                items.append((f"{short}: {mode}", self._starter(key, mode)))
        items.append(("Back", self._back))
        state = self.game.state
        current = f"{find_title(state.title).name.removeprefix('The ')}: {state.mode}"
        selected = next((i for i, (label, _) in enumerate(items) if label == current), 0)
        self.menu.append(MenuLevel("New game", items, selected))
        self._draw_status()

    def _starter(self, key: str, mode: str) -> Callable[[], None]:
        def start() -> None:
            self.menu = []
            self.start_game(key, mode)

        return start

    def _enter_score(self) -> None:
        self.score = ScoreEntry()
        self._draw_status()

    def _adjust_score(self, steps: int) -> None:
        assert self.score is not None
        self.score.score = max(-200, min(400, self.score.score + steps))
        self._draw_status()

    def _end_table_game(self) -> None:
        self._end_game()
        self._close_menu()

    def _print_sheet(self) -> None:
        self.message = self.printer.print_sheet(self.game.state.title)
        log.info("%s", self.message)
        self._close_menu()

    def _retry_print(self) -> None:
        self.message = self.printer.retry()
        self._close_menu()

    def _choose(self) -> None:
        if self.score is not None:
            score = self.score.score
            self.score = None
            self._end_game(score)
            self._close_menu()
            return
        top = self.menu[-1]
        _, action = top.items[top.selected]
        action()

    def _move(self, steps: int) -> None:
        top = self.menu[-1]
        top.selected = (top.selected + steps) % len(top.items)
        self._draw_status()

    def _back(self) -> None:
        self.menu.pop()
        if not self.menu:
            self._close_menu()
        else:
            self._draw_status()

    def _close_menu(self) -> None:
        self.menu = []
        self.score = None
        self.phase = Phase.SHOWING if self.game.last_options is not None else Phase.IDLE
        self._show_current()
