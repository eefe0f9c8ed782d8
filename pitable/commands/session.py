"""``pitable history`` and ``pitable level``: the saved games and the solo levels.

``history`` reads the box's session store read-only and never creates or changes a file: a
missing or empty store is "no saved games", and a damaged one is reported, not moved aside
(that is the box's job when it starts). ``level`` is pure rules.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pitable.commands.args import (
    MAX_WHOLE,
    add_lang_argument,
    chosen_language,
    directory_path,
    whole_number,
)
from pitable.errors import UnknownGame, UsageError
from pitable.rules import SPECIAL, all_titles, find_title
from pitable.rules.titles import title_choices

#: The most stars a score may be, either way: far beyond any sheet's.
MAX_STARS = 10_000
STARS_HELP = (
    "a whole number of stars, negative if snakes or dangers cost more than you won"
    f" ({-MAX_STARS:,} to {MAX_STARS:,})"
)

#: An argparse type: a score, negative allowed (a sheet can end below zero).
stars = whole_number(-MAX_STARS, MAX_STARS, what="a whole number of stars")


def most_hazards() -> int:
    """The most hazards any title's solo game can place: what ``--snakes`` may be before
    the title is known (the title's own bound is checked once it is)."""
    return max((t.max_hazards or 0) for t in all_titles())


def hazards_placed_help() -> str:
    """What ``--snakes`` counts, from the titles whose levels their hazards lower:
    ``hazards placed in the game, escaped ones included (toy: each spider lowers every
    level by 1 stars)``."""
    lowering = ", ".join(
        f"{t.key}: each {t.hazard_name} lowers every level by {t.discount_per_hazard} stars"
        for t in all_titles() if t.discount_per_hazard)
    return "hazards placed in the game, escaped ones included" + (
        f" ({lowering})" if lowering else "")


def setup_history(p: argparse.ArgumentParser) -> None:
    p.description = (
        "List the players and rolls of a game saved by the box: the game in progress, or the"
        " game ID."
    )
    p.add_argument(
        "--game",
        type=whole_number(1, MAX_WHOLE),
        metavar="ID",
        help="a game's id (default: current)",
    )
    p.add_argument("--json", action="store_true",
                   help="one JSON object a line: the game (its map, score and parts) and its"
                   " players with their scores, then each roll")
    p.add_argument("--sheet", metavar="INITIALS",
                   help="print the sheet a player of the game filled on their phone, as"
                   " `pitable score --sheet` reads it")
    p.add_argument(
        "--state-dir",
        type=directory_path,
        metavar="DIR",
        help="the box's state directory (default: $STATE_DIRECTORY, else"
        " $XDG_STATE_HOME/pitable or ~/.local/state/pitable)",
    )
    p.set_defaults(run=run_history)


def setup_level(p: argparse.ArgumentParser) -> None:
    p.description = (
        "The adventurer level a solo SCORE earns in GAME, and the stars that"
        " the next level takes."
    )
    p.add_argument("game", metavar="GAME", help=title_choices())
    p.add_argument("score", metavar="SCORE", type=stars, help=STARS_HELP)
    p.add_argument(
        "--snakes",
        type=whole_number(0, most_hazards()),
        default=None,
        metavar="N",
        help=hazards_placed_help(),
    )
    p.add_argument("--json", action="store_true", help="the answer as one JSON object")
    add_lang_argument(p)
    p.set_defaults(run=run_level)


def run_history(args: argparse.Namespace) -> int:
    # Imported here: the store pulls in sqlite3, which `pitable options` does not need.
    from pitable.box.phones import placing_json, stored_seats
    from pitable.box.players import PlayerBook
    from pitable.box.store import SessionStore

    with SessionStore.open_read_only(args.state_dir) as store:
        path = store.path
        if args.game is not None:
            game = store.game(args.game)
        else:
            current = store.current_game()
            if current is None:
                games = store.games()
                hint = f" (the last was game {games[-1].id}: use --game)" if games else ""
                raise UnknownGame(f"no game in progress in {path}{hint}")
            game = current
        records = store.rolls(game.id)
        limit = store.state(game.id).round_limit
        book = PlayerBook(store)
        players = book.players(game.id)
        ranking = book.ranking(game.id)
        deals = book.deals(game.id)
        # Their sheets, played again from their moves: a game saved before games had maps
        # has players but no sheets.
        seats = {seat.player.id: seat for seat in stored_seats(store, game, rolls=records)}

    if args.sheet is not None:
        wanted = args.sheet.strip().upper()
        seat = next((s for s in seats.values() if s.player.initials == wanted), None)
        if seat is None:
            known = ", ".join(s.player.initials for s in seats.values()) or "none"
            raise UsageError(f"--sheet {args.sheet}: no player of game {game.id} has these"
                             f" initials (its players: {known})")
        print(seat.sheet.text(), end="")
        return 0
    if args.json:
        listed = []
        for player in players:
            score = seats[player.id].sheet.score() if player.id in seats else None
            listed.append({**player.to_json(),
                           "score": score.total if score is not None else None,
                           "parts": [list(c) for c in score.components] if score else None})
        print(json.dumps({"game": game.to_json(), "players": listed,
                          "ranking": [placing_json(p) for p in ranking]}))
        for record in records:
            print(json.dumps(record.to_json()))
        return 0
    title = find_title(game.title)
    hazards = title.hazard_count(game.hazards)
    rounds = f"round {game.rounds}" + (f" of {limit}" if limit else "")
    started = game.started_at.astimezone().strftime("%Y-%m-%d %H:%M")
    end = ""
    if game.ended_at is not None:
        end = ", ended"
        if game.score is not None:
            end += f": {game.score} stars" + (f", {game.level}" if game.level else "")
    table_map = game.map
    on_map = f", map {table_map.tag}" if table_map is not None else ""
    print(f"game {game.id}: {title.name}, {game.mode}{on_map}, started {started}, {rounds},"
          f" {hazards}{end}")
    if table_map is not None:
        print(f"  the sheet: pitable sheet {title.key} --seed {table_map.seed}"
              f" --side {table_map.side.value}")
    if game.parts is not None:
        parts = ", ".join(f"{name} {stars}" for name, stars in game.parts)
        print(f"  score by parts: {parts}; total {game.score}")
    if players:
        names = ", ".join(
            p.initials + (" (bot)" if p.bot else "")
            + (f" {seats[p.id].sheet.score().total}" if p.id in seats else "")
            for p in players)
        print(f"  players: {names}")
    if ranking:
        tie = title.tie_break_name
        print("  ranking: " + ", ".join(
            f"{p.place}{'=' if p.shared else '.'} {p.initials} {p.total}"
            + (f" ({tie.lower()} {p.tie})" if tie and p.tie is not None else "")
            + (" (bot)" if p.bot else "") + (" (paper)" if p.paper else "")
            for p in ranking))
    initials = {p.id: p.initials for p in players}
    drawn: dict[int, list[str]] = {}
    for deal in deals:
        where = (f" {deal.cell[0]},{deal.cell[1]}" if deal.cell is not None else " not drawn")
        drawn.setdefault(deal.round, []).append(
            f"{initials.get(deal.placer_id, '?')} on {initials.get(deal.owner_id, '?')}'s"
            f"{where}{' (by the box)' if deal.by_box else ''}")
    if not records:
        print("no rolls yet")
    for record in records:
        note = ""
        if record.hazard:
            note = f"  {title.hazard_name} ({record.hazards_after})"
        elif record.roll.red is SPECIAL:
            note = f"  {title.hazard_name} ignored ({record.hazards_after} marked)"
        at = record.at.astimezone().strftime("%H:%M:%S")
        print(f"{record.n:>4}  {at}  {record.roll}  {record.source}{note}")
        if record.n in drawn:
            print("        " + "; ".join(drawn[record.n]))
    return 0


def run_level(args: argparse.Namespace) -> int:
    from pitable.rules.session import LEVELS, level

    title = find_title(args.game)
    # Other titles' levels do not depend on their hazards: 0 changes nothing, more is a
    # mistake.
    if args.snakes and title.discount_per_hazard == 0:
        lowering = [t.name for t in all_titles() if t.discount_per_hazard]
        raise UsageError(
            f"--snakes: only {' and '.join(lowering)}"
            f" {'lowers its' if len(lowering) == 1 else 'lower their'} levels by snakes,"
            f" not {title.name}"
        )
    snakes = args.snakes or 0
    if title.max_hazards is not None and snakes > title.max_hazards:
        raise UsageError(
            f"--snakes {snakes}: a solo game of {title.name} places at most"
            f" {title.hazard_count(title.max_hazards)}"
        )
    result = level(title, args.score, snakes)
    if args.json:
        data: dict[str, Any] = result.to_json()
        if title.discount_per_hazard:
            data["snakes"] = data.pop("hazards")
        else:
            del data["hazards"]
        print(json.dumps(data))
        return 0
    from pitable.i18n import translator

    tr = translator(chosen_language(args))
    _ = tr.gettext
    with_snakes = (" " + tr.ngettext("with {count} snake", "with {count} snakes", snakes)
                   .format(count=snakes) if snakes else "")
    if result.next_level is None:
        answer = _("{level}, the highest level").format(level=_(result.name))
    else:
        answer = _("{level}; {count} more for {next}").format(
            level=_(result.name), count=result.stars_needed, next=_(result.next_level))
    stars = tr.ngettext("{count} star", "{count} stars", args.score).format(count=args.score)
    print(f"{title.display_name(tr)}, {stars}{with_snakes}: {answer}")
    bounds = ", ".join(
        _("{level} {stars}+").format(level=_(name), stars=low)
        for name, low in zip(LEVELS[1:], result.thresholds, strict=True)
    )
    print(_("levels{snakes}: {lowest} below {stars}, {bounds}").format(
        snakes=with_snakes, lowest=_(LEVELS[0]), stars=result.thresholds[0], bounds=bounds))
    return 0
