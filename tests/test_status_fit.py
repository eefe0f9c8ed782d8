"""Every page of the status screen fits its panel, in every title, roll, mode, danger count,
size and language, and nothing the title says is dropped; goldens of a few screens per
language.

The layout is measured without drawing (the same code draws it; the font metrics are the
drawing's own), so the whole set of about 36,000 pages takes seconds. The quick set takes
every fifth roll; the full set is marked slow.

Regenerate the goldens deliberately, after looking at the new images:
    PITABLE_REGEN_GOLDENS=1 .venv/bin/pytest tests/test_status_fit.py
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from PIL import Image

from pitable.commands.screen import screen_sizes
from pitable.i18n import LANGUAGES, translator
from pitable.render.status import (
    BODY,
    HEADER,
    HEADER_H,
    WORDS,
    StatusView,
    draw_status,
    layout,
    page_count,
    reading_of,
    status_lines,
)
from pitable.render.text import accented_capital
from pitable.rules import Roll, Title, all_rolls, find_title
from tests.conftest import assert_golden_image
from tests.support.i18n import has_translations
from tests.support.titles import title_params

GOLDEN = Path(__file__).parent / "golden" / "render" / "status" / "languages"
ROLLS = list(all_rolls())
#: The titles whose words the catalogues translate: another title's words are its own in
#: every language, so its translations are its English.
TRANSLATED_TITLES = title_params(has_translations)


def views(title: Title, roll: Roll, lang: str) -> list[StatusView]:
    """The screens one roll can give: table and solo, with every danger count before it."""
    found = []
    marked = range(title.hazard_limit + 1) if title.hazard_limit is not None else (0, 3)
    for solo in (False, True):
        for before in marked:
            options = title.options(roll, before)
            found.append(StatusView(
                title, solo=solo, round=7 if solo else 3,
                round_limit=title.solo_rounds if solo else None, options=options,
                hazards=before + int(options.hazard), lang=lang,
            ))
    return found


def words_of(text: str) -> list[str]:
    return text.split()


def check_fits(view: StatusView, size: tuple[int, int]) -> None:
    width, height = size
    pages = layout(view, size)
    assert len(pages) == page_count(view, size)
    for number, page in enumerate(pages):
        for placed in page:
            x0, y0, x1, y1 = placed.box
            where = f"{view.title.key} {view.lang} {size} page {number}: {placed.text!r}"
            assert placed.fits, f"cut or too big: {where}"
            assert x0 >= 0 and y0 >= 0 and x1 <= width and y1 <= height, f"off-screen: {where}"
    # Nothing dropped: every line of the title's words is on some page, word for word
    # (wrapping only breaks lines at spaces).
    reading = reading_of(view)
    assert reading is not None
    # The words read on across pages: their text is joined without the header and the
    # footer that each page repeats; the body's texts (the headline) count too.
    shown = " ".join(p.text for page in pages for p in page if p.part == WORDS) + " | " + \
        " ".join(p.text for p in pages[0] if p.part == BODY)
    said = reading.lines[1:] if reading.alarm else reading.lines
    for line in said:
        numbers_or_plays = line in (view.title.numbers_line(view.options, translator(view.lang)),
                                    view.title.plays_line(view.options, translator(view.lang)))
        if numbers_or_plays:
            continue  # shown big, or as plays, on the first page
        assert " ".join(words_of(line)) in " ".join(words_of(shown)), \
            f"dropped: {line!r} ({view.title.key} {view.lang} {size})"


def combinations(step: int) -> list[tuple[Roll, str]]:
    return [(roll, lang) for roll in ROLLS[::step] for lang in LANGUAGES]


def test_the_sizes_are_those_the_config_allows() -> None:
    assert screen_sizes() == [(128, 64), (256, 64)]


@pytest.mark.parametrize("size", screen_sizes(), ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_page_fits_a_sample_of_rolls(title: Title, size: tuple[int, int]) -> None:
    for roll, lang in combinations(5):
        for view in views(title, roll, lang):
            check_fits(view, size)


@pytest.mark.slow
@pytest.mark.parametrize("size", screen_sizes(), ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_page_fits_for_every_roll(title: Title, size: tuple[int, int]) -> None:
    for roll, lang in combinations(1):
        for view in views(title, roll, lang):
            check_fits(view, size)


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("size", screen_sizes(), ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_other_screens_fit(title: Title, lang: str, size: tuple[int, int]) -> None:
    """Before the first roll, at the end of a solo game, and with its level."""
    tr = translator(lang)
    for view in (
        StatusView(title, lang=lang),
        StatusView(title, message=tr.gettext("Press ROLL to roll"), lang=lang),
        game_over(title, lang),
        # A press after the last round of a solo Valley game.
        dataclasses.replace(game_over(title, lang), message=tr.gettext(
            "Game over after {rounds} rounds: hold ROLL, then End game").format(rounds=25)),
        StatusView(title, solo=True, round=25, round_limit=title.solo_rounds, hazards=3,
                   result="Explorer", message=tr.gettext("press ROLL"), lang=lang),
    ):
        for page in layout(view, size):
            assert all(p.fits for p in page), [p.text for p in page if not p.fits]
            assert all(not p.text.endswith("…") for p in page)


def game_over(title: Title, lang: str) -> StatusView:
    """The screen after the last round of a solo Valley game (the others have no limit)."""
    message = translator(lang).gettext("Last round played: hold ROLL, then End game")
    return StatusView(
        title, solo=True, round=25, round_limit=title.solo_rounds, hazards=4,
        options=title.options(Roll.from_str("5,5,4"), 4), message=message, lang=lang,
    )


def golden_views(lang: str) -> dict[str, StatusView]:
    island, valley, temple = (find_title(k) for k in ("island", "valley", "temple"))
    return {
        "hazard": StatusView(island, options=island.options(Roll.from_str("2,4,*"), 2),
                             hazards=3, round=5, lang=lang),
        "penny-dakota": StatusView(valley, options=valley.options(Roll.from_str("*,*,4")),
                                   round=5, lang=lang),
        "game-over": game_over(valley, lang),
        "mummy-solo": StatusView(temple, solo=True, round=9, hazards=2,
                                 options=temple.options(Roll.from_str("3,3,*")), lang=lang),
    }


def all_pages(view: StatusView, size: tuple[int, int]) -> Image.Image:
    """Every page side by side, 4 pixels apart, as ``pitable screen --png`` writes them."""
    pages = page_count(view, size)
    sheet = Image.new("1", (size[0] * pages + 4 * (pages - 1), size[1]), 0)
    for page in range(pages):
        sheet.paste(draw_status(dataclasses.replace(view, page=page, blink_on=False), size),
                    (page * (size[0] + 4), 0))
    return sheet


GOLDEN_CASES = [(lang, name, size) for lang in LANGUAGES for name in golden_views(lang)
                for size in screen_sizes()]


@pytest.mark.parametrize(("lang", "name", "size"), GOLDEN_CASES,
                         ids=[f"{lang}-{name}-{w}x{h}" for lang, name, (w, h) in GOLDEN_CASES])
def test_the_screens_in_each_language_match_their_goldens(
    lang: str, name: str, size: tuple[int, int]
) -> None:
    view = golden_views(lang)[name]
    assert_golden_image(all_pages(view, size), GOLDEN / f"{lang}-{name}-{size[0]}x{size[1]}.png")


def test_each_language_says_its_own_words() -> None:
    english = status_lines(golden_views("en")["hazard"])
    french = status_lines(golden_views("fr")["hazard"])
    spanish = status_lines(golden_views("es")["hazard"])
    assert "DANGER!" in english[0] and "DANGER\u202f!" in french[0] and "¡PELIGRO!" in spanish[0]
    assert english[0][0] == "Island" and french[0][0] == "Île" and spanish[0][0] == "Isla"
    assert len({english, french, spanish}) == 3


def test_the_header_stays_one_line_on_every_page() -> None:
    for lang in LANGUAGES:
        for view in golden_views(lang).values():
            for page in layout(view, (128, 64)):
                header = [p for p in page if p.box[1] == 0]
                # An accented capital ("Île") also takes the blank row above the rule.
                assert header and all(p.box[3] <= HEADER_H + 1 for p in header)


# --- no language gets less than English ---------------------------------------------------

SENTENCE_END = re.compile(r"(?<=[.!?]) ")


def cut_sentences(view: StatusView, size: tuple[int, int]) -> list[str]:
    """The sentences of the title's words that a page turn cuts in two."""
    pages = layout(view, size)
    shown = [" ".join(words_of(" ".join(p.text for p in page if p.part == WORDS)))
             for page in pages]
    reading = reading_of(view)
    assert reading is not None
    cut = []
    for line in reading.lines:
        for sentence in SENTENCE_END.split(line):
            said = " ".join(words_of(sentence))
            if len(words_of(said)) > 1 and said in " ".join(shown) and \
                    not any(said in page for page in shown):
                cut.append(sentence)
    return cut


