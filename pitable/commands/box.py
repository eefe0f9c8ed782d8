"""``pitable run`` (the box on its parts) and ``pitable sim`` (the same box on fakes)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import tempfile
from typing import Any

from pitable.commands.args import (
    MAX_WHOLE,
    add_lang_argument,
    directory_path,
    output_file,
    whole_number,
)
from pitable.errors import UsageError, quoted
from pitable.rules.session import MAX_PLAYERS

log = logging.getLogger("pitable.box")

GIF_SUFFIXES = (".gif",)
#: The most steps a --script takes: a long game of presses, turns and holds.
MAX_STEPS = 500
#: The most steps of a recorded --script: every frame is kept until the GIF is written,
#: about 10 MB a roll, so a recording is bounded to a solo game's 25 rounds.
MAX_RECORDED_STEPS = 25


def script_text(text: str) -> str:
    """An argparse type: a --script of ASCII words and at most MAX_STEPS steps (each step
    is checked by the simulator's own parser)."""
    if not text.isascii():
        raise argparse.ArgumentTypeError(
            f"{quoted(text)}: expected steps in ASCII letters and digits, such as press,turn+1"
        )
    steps = text.count(",") + 1
    if steps > MAX_STEPS:
        raise argparse.ArgumentTypeError(f"{steps} steps: a script takes at most {MAX_STEPS}")
    return text


# --- the table's web page -----------------------------------------------------------------


def web_address(text: str) -> tuple[str, int]:
    """An argparse type: ``HOST:PORT`` to serve the page on, HOST an IP address (IPv6 in
    brackets) or localhost, PORT 0 (a free one) to 65535."""
    import ipaddress

    expected = "expected HOST:PORT such as 127.0.0.1:8080 or 0.0.0.0:8080"
    host, colon, port = text.rpartition(":")
    if not colon or not host:
        raise argparse.ArgumentTypeError(f"{quoted(text)}: {expected}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{quoted(text)}: {quoted(host)} is not an IP address; {expected}"
            ) from None
    if not (port.isascii() and port.isdigit() and len(port) <= 5 and int(port) <= 65535):
        raise argparse.ArgumentTypeError(f"{quoted(text)}: the port must be 0 to 65535; {expected}")
    return (host, int(port))


def web_pin(text: str) -> str:
    """An argparse type: the PIN of the page's actions, 4 to 6 digits."""
    if not (text.isascii() and text.isdigit() and 4 <= len(text) <= 6):
        raise argparse.ArgumentTypeError(f"{quoted(text)}: expected 4 to 6 digits")
    return text


def add_web_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--web", type=web_address, metavar="HOST:PORT",
                   help="serve the table's page there while the box runs (port 0: a free"
                   " one); with --script, the script's waits pass in real time")
    p.add_argument("--pin", type=web_pin, metavar="PIN",
                   help="the PIN of the page's ROLL and New game (default: a random one)")


def web_config(config: Any, args: argparse.Namespace) -> Any:
    """``config`` with its [web] table as --web and --pin say: off without --web."""
    import dataclasses

    if args.pin is not None and args.web is None:
        raise UsageError("--pin: only with --web HOST:PORT")
    if args.web is None:
        web = dataclasses.replace(config.web, enabled=False)
    else:
        host, port = args.web
        web = dataclasses.replace(config.web, enabled=True, bind=host, port=port,
                                  pin=args.pin or config.web.pin)
    return dataclasses.replace(config, web=web)


# --- the commands --------------------------------------------------------------------------


