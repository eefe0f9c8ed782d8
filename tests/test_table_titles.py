"""What a table game needs of each title beyond a solo game: the rulebook's tie-break
between equal totals, and a bot's sheet taking in the hazards other players draw on it.

At a table a hazard roll sends every sheet to another player, who draws the hazard on any
space the title allows (not only beside last turn's spaces, as in solo play) and hands the
sheet back (000, 001, 002: "take another sheet at random, then draw ... on this sheet").
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitable import i18n
from pitable.errors import BadDangerCount, BadSheet, IllegalMove
from pitable.rules.bot import ROLLS, player_for
from pitable.rules.bot.model import Player, tokens_text
from pitable.rules.bot.planner import Planner, Strength
from pitable.rules.dice import Roll
from pitable.rules.scoring import FinishedSheet, Token, parse_sheet
from pitable.rules.sheets import Cell, Kind, Sheet, generate
from pitable.rules.titles import Title, all_titles, find_title
from pitable.rules.titles.island import MOUNTAIN, SEA
from pitable.rules.titles.island.bot import STANDING, IslandPlayer
from pitable.rules.titles.temple import DOOR
from tests.support.titles import scores, title_params
from tests.toy_title import ToyCupboard

GOLDEN = Path(__file__).parent / "golden" / "scoring"
#: The titles a bot plays whose sheets score: the bot's state can be checked against them.
PLAYED = title_params(lambda t: t.bot() is not None and scores(t))
#: No table game of one bot lasts longer (the largest sheet, every roll a hazard).
MOST_TURNS = 300


def henri(title: str) -> FinishedSheet:
    """The rulebook's worked example of ``title``, laid on a map (tests/golden/scoring)."""
    return parse_sheet((GOLDEN / f"{title}_henri.txt").read_text())


def henri_with(title: str, cell: Cell, token: str) -> FinishedSheet:
    """The worked example with the position ``cell`` typed as ``token``."""
    rows = [line.split() for line in (GOLDEN / f"{title}_henri.txt").read_text().splitlines()
            if line and not line.startswith(";")]
    rows[cell[0]][cell[1]] = token
    return parse_sheet("\n".join(" ".join(row) for row in rows))


def counted_treasures(sheet: FinishedSheet) -> list[int]:
    """The values of the treasures marked on an Island sheet that count: all but those on a
    danger not overcome (001: "it nullifies any treasure that would be found in that
    space")."""
    return [s.mark_n for _, s in sheet.cells()
            if s.mark == "T" and s.mark_n is not None and s.token is not Token.HAZARD]


# --- the tie-break -------------------------------------------------------------------


def test_the_valleys_tie_break_is_the_stars_from_structures() -> None:
    # 000: "the tied player who scored the most stars from structures wins". Henri's hut,
    # statue and mine earn 10, 10 and 4 stars.
    title, sheet = find_title("valley"), henri("valley")
    assert title.tie_break(sheet) == title.score(sheet)["Structures"] == 10 + 10 + 4
    assert title.tie_break_name == "Structures"


def test_the_temples_tie_break_is_the_longest_sequence() -> None:
    # 002: "the tied player with the longest sequence of consecutive numbers wins". Henri's
    # is nine numbers long, 2 to 10.
    title, sheet = find_title("temple"), henri("temple")
    assert title.tie_break(sheet) == title.score(sheet)["Sequence"] == len(range(2, 11))
    assert title.tie_break_name == "Longest sequence"


def test_the_islands_tie_break_is_its_most_valuable_treasure() -> None:
    # 001: "the tied player who found the single most valuable treasure wins". Henri found
    # 4, 1, 9, 7 and 10, the 10 on a danger overcome.
    title, sheet = find_title("island"), henri("island")
    treasures = counted_treasures(sheet)
    assert sorted(treasures) == [1, 4, 7, 9, 10]
    assert title.score(sheet)["Treasures"] == sum(treasures)
    assert title.tie_break(sheet) == max(treasures) == 10
    assert title.tie_break_name == "Most valuable treasure"


