"""The ``pitable`` command: argument parsing and wiring, no logic of its own.

Each group of subcommands lives in a module of :mod:`pitable.commands` with a
``register(subparsers)`` function; those modules import nothing heavy at the top, so that
``pitable options`` starts fast on any machine. Every error a user can cause ends as one
line on stderr and a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

from pitable import __version__
from pitable.errors import PitableError

#: The modules that add subcommands, in the order ``pitable --help`` lists them.
COMMAND_MODULES = (
    "pitable.commands.dice",
    "pitable.commands.box",
    "pitable.commands.config",
    "pitable.commands.session",
    "pitable.commands.sheet",
    "pitable.commands.doctor",
    "pitable.commands.wiring",
)

EXIT_USAGE = 2

#: Optional libraries by import name: what to tell a user who lacks them.
OPTIONAL_PACKAGES = {
    "PIL": ("Pillow", "draw"),
    "gpiozero": ("gpiozero", "sim"),
    "luma": ("luma.oled", "sim"),
    "serial": ("pyserial", "sim"),
    "escpos": ("python-escpos", "sim"),
    "fpdf": ("fpdf2", "draw"),
}


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, without the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> Parser:
    parser = Parser(
        prog="pitable",
        description="A dice box for the Penny Papers Adventures games.",
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
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


class _StderrHandler(logging.Handler):
    """Log lines on stderr as ``pitable: message``, to whatever sys.stderr is at the time."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("pitable: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


def setup_logging(verbose: bool) -> None:
    root = logging.getLogger("pitable")
    root.handlers = [h for h in root.handlers if not isinstance(h, _StderrHandler)]
    root.addHandler(_StderrHandler())
    root.setLevel(logging.INFO if verbose else logging.WARNING)
    root.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.verbose)
    try:
        return int(args.run(args) or 0)
    except PitableError as exc:
        print(f"pitable {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
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
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
