"""How well and how fast the bot plays: the greedy player against the planning one, per title.

    python -m benchmarks.bench_bot [--games 40] [--dice-seed 7] [--strength plan]
                                   [--titles valley,...]
    python -m benchmarks.bench_bot --games 200      # the figures the goals are set on

Game ``n`` of each title is played on a fresh map (seed ``n``, sides A and B in turn) and on
the dice of ``game_rng(dice_seed, n)``, once by the greedy player (the baseline) and once at
``--strength``: the same maps and the same dice. For each player and title it prints games a
second of CPU, the mean, spread (standard deviation) and levels reached; for the planner the
CPU time of a turn too, median and worst. CPU time, not wall time: the figures hold on a busy
machine.

Exits 0 only when, in every title, the planner scores more than the greedy player by at least
two standard errors of their paired differences and no turn of the planner takes more than
100 ms: what the bot promises whatever the maps. Two goals of the maps' sizing are measured
and printed beside that verdict, met or not, without gating it: in the Valley and on the
Island the planner's mean at least the least score of a Pathfinder (in the Valley, 90 less 4
a snake of each game), and its median level the same in every title played. The Valley's
falls short under the 100 ms bound (docs/rules.md gives the figures and the maps tried), a
known shortfall of the planner's strength, not a change of the product for a run to catch.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from pitable.errors import UnknownTitle
from pitable.rules import all_titles, find_title
from pitable.rules.base import Title
from pitable.rules.bot import DEFAULT_STRENGTH, STRENGTHS, Game, game_rng, play
from pitable.rules.session import LEVELS, level, thresholds
from pitable.rules.sheets import Side, generate

#: The most CPU time one turn of the planner may take.
TURN_LIMIT = 0.100
#: The level whose least score the planner's mean must reach, in the titles that have a goal.
GOALS = {"valley": "Pathfinder", "island": "Pathfinder"}
#: Standard errors of the paired differences by which the planner must beat the greedy player.
CLEARLY = 2.0


def games_of(title: Title, games: int, dice_seed: int, strength: str
             ) -> tuple[list[Game], float, list[float]]:
    """``games`` games of ``title`` at ``strength`` on fresh maps, the CPU time they took and
    the CPU time of each turn."""
    played = []
    turns: list[float] = []
    start = time.process_time()
    for n in range(games):
        sheet = generate(title, n, Side.A if n % 2 == 0 else Side.B)
        played.append(play(sheet, game_rng(dice_seed, n), strength, turn_times=turns))
    return played, time.process_time() - start, turns


def median_level(games: list[Game]) -> str:
    """The level of the median game (the lower median: a level most games reach)."""
    ranks = sorted(LEVELS.index(level(g.title, g.total, g.hazards).name) for g in games)
    return LEVELS[statistics.median_low(ranks)]


def line(name: str, games: list[Game], took: float) -> str:
    totals = [g.total for g in games]
    reached = Counter(level(g.title, g.total, g.hazards).name for g in games)
    levels = " ".join(f"{reached.get(name, 0):>4}" for name in LEVELS)
    return (f"  {name:<8} {len(games) / took:>8.1f} {statistics.fmean(totals):>6.1f}"
            f" {statistics.pstdev(totals):>6.1f} {levels}  {median_level(games)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games a title (40)")
    parser.add_argument("--dice-seed", type=int, default=7)
    parser.add_argument("--titles", default=",".join(t.key for t in all_titles()),
                        help="the titles, by key, comma-separated (all)")
    parser.add_argument("--strength", default=DEFAULT_STRENGTH,
                        choices=[s for s in STRENGTHS if s != "greedy"])
    args = parser.parse_args()
    if args.games < 2:
        parser.error("--games: at least 2, for a spread")
    try:
        titles = [find_title(key) for key in args.titles.split(",")]
    except UnknownTitle as exc:
        parser.error(f"--titles: {exc}")
    good = True
    medians: dict[str, str] = {}
    heads = " ".join(f"{name[:4]:>4}" for name in LEVELS)
    print(f"{args.games} games a title on fresh maps (seeds 0 to {args.games - 1}, sides A"
          f" and B in turn), dice seed {args.dice_seed}")
    for title in titles:
        greedy, greedy_took, _ = games_of(title, args.games, args.dice_seed, "greedy")
        planned, planned_took, turns = games_of(title, args.games, args.dice_seed,
                                                args.strength)
        print(f"{title.key}:\n  {'player':<8} {'games/s':>8} {'mean':>6} {'spread':>6} {heads}"
              "  median level")
        print(line("greedy", greedy, greedy_took))
        print(line(args.strength, planned, planned_took))
        median, worst = statistics.median(turns), max(turns)
        print(f"  {args.strength} turn: median {1000 * median:.1f} ms, worst"
              f" {1000 * worst:.1f} ms (limit {1000 * TURN_LIMIT:.0f})")
        gains = [p.total - g.total for p, g in zip(planned, greedy, strict=True)]
        gain = statistics.fmean(gains)
        error = statistics.stdev(gains) / len(gains) ** 0.5
        clearly = gain > 0 and gain >= CLEARLY * error
        print(f"  gain over greedy: {gain:+.1f} stars (standard error {error:.1f}):"
              f" {'clearly more' if clearly else 'NOT clearly more'}")
        held = clearly and worst <= TURN_LIMIT
        goal = GOALS.get(title.key)
        if goal is not None:
            rank = LEVELS.index(goal) - 1
            least = statistics.fmean(thresholds(title, g.hazards)[rank] for g in planned)
            mean = statistics.fmean(g.total for g in planned)
            reached = mean >= least
            print(f"  goal: mean {mean:.1f} at least {goal}'s {least:.1f}:"
                  f" {'met' if reached else 'NOT met'}")
        good = good and held
        medians[title.key] = median_level(planned)
    same = len(set(medians.values())) == 1
    print("median level of the planner: "
          + ", ".join(f"{key} {name}" for key, name in medians.items())
          + (": the same in every title" if same else ": NOT the same in every title"))
    print("target: the planner clearly above the greedy player in every title, its turns"
          f" within {1000 * TURN_LIMIT:.0f} ms: {'met' if good else 'NOT met'}")
    print("goals of the maps (printed, not gated): the planner's mean a Pathfinder's in "
          + " and ".join(GOALS) + ", its median level the same in every title")
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
