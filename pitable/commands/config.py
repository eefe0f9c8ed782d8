"""``pitable config check`` and ``config show``: the configuration file on the command line.

Standard library only, like :mod:`pitable.config`: a maker checks the file on the Pi before
any display library is installed.
"""

from __future__ import annotations

import argparse

from pitable import config as config_module
from pitable.box.config_title import configured_title, load_checked
from pitable.commands.args import non_empty
from pitable.config import DEFAULT_CONFIG_PATH, DEFAULTS, Config
from pitable.wiring import part_rows


def setup_config(p: argparse.ArgumentParser) -> None:
    p.description = "The box's configuration: one TOML file naming its parts and pins."
    config_sub = p.add_subparsers(dest="config_command", metavar="ACTION")
    config_sub.required = True

    c = config_sub.add_parser(
        "check",
        help="validate a configuration file and print the wiring it describes",
        description="Validate PATH and print the wiring it describes, part by part. PATH"
        f" defaults to --config, else {DEFAULT_CONFIG_PATH}; when that file does not"
        " exist, the built-in defaults (the reference wiring) are checked.",
    )
    c.add_argument(
        "path", metavar="PATH", nargs="?", default=None, type=non_empty("the path of a TOML file")
    )
    c.set_defaults(run=run_check)

    s = config_sub.add_parser(
        "show",
        help="print the built-in defaults as a commented TOML file",
        description="Print the built-in defaults (the reference wiring) as a commented TOML"
        f" file, ready to save as {DEFAULT_CONFIG_PATH} and edit.",
    )
    s.set_defaults(run=run_show)

    r = config_sub.add_parser(
        "reference",
        help="print every setting, its default and what it may hold, as Markdown",
        description="Print every table and key of the configuration file, with its"
        " default, what it may hold and what it does, as Markdown: the settings part of"
        " docs/configuration.md (scripts/config-page writes it there).",
    )
    r.set_defaults(run=run_reference)


def run_check(args: argparse.Namespace) -> int:
    config, source = load_checked(args.path if args.path is not None else args.config)
    if source is None:
        # Looked up at call time, so that tests can point the default somewhere else.
        default = config_module.DEFAULT_CONFIG_PATH
        print(f"{default} not found: checked the built-in defaults (the reference wiring)")
    else:
        print(f"{source}: valid")
    print()
    print(wiring_table(config))
    return 0


def run_show(args: argparse.Namespace) -> int:
    print(DEFAULTS.to_toml(), end="")
    return 0


def run_reference(args: argparse.Namespace) -> int:
    print(config_module.to_markdown(), end="")
    return 0


# --- the wiring table --------------------------------------------------------------------


def wiring_rows(config: Config) -> list[tuple[str, str, str]]:
    """(part, connection, details) for every part, enabled or not, in the order of the box:
    each registered part's own lines (:func:`pitable.wiring.part_rows`), then the random
    generator, the pin factory and the game."""
    rows = part_rows(config)
    ent = config.entropy
    fallback = "no fallback" if ent.require_hwrng else "falls back to the OS generator"
    rows.append(
        (
            "random generator",
            ent.device,
            f"{fallback}; health tests at {ent.min_entropy:g} bits/byte",
        )
    )
    factory = config.gpio.pin_factory or "gpiozero's own choice"
    rows.append(("pin factory", factory, ""))
    box = config.box
    tumble = f"tumble {box.tumble_ms} ms" if box.tumble_ms else "no tumble"
    rows.append(
        (
            "game",
            f"{configured_title(box).key}, {box.mode} play",
            f"hold {box.hold_s:g} s for the menu, {tumble}, hazard blink {box.blink_ms} ms",
        )
    )
    return rows


def wiring_table(config: Config) -> str:
    """The wiring as a plain text table: part | connection | details."""
    rows = [("part", "connection", "details"), *wiring_rows(config)]
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    lines = []
    for n, (part, connection, details) in enumerate(rows):
        line = f"{part:<{widths[0]}} | {connection:<{widths[1]}} | {details}"
        lines.append(line.rstrip(" |") if not details else line)
        if n == 0:
            lines.append(f"{'-' * widths[0]}-+-{'-' * widths[1]}-+-{'-' * 7}")
    return "\n".join(lines)
