"""A fourth title from outside pitable/ works everywhere a title is asked for.

tests/toy_title.py defines the Toy Cupboard the way a contributor would add a title, and
nothing in pitable/ names it. Registered for one test at a time, it is known to ``pitable
options``, ``sheet`` and ``level``, to the box's menu and to the simulator; after each test
the registry holds the three real titles again, which other tests and goldens expect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image

from pitable.errors import UnknownTitle
from pitable.render.faces import Pen, die_panel, draw_face, symbol_kind
from pitable.render.status import StatusView, draw_status
from pitable.rules import (
    SPECIAL,
    Die,
    Roll,
    Title,
    all_titles,
    find_title,
    register,
    registered,
    unregister,
)
from pitable.rules.bot import play_games, player_for
from pitable.rules.bot.model import Act, Action, TurnRecord
from pitable.rules.session import GameState, Mode, level
from pitable.rules.sheets import MAP_FORMAT, Kind, generate
from pitable.rules.validate import breaches
from tests.conftest import run_cli
from tests.support.box import fake_printer, make, read_faces
from tests.support.pictures import same
from tests.toy_pictures import spider, toy_pictures, wind_up_key
from tests.toy_title import JACK, PlayedToyCupboard, ToyCupboard

THE_THREE = ["valley", "island", "temple"]


@pytest.fixture
def toy() -> Iterator[Title]:
    with registered(ToyCupboard) as title, toy_pictures():
        yield title
    assert [t.key for t in all_titles()] == THE_THREE


def test_the_toy_title_is_found_by_its_names_only_while_registered(toy: Title) -> None:
    assert find_title("TOY") is toy
    assert find_title("cupboard") is toy
    assert [t.key for t in all_titles()] == [*THE_THREE, "toy"]
    with pytest.raises(ValueError, match="taken"):
        register(ToyCupboard)


def test_after_the_test_the_toy_title_is_gone() -> None:
    with registered(ToyCupboard):
        pass
    with pytest.raises(UnknownTitle, match=r"valley, island, temple$"):
        find_title("toy")


def test_register_decorates_a_title_class_in_any_module() -> None:
    @register
    class Attic(ToyCupboard):
        key = "attic"
        name = "The Attic"
        aliases = ()

    try:
        assert find_title("attic").name == "The Attic"
    finally:
        unregister(Attic)
    with pytest.raises(UnknownTitle):
        find_title("attic")


def test_a_title_missing_a_fact_or_a_hook_is_refused() -> None:
    class Nameless(Title):
        key = "nameless"
        name = "Nameless"

    with pytest.raises(TypeError, match="does not set short_name, hazard_name"):
        register(Nameless)

    class Wordless(Title):
        key = "wordless"
        name = short_name = "Wordless"
        hazard_name = hazard_symbol = "rat"
        green_effect = ToyCupboard.green_effect
        level_thresholds = (1, 2, 3)
        solo_placement = "anywhere"

    with pytest.raises(TypeError, match="abstract"):
        register(Wordless)
    assert [t.key for t in all_titles()] == THE_THREE


def test_options_reads_a_roll_in_the_toy_title(toy: Title,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "options", "TOY", "1,2,3", "*,2,3", "1,2,*")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "1 2 3 -> 1 2 3 4 5 6",
        "* 2 3 -> 2 3 5; wind-up key",
        "1 2 * -> spider: the other dice are ignored",
    ]
    code, out, _ = run_cli(capsys, "options", "toy", "1,*,3", "--json")
    assert code == 0
    assert '"title": "toy"' in out and '"penny": true' in out and '"plays"' not in out
    code, _, err = run_cli(capsys, "options", "toy", "1,2,3", "--dangers", "1")
    assert code == 2 and "The Toy Cupboard has no danger bubbles (Skull Island only)" in err


def test_level_gives_the_toy_title_its_own_table(toy: Title,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "level", "toy", "12")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "The Toy Cupboard, 12 stars: Voyager; 8 more for Explorer",
        "levels: Tourist below 5, Pathfinder 5+, Voyager 10+, Explorer 20+",
    ]
    # A spider costs one star at every level, as the Valley's snakes cost four.
    code, out, _ = run_cli(capsys, "level", "toy", "18", "--snakes", "2")
    assert code == 0 and out.startswith("The Toy Cupboard, 18 stars with 2 snakes: Explorer")
    assert level(toy, 4, hazards=0).name == "Tourist"


def test_sheet_writes_the_toy_titles_map(toy: Title, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    png, txt = tmp_path / "toy.png", tmp_path / "toy.txt"
    code, out, err = run_cli(capsys, "sheet", "toy", "--seed", "5", "--out", str(png))
    assert (code, err) == (0, "")
    assert out == f"The Toy Cupboard, side A, seed 5: {png}\n"
    with Image.open(png) as image:
        assert image.width == 384 and image.height > 200
    run_cli(capsys, "sheet", "cupboard", "--seed", "5", "--out", str(txt))
    sheet = generate(toy, 5)
    assert txt.read_text() == sheet.to_text(label=True)
    assert len(sheet.cells(JACK)) == 2 and sheet.label == f"toy A 5 (map v{MAP_FORMAT})"
    # Every seed keeps the toy title's own invariants (generate checks them).
    shapes = {generate(toy, seed, side).to_text() for seed in range(60) for side in "ab"}
    assert len(shapes) > 60


def test_a_scripted_sim_plays_the_toy_title(toy: Title, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "box.png"
    code, out, err = run_cli(capsys, "sim", "--game", "toy", "--solo", "--seed", "3",
                             "--script", "press,press,press,hold,turn+1,push",
                             "--png", str(png))
    assert code == 0, err
    assert out.startswith("The Toy Cupboard, solo: 3 rolls, ")
    assert png.exists()


def test_the_simulated_box_counts_the_toy_titles_rounds_and_gives_its_level(
    toy: Title,
) -> None:
    rolls = ["1,2,3", "2,2,*", "3,3,3", "4,*,4", "5,5,5", "1,1,1", "2,2,2"]
    sim = make(*rolls, mode="solo", title="toy")
    assert sim.box.game.state == GameState(toy, Mode.SOLO)
    for _ in range(6):
        sim.press()
    assert read_faces(sim, "toy") == (1, 1, 1)
    assert same(sim.panel("red"), die_panel(1, Die.RED, toy))
    state = sim.box.game.state
    assert (state.rounds, state.hazards, state.over) == (6, 1, True)
    assert "Last round played" in (sim.box.view().message or "")
    # The menu lists the toy title by its short name, after the three real ones.
    sim.hold()
    sim.push()  # New game
    labels = [label for label, _ in sim.box.menu[-1].items]
    assert labels[-3:] == ["Toys: table", "Toys: solo", "Back"]
    assert labels[sim.box.menu[-1].selected] == "Toys: solo"
    sim.turn(+1)
    sim.push()  # Back
    sim.turn(+1)
    sim.push()  # End game: score
    sim.turn(9)  # one spider: Voyager from 10 - 1 stars
    sim.push()
    assert sim.box.view().result == "Voyager"
    assert sim.box.game.state.title.options(Roll.from_str("1,2,*")).hazard
    sim.close()


@pytest.mark.parametrize("command", ["bot", "level", "options", "score", "screen", "sheet"])
def test_every_commands_help_names_the_registered_titles(
    toy: Title, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The list of games in ``--help`` is the registry's, a fourth title included."""
    code, out, _err = run_cli(capsys, command, "--help")
    assert code == 0
    said = " ".join(out.split())
    assert "valley, island, temple or toy" in said, said


