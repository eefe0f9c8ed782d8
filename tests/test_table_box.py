"""The box at a table of phones: the pace on the status screen, a press while players are
still writing asks for a second, the last round's press ends the game; the box as a player
plays a whole game to the title's detected end with the players on phones."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from pitable.box.box_players import BoxPlayers
from pitable.box.controller import CONFIRM_S
from pitable.box.phones import LATE, PhoneTable
from pitable.box.players import PlayerBook
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.errors import IllegalMove, StoreError
from pitable.rules.base import ENGLISH, Options
from pitable.rules.bot.model import Action
from pitable.rules.scoring import parse_sheet
from pitable.rules.table import Pace, deal, pace_line
from pitable.rules.titles import find_title
from tests.support.box import make
from tests.support.entropy import Seeded


def phone_box(tmp_path: Path, *rolls: str,
              title: str = "temple") -> tuple[Simulator, PhoneTable]:
    store = SessionStore.open(tmp_path)
    sim = make(*rolls, mode="table", title=title, store=store)
    source = Seeded(3)
    sim.box._deal = lambda ids: deal(ids, source)  # type: ignore[method-assign]
    phones = PhoneTable(store)
    sim.box.pace = phones.pace
    phones.listen(sim.box.table_changed)
    return sim, phones


def press(sim: Simulator, phones: PhoneTable) -> None:
    sim.press()
    phones.sync()


def test_a_press_while_players_write_asks_for_a_second_which_rolls(tmp_path: Path) -> None:
    sim, phones = phone_box(tmp_path, "2,3,4", "1,2,2", "5,1,3")
    try:
        ann = phones.join("AN")[0]
        phones.join("BO")
        press(sim, phones)
        assert sim.box.game.state.rounds == 1
        assert "0 of 2 done" in (sim.box.view().message or "")
        phones.done(ann)
        phones.sync()
        sim.advance(0.1)
        shown = sim.box.view().message or ""
        assert "1 of 2 done" in shown and "BO" in shown and "AN" not in shown.split(":")[-1]
        press(sim, phones)
        assert sim.box.game.state.rounds == 1, "the first press does not roll"
        assert sim.box.message == "1 still writing: press again to roll"
        press(sim, phones)
        assert sim.box.game.state.rounds == 2, "the second press rolls"
        # The second press must come soon: after the window, it asks again, and
        # meanwhile the screen says the pace again.
        press(sim, phones)
        assert "still writing" in (sim.box.view().message or "")
        sim.advance(CONFIRM_S + 1)
        assert "0 of 2 done" in (sim.box.view().message or "")
        press(sim, phones)
        assert sim.box.game.state.rounds == 2
    finally:
        sim.close()


def test_when_everyone_is_done_one_press_rolls(tmp_path: Path) -> None:
    sim, phones = phone_box(tmp_path, "2,3,4", "1,2,2")
    try:
        tokens = [phones.join(p)[0] for p in ("AN", "BO")]
        press(sim, phones)
        for token in tokens:
            phones.done(token)
        press(sim, phones)
        assert sim.box.game.state.rounds == 2
    finally:
        sim.close()


def test_the_press_after_the_last_round_ends_the_game(tmp_path: Path) -> None:
    sim, _phones = phone_box(tmp_path, "2,3,4", "1,2,2")
    try:
        sim.box.pace = lambda r: Pace(r, 2, 2, (), r >= 1)
        sim.press()
        assert sim.box.game.state.rounds == 1
        assert (sim.box.view().message or "").startswith("Last round")
        sim.press()
        assert sim.box.game.ended and sim.box.game.state.rounds == 1
    finally:
        sim.close()


def test_a_whole_turn_is_stored_with_its_done_or_nothing_is(tmp_path: Path) -> None:
    sim, phones = phone_box(tmp_path, "2,3,4", "1,2,2", "5,1,3")
    try:
        token = phones.join("AN")[0]
        press(sim, phones)
        seat = phones.seat(token)
        first = seat.sheet.legal()[0]
        book = PlayerBook(phones.store)
        # The second move is refused (its space is taken by the first): nothing is kept.
        with pytest.raises(IllegalMove):
            phones.play_turn(token, 1, [first, first])
        assert book.moves(seat.player.id) == [] and book.done_rounds(seat.player.id) == set()
        assert seat.sheet.actions == [] and not seat.sheet.done
        # The store fails: the sheet is left as the store has it.
        with sqlite3.connect(phones.store.path) as db:
            db.execute("CREATE TRIGGER refuse BEFORE INSERT ON turns_done"
                       " BEGIN SELECT RAISE(ABORT, 'refused'); END")
        with pytest.raises(StoreError):
            phones.play_turn(token, 1, [first])
        assert book.moves(seat.player.id) == [] and seat.sheet.actions == []
        with sqlite3.connect(phones.store.path) as db:
            db.execute("DROP TRIGGER refuse")
        phones.play_turn(token, 1, [first])
        assert [(m.round, m.cells, m.value) for m in book.moves(seat.player.id)] == [
            (1, first.cells, first.value)]
        assert book.done_rounds(seat.player.id) == {1} and seat.sheet.done
        press(sim, phones)
        with pytest.raises(IllegalMove) as late:
            phones.play_turn(token, 1, [])
        assert late.value.rule == LATE
        assert book.done_rounds(seat.player.id) == {1}
    finally:
        sim.close()


@pytest.mark.parametrize(("strength", "cut"), [
    ("greedy", "thinking"), ("plan", "thinking"), ("greedy", "between")])
def test_a_box_player_caught_by_the_next_roll_keeps_its_sheet_as_stored(
        tmp_path: Path, strength: str, cut: str, caplog: pytest.LogCaptureFixture) -> None:
    # The table rolls again (twice pressed) in round 2, while a box's player thinks, or
    # between its first move and the rest.
    dice = random.Random(8)
    rolls = [",".join(dice.choice("12345") for _ in range(3)) for _ in range(20)]
    sim, phones = phone_box(tmp_path, *rolls, title="valley")
    bots = BoxPlayers(phones)
    caplog.set_level("INFO", logger="pitable.box_players")
    try:
        bots.add(strength)
        press(sim, phones)
        wait_for_bots(phones, 1)
        bot = bots._bots[0]
        caught, go_on = threading.Event(), threading.Event()
        if cut == "thinking":
            mover = bot.mover
            assert mover is not None
            chose = mover.turn

            def slow(options: Options, round_: int) -> list[Action]:
                caught.set()
                assert go_on.wait(10)
                return chose(options, round_)

            mover.turn = slow  # type: ignore[method-assign]
        else:
            sheet = phones.seat(bot.token).sheet
            play = sheet.play

            def then_a_roll(action: Action) -> None:
                play(action)
                if sheet.round == 2 and not caught.is_set():
                    caught.set()
                    assert go_on.wait(10)

            sheet.play = then_a_roll  # type: ignore[method-assign]
        # No sync from here until it goes on: caught between its moves, it holds the
        # table's lock, and the bots' thread reads the roll by itself (IDLE_S).
        sim.press()
        assert caught.wait(10), "it was caught in round 2"
        sim.press()
        sim.press()
        assert sim.box.game.state.rounds == 3, sim.box.message
        go_on.set()
        phones.sync()
        wait_for_bots(phones, 3)
        for n in range(4, 8):
            press(sim, phones)
            wait_for_bots(phones, n)
        book = PlayerBook(phones.store)
        seat = phones.seat(bot.token)
        done = book.done_rounds(seat.player.id)
        second = [m for m in book.moves(seat.player.id) if m.round == 2]
        if cut == "thinking":
            assert second == [] and 2 not in done, "a turn the roll closed is passed"
        else:
            assert len(second) >= 2 and 2 in done, "a turn begun is stored whole"
        assert done >= {1, 3, 4, 5, 6, 7}
        assert bot.mover is not None and bot.mover.tokens() == seat.sheet.tokens(), (
            "its own view of its sheet is the sheet as stored")
        assert not [r for r in caplog.records if "refused" in r.getMessage()]
    finally:
        bots.close()
        sim.close()


def test_the_pace_line_names_who_writes_and_counts_the_rest() -> None:
    pace = Pace(3, 9, 2, ("AA", "BB", "CC", "DD", "EE", "FF", "GG"), False)
    assert pace_line(pace, ENGLISH) == "2 of 9 done; writing: AA BB CC DD +3"
    assert pace_line(Pace(3, 2, 2, (), True), ENGLISH) == "Last round: 2 of 2 done"


@pytest.mark.parametrize("title", ["valley", "island", "temple"])
def test_box_players_play_a_table_game_to_its_detected_end_and_are_ranked(
        tmp_path: Path, title: str) -> None:
    # Rolls from a seeded source: more than the game needs.
    dice = random.Random(11 + len(title))
    faces = ["1", "2", "3", "4", "5", "*"]
    rolls = [",".join(dice.choice(faces) for _ in range(3)) for _ in range(200)]
    sim, phones = phone_box(tmp_path, *rolls, title=title)
    bots = BoxPlayers(phones)
    try:
        added = [bots.add("greedy") for _ in range(3)]
        assert added == ["ZA", "ZB", "ZC"]
        hazards = 0
        for _ in range(200):
            before = sim.box.game.state.rounds
            press(sim, phones)
            if sim.box.game.ended:
                break
            assert sim.box.game.state.rounds == before + 1, sim.box.message
            hazards += sim.box.game.last_options.hazard  # type: ignore[union-attr]
            wait_for_bots(phones, sim.box.game.state.rounds)
        assert sim.box.game.ended, "the game ended when a sheet ended it"
        phones.sync()
        game_id = sim.box.game.store_id
        assert game_id is not None
        seats = phones.seats()
        assert any(s.sheet.over() for s in seats)
        assert hazards >= 2
        assert all(len(s.sheet.placed) == hazards or s.sheet.over() for s in seats)
        t = find_title(title)
        expected = {}
        for seat in seats:
            text, _name = phones.text(seat)
            sheet = parse_sheet(text)
            expected[seat.player.initials] = (t.score(sheet).total, t.tie_break(sheet))
        ranking = phones.standings(game_id)
        assert {p.initials: (p.total, p.tie) for p in ranking} == expected
        # The status screen and the TV's snapshot: the winner, and the ranking.
        sim.box.ranking = phones.ranking
        view = sim.box.view()
        assert view.ranking == tuple((p.place, p.initials, p.total, p.shared)
                                     for p in ranking)
        assert view.message is not None and ranking[0].initials in view.message
        assert all(p.bot for p in ranking)
        keys = [(-p.total, -(p.tie or 0)) for p in ranking]
        assert keys == sorted(keys)
    finally:
        bots.close()
        sim.close()


def wait_for_bots(phones: PhoneTable, round_: int, limit_s: float = 20.0) -> None:
    """Until every box's player is done with the round (bounded)."""
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        pace = phones.pace(round_)
        if pace is not None and pace.round == round_ and not pace.writing:
            return
        time.sleep(0.005)
    raise AssertionError(f"the box's players did not finish round {round_}")