def setup_run(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Run the dice box: the parts named in the config (--config, default"
        " /etc/pitable/pitable.toml), until stopped."
    )
    p.add_argument(
        "--state-dir", type=directory_path, metavar="DIR", help="where the games are kept"
    )
    add_lang_argument(p, box=True)
    p.set_defaults(run=run_box)


def setup_sim(p: argparse.ArgumentParser) -> None:
    p.description = (
        "The box on fakes of every part. Without --script: live in this"
        " terminal (space rolls, h holds, arrows turn the encoder, enter pushes, q quits)."
        " With --script: headless, e.g. --script press,press,hold,turn+1,push."
    )
    p.add_argument("--script", metavar="STEPS", type=script_text,
                   help="comma-separated: press, hold, push, turn+N, turn-N, waitMS,"
                   " print (wait for the printer), unplug:NAME, replug:NAME;"
                   f" at most {MAX_STEPS} steps, {MAX_RECORDED_STEPS} with --record")
    p.add_argument("--record", type=output_file(".gif"), metavar="FILE.gif",
                   help="write the faceplate as an animated GIF")
    p.add_argument("--png", type=output_file(".png"), metavar="FILE.png",
                   help="write the last frame of the faceplate")
    p.add_argument("--game", metavar="GAME",
                   help="the title of a new game (default: the last one's, else the"
                   " config's); a game in progress is resumed, and says so")
    p.add_argument("--solo", action="store_true",
                   help="a new game is solo; a game in progress is resumed, and says so")
    p.add_argument("--seed", type=whole_number(0, MAX_WHOLE), metavar="N",
                   help="roll reproducible dice from seed N instead of the hardware generator")
    p.add_argument("--state-dir", type=directory_path, metavar="DIR",
                   help="keep the games in DIR, as the box does (default: not kept)")
    p.add_argument("--scale", type=whole_number(1, 4), default=2,
                   help="pixels per OLED pixel in the pictures, 1 to 4 (2)")
    # The TV over HDMI, drawn on luma's dummy device.
    p.add_argument("--tv-png", type=output_file(".png"), metavar="FILE.png",
                   help="turn the TV on and write its last picture when the simulator ends"
                   " (its size: the config's [tv] width and height)")
    add_web_arguments(p)
    p.add_argument("--players", type=whole_number(1, MAX_PLAYERS), metavar="N",
                   help=f"seat N bot players (1 to {MAX_PLAYERS}) at the page, each playing"
                   " its own sheet through the players' API after every roll (with --web)")
    add_lang_argument(p, box=True)
    p.set_defaults(run=run_sim)


def _config(args: argparse.Namespace) -> Any:
    import dataclasses

    from pitable.box.config_title import load_checked

    config = load_checked(getattr(args, "config", None)).config
    lang = getattr(args, "lang", None)
    if lang is not None:
        config = dataclasses.replace(config, box=dataclasses.replace(config.box, language=lang))
    return config


def _store(state_dir: str | None, config: Any) -> Any:
    from pitable.box.store import SessionStore

    return SessionStore.open(state_dir or config.box.state_dir or None)


def _asked(args: argparse.Namespace) -> Any:
    """What the command line asks of the box: the first game's title and mode, the
    language."""
    from pitable.box.games import Asked
    from pitable.rules import find_title
    from pitable.rules.session import Mode

    game = getattr(args, "game", None)
    return Asked(title=find_title(game) if game else None,
                 mode=Mode.SOLO if getattr(args, "solo", False) else None,
                 language=getattr(args, "lang", None))


def not_applied(args: argparse.Namespace, box: Any) -> str | None:
    """One line saying which options the box could not apply because it resumed a game in
    progress (its title, mode and map are the game's); None when every one applied."""
    from pitable.rules import find_title
    from pitable.rules.session import Mode

    games = box.games
    resumed = games.resumed
    if resumed is None:
        return None
    state = resumed.state
    skipped = []
    if getattr(args, "game", None) and find_title(args.game) is not state.title:
        skipped.append(f"--game {args.game}")
    if getattr(args, "solo", False) and state.mode is not Mode.SOLO:
        skipped.append("--solo")
    if getattr(args, "seed", None) is not None and games.resumed_map_kept:
        skipped.append(f"--seed {args.seed} (for its map {resumed.map.tag}: the dice do"
                       " roll from it)")
    if not skipped:
        return None
    where = f" in {games.store.path.parent}" if hasattr(games.store, "path") else ""
    return (f"{', '.join(skipped)} not applied: game {resumed.store_id}{where}"
            f" ({state.title.name}, {state.mode}, round {state.rounds}) is resumed;"
            " to start another, hold ROLL and choose New game")


def run_box(args: argparse.Namespace) -> int:
    from pitable.box.assembly import build_box
    from pitable.box.service import Notifier
    from pitable.box.store import check_no_box, database_path

    config = _config(args)
    # Before the parts: a second box on the same state says so, not that its pins are busy.
    check_no_box(database_path(args.state_dir or config.box.state_dir or None))
    # The store is opened last, once every part has been found: a box that cannot start
    # leaves nothing behind in the state directory.
    built = build_box(config, store=lambda: _store(args.state_dir, config), web_optional=True,
                      asked=_asked(args))
    stop = built.box.stop
    signal.signal(signal.SIGTERM, lambda *_: stop())
    log.warning("pitable is running: %s", built.box.game.state.title.key)
    # Under systemd (Type=notify): started once the parts are up; the loop feeds the
    # watchdog on every turn, so a hung loop is restarted. Outside systemd, no-ops.
    systemd = Notifier()
    systemd.ready(f"rolling for {built.box.game.state.title.key}")
    try:
        built.box.run(heartbeat=systemd.heartbeat)
    except KeyboardInterrupt:
        pass
    finally:
        systemd.stopping()
        built.close()
    return 0


def run_sim(args: argparse.Namespace) -> int:
    import dataclasses

    from pitable.box.sim import parse_script
    from pitable.hw.entropy import SeededSource

    steps = parse_script(args.script) if args.script is not None else None
    if args.record and steps is not None and len(steps) > MAX_RECORDED_STEPS:
        raise UsageError(
            f"--record: a recorded script takes at most {MAX_RECORDED_STEPS} steps,"
            f" not {len(steps)}"
        )
    config = _config(args)
    asked = _asked(args)
    if args.tv_png:
        config = dataclasses.replace(config, tv=dataclasses.replace(config.tv, enabled=True))
    config = web_config(config, args)
    if args.players and args.web is None:
        raise UsageError("--players: only with --web HOST:PORT (the bots play through the page)")
    entropy = SeededSource(args.seed) if args.seed is not None else None
    # With --seed the maps, and so the sheets the menu prints, are reproducible too.
    seeds = None
    if args.seed is not None:
        import random

        from pitable.rules.sheets import MAX_SEED

        sheet_seeds = random.Random(args.seed)
        seeds = lambda: sheet_seeds.randint(0, MAX_SEED)  # noqa: E731
    with contextlib.ExitStack() as stack:
        if args.players and not args.state_dir:
            # The players' sheets need a store: one for this run only, as the games are.
            args.state_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="pitable-"))
        store = _store(args.state_dir, config) if args.state_dir else None
        return _simulate(args, config, steps=steps, entropy=entropy, seeds=seeds, store=store,
                         asked=asked)


