"""The TV's faceplate: the roll as the whole table sees it on a screen over HDMI.

One picture from one table view: the three dice large and in their colours, the numbers the
roll allows, the status screen's words, the round and hazards, the last few rolls, and the
code to join the table's page in a corner. Every length is a fraction of the picture's
height, so the same drawing fills a 1920x1080 TV, a 1280x720 one or a small monitor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from PIL import Image, ImageDraw

from pitable.i18n import translator
from pitable.render.faces import draw_face
from pitable.render.fonts import BOLD, CONDENSED_BOLD, REGULAR
from pitable.render.join import JoinCode, join_tile
from pitable.render.text import draw_fitted, fit_text, line_height, wrap_text
from pitable.rules import SPECIAL, Die, Face, Title, find_title
from pitable.rules.base import Translator
from pitable.rules.session import Mode

BACKGROUND = (30, 28, 27)
INK = (240, 236, 228)
DIM = (150, 142, 132)
ALARM = (235, 60, 50)
DIE_COLOURS = {Die.GREEN: (40, 150, 75), Die.PURPLE: (130, 70, 185), Die.RED: (200, 45, 45)}
#: The size of the picture where no screen gives one.
DEFAULT_SIZE = (1920, 1080)


class TableView(Protocol):
    """What the TV draws: the fields of the box's table snapshot it reads."""

    @property
    def title(self) -> str: ...
    @property
    def title_name(self) -> str: ...
    @property
    def mode(self) -> Mode: ...
    @property
    def map(self) -> str | None: ...
    @property
    def rolling(self) -> bool: ...
    @property
    def options(self) -> dict[str, Any] | None: ...
    @property
    def words(self) -> tuple[str, ...]: ...
    @property
    def round(self) -> int | None: ...
    @property
    def round_limit(self) -> int | None: ...
    @property
    def hazards(self) -> int | None: ...
    @property
    def hazard_limit(self) -> int | None: ...
    @property
    def result(self) -> str | None: ...
    @property
    def message(self) -> str | None: ...
    @property
    def recent(self) -> tuple[dict[str, Any], ...]: ...
    @property
    def lang(self) -> str: ...
    @property
    def ranking(self) -> tuple[tuple[int, str, int, bool], ...]: ...
    @property
    def corner(self) -> tuple[str, int, tuple[str, ...], tuple[tuple[str, ...], ...]] | None:
        ...


def face_of(value: object) -> Face:
    """A face as ``pitable options --json`` writes it: a number, or "*" for the special one."""
    return SPECIAL if value == "*" else int(str(value))


def _title(key: str) -> Title | None:
    try:
        return find_title(key)
    except LookupError:
        return None


def _text(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], text: str, name: str,
          fill: tuple[int, int, int], *, most: int, align: str = "left",
          valign: str = "center") -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    fitted = fit_text(text, x1 - x0, y1 - y0, name, max_size=most, min_size=8)
    # draw_fitted is typed for the 1-bit screens' colours; Pillow takes an RGB one as well.
    return draw_fitted(draw, box, fitted, fill=fill, align=align,  # type: ignore[arg-type]
                       valign=valign)