@pytest.mark.parametrize("title", ["valley", "temple"])
def test_after_a_restart_the_box_s_players_play_on_where_they_were(
        tmp_path: Path, title: str, caplog: pytest.LogCaptureFixture) -> None:
    dice = random.Random(5)
    faces = ["1", "2", "3", "4", "5", "*"]
    rolls = [",".join(dice.choice(faces) for _ in range(3)) for _ in range(200)]
    rolls[1] = rolls[4] = "2,3,*"
    sim, phones = phone_box(tmp_path, *rolls, title=title)
    bots = BoxPlayers(phones)
    try:
        assert [bots.add("greedy"), bots.add("plan")] == ["ZA", "ZB"]
        for n in range(6):
            if n == 3:
                # One more sits down during the game: it plays from there on.
                assert bots.add("greedy") == "ZC"
                wait_for_bots(phones, sim.box.game.state.rounds)
            press(sim, phones)
            assert sim.box.game.state.rounds == n + 1
            wait_for_bots(phones, sim.box.game.state.rounds)
        bots.close()
        # The box restarts: its table and its players are built again from its store.
        phones = PhoneTable(phones.store)
        sim.box.pace = phones.pace
        again = BoxPlayers(phones)
        bots = again
        assert again.resume() == ["ZA", "ZB", "ZC"]
        assert again.resume() == [], "each is resumed once"
        caplog.set_level("INFO", logger="pitable.box_players")
        for n in range(7, 13):
            press(sim, phones)
            assert sim.box.game.state.rounds == n, sim.box.message
            wait_for_bots(phones, n)
        assert not [r for r in caplog.records if "refused" in r.getMessage()], [
            r.getMessage() for r in caplog.records]
        game = sim.box.game.store_id
        assert game is not None
        book = PlayerBook(phones.store)
        written = {r.n for r in phones.store.rolls(game) if not r.hazard and r.n > 6}
        for player in book.players(game):
            assert {m.round for m in book.moves(player.id)} >= written, player.initials
            assert book.done_rounds(player.id) >= set(range(7, 13))
    finally:
        bots.close()
        sim.close()