NO_BOT = "The Toy Cupboard has no bot player: the bot plays valley, island, temple\n"


def test_the_bot_refuses_the_toy_title_in_one_line(toy: Title,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "bot", "toy", "--games", "2")
    assert (code, out, err) == (2, "", f"pitable bot: error: {NO_BOT}")
    with pytest.raises(UnknownTitle, match="The Toy Cupboard has no bot player"):
        player_for(toy, generate(toy, 1))
    # Nor does the validator know its placement rules: it says so instead of replaying.
    found = breaches(generate(toy, 1), [])
    assert [str(b) for b in found] == [
        "the finished sheet: no placement rules are known for The Toy Cupboard"]


def test_a_solo_sheet_of_the_toy_title_has_its_levels_and_no_stars_to_beat(
        toy: Title, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The stars to beat are the bot's median on the map: a title the bot does not play
    gets its solo sheet all the same, levels and all, without a target."""
    from pitable.render.sheet import render_sheet

    for name in ("toy.png", "toy.pdf"):
        out_file = tmp_path / name
        code, _out, err = run_cli(capsys, "sheet", "toy", "--solo", "--seed", "5",
                                  "--out", str(out_file))
        assert (code, err) == (0, ""), err
        assert out_file.stat().st_size > 0
    sheet = generate(toy, 5)
    with Image.open(tmp_path / "toy.png") as drawn:
        solo = render_sheet(sheet, 384, solo=True)
        assert same(drawn.convert("1"), solo)
        assert not same(solo, render_sheet(sheet, 384))


def test_a_title_bringing_its_own_bot_and_replay_rules_is_played_and_checked(
        capsys: pytest.CaptureFixture[str]) -> None:
    with registered(PlayedToyCupboard) as title:
        sheet = generate(title, 4)
        for strength in ("greedy", "plan"):
            games = play_games(sheet, 3, dice_seed=2, strength=strength)
            assert [len(g.turns) for g in games] == [title.solo_rounds] * 3
            assert all(g.total > 0 for g in games)
            assert all(breaches(sheet, g.turns) == [] for g in games)
        # The title's own replay rules run: a number the roll does not give is named.
        first = games[0].turns[0]
        wrong = TurnRecord(first.roll, (Action(Act.WRITE, ((0, 0),), 99),))
        found = breaches(sheet, [wrong, *games[0].turns[1:]])
        assert any(b.rule == "the roll does not give this number" for b in found)
        code, out, err = run_cli(capsys, "bot", "played-toy", "--games", "3",
                                 "--strength", "greedy")
        assert (code, err) == (0, "") and "The Played Toy Cupboard" in out


def test_the_box_prints_a_solo_sheet_of_a_title_the_bot_does_not_play(toy: Title) -> None:
    """No bot, no stars to beat: the solo sheet prints with its levels and without a target,
    rather than failing as a printer error."""
    printer, paper = fake_printer()
    sim = make("1,2,3", mode="solo", title="toy", printer=printer)
    sim.press()
    sim.hold()
    labels = [label for label, _action in sim.box.menu[-1].items]
    sim.turn(labels.index("Print a sheet"))
    sim.push()
    sim.wait_for_prints()
    assert sim.box.view().message == f"Printed: Toys {sim.box.game.map.tag}"
    assert not printer.spooler.failed()
    assert paper.printout().height > 200
    sim.close()


def test_the_screen_shows_the_toy_titles_own_green_face_and_its_chip(
        toy: Title, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The toy's green face is its own: the die draws its wind-up key, and the status
    screen's chip says what the face gives in the toy's word."""
    code, out, err = run_cli(capsys, "screen", "toy", "*,2,3", "--text")
    assert (code, err) == (0, "")
    assert "WIND" in out.split() and "Wind up: any space" in out
    png = tmp_path / "screen.png"
    code, _out, err = run_cli(capsys, "screen", "toy", "*,2,3", "--png", str(png))
    assert (code, err) == (0, "")
    view = StatusView(toy, options=toy.options(Roll.from_str("*,2,3")))
    with Image.open(png) as image:
        assert same(image.crop((0, 0, 128, 64)).convert("1"), draw_status(view))
    assert symbol_kind(Die.GREEN, toy) == "wind-up key"
    assert same(draw_face(SPECIAL, Die.GREEN, toy), drawn_by(wind_up_key))


def test_the_toy_titles_spider_is_its_own_picture_not_the_warning_sign(toy: Title) -> None:
    assert symbol_kind(Die.RED, toy) == "spider"
    face = draw_face(SPECIAL, Die.RED, toy)
    assert same(face, drawn_by(spider))
    assert not same(face, drawn_by(warning_sign))


def drawn_by(draw: Callable[[Pen], None], size: int = 64) -> Image.Image:
    image = Image.new("1", (size, size), 0)
    draw(Pen(image))
    return image


def warning_sign(pen: Pen) -> None:
    """The warning sign as a title with no picture of its own gets it."""
    with registered(Nameless) as title:
        pen.image.paste(draw_face(SPECIAL, Die.RED, title))


class Nameless(ToyCupboard):
    """The cupboard under a hazard no picture is registered for."""

    key = "nameless-cupboard"
    aliases = ()
    hazard_symbol = "nothing drawn"


@pytest.fixture
def played_toy() -> Iterator[Title]:
    with registered(PlayedToyCupboard) as title, toy_pictures():
        yield title


def test_a_toy_sheet_with_its_jack_in_the_boxes_reads_back_and_scores(
        played_toy: Title, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The toy's own kind of space is a letter of the text map (``J``), a token of a
    finished sheet (``J`` empty, ``J7`` holding 7) and a picture of the printed sheet."""
    from pitable.render.sheet import (
        register_cell_picture,
        render_sheet,
        unregister_cell_picture,
    )
    from pitable.rules.scoring import check_map, parse_sheet
    from tests.toy_pictures import jack_in_the_box

    sheet = generate(played_toy, 5)
    label, *lines = sheet.to_text(label=True).splitlines()
    assert sum(line.count("J") for line in lines) == 2
    assert {Kind.from_str(letter) for line in lines for letter in line} == {Kind.SPACE, JACK}
    # The map's letters typed one a position: the empty sheet of that map.
    typed = "".join(" ".join(line.ljust(sheet.grid_width)) + "\n" for line in lines)
    finished = parse_sheet(f"{label}\n{typed}")
    check_map(played_toy, finished)
    assert finished.shape() == sheet.shape
    # Filled in: a number in every space, the jack-in-the-boxes included, and a spider.
    boxes = set(sheet.cells(JACK))
    rows = [[("J7" if (r, c) in boxes else "X" if (r, c) == (0, 0) else "3")
             for c in range(sheet.grid_width)] for r in range(sheet.grid_height)]
    filled = tmp_path / "toy.txt"
    filled.write_text(f"; {sheet.label}\n" + "".join(" ".join(row) + "\n" for row in rows))
    score = played_toy.score(parse_sheet(filled.read_text()))
    spaces = sheet.grid_width * sheet.grid_height
    assert score.components == (("Shelves", spaces - 1), ("Boxes", 4)) and score.hazards == 1
    code, out, err = run_cli(capsys, "score", "played-toy", "--sheet", str(filled))
    assert (code, err) == (0, ""), err
    assert str(spaces - 1 + 4) in out
    # A spider typed in a jack-in-the-box is refused with the toy's own words.
    rows[min(boxes)[0]][min(boxes)[1]] = "JX"
    code, _, err = run_cli(capsys, "score", "played-toy", "--sheet", str(write(tmp_path, rows)))
    assert code != 0 and "a jack-in-the-box holds a number, never a spider" in err
    # The printed sheet draws them with the toy's picture: without it, plain squares.
    drawn = render_sheet(sheet, 384)
    unregister_cell_picture(JACK.picture)
    try:
        assert not same(drawn, render_sheet(sheet, 384))
    finally:
        register_cell_picture(JACK.picture, jack_in_the_box)


def write(folder: Path, rows: list[list[str]]) -> Path:
    path = folder / "sheet.txt"
    path.write_text("".join(" ".join(row) + "\n" for row in rows))
    return path
