"""The players' book: who joined a game on their phone, and every move they made, kept in the
session store as durably as a roll."""

from __future__ import annotations

import itertools
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from pitable.box.players import MAX_PLAYERS, PlayerBook, StoredMove, token_hash
from pitable.box.store import DB_NAME, MIGRATIONS, PLAYERS_SINCE, SCHEMA_VERSION, SessionStore
from pitable.errors import (
    BadInitials,
    GameEnded,
    InitialsTaken,
    StoreError,
    TableFull,
    TokenInUse,
    TurnClosed,
    UnknownGame,
    UnknownPlayer,
)
from pitable.rules import Roll

T0 = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    # A clock a second later at each reading: every join has its own time.
    seconds = itertools.count()
    with SessionStore.open(tmp_path, clock=lambda: T0 + timedelta(seconds=next(seconds))) as s:
        yield s


@pytest.fixture
def book(store: SessionStore) -> PlayerBook:
    return PlayerBook(store)


def table_game(store: SessionStore) -> int:
    return store.new_game("valley", "table").id


# --- joining -------------------------------------------------------------------------


def test_players_join_in_order_with_their_initials_upper_case(
    store: SessionStore, book: PlayerBook
) -> None:
    game = table_game(store)
    ann = book.join(game, "ann", "secret-ann")
    bo = book.join(game, "Bo", "secret-bo")
    robot = book.join(game, "X", "secret-x", bot=True)
    assert (ann.initials, bo.initials, robot.initials) == ("ANN", "BO", "X")
    assert (ann.game_id, ann.bot, robot.bot) == (game, False, True)
    assert book.players(game) == [ann, bo, robot]
    assert book.player(bo.id) == bo
    assert ann.joined_at < bo.joined_at


@pytest.mark.parametrize("initials", ["éva", "Ωμ", "李", "ÑO", "e\u0301"])
def test_initials_are_letters_of_any_script(
    store: SessionStore, book: PlayerBook, initials: str
) -> None:
    player = book.join(table_game(store), initials, "t")
    assert player.initials.isalpha() and 1 <= len(player.initials) <= 3
    assert player.initials == player.initials.upper()


@pytest.mark.parametrize("initials", ["", "ABCD", "A1", "A B", "a.", " AB", "\u202e", "ßßß"])
def test_initials_that_are_not_one_to_three_letters_are_refused(
    store: SessionStore, book: PlayerBook, initials: str
) -> None:
    game = table_game(store)
    with pytest.raises(BadInitials, match=r"initials .*: one to 3 letters") as caught:
        book.join(game, initials, "t")
    assert "\n" not in str(caught.value)
    assert book.players(game) == []


def test_initials_taken_at_a_game_are_refused_whatever_their_case(
    store: SessionStore, book: PlayerBook
) -> None:
    game = table_game(store)
    book.join(game, "ANN", "first")
    with pytest.raises(InitialsTaken, match=f"game {game} has a player ANN already"):
        book.join(game, "aNn", "second")
    # Another game is another table.
    assert book.join(table_game(store), "ann", "second").initials == "ANN"


