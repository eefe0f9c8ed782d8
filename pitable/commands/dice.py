"""``pitable options``, ``roll`` and ``fairness``: the rules core on the command line.

Nothing here imports a hardware or drawing library at the top: these commands start fast
anywhere. The entropy source is imported only by the commands that roll, and Pillow only
when ``fairness --png`` asks for a picture.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pitable.commands.args import (
    add_lang_argument,
    chosen_language,
    non_empty,
    output_file,
    positive_number,
    whole_number,
)
from pitable.errors import UsageError
from pitable.i18n import translator
from pitable.rules import DICE_SETS_HELP, DiceSet, Roll, all_titles, find_dice_set, find_title
from pitable.rules.dice import roll_from_byte
from pitable.rules.titles import title_choices

if TYPE_CHECKING:
    from pitable.hw.entropy import FallbackSource

#: The longest --rng-deadline accepted: a device silent this long is not coming back.
MAX_DEADLINE_S = 60.0
#: The most rolls ``roll --count`` and ``fairness --rolls`` make: minutes of rolling, held
#: one block at a time (two million took 20 s and 23 MB on a busy desktop machine).
MAX_ROLLS = 10_000_000
#: Rolls drawn from the source at a time; ``roll`` prints each block before the next.
BLOCK = 4096


def add_dice_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dice", default="1-5", metavar="SET", help=f"the dice set: {DICE_SETS_HELP}"
    )


#: An argparse type: a finite number of seconds above 0, at most MAX_DEADLINE_S.
seconds = positive_number(MAX_DEADLINE_S, unit="seconds")


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    # Here, not at the top: the entropy module's health tests import hashlib and logging,
    # which ``pitable options`` does not need.
    from pitable.hw.entropy import DEFAULT_DEADLINE_S, DEFAULT_DEVICE

    parser.add_argument(
        "--rng-device",
        type=non_empty("a device path such as /dev/hwrng"),
        default=None,
        metavar="PATH",
        help="hardware random generator to roll from (default: the config's entropy.device,"
        f" {DEFAULT_DEVICE})",
    )
    parser.add_argument(
        "--require-hwrng",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="refuse to roll when the hardware generator cannot be used, instead of"
        " falling back to the operating system's generator (default: the config's"
        " entropy.require_hwrng)",
    )
    parser.add_argument(
        "--rng-deadline",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="how long the generator may give nothing before it counts as failed"
        f" (default: the config's entropy.deadline_s, {DEFAULT_DEADLINE_S:g})",
    )


def open_args_source(args: argparse.Namespace) -> FallbackSource:
    """The entropy source the options ask for, else the config's [entropy] table."""
    from pitable.config import load_default_or
    from pitable.hw.entropy import open_source

    entropy = load_default_or(getattr(args, "config", None)).config.entropy
    device = entropy.device if args.rng_device is None else args.rng_device
    if not device:
        raise UsageError('--rng-device "": expected a device path such as /dev/hwrng')
    require = entropy.require_hwrng if args.require_hwrng is None else args.require_hwrng
    deadline = entropy.deadline_s if args.rng_deadline is None else args.rng_deadline
    return open_source(device, require=require, min_entropy=entropy.min_entropy,
                       deadline_s=deadline)


def draw_sourced(
    source: FallbackSource, count: int, dice: DiceSet
) -> Iterator[list[tuple[Roll, str]]]:
    """``count`` rolls in blocks of at most :data:`BLOCK`, each with the source its byte
    came from.

    The first block is drawn when the iterator is made, before the caller has printed
    anything: a refused source fails there, and nothing at all is printed. Later blocks
    are drawn one at a time, so that a long run holds one block in memory. The same
    rejection rule as :func:`pitable.rules.draw_rolls`; the source's name is read after
    each read, since every read hands out bytes of one source only.
    """
    table = [roll_from_byte(v, dice) for v in range(256)]

    def block(wanted: int) -> list[tuple[Roll, str]]:
        rolls: list[tuple[Roll, str]] = []
        while len(rolls) < wanted:
            data = source.read(wanted - len(rolls))
            if not data:
                raise EOFError("the entropy source returned no bytes")
            name = source.name
            rolls.extend((roll, name) for v in data if (roll := table[v]) is not None)
        return rolls

    def rest(first: list[tuple[Roll, str]]) -> Iterator[list[tuple[Roll, str]]]:
        yield first
        left = count - len(first)
        while left > 0:
            wanted = min(left, BLOCK)
            yield block(wanted)
            left -= wanted

    return rest(block(min(count, BLOCK)))


