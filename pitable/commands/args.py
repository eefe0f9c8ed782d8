"""The argument types every command shares: each input checked, and bounded, before work starts.

The argparse ``type`` functions here turn a wrong value into argparse's one-line error and
exit status 2, before the command has read a device, drawn a picture or opened a store.
:func:`check_output_path` says why a file cannot be written. A file that must be a regular
file is read with :func:`pitable.config.read_regular_file`, with a bound. Standard library
only, and cheap to import.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import stat
from collections.abc import Callable, Iterable

from pitable.errors import UsageError, quoted
from pitable.i18n import LANGUAGES, check_language

#: Whole numbers as the command line takes them: ASCII digits, an optional minus sign.
#: ``int()`` alone would also take ``٣``, ``1_000`` and surrounding blanks.
_WHOLE = re.compile(r"-?[0-9]+")
#: Decimal numbers as the command line takes them: ASCII only, no sign, no nan or inf.
_DECIMAL = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
#: The largest whole number any input may be when nothing smaller bounds it: the largest
#: that SQLite stores.
MAX_WHOLE = 2**63 - 1
#: Digits enough for any bound used here; longer text is refused before it is converted.
_MAX_DIGITS = 20


def _thousands(value: int) -> str:
    return f"{value:,}"


def is_whole(text: str) -> bool:
    """True when ``text`` is a whole number written in ASCII digits, with an optional minus."""
    return _WHOLE.fullmatch(text) is not None and len(text.lstrip("-")) <= _MAX_DIGITS


def whole_number(
    minimum: int, maximum: int = MAX_WHOLE, *, what: str = "a whole number"
) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` to ``maximum``, ASCII digits only."""

    def parse(text: str) -> int:
        if not _WHOLE.fullmatch(text):
            raise argparse.ArgumentTypeError(
                f"{quoted(text)} is not {what} (ASCII digits 0-9)"
            )
        if len(text.lstrip("-")) > _MAX_DIGITS:  # far out of range: not worth converting
            raise argparse.ArgumentTypeError(
                f"{quoted(text)}: expected {_thousands(minimum)} to {_thousands(maximum)}"
            )
        value = int(text)
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{value}: expected {_thousands(minimum)} to {_thousands(maximum)}"
            )
        return value

    # argparse names the type in its message for a ValueError; ours raise their own.
    parse.__name__ = what
    return parse


def positive_number(maximum: float, *, unit: str) -> Callable[[str], float]:
    """An argparse type: a finite number above 0 and at most ``maximum``, ASCII only.

    ``float()`` alone would also take ``nan``, ``inf``, ``٣`` and ``1_0``.
    """

    def parse(text: str) -> float:
        value = float(text) if _DECIMAL.fullmatch(text) else math.nan
        if math.isnan(value):
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number of {unit}")
        if not 0 < value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{quoted(text)}: expected {unit} above 0 and at most {maximum:g}"
            )
        return value

    parse.__name__ = f"number of {unit}"
    return parse


def ascii_number(text: str) -> float:
    """An argparse type: a number in ASCII characters, any value (``nan`` and ``inf``
    included), for an option whose range the config's own declaration checks, so that the
    command line and the file give the same message.

    ``float()`` alone would also take ``٣`` and ``1_0``.
    """
    if not text.isascii() or "_" in text:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number (ASCII digits 0-9)")
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number") from None


def non_empty(what: str) -> Callable[[str], str]:
    """An argparse type: any text but the empty string (which would silently mean a default)."""

    def parse(text: str) -> str:
        if not text:
            raise argparse.ArgumentTypeError(f'"": expected {what}')
        if "\0" in text:
            raise argparse.ArgumentTypeError(f"{quoted(text)}: a path cannot hold a NUL character")
        return text

    parse.__name__ = what
    return parse


def directory_path(text: str) -> str:
    """An argparse type: a directory's path, not empty (it need not exist yet)."""
    return non_empty("a directory path")(text)


