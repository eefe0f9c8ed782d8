"""``pitable score``: what a finished adventure sheet, typed as text, is worth.

The sheet's format is :mod:`pitable.rules.scoring`'s: the map's rows, one token a position.
"""

from __future__ import annotations

import argparse
import json
import os
import stat

from pitable.commands.args import add_lang_argument, chosen_language, non_empty, whole_number
from pitable.errors import BadSheet, UsageError
from pitable.rules.dice import DICE_SETS_HELP
from pitable.rules.titles import title_choices

#: The largest sheet file read: a map of 9 by 9 tokens is well under 1 kB.
MAX_BYTES = 64 * 1024


def setup_score(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Score a finished adventure sheet of GAME typed as text: the map's rows, one"
        " whitespace-separated token per position, in the positions `pitable sheet GAME"
        " --out map.txt` prints (# where it prints nothing); lines starting with ; are"
        " comments. The sheet must have the size and shape of a map of GAME, and of the"
        " map its comment names (`; GAME A 7`, as `pitable sheet` writes it). Prints each"
        " component and the total, and with --solo the level."
    )
    p.add_argument("game", metavar="GAME", help=title_choices())
    p.add_argument("--sheet", metavar="FILE", required=True, type=non_empty("a sheet file"),
                   help="the finished sheet")
    p.add_argument("--dice", default="1-5", metavar="SET",
                   help=f"the dice set the game was played with: {DICE_SETS_HELP}; with 2-6"
                        " a number goes up to 18 (6+6+6)")
    p.add_argument("--json", action="store_true", help="print the score as JSON")
    p.add_argument("--solo", action="store_true", help="a solo game: print the level too")
    p.add_argument(
        "--snakes",
        type=whole_number(0),
        default=None,
        metavar="N",
        help="with --solo: hazards placed during the game (default: those on the sheet)",
    )
    add_lang_argument(p)
    p.set_defaults(run=run_score)


def read_sheet(path: str) -> str:
    """The text of the regular file ``path``, at most :data:`MAX_BYTES`, as UTF-8."""
    try:
        # O_NONBLOCK: opening a FIFO given by mistake must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise BadSheet(f"--sheet {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise BadSheet(f"--sheet {path}: not a regular file")
    with os.fdopen(fd, "rb") as file:
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise BadSheet(f"--sheet {path}: larger than {MAX_BYTES // 1024} kB, not a sheet")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadSheet(f"--sheet {path}: not UTF-8 text (byte {exc.start + 1})") from None


def run_score(args: argparse.Namespace) -> int:
    from pitable.rules.dice import find_dice_set
    from pitable.rules.scoring import check_map, parse_sheet
    from pitable.rules.session import level
    from pitable.rules.titles import as_title

    title = as_title(args.game)
    dice = find_dice_set(args.dice)
    if args.snakes is not None and not args.solo:
        raise UsageError("--snakes: goes with --solo (it moves the level, not the score)")
    if args.snakes is not None and title.discount_per_hazard == 0:
        raise UsageError(f"--snakes: {title.name}'s levels do not depend on its hazards")
    text = read_sheet(args.sheet)
    try:
        sheet = parse_sheet(text, dice)
        check_map(title, sheet)
        score = title.score(sheet)
    except BadSheet as exc:
        raise BadSheet(f"{args.sheet}: {exc}") from None
    hazards = score.hazards if args.snakes is None else args.snakes
    result = level(title, score.total, hazards) if args.solo else None
    if args.json:
        data = score.to_json()
        if result is not None:
            data["hazards"] = hazards
            data["level"] = result.name
        print(json.dumps(data))
        return 0
    from pitable.i18n import translator

    tr = translator(chosen_language(args))
    _ = tr.gettext
    rows = [(_(name), stars) for name, stars in score.components] + [(_("Total"), score.total)]
    width = max(len(name) for name, _stars in rows)
    print(title.display_name(tr))
    for name, stars in rows:
        print(f"  {name:<{width}} {stars:>4}")
    if result is not None:
        placed = ""
        if title.discount_per_hazard:
            placed = " " + _("({hazards} placed)").format(
                hazards=title.hazard_count(hazards, tr))
        print(_("Level: {level}").format(level=_(result.name)) + placed)
    return 0
