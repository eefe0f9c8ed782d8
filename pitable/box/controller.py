"""The controller: one loop owns the box's state; the parts' callbacks only queue events.

A press of ROLL (released before ``hold_s``) rolls; holding it opens the menu, and in the
menu a press moves down and a hold chooses. The encoder moves through the menu and its
push chooses. The button and the push reach the loop as raw edges, which it debounces by
level on its own clock (:class:`~pitable.hw.gpio.LevelDebounce`). A roll is drawn and folded
into the game; the first frame of a short tumble goes to the three dice panels, the roll is
saved, and only then come the final faces and, on the status screen, what the roll allows in
the title's words, a hazard inverted and blinking. A press during the tumble waits until the
result has been shown; one press waits at most, the others are dropped and counted in the
log. Time comes from an injected clock, so the simulator and the tests drive the box without
waiting.

The game bookkeeping (resume, start, end, the store) is in :mod:`pitable.box.games`, the
menu in :mod:`pitable.box.menus`, the timers in :mod:`pitable.box.timers`; this module is
the loop and the screens.
"""

from __future__ import annotations

import ctypes
import logging
import queue
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from PIL import Image

from pitable.box.events import (
    Edge,
    Event,
    Line,
    NewGameCommand,
    PrinterChanged,
    PrintSheetCommand,
    RollCommand,
    Stop,
    TableChanged,
    Turned,
)
from pitable.box.games import Asked, Game, Games, Store
from pitable.box.menus import MenuLevel, MenuPrinter, Menus
from pitable.box.parts import DisplaySlot
from pitable.box.phase import Phase
from pitable.box.snapshot import Publisher
from pitable.box.table_map import TableMap, fresh_seed
from pitable.box.timers import Timer, timers_of
from pitable.config import BoxConfig
from pitable.errors import (
    EntropyError,
    IllegalMove,
    InitialsTaken,
    NoGame,
    StoreError,
    TableFull,
)
from pitable.hw.clock import Clock
from pitable.hw.entropy import EntropySource
from pitable.hw.gpio import Change, LevelDebounce, RoundLeds
from pitable.i18n import LANGUAGES, box_language, check_language, translator
from pitable.render.faces import die_panel, tumble_panel
from pitable.render.status import StatusView, draw_status, page_count
from pitable.rules import Die, Face, Roll, Title, draw_roll, find_title
from pitable.rules.base import N_, Translator
from pitable.rules.session import Mode
from pitable.rules.table import Pace, pace_line

if TYPE_CHECKING:
    from pitable.box.phones import Corner
    from pitable.box.players import Placing
    from pitable.box.store import SessionStore
    from pitable.web.players import BoxSeats

log = logging.getLogger("pitable.box")


#: Time between two frames of the tumble; the tumble's length is ``box.tumble_ms``. A frame
#: moves each panel's start line (3 bytes on the bus), so the tumble runs at 20 frames a
#: second; the first frame of the first roll, which writes a die where none was, still fits.
FRAME_MS = 50
#: The least time a result stays on the screens before the press that waited during its
#: tumble rolls again, so that no roll goes by unseen.
MIN_SHOW_S = 1.5
#: How long each page of the status screen stays before the next (the encoder turns them
#: at once): long enough to read four short lines aloud to a table.
PAGE_S = 5.0
#: The status screen's notice when the hardware generator failed and the OS's took over.
HWRNG_FAILED = N_("hwrng failed: OS generator")
#: Seconds in which a second press rolls while players are still writing.
CONFIRM_S = 4.0
#: The status screen's width from which the pace names four players still writing (one
#: on a narrower one, where the words of the pace leave room for little more).
WIDE_PACE_PX = 200


def pace_names(size: tuple[int, int]) -> int:
    """How many of those still writing the status screen of ``size`` names."""
    return 4 if size[0] >= WIDE_PACE_PX else 1


#: The store's setting that keeps the language chosen in the menu.
LANGUAGE_SETTING = "language"

