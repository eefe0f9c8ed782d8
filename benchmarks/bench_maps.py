"""Are the maps fair? The bot's mean score on each of many maps, per title and side.

    python -m benchmarks.bench_maps [--maps 200] [--games 12] [--recheck 4]
                                     [--recheck-games 150] [--jobs 1] [--titles valley,...]

Every map of seeds 0 to ``--maps - 1`` on each side plays ``--games`` games, on the same
dice seeds for every map (so that maps differ by their shape, not their luck); each map's
mean is printed. A mean of a dozen games still carries luck, and the best and worst of 200
such means are mostly the luckiest and unluckiest: so the ``--recheck`` highest and lowest
maps of each side are played again, ``--recheck-games`` games each on fresh dice, and the
spread is the best of those means over the worst. The check fails (exit 1) when the best
map's mean is more than 20% above the worst's, for any title and side. The figures say
which maps those are, and how many stars each of their components gave.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

from pitable.rules import all_titles, find_title
from pitable.rules.bot import game_rng, play
from pitable.rules.sheets import Side, generate
from pitable.rules.titles import island, temple

#: The best map's mean may be at most this much above the worst's.
LIMIT = 1.20
#: Dice seeds of the recheck: apart from the first pass's.
RECHECK_DICE = 1_000


def map_games(key: str, side: str, seed: int, games: int, dice: int
              ) -> tuple[int, list[int], dict[str, float]]:
    """The totals of ``games`` games on one map, and the mean of each score component."""
    sheet = generate(find_title(key), seed, side)
    totals = []
    parts: dict[str, list[int]] = defaultdict(list)
    for n in range(games):
        # The greedy player: a dozen games on each of 400 maps a title, in minutes.
        game = play(sheet, game_rng(dice, n), "greedy")
        totals.append(game.total)
        for name, stars in game.components:
            parts[name].append(stars)
    return seed, totals, {name: statistics.fmean(v) for name, v in parts.items()}


def features(key: str, side: str, seed: int) -> str:
    """A map's facts in a few words: its spaces, and what its title adds."""
    sheet = generate(find_title(key), seed, side)
    words = [f"{sheet.fillable_count} spaces", f"{len(sheet.starts)} starts"]
    for kind in (temple.DOOR, island.MOUNTAIN):
        count = len(sheet.cells(kind))
        if count:
            words.append(f"{count} {kind.name.lower()}")
    return ", ".join(words)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maps", type=int, default=200)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--recheck", type=int, default=4)
    parser.add_argument("--recheck-games", type=int, default=150)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--titles", default=",".join(t.key for t in all_titles()))
    args = parser.parse_args()
    unfair = False
    summary = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for key in args.titles.split(","):
            for side in Side:
                jobs = [pool.submit(map_games, key, side.value, seed, args.games, 0)
                        for seed in range(args.maps)]
                means = {}
                spreads = []
                for job in jobs:
                    seed, totals, _ = job.result()
                    means[seed] = statistics.fmean(totals)
                    spreads.append(statistics.pstdev(totals))
                print(f"{key} side {side.value.upper()}: each map's mean of {args.games} games")
                for start in range(0, args.maps, 10):
                    row = [f"{s:>3}:{means[s]:5.1f}" for s in range(start, min(start + 10,
                                                                              args.maps))]
                    print("  " + "  ".join(row))
                ranked = sorted(means, key=means.__getitem__)
                chosen = ranked[: args.recheck] + ranked[-args.recheck:]
                rechecks = [pool.submit(map_games, key, side.value, seed, args.recheck_games,
                                        RECHECK_DICE) for seed in chosen]
                again = {}
                for job in rechecks:
                    seed, totals, parts = job.result()
                    again[seed] = (statistics.fmean(totals), statistics.pstdev(totals), parts)
                best = max(again, key=lambda s: again[s][0])
                worst = min(again, key=lambda s: again[s][0])
                ratio = again[best][0] / again[worst][0] if again[worst][0] > 0 else float("inf")
                error = statistics.fmean(spreads) / args.games**0.5
                print(f"  first pass: mean of means {statistics.fmean(means.values()):.1f},"
                      f" lowest {means[ranked[0]]:.1f}, highest {means[ranked[-1]]:.1f},"
                      f" luck of one map's mean about +-{error:.1f}")
                for seed in sorted(again, key=lambda s: again[s][0]):
                    mean, spread, parts = again[seed]
                    shares = ", ".join(f"{n} {v:.1f}" for n, v in parts.items())
                    print(f"  recheck map {seed:>3}: mean {mean:5.1f} (+-"
                          f"{spread / args.recheck_games**0.5:.1f}) {shares};"
                          f" {features(key, side.value, seed)}")
                verdict = "ok" if ratio <= LIMIT else "UNFAIR"
                print(f"  best map {best} {again[best][0]:.1f} / worst map {worst}"
                      f" {again[worst][0]:.1f} = {ratio:.2f} (limit {LIMIT:.2f}): {verdict}")
                summary.append(f"{key} {side.value.upper()}: {ratio:.2f} {verdict}")
                unfair = unfair or ratio > LIMIT
    print("spread, best map's mean over worst's: " + "; ".join(summary))
    return 1 if unfair else 0


if __name__ == "__main__":
    raise SystemExit(main())