def setup_options(p: argparse.ArgumentParser) -> None:
    p.description = (
        "What each ROLL allows in GAME. Each ROLL is three faces, green, purple"
        " and red, separated by commas: 2,3,5 or *,3,5 (* is that die's special face)."
        " Each ROLL is read on its own."
    )
    p.add_argument("game", metavar="GAME", help=title_choices())
    p.add_argument("rolls", metavar="ROLL", nargs="+")
    p.add_argument(
        "--dangers",
        type=whole_number(0, 99),
        default=None,
        metavar="N",
        help=marked_hazards_help() + " (default 0)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object a line, per ROLL")
    add_dice_argument(p)
    add_lang_argument(p)
    p.set_defaults(run=run_options)


def setup_roll(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--count",
        type=whole_number(1, MAX_ROLLS),
        default=1,
        metavar="N",
        help=f"rolls, 1 to {MAX_ROLLS:,}, printed as they are rolled (1)",
    )
    p.add_argument("--json", action="store_true", help="each roll as [green, purple, red]")
    add_source_arguments(p)
    add_dice_argument(p)
    p.set_defaults(run=run_roll)


def setup_fairness(p: argparse.ArgumentParser) -> None:
    from pitable.rules.fairness import MIN_EXPECTED, min_rolls

    p.add_argument(
        "--rolls",
        # From 0: too few for the test is refused with the test's own reason, not a range.
        type=whole_number(0, MAX_ROLLS),
        default=10_000,
        metavar="N",
        help=f"rolls, {min_rolls()} ({MIN_EXPECTED} a face, for the chi-square test) to"
        f" {MAX_ROLLS:,} (10000)",
    )
    p.add_argument(
        "--png",
        type=output_file(".png"),
        metavar="FILE",
        help="also draw the face counts as a histogram",
    )
    p.add_argument("--json", action="store_true", help="the report as one JSON object")
    add_source_arguments(p)
    add_dice_argument(p)
    p.set_defaults(run=run_fairness)


def marked_hazards_help() -> str:
    """What ``--dangers`` counts, with each registered title's limit: ``hazards marked
    before the roll, for a title that counts them (toy: 0 to 3)``."""
    limits = ", ".join(f"{t.key}: 0 to {t.hazard_limit}"
                       for t in all_titles() if t.hazard_limit is not None)
    return "hazards marked before the roll, for a title that counts them" + (
        f" ({limits})" if limits else "")


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
    tr = None if args.json else translator(chosen_language(args))
    out = []
    for roll in rolls:
        options = title.options(roll, marked)
        out.append(json.dumps(options.to_json()) if tr is None else title.summary(options, tr))
    print("\n".join(out))
    return 0


def run_roll(args: argparse.Namespace) -> int:
    dice = find_dice_set(args.dice)
    source = open_args_source(args)
    try:
        # The first block is drawn before anything is printed, so that a refused source
        # prints no roll at all; then each block is printed as soon as it is rolled.
        for block in draw_sourced(source, args.count, dice):
            lines = [
                json.dumps({"roll": r.to_json(), "source": name}) if args.json else str(r)
                for r, name in block
            ]
            sys.stdout.write("\n".join(lines) + "\n")
    finally:
        source.close()
    return 0


def run_fairness(args: argparse.Namespace) -> int:
    from pitable.rules.fairness import MIN_EXPECTED, fairness, min_rolls

    dice = find_dice_set(args.dice)
    if args.rolls < min_rolls(dice):
        raise UsageError(
            f"--rolls {args.rolls}: the chi-square test needs at least {min_rolls(dice)} rolls"
            f" ({MIN_EXPECTED} expected on each of the {len(dice.faces)} faces)"
        )
    source = open_args_source(args)
    # After a fallback mid-run, the report names both sources in the order they served.
    sources: dict[str, None] = {}

    def rolls() -> Iterator[Roll]:
        for block in blocks:
            for roll, name in block:
                sources[name] = None
                yield roll

    try:
        blocks = draw_sourced(source, args.rolls, dice)
        # Counted as they are rolled: a long run holds one block, not every roll.
        report = fairness(rolls(), dice)
    finally:
        source.close()
    origin = " then ".join(sources)
    if args.png:
        from pitable.render.histogram import draw_histogram

        draw_histogram(report, source=origin).save(args.png)
    if args.json:
        print(json.dumps({
            "rolls": args.rolls,
            "source": origin,
            "dice": [d.to_json() for d in report],
        }))
        return 0
    print(f"{args.rolls} rolls from {origin}")
    header = "die     " + "".join(f"{f!s:>7}" for f in dice.faces) + "     chi2  p-value"
    print(header)
    for d in report:
        counts = "".join(f"{c:>7}" for c in d.counts)
        print(f"{d.die!s:<8}{counts}{d.chi2:>9.2f}  {d.p_value:.4f}")
    print("chi-square with 5 degrees of freedom; a fair die gives p below 0.01 one time in 100")
    return 0
