"""Die faces for the 128x64 dice OLEDs: pips, the special symbols, the tumble animation.

Every drawing is designed on a 64x64 grid (the height of the panels) and scaled by
``size / 64``, in mode "1": a lit pixel is 1. The die is an outline with lit pips rather
than a lit square with dark pips, because a mostly dark OLED is easier on the eyes in a dim
room and wears its pixels evenly. Symbols are drawn with Pillow primitives only, so they
need no image files and look the same on every machine.

The special faces' pictures are kept by name (:func:`register_picture`): a title names the
picture of its green face (``GreenEffect.picture``) and of its hazard (``hazard_symbol``),
and a picture no drawing is registered for is a generic warning sign, never another title's.
A title registered from outside pitable brings its pictures the same way; the rules never
import drawing.

Drawing is cached: a face depends only on (face, die, title, size), and the box redraws the
same 18 faces all evening. Callers get a copy, so they may draw on it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache

from PIL import Image, ImageChops, ImageDraw

from pitable.i18n import SOURCE_LANGUAGE, translator
from pitable.render.fonts import CONDENSED_BOLD
from pitable.render.text import draw_fitted, fit_text, measure
from pitable.rules.base import N_, PENNY, Title
from pitable.rules.dice import DICE, SPECIAL, Die, Face

GRID = 64
ON, OFF = 1, 0

#: Pip centres on the 64 grid, laid out as on a real die. With the radius below every pip is
#: 15 pixels across, and those of the faces 1 to 5 lie in two pages of eight rows each
#: (rows 9-23, 25-39, 41-55 at 64 rows): a pip that changes costs the panel two windows,
#: not three. (The six, a face only the "2 to 6" dice have, spreads its rows wider.)
_L, _C, _R = 16, 32, 48
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((_C, _C),),
    2: ((_R, _L), (_L, _R)),
    3: ((_R, _L), (_C, _C), (_L, _R)),
    4: ((_L, _L), (_R, _L), (_L, _R), (_R, _R)),
    5: ((_L, _L), (_R, _L), (_C, _C), (_L, _R), (_R, _R)),
    # Six: the rows spread further apart than the others' so that the pips do not touch.
    6: ((_L, 14), (_R, 14), (_L, _C), (_R, _C), (_L, 50), (_R, 50)),
}
#: A whole radius: a half one rounds differently at each centre, and the middle pip came out
#: two pixels smaller than the corner ones.
PIP_RADIUS = 7
#: Each die's name on its panel, in capitals, in the box's language.
DIE_LABELS = {Die.GREEN: N_("GREEN"), Die.PURPLE: N_("PURPLE"), Die.RED: N_("RED")}


def die_label(die: Die, lang: str = SOURCE_LANGUAGE) -> str:
    """``die``'s name as its panel writes it, in ``lang``: GREEN, VERT, VERDE."""
    return translator(lang).gettext(DIE_LABELS[die])


