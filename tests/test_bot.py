"""The bot: full solo games on any map whose sheets score as the bot counted them, moves that
a separate validator finds legal, reproducible dice, and ``pitable bot`` as a user runs it.

The games run in every title the bot plays (the toy title of tests/ with a bot among them);
a game's sheet is scored in a title that says how its sheets score."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from pitable.commands import bot as bot_command
from pitable.errors import BadStrength, UnknownTitle
from pitable.rules.bot import (
    DEFAULT_STRENGTH,
    ROLLS,
    STRENGTHS,
    TARGET_STRENGTH,
    Act,
    game_rng,
    play,
    play_games,
    player_for,
    summarise,
    target,
)
from pitable.rules.scoring import parse_sheet
from pitable.rules.session import level
from pitable.rules.sheets import Sheet, generate
from pitable.rules.titles import Title, find_title, registered
from pitable.rules.titles.island.moves import TREASURE
from pitable.rules.titles.valley.moves import DISCOVER
from pitable.rules.validate import breaches
from tests.conftest import run_cli as run
from tests.support.titles import scores, title_params
from tests.toy_title import ToyCupboard

#: The titles the bot plays and the replay validator checks.
GAMES = title_params(lambda t: t.bot() is not None and t.replay_rules() is not None)
#: Those whose finished sheets ``pitable score`` scores too.
SCORED_GAMES = title_params(lambda t: t.bot() is not None and scores(t))


def replayed(title: Title, games: int, maps: range, strength: str = "greedy") -> None:
    """Every game on each map of ``maps`` (both sides): no move or mark breaks a rule, and its
    sheet, read as ``pitable score`` reads it, scores to the bot's own total (in a title
    that says how its sheets score)."""
    for seed in maps:
        for side in "ab":
            sheet = generate(title, seed, side)
            for n, played in enumerate(play_games(sheet, games, seed, strength)):
                finished = parse_sheet(played.sheet_text())
                where = f"{title.key} map {seed}{side} game {n}"
                assert breaches(sheet, played.turns, finished) == [], where
                if not scores(title):
                    continue
                scored = title.score(finished)
                assert scored.total == played.total, where
                assert dict(scored.components) == dict(played.components), where
                assert scored.hazards == played.hazards, where


@pytest.mark.parametrize("title", GAMES, indirect=True)
def test_ten_games_replay_to_the_bots_totals_and_break_no_rule(title: Title) -> None:
    replayed(title, 5, range(1))


@pytest.mark.parametrize("title", GAMES, indirect=True)
def test_the_planners_games_replay_to_its_totals_and_break_no_rule(title: Title) -> None:
    replayed(title, 1, range(2, 3), DEFAULT_STRENGTH)


@pytest.mark.slow
@pytest.mark.parametrize("title", GAMES, indirect=True)
def test_a_hundred_games_a_title_replay_to_the_bots_totals_and_break_no_rule(
    title: Title,
) -> None:
    replayed(title, 10, range(5))


@pytest.mark.slow
@pytest.mark.parametrize("title", GAMES, indirect=True)
@pytest.mark.parametrize("strength", [s for s in STRENGTHS if s != "greedy"])
def test_the_planners_games_on_many_maps_replay_and_break_no_rule(title: Title,
                                                                  strength: str) -> None:
    replayed(title, 1, range(3, 4), strength)


@pytest.mark.parametrize("title", GAMES, indirect=True)
def test_the_same_dice_seed_plays_the_same_game_and_another_one_another(title: Title) -> None:
    sheet = generate(title, 11)
    first = play(sheet, game_rng(3, 0))
    again = play(sheet, game_rng(3, 0))
    other = play(sheet, game_rng(4, 0), "greedy")
    assert first == again
    assert [t.roll for t in first.turns] != [t.roll for t in other.turns]


def ranks_choices(title: Title, sheet: Sheet) -> bool:
    """Whether ``title``'s player ranks more than one way to use a roll, on one of its
    first turns on ``sheet``: what the planner weighs."""
    player = player_for(title, sheet)
    rng = game_rng(7, 0)
    for round_ in range(1, 6):
        player.turn(title.options(ROLLS[int(rng.random() * len(ROLLS))], player.hazards), round_)
        if player.choices > 1:
            return True
    return False


@pytest.mark.parametrize("title", GAMES, indirect=True)
def test_the_planner_plays_other_moves_than_the_greedy_player_on_the_same_dice(
    title: Title,
) -> None:
    sheet = generate(title, 12)
    if not ranks_choices(title, sheet):
        pytest.skip(f"{title.name}'s player ranks one choice a turn: there is nothing to plan")
    planned = play(sheet, game_rng(5, 0), DEFAULT_STRENGTH)
    greedy = play(sheet, game_rng(5, 0), "greedy")
    assert planned.turns[0].roll == greedy.turns[0].roll
    assert planned.turns != greedy.turns


@pytest.mark.parametrize("title", GAMES, indirect=True)
def test_a_players_clone_plays_on_without_changing_the_player(title: Title) -> None:
    sheet = generate(title, 13)
    player = player_for(sheet.title, sheet)
    rng = game_rng(6, 0)
    for round_ in range(1, 6):
        player.turn(sheet.title.options(ROLLS[int(rng.random() * len(ROLLS))]), round_)
    before = (player.tokens(), player.components(), player.hazards)
    twin = player.clone()
    for round_ in range(6, 40):
        if twin.over():
            break
        twin.turn(sheet.title.options(ROLLS[int(rng.random() * len(ROLLS))], twin.hazards),
                  round_)
    assert twin.tokens() != before[0]
    assert (player.tokens(), player.components(), player.hazards) == before


def test_a_strength_the_bot_does_not_know_is_named() -> None:
    with pytest.raises(BadStrength, match="expected one of greedy, plan, deep, got 'wise'"):
        play(generate("temple", 1), game_rng(0, 0), "wise")


def test_the_commands_strengths_are_the_bots() -> None:
    assert (bot_command.STRENGTHS, bot_command.DEFAULT_STRENGTH) == (STRENGTHS,
                                                                     DEFAULT_STRENGTH)


def test_a_valley_game_lasts_25_rounds_unless_the_grid_fills_first() -> None:
    sheet = generate("valley", 5, "b")
    for played in play_games(sheet, 10) + play_games(sheet, 10, strength="greedy"):
        full = "_" not in {t for row in played.tokens for t in row}
        assert len(played.turns) == 25 or (full and len(played.turns) < 25)


@pytest.mark.parametrize(("seed", "side", "n"), [(7, "a", 0), (9, "a", 0), (11, "a", 3)])
def test_the_valley_bot_reveals_no_discovery_on_a_snakes_turn(seed: int, side: str, n: int) -> None:
    # 000: a discovery comes "after everyone has filled their one to three spaces for this
    # turn (or crossed out a snake)". Each of these games had a discovery ready on a snake's
    # turn: the bot reveals it on a later turn, and the validator finds no breach.
    sheet = generate("valley", seed, side)
    played = play(sheet, game_rng(seed, n))
    for record in played.turns:
        acts = {a.act for a in record.actions}
        assert not {Act.HAZARD, DISCOVER} <= acts
    assert breaches(sheet, played.turns, parse_sheet(played.sheet_text())) == []


def test_an_island_game_ends_on_the_fifth_treasure_or_a_full_island() -> None:
    sheet = generate("island", 5)
    for played in play_games(sheet, 10, strength="greedy") + play_games(sheet, 1):
        treasures = sum(1 for t in played.turns for a in t.actions if a.act is TREASURE)
        full = "_" not in {t.split("/")[0] for row in played.tokens for t in row}
        assert treasures == 5 or full


def test_an_islands_outlook_is_the_treasures_on_their_way_and_none_once_found() -> None:
    # What a planner's few turns ahead count beyond the stars: nothing on a blank island,
    # more as the numbers of a treasure stand around a spot, nothing for a treasure found.
    title = find_title("island")
    player = player_for(title, generate(title, 5))
    assert player.outlook() == 0.0
    outlooks = []
    rng = game_rng(1, 0)
    for round_ in range(1, 100):
        if player.over():
            break
        player.turn(title.options(ROLLS[int(rng.random() * len(ROLLS))], player.hazards),
                    round_)
        outlooks.append(player.outlook())
    assert max(outlooks) > 0.0
    player.found.update(range(1, 16))
    assert player.outlook() == 0.0


def test_the_summary_is_the_games_mean_spread_range_and_levels() -> None:
    games = play_games(generate("temple", 2), 12, strength="greedy")
    summary = summarise(games)
    totals = [g.total for g in games]
    assert summary.mean == pytest.approx(statistics.fmean(totals))
    assert summary.stdev == pytest.approx(statistics.pstdev(totals))
    assert (summary.lowest, summary.highest) == (min(totals), max(totals))
    reached = [level("temple", g.total, g.hazards).name for g in games]
    assert dict(summary.levels) == {n: reached.count(n) for n in dict(summary.levels)}
    assert sum(dict(summary.levels).values()) == 12


@pytest.mark.parametrize("title", GAMES, indirect=True)
def test_the_target_is_the_median_of_the_bots_games_on_that_map(title: Title) -> None:
    mark = target(title, "a", 9, games=5)
    totals = sorted(g.total for g in play_games(generate(title, 9), 5, strength=TARGET_STRENGTH))
    assert mark == totals[2]
    assert target(title, "a", 9, games=5) == mark


def test_a_title_the_bot_does_not_play_is_named() -> None:
    with registered(ToyCupboard) as toy, pytest.raises(UnknownTitle, match="the bot plays"):
        play(generate(toy, 1), game_rng(0, 0))


# --- pitable bot ---------------------------------------------------------------------


def test_bot_prints_the_mean_spread_range_and_levels(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bot", "temple", "--seed", "4", "--games", "6",
                         "--strength", "greedy")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "The Temple of Apikhabou, side A, map 4: 6 games, dice seed 0"
    summary = summarise(play_games(generate("temple", 4), 6, strength="greedy"))
    assert lines[1].split() == [
        "mean", f"{summary.mean:.1f}", "stdev", f"{summary.stdev:.1f}",
        "lowest", str(summary.lowest), "highest", str(summary.highest),
    ]
    assert lines[2].strip().startswith("levels: Tourist ")


@pytest.mark.parametrize("title", SCORED_GAMES, indirect=True)
def test_bot_show_prints_a_sheet_that_pitable_score_scores_to_the_bots_total(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, title: Title
) -> None:
    game = title.key
    # The default strength: the planner's sheet.
    code, out, _ = run(capsys, "bot", game, "--seed", "8", "--side", "b", "--games", "1",
                       "--show", "--json")
    assert code == 0
    shown = json.loads(out)
    path = tmp_path / "game.txt"
    path.write_text(shown["sheet"])
    code, out, err = run(capsys, "score", game, "--sheet", str(path), "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["total"] == shown["sheet_total"]
    # Without --json the whole output is a sheet file: the figures are comments.
    assert shown["strength"] == DEFAULT_STRENGTH
    code, out, _ = run(capsys, "bot", game, "--seed", "8", "--side", "b", "--games", "1",
                       "--show")
    path.write_text(out)
    code, scored, err = run(capsys, "score", game, "--sheet", str(path))
    assert (code, err) == (0, "")
    assert f"total {shown['sheet_total']}" in out
    assert scored.splitlines()[-1].split() == ["Total", str(shown["sheet_total"])]


def test_bot_json_names_the_map_and_dice(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bot", "island", "--seed", "3", "--games", "4",
                       "--dice-seed", "9", "--json", "--strength", "GREEDY")
    assert code == 0
    data = json.loads(out)
    assert (data["title"], data["side"], data["seed"], data["dice_seed"], data["games"],
            data["strength"]) == ("island", "a", 3, 9, 4, "greedy")
    assert set(data) >= {"mean", "stdev", "lowest", "highest", "levels"}


def test_bot_without_a_seed_plays_a_new_map_and_says_which(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "bot", "temple", "--games", "1", "--json", "--strength", "greedy")
    assert code == 0
    seed = json.loads(out)["seed"]
    code, again, _ = run(capsys, "bot", "temple", "--games", "1", "--json", "--seed", str(seed),
                         "--strength", "greedy")
    assert json.loads(again)["mean"] == json.loads(out)["mean"]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["bot", "chess"], "unknown game"),
        (["bot", "valley", "--games", "0"], "--games"),
        (["bot", "valley", "--games", "10001"], "--games"),
        (["bot", "valley", "--seed", "1000000"], "seed"),
        (["bot", "valley", "--side", "c"], "side"),
        (["bot", "valley", "--dice-seed", "-1"], "--dice-seed"),
        (["bot", "valley", "--strength", "wise"], "strength 'wise': expected one of greedy"),
    ],
)
def test_bot_refuses_bad_input_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert words in err