def _simulate(args: argparse.Namespace, config: Any, *, steps: Any, entropy: Any, seeds: Any,
              store: Any, asked: Any) -> int:
    from pitable.box.printing import box_printer
    from pitable.box.sim import Simulator
    from pitable.box.terminal import live

    if steps is None:
        from pitable.hw.clock import MonotonicClock

        sim = Simulator(config, entropy=entropy, store=store, clock=MonotonicClock(),
                        scale=args.scale, map_seeds=seeds, asked=asked,
                        printer=box_printer(config.printer, simulated=True))
        if line := not_applied(args, sim.box):
            log.warning("%s", line)
        bots = _seat_bots(sim, args.players)
        try:
            live(sim)
            _save_tv(sim, args.tv_png)
        finally:
            if bots is not None:
                bots.stop()
            sim.close()
        return 0
    sim = Simulator(config, entropy=entropy, store=store, scale=args.scale, map_seeds=seeds,
                    printer=box_printer(config.printer, simulated=True),
                    real_waits=args.web is not None, asked=asked)
    if line := not_applied(args, sim.box):
        log.warning("%s", line)
    if args.record:
        sim.start_recording()
    bots = _seat_bots(sim, args.players)
    try:
        for step in steps:
            sim.do(step)
        sim.wait_for_prints()
        sim.advance(1.0)
        if args.record:
            sim.save_gif(args.record)
        if args.png:
            sim.faceplate().save(args.png)
        _save_tv(sim, args.tv_png)
        from pitable.rules.session import Mode

        state = sim.box.game.state
        title = state.title
        tr = sim.box.tr
        mode = tr.gettext("solo") if state.mode is Mode.SOLO else tr.gettext("table")
        print(tr.ngettext("{title}, {mode}: {count} roll, {hazards}",
                          "{title}, {mode}: {count} rolls, {hazards}", state.rounds).format(
            title=title.display_name(tr), mode=mode, count=state.rounds,
            hazards=title.hazard_count(state.hazards, tr)), file=sys.stdout)
    finally:
        if bots is not None:
            bots.stop()
        sim.close()
    if bots is not None:
        for bot in bots.bots:
            moves = len(bot.acknowledged)
            print(f"{bot.initials}: {moves} move{'s' if moves != 1 else ''}", file=sys.stdout)
    return 0


def _seat_bots(sim: Any, count: int | None) -> Any:
    """``count`` bot players at the simulator's page, playing each roll by themselves; None
    without players."""
    if not count:
        return None
    from pitable.box.table_bots import BotTable, seat_bots

    web = sim.built.web
    bots = seat_bots(web.host if web.host not in ("0.0.0.0", "::") else "127.0.0.1",
                     web.port, count)
    return BotTable(bots)


def _save_tv(sim: Any, path: str | None) -> None:
    if path:
        picture = sim.tv_picture()
        if picture is not None:
            picture.save(path)