class Pen:
    """Draws on the 64 grid, scaled to the image's size: what a picture's drawing gets.

    Coordinates are on the 64 grid, (0, 0) top left; ``ON`` lights a pixel, ``OFF`` puts it
    out again. :attr:`draw` is the Pillow ``ImageDraw`` for what the helpers do not cover,
    with :meth:`box`, :meth:`pts` and :meth:`p` to scale its coordinates.
    """

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.k = image.height / GRID

    def p(self, v: float) -> int:
        return round(v * self.k)

    def pts(self, points: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
        return [(self.p(x), self.p(y)) for x, y in points]

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[int, int, int, int]:
        return (self.p(x0), self.p(y0), self.p(x1), self.p(y1))

    def w(self, width: float) -> int:
        return max(1, round(width * self.k))

    def disc(self, x: float, y: float, r: float, fill: int = ON) -> None:
        self.draw.ellipse(self.box(x - r, y - r, x + r, y + r), fill=fill)

    def poly(self, points: Sequence[tuple[float, float]], fill: int = ON) -> None:
        self.draw.polygon(self.pts(points), fill=fill)

    def line(self, points: Sequence[tuple[float, float]], width: float, fill: int = ON) -> None:
        self.draw.line(self.pts(points), fill=fill, width=self.w(width), joint="curve")


def _outline(pen: Pen) -> None:
    pen.draw.rounded_rectangle(pen.box(1, 1, 62, 62), radius=pen.p(9), outline=ON,
                               width=pen.w(2))


def _pips(pen: Pen, n: int) -> None:
    for x, y in PIPS[n]:
        pen.disc(x, y, PIP_RADIUS)


# --- the special symbols, each inside the die outline ----------------------------


def _hut(pen: Pen) -> None:
    """A hut with a pitched roof, walls, a door and two windows, on the ground."""
    pen.poly([(8, 31), (32, 9), (56, 31)])  # roof
    pen.line([(32, 9), (32, 4)], 2)  # ridge pole, so the roof reads as thatch not a warning
    pen.draw.rectangle(pen.box(15, 31, 49, 52), fill=ON)  # walls
    pen.draw.rectangle(pen.box(27, 38, 37, 52), fill=OFF)  # door
    pen.draw.rectangle(pen.box(19, 36, 24, 41), fill=OFF)  # window
    pen.draw.rectangle(pen.box(40, 36, 45, 41), fill=OFF)
    pen.line([(6, 55), (58, 55)], 2)  # ground


def _boat(pen: Pen) -> None:
    """A sailing boat on a wave: a mast, a main sail and a jib over the hull."""
    pen.line([(31, 8), (31, 42)], 2)  # mast
    pen.poly([(34, 9), (34, 38), (54, 38)])  # main sail
    pen.poly([(28, 15), (28, 38), (13, 38)])  # jib
    pen.poly([(7, 41), (57, 41), (49, 51), (15, 51)])  # hull
    wave = [(6 + i * 2, 56 + 2 * math.sin(i * math.pi / 4)) for i in range(27)]
    pen.line(wave, 1.5)


def _lockpick(pen: Pen) -> None:
    """A key: a round bow with a hole, a shaft and a two-toothed bit."""
    pen.disc(17, 30, 13)  # bow
    pen.disc(17, 30, 6, fill=OFF)
    pen.draw.rectangle(pen.box(28, 26, 59, 34), fill=ON)  # shaft
    pen.draw.rectangle(pen.box(42, 34, 47, 45), fill=ON)  # bit
    pen.draw.rectangle(pen.box(52, 34, 59, 49), fill=ON)


def _star_points(cx: float, cy: float, outer: float, inner: float) -> list[tuple[float, float]]:
    points = []
    for i in range(10):
        r = outer if i % 2 == 0 else inner
        a = -math.pi / 2 + i * math.pi / 5
        points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return points


def _penny(pen: Pen) -> None:
    """Purple: Penny Papers, any number of the rules' range: a star with the range ("1-15")
    under it.

    The star is the series' mark of a free choice; the range is written so that a player
    who has never seen the dice knows what the face gives.
    """
    pen.poly(_star_points(32, 23, 20, 8.5))
    box = pen.box(8, 45, 56, 59)
    fitted = fit_text(PENNY, box[2] - box[0], box[3] - box[1], CONDENSED_BOLD,
                      max_size=max(6, pen.p(15)), min_size=5)
    draw_fitted(pen.draw, box, fitted)


def _snake(pen: Pen) -> None:
    """A snake: a winding body rising to a head with an eye and a tongue."""
    # The body tapers from the head to the tail: drawn as discs along a sine, bigger
    # towards the head, which reads as a snake rather than as a thick squiggle.
    steps = 40
    for i in range(steps + 1):
        t = i / steps
        x = 9 + 34 * t
        y = 52 - 26 * t - 9 * math.sin(t * 2.4 * math.pi)
        pen.disc(x, y, 2 + 3 * t)
    hx, hy = 47, 19
    pen.draw.ellipse(pen.box(hx - 9, hy - 7, hx + 9, hy + 7), fill=ON)  # head
    pen.disc(hx + 2, hy - 2.5, 2, fill=OFF)  # eye
    pen.line([(hx + 8, hy + 2), (hx + 12, hy + 2)], 1.5)  # forked tongue
    pen.line([(hx + 12, hy + 2), (hx + 16, hy - 1)], 1.2)
    pen.line([(hx + 12, hy + 2), (hx + 16, hy + 5)], 1.2)


def _skull(pen: Pen) -> None:
    """A skull over crossed bones."""
    for a, b in (((10, 44), (54, 58)), ((54, 44), (10, 58))):
        pen.line([a, b], 4)
        for x, y in (a, b):
            pen.disc(x, y, 3.2)
    pen.draw.ellipse(pen.box(15, 6, 49, 38), fill=ON)  # cranium
    pen.draw.rounded_rectangle(pen.box(21, 30, 43, 46), radius=pen.p(3), fill=ON)  # jaw
    pen.draw.ellipse(pen.box(20, 18, 30, 28), fill=OFF)  # eyes
    pen.draw.ellipse(pen.box(34, 18, 44, 28), fill=OFF)
    pen.poly([(32, 29), (29, 34), (35, 34)], fill=OFF)  # nose
    for x in (26, 30, 34, 38):  # teeth
        pen.line([(x, 39), (x, 45)], 1.2, fill=OFF)


def _mummy(pen: Pen) -> None:
    """A mummy's head, wrapped in bandages, two eyes in the gap."""
    pen.draw.rounded_rectangle(pen.box(15, 6, 49, 58), radius=pen.p(13), fill=ON)
    for y in (13, 20, 40, 47, 54):  # the gaps between bandages, slanting like wrapped cloth
        pen.line([(14, y + 3), (50, y - 3)], 1.6, fill=OFF)
    pen.draw.rectangle(pen.box(15, 25, 49, 35), fill=OFF)  # the eye slit
    for x in (25, 39):  # staring eyes: a lit ring round a dark pupil
        pen.disc(x, 30, 4.6)
        pen.disc(x + 0.8, 30.5, 1.8, fill=OFF)


def _warning(pen: Pen) -> None:
    """For a picture name with no drawing of its own: a warning sign, a triangle with a "!"."""
    pen.poly([(32, 5), (60, 56), (4, 56)])
    pen.poly([(32, 17), (50, 50), (14, 50)], fill=OFF)
    pen.line([(32, 26), (32, 38)], 5)
    pen.disc(32, 44.5, 3)


#: The name of the generic warning sign: what a picture name with no drawing gets.
WARNING = "warning"
#: A picture's drawing: it draws on the 64 grid with the pen it is given.
Drawing = Callable[[Pen], None]
#: The special faces' pictures by name: each title names its green face's
#: (``GreenEffect.picture``) and its hazard's (``Title.hazard_symbol``).
_PICTURES: dict[str, Drawing] = {
    "hut": _hut,
    "boat": _boat,
    "lockpick": _lockpick,
    "snake": _snake,
    "skull": _skull,
    "mummy": _mummy,
    WARNING: _warning,
}


def register_picture(name: str, draw: Drawing) -> None:
    """Draw the picture called ``name`` with ``draw`` from now on: how a title registered
    from outside pitable brings the pictures its green effect and its hazard name.

    Register before the first face of the title is drawn: the faces already drawn are
    forgotten here, but a caller's own cache of them is not. Raises :class:`ValueError`
    when ``name`` already has a drawing.
    """
    if name in _PICTURES:
        raise ValueError(f"picture {name!r}: the name is taken")
    _PICTURES[name] = draw
    _forget_faces()


def unregister_picture(name: str) -> None:
    """Forget the picture ``name`` registered with :func:`register_picture`: it is drawn
    as the warning sign again."""
    if name in _BUILT_IN:
        raise ValueError(f"picture {name!r}: pitable's own pictures stay")
    _PICTURES.pop(name, None)
    _forget_faces()


_BUILT_IN = frozenset(_PICTURES)


def picture_name(name: str) -> str:
    """``name`` when a picture of that name is registered, :data:`WARNING` otherwise."""
    return name if name in _PICTURES else WARNING


def picture(name: str, size: int) -> Image.Image:
    """The picture called ``name`` (the warning sign when no drawing has that name) on a
    ``size`` by ``size`` square in mode "1", lit pixels 1: a printed sheet draws a hazard
    with it."""
    image = Image.new("1", (size, size), OFF)
    _PICTURES[picture_name(name)](Pen(image))
    return image


def symbol_kind(die: Die, title: Title) -> str:
    """The name of the picture on ``die``'s special face in ``title``: "hut", "skull", ..."""
    if die is Die.GREEN:
        return picture_name(title.green_effect.picture)
    if die is Die.PURPLE:
        return "penny"
    return picture_name(title.hazard_symbol)


def draw_symbol(image: Image.Image, die: Die, title: Title,
                box: tuple[int, int, int, int] | None = None) -> None:
    """Draw ``die``'s special symbol for ``title`` onto ``image``, inside ``box``.

    ``box`` (left, top, right, bottom) should be square; the status screen draws its small
    icons this way.
    Without it the symbol fills the image, which must be square.
    """
    if box is None:
        target = image
    else:
        left, top, right, bottom = box
        target = Image.new("1", (right - left, bottom - top), OFF)
    pen = Pen(target)
    if die is Die.PURPLE:
        _penny(pen)
    else:
        _PICTURES[symbol_kind(die, title)](pen)
    if box is not None:
        image.paste(ON, box[:2], target)


@lru_cache(maxsize=256)
def _face(face: Face, die: Die, title: Title, size: int) -> Image.Image:
    image = Image.new("1", (size, size), OFF)
    pen = Pen(image)
    if face is SPECIAL:
        draw_symbol(image, die, title)
    else:
        _outline(pen)
        _pips(pen, int(face))
    return image


def draw_face(face: Face, die: Die, title: Title, size: int = 64) -> Image.Image:
    """One face of ``die`` in ``title``: pips 1 to 6 or the die's special symbol.

    A square ``size`` x ``size`` image in mode "1". The special face has no die outline:
    the symbol uses the whole square so that it reads from across the table, and the
    missing outline is a second cue, besides the shape, that this is not a number.
    """
    if face is not SPECIAL and face not in PIPS:
        raise ValueError(f"face {face!r}: expected 1 to 6 or the special face")
    return _face(face, die, title, size).copy()


def draw_blank(size: int = 64) -> Image.Image:
    """An unlit square, for a die that has not been rolled yet."""
    return Image.new("1", (size, size), OFF)


def _tumble_pips(step: int, die: Die) -> int:
    # A fixed, cheap mix of (step, die) so that the three dice tumble differently and the
    # same step always looks the same (the animation is tested against goldens).
    mixed = (step * 2654435761 + int(die) * 40503 + 7) & 0xFFFFFFFF
    return (mixed >> 13) % 5 + 1


@lru_cache(maxsize=256)
def _tumble(die: Die, title: Title, step: int, size: int) -> Image.Image:
    image = Image.new("1", (size, size), OFF)
    pen = Pen(image)
    angle = math.radians((step * 27 + int(die) * 31) % 90)
    c, s = math.cos(angle), math.sin(angle)
    half = 20.5  # a side of 41 keeps the rotated die inside the square at every angle

    def at(x: float, y: float) -> tuple[float, float]:
        return (32 + x * c - y * s, 32 + x * s + y * c)

    corners = [at(x, y) for x, y in ((-half, -half), (half, -half), (half, half), (-half, half))]
    pen.line([*corners, corners[0]], 2)
    for x, y in PIPS[_tumble_pips(step, die)]:
        px, py = at((x - 32) * 0.62, (y - 32) * 0.62)
        pen.disc(px, py, 4)
    # Motion marks on the trailing side: the die reads as moving, not as a tilted face.
    for i, dy in enumerate((-12, 0, 12)):
        length = 4 + 2 * ((step + i) % 3)
        pen.line([(3, 32 + dy), (3 + length, 32 + dy)], 1.5)
    return image


def draw_tumble_frame(die: Die, title: Title, step: int, size: int = 64) -> Image.Image:
    """Frame ``step`` of the short roll animation: a tilted die with changing pips.

    Deterministic in (die, step): the look of a tumble, not a random draw.
    """
    return _tumble(die, title, step, size).copy()


@lru_cache(maxsize=256)
def _tilted_panel(die: Die, title: Title, step: int, size: tuple[int, int],
                  lang: str) -> Image.Image:
    width, height = size
    return face_panel(_tumble(die, title, step, min(width, height)), width, height,
                      label=die_label(die, lang), lang=lang)


def tilted_tumble_panel(die: Die, title: Title, step: int, *, width: int = 128,
                        height: int = 64, lang: str = SOURCE_LANGUAGE) -> Image.Image:
    """A whole die panel of the tilted tumble: frame ``step`` of :func:`draw_tumble_frame`,
    centred, with the die's label.

    The box rolls its dice with :func:`tumble_panel` instead, which the panels show by
    their start-line command; this tumble redraws the whole die every frame, and is kept so
    that the benchmark measures both.
    """
    return _tilted_panel(die, title, step, (width, height), lang).copy()


#: Rows each die's face travels down the panel per tumble frame: three different speeds, so
#: that the dice do not roll in step with each other.
TUMBLE_SPEED = {Die.GREEN: 11, Die.PURPLE: 14, Die.RED: 17}


def tumble_lines(die: Die, step: int, height: int = 64) -> int:
    """The row of the picture shown at the top of the panel in tumble frame ``step``: the face
    travels down and comes back in from the top, like a die rolling toward the player."""
    return -(step + 1) * TUMBLE_SPEED[die] % height


def rolled(picture: Image.Image, lines: int) -> Image.Image:
    """``picture`` with its row ``lines`` at the top and the rows above it wrapped below:
    what an OLED shows of a picture in its RAM when its display start line is ``lines``."""
    return ImageChops.offset(picture, 0, -lines)


@lru_cache(maxsize=512)
def _tumble_panel(face: Face | None, die: Die, title: Title, step: int,
                  size: tuple[int, int], *, lang: str) -> Image.Image:
    start = _tumble_pips(0, die) if face is None else face
    width, height = size
    picture = _die_panel(start, die, title, size, lang)
    if width >= height:
        return rolled(picture, tumble_lines(die, step, height))
    # A panel turned a quarter: the face travels across, which is along the panel's own
    # rows, so that the panel still shows every frame by its start-line command.
    return ImageChops.offset(picture, -tumble_lines(die, step, width), 0)


def tumble_panel(face: Face | None, die: Die, title: Title, step: int, *, width: int = 128,
                 height: int = 64, lang: str = SOURCE_LANGUAGE) -> Image.Image:
    """A whole die panel for tumble frame ``step`` of a roll from ``face``: the labelled panel
    of the face shown before the press (of a few pips, when none was), rolled down by
    :func:`tumble_lines` (across, on a panel turned a quarter, taller than wide).

    Every frame of a tumble is the same picture rolled, so a panel shows it by moving its
    display start line (one command byte) instead of receiving the picture again; only the
    final face is written. Cached per (face, die, title, step, size, language).
    """
    return _tumble_panel(face, die, title, step, (width, height), lang=lang).copy()


def face_panel(
    face_img: Image.Image,
    width: int = 128,
    height: int = 64,
    align: str = "center",
    *,
    label: str | None = None,
    lang: str = SOURCE_LANGUAGE,
) -> Image.Image:
    """``face_img`` placed on a ``width`` x ``height`` panel, with an optional die label.

    ``align`` is "left", "center" or "right". ``label`` (e.g. "GREEN", :func:`die_label`)
    is written in the widest free margin, rotated to run up the side: the OLEDs are
    monochrome, so nothing on the screen says which die it is; a player who cannot tell the
    bezels' colours apart (or a box built without coloured bezels) still knows which die
    cancels the others. It is written at the size that fits the widest of the three dice's
    labels in ``lang``, so that the three panels match.
    """
    panel = Image.new("1", (width, height), OFF)
    fw, fh = face_img.size
    if align == "left":
        x = 0
    elif align == "right":
        x = width - fw
    else:
        x = (width - fw) // 2
    y = (height - fh) // 2
    panel.paste(face_img.convert("1"), (x, y))
    if label and width >= height:
        left_gap, right_gap = x, width - x - fw
        gap_x, gap_w = (0, left_gap) if left_gap >= right_gap else (x + fw, right_gap)
        _label(panel, label, gap_x, gap_w, lang)
    elif label:
        # A panel turned a quarter: the margins are above and below the face, wide enough
        # for the name written across.
        top_gap, bottom_gap = y, height - y - fh
        gap_y, gap_h = (0, top_gap) if top_gap >= bottom_gap else (y + fh, bottom_gap)
        _label_across(panel, label, gap_y, gap_h, lang)
    return panel


def _widest_label(lang: str) -> str:
    """The label of the three dice that needs the most room in ``lang`` ("PURPLE")."""
    return max((die_label(die, lang) for die in DICE),
               key=lambda label: measure(label, 14, CONDENSED_BOLD)[0])


def _label_across(panel: Image.Image, label: str, y: int, h: int, lang: str) -> None:
    """``label`` written across the panel in the margin from row ``y``, ``h`` rows high."""
    if h < 6:
        return
    box = (2, y + 1, panel.width - 2, y + h - 1)
    width, height = box[2] - box[0], box[3] - box[1]
    # One size for every die, the size that fits the longest name, so the three panels match.
    size = fit_text(_widest_label(lang), width, height, CONDENSED_BOLD, max_size=14,
                    min_size=6).font.size
    fitted = fit_text(label, width, height, CONDENSED_BOLD, max_size=int(size),
                      min_size=min(6, int(size)))
    draw_fitted(ImageDraw.Draw(panel), box, fitted)


def _label(panel: Image.Image, label: str, x: int, w: int, lang: str) -> None:
    if w < 6:
        return
    # Drawn sideways: a 32-pixel margin fits "PURPLE" sideways at a readable size, not across.
    strip = Image.new("1", (panel.height, w - 2), OFF)
    # One size for every die, the size that fits the longest name, so the three panels match.
    size = fit_text(_widest_label(lang), strip.width - 4, strip.height, CONDENSED_BOLD,
                    max_size=14, min_size=6).font.size
    fitted = fit_text(label, strip.width - 4, strip.height, CONDENSED_BOLD,
                      max_size=int(size), min_size=min(6, int(size)))
    draw_fitted(ImageDraw.Draw(strip), (0, 0, strip.width, strip.height), fitted)
    panel.paste(strip.rotate(90, expand=True), (x + 1, 0))


@lru_cache(maxsize=128)
def _die_panel(face: Face | None, die: Die, title: Title, size: tuple[int, int],
               lang: str | None) -> Image.Image:
    width, height = size
    # The face is as large a square as the panel holds: its height on a panel lying down,
    # its width on one turned a quarter (64 by 128).
    side = min(width, height)
    face_img = draw_blank(side) if face is None else _face(face, die, title, side)
    if lang is None:
        return face_panel(face_img, width, height)
    return face_panel(face_img, width, height, label=die_label(die, lang), lang=lang)


def die_panel(face: Face | None, die: Die, title: Title, *, width: int = 128,
              height: int = 64, label: bool = True,
              lang: str = SOURCE_LANGUAGE) -> Image.Image:
    """A whole die panel: the face (blank when ``face`` is None), centred, with the die's
    label in ``lang``."""
    return _die_panel(face, die, title, (width, height), lang if label else None).copy()


def _forget_faces() -> None:
    """Forget every face drawn, for a picture registered or forgotten to show."""
    for cached in (_face, _tumble_panel, _die_panel):
        cached.cache_clear()