def smallest(view: StatusView, size: tuple[int, int], part: int) -> int | None:
    sizes = [int(p.fitted.font.size) for page in layout(view, size) for p in page
             if p.part == part and p.text]
    return min(sizes) if sizes else None


def check_like_english(view: StatusView, english: StatusView, size: tuple[int, int]) -> None:
    """``view`` (a translation) writes its body and words no smaller than ``english`` does,
    and cuts no more sentences across a page turn."""
    where = f"{view.title.key} {view.lang} {size} solo={view.solo} {view.options}"
    for part in (BODY, WORDS):
        theirs, mine = smallest(english, size, part), smallest(view, size, part)
        if theirs is not None and mine is not None:
            assert mine >= theirs, f"{where}: part {part} at {mine} px, English at {theirs}"
    for part in (HEADER, BODY, WORDS):
        # A row with an accented capital ("Île", "Écrivez") is no smaller than English's.
        theirs = smallest(english, size, part)
        accented = [int(p.fitted.font.size) for page in layout(view, size) for p in page
                    if p.part == part and any(accented_capital(c) for c in p.text)]
        if theirs is not None and accented:
            assert min(accented) >= theirs, f"{where}: accented row at {min(accented)} px"
    cut = cut_sentences(view, size)
    assert len(cut) <= len(cut_sentences(english, size)), f"{where}: cut across pages: {cut}"