def test_a_treasure_on_a_danger_not_overcome_breaks_no_tie() -> None:
    # Henri's 10 on a danger left standing is worthless: his best treasure is then the 9.
    title = find_title("island")
    sheet = henri_with("island", (3, 7), "X/T10")
    treasures = counted_treasures(sheet)
    assert 10 not in treasures
    assert title.score(sheet)["Treasures"] == sum(treasures)
    assert title.tie_break(sheet) == max(treasures) == 9


def test_an_island_without_a_treasure_breaks_ties_with_none_found() -> None:
    title = find_title("island")
    sheet = parse_sheet("~ ~ ~\n~ 3 ~\n~ ~ ~\n")
    assert title.score(sheet)["Treasures"] == 0
    assert title.tie_break(sheet) == 0


def test_the_tie_break_refuses_the_sheets_the_score_refuses() -> None:
    # A second treasure of 4: the score refuses the sheet, and so does the tie-break.
    title = find_title("island")
    sheet = henri_with("island", (7, 2), "4/T4")
    with pytest.raises(BadSheet, match="second treasure of 4"):
        title.score(sheet)
    with pytest.raises(BadSheet, match="second treasure of 4"):
        title.tie_break(sheet)


def test_a_title_whose_rulebook_breaks_no_tie_says_none() -> None:
    toy = ToyCupboard()
    assert toy.tie_break_name is None
    assert toy.tie_break(parse_sheet("1 2\n")) is None


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE])
def test_each_tie_break_is_named_in_every_language(lang: str) -> None:
    words = i18n.translator(lang)
    named = [t for t in all_titles() if t.tie_break_name is not None]
    assert {t.key for t in named} >= {"valley", "island", "temple"}
    for title in named:
        assert title.tie_break_name is not None
        assert words.gettext(title.tie_break_name) != title.tie_break_name, (lang, title.key)


# --- hazards drawn by another player ----------------------------------------------------


def token_at(player: Player, cell: Cell) -> str:
    """What the player's sheet shows at ``cell``, less any mark after a ``/``."""
    return player.tokens()[cell[0]][cell[1]].split("/")[0]


def hazard_spaces(sheet: Sheet, player: Player) -> list[Cell]:
    """Where another player may draw a hazard on the sheet, worked out from the map and what
    the sheet shows: an empty space where a hazard goes (any empty space of the Valley, an
    empty island space, an empty doorless space of the Temple: the map's plain spaces)."""
    return [cell for cell in sheet.cells(Kind.SPACE) if token_at(player, cell) == "_"]


def elsewhere(sheet: Sheet, player: Player) -> list[Cell]:
    """Every cell where no hazard may go: those of the grid that are not empty plain spaces,
    and some off the grid."""
    legal = set(hazard_spaces(sheet, player))
    on_grid = [(r, c) for r in range(sheet.grid_height) for c in range(sheet.grid_width)
               if (r, c) not in legal]
    return [*on_grid, (-1, 0), (0, -1), (sheet.grid_height, 0), (0, sheet.grid_width)]


def scored_as_counted(title: Title, player: Player, where: str) -> None:
    """The player's sheet, read as ``pitable score`` reads it, scores as the player counts."""
    scored = title.score(parse_sheet(tokens_text(player.tokens())))
    assert dict(scored.components) == dict(player.components()), where
    assert scored.hazards == player.hazards, where


def state(player: Player) -> tuple[object, ...]:
    return (player.tokens(), player.components(), player.hazards, player.over())


def take_refused(sheet: Sheet, player: Player, rng: random.Random, where: str) -> None:
    """A cell where no hazard may go is refused, and leaves the sheet as it was."""
    before = state(player)
    bad = rng.choice(elsewhere(sheet, player))
    with pytest.raises(IllegalMove) as refused:
        player.take_hazard(bad)
    assert refused.value.rule, where
    assert state(player) == before, (where, bad)


