"""The ``pitable`` command: argument parsing and wiring, no logic of its own.

Each command lives in a module of :mod:`pitable.commands` with a ``setup_<name>(parser)``
function that gives the command its description, arguments and run function. The table
below names every command, its one-line help and its module, so that ``pitable --help``
lists them all without importing any; a run imports only the module of the command it
runs, so that ``pitable options`` starts fast on any machine. Every error a user can cause
ends as one line on stderr and a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from pitable import __version__
from pitable.errors import EXIT_FAILURE, EXIT_USAGE, PitableError

if TYPE_CHECKING:
    import logging

#: Every command in the order ``pitable --help`` lists them: its name, its one-line help
#: and the module of :mod:`pitable.commands` that holds its ``setup_<name>`` function.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("options", "what one or more rolls allow in a title", "dice"),
    ("screen", "what the status screen shows for a roll, as text or a picture", "screen"),
    ("roll", "roll the three dice", "dice"),
    ("fairness", "roll many times and test each die for fairness", "dice"),
    ("run", "run the box on its real parts, from the config", "box"),
    ("sim", "run the whole box on fakes: live in the terminal, or from a script", "box"),
    ("config", "check the configuration file, or print one to start from", "config"),
    ("history", "the rolls of a saved game", "session"),
    ("level", "the adventurer level of a solo score", "session"),
    ("score", "score a finished adventure sheet typed as text", "score"),
    ("bot", "let a bot play full solo games on one map, and say how they scored", "bot"),
    ("sheet", "write a fresh adventure sheet as a PDF, PNG, PBM or text map", "sheet"),
    ("print", "print a fresh adventure sheet on the thermal printer", "sheet"),
    ("doctor", "check every configured part on the Pi and say what is wired wrong", "doctor"),
    ("wiring", "print the wiring the config describes, or draw it as SVG", "wiring"),
)

#: The commands that use no part of the box and log nothing. They skip setting up logging:
#: importing it costs about a quarter of what ``pitable options`` takes to start.
QUIET_COMMANDS = frozenset({"options", "level", "config", "wiring", "sheet", "screen"})

EPILOG = (
    "Exit status: 0 when the command did its job; 2 for a wrong argument, config or input"
    " file; 1 when a part of the box or the system fails at run time (a printer that does"
    " not answer, a display that is unplugged, an error from the operating system)."
)

#: Optional libraries by import name: what to tell a user who lacks them.
OPTIONAL_PACKAGES = {
    "PIL": ("Pillow", "draw"),
    "gpiozero": ("gpiozero", "sim"),
    "luma": ("luma.oled", "sim"),
    "serial": ("pyserial", "sim"),
    "escpos": ("python-escpos", "bench"),
    "fpdf": ("fpdf2", "draw"),
    "starlette": ("starlette", "web"),
    "uvicorn": ("uvicorn", "web"),
}


def _terminal_columns() -> int:
    """The width of the terminal, as ``shutil.get_terminal_size()`` gives it to argparse.

    Written here because argparse makes a help formatter for every argument it adds (to check
    its metavar), and the formatter imports shutil for this one number: shutil pulls in bz2 and
    lzma, which cost ``pitable options`` more than parsing its arguments does.
    """
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (ValueError, OSError):  # not a terminal, or stdout closed
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help formatter, told the terminal's width so that it need not import shutil."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = _terminal_columns() - 2  # as argparse does
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, without the usage block."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")

    def _parse_optional(self, arg_string: str) -> Any:
        # A word with a comma after a single dash (-1,2,3) is a value, such as a roll, that
        # the command checks itself: argparse would take it for an unknown option.
        if (
            arg_string[:1] == "-" and arg_string[1:2] != "-" and "," in arg_string
            and arg_string[:2] not in self._option_string_actions
        ):
            return None
        return super()._parse_optional(arg_string)


def build_parser(command: str | None = None) -> Parser:
    """The parser of ``pitable``, with:

    - ``command`` one of :data:`COMMANDS`: that command alone, and only its module imported;
    - ``command`` None: every command with its arguments, every module imported;
    - anything else (no command, a wrong one): every command by name and help, for
      ``pitable --help`` and for the error that lists them, no module imported.
    """
    parser = Parser(
        prog="pitable",
        description="A dice box for the Penny Papers Adventures games.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"pitable {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="log what the box does, not only warnings"
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=None,
        help="the box's configuration file (default /etc/pitable/pitable.toml if present,"
        " else the built-in reference wiring)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    known = any(name == command for name, _, _ in COMMANDS)
    for name, summary, module in COMMANDS:
        if known and name != command:
            continue  # each parser costs a few gettext look-ups: build only the one used
        parser_of_command = sub.add_parser(name, help=summary)
        if command is None or name == command:
            # __import__ rather than importlib.import_module: ``python -X importtime``, with
            # which start-up is measured, does not report modules imported through importlib.
            found = __import__(f"pitable.commands.{module}", fromlist=["_"])
            getattr(found, f"setup_{name}")(parser_of_command)
    return parser


def command_in(argv: Sequence[str]) -> str | None:
    """The command word of ``argv``: its first word that is neither an option of ``pitable``
    nor the value of ``--config`` (argparse also takes any prefix of it, such as ``--conf``)."""
    takes_value = False
    for word in argv:
        if takes_value:
            takes_value = False
        elif len(word) >= 3 and "--config".startswith(word):
            takes_value = True
        elif not word.startswith("-"):
            return word
    return None


class _Stderr:
    """Writes to whatever sys.stderr is at the time, so that a replaced stderr (a test's
    capture, a closed pipe) gets the log lines written after the replacement."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def setup_logging(verbose: bool) -> None:
    """Log lines of the ``pitable`` loggers on stderr as ``pitable: message``."""
    import logging

    root = logging.getLogger("pitable")
    root.handlers = [h for h in root.handlers if not _is_ours(h)]
    handler = logging.StreamHandler(_Stderr())
    handler.setFormatter(logging.Formatter("pitable: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)
    root.propagate = False


def _is_ours(handler: logging.Handler) -> bool:
    return isinstance(getattr(handler, "stream", None), _Stderr)


#: The error handler of stdout and stderr (:func:`writable_output`).
OUTPUT_ERRORS = "pitable.shown"


def _shown(error: UnicodeError) -> tuple[str | bytes, int]:
    """What to write for a character the output's encoding lacks: the byte it was read from
    when it is one that could not be decoded (``surrogateescape``: a file name given in the
    C locale comes back as it was given), else the letter without its accent (``é`` -> ``e``,
    by Unicode's compatibility decomposition), else ``?``.

    Written here because Python's own handlers each do one of these (``surrogateescape``,
    ``replace``) and an encoding's error handler cannot chain them.
    """
    import unicodedata

    if not isinstance(error, UnicodeEncodeError):
        raise error
    char = error.object[error.start]
    if 0xDC80 <= ord(char) <= 0xDCFF:
        return bytes([ord(char) - 0xDC00]), error.start + 1
    bare = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
    try:
        bare.encode(error.encoding)
    except (UnicodeError, LookupError):
        bare = "?"
    return bare or "?", error.start + 1


def writable_output() -> None:
    """Make stdout and stderr write what their encoding can show instead of failing on it.

    A terminal or pipe that is not UTF-8 (``LC_ALL=C`` without UTF-8 mode,
    ``PYTHONIOENCODING=ascii``) would otherwise end a command with ``UnicodeEncodeError`` at
    its first accent or middle dot; on a UTF-8 one nothing changes.
    """
    import codecs

    try:
        codecs.lookup_error(OUTPUT_ERRORS)
    except LookupError:
        codecs.register_error(OUTPUT_ERRORS, _shown)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            # A closed stream, or one that cannot change, is left as it is.
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors=OUTPUT_ERRORS)


def main(argv: Sequence[str] | None = None) -> int:
    writable_output()
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(command_in(argv) or "")
    args = parser.parse_args(argv)
    if args.command not in QUIET_COMMANDS:
        setup_logging(args.verbose)
    try:
        if args.config is not None:
            # Through __import__, as the commands are: the check is the commands' own.
            __import__("pitable.commands.args", fromlist=["_"]).check_config(args.config)
        return int(args.run(args) or 0)
    except PitableError as exc:
        print(f"pitable {args.command}: error: {exc}", file=sys.stderr)
        return exc.exit_status
    except ModuleNotFoundError as exc:
        package = OPTIONAL_PACKAGES.get((exc.name or "").split(".")[0])
        if package is None:
            raise
        print(
            f"pitable {args.command}: error: this command needs {package[0]}:"
            f" pip install 'pitable[{package[1]}]'",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader went away (``pitable roll --count 100000 | head``): not an error.
        sys.stderr.close()
        return 0
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"pitable {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
