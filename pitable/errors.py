"""The exceptions pitable raises, one base per subsystem under :class:`PitableError`.

Each class also says which exit status ``pitable`` ends with when it reaches the command
line: 2 (:data:`EXIT_USAGE`) for something the user can correct in the command, the config
or an input file; 1 (:data:`EXIT_FAILURE`) for a part or the system failing at run time.
"""

from __future__ import annotations

from typing import ClassVar

#: The exit status for a wrong argument, config or input file.
EXIT_USAGE = 2
#: The exit status for a part of the box or the system failing at run time.
EXIT_FAILURE = 1


#: The most characters of a user's input an error message quotes.
QUOTED = 40


def quoted(text: str, limit: int = QUOTED) -> str:
    """``text``, given by a user, as an error message quotes it: in quotes with its control
    characters escaped (nothing it holds can move the terminal's cursor), cut to its first
    ``limit`` characters and its length said when longer, so that the message stays one
    short line whatever was given."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit] + '...'!r} ({len(text):,} characters)"


class PitableError(Exception):
    """Base class of every error pitable raises on purpose."""

    #: What ``pitable`` exits with when this error ends a command.
    exit_status: ClassVar[int] = EXIT_USAGE


# --- rules -----------------------------------------------------------------


class RulesError(PitableError):
    """A rule of a title was asked something it cannot answer."""


class UnknownTitle(RulesError, LookupError):
    """No title is registered under that name."""


class BadFace(RulesError, ValueError):
    """A face that the die cannot show."""


class BadRoll(RulesError, ValueError):
    """A roll that is not three faces, green, purple and red."""


class BadDangerCount(RulesError, ValueError):
    """A danger count outside what the sheet can hold."""


# --- hardware --------------------------------------------------------------


class HardwareError(PitableError):
    """A part of the box failed or is missing."""

    exit_status = EXIT_FAILURE


class GpioError(HardwareError):
    """A pin could not be claimed or the pin library could not be loaded."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(f"{reason}; {hint}" if hint else reason)
        self.reason = reason
        #: What to do about it, true for the machine that prints it; "" when nothing helps.
        self.hint = hint


class DisplayError(HardwareError, OSError):
    """A panel did not answer; the message names its bus and address."""


class EntropyError(HardwareError):
    """The entropy source cannot be used."""


class HealthTestFailure(EntropyError):
    """Raw entropy failed a health test (SP 800-90B's, or a start-up or periodic block test)."""


class WebError(HardwareError, OSError):
    """The table's web page cannot be served: its port is taken or its address is not here."""


class TooManyListeners(WebError):
    """The page's event stream has as many listeners as it takes."""


class MissingDependency(PitableError, ImportError):
    """An optional library is needed for this command; the message says what to install."""


# --- config ----------------------------------------------------------------


class ConfigError(PitableError, ValueError):
    """The configuration file is missing, unreadable or wrong; the message names the key."""


class UsageError(PitableError, ValueError):
    """A command-line argument is wrong; the message names it."""


# --- game sessions -----------------------------------------------------------


class BadStrength(RulesError, ValueError):
    """A bot strength that is not one of the known ones."""


class BadScore(RulesError, ValueError):
    """A score that is not a whole number of stars."""


class UnknownMode(RulesError, ValueError):
    """A game mode other than table or solo."""


class GameOver(RulesError):
    """The rules have ended the game (a solo game after its last round): no more rolls."""


class StoreError(PitableError):
    """The session store cannot do what was asked."""


class StoreUnavailable(StoreError, OSError):
    """The session store cannot be opened, not even as a fresh database."""

    exit_status = EXIT_FAILURE


class StoreWriteFailed(StoreError):
    """A write the store cannot make now (locked, a full disk) and may make when tried again."""

    exit_status = EXIT_FAILURE


class StoreBusy(StoreWriteFailed):
    """Another process holds the session database locked for longer than the wait."""

    exit_status = EXIT_FAILURE


class StoreInUse(StoreError):
    """Another box holds the state directory: one state directory has one box."""

    exit_status = EXIT_FAILURE


class StoreDamaged(StoreError):
    """The session database is damaged or foreign and was not moved aside (recover=False)."""


class UnknownGame(StoreError, LookupError):
    """No game has that id, or no game is in progress."""


class GameEnded(StoreError, ValueError):
    """The game has ended: it takes no more rolls."""


class InconsistentRoll(StoreError, ValueError):
    """A roll recorded with a hazard count that the title's rules do not give."""


# --- players at the table ----------------------------------------------------


class BadInitials(StoreError, ValueError):
    """A player's initials that are not one to three letters."""


class InitialsTaken(StoreError, ValueError):
    """Another player of the game has joined with the same initials."""


class TokenInUse(StoreError, ValueError):
    """A player's token that already belongs to a player of another game."""


class TableFull(StoreError):
    """The game has as many players as it takes."""


class UnknownPlayer(StoreError, LookupError):
    """No player has that id."""


class TurnClosed(StoreError, ValueError):
    """The player has finished that round: its moves are kept as they are."""


class HazardDrawn(StoreError, ValueError):
    """The hazard a player was dealt at that roll is drawn already: it stays where it is."""


# --- sheets and the printer ------------------------------------------------


class SheetError(RulesError):
    """A generated sheet broke one of its title's invariants."""


class BadSeed(SheetError, ValueError):
    """A sheet seed that is not a whole number in the accepted range."""


class BadSide(SheetError, ValueError):
    """A sheet side other than a or b."""


class BadMapFormat(SheetError, ValueError):
    """A map format this version does not draw."""


class BadSheet(RulesError, ValueError):
    """A finished sheet with a mark its title's rules do not allow; the message names the cell."""


class IllegalMove(RulesError, ValueError):
    """A move on a player's sheet that the rules refuse: its message is the rule."""

    def __init__(self, rule: str, breach: object = None) -> None:
        super().__init__(rule)
        self.rule = rule
        #: The rules' finding (:class:`~pitable.rules.validate.Breach`), which says the rule
        #: in any language; without one, ``rule`` is a message of the catalogues.
        self.breach = breach


class NotAPlayer(PitableError):
    """A player's call without a token, or with one that names no sheet."""


class NoGame(PitableError):
    """No game is in progress to join."""


class BadMove(UsageError):
    """A move that is not one: not JSON of the expected shape."""

    def __init__(self, message: str, **fields: object) -> None:
        super().__init__(message.format(**fields))
        #: What is wrong, a gettext message, and its ``{name}`` fields (what was given,
        #: limits), for the page to say it in the player's language.
        self.message = message
        self.fields = fields


class PrinterError(HardwareError):
    """The thermal printer failed; the message says why in a few words."""


class PrinterOffline(PrinterError):
    """The printer's port cannot be opened or the printer reports itself offline."""


class PaperOut(PrinterError):
    """The printer reports that it has no paper."""


class PrinterTimeout(PrinterError, TimeoutError):
    """The printer stopped taking data (a write or its busy line timed out)."""


class JobNotTaken(PrinterTimeout):
    """A job was written but the printer did not take it all in time: it is not reading."""