def table_game(title: Title, seed: int, side: str, dice: int) -> Player:
    """A bot's game at a table: its own turns on the rolls without a hazard, and on each
    hazard roll a hazard drawn by another player at a random space where one may go (after a
    refused try elsewhere), each step checked against the title's scoring."""
    sheet = generate(title, seed, side)
    player = player_for(title, sheet)
    rng = random.Random(dice)
    taken = 0
    for round_ in range(1, MOST_TURNS):
        if player.over():
            break
        where = f"{title.key} map {seed}{side} dice {dice} round {round_}"
        options = title.options(ROLLS[rng.randrange(len(ROLLS))], player.hazards)
        if options.hazard:
            take_refused(sheet, player, rng, where)
            spaces = hazard_spaces(sheet, player)
            assert spaces, where
            cell = rng.choice(spaces)
            before = player.tokens()
            hazards = player.hazards
            player.take_hazard(cell)
            taken += 1
            assert token_at(player, cell) == "X", where
            assert player.hazards == hazards + 1, where
            after = player.tokens()
            changed = [(r, c) for r, row in enumerate(after) for c, t in enumerate(row)
                       if t != before[r][c]]
            assert changed == [cell], where
        else:
            player.turn(options, round_)
        scored_as_counted(title, player, where)
    assert player.over(), f"{title.key} map {seed}{side}: no end in {MOST_TURNS} turns"
    assert taken, f"{title.key} map {seed}{side} dice {dice}: no hazard rolled"
    return player


@pytest.mark.parametrize("title", PLAYED, indirect=True)
@pytest.mark.parametrize(("seed", "side", "dice"), [(1, "a", 1), (2, "b", 7)])
def test_a_bots_game_takes_in_the_hazards_others_draw_and_scores_as_it_counts(
    title: Title, seed: int, side: str, dice: int
) -> None:
    player = table_game(title, seed, side, dice)
    sheet = parse_sheet(tokens_text(player.tokens()))
    tie = title.tie_break(sheet)
    if title.tie_break_name is None:
        assert tie is None
    elif title.key == "island":
        assert tie == max(counted_treasures(sheet), default=0)
    else:
        component = {"valley": "Structures", "temple": "Sequence"}[title.key]
        assert tie == dict(player.components())[component]


def test_the_islands_tie_break_is_the_most_valuable_treasure_its_bot_counted() -> None:
    # The bot keeps its treasures and dangers itself: its best treasure that counts (none
    # on a danger left standing) is what the tie-break reads from its sheet.
    title = find_title("island")
    for seed, dice in ((3, 2), (4, 5), (5, 9)):
        player = table_game(title, seed, "a", dice)
        assert isinstance(player, IslandPlayer)
        counted = [v for i, v in enumerate(player.treasure)
                   if v and player.danger[i] != STANDING]
        sheet = parse_sheet(tokens_text(player.tokens()))
        assert title.tie_break(sheet) == max(counted, default=0)


@pytest.mark.parametrize("title", PLAYED, indirect=True)
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.integers(0, 12), dice=st.integers(0, 2**16), r=st.integers(-2, 10),
       c=st.integers(-2, 10))
def test_a_hazard_goes_only_where_the_rules_put_one(title: Title, turns: int, dice: int,
                                                    r: int, c: int) -> None:
    sheet = generate(title, 4)
    player = player_for(title, sheet)
    rng = random.Random(dice)
    for round_ in range(1, turns + 1):
        options = title.options(ROLLS[rng.randrange(len(ROLLS))], player.hazards)
        if player.over():
            break
        if not options.hazard:
            player.turn(options, round_)
    before = state(player)
    if (r, c) in hazard_spaces(sheet, player):
        player.take_hazard((r, c))
        assert token_at(player, (r, c)) == "X"
        assert player.hazards == before[2] + 1
        scored_as_counted(title, player, f"{title.key} at {r},{c}")
    else:
        with pytest.raises(IllegalMove):
            player.take_hazard((r, c))
        assert state(player) == before


