"""``pitable screen``: what the status screen shows for one roll, as a picture or as text.

The same layout the box draws (:func:`pitable.render.status.status_lines`), so the words a
table reads on the box are the words this prints. Pillow is imported only when the command
runs: the layout measures its text with the box's own fonts.
"""

from __future__ import annotations

import argparse
import re

from pitable.commands.args import add_lang_argument, chosen_language, output_file, whole_number
from pitable.commands.dice import add_dice_argument, marked_hazards_help
from pitable.errors import UsageError, quoted
from pitable.rules.titles import title_choices

#: The status panel sizes the config allows (its drivers' geometries), as WxH.
SIZE = re.compile(r"([0-9]{1,4})x([0-9]{1,4})")


def screen_sizes() -> list[tuple[int, int]]:
    """Every status panel size the config allows, narrowest first."""
    from pitable.config import DRIVER_SIZES

    return sorted(set(DRIVER_SIZES.values()))


def screen_size(text: str) -> tuple[int, int]:
    """An argparse type: a size the status panel can have, ``128x64`` or ``256x64``."""
    sizes = screen_sizes()
    shown = ", ".join(f"{w}x{h}" for w, h in sizes)
    match = SIZE.fullmatch(text)
    size = (int(match[1]), int(match[2])) if match else None
    if size not in sizes:
        raise argparse.ArgumentTypeError(f"{quoted(text)}: expected one of {shown}")
    assert size is not None
    return size


def setup_screen(p: argparse.ArgumentParser) -> None:
    p.description = (
        "What the box's status screen shows after ROLL in GAME: every page, as text"
        " (--text) or as a picture (--png FILE, the pages side by side). ROLL is three"
        " faces, green, purple and red: 2,4,* (* is that die's special face)."
    )
    p.add_argument("game", metavar="GAME", help=title_choices())
    p.add_argument("roll", metavar="ROLL")
    p.add_argument("--solo", action="store_true", help="a solo game (default: a table)")
    p.add_argument("--dangers", type=whole_number(0, 99), default=0, metavar="N",
                   help=marked_hazards_help())
    p.add_argument("--round", type=whole_number(1, 999), default=None, metavar="N",
                   help="the round this roll is (default: none shown at a table, 1 solo)")
    add_lang_argument(p)
    p.add_argument("--size", type=screen_size, default=(128, 64), metavar="WxH",
                   help="the status panel: 128x64 (default) or 256x64")
    p.add_argument("--png", type=output_file(".png"), metavar="FILE",
                   help="write the pages, side by side, as a PNG")
    p.add_argument("--text", action="store_true",
                   help="print each page's lines, pages separated by a blank line (the"
                   " default without --png)")
    add_dice_argument(p)
    p.set_defaults(run=run_screen)


def run_screen(args: argparse.Namespace) -> int:
    from pitable.render.status import StatusView, draw_status, page_count, status_lines
    from pitable.rules import Roll, find_dice_set, find_title

    title = find_title(args.game)
    limit = title.hazard_limit
    if limit is not None and args.dangers > limit:
        raise UsageError(f"--dangers {args.dangers}: expected 0 to {limit} for {title.name}")
    roll = Roll.from_str(args.roll, find_dice_set(args.dice))
    lang = chosen_language(args)
    options = title.options(roll, args.dangers)
    hazards = args.dangers + int(options.hazard)
    round_limit = title.solo_rounds if args.solo else None
    number = args.round if args.round is not None else (1 if args.solo else None)
    if number is not None and round_limit is not None and number > round_limit:
        raise UsageError(f"--round {number}: a solo game of {title.name} has"
                         f" {round_limit} rounds")
    counted = args.solo or limit is not None
    view = StatusView(
        title, solo=args.solo, round=number, round_limit=round_limit, options=options,
        hazards=hazards if counted else None, lang=lang,
    )
    size = args.size
    if args.png:
        import dataclasses

        from PIL import Image

        pages = page_count(view, size)
        sheet = Image.new("1", (size[0] * pages + 4 * (pages - 1), size[1]), 0)
        for page in range(pages):
            image = draw_status(dataclasses.replace(view, page=page), size)
            sheet.paste(image, (page * (size[0] + 4), 0))
        sheet.save(args.png)
    if args.text or not args.png:
        print("\n\n".join("\n".join(page) for page in status_lines(view, size)))
    return 0
