"""Die faces: golden PNGs for every face, and what a player would notice if they broke.

Regenerate the goldens deliberately, after looking at the new images:
    PITABLE_REGEN_GOLDENS=1 .venv/bin/pytest tests/test_render_faces.py
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pitable.render.faces import (
    PIPS,
    TUMBLE_SPEED,
    die_panel,
    draw_blank,
    draw_face,
    draw_tumble_frame,
    face_panel,
    rolled,
    symbol_kind,
    tumble_lines,
    tumble_panel,
)
from pitable.rules import SPECIAL, Die, Face, Title, all_titles, find_title
from tests.conftest import assert_golden_image
from tests.support.pictures import lit

GOLDEN = Path(__file__).parent / "golden" / "render"
TITLES = all_titles()
FACES: tuple[Face, ...] = (1, 2, 3, 4, 5, SPECIAL)


def assert_golden(image: Image.Image, name: str) -> None:
    assert_golden_image(image, GOLDEN / f"{name}.png")


def title_id(title: Title) -> str:
    return title.key


# --- goldens ------------------------------------------------------------------------


@pytest.mark.parametrize("face", FACES, ids=str)
@pytest.mark.parametrize("die", list(Die), ids=str)
def test_every_face_matches_its_golden(title: Title, die: Die, face: Face) -> None:
    name = "special" if face is SPECIAL else str(face)
    assert_golden(draw_face(face, die, title), f"faces/{title.key}-{die}-{name}")


def test_six_pips_of_the_two_to_six_set_match_the_golden() -> None:
    assert_golden(draw_face(6, Die.GREEN, find_title("valley")), "faces/pips-6")


@pytest.mark.parametrize("step", range(4))
def test_tumble_frames_match_their_goldens(step: int) -> None:
    assert_golden(draw_tumble_frame(Die.RED, find_title("valley"), step), f"faces/tumble-{step}")


@pytest.mark.parametrize("die", list(Die), ids=str)
def test_labelled_panels_match_their_goldens(die: Die) -> None:
    title = find_title("island")
    assert_golden(die_panel(SPECIAL, die, title), f"faces/panel-{title.key}-{die}")


# --- behaviour ----------------------------------------------------------------------


def test_a_face_is_a_square_one_bit_image_of_the_asked_size() -> None:
    for size in (64, 32, 48):
        image = draw_face(3, Die.PURPLE, TITLES[0], size)
        assert (image.mode, image.size) == ("1", (size, size))


def test_the_six_pip_faces_all_differ_and_more_pips_light_more_pixels() -> None:
    title = TITLES[0]
    images = {n: draw_face(n, Die.GREEN, title) for n in PIPS}
    for a, b in itertools.combinations(PIPS, 2):
        assert images[a].tobytes() != images[b].tobytes(), (a, b)
    counts = [lit(images[n]) for n in sorted(PIPS)]
    assert counts == sorted(counts) and len(set(counts)) == len(counts)


def test_pip_faces_are_the_same_on_every_die_and_title() -> None:
    reference = draw_face(4, Die.GREEN, TITLES[0]).tobytes()
    for title, die in itertools.product(TITLES, Die):
        assert draw_face(4, die, title).tobytes() == reference


def test_every_special_symbol_differs_from_every_pip_face(title: Title) -> None:
    for die in Die:
        special = draw_face(SPECIAL, die, title)
        for n in PIPS:
            pip = draw_face(n, die, title)
            # Not just different: different in a good part of the square, so that nobody
            # mistakes a symbol for a number across the table.
            diff = ImageChops.logical_xor(special, pip)
            assert lit(diff) > 300, (title.key, die, n)


def test_the_special_symbols_of_one_title_are_all_different(title: Title) -> None:
    images = [draw_face(SPECIAL, die, title).tobytes() for die in Die]
    assert len(set(images)) == 3, title.key


def test_a_titles_hazard_is_no_other_titles_and_penny_is_everyones(title: Title) -> None:
    others = [t for t in all_titles() if t is not title]
    hazard = draw_face(SPECIAL, Die.RED, title).tobytes()
    assert hazard not in {draw_face(SPECIAL, Die.RED, t).tobytes() for t in others}
    penny = draw_face(SPECIAL, Die.PURPLE, title).tobytes()
    assert {draw_face(SPECIAL, Die.PURPLE, t).tobytes() for t in others} == {penny}


def test_each_title_has_its_own_green_and_red_symbols_and_penny_is_shared() -> None:
    for die in (Die.GREEN, Die.RED):
        kinds = {symbol_kind(die, t) for t in TITLES}
        images = {draw_face(SPECIAL, die, t).tobytes() for t in TITLES}
        assert len(kinds) == len(images) == 3
    assert {symbol_kind(Die.RED, t) for t in TITLES} == {"snake", "skull", "mummy"}
    assert {symbol_kind(Die.GREEN, t) for t in TITLES} == {"hut", "boat", "lockpick"}
    pennies = {draw_face(SPECIAL, Die.PURPLE, t).tobytes() for t in TITLES}
    assert len(pennies) == 1


def test_a_returned_face_is_a_copy_the_caller_may_draw_on() -> None:
    title = TITLES[0]
    first = draw_face(2, Die.RED, title)
    first.paste(1, (0, 0, 64, 64))
    assert draw_face(2, Die.RED, title).tobytes() != first.tobytes()


def test_a_face_the_die_cannot_show_is_refused() -> None:
    with pytest.raises(ValueError, match="expected 1 to 6"):
        draw_face(7, Die.GREEN, TITLES[0])


def test_blank_is_unlit() -> None:
    assert lit(draw_blank(64)) == 0
    assert draw_blank(32).size == (32, 32)


def test_tumble_frames_are_deterministic_and_move() -> None:
    title = TITLES[1]
    frames = [draw_tumble_frame(Die.GREEN, title, step).tobytes() for step in range(6)]
    assert frames == [draw_tumble_frame(Die.GREEN, title, s).tobytes() for s in range(6)]
    assert all(a != b for a, b in itertools.pairwise(frames))
    # The three dice do not tumble in step with each other.
    same_step = {draw_tumble_frame(d, title, 3).tobytes() for d in Die}
    assert len(same_step) == 3


def test_tumble_frames_stay_inside_the_square() -> None:
    # A tilted die that touched the edge would be cut by the panel: keep a margin.
    for step, die in itertools.product(range(12), Die):
        box = draw_tumble_frame(die, TITLES[0], step).getbbox()
        assert box is not None
        assert box[0] >= 1 and box[1] >= 1 and box[2] <= 63 and box[3] <= 63


def test_a_tumble_rolls_the_shown_face_down_the_panel_and_back_in_from_the_top() -> None:
    title = find_title("valley")
    shown = die_panel(4, Die.PURPLE, title)
    frames = [tumble_panel(4, Die.PURPLE, title, step) for step in range(8)]
    assert all(a.size == (128, 64) and a.mode == "1" for a in frames)
    for step, frame in enumerate(frames):
        down = (step + 1) * TUMBLE_SPEED[Die.PURPLE] % 64
        # Every row of the face is still there, moved down and wrapped round.
        assert ImageChops.offset(shown, 0, down).tobytes() == frame.tobytes()
        assert frame.tobytes() == rolled(shown, tumble_lines(Die.PURPLE, step)).tobytes()
    assert all(a.tobytes() != b.tobytes() for a, b in itertools.pairwise([shown, *frames]))
    # The three dice roll at different speeds, so they are never in step.
    assert len({tumble_lines(d, 3) for d in Die}) == 3


def test_the_first_tumble_of_a_blank_die_rolls_a_die_with_pips() -> None:
    title = find_title("valley")
    frame = tumble_panel(None, Die.GREEN, title, 0)
    blank = die_panel(None, Die.GREEN, title)
    assert lit(frame) > lit(blank) + 500  # an outline and pips, not only the label


def test_rolling_wraps_and_adds_up() -> None:
    panel = die_panel(SPECIAL, Die.RED, find_title("island"))
    assert rolled(panel, 0).tobytes() == panel.tobytes()
    assert rolled(rolled(panel, 40), 30).tobytes() == rolled(panel, 70 - 64).tobytes()
    assert lit(rolled(panel, 17)) == lit(panel)


def test_face_panel_centres_the_face() -> None:
    face = draw_face(1, Die.GREEN, TITLES[0])
    panel = face_panel(face)
    assert (panel.mode, panel.size) == ("1", (128, 64))
    assert panel.crop((32, 0, 96, 64)).tobytes() == face.tobytes()
    assert panel.crop((0, 0, 32, 64)).getbbox() is None
    assert panel.crop((96, 0, 128, 64)).getbbox() is None


def test_face_panel_aligns_left_and_right() -> None:
    face = draw_face(5, Die.GREEN, TITLES[0])
    assert face_panel(face, align="left").crop((0, 0, 64, 64)).tobytes() == face.tobytes()
    assert face_panel(face, align="right").crop((64, 0, 128, 64)).tobytes() == face.tobytes()


def test_the_label_names_the_die_in_the_margin_without_touching_the_face() -> None:
    face = draw_face(3, Die.PURPLE, TITLES[0])
    panel = face_panel(face, label="PURPLE")
    assert panel.crop((32, 0, 96, 64)).tobytes() == face.tobytes()
    assert panel.crop((0, 0, 32, 64)).getbbox() is not None
    green = die_panel(3, Die.GREEN, TITLES[0])
    purple = die_panel(3, Die.PURPLE, TITLES[0])
    assert green.crop((0, 0, 32, 64)).tobytes() != purple.crop((0, 0, 32, 64)).tobytes()
    assert die_panel(3, Die.GREEN, TITLES[0], label=False).crop((0, 0, 32, 64)).getbbox() is None


def test_die_panel_without_a_face_shows_only_the_label() -> None:
    panel = die_panel(None, Die.RED, TITLES[2])
    assert panel.crop((32, 0, 96, 64)).getbbox() is None
    assert panel.getbbox() is not None


def test_a_title_whose_hazard_has_no_picture_gets_a_warning_sign_not_anothers_hazard() -> None:
    """The red face is drawn from the title's own ``hazard_symbol``: a fourth title's spider
    (no picture of its own here) is a generic warning sign, never the Island's skull."""
    from pitable.rules import registered
    from tests.toy_title import ToyCupboard

    with registered(ToyCupboard) as toy:
        assert symbol_kind(Die.RED, toy) == "warning"
        spider = draw_face(SPECIAL, Die.RED, toy).tobytes()
        assert spider not in {draw_face(SPECIAL, Die.RED, t).tobytes() for t in TITLES}
        assert lit(draw_face(SPECIAL, Die.RED, toy)) > 600