def test_a_table_hazard_need_not_be_beside_last_turns_space() -> None:
    # The solo rule puts a hazard beside last turn's space; at a table it goes anywhere the
    # rules allow (000, 001, 002: "it does not need to be adjacent to anything else").
    for key in ("valley", "island", "temple"):
        title = find_title(key)
        sheet = generate(title, 6)
        player = player_for(title, sheet)
        rng = random.Random(1)
        while not player.last_filled:
            options = title.options(ROLLS[rng.randrange(len(ROLLS))], player.hazards)
            if not options.hazard:
                player.turn(options, 1)
        near = {n for i in player.last_filled for n in player.grid.around[i]}
        far = [c for c in hazard_spaces(sheet, player) if player.grid.index(c) not in near]
        assert far, key
        player.take_hazard(far[-1])
        assert token_at(player, far[-1]) == "X", key


def test_a_mummy_never_goes_in_a_door() -> None:
    title = find_title("temple")
    sheet = generate(title, 2)
    player = player_for(title, sheet)
    doors = sheet.cells(DOOR)
    assert doors
    for door in doors:
        with pytest.raises(IllegalMove, match="doorless"):
            player.take_hazard(door)
    assert player.hazards == 0


def test_a_skull_never_goes_on_a_mountain_or_in_the_sea() -> None:
    title = find_title("island")
    sheet = generate(title, 2)
    player = player_for(title, sheet)
    for cell in sheet.cells(MOUNTAIN, SEA):
        with pytest.raises(IllegalMove, match="island space"):
            player.take_hazard(cell)
    assert player.hazards == 0


def test_an_island_with_its_five_dangers_takes_no_more() -> None:
    # 001: "After all 5 bubbles have been marked, ignore any further Danger symbols".
    title = find_title("island")
    sheet = generate(title, 3)
    player = player_for(title, sheet)
    spaces = hazard_spaces(sheet, player)
    for cell in spaces[:5]:
        player.take_hazard(cell)
    assert player.hazards == 5
    scored_as_counted(title, player, "five dangers")
    before = state(player)
    with pytest.raises(BadDangerCount):
        player.take_hazard(spaces[5])
    assert state(player) == before
    # The next danger rolled is ignored: the bot plays the other dice on its own turn.
    assert title.options(Roll.from_str("2,3,*"), player.hazards).hazard_ignored


def test_a_crossed_out_hazard_next_turn_is_the_players_own_move() -> None:
    # A hazard drawn beside a 9 stands until the player crosses it out on its next turn.
    title = find_title("temple")
    sheet = generate(title, 5)
    player = player_for(title, sheet)
    rng = random.Random(4)
    nine = None
    for round_ in range(1, MOST_TURNS):
        if player.over():
            break
        options = title.options(ROLLS[rng.randrange(len(ROLLS))], player.hazards)
        if options.hazard:
            continue
        player.turn(options, round_)
        nines = [c for c in sheet.cells(Kind.SPACE, DOOR)
                 if token_at(player, c).lstrip("D") == "9"]
        beside = [s for s in hazard_spaces(sheet, player) for n in nines
                  if max(abs(s[0] - n[0]), abs(s[1] - n[1])) == 1]
        if beside:
            nine = beside[0]
            break
    if nine is None:
        pytest.skip("no 9 with an empty doorless space beside it in this game")
    player.take_hazard(nine)
    assert token_at(player, nine) == "X"
    scored_as_counted(title, player, "standing")
    no_hazard = next(r for r in ROLLS if not title.options(r, player.hazards).hazard)
    actions = player.turn(title.options(no_hazard, player.hazards), 99)
    assert any(a.act.value == "cross" and a.cell == nine for a in actions)
    assert token_at(player, nine) == "x"
    scored_as_counted(title, player, "crossed")


def test_a_planner_passes_a_hazard_to_the_player_it_plays_for() -> None:
    title = find_title("valley")
    sheet = generate(title, 1)
    inner = player_for(title, sheet, "plan")
    planner = Planner(inner, Strength(1, 0), lambda i, h: title.options(ROLLS[i], h),
                      len(ROLLS), 25)
    cell = hazard_spaces(sheet, inner)[0]
    planner.take_hazard(cell)
    assert planner.hazards == 1
    assert token_at(inner, cell) == "X"
    with pytest.raises(IllegalMove):
        planner.take_hazard(cell)
