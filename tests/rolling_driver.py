"""A box that rolls in a loop, for the kill test: ``python tests/rolling_driver.py STATE_DIR``.

This is the whole box on its fakes (the simulator, with the session store in STATE_DIR):
each roll is a press of the ROLL button's mock pin, which the controller turns into a roll,
saves, and draws on the fake panels. Only once the faces are on the panels does the driver
print ``shown <roll id> <faces>`` and flush, so every line printed is a promise that the
roll is on disk, and the test kills this process at random moments to check the promise.

Games follow one another through the menu, as a player would go: a solo Valley game until
the rules end it after 25 rounds, then solo Island and Temple games that the driver ends
after 30 rolls (their rulebooks end them on sheet events); each is ended from the menu with
a score entered on the encoder, printed as ``ended <game id>``. It lives in tests/ so that
the package ships no test code.
"""

from __future__ import annotations

import dataclasses
import random
import sys

from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.config import DEFAULTS
from pitable.hw.entropy import OsSource
from pitable.render.faces import die_panel
from pitable.rules import SPECIAL, Die, all_titles

ROLLS_PER_GAME = 30


def shown_faces(sim: Simulator) -> str:
    """The faces the three panels show, read back from the fake panels' display RAM."""
    title = sim.box.game.state.title
    faces = []
    for die in Die:
        panel = sim.panel(str(die))
        for face in (1, 2, 3, 4, 5, SPECIAL):
            candidate = die_panel(face, die, title)
            if panel.convert("1").tobytes() == candidate.convert("1").tobytes():
                faces.append(str(face))
                break
        else:
            raise SystemExit(f"the {die} panel shows no face")
    return ",".join(faces)


def end_with_score(sim: Simulator, score: int) -> None:
    """Hold for the menu, choose "End game: score", turn the score in, push."""
    sim.hold()
    sim.turn(+1)  # New game, End game: score, Back
    sim.push()
    sim.turn(+1)  # By parts, Total, Back
    sim.push()
    sim.turn(score)
    sim.push()


def next_title(sim: Simulator) -> None:
    """Hold for the menu, New game, and the next title's solo game."""
    titles = all_titles()
    current = titles.index(sim.box.game.state.title)
    following = (current + 1) % len(titles)
    sim.hold()
    sim.push()  # New game: its list starts on the current title and mode
    sim.turn(2 * following + 1 - (2 * current + 1))
    sim.push()


def main(argv: list[str]) -> int:
    store = SessionStore.open(argv[1])
    if store.recovered:
        # The kill test fails on this line: a killed store must reopen as it was.
        print(f"recovered {store.recovered}", flush=True)
    limit = int(argv[2]) if len(argv) > 2 else 1_000_000
    box = dataclasses.replace(DEFAULTS.box, title="valley", mode="solo")
    sim = Simulator(dataclasses.replace(DEFAULTS, box=box), entropy=OsSource(), store=store)
    state = sim.box.game.state
    print(f"ready {sim.box.game.store_id} {state.rounds}", flush=True)
    for _ in range(limit):
        game = sim.box.game
        if game.state.over or game.state.rounds >= ROLLS_PER_GAME:
            end_with_score(sim, random.randint(0, 150))
            print(f"ended {game.store_id}", flush=True)
            next_title(sim)
            continue
        sim.press()
        game_id = sim.box.game.store_id
        assert game_id is not None
        record = store.last_roll(game_id)
        assert record is not None and record.n == sim.box.game.state.rounds
        print(f"shown {record.id} {shown_faces(sim)}", flush=True)
    sim.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
