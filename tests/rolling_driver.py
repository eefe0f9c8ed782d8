"""A box that only rolls, for the kill test: ``python tests/rolling_driver.py STATE_DIR``.

Each roll is drawn from the OS generator, folded into the game by the rules and recorded
in the store; only then does the driver print ``shown <roll id> <faces>`` and flush, which
stands in for the dice screens finishing the faces. Every line printed is therefore a
promise that the roll is on disk, and the test kills this process at random moments to
check the promise. Games follow one another: a solo Valley game until the rules end it
after 25 rounds, then solo Island and Temple games that the driver ends after 30 rolls
(their rulebooks end them on sheet events), each ended with a score, printed as
``ended <game id>``. It lives in tests/ so that the package ships no test code.
"""

from __future__ import annotations

import itertools
import random
import sys

from pitable.box.store import SessionStore
from pitable.hw.entropy import OsSource
from pitable.rules import draw_roll

TITLES = ("valley", "island", "temple")
ROLLS_PER_GAME = 30


def main(argv: list[str]) -> int:
    store = SessionStore.open(argv[1])
    if store.recovered:
        # The kill test fails on this line: a killed store must reopen as it was.
        print(f"recovered {store.recovered}", flush=True)
    limit = int(argv[2]) if len(argv) > 2 else 1_000_000
    source = OsSource()
    game = store.current_game() or store.new_game("valley", "solo")
    state = store.state(game.id)
    print(f"ready {game.id} {state.rounds}", flush=True)
    for _ in itertools.repeat(None, limit):
        if state.over or state.rounds >= ROLLS_PER_GAME:
            store.end_game(game.id, random.randint(-10, 150))
            print(f"ended {game.id}", flush=True)
            title = TITLES[(TITLES.index(game.title) + 1) % len(TITLES)]
            game = store.new_game(title, "solo")
            state = store.state(game.id)
        roll, _ = draw_roll(source)
        turn = state.play(roll)
        record = store.record_roll(game.id, roll, source.name, turn.hazard, turn.state.hazards)
        state = turn.state
        print(f"shown {record.id} {roll}", flush=True)
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