def test_a_game_takes_a_hundred_players_and_no_more(store: SessionStore, book: PlayerBook) -> None:
    game = table_game(store)
    letters = "ABCDEFGHIJ"
    for k in range(MAX_PLAYERS):
        book.join(game, letters[k // 10] + letters[k % 10], f"token-{k}")
    assert MAX_PLAYERS == 100
    with pytest.raises(TableFull, match="100 players"):
        book.join(game, "ZZ", "one-too-many")
    assert len(book.players(game)) == MAX_PLAYERS


def test_an_ended_or_unknown_game_takes_no_player(store: SessionStore, book: PlayerBook) -> None:
    game = table_game(store)
    store.end_game(game)
    with pytest.raises(GameEnded, match="ended"):
        book.join(game, "AB", "t")
    with pytest.raises(UnknownGame, match="no game 99"):
        book.join(99, "AB", "t")


def test_joining_again_with_the_same_token_gives_the_same_player(
    store: SessionStore, book: PlayerBook
) -> None:
    game = table_game(store)
    first = book.join(game, "ann", "phone")
    assert book.join(game, "ann", "phone") == first
    assert book.join(game, "ANN", "phone") == first
    assert book.players(game) == [first]


def test_a_token_of_another_games_player_is_refused(store: SessionStore, book: PlayerBook) -> None:
    old = table_game(store)
    book.join(old, "ann", "phone")
    new = table_game(store)
    with pytest.raises(TokenInUse, match=f"game {old}"):
        book.join(new, "ann", "phone")
    assert book.players(new) == []


def test_a_player_is_found_by_token(store: SessionStore, book: PlayerBook) -> None:
    game = table_game(store)
    ann = book.join(game, "ann", "phone-of-ann")
    assert book.player_by_token("phone-of-ann") == ann
    assert book.player_by_token("phone-of-bo") is None
    with pytest.raises(StoreError, match="token is empty"):
        book.join(game, "bo", "")


def test_the_token_is_never_stored_only_its_hash(tmp_path: Path) -> None:
    token = "Zq8-very-secret-token-4711"
    with SessionStore.open(tmp_path) as store:
        book = PlayerBook(store)
        game = table_game(store)
        book.join(game, "ann", token)
        row = store._connection().execute("SELECT token_hash FROM players").fetchone()
        assert row[0] == token_hash(token)
        # Read while the WAL still holds the row, and after it went into the file.
        files = [p for p in tmp_path.iterdir() if p.name.startswith(DB_NAME)]
        assert not any(token.encode() in p.read_bytes() for p in files)
    files = [p for p in tmp_path.iterdir() if p.name.startswith(DB_NAME)]
    assert files and not any(token.encode() in p.read_bytes() for p in files)
    assert token_hash(token) in (tmp_path / DB_NAME).read_bytes()


# --- moves ---------------------------------------------------------------------------


def test_moves_come_back_as_they_were_made(store: SessionStore, book: PlayerBook) -> None:
    ann = book.join(table_game(store), "ann", "t")
    made = [
        book.add_move(ann.id, 1, "write", [(0, 0)], 5),
        book.add_move(ann.id, 1, "write", [[2, 3], (2, 4)], "ab"),
        book.add_move(ann.id, 2, "cross", [], None),
        book.add_move(ann.id, 2, "word", [(10, 11)], "wiraqocha ñ é"),
    ]
    assert made == [
        StoredMove(1, 1, "write", ((0, 0),), 5),
        StoredMove(1, 2, "write", ((2, 3), (2, 4)), "ab"),
        StoredMove(2, 1, "cross", (), None),
        StoredMove(2, 2, "word", ((10, 11),), "wiraqocha ñ é"),
    ]
    assert book.moves(ann.id) == made


def test_moves_are_ordered_by_round_then_seq_whatever_order_they_came(
    store: SessionStore, book: PlayerBook
) -> None:
    ann = book.join(table_game(store), "ann", "t")
    book.add_move(ann.id, 3, "write", [(0, 3)], 1)
    book.add_move(ann.id, 1, "write", [(0, 1)], 1)
    book.add_move(ann.id, 3, "write", [(1, 3)], 2)
    book.add_move(ann.id, 2, "write", [(0, 2)], 1)
    assert [(m.round, m.seq, m.cells) for m in book.moves(ann.id)] == [
        (1, 1, ((0, 1),)),
        (2, 1, ((0, 2),)),
        (3, 1, ((0, 3),)),
        (3, 2, ((1, 3),)),
    ]


def test_a_move_the_store_cannot_keep_as_it_is_is_refused(
    store: SessionStore, book: PlayerBook
) -> None:
    ann = book.join(table_game(store), "ann", "t")
    for args in [
        (0, "write", [(0, 0)], 1),
        (1, "", [(0, 0)], 1),
        (1, "write", [(0, -1)], 1),
        (1, "write", [(0, 1, 2)], 1),
        (1, "write", [(0, 0)], True),
        (1, "write", [(0, 0)], 1.5),
    ]:
        with pytest.raises(StoreError, match="a move's"):
            book.add_move(ann.id, *args)  # type: ignore[arg-type]
    with pytest.raises(UnknownPlayer, match="no player 99"):
        book.add_move(99, 1, "write", [(0, 0)], 1)
    assert book.moves(ann.id) == []


def test_the_last_move_of_a_round_can_be_taken_back(store: SessionStore, book: PlayerBook) -> None:
    ann = book.join(table_game(store), "ann", "t")
    first = book.add_move(ann.id, 1, "write", [(0, 0)], 1)
    second = book.add_move(ann.id, 1, "write", [(0, 1)], 2)
    assert book.take_back(ann.id, 1) == second
    assert book.moves(ann.id) == [first]
    # The next move takes the place of the one taken back.
    assert book.add_move(ann.id, 1, "write", [(0, 2)], 3).seq == 2
    assert book.take_back(ann.id, 1) is not None
    assert book.take_back(ann.id, 1) == first
    assert book.take_back(ann.id, 1) is None
    assert book.moves(ann.id) == []


def test_a_finished_round_keeps_its_moves(store: SessionStore, book: PlayerBook) -> None:
    game = table_game(store)
    ann = book.join(game, "ann", "a")
    bo = book.join(game, "bo", "b")
    move = book.add_move(ann.id, 1, "write", [(0, 0)], 4)
    book.add_move(bo.id, 1, "write", [(0, 0)], 4)
    book.finish_turn(ann.id, 1)
    book.finish_turn(ann.id, 1)  # a second tap on Done changes nothing
    with pytest.raises(TurnClosed, match=f"player {ann.id} has finished round 1"):
        book.take_back(ann.id, 1)
    with pytest.raises(TurnClosed):
        book.add_move(ann.id, 1, "write", [(0, 1)], 5)
    assert book.moves(ann.id) == [move]
    assert book.done_rounds(ann.id) == {1}
    # The next round is open, and so is everyone else's first.
    book.add_move(ann.id, 2, "write", [(0, 1)], 5)
    assert book.take_back(bo.id, 1) is not None
    assert book.done_rounds(bo.id) == set()
    with pytest.raises(UnknownPlayer):
        book.finish_turn(99, 1)


def test_a_whole_turn_is_kept_with_its_done_or_none_of_it_is(
    store: SessionStore, book: PlayerBook
) -> None:
    game = table_game(store)
    ann = book.join(game, "ann", "a")
    bo = book.join(game, "bo", "b")
    stored = book.add_turn(ann.id, 1, [("write", [(0, 0)], 4), ("write", [(0, 1)], 5)])
    assert book.moves(ann.id) == stored
    assert [(m.seq, m.cells, m.value) for m in stored] == [(1, ((0, 0),), 4), (2, ((0, 1),), 5)]
    assert book.done_rounds(ann.id) == {1}
    with pytest.raises(TurnClosed):
        book.add_turn(ann.id, 1, [("write", [(0, 2)], 6)])
    # A move the store cannot keep: nothing of the turn is written, nor its Done.
    with pytest.raises(StoreError, match="a move's"):
        book.add_turn(bo.id, 1, [("write", [(0, 0)], 4), ("write", [(0, -1)], 5)])
    # The database refuses the second move's row: the first is rolled back with it.
    with sqlite3.connect(store.path) as db:
        db.execute("CREATE TRIGGER refuse BEFORE INSERT ON moves WHEN NEW.seq = 2"
                   " BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(StoreError, match="refused"):
        book.add_turn(bo.id, 1, [("write", [(0, 0)], 4), ("write", [(0, 1)], 5)])
    assert book.moves(bo.id) == [] and book.done_rounds(bo.id) == set()
    # An empty turn is a turn passed: its Done alone.
    book.add_turn(bo.id, 1, [])
    assert book.moves(bo.id) == [] and book.done_rounds(bo.id) == {1}


def test_all_moves_of_a_game_in_one_read(store: SessionStore, book: PlayerBook) -> None:
    game = table_game(store)
    players = [book.join(game, initials, initials) for initials in ("A", "B", "C")]
    other = book.join(table_game(store), "A", "other")
    for rnd in (1, 2):
        for p in players[:2]:
            book.add_move(p.id, rnd, "write", [(rnd, p.id)], rnd)
        book.finish_turn(players[0].id, rnd)
    book.add_move(other.id, 1, "write", [(0, 0)], 1)
    loaded = book.all_moves(game)
    assert list(loaded) == [p.id for p in players]
    assert {pid: moves for pid, moves in loaded.items()} == {
        p.id: book.moves(p.id) for p in players
    }
    assert loaded[players[2].id] == []
    assert book.all_done_rounds(game) == {
        players[0].id: {1, 2},
        players[1].id: set(),
        players[2].id: set(),
    }
    with pytest.raises(UnknownGame):
        book.all_moves(99)


def test_every_sheet_of_a_full_table_comes_back_after_a_restart(tmp_path: Path) -> None:
    with SessionStore.open(tmp_path) as store:
        book = PlayerBook(store)
        game = table_game(store)
        players = [
            book.join(game, f"P{chr(65 + k // 26)}{chr(65 + k % 26)}", str(k)) for k in range(100)
        ]
        db = store._connection()
        # Fifty rounds of two moves each for a hundred players, written in one transaction
        # here (the box writes them one by one): what the box reads back when it starts.
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO moves (player_id, round, seq, act, cells, value, at)"
            " VALUES (?, ?, ?, 'write', ?, ?, '2026-12-06T20:00:00+00:00')",
            [
                (p.id, rnd, seq, f"[[{rnd},{seq}]]", str(seq))
                for p in players
                for rnd in range(1, 51)
                for seq in (1, 2)
            ],
        )
        db.execute("COMMIT")
    with SessionStore.open(tmp_path) as store:
        loaded = PlayerBook(store).all_moves(game)
    assert len(loaded) == 100
    assert all(len(moves) == 100 for moves in loaded.values())
    assert loaded[players[7].id][-1] == StoredMove(50, 2, "write", ((50, 2),), 2)


def test_moves_outlive_a_process_that_dies_without_closing(tmp_path: Path) -> None:
    code = (
        "import os, sys\n"
        "from pitable.box.store import SessionStore\n"
        "from pitable.box.players import PlayerBook\n"
        "store = SessionStore.open(sys.argv[1])\n"
        "book = PlayerBook(store)\n"
        "game = store.new_game('valley', 'table').id\n"
        "p = book.join(game, 'ann', 'tok')\n"
        "book.add_move(p.id, 1, 'write', [(1, 2)], 3)\n"
        "book.finish_turn(p.id, 1)\n"
        "book.add_move(p.id, 2, 'write', [(1, 3)], 'x')\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True)
    with SessionStore.open(tmp_path) as store:
        assert store.recovered is None
        book = PlayerBook(store)
        ann = book.player_by_token("tok")
        assert ann is not None
        assert book.moves(ann.id) == [
            StoredMove(1, 1, "write", ((1, 2),), 3),
            StoredMove(2, 1, "write", ((1, 3),), "x"),
        ]
        assert book.done_rounds(ann.id) == {1}


# --- schema versions and readers ----------------------------------------------------------


def version_3_database(directory: Path) -> Path:
    """A database as pitable kept it before players: a table game in progress, a setting."""
    path = directory / DB_NAME
    db = sqlite3.connect(path, isolation_level=None)
    for step in MIGRATIONS[: PLAYERS_SINCE - 1]:
        for statement in (s for s in step.split(";") if s.strip()):
            db.execute(statement)
    db.execute(f"PRAGMA user_version = {PLAYERS_SINCE - 1}")
    db.execute(
        "INSERT INTO games (title, mode, started_at, map_side, map_seed, map_format) VALUES"
        " ('island', 'table', '2026-11-29T20:00:00+00:00', 'a', 4321, 2)"
    )
    db.execute(
        "INSERT INTO rolls (game_id, n, at, green, purple, red, source, hazard,"
        " hazards_after) VALUES (1, 1, '2026-11-29T20:00:01+00:00', '2', '3', '4',"
        " 'os', 0, 0)"
    )
    db.execute("INSERT INTO settings (name, value) VALUES ('players', '6')")
    db.close()
    return path


def test_a_version_3_database_is_migrated_and_takes_players(tmp_path: Path) -> None:
    version_3_database(tmp_path)
    with SessionStore.open(tmp_path) as store:
        assert store.recovered is None
        assert store.version == SCHEMA_VERSION >= PLAYERS_SINCE
        db = store._connection()
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type='table'")}
        assert {"players", "moves", "turns_done", "deals", "paper_scores", "standings"} <= tables
        (game,) = store.games()
        assert (game.id, game.rounds, game.seed) == (1, 1, 4321)
        assert store.setting("players") == "6"
        book = PlayerBook(store)
        assert book.players(1) == []
        ann = book.join(1, "ann", "t")
        book.add_move(ann.id, 1, "write", [(0, 0)], 2)
        store.record_roll(1, Roll.from_str("1,1,1"), "os", False, 0)
    with SessionStore.open(tmp_path) as store:
        assert [p.initials for p in PlayerBook(store).players(1)] == ["ANN"]
        assert store.state(1).rounds == 2


def test_a_reader_sees_the_players_and_their_moves(tmp_path: Path) -> None:
    with SessionStore.open(tmp_path) as store:
        book = PlayerBook(store)
        game = table_game(store)
        ann = book.join(game, "ann", "t")
        move = book.add_move(ann.id, 1, "write", [(0, 0)], 2)
        book.finish_turn(ann.id, 1)
    with SessionStore.open_read_only(tmp_path) as reader:
        book = PlayerBook(reader)
        assert book.players(game) == [ann]
        assert book.player_by_token("t") == ann
        assert book.moves(ann.id) == [move]
        assert book.all_moves(game) == {ann.id: [move]}
        assert book.done_rounds(ann.id) == {1}
        with pytest.raises(StoreError):
            book.add_move(ann.id, 2, "write", [(0, 1)], 3)
        with pytest.raises(StoreError):
            book.join(game, "bo", "b")


def test_a_reader_of_a_database_from_before_players_finds_none(tmp_path: Path) -> None:
    path = version_3_database(tmp_path)
    before = path.read_bytes()
    with SessionStore.open_read_only(tmp_path) as reader:
        assert reader.version == PLAYERS_SINCE - 1
        book = PlayerBook(reader)
        assert book.players(1) == []
        assert book.all_moves(1) == {}
        assert book.all_done_rounds(1) == {}
        assert book.player_by_token("t") is None
        with pytest.raises(UnknownPlayer):
            book.moves(1)
        with pytest.raises(UnknownGame):
            book.players(2)
    assert path.read_bytes() == before


def test_history_of_a_database_from_before_players_reads_without_changing_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.conftest import run_cli

    path = version_3_database(tmp_path)
    before = path.read_bytes()
    code, out, _ = run_cli(capsys, "history", "--state-dir", str(tmp_path))
    assert code == 0
    assert out.splitlines()[0].startswith("game 1: Skull Island, table, map A·4321")
    assert "players" not in out
    code, out, _ = run_cli(capsys, "history", "--json", "--state-dir", str(tmp_path))
    assert json.loads(out.splitlines()[0])["players"] == []
    assert path.read_bytes() == before