def test_a_paper_player_s_stars_entered_on_the_box_join_the_ranking(tmp_path: Path) -> None:
    sim, phones = phone_box(tmp_path, "2,3,4", "1,2,2")
    try:
        phones.join("AN")
        press(sim, phones)
        sim.box.paper_scores = phones.add_paper
        sim.box.ranking = phones.ranking
        assert not sim.box.takes_paper_scores()
        sim.box.end_game()
        phones.sync()
        assert sim.box.takes_paper_scores()
        assert (sim.box.view().message or "").startswith("Winner")
        sim.box.add_paper_score("AN", 12)
        assert sim.box.message == "these initials are a player's on a phone"
        # Said on the screen, not hidden by the winner.
        assert sim.box.view().message == sim.box.message
        sim.box.add_paper_score("PQ", 99)
        assert sim.box.message == "PQ's stars are in the ranking"
        game_id = sim.box.game.store_id
        assert game_id is not None
        ranking = phones.standings(game_id)
        assert (ranking[0].initials, ranking[0].paper) == ("PQ", True)
        sim.advance(0.1)
        assert sim.box.view().ranking[0][1] == "PQ"
    finally:
        sim.close()


def test_a_generator_failing_at_the_deal_loses_no_roll(tmp_path: Path) -> None:
    import inspect

    from pitable.errors import HealthTestFailure

    sim, phones = phone_box(tmp_path, "2,3,4", "1,2,*", "5,1,3", "1,2,*")
    del sim.box._deal  # the box's own deal, from its entropy
    real = sim.box.entropy

    class FailingAfterDice:
        """The dice are drawn; the generator fails while the roll's deal is drawn."""

        name = "hwrng"

        def read(self, n: int) -> bytes:
            if any(frame.function == "_deal" for frame in inspect.stack()):
                raise HealthTestFailure("repetition count test failed")
            return real.read(n)

    try:
        for initials in ("AN", "BO", "CY"):
            phones.join(initials)
        sim.box.entropy = FailingAfterDice()  # type: ignore[assignment]
        for n in range(1, 5):
            press(sim, phones)
            if sim.box.game.state.rounds < n:
                press(sim, phones)  # the second press, while the players still write
            assert sim.box.game.state.rounds == n
        game = sim.box.game.store_id
        assert game is not None
        assert [r.n for r in phones.store.rolls(game)] == [1, 2, 3, 4]
        deals = PlayerBook(phones.store).deals(game)
        assert sorted({d.round for d in deals}) == [2, 4]
        for rnd in (2, 4):
            dealt = {d.placer_id: d.owner_id for d in deals if d.round == rnd}
            assert sorted(dealt.values()) == sorted(dealt) and all(
                p != o for p, o in dealt.items())
    finally:
        sim.close()
