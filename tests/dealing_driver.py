"""A table dealing hazards in a loop, for the table's kill test:
``python tests/dealing_driver.py STATE_DIR``.

Four players on phones sit at a Temple table game (a new one when none is in progress). The
box rolls through the store, every other roll a hazard, which deals the phones' sheets with
the roll; each player draws the hazard they were dealt on a random space the sheet allows,
through :class:`~pitable.box.phones.PhoneTable` as the page does, or leaves it for the box
to draw when the next roll closes the turn. Each line is printed and flushed only once the
call has returned, so it is a promise that what it says is on disk:

- ``rolled <game> <round> <hazard>``: the roll, with its deal when a hazard;
- ``placed <game> <round> <placer> <owner> <row> <col>``: a player's hazard drawn.

After ROUNDS_PER_GAME rolls the game is ended (the box draws what is left) and another
starts (``game <id>``). It lives in tests/ so that the package ships no test code.
"""

from __future__ import annotations

import random
import sys

from pitable.box.phones import PhoneTable
from pitable.box.players import PlayerBook
from pitable.box.store import SessionStore
from pitable.box.table_map import TableMap
from pitable.errors import IllegalMove
from pitable.rules import Roll, find_title
from pitable.rules.base import ENGLISH
from pitable.rules.sheets import Side
from pitable.rules.table import deal

SEATS = ("ANN", "BO", "CY", "DEE")
ROUNDS_PER_GAME = 12
TITLE = find_title("temple")


def say(line: str) -> None:
    print(line, flush=True)


class Entropy:
    """The deal's bytes: the operating system's, as a box without its generator has."""

    def __init__(self) -> None:
        self.random = random.SystemRandom()

    def read(self, n: int) -> bytes:
        return self.random.randbytes(n)


def seat(store: SessionStore, game_id: int) -> dict[str, str]:
    """Each seat's token, its player joined to ``game_id`` (the same player again after a
    restart: the token names it)."""
    book = PlayerBook(store)
    tokens = {}
    for k, initials in enumerate(SEATS):
        token = f"seat-{game_id}-{k}"
        book.join(game_id, initials, token)
        tokens[initials] = token
    return tokens


def main(argv: list[str]) -> int:
    store = SessionStore.open(argv[1])
    if store.recovered:
        say(f"recovered {store.recovered}")
    rng = random.Random()
    entropy = Entropy()
    game = store.current_game() or store.new_game(TITLE, "table",
                                                  TableMap(TITLE, Side.A, rng.randrange(9999)))
    say(f"game {game.id}")
    tokens = seat(store, game.id)
    phones = PhoneTable(store)
    while True:
        state = store.state(game.id)
        if state.rounds >= ROUNDS_PER_GAME:
            store.end_game(game.id)
            phones.sync()
            game = store.new_game(TITLE, "table", TableMap(TITLE, Side.A, rng.randrange(9999)))
            say(f"game {game.id}")
            tokens = seat(store, game.id)
            continue
        hazard = state.rounds % 2 == 1
        roll = Roll.from_str("2,3,*" if hazard else f"{rng.randint(1, 5)},2,4")
        turn = state.play(roll)
        store.record_roll(game.id, roll, "kill", turn.hazard, turn.state.hazards,
                          deal=lambda ids: deal(ids, entropy))
        say(f"rolled {game.id} {turn.round} {int(turn.hazard)}")
        phones.sync()
        if not turn.hazard:
            continue
        for initials in rng.sample(SEATS, k=rng.randint(0, len(SEATS))):
            view = phones.view(phones.seat(tokens[initials]), ENGLISH)
            dealt = view["deal"]
            if dealt is None or not dealt["spaces"] or dealt["placed"] is not None:
                continue
            r, c = rng.choice(dealt["spaces"])
            try:
                phones.place(tokens[initials], {"cells": [[r, c]], "round": turn.round})
            except IllegalMove as exc:
                say(f"refused {initials} {exc.rule}")
                continue
            say(f"placed {game.id} {turn.round} {initials} {dealt['owner']} {r} {c}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
