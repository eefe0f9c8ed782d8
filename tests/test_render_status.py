"""The status screen and the text fitting under it: goldens per title, and behaviour.

Regenerate the goldens deliberately, after looking at the new images:
    PITABLE_REGEN_GOLDENS=1 .venv/bin/pytest tests/test_render_status.py
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageChops, ImageDraw

from pitable.render import status as status_module
from pitable.render.fonts import BOLD, CONDENSED_BOLD, REGULAR, font
from pitable.render.status import (
    HEADER_H,
    MenuView,
    StatusView,
    draw_status,
    hazards_text,
    page_count,
    round_text,
    status_lines,
)
from pitable.render.text import (
    ABOVE,
    ELLIPSIS,
    _composes,
    draw_fitted,
    draw_text,
    fit_text,
    fit_tokens,
    wrap_text,
)
from pitable.rules import Roll, Title, all_rolls, all_titles, find_title
from tests.conftest import assert_golden_image
from tests.support.pictures import lit
from tests.support.titles import title_for_test, title_params, titles_to_run

GOLDEN = Path(__file__).parent / "golden" / "render"
TITLES = all_titles()
MENU = MenuView("Menu", ("Roll", "Choose title", "Table or solo", "New game", "Print sheet",
                         "Quit"), 3)


def assert_golden(image: Image.Image, name: str) -> None:
    assert_golden_image(image, GOLDEN / f"{name}.png")


def rolled(title: Title, roll: str, *, marked: int = 0, **kwargs: object) -> StatusView:
    """The screen after ``roll``, with ``marked`` hazards on the sheet before it."""
    return StatusView(title, options=title.options(Roll.from_str(roll), marked),
                      **kwargs)  # type: ignore[arg-type]


def screens(title: Title) -> dict[str, tuple[StatusView, tuple[int, int]]]:
    """The screens pinned by goldens for one title."""
    narrow, wide = (128, 64), (256, 64)
    solo = {"solo": True, "round": 7, "round_limit": 25, "hazards": 2}
    return {
        "idle": (StatusView(title), narrow),
        "plain": (rolled(title, "2,3,5"), narrow),
        "green-penny": (rolled(title, "*,*,4"), narrow),
        "hazard-blink-on": (rolled(title, "1,4,*", blink_on=True), narrow),
        "hazard-blink-off": (rolled(title, "1,4,*", blink_on=False), narrow),
        "solo": (rolled(title, "*,1,3", **solo), narrow),
        "notice": (rolled(title, "5,5,4", notices=("red die display not answering",
                                                    "hwrng failed: OS generator")), narrow),
        "message": (rolled(title, "1,1,2", message="Printing sheet seed 1234"), narrow),
        "menu": (StatusView(title, menu=MENU), narrow),
        "wide-plain": (rolled(title, "*,3,5"), wide),
        "wide-hazard": (rolled(title, "2,2,*", solo=True, round=3, round_limit=25), wide),
        "wide-solo": (rolled(title, "4,*,2", **solo), wide),
    }


CASES = [(t.key, name) for t in titles_to_run() for name in screens(t)]


@pytest.mark.parametrize(("title", "name"), CASES, indirect=["title"])
def test_status_screen_matches_its_golden(title: Title, name: str) -> None:
    view, size = screens(title)[name]
    image = draw_status(view, size)
    assert (image.mode, image.size) == ("1", size)
    assert_golden(image, f"status/{title.key}-{name}")


def test_the_island_with_five_dangers_marked_matches_its_golden() -> None:
    island = find_title("island")
    assert_golden(draw_status(rolled(island, "*,3,*", marked=5)), "status/island-ignored")


# --- the hazard alarm ---------------------------------------------------------------


def test_a_hazard_lights_most_of_the_screen_on_the_blink(title: Title) -> None:
    on = draw_status(rolled(title, "3,3,*", blink_on=True))
    off = draw_status(rolled(title, "3,3,*", blink_on=False))
    pixels = 128 * 64
    assert lit(on) > 0.7 * pixels
    assert lit(off) < 0.3 * pixels
    # The two phases are exact negatives: the words stay put, only the light flips.
    assert ImageChops.invert(off.convert("L")).tobytes() == on.convert("L").tobytes()


def test_a_plain_roll_does_not_blink() -> None:
    valley = TITLES[0]
    on = draw_status(rolled(valley, "2,3,5", blink_on=True))
    off = draw_status(rolled(valley, "2,3,5", blink_on=False))
    assert on.tobytes() == off.tobytes()
    assert lit(on) < 0.3 * 128 * 64


def test_the_hazard_word_is_big() -> None:
    # The hazard word alone (no header, no sub-line) spans most of the width.
    valley = TITLES[0]
    with_word = draw_status(rolled(valley, "3,3,*", blink_on=False))
    body = with_word.crop((0, HEADER_H + 3, 128, 52))
    box = body.getbbox()
    assert box is not None
    assert box[2] - box[0] > 100 and box[3] - box[1] > 20


# --- what the screen shows -----------------------------------------------------------


def test_the_numbers_appear() -> None:
    valley = TITLES[0]
    view = rolled(valley, "2,3,5")
    assert view.options is not None
    without = dataclasses.replace(view, options=dataclasses.replace(view.options, numbers=()))
    body = (0, HEADER_H + 3, 128, 40)
    assert draw_status(view).crop(body).tobytes() != draw_status(without).crop(body).tobytes()
    other = rolled(valley, "1,1,1")
    assert draw_status(view).crop(body).tobytes() != draw_status(other).crop(body).tobytes()


def test_the_valleys_plays_appear_under_the_numbers() -> None:
    valley = TITLES[0]
    view = rolled(valley, "2,3,5")
    assert view.options is not None
    without = dataclasses.replace(view, options=dataclasses.replace(view.options, plays=()))
    lower = (0, 44, 128, 64)
    assert draw_status(view).crop(lower).tobytes() != draw_status(without).crop(lower).tobytes()


def test_the_green_face_and_penny_papers_are_shown(title: Title) -> None:
    view = rolled(title, "*,*,4")
    assert view.options is not None
    plain = dataclasses.replace(view.options, green=None, penny=False)
    no_green = dataclasses.replace(view.options, green=None)
    images = {
        draw_status(dataclasses.replace(view, options=o)).tobytes()
        for o in (view.options, plain, no_green)
    }
    assert len(images) == 3


def test_the_header_shows_the_round_and_the_hazards() -> None:
    valley = TITLES[0]
    base = rolled(valley, "2,3,5", solo=True, round=7, round_limit=25, hazards=2)
    header = (0, 0, 128, HEADER_H + 1)
    for changed in (dataclasses.replace(base, round=8), dataclasses.replace(base, hazards=3)):
        a, b = draw_status(base), draw_status(changed)
        assert a.crop(header).tobytes() != b.crop(header).tobytes()
        # Only the header changed.
        assert a.crop((0, HEADER_H + 2, 128, 64)).tobytes() == \
            b.crop((0, HEADER_H + 2, 128, 64)).tobytes()


def test_round_and_hazard_words() -> None:
    valley, island, temple = (find_title(k) for k in ("valley", "island", "temple"))
    assert round_text(StatusView(valley, solo=True, round=7, round_limit=25)) == "R 7/25"
    assert round_text(StatusView(valley)) == ""
    assert hazards_text(StatusView(valley, hazards=1)) == "1 snake"
    assert hazards_text(StatusView(temple, hazards=2)) == "2 mummies"
    assert hazards_text(StatusView(island, hazards=3)) == "danger 3/5"


def test_a_notice_is_shown_at_the_bottom() -> None:
    valley = TITLES[0]
    quiet = draw_status(rolled(valley, "2,3,5"))
    noisy = draw_status(rolled(valley, "2,3,5", notices=("red die display not answering",)))
    footer = (0, 55, 128, 64)
    assert quiet.crop(footer).tobytes() != noisy.crop(footer).tobytes()
    # The "!" marker: a lit block at the left edge of the footer.
    marker = noisy.crop((0, 56, 6, 63))
    assert lit(marker) > 0.6 * 6 * 7


def test_the_reading_is_computed_when_not_given() -> None:
    temple = find_title("temple")
    view = rolled(temple, "*,2,3", solo=True)
    assert view.options is not None
    given_reading = dataclasses.replace(view, reading=temple.reading(view.options, solo=True))
    for size in ((128, 64), (256, 64)):
        assert draw_status(view, size).tobytes() == draw_status(given_reading, size).tobytes()


def test_the_wide_screen_shows_the_titles_words_on_the_right() -> None:
    valley = TITLES[0]
    image = draw_status(rolled(valley, "*,3,5"), (256, 64))
    assert image.size == (256, 64)
    assert lit(image.crop((132, HEADER_H + 3, 256, 64))) > 100


def test_a_returned_screen_is_a_copy() -> None:
    view = rolled(TITLES[1], "2,3,5")
    first = draw_status(view)
    first.paste(1, (0, 0, 128, 64))
    assert draw_status(view).tobytes() != first.tobytes()


# --- the menu -------------------------------------------------------------------------


def inverted_rows(image: Image.Image) -> list[int]:
    """Rows whose first three pixels are lit: only the selected item's bar reaches there.

    The items' text starts three pixels in, so the left edge is dark on every other row.
    """
    return [y for y in range(HEADER_H + 3, image.height)
            if lit(image.crop((0, y, 3, y + 1))) == 3]


def test_the_selected_menu_item_is_inverted_and_moves_with_the_cursor() -> None:
    valley = TITLES[0]
    bars = []
    for selected in range(len(MENU.items)):
        menu = dataclasses.replace(MENU, selected=selected)
        rows = inverted_rows(draw_status(StatusView(valley, menu=menu)))
        assert 8 <= len(rows) <= 12, selected  # one item's bar, no more
        assert rows == list(range(rows[0], rows[0] + len(rows)))
        bars.append(rows[0])
    # The cursor goes down the screen, then the list scrolls and the bar stays on screen.
    assert bars[1] > bars[0]
    assert len(set(bars)) > 1


def test_every_item_can_be_selected_and_seen() -> None:
    valley = TITLES[0]
    long = MenuView("Choose", tuple(f"Item {i}" for i in range(20)), 0)
    seen = set()
    for selected in range(20):
        image = draw_status(StatusView(valley, menu=dataclasses.replace(long, selected=selected)))
        seen.add(image.tobytes())
        assert inverted_rows(image)
    assert len(seen) == 20


# --- fitting text ------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60),
    width=st.integers(1, 256),
    height=st.integers(1, 64),
    name=st.sampled_from([REGULAR, BOLD, CONDENSED_BOLD]),
    line=st.booleans(),
)
def test_fitted_text_never_leaves_its_box(text: str, width: int, height: int, name: str,
                                          line: bool) -> None:
    fitted = fit_text(text, width, height, name, max_size=40, min_size=8, line=line)
    assert fitted.width <= width
    # Draw it in a box in the middle of a bigger canvas: no ink outside the box.
    canvas = Image.new("1", (width + 80, height + 80), 0)
    box = (40, 40, 40 + width, 40 + height)
    draw_fitted(ImageDraw.Draw(canvas), box, fitted)
    ink = canvas.getbbox()
    if ink is not None:
        assert box[0] <= ink[0] and ink[2] <= box[2], (ink, box)
        assert box[1] <= ink[1] and ink[3] <= box[3], (ink, box)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(st.characters(min_codepoint=32, max_codepoint=0x17F,
                               exclude_categories=("Cc",)), max_size=40),
    size=st.integers(6, 44),
    name=st.sampled_from([REGULAR, BOLD, CONDENSED_BOLD]),
    at=st.tuples(st.integers(-20, 150), st.integers(-20, 70)),
    fill=st.sampled_from([0, 1]),
)
def test_text_from_the_cache_is_pillows_own(text: str, size: int, name: str,
                                            at: tuple[int, int], fill: int) -> None:
    # Drawn twice, at any place and in either ink (dark on a lit box too), and compared
    # with Pillow drawing it: the stamped ink must be the very pixels (but for an accented
    # capital whose accent the font sets on its letter: see test_accents.py).
    assume(not any(_composes(c, size, name, ABOVE) for c in text))
    typeface = font(size, name)
    background = 1 - fill
    ours, pillows = (Image.new("1", (128, 64), background) for _ in range(2))
    for _ in range(2):
        draw_text(ImageDraw.Draw(ours), at, text, typeface, fill=fill)
    ImageDraw.Draw(pillows).text(at, text, fill=fill, font=typeface)
    assert ImageChops.difference(ours, pillows).getbbox() is None


def test_text_on_an_anti_aliased_picture_is_drawn_by_pillow() -> None:
    typeface = font(20, REGULAR)
    ours, pillows = (Image.new("L", (100, 30), 0) for _ in range(2))
    draw_text(ImageDraw.Draw(ours), (3, 2), "Skull 9", typeface, fill=200)
    ImageDraw.Draw(pillows).text((3, 2), "Skull 9", fill=200, font=typeface)
    assert ImageChops.difference(ours, pillows).getbbox() is None
    assert len(ours.getcolors(256) or ()) > 2  # grey edges: not the cache's two-level ink


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=30),
    box=st.tuples(st.integers(1, 256), st.integers(1, 64)),
    name=st.sampled_from([REGULAR, BOLD, CONDENSED_BOLD]),
    sizes=st.tuples(st.integers(6, 12), st.integers(8, 44)),
    line=st.booleans(),
)
# Fit is not monotone in the size: this "R" fits at 7 px and at neither 6 nor 8.
@example(text="R", box=(6, 5), name=BOLD, sizes=(6, 8), line=False)
def test_the_size_chosen_is_the_largest_that_fits(text: str, box: tuple[int, int], name: str,
                                                  sizes: tuple[int, int], line: bool) -> None:
    # Against trying every size: the size found is the largest that fits (ink grows with
    # the size but not strictly: hinting makes a few sizes narrower than the one below, so
    # a size may fit above one that does not).
    width, height = box
    min_size, max_size = min(sizes), max(sizes)
    fitted = fit_text(text, width, height, name, max_size=max_size, min_size=min_size,
                      line=line)
    alone = {size: fit_text(text, width, height, name, max_size=size, min_size=size, line=line)
             for size in range(min_size, max_size + 1)}
    every = [size for size, f in alone.items() if f.whole and f.text == text]
    if every:
        assert fitted.whole and fitted.text == text
        assert fitted.font.size == max(every)
    else:
        assert fitted.font.size == min_size


def forget_drawn_screens() -> None:
    """Empty every cache of the status screen's drawing, as after a restart."""
    for value in vars(status_module).values():
        clear = getattr(value, "cache_clear", None)
        if clear is not None:
            clear()