@pytest.mark.parametrize("title", TRANSLATED_TITLES, indirect=True)
@pytest.mark.parametrize("size", screen_sizes(), ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_translation_is_no_smaller_and_no_more_cut_than_english(
    title: Title, size: tuple[int, int],
) -> None:
    for roll in ROLLS[::7]:
        english = views(title, roll, "en")
        for lang in LANGUAGES:
            for view, theirs in zip(views(title, roll, lang), english, strict=True):
                check_like_english(view, theirs, size)


@pytest.mark.slow
@pytest.mark.parametrize("title", TRANSLATED_TITLES, indirect=True)
@pytest.mark.parametrize("size", screen_sizes(), ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_translation_is_no_smaller_and_no_more_cut_than_english_for_every_roll(
    title: Title, size: tuple[int, int],
) -> None:
    for roll in ROLLS:
        english = views(title, roll, "en")
        for lang in LANGUAGES:
            for view, theirs in zip(views(title, roll, lang), english, strict=True):
                check_like_english(view, theirs, size)


def test_a_sentence_crosses_a_page_turn_only_when_it_is_longer_than_a_page(title: Title) -> None:
    """The page turns fall between sentences: the only English sentence cut is the Temple's
    solo rule, longer than a page of the wide screen's words on its own."""
    cut = {s for roll in ROLLS[::7]
           for view in views(title, roll, "en") for size in screen_sizes()
           for s in cut_sentences(view, size)}
    assert cut <= ({title.solo_placement} if title.key == "temple" else set()), cut
