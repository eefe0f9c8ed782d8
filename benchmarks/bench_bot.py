"""How fast the bot plays: full solo games a second of CPU, per title, against the rules alone.

    python -m benchmarks.bench_bot [--games 100] [--seed 1]

Each title plays ``--games`` games on one map with the same dice seeds. The baseline is the
same games' rolls through ``Title.options`` alone (what a roll allows, as the box asks it),
so the rest is the bot's own thinking. CPU time, not wall time: the figures hold on a busy
machine. Exits 1 when a title plays fewer than 20 games a second.
"""

from __future__ import annotations

import argparse
import statistics
import time

from pitable.rules import all_titles
from pitable.rules.bot import play_games
from pitable.rules.sheets import generate

#: Games a second each title must reach.
TARGET = 20.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1, help="the map")
    args = parser.parse_args()
    slow = False
    print(f"{'title':<8} {'games/s':>8} {'ms/game':>8} {'turns':>6} {'rules ms':>9}"
          f" {'mean':>6}")
    for title in all_titles():
        sheet = generate(title, args.seed)
        start = time.process_time()
        games = play_games(sheet, args.games)
        took = time.process_time() - start
        start = time.process_time()
        for game in games:
            hazards = 0
            for turn in game.turns:
                hazards += title.options(turn.roll, hazards).hazard
        rules = time.process_time() - start
        rate = args.games / took
        turns = statistics.fmean(len(g.turns) for g in games)
        mean = statistics.fmean(g.total for g in games)
        print(f"{title.key:<8} {rate:>8.1f} {1000 * took / args.games:>8.2f} {turns:>6.1f}"
              f" {1000 * rules / args.games:>9.3f} {mean:>6.1f}")
        slow = slow or rate < TARGET
    print(f"target: at least {TARGET:g} games a second per title;"
          " rules ms: the same rolls through Title.options alone")
    return 1 if slow else 0


if __name__ == "__main__":
    raise SystemExit(main())