def die_square(face: Face | None, die: Die, title: Title | None, side: int,
               *, dim: bool = False) -> Image.Image:
    """One die, ``side`` pixels: a square in the die's colour with the face in white on it
    (blank before a roll and during the tumble; ``dim`` when a hazard cancels it)."""
    colour = DIE_COLOURS[die]
    if dim:
        r, g, b = colour
        colour = (r // 3 + 20, g // 3 + 20, b // 3 + 20)
    square = Image.new("RGB", (side, side), BACKGROUND)
    draw = ImageDraw.Draw(square)
    draw.rounded_rectangle((0, 0, side - 1, side - 1), radius=side // 8, fill=colour)
    if face is not None and title is not None:
        inner = int(side * 0.8)
        mask = draw_face(face, die, title, inner)
        ink = Image.new("RGB", mask.size, INK if not dim else DIM)
        offset = (side - inner) // 2
        square.paste(ink, (offset, offset), mask)
    return square


def _status_line(view: TableView, tr: Translator) -> str:
    _ = tr.gettext
    mode = _("solo") if view.mode == Mode.SOLO else _("table")
    parts = [mode] if view.map is None else [_("map {map}").format(map=view.map), mode]
    if view.round is not None:
        if view.round_limit:
            parts.append(_("round {round} of {limit}").format(round=view.round,
                                                              limit=view.round_limit))
        else:
            parts.append(_("round {round}").format(round=view.round))
    if view.hazards is not None:
        title = _title(view.title)
        # The title's own count ("3 snakes", "danger 3/5"), as the status screen says it.
        parts.append(title.hazards_text(view.hazards, tr) if title is not None
                     else str(view.hazards))
    return "  ·  ".join(parts)


def _roll_text(options: dict[str, Any]) -> str:
    return " ".join(str(f) for f in options["roll"])


def draw_tv(view: TableView, size: tuple[int, int] = DEFAULT_SIZE,
            join: JoinCode | None = None) -> Image.Image:
    """The TV's picture of ``view`` at ``size``, with the code to join in the bottom-right
    corner when ``join`` is given."""
    width, height = size
    u = height / 1080  # one pixel of the 1080-line design
    margin = round(40 * u)
    image = Image.new("RGB", size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    title = _title(view.title)
    options = view.options
    tr = translator(view.lang)
    _ = tr.gettext

    # The header: the title, then the mode, the round and the hazards.
    header_h = round(90 * u)
    name = title.display_name(tr) if title is not None else view.title_name
    _text(draw, (margin, margin, width // 2, margin + header_h), name, BOLD,
          INK, most=round(70 * u))
    _text(draw, (width // 2, margin, width - margin, margin + header_h),
          _status_line(view, tr), REGULAR, DIM, most=round(52 * u), align="right")

    # The join code in the bottom-right corner, beside the words.
    side = round(300 * u) if join is not None else 0
    if join is not None:
        tile = join_tile(join, side)
        image.paste(tile, (width - margin - tile.width, height - margin - tile.height))

    # The dice, as large as the width and a third of the height allow.
    top = margin + header_h + round(30 * u)
    die_side = min(round(360 * u), (width - 2 * margin - 2 * round(60 * u)) // 3)
    gap = round(60 * u)
    row_w = 3 * die_side + 2 * gap
    x = (width - row_w) // 2
    hazard = bool(options and options.get("hazard"))
    roll = [face_of(f) for f in options["roll"]] if options else None
    for die in Die:
        face = roll[int(die)] if roll is not None else None
        dim = hazard and die is not Die.RED
        image.paste(die_square(face, die, title, die_side, dim=dim), (x, top))
        x += die_side + gap
    y = top + die_side + round(30 * u)

    # The numbers the roll allows, or what the box is doing.
    numbers_h = round(130 * u)
    text_right = width - margin - (side + margin if side else 0)
    if view.ranking and not view.rolling:
        # An ended table game: the winner, large, where the numbers were.
        _text(draw, (margin, y, width - margin, y + numbers_h), view.message or "", BOLD,
              INK, most=round(120 * u), align="center")
    elif view.rolling:
        _text(draw, (margin, y, width - margin, y + numbers_h), _("Rolling..."), BOLD, DIM,
              most=round(110 * u), align="center")
    elif view.result is not None:
        _text(draw, (margin, y, width - margin, y + numbers_h), view.result, BOLD, INK,
              most=round(110 * u), align="center")
    elif options is not None and hazard and title is not None:
        _text(draw, (margin, y, width - margin, y + numbers_h), title.hazard_headline(tr), BOLD,
              ALARM, most=round(120 * u), align="center")
    elif options is not None:
        numbers = " ".join(str(n) for n in options["numbers"]) or _("nothing")
        _text(draw, (margin, y, width - margin, y + numbers_h), numbers, CONDENSED_BOLD, INK,
              most=round(120 * u), align="center")
    elif view.message:
        _text(draw, (margin, y, width - margin, y + numbers_h), view.message, BOLD, DIM,
              most=round(90 * u), align="center")
    y += numbers_h + round(20 * u)

    # The status screen's words, below, left of the join code.
    words = [w for w in view.words if w] if not view.rolling else []
    if words and view.message and options is not None:
        # What the box says beside the roll (who is still writing, the last round), under
        # the roll's words.
        words.append(view.message)
    if view.ranking and not view.rolling:
        # The ranking below it, best first, under its heading.
        words = [_("Ranking")] + [
            f"{place}{'=' if shared else '.'} {initials}  {total}"
            for place, initials, total, shared in view.ranking]
    recent_h = round(60 * u)
    words_bottom = height - margin - recent_h - round(10 * u)
    if view.corner is not None and not view.rolling:
        # A player's sheet, on the right of the words (each player's in turn, the
        # winner's at the end).
        corner_w = min(round(560 * u), (text_right - margin) // 3)
        _corner(draw, view.corner, (text_right - corner_w, y, text_right, words_bottom), u)
        text_right -= corner_w + margin
    if words:
        _words(draw, words, (margin, y, text_right, words_bottom), u)

    # The last rolls, oldest last, along the bottom.
    if view.recent:
        shown = " | ".join(_roll_text(r) for r in view.recent[:6])
        _text(draw, (margin, height - margin - recent_h, text_right, height - margin),
              _("Last rolls: {rolls}").format(rolls=shown), REGULAR, DIM, most=round(40 * u))
    return image


#: A sheet's paper on the TV, its lines, and a standing hazard.
PAPER = (251, 248, 241)
LINE = (138, 133, 125)
HAZARD = (208, 44, 44)


def _corner(draw: ImageDraw.ImageDraw,
            corner: tuple[str, int, tuple[str, ...], tuple[tuple[str, ...], ...]],
            box: tuple[int, int, int, int], u: float) -> None:
    """A player's sheet in ``box``: their initials and stars above, then the map, each of
    its spaces on paper with what is written there (a number, a letter, a hazard)."""
    initials, total, rows, cells = corner
    x0, y0, x1, y1 = box
    caption_h = round(56 * u)
    _text(draw, (x0, y0, x1, y0 + caption_h), f"{initials} · {total}", BOLD, INK,
          most=round(48 * u), align="right")
    top = y0 + caption_h + round(8 * u)
    height, width = len(rows), max((len(r) for r in rows), default=0)
    if not height or not width or y1 <= top:
        return
    side = max(4, min((x1 - x0) // width, (y1 - top) // height))
    left = x1 - side * width
    for r, row in enumerate(cells):
        for c, token in enumerate(row):
            if token in ("#", "") or c >= len(rows[r]) or rows[r][c] == " ":
                continue
            cx, cy = left + c * side, top + r * side
            draw.rectangle((cx, cy, cx + side - 1, cy + side - 1), fill=PAPER, outline=LINE)
            base = token.split("/")[0]
            kind = rows[r][c]
            if kind != "." and base.startswith(kind):
                base = base[len(kind):]
            if base in ("", "_"):
                continue
            if base in ("X", "x"):
                inset = side // 5
                draw.rectangle((cx + inset, cy + inset, cx + side - 1 - inset,
                                cy + side - 1 - inset), fill=HAZARD if base == "X" else LINE)
                continue
            fitted = fit_text(base, side - 2, side - 2, BOLD, max_size=max(6, side * 2 // 3),
                              min_size=4, line=True)
            draw_fitted(draw, (cx + 1, cy + 1, cx + side - 1, cy + side - 1), fitted,
                        fill=BACKGROUND, align="center", valign="center")  # type: ignore[arg-type]


def _words(draw: ImageDraw.ImageDraw, words: Sequence[str], box: tuple[int, int, int, int],
           u: float) -> None:
    """The headline in bold, then each line, wrapped, all at the largest size that fits."""
    x0, y0, x1, y1 = box
    head = fit_text(words[0], x1 - x0, round(64 * u), BOLD, max_size=round(56 * u),
                    min_size=8, line=True)
    y = draw_fitted(draw, (x0, y0, x1, y0 + head.height), head, fill=INK,  # type: ignore[arg-type]
                    align="left", valign="top")[3] + round(14 * u)
    gap = round(6 * u)
    size, lines = 8, [wrap_text(w, x1 - x0, 8, REGULAR, 99) for w in words[1:]]
    for candidate in range(max(8, round(44 * u)), 8, -1):
        wrapped = [wrap_text(w, x1 - x0, candidate, REGULAR, 99) for w in words[1:]]
        step = line_height(candidate, REGULAR) + gap
        if sum(len(w) for w in wrapped) * step <= y1 - y:
            size, lines = candidate, wrapped
            break
    step = line_height(size, REGULAR) + gap
    for line in (line for paragraph in lines for line in paragraph):
        if y + step > y1:
            break
        fitted = fit_text(line, x1 - x0, step, REGULAR, max_size=size, min_size=min(8, size),
                          line=True)
        draw_fitted(draw, (x0, y, x1, y + step), fitted, fill=INK,  # type: ignore[arg-type]
                    align="left", valign="top")
        y += step
