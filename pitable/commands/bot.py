"""``pitable bot``: the bot plays full solo games on one map and says how they scored.

The games are :mod:`pitable.rules.bot`'s: seeded dice, the rulebook's placement rules and
moves chosen by planning (``--strength``: greedy is the fastest). ``--show`` prints the first
game's finished sheet in the format ``pitable score`` reads.
"""

from __future__ import annotations

import argparse
import json
import secrets

from pitable.commands.args import add_lang_argument, chosen_language, whole_number
from pitable.commands.sheet import seed_number
from pitable.rules.sheets import MAX_SEED
from pitable.rules.titles import title_choices

#: The most games one run plays: a few minutes of the greedy player on a desktop computer
#: (benchmarks/bench_bot.py: 50 to 150 games a second); the planner plays about one game a
#: second of the titles with the most choices a turn, so its long runs are a matter of hours.
MAX_GAMES = 10_000
#: Dice seeds: any whole number from 0 up to this.
MAX_DICE_SEED = 2**32 - 1
#: The bot's strengths, weakest first, and the one it plays at unless told (the rules
#: package is imported only when a command runs; a test checks these match it).
STRENGTHS = ("greedy", "plan", "deep")
DEFAULT_STRENGTH = "plan"


def strength_name(text: str) -> str:
    """An argparse type: one of the bot's strengths."""
    name = text.strip().lower()
    if name not in STRENGTHS:
        raise argparse.ArgumentTypeError(
            f"strength {text!r}: expected one of {', '.join(STRENGTHS)}"
        )
    return name


def setup_bot(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Play N full solo games of GAME on one map with seeded dice, by the rulebook's"
        " placement rules, planning its moves (--strength); print the mean, spread (standard"
        " deviation), lowest and highest score and the levels reached. --show adds the"
        " first game's finished sheet, which `pitable score` reads."
    )
    p.add_argument("game", metavar="GAME", help=title_choices())
    p.add_argument(
        "--seed",
        type=seed_number,
        metavar="MAP",
        default=None,
        help=f"which map, 0 to {MAX_SEED}, as `pitable sheet --seed` (default: a new one,"
        " printed)",
    )
    p.add_argument("--side", default="a", metavar="a|b", help="the side of the sheet (a)")
    p.add_argument(
        "--games",
        type=whole_number(1, MAX_GAMES),
        default=100,
        metavar="N",
        help=f"how many games, 1 to {MAX_GAMES:,} (100)",
    )
    p.add_argument(
        "--dice-seed",
        type=whole_number(0, MAX_DICE_SEED),
        default=0,
        metavar="S",
        help="the dice of the games: the same seed rolls the same dice (0)",
    )
    p.add_argument(
        "--strength",
        type=strength_name,
        default=DEFAULT_STRENGTH,
        metavar="|".join(STRENGTHS),
        help=f"how hard the bot thinks: greedy (fastest), plan or deep ({DEFAULT_STRENGTH})",
    )
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument(
        "--show", action="store_true", help="print the first game's finished sheet too"
    )
    add_lang_argument(p)
    p.set_defaults(run=run_bot)


def run_bot(args: argparse.Namespace) -> int:
    from pitable.rules.bot import play_games, summarise
    from pitable.rules.sheets import Side, generate
    from pitable.rules.titles import as_title

    title = as_title(args.game)
    side = Side.from_str(args.side)
    seed = args.seed if args.seed is not None else secrets.randbelow(MAX_SEED + 1)
    sheet = generate(title, seed, side)
    games = play_games(sheet, args.games, args.dice_seed, args.strength)
    summary = summarise(games)
    first = games[0]
    if args.json:
        data: dict[str, object] = {
            "title": title.key,
            "side": side.value,
            "seed": seed,
            "dice_seed": args.dice_seed,
            "strength": args.strength,
            **summary.to_json(),
        }
        if args.show:
            data["sheet"] = first.sheet_text()
            data["sheet_total"] = first.total
        print(json.dumps(data))
        return 0
    # With --show the whole output is a sheet file: the figures are its comment lines.
    from pitable.i18n import translator

    tr = translator(chosen_language(args))
    _ = tr.gettext
    lead = "; " if args.show else ""
    games_word = tr.ngettext("{count} game", "{count} games", summary.games).format(
        count=summary.games)
    levels = ", ".join(f"{_(name)} {count}" for name, count in summary.levels)
    print(lead + _("{title}, side {side}, map {seed}: {games}, dice seed {dice}").format(
        title=title.display_name(tr), side=side.value.upper(), seed=seed, games=games_word,
        dice=args.dice_seed))
    print(lead + "  " + _("mean {mean}  stdev {stdev}  lowest {lowest}  highest {highest}")
          .format(mean=f"{summary.mean:.1f}", stdev=f"{summary.stdev:.1f}",
                  lowest=summary.lowest, highest=summary.highest))
    print(lead + "  " + _("levels: {levels}").format(levels=levels))
    if args.show:
        from pitable.rules.sheets import generate

        components = ", ".join(f"{_(name)} {stars}" for name, stars in first.components)
        print("; " + _("the first game's sheet: {components}; total {total}").format(
            components=components, total=first.total))
        # The map, named as `pitable score` reads it, so that the sheet is checked against it.
        print(f"; {generate(title, seed, side).label}")
        print(first.sheet_text(), end="")
    return 0