def check_output_path(text: str, suffixes: Iterable[str] = ()) -> str:
    """Why ``text`` cannot be written as a new or replaced file, or "" if it can.

    The checks a user can correct: not empty, one of ``suffixes`` (if any), not a directory
    nor anything but a regular file, in a directory that exists and may be written.
    """
    if not text:
        return '"": expected a file name'
    if "\0" in text:
        return f"{quoted(text)}: a path cannot hold a NUL character"
    if names_a_directory(text):
        # pathlib drops a trailing / and . ("x.pdf/" is Path("x.pdf")), so the check is on
        # the text as given: the file written would not be the one named.
        ending = os.path.basename(text) or text[-1]
        return f"{text}: ends in {ending}, which names a directory, not a file"
    from pathlib import Path  # here: the fast commands (options) never need it

    path = Path(text)
    wanted = tuple(suffixes)
    if wanted and path.suffix.lower() not in wanted:
        return f"{text}: expected a file name ending in {' or '.join(wanted)}"
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        return f"{text}: {exc.strerror or exc}"
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            return f"{text}: is a directory, not a file"
        if not stat.S_ISREG(info.st_mode):
            # Imported here: the config module (tomllib) is more than `options` needs.
            from pitable.config import file_kind

            return f"{text}: is {file_kind(info.st_mode)}, not a regular file"
        if not os.access(path, os.W_OK):
            return f"{text}: not writable"
        return ""
    parent = path.parent
    if not parent.is_dir():
        return f"{text}: the directory {parent} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{text}: the directory {parent} is not writable"
    return ""


def names_a_directory(text: str) -> bool:
    """True when ``text`` can only name a directory: it ends in a separator, ``.`` or ``..``."""
    return os.path.basename(text) in ("", ".", "..")


def output_file(*suffixes: str) -> Callable[[str], str]:
    """An argparse type: a file that can be written, ending in one of ``suffixes`` (if any).

    The function it returns is marked ``writes_file``, so that the tests find every option
    that writes a file.
    """

    def parse(text: str) -> str:
        problem = check_output_path(text, suffixes)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return text

    parse.__name__ = "output file"
    parse.writes_file = True  # type: ignore[attr-defined]
    return parse


def check_config(path: str) -> None:
    """A :class:`~pitable.errors.ConfigError` when the ``--config`` file given is broken
    (its title checked too), whether or not the command reads it: a command given a config
    says so, rather than ignoring it."""
    from pitable.box.config_title import load_checked

    load_checked(path)


# --- the language of a command's words ---------------------------------------------


def language(text: str) -> str:
    """An argparse type: one of the box's languages."""
    try:
        return check_language(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_lang_argument(p: argparse.ArgumentParser, *, box: bool = False,
                      what: str = "the words") -> None:
    """``--lang``; for a ``box`` it wins over the language chosen in the box's menu."""
    default = ("the one chosen in the box's menu, else the config's box.language, else the"
               " environment's" if box else "the config's box.language, else the environment's")
    p.add_argument(
        "--lang", type=language, default=None, metavar="L",
        help=f"the language of {what}: {', '.join(LANGUAGES)}, a region tag such as"
        f" fr_FR accepted (default: {default})",
    )


def chosen_language(args: argparse.Namespace) -> str:
    """The language of a command's words: ``--lang``, else the config's ``[box]
    language``, else the environment's (:func:`pitable.i18n.box_language`)."""
    lang: str | None = getattr(args, "lang", None)
    if lang is not None:
        return lang
    from pitable import xdg
    from pitable.i18n import box_language

    path = getattr(args, "config", None)
    if path is None and not os.path.exists(xdg.DEFAULT_CONFIG_FILE):
        # No config to read: the fast commands (options) start without the TOML reader.
        return box_language()
    from pitable.config import load_default_or

    return box_language(load_default_or(path).config.box.language)