@settings(max_examples=100, deadline=None)
@given(
    game=st.tuples(st.sampled_from(title_params()), st.sampled_from([str(r) for r in all_rolls()]),
                   st.booleans()),
    counts=st.tuples(st.integers(0, 5), st.integers(0, 30), st.integers(0, 3)),
    look=st.tuples(st.sampled_from(["en", "fr", "es"]),
                   st.sampled_from([(128, 64), (256, 64)]), st.booleans()),
)
# The Island's third page names the danger bubble to mark, from the count of those marked.
@example(game=("island", "2,4,*", False), counts=(2, 6, 2),
         look=("en", (128, 64), False))
def test_the_part_kept_below_the_header_is_the_screen_drawn_whole(
    game: tuple[str, str, bool], counts: tuple[int, int, int],
    look: tuple[str, tuple[int, int], bool],
) -> None:
    # The part below the header is kept by a view without what only the header shows (the
    # round, the hazards, the map, the blink): drawn from that, the screen must be the one
    # drawn from the whole view.
    key, roll, solo = game
    with title_for_test(key) as title:
        check_the_part_kept_below_the_header(title, roll, solo, counts, look)


def check_the_part_kept_below_the_header(
    title: Title, roll: str, solo: bool, counts: tuple[int, int, int],
    look: tuple[str, tuple[int, int], bool],
) -> None:
    marked, round_now, page = counts
    lang, size, blink_on = look
    limit = title.hazard_limit
    marked = min(marked, limit) if limit is not None else marked
    shown = StatusView(title, solo=solo, round=round_now, round_limit=25 if solo else None,
                       options=title.options(Roll.from_str(roll), marked),
                       hazards=marked if solo or limit is not None else None,
                       map_tag=f"A·{round_now * 37}", lang=lang, page=page,
                       blink_on=blink_on)
    kept = draw_status(shown, size), page_count(shown, size), status_lines(shown, size)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(status_module, "_below_header_view", lambda view: view)
        forget_drawn_screens()
        whole = draw_status(shown, size), page_count(shown, size), status_lines(shown, size)
    forget_drawn_screens()
    assert ImageChops.difference(kept[0], whole[0]).getbbox() is None
    assert kept[1:] == whole[1:]


