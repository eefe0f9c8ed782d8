"""A player's sheet filled move by move (pitable.rules.phone): the moves it offers, the
moves it refuses, a turn taken back and done, and the sheet's score as `pitable score`
counts it."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitable.errors import IllegalMove
from pitable.rules import Title
from pitable.rules.bot.model import Act, Action
from pitable.rules.dice import Roll
from pitable.rules.phone import PlayerSheet, replay_sheet
from pitable.rules.scoring import parse_sheet
from pitable.rules.sheets import Side, connected
from pitable.rules.validate import breaches, groups
from tests.support.games import bot_game, random_roll
from tests.support.titles import title_params

PLAYED = title_params(lambda t: t.bot() is not None and t.replay_rules() is not None)


@pytest.mark.parametrize("title", PLAYED, indirect=True)
@pytest.mark.parametrize("seed", [3, 11])
def test_every_move_of_a_bot_game_is_offered_and_scores_as_the_bot_counts(
    title: Title, seed: int
) -> None:
    phone, player, _ = bot_game(title, seed)
    assert phone.tokens() == player.tokens()
    score = phone.score()
    assert dict(score.components) == dict(player.components())
    # The text written is read back by `pitable score` to the same total.
    assert title.score(parse_sheet(phone.text())).total == score.total
    # The validator finds nothing against the game the phone kept.
    assert breaches(phone.sheet, phone.history(), parse_sheet(phone.text())) == []


@pytest.mark.parametrize("title", PLAYED, indirect=True)
def test_no_offered_move_is_refused_and_each_refusal_names_its_rule(title: Title) -> None:
    phone, _, offered = bot_game(title, 5)
    rebuilt = replay_sheet(phone.sheet, [(t.roll, 0, (), False) for t in phone.closed[:1]],
                           solo=True)
    legal = rebuilt.legal()
    assert legal, "the first roll offers no move"
    for action in legal:
        assert rebuilt.check(action) is None
    taken = legal[0]
    rebuilt.play(taken)
    with pytest.raises(IllegalMove) as refused:
        rebuilt.play(taken)
    assert refused.value.rule
    assert all(len(moves) == len(set(moves)) for moves in offered)


@pytest.mark.parametrize("title", PLAYED, indirect=True)
def test_a_move_taken_back_is_offered_again_and_done_makes_the_turn_permanent(
    title: Title
) -> None:
    sheet = title.generate_sheet(Side.A, 9)
    phone = PlayerSheet(sheet, solo=True)
    phone.start_turn(Roll.from_str("2,3,4"))
    before = phone.legal()
    move = before[0]
    phone.play(move)
    assert phone.take_back() == move
    assert phone.legal() == before
    assert phone.take_back() is None
    assert phone.warnings(), "an empty turn is short of a move"
    phone.play(move)
    assert phone.warnings() == []
    phone.finish_turn()
    assert phone.legal() == []
    with pytest.raises(IllegalMove):
        phone.take_back()
    with pytest.raises(IllegalMove):
        phone.play(before[-1])
    # The next roll closes the turn with its move kept.
    phone.start_turn(Roll.from_str("1,1,1"))
    assert phone.closed[-1].actions == (move,)
    assert phone.closed[-1].done


@pytest.mark.parametrize("title", PLAYED, indirect=True)
def test_a_turn_not_done_is_passed_with_its_moves_kept(title: Title) -> None:
    sheet = title.generate_sheet(Side.A, 4)
    phone = PlayerSheet(sheet)
    phone.start_turn(Roll.from_str("2,3,4"))
    phone.start_turn(Roll.from_str("1,2,3"))
    move = phone.legal()[0]
    phone.play(move)
    phone.start_turn(Roll.from_str("3,3,3"))
    assert [t.done for t in phone.closed] == [False, False]
    assert phone.closed[1].actions == (move,)
    again = replay_sheet(sheet, [(t.roll, 0, t.actions, t.done) for t in phone.closed])
    assert again.tokens() == phone.tokens()


@pytest.mark.parametrize("title", PLAYED, indirect=True)
def test_at_a_table_a_hazard_is_not_drawn_on_ones_own_sheet(title: Title) -> None:
    sheet = title.generate_sheet(Side.A, 2)
    hazard = Roll.from_str("2,3,*")
    table = PlayerSheet(sheet)
    table.start_turn(hazard)
    assert not any(a.act is Act.HAZARD for a in table.legal())
    assert table.warnings() == []
    solo = PlayerSheet(sheet, solo=True)
    solo.start_turn(hazard)
    drawn = [a for a in solo.legal() if a.act is Act.HAZARD]
    assert drawn
    assert solo.warnings(), "a solo hazard roll draws a hazard"
    cell = drawn[0].cell
    refused = table.check(Action(Act.HAZARD, (cell,)))
    assert refused is not None


def test_a_number_the_roll_does_not_give_is_refused_with_the_rule() -> None:
    from pitable.rules import find_title

    title = find_title("temple")
    phone = PlayerSheet(title.generate_sheet(Side.A, 1))
    phone.start_turn(Roll.from_str("1,1,1"))
    cell = next(a.cell for a in phone.legal() if a.act is Act.WRITE)
    rule = phone.check(Action(Act.WRITE, (cell,), 15))
    assert rule == "the roll does not give this number"
    with pytest.raises(IllegalMove, match="does not give"):
        phone.play(Action(Act.WRITE, (cell,), 15))
    assert phone.actions == []


def test_no_move_before_the_firstrandom_roll() -> None:
    from pitable.rules import find_title

    phone = PlayerSheet(find_title("valley").generate_sheet(Side.A, 1))
    assert phone.legal() == []
    assert phone.check(Action(Act.WRITE, ((0, 0),), 1)) == "no roll to play yet"
    with pytest.raises(IllegalMove):
        phone.finish_turn()


@pytest.mark.parametrize("title", PLAYED, indirect=True)
def test_the_numbers_offered_are_every_legal_number_in_every_space(title: Title) -> None:
    """A title whose rules allow a space and a number apart is offered its numbers found a
    space and a number at a time: they are every pair the replay accepts, no more."""
    bot = title.bot()
    assert bot is not None
    sheet = title.generate_sheet(Side.A, 21)
    player = bot.player(title, sheet)
    phone = PlayerSheet(sheet, solo=True)
    rng = random.Random(21)
    for rnd in range(1, 12):
        roll = random_roll(rng)
        options = title.options(roll, phone.hazards)
        phone.start_turn(roll, phone.hazards)
        for action in [*player.turn(options, rnd), None]:
            every = {Action(Act.WRITE, (cell,), n)
                     for cell, kind in phone.replay().kind.items()
                     if kind.fillable and phone.replay().empty(cell)
                     for n in options.numbers}
            legal = {a for a in every if phone.check(a) is None}
            assert {a for a in phone.legal() if a.act is Act.WRITE} == legal, rnd
            if action is not None:
                phone.play(action)
        phone.finish_turn()
        if player.over() or phone.over():
            break


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=12),
       st.integers(1, 4))
def test_groups_are_every_adjacent_group_of_the_size_once(cells: set[tuple[int, int]],
                                                          size: int) -> None:
    found = list(groups(cells, size, lambda g: True, most=10**6))
    assert len(found) == len(set(found))
    expected = {frozenset(c) for c in itertools.combinations(sorted(cells), size)
                if connected(set(c))}
    assert set(found) == expected
