"""Session rules: solo rounds, hazards placed and adventurer levels, as the rulebooks give them."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitable.errors import BadDangerCount, BadScore, GameOver, UnknownMode, UnknownTitle
from pitable.rules import SPECIAL, Roll, Title, all_rolls, find_title
from pitable.rules.session import LEVELS, GameState, Mode, level, thresholds
from tests.support.titles import title_for_test, title_params

SNAKE = Roll.from_str("2,3,*")
PLAIN = Roll.from_str("2,3,5")
VALLEY, ISLAND, TEMPLE = (find_title(k) for k in ("valley", "island", "temple"))

# Every boundary of every rulebook's table: (title, last score of a level, its level).
BOUNDARIES = [
    ("valley", 89, "Tourist"),
    ("valley", 90, "Pathfinder"),
    ("valley", 109, "Pathfinder"),
    ("valley", 110, "Voyager"),
    ("valley", 129, "Voyager"),
    ("valley", 130, "Explorer"),
    ("island", 59, "Tourist"),
    ("island", 60, "Pathfinder"),
    ("island", 74, "Pathfinder"),
    ("island", 75, "Voyager"),
    ("island", 89, "Voyager"),
    ("island", 90, "Explorer"),
    ("temple", 14, "Tourist"),
    ("temple", 15, "Pathfinder"),
    ("temple", 24, "Pathfinder"),
    ("temple", 25, "Voyager"),
    ("temple", 29, "Voyager"),
    ("temple", 30, "Explorer"),
]


@pytest.mark.parametrize(("title", "score", "name"), BOUNDARIES)
def test_every_threshold_of_the_rulebooks(title: str, score: int, name: str) -> None:
    assert level(title, score).name == name


@pytest.mark.parametrize(
    ("title", "score", "needed", "next_level"),
    [
        ("valley", 0, 90, "Pathfinder"),
        ("valley", 100, 10, "Voyager"),
        ("valley", 129, 1, "Explorer"),
        ("island", 70, 5, "Voyager"),
        ("temple", 27, 3, "Explorer"),
    ],
)
def test_stars_needed_for_the_next_level(
    title: str, score: int, needed: int, next_level: str
) -> None:
    result = level(title, score)
    assert (result.stars_needed, result.next_level) == (needed, next_level)


def test_explorer_is_the_top(title: Title) -> None:
    result = level(title, 500)
    assert (result.name, result.rank, result.next_level, result.stars_needed) == (
        "Explorer",
        3,
        None,
        None,
    )


def test_the_rulebooks_example_five_snakes_make_an_explorer_at_110() -> None:
    assert level("valley", 110, hazards=5).name == "Explorer"
    assert level("valley", 109, hazards=5).name == "Voyager"
    assert thresholds("valley", 5) == (70, 90, 110)


@pytest.mark.parametrize("snakes", [1, 3, 7, 12])
def test_each_snake_lowers_every_valley_threshold_by_four(snakes: int) -> None:
    low, mid, high = thresholds("valley", snakes)
    assert (low, mid, high) == (90 - 4 * snakes, 110 - 4 * snakes, 130 - 4 * snakes)
    assert level("valley", low - 1, snakes).name == "Tourist"
    assert level("valley", low, snakes).name == "Pathfinder"
    assert level("valley", high, snakes).name == "Explorer"


def test_thresholds_follow_the_rulebooks_arithmetic_below_zero() -> None:
    # 25 snakes in 25 solo rounds: "4 fewer stars per snake" puts Pathfinder at 90 - 100.
    assert thresholds("valley", 25) == (-10, 10, 30)
    assert level("valley", -10, 25).name == "Pathfinder"
    assert level("valley", -11, 25).name == "Tourist"
    assert level("valley", -11, 25).stars_needed == 1


@pytest.mark.parametrize("title", ["island", "temple"])
def test_hazards_do_not_move_the_island_and_temple_thresholds(title: str) -> None:
    assert thresholds(title, 5) == thresholds(title, 0)


def test_a_negative_score_is_a_tourist(title: Title) -> None:
    result = level(title, -12)
    assert result.name == "Tourist"
    assert result.stars_needed == thresholds(title)[0] + 12


def test_aliases_name_the_same_title() -> None:
    assert level("skull-island", 60).title is ISLAND
    assert level(ISLAND, 60) == level("island", 60)
    assert level("wiraqocha", 90).name == "Pathfinder"


@pytest.mark.parametrize("bad", [1.5, "90", True, None])
def test_a_score_must_be_a_whole_number(bad: object) -> None:
    with pytest.raises(BadScore):
        level("valley", bad)  # type: ignore[arg-type]


def test_bad_hazard_counts_and_titles() -> None:
    with pytest.raises(BadDangerCount):
        level("valley", 10, hazards=-1)
    with pytest.raises(BadDangerCount):
        level("island", 10, hazards=6)  # five danger bubbles on the sheet
    with pytest.raises(UnknownTitle):
        level("atlantis", 10)


def test_level_json() -> None:
    assert level("valley", 112, 5).to_json() == {
        "game": "valley",
        "score": 112,
        "hazards": 5,
        "level": "Explorer",
        "next_level": None,
        "stars_needed": None,
        "thresholds": {"Pathfinder": 70, "Voyager": 90, "Explorer": 110},
    }


@given(
    key=st.sampled_from(title_params()),
    hazards=st.integers(0, 5),
    a=st.integers(-200, 300),
    b=st.integers(-200, 300),
)
def test_a_higher_score_never_gives_a_lower_level(key: str, hazards: int, a: int, b: int) -> None:
    low, high = sorted((a, b))
    with title_for_test(key) as title:
        assert level(title, low, hazards).rank <= level(title, high, hazards).rank


@given(snakes=st.integers(0, 40), score=st.integers(-200, 300))
def test_more_snakes_never_give_a_lower_valley_level(snakes: int, score: int) -> None:
    assert level("valley", score, snakes).rank <= level("valley", score, snakes + 1).rank


@given(
    key=st.sampled_from(title_params()),
    hazards=st.integers(0, 5),
    score=st.integers(-200, 300),
)
def test_the_stars_needed_reach_exactly_the_next_level(
    key: str, hazards: int, score: int
) -> None:
    with title_for_test(key) as title:
        check_the_stars_needed(title, hazards, score)


def check_the_stars_needed(title: Title, hazards: int, score: int) -> None:
    result = level(title, score, hazards)
    if result.stars_needed is None:
        assert result.name == "Explorer"
        return
    assert result.stars_needed > 0
    assert level(title, score + result.stars_needed - 1, hazards).name == result.name
    assert level(title, score + result.stars_needed, hazards).name == result.next_level
    assert result.name == LEVELS[result.rank]


# --- the game ------------------------------------------------------------------


def test_round_limits() -> None:
    assert VALLEY.solo_rounds == 25
    # The Island and the Temple end on sheet events: the player ends them from the menu.
    assert ISLAND.solo_rounds is None
    assert TEMPLE.solo_rounds is None
    assert GameState(VALLEY, Mode.TABLE).round_limit is None
    assert GameState(VALLEY, Mode.SOLO).round_limit == 25


def test_a_solo_valley_game_ends_after_round_25() -> None:
    state = GameState(VALLEY, "solo")  # type: ignore[arg-type]
    for expected in range(1, 26):
        assert not state.over
        turn = state.play(PLAIN)
        assert turn.round == expected
        state = turn.state
    assert state.over
    assert state.rounds_left == 0
    with pytest.raises(GameOver):
        state.play(PLAIN)


@pytest.mark.parametrize(
    ("title", "mode"), [("island", "solo"), ("temple", "solo"), ("valley", "table")]
)
def test_games_without_a_round_limit_go_on(title: str, mode: str) -> None:
    state = GameState(find_title(title), Mode(mode))
    for _ in range(60):
        state = state.play(PLAIN).state
    assert (state.rounds, state.over, state.rounds_left) == (60, False, None)


def test_every_snake_is_counted() -> None:
    state = GameState(VALLEY, Mode.SOLO)
    for _ in range(8):
        state = state.play(SNAKE).state
    assert state.hazards == 8
    assert state.level(110 - 4 * 8 + 20).name == "Explorer"


def test_the_sixth_island_danger_is_ignored_and_not_counted() -> None:
    state = GameState(ISLAND, Mode.SOLO)
    for marked in range(5):
        turn = state.play(SNAKE)
        assert turn.hazard
        assert turn.options.numbers == ()
        assert turn.state.hazards == marked + 1
        state = turn.state
    sixth = state.play(SNAKE)
    assert not sixth.hazard
    assert sixth.options.hazard_ignored
    assert sixth.options.numbers == (2, 3, 5)  # the other two dice are used as usual
    assert sixth.reminder is None
    assert sixth.state.hazards == 5


def test_the_solo_reminder_says_where_to_draw_the_hazard() -> None:
    turn = GameState(TEMPLE, Mode.SOLO).play(SNAKE)
    assert turn.reminder == TEMPLE.solo_placement
    assert "doorless space next to the space you filled last turn" in turn.reminder
    assert "next to one of the spaces you filled last turn" in VALLEY.solo_placement
    assert "danger bubble" in ISLAND.solo_placement
    # At a table the hazard goes on another player's sheet: no solo reminder.
    assert GameState(TEMPLE, Mode.TABLE).play(SNAKE).reminder is None


def test_play_leaves_the_state_it_was_called_on() -> None:
    state = GameState(VALLEY, Mode.SOLO)
    after = state.play(SNAKE).state
    assert (state.rounds, state.hazards, state.last_roll) == (0, 0, None)
    assert (after.rounds, after.hazards, after.last_roll) == (1, 1, SNAKE)


def test_a_state_rebuilt_from_its_figures_equals_the_folded_one() -> None:
    state = GameState(ISLAND, Mode.SOLO)
    for roll in list(all_rolls())[:40]:
        state = state.play(roll).state
    rebuilt = GameState(ISLAND, Mode.SOLO, state.rounds, state.hazards, state.last_roll)
    assert rebuilt == state
    assert state.hazards == 5  # 40 rolls hold more than five red specials, capped
    assert sum(1 for r in list(all_rolls())[:40] if r.red is SPECIAL) > 5


def test_bad_states() -> None:
    with pytest.raises(UnknownMode):
        GameState(VALLEY, "duo")  # type: ignore[arg-type]
    with pytest.raises(BadDangerCount):
        GameState(ISLAND, Mode.SOLO, hazards=6)
    with pytest.raises(ValueError, match="rounds"):
        GameState(VALLEY, Mode.SOLO, rounds=-1)
    # A game holds its title, found once by name, not a name to look up on every roll.
    with pytest.raises(TypeError, match="find_title"):
        GameState("island", Mode.SOLO)  # type: ignore[arg-type]
    assert GameState(find_title("skull"), Mode.SOLO).title is ISLAND


def test_a_copied_or_pickled_game_keeps_the_registered_title() -> None:
    state = GameState(ISLAND, Mode.SOLO).play(SNAKE).state
    for copied in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
        assert copied == state
        assert copied.title is ISLAND
        assert copied.options(PLAIN).title is ISLAND
