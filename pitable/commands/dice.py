"""``pitable options``, ``roll`` and ``fairness``: the rules core on the command line.

Nothing here imports a hardware or drawing library at the top: these commands start fast
anywhere. The entropy source is imported only by the commands that roll, and Pillow only
when ``fairness --png`` asks for a picture.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pitable.errors import UsageError
from pitable.rules import DICE_SETS_HELP, Roll, all_titles, draw_rolls, find_dice_set, find_title


def whole_number(minimum: int) -> Any:
    """An argparse type: a whole number no smaller than ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value}: expected {minimum} or more")
        return value

    parse.__name__ = "whole number"
    return parse


def add_dice_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dice", default="1-5", metavar="SET", help=f"the dice set: {DICE_SETS_HELP}"
    )


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    # Here, not at the top: the entropy module's health tests import hashlib and logging,
    # which ``pitable options`` does not need.
    from pitable.hw.entropy import DEFAULT_DEVICE

    parser.add_argument(
        "--rng-device",
        default=DEFAULT_DEVICE,
        metavar="PATH",
        help=f"hardware random generator to roll from (default {DEFAULT_DEVICE})",
    )
    parser.add_argument(
        "--require-hwrng",
        action="store_true",
        help="refuse to roll when the hardware generator cannot be used, instead of"
        " falling back to the operating system's generator",
    )


def setup_options(p: argparse.ArgumentParser) -> None:
    p.description = (
        "What each ROLL allows in GAME. Each ROLL is three faces, green, purple"
        " and red, separated by commas: 2,3,5 or *,3,5 (* is that die's special face)."
        " Each ROLL is read on its own."
    )
    p.add_argument("game", metavar="GAME", help="valley, island or temple")
    p.add_argument("rolls", metavar="ROLL", nargs="+")
    p.add_argument(
        "--dangers",
        type=whole_number(0),
        default=None,
        metavar="N",
        help="Skull Island: dangers marked before the roll, 0 to 5 (default 0)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object a line, per ROLL")
    add_dice_argument(p)
    p.set_defaults(run=run_options)


def setup_roll(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=whole_number(1), default=1, metavar="N", help="rolls (1)")
    p.add_argument("--json", action="store_true", help="each roll as [green, purple, red]")
    add_source_arguments(p)
    add_dice_argument(p)
    p.set_defaults(run=run_roll)


def setup_fairness(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rolls", type=whole_number(1), default=10_000, metavar="N", help="rolls (10000)"
    )
    p.add_argument("--png", metavar="FILE", help="also draw the face counts as a histogram")
    p.add_argument("--json", action="store_true", help="the report as one JSON object")
    add_source_arguments(p)
    add_dice_argument(p)
    p.set_defaults(run=run_fairness)


def run_options(args: argparse.Namespace) -> int:
    title = find_title(args.game)
    dice = find_dice_set(args.dice)
    # Other titles have no danger bubbles: 0 changes nothing, anything else is a mistake.
    if args.dangers and title.hazard_limit is None:
        bubbles = " or ".join(t.name for t in all_titles() if t.hazard_limit is not None)
        raise UsageError(f"--dangers: {title.name} has no danger bubbles ({bubbles} only)")
    marked = args.dangers or 0
    if title.hazard_limit is not None and marked > title.hazard_limit:
        raise UsageError(
            f"--dangers {marked}: expected 0 to {title.hazard_limit} dangers marked"
        )
    rolls = [Roll.from_str(text, dice) for text in args.rolls]
    out = []
    for roll in rolls:
        options = title.options(roll, marked)
        out.append(json.dumps(options.to_json()) if args.json else title.summary(options))
    print("\n".join(out))
    return 0


def run_roll(args: argparse.Namespace) -> int:
    from pitable.hw.entropy import open_source

    dice = find_dice_set(args.dice)
    source = open_source(args.rng_device, require=args.require_hwrng)
    # Draw every roll before printing any, so that a refused source prints no roll at all.
    rolls = draw_rolls(source, args.count, dice)
    lines = [json.dumps(r.to_json()) if args.json else str(r) for r in rolls]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def run_fairness(args: argparse.Namespace) -> int:
    from pitable.hw.entropy import open_source
    from pitable.rules.fairness import fairness

    if args.png and not args.png.lower().endswith(".png"):
        raise UsageError(f"--png {args.png}: expected a file name ending in .png")
    dice = find_dice_set(args.dice)
    source = open_source(args.rng_device, require=args.require_hwrng)
    rolls = draw_rolls(source, args.rolls, dice)
    report = fairness(rolls, dice)
    if args.png:
        from pitable.render.histogram import draw_histogram

        draw_histogram(report, source=source.name).save(args.png)
    if args.json:
        print(json.dumps({
            "rolls": args.rolls,
            "source": source.name,
            "dice": [d.to_json() for d in report],
        }))
        return 0
    print(f"{args.rolls} rolls from {source.name}")
    header = "die     " + "".join(f"{f!s:>7}" for f in dice.faces) + "     chi2  p-value"
    print(header)
    for d in report:
        counts = "".join(f"{c:>7}" for c in d.counts)
        print(f"{d.die!s:<8}{counts}{d.chi2:>9.2f}  {d.p_value:.4f}")
    print("chi-square with 5 degrees of freedom; a fair die gives p below 0.01 one time in 100")
    return 0
