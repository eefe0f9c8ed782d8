"""``pitable wiring``: the wiring the config describes, as a table or an SVG picture."""

from __future__ import annotations

import argparse
from pathlib import Path

from pitable.commands.args import output_file
from pitable.config import load_default_or


def setup_wiring(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Print which part goes to which pin, from the config (--config, else"
        " /etc/pitable/pitable.toml, else the reference wiring). With --svg FILE, also"
        " draw it."
    )
    p.add_argument(
        "--svg",
        metavar="FILE",
        type=output_file(".svg"),
        help="write the wiring as an SVG picture",
    )
    p.set_defaults(run=run_wiring)


def run_wiring(args: argparse.Namespace) -> int:
    from pitable.commands.config import wiring_rows, wiring_table

    config = load_default_or(args.config).config
    # The picture first: a path that cannot be written fails before anything is printed.
    if args.svg is not None:
        from pitable.render.wiring_diagram import wiring_svg

        Path(args.svg).write_text(wiring_svg(config, wiring_rows(config)), encoding="utf-8")
    print(wiring_table(config))
    if args.svg is not None:
        print(f"\nwrote {args.svg}")
    return 0