# The pictures the box shows again and again, each drawn once and then handed to the panel
# as the same object: the panels keep the packed pages of a picture and the transfers from
# one picture to the next, so a tumble frame or face shown before costs no drawing, packing
# or planning. (A picture given to a panel is never drawn on again.)
@lru_cache(maxsize=1024)
def _tumble_picture(face: Face | None, die: Die, title: Title, step: int,
                    size: tuple[int, int], *, lang: str) -> Image.Image:
    return tumble_panel(face, die, title, step, width=size[0], height=size[1], lang=lang)


@lru_cache(maxsize=256)
def _die_picture(face: Face | None, die: Die, title: Title, size: tuple[int, int],
                 lang: str) -> Image.Image:
    return die_panel(face, die, title, width=size[0], height=size[1], lang=lang)


#: The blink shows two status screens in turn for as long as it lasts.
_status_picture = lru_cache(maxsize=8)(draw_status)


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def give_back_free_heap() -> None:
    """Return the C heap's free pages to the system where the C library is glibc (its
    ``malloc_trim``); nothing elsewhere.

    Called as a game starts, when nothing waits on the box (about 0.25 ms here). With the
    caches' churn stopped, glibc still grows its heap now and then, by a few hundred kB at
    a time, and keeps the pages under the free space left below its top: over the soak's
    100,000 presses (benchmarks/bench_soak.py) the anonymous memory grew by 896 kB from
    20,000 on without this, and by 536-548 kB with it.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class Printer(MenuPrinter, Protocol):
    """What the box needs of :class:`~pitable.box.printing.BoxPrinter`: what its menu
    prints, and what the status screen says of it."""

    post: Callable[[Event], None] | None

    def print_player(self, store: SessionStore, game_id: int, player_id: int, initials: str,
                     *, tr: Translator = ..., lang: str = ...) -> str: ...

    def message(self, tr: Translator = ...) -> str | None: ...

    def notice(self, tr: Translator = ...) -> str | None: ...

    def close(self) -> None: ...


@dataclass
class Box:
    """The dice box: three dice panels, a status screen, LEDs, inputs, entropy, a store.

    Nothing is read or drawn until :meth:`start`, which whoever builds the box calls.
    """

    dice: Mapping[Die, DisplaySlot]
    status: DisplaySlot
    entropy: EntropySource
    clock: Clock
    #: The ``[box]`` table of the config: title, mode, hold, tumble and blink times.
    settings: BoxConfig = field(default_factory=BoxConfig)
    leds: RoundLeds | None = None
    store: Store | None = None
    printer: Printer | None = None
    #: Where the parts post their events. A SimpleQueue: its put() may be called from a
    #: signal handler (SIGTERM) while the loop waits in get(), which queue.Queue's lock
    #: does not allow.
    events: queue.SimpleQueue[Event] = field(default_factory=queue.SimpleQueue)
    #: How long the button and the push may bounce (the ``[button]`` table's bounce_ms).
    bounce_s: float = 0.0
    #: Where a new game's map seed comes from; None: drawn from ``entropy``.
    map_seeds: Callable[[], int] | None = None
    #: What the command line asked: the first game's title and mode when no game is in
    #: progress, and the language, over the one chosen in the menu.
    asked: Asked = field(default_factory=Asked)
    #: Who at the table is done with a round (the phones' :meth:`PhoneTable.pace`, which
    #: never waits); None where no one plays on a phone.
    pace: Callable[[int], Pace | None] | None = None
    #: The box's own players (:class:`~pitable.box.box_players.BoxPlayers`), where the
    #: phones' sheets are kept; None otherwise.
    box_players: BoxSeats | None = None
    #: An ended game's ranking by its id in the store (the phones'
    #: :meth:`PhoneTable.ranking`, which never waits); None without phones.
    ranking: Callable[[int], list[Placing]] | None = None
    #: Keeps a paper player's stars at an ended game (the phones'
    #: :meth:`PhoneTable.add_paper`): the game's id, initials, stars.
    paper_scores: Callable[[int, str, int], None] | None = None
    #: The sheet the TV shows in its corner (the phones' :meth:`PhoneTable.showcase`,
    #: which never waits); None without phones.
    showcase: Callable[[], Corner | None] | None = None

    def __post_init__(self) -> None:
        seeds = self.map_seeds or (lambda: fresh_seed(self.entropy))
        self.games = Games(self.store, self.settings, seeds, self.clock.now)
        self.menus = Menus(self)
        self.phase = Phase.IDLE
        self.lines = {line: LevelDebounce(self.bounce_s) for line in Line}
        self.down_at: float | None = None
        self.hold_fired = False
        #: A press made during a roll, waiting to roll in turn; one at most.
        self.press_waiting = False
        #: When the waiting press may roll: once the result has been seen.
        self.pending_at = 0.0
        #: Presses dropped while one was already waiting, logged when it is taken.
        self.dropped_presses = 0
        #: Until when a second press rolls although players are still writing (None: no
        #: first press is waiting for its second).
        self.confirm_until: float | None = None
        #: What the first press said, taken off the screen when the window closes.
        self.confirm_said: str | None = None
        #: What the box said when the game ended: the winner is shown in its place.
        self.ended_said: str | None = None
        self.result: str | None = None
        self.tumble_until = 0.0
        self.next_frame = 0.0
        self.tumble_step = 0
        #: The roll the dice showed when ROLL was pressed: the tumble rolls its faces away.
        self.tumble_from: Roll | None = None
        self.blink_on = True
        self.next_blink: float | None = None
        self.message: str | None = None
        #: The status screen's page, and when it turns to the next (None: one page only).
        self.page = 0
        self.next_page: float | None = None
        #: The language of every word the box shows: the one asked on the command line,
        #: else the one last chosen in the menu (kept in the store's settings), else the
        #: config's, else the environment's.
        self.language = (check_language(self.asked.language) if self.asked.language
                         else self._chosen_language() or box_language(self.settings.language))
        self.stopped = threading.Event()
        #: Hands each change the table can see to the watchers (web page, TV).
        self.publisher = Publisher()
        #: The table's web page and the PIN of its actions, while it is served.
        self.web_url: str | None = None
        self.web_pin: str | None = None
        #: The page seats players on their phones (the box keeps its games): the join
        #: code leads to a sheet.
        self.web_play = False
        #: Why the table's page is not served, when it was asked for and could not be.
        self.web_notice: str | None = None
        #: Every timer of the box, in the order they fire when due at the same step.
        self.timers: list[Timer] = timers_of(self)

    def start(self) -> None:
        """Resume the stored game (or start one) and draw it on the screens and LEDs."""
        game = self.games.resume_or_start(self.asked)
        if game.last_options is not None:
            self.phase = Phase.SHOWING
        self._show_current()

    @property
    def game(self) -> Game:
        return self.games.current

    @property
    def tr(self) -> Translator:
        """The box's words in its language."""
        return translator(self.language)

    @property
    def menu(self) -> list[MenuLevel]:
        """The open menu's levels, the one shown last."""
        return self.menus.levels

    # --- the loop -------------------------------------------------------------

    def post(self, event: Event) -> None:
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
        self._fire_timers()
        return self.next_deadline()

    def run(self, heartbeat: Callable[[], None] | None = None) -> None:
        """The box's loop, until :meth:`stop`: wait for an event or the next deadline."""
        while not self.stopped.is_set():
            deadline = self.step()
            if heartbeat is not None:
                heartbeat()
            now = self.clock.now()
            timeout = 0.5 if deadline is None else max(0.0, min(0.5, deadline - now))
            try:
                event = self.events.get(timeout=timeout)
            except queue.Empty:
                continue
            self._handle(event)

    def stop(self) -> None:
        self.stopped.set()
        self.events.put(Stop())

    def next_deadline(self) -> float | None:
        """The soonest of the timers' deadlines, None when no timer is set."""
        deadlines = [d for timer in self.timers if (d := timer.deadline()) is not None]
        return min(deadlines) if deadlines else None

    def _fire_timers(self) -> None:
        """Fire each timer due now, in the list's order: each sees what those before it did
        (a tumble that ended sets the time a waiting press may roll, checked next)."""
        now = self.clock.now()
        for timer in self.timers:
            deadline = timer.deadline()
            if deadline is not None and now >= deadline:
                timer.fire(now)

    # --- inputs -----------------------------------------------------------------

    def _handle(self, event: Event) -> None:
        match event:
            case Edge(line=line, pressed=pressed, at=at):
                for change in self.lines[line].edge(pressed, at):
                    self.level_changed(line, change)
            case Turned(steps=steps):
                if self.phase is Phase.MENU:
                    self.menus.move(steps)
                elif self.phase is not Phase.ROLLING:
                    self.turn_page(steps)
            case PrinterChanged():
                self._printer_changed()
            case RollCommand():
                if self.phase is not Phase.MENU:
                    self._on_press()
            case NewGameCommand(title=key, mode=mode):
                self._new_game_asked(key, mode)
            case PrintSheetCommand(game=game_id, player=player_id):
                self.print_player_sheet(game_id, player_id)
            case TableChanged():
                if self.phase is Phase.SHOWING or self.phase is Phase.IDLE:
                    self.draw_status()
            case Stop():
                pass  # it only wakes the loop, which then sees that it is stopped

    def level_changed(self, line: Line, change: Change) -> None:
        """The debounced level of ``line`` changed: the button went down or up, or the
        push went down (its release means nothing)."""
        if line is Line.PUSH:
            if change.pressed:
                self.on_hold()
        elif change.pressed:
            self.down_at = change.at
            self.hold_fired = False
        else:
            self._released(change.at)

    def _released(self, at: float) -> None:
        if self.down_at is None:
            return
        held = self.hold_fired or at - self.down_at >= self.settings.hold_s
        fired = self.hold_fired
        self.down_at = None
        self.hold_fired = False
        if held and not fired:
            self.on_hold()
        elif not held:
            self._on_press()

    def _on_press(self) -> None:
        if self.phase is Phase.MENU:
            self.menus.move(+1)
        elif self.press_waiting:
            # One press already waits for this roll to be seen: a table hammering the
            # button must not queue rolls that play out long after and burn the rounds.
            self.dropped_presses += 1
        elif self.phase is Phase.ROLLING:
            # Not lost: it rolls once this roll has been shown long enough to be read.
            self.press_waiting = True
        else:
            self.press_roll()

    def table_changed(self) -> None:
        """Called from the phones' thread after each change of the table: the loop redraws
        the pace. Only posts, as every other thread does."""
        self.events.put(TableChanged())

    def table_pace(self) -> Pace | None:
        """Who is done with the round the box shows, at a table game with players on
        phones that has rolled; None otherwise."""
        game = self.game
        if self.pace is None or game.state.mode is not Mode.TABLE or game.ended:
            return None
        rounds = game.state.rounds
        if not rounds:
            return None
        pace = self.pace(rounds)
        return pace if pace is not None and pace.players and not pace.ended else None

    def press_roll(self) -> None:
        """A press that rolls, at a table with players on phones asked first: while some
        are still writing, the first press says so and a second within
        :data:`CONFIRM_S` rolls (the box never waits by itself); once a sheet has ended
        the game, the press after the last round ends it instead of rolling."""
        pace = self.table_pace()
        now = self.clock.now()
        if pace is not None:
            if pace.writing and (self.confirm_until is None or now > self.confirm_until):
                self.confirm_until = now + CONFIRM_S
                self.message = self.confirm_said = self.tr.ngettext(
                    "{n} still writing: press again to roll",
                    "{n} still writing: press again to roll", len(pace.writing)).format(
                        n=len(pace.writing))
                self.draw_status()
                return
            self.confirm_closed(draw=False)
            if pace.last_round:
                log.info("the last round is over: the game ends")
                self.end_game()
                self.draw_status()
                return
        self.confirm_closed(draw=False)
        self.roll()

    def confirm_closed(self, *, draw: bool = True) -> None:
        """The second press's window closed (or a press rolled): its words go."""
        self.confirm_until = None
        if self.confirm_said is not None and self.message == self.confirm_said:
            self.message = None
            if draw:
                self.draw_status()
        self.confirm_said = None

    def take_waiting_press(self) -> None:
        """The waiting press rolls now or is given up: log how many were dropped behind it."""
        self.press_waiting = False
        dropped, self.dropped_presses = self.dropped_presses, 0
        if dropped:
            log.info("%d press%s dropped while rolling", dropped, "" if dropped == 1 else "es")

    def on_hold(self) -> None:
        """A hold of ROLL, or the encoder's push: choose in the menu, else open it."""
        if self.phase is Phase.MENU:
            self.menus.choose()
        elif self.phase is not Phase.ROLLING:
            self._open_menu()

    def _printer_changed(self) -> None:
        if self.printer is None:
            return
        message = self.printer.message(self.tr)
        if message != self.message:
            log.info("%s", self.printer.message())  # the log stays English
            self.message = message
            self.draw_status()

    # --- games ------------------------------------------------------------------

    def start_game(self, title: Title, mode: Mode, table_map: TableMap | None = None) -> None:
        self.games.new_game(title, mode, table_map)
        self.phase = Phase.IDLE
        self.message = None
        self.result = None
        self._stop_blink()
        self._show_current()
        give_back_free_heap()

    def _new_game_asked(self, key: str, mode: Mode) -> None:
        """A new game asked away from the box: it closes the menu and gives up a waiting
        press, as choosing one in the menu does; a roll in its tumble is already saved."""
        if self.press_waiting:
            self.dropped_presses += 1
            self.take_waiting_press()
        self.menus.clear()
        self.start_game(find_title(key), mode)

    def seated(self, game_id: int | None = None) -> list[tuple[int, str]]:
        """The players of ``game_id`` (by default the game shown) who play their sheets on
        their phones: each one's id and initials, in the order they joined; none where the
        box keeps no session store."""
        from pitable.box.players import PlayerBook
        from pitable.box.store import SessionStore

        game_id = self.game.store_id if game_id is None else game_id
        if not isinstance(self.store, SessionStore) or game_id is None:
            return []
        try:
            return [(p.id, p.initials) for p in PlayerBook(self.store).players(game_id)]
        except StoreError as exc:
            log.warning("the players of game %d could not be read: %s", game_id, exc)
            return []

    def plays_sheets(self) -> bool:
        return self.box_players is not None and self.game.store_id is not None

    def add_box_player(self, strength: str) -> None:
        """Seat the box as one more player of the game in progress at ``strength`` (from
        the menu), and say so on the status screen, or why not."""
        _ = self.tr.gettext
        if self.box_players is None:
            return
        try:
            initials = self.box_players.add(strength)
        except IllegalMove as exc:
            self.message = self.tr.gettext(exc.rule)
        except (NoGame, TableFull):
            self.message = _("the table is full")
        except StoreError as exc:
            log.warning("the box's player could not be seated: %s", exc)
            self.message = _("not saved: try again")
        else:
            log.info("the box plays a sheet as %s (%s)", initials, strength)
            self.message = _("The box plays as {initials}").format(initials=initials)
        self.draw_status()

    def takes_paper_scores(self) -> bool:
        """A paper player's stars may be given here: an ended table game whose phones'
        sheets are kept."""
        game = self.game
        return (self.paper_scores is not None and game.ended and game.store_id is not None
                and game.state.mode is Mode.TABLE)

    def add_paper_score(self, initials: str, total: int) -> None:
        """A paper player's stars, entered in the menu, into the ended game's ranking;
        said on the status screen, or why not."""
        _ = self.tr.gettext
        game_id = self.game.store_id
        if self.paper_scores is None or game_id is None:
            return
        try:
            self.paper_scores(game_id, initials, total)
        except InitialsTaken:
            self.message = _("these initials are a player's on a phone")
        except TableFull:
            self.message = _("the table is full")
        except IllegalMove as exc:
            self.message = self.tr.gettext(exc.rule)
        except StoreError as exc:
            log.warning("a paper player's stars were not kept: %s", exc)
            self.message = _("not saved: try again")
        else:
            log.info("paper player %s: %d stars", initials, total)
            self.message = _("{initials}'s stars are in the ranking").format(
                initials=initials)
        self.draw_status()

    def print_player_sheet(self, game_id: int, player_id: int) -> None:
        """Print the sheet of player ``player_id`` of game ``game_id`` as they filled it in
        (asked from the menu, or from their phone); nothing without a printer."""
        from pitable.box.store import SessionStore

        initials = dict(self.seated(game_id)).get(player_id)
        if self.printer is None or not isinstance(self.store, SessionStore) or initials is None:
            log.warning("no sheet of player %d of game %d to print", player_id, game_id)
            return
        self.message = self.printer.print_player(self.store, game_id, player_id, initials,
                                                 tr=self.tr, lang=self.language)
        log.info("printing the sheet of %s (game %d)", initials, game_id)
        self.draw_status()

    def end_game(self, score: int | None = None,
                 parts: tuple[tuple[str, int], ...] | None = None) -> None:
        ending = self.games.end(score, parts, self.tr)
        if ending.result is not None:
            self.result = ending.result
        self.message = self.ended_said = ending.message

    # --- rolling ------------------------------------------------------------------

    def roll(self) -> None:
        """Roll in the current game (a new one like it once it has ended): the tumble's
        first frame, the roll saved, then its faces, or a line saying why it was refused."""
        shown = self.game
        self.tumble_from = shown.state.last_roll if shown.last_options is not None else None
        game = self.games.next_game()
        _ = self.tr.gettext
        if game.state.over:
            self.message = _("Game over after {rounds} rounds: hold ROLL, then End game").format(
                rounds=game.state.round_limit)
            self.draw_status()
            return
        try:
            roll, _face = draw_roll(self.entropy)
        except EntropyError as exc:
            log.error("roll refused: %s", exc)
            self.message = _("No trusted randomness: roll refused")
            self.draw_status()
            return
        turn = game.state.play(roll)
        self.result = None
        self.message = None
        self._stop_blink()
        if self.settings.tumble_ms > 0:
            now = self.clock.now()
            self.phase = Phase.ROLLING
            self.tumble_step = 0
            self.tumble_until = now + self.settings.tumble_ms / 1000
            # The first frame goes out before the commit, so a slow disk does not delay the
            # first pixel; the final faces wait for the commit (they come from the timers,
            # after this returns), so no roll is shown that is not on disk.
            self.tumble_frame()
            self.publisher.publish(self.view(), rolling=True)
        self.games.record(turn, self.entropy.name, deal=self._deal)
        log.info("round %d: %s (from %s)", turn.round, game.title.summary(turn.options),
                 self.entropy.name)
        if self.phase is not Phase.ROLLING:
            self.show_final()

    def _deal(self, players: list[int]) -> dict[int, int]:
        """A table's hazard dealt among ``players`` (their ids, on their phones): whose
        sheet each draws on, from the box's entropy, as the dice are. The roll is drawn
        already and is being saved: should the box's generator fail now, the deal is drawn
        from the operating system's rather than the roll lost."""
        from pitable.hw.entropy import OsSource
        from pitable.rules.table import deal

        try:
            return deal(players, self.entropy)
        except EntropyError as exc:
            log.warning("the hazard dealt from the OS generator: %s", exc)
            return deal(players, OsSource())

    def tumble_frame(self) -> None:
        """The tumble's next frame on the dice panels, and when the one after is due."""
        title = self.game.title
        before = self.tumble_from
        for die, slot in self.dice.items():
            face = before[die] if before is not None else None
            slot.show(_tumble_picture(face, die, title, self.tumble_step, slot.size,
                                      lang=self.language))
        self.tumble_step += 1
        # A frame due within a millisecond of the tumble's end is the end: six steps of
        # 50 ms add up to a hair under 300 in floating point.
        next_frame = self.clock.now() + FRAME_MS / 1000
        end = self.tumble_until
        self.next_frame = next_frame if next_frame < end - 0.001 else end

    def show_final(self) -> None:
        """The tumble is over: the roll's faces, what it allows, and the time it stays."""
        self.phase = Phase.SHOWING
        state = self.game.state
        if state.over:
            self.message = self.tr.gettext("Last round played: hold ROLL, then End game")
        self._show_current()
        self.pending_at = self.clock.now() + MIN_SHOW_S

    def _draw_dice(self) -> None:
        """The dice panels: the faces of the last roll (blank before one), labelled in the
        box's language."""
        game = self.game
        roll = game.state.last_roll if game.last_options is not None else None
        for die, slot in self.dice.items():
            face = roll[die] if roll is not None else None
            slot.show(_die_picture(face, die, game.title, slot.size, self.language))

    def _show_current(self) -> None:
        """Draw the dice, the status screen and the LEDs for the game as it stands."""
        game = self.game
        self._draw_dice()
        options = game.last_options
        alarm = options is not None and options.hazard and self.result is None
        if alarm and self.phase is Phase.SHOWING:
            self.blink_on = True
            self.next_blink = self.clock.now() + self.settings.blink_ms / 2000
        self.page = 0
        self.next_page = None
        self.draw_status()
        self._show_leds()

    def _show_leds(self) -> None:
        """The LEDs say what the paper counts: a solo game's rounds against its limit, else
        the hazards marked against a title's :attr:`~Title.hazard_limit` (its bubbles on
        the sheet, at a table too). A title with neither has no count that fits the bar
        and means something: its LEDs stay off."""
        if self.leds is None:
            return
        state = self.game.state
        hazard_limit = self.game.title.hazard_limit
        if state.round_limit is not None:
            self.leds.show(state.rounds, state.round_limit)
        elif hazard_limit is not None:
            self.leds.show(state.hazards, hazard_limit)
        else:
            self.leds.off()

    def _stop_blink(self) -> None:
        self.next_blink = None
        self.blink_on = True

    # --- pages and language -------------------------------------------------------------

    def turn_page(self, steps: int) -> None:
        """Show the status screen's next page (or an earlier one), and time the one after."""
        pages = page_count(self.view(), self.status.size)
        self.page = (self.page + steps) % pages if pages > 1 else 0
        self.next_page = None  # the next page's time counts from this turn
        self.draw_status()

    def set_language(self, lang: str) -> None:
        """Every word the box shows from now on in ``lang`` (checked), kept in the store's
        settings so that the box starts in it after a restart."""
        self.language = check_language(lang)
        log.info("language: %s", self.language)
        self.games.remember(LANGUAGE_SETTING, self.language)
        self._draw_dice()
        self.draw_status()

    def _chosen_language(self) -> str | None:
        """The language last chosen in the menu, if the store has one."""
        chosen = self.games.setting(LANGUAGE_SETTING)
        # A value written by another version, or by hand, is not worth refusing to start over.
        return chosen if chosen in LANGUAGES else None

    # --- the status screen ----------------------------------------------------------

    def view(self) -> StatusView:
        """What the status screen shows now."""
        game = self.game
        state = game.state
        # A finished game's level takes the place of the last roll (and of its alarm).
        showing_roll = self.phase is not Phase.ROLLING and self.result is None
        options = game.last_options if showing_roll else None
        solo = state.mode is Mode.SOLO
        tr = self.tr
        reading = (game.title.reading(options, solo=solo, tr=tr) if options is not None
                   else None)
        menu = self.menus.view() if self.phase is Phase.MENU else None
        message = self.message
        pace = self.table_pace() if showing_roll and message is None else None
        if pace is not None:
            message = pace_line(pace, tr, named=pace_names(self.status.size))
        ranking = self._ranking()
        # The winner, in place of "Game ended", not of what the box said since (a paper
        # player's stars taken, or why not).
        if (ranking and self.phase is not Phase.MENU
                and (message is None or message == self.ended_said)):
            winners = [p.initials for p in ranking if p.place == 1]
            message = tr.ngettext("Winner: {initials} ({total})",
                                  "Winners: {initials} ({total})", len(winners)).format(
                initials=" ".join(winners), total=ranking[0].total)
        if self.phase is Phase.ROLLING:
            message = tr.gettext("Rolling...")
        elif options is None and message is None and self.phase is not Phase.MENU:
            # Said once, in the footer: the idle screen leaves out its own hint then.
            message = tr.gettext("Press ROLL to roll")
        # A title's hazard bubbles are on every sheet: shown at a table too.
        counted = solo or game.title.hazard_limit is not None
        return StatusView(
            title=game.title,
            solo=solo,
            round=state.rounds if (solo or state.rounds) else None,
            round_limit=state.round_limit,
            options=options,
            reading=reading,
            menu=menu,
            notices=self.notices(),
            blink_on=self.blink_on,
            hazards=state.hazards if counted else None,
            message=message,
            result=self.result if self.phase is not Phase.MENU else None,
            map_tag=game.map.tag,
            lang=self.language,
            page=self.page,
            ranking=tuple((p.place, p.initials, p.total, p.shared) for p in ranking),
            corner=self.showcase() if self.showcase is not None else None,
        )

    def _ranking(self) -> list[Placing]:
        """The ranking of the game shown, once it ended at a table with players."""
        game = self.game
        if (self.ranking is None or not game.ended or game.store_id is None
                or game.state.mode is not Mode.TABLE):
            return []
        return self.ranking(game.store_id)

    def notices(self) -> tuple[str, ...]:
        """The parts that are not working, in the box's language."""
        tr = self.tr
        found = [n for slot in self.slots() if (n := slot.notice(tr))]
        # Only the fallback source degrades (to the OS generator); the others have no flag.
        if getattr(self.entropy, "degraded", False):
            found.append(tr.gettext(HWRNG_FAILED))
        found.extend(self.games.notices(tr))
        if self.web_notice is not None:
            # Set in English where the part failed (marked there), said in the language now.
            found.append(tr.gettext(self.web_notice))
        if self.printer is not None and (n := self.printer.notice(tr)):
            found.append(n)
        return tuple(found)

    def draw_status(self) -> None:
        view = self.view()
        pages = page_count(view, self.status.size)
        if pages > 1 and self.phase is Phase.SHOWING:
            if self.next_page is None:
                self.next_page = self.clock.now() + PAGE_S
        else:
            self.next_page = None
            if self.page:
                self.page = 0
                view = self.view()
        screen = self.menus.screen() if self.phase is Phase.MENU else None
        self.status.show(screen if screen is not None else _status_picture(view, self.status.size))
        self.publisher.publish(view, rolling=self.phase is Phase.ROLLING)

    def slots(self) -> list[DisplaySlot]:
        """Every panel of the box: the dice, then the status screen."""
        return [*self.dice.values(), self.status]

    # --- the menu ---------------------------------------------------------------------

    def _open_menu(self) -> None:
        if self.press_waiting:
            # The hold (or push) came after the waiting press and means something else: the
            # press must not roll when the menu closes, nor into a game chosen in it.
            self.dropped_presses += 1
            self.take_waiting_press()
        self._stop_blink()
        self.phase = Phase.MENU
        self.menus.open()
        self.draw_status()

    def close_menu(self) -> None:
        self.menus.clear()
        self.phase = Phase.SHOWING if self.game.last_options is not None else Phase.IDLE
        self._show_current()
