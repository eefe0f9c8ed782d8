"""A box whose page seats phones, for the phones' kill test:
``python tests/phone_box_driver.py STATE_DIR``.

The simulated box (a table game of the Valley) keeps its games in STATE_DIR and serves its
page, with the players' routes, on 127.0.0.1; it prints ``port <n>`` once the page is up,
then rolls every 0.4 s. After ROUNDS_PER_GAME rolls it starts a new game, as a table
would. The test kills it at random
moments while phones post their moves. It lives in tests/ so that the package ships no test
code.
"""

from __future__ import annotations

import dataclasses
import sys
import time

from pitable.box.phones import PhoneTable
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.config import DEFAULTS
from pitable.rules.session import Mode
from pitable.web.commands import NewGameCommand
from pitable.web.server import WebServer

PIN = "2468"
ROUNDS_PER_GAME = 30
#: Seconds between rolls: time for a phone to fetch its sheet and make a move or two.
ROLL_EVERY_S = 0.4


def main(directory: str) -> None:
    store = SessionStore.open(directory)
    box = dataclasses.replace(DEFAULTS.box, title="valley", mode="table", tumble_ms=0)
    sim = Simulator(dataclasses.replace(DEFAULTS, box=box), store=store)
    phones = PhoneTable(store)
    server = WebServer("127.0.0.1", 0, PIN, sim.box.post, phones=phones)
    server.start()
    print(f"port {server.port}", flush=True)
    while True:
        time.sleep(ROLL_EVERY_S)
        # The box's loop never waits for the phones' sheets: only the store tells it.
        if sim.box.game.state.rounds >= ROUNDS_PER_GAME:
            sim.box.post(NewGameCommand("valley", Mode.TABLE))
            sim.settle()
        sim.press()


if __name__ == "__main__":
    main(sys.argv[1])
