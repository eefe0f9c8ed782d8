"""The score of a solo game entered on the box part by part: the encoder asks for each of
the title's scoring components in turn, the box shows the total and the level, and the
store keeps all three; a bare total can still be entered.

The rulebooks' worked examples (tests/golden/scoring/) are entered on the box as a player
would copy them from the sheet, and must come out as ``pitable score`` adds them up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitable.box.games import score_components
from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.errors import BadScore
from pitable.render.status import MenuView
from pitable.rules import find_title, registered
from pitable.rules.scoring import Score, parse_sheet
from pitable.rules.session import level
from tests.conftest import run_cli
from tests.support.box import make
from tests.toy_title import ToyCupboard

GOLDEN = Path(__file__).parent / "golden" / "scoring"


def golden_score(title: str) -> Score:
    return find_title(title).score(parse_sheet((GOLDEN / f"{title}_henri.txt").read_text()))


def open_score_menu(sim: Simulator) -> None:
    """Menu: New game, End game: score, Back."""
    sim.hold()
    sim.turn(+1)
    sim.push()


def enter_by_parts(sim: Simulator, parts: tuple[tuple[str, int], ...]) -> list[MenuView]:
    """Score: By parts; each part turned in and pushed. Returns each part's screen."""
    open_score_menu(sim)
    sim.push()  # By parts
    screens = []
    for _, stars in parts:
        sim.turn(stars)
        menu = sim.box.view().menu
        assert menu is not None
        screens.append(menu)
        sim.push()
    return screens


def test_each_title_asks_for_the_components_its_sheets_score_by() -> None:
    assert score_components(find_title("valley")) == (
        "Full grid", "Jungles", "Towns", "Ranges", "Pyramids", "Structures", "Snakes",
    )
    assert score_components(find_title("island")) == ("Treasures", "Dangers")
    assert score_components(find_title("temple")) == ("Sequence", "Groups", "Mummies")
    for title in ("valley", "island", "temple"):
        names = tuple(name for name, _ in golden_score(title).components)
        assert score_components(find_title(title)) == names
    with registered(ToyCupboard) as toy:
        assert score_components(toy) == ()


@pytest.mark.parametrize("title", ["valley", "island", "temple"])
def test_the_rulebooks_examples_entered_by_parts_give_their_totals_and_levels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], title: str
) -> None:
    score = golden_score(title)
    store = SessionStore.open(tmp_path)
    sim = make("1,2,3", title=title, mode="solo", store=store)
    sim.press()
    screens = enter_by_parts(sim, score.components)
    count = len(score.components)
    done = 0
    for k, ((name, stars), screen) in enumerate(zip(score.components, screens, strict=True)):
        assert screen.heading == f"{name} {k + 1}/{count}: turn, push"
        assert screen.items == (f"{stars} star{'' if stars == 1 else 's'}",
                                f"total so far {done}")
        done += stars
    result = level(title, score.total, sim.box.game.state.hazards)
    view = sim.box.view()
    assert view.result == result.name
    assert view.message is not None and view.message.startswith(f"{score.total} stars; ")
    (game,) = store.games()
    assert (game.score, game.level, game.parts) == (score.total, result.name, score.components)
    sim.close()
    code, out, _ = run_cli(capsys, "history", "--game", "1", "--state-dir", str(tmp_path))
    assert code == 0
    parts = ", ".join(f"{name} {stars}" for name, stars in score.components)
    assert f"  score by parts: {parts}; total {score.total}" in out.splitlines()
    code, out, _ = run_cli(capsys, "history", "--game", "1", "--json",
                           "--state-dir", str(tmp_path))
    stored = json.loads(out.splitlines()[0])["game"]
    assert stored["parts"] == dict(score.components)
    assert (stored["score"], stored["level"]) == (score.total, result.name)


def test_a_bare_total_can_still_be_entered(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store = SessionStore.open(tmp_path)
    sim = make("1,2,3", title="island", mode="solo", store=store)
    sim.press()
    open_score_menu(sim)
    assert [label for label, _ in sim.box.menu[-1].items] == ["By parts", "Total", "Back"]
    sim.turn(+1)
    sim.push()  # Total
    assert sim.box.view().menu == MenuView("Score: turn, push", ("0 stars",), 0)
    sim.turn(75)
    sim.push()
    assert sim.box.view().result == "Voyager"
    (game,) = store.games()
    assert (game.score, game.parts) == (75, None)
    sim.close()
    code, out, _ = run_cli(capsys, "history", "--game", "1", "--state-dir", str(tmp_path))
    assert code == 0 and "score by parts" not in out


def test_back_from_the_score_leaves_the_game_running() -> None:
    sim = make("1,2,3", title="temple", mode="solo")
    sim.press()
    open_score_menu(sim)
    sim.turn(+2)
    sim.push()  # Back
    assert sim.box.menu[-1].heading == "Menu"
    assert not sim.box.game.ended
    sim.close()


def test_negative_parts_count_against_the_total() -> None:
    sim = make("1,2,3", mode="solo")
    sim.press()
    # Every part nothing but the snakes, which cost 12 stars.
    enter_by_parts(sim, (("Full grid", 0), ("Jungles", 0), ("Towns", 0), ("Ranges", 0),
                         ("Pyramids", 0), ("Structures", 0), ("Snakes", -12)))
    assert sim.box.view().message == "-12 stars; 102 more for Pathfinder"
    assert sim.box.view().result == "Tourist"
    sim.close()


def test_the_store_refuses_parts_that_do_not_add_up(tmp_path: Path) -> None:
    with SessionStore.open(tmp_path) as store:
        game = store.new_game("temple", "solo")
        with pytest.raises(BadScore, match="its parts add up to 12"):
            store.end_game(game.id, 13, (("Sequence", 9), ("Groups", 3), ("Mummies", 0)))
        parts = (("Sequence", 9), ("Groups", 3), ("Mummies", -2))
        assert store.end_game(game.id, 10, parts).parts == parts
        # Entered again as a bare total: the parts go with the old score.
        assert store.end_game(game.id, 12).parts is None