def test_text_shrinks_before_it_is_cut() -> None:
    big = fit_text("2 3 5", 120, 40, BOLD)
    small = fit_text("2 3 5 7 8 10 12 13", 120, 40, BOLD)
    assert big.whole and small.whole
    assert big.font.size > small.font.size
    assert big.width <= 120 and small.width <= 120


def test_text_too_long_even_when_small_is_elided() -> None:
    fitted = fit_text("red die display not answering since the last roll", 60, 10, REGULAR,
                      max_size=9, min_size=8)
    assert not fitted.whole
    assert fitted.text.endswith(ELLIPSIS)
    assert fitted.width <= 60
    assert fit_text("anything", 0, 10, REGULAR).text == ""


def test_wrapping_keeps_words_and_marks_a_cut() -> None:
    lines = wrap_text("Draw a snake in any empty space of another player's sheet", 80, 9,
                      REGULAR, 2)
    assert len(lines) == 2
    assert lines[-1].endswith(ELLIPSIS)
    assert all(fit_text(line, 80, 20, REGULAR, max_size=9, min_size=9).whole for line in lines)


def test_plays_wrap_between_plays_never_inside_one() -> None:
    tokens = ("2+3+5", "5+5", "7+3", "8+2", "10")
    lines, size = fit_tokens(tokens, "  ", (60, 22), REGULAR, max_size=9, min_size=8)
    assert len(lines) == 2
    assert [t for line in lines for t in line.split()] == list(tokens)
    assert size in (8, 9)


