"""A player's sheet drawn as they filled it in: for every title with a bot, a bot's game on a
phone's sheet against a golden picture, every number written legibly in its space, hazards
drawn as the title's picture, the score boxes filled and the initials written.

Golden pictures live in tests/golden/sheets/ (``filled-KEY.png``); to redraw them after a
deliberate change, run once with PITABLE_REGEN_GOLDENS=1 (see tests/test_render_sheet.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from pitable.render.faces import picture
from pitable.render.sheet import (
    Circle,
    Drawing,
    Filled,
    Rect,
    Symbol,
    Text,
    paint,
    render_sheet,
    signed,
    strip_layout,
)
from pitable.rules import Title
from pitable.rules.phone import PlayerSheet
from pitable.rules.scoring import Token, parse_token
from tests.conftest import assert_golden_image
from tests.support.games import bot_game
from tests.support.legibility import problems
from tests.support.titles import title_params

GOLDEN = Path(__file__).parent / "golden" / "sheets"
PLAYED = title_params(lambda t: t.bot() is not None and t.replay_rules() is not None)
#: The seed of the bot's game and of its map.
SEED = 3


def filled(phone: PlayerSheet, initials: str = "ABC") -> Filled:
    score = phone.score()
    return Filled(phone.tokens(), score.components, score.total, initials)


def layout(phone: PlayerSheet, width: int = 384) -> tuple[Drawing, Image.Image]:
    drawing = strip_layout(phone.sheet, width, filled=filled(phone))
    return drawing, paint(drawing)


def in_grid(drawing: Drawing, shape: Text | Symbol | Circle, height: int) -> tuple[int, int]:
    """The space a shape of the map is drawn in."""
    x, y = (shape.x, shape.y) if isinstance(shape, Circle) else (
        shape.x + (shape.size if isinstance(shape, Symbol) else 0) / 2, shape.y)
    r, c = int((y - drawing.grid_y) // drawing.cell), int((x - drawing.grid_x) // drawing.cell)
    assert 0 <= r < height
    return r, c


@pytest.mark.parametrize("title", PLAYED, indirect=True)
def test_a_bot_game_on_a_phone_prints_as_its_golden_picture(title: Title) -> None:
    phone, _, _ = bot_game(title, SEED)
    assert_golden_image(render_sheet(phone.sheet, filled=filled(phone)),
                        GOLDEN / f"filled-{title.key}.png")


@pytest.mark.parametrize("title", PLAYED, indirect=True)
@pytest.mark.parametrize("width", [384, 576])
def test_every_number_hazard_and_score_of_a_filled_sheet_is_drawn_legibly(
    title: Title, width: int
) -> None:
    phone, _, _ = bot_game(title, SEED)
    drawing, image = layout(phone, width)
    # The sheet's own measures: every word (the numbers written on the map, the score, the
    # initials) has capitals of 2 mm at least, and nothing else inks its box. (The boxes
    # written in are measured on the blank sheet: they are no longer clear inside.)
    words = replace(drawing, shapes=[s for s in drawing.shapes
                                     if not (isinstance(s, Rect) and s.role)])
    assert problems(words, image) == []
    tokens = phone.tokens()
    height = len(tokens)
    grid_bottom = drawing.grid_y + height * drawing.cell
    on_map = [s for s in drawing.shapes if isinstance(s, Text)
              and drawing.grid_y <= s.y < grid_bottom]
    spaces = {(r, c): parse_token(t, (r, c), highest=99)
              for r, row in enumerate(tokens) for c, t in enumerate(row)}
    # Each number written in its own space, and nothing but what the sheet holds.
    numbers = {cell: str(s.number) for cell, s in spaces.items() if s.number is not None}
    written = {in_grid(drawing, t, height): t.text for t in on_map if t.text.isdigit()}
    assert {c: v for c, v in written.items() if c in numbers} == numbers
    assert numbers, "the bot wrote no number"
    # Each hazard drawn as the title's picture in its space.
    hazards = {cell for cell, s in spaces.items() if s.token in (Token.HAZARD, Token.CROSSED)}
    drawn = [s for s in drawing.shapes if isinstance(s, Symbol)]
    assert {in_grid(drawing, s, height) for s in drawn} == hazards
    assert all(s.name == title.hazard_symbol for s in drawn)
    # The score's total in the last box (written beside its caption, the sheet's last
    # words), the initials in theirs.
    texts = [s.text for s in drawing.shapes if isinstance(s, Text)]
    assert "Total" in texts[-2:] and signed(phone.score().total) in texts[-2:]
    assert "ABC" in texts


def test_a_hazard_is_the_titles_picture_and_a_crossed_one_is_crossed_over(title: Title) -> None:
    from pitable.rules.sheets import generate

    sheet = generate(title, 7)
    cells = [c for c in sheet.fillable() if sheet.kind(c).picture == ""][:2]
    tokens = [[("_" if k.fillable and k.value == "." else k.value if k.inside else "#")
               for k in row] for row in sheet.grid]
    tokens = [[("_" if t == "." else "#" if t == " " else t) for t in row] for row in tokens]
    (r1, c1), (r2, c2) = cells
    tokens[r1][c1], tokens[r2][c2] = "X", "x"
    grid = tuple(tuple(row) for row in tokens)
    # A map of a title whose outside positions are a kind of their own (the sea) types
    # them with its letter.
    grid = tuple(tuple(t if t != "#" or sheet.kind((r, c)).value == " " else
                       sheet.kind((r, c)).value for c, t in enumerate(row))
                 for r, row in enumerate(grid))
    drawing = strip_layout(sheet, filled=Filled(grid))
    image = paint(drawing)
    s = drawing.cell

    def space(cell: tuple[int, int]) -> Image.Image:
        x, y = drawing.grid_x + cell[1] * s, drawing.grid_y + cell[0] * s
        return image.crop((round(x), round(y), round(x + s), round(y + s)))

    standing, crossed = space(cells[0]), space(cells[1])
    hazard = picture(title.hazard_symbol, round(0.72 * s))
    inked = sum(1 for p in hazard.convert("L").tobytes() if p)
    assert inked > 20
    # The standing hazard: the picture's ink, and no more than the space's edges beside it.
    dark = sum(1 for p in standing.convert("L").tobytes() if p == 0)
    assert inked <= dark <= inked + 4 * round(s) * 2
    # The crossed one: more ink, along both diagonals.
    assert sum(1 for p in crossed.convert("L").tobytes() if p == 0) > dark
    for k in (0.2, 0.8):
        assert crossed.getpixel((round(k * s), round(k * s))) == 0
        assert crossed.getpixel((round(k * s), round((1 - k) * s))) == 0


def test_a_blank_sheet_draws_nothing_a_player_wrote(title: Title) -> None:
    from pitable.rules.sheets import generate

    sheet = generate(title, 7)
    blank = strip_layout(sheet)
    assert not any(isinstance(s, Symbol) for s in blank.shapes)
    # An empty filled sheet with no score is the blank sheet.
    empty = tuple(tuple("#" if not k.inside and k.value == " " else
                        (k.value if k.value not in ". " else "_") for k in row)
                  for row in sheet.grid)
    assert paint(strip_layout(sheet, filled=Filled(empty))).tobytes() == paint(blank).tobytes()
