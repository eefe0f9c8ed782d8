"""Five phones playing in a loop, for the players' kill test:
``python tests/moving_driver.py STATE_DIR``.

Five players join the table game in progress (a new one when there is none) and make moves
at random through the store's :class:`PlayerBook`, as the box does for their phones: a move
(printed ``moved <player> <round> <seq> <act> <cells> <value>``), the last move of the
round taken back (``taking <player> <round>`` before, ``took <player> <round> <seq>``
after, 0 when there was none), or the round finished (``done <player> <round>``). Each
line but ``taking`` is printed and flushed only once the call has returned, so it is a
promise that what it says is on disk; the test kills this process at random moments to
check the promise. After ROUNDS_PER_GAME rounds of every player the game is ended and
another starts (``game <id>``, then ``joined <player> <game>`` for each player). It lives
in tests/ so that the package ships no test code.
"""

from __future__ import annotations

import json
import random
import sys

from pitable.box.players import PlayerBook
from pitable.box.store import SessionStore

SEATS = ("ANN", "BO", "CY", "DEE", "ED")
ROUNDS_PER_GAME = 8


def say(line: str) -> None:
    print(line, flush=True)


def seat_players(book: PlayerBook, game_id: int) -> dict[int, int]:
    """Each seat's player joined to ``game_id`` (again, after a restart: the same player),
    and the round each of them plays now."""
    rounds = {}
    for k, initials in enumerate(SEATS):
        player = book.join(game_id, initials, f"seat-{game_id}-{k}")
        say(f"joined {player.id} {game_id}")
        rounds[player.id] = max(book.done_rounds(player.id), default=0) + 1
    return rounds


def main(argv: list[str]) -> int:
    store = SessionStore.open(argv[1])
    if store.recovered:
        # The kill test fails on this line: a killed store must reopen as it was.
        say(f"recovered {store.recovered}")
    book = PlayerBook(store)
    rng = random.Random()
    game = store.current_game() or store.new_game("valley", "table")
    say(f"game {game.id}")
    rounds = seat_players(book, game.id)
    while True:
        if min(rounds.values()) > ROUNDS_PER_GAME:
            store.end_game(game.id)
            game = store.new_game("valley", "table")
            say(f"game {game.id}")
            rounds = seat_players(book, game.id)
        player = rng.choice(sorted(rounds))
        rnd = rounds[player]
        pick = rng.random()
        if pick < 0.65:
            cells = [(rng.randrange(10), rng.randrange(12)) for _ in range(rng.randint(0, 3))]
            value = rng.choice([rng.randint(1, 6), rng.choice(["a", "xyz", "é"]), None])
            act = rng.choice(["write", "cross", "word"])
            move = book.add_move(player, rnd, act, cells, value)
            say(
                f"moved {player} {rnd} {move.seq} {act}"
                f" {json.dumps(cells, separators=(',', ':'))} {json.dumps(value)}"
            )
        elif pick < 0.8:
            say(f"taking {player} {rnd}")
            taken = book.take_back(player, rnd)
            say(f"took {player} {rnd} {taken.seq if taken else 0}")
        else:
            book.finish_turn(player, rnd)
            say(f"done {player} {rnd}")
            rounds[player] += 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