def test_the_hazard_says_where_it_goes_whole_on_the_small_screen(title: Title) -> None:
    options = title.options(Roll.from_str("1,2,*"))
    solo = draw_status(StatusView(title, solo=True, options=options))
    table = draw_status(StatusView(title, solo=False, options=options))
    assert ImageChops.logical_xor(solo, table).getbbox() is not None
    for is_solo in (True, False):
        for line in title.reading(options, solo=is_solo).brief:
            fitted = fit_text(line, 126, 11, REGULAR, max_size=9, min_size=8, line=True)
            assert fitted.whole, line


def test_the_text_caches_keep_no_font_that_the_font_cache_let_go() -> None:
    """Each live font maps its whole file: measuring and drawing at a hundred sizes leaves
    alive only the fonts the font cache holds, one for each size and face."""
    import gc

    from PIL import ImageFont

    from pitable.render.fonts import BOLD, REGULAR, font
    from pitable.render.text import _ink_box_of, _inked_of, draw_text, ink_box

    def fonts_alive() -> int:
        gc.collect()
        return sum(isinstance(o, ImageFont.FreeTypeFont) for o in gc.get_objects())

    font.cache_clear()
    before = fonts_alive()  # what other modules hold of their own
    image = Image.new("1", (400, 200))
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"
    for size in range(6, 106):
        for name in (REGULAR, BOLD):
            ink_box("Pyramid 14", size, name)
            draw_text(draw, (0, 0), "Pyramid 14", font(size, name))
    try:
        assert fonts_alive() - before <= font.cache_info().currsize <= 200
    finally:  # leave the process's caches as a fresh one has them, for the tests after
        _ink_box_of.cache_clear()
        _inked_of.cache_clear()
        font.cache_clear()


def test_a_roll_shown_for_new_rounds_and_maps_keeps_no_picture_for_each() -> None:
    """A status screen's round, hazards and map are new on nearly every draw: drawing one
    roll for hundreds of them keeps nothing per draw but the header texts' small inks, and
    no Pillow picture at all (a picture kept for a screen that never comes back is let go
    in turn, and the C heap grows with the holes)."""
    import gc

    def pictures_alive() -> int:
        gc.collect()
        return sum(isinstance(o, Image.Image) for o in gc.get_objects())

    title = find_title("valley")
    options = title.options(Roll.from_str("2,3,5"), 0)
    draw_status(StatusView(title, solo=True, round=1, round_limit=None, options=options,
                           hazards=0, map_tag="A·1"))
    before = pictures_alive()
    for n in range(2, 300):
        draw_status(StatusView(title, solo=True, round=n, round_limit=None, options=options,
                               hazards=n // 10, map_tag=f"A·{n}"))
    assert pictures_alive() - before <= 2
    assert status_module._below_header.cache_info().hits >= 298

